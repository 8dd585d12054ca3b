"""QDQ Sigmoid, LeakyRelu and Softmax groups: intdot turns exactly those ONNX Runtime turns into
``com.microsoft:QLinearSigmoid`` / ``QLinearLeakyRelu`` / ``QLinearSoftmax`` (the graph it writes is the oracle),
with the attributes it writes, and ``intdot.quant.run`` gives ONNX Runtime's bits for the whole model.  The group
builder and checks are the pooling tests' (the same selector)."""

from functools import partial

import numpy as np
import pytest

from . import ort, qdq_harness
from .test_qdq import _session
from .test_qdq_pool import I8, U8, _same_bits, unary_qdq

F32 = np.float32
FUSED = {"QLinearSigmoid", "QLinearLeakyRelu", "QLinearSoftmax"}

_kinds = partial(qdq_harness.ort_kinds, fused=FUSED)
_ours = partial(qdq_harness.intdot_kinds, fused=FUSED)


@pytest.fixture(autouse=True)
def _oracle():
    ort.need()


SIG, LR, SM = ["QLinearSigmoid"], ["QLinearLeakyRelu"], ["QLinearSoftmax"]
_SM = {"scales": (0.1, 1 / 256), "zps": (None, 0)}


def _at_opset(model, version):
    model.opset_import[0].version = version
    return model


RULES = {
    "Sigmoid uint8": (unary_qdq("Sigmoid", scales=(0.05, 1 / 256), zps=(None, 0)), SIG),
    "LeakyRelu uint8": (unary_qdq("LeakyRelu", attrs={"alpha": 0.1}), LR),
    "LeakyRelu, default alpha": (unary_qdq("LeakyRelu", zps=(30, 200)), LR),
    "Sigmoid int8 (moved to uint8)": (
        unary_qdq("Sigmoid", dtypes=(I8, I8), scales=(0.05, 1 / 256), zps=(3, -128)),
        SIG,
    ),
    "LeakyRelu int8 (moved to uint8)": (unary_qdq("LeakyRelu", dtypes=(I8, I8), zps=(-20, 9)), LR),
    "Sigmoid, scale a graph input": (unary_qdq("Sigmoid", scale_input=True), SIG),
    "Sigmoid, x scale of shape (1,)": (unary_qdq("Sigmoid", one_element="s0"), SIG),
    "LeakyRelu, y zero point of shape (1,)": (unary_qdq("LeakyRelu", one_element="z1"), LR),
    "Sigmoid, output also a graph output": (unary_qdq("Sigmoid", extra_reader=True), []),
    "Softmax uint8, axis -1": (unary_qdq("Softmax", (2, 10), attrs={"axis": -1}, **_SM), SM),
    "Softmax, default axis": (unary_qdq("Softmax", **_SM), SM),
    "Softmax, axis 1 (moved to the end and back)": (unary_qdq("Softmax", attrs={"axis": 1}, **_SM), SM),
    "Softmax int8 (moved to uint8)": (unary_qdq("Softmax", dtypes=(I8, I8), scales=(0.1, 1 / 256), zps=(3, -128)), SM),
    "Softmax, x scale a graph input (not fused)": (unary_qdq("Softmax", scale_input=True), []),
    "Softmax, x scale of shape (1,)": (unary_qdq("Softmax", one_element="s0", **_SM), SM),
    "Softmax, y zero point of shape (1,)": (unary_qdq("Softmax", one_element="z1", **_SM), SM),
    "Softmax, output also a graph output": (unary_qdq("Softmax", extra_reader=True), []),
    "Softmax at opset 12, default axis 1 (rows from it on)": (_at_opset(unary_qdq("Softmax", **_SM), 12), SM),
    "Softmax at opset 12, axis 2": (_at_opset(unary_qdq("Softmax", attrs={"axis": 2}, **_SM), 12), SM),
}


def test_softmax_attributes_are_onnx_runtime_s(tmp_path):
    """The QLinearSoftmax node carries what ONNX Runtime's does: the axis, made explicit, and the Softmax's version."""
    import onnx
    from onnx import helper

    from intdot import quant

    for attrs, version in (({}, 21), ({"axis": 0}, 21), ({}, 12), ({"axis": 2}, 11)):
        model = _at_opset(unary_qdq("Softmax", attrs=attrs, **_SM), version)
        path = tmp_path / "optimized.onnx"
        _session(model, False, path=path)

        def fields(graph):
            (node,) = [n for n in graph.node if n.op_type == "QLinearSoftmax"]
            return {a.name: helper.get_attribute_value(a) for a in node.attribute}

        assert fields(quant.prepare(model).model.graph) == fields(onnx.load(str(path)).graph), (attrs, version)


@pytest.mark.parametrize("name", list(RULES))
def test_groups_fused_as_onnx_runtime_fuses_them(name, tmp_path):
    model, want = RULES[name]
    assert _kinds(model, tmp_path) == want, "ONNX Runtime changed: update the rule"
    assert _ours(model) == want
    _same_bits(model)


@pytest.mark.parametrize("op", ["Sigmoid", "LeakyRelu", "Softmax"])
def test_qdqisint8allowed(op, tmp_path):
    """With int8 allowed nothing is moved: int8 groups fuse as int8, mixed ones not."""
    kind = {"Sigmoid": SIG, "LeakyRelu": LR, "Softmax": SM}[op]
    for dtypes, want in (((I8, I8), kind), ((U8, I8), []), ((I8, U8), [])):
        zps = (3 if dtypes[0] == I8 else 130, -7 if dtypes[1] == I8 else 120)
        model = unary_qdq(op, dtypes=dtypes, zps=zps)
        assert _kinds(model, tmp_path, int8_allowed=True) == want
        assert _ours(model, int8_allowed=True) == want
        _same_bits(model, int8_allowed=True)


@pytest.mark.parametrize("dtype", [U8, I8])
@pytest.mark.parametrize("op", ["Sigmoid", "LeakyRelu", "Softmax"])
def test_fused_bits_on_many_values(op, dtype):
    """Fused groups on 64 x 20 x 20 values under random scales and zero points."""
    rng = np.random.default_rng(3 + (dtype == I8) + 2 * (op == "Sigmoid"))
    info = np.iinfo(dtype)
    for k in range(3):
        scales = (float(np.exp(rng.uniform(-5, -1))), float(np.exp(rng.uniform(-9, -3))))
        zps = tuple(int(rng.integers(info.min, info.max + 1)) for _ in range(2))
        attrs = {"alpha": float(rng.uniform(0, 0.4))} if op == "LeakyRelu" else None
        model = unary_qdq(op, (2, 64, 20, 20), dtypes=(dtype, dtype), scales=scales, zps=zps, attrs=attrs)
        _same_bits(model, seed=k)


@pytest.mark.parametrize("opset", [12, 13])
@pytest.mark.parametrize("dtype", [U8, I8])
def test_qoperator_softmax_models_run(dtype, opset):
    """A QOperator model: x -> QLinearSigmoid -> QLinearSoftmax (axis 1, read as rows from it on before opset 13)."""
    from onnx import helper

    from intdot import quant

    mid = 0 if dtype == I8 else 128
    inits = {"sx": F32(0.04), "zx": np.array(mid + 3, dtype), "sm": F32(1 / 256), "zm": np.array(mid - 128, dtype)}
    inits |= {"sy": F32(1 / 256), "zy": np.array(mid - 128, dtype)}
    nodes = [
        helper.make_node("QLinearSigmoid", ["x", "sx", "zx", "sm", "zm"], ["t"], domain="com.microsoft"),
        helper.make_node(
            "QLinearSoftmax", ["t", "sm", "zm", "sy", "zy"], ["y"], domain="com.microsoft", axis=1, opset=opset
        ),
    ]
    shape = [2, 5, 3, 4]
    graph_in = [helper.make_tensor_value_info("x", helper.np_dtype_to_tensor_dtype(np.dtype(dtype)), shape)]
    outputs = [helper.make_tensor_value_info("y", helper.np_dtype_to_tensor_dtype(np.dtype(dtype)), None)]
    model = qdq_harness.make_model(nodes, graph_in, outputs, inits, microsoft=True)
    info = np.iinfo(dtype)
    x = np.random.default_rng(4).integers(info.min, info.max + 1, shape).astype(dtype)
    want = ort.session(model).run(None, {"x": x})[0]
    np.testing.assert_array_equal(quant.run(model, x, op="usdot", platform=ort.platform())["y"], want)
