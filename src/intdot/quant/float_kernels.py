"""ONNX Runtime's float32 kernels for operators a quantized model leaves in float: Sigmoid, Tanh, Erf, Exp, Gelu and
Softmax, bit for bit as MLAS computes them on the CPU (its pools: :mod:`intdot.quant.pooling`).

A quantized model's float tail (a classifier's Softmax, a gate's Sigmoid) decides its output bits as much as its
integer nodes do, and NumPy's formulas round a few ulps apart from these kernels.  Read from MLAS's
``logistic.cpp``, ``tanh.cpp`` and ``compute.cpp`` and its x86 kernels (``x86_64/LogisticKernelFma3.S``,
``TanhKernelFma3.S``, ``TransKernelAvx512F.S``), and checked against ONNX Runtime in
``tests/quant/test_float_kernels.py``.  Every ``a * b + c`` written below is one fused multiply-add (:func:`fma32`):
the x86 kernels and the Arm build's NEON code both use them.

Sigmoid
    Eigen's rational polynomial: ``x`` clamped to [-18, 18]; ``x2 = x * x``; ``p = x * ((((a9 * x2 + a7) * x2 +
    a5) * x2 + a3) * x2 + a1)``, ``q = ((((b10 * x2 + b8) * x2 + b6) * x2 + b4) * x2 + b2) * x2 + b0``; ``p / q +
    0.5`` clamped below at 0, and on Arm above at 1 too (x86's kernel has no upper clamp: near x = 18 it gives
    1.0000001).
Tanh
    Eigen's P13/Q6 rational polynomial: ``x`` clamped to [-9, 9]; ``p = x * (((((a13 * x2 + a11) * x2 + a9) * x2
    + a7) * x2 + a5) * x2 + a3) * x2 + a1)``, ``q = ((b6 * x2 + b4) * x2 + b2) * x2 + b0``; ``p / q``.  The same on
    both platforms.
Erf, Gelu
    MLAS's erf (:func:`erf`); Gelu (ONNX's from opset 20, ``com.microsoft:Gelu``, and the chains its GeluFusion
    makes one: :mod:`intdot.quant.float_fusions`) as its kernel computes it from that erf or from Tanh
    (:func:`gelu`).
Exp
    MLAS's exp (:func:`exp`): ``x`` clamped to [-103.97, 88.776], ``m'`` and ``r`` as for Softmax below, the
    polynomial without its last step, and ``2**m'`` as two factors whose exponent fields are clamped, so that
    subnormal results and overflow to inf come out of ordinary multiplies: ``fma(p, r * o, o) * n`` (x86's FMA3
    kernel and Arm's NEON code; x86's AVX-512F kernel scales by ``vscalefps`` instead, as its Softmax does).  On a
    CPU with SVE its SVE kernel, from Arm's Compute Library: ``z = fma(x, 1/ln2, 2**23 + 127)``, ``2**n`` from
    ``z``'s bits, ``r`` in two fused steps, a degree-5 polynomial by Estrin's scheme, ``fma(p, 2**n, 2**n)``; 0
    below -86.64 and inf above 88.37; a tensor of one element by the C library's ``expf``.
Softmax
    Per row of D elements (the axis, or from opset 13 on; the flattened trailing axes before it): ``m`` the row's
    maximum; each ``e = exp(x - m)`` by MLAS's polynomial: ``v = x + (-m)`` clamped below, ``m' = round(v /
    ln2)`` by a rounding bias (``fma(v, 1/ln2, 1.5 * 2**23) - 1.5 * 2**23``), ``r = fma(m', -ln2_lo, fma(m',
    -ln2_hi, v))``, ``p = ((((((c0 r + c1) r + c2) r + c3) r + c4) r + 1) r + 1)`` and ``e = p * 2**m'``; then
    the sum ``s`` in the kernel's order and each output ``e * float32(1 / s)``; LogSoftmax's ``(x - m) -
    logf(s)`` with the C library's logf (:mod:`.libm`).

    x86 (the AVX-512F kernel, which ONNX Runtime picks on every CPU with AVX-512F): the clamp at -103.97, ``2**m'``
    by ``vscalefps`` (rounded once, subnormals included), 16 lanes each summing every 16th element in turn, then
    ``b_i = lane_i + lane_(i+8)`` and ``((b0 + b1) + (b2 + b3)) + ((b4 + b5) + (b6 + b7))``.  A CPU with AVX2 and
    no AVX-512F (``platform="x86-avx2"``) runs its FMA3 kernel: the clamp at -88.38, ``2**m'`` built from
    ``m'``'s bits, 8 lanes, reduced as ``((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7))``.

    Arm (the NEON kernel, which ONNX Runtime's AArch64 build runs on CPUs without SVE): the clamp at -88.38,
    ``2**m'`` built from ``m'``'s bits (0 for ``m' = -127``), a row of 4 or more summed in 4 lanes over its first
    ``4 * (D // 4)`` elements, the lanes as ``(l0 + l1) + (l2 + l3)``, then the rest one by one; a shorter row one
    by one from 0.  On a CPU with SVE (``platform="arm-sve128"``, ``"arm-sve256"``, ``"arm-sve512"``: the vector
    length) its SVE kernel: ``exp`` by FEXPA (``x / ln2`` rounded to 1/64 by adding ``0x1.803f8p17``, ``2**n`` from
    FEXPA's table of ``2**(i/64)``, times ``1 + r + r*r/2`` as two fused multiply-adds; the clamp at -88.0), the
    row in chunks of one vector, every other one to a second accumulator, the two added, then FADDV (halves
    reduced apart, recursively).
"""

from __future__ import annotations

import math

import numpy as np

from .fma import fma32

F32, F64 = np.float32, np.float64

# MLAS's logistic constants (float32): the clamp, the numerator's and the denominator's coefficients.
_SIGMOID_RANGE = F32(18.0)
_SIGMOID_P = [F32(v) for v in (4.37031012579801e-11, 1.15627324459942e-07, 6.08574864600143e-05,
                               8.51377133304701e-03, 2.48287947061529e-01)]  # fmt: skip
_SIGMOID_Q = [F32(v) for v in (6.10247389755681e-13, 5.76102136993427e-09, 6.29106785017040e-06,
                               1.70198817374094e-03, 1.16817656904453e-01, 9.93151921023180e-01)]  # fmt: skip

# MLAS's tanh constants.
_TANH_RANGE = F32(9.0)
_TANH_P = [F32(v) for v in (-2.76076847742355e-16, 2.00018790482477e-13, -8.60467152213735e-11,
                            5.12229709037114e-08, 1.48572235717979e-05, 6.37261928875436e-04,
                            4.89352455891786e-03)]  # fmt: skip
_TANH_Q = [F32(v) for v in (1.19825839466702e-06, 1.18534705686654e-04, 2.26843463243900e-03,
                            4.89352518554385e-03)]  # fmt: skip

# MLAS's exp constants: the lower clamps of its x86 AVX-512F and its generic (NEON) sum kernels, the rounding bias
# (1.5 * 2**23), 1 / ln 2, ln 2 split in two, and the polynomial's coefficients (the last one used twice).
_EXP_LOWER = {"x86": F32(-103.9720840454), "x86-avx2": F32(-88.3762626647949), "arm": F32(-88.3762626647949)}
_ROUNDING_BIAS = F32(12582912.0)
_LOG2_RECIPROCAL = F32(1.44269504088896341)
_LOG2_HIGH, _LOG2_LOW = F32(-6.93145752e-1), F32(-1.42860677e-6)
_EXP_POLY = [F32(float.fromhex(h)) for h in ("0x1.694000p-10", "0x1.125edcp-7", "0x1.555b5ap-5", "0x1.555450p-3",
                                             "0x1.fffff6p-2", "0x1.000000p+0")]  # fmt: skip


def _bits(word: int) -> np.float32:
    """The float32 whose bits are ``word``."""
    return np.array(word, np.uint32).view(F32)[()]


def _polynomial(x2, coefficients):
    p = fma32(x2, coefficients[0], coefficients[1])
    for c in coefficients[2:]:
        p = fma32(p, x2, c)
    return p


def logistic(x, platform: str = "x86") -> np.ndarray:
    """ONNX Runtime's float32 Sigmoid (MLAS's logistic function, module docstring) on ``platform`` ("x86" or
    "arm")."""
    v = np.minimum(np.maximum(np.asarray(x, F32), -_SIGMOID_RANGE), _SIGMOID_RANGE)
    x2 = (v * v).astype(F32)
    p = (v * _polynomial(x2, _SIGMOID_P)).astype(F32)
    q = _polynomial(x2, _SIGMOID_Q)
    with np.errstate(divide="ignore", invalid="ignore"):
        y = ((p / q).astype(F32) + F32(0.5)).astype(F32)
    y = np.maximum(y, F32(0))
    return np.minimum(y, F32(1)) if platform.startswith("arm") else y


def hard_sigmoid(x, alpha: float = 0.2, beta: float = 0.5, platform: str = "x86") -> np.ndarray:
    """float32 ``min(max(alpha * x + beta, 0), 1)`` as ONNX Runtime computes it: on x86 a product then a sum, on
    Arm (its Eigen kernel and MLAS's activation for a fused Conv) one fused multiply-add."""
    x = np.asarray(x, F32)
    a, b = F32(alpha), F32(beta)
    with np.errstate(over="ignore", invalid="ignore"):
        v = fma32(x, a, b) if platform.startswith("arm") else ((x * a).astype(F32) + b).astype(F32)
    return np.minimum(np.maximum(v, F32(0)), F32(1)).astype(F32)


def tanh(x) -> np.ndarray:
    """ONNX Runtime's float32 Tanh (MLAS's, module docstring); the same on x86 and Arm."""
    v = np.minimum(np.maximum(np.asarray(x, F32), -_TANH_RANGE), _TANH_RANGE)
    x2 = (v * v).astype(F32)
    p = (_polynomial(x2, _TANH_P) * v).astype(F32)
    q = _polynomial(x2, _TANH_Q)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (p / q).astype(F32)


# MLAS's erf constants: the split between its two polynomials, each polynomial's coefficients, and its own exp's.
_ERF_SPLIT = F32(0.921875)
_ERF_SMALL = [F32(v) for v in (-5.99104969e-4, 4.99339588e-3, -2.67667342e-2, 1.12818025e-1, -3.76124859e-1,
                               1.28379151e-1)]  # fmt: skip
_ERF_BIG = [F32(v) for v in (1.72948930e-5, -3.83208680e-4, 3.88393435e-3, -2.42545605e-2, 1.06777847e-1,
                             6.34846687e-1, 1.28717512e-1)]  # fmt: skip
_ERF_EXP_LOWER = F32(-88.3762626647949)
_ERF_EXP = [F32(v) for v in (1.38319808e-3, 8.37550033e-3, 4.16689515e-2, 1.66664466e-1, 4.99999851e-1, 1.0, 1.0)]


def erf(x) -> np.ndarray:
    """ONNX Runtime's float32 Erf (MLAS's ``erf.cpp``, after an answer on Stack Overflow): for ``a = |x|`` up to
    0.921875 ``fma(a2 * p(a2), a, a)`` with ``a2 = a * a``; above, ``1 - exp(-fma(a * q(a), a, a))``, its exp
    MLAS's own (``2**r`` by the bits of ``r + 127``); x's sign put back.  Every step a fused multiply-add; the same
    on x86 and Arm (no upper clamp: past 3.9 the result is 1)."""
    x = np.asarray(x, F32)
    a = np.abs(x)
    with np.errstate(over="ignore", invalid="ignore"):  # past 2**64 a2 is inf: the small branch is not taken
        return _erf(x, a)


def _erf(x, a):
    a2 = (a * a).astype(F32)
    small = fma32(_polynomial(a2, _ERF_SMALL), a, a)
    big = fma32(_ERF_BIG[0], a, _ERF_BIG[1])
    for c in _ERF_BIG[2:]:
        big = fma32(big, a, c)
    v = np.maximum(_ERF_EXP_LOWER, -fma32(big, a, a))
    r = (fma32(_LOG2_RECIPROCAL, v, _ROUNDING_BIAS) - _ROUNDING_BIAS).astype(F32)
    f = fma32(r, _LOG2_LOW, fma32(r, _LOG2_HIGH, v))
    p = fma32(_ERF_EXP[0], f, _ERF_EXP[1])
    for c in _ERF_EXP[2:]:
        p = fma32(p, f, c)
    with np.errstate(invalid="ignore", over="ignore"):
        scale = (((np.nan_to_num(r).astype(np.int64) + 127) << 23) & 0xFFFFFFFF).astype(np.uint32).view(F32)
        y = np.where(a > _ERF_SPLIT, (F32(1) - (p * scale).astype(F32)).astype(F32), small)
    return np.where(np.signbit(x), -y, y).astype(F32)


def _exp(v, platform: str) -> np.ndarray:
    """MLAS's ``exp(v)`` for ``v <= 0`` as its Softmax sum kernels compute it (module docstring)."""
    v = np.maximum(_EXP_LOWER[platform], v)
    biased = fma32(v, _LOG2_RECIPROCAL, _ROUNDING_BIAS)
    m = (biased - _ROUNDING_BIAS).astype(F32)
    r = fma32(m, _LOG2_LOW, fma32(m, _LOG2_HIGH, v))
    p = fma32(_EXP_POLY[0], r, _EXP_POLY[1])
    for c in _EXP_POLY[2:] + _EXP_POLY[-1:]:
        p = fma32(p, r, c)
    with np.errstate(invalid="ignore"):
        if platform == "x86":  # vscalefps: p * 2**m rounded once; float64 holds the product exactly
            return (p.astype(F64) * np.exp2(m.astype(F64))).astype(F32)
        # m's low bits moved into the exponent field (its float's mantissa holds m + 1.5 * 2**23).
        bits = (biased.view(np.int32).astype(np.int64) << 23) + 0x3F800000
        return (p * (bits & 0xFFFFFFFF).astype(np.uint32).view(F32)).astype(F32)


# Exp's wider range (MLAS's MlasComputeExp): inputs clamped to [-103.97, 88.776]; where 2**m' leaves float32's
# exponents, the generic kernel (and x86's FMA3 one) splits it into two factors, both clamped exponent fields.
_EXP_UPPER = F32(88.7762626647950)
_MIN_EXPONENT, _MAX_EXPONENT = np.int32(-0x3F000000), np.int32(0x3F800000)


def exp(x, platform: str = "x86") -> np.ndarray:
    """ONNX Runtime's float32 Exp (MLAS's exp kernel, module docstring) on ``platform``."""
    x = np.asarray(x, F32)
    if platform.startswith("arm-sve"):
        return _exp_sve_elementwise(x)
    with np.errstate(invalid="ignore", over="ignore"):
        v = np.minimum(_EXP_UPPER, np.maximum(_EXP_LOWER["x86"], x))
        if platform == "x86":
            return _exp(v, "x86")
        biased = fma32(v, _LOG2_RECIPROCAL, _ROUNDING_BIAS)
        m = (biased - _ROUNDING_BIAS).astype(F32)
        r = fma32(m, _LOG2_LOW, fma32(m, _LOG2_HIGH, v))
        overflow = biased.view(np.int32) << 23  # wraps, as the vector shift does
        normal = np.clip(overflow, _MIN_EXPONENT, _MAX_EXPONENT)
        overflow = (overflow - normal + _MAX_EXPONENT).view(F32)
        normal = (normal + _MAX_EXPONENT).view(F32)
        p = fma32(_EXP_POLY[0], r, _EXP_POLY[1])
        for c in _EXP_POLY[2:]:
            p = fma32(p, r, c)
        return (fma32(p, (r * overflow).astype(F32), overflow) * normal).astype(F32)


def _lane_sums(e, lanes: int) -> np.ndarray:
    """Each row's elements summed into ``lanes`` lanes, lane i taking elements i, i + lanes, ... in turn."""
    rows, d = e.shape
    padded = np.zeros((rows, -(-d // lanes) * lanes), F32)  # adding +0.0 leaves a lane as it is
    padded[:, :d] = e
    acc = np.zeros((rows, lanes), F32)
    for chunk in padded.reshape(rows, -1, lanes).transpose(1, 0, 2):
        acc = (acc + chunk).astype(F32)
    return acc


def _row_sums(e, platform: str) -> np.ndarray:
    if platform in ("x86", "x86-avx2"):  # AVX-512F: 16 lanes folded to 8; FMA3: 8 lanes
        if platform == "x86":
            acc = _lane_sums(e, 16)
            b = (acc[:, 8:] + acc[:, :8]).astype(F32)
        else:
            b = _lane_sums(e, 8)
        pairs = (b[:, 0::2] + b[:, 1::2]).astype(F32)
        return reduce4(pairs, "neon")
    return sum4(e, "neon")


def reduce4(lanes, pairs: str) -> np.ndarray:
    """Four lanes (the last axis) added in pairs: ``"sse"``, x86's shuffles, ``(l0 + l2) + (l1 + l3)``; ``"neon"``,
    its pairwise add, ``(l0 + l1) + (l2 + l3)``; float32 throughout, each + rounding once."""
    l0, l1, l2, l3 = np.moveaxis(np.asarray(lanes, F32), -1, 0)
    return (l0 + l2) + (l1 + l3) if pairs == "sse" else (l0 + l1) + (l2 + l3)


def sum4(v, pairs: str) -> np.ndarray:
    """Each row of the 2-D ``v`` summed as MLAS's 4-lane kernels sum it: 4 lanes over the first ``4 * (n // 4)``
    elements, the lanes reduced in pairs (:func:`reduce4`), then the rest one by one."""
    full = 4 * (v.shape[1] // 4)
    s = reduce4(_lane_sums(v[:, :full], 4), pairs)
    for j in range(full, v.shape[1]):
        s = (s + v[:, j]).astype(F32)
    return s


# The SVE Softmax kernel's exp (FEXPA): x / ln2 rounded to 1/64 by a shift, 2**n from FEXPA's table, r + r*r/2.
_FEXPA_SHIFT = F32(float.fromhex("0x1.803f8p17"))
_FEXPA_LOWER = F32(-88.0)
_NEG_LN2_HI, _NEG_LN2_LO = (_bits(v) for v in (0xBF317200, 0xB5BFBE8E))
_FEXPA_TABLE = np.array([F32(2.0 ** (i / 64)).view(np.uint32) & 0x7FFFFF for i in range(64)], np.uint32)


def _exp_sve(v) -> np.ndarray:
    """The SVE kernel's ``exp(v)`` for ``v <= 0``, FEXPA's result built from its table and the exponent bits."""
    v = np.maximum(_FEXPA_LOWER, v)
    z = fma32(v, _LOG2_RECIPROCAL, _FEXPA_SHIFT)
    n = (z - _FEXPA_SHIFT).astype(F32)
    r = fma32(n, _NEG_LN2_LO, fma32(n, _NEG_LN2_HI, v))
    u = z.view(np.uint32)
    scale = ((((u >> 6) & 0xFF) << 23) | _FEXPA_TABLE[u & 0x3F]).astype(np.uint32).view(F32)
    return fma32(scale, fma32((r * r).astype(F32), F32(0.5), r), scale)


# The SVE Exp kernel's constants (from Arm's Compute Library): 2**23 + 127, 1 / ln 2, -ln 2 in two parts, the
# coefficients of r**1 .. r**5, and the inputs past which it gives 0 or inf.
_SVE_EXP_SHIFT, _SVE_INV_LN2 = _bits(0x4B00007F), _bits(0x3FB8AA3B)
_SVE_EXP_C = [_bits(v) for v in (0x3F7FFFF6, 0x3EFFFEDB, 0x3E2AAF33, 0x3D2B9F17, 0x3C072010)]
_SVE_EXP_MIN, _SVE_EXP_MAX = F32(-86.64), F32(88.37)


def _exp_sve_elementwise(x) -> np.ndarray:
    """ONNX Runtime's SVE Exp: ``n`` = x / ln2 rounded (by adding 2**23 + 127, whose low bits are then 2**n's
    exponent field), ``r`` = x - n ln2 in two fused steps, ``p = (c1 r + (c2 + c3 r) r2) + (c4 + c5 r) r2 r2``
    evaluated as Estrin's scheme, ``scale * p + scale``; 0 below -86.64 and inf above 88.37.  A tensor of one
    element goes to the C library's ``expf`` instead (correctly rounded here, by float64)."""
    if x.size == 1:
        with np.errstate(over="ignore"):
            return np.exp(x.astype(F64)).astype(F32)
    c1, c2, c3, c4, c5 = _SVE_EXP_C
    with np.errstate(invalid="ignore", over="ignore"):
        z = fma32(x, _SVE_INV_LN2, _SVE_EXP_SHIFT)
        n = (z - _SVE_EXP_SHIFT).astype(F32)
        scale = (z.view(np.uint32) << 23).view(F32)
        r = fma32(n, _NEG_LN2_LO, fma32(n, _NEG_LN2_HI, x))
        r2 = (r * r).astype(F32)
        p2345 = fma32(fma32(c5, r, c4), r2, fma32(c3, r, c2))
        poly = fma32(fma32(p2345, r2, (c1 * r).astype(F32)), scale, scale)
        poly = np.where(x < _SVE_EXP_MIN, F32(0), poly)
        return np.where(x > _SVE_EXP_MAX, F32(np.inf), poly).astype(F32)


def _faddv(lanes) -> np.ndarray:
    """SVE's FADDV of each row: the lower and the upper half reduced apart (recursively), then added."""
    if lanes.shape[1] == 1:
        return lanes[:, 0]
    h = lanes.shape[1] // 2
    return (_faddv(lanes[:, :h]) + _faddv(lanes[:, h:])).astype(F32)


def _sve_row_sums(e, lanes: int) -> np.ndarray:
    """Two accumulators, each taking every other chunk of ``lanes`` elements, added lane by lane, then FADDV."""
    rows, d = e.shape
    padded = np.zeros((rows, -(-d // (2 * lanes)) * 2 * lanes), F32)
    padded[:, :d] = e
    a0, a1 = np.zeros((rows, lanes), F32), np.zeros((rows, lanes), F32)
    for chunk in padded.reshape(rows, -1, 2, lanes).transpose(1, 2, 0, 3):
        a0, a1 = (a0 + chunk[0]).astype(F32), (a1 + chunk[1]).astype(F32)
    return _faddv((a0 + a1).astype(F32))


def softmax_rows(x, platform: str = "x86", log: bool = False) -> np.ndarray:
    """ONNX Runtime's float32 softmax of each row of the 2-D ``x`` on ``platform`` ("x86", "x86-avx2" or "arm";
    module docstring); with ``log``, its LogSoftmax: ``(x - max) - logf(sum)`` (glibc's logf,
    :func:`.libm.logf`)."""
    x = np.asarray(x, F32)
    if x.size == 0:
        return x.copy()
    with np.errstate(invalid="ignore", over="ignore"):
        negative_maximum = (-x.max(axis=1, keepdims=True)).astype(F32)
        shifted = (x + negative_maximum).astype(F32)
        if platform.startswith("arm-sve"):
            e = _exp_sve(shifted)
            sums = _sve_row_sums(e, int(platform[len("arm-sve") :]) // 32)
        else:
            e = _exp(shifted, platform)
            sums = _row_sums(e, platform)
        if log:
            from .libm import logf

            return (shifted - logf(sums)[:, None]).astype(F32)
        with np.errstate(divide="ignore"):
            scale = (F32(1) / sums).astype(F32)
        return (e * scale[:, None]).astype(F32)


def _rows_formula(x, log: bool = False) -> np.ndarray:
    """``exp(x - max) / sum`` (``log``: its log) of each row in ``x``'s own type (the types MLAS has no kernel
    for)."""
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        shifted = x - x.max(axis=1, keepdims=True)
        e = np.exp(shifted)
        if log:
            return (shifted - np.log(e.sum(axis=1, keepdims=True))).astype(x.dtype)
        return (e / e.sum(axis=1, keepdims=True)).astype(x.dtype)


def softmax(x, axis: int | None = None, opset: int = 13, platform: str = "x86", log: bool = False) -> np.ndarray:
    """ONNX Runtime's ``Softmax`` (``log``: ``LogSoftmax``) at ``opset``: along ``axis`` (default -1) from opset 13
    on, before it over the input flattened to 2-D at ``axis`` (default 1).  float32 bit for bit (module docstring);
    other float types by the formula in their own type.  ``axis`` must be valid for ``x``'s rank."""
    x = np.asarray(x)
    if x.size == 0:
        return x.copy()
    rows = (lambda r: softmax_rows(r, platform, log)) if x.dtype == F32 else (lambda r: _rows_formula(r, log))
    if opset < 13:
        a = 1 if axis is None else axis % x.ndim
        return rows(x.reshape(int(np.prod(x.shape[:a])), -1)).reshape(x.shape)
    a = -1 if axis is None else axis
    moved = np.moveaxis(x, a, -1)
    return np.moveaxis(rows(moved.reshape(-1, moved.shape[-1])).reshape(moved.shape), -1, a)


_SQRT1_2 = F32(0.7071067811865476)  # float(M_SQRT1_2)
_GELU_B, _GELU_C = F32(0.7978845608028654), F32(0.035677408136300125)


def gelu(x, approximate: str = "none", platform: str = "x86") -> np.ndarray:
    """ONNX Runtime's float32 ``Gelu`` (opset 20; also its ``com.microsoft:Gelu``): ``(0.5 * x) * (erf(x *
    float32(1/sqrt(2))) + 1)`` with :func:`erf`; with ``approximate="tanh"``, ``(0.5 * x) * (tanh(x * (C * x * x
    + B)) + 1)`` with :func:`tanh`, where Arm's compiler fuses ``C * x * x + B`` into one multiply-add.  Other
    float types by the definition, in float64, rounded to their type."""
    x = np.asarray(x)
    if x.dtype != F32:
        v = x.astype(F64)
        if approximate == "tanh":
            t = np.tanh(v * (float(_GELU_C) * v * v + float(_GELU_B)))
        else:
            t = np.frompyfunc(math.erf, 1, 1)(v * math.sqrt(0.5)).astype(F64)
        return (0.5 * v * (t + 1)).astype(x.dtype)
    with np.errstate(over="ignore", invalid="ignore"):  # infinities give what the kernel gives: NaN at -inf
        half = (F32(0.5) * x).astype(F32)
        if approximate == "tanh":
            cxx = (_GELU_C * x).astype(F32)
            fused = platform.startswith("arm")
            inner = fma32(cxx, x, _GELU_B) if fused else ((cxx * x).astype(F32) + _GELU_B).astype(F32)
            t = tanh((x * inner).astype(F32))
        else:
            t = erf((x * _SQRT1_2).astype(F32))
        return (half * (t + F32(1)).astype(F32)).astype(F32)
