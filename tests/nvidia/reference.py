"""Slow, obviously-correct models of dp4a, dp2a and the integer mma, written from the PTX ISA's text and sharing
no code with intdot.

dp4a: ``d = c + sum(a.byte[i] * b.byte[i] for i in 0..3)``; dp2a: ``d = c + a.half[0] * b.byte[2h] + a.half[1] *
b.byte[2h+1]`` with h = 0 for .lo, 1 for .hi; each byte/half sign-extended when its type is .s32; d and c are
.u32 when both types are .u32, else .s32, and the sum wraps modulo 2**32.  mma: D[i][j] = C[i][j] + sum over k of
A[i][k] * B[k][j], wrapped to .s32, or with .satfinite clamped to [-2**31, 2**31 - 1] (once: H200 measurement).
"""

from __future__ import annotations


def field(word: int, index: int, bits: int, signed: bool) -> int:
    v = (word >> (index * bits)) & ((1 << bits) - 1)
    return v - (1 << bits) if signed and v >= 1 << (bits - 1) else v


def wrap(x: int, signed: bool) -> int:
    x %= 1 << 32
    return x - (1 << 32) if signed and x >= 1 << 31 else x


def dp4a(a: int, b: int, c: int, a_signed: bool, b_signed: bool) -> int:
    total = c + sum(field(a, i, 8, a_signed) * field(b, i, 8, b_signed) for i in range(4))
    return wrap(total, a_signed or b_signed)


def dp2a(a: int, b: int, c: int, hi: bool, a_signed: bool, b_signed: bool) -> int:
    base = 2 if hi else 0
    total = c + sum(field(a, i, 16, a_signed) * field(b, base + i, 8, b_signed) for i in range(2))
    return wrap(total, a_signed or b_signed)


def mma(a, b, c, satfinite: bool):
    out = []
    for i in range(16):
        row = []
        for j in range(8):
            total = c[i][j] + sum(a[i][k] * b[k][j] for k in range(len(b)))
            row.append(min(max(total, -(1 << 31)), (1 << 31) - 1) if satfinite else wrap(total, True))
        out.append(row)
    return out
