"""``intdot.quant.qgemm`` against ONNX Runtime's ``com.microsoft:QGemm`` kernel, one node at a time (B a constant,
as its optimizer writes it), and a QOperator model holding QGemm nodes through ``intdot.quant.run``."""

import numpy as np
import pytest

from intdot import quant
from intdot.core.errors import OperandError, OperandTypeError

from . import ort

F32, U8, I8 = np.float32, np.uint8, np.int8


@pytest.fixture(autouse=True)
def _oracle():
    ort.need()


def qgemm_model(ins, attrs, const=(3,)):
    """A one-node QGemm model; ``ins`` in QGemm's order (None: left out); indices in ``const`` are initializers."""
    from onnx import helper, numpy_helper

    names = [f"in{i}" if v is not None else "" for i, v in enumerate(ins)]
    while names and not names[-1]:
        names.pop()
    graph_in, inits = [], []
    for i, (n, v) in enumerate(zip(names, ins)):
        if v is None:
            continue
        v = np.asarray(v)
        if i in const:
            inits.append(numpy_helper.from_array(v, n))
        else:
            graph_in.append(helper.make_tensor_value_info(n, ort._elem(v), v.shape))
    out_type = ort._elem(np.asarray(ins[8])) if len(ins) > 8 and ins[8] is not None else 1
    node = helper.make_node("QGemm", names, ["y"], domain="com.microsoft", name="qgemm", **attrs)
    graph = helper.make_graph([node], "g", graph_in, [helper.make_tensor_value_info("y", out_type, None)], inits)
    opsets = [helper.make_opsetid("", 21), helper.make_opsetid("com.microsoft", 1)]
    return helper.make_model(graph, ir_version=10, opset_imports=opsets)


def onnxruntime_qgemm(ins, attrs, const=(3,)):
    feed = {f"in{i}": np.asarray(v) for i, v in enumerate(ins) if v is not None and i not in const}
    return ort.session(qgemm_model(ins, attrs, const)).run(None, feed)[0]


def _ops(a_dtype, b_dtype):
    """Instructions whose bits are ONNX Runtime's for these operands on this CPU: its uint8 x int8 kernel saturates
    pair sums on x86 without VNNI (docs/differences.md, row 1), which only the AVX2 idiom reproduces."""
    if (a_dtype, b_dtype) == (U8, I8) and ort.saturates_u8s8():
        return ("vpmaddubsw",)
    return ("usdot", "sdot4", "udot4")


def _draw(rng, dtype, shape):
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max + 1, shape).astype(dtype)


def _case(rng, adt, bdt, *, quantized, k=None):
    m, n = (int(v) for v in rng.integers(1, 17, 2))
    k = int(rng.integers(1, 40)) if k is None else k
    ta, tb, percol = (bool(v) for v in rng.integers(0, 2, 3))
    a = _draw(rng, adt, (k, m) if ta else (m, k))
    b = _draw(rng, bdt, (n, k) if tb else (k, n))
    za = _draw(rng, adt, ())
    zb = _draw(rng, bdt, (n,) if percol else ())
    sa = F32(rng.uniform(0.001, 0.1))
    sb = rng.uniform(0.001, 0.1, n).astype(F32) if percol else F32(rng.uniform(0.001, 0.1))
    shapes = [None, (n,), (1, n), (m, 1), (m, n), ()]
    shape = shapes[int(rng.integers(0, len(shapes)))]
    c = None if shape is None else rng.integers(-(2**20), 2**20, shape).astype(np.int32)
    attrs = {"alpha": float(rng.choice([1.0, 0.5, 1.7, -0.3])), "transA": int(ta), "transB": int(tb)}
    ins = [a, sa, za, b, sb, zb, c]
    if quantized:
        ins += [F32(rng.uniform(0.05, 3)), _draw(rng, adt, ())]
    return ins, attrs


TYPES = [(U8, I8), (U8, U8), (I8, I8)]


@pytest.mark.parametrize("quantized", [True, False], ids=["quantized output", "float output"])
@pytest.mark.parametrize("types", TYPES, ids=lambda t: f"{t[0].__name__} x {t[1].__name__}")
def test_random_qgemm_nodes_are_onnxruntimes_bits(types, quantized):
    """Transposes, per-column weights, every bias shape, alpha, random scales: 40 nodes per type pair."""
    rng = np.random.default_rng([7, TYPES.index(types), quantized])
    for _ in range(40):
        ins, attrs = _case(rng, *types, quantized=quantized)
        want = onnxruntime_qgemm(ins, attrs)
        for op in _ops(*types):
            got = quant.qgemm(*ins, **attrs, op=op)
            assert got.dtype == want.dtype and got.shape == want.shape and np.array_equal(got, want), (op, attrs)


def test_ties_and_saturation_are_onnxruntimes():
    """A scale of exactly 0.5 (every odd accumulator a tie, rounded half to even) and one that saturates most
    outputs, per tensor and per column."""
    rng = np.random.default_rng(8)
    a = _draw(rng, U8, (64, 32))
    b = rng.integers(-64, 65, (32, 48)).astype(I8)
    c = rng.integers(-1000, 1000, 48).astype(np.int32)
    for sb, sy in ((F32(0.5), F32(1)), (np.full(48, 0.5, F32), F32(1)), (F32(0.25), F32(1 / 64))):
        ins = [a, F32(1), U8(128), b, sb, I8(0) if np.ndim(sb) == 0 else np.zeros(48, I8), c, sy, U8(128)]
        want = onnxruntime_qgemm(ins, {})
        acc = (a.astype(np.int64) - 128) @ b + c
        if sy == 1:
            assert (acc % 2 == 1).sum() > 1000  # ties
        else:
            assert ((want == 0) | (want == 255)).mean() > 0.5  # saturation
        for op in ("usdot", "sdot4"):
            assert np.array_equal(quant.qgemm(*ins, op=op), want)


def test_k_zero_is_the_bias_requantized():
    """K = 0: ONNX Runtime 1.32 returns memory its kernel never wrote (different from run to run, so no oracle);
    intdot's product is 0, so the output is the bias requantized (2 * 0.5 and -6 * 0.5 rounded half to even, plus
    100), or the zero point, or for a float output the bias times the scale."""
    a, b = np.zeros((2, 0), U8), np.zeros((0, 3), I8)
    c = np.array([2, -6, 3], np.int32)
    ins = [a, F32(1), U8(0), b, F32(0.25), I8(0)]
    assert quant.qgemm(*ins, c, F32(0.5), U8(100), op="usdot").tolist() == [[101, 97, 102]] * 2
    assert quant.qgemm(*ins, None, F32(0.5), U8(100), op="usdot").tolist() == [[100] * 3] * 2
    assert quant.qgemm(*ins, c, op="sdot4").tolist() == [[0.5, -1.5, 0.75]] * 2


def test_uint8_x_int8_saturates_pairs_as_onnxruntime_does_on_avx2():
    """ONNX Runtime's QGemm runs on the same uint8 x int8 kernel as its MatMulInteger: on x86 without VNNI it
    saturates pair sums (row 1 of docs/differences.md), and ``op="vpmaddubsw"`` gives its bits."""
    if not ort.saturates_u8s8():
        pytest.skip("ONNX Runtime's uint8 x int8 kernel is exact on this CPU (VNNI, AMX or Arm)")
    a = np.full((4, 16), 255, U8)
    b = np.full((16, 4), 127, I8)
    ins = [a, F32(1), U8(0), b, F32(1), I8(0), None, F32(4096), U8(0)]  # exact 126, saturated 64
    want = onnxruntime_qgemm(ins, {})
    assert np.array_equal(quant.qgemm(*ins, op="vpmaddubsw"), want)
    assert not np.array_equal(quant.qgemm(*ins, op="usdot"), want)


def test_a_qoperator_model_with_qgemm_nodes_runs():
    """A model that holds ``com.microsoft:QGemm`` (as ONNX Runtime writes it, or a QOperator quantizer) runs through
    ``intdot.quant.run``, each node through the instruction."""
    rng = np.random.default_rng(9)
    for quantized in (True, False):
        ins, attrs = _case(rng, U8, U8, quantized=quantized)
        model = qgemm_model(ins, attrs)
        feed = {f"in{i}": np.asarray(v) for i, v in enumerate(ins) if v is not None and i != 3}
        want = ort.session(model).run(None, feed)[0]
        assert quant.model.integer_nodes(model) == [("qgemm", "QGemm")]
        got = quant.run(model, feed, op="udot4")["y"]
        assert got.dtype == want.dtype and np.array_equal(got, want)


def test_bad_operands_are_intdot_errors():
    a, b = np.zeros((2, 3), U8), np.zeros((3, 4), I8)
    ok = [a, F32(1), U8(0), b, F32(1), I8(0)]
    with pytest.raises(OperandError, match=r"A has shape \(2, 3, 1\); expected a matrix"):
        quant.qgemm(a[..., None], *ok[1:], op="usdot")
    with pytest.raises(OperandError, match=r"K=3 differs from B's K=4"):
        quant.qgemm(*ok, transB=1, op="usdot")
    with pytest.raises(
        OperandError, match=r"C has shape \(3,\); expected one that broadcasts to the output's \(2, 4\)"
    ):
        quant.qgemm(*ok, np.zeros(3, np.int32), op="usdot")
    with pytest.raises(OperandTypeError, match="C has dtype int64; expected int32"):
        quant.qgemm(*ok, np.zeros(4, np.int64), op="usdot")
    with pytest.raises(OperandError, match=r"b_scale has shape \(3,\); expected a scalar, 1 element or 4 values"):
        quant.qgemm(a, F32(1), U8(0), b, np.ones(3, F32), I8(0), op="usdot")
    with pytest.raises(OperandError, match="y_zero_point is given without y_scale"):
        quant.qgemm(*ok, None, None, U8(0), op="usdot")
    with pytest.raises(OperandError, match="transA=2: expected 0 or 1"):
        quant.qgemm(*ok, transA=2, op="usdot")
