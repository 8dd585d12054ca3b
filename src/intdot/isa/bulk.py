"""Disassembling arrays of words at NumPy speed, for any table of rows.

One pass over the words classifies them all (:class:`~intdot.isa.codec.Dispatch`); the words
are then grouped by row, the fields are cut out with shifts and masks, and the text is
assembled from per-row string tables.  Neighbouring template operands are merged into one
table while their combined key space stays small (at most ``MAX_TABLE`` entries), so most rows
need a single string concatenation per word.  The tables are built on first use from the
ISA's own printer (``format_operand(operand, values)``), so bulk and scalar text cannot differ.

An ISA whose rows carry no operand template names its own printed pieces per row (``operands``:
any objects with an ``ops`` tuple of field names) and how they are joined (``sep``); a piece whose
own key space exceeds ``MAX_TABLE`` is printed word by word.  Words of 32 or 64 bits, as the
:class:`~intdot.isa.codec.Dispatch` says; a caller that has classified the words already passes
the row indices (``texts(words, idx)``).
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
    """Text of many words of one table: ``format_operand(operand, values)`` prints one operand,
    ``mnemonic(row)`` the row's mnemonic (with the space after it).

    ``operands(row)``: the row's printed operands in order (default: its template's); ``sep``: the text
    between two operands (``""`` where ``format_operand`` writes its own separator).
    """

    def __init__(
        self,
        dispatch: Dispatch,
        format_operand: Callable,
        mnemonic: Callable,
        *,
        operands: Callable | None = None,
        sep: str = ", ",
    ):
        self.dispatch, self.format_operand, self.mnemonic = dispatch, format_operand, mnemonic
        self.operands = operands or (lambda row: row.layout.operands)
        self.sep = sep
        self._tables: dict[str, list] = {}

    def groups(self, row):
        """Operands merged into groups: [(operand indices, ops in key order)]; an operand whose own key space
        exceeds MAX_TABLE is a group of its own."""
        lay = row.layout
        groups, cur, cur_ops, size = [], [], [], 1
        for i, t in enumerate(self.operands(row)):
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
        operands = self.operands(row)
        out = []
        for gi, (idx, ops) in enumerate(self.groups(row)):
            widths = [lay.fields[op].width for op in ops]
            n = 1 << sum(widths)
            lead = self.mnemonic(row) if gi == 0 else self.sep
            if n > MAX_TABLE:  # one operand too wide for a table: printed word by word
                out.append((ops, widths, (lead, operands[idx[0]])))
                continue
            strings = []
            for key in range(n):
                values, k = dict(lay.consts), key
                for op, w in zip(reversed(ops), reversed(widths)):
                    values[op] = lay.fields[op].values[k & ((1 << w) - 1)]
                    k >>= w
                strings.append(lead + self.sep.join(self.format_operand(operands[i], values) for i in idx))
            table = np.empty(n, dtype=object)
            table[:] = strings
            out.append((ops, widths, table))
        self._tables[row.name] = out
        return out

    def texts(self, flat: np.ndarray, idx: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(object array of text, None where no row decodes; the row index of each word, -1 for none).

        ``idx``: the row index of each word where the caller has classified them already (-1: not printed).
        """
        flat = flat.astype(self.dispatch.dtype, copy=False)
        out = np.empty(flat.shape, dtype=object)
        if idx is None:
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
                if key is None:  # a group of operands that read no field: one string for every word
                    key = np.zeros(w.shape, dtype=w.dtype)
                if isinstance(table, tuple):
                    piece = self._one_by_one(lay, ops, widths, key, *table)
                else:
                    piece = table.take(key.astype(np.intp))
                text = piece if text is None else text + piece
            out[sel] = text
        return out, idx

    def _one_by_one(self, lay, ops, widths, keys: np.ndarray, lead: str, operand) -> np.ndarray:
        strings = []
        for key in keys.tolist():
            values = dict(lay.consts)
            for op, w in zip(reversed(ops), reversed(widths)):
                values[op] = lay.fields[op].values[key & ((1 << w) - 1)]
                key >>= w
            strings.append(lead + self.format_operand(operand, values))
        piece = np.empty(keys.shape, dtype=object)
        piece[:] = strings
        return piece


__all__ = ["MAX_TABLE", "Printer"]
