"""Lanes of a packed 32-bit word: the one place where lane order is written down.

Lane 0 is the least-significant ``width`` bits of the word, lane 1 the next,
and so on, as on every machine intdot models.  Widths are 4, 8 or 16 bits.
"""

from __future__ import annotations

import numpy as np

from .errors import OperandError, OperandTypeError
from .values import as_word_array, asarray_exact, check_flag, check_int, check_word, describe, is_int_scalar

WIDTHS = (4, 8, 16)


def check_width(width) -> int:
    if not is_int_scalar(width) or width not in WIDTHS:
        raise OperandError(f"width={describe(width)} is not a lane width; expected one of {WIDTHS}")
    return int(width)


def lane_values(word: int, width: int, signed: bool) -> list[int]:
    """The lanes of one 32-bit word (signed or unsigned spelling), lane 0 first.

    >>> lane_values(0x80FF7F01, 8, True)
    [1, 127, -1, -128]
    >>> lane_values(-1, 16, False)
    [65535, 65535]
    """
    return _lanes(check_word(word, "word"), check_width(width), check_flag(signed, "signed"))


def _lanes(word: int, width: int, signed: bool) -> list[int]:
    """:func:`lane_values` without validation, for the core's own tables."""
    mask = (1 << width) - 1
    half = 1 << (width - 1)
    out = []
    for i in range(32 // width):
        v = (word >> (width * i)) & mask
        if signed and v >= half:
            v -= 1 << width
        out.append(v)
    return out


def unpack(words, width: int = 8, *, signed: bool = True) -> np.ndarray:
    """Split packed 32-bit words into lanes.

    Returns an array of shape ``words.shape + (32 // width,)``, lane 0 first,
    of dtype int8/uint8 (4- and 8-bit lanes) or int16/uint16 (16-bit lanes).

    >>> unpack(0x80FF7F01, 8).tolist()
    [1, 127, -1, -128]
    >>> unpack(0x0000F00F, 4, signed=False).tolist()
    [15, 0, 0, 15, 0, 0, 0, 0]
    """
    width = check_width(width)
    signed = check_flag(signed, "signed")
    # Little-endian words, so the byte/halfword views below are in lane order on any host.
    w = np.array(as_word_array(words, "words"), dtype="<u4", order="C", copy=True)
    shape, n = w.shape, 32 // width
    if width in (8, 16):
        lane_dtype = {(8, True): "<i1", (8, False): "<u1", (16, True): "<i2", (16, False): "<u2"}[width, signed]
        # Views need at least one axis: a 0-d word is viewed through a 1-element array.
        return w.reshape(-1).view(lane_dtype).reshape(shape + (n,)).astype(lane_dtype[1:])
    shifts = np.arange(0, 32, 4, dtype=np.uint32)
    nib = ((w[..., None] >> shifts) & 0xF).astype(np.int8)
    if signed:
        return (nib ^ 8) - 8
    return nib.astype(np.uint8)


def _lanes_to_int_array(lanes, width: int, name: str) -> np.ndarray:
    """Lanes as an int64 array, each value checked against ``[-2**(width-1), 2**width)``."""
    try:
        arr = lanes if isinstance(lanes, np.ndarray) else asarray_exact(lanes)
    except (ValueError, TypeError) as exc:  # ragged sequences
        raise OperandTypeError(f"{name}={describe(lanes)} is not an integer array: {exc}") from None
    lo, hi = -(1 << (width - 1)), (1 << width) - 1
    what = f"a lane value in [{lo}, {hi}] ({width}-bit lanes, signed or unsigned spelling)"
    if arr.dtype == object:
        # Python ints beyond int64 (or mixed objects): check one by one, with exact values.
        for index in np.ndindex(arr.shape):
            check_int(arr[index], f"{name}[{', '.join(map(str, index))}]" if index else name, lo, hi, what)
        return arr.astype(np.int64)
    if arr.dtype.kind not in "iu" or arr.dtype == np.bool_:
        # ml_dtypes' int4/uint4 (kind 'V' or 'i' depending on version) convert exactly.
        try:
            import ml_dtypes  # noqa: F401  (registers the casts)
        except ImportError:
            pass
        if arr.dtype.name in ("int4", "uint4", "int2", "uint2"):
            return arr.astype(np.int64)
        if arr.size == 0 and not isinstance(lanes, np.ndarray) and arr.dtype == np.float64:
            return np.empty(arr.shape, dtype=np.int64)  # an empty list
        raise OperandTypeError(f"{name} has dtype {arr.dtype}; expected an integer array of lanes")
    # Compare in the input's own dtype: a cast first would turn uint64 2**64-1 into -1.
    if arr.size and (arr.min() < lo or arr.max() > hi):
        bad = arr.min() if arr.min() < lo else arr.max()
        raise OperandError(f"{name} holds {int(bad)}, out of range; every element must be {what}")
    return arr.astype(np.int64)


def pack(lanes, width: int = 8) -> np.ndarray | int:
    """Pack lanes (last axis, lane 0 first) into 32-bit words (``uint32``).

    Each lane may be given signed or unsigned (``-1`` or ``0xFF`` for 8 bits);
    values outside ``[-2**(width-1), 2**width)`` are rejected.  ml_dtypes'
    ``int4``/``uint4`` arrays are accepted for 4-bit lanes.  A 1-D input gives
    a Python int.

    >>> hex(pack([1, 127, -1, -128], 8))
    '0x80ff7f01'
    """
    width = check_width(width)
    n = 32 // width
    arr = _lanes_to_int_array(lanes, width, "lanes")
    if arr.ndim == 0 or arr.shape[-1] != n:
        raise OperandError(f"lanes has shape {arr.shape}; the last axis must hold {n} lanes of {width} bits")
    mask = (1 << width) - 1
    shifts = np.arange(0, 32, width, dtype=np.uint64)
    words = np.bitwise_or.reduce((arr.astype(np.uint64) & mask) << shifts, axis=-1).astype(np.uint32)
    return int(words) if words.ndim == 0 else words


def pack_scalar(values, width: int, name: str) -> int:
    """Pack a short sequence of Python ints (lane 0 first) into one word, with
    per-lane validation; used for e.g. a ``short2`` given as a pair."""
    n = 32 // check_width(width)
    if not isinstance(values, (list, tuple)):
        raise OperandTypeError(f"{name}={describe(values)} has type {type(values).__name__}; expected a list or "
                               f"tuple of {n} lane values")
    if len(values) != n:
        raise OperandError(f"{name}={describe(values)} has {len(values)} elements; expected {n}")
    lo, hi = -(1 << (width - 1)), (1 << width) - 1
    word = 0
    for i, v in enumerate(values):
        v = check_int(v, f"{name}[{i}]", lo, hi,
                      f"a {width}-bit element in [{lo}, {hi}] (signed or unsigned spelling)")
        word |= (v & ((1 << width) - 1)) << (width * i)
    return word
