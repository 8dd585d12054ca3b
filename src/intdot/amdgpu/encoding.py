"""Encoding families of fixed-width words (32 or 64 bits), written the way LLVM's TableGen writes
formats: generic, naming no ISA, so that it can move into :mod:`intdot.isa` beside Arm's.

A :class:`Family` is a bit template from the highest bit down to bit 0: runs of ``0``/``1`` are
fixed bits, ``Name:width`` is a field slice, ``$p`` a parameter that each row fills in with bits
(``$op`` an opcode of the row's width).  Fields are slices, or slices joined high part first
(``OpSelHi2:OpSelHi``: a field whose top bit lies elsewhere).  Calling a family with a row name and
its parameters gives one :class:`Layout`.  :class:`Decoder` finds the only row a word can be by a
decision table on the most telling fixed bits, for one word or, in one pass, for an array.

>>> fam = Family("toy", 32, "1010 $op:4 B:8 A:16", fields={"b": "B", "a": "A"})
>>> row = fam("toy.x", op="0110")
>>> hex(row.match), hex(row.mask), row.insert({"a": 5, "b": 1})
('0xa6000000', '0xff000000', 2785083397)
>>> row.extract(2785083397)
{'b': 1, 'a': 5}
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

_SLICE = re.compile(r"([A-Za-z][A-Za-z0-9]*):(\d+)$")
_PARAM = re.compile(r"\$(\w+)(?::(\d+))?")
_MAX_KEY_BITS = 16


class EncodingTableError(ValueError):
    """A table row that is not well formed (a bug in the table, found when it loads)."""


@dataclass(frozen=True)
class Slice:
    name: str
    hi: int
    lo: int

    @property
    def width(self) -> int:
        return self.hi - self.lo + 1


@dataclass(frozen=True)
class Layout:
    """One row: its fixed bits (``mask``/``match``), its slices and its fields (name -> slices, high first)."""

    name: str
    family: str
    width: int
    bits: str
    mask: int
    match: int
    slices: tuple[Slice, ...]
    fields: Mapping[str, tuple[Slice, ...]]
    params: Mapping[str, str] = field(default_factory=dict)

    def field_width(self, name: str) -> int:
        return sum(s.width for s in self.fields[name])

    def extract(self, word: int) -> dict[str, int]:
        """Every field's value in ``word``."""
        out = {}
        for name, parts in self.fields.items():
            v = 0
            for s in parts:
                v = (v << s.width) | ((word >> s.lo) & ((1 << s.width) - 1))
            out[name] = v
        return out

    def insert(self, values: Mapping[str, int]) -> int:
        """The word with the fixed bits and ``values`` (every field must be given, and fit)."""
        if set(values) != set(self.fields):
            raise EncodingTableError(f"{self.name}: fields are {sorted(self.fields)}, got {sorted(values)}")
        word = self.match
        for name, parts in self.fields.items():
            v = values[name]
            if not 0 <= v < (1 << self.field_width(name)):
                raise EncodingTableError(f"{self.name}: {name}={v} does not fit {self.field_width(name)} bits")
            for s in reversed(parts):
                word |= (v & ((1 << s.width) - 1)) << s.lo
                v >>= s.width
        return word

    def extract_array(self, words: np.ndarray, name: str) -> np.ndarray:
        """Field ``name`` of every word of a uint64 array, in one pass."""
        v = np.zeros(words.shape, dtype=np.uint64)
        for s in self.fields[name]:
            part = (words >> np.uint64(s.lo)) & np.uint64((1 << s.width) - 1)
            v = (v << np.uint64(s.width)) | part
        return v


def parse_bits(name: str, bits: str, width: int) -> tuple[int, int, tuple[Slice, ...]]:
    """(mask of fixed bits, their values, slices) of a filled-in template of ``width`` bits."""
    pos, mask, match, slices, seen = width, 0, 0, [], set()
    for token in bits.replace("|", " ").split():
        m = _SLICE.match(token)
        n = int(m.group(2)) if m else len(token)
        if pos - n < 0:
            raise EncodingTableError(f"{name}: bit template covers more than {width} bits")
        pos -= n
        if m:
            if m.group(1) in seen:
                raise EncodingTableError(f"{name}: slice {m.group(1)} appears twice")
            seen.add(m.group(1))
            slices.append(Slice(m.group(1), pos + n - 1, pos))
        elif set(token) <= {"0", "1"}:
            mask |= ((1 << n) - 1) << pos
            match |= int(token, 2) << pos
        else:
            raise EncodingTableError(f"{name}: bad token {token!r} in bit template")
    if pos != 0:
        raise EncodingTableError(f"{name}: bit template covers {width - pos} bits, not {width}")
    return mask, match, tuple(slices)


@dataclass(frozen=True)
class Family:
    """A parametrised format (see the module docstring).  ``fields``: field name -> ``Slice`` or
    ``High:Low`` slices; a slice no field names is a field of its own name in snake case (``OpSel``: ``op_sel``)."""

    name: str
    width: int
    bits: str
    fields: Mapping[str, str] = field(default_factory=dict)

    @property
    def params(self) -> dict[str, int | None]:
        return {m.group(1): int(m.group(2)) if m.group(2) else None for m in _PARAM.finditer(self.bits)}

    def __call__(self, name: str, **params) -> Layout:
        wanted = self.params
        if set(params) != set(wanted):
            raise EncodingTableError(f"{name}: family {self.name} takes {sorted(wanted)}, got {sorted(params)}")

        def fill(m: re.Match) -> str:
            value, n = params[m.group(1)], wanted[m.group(1)]
            if isinstance(value, int):
                if n is None or not 0 <= value < (1 << n):
                    raise EncodingTableError(f"{name}: ${m.group(1)}={value} needs a width that holds it")
                return format(value, f"0{n}b")
            if set(value) - {"0", "1"} or (n is not None and len(value) != n):
                raise EncodingTableError(f"{name}: ${m.group(1)}={value!r} is not {n or 'some'} bits")
            return value

        bits = _PARAM.sub(fill, self.bits)
        mask, match, slices = parse_bits(name, bits, self.width)
        by_name = {s.name: s for s in slices}
        fields: dict[str, tuple[Slice, ...]] = {}
        used: list[str] = []
        for fname, spec in self.fields.items():
            parts = spec.split(":")
            if any(p not in by_name for p in parts):
                raise EncodingTableError(f"{name}: field {fname}={spec!r} names an unknown slice")
            fields[fname] = tuple(by_name[p] for p in parts)
            used += parts
        for s in slices:
            if s.name not in used:
                fields[_snake(s.name)] = (s,)
                used.append(s.name)
        if sorted(used) != sorted(by_name):
            raise EncodingTableError(f"{name}: every slice must belong to exactly one field")
        return Layout(name, self.name, self.width, bits, mask, match, slices, fields, dict(params))


def _snake(name: str) -> str:
    """``OpSel`` -> ``op_sel``, ``Src0`` -> ``src0``: a slice's name as its field's."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def validate(rows: Sequence[Layout], aliases: frozenset = frozenset()) -> None:
    """Check a table: each row covers every bit exactly once, fields round-trip at their corners,
    and no two rows of one width decode the same word unless ``frozenset({a, b})`` is in ``aliases``."""
    names = set()
    for r in rows:
        if r.name in names:
            raise EncodingTableError(f"duplicate row {r.name}")
        names.add(r.name)
        covered = r.mask
        for s in r.slices:
            smask = ((1 << s.width) - 1) << s.lo
            if covered & smask:
                raise EncodingTableError(f"{r.name}: slice {s.name} overlaps other bits")
            covered |= smask
        if covered != (1 << r.width) - 1:
            raise EncodingTableError(f"{r.name}: bits {~covered & ((1 << r.width) - 1):#x} are not covered")
        for pick in (0, 1):
            vals = {f: (1 << r.field_width(f)) - 1 if pick else 0 for f in r.fields}
            if r.extract(r.insert(vals)) != vals:
                raise EncodingTableError(f"{r.name}: fields do not round-trip")
    for i, a in enumerate(rows):
        for b in rows[i + 1 :]:
            both = a.mask & b.mask
            if a.width == b.width and (a.match & both) == (b.match & both):
                if frozenset({a.name, b.name}) not in aliases:
                    raise EncodingTableError(f"rows {a.name} and {b.name} decode the same words")


def _choose_bits(rows: Sequence[Layout], width: int) -> list[int]:
    """Bit positions, most telling first, until each key selects at most one row (a greedy decision tree)."""
    chosen: list[int] = []
    groups = [list(range(len(rows)))]
    while groups and len(chosen) < _MAX_KEY_BITS:
        best, best_cost = -1, None
        for b in range(width):
            if b in chosen:
                continue
            cost = 0
            for g in groups:
                ones = sum(1 for i in g if rows[i].mask >> b & 1 and rows[i].match >> b & 1)
                zeros = sum(1 for i in g if rows[i].mask >> b & 1 and not rows[i].match >> b & 1)
                free = len(g) - ones - zeros
                cost += max(ones, zeros) + free
            if best_cost is None or cost < best_cost:
                best, best_cost = b, cost
        chosen.append(best)
        split = []
        for g in groups:
            for bit in (1, 0):
                part = [i for i in g if not rows[i].mask >> best & 1 or (rows[i].match >> best & 1) == bit]
                if len(part) > 1:
                    split.append(part)
        groups = split
    if groups:
        raise EncodingTableError(f"rows {[rows[i].name for i in groups[0]]} cannot be told apart")
    return sorted(chosen, reverse=True)


class Decoder:
    """A decision table over rows of one width: key bits of a word -> the only row that can match."""

    def __init__(self, rows: Sequence[Layout], width: int):
        if any(r.width != width for r in rows):
            raise EncodingTableError(f"a decoder of {width}-bit words takes rows of that width only")
        self.rows = tuple(rows)
        self.width = width
        self.bits = _choose_bits(self.rows, self.width)
        n = len(self.bits)
        keys = np.arange(1 << n, dtype=np.uint64)
        table = np.full(1 << n, -1, dtype=np.int32)
        for k, r in enumerate(self.rows):
            kmask, kmatch = self.key(r.mask), self.key(r.match)
            hit = (keys & np.uint64(kmask)) == np.uint64(kmatch)
            if (table[hit] >= 0).any():
                raise EncodingTableError(
                    f"row {r.name} shares a decode key with row {self.rows[table[hit].max()].name}"
                )
            table[hit] = k
        self.table = table
        self.mask_arr = np.array([r.mask for r in self.rows] + [0], dtype=np.uint64)
        self.match_arr = np.array([r.match for r in self.rows] + [1], dtype=np.uint64)

    def key(self, word: int) -> int:
        k = 0
        for b in self.bits:
            k = (k << 1) | ((word >> b) & 1)
        return k

    def row_of(self, word: int) -> Layout | None:
        """The row whose fixed bits ``word`` has, or None."""
        i = int(self.table[self.key(word)])
        if i >= 0 and word & self.rows[i].mask == self.rows[i].match:
            return self.rows[i]
        return None

    def classify(self, words: np.ndarray) -> np.ndarray:
        """Row index (int32) of each uint64 word (-1 where no row matches), in one pass."""
        key = np.zeros(words.shape, dtype=np.uint64)
        for b in self.bits:
            key = (key << np.uint64(1)) | ((words >> np.uint64(b)) & np.uint64(1))
        idx = self.table[key.astype(np.intp)]
        ok = (words & self.mask_arr[idx]) == self.match_arr[idx]
        return np.where(ok, idx, np.int32(-1))


__all__ = ["Decoder", "EncodingTableError", "Family", "Layout", "Slice", "parse_bits", "validate"]
