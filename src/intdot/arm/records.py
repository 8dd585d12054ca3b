"""The records every part of ``intdot.arm`` shares: the bottom of the package.

``Form`` is one row of the instruction-form table (built by
``intdot.arm.families``); ``Insn`` is one instruction: a form plus its operand
values.  ``Slice``/``Field``/``Operand``/``Layout`` describe a row's encoding
and syntax (``Form.layout``), which the codec, the text module and the bulk
disassembler read; the executor needs only ``kind``, ``spec`` and ``nvec``.

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

from ..core.spec import DotSpec

SEMANTIC_KINDS = (
    "neon_dot_vec",
    "neon_dot_elem",
    "sve_dot_vec",
    "sve_dot_indexed",
    "sme2_dot_single",
    "sme2_dot_multi",
    "sme2_dot_indexed",
)


class FormTableError(Exception):
    """The table itself is inconsistent (a bug in the table, not user input)."""


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
    encoding and syntax (:class:`Layout`); readers other than the codec and
    the text module should not depend on its internals.
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

    @property
    def feature(self) -> str:
        """Alias of :attr:`features` (the older name)."""
        return self.features


@dataclass(frozen=True)
class Insn:
    """One instruction: a form and its operand values (see the table above)."""

    form: Form
    ops: Mapping[str, int]

    def __getitem__(self, key: str) -> int:
        return self.ops[key]

    @property
    def word(self) -> int:
        """The 32-bit encoding (``intdot.arm.encode``)."""
        return _hook("encode")(self)

    @property
    def text(self) -> str:
        """LLVM's canonical assembly text (``intdot.arm.asm.format_insn``)."""
        return _hook("format")(self)

    def __str__(self) -> str:
        return self.text


# The codec and the text module register their functions here when they load
# (importing any part of intdot.arm loads them, through the package's __init__),
# so Insn.word/.text work without this bottom module importing upward.
_HOOKS: dict = {}


def _hook(name: str):
    return _HOOKS[name]


@dataclass(frozen=True)
class Slice:
    """A named run of bits ``hi..lo`` of the word (one encoding field or part of one)."""

    name: str
    hi: int
    lo: int

    @property
    def width(self) -> int:
        return self.hi - self.lo + 1


@dataclass(frozen=True)
class Field:
    """One operand's encoding: the slices holding it and how bits map to the value.

    The raw value is the concatenation of ``slices`` (most significant first,
    as in ``M:Rm`` or ``H:L``); the operand value is ``raw * scale + base``
    (``Zn*2`` has scale 2, ``Rv+8`` has base 8).
    """

    op: str
    spec: str  # as written in the family: "M:Rm", "Zn*2", "Rv+8"
    slices: tuple[Slice, ...]
    scale: int = 1
    base: int = 0
    # derived once (every reader asks for them): bits, word mask, every encodable value in order
    width: int = field(init=False, repr=False, compare=False)
    mask: int = field(init=False, repr=False, compare=False)
    values: range = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        width = sum(s.width for s in self.slices)
        object.__setattr__(self, "width", width)
        object.__setattr__(self, "mask", sum(((1 << s.width) - 1) << s.lo for s in self.slices))
        object.__setattr__(self, "values", range(self.base, self.base + self.scale * (1 << width), self.scale))

    @property
    def mapping(self) -> str:
        if self.base:
            return "offset register"
        if self.scale != 1:
            return "scaled register"
        return "register" if self.op[0] in "vzw" else "immediate"

    def extract(self, word: int) -> int:
        raw = 0
        for s in self.slices:
            raw = (raw << s.width) | ((word >> s.lo) & ((1 << s.width) - 1))
        return raw * self.scale + self.base

    def insert(self, value: int) -> int:
        """The word bits for ``value`` (which must be in :attr:`values`)."""
        raw = (value - self.base) // self.scale
        word = 0
        for s in reversed(self.slices):
            word |= (raw & ((1 << s.width) - 1)) << s.lo
            raw >>= s.width
        return word


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


@dataclass(frozen=True)
class Layout:
    """Encoding and syntax of one form (``Form.layout``)."""

    bits: str  # the bit pattern with the family's parameters filled in
    mask: int
    match: int
    slices: tuple[Slice, ...]
    fields: Mapping[str, Field]
    consts: Mapping[str, int]
    syntax: str
    operands: tuple[Operand, ...]
    family: str = ""

    def field(self, op: str) -> Field:
        return self.fields[op]


__all__ = ["SEMANTIC_KINDS", "Field", "Form", "FormTableError", "Insn", "Layout", "Operand", "Slice", "make_spec"]
