"""A slow, obviously-correct model of the AMD GPU integer dot instructions, written from the ISA manuals'
pseudocode (Vega / CDNA: ``D.i = S0.i8[0] * S1.i8[0] + ... + S2.i``; RDNA3 ``V_DOT4_I32_IU8``: each
source's bytes sign- or zero-extended as NEG[0] / NEG[1] say), one lane at a time, with Python ints.
Nothing here imports intdot.

``op_sel`` / ``op_sel_hi`` on a 16-bit source pick the half each lane is read from (the packed-math
rule of the manuals' VOP3P description); ``clamp`` saturates to the result type.
"""

from __future__ import annotations

SHAPES = {  # mnemonic -> (lane width, src0 signed, src1 signed, result signed, accumulator in vdst)
    "v_dot2_i32_i16": (16, True, True, True, False),
    "v_dot2_u32_u16": (16, False, False, False, False),
    "v_dot4_i32_i8": (8, True, True, True, False),
    "v_dot4_u32_u8": (8, False, False, False, False),
    "v_dot8_i32_i4": (4, True, True, True, False),
    "v_dot8_u32_u4": (4, False, False, False, False),
    "v_dot4_i32_iu8": (8, None, None, True, False),
    "v_dot8_i32_iu4": (4, None, None, True, False),
    "v_dot2c_i32_i16": (16, True, True, True, True),
    "v_dot4c_i32_i8": (8, True, True, True, True),
    "v_dot8c_i32_i4": (4, True, True, True, True),
}


def bits(word: int, lo: int, n: int) -> int:
    return (word >> lo) % (1 << n)


def extend(value: int, n: int, signed: bool) -> int:
    return value - (1 << n) if signed and value >= 1 << (n - 1) else value


def lane_values(word: int, width: int, signed: bool, halves=(0, 1)) -> list[int]:
    """The lanes of a 32-bit source; a 16-bit source's lane k is read from half halves[k]."""
    if width == 16:
        return [extend(bits(word, 16 * h, 16), 16, signed) for h in halves]
    return [extend(bits(word, k * width, width), width, signed) for k in range(32 // width)]


def dot_lane(mnemonic: str, s0: int, s1: int, s2: int, *, clamp=False, op_sel=(0, 0, 0), op_sel_hi=(1, 1, 1),
             neg_lo=(0, 0, 0)) -> int:  # fmt: skip
    """One lane's 32-bit result (as an unsigned pattern); s2 is the accumulator (vdst for the VOP2 forms)."""
    width, sign0, sign1, result_signed, _ = SHAPES[mnemonic]
    if sign0 is None:
        sign0, sign1 = bool(neg_lo[0]), bool(neg_lo[1])
    a = lane_values(s0, width, sign0, (op_sel[0], op_sel_hi[0]))
    b = lane_values(s1, width, sign1, (op_sel[1], op_sel_hi[1]))
    total = extend(s2, 32, result_signed) + sum(x * y for x, y in zip(a, b))
    if clamp:
        lo, hi = (-(1 << 31), (1 << 31) - 1) if result_signed else (0, (1 << 32) - 1)
        total = min(max(total, lo), hi)
    return total % (1 << 32)
