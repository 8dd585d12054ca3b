"""Disassembling arrays of AArch64 words at NumPy speed, through the ISA layer's
:class:`~intdot.isa.bulk.Printer` over ``FORMS`` (one classifying pass, text from
per-form string tables built by Arm's own operand printer).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from ..core.errors import OperandError, OperandTypeError, UndefinedEncoding
from ..core.values import check_choice
from ..isa.bulk import Printer
from .codec import dispatch


@cache
def printer() -> Printer:
    return Printer(dispatch(), lambda t, values: t.format(values), lambda form: form.mnemonic + " ")


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
    check_choice(errors, "errors", ("raise", "mark"))
    arr = _as_words(words)
    flat = arr.ravel()
    out, idx = printer().texts(flat)
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
