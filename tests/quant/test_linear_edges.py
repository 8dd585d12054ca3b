"""QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear where opsets, types and byte orders change the
answer: float16 division at opset 23+, DequantizeLinear's output_dtype, int32 zero points, NaN in
DynamicQuantizeLinear, big-endian arrays.  ONNX Runtime is the oracle."""

import numpy as np
import pytest

from intdot import quant
from intdot.core.errors import OperandError

from . import ort

F16, F32 = np.float16, np.float32


@pytest.fixture(autouse=True)
def _oracle():
    ort.need()


def _x16():
    rng = np.random.default_rng(23)
    x = rng.normal(0, 100, 1 << 14).astype(F16)
    x[:6] = [32.56, 96.2, -74.25, -44.56, -59.56, 65504]  # float16 and float32 quotients round apart on these
    return x


@pytest.mark.parametrize(
    "opset, x_type, s_type, precision",
    [
        (21, F16, F16, None),  # before opset 23: float32 division
        (23, F16, F16, None),  # the scale's type: float16
        (25, F16, F16, 10),
        (25, F16, F16, 1),
        (23, F32, F16, None),  # x rounded to float16 first (past 65504: inf, which saturates)
        (23, F16, F32, 10),
    ],
)
def test_quantize_linear_divides_in_the_precision_onnxruntime_does(opset, x_type, s_type, precision):
    x = _x16().astype(x_type)
    if x_type == F32:
        x[:2] = [70000.0, -1e5]
    scale, zero = s_type(0.3), np.array(3, np.int16)
    attrs = {} if precision is None else {"precision": precision}
    model = ort.node_model("QuantizeLinear", [x, scale, zero], attrs, out_type=5, opset=opset, const=(1, 2))
    want = ort.session(model).run(None, {"in0": x})[0]
    got = quant.run(model, {"in0": x}, op="usdot")["y"]
    assert got.dtype == want.dtype and np.array_equal(got, want)
    f32 = quant.quantize_linear(x, scale, zero)
    assert np.array_equal(f32, want) == (opset < 23 or precision == 1)  # the precision decides the bits here


@pytest.mark.parametrize(
    "x_type, s_type, out",
    [(np.int16, F32, 10), (np.int32, F32, 10), (np.uint8, F16, 1), (np.int16, F16, 10), (np.int16, F16, None)],
)
def test_dequantize_linear_output_dtype(x_type, s_type, out):
    rng = np.random.default_rng(5)
    info = np.iinfo(x_type)
    x = rng.integers(info.min, info.max, 1 << 14, endpoint=True).astype(x_type)
    scale, zero = s_type(rng.uniform(1e-4, 1e-2)), x_type(0 if x_type == np.int32 else 5)
    attrs = {} if out is None else {"output_dtype": out}
    model = ort.node_model(
        "DequantizeLinear", [x, scale, zero], attrs, out_type=out or ort._TYPES[np.dtype(s_type).name], opset=23
    )
    want = ort.session(model).run(None, {"in0": x, "in1": np.asarray(scale), "in2": np.asarray(zero)})[0]
    got = quant.run(model, {"in0": x, "in1": np.asarray(scale), "in2": np.asarray(zero)}, op="usdot")["y"]
    assert got.dtype == want.dtype and np.array_equal(got, want)
    direct = quant.dequantize_linear(x, scale, zero, output_dtype=out and {1: "float32", 10: F16}[out])
    assert direct.dtype == want.dtype and np.array_equal(direct, want)


def test_dequantize_linear_output_dtype_names_what_it_takes():
    with pytest.raises(OperandError, match=r"output_dtype=16: expected float32 or float16 .* bfloat16"):
        quant.dequantize_linear(np.zeros(2, np.uint8), F32(1), output_dtype=16)
    with pytest.raises(OperandError, match=r"precision='int8': expected float32 or float16"):
        quant.quantize_linear(np.zeros(2, F32), F32(1), precision="int8")


def test_int32_zero_point_wraps_as_in_onnxruntime():
    """ONNX gives int32 no zero point; ONNX Runtime subtracts a given one in int32, wrapping at the extremes."""
    x = np.array([2**31 - 1, -(2**31), 5, -7], np.int32)
    inputs = [x, F32(0.5), np.array(7, np.int32)]
    want = ort.run("DequantizeLinear", inputs, out_type=1, const=(1, 2))
    got = quant.dequantize_linear(*inputs)
    assert np.array_equal(got, want) and got[1] > 0  # INT32_MIN - 7 wrapped to 2**31 - 7


def _dynamic_session():
    from onnx import helper

    node = helper.make_node("DynamicQuantizeLinear", ["x"], ["y", "s", "z"])
    vi = helper.make_tensor_value_info
    graph = helper.make_graph([node], "g", [vi("x", 1, None)], [vi("y", 2, None), vi("s", 1, None), vi("z", 2, None)])
    return ort.session(helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", 21)]))


def test_dynamic_quantize_linear_refuses_nan_and_infinity():
    """ONNX Runtime's answer for a NaN depends on where it is (its vector min/max drop or keep it by lane); intdot
    refuses, naming the value and its place."""
    rng = np.random.default_rng(0)
    base = rng.uniform(-2, 1, 64).astype(F32)
    sess = _dynamic_session()
    scales = set()
    for pos in range(2, 64):
        x = base.copy()
        x[pos] = np.nan
        scales.add(float(sess.run(None, {"x": x})[1]))
    assert len(scales) > 1 and any(np.isnan(s) for s in scales)  # not one answer
    x = np.array([1.0, np.nan, -2.0], F32)
    with pytest.raises(OperandError, match=r"x holds nan at index 1: DynamicQuantizeLinear's range"):
        quant.dynamic_quantize_linear(x)
    with pytest.raises(OperandError, match=r"x holds -inf at index \(1, 0\)"):
        quant.dynamic_quantize_linear(np.array([[1.0], [-np.inf]], F32))


def test_big_endian_arrays_hold_the_same_values():
    rng = np.random.default_rng(7)
    w = rng.integers(-128, 128, (3, 2, 2, 2)).astype(np.int8)
    x = rng.integers(0, 256, (1, 2, 5, 5)).astype(np.uint8)
    bias = np.array([5, -7, 100000], np.int32)
    args = [x, F32(0.02), np.uint8(3), w, np.full(3, 0.01, F32), np.zeros(3, np.int8), F32(0.5), np.uint8(9)]
    native = quant.qlinear_conv(*args, bias, op="usdot")
    swapped = [np.asarray(v).astype(np.asarray(v).dtype.newbyteorder(">")) for v in (*args, bias)]
    assert np.array_equal(quant.qlinear_conv(*swapped, op="usdot"), native)
    y = rng.normal(0, 3, 50).astype(">f4")
    assert np.array_equal(
        quant.quantize_linear(y, F32(0.1), np.int16(2)), quant.quantize_linear(y.astype(F32), 0.1, np.int16(2))
    )
    q = np.array([-(2**31), 7, 2**31 - 1], ">i4")
    assert np.array_equal(
        quant.dequantize_linear(q, np.asarray(0.5, ">f4")), quant.dequantize_linear(q.astype(np.int32), F32(0.5))
    )
    model = ort.node_model("DequantizeLinear", [q.astype(np.int32), F32(0.5)], out_type=1, const=(1,))
    fed = quant.run(model, {"in0": q}, op="usdot")["y"]
    assert np.array_equal(fed, quant.dequantize_linear(q.astype(np.int32), F32(0.5)))
