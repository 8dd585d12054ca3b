"""Requantization: TFLite's fixed-point arithmetic against a reference written from its definition, and the
float32 (ONNX Runtime) and float64 (onnx.reference) methods against those runtimes where they part."""

import zlib

import numpy as np
import pytest

from intdot.core.errors import OperandError, OperandTypeError
from intdot.quant import fixed_point_multiply, qlinear_matmul, quantize_multiplier, requantize

from . import ort
from . import reference_quant as ref


def _rng(*key):
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def test_quantize_multiplier_against_the_reference():
    rng = _rng("qm")
    reals = np.concatenate([rng.uniform(0, 1, 2000), 10.0 ** rng.uniform(-12, 3, 2000), [0.5, 1.0, 2**-31, 2**-33]])
    m, s = quantize_multiplier(reals)
    for r, mi, si in zip(reals, m.tolist(), s.tolist()):
        assert (mi, si) == ref.quantize_multiplier(float(r)), r
        assert mi == 0 or 2**30 <= mi < 2**31


def test_fixed_point_multiply_against_the_reference():
    rng = _rng("fp")
    acc = np.concatenate([rng.integers(-(2**31), 2**31, 3000), [-(2**31), 2**31 - 1, 0, 1, -1, 3, -3, 5, -5]])
    reals = 10.0 ** rng.uniform(-9, 0.5, acc.size)  # scales above 1 shift left first
    m, s = quantize_multiplier(reals)
    got = fixed_point_multiply(acc, m, s)
    want = [ref.multiply_by_quantized_multiplier(int(a), int(mi), int(si)) for a, mi, si in zip(acc, m, s)]
    assert got.tolist() == want
    # The saturating case of the high multiply: INT32_MIN x INT32_MIN.
    assert fixed_point_multiply(np.int64(-(2**31)), np.int64(-(2**31)), 0).tolist() == 2**31 - 1


def test_fixed_point_ties():
    acc = np.arange(-7, 8, dtype=np.int32)
    # 0.25: a Q31 multiplier of 2**30 and a shift of -1; TFLite rounds 1.25 -> 1, -1.75 -> -2, ties of the shift away
    got = requantize(acc, 0.25, np.int8(0), method="fixed_point").tolist()
    want = [ref.multiply_by_quantized_multiplier(int(a), 2**30, -1) for a in acc]
    assert got == want


def test_float32_and_float64_part_where_the_float32_product_rounds_to_a_half():
    """3 x float32(1/6): float32 gives exactly 0.5 (ties to even: 0), float64 0.50000001 (1). ONNX Runtime
    computes the first, onnx.reference the second; requant= names which."""
    ort.need()
    from onnx.reference import ReferenceEvaluator

    sixth = np.float32(1 / 6)
    assert requantize(np.int32(3), sixth, np.uint8(0)).tolist() == 0
    assert requantize(np.int32(3), sixth, np.uint8(0), method="float64").tolist() == 1
    inputs = [
        np.array([[3]], np.uint8),
        np.array(sixth),
        np.array(0, np.uint8),
        np.array([[1]], np.int8),
        np.array(1, np.float32),
        np.array(0, np.int8),
        np.array(1, np.float32),
        np.array(0, np.uint8),
    ]
    model = ort.node_model("QLinearMatMul", inputs, out_type=2)
    feed = {f"in{i}": v for i, v in enumerate(inputs)}
    assert ort.session(model).run(None, feed)[0].tolist() == [[0]]
    assert ReferenceEvaluator(model).run(None, feed)[0].tolist() == [[1]]
    assert qlinear_matmul(*inputs, op="usdot").tolist() == [[0]]
    assert qlinear_matmul(*inputs, op="usdot", requant="float64").tolist() == [[1]]


def test_bias_wraps_as_int32_and_saturation():
    acc = np.array([2**31 - 1, -(2**31), 100], np.int32)
    got = requantize(acc, np.float32(2**-24), np.int16(0), bias=np.array([1, -1, 0], np.int32))
    assert got.tolist() == [-128, 128, 0]  # 2**31 - 1 + 1 wraps to -2**31
    assert requantize(np.array([10**6], np.int32), np.float32(1), np.uint16(5)).tolist() == [65535]


@pytest.mark.parametrize(
    "call, exc, words",
    [
        (lambda: requantize(np.int32(1), 1.0, np.int32(0)), OperandTypeError, ["zero_point has dtype int32"]),
        (lambda: requantize(np.float32(1), 1.0, np.int8(0)), OperandTypeError, ["acc has dtype float32"]),
        (lambda: requantize(np.int64(2**31), 1.0, np.int8(0)), OperandError, ["int32 range"]),
        (lambda: requantize(np.int32(1), 1.0, np.int8(0), method="tflite"), OperandError, ["'fixed_point'"]),
        (lambda: quantize_multiplier(-1.0), OperandError, ["non-negative"]),
    ],
)
def test_errors(call, exc, words):
    with pytest.raises(exc) as info:
        call()
    for w in words:
        assert w in str(info.value)
