"""QDQ Add and Mul groups: intdot turns exactly those ONNX Runtime turns into ``com.microsoft:QLinearAdd`` /
``QLinearMul`` (the graph it writes with ``optimized_model_filepath`` is the oracle), and ``intdot.quant.run``
gives ONNX Runtime's bits for the whole model, fused or not; QOperator models holding those nodes run too."""

from functools import partial

import numpy as np
import pytest

from intdot import quant

from . import ort, qdq_harness
from .test_qdq import _session

F32, U8, I8 = np.float32, np.uint8, np.int8
FUSED = {"QLinearAdd", "QLinearMul"}


_feed = qdq_harness.feed
_ort_kinds = partial(qdq_harness.ort_kinds, fused=FUSED)
_intdot_kinds = partial(qdq_harness.intdot_kinds, fused=FUSED)
_same_bits = partial(qdq_harness.same_bits)


@pytest.fixture(autouse=True)
def _oracle():
    ort.need()


def _elem(dtype):
    from onnx import helper

    return helper.np_dtype_to_tensor_dtype(np.dtype(dtype))


def binary_qdq(
    op,
    a_shape=(1, 8, 5, 5),
    b_shape=(1, 8, 5, 5),
    *,
    dtypes=(U8, U8, U8),
    scales=(0.05, 0.03, 0.07),
    zps=(None, None, None),
    b_const=None,
    a_axis=None,
    after=None,
    extra_reader=False,
    no_q=False,
    same_dq=False,
    scale_input=False,
    cond_shape=None,
):
    """x0 -> Q -> DQ, x1 -> Q -> DQ (or DQ of constant codes ``b_const``) -> ``op`` [-> after] -> Q -> DQ -> y;
    a Where reads a bool graph input ``c`` (of ``cond_shape``, else x0's) before them.

    ``zps``: zero points (None: the middle of the type); ``a_axis``: x0's pair per channel along that axis;
    ``extra_reader``: the op's output is also a graph output; ``no_q``: no output QuantizeLinear;
    ``same_dq``: both inputs read x0's DequantizeLinear; ``scale_input``: x0's scale is a graph input."""
    from onnx import helper

    channels = None if a_axis is None else a_shape[a_axis]
    inits, scale_in = qdq_harness.pairs(dtypes, scales, zps, channels=channels, scale_input=scale_input)
    graph_in = [helper.make_tensor_value_info("x0", 1, list(a_shape)), *scale_in]
    nodes = qdq_harness.q_dq("x0", 0, "d0", axis=a_axis)
    if b_const is not None:
        inits["c1"] = b_const
        nodes.append(helper.make_node("DequantizeLinear", ["c1", "s1", "z1"], ["d1"]))
    elif not same_dq:
        graph_in.append(helper.make_tensor_value_info("x1", 1, list(b_shape)))
        nodes += qdq_harness.q_dq("x1", 1, "d1")
    ins = ["d0", "d0" if same_dq else "d1"]
    if op == "Where":
        graph_in.append(helper.make_tensor_value_info("c", 9, list(cond_shape or a_shape)))  # 9: bool
        ins.insert(0, "c")
    nodes.append(helper.make_node(op, ins, ["t"], name="binary"))
    tail, outputs = qdq_harness.output_tail(2, after=after, extra_reader=extra_reader, no_q=no_q)
    return qdq_harness.make_model(nodes + tail, graph_in, outputs, inits)


RULES = {
    "Add uint8": (binary_qdq("Add"), ["QLinearAdd"]),
    "Mul uint8": (binary_qdq("Mul"), ["QLinearMul"]),
    "Add int8 (moved to uint8)": (binary_qdq("Add", dtypes=(I8, I8, I8)), ["QLinearAdd"]),
    "Mul int8 (moved to uint8)": (binary_qdq("Mul", dtypes=(I8, I8, I8), zps=(3, -7, 5)), ["QLinearMul"]),
    "Add, zero points not the middle": (binary_qdq("Add", zps=(3, 250, 17)), ["QLinearAdd"]),
    "Add row broadcast": (binary_qdq("Add", (2, 8, 5, 5), (5,)), ["QLinearAdd"]),
    "Add column broadcast": (binary_qdq("Add", (1, 8, 5, 5), (1, 8, 1, 1)), ["QLinearAdd"]),
    "Add, A broadcast": (binary_qdq("Add", (8, 1, 1), (1, 8, 5, 5)), ["QLinearAdd"]),
    "Mul by a scalar": (binary_qdq("Mul", (1, 8, 5, 5), ()), ["QLinearMul"]),
    "Add of constant codes": (binary_qdq("Add", b_const=np.arange(40, 80, dtype=U8).reshape(8, 1, 5)), ["QLinearAdd"]),
    "Mul, scale a graph input": (binary_qdq("Mul", scale_input=True), ["QLinearMul"]),
    "Add, redundant Relu (zero point 0)": (
        binary_qdq("Add", after="Relu", zps=(None, None, 0)),
        ["QLinearAdd"],
    ),
    "Add, Relu kept (zero point 128)": (binary_qdq("Add", after="Relu"), []),
    "Add, one DequantizeLinear read twice": (binary_qdq("Add", same_dq=True), ["QLinearAdd"]),
    "int8 b moved to uint8": (binary_qdq("Add", dtypes=(U8, I8, U8)), ["QLinearAdd"]),
    "int8 output moved to uint8": (binary_qdq("Mul", dtypes=(U8, U8, I8)), ["QLinearMul"]),
    "no QuantizeLinear": (binary_qdq("Add", no_q=True), []),
    "output also a graph output": (binary_qdq("Add", extra_reader=True), []),
    "Sub (not fused)": (binary_qdq("Sub"), []),
}


@pytest.mark.parametrize("name", list(RULES))
def test_groups_fused_as_onnx_runtime_fuses_them(name, tmp_path):
    model, want = RULES[name]
    assert _ort_kinds(model, tmp_path) == want, "ONNX Runtime changed: update the rule"
    assert _intdot_kinds(model) == want
    _same_bits(model)


def test_int8_kept_with_qdqisint8allowed(tmp_path):
    """With int8 allowed, ONNX Runtime moves nothing and fuses int8 QLinearAdd/QLinearMul; the bits differ from
    the moved uint8 form, and intdot follows the setting."""
    for op, kind in (("Add", "QLinearAdd"), ("Mul", "QLinearMul")):
        model = binary_qdq(op, dtypes=(I8, I8, I8), zps=(3, -7, 5))
        assert _ort_kinds(model, tmp_path, int8_allowed=True) == [kind]
        assert _intdot_kinds(model, int8_allowed=True) == [kind]
        _same_bits(model, int8_allowed=True)


def test_mixed_types_with_int8_allowed(tmp_path):
    """With int8 allowed nothing moves, so uint8 and int8 operands stay apart: no fusion."""
    for dtypes in ((U8, I8, U8), (U8, U8, I8)):
        model = binary_qdq("Add", dtypes=dtypes)
        assert _ort_kinds(model, tmp_path, int8_allowed=True) == []
        assert _intdot_kinds(model, int8_allowed=True) == []
        _same_bits(model, int8_allowed=True)


@pytest.mark.parametrize("name", ["s0", "z0", "s1", "z1", "s2", "z2"])
def test_one_element_or_per_channel_parameters_run_in_float(name, tmp_path):
    """A scale or zero point of shape (1,) anywhere in the group, or per channel, leaves it in float in ONNX
    Runtime (measured), and here."""
    from onnx import numpy_helper

    for model in (binary_qdq("Add"), binary_qdq("Mul", a_axis=1)):
        for t in model.graph.initializer:
            if t.name == name and not t.dims:
                t.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(t).reshape(1), name))
        assert _ort_kinds(model, tmp_path) == []
        assert _intdot_kinds(model) == []
        _same_bits(model)


@pytest.mark.parametrize("dtype", [U8, I8])
@pytest.mark.parametrize("op", ["Add", "Mul"])
def test_fused_bits_on_many_values(op, dtype):
    """The fused groups on 102,400 values per run, random scales (ratios up to about 30) and zero points, with
    column broadcasting; ONNX Runtime's answers are its fused kernels' (checked above) and intdot's agree."""
    rng = np.random.default_rng(3 + (dtype == I8) + 2 * (op == "Mul"))
    info = np.iinfo(dtype)
    for k in range(2):
        scales = tuple(float(np.exp(rng.uniform(-4, -1))) for _ in range(3))
        zps = tuple(int(rng.integers(info.min // 2, info.max // 2)) for _ in range(3))
        shape_b = (1, 64, 40, 40) if k == 0 else (1, 64, 1, 1)
        model = binary_qdq(op, (1, 64, 40, 40), shape_b, dtypes=(dtype,) * 3, scales=scales, zps=zps)
        _same_bits(model, seed=k)


def test_fusing_changes_the_bits():
    """Where ONNX Runtime fuses, its bits differ from the float graph the model states: the fused kernel's, which
    intdot now computes, not the float path's."""
    scales = (0.053578123450279236, 0.1017322912812233, 0.04810390993952751)  # found by search: 5 values differ
    model = binary_qdq("Add", (1, 64, 40, 40), (1, 64, 40, 40), scales=scales, zps=(120, 131, 127))
    feed = _feed(model)
    fused = _session(model).run(None, feed)[0]
    floated = _session(model, optimize=False).run(None, feed)[0]
    assert (fused != floated).any(), "no rounding difference on these values: pick others"
    np.testing.assert_array_equal(quant.run(model, feed, op="usdot", platform=ort.platform())["y"], fused)


def _qoperator(op_type, dtype):
    """A QOperator model: x (uint8/int8) QLinearAdd/QLinearMul'd with a constant, then with itself."""
    from onnx import helper

    c = np.arange(-20, 20).astype(np.int16).reshape(1, 40) + (128 if dtype == U8 else 0)
    inits = {
        "sa": F32(0.04),
        "za": np.array(3 if dtype == I8 else 130, dtype),
        "c": c.astype(dtype),
        "sc": F32(0.02),
        "zc": np.array(-2 if dtype == I8 else 126, dtype),
        "sy": F32(0.05),
        "zy": np.array(1 if dtype == I8 else 129, dtype),
    }
    nodes = [
        helper.make_node(op_type, ["x", "sa", "za", "c", "sc", "zc", "sy", "zy"], ["t"], domain="com.microsoft"),
        helper.make_node(op_type, ["t", "sy", "zy", "t", "sy", "zy", "sa", "za"], ["y"], domain="com.microsoft"),
    ]
    graph_in = [helper.make_tensor_value_info("x", _elem(dtype), [16, 40])]
    outputs = [helper.make_tensor_value_info("y", _elem(dtype), None)]
    return qdq_harness.make_model(nodes, graph_in, outputs, inits, microsoft=True)


@pytest.mark.parametrize("dtype", [U8, I8])
@pytest.mark.parametrize("op_type", ["QLinearAdd", "QLinearMul"])
def test_qoperator_models_run(op_type, dtype):
    model = _qoperator(op_type, dtype)
    info = np.iinfo(dtype)
    x = np.random.default_rng(1).integers(info.min, info.max + 1, (16, 40)).astype(dtype)
    want = ort.session(model).run(None, {"x": x})[0]
    np.testing.assert_array_equal(quant.run(model, x, op="usdot", platform=ort.platform())["y"], want)
