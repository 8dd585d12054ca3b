"""Words <-> :class:`~intdot.arm.records.Insn`: the encoder, and a decoder that
dispatches on fixed bits.

The decoder does not scan the rows.  At first use it picks a few bit
positions that tell the rows apart (greedily, the way a decision tree would
split), and builds a table indexed by those bits: each entry names the one
row that can match a word with those bits (or none).  A word is decoded with
one table look-up and one mask compare; :func:`classify` does the same for a
whole NumPy array in one pass, which the bulk disassembler uses.

>>> decode(0x4F22F83F).form.name
'sudot_neon_elem_128'
>>> hex(encode(decode(0xC1D08018)))
'0xc1d08018'
"""

from __future__ import annotations

import numbers

import numpy as np

from ..core.errors import OperandError, OperandTypeError, UndefinedEncoding, quote
from ..core.values import describe
from .forms import FORMS, checked_ops
from .records import _HOOKS, Form, FormTableError, Insn

_MAX_KEY_BITS = 16


def _choose_bits(forms: tuple[Form, ...]) -> list[int]:
    """Bit positions, most telling first, until each key selects at most one row.

    Greedy, as a decision tree splits: each step takes the bit after which the
    groups of rows that still agree on every chosen bit are smallest (a row
    whose bit is a field goes to both sides)."""
    bit = np.uint32(1) << np.arange(32, dtype=np.uint32)
    mask = np.array([f.layout.mask for f in forms], dtype=np.uint32)[:, None] & bit
    match = np.array([f.layout.match for f in forms], dtype=np.uint32)[:, None] & bit
    one = (mask != 0) & (match != 0)
    zero = (mask != 0) & (match == 0)
    free = mask == 0
    groups = [np.arange(len(forms))]
    chosen: list[int] = []
    while groups and len(chosen) < _MAX_KEY_BITS:
        cost = np.zeros(32, dtype=np.int64)
        for g in groups:
            nfree = free[g].sum(0)
            cost += np.maximum(one[g].sum(0), zero[g].sum(0)) + nfree
        cost[chosen] = np.iinfo(np.int64).max
        b = int(np.argmin(cost))
        chosen.append(b)
        split = []
        for g in groups:
            for side in (one, zero):
                part = g[side[g, b] | free[g, b]]
                if len(part) > 1:  # a single row needs no more bits
                    split.append(part)
        groups = split
    if groups:
        raise FormTableError(f"rows {[forms[i].name for i in groups[0]]} cannot be told apart by {_MAX_KEY_BITS} bits")
    return sorted(chosen, reverse=True)


def _runs(bits: list[int]) -> tuple[tuple[int, int, int], ...]:
    """The chosen bits as contiguous runs: (lowest bit, width, place in the key)."""
    runs, place = [], sum(1 for _ in bits)
    i = 0
    while i < len(bits):
        j = i
        while j + 1 < len(bits) and bits[j + 1] == bits[j] - 1:
            j += 1
        width = j - i + 1
        place -= width
        runs.append((bits[j], width, place))
        i = j + 1
    return tuple(runs)


class _Dispatch:
    """The decision table: key bits of a word -> index of the only row that can match it."""

    def __init__(self, forms: tuple[Form, ...]):
        self.forms = forms
        bits = _choose_bits(forms)
        self.runs = _runs(bits)
        n = len(bits)
        keys = np.arange(1 << n, dtype=np.uint32)
        table = np.full(1 << n, -1, dtype=np.int16)
        for k, f in enumerate(forms):
            kmask = self.key(f.layout.mask)
            kmatch = self.key(f.layout.match)
            hit = (keys & np.uint32(kmask)) == np.uint32(kmatch)
            if (table[hit] >= 0).any():
                other = forms[int(table[hit][table[hit] >= 0][0])]
                raise FormTableError(
                    f"rows {f.name} and {other.name} share a decode key; the dispatch needs more key bits"
                )
            table[hit] = k
        self.table = table
        self.table_list = table.tolist()
        # The key as one Python expression of the word (built from the integers above only):
        # about twice as fast per word as a loop over the runs.
        expr = " | ".join(f"((w >> {lo}) & {(1 << width) - 1}) << {place}" for lo, width, place in self.runs)
        self.key_of = eval(f"lambda w: {expr}")  # noqa: S307
        self.masks = [f.layout.mask for f in forms]
        self.matches = [f.layout.match for f in forms]
        # Index -1 (no row) reads a last entry that no word matches: word & 0 is never 1.
        self.mask_arr = np.array(self.masks + [0], dtype=np.uint32)
        self.match_arr = np.array(self.matches + [1], dtype=np.uint32)

    def key(self, word: int) -> int:
        k = 0
        for lo, width, place in self.runs:
            k |= ((word >> lo) & ((1 << width) - 1)) << place
        return k

    def form_of(self, word: int) -> Form | None:
        i = self.table_list[self.key_of(word)]
        if i >= 0 and word & self.masks[i] == self.matches[i]:
            return self.forms[i]
        return None

    def classify(self, words: np.ndarray) -> np.ndarray:
        """Row index (int16) of each uint32 word (-1 where no row matches), in one pass."""
        key = np.zeros(words.shape, dtype=np.uint32)
        for lo, width, place in self.runs:
            key |= ((words >> np.uint32(lo)) & np.uint32((1 << width) - 1)) << np.uint32(place)
        idx = self.table[key]  # int16: grouping by row is then a radix sort
        ok = (words & self.mask_arr[idx]) == self.match_arr[idx]
        return np.where(ok, idx, np.int16(-1))


_DISPATCH: _Dispatch | None = None


def dispatch() -> _Dispatch:
    """The decision table (built on first use: importing the package stays cheap)."""
    global _DISPATCH
    if _DISPATCH is None:
        table = _Dispatch(FORMS)
        _DISPATCH = table
        try:
            _self_check(table)
        except FormTableError:
            _DISPATCH = None
            raise
    return _DISPATCH


_SUPPORTED = f"intdot decodes the {len(FORMS)} sdot/udot/usdot/sudot forms of intdot.arm.FORMS"


def check_word(word, name: str = "word") -> int:
    """One 32-bit instruction word as an int, or a typed error that says how to pass one."""
    if isinstance(word, str):
        raise OperandTypeError(
            f"{name}={quote(word)} is a str; expected an int in [0, 0xffffffff]: pass int({quote(word)}, 16) "
            "for hex text, or use the command line: intdot disasm " + quote(word.strip(), marks=False)
        )
    if isinstance(word, bool) or not isinstance(word, numbers.Integral):
        raise OperandTypeError(
            f"{name}={describe(word)} has type {type(word).__name__}; expected an int in [0, 0xffffffff]"
        )
    w = int(word)
    if w < 0 and getattr(word, "dtype", None) is not None and word.dtype.kind == "i" and word.dtype.itemsize == 4:
        w &= 0xFFFFFFFF  # an element of an int32 array of words: its bit pattern, as the bulk path reads it
    if not 0 <= w <= 0xFFFFFFFF:
        raise OperandError(f"{name}={w:#x} is out of range; expected an instruction word in [0, 0xffffffff]")
    return w


def match_form(word: int) -> Form | None:
    """The row whose fixed bits ``word`` has, or None."""
    return dispatch().form_of(word)


def decode(word) -> Insn:
    """The instruction encoded by a 32-bit word.

    Raises
    ------
    UndefinedEncoding
        If the word is not one of the supported encodings.
    OperandTypeError
        If ``word`` is not an int (a hex string included: pass ``int(s, 16)``).

    >>> insn = decode(0xC1501038)
    >>> insn.form.name, dict(insn.ops)
    ('sudot_sme2_indexed_vgx2', {'wv': 8, 'off': 0, 'zn': 0, 'zm': 0, 'index': 0})
    """
    w = check_word(word)
    form = dispatch().form_of(w)
    if form is None:
        raise UndefinedEncoding(f"{w:#010x} is not a supported encoding ({_SUPPORTED})")
    lay = form.layout
    ops = {}
    for t in lay.operands:
        for op in t.ops:
            ops[op] = lay.fields[op].extract(w)
    ops.update(lay.consts)
    return Insn(form, ops)


def encode(insn: Insn) -> int:
    """The 32-bit word of an instruction (operands checked by :func:`~intdot.arm.forms.checked_ops`).

    >>> from intdot.arm.forms import form_named
    >>> hex(encode(Insn(form_named("sdot_sve_vec_d"), {"zda": 0, "zn": 1, "zm": 31})))
    '0x44df0020'
    """
    ops = checked_ops(insn)
    lay = insn.form.layout
    word = lay.match
    for op, fld in lay.fields.items():
        word |= fld.insert(ops[op])
    return word


_HOOKS["encode"] = encode


def _corners(form: Form) -> list[Insn]:
    """The row with every field at its lowest, and at its highest, value."""
    lay = form.layout
    return [Insn(form, {**{op: f.values[pick] for op, f in lay.fields.items()}, **lay.consts}) for pick in (0, -1)]


def _self_check(table: _Dispatch) -> None:
    """decode(encode(x)) == x for each row at its corners, through the decision table
    (run when the table is built, so a row the table misroutes is caught at once)."""
    for form in FORMS:
        for insn in _corners(form):
            word = encode(insn)
            if table.form_of(word) is not form or decode(word) != insn:
                raise FormTableError(f"{form.name}: {dict(insn.ops)} ({word:#010x}) does not survive encode -> decode")


__all__ = ["check_word", "decode", "dispatch", "encode", "match_form"]
