"""A slow, obviously-correct model of the dot products, written from the specs.

Nothing here imports intdot.  Words are taken apart bit by bit, lanes are
multiplied with Python's unbounded ints, and the result is reduced at the end,
exactly as the formulas in ``shared/spec/`` read:

    result = src2 + (-1)**neg * sum_k src0[k] * src1[k]      (then wrap or clamp)

:func:`ref_dot_step` is the general step: each operand with its own lane
width and signedness, any number of lanes, a 16-, 32- or 64-bit accumulator;
optionally each operand read from lane ``first`` of a wider word (PTX
``dp2a.hi``), and the products summed in pairs that saturate to a signed
16-bit value first (x86 ``pmaddubsw``, as the SDM writes it:
``SaturateToSignedWord(a[2i+1]*b[2i+1] + a[2i]*b[2i])``).
"""

from __future__ import annotations


def to_unsigned32(x: int) -> int:
    """The 32-bit pattern of x (which may be given signed or unsigned)."""
    return to_unsigned(x, 32)


def to_unsigned(x: int, bits: int) -> int:
    """The bits-bit pattern of x (which may be given signed or unsigned)."""
    assert -(2 ** (bits - 1)) <= x < 2**bits
    return x % 2**bits


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


def ref_dot(
    a: int,
    b: int,
    acc: int,
    *,
    width: int,
    a_signed: bool,
    b_signed: bool,
    result_signed: bool,
    neg: bool = False,
    clamp: bool = False,
) -> int:
    """The 32-bit step: both operands one 32-bit word of 32 // width lanes, a 32-bit accumulator."""
    return ref_dot_step(
        a,
        b,
        acc,
        a_width=width,
        b_width=width,
        lanes=32 // width,
        a_signed=a_signed,
        b_signed=b_signed,
        acc_bits=32,
        acc_signed=result_signed,
        neg=neg,
        clamp=clamp,
    )


def operand_lanes(word: int, width: int, count: int, signed: bool) -> list[int]:
    """The first ``count`` lanes of an operand of width * count bits, lane 0 lowest."""
    word = to_unsigned(word, width * count)
    out = []
    for k in range(count):
        v = field(word, k * width, width)
        out.append(as_signed(v, width) if signed else v)
    return out


def ref_dot_step(
    a: int,
    b: int,
    acc: int,
    *,
    a_width: int,
    b_width: int,
    lanes: int,
    a_signed: bool,
    b_signed: bool,
    acc_bits: int,
    acc_signed: bool,
    neg: bool = False,
    clamp: bool = False,
    a_first: int = 0,
    b_first: int = 0,
    a_word: int | None = None,
    b_word: int | None = None,
    pair_sat: int | None = None,
) -> int:
    """One dot step of any shape: the exact sum of lane products added to (or, with neg, subtracted
    from) the accumulator, then wrapped modulo 2**acc_bits or saturated once to the accumulator type."""
    a_word = a_word or (a_first + lanes) * a_width
    b_word = b_word or (b_first + lanes) * b_width
    la = operand_lanes(a, a_width, a_word // a_width, a_signed)[a_first : a_first + lanes]
    lb = operand_lanes(b, b_width, b_word // b_width, b_signed)[b_first : b_first + lanes]
    dot = 0
    if pair_sat is None:
        for k in range(lanes):
            dot += la[k] * lb[k]
    else:
        top = 2 ** (pair_sat - 1)
        for k in range(0, lanes, 2):
            pair = la[k] * lb[k] + la[k + 1] * lb[k + 1]
            dot += max(-top, min(top - 1, pair))
    start = to_unsigned(acc, acc_bits)
    if acc_signed:
        start = as_signed(start, acc_bits)
    exact = start - dot if neg else start + dot
    if acc_signed:
        lo, hi = -(2 ** (acc_bits - 1)), 2 ** (acc_bits - 1) - 1
    else:
        lo, hi = 0, 2**acc_bits - 1
    if clamp:
        return max(lo, min(hi, exact))
    wrapped = exact % 2**acc_bits
    return as_signed(wrapped, acc_bits) if acc_signed else wrapped


def ref_spec_step(spec, a: int, b: int, acc: int, *, neg: bool = False, clamp: bool = False) -> int:
    """:func:`ref_dot_step` with its parameters read off any object that has them by name (a DotSpec)."""
    return ref_dot_step(
        a,
        b,
        acc,
        a_width=spec.a_width,
        b_width=spec.b_width,
        lanes=spec.lanes,
        a_signed=spec.a_signed,
        b_signed=spec.b_signed,
        acc_bits=spec.acc_bits,
        acc_signed=spec.acc_signed,
        neg=neg,
        clamp=clamp,
        a_first=spec.a_first,
        b_first=spec.b_first,
        a_word=spec.a_word,
        b_word=spec.b_word,
        pair_sat=spec.pair_sat,
    )
