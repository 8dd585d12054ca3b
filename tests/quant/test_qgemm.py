"""Gemm groups: which ``DequantizeLinear -> Gemm [-> QuantizeLinear]`` groups (and MatMul + Add, which ONNX
Runtime first makes a Gemm) ``intdot.quant.run`` turns into ``com.microsoft:QGemm``, against the graph ONNX
Runtime's optimizer writes, and the outputs against ONNX Runtime's.

As in test_qdq.py, the data of the rule tests are dyadic (so that a group left in float computes the same in
NumPy and ONNX Runtime, and a misread scale or bias shows in the values) and the weights stay within +-64 (so that
ONNX Runtime's uint8 x int8 kernel on AVX2 cannot saturate a pair: test_qgemm_kernel.py covers that kernel).  The
requantization scales are powers of two, so many outputs are exact ties."""

import numpy as np
import pytest

from intdot import quant
from intdot.core.errors import OperandError
from intdot.quant.model import integer_nodes

from . import ort
from .test_qdq import _dyadic_x, _elem, _model, _session, qdq, qdq_conv

F32, U8, I8 = np.float32, np.uint8, np.int8


@pytest.fixture(autouse=True)
def _oracle():
    ort.need()


def gemm(
    w,
    ws,
    wz,
    xs,
    xz,
    ys=None,
    yz=None,
    *,
    bias=None,
    bs=None,
    bz=None,
    fbias=None,
    w_axis=None,
    attrs=None,
    x_shape=(8, 16),
    relu=False,
):
    """x -> Q -> DQ -> Gemm(DQ(w)[, DQ(bias) or a float bias]) [-> Relu] [-> Q -> y]; a zero point of None is left
    out; ys=None: no QuantizeLinear."""
    from onnx import helper

    inits = {"w": w, "ws": ws, "xs": xs}
    inits.update({k: v for k, v in (("wz", wz), ("xz", xz), ("ys", ys), ("yz", yz)) if v is not None})
    z = lambda name, v: [name] if v is not None else []  # noqa: E731
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "xs", *z("xz", xz)], ["xq"]),
        helper.make_node("DequantizeLinear", ["xq", "xs", *z("xz", xz)], ["xd"]),
        helper.make_node(
            "DequantizeLinear", ["w", "ws", *z("wz", wz)], ["wd"], **({} if w_axis is None else {"axis": w_axis})
        ),
    ]
    ins = ["xd", "wd"]
    if bias is not None:
        inits.update({"b": bias, "bs": bs, **({"bz": bz} if bz is not None else {})})
        nodes.append(helper.make_node("DequantizeLinear", ["b", "bs", *z("bz", bz)], ["bd"]))
        ins.append("bd")
    elif fbias is not None:
        inits["fb"] = fbias
        ins.append("fb")
    out = "g" if relu else "yf"
    nodes.append(helper.make_node("Gemm", ins, [out], name="gemm", **(attrs or {})))
    if relu:
        nodes.append(helper.make_node("Relu", ["g"], ["yf"]))
    if ys is None:
        return _model(nodes, inits, x_shape, [("yf", 1)])
    nodes.append(helper.make_node("QuantizeLinear", ["yf", "ys", *z("yz", yz)], ["y"]))
    return _model(nodes, inits, x_shape, [("y", _elem(yz.dtype if yz is not None else U8))])


_rng = np.random.default_rng(11)
W = _rng.integers(-64, 65, (16, 8)).astype(I8)
WT = np.ascontiguousarray(W.T)
WSQ = _rng.integers(-64, 65, (16, 16)).astype(I8)
B = _rng.integers(-3000, 3000, 8).astype(np.int32)
XS, WS, YS = F32(1 / 64), F32(1 / 32), F32(1 / 4)
PROD = XS * WS
COLS = (2.0 ** -np.arange(5, 13)).astype(F32)
C16 = (2.0 ** -np.resize(np.arange(5, 9), 16)).astype(F32)
FB = (B * PROD + PROD / 4).astype(F32)  # a float bias off the int32 grid: its quantization shows in the values
u8z, i8z = U8(128), I8(0)
PT = (W, WS, i8z, XS, u8z, YS, u8z)  # per tensor, uint8 x int8 -> uint8
PC = (W, COLS, np.zeros(8, I8), XS, u8z, YS, u8z)


def _mm_add(bias, x_shape=(8, 16), relu=False, w=PT):
    from onnx import helper

    m = qdq(*w, x_shape=x_shape, after=("Add", {"bias": bias}), w_axis=1 if np.size(w[1]) > 1 else None)
    if relu:  # MatMul -> Add -> Relu -> Q
        for n in m.graph.node:
            if n.op_type == "Add":
                n.output[0] = "r"
        m.graph.node.insert(len(m.graph.node) - 1, helper.make_node("Relu", ["r"], ["yf"]))
    return m


# case: (model, QGemm nodes on x86, with qdqisint8allowed where different (else None), the activation's shape)
GEMMS = {
    "per tensor": (gemm(*PT), 1, None),
    "int32 bias": (gemm(*PT, bias=B, bs=PROD, bz=np.int32(0)), 1, None),
    "int32 bias, scale 10x": (gemm(*PT, bias=B, bs=PROD * 10), 1, None),
    "int32 bias, zero point 5": (gemm(*PT, bias=B, bs=PROD, bz=np.int32(5)), 1, None),
    "int32 bias, beta 2": (gemm(*PT, bias=B, bs=PROD, attrs={"beta": 2.0}), 0, None),
    "no bias, beta 2": (gemm(*PT, attrs={"beta": 2.0}), 1, None),
    "int32 bias, alpha 2": (gemm(*PT, bias=B, bs=PROD, attrs={"alpha": 2.0}), 0, None),
    "int32 bias scaled by alpha, alpha 0.5": (gemm(*PT, bias=B, bs=PROD / 2, attrs={"alpha": 0.5}), 0, None),
    "float bias, alpha 2": (gemm(*PT, fbias=FB, attrs={"alpha": 2.0}), 0, None),
    "alpha 0.5, transB": (gemm(WT, *PT[1:], attrs={"alpha": 0.5, "transB": 1}), 1, None),
    "transA": (gemm(*PT, attrs={"transA": 1}, x_shape=(16, 8)), 1, None),
    "float bias (N,)": (gemm(*PT, fbias=FB), 1, None),
    "float bias (1, N)": (gemm(*PT, fbias=FB[None]), 0, None),
    "float bias, no QuantizeLinear": (gemm(*PT[:5], fbias=FB), 0, None),
    "float bias, non-redundant Relu": (gemm(*PT, fbias=FB, relu=True), 0, None),
    "float bias, redundant Relu": (gemm(*PT[:5], YS, U8(0), fbias=FB, relu=True), 1, None),
    "no QuantizeLinear (float output)": (gemm(*PT[:5]), 1, None),
    "no QuantizeLinear, int32 bias": (gemm(*PT[:5], bias=B, bs=PROD), 1, None),
    "w per column": (gemm(*PC, w_axis=1), 1, None),
    "w per column, transB (axis 0)": (gemm(WT, *PC[1:], w_axis=0, attrs={"transB": 1}), 1, None),
    "w per column, float bias": (gemm(*PC, w_axis=1, fbias=FB), 1, None),
    "w per column, axis 1 under transB": (
        gemm(WT, C16, np.zeros(16, I8), *PT[3:], w_axis=1, attrs={"transB": 1}),
        0,
        None,
    ),
    "w per row": (gemm(W, C16, np.zeros(16, I8), *PT[3:], w_axis=0), 0, None),
    "square w, per column": (gemm(WSQ, C16, np.zeros(16, I8), *PT[3:], w_axis=1), 1, None),
    "int8 x int8 -> int8 graph output": (gemm(W, WS, i8z, XS, i8z, YS, i8z), 0, 1),
    "int8 x int8 -> uint8": (gemm(W, WS, i8z, XS, i8z, YS, u8z), 1, 0),
    "uint8 x uint8": (gemm((W + 64).astype(U8), WS, U8(64), XS, u8z, YS, u8z), 1, None),
    "x zero point left out": (gemm(W, WS, i8z, XS, None, YS, u8z), 0, None),
    "w zero point left out": (gemm(W, WS, None, XS, u8z, YS, u8z), 0, None),
    "y zero point left out": (gemm(W, WS, i8z, XS, u8z, YS, None), 1, None),
    "one-element scales": (gemm(W, *(np.array([v]) for v in PT[1:])), 1, None),
    "y per column": (gemm(W, WS, i8z, XS, u8z, COLS, np.full(8, 128, U8)), 0, None),
    "x per axis": (gemm(W, WS, i8z, C16, np.full(16, 128, U8), YS, u8z), 0, None),
    "MatMul + Add (N,)": (_mm_add(FB), 1, None),
    "MatMul + Add (N,), 3-D x": (_mm_add(FB, x_shape=(2, 4, 16)), 1, None),
    "MatMul + Add (N,), w per column": (_mm_add(FB, w=PC), 1, None),
    "MatMul + Add (N,), redundant Relu": (_mm_add(FB, relu=True, w=PT[:6] + (U8(0),)), 1, None),
    "MatMul + Add (1, N)": (_mm_add(FB[None]), 0, None),
}
for _k in list(GEMMS):
    _m, _n, _n8 = GEMMS[_k]
    GEMMS[_k] = (_m, _n, _n if _n8 is None else _n8)


def _ort_kinds(model, tmp_path, int8_allowed):
    import onnx

    path = tmp_path / "optimized.onnx"
    _session(model, int8_allowed, path=path)
    return [n.op_type for n in onnx.load(str(path)).graph.node]


def _x_shape(model):
    return tuple(d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim)


@pytest.mark.parametrize("int8_allowed", [False, True], ids=["x86 default", "qdqisint8allowed"])
@pytest.mark.parametrize("case", sorted(GEMMS))
def test_gemm_groups_are_fused_where_onnxruntime_fuses_them(case, int8_allowed, tmp_path):
    model, on_x86, on_arm = GEMMS[case]
    kinds = _ort_kinds(model, tmp_path, int8_allowed)
    assert kinds.count("QGemm") == (on_arm if int8_allowed else on_x86), kinds  # the table is ONNX Runtime's
    ours = [t for _, t in integer_nodes(model, qdq_int8_allowed=int8_allowed)]
    assert ours.count("QGemm") == kinds.count("QGemm")
    x = _dyadic_x(_x_shape(model), seed=3)
    want = _session(model, int8_allowed).run(None, {"x": x})[0]
    for op in ("usdot", "sdot4"):
        got = next(iter(quant.run(model, {"x": x}, op=op, qdq_int8_allowed=int8_allowed).values()))
        assert got.dtype == want.dtype and np.array_equal(got, want), op


def test_a_bias_is_added_as_onnxruntime_reads_it():
    """ONNX Runtime adds a Gemm's int32 bias as it is, whatever its scale and zero point: the model's own meaning
    (optimizations off) is another answer, and intdot gives ONNX Runtime's."""
    for case in ("int32 bias, scale 10x", "int32 bias, zero point 5"):
        model = GEMMS[case][0]
        x = _dyadic_x((8, 16), seed=3)
        want = _session(model).run(None, {"x": x})[0]
        assert not np.array_equal(want, _session(model, optimize=False).run(None, {"x": x})[0])
        assert np.array_equal(quant.run(model, {"x": x}, op="usdot")["y"], want)


W1 = _rng.integers(-1, 2, (16, 8)).astype(I8)
B1 = _rng.integers(-100, 101, 8).astype(np.int32)
# Output codes of (acc + bias) / 2: a float bias 0.3 of a product step off the grid moves some of them.
SMALL = (W1, WS, i8z, XS, u8z, 2 * PROD, u8z)
FB1 = ((B1 + 0.3) * PROD).astype(F32)
VISIBLE = {
    "Gemm": gemm(*SMALL, fbias=FB1),
    "Gemm -> non-redundant Relu": gemm(*SMALL, fbias=FB1, relu=True),
    "MatMul + Add": _mm_add(FB1, w=SMALL),
}


@pytest.mark.parametrize("case", sorted(VISIBLE))
def test_float_biases_are_quantized_as_onnxruntime_quantizes_them(case):
    """Its WeightBiasQuantization rounds the float bias onto x_scale * w_scale's grid, fused or not; without that
    step the outputs would be the float model's."""
    model = VISIBLE[case]
    x = _dyadic_x(_x_shape(model), seed=3)
    want = _session(model).run(None, {"x": x})[0]
    assert not np.array_equal(want, _session(model, optimize=False).run(None, {"x": x})[0])
    assert np.array_equal(next(iter(quant.run(model, {"x": x}, op="usdot").values())), want)


def test_a_misread_square_weight_runs_as_the_model_states(tmp_path):
    """A square weight whose scales run along K: ONNX Runtime fuses it and reads the scales per column (as it does
    a Conv's, docs/differences.md); intdot gives the model's answer, ONNX Runtime's with its optimizations off."""
    model = gemm(WSQ, C16, np.zeros(16, I8), *PT[3:], w_axis=0)
    assert _ort_kinds(model, tmp_path, False).count("QGemm") == 1
    assert integer_nodes(model) == []
    x = _dyadic_x((8, 16), seed=3)
    want = _session(model, optimize=False).run(None, {"x": x})[0]
    assert np.array_equal(quant.run(model, {"x": x}, op="usdot")["y"], want)


def _bias_q(model, tmp_path):
    """The int32 bias ONNX Runtime folds into its optimized graph."""
    import onnx
    from onnx import numpy_helper

    path = tmp_path / "optimized.onnx"
    _session(model, path=path)
    inits = {t.name: numpy_helper.to_array(t) for t in onnx.load(str(path)).graph.initializer}
    return next(v for k, v in inits.items() if k.endswith("_bias_int32"))


def test_bias_quantization_ties_and_overflow(tmp_path):
    """Ties (k + 0.5 on the grid) round half to even; quotients past int32 (and an infinite one) become INT32_MIN,
    as ONNX Runtime's folded Cast gives them on x86."""
    from intdot.quant.qdq import fuse

    k = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3e9, -3e9], np.float64)
    fb = (k * PROD).astype(F32)
    for w, axis, bias in ((W, None, fb), (W, 1, fb), (W, None, np.array([*fb[:7], 1e38], F32))):
        ws = COLS if axis else WS
        model = gemm(w, ws, np.zeros(8, I8) if axis else i8z, XS, u8z, YS, u8z, fbias=bias, w_axis=axis)
        want = _bias_q(model, tmp_path)
        ours = fuse(model, platform=ort.platform())
        from onnx import numpy_helper

        got = next(numpy_helper.to_array(t) for t in ours.graph.initializer if t.name.endswith("_bias_int32"))
        assert got.dtype == np.int32 and np.array_equal(got, want), (got, want)
        x = _dyadic_x((8, 16), seed=4)
        got = quant.run(model, {"x": x}, op="usdot", platform=ort.platform())["y"]
        assert np.array_equal(got, _session(model).run(None, {"x": x})[0])


@pytest.mark.parametrize("relu", [False, True], ids=["Conv -> Q", "Conv -> Relu -> Q"])
def test_a_convs_float_bias_is_quantized_too(relu, tmp_path):
    """The same pass quantizes a Conv's float bias: then the group is a QLinearConv with that bias."""
    from onnx import helper, numpy_helper

    w = _rng.integers(-1, 2, (3, 3, 3, 3)).astype(I8)
    model = qdq_conv(w, F32(1 / 32), i8z)
    fb = ((np.array([10, -20, 30]) + 0.3) * PROD).astype(F32)
    inits = model.graph.initializer
    inits.append(numpy_helper.from_array(fb, "fb"))
    inits[[t.name for t in inits].index("ys")].CopyFrom(numpy_helper.from_array(2 * PROD, "ys"))
    for n in model.graph.node:
        if n.op_type == "Conv":
            n.input.append("fb")
            if relu:
                n.output[0] = "c"
    if relu:  # zero point 128: not redundant, so the Conv stays in float, with the quantized bias
        model.graph.node.insert(len(model.graph.node) - 1, helper.make_node("Relu", ["c"], ["yf"]))
    kinds = _ort_kinds(model, tmp_path, False)
    assert ("QLinearConv" in kinds) == (not relu)
    assert [t for _, t in integer_nodes(model)] == ([] if relu else ["QLinearConv"])
    x = _dyadic_x((1, 3, 6, 6), seed=5)
    want = _session(model).run(None, {"x": x})[0]
    assert not np.array_equal(want, _session(model, optimize=False).run(None, {"x": x})[0])
    assert np.array_equal(quant.run(model, {"x": x}, op="usdot")["y"], want)


@pytest.mark.parametrize("acts", ["uint8", "int8"])
def test_a_linear_model_from_quantize_static(acts, tmp_path):
    """Two Linear layers (Gemm with a bias, Relu, Gemm) quantized by onnxruntime.quantization in QDQ format: both
    become QGemm, and the outputs are ONNX Runtime's (uint8 activations on x86's default, through the AVX2 idiom
    where its kernel saturates pairs; int8 ones with qdqisint8allowed, on its exact int8 kernel)."""
    from onnx import helper, numpy_helper
    from onnxruntime.quantization import QuantFormat, QuantType

    from .test_run import _quantize

    rng = np.random.default_rng(0)
    w = {
        "w1": rng.normal(0, 0.05, (32, 64)),
        "b1": rng.normal(0, 0.1, 32),
        "w2": rng.normal(0, 0.2, (32, 10)),
        "b2": rng.normal(0, 0.1, 10),
    }
    nodes = [
        helper.make_node("Gemm", ["pixels", "w1", "b1"], ["h"], transB=1),
        helper.make_node("Relu", ["h"], ["r"]),
        helper.make_node("Gemm", ["r", "w2", "b2"], ["logits"]),
    ]
    graph = helper.make_graph(
        nodes,
        "linear",
        [helper.make_tensor_value_info("pixels", 1, [16, 64])],
        [helper.make_tensor_value_info("logits", 1, [16, 10])],
        [numpy_helper.from_array(v.astype(F32), k) for k, v in w.items()],
    )
    model = helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", 21)])
    kind = QuantType.QUInt8 if acts == "uint8" else QuantType.QInt8
    path = _quantize(tmp_path, model, "qdq", quant_format=QuantFormat.QDQ, activation_type=kind)
    int8 = acts == "int8"
    import onnx

    kinds = _ort_kinds(onnx.load(str(path)), tmp_path, int8)
    assert kinds.count("QGemm") == 2
    assert [t for _, t in integer_nodes(path, qdq_int8_allowed=int8)] == ["QGemm", "QGemm"]
    x = rng.uniform(0, 16, (16, 64)).astype(F32)
    want = _session(onnx.load(str(path)), int8).run(None, {"pixels": x})[0]
    op = "vpmaddubsw" if acts == "uint8" and ort.saturates_u8s8() else "usdot"
    assert np.array_equal(quant.run(path, x, op=op, qdq_int8_allowed=int8)["logits"], want)


def test_a_prepared_model_is_rewritten_once(monkeypatch):
    """``intdot run`` asks for the outputs and for the integer nodes: with ``prepare`` the QDQ rewrite runs once."""
    from intdot.quant import model as qmodel
    from intdot.quant import qdq

    calls = []
    fuse = qdq.fuse
    monkeypatch.setattr(qdq, "fuse", lambda *a, **k: calls.append(1) or fuse(*a, **k))
    model = GEMMS["MatMul + Add (N,)"][0]
    prepared = qmodel.prepare(model)
    x = _dyadic_x((8, 16), seed=3)
    assert qmodel.integer_nodes(prepared) == qmodel.integer_nodes(model)
    assert np.array_equal(quant.run(prepared, x, op="usdot")["y"], _session(model).run(None, {"x": x})[0])
    assert len(calls) == 2  # prepare and the integer_nodes of the plain model
    with pytest.raises(OperandError, match=r"prepared with qdq_int8_allowed=False and platform='x86': expected"):
        quant.run(prepared, x, op="usdot", qdq_int8_allowed=True)
    # Arm's default is session.qdqisint8allowed=1, and its bias rounding is its own: a rewrite of its own too.
    with pytest.raises(OperandError, match=r"qdq_int8_allowed=None and platform='arm', but the model was prepared"):
        quant.run(prepared, x, op="usdot", platform="arm")
