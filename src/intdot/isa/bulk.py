"""Disassembling arrays of words at NumPy speed, for any table of rows.

One pass over the words classifies them all (:class:`~intdot.isa.codec.Dispatch`); the words
are then grouped by row, the fields are cut out with shifts and masks, and the text is
assembled from per-row string tables.  Neighbouring template operands are merged into one
table while their combined key space stays small (at most ``MAX_TABLE`` entries), so most rows
need a single string concatenation per word.  The tables are built on first use from the
ISA's own printer (``format_operand(operand, values)``), so bulk and scalar text cannot differ.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .codec import Dispatch
from .encoding import Field

MAX_TABLE = 1 << 12


def _raw(words: np.ndarray, fld: Field) -> np.ndarray:
    raw = None
    for s in fld.slices:
        part = (words >> words.dtype.type(s.lo)) & words.dtype.type((1 << s.width) - 1)
        raw = part if raw is None else (raw << words.dtype.type(s.width)) | part
    return raw


class Printer:
    """Text of many words of one table: ``format_operand(operand, values)`` prints one template operand,
    ``mnemonic(row)`` the row's mnemonic (with the space after it)."""

    def __init__(self, dispatch: Dispatch, format_operand: Callable, mnemonic: Callable):
        self.dispatch, self.format_operand, self.mnemonic = dispatch, format_operand, mnemonic
        self._tables: dict[str, list] = {}

    def groups(self, row):
        """Template operands merged into groups: [(operand indices, ops in key order)]."""
        lay = row.layout
        groups, cur, cur_ops, size = [], [], [], 1
        for i, t in enumerate(lay.operands):
            tsize = 1 << sum(lay.fields[op].width for op in t.ops)
            if cur and size * tsize > MAX_TABLE:
                groups.append((cur, cur_ops))
                cur, cur_ops, size = [], [], 1
            cur, cur_ops, size = cur + [i], cur_ops + list(t.ops), size * tsize
        groups.append((cur, cur_ops))
        return groups

    def tables(self, row):
        cached = self._tables.get(row.name)
        if cached is not None:
            return cached
        lay = row.layout
        out = []
        for gi, (idx, ops) in enumerate(self.groups(row)):
            widths = [lay.fields[op].width for op in ops]
            n = 1 << sum(widths)
            strings = []
            for key in range(n):
                values, k = dict(lay.consts), key
                for op, w in zip(reversed(ops), reversed(widths)):
                    values[op] = lay.fields[op].values[k & ((1 << w) - 1)]
                    k >>= w
                text = ", ".join(self.format_operand(lay.operands[i], values) for i in idx)
                strings.append((self.mnemonic(row) if gi == 0 else ", ") + text)
            table = np.empty(n, dtype=object)
            table[:] = strings
            out.append((ops, widths, table))
        self._tables[row.name] = out
        return out

    def texts(self, flat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(object array of text, None where no row decodes; the row index of each word, -1 for none)."""
        flat = flat.astype(self.dispatch.dtype, copy=False)
        out = np.empty(flat.shape, dtype=object)
        idx = self.dispatch.classify(flat)
        for k, sel in self.dispatch.groups(idx):
            row = self.dispatch.rows[k]
            lay = row.layout
            w = flat[sel]
            text = None
            for ops, widths, table in self.tables(row):
                key = None
                for op, width in zip(ops, widths):
                    raw = _raw(w, lay.fields[op])
                    key = raw if key is None else (key << w.dtype.type(width)) | raw
                piece = table.take(key.astype(np.intp))
                text = piece if text is None else text + piece
            out[sel] = text
        return out, idx


__all__ = ["MAX_TABLE", "Printer"]
