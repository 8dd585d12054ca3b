"""Disassembling arrays of words at NumPy speed.

One pass over the words classifies them all (the codec's decision table:
key bits -> row, then one mask compare); the words are then grouped by row,
the fields are cut out with shifts and masks, and the text is assembled from
per-form string tables.  Neighbouring
template operands are merged into one table while their combined key space
stays small (at most ``_MAX_TABLE`` entries), so most forms need a single
string concatenation per word.  The tables are built on first use by the
scalar printer, so bulk and scalar text cannot differ.
"""

from __future__ import annotations

import numpy as np

from ..core.errors import OperandError, OperandTypeError, UndefinedEncoding
from .codec import dispatch
from .forms import FORMS
from .records import Field
from .syntax import format_operand

_MAX_TABLE = 1 << 12
_TABLES: dict[str, list] = {}


def _raw(words: np.ndarray, fld: Field) -> np.ndarray:
    raw = None
    for s in fld.slices:
        part = (words >> np.uint32(s.lo)) & np.uint32((1 << s.width) - 1)
        raw = part if raw is None else (raw << np.uint32(s.width)) | part
    return raw


def _groups(form):
    """Template operands merged into groups: [(operand indices, ops in key order)]."""
    lay = form.layout
    groups, cur, cur_ops, size = [], [], [], 1
    for i, t in enumerate(lay.operands):
        tsize = 1 << sum(lay.fields[op].width for op in t.ops)
        if cur and size * tsize > _MAX_TABLE:
            groups.append((cur, cur_ops))
            cur, cur_ops, size = [], [], 1
        cur, cur_ops, size = cur + [i], cur_ops + list(t.ops), size * tsize
    groups.append((cur, cur_ops))
    return groups


def _tables(form):
    cached = _TABLES.get(form.name)
    if cached is not None:
        return cached
    lay = form.layout
    out = []
    for gi, (idx, ops) in enumerate(_groups(form)):
        widths = [lay.fields[op].width for op in ops]
        n = 1 << sum(widths)
        strings = []
        for key in range(n):
            values, k = {}, key
            for op, w in zip(reversed(ops), reversed(widths)):
                fld = lay.fields[op]
                values[op] = fld.values[k & ((1 << w) - 1)]
                k >>= w
            text = ", ".join(format_operand(lay.operands[i], values) for i in idx)
            strings.append((form.mnemonic + " " if gi == 0 else ", ") + text)
        table = np.empty(n, dtype=object)
        table[:] = strings
        out.append((ops, widths, table))
    _TABLES[form.name] = out
    return out


def _as_words(words) -> np.ndarray:
    arr = np.asarray(words)
    if arr.dtype == object or arr.dtype.kind not in "iu":
        if arr.size == 0 and arr.dtype.kind == "f":
            arr = arr.astype(np.uint32)
        elif arr.dtype.kind in "US":
            raise OperandTypeError(
                f"words holds text (dtype {arr.dtype}); expected integer words: pass [int(s, 16) for s in words] "
                "for hex text, or use the command line: intdot disasm -f FILE"
            )
        else:
            raise OperandTypeError(f"words has dtype {arr.dtype}; expected an integer array of 32-bit words")
    if arr.dtype.kind == "i" and arr.dtype.itemsize == 4:
        # An int32 array holds words as their bit patterns (np.fromfile(..., np.int32), a torch
        # int32 tensor): a negative element is a word from 0x80000000 up, not a mistake.
        return arr.astype(arr.dtype.newbyteorder("=")).view(np.uint32)
    if arr.size and (arr.min() < 0 or arr.max() > 0xFFFFFFFF):
        flat = arr.ravel()
        bad = int(np.flatnonzero((flat < 0) | (flat > 0xFFFFFFFF))[0])
        where = ", ".join(str(int(i)) for i in np.unravel_index(bad, arr.shape)) if arr.ndim else ""
        raise OperandError(
            f"words{f'[{where}]' if where else ''}={int(flat[bad])} is out of range; every word must be in "
            "[0, 0xffffffff] (or be an int32 array, read as bit patterns)"
        )
    return arr.astype(np.uint32, copy=False)


def disassemble_array(words, /, *, errors: str = "raise") -> np.ndarray:
    """Text of every word of an array (object array of ``str``, same shape).

    ``errors="raise"`` raises :class:`UndefinedEncoding` for the first word
    that no row decodes (giving its index and the count of such words);
    ``errors="mark"`` writes ``.inst 0x........`` for it instead.

    >>> import numpy as np
    >>> disassemble_array(np.array([0x44BA1C20, 0], dtype=np.uint32), errors="mark").tolist()
    ['sudot z0.s, z1.b, z2.b[3]', '.inst 0x00000000']
    """
    if errors not in ("raise", "mark"):
        raise OperandError(f"errors={errors!r}; expected 'raise' or 'mark'")
    arr = _as_words(words)
    flat = arr.ravel()
    out = np.empty(flat.shape, dtype=object)
    idx = dispatch().classify(flat)
    order = np.argsort(idx, kind="stable")  # a radix sort of int16 row numbers: one more pass
    counts = np.bincount(idx + 1, minlength=len(FORMS) + 1)
    bounds = np.concatenate(([0], np.cumsum(counts)))
    for k in np.flatnonzero(counts[1:]):
        form = FORMS[k]
        lay = form.layout
        sel = order[bounds[k + 1] : bounds[k + 2]]
        w = flat[sel]
        text = None
        for ops, widths, table in _tables(form):
            key = None
            for op, width in zip(ops, widths):
                raw = _raw(w, lay.fields[op])
                key = raw if key is None else (key << np.uint32(width)) | raw
            piece = table.take(key.astype(np.intp))
            text = piece if text is None else text + piece
        out[sel] = text
    done = idx >= 0
    if not done.all():
        bad = np.flatnonzero(~done)
        if errors == "raise":
            first = int(bad[0])
            index = ", ".join(str(int(i)) for i in np.unravel_index(first, arr.shape))
            where = f"words[{index}]" if arr.ndim else "words"
            raise UndefinedEncoding(
                f"{where}={int(flat[first]):#010x} is not a supported encoding "
                f"({bad.size} of {flat.size} words are not); pass errors='mark' "
                "(intdot disasm --mark) to get '.inst 0x...' for them"
            )
        out[bad] = [f".inst {int(x):#010x}" for x in flat[bad]]
    return out.reshape(arr.shape)


__all__ = ["disassemble_array"]
