"""The records every part of ``intdot.arm`` shares: the bottom of the package.

``Form`` is one row of the instruction-form table (built by
``intdot.arm.families``); ``Insn`` is one instruction: a form plus its operand
values.  A row's encoding and syntax are an :class:`intdot.isa.encoding.Layout`
(``Form.layout``) whose operands are this module's :class:`Operand` (Arm's
operand grammar); the executor needs only ``kind``, ``spec`` and ``nvec``.

Operand names in ``Insn.ops`` are architectural values, already unscaled
(``zn`` is the register number, not the encoded Zn field divided by 2):

=====================  ===================================================
semantics (Form.kind)  ops
=====================  ===================================================
``neon_dot_vec``       ``vd, vn, vm, q`` (q: 0 = 64-bit, 1 = 128-bit)
``neon_dot_elem``      ``vd, vn, vm, index, q``
``sve_dot_vec``        ``zda, zn, zm``
``sve_dot_indexed``    ``zda, zn, zm, index`` (group of Zm per 128-bit segment)
``sme2_dot_single``    ``wv`` (8..11), ``off``, ``zn`` (first of ``nvec``, mod 32), ``zm``
``sme2_dot_multi``     ``wv``, ``off``, ``zn``, ``zm`` (both first of an aligned list)
``sme2_dot_indexed``   ``wv``, ``off``, ``zn``, ``zm``, ``index``
=====================  ===================================================

A group of the sources is ``spec.lanes * spec.a_width`` bits; an accumulator
element is ``spec.acc_bits`` bits.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..core.errors import OperandError, OperandTypeError
from ..core.spec import DotSpec
from ..core.values import describe, describe_all, is_int_scalar

SEMANTIC_KINDS = (
    "neon_dot_vec",
    "neon_dot_elem",
    "sve_dot_vec",
    "sve_dot_indexed",
    "sme2_dot_single",
    "sme2_dot_multi",
    "sme2_dot_indexed",
)


def make_spec(
    a_width: int, b_width: int, lanes: int, a_signed: bool, b_signed: bool, acc_bits: int = 32, acc_signed: bool = True
) -> DotSpec:
    """The core's ``DotSpec`` for one row (the one place that constructs it)."""
    return DotSpec(a_width, b_width, lanes, a_signed, b_signed, acc_bits=acc_bits, acc_signed=acc_signed)


@dataclass(frozen=True)
class Form:
    """One row of the form table.

    ``features`` is an expression over LLVM's feature names: ``+`` all of,
    ``|`` any of, parentheses (``"i8mm+(sve|sme)"``).  ``layout`` holds the
    encoding and syntax (:class:`intdot.isa.encoding.Layout`); readers other
    than the codec and the text module should not depend on its internals.
    """

    name: str  # stable id, e.g. "sdot_neon_vec_128"
    mnemonic: str  # "sdot" | "udot" | "usdot" | "sudot"
    kind: str  # one of SEMANTIC_KINDS
    spec: DotSpec  # lane widths and signs of Vn/Zn (a) and Vm/Zm (b), lanes per group, acc_bits
    nvec: int = 1  # SME2: vectors per group (2 or 4)
    features: str = ""
    layout: Any = field(default=None, compare=False, repr=False)

    @property
    def a_signed(self) -> bool:
        return self.spec.a_signed

    @property
    def b_signed(self) -> bool:
        return self.spec.b_signed


@dataclass(frozen=True)
class Insn:
    """One instruction: a form and its operand values (see the table above).

    ``word`` and ``text`` are its encoding and LLVM's text of it.
    """

    form: Form
    ops: Mapping[str, int]

    def __getitem__(self, key: str) -> int:
        return self.ops[key]

    @property
    def word(self) -> int:
        """The 32-bit encoding (operands checked by :func:`checked_ops`)."""
        return self.form.layout.encode(checked_ops(self))

    @property
    def text(self) -> str:
        """LLVM's canonical assembly text (operands checked by :func:`checked_ops`)."""
        checked_ops(self)
        return self.form.mnemonic + " " + ", ".join(t.format(self.ops) for t in self.form.layout.operands)

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class Operand:
    """One operand of the assembly template.

    ``kind`` is ``"vreg"`` (a ``v``/``z`` register with an element suffix and
    an optional ``[index]``), ``"za"`` (``za.s[wv, off, vgxN]``) or ``"zlist"``
    (``{ zn... }`` of ``n`` registers).  ``ops`` names the operands it shows.
    """

    kind: str
    ops: tuple[str, ...]
    prefix: str = ""  # "v" or "z" for vreg and zlist
    suffix: str = ""  # "4s", "16b", "4b", "s", "b", "h", "d"
    indexed: bool = False
    n: int = 1  # zlist length / za vgx

    def format(self, ops) -> str:
        """This operand with the values ``ops``, as LLVM prints it."""
        if self.kind == "vreg":
            s = f"{self.prefix}{ops[self.ops[0]]}.{self.suffix}"
            return f"{s}[{ops[self.ops[1]]}]" if self.indexed else s
        if self.kind == "za":
            return f"za.{self.suffix}[w{ops[self.ops[0]]}, {ops[self.ops[1]]}, vgx{self.n}]"
        regs = [(ops[self.ops[0]] + k) % 32 for k in range(self.n)]
        if self.n > 2 and regs[-1] > regs[0]:  # LLVM prints a run of four as a range unless it wraps
            return f"{{ z{regs[0]}.{self.suffix} - z{regs[-1]}.{self.suffix} }}"
        return "{ " + ", ".join(f"z{r}.{self.suffix}" for r in regs) + " }"


def checked_ops(insn) -> dict:
    """The operands of ``insn`` checked against its row, with the row's constants filled in.

    Every field operand must be present, an ``int`` (NumPy integers too), and
    one of the values the field can encode; a constant (``q`` of the NEON
    rows) absent or equal to the row's value; no other operand given.  The
    encoder and the executor both call this, so an instruction that cannot be
    encoded cannot be executed either.

    >>> from intdot.arm.forms import form_named
    >>> checked_ops(Insn(form_named("sudot_neon_elem_64"), {"vd": 0, "vn": 1, "vm": 2, "index": 3}))
    {'vd': 0, 'vn': 1, 'vm': 2, 'index': 3, 'q': 0}
    """
    if not isinstance(insn, Insn):
        raise OperandTypeError(f"insn={describe(insn)} has type {type(insn).__name__}; expected an intdot.arm.Insn")
    form = insn.form
    if not isinstance(form, Form) or form.layout is None:
        raise OperandTypeError(
            f"insn.form={describe(form)} is not a row of intdot.arm.FORMS (an intdot.arm.Form with an encoding layout)"
        )
    lay, ops = form.layout, insn.ops
    if not isinstance(ops, Mapping):
        raise OperandTypeError(f"insn.ops={describe(ops)} is not a mapping of operand names to integers")
    fields, consts, known = _checks(lay)
    extra = [k for k in ops if k not in known]
    if extra:
        raise OperandError(
            f"insn.ops has operands {describe_all(extra)} that form {form.name} does not "
            f"have (it has {', '.join(list(lay.fields) + list(lay.consts))})"
        )
    out = {}
    for op, allowed in fields:
        if op not in ops:
            raise OperandError(f"insn.ops lacks operand {op!r} of form {form.name}")
        value = _as_int(ops[op], op, allowed)
        if value not in allowed:
            raise OperandError(
                f"insn.ops[{op!r}]={describe(value)} is out of range for {form.name}; "
                f"expected {_describe_range(allowed)}"
            )
        out[op] = value
    for op, value in consts:
        given = ops.get(op, value)
        if given is not value and (not is_int_scalar(given) or int(given) != value):
            raise OperandError(
                f"insn.ops[{op!r}]={describe(given)} does not fit form {form.name} (which has {op}={value})"
            )
        out[op] = value
    return out


def _describe_range(allowed: range) -> str:
    return f"{allowed.start}..{allowed[-1]}" + (f" in steps of {allowed.step}" if allowed.step != 1 else "")


def _as_int(value, op: str, allowed: range) -> int:
    if type(value) is int:  # the common case; NumPy integers are fine too, bools and strings are not
        return value
    if not is_int_scalar(value):
        raise OperandTypeError(
            f"insn.ops[{op!r}]={describe(value)} has type {type(value).__name__}; "
            f"expected an int ({_describe_range(allowed)})"
        )
    return int(value)


_CHECKS: dict = {}


def _checks(lay) -> tuple:
    """(op, allowed values) per field, the constants, and every operand name, per layout (cached)."""
    hit = _CHECKS.get(id(lay))
    if hit is None or hit[0] is not lay:
        fields = tuple((op, f.values) for op, f in lay.fields.items())
        hit = (lay, fields, tuple(lay.consts.items()), frozenset(lay.fields) | frozenset(lay.consts))
        _CHECKS[id(lay)] = hit
    return hit[1:]


__all__ = ["SEMANTIC_KINDS", "Form", "Insn", "Operand", "checked_ops", "make_spec"]
