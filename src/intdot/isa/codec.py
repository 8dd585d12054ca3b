"""Decoding by dispatch on fixed bits, for tables of 32- or 64-bit words.

The decoder does not scan the rows.  When a table is built it picks a few bit positions
that tell the rows apart (greedily, the way a decision tree splits), and builds a table
indexed by those bits: each entry names the one row that can match a word with those bits
(or none).  A word is decoded with one table look-up and one mask compare;
:meth:`Dispatch.classify` does the same for a whole NumPy array in one pass, which the bulk
disassemblers use.  Rows are any objects with ``name`` and an
:class:`~intdot.isa.encoding.Layout` as ``layout``.
"""

from __future__ import annotations

import numpy as np

from .encoding import TableError

MAX_KEY_BITS = 16


def _choose_bits(rows, word_bits: int) -> list[int]:
    """Bit positions, most telling first, until each key selects at most one row.

    Greedy, as a decision tree splits: each step takes the bit after which the groups of rows that
    still agree on every chosen bit are smallest (a row whose bit is a field goes to both sides)."""
    positions = range(word_bits)
    shape = (len(rows), word_bits)  # also for a table of no rows
    mask = np.array([[(r.layout.mask >> b) & 1 for b in positions] for r in rows], dtype=bool).reshape(shape)
    match = np.array([[(r.layout.match >> b) & 1 for b in positions] for r in rows], dtype=bool).reshape(shape)
    one, zero, free = mask & match, mask & ~match, ~mask
    groups = [np.arange(len(rows))]
    chosen: list[int] = []
    while groups and len(chosen) < MAX_KEY_BITS:
        cost = np.zeros(word_bits, dtype=np.int64)
        for g in groups:
            cost += np.maximum(one[g].sum(0), zero[g].sum(0)) + free[g].sum(0)
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
        raise TableError(f"rows {[rows[i].name for i in groups[0]]} cannot be told apart by {MAX_KEY_BITS} bits")
    return sorted(chosen, reverse=True)


def _runs(bits: list[int]) -> tuple[tuple[int, int, int], ...]:
    """The chosen bits as contiguous runs: (lowest bit, width, place in the key)."""
    runs, place = [], len(bits)
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


class Dispatch:
    """The decision table of one table of rows: key bits of a word -> index of the only row that can match.

    Every row must be of ``word_bits`` bits (an ISA with words of two widths builds one table per width).
    """

    def __init__(self, rows, word_bits: int = 32):
        self.rows = tuple(rows)
        other = [r.name for r in self.rows if r.layout.word_bits != word_bits]
        if other:
            raise TableError(f"rows {other[:3]} are not of {word_bits} bits; a Dispatch takes rows of one width")
        self.word_bits = word_bits
        self.dtype = np.uint32 if word_bits == 32 else np.uint64
        bits = _choose_bits(self.rows, word_bits)
        self.runs = _runs(bits)
        n = len(bits)
        keys = np.arange(1 << n, dtype=np.uint32)
        table = np.full(1 << n, -1, dtype=np.int16)
        for k, r in enumerate(self.rows):
            hit = (keys & np.uint32(self.key(r.layout.mask))) == np.uint32(self.key(r.layout.match))
            if (table[hit] >= 0).any():
                other = self.rows[int(table[hit][table[hit] >= 0][0])]
                raise TableError(f"rows {r.name} and {other.name} share a decode key; the dispatch needs more key bits")
            table[hit] = k
        self.table = table
        self.table_list = table.tolist()
        # The key as one Python expression of the word (built from the integers above only):
        # about twice as fast per word as a loop over the runs.
        expr = " | ".join(f"((w >> {lo}) & {(1 << width) - 1}) << {place}" for lo, width, place in self.runs)
        self.key_of = eval(f"lambda w: {expr}")  # noqa: S307
        self.masks = [r.layout.mask for r in self.rows]
        self.matches = [r.layout.match for r in self.rows]
        # Index -1 (no row) reads a last entry that no word matches: word & 0 is never 1.
        self.mask_arr = np.array(self.masks + [0], dtype=self.dtype)
        self.match_arr = np.array(self.matches + [1], dtype=self.dtype)

    def key(self, word: int) -> int:
        k = 0
        for lo, width, place in self.runs:
            k |= ((word >> lo) & ((1 << width) - 1)) << place
        return k

    def row_of(self, word: int):
        """The row whose fixed bits ``word`` has, or None."""
        i = self.table_list[self.key_of(word)]
        if i >= 0 and word & self.masks[i] == self.matches[i]:
            return self.rows[i]
        return None

    def classify(self, words: np.ndarray) -> np.ndarray:
        """Row index (int16) of each word (-1 where no row matches), in one pass."""
        words = words.astype(self.dtype, copy=False)
        key = np.zeros(words.shape, dtype=np.uint32)
        for lo, width, place in self.runs:
            part = (words >> self.dtype(lo)) & self.dtype((1 << width) - 1)
            key |= part.astype(np.uint32) << np.uint32(place)
        idx = self.table[key]  # int16: grouping by row is then a radix sort
        ok = (words & self.mask_arr[idx]) == self.match_arr[idx]
        return np.where(ok, idx, np.int16(-1))

    def groups(self, idx: np.ndarray):
        """``(row index, positions)`` of each row that :meth:`classify`'s ``idx`` names, positions ascending:
        one stable radix sort of the int16 row numbers, not one scan of ``idx`` per row.

        >>> from intdot.isa.encoding import Format, Row
        >>> fmt = Format("f", "1 $op:1 A:30", {}, "", auto_fields=True)
        >>> d = Dispatch([Row(f"r{k}", fmt.layout(f"r{k}", fmt.values(f"r{k}", {"op": k}))) for k in (0, 1)])
        >>> [(k, p.tolist()) for k, p in d.groups(d.classify(np.array([0xC0000000, 0x80000000, 0, 0xC0000001])))]
        [(0, [1]), (1, [0, 3])]
        """
        idx = np.asarray(idx)
        order = np.argsort(idx, kind="stable")
        counts = np.bincount(idx.astype(np.intp) + 1, minlength=len(self.rows) + 1)
        bounds = np.concatenate(([0], np.cumsum(counts)))
        for k in np.flatnonzero(counts[1:]):
            yield int(k), order[bounds[k + 1] : bounds[k + 2]]

    def self_check(self, corners) -> None:
        """``decode(encode(x)) == x`` through the table for each row at ``corners(row)`` (operand dicts):
        run when a table is built, so a row the table misroutes is caught at once."""
        for r in self.rows:
            for ops in corners(r):
                word = r.layout.encode(ops)
                if self.row_of(word) is not r or r.layout.decode(word) != ops:
                    raise TableError(f"{r.name}: {ops} ({word:#x}) does not survive encode -> decode")


def corners(row) -> list[dict]:
    """The row with every field at its lowest, and at its highest, value (constants included)."""
    lay = row.layout
    return [{**{op: f.values[pick] for op, f in lay.fields.items()}, **lay.consts} for pick in (0, -1)]


__all__ = ["MAX_KEY_BITS", "Dispatch", "corners"]
