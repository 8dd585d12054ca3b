"""Scales at the edges: zero, negative zero, negative and subnormal scales give ONNX Runtime's bits (IEEE float32
arithmetic: a zero ``y_scale`` saturates; 0 * inf, NaN, gives the lowest code on x86 and the zero point on Arm,
``platform=``) with no NumPy warning (pytest turns warnings into errors); NaN and infinite scales, and fixed-point
multipliers whose shift does not fit, are errors that name the argument and its value."""

import zlib

import numpy as np
import pytest

from intdot import quant
from intdot.core.errors import OperandError, OperandTypeError

from . import ort
from . import reference_quant as ref

KINDS = [(np.uint8, np.int8), (np.uint8, np.uint8), (np.int8, np.int8), (np.int8, np.uint8)]
KIND_IDS = ["u8xs8", "u8xu8", "s8xs8", "s8xu8"]
EDGES = [0.0, -0.0, -0.02, 1e-40, 3e38]  # 1e-40 is a float32 subnormal; 3e38 overflows the product
F32 = np.float32


def _rng(*key):
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def _operands(rng, ta, tb):
    a = rng.integers(np.iinfo(ta).min, np.iinfo(ta).max + 1, (6, 9)).astype(ta)
    b = rng.integers(np.iinfo(tb).min, np.iinfo(tb).max + 1, (9, 7)).astype(tb)
    za, zb = ta(3), tb(np.iinfo(tb).max // 2)
    a[0] = za  # a zero row of (a - za): sums of 0, which a zero y_scale turns into 0/0
    return a, za, b, zb


@pytest.mark.parametrize("kind", KINDS, ids=KIND_IDS)
@pytest.mark.parametrize("which", ["a_scale", "b_scale", "y_scale"])
def test_qlinear_matmul_edge_scales_as_onnxruntime(kind, which):
    ort.need()
    ta, tb = kind
    rng = _rng("edge-mm", ta, tb, which)
    a, za, b, zb = _operands(rng, ta, tb)
    yz = ta(-7 if ta == np.int8 else 9)
    for v in EDGES:
        scales = {"a_scale": F32(0.02), "b_scale": F32(0.03), "y_scale": F32(0.5)}
        scales[which] = F32(v)
        inputs = [a, scales["a_scale"], za, b, scales["b_scale"], zb, scales["y_scale"], yz]
        want = ort.exact("QLinearMatMul", inputs, out_type=2 if ta == np.uint8 else 3)
        for op in ("sdot4", "usdot"):
            got = quant.qlinear_matmul(*inputs, op=op, platform=ort.platform())
            assert got.dtype == want.dtype and np.array_equal(got, want), (which, v, op)


def test_qlinear_conv_zero_and_negative_scales_as_onnxruntime():
    ort.need()
    rng = _rng("edge-conv")
    x = rng.integers(0, 256, (2, 3, 6, 6)).astype(np.uint8)
    x[0, :, :2] = 5  # windows of x - zx == 0
    w = rng.integers(-128, 128, (4, 3, 3, 3)).astype(np.int8)
    per_channel = np.array([0.01, 0.0, -0.02, -0.0], F32)  # a zero and a negative weight scale
    bias = np.array([0, 0, 100, -100], np.int32)
    for sy in (F32(0.5), F32(0), F32(-0.0), F32(-0.25)):
        inputs = [x, F32(0.02), np.uint8(5), w, per_channel, np.int8(0), sy, np.uint8(128), bias]
        want = ort.exact("QLinearConv", inputs, {"pads": [1, 1, 1, 1]}, out_type=2)
        got = quant.qlinear_conv(*inputs, op="sdot4", pads=[1, 1, 1, 1], platform=ort.platform())
        assert np.array_equal(got, want), float(sy)


@pytest.mark.parametrize("ta", [np.uint8, np.int8], ids=["u8", "s8"])
def test_qgemm_zero_y_scale_as_onnxruntime(ta):
    """QGemm requantizes as QLinearMatMul does: with a zero y_scale, a zero sum is 0 * inf (NaN)."""
    ort.need()
    rng = _rng("edge-qgemm", ta)
    info = np.iinfo(ta)
    a = rng.integers(info.min, info.max + 1, (5, 12)).astype(ta)
    b = rng.integers(-64, 65, (12, 9)).astype(np.int8)  # within +-64: no AVX2 pair saturates
    za = ta(7)
    a[0] = za
    c = rng.integers(-50, 50, 9).astype(np.int32)
    c[:3] = 0  # columns where row 0's sum, bias included, is 0
    b_scale = np.array([0.03, -0.02, 0.0, 0.01, 0.03, -0.0, 0.02, 0.5, 0.25], F32)
    for sy in (F32(0), F32(-0.0), F32(0.5)):
        yz = ta(-9 if ta == np.int8 else 200)
        inputs = [a, F32(0.02), za, b, b_scale, np.zeros(9, np.int8), c, sy, yz]
        want = ort.run("QGemm", inputs, out_type=2 if ta == np.uint8 else 3, domain="com.microsoft")
        got = quant.qgemm(*inputs, op="sdot4", platform=ort.platform())
        assert got.dtype == want.dtype and np.array_equal(got, want), float(sy)


def test_the_platform_decides_what_nan_gives():
    """0 * inf is NaN: x86's kernel (MAXPS before cvtps2dq) gives the lowest code, Arm's (fcvtns: NaN is 0) the
    zero point; every other value is the same on both."""
    acc = np.array([0, 0, 5, -5, 2**31 - 1, -(2**31)], np.int32)
    inf = F32(np.inf)
    assert quant.requantize(acc, inf, np.uint8(9)).tolist() == [0, 0, 255, 0, 255, 0]
    assert quant.requantize(acc, inf, np.uint8(9), platform="arm").tolist() == [9, 9, 255, 0, 255, 0]
    assert quant.requantize(acc, -inf, np.int8(-3), platform="arm").tolist() == [-3, -3, -128, 127, -128, 127]
    acc2 = np.arange(-300, 300, 7, dtype=np.int32)
    for s in (F32(0.37), F32(-1e-3), F32(3e38)):
        assert np.array_equal(
            quant.requantize(acc2, s, np.int8(4)), quant.requantize(acc2, s, np.int8(4), platform="arm")
        )
    zero = A * 0  # sums of 0 under a zero y_scale
    for platform, code in (("x86", 0), ("arm", 77)):
        got = quant.qlinear_matmul(A, ONE, U0, zero, ONE, U0, F32(0), np.uint8(77), op="udot4", platform=platform)
        assert got.tolist() == [[code, code], [code, code]], platform
    conv = quant.qlinear_conv(X, ONE, U0, W, ONE, U0, F32(0), np.uint8(5), op="udot4", platform="arm")
    assert conv.tolist() == [[[[255, 255], [255, 255]], [[255, 255], [255, 255]]]]
    for call in (
        lambda: quant.requantize(acc, inf, np.uint8(9), platform="riscv"),
        lambda: quant.qlinear_matmul(A, ONE, U0, A, ONE, U0, ONE, U0, op="udot4", platform="ARM"),
        lambda: quant.qlinear_conv(X, ONE, U0, W, ONE, U0, ONE, U0, op="udot4", platform="aarch64"),
        lambda: quant.qgemm(A, ONE, U0, A, ONE, U0, op="udot4", platform="amd64"),
    ):
        with pytest.raises(OperandError, match=r"platform='\w+'; expected one of 'x86', 'x86-avx2', 'arm'"):
            call()


@pytest.mark.parametrize("out, onnx_type", [("int8", 3), ("uint8", 2), ("int16", 5), ("uint16", 4)])
def test_quantize_linear_edge_scales_as_onnxruntime(out, onnx_type):
    ort.need()
    x = np.concatenate([_rng("edge-q").normal(0, 100, 64), [0, -0.0, 1e38, -1e38, np.inf, -np.inf, np.nan]])
    x = x.astype(F32)
    zp = np.dtype(out).type(3)
    for v in EDGES:
        want = ort.run("QuantizeLinear", [x, F32(v), zp], out_type=onnx_type)
        assert np.array_equal(quant.quantize_linear(x, F32(v), zp), want), v
    # Per axis, one channel with a zero scale.
    x2 = x[:64].reshape(4, 16)
    s2 = np.array([0.5, 0.0, -0.5, 1e-40], F32)
    z2 = np.full(4, zp)
    want = ort.run("QuantizeLinear", [x2, s2, z2], {"axis": 0}, out_type=onnx_type)
    assert np.array_equal(quant.quantize_linear(x2, s2, z2, axis=0), want)


def test_dequantize_linear_zero_and_negative_scales_as_onnxruntime():
    ort.need()
    x = np.arange(-128, 128, dtype=np.int8)
    for v in (0.0, -0.0, -0.5, 1e-40):
        want = ort.run("DequantizeLinear", [x, F32(v), np.int8(3)], out_type=1)
        got = quant.dequantize_linear(x, F32(v), np.int8(3))
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), v  # the bits: -0.0 stays -0.0


A = np.array([[1, 2], [3, 4]], np.uint8)
W = np.ones((2, 2, 1, 1), np.uint8)
X = np.ones((1, 2, 2, 2), np.uint8)
ONE, U0 = F32(1), np.uint8(0)


def _mm(**scales):
    s = {"a_scale": ONE, "b_scale": ONE, "y_scale": ONE, **scales}
    return lambda: quant.qlinear_matmul(A, s["a_scale"], U0, A, s["b_scale"], U0, s["y_scale"], U0, op="udot4")


def _conv(**scales):
    s = {"x_scale": ONE, "w_scale": ONE, "y_scale": ONE, **scales}
    return lambda: quant.qlinear_conv(X, s["x_scale"], U0, W, s["w_scale"], U0, s["y_scale"], U0, op="udot4")


@pytest.mark.parametrize(
    "call, words",
    [
        (_mm(a_scale=F32("nan")), "a_scale=nan: expected a finite scale"),
        (_mm(b_scale=F32("inf")), "b_scale=inf: expected a finite scale"),
        (_mm(y_scale=np.float16("-inf")), "y_scale=-inf: expected a finite scale"),
        (_mm(a_scale=float("nan")), "a_scale=nan: expected a finite scale"),
        (_mm(a_scale=1e40), "a_scale=1e+40: expected a finite scale that fits float32"),
        (_mm(y_scale=np.array([1, np.nan], F32)), "y_scale holds nan at index 1; expected finite scales"),
        (_conv(w_scale=np.array([0.5, np.inf], F32)), "w_scale holds inf at index 1"),
        (_conv(x_scale=F32("nan")), "x_scale=nan"),
        (lambda: quant.quantize_linear(np.ones(2, F32), F32("nan"), np.int8(0)), "y_scale=nan"),
        (lambda: quant.dequantize_linear(np.ones(2, np.int8), F32("inf"), np.int8(0)), "x_scale=inf"),
    ],
)
def test_non_finite_scales_are_errors(call, words):
    with pytest.raises(OperandError) as info:
        call()
    assert words in str(info.value)


def test_fixed_point_multiplier_must_fit_the_shift():
    # TFLite's double-rounding MultiplyByQuantizedMultiplier shifts int32 left by at most 30: scales below 2**30.
    with pytest.raises(OperandError, match=r"real=1e\+40 needs a left shift of 133; .* shifts up to 30"):
        quant.quantize_multiplier(1e40)
    with pytest.raises(OperandError, match=r"real=1073741824.0 needs a left shift of 31"):
        quant.quantize_multiplier(2.0**30)
    with pytest.raises(OperandError, match=r"real holds 1e\+20 needs a left shift"):
        quant.quantize_multiplier(np.array([0.5, 1e20]))
    below = np.nextafter(2.0**30, 0) * (1 - 2**-30)  # rounds to a Q31 fraction below 1: shift 30
    assert tuple(int(v) for v in quant.quantize_multiplier(below)) == ref.quantize_multiplier(below)
    for shift in (31, -32, 133):
        with pytest.raises(OperandError, match=rf"shift holds {shift}; expected shifts in \[-31, 30\]"):
            quant.fixed_point_multiply(np.int32(5), np.int32(2**30), np.int32(shift))
    with pytest.raises(OperandError, match=r"multiplier holds 2147483648; expected int32"):
        quant.fixed_point_multiply(np.int32(5), np.int64(2**31), np.int32(0))
    with pytest.raises(OperandTypeError, match=r"real=None: expected real scales"):
        quant.quantize_multiplier(None)  # (NumPy would make it NaN)
    with pytest.raises(OperandError, match=r"scale is a tuple of 1; expected .* \(multiplier, shift\) pair"):
        quant.requantize(np.int32(1), (np.int32(2**30),), np.int8(0), method="fixed_point")
    with pytest.raises(OperandError, match=r"a_scale \* b_scale / y_scale=inf: expected finite, non-negative"):
        quant.qlinear_matmul(A, ONE, U0, A, ONE, U0, F32(0), U0, op="udot4", requant="fixed_point")
    with pytest.raises(OperandError, match=r"x_scale \* w_scale / y_scale holds -1.0: expected finite"):
        quant.qlinear_conv(X, ONE, U0, W, np.array([1, -1], F32), U0, ONE, U0, op="udot4", requant="fixed_point")


@pytest.mark.parametrize(
    "value, hint",
    [(1, "np.float32(1)"), (0.5, None), ([0.5], "np.asarray(values, np.float32)"), ("0.5", "np.asarray(values")],
)
def test_the_hint_fits_the_argument(value, hint):
    if hint is None:  # a Python float is taken as float32
        assert quant.qlinear_matmul(A, value, U0, A, ONE, U0, ONE, U0, op="udot4").dtype == np.uint8
        return
    with pytest.raises(OperandTypeError) as info:
        quant.qlinear_matmul(A, value, U0, A, ONE, U0, ONE, U0, op="udot4")
    text = str(info.value)
    assert text.startswith("a_scale is a") and hint in text and "uint8" not in text


def test_the_hint_of_an_operand_names_an_8_bit_type():
    with pytest.raises(OperandTypeError, match=r"^a is a list; .* int8 or uint8 .* np\.asarray\(values, np\.int8\)"):
        quant.qlinear_matmul([[1]], ONE, U0, A, ONE, U0, ONE, U0, op="udot4")
