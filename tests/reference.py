"""A slow, obviously-correct model of the dot products, written from the specs.

Nothing here imports intdot.  Words are taken apart bit by bit, lanes are
multiplied with Python's unbounded ints, and the result is reduced at the end,
exactly as the formulas in ``shared/spec/`` read:

    result = src2 + (-1)**neg * sum_k src0[k] * src1[k]      (then wrap or clamp)
"""

from __future__ import annotations


def to_unsigned32(x: int) -> int:
    """The 32-bit pattern of x (which may be given signed or unsigned)."""
    assert -(2**31) <= x < 2**32
    return x % 2**32


def field(word: int, lo: int, width: int) -> int:
    """Bits lo .. lo+width-1 of word, as an unsigned number."""
    value = 0
    for bit in range(width):
        if (word >> (lo + bit)) % 2:
            value += 2**bit
    return value


def as_signed(value: int, width: int) -> int:
    """Two's complement reading of a width-bit unsigned value."""
    return value - 2**width if value >= 2 ** (width - 1) else value


def lanes(word: int, width: int, signed: bool) -> list[int]:
    """Lane k is bits [k*width, (k+1)*width) of the word (lane 0 lowest)."""
    word = to_unsigned32(word)
    out = []
    for k in range(32 // width):
        v = field(word, k * width, width)
        out.append(as_signed(v, width) if signed else v)
    return out


def ref_dot(a: int, b: int, acc: int, *, width: int, a_signed: bool, b_signed: bool,
            result_signed: bool, neg: bool = False, clamp: bool = False) -> int:
    """The exact dot product, accumulated, then wrapped or clamped to the result type."""
    products = [x * y for x, y in zip(lanes(a, width, a_signed), lanes(b, width, b_signed))]
    dot = sum(products)
    start = as_signed(to_unsigned32(acc), 32) if result_signed else to_unsigned32(acc)
    exact = start - dot if neg else start + dot
    lo, hi = (-(2**31), 2**31 - 1) if result_signed else (0, 2**32 - 1)
    if clamp:
        return max(lo, min(hi, exact))
    wrapped = exact % 2**32
    return as_signed(wrapped, 32) if result_signed else wrapped
