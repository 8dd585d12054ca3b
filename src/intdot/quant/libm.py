"""The C library's float32 functions that ONNX Runtime's kernels call, bit for bit: glibc's ``logf`` (LogSoftmax
takes the log of its sum with it, ReduceLogSum and ReduceLogSumExp theirs), ``expf`` (ReduceLogSumExp's) and
``powf`` (Pow's, by exponents other than 2 and 3).
glibc's (from Arm's optimized routines, in glibc since 2.28) are not correctly rounded (logf: 0.82 ulp at most;
expf: 0.502), so a correctly rounded function differs from them on some inputs.

``logf``: ``x = 2**k * z`` with ``z`` in [0x3f330000, 2 * 0x3f330000) as bits; ``c`` the centre of z's sixteenth
of that range, from a table of ``1 / c`` and ``log(c)``; ``r = z / c - 1``, ``log(x) = log(c) + k ln2 + r + A0 r**4
+ (A1 r + A2) r**2`` in float64 (each ``a * b + c`` fused, as its FMA build on x86 and its AArch64 build compute
it), rounded to float32.

``expf``: in float64, ``z = x * 32 / ln2``, ``k`` its nearest integer, ``r = z - k``; ``s = 2**(k / 32)`` from a
table of the 32 ``2**(i / 32)``; ``exp(x) = s * ((C0 r + C1) r**2 + (C2 r + 1))`` (each ``a * b + c`` fused),
rounded to float32; 0 at -inf, inf past ``0x1.62e42ep6``, 0 below ``-0x1.9fe368p6``.  (AArch64's rounds ``z`` half
away from zero where x86's rounds to even: they part only where ``z`` is an odd half, which no float32 ``x`` gives.)

``powf``: ``exp2(y * log2(x))`` in float64, ``log2`` by logf's table of ``1 / c`` with ``log2(c)`` and a degree-5
polynomial, ``exp2`` as expf's above (unscaled), each ``a * b + c`` fused; C's special cases.

Each checked against this machine's ``libm`` in ``tests/quant/test_libm.py``."""

from __future__ import annotations

import numpy as np

from .fma import fma64

F32, F64 = np.float32, np.float64

# (1 / c, log(c)) for each of the 16 subintervals, ln 2, and the polynomial's coefficients (of r**4, r**3, r**2).
_TABLE = [
    ("0x1.661ec79f8f3bep+0", "-0x1.57bf7808caadep-2"), ("0x1.571ed4aaf883dp+0", "-0x1.2bef0a7c06ddbp-2"),
    ("0x1.49539f0f010bp+0", "-0x1.01eae7f513a67p-2"), ("0x1.3c995b0b80385p+0", "-0x1.b31d8a68224e9p-3"),
    ("0x1.30d190c8864a5p+0", "-0x1.6574f0ac07758p-3"), ("0x1.25e227b0b8eap+0", "-0x1.1aa2bc79c81p-3"),
    ("0x1.1bb4a4a1a343fp+0", "-0x1.a4e76ce8c0e5ep-4"), ("0x1.12358f08ae5bap+0", "-0x1.1973c5a611cccp-4"),
    ("0x1.0953f419900a7p+0", "-0x1.252f438e10c1ep-5"), ("0x1p+0", "0x0p+0"),
    ("0x1.e608cfd9a47acp-1", "0x1.aa5aa5df25984p-5"), ("0x1.ca4b31f026aap-1", "0x1.c5e53aa362eb4p-4"),
    ("0x1.b2036576afce6p-1", "0x1.526e57720db08p-3"), ("0x1.9c2d163a1aa2dp-1", "0x1.bc2860d22477p-3"),
    ("0x1.886e6037841edp-1", "0x1.1058bc8a07ee1p-2"), ("0x1.767dcf5534862p-1", "0x1.4043057b6ee09p-2"),
]  # fmt: skip
_INVC = np.array([float.fromhex(a) for a, _ in _TABLE])
_LOGC = np.array([float.fromhex(b) for _, b in _TABLE])
_LN2 = float.fromhex("0x1.62e42fefa39efp-1")
_A0, _A1, _A2 = (float.fromhex(h) for h in ("-0x1.00ea348b88334p-2", "0x1.5575b0be00b6ap-2", "-0x1.ffffef20a4123p-2"))
_OFF = 0x3F330000


def logf(x) -> np.ndarray:
    """glibc's ``logf`` of each element of ``x`` (module docstring): -inf at 0, inf at inf, NaN below 0 and at NaN,
    exactly 0 at 1."""
    x = np.asarray(x, F32)
    bits = x.view(np.uint32).astype(np.int64)
    subnormal = (bits > 0) & (bits < 0x00800000)
    with np.errstate(over="ignore"):
        scaled = (x * F32(2.0**23)).view(np.uint32).astype(np.int64) - (23 << 23)
    bits = np.where(subnormal, scaled, bits)
    tmp = bits - _OFF
    i = (tmp >> 19) % 16
    k = (tmp & 0xFFFFFFFF).astype(np.uint32).view(np.int32).astype(np.int64) >> 23
    z = ((bits - (tmp & (0x1FF << 23))) & 0xFFFFFFFF).astype(np.uint32).view(F32).astype(F64)
    with np.errstate(invalid="ignore", over="ignore"):
        r = fma64(z, _INVC[i], -1.0)
        y0 = fma64(k.astype(F64), _LN2, _LOGC[i])
        r2 = r * r
        y = fma64(fma64(_A0, r2, fma64(_A1, r, _A2)), r2, y0 + r).astype(F32)
    y = np.where(x == F32(1), F32(0), y)
    y = np.where(x == 0, F32(-np.inf), np.where(np.isposinf(x), x, y))
    return np.where((x < 0) | np.isnan(x), F32(np.nan), y).astype(F32)


# expf: 32 / ln2, the rounding shift, the polynomial's coefficients (of r**3, r**2, r) scaled to the table's steps.
_INVLN2N = float.fromhex("0x1.71547652b82fep+0") * 32
_SHIFT = float.fromhex("0x1.8p+52")
_C0, _C1, _C2 = (float.fromhex(h) / 32**p for h, p in (("0x1.c6af84b912394p-5", 3), ("0x1.ebfce50fac4f3p-3", 2),
                                                           ("0x1.62e42ff0c52d6p-1", 1)))  # fmt: skip
# The bits of 2**(i / 32) for i < 32 (the float64 nearest each), less i << 47, as glibc's table stores them.
_EXP2_BITS = np.array([
    0x3FF0000000000000, 0x3FEFD9B0D3158574, 0x3FEFB5586CF9890F, 0x3FEF9301D0125B51, 0x3FEF72B83C7D517B,
    0x3FEF54873168B9AA, 0x3FEF387A6E756238, 0x3FEF1E9DF51FDEE1, 0x3FEF06FE0A31B715, 0x3FEEF1A7373AA9CB,
    0x3FEEDEA64C123422, 0x3FEECE086061892D, 0x3FEEBFDAD5362A27, 0x3FEEB42B569D4F82, 0x3FEEAB07DD485429,
    0x3FEEA47EB03A5585, 0x3FEEA09E667F3BCD, 0x3FEE9F75E8EC5F74, 0x3FEEA11473EB0187, 0x3FEEA589994CCE13,
    0x3FEEACE5422AA0DB, 0x3FEEB737B0CDC5E5, 0x3FEEC49182A3F090, 0x3FEED503B23E255D, 0x3FEEE89F995AD3AD,
    0x3FEEFF76F2FB5E47, 0x3FEF199BDD85529C, 0x3FEF3720DCEF9069, 0x3FEF5818DCFBA487, 0x3FEF7C97337B9B5F,
    0x3FEFA4AFA2A490DA, 0x3FEFD0765B6E4540,
], np.uint64)  # fmt: skip
_OVERFLOW, _UNDERFLOW = float.fromhex("0x1.62e42ep6"), float.fromhex("-0x1.9fe368p6")


def expf(x) -> np.ndarray:
    """glibc's ``expf`` of each element of ``x`` (module docstring): inf past its overflow point, 0 below its
    underflow point and at -inf, NaN at NaN."""
    x = np.asarray(x, F32)
    xd = x.astype(F64)
    with np.errstate(invalid="ignore", over="ignore"):
        z = xd * _INVLN2N
        kd = z + _SHIFT
        ki = kd.view(np.uint64)
        kd = kd - _SHIFT
        r = z - kd
        s = (_EXP2_BITS[(ki % np.uint64(32)).astype(np.int64)] + (ki << np.uint64(47))).view(F64)
        y = fma64(fma64(_C0, r, _C1), r * r, fma64(_C2, r, 1.0)) * s
        y = y.astype(F32)
    y = np.where(xd > _OVERFLOW, F32(np.inf), np.where(xd < _UNDERFLOW, F32(0), y))
    return np.where(np.isnan(x), x, y).astype(F32)


# powf: log2(c) for the 16 subintervals of logf's (1 / c is logf's _INVC), the log2 polynomial (of r**5 .. r), the
# exp2 polynomial unscaled and its shift for steps of 1/32.
_LOG2C = np.array([float.fromhex(h) for h in (
    "-0x1.efec65b963019p-2", "-0x1.b0b6832d4fca4p-2", "-0x1.7418b0a1fb77bp-2", "-0x1.39de91a6dcf7bp-2",
    "-0x1.01d9bf3f2b631p-2", "-0x1.97c1d1b3b7afp-3", "-0x1.2f9e393af3c9fp-3", "-0x1.960cbbf788d5cp-4",
    "-0x1.a6f9db6475fcep-5", "0x0p+0", "0x1.338ca9f24f53dp-4", "0x1.476a9543891bap-3",
    "0x1.e840b4ac4e4d2p-3", "0x1.40645f0c6651cp-2", "0x1.88e9c2c1b9ff8p-2", "0x1.ce0a44eb17bccp-2")])  # fmt: skip
_P = [float.fromhex(h) for h in ("0x1.27616c9496e0bp-2", "-0x1.71969a075c67ap-2", "0x1.ec70a6ca7baddp-2",
                                 "-0x1.7154748bef6c8p-1", "0x1.71547652ab82bp0")]  # fmt: skip
_E = [float.fromhex(h) for h in ("0x1.c6af84b912394p-5", "0x1.ebfce50fac4f3p-3", "0x1.62e42ff0c52d6p-1")]
_SHIFT32 = _SHIFT / 32
_POW_OVERFLOW = float.fromhex("0x1.fffffffd1d571p+6")


def powf(x, y) -> np.ndarray:
    """glibc's ``powf`` of the float32 ``x`` and ``y`` (broadcast): ``2 ** (y * log2(x))`` with ``log2`` from
    logf's table of 16 and a degree-5 polynomial, ``exp2`` from expf's table of 32, in float64 with each ``a * b + c``
    fused, rounded to float32; a negative ``x`` to an integer ``y`` carries the sign of ``x ** y`` (to a non-integer
    one, NaN); C's special cases (``powf(x, 0) = powf(1, y) = 1``, infinities, zeros) as it returns them."""
    x, y = (np.asarray(v, F32) for v in (x, y))
    x, y = np.broadcast_arrays(x, y)
    ix, iy = x.view(np.uint32).astype(np.int64), y.view(np.uint32).astype(np.int64)
    yint = _checkint(iy)
    negative = (ix >> 31) == 1
    ax = ix & 0x7FFFFFFF
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        subnormal = ax < 0x00800000
        scaled = (np.abs(x) * F32(2.0**23)).view(np.uint32).astype(np.int64) - (23 << 23)
        bits = np.where(subnormal, scaled, ax)
        tmp = bits - _OFF
        i = (tmp >> 19) % 16
        top = tmp & ~0x7FFFFF  # (the sign-extended top bits)
        k = top >> 23
        z = (bits - top).astype(np.uint32).view(F32).astype(F64)
        r = fma64(z, _INVC[i], -1.0)
        y0 = _LOG2C[i] + k.astype(F64)
        r2 = r * r
        q = fma64(fma64(_P[2], r, _P[3]), r2, fma64(_P[4], r, y0))
        logx = fma64(fma64(_P[0], r, _P[1]), r2 * r2, q)
        ylogx = y.astype(F64) * logx
        kd = ylogx + _SHIFT32
        ki = kd.view(np.uint64)
        r = ylogx - (kd - _SHIFT32)
        sign = np.where(negative & (yint == 1), np.uint64(1 << 16), np.uint64(0))
        s = (_EXP2_BITS[(ki % np.uint64(32)).astype(np.int64)] + ((ki + sign) << np.uint64(47))).view(F64)
        out = (fma64(fma64(_E[0], r, _E[1]), r * r, fma64(_E[2], r, 1.0)) * s).astype(F32)
        signed = np.where(sign != 0, F32(-1), F32(1))
        out = np.where(ylogx > _POW_OVERFLOW, signed * F32(np.inf), out)
        out = np.where(ylogx <= -150.0, signed * F32(0), out)
        out = np.where(negative & (yint == 0) & np.isfinite(x) & (x != 0), F32(np.nan), out)
        special = ~np.isfinite(x) | (x == 0) | ~np.isfinite(y) | (y == 0) | (x == 1)
        if special.any():
            out = np.where(special, _powf_special(x, y, yint), out)
    return out.astype(F32)


def _checkint(iy) -> np.ndarray:
    """0: not an integer; 1: an odd integer; 2: an even one (glibc's checkint of y's bits)."""
    e = (iy >> 23) & 0xFF
    shift = np.clip(0x7F + 23 - e, 0, 31)
    frac = iy & ((np.int64(1) << shift) - 1)
    odd = (iy >> shift) & 1
    return np.where(e < 0x7F, 0, np.where(e > 0x7F + 23, 2, np.where(frac != 0, 0, np.where(odd == 1, 1, 2))))


def _powf_special(x, y, yint) -> np.ndarray:
    """C's powf where x or y is 0, infinite or NaN, or x is 1 (what glibc returns; NaN payloads aside)."""
    with np.errstate(all="ignore"):
        x2 = (x * x).astype(F32)
        x2 = np.where((x < 0) | ((x == 0) & np.signbit(x)), np.where(yint == 1, -x2, x2), x2)
        zero_inf = np.where(np.signbit(y), (F32(1) / x2).astype(F32), x2)
        ax = np.abs(x)
        y_inf = np.where(ax == 1, F32(1), np.where((ax < 1) == (y > 0), F32(0), (y * y).astype(F32)))
        out = np.where((x == 0) | np.isinf(x), zero_inf, F32(np.nan))
        out = np.where(np.isinf(y) & ~np.isnan(x), y_inf, out)
        out = np.where(np.isnan(x) | np.isnan(y), F32(np.nan), out)
        return np.where((y == 0) | (x == 1), F32(1), out)
