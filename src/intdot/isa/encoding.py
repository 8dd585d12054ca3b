"""Encoding families: bit templates, fields and syntax templates, for 32- and 64-bit words.

A family is written once, the way LLVM's TableGen multiclasses and riscv-opcodes write
formats: a bit template from the top bit down (runs of ``0``/``1`` are fixed bits,
``Name:width`` a slice of a field, ``$p`` a parameter an instance fills in with bits, ``$p:n``
one of exactly ``n`` bits that may also be given as an integer, as an opcode is; a ``|``
only separates parts for the reader, as the two dwords of a 64-bit word),
the operands' fields (split fields such as ``M:Rm`` and ``H:L``, scaled ``Zn*2``, offset
``Rv+8``), and an assembly template (``$p`` parameters again, ``{op}`` an operand).
:class:`Format` holds that and makes one row's :class:`Layout` per instance;
:func:`check_layout` and :func:`check_overlaps` validate a table when it loads (every bit
covered exactly once, every slice in one field, fields that round-trip, no two rows
matching one word unless declared aliases).  The operand grammar is the ISA's: it comes
in as a function that reads a template into operands (objects with an ``ops`` tuple); a
table without one (``read_operands=None``) decodes and encodes every field by name.  With
``auto_fields`` a slice that no field names is a field of its own, named in snake case
(``OpSel`` -> ``op_sel``).  :class:`Row` pairs a layout with a name and the ISA's own data.

>>> fmt = Format("demo", bits="01000100 1 0 0 Zm:5 00000 $U Zn:5 Zda:5",
...              fields={"zda": "Zda", "zn": "Zn", "zm": "Zm"}, syntax="z{zda}.s, z{zn}.b, z{zm}.b")
>>> sorted(fmt.params), hex(fmt.layout("row", {"U": "0"}, "sdot", _Op.read).match)
(['U'], '0x44800000')
>>> toy = Format("toy", bits="1010 $op:4 Hi:2 B:6 A:16", fields={"ab": "Hi:A"}, syntax="", auto_fields=True)
>>> lay = toy.layout("toy.x", toy.values("toy.x", {"op": 6}))
>>> hex(lay.match), lay.decode(lay.encode({"ab": 0x3FFFF, "b": 5}))
('0xa6000000', {'ab': 262143, 'b': 5})
>>> hex(Format("w64", bits="1" * 32 + " Src:32", fields={"src": "Src"}, syntax="v{src}",
...            word_bits=64).layout("r", {}, "x", _Op.read).mask)
'0xffffffff00000000'
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

WORD_BITS = (32, 64)

_SLICE = re.compile(r"([A-Za-z][A-Za-z0-9]*):(\d+)$")
_FIELD = re.compile(r"([A-Za-z0-9:]+?)(?:\*(\d+)|\+(\d+))?$")
PARAM = re.compile(r"\$(\w+)")
SIZED = re.compile(r"\$(\w+):(\d+)")


class TableError(Exception):
    """An instruction table is inconsistent: a bug in the table, not user input."""


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
        return "register" if self.op[0] in "vzws" else "immediate"

    def extract_array(self, words):
        """:meth:`extract` of every word of an unsigned NumPy array, in one pass (same dtype)."""
        t = words.dtype.type
        raw = words & t(0)
        for s in self.slices:
            raw = (raw << t(s.width)) | ((words >> t(s.lo)) & t((1 << s.width) - 1))
        return raw * t(self.scale) + t(self.base) if self.scale != 1 or self.base else raw

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
class Layout:
    """Encoding and syntax of one row: its fixed bits, fields, constants and operand template."""

    bits: str  # the bit pattern with the family's parameters filled in
    mask: int
    match: int
    slices: tuple[Slice, ...]
    fields: Mapping[str, Field]
    consts: Mapping[str, int]
    syntax: str
    operands: tuple | None  # the ISA's operand objects, each with an ``ops`` tuple; None: no operand grammar
    family: str = ""
    word_bits: int = 32
    params: Mapping[str, str] = field(default_factory=dict)  # the template parameters filled in (derived ones too)

    def field(self, op: str) -> Field:
        return self.fields[op]

    def decode(self, word: int) -> dict[str, int]:
        """The operand values a matching word holds (constants included), in template order
        (in field order where the table has no operand grammar)."""
        names = self.fields if self.operands is None else (op for t in self.operands for op in t.ops)
        ops = {op: self.fields[op].extract(word) for op in names}
        ops.update(self.consts)
        return ops

    def encode(self, ops: Mapping[str, int]) -> int:
        """The word of already-checked operand values."""
        word = self.match
        for op, fld in self.fields.items():
            word |= fld.insert(ops[op])
        return word


def fill(name: str, template: str, values: Mapping[str, str | int]) -> str:
    """``template`` with each ``$p`` replaced by ``values[p]``; a sized ``$p:n`` takes exactly ``n`` bits,
    written as a string of ``0``/``1`` or as an integer that fits.

    >>> fill("r", "$a:3 $b:4 $c", {"a": 5, "b": "0011", "c": "x"})
    '101 0011 x'
    """

    def sized(m):
        value, n = values.get(m.group(1)), int(m.group(2))
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < (1 << n):
            return format(value, f"0{n}b")
        if isinstance(value, str) and len(value) == n and set(value) <= {"0", "1"}:
            return value
        raise TableError(f"{name}: ${m.group(1)}={value!r} is not {n} bits (a string of 0/1 or an integer that fits)")

    def one(m):
        if m.group(1) not in values:
            raise TableError(f"{name}: template parameter ${m.group(1)} has no value")
        return str(values[m.group(1)])

    return PARAM.sub(one, SIZED.sub(sized, template))


def parse_bits(name: str, bits: str, word_bits: int = 32) -> tuple[int, int, dict[str, Slice]]:
    """(mask of fixed bits, their values, slices) of a filled-in bit pattern of ``word_bits`` bits."""
    pos = word_bits
    mask = match = 0
    slices: dict[str, Slice] = {}
    for token in bits.replace("|", " ").split():
        m = _SLICE.match(token)
        if pos - (int(m.group(2)) if m else len(token)) < 0:
            raise TableError(f"{name}: bit pattern covers more than {word_bits} bits")
        if m:
            width = int(m.group(2))
            pos -= width
            if m.group(1) in slices:
                raise TableError(f"{name}: slice {m.group(1)} appears twice")
            slices[m.group(1)] = Slice(m.group(1), pos + width - 1, pos)
        elif set(token) <= {"0", "1"}:
            pos -= len(token)
            mask |= ((1 << len(token)) - 1) << pos
            match |= int(token, 2) << pos
        else:
            raise TableError(f"{name}: bad token {token!r} in bit pattern")
    if pos != 0:
        raise TableError(f"{name}: bit pattern covers {word_bits - pos} bits, not {word_bits}")
    return mask, match, slices


def parse_field(name: str, op: str, spec: str, slices: Mapping[str, Slice]) -> Field:
    m = _FIELD.match(spec)
    if not m:
        raise TableError(f"{name}: bad field spec {spec!r}")
    try:
        parts = tuple(slices[p] for p in m.group(1).split(":"))
    except KeyError as exc:
        raise TableError(f"{name}: field {spec!r} names unknown slice {exc}") from None
    return Field(op, spec, parts, scale=int(m.group(2) or 1), base=int(m.group(3) or 0))


def snake_case(name: str) -> str:
    """A slice's name as its field's (see ``auto_fields``).

    >>> snake_case("OpSel"), snake_case("Src0"), snake_case("XSrc1Abs")
    ('op_sel', 'src0', 'xsrc1_abs')
    """
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def split_template(syntax: str) -> tuple[str, list[str]]:
    """Mnemonic and operand templates of an assembly template, split at top-level commas."""
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


def build_layout(
    name: str,
    bits: str,
    fields: Mapping[str, str],
    consts: Mapping[str, int],
    syntax: str,
    read_operands: Callable[[str, str], tuple] | None,
    family: str = "",
    word_bits: int = 32,
    *,
    auto_fields: bool = False,
    params: Mapping[str, str] | None = None,
) -> Layout:
    """The :class:`Layout` of one row from its filled-in bit pattern, fields and template;
    ``read_operands(name, syntax)`` is the ISA's operand grammar (None: the table has none).
    With ``auto_fields``, each slice no field names is a field of its own (:func:`snake_case` name)."""
    if word_bits not in WORD_BITS:
        raise TableError(f"{name}: word_bits={word_bits}; expected one of {WORD_BITS}")
    mask, match, slices = parse_bits(name, bits, word_bits)
    parsed = {op: parse_field(name, op, spec, slices) for op, spec in fields.items()}
    if auto_fields:
        named = {s.name for f in parsed.values() for s in f.slices}
        for s in slices.values():
            if s.name not in named:
                if snake_case(s.name) in parsed:
                    raise TableError(f"{name}: slice {s.name} would be field {snake_case(s.name)}, which exists")
                parsed[snake_case(s.name)] = Field(snake_case(s.name), s.name, (s,))
    return Layout(
        bits=bits,
        mask=mask,
        match=match,
        slices=tuple(slices.values()),
        fields=parsed,
        consts=dict(consts),
        syntax=syntax,
        operands=None if read_operands is None else read_operands(name, syntax),
        family=family,
        word_bits=word_bits,
        params=dict(params or {}),
    )


@dataclass(frozen=True)
class Format:
    """One parametrised format (see the module docstring): what every instance of a family shares.

    ``derive`` maps an instance's parameter to further template parameters (a NEON ``Q`` bit to
    the ``.4s``/``.16b`` arrangement); ``consts`` are operands the row fixes (``$p`` allowed);
    ``auto_fields``: see :func:`build_layout`.
    """

    name: str
    bits: str
    fields: Mapping[str, str]
    syntax: str  # operands only: the mnemonic comes from the instance
    consts: Mapping[str, str] = field(default_factory=dict)
    derive: Mapping[str, Mapping[str, Mapping[str, str]]] = field(default_factory=dict)
    word_bits: int = 32
    auto_fields: bool = False

    def templates(self) -> list[str]:
        return [self.bits, self.syntax, *self.fields.values(), *map(str, self.consts.values())]

    @property
    def params(self) -> frozenset:
        """The parameters an instance must give: every ``$p`` of the templates that ``derive`` does not supply."""
        return self.params_with()

    def params_with(self, *extra: str) -> frozenset:
        """:attr:`params`, counting ``$p`` in further templates of the ISA's own (``extra``)."""
        named = set(PARAM.findall(" ".join([*self.templates(), *extra])))
        derived = {k for table in self.derive.values() for entry in table.values() for k in entry}
        return frozenset((named - derived) | set(self.derive))

    def values(self, row: str, params: Mapping, *extra: str) -> dict[str, str]:
        """Every template parameter's value for one instance; an unknown or missing parameter is an error."""
        allowed = self.params_with(*extra)
        unknown, lacking = set(params) - allowed, allowed - set(params)
        if unknown or lacking:
            raise TableError(
                f"{row}: family {self.name} takes parameters {sorted(allowed)}; "
                f"unknown {sorted(unknown)}, missing {sorted(lacking)}"
            )
        sized = {m.group(1) for m in SIZED.finditer(self.bits)}
        values = {k: v if k in sized and isinstance(v, int) else str(v) for k, v in params.items()}
        for param, table in self.derive.items():
            if values[param] not in table:
                raise TableError(f"{row}: {param}={values[param]} is not one of {sorted(table)}")
            values.update(table[values[param]])
        return values

    def layout(self, row: str, values: Mapping[str, str], mnemonic: str = "", read_operands=None) -> Layout:
        """The row's layout, its parameters' ``values`` filled in (see :meth:`values`); without
        ``read_operands`` the table has no operand grammar (fields are read and written by name)."""
        bits = fill(row, self.bits, values)
        syntax = " ".join(p for p in (mnemonic, fill(row, self.syntax, values)) if p)
        consts = {op: int(fill(row, str(v), values), 2) if "$" in str(v) else int(v) for op, v in self.consts.items()}
        fields = {op: fill(row, spec, values) for op, spec in self.fields.items()}
        return build_layout(
            row,
            bits,
            fields,
            consts,
            syntax,
            read_operands,
            self.name,
            self.word_bits,
            auto_fields=self.auto_fields,
            params={k: str(v) for k, v in values.items()},
        )


@dataclass(frozen=True)
class Row:
    """A table row as the codec reads it: a ``name``, its :class:`Layout`, and ``data``, what the ISA keeps
    about the row beside its encoding (its generation, its mnemonic, ...)."""

    name: str
    layout: Layout
    data: Mapping = field(default_factory=dict, compare=False)


def check_layout(name: str, lay: Layout) -> None:
    """One row's layout: every bit covered exactly once, every slice in exactly one field, every template
    operand a field (where the table has an operand grammar), and every field round-trips
    (``extract(insert(v)) == v``)."""
    covered = lay.mask
    for s in lay.slices:
        smask = ((1 << s.width) - 1) << s.lo
        if covered & smask:
            raise TableError(f"{name}: slice {s.name} overlaps other bits")
        covered |= smask
    full = (1 << lay.word_bits) - 1
    if covered != full:
        raise TableError(f"{name}: bits {~covered & full:#0{lay.word_bits // 4 + 2}x} are not covered")
    used = [s.name for fld in lay.fields.values() for s in fld.slices]
    if sorted(used) != sorted(s.name for s in lay.slices):
        raise TableError(f"{name}: every slice must belong to exactly one field")
    shown = set(lay.fields) if lay.operands is None else {op for o in lay.operands for op in o.ops}
    if shown != set(lay.fields):
        raise TableError(f"{name}: template shows {sorted(shown)}, fields are {sorted(lay.fields)}")
    for fld in lay.fields.values():
        # insert/extract move each raw bit on its own, so every value round-trips if the
        # lowest, the highest and each one-bit raw value do
        raws = {0, (1 << fld.width) - 1, *(1 << k for k in range(fld.width))}
        for v in sorted(fld.values[r] for r in raws):
            w = fld.insert(v)
            if w & ~fld.mask or fld.extract(w | lay.match) != v:
                raise TableError(f"{name}: field {fld.spec} does not round-trip {v}")


def check_overlaps(rows, aliases: frozenset = frozenset()) -> None:
    """No two rows (objects with ``name`` and ``layout``) of one word width match one word unless declared
    aliases (``frozenset({name1, name2})`` in ``aliases``); names are unique.  Rows of different widths
    never compete: a decoder reads each width with its own table."""
    names = set()
    for r in rows:
        if r.name in names:
            raise TableError(f"duplicate row name {r.name}")
        names.add(r.name)
    for i, a in enumerate(rows):
        for b in rows[i + 1 :]:
            if a.layout.word_bits != b.layout.word_bits:
                continue
            common = a.layout.mask & b.layout.mask
            if (a.layout.match ^ b.layout.match) & common == 0 and frozenset((a.name, b.name)) not in aliases:
                raise TableError(f"rows {a.name} and {b.name} overlap: some word matches both")


@dataclass(frozen=True)
class _Op:
    """A minimal operand grammar for this module's examples: every ``{op}`` is one operand."""

    ops: tuple

    @staticmethod
    def read(name: str, syntax: str) -> tuple:
        return tuple(_Op((op,)) for op in re.findall(r"\{(\w+)\}", syntax))


__all__ = [
    "WORD_BITS",
    "Field",
    "Format",
    "Layout",
    "Row",
    "SIZED",
    "Slice",
    "TableError",
    "build_layout",
    "check_layout",
    "check_overlaps",
    "fill",
    "parse_bits",
    "parse_field",
    "snake_case",
    "split_template",
]
