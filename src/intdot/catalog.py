"""The catalog: one record per integer dot instruction of every ISA intdot models.

The records are derived from the front ends' own tables (the AMD builtin rows
of :mod:`intdot.amd.builtins`, the Arm form rows of ``intdot.arm.FORMS`` and
the ACLE names of :mod:`intdot.arm.acle`), never kept by hand, and built on
first use so that ``import intdot.catalog`` stays cheap.  Everything that
enumerates instructions (``intdot list``, GEMM, equivalence tables) reads
them here.

>>> from intdot import catalog
>>> r = catalog.find("__builtin_amdgcn_sdot4")
>>> r.name, r.features, r.k_step, r.neg
('amd.sdot4', 'dot1-insts', (4, 4), None)
>>> catalog.find("sudot z0.s, z1.b, z2.b[0]").name
'arm.sudot_sve_indexed'
>>> catalog.available("sdot4", "gfx942"), catalog.available("arm.sudot_sve_indexed", "neoverse-n1")
(True, False)
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field, replace
from functools import cache, lru_cache
from typing import Any

from .core.errors import IntdotError, OperandError, UnknownInstruction, UnknownTarget, UnsupportedOnTarget, quote
from .core.features import evaluate, missing, parse
from .core.values import describe

__all__ = [
    "ISAS",
    "PROFILES",
    "AmbiguousInstruction",
    "Instruction",
    "NotInCatalog",
    "available",
    "equivalents",
    "find",
    "find_all",
    "records",
    "require",
    "swapped",
    "where_available",
]

ISAS = ("amd", "arm")
PROFILES = ("reference", "llvm")


class NotInCatalog(UnknownInstruction, LookupError):
    """A name no catalog record answers to; ``suggestions`` holds close spellings."""

    def __init__(self, message: str, suggestions: tuple[str, ...] = ()):
        super().__init__(message)
        self.suggestions = suggestions


class AmbiguousInstruction(IntdotError, LookupError, ValueError):
    """A spelling shared by records that compute different things; ``candidates`` lists them."""

    def __init__(self, message: str, candidates: tuple[Instruction, ...]):
        super().__init__(message)
        self.candidates = candidates


@dataclass(frozen=True)
class Instruction:
    """One instruction (AMD builtin, Arm form, ...) as every ISA describes it.

    ``spec`` is the core's :class:`~intdot.core.DotSpec`; for an instruction
    whose operand signedness is an argument (``sign_args``, AMD ``sudot4``)
    it is the signed x signed case and :meth:`spec_for` gives the others.
    ``neg``/``clamp`` are ``True``/``False`` where the instruction fixes them
    and ``None`` where the caller passes them.  ``features`` is an expression
    for :mod:`intdot.core.features`.
    """

    isa: str
    name: str
    mnemonic: str
    spellings: tuple[str, ...]
    spec: Any
    k_step: tuple[int, int]
    neg: bool | None
    clamp: bool | None
    sign_args: bool
    features: str
    syntax: str
    summary: str = ""
    row: Any = field(default=None, compare=False, repr=False)  # the front end's own row (Builtin, Form)

    def spec_for(self, a_signed: bool | None = None, b_signed: bool | None = None):
        """The spec with the operands' signedness an instruction with ``sign_args`` takes as arguments."""
        if not self.sign_args:
            if a_signed is not None or b_signed is not None:
                raise OperandError(f"{self.name} fixes its operands' signedness; pass no a_signed/b_signed")
            return self.spec
        if not isinstance(a_signed, bool) or not isinstance(b_signed, bool):
            raise OperandError(
                f"a_signed={a_signed!r}, b_signed={b_signed!r}: {self.name} takes its operands' "
                f"signedness as arguments; expected True or False for each"
            )
        return replace(self.spec, a_signed=a_signed, b_signed=b_signed)

    @property
    def lanes(self) -> str:
        """The operands' lanes, as ``4 x s8 . 4 x u8`` (``sign_args``: ``?8``)."""
        return f"{_lane(self, 'a')} . {_lane(self, 'b')}"

    @property
    def acc(self) -> str:
        """The accumulator type: ``s32``, ``u32``, ``s64``, ``u64``."""
        return f"{'s' if self.spec.acc_signed else 'u'}{self.spec.acc_bits}"

    def as_dict(self) -> dict:
        """A JSON-ready description (``intdot list --json``)."""
        s = self.spec
        return {
            "isa": self.isa,
            "name": self.name,
            "mnemonic": self.mnemonic,
            "spellings": list(self.spellings),
            "spec": {
                "a_width": s.a_width,
                "b_width": s.b_width,
                "lanes": s.lanes,
                "a_signed": None if self.sign_args else s.a_signed,
                "b_signed": None if self.sign_args else s.b_signed,
                "acc_bits": s.acc_bits,
                "acc_signed": s.acc_signed,
            },
            "k_step": list(self.k_step),
            "neg": self.neg,
            "clamp": self.clamp,
            "sign_args": self.sign_args,
            "features": self.features,
            "syntax": self.syntax,
            "summary": self.summary,
        }


def _lane(rec: Instruction, which: str) -> str:
    s = rec.spec
    sign = "?" if rec.sign_args else ("s" if getattr(s, f"{which}_signed") else "u")
    return f"{s.lanes} x {sign}{getattr(s, f'{which}_width')}"


# ---------------------------------------------------------------------------
# Building the records from the front ends' tables.
# ---------------------------------------------------------------------------


def _spec_fields(spec) -> tuple:
    return (spec.a_width, spec.b_width, spec.lanes, spec.a_signed, spec.b_signed, spec.acc_bits, spec.acc_signed)


def _k_step(spec) -> tuple[int, int]:
    return (spec.a_width * spec.lanes // 8, spec.b_width * spec.lanes // 8)


def _amd_records() -> list[Instruction]:
    from .amd.builtins import BUILTINS, PREFIX

    out = []
    for row in BUILTINS:
        sign_args = row.src0 == "flag"
        spec = row.spec(True, True) if sign_args else row.spec()
        out.append(
            Instruction(
                isa="amd",
                name=f"amd.{row.name}",
                mnemonic=row.name,
                spellings=(row.name, PREFIX + row.name),
                spec=spec,
                k_step=_k_step(spec),
                neg=None,
                clamp=None,
                sign_args=sign_args,
                features=row.feature,
                syntax=row.c_signature("reference"),
                summary=row.summary,
                row=row,
            )
        )
    return out


def _arm_template(form) -> str:
    """The row's syntax template as LLVM prints the instruction, ``<operand>`` standing for each operand.

    The row writes a register list as ``{ z{zn}.b x2 }``; LLVM prints ``{ z0.b, z1.b }`` and ``{ z0.b - z3.b }``.
    """

    def reglist(m: re.Match) -> str:
        reg, op, suffix, n = m[1], m[2], m[3], int(m[4])
        sep = ", " if n == 2 else " - "
        return f"{{ {reg}<{op}>.{suffix}{sep}{reg}<{op}+{n - 1}>.{suffix} }}"

    text = re.sub(r"\{ (\w)\{(\w+)\}\.(\w+) x(\d) \}", reglist, form.layout.syntax)
    return re.sub(r"\{(\w+)\}", r"<\1>", text)


def _arm_records() -> list[Instruction]:
    from .arm import FORMS
    from .arm.acle import BY_FORM as acle_names  # form id -> the ACLE intrinsics that compile to it

    out = []
    for form in FORMS:
        template = _arm_template(form)
        names = (form.name, form.mnemonic, template, *acle_names.get(form.name, ()))
        out.append(
            Instruction(
                isa="arm",
                name=f"arm.{form.name}",
                mnemonic=form.mnemonic,
                spellings=tuple(dict.fromkeys(names)),
                spec=form.spec,
                k_step=_k_step(form.spec),
                neg=False,
                clamp=False,
                sign_args=False,
                features=form.features,
                syntax=template,
                summary=f"{form.mnemonic.upper()} ({form.kind.replace('_', ' ')})",
                row=form,
            )
        )
    return out


@dataclass(frozen=True)
class _Table:
    records: tuple[Instruction, ...]
    index: dict  # exact spelling -> records
    folded: dict  # lower-case spelling -> records


def _key(text: str) -> str:
    return " ".join(text.split())


@lru_cache(maxsize=1)
def _table() -> _Table:
    recs = tuple(_amd_records() + _arm_records())
    index: dict[str, list] = {}
    folded: dict[str, list] = {}
    for r in recs:
        for s in dict.fromkeys((r.name, *r.spellings)):
            index.setdefault(_key(s), []).append(r)
            folded.setdefault(_key(s).lower(), []).append(r)
    names = [r.name for r in recs]
    if len(set(names)) != len(names):
        raise RuntimeError("two catalog records share a name")  # a bug in a front end's table
    for r in recs:
        parse(r.features)  # an unparsable expression in a table is a bug: fail at build time
    return _Table(recs, {k: tuple(v) for k, v in index.items()}, {k: tuple(v) for k, v in folded.items()})


# ---------------------------------------------------------------------------
# Lookup.
# ---------------------------------------------------------------------------


def records(isa: str | None = None) -> tuple[Instruction, ...]:
    """Every record, AMD first, each ISA in its table's order; or those of one ``isa``."""
    recs = _table().records
    if isa is None:
        return recs
    if not isinstance(isa, str) or isa.lower() not in ISAS:
        raise OperandError(f"isa={describe(isa)} is not known; expected one of {', '.join(ISAS)}")
    return tuple(r for r in recs if r.isa == isa.lower())


def _arm_text(text: str) -> tuple[Instruction, ...] | None:
    """Records for an assembly line (``sdot z0.d, z1.h, z2.h``); ``None`` if it is not one."""
    words = text.replace(",", " ").split()
    if len(words) < 2:
        return None
    from .arm import parse as arm_parse

    mnemonics = {r.mnemonic.lower() for r in _table().records if r.isa == "arm"}
    if words[0].lower() not in mnemonics:
        return None
    insn = arm_parse(text)  # a syntax error in a known mnemonic's line is the user's answer: let it through
    return _table().index.get(f"arm.{insn.form.name}")


def find_all(name) -> tuple[Instruction, ...]:
    """Every record ``name`` spells (canonical name, builtin, ACLE name, mnemonic, assembly line).

    Exact spellings are tried first, then the same ignoring case.  Raises
    :class:`NotInCatalog` with close spellings when nothing matches.
    """
    if isinstance(name, Instruction):
        return (name,)
    if not isinstance(name, str):
        raise NotInCatalog(
            f"name={describe(name)} is not an instruction name; expected a string such as 'sdot4', "
            f"'vusdotq_s32' or 'sdot z0.d, z1.h, z2.h'"
        )
    table, key = _table(), _key(name)
    found = table.index.get(key) or table.folded.get(key.lower()) or _arm_text(key)
    if found:
        return found
    close = _suggest(key)
    hint = f" (did you mean {' or '.join(close)}?)" if close else ""
    raise NotInCatalog(
        f"name={quote(name)} is not in intdot's catalog{hint}; expected a builtin (sdot4, "
        f"__builtin_amdgcn_sudot8), an ACLE intrinsic (vdotq_s32), a mnemonic (usdot), a catalog "
        f"name (arm.sudot_sve_indexed) or an assembly line; 'intdot list' shows them all",
        close,
    )


def _suggest(key: str) -> tuple[str, ...]:
    spellings = {s.lower(): s for s in _table().index}
    key = key.lower()
    close = difflib.get_close_matches(key, spellings, n=8, cutoff=0.75)

    # Of equally close spellings, one of the same length is likelier what was meant (sdot5 -> sdot4, not sdot).
    def rank(m: str):
        return (len(m) != len(key), -difflib.SequenceMatcher(None, key, m).ratio())

    return tuple(spellings[m] for m in sorted(close, key=rank)[:4])


def find(name) -> Instruction:
    """The one record ``name`` spells.

    A spelling shared by several records that compute the same thing (the
    mnemonic ``usdot`` names NEON, SVE and SME2 forms of one dot step) gives
    the first of them; one shared by records that differ (``sdot``: 8-bit
    lanes into 32 bits, or 16-bit lanes into 64) raises
    :class:`AmbiguousInstruction` listing them.

    >>> from intdot import catalog
    >>> catalog.find("sudot4").sign_args, catalog.find("arm.sudot_neon_elem_128").lanes
    (True, '4 x s8 . 4 x u8')
    """
    found = find_all(name)
    first = found[0]
    if all(_spec_fields(r.spec) == _spec_fields(first.spec) and r.sign_args == first.sign_args for r in found):
        return first
    listing = "; ".join(f"{r.name} ({r.lanes} -> {r.acc})" for r in found)
    raise AmbiguousInstruction(
        f"name={quote(name)} names {len(found)} instructions that compute different things: "
        f"{listing}; pass one of these names",
        found,
    )


def swapped(name) -> bool:
    """Whether the spelling ``name`` gives the instruction's two sources in the opposite order.

    ACLE writes some mixed-sign intrinsics as the other instruction with its sources exchanged:
    ``svsudot_s32(acc, int8, uint8)`` compiles to USDOT with the uint8 vector first.  The record found for
    such a name is that instruction's, so its first operand's lanes are the spelling's second.

    >>> from intdot import catalog
    >>> catalog.find("svsudot_s32").lanes, catalog.swapped("svsudot_s32"), catalog.swapped("svusdot_s32")
    ('4 x u8 . 4 x s8', True, False)
    """
    return isinstance(name, str) and _key(name).lower() in _swapped_names()


@cache
def _swapped_names() -> frozenset[str]:
    # Built once: gemm asks on every call, and a scan of every intrinsic was a third of a small call's time.
    from .arm.acle import INTRINSICS

    return frozenset(k.lower() for k, v in INTRINSICS.items() if v.swap)


def equivalents(name) -> tuple[Instruction, ...]:
    """The other records that compute the same dot step as ``name`` (any ISA, any form).

    An instruction that takes signedness as arguments (AMD ``sudot4``) is
    equivalent to one with fixed signedness when some choice of its flags
    gives the same spec.
    """
    me = find(name)

    def same(r: Instruction) -> bool:
        a, b = _spec_fields(me.spec), _spec_fields(r.spec)
        if me.sign_args or r.sign_args:
            return (a[0], a[1], a[2], a[5], a[6]) == (b[0], b[1], b[2], b[5], b[6])
        return a == b

    return tuple(r for r in _table().records if r is not me and same(r))


# ---------------------------------------------------------------------------
# Availability.
# ---------------------------------------------------------------------------


def _check_profile(profile) -> str:
    if not isinstance(profile, str) or profile not in PROFILES:
        raise UnknownTarget(f"profile={describe(profile)} is not known; expected one of {', '.join(PROFILES)}")
    return profile


def _amd_status(rec: Instruction, target, profile: str) -> tuple[bool, str]:
    from .amd import target as amd_target
    from .amd.target import unavailable_message

    try:
        t = amd_target(target, profile)
    except UnknownTarget as exc:
        raise UnknownTarget(
            f"{rec.name} is an AMD builtin, so the target is an AMD GPU family or processor: {exc}"
        ) from None
    if profile == "reference":  # the reference's table is by family, not by feature
        ok = rec.mnemonic in t.builtins
    else:
        ok = evaluate(rec.features, t.features)
    return ok, "" if ok else unavailable_message(rec.row, t.name, profile)


def _arm_status(rec: Instruction, target) -> tuple[bool, str]:
    from .arm.targets import target as arm_target

    try:
        t = arm_target(target)
    except UnknownTarget as exc:
        raise UnknownTarget(
            f"{rec.name} is an Arm instruction, so the target is an Arm architecture or core: {exc}"
        ) from None
    lack = missing(rec.features, t.features)
    if lack is None:
        return True, ""
    cores = _arm_cores_with(rec.features)
    shown = ", ".join(cores[:8]) + (f" and {len(cores) - 8} more" if len(cores) > 8 else "") if cores else "none"
    return False, (
        f"{rec.name} ({rec.syntax}) is not available on {t.name}: it requires {rec.features}, and "
        f"{t.name} lacks {lack}; cores that have it: {shown}"
    )


@cache
def _arm_cores_with(features: str) -> tuple[str, ...]:
    from .arm.targets import CORES, target

    return tuple(c for c in CORES if evaluate(features, target(c).features))


def _status(name, target, profile) -> tuple[Instruction, bool, str]:
    rec = find(name)
    profile = _check_profile(profile)
    if rec.isa == "amd":
        return (rec, *_amd_status(rec, target, profile))
    return (rec, *_arm_status(rec, target))


def available(name, target, *, profile: str = "reference") -> bool:
    """Whether the instruction ``name`` (any spelling) exists on ``target``.

    AMD targets are families or processors (``CDNA3``, ``gfx942``) in the
    ``reference`` profile (the reference document's table) or the ``llvm``
    one (clang's target features); Arm targets are ``-march``/``-mcpu``
    strings (``armv9.2-a+sme2``, ``neoverse-v2``), the same in both profiles.

    >>> from intdot import catalog
    >>> catalog.available("sdot4", "RDNA2"), catalog.available("sdot4", "RDNA2", profile="llvm")
    (False, True)
    >>> catalog.available("arm.sudot_neon_elem_128", "armv8.2-a+i8mm")
    True
    """
    return _status(name, target, profile)[1]


def require(name, target, *, profile: str = "reference") -> Instruction:
    """The record of ``name`` if ``target`` has it; else :class:`~intdot.errors.UnsupportedOnTarget`
    naming the features the target lacks."""
    rec, ok, why = _status(name, target, profile)
    if not ok:
        raise UnsupportedOnTarget(why)
    return rec


def where_available(name, *, profile: str = "reference") -> tuple[str, ...]:
    """The targets that have ``name``: AMD families, or Arm named cores."""
    rec = find(name)
    _check_profile(profile)
    if rec.isa == "amd":
        from .amd import where_available as amd_where

        return amd_where(rec.mnemonic, profile)
    return _arm_cores_with(rec.features)
