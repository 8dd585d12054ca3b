"""The instruction record: one per instruction of every ISA, as the catalog lists it.

A record joins the core's :class:`~intdot.core.DotSpec` (what one step computes) with the
facts an ISA adds: its spellings, its accumulation rule, its K step and the feature
expression a target must satisfy.  Front ends build records from their own tables; the
catalog only reads them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from ..core.errors import OperandError
from ..core.spec import DotSpec


@dataclass(frozen=True)
class Instruction:
    """One instruction (AMD builtin, Arm form, x86 instruction, ...) as every ISA describes it.

    ``spec`` is the core's :class:`~intdot.core.DotSpec`; for an instruction
    whose operand signedness is an argument (``sign_args``, AMD ``sudot4``)
    it is the signed x signed case and :meth:`spec_for` gives the others.
    ``neg``/``clamp`` are ``True``/``False`` where the instruction fixes them
    (``clamp=True``: it saturates at every step, as ``vpdpbusds``) and ``None``
    where the caller passes them.  ``features`` is an expression for
    :mod:`intdot.core.features`.  ``swapped`` holds the spellings (lower case)
    that give the two sources in the opposite order (ACLE ``svsudot_s32`` is
    USDOT with its sources exchanged).
    """

    isa: str
    name: str
    mnemonic: str
    spellings: tuple[str, ...]
    spec: DotSpec
    k_step: tuple[int, int]
    neg: bool | None
    clamp: bool | None
    sign_args: bool
    features: str
    syntax: str
    summary: str = ""
    swapped: frozenset = frozenset()
    row: Any = field(default=None, compare=False, repr=False)  # the front end's own row (Builtin, Form, ...)

    def spec_for(self, a_signed: bool | None = None, b_signed: bool | None = None) -> DotSpec:
        """The spec with the operands' signedness an instruction with ``sign_args`` takes as arguments."""
        if not self.sign_args:
            if a_signed is not None or b_signed is not None:
                raise OperandError(f"{self.name} fixes its operands' signedness; pass no a_signed/b_signed")
            return self.spec
        if not isinstance(a_signed, bool) or not isinstance(b_signed, bool):
            from ..core.values import describe  # imports NumPy: only for the error

            raise OperandError(
                f"a_signed={describe(a_signed)}, b_signed={describe(b_signed)}: {self.name} takes its operands' "
                f"signedness as arguments; expected True or False for each"
            )
        return replace(self.spec, a_signed=a_signed, b_signed=b_signed)

    @property
    def lanes(self) -> str:
        """The operands' lanes, as ``4 x s8 . 4 x u8`` (``sign_args``: ``?8``; a selector: ``[2:4]``)."""
        return f"{_lane(self, 'a')} . {_lane(self, 'b')}"

    @property
    def acc(self) -> str:
        """The accumulator type: ``s32``, ``u32``, ``s64``, ``u64``, ``s16``."""
        return f"{'s' if self.spec.acc_signed else 'u'}{self.spec.acc_bits}"

    @property
    def rule(self) -> str:
        """How a step accumulates: ``wrap``, ``saturate``, ``wrap|saturate`` (an argument chooses), with
        ``pairs->s16`` in front where pair sums saturate first."""
        base = {None: "wrap|saturate", True: "saturate", False: "wrap"}[self.clamp]
        return f"pairs->s{self.spec.pair_sat} {base}" if self.spec.pair_sat else base

    def as_dict(self) -> dict:
        """A JSON-ready description (``intdot list --json``)."""
        s = self.spec
        spec = {
            "a_width": s.a_width,
            "b_width": s.b_width,
            "lanes": s.lanes,
            "a_signed": None if self.sign_args else s.a_signed,
            "b_signed": None if self.sign_args else s.b_signed,
            "acc_bits": s.acc_bits,
            "acc_signed": s.acc_signed,
        }
        for extra, default in (("a_first", 0), ("b_first", 0), ("pair_sat", None)):
            if getattr(s, extra) != default:
                spec[extra] = getattr(s, extra)
        if s.selects:
            spec["a_word"], spec["b_word"] = s.a_word, s.b_word
        return {
            "isa": self.isa,
            "name": self.name,
            "mnemonic": self.mnemonic,
            "spellings": list(self.spellings),
            "spec": spec,
            "k_step": list(self.k_step),
            "neg": self.neg,
            "clamp": self.clamp,
            "rule": self.rule,
            "sign_args": self.sign_args,
            "features": self.features,
            "syntax": self.syntax,
            "summary": self.summary,
        }


def _lane(rec: Instruction, which: str) -> str:
    s = rec.spec
    sign = "?" if rec.sign_args else ("s" if getattr(s, f"{which}_signed") else "u")
    first = getattr(s, f"{which}_first")
    where = (
        f"[{first}:{first + s.lanes}]" if getattr(s, f"{which}_word") != s.lanes * getattr(s, f"{which}_width") else ""
    )
    return f"{s.lanes} x {sign}{getattr(s, f'{which}_width')}{where}"


def spec_fields(spec: DotSpec) -> tuple:
    """What two specs must share to compute the same step (every field of the spec)."""
    return (
        spec.a_width,
        spec.b_width,
        spec.lanes,
        spec.a_signed,
        spec.b_signed,
        spec.acc_bits,
        spec.acc_signed,
        spec.a_first,
        spec.b_first,
        spec.a_word,
        spec.b_word,
        spec.pair_sat,
    )


def k_step(spec: DotSpec) -> tuple[int, int]:
    """Bytes of K that one step consumes from each operand (the lanes read, not the word)."""
    return (spec.a_width * spec.lanes // 8, spec.b_width * spec.lanes // 8)


__all__ = ["Instruction", "k_step", "spec_fields"]
