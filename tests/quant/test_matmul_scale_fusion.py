"""ONNX Runtime's MatMulScaleFusion against intdot's ``fuse_matmul_scale``: a float MatMul's scalar Mul or Div (on
an input or on its output) becomes the ``alpha`` of one FusedMatMul, which MLAS applies to each block's sum: a Div
by ``s`` then multiplies by ``float32(1 / s)``, and a scaled input is not rounded before the product.  For each form
and each condition that stops it, ONNX Runtime's optimized graph says whether it fused (the FusedMatMul's inputs and
alpha), ``prepare``'s graph must say the same, and ``run`` gives its bits (the host's ONNX Runtime, or with
INTDOT_ORT=arm ONNX Runtime for AArch64)."""

import numpy as np

from intdot import quant

from . import ort
from .fusions import check_fusion, fusion_cases
from .graph_builder import Nodes
from .test_layer_norm import _same
from .test_matmul_add_fusion import _model

F32 = np.float32


def _scaled(where="after", op="Div", value=2.8284271, shape=(2, 4, 5, 8), b="input", extra=False, output=False,
            opset=17, transposed=False, rank=0, m=None):  # fmt: skip
    """``MatMul(a, b)`` with a scale: ``where`` "after" (``op(MatMul, c)``, "before" (``op(a, c)`` as A), "b" (on
    B), "both" (before and after), "first" (``Mul(c, MatMul)``); ``b``: "input" (a second graph input of the batch
    shape, read transposed where ``transposed``) or "init" (a constant 2-D B); ``extra``: the scaled value also read
    by a Neg (a second output); ``output``: also a graph output; ``rank``: the constant's rank (its one element)."""
    g = Nodes(int(value * 100) + len(shape))
    k = shape[-1]
    c = g.const("c", np.full((1,) * rank, value, F32))
    ins = [("a", shape)]
    feeds = {"a": g.rng.standard_normal(shape).astype(F32)}
    if b == "init":
        bb = g.weight("w", (k, m or 6))
    else:
        b_shape = (*shape[:-2], m or 6, k) if transposed else (*shape[:-2], k, m or 6)
        ins.append(("b", b_shape))
        feeds["b"] = g.rng.standard_normal(b_shape).astype(F32)
        bb = g.node("Transpose", ["b"], "bt", perm=[*range(len(shape) - 2), len(shape) - 1, len(shape) - 2]) \
            if transposed else "b"  # fmt: skip
    a = g.node(op, ["a", c], "sa") if where in ("before", "both") else "a"
    if where == "b":
        bb = g.node(op, [bb, c], "sb")
    if where in ("after", "both", "b", "before"):
        h = g.node("MatMul", [a, bb], "h")
        y = g.node(op, [h, c], "y") if where in ("after", "both") else g.node("Identity", [h], "y")
    else:  # "first"
        y = g.node("Mul", [c, g.node("MatMul", [a, bb], "h")], "y")
    outs = [y] + (["h"] if output else []) + ([g.node("Neg", [extra], "neg")] if extra else [])
    return _model(g, ins, outs, opset), feeds


def _fused(graph):
    """The FusedMatMuls' alphas (their inputs differ where ONNX Runtime folds a Transpose into transB, which
    prepare records apart: MatmulTransposeFusion's)."""
    return sorted(next((round(a.f, 9) for a in n.attribute if a.name == "alpha"), None)
                  for n in graph.node if n.op_type == "FusedMatMul")  # fmt: skip


FUSED = [{}, {"op": "Mul", "value": 0.3}, {"where": "first", "op": "Mul", "value": 0.3}, {"where": "before"},
         {"where": "before", "op": "Mul", "value": 3.3}, {"where": "b"}, {"where": "both"}, {"b": "init"},
         {"b": "init", "shape": (3, 300)}, {"shape": (2, 300), "m": 20}, {"transposed": True},
         {"transposed": True, "where": "before"}, {"rank": 1}, {"where": "before", "extra": "sa"}, {"extra": "a"},
         {"opset": 13}, {"shape": (1, 8), "m": 9}]  # fmt: skip
NOT_FUSED = [{"extra": "h"}, {"output": True}, {"rank": 5}, {"opset": 8}, {"where": "b", "b": "init", "rank": 3}]


@fusion_cases(FUSED, NOT_FUSED)
def test_matmul_scale_fusion_as_onnx_runtime(kw, fused, tmp_path):
    ort.need()
    check_fusion(*_scaled(**kw), tmp_path, _fused, kw, fused)


def test_a_division_differs_from_its_reciprocal_product():
    """The test can fail: ``(a @ b) / sqrt(8)`` is not ``(a @ b) * float32(1 / sqrt(8))`` everywhere."""
    model, feeds = _scaled()
    fused = quant.run(model, feeds, op="sdot4")["y"]
    apart = (np.matmul(feeds["a"], feeds["b"]) / F32(np.sqrt(8))).astype(F32)
    assert not np.array_equal(fused, apart)


def test_fused_matmul_node():
    """A FusedMatMul as ONNX Runtime writes it into the models it saves (transA, transB, alpha), against its kernel."""
    ort.need()
    rng = np.random.default_rng(0)
    for trans_a, trans_b, alpha in ((0, 0, 0.5), (1, 0, 0.3), (0, 1, 1.7), (1, 1, -2.1)):
        a = rng.standard_normal((3, 40, 30) if trans_a else (3, 30, 40)).astype(F32)
        b = rng.standard_normal((20, 40) if trans_b else (40, 20)).astype(F32)
        attrs = {"transA": trans_a, "transB": trans_b, "alpha": alpha}
        for const in ((), (1,)):
            options = {"out_type": 1, "domain": "com.microsoft", "const": const}
            want = ort.run("FusedMatMul", [a, b], attrs, **options)
            model = ort.node_model("FusedMatMul", [a, b], attrs, **options)
            feeds = {f"in{i}": v for i, v in enumerate((a, b)) if i not in const}
            got = quant.run(model, feeds, op="sdot4", platform=ort.platform())["y"]
            _same(got, want, (trans_a, trans_b, alpha, const))


def test_float64_is_left_apart():
    """A float64 MatMul and its scale stay two nodes (intdot's FusedMatMul is float32's) and run: no error."""
    from onnx import TensorProto, helper

    g = Nodes(3)
    g.node("Mul", [g.node("MatMul", ["a", "b"], "h"), g.const("c", np.array(0.5, np.float64))], "y")
    ins = [helper.make_tensor_value_info(n, TensorProto.DOUBLE, [3, 4] if n == "a" else [4, 2]) for n in "ab"]
    out = helper.make_tensor_value_info("y", TensorProto.DOUBLE, None)
    graph = helper.make_graph(g.nodes, "g", ins, [out], g.inits)
    model = helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", 17)])
    assert [n.op_type for n in quant.prepare(model).model.graph.node] == ["MatMul", "Mul"]
    a, b = np.arange(12.0).reshape(3, 4), np.ones((4, 2))
    assert np.array_equal(quant.run(model, {"a": a, "b": b}, op="sdot4")["y"], (a @ b) * 0.5)
