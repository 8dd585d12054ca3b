"""The one table of AArch64 instruction forms: ``FORMS``.

Each row is written the way the reference writes it (``shared/spec/arm-sudot.txt``,
table "Instruction Forms"): a bit pattern from bit 31 down to bit 0, in which
runs of ``0``/``1`` are fixed bits and ``Name:width`` are field slices; a map
from instruction operands to (possibly split) fields with their meaning
(register, scaled register ``Zn*2``, offset register ``Wv = 8 + Rv``,
immediate); and the assembly template as LLVM prints it.  The rows are parsed
once, validated, and every reader (encoder, decoder, printer, parser,
executor, bulk disassembler) works from the resulting :class:`Layout`.

Adding an instruction form is adding a row.  SDOT/UDOT/USDOT are further rows
with other fixed bits and other ``a_signed``/``b_signed``.

>>> from intdot.arm.forms import FORMS, form_named
>>> [f.name for f in FORMS][:2]
['sudot_neon_elem_64', 'sudot_neon_elem_128']
>>> hex(form_named("sudot_sve_indexed").layout.match)
'0x44a01c00'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping

from ..core.errors import OperandError, OperandTypeError
from ..core.values import describe, is_int_scalar
from .insn import SEMANTIC_KINDS, Form, Insn

# ---------------------------------------------------------------------------
# The table.  Templates: ``v{op}.T`` / ``z{op}.T`` a vector register,
# ``...[{op}]`` an element index, ``za.s[w{op}, {op}, vgxN]`` a ZA slice group,
# ``{ z{op}.b xN }`` a list of N consecutive Z registers (mod 32).
# ---------------------------------------------------------------------------

_ROWS = (
    dict(
        name="sudot_neon_elem_64", mnemonic="sudot", kind="neon_dot_elem",
        a_signed=True, b_signed=False, feature="i8mm",
        bits="0 0 0 01111 0 0 L:1 M:1 Rm:4 1111 H:1 0 Rn:5 Rd:5",
        fields={"vd": "Rd", "vn": "Rn", "vm": "M:Rm", "index": "H:L"},
        consts={"q": 0},
        syntax="sudot v{vd}.2s, v{vn}.8b, v{vm}.4b[{index}]",
    ),
    dict(
        name="sudot_neon_elem_128", mnemonic="sudot", kind="neon_dot_elem",
        a_signed=True, b_signed=False, feature="i8mm",
        bits="0 1 0 01111 0 0 L:1 M:1 Rm:4 1111 H:1 0 Rn:5 Rd:5",
        fields={"vd": "Rd", "vn": "Rn", "vm": "M:Rm", "index": "H:L"},
        consts={"q": 1},
        syntax="sudot v{vd}.4s, v{vn}.16b, v{vm}.4b[{index}]",
    ),
    dict(
        name="sudot_sve_indexed", mnemonic="sudot", kind="sve_dot_indexed",
        a_signed=True, b_signed=False, feature="i8mm+(sve|sme)",
        bits="01000100 1 0 1 i2:2 Zm:3 00011 1 Zn:5 Zda:5",
        fields={"zda": "Zda", "zn": "Zn", "zm": "Zm", "index": "i2"},
        syntax="sudot z{zda}.s, z{zn}.b, z{zm}.b[{index}]",
    ),
    dict(
        name="sudot_sme2_indexed_vgx2", mnemonic="sudot", kind="sme2_dot_indexed", nvec=2,
        a_signed=True, b_signed=False, feature="sme2",
        bits="110000010101 Zm:4 0 Rv:2 1 i2:2 Zn:4 1 1 1 off3:3",
        fields={"wv": "Rv+8", "off": "off3", "zn": "Zn*2", "zm": "Zm", "index": "i2"},
        syntax="sudot za.s[w{wv}, {off}, vgx2], { z{zn}.b x2 }, z{zm}.b[{index}]",
    ),
    dict(
        name="sudot_sme2_indexed_vgx4", mnemonic="sudot", kind="sme2_dot_indexed", nvec=4,
        a_signed=True, b_signed=False, feature="sme2",
        bits="110000010101 Zm:4 1 Rv:2 1 i2:2 Zn:3 0 1 1 1 off3:3",
        fields={"wv": "Rv+8", "off": "off3", "zn": "Zn*4", "zm": "Zm", "index": "i2"},
        syntax="sudot za.s[w{wv}, {off}, vgx4], { z{zn}.b x4 }, z{zm}.b[{index}]",
    ),
    dict(
        name="sudot_sme2_single_vgx2", mnemonic="sudot", kind="sme2_dot_single", nvec=2,
        a_signed=True, b_signed=False, feature="sme2",
        bits="11 0000010010 Zm:4 0 Rv:2 101 Zn:5 1 1 off3:3",
        fields={"wv": "Rv+8", "off": "off3", "zn": "Zn", "zm": "Zm"},
        syntax="sudot za.s[w{wv}, {off}, vgx2], { z{zn}.b x2 }, z{zm}.b",
    ),
    dict(
        name="sudot_sme2_single_vgx4", mnemonic="sudot", kind="sme2_dot_single", nvec=4,
        a_signed=True, b_signed=False, feature="sme2",
        bits="11 0000010011 Zm:4 0 Rv:2 101 Zn:5 1 1 off3:3",
        fields={"wv": "Rv+8", "off": "off3", "zn": "Zn", "zm": "Zm"},
        syntax="sudot za.s[w{wv}, {off}, vgx4], { z{zn}.b x4 }, z{zm}.b",
    ),
)


# ---------------------------------------------------------------------------
# Records the rows are parsed into.
# ---------------------------------------------------------------------------


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

    The raw field value is the concatenation of ``slices`` (most significant
    first, as in ``M:Rm`` or ``H:L``); the operand value is
    ``raw * scale + base`` (``Zn*2`` has scale 2, ``Wv = 8 + Rv`` has base 8).
    """

    op: str
    spec: str  # as written in the row: "M:Rm", "Zn*2", "Rv+8"
    slices: tuple[Slice, ...]
    scale: int = 1
    base: int = 0

    @property
    def width(self) -> int:
        return sum(s.width for s in self.slices)

    @property
    def mask(self) -> int:
        return sum(((1 << s.width) - 1) << s.lo for s in self.slices)

    @property
    def values(self) -> range:
        """Every operand value the field can encode, in encoding order."""
        return range(self.base, self.base + self.scale * (1 << self.width), self.scale)

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

    ``kind`` is ``"vreg"`` (``v``/``z`` register with element suffix, optional
    ``[index]``), ``"za"`` (``za.s[wv, off, vgxN]``) or ``"zlist"`` (``{ zn..., }``
    of ``n`` registers).  ``ops`` names the instruction operands it shows.
    """

    kind: str
    ops: tuple[str, ...]
    prefix: str = ""  # "v" or "z" for vreg
    suffix: str = ""  # "4s", "16b", "4b", "s", "b"
    indexed: bool = False
    n: int = 1  # zlist length / za vgx


@dataclass(frozen=True)
class Layout:
    """Encoding and syntax of one form (``Form.layout``)."""

    bits: str
    mask: int
    match: int
    slices: tuple[Slice, ...]
    fields: Mapping[str, Field]
    consts: Mapping[str, int]
    syntax: str
    operands: tuple[Operand, ...]

    def field(self, op: str) -> Field:
        return self.fields[op]


class FormTableError(Exception):
    """The table itself is inconsistent (a bug in this file, not user input)."""


_SLICE = re.compile(r"([A-Za-z][A-Za-z0-9]*):(\d+)$")
_FIELD = re.compile(r"([A-Za-z0-9:]+?)(?:\*(\d+)|\+(\d+))?$")
_OPERAND_PATTERNS = (
    ("vreg", re.compile(r"([vz])\{(\w+)\}\.(\w+)(?:\[\{(\w+)\}\])?$")),
    ("za", re.compile(r"za\.(\w+)\[w\{(\w+)\}, \{(\w+)\}, vgx(\d)\]$")),
    ("zlist", re.compile(r"\{ z\{(\w+)\}\.(\w+) x(\d) \}$")),
)


def _parse_bits(name: str, bits: str) -> tuple[int, int, dict[str, Slice]]:
    pos = 32
    mask = match = 0
    slices: dict[str, Slice] = {}
    for token in bits.split():
        m = _SLICE.match(token)
        if pos - (int(m.group(2)) if m else len(token)) < 0:
            raise FormTableError(f"{name}: bit pattern covers more than 32 bits")
        if m:
            width = int(m.group(2))
            pos -= width
            if m.group(1) in slices:
                raise FormTableError(f"{name}: slice {m.group(1)} appears twice")
            slices[m.group(1)] = Slice(m.group(1), pos + width - 1, pos)
        elif set(token) <= {"0", "1"}:
            pos -= len(token)
            mask |= ((1 << len(token)) - 1) << pos
            match |= int(token, 2) << pos
        else:
            raise FormTableError(f"{name}: bad token {token!r} in bit pattern")
    if pos != 0:
        raise FormTableError(f"{name}: bit pattern covers {32 - pos} bits, not 32")
    return mask, match, slices


def _parse_field(name: str, op: str, spec: str, slices: Mapping[str, Slice]) -> Field:
    m = _FIELD.match(spec)
    if not m:
        raise FormTableError(f"{name}: bad field spec {spec!r}")
    try:
        parts = tuple(slices[p] for p in m.group(1).split(":"))
    except KeyError as exc:
        raise FormTableError(f"{name}: field {spec!r} names unknown slice {exc}") from None
    return Field(op, spec, parts, scale=int(m.group(2) or 1), base=int(m.group(3) or 0))


def _split_operands(syntax: str) -> tuple[str, list[str]]:
    mnemonic, _, rest = syntax.partition(" ")
    parts, depth, cur = [], 0, ""
    for ch in rest:
        if ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    parts.append(cur.strip())
    return mnemonic, parts


def _parse_syntax(name: str, syntax: str) -> tuple[Operand, ...]:
    operands = []
    for text in _split_operands(syntax)[1]:
        for kind, pattern in _OPERAND_PATTERNS:
            m = pattern.match(text)
            if not m:
                continue
            if kind == "vreg":
                prefix, op, suffix, index = m.groups()
                ops = (op, index) if index else (op,)
                operands.append(Operand("vreg", ops, prefix, suffix, indexed=bool(index)))
            elif kind == "za":
                operands.append(Operand("za", (m.group(2), m.group(3)), suffix=m.group(1), n=int(m.group(4))))
            else:
                operands.append(Operand("zlist", (m.group(1),), "z", m.group(2), n=int(m.group(3))))
            break
        else:
            raise FormTableError(f"{name}: cannot read template operand {text!r}")
    return tuple(operands)


def _build(row: dict) -> Form:
    name = row["name"]
    mask, match, slices = _parse_bits(name, row["bits"])
    fields = {op: _parse_field(name, op, spec, slices) for op, spec in row["fields"].items()}
    operands = _parse_syntax(name, row["syntax"])
    layout = Layout(
        bits=row["bits"], mask=mask, match=match, slices=tuple(slices.values()),
        fields=fields, consts=dict(row.get("consts", {})), syntax=row["syntax"], operands=operands,
    )
    return Form(
        name=name, mnemonic=row["mnemonic"], kind=row["kind"], a_signed=row["a_signed"],
        b_signed=row["b_signed"], nvec=row.get("nvec", 1), feature=row["feature"], layout=layout,
    )


def validate(forms: tuple[Form, ...]) -> None:
    """Check the table: every row covers all 32 bits exactly once, every slice
    belongs to one field, every template operand has a field, no two rows
    decode the same word, and fields round-trip (``extract(insert(v)) == v``)."""
    names = set()
    for f in forms:
        lay = f.layout
        if f.name in names:
            raise FormTableError(f"duplicate row name {f.name}")
        names.add(f.name)
        if f.kind not in SEMANTIC_KINDS:
            raise FormTableError(f"{f.name}: unknown kind {f.kind!r}")
        covered = lay.mask
        for s in lay.slices:
            smask = ((1 << s.width) - 1) << s.lo
            if covered & smask:
                raise FormTableError(f"{f.name}: slice {s.name} overlaps other bits")
            covered |= smask
        if covered != 0xFFFFFFFF:
            raise FormTableError(f"{f.name}: bits {~covered & 0xFFFFFFFF:#010x} are not covered")
        used = [s.name for fld in lay.fields.values() for s in fld.slices]
        if sorted(used) != sorted(s.name for s in lay.slices):
            raise FormTableError(f"{f.name}: every slice must belong to exactly one field")
        shown = {op for o in lay.operands for op in o.ops}
        if shown != set(lay.fields):
            raise FormTableError(f"{f.name}: template shows {sorted(shown)}, fields are {sorted(lay.fields)}")
        for fld in lay.fields.values():
            for v in fld.values:
                w = fld.insert(v)
                if w & ~fld.mask or fld.extract(w | lay.match) != v:
                    raise FormTableError(f"{f.name}: field {fld.spec} does not round-trip {v}")
    for i, a in enumerate(forms):
        for b in forms[i + 1:]:
            common = a.layout.mask & b.layout.mask
            if (a.layout.match ^ b.layout.match) & common == 0:
                raise FormTableError(f"rows {a.name} and {b.name} overlap: some word matches both")


FORMS: tuple[Form, ...] = tuple(_build(r) for r in _ROWS)
validate(FORMS)

_BY_NAME = {f.name: f for f in FORMS}
MNEMONICS = tuple(sorted({f.mnemonic for f in FORMS}))


def checked_ops(insn) -> dict:
    """The operands of ``insn`` checked against its row, with the row's constants filled in.

    Every field operand must be present and one of the values the field can
    encode, a constant (``q`` of the NEON rows) absent or equal to the row's
    value, and no other operand given.  The encoder and the executor both call
    this, so an instruction that cannot be encoded cannot be executed either.

    >>> checked_ops(Insn(form_named("sudot_neon_elem_64"), {"vd": 0, "vn": 1, "vm": 2, "index": 3}))
    {'vd': 0, 'vn': 1, 'vm': 2, 'index': 3, 'q': 0}
    """
    if not isinstance(insn, Insn):
        raise OperandTypeError(f"insn={describe(insn)} has type {type(insn).__name__}; expected an intdot.arm.Insn")
    form = insn.form
    if not isinstance(form, Form) or form.layout is None:
        raise OperandTypeError(f"insn.form={describe(form)} is not a row of intdot.arm.FORMS "
                               "(an intdot.arm.Form with an encoding layout)")
    lay, ops = form.layout, insn.ops
    if not isinstance(ops, Mapping):
        raise OperandTypeError(f"insn.ops={describe(ops)} is not a mapping of operand names to integers")
    fields, consts, known = _checks(lay)
    extra = [k for k in ops if k not in known]
    if extra:
        raise OperandError(f"insn.ops has operands {', '.join(map(repr, extra))} that form {form.name} does not "
                           f"have (it has {', '.join(list(lay.fields) + list(lay.consts))})")
    out = {}
    for op, v in fields:
        if op not in ops:
            raise OperandError(f"insn.ops lacks operand {op!r} of form {form.name}")
        value = ops[op]
        if type(value) is not int:  # the common case is a plain int; NumPy ints are fine too
            if not is_int_scalar(value):
                value = None
            else:
                value = int(value)
        if value is None or value not in v:
            allowed = f"{v.start}..{v[-1]}" + (f" in steps of {v.step}" if v.step != 1 else "")
            raise OperandError(f"insn.ops[{op!r}]={describe(ops[op])} is out of range for {form.name}; "
                               f"expected {allowed}")
        out[op] = value
    for op, value in consts:
        given = ops.get(op, value)
        if given is not value and (not is_int_scalar(given) or int(given) != value):
            raise OperandError(f"insn.ops[{op!r}]={describe(given)} does not fit form {form.name} "
                               f"(which has {op}={value})")
        out[op] = value
    return out


_CHECKS: dict = {}


def _checks(lay: Layout) -> tuple:
    """(op, allowed values) per field, the constants, and every operand name, per layout (cached)."""
    hit = _CHECKS.get(id(lay))
    if hit is None or hit[0] is not lay:
        fields = tuple((op, f.values) for op, f in lay.fields.items())
        hit = (lay, fields, tuple(lay.consts.items()), frozenset(lay.fields) | frozenset(lay.consts))
        _CHECKS[id(lay)] = hit
    return hit[1:]


def form_named(name: str) -> Form:
    """The row called ``name`` (``KeyError`` if there is none)."""
    return _BY_NAME[name]


__all__ = ["FORMS", "MNEMONICS", "Field", "Form", "FormTableError", "Layout", "Operand", "Slice",
           "checked_ops", "form_named", "validate"]
