"""Float32 MatMul and Gemm against ONNX Runtime's MLAS SGEMM, bit for bit, through ``run``: products whose K spans
several of its blocks (256 for a packed constant B; 128, or longer or shorter by N and K, otherwise), one-row
products (its GEMV; one-column ones, the roles swapped), batches, 1-D operands, transposes, alpha and beta, on this
machine's platform (x86, or under INTDOT_ORT=arm ONNX Runtime for AArch64 on a NEON CPU) and on QEMU's Haswell CPU.
One model holds every node of a case, so that each oracle session runs them all at once."""

import itertools

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from intdot import quant

from . import ort
from .test_float_kernels import _same

F32 = np.float32
MATMULS = [((8, 8), (8, 32)), ((5, 100), (100, 7)), ((16, 257), (257, 16)), ((4, 300), (300, 40)),
           ((3, 1000), (1000, 9)), ((2, 513), (513, 600)), ((1, 300), (300, 40)), ((2, 3, 70, 300), (300, 50)),
           ((2, 1, 9, 130), (3, 130, 260)), ((300,), (300, 20)), ((4, 300), (300,)),
           ((1, 2, 600), (600, 129)), ((5, 300), (300, 1)), ((7, 20), (20, 1)), ((2, 3, 40), (40, 1)),
           ((3, 1, 40), (40, 6)), ((191, 600), (600, 59)), ((3, 400), (400, 700))]  # fmt: skip


def _session(model, threads=1):
    if ort.on_arm():  # MLAS's NEON SGEMM on a NEON CPU
        from ..oracles import arm_ort

        return arm_ort.Session(model.SerializeToString(), "neoverse-n1", threads=threads)
    return ort.session(model, threads=threads)


def _model(nodes, inputs, inits):
    info = [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in inputs]
    outs = [helper.make_tensor_value_info(n.output[0], TensorProto.FLOAT, None) for n in nodes]
    graph = helper.make_graph(nodes, "g", info, outs, inits)
    return helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", 13)])


def _matmuls(rng):
    """Every MatMul case twice, B an input and B an initializer (which ONNX Runtime packs)."""
    nodes, feeds, inits = [], {}, []
    for k, (ash, bsh) in enumerate(MATMULS):
        a, b = rng.standard_normal(ash).astype(F32), rng.standard_normal(bsh).astype(F32)
        feeds[f"a{k}"], feeds[f"b{k}"] = a, b
        inits.append(numpy_helper.from_array(b, f"w{k}"))
        nodes += [helper.make_node("MatMul", [f"a{k}", f"b{k}"], [f"y{k}"]),
                  helper.make_node("MatMul", [f"a{k}", f"w{k}"], [f"z{k}"])]  # fmt: skip
    return _model(nodes, list(feeds), inits), feeds


_SHAPES = ((4, 300, 40), (1, 300, 40), (2, 513, 600), (6, 20, 9), (1, 70, 7), (1, 33, 6))
_SCALES = ((1.0, 1.0), (0.5, 1.0), (1.0, 0.0), (1.0, 2.5), (1.7, 0.3))
_GEMMS = list(itertools.product(_SHAPES, (0, 1), (0, 1), _SCALES, ("MN", "N", None)))


def _gemms(rng, platform):
    nodes, feeds, inits = [], {}, []
    for k, ((m, kk, n), ta, tb, (alpha, beta), c) in enumerate(_GEMMS):
        a = rng.standard_normal((kk, m) if ta else (m, kk)).astype(F32)
        b = rng.standard_normal((n, kk) if tb else (kk, n)).astype(F32)
        feeds[f"a{k}"], feeds[f"b{k}"] = a, b
        inputs = [f"a{k}", f"b{k}"]
        if c is not None:
            feeds[f"c{k}"] = rng.standard_normal((m, n) if c == "MN" else (n,)).astype(F32)
            inputs.append(f"c{k}")
        attrs = {"alpha": alpha, "beta": beta, "transA": ta, "transB": tb}
        inits.append(numpy_helper.from_array(b, f"w{k}"))
        nodes += [helper.make_node("Gemm", inputs, [f"y{k}"], **attrs),
                  helper.make_node("Gemm", [inputs[0], f"w{k}", *inputs[2:]], [f"z{k}"], **attrs)]  # fmt: skip
    return _model(nodes, list(feeds), inits), feeds


@pytest.mark.parametrize("threads", [1, 3, 8, 100])
@pytest.mark.parametrize("kind", ["MatMul", "Gemm"])
def test_sgemm_through_run(kind, threads):
    """On 1 to 100 threads (ONNX Runtime's ``intra_op_num_threads``, ``run``'s ``threads``): MLAS cuts the product
    into parts of columns (in 16s) or rows, each an SGEMM with its own blocks of K, a one-row part a GEMV."""
    ort.need()
    rng = np.random.default_rng(len(kind))
    model, feeds = _matmuls(rng) if kind == "MatMul" else _gemms(rng, ort.platform())
    want = _session(model, threads).run(None, feeds)
    got = quant.run(model, feeds, op="sdot4", platform=ort.platform(), threads=threads)
    for (name, g), w in zip(got.items(), want):
        _same(g, w, (name, threads))


def test_threads_change_the_bits():
    """The thread count is no formality: a product of 600 columns is cut into 8 parts on 8 threads (six of 80
    columns, then 64 and 56), the last two of which take K in blocks of 256 where one thread takes 128, and its bits
    differ (a test that could not tell them apart would pass whatever ``threads`` did)."""
    from intdot.quant.sgemm import gemm2d, thread_parts

    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((2, 513)).astype(F32), rng.standard_normal((513, 600)).astype(F32)
    assert [c for _, c in thread_parts(2, 600, 513, 8)[5:]] == [(400, 480), (480, 544), (544, 600)]
    assert not np.array_equal(gemm2d(a, b, threads=8), gemm2d(a, b, threads=1))


@pytest.mark.parametrize("side", ["A", "B"])
def test_transposed_operands_as_fused_matmul(side):
    """``MatMul(Transpose(x), y)`` and ``MatMul(x, Transpose(y))`` over the last two axes, which ONNX Runtime makes
    one FusedMatMul reading the operand transposed: the blocks of K follow A's transposition, and a one-row product
    takes x86's M1 TransposeB kernel (its outputs in fours, then a two and a one, each group reducing its lanes in
    its own order: every ``N % 4`` below)."""
    ort.need()
    rng = np.random.default_rng(ord(side))
    nodes, feeds = [], {}
    shapes = [(1, 300, 40), (4, 300, 40), (1, 9, 16), (3, 1000, 9), (2, 513, 600), (1, 64, 8), (1, 300, 41),
              (1, 300, 42), (1, 300, 43), (1, 9, 5), (1, 17, 3), (1, 64, 1), (1, 100, 2), (1, 5, 7), (5, 300, 1),
              (7, 20, 1)]  # fmt: skip
    for k, (m, kk, n) in enumerate(shapes):
        if side == "A":
            feeds[f"a{k}"], feeds[f"b{k}"] = rng.standard_normal((2, kk, m)), rng.standard_normal((2, kk, n))
            nodes += [helper.make_node("Transpose", [f"a{k}"], [f"t{k}"], perm=[0, 2, 1]),
                      helper.make_node("MatMul", [f"t{k}", f"b{k}"], [f"y{k}"])]  # fmt: skip
        else:
            feeds[f"a{k}"], feeds[f"b{k}"] = rng.standard_normal((2, m, kk)), rng.standard_normal((2, n, kk))
            nodes += [helper.make_node("Transpose", [f"b{k}"], [f"t{k}"], perm=[0, 2, 1]),
                      helper.make_node("MatMul", [f"a{k}", f"t{k}"], [f"y{k}"])]  # fmt: skip
    feeds = {name: v.astype(F32) for name, v in feeds.items()}
    model = _model([n for n in nodes if n.op_type == "Transpose"] + [n for n in nodes if n.op_type == "MatMul"],
                   list(feeds), [])  # fmt: skip
    del model.graph.output[: len(model.graph.output) // 2]  # the Transposes' outputs are no graph outputs
    want = _session(model).run(None, feeds)
    got = quant.run(model, feeds, op="sdot4", platform=ort.platform())
    for (name, g), w in zip(got.items(), want):
        _same(g, w, name)


def test_sgemm_on_x86_avx2():
    """The FMA3 SGEMM kernel of an x86 CPU without AVX-512F adds as the AVX-512F one does."""
    from ..oracles import x86_ort

    x86_ort.require()
    model, feeds = _matmuls(np.random.default_rng(5))
    want = x86_ort.Session(model.SerializeToString()).run(None, feeds)
    for (name, g), w in zip(quant.run(model, feeds, op="sdot4", platform="x86-avx2").items(), want):
        _same(g, w, name)


def test_the_blocks_and_the_gemv_are_told_apart():
    """numpy's product (and one long block) differ from MLAS's on these cases: the tests can fail."""
    model, feeds = _matmuls(np.random.default_rng(0))
    got = quant.run(model, feeds, op="sdot4")
    plain = [np.matmul(feeds[f"a{k}"], feeds[f"b{k}"]) for k in range(len(MATMULS))]
    assert any(not np.array_equal(got[f"y{k}"], p) for k, p in enumerate(plain))


@pytest.mark.parametrize("a, b", [((2, 3), (4, 5)), ((2, 3, 4), (5, 4, 6)), ((2, 3), (4,))])
def test_shapes_that_do_not_multiply_are_errors_naming_the_node(a, b):
    from intdot.errors import OperandError

    model = _model([helper.make_node("MatMul", ["a", "b"], ["y"], name="mm")], ["a", "b"], [])
    feeds = {"a": np.ones(a, F32), "b": np.ones(b, F32)}
    with pytest.raises(OperandError, match=r"node 'mm' \(MatMul\): A has shape"):
        quant.run(model, feeds, op="sdot4")


@pytest.mark.parametrize("threads", [0, -2, 1.5, True, "4"])
def test_threads_must_be_a_thread_count(threads):
    from intdot.errors import OperandError

    model, feeds = _matmuls(np.random.default_rng(0))
    with pytest.raises(OperandError, match="threads="):
        quant.run(model, feeds, op="sdot4", threads=threads)
