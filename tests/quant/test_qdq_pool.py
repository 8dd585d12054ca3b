"""QDQ GlobalAveragePool and AveragePool groups: intdot turns exactly those ONNX Runtime turns into
``com.microsoft:QLinearGlobalAveragePool`` / ``QLinearAveragePool`` (the graph it writes with
``optimized_model_filepath`` is the oracle), and ``intdot.quant.run`` gives ONNX Runtime's bits for the whole model,
fused or not; QOperator models holding those nodes run too."""

from functools import partial

import numpy as np
import pytest

from intdot import quant

from . import ort, qdq_harness
from .test_qdq import _session

F32, U8, I8 = np.float32, np.uint8, np.int8
FUSED = {"QLinearGlobalAveragePool", "QLinearAveragePool"}


_feed = qdq_harness.feed
_ort_kinds = partial(qdq_harness.ort_kinds, fused=FUSED)
_intdot_kinds = partial(qdq_harness.intdot_kinds, fused=FUSED)
# only y: a float pooling output that is also a graph output is summed in another order by ONNX Runtime's float
# kernel (docs/differences.md, row 15)
_same_bits = partial(qdq_harness.same_bits, only="y")


@pytest.fixture(autouse=True)
def _oracle():
    ort.need()


def unary_qdq(
    op,
    shape=(1, 8, 6, 6),
    *,
    dtypes=(U8, U8),
    scales=(0.05, 0.03),
    zps=(None, None),
    attrs=None,
    x_axis=None,
    after=None,
    extra_reader=False,
    scale_input=False,
    one_element=None,
):
    """x -> Q -> DQ -> ``op`` [-> after] -> Q -> DQ -> y.

    ``zps``: zero points (None: the middle of the type); ``x_axis``: x's pair per channel along that axis;
    ``extra_reader``: the op's output is also a graph output; ``scale_input``: x's scale is a graph input;
    ``one_element``: the name of a parameter (s0, z0, s1, z1) given as a 1-element 1-D tensor."""
    from onnx import helper

    channels = None if x_axis is None else shape[x_axis]
    inits, scale_in = qdq_harness.pairs(
        dtypes, scales, zps, channels=channels, one_element=one_element, scale_input=scale_input
    )
    graph_in = [helper.make_tensor_value_info("x", 1, list(shape)), *scale_in]
    nodes = [
        *qdq_harness.q_dq("x", 0, "d0", axis=x_axis),
        helper.make_node(op, ["d0"], ["t"], name="pool", **(attrs or {})),
    ]
    tail, outputs = qdq_harness.output_tail(1, after=after, extra_reader=extra_reader)
    return qdq_harness.make_model(nodes + tail, graph_in, outputs, inits)


AVG = {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}
AVG3 = {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}
GAP, AP = ["QLinearGlobalAveragePool"], ["QLinearAveragePool"]

RULES = {
    "GlobalAveragePool uint8": (unary_qdq("GlobalAveragePool"), GAP),
    "AveragePool uint8": (unary_qdq("AveragePool", attrs=AVG), AP),
    "AveragePool, count_include_pad, ceil_mode": (
        unary_qdq("AveragePool", (1, 4, 7, 7), attrs={**AVG, "count_include_pad": 1, "ceil_mode": 1}),
        AP,
    ),
    "AveragePool SAME_UPPER 1-D": (
        unary_qdq("AveragePool", (2, 4, 9), attrs={"kernel_shape": [4], "auto_pad": "SAME_UPPER"}),
        AP,
    ),
    "AveragePool 3-D": (unary_qdq("AveragePool", (1, 3, 4, 5, 6), attrs={"kernel_shape": [2, 3, 2]}), AP),
    "AveragePool over the whole image (global kernel)": (
        unary_qdq("AveragePool", (1, 8, 5, 5), attrs={"kernel_shape": [5, 5]}),
        AP,
    ),
    "GlobalAveragePool int8 (moved to uint8)": (unary_qdq("GlobalAveragePool", dtypes=(I8, I8), zps=(3, -7)), GAP),
    "AveragePool int8 (moved to uint8)": (unary_qdq("AveragePool", dtypes=(I8, I8), zps=(-20, 9), attrs=AVG), AP),
    "int8 input moved, uint8 output": (unary_qdq("GlobalAveragePool", dtypes=(I8, U8)), GAP),
    "zero points not the middle": (unary_qdq("AveragePool", zps=(3, 250), attrs=AVG), AP),
    "scale a graph input": (unary_qdq("GlobalAveragePool", scale_input=True), GAP),
    "redundant Relu (zero point 0)": (unary_qdq("GlobalAveragePool", after="Relu", zps=(None, 0)), GAP),
    "Relu kept (zero point 128)": (unary_qdq("GlobalAveragePool", after="Relu"), []),
    "output also a graph output": (unary_qdq("GlobalAveragePool", extra_reader=True), []),
    "x scale of shape (1,)": (unary_qdq("GlobalAveragePool", one_element="s0"), GAP),
    "y zero point of shape (1,)": (unary_qdq("GlobalAveragePool", one_element="z1"), GAP),
    "u8 in, int8 out (moved)": (unary_qdq("AveragePool", dtypes=(U8, I8), attrs=AVG), AP),
    "MaxPool (its pair dropped, not fused)": (unary_qdq("MaxPool", attrs={"kernel_shape": [2, 2]}), []),
}


@pytest.mark.parametrize("name", list(RULES))
def test_groups_fused_as_onnx_runtime_fuses_them(name, tmp_path):
    model, want = RULES[name]
    assert _ort_kinds(model, tmp_path) == want, "ONNX Runtime changed: update the rule"
    assert _intdot_kinds(model) == want
    _same_bits(model)


@pytest.mark.parametrize("op", ["GlobalAveragePool", "AveragePool"])
def test_qdqisint8allowed(op, tmp_path):
    """With int8 allowed nothing is moved: int8 groups are fused as int8, groups mixing int8 and uint8 not."""
    attrs = AVG if op == "AveragePool" else None
    kind = GAP if op == "GlobalAveragePool" else AP
    for dtypes, want in (((I8, I8), kind), ((U8, I8), []), ((I8, U8), [])):
        model = unary_qdq(
            op, dtypes=dtypes, zps=(3 if dtypes[0] == I8 else 130, -7 if dtypes[1] == I8 else 120), attrs=attrs
        )
        assert _ort_kinds(model, tmp_path, int8_allowed=True) == want
        assert _intdot_kinds(model, int8_allowed=True) == want
        _same_bits(model, int8_allowed=True)


FAILING = {
    "GlobalAveragePool, x per channel": unary_qdq("GlobalAveragePool", x_axis=1),
    "AveragePool, x per channel": unary_qdq("AveragePool", x_axis=1, attrs=AVG),
    "AveragePool, x scale of shape (1,)": unary_qdq("AveragePool", one_element="s0", attrs=AVG),
    "AveragePool, y zero point of shape (1,)": unary_qdq("AveragePool", one_element="z1", attrs=AVG),
}


@pytest.mark.parametrize("name", list(FAILING))
def test_groups_onnx_runtime_fuses_and_then_fails_on_run_in_float(name):
    """ONNX Runtime fuses these and its kernel (or the operator's schema) then refuses the parameters' shapes:
    intdot leaves them in float, and computes what ONNX Runtime computes for that float graph."""
    model = FAILING[name]
    feed = _feed(model)
    with pytest.raises(Exception, match="scalar"):
        _session(model).run(None, feed)
    assert _intdot_kinds(model) == []
    want = _session(model, optimize=False).run(["y"], feed)[0]
    np.testing.assert_array_equal(quant.run(model, feed, op="usdot", platform=ort.platform())["y"], want)


@pytest.mark.parametrize("dtype", [U8, I8])
@pytest.mark.parametrize("op", ["GlobalAveragePool", "AveragePool"])
def test_fused_bits_on_many_values(op, dtype):
    """Fused groups on 64 x 20 x 20 values per run under random scales and zero points."""
    rng = np.random.default_rng(7 + (dtype == I8) + 2 * (op == "AveragePool"))
    info = np.iinfo(dtype)
    attrs = AVG3 if op == "AveragePool" else None
    for k in range(3):
        scales = (float(np.exp(rng.uniform(-4, -1))), float(np.exp(rng.uniform(-5, -2))))
        zps = tuple(int(rng.integers(info.min // 2, info.max // 2)) for _ in range(2))
        model = unary_qdq(op, (2, 64, 20, 20), dtypes=(dtype, dtype), scales=scales, zps=zps, attrs=attrs)
        _same_bits(model, seed=k)


def test_fusing_changes_the_bits():
    """Where ONNX Runtime fuses an AveragePool, its bits differ from the float graph the model states (scales found
    by search; the fused kernel adds the zero point in float32 before it rounds), and intdot gives the fused ones.
    (A GlobalAveragePool's integer sum rarely rounds apart from the float path: none in 300 random sets.)"""
    model = unary_qdq("AveragePool", (1, 16, 14, 14), scales=(0.0207259152084589, 0.012384372763335705), attrs=AVG3)
    feed = _feed(model)
    fused = _session(model).run(None, feed)[0]
    floated = _session(model, optimize=False).run(None, feed)[0]
    assert (fused != floated).any(), "no rounding difference on these values: pick others"
    np.testing.assert_array_equal(quant.run(model, feed, op="usdot", platform=ort.platform())["y"], fused)


def _qoperator(dtype, channels_last):
    """A QOperator model: x -> QLinearAveragePool (3x3, stride 2) -> QLinearGlobalAveragePool."""
    from onnx import helper

    mid = 0 if dtype == I8 else 128
    inits = {
        "sx": F32(0.04),
        "zx": np.array(mid + 3, dtype),
        "sm": F32(0.03),
        "zm": np.array(mid - 5, dtype),
        "sy": F32(0.011),
        "zy": np.array(mid + 1, dtype),
    }
    last = {"channels_last": channels_last}
    nodes = [
        helper.make_node(
            "QLinearAveragePool",
            ["x", "sx", "zx", "sm", "zm"],
            ["t"],
            domain="com.microsoft",
            kernel_shape=[3, 3],
            strides=[2, 2],
            pads=[1, 1, 1, 1],
            **last,
        ),
        helper.make_node(
            "QLinearGlobalAveragePool", ["t", "sm", "zm", "sy", "zy"], ["y"], domain="com.microsoft", **last
        ),
    ]
    elem = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    shape = [2, 9, 9, 16] if channels_last else [2, 16, 9, 9]
    graph_in = [helper.make_tensor_value_info("x", elem, shape)]
    outputs = [helper.make_tensor_value_info("y", elem, None)]
    return qdq_harness.make_model(nodes, graph_in, outputs, inits, microsoft=True), shape


@pytest.mark.parametrize("channels_last", [0, 1])
@pytest.mark.parametrize("dtype", [U8, I8])
def test_qoperator_models_run(dtype, channels_last):
    model, shape = _qoperator(dtype, channels_last)
    info = np.iinfo(dtype)
    x = np.random.default_rng(2).integers(info.min, info.max + 1, shape).astype(dtype)
    want = ort.session(model).run(None, {"x": x})[0]
    np.testing.assert_array_equal(quant.run(model, x, op="usdot", platform=ort.platform())["y"], want)


CODES_IN_OUT = {
    "GlobalAveragePool": ({}, "QLinearGlobalAveragePool"),
    "AveragePool": ({"kernel_shape": [2, 2]}, "QLinearAveragePool"),
    "Sigmoid": ({}, "QLinearSigmoid"),
    "LeakyRelu": ({"alpha": 0.1}, "QLinearLeakyRelu"),
    "Softmax": ({"axis": -1}, "QLinearSoftmax"),
}


@pytest.mark.parametrize("int8_allowed", [False, True], ids=["x86 default", "qdqisint8allowed"])
@pytest.mark.parametrize("op", sorted(CODES_IN_OUT))
def test_int8_codes_in_and_out_fuse_whatever_int8_is_allowed(op, int8_allowed, tmp_path):
    """int8 graph input -> DQ -> op -> Q -> int8 graph output: no Q -> DQ pair for ONNX Runtime to move to uint8,
    and its one-input selector does not read ``qdqisint8allowed``, so the group fuses as int8 on x86 too."""
    from onnx import helper

    attrs, kind = CODES_IN_OUT[op]
    y_scale = 1 / 256 if op in ("Sigmoid", "Softmax") else 0.06
    inits = {"s0": np.array(0.05, F32), "z0": np.array(-10, I8), "s1": np.array(y_scale, F32), "z1": np.array(3, I8)}
    nodes = [
        helper.make_node("DequantizeLinear", ["x", "s0", "z0"], ["d"]),
        helper.make_node(op, ["d"], ["t"], **attrs),
        helper.make_node("QuantizeLinear", ["t", "s1", "z1"], ["y"]),
    ]
    graph_in = [helper.make_tensor_value_info("x", 3, [2, 3, 6, 6])]
    model = qdq_harness.make_model(nodes, graph_in, [helper.make_tensor_value_info("y", 3, None)], inits)
    fused = partial(qdq_harness.ort_kinds, fused={kind})
    assert fused(model, tmp_path, int8_allowed) == [kind], "ONNX Runtime changed: update the rule"
    assert qdq_harness.intdot_kinds(model, int8_allowed, fused={kind}) == [kind]
    x = np.random.default_rng(5).integers(-128, 128, (2, 3, 6, 6)).astype(I8)
    x[0, 0] = np.resize(np.array([-128, 127], I8), (6, 6))  # the extremes side by side
    want = _session(model, int8_allowed).run(None, {"x": x})[0]
    got = quant.run(model, x, op="sdot4", platform=ort.platform(), qdq_int8_allowed=int8_allowed)["y"]
    np.testing.assert_array_equal(got, want)
