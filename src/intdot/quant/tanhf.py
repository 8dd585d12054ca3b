"""glibc's float32 ``tanhf`` before 2.41 (the fdlibm routine: ``expm1f`` of ``2|x|``, then ``1 - 2 / (t + 2)`` or
``-t / (t + 2)``), bit for bit: ONNX Runtime's GroupQueryAttention caps its scores with it (``softcap``).

Every operation is a float32 one, rounded; on AArch64 GCC fuses each product into the addition that uses it
(``fused=True``: the reduction ``x - k ln2``, the polynomial, its correction terms), on x86 it does not.  glibc 2.41
took CORE-MATH's correctly rounded ``tanhf`` instead, which differs on about 15% of inputs.  Checked against this
machine's C library and, for AArch64, through ONNX Runtime's softcap, in ``tests/quant/test_libm.py`` and
``tests/quant/test_group_query_attention.py``.
"""

from __future__ import annotations

import numpy as np

from .fma import fma32

F32 = np.float32


def _word(bits: int) -> np.float32:
    return np.array([bits], np.uint32).view(F32)[0]


_LN2_HI, _LN2_LO, _INV_LN2 = _word(0x3F317180), _word(0x3717F7D1), _word(0x3FB8AA3B)
_Q = [_word(b) for b in (0xBD088889, 0x3AD00D01, 0xB8A670CD, 0x36867E54, 0xB457EDBB)]  # Q1 .. Q5


def _f(v) -> np.ndarray:
    return np.asarray(v).astype(F32)


def _mul_add(a, b, c, fused: bool) -> np.ndarray:
    """``a * b + c``: one rounding where the compiler fused them, two where it did not."""
    return fma32(a, b, c) if fused else _f(_f(np.multiply(a, b)) + c)


def _scale(y, k) -> np.ndarray:
    """``y`` with ``k`` added to its exponent field (fdlibm's SET_FLOAT_WORD)."""
    return (y.view(np.int32) + (k.astype(np.int32) << 23)).view(F32)


def expm1f(x, fused: bool = False) -> np.ndarray:
    """fdlibm's ``expm1f`` for finite ``x`` below 88 in magnitude (all ``tanhf`` asks of it)."""
    x = np.asarray(x, F32)
    ix = x.view(np.uint32) & np.uint32(0x7FFFFFFF)
    neg = x < 0
    half = np.where(neg, F32(-0.5), F32(0.5))
    near = (ix > 0x3EB17218) & (ix < 0x3F851592)  # 0.5 ln2 < |x| < 1.5 ln2: k = +-1
    far = ix >= 0x3F851592
    with np.errstate(over="ignore", invalid="ignore"):
        k = np.where(far, np.trunc(_mul_add(_INV_LN2, x, half, fused)), np.where(near, np.sign(x), 0)).astype(np.int32)
        t = k.astype(F32)
        hi = np.where(far, _mul_add(-t, _LN2_HI, x, fused), np.where(near, _f(x - np.copysign(_LN2_HI, x)), x))
        lo = np.where(near, np.copysign(_LN2_LO, x), _f(t * _LN2_LO))
        # ``lo = t ln2_lo`` has two uses, both subtractions: fused, each gets the product anew
        r = np.where(far & fused, _mul_add(-t, _LN2_LO, hi, fused), _f(hi - lo))
        r = np.where(near | far, r, x)
        c = np.where(far & fused, _mul_add(-t, _LN2_LO, _f(hi - r), fused), _f(_f(hi - r) - lo))
        c = np.where(near | far, c, F32(0))
        hfx = _f(F32(0.5) * r)
        hxs = _f(r * hfx)
        p = _Q[4]
        for q in _Q[3::-1]:
            p = _mul_add(hxs, p, q, fused)
        r1 = _mul_add(hxs, p, F32(1), fused)
        t3 = _mul_add(-r1, hfx, F32(3), fused)
        e = _f(hxs * _f(_f(r1 - t3) / _mul_add(-r, t3, F32(6), fused)))
        k0 = _f(r - _mul_add(r, e, -hxs, fused))
        e = _f(_mul_add(r, _f(e - c), -c, fused) - hxs)
        k_minus1 = _mul_add(F32(0.5), _f(r - e), F32(-0.5), fused)
        k_plus1 = np.where(
            r < F32(-0.25), _f(F32(-2) * _f(e - _f(r + F32(0.5)))), _mul_add(F32(2), _f(r - e), F32(1), fused)
        )
        wide = _f(_scale(_f(F32(1) - _f(e - r)), k) - F32(1))  # k <= -2 or k > 56
        small_k = np.clip(k, 0, 22).astype(np.uint32)
        below23 = _scale(_f((np.uint32(0x3F800000) - (np.uint32(0x1000000) >> small_k)).view(F32) - _f(e - r)), k)
        two_minus_k = ((0x7F - np.clip(k, 0, 127)) << 23).astype(np.int32).view(F32)
        from23 = _scale(_f(_f(r - _f(e + two_minus_k)) + F32(1)), k)
        general = np.where((k <= -2) | (k > 56), wide, np.where(k < 23, below23, from23))
        out = np.where(k == 0, k0, np.where(k == -1, k_minus1, np.where(k == 1, k_plus1, general)))
    out = np.where(neg & (ix >= 0x4195B844), F32(-1), out)  # below -27 ln2: -1
    return np.where(ix < 0x33000000, x, out).astype(F32)  # below 2**-25: x itself


def tanhf(x, fused: bool = False) -> np.ndarray:
    """glibc's ``tanhf`` (before 2.41) of each element of ``x``; ``fused``: as its AArch64 build computes it."""
    x = np.asarray(x, F32)
    ix = x.view(np.uint32) & np.uint32(0x7FFFFFFF)
    ax = np.abs(x)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        t = expm1f(np.minimum(_f(F32(2) * ax), F32(44)), fused)
        large = _f(F32(1) - _f(F32(2) / _f(t + F32(2))))
        t = expm1f(np.maximum(_f(F32(-2) * ax), F32(-44)), fused)
        small = _f(-t / _f(t + F32(2)))
        z = np.where(ix >= 0x3F800000, large, small)
        z = np.where(ix >= 0x41B00000, F32(1), z)  # |x| >= 22: 1 - tiny, which rounds to 1
        z = np.where(x < 0, -z, z)
        z = np.where(ix < 0x24000000, _f(x * _f(F32(1) + x)), z)  # |x| < 2**-55
        z = np.where(ix == 0, x, z)
        z = np.where(ix >= 0x7F800000, np.where(np.isnan(x), x, np.sign(x)), z)
    return z.astype(F32)
