"""Two Q/DQ pairs in a row: intdot merges exactly those ONNX Runtime's DoubleQDQPairsRemover merges, onto the scale
and zero point it computes (read back from the graph its optimizer writes), and ``run`` gives its bits."""

import numpy as np
import pytest

from intdot import quant
from intdot.quant.qdq_double import merged

from . import ort
from .test_qdq import _session

F32, U8, I8, U16, I16 = np.float32, np.uint8, np.int8, np.uint16, np.int16
_ELEM = {U8: 2, I8: 3, U16: 4, I16: 5}


@pytest.fixture(autouse=True)
def _oracle():
    ort.need()


def double(
    t1=U8,
    t2=None,
    s=(0.05, 0.07),
    z=None,
    *,
    mid=None,
    extra_reader=False,
    dq1_out=False,
    two_dq2=False,
    per_channel=False,
    no_zp=False,
):
    """x -> Q1 -> DQ1 [-> mid] -> Q2 -> DQ2 -> y; the zero points are the middle of the types unless ``z``."""
    from onnx import helper, numpy_helper

    t2 = t1 if t2 is None else t2
    mid_z = [(np.iinfo(t).min + np.iinfo(t).max + 1) // 2 for t in (t1, t2)]
    z = mid_z if z is None else z
    shape = (4,) if per_channel else ()
    inits = []
    for k, (t, scale, zp) in enumerate(zip((t1, t2), s, z)):
        inits.append(numpy_helper.from_array(np.full(shape, scale, F32), f"s{k}"))
        inits.append(numpy_helper.from_array(np.full(shape, zp, t), f"z{k}"))
    zs = [[] if no_zp else [f"z{k}"] for k in (0, 1)]
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "s0", *zs[0]], ["q1"], axis=1),
        helper.make_node("DequantizeLinear", ["q1", "s0", *zs[0]], ["d1"], axis=1),
    ]
    into = "d1"
    if mid is not None:
        nodes.append(helper.make_node(mid, ["d1"], ["m"]))
        into = "m"
    nodes += [
        helper.make_node("QuantizeLinear", [into, "s1", *zs[1]], ["q2"], axis=1),
        helper.make_node("DequantizeLinear", ["q2", "s1", *zs[1]], ["y"], axis=1),
    ]
    outputs = [helper.make_tensor_value_info("y", 1, None)]
    if two_dq2:
        nodes.append(helper.make_node("DequantizeLinear", ["q2", "s1", *zs[1]], ["y2"], axis=1))
        outputs.append(helper.make_tensor_value_info("y2", 1, None))
    if extra_reader:  # Q2 also read by a node that is not a DQ
        nodes.append(helper.make_node("Identity", ["q2"], ["codes"]))
        outputs.append(helper.make_tensor_value_info("codes", _ELEM[t2], None))
    if dq1_out:
        outputs.append(helper.make_tensor_value_info("d1", 1, None))
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", 1, [2, 4, 8])], outputs, inits)
    return helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", 21)])


CASES = {  # name: (model, merged by ONNX Runtime)
    "uint8, wider second": (double(U8, s=(0.05, 0.07)), True),
    "uint8, narrower second": (double(U8, s=(0.05, 0.03)), True),
    "uint8, zero points apart": (double(U8, s=(0.02, 0.02), z=(50, 200)), True),
    "int8": (double(I8, s=(0.04, 0.05), z=(-20, 30)), True),
    "uint16": (double(U16, s=(1e-4, 3e-4), z=(1000, 40000)), True),
    "int16": (double(I16, s=(2e-4, 1e-4), z=(-300, 1200)), True),
    "the same pair twice": (double(U8, s=(0.05, 0.05)), True),
    "Identity between": (double(U8, s=(0.05, 0.07), mid="Identity"), True),
    "two DQ2": (double(U8, s=(0.05, 0.07), two_dq2=True), True),
    "Relu between": (double(U8, s=(0.05, 0.07), mid="Relu"), False),
    "uint8 then int8": (double(U8, I8, s=(0.05, 0.07)), False),
    "Q2 read by a non-DQ too": (double(U8, s=(0.05, 0.07), extra_reader=True), False),
    "DQ1 a graph output": (double(U8, s=(0.05, 0.07), dq1_out=True), False),
    "per channel": (double(U8, s=(0.05, 0.07), per_channel=True), False),
    "zero points left out": (double(U8, s=(0.05, 0.07), no_zp=True), False),
}


def _graph(model, tmp_path, int8_allowed):
    import onnx

    path = tmp_path / "optimized.onnx"
    _session(model, int8_allowed, path=path)
    return onnx.load(str(path)).graph


def _quantize_nodes(graph) -> int:
    return sum(n.op_type == "QuantizeLinear" for n in graph.node)


def _grids(graph) -> list:
    """Each Q/DQ node's (scale's bytes, zero point's distance from its type's lowest code): the same for an int8
    pair and the uint8 pair ONNX Runtime moves it to."""
    from onnx import numpy_helper

    values = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    out = []
    for n in graph.node:
        if n.op_type in ("QuantizeLinear", "DequantizeLinear"):
            z = values[n.input[2]]
            out.append((n.op_type, values[n.input[1]].tobytes(), int(z) - int(np.iinfo(z.dtype).min)))
    return out


@pytest.mark.parametrize("int8_allowed", [False, True], ids=["x86 default", "qdqisint8allowed"])
@pytest.mark.parametrize("case", list(CASES))
def test_pairs_merged_as_onnx_runtime_merges_them(case, int8_allowed, tmp_path):
    model, merges = CASES[case]
    theirs = _graph(model, tmp_path, int8_allowed)
    assert _quantize_nodes(theirs) == (1 if merges else 2), "ONNX Runtime changed: update the rule"
    ours = quant.prepare(model, qdq_int8_allowed=int8_allowed).model.graph
    assert _quantize_nodes(ours) == _quantize_nodes(theirs)
    if merges and case != "zero points left out":
        assert _grids(ours) == _grids(theirs)  # the merged scale and zero point, bit for bit
    x = np.random.default_rng(3).uniform(-12, 12, (2, 4, 8)).astype(F32)
    want = _session(model, int8_allowed).run(None, {"x": x})
    got = quant.run(model, {"x": x}, op="usdot", platform=ort.platform(), qdq_int8_allowed=int8_allowed)
    for w, g in zip(want, got.values()):
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("dtype", [U8, I8, U16, I16])
def test_merged_parameters_on_random_pairs(dtype, tmp_path):
    """The scale and zero point of many random pairs of pairs against ONNX Runtime's, in one model."""
    from onnx import helper, numpy_helper

    rng = np.random.default_rng(int(np.iinfo(dtype).max))
    info = np.iinfo(dtype)
    nodes, inits, outs, expect = [], [], [], {}
    for k in range(40):
        s = rng.uniform(0.001, 0.1, 2).astype(F32)
        z = rng.integers(info.min + 1, info.max, 2, endpoint=False).astype(dtype)
        for j in (0, 1):
            inits += [numpy_helper.from_array(s[j], f"s{k}_{j}"), numpy_helper.from_array(z[j], f"z{k}_{j}")]
        nodes += [
            helper.make_node("QuantizeLinear", ["x", f"s{k}_0", f"z{k}_0"], [f"q{k}"]),
            helper.make_node("DequantizeLinear", [f"q{k}", f"s{k}_0", f"z{k}_0"], [f"d{k}"]),
            helper.make_node("QuantizeLinear", [f"d{k}", f"s{k}_1", f"z{k}_1"], [f"r{k}"]),
            helper.make_node("DequantizeLinear", [f"r{k}", f"s{k}_1", f"z{k}_1"], [f"y{k}"]),
        ]
        outs.append(helper.make_tensor_value_info(f"y{k}", 1, None))
        expect[k] = merged(s[0], int(z[0]), s[1], int(z[1]), dtype)
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", 1, [16])], outs, inits)
    model = helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", 21)])
    graph = _graph(model, tmp_path, True)
    values = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    dq = {n.output[0]: n for n in graph.node if n.op_type == "DequantizeLinear"}
    for k, new in expect.items():
        assert new is not None
        scale, zero = (values[i] for i in dq[f"y{k}"].input[1:3])
        assert np.float32(new[0]).tobytes() == scale.tobytes() and new[1] == int(zero), k
