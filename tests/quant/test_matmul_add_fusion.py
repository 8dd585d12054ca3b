"""ONNX Runtime's MatMulAddFusion against intdot's ``fuse_matmul_add``: a float MatMul and the Add after it become
one Gemm, whose kernel starts from the bias (MLAS's SGEMM adds each block of K to C in turn), so that where K is
more than one block the bits are not MatMul's then Add's.  For each form and each condition that stops it, ONNX
Runtime's optimized graph says whether it fused (and the Gemm's B and C), ``prepare``'s graph must say the same, and
``run`` gives its bits (the host's ONNX Runtime, or with INTDOT_ORT=arm ONNX Runtime for AArch64)."""

import numpy as np
import pytest
from onnx import TensorProto, helper

from intdot import quant

from . import ort
from .fusions import check_fusion, fusion_cases
from .graph_builder import Nodes

F32 = np.float32


def _linear(shape=(6, 300), n=8, bias_shape=None, bias_first=False, dims=None, extra=False, output=False, opset=17):
    """``y = MatMul(x, W) + bias``; ``dims``: x's declared dimensions (names for symbolic ones); ``extra``: the
    MatMul's output also read by a Neg (a second graph output); ``output``: it is also a graph output."""
    g = Nodes(sum(shape) + n)
    h = g.node("MatMul", ["x", g.weight("w", (shape[-1], n))], "h")
    bias = g.weight("b", bias_shape or (n,), 3.0)
    g.node("Add", [bias, h] if bias_first else [h, bias], "y")
    outs = ["y"] + (["h"] if output else []) + ([g.node("Neg", ["h"], "neg")] if extra else [])
    return _model(g, [("x", dims or shape)], outs, opset), {"x": g.rng.standard_normal(shape).astype(F32)}


def _model(g, inputs, outputs, opset):
    ins = [helper.make_tensor_value_info(name, TensorProto.FLOAT, list(d)) for name, d in inputs]
    outs = [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outputs]
    graph = helper.make_graph(g.nodes, "g", ins, outs, g.inits)
    return helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", opset)])


def _attention(kind="projection", opset=17, s=4, d=8, heads=2):
    """Self-attention on x [1, s, d]: ``"projection"``, its output projection (MatMul + Add) after ``Softmax ->
    MatMul -> Transpose -> Reshape``; ``"bert"``, a post-LN BERT attention: a LayerNormalization read by the three
    input projections and the residual Add, whose other input is the output projection's Add."""
    g = Nodes(opset + len(kind))
    node, weight, const = g.node, g.weight, g.const
    x = "x"
    if kind == "bert":
        x = node("LayerNormalization", ["x", weight("g", (d,), 1.0), weight("beta", (d,))], "ln", axis=-1)

    def linear(t, name):
        return node("Add", [node("MatMul", [t, weight(f"{name}_w", (d, d))], f"{name}_mm"), weight(f"{name}_b", (d,))],
                    name)  # fmt: skip

    const("heads", np.array([1, s, heads, d // heads], np.int64))  # (one initializer: each split reads it)

    def split(t, perm):
        r = node("Reshape", [t, "heads"], f"{t}_r")
        return node("Transpose", [r], f"{t}_t", perm=perm)

    q, k, v = (linear(x, n) for n in "qkv")
    scores = node("MatMul", [split(q, [0, 2, 1, 3]), split(k, [0, 2, 3, 1])], "scores")
    probs = node("Softmax", [node("Mul", [scores, const("scale", np.array(0.5, F32))], "scaled")], "probs", axis=-1)
    ctx = node("Transpose", [node("MatMul", [probs, split(v, [0, 2, 1, 3])], "ctx")], "ctx_t", perm=[0, 2, 1, 3])
    merged = node("Reshape", [ctx, const("merged", np.array([1, s, d], np.int64))], "ctx_r")
    out = linear(merged, "o")
    if kind == "bert":
        node("Add", [x, out], "y")
    else:
        node("Identity", [out], "y")
    return _model(g, [("x", (1, s, d))], ["y"], opset), {"x": g.rng.standard_normal((1, s, d)).astype(F32)}


def _gemms(graph):
    """The Gemms of ``graph`` (B, C) and whether any MatMul is left."""
    return sorted((n.input[1], n.input[2]) for n in graph.node if n.op_type == "Gemm")


FUSED = [{}, {"bias_first": True}, {"bias_shape": (1, 8)}, {"bias_shape": (6, 1)}, {"bias_shape": (6, 8)},
         {"shape": (1, 300), "bias_shape": (1, 1)}, {"shape": (2, 3, 300)}, {"shape": (2, 3, 2, 600)},
         {"shape": (2, 3, 600), "bias_first": True}, {"shape": (5, 40)}, {"shape": (3, 1000), "n": 3},
         {"dims": ("m", 300)}, {"dims": ("m", 300), "bias_shape": (1, 8)}, {"opset": 13}, {"opset": 7}]  # fmt: skip
NOT_FUSED = [{"extra": True}, {"output": True}, {"shape": (2, 3, 300), "dims": ("b", 3, 300)},
             {"shape": (2, 3, 300), "bias_shape": (1, 8)}, {"shape": (2, 3, 300), "bias_shape": (1, 1, 8)},
             {"bias_shape": (1, 1)}, {"bias_shape": (6, 8), "dims": ("m", 300)},
             {"bias_shape": (1,), "n": 8}]  # fmt: skip


@fusion_cases(FUSED, NOT_FUSED)
def test_matmul_add_fusion_as_onnx_runtime(kw, fused, tmp_path):
    ort.need()
    model, feeds = _linear(**kw)
    check_fusion(model, feeds, tmp_path, _gemms, kw, fused)


@pytest.mark.parametrize("kind, opset", [("projection", 17), ("projection", 18), ("projection", 19), ("bert", 17)])
def test_attention_projections_as_onnx_runtime(kind, opset, tmp_path):
    """ONNX Runtime 1.32 fuses an attention's four projections too (its later sources leave them to
    AttentionFusion where it would recognize them)."""
    ort.need()
    model, feeds = _attention(kind, opset)
    assert len(check_fusion(model, feeds, tmp_path, _gemms, (kind, opset))) == 4


def test_k_past_one_block_differs_from_matmul_then_add():
    """The test can fail: with K past MLAS's 256, the fused Gemm's bits are not MatMul's then Add's."""
    model, feeds = _linear(shape=(6, 600))
    fused = quant.run(model, feeds, op="sdot4")["y"]
    prepared = quant.prepare(model)
    assert [n.op_type for n in prepared.model.graph.node] == ["Gemm"]
    from intdot.quant import sgemm

    w, b = (next(np.frombuffer(t.raw_data, F32).reshape(t.dims) for t in model.graph.initializer if t.name == k)
            for k in ("w", "b"))  # fmt: skip
    apart = (sgemm.gemm(feeds["x"], w, None, b_constant=True) + b).astype(F32)
    assert not np.array_equal(fused, apart)


@pytest.mark.parametrize("k, m, n", [(300, 6, 8), (600, 5, 40), (1000, 3, 7), (300, 1, 8), (40, 4, 300)])
def test_transposes_folded_into_gemm(k, m, n, tmp_path):
    """A Transpose read by Gemms alone becomes their transA/transB (GemmTransposeFusion), after MatMulAddFusion too:
    its SGEMM then picks its blocks of K for A read transposed.  Transpose -> MatMul + Add, and Transpose -> Gemm
    (with transA already set: it toggles), on inputs it does not fold as constants."""
    ort.need()
    g = Nodes(k + m + n)
    a_t = g.node("Transpose", ["x"], "xt", perm=[1, 0])
    g.node("Add", [g.node("MatMul", [a_t, "w"], "h"), g.weight("b", (n,), 2.0)], "y")
    w_t = g.node("Transpose", ["w2"], "w2t", perm=[1, 0])
    g.node("Gemm", ["x2", w_t, g.weight("c", (n,), 1.0)], "z", transA=1)
    model = _model(g, [("x", (k, m)), ("w", (k, n)), ("x2", (k, m)), ("w2", (n, k))], ["y", "z"], 17)
    feeds = {name: g.rng.standard_normal(shape).astype(F32)
             for name, shape in (("x", (k, m)), ("w", (k, n)), ("x2", (k, m)), ("w2", (n, k)))}  # fmt: skip

    def gemms(graph):  # (ONNX Runtime's read the Transposes' inputs; prepare's keep the Transposes, marked)
        return [n.op_type for n in graph.node if n.op_type == "Gemm"]

    check_fusion(model, feeds, tmp_path, gemms, (k, m, n))
