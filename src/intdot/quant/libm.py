"""The C library's float32 functions that ONNX Runtime's kernels call, bit for bit: glibc's ``logf`` (LogSoftmax
takes the log of its sum with it).  glibc's logf (from Arm's optimized routines, in glibc since 2.28) is not
correctly rounded (0.82 ulp at most), so a correctly rounded log differs from it on some inputs.

``logf``: ``x = 2**k * z`` with ``z`` in [0x3f330000, 2 * 0x3f330000) as bits; ``c`` the centre of z's sixteenth
of that range, from a table of ``1 / c`` and ``log(c)``; ``r = z / c - 1``, ``log(x) = log(c) + k ln2 + r + A0 r**4
+ (A1 r + A2) r**2`` in float64 (each ``a * b + c`` fused, as its FMA build on x86 and its AArch64 build compute
it), rounded to float32.  Checked against this machine's ``libm`` in ``tests/quant/test_libm.py``."""

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
