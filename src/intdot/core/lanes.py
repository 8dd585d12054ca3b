"""Lanes of a packed word: the one place where lane order is written down.

Lane 0 is the least-significant ``width`` bits of the word, lane 1 the next,
and so on, as on every machine intdot models.  Widths are 4, 8 or 16 bits;
a word holds ``bits // width`` lanes, ``bits`` (default 32) up to 64.
"""

from __future__ import annotations

import functools

import numpy as np

from .errors import OperandError, OperandTypeError
from .values import (
    a_or_an,
    as_word_array,
    asarray_exact,
    check_flag,
    check_int,
    check_word,
    describe,
    is_int_scalar,
    word_dtype,
)

WIDTHS = (4, 8, 16)


def check_width(width) -> int:
    if not is_int_scalar(width) or width not in WIDTHS:
        raise OperandError(f"width={describe(width)} is not a lane width; expected one of {WIDTHS}")
    return int(width)


def check_bits(bits, width: int) -> int:
    """A word size in bits: a multiple of the lane width, at most 64."""
    if not is_int_scalar(bits) or not width <= bits <= 64 or bits % width:
        raise OperandError(
            f"bits={describe(bits)} is not a word size for {width}-bit lanes; expected a multiple "
            f"of {width} from {width} to 64"
        )
    return int(bits)


def lane_values(word: int, width: int, signed: bool, *, bits: int = 32) -> list[int]:
    """The lanes of one word of ``bits`` bits (signed or unsigned spelling), lane 0 first.

    >>> lane_values(0x80FF7F01, 8, True)
    [1, 127, -1, -128]
    >>> lane_values(-1, 16, False)
    [65535, 65535]
    >>> lane_values(0x8000_0000_0000_0001, 16, True, bits=64)
    [1, 0, 0, -32768]
    """
    width = check_width(width)
    bits = check_bits(bits, width)
    return _lanes(check_word(word, "word", bits), width, check_flag(signed, "signed"), bits // width)


def _lanes(word: int, width: int, signed: bool, n: int | None = None) -> list[int]:
    """:func:`lane_values` without validation, for the core's own tables: ``n`` lanes (default: a 32-bit word's)."""
    mask = (1 << width) - 1
    half = 1 << (width - 1)
    out = []
    for i in range(32 // width if n is None else n):
        v = (word >> (width * i)) & mask
        if signed and v >= half:
            v -= 1 << width
        out.append(v)
    return out


def unpack(words, width: int = 8, *, signed: bool = True, bits: int = 32) -> np.ndarray:
    """Split packed words of ``bits`` bits into lanes.

    Returns an array of shape ``words.shape + (bits // width,)``, lane 0 first,
    of dtype int8/uint8 (4- and 8-bit lanes) or int16/uint16 (16-bit lanes).

    >>> unpack(0x80FF7F01, 8).tolist()
    [1, 127, -1, -128]
    >>> unpack(0x0000F00F, 4, signed=False).tolist()
    [15, 0, 0, 15, 0, 0, 0, 0]
    >>> unpack(-2, 16, bits=64).tolist()
    [-2, -1, -1, -1]
    """
    width = check_width(width)
    bits = check_bits(bits, width)
    signed = check_flag(signed, "signed")
    dtype = np.dtype(word_dtype(bits)).newbyteorder("<")
    # Little-endian words, so the byte/halfword views below are in lane order on any host.
    w = np.array(as_word_array(words, "words", bits), dtype=dtype, order="C", copy=True)
    shape, n, per_word = w.shape, bits // width, 8 * dtype.itemsize // width
    if width in (8, 16):
        lane_dtype = {(8, True): "<i1", (8, False): "<u1", (16, True): "<i2", (16, False): "<u2"}[width, signed]
        # Views need at least one axis: a 0-d word is viewed through a 1-element array.
        lanes = w.reshape(-1).view(lane_dtype).reshape(shape + (per_word,))[..., :n]
        return lanes.astype(lane_dtype[1:])
    # 4-bit lanes: one 16-bit table read per byte gives both its nibbles (low first): about 10x faster than
    # shifting every word eight times, and no temporary wider than the result.
    pairs = np.take(_nibble_pairs(signed), w.reshape(-1).view(np.uint8))
    return pairs.view(np.int8 if signed else np.uint8).reshape(shape + (per_word,))[..., :n]


@functools.cache
def _nibble_pairs(signed: bool) -> np.ndarray:
    """T[byte] = the byte's low and high nibble as two int8 (or uint8) lanes, packed little-endian in 16 bits."""
    v = np.arange(256)
    lanes = np.stack([v & 0xF, v >> 4], axis=1)
    lanes = ((lanes ^ 8) - 8).astype(np.int8) if signed else lanes.astype(np.uint8)
    return lanes.reshape(-1).view("<u2").copy()


def _lanes_to_int_array(lanes, width: int, name: str) -> np.ndarray:
    """Lanes as an int64 array, each value checked against ``[-2**(width-1), 2**width)``."""
    lo, hi = -(1 << (width - 1)), (1 << width) - 1
    what = f"a lane value in [{lo}, {hi}] ({width}-bit lanes, signed or unsigned spelling)"
    return int_array(lanes, name, lo, hi, what)


def int_array(x, name: str, lo: int, hi: int, what: str) -> np.ndarray:
    """``x`` (an array, a nested sequence, ml_dtypes' int4/uint4) as an int64 array whose every value lies in
    ``[lo, hi]``; ``what`` says what a value may be, for the messages.  Bools, floats and ragged sequences are
    refused."""
    try:
        arr = x if isinstance(x, np.ndarray) else asarray_exact(x)
    except (ValueError, TypeError) as exc:  # ragged sequences
        raise OperandTypeError(f"{name}={describe(x)} is not an integer array: {exc}") from None
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
            arr = arr.astype(np.int64)
        elif arr.size == 0 and not isinstance(x, np.ndarray) and arr.dtype == np.float64:
            return np.empty(arr.shape, dtype=np.int64)  # an empty list
        else:
            raise OperandTypeError(f"{name} has dtype {arr.dtype}; expected an integer array of lanes")
    # Compare in the input's own dtype: a cast first would turn uint64 2**64-1 into -1.
    if arr.size and (arr.min() < lo or arr.max() > hi):
        bad = arr.min() if arr.min() < lo else arr.max()
        raise OperandError(f"{name} holds {int(bad)}, out of range; every element must be {what}")
    return arr.astype(np.int64)


def pack(lanes, width: int = 8, *, bits: int = 32) -> np.ndarray | int:
    """Pack lanes (last axis, lane 0 first) into words of ``bits`` bits (uint32; uint64 past 32 bits).

    Each lane may be given signed or unsigned (``-1`` or ``0xFF`` for 8 bits);
    values outside ``[-2**(width-1), 2**width)`` are rejected.  ml_dtypes'
    ``int4``/``uint4`` arrays are accepted for 4-bit lanes.  A 1-D input gives
    a Python int.

    >>> hex(pack([1, 127, -1, -128], 8))
    '0x80ff7f01'
    >>> hex(pack([1, 2, 3, -1], 16, bits=64))
    '0xffff000300020001'
    """
    width = check_width(width)
    bits = check_bits(bits, width)
    n = bits // width
    arr = _lanes_to_int_array(lanes, width, "lanes")
    if arr.ndim == 0 or arr.shape[-1] != n:
        raise OperandError(f"lanes has shape {arr.shape}; the last axis must hold {n} lanes of {width} bits")
    mask = np.uint64((1 << width) - 1)
    shifts = np.arange(0, bits, width, dtype=np.uint64)
    words = np.bitwise_or.reduce((arr.astype(np.uint64) & mask) << shifts, axis=-1).astype(word_dtype(bits))
    return int(words) if words.ndim == 0 else words


def pack_scalar(values, width: int, name: str, bits: int = 32) -> int:
    """Pack a short sequence of Python ints (lane 0 first) into one word, with
    per-lane validation; used for e.g. a ``short2`` given as a pair."""
    n = check_bits(bits, check_width(width)) // width
    if not isinstance(values, (list, tuple)):
        raise OperandTypeError(
            f"{name}={describe(values)} has type {type(values).__name__}; expected a list or tuple of {n} lane values"
        )
    if len(values) != n:
        raise OperandError(f"{name}={describe(values)} has {len(values)} elements; expected {n}")
    lo, hi = -(1 << (width - 1)), (1 << width) - 1
    word = 0
    what = f"{a_or_an(f'{width}-bit')} element in [{lo}, {hi}] (signed or unsigned spelling)"
    for i, v in enumerate(values):
        v = check_int(v, f"{name}[{i}]", lo, hi, what)
        word |= (v & ((1 << width) - 1)) << (width * i)
    return word
