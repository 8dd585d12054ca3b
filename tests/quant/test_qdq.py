"""Which QDQ groups ``intdot.quant.run`` turns into integer nodes: exactly those ONNX Runtime's graph optimizer turns
into them (the graph it writes with ``optimized_model_filepath`` is the oracle), and the values are ONNX
Runtime's.

The data of the rule tests are dyadic (scales 2**-k, small integers), so that the float path is exact and runs
the same in NumPy and ONNX Runtime: there a wrong reading of a scale or a bias shows in the values, and the
graph says whether a group was fused.  Where fusing changes the rounding (``test_fusing_changes_the_bits``) the
data are not dyadic, and the float path is shown to differ."""

import numpy as np
import pytest

from intdot import quant
from intdot.quant.model import integer_nodes

from . import ort

F32, U8, I8 = np.float32, np.uint8, np.int8
INTEGER_ORT = {"QLinearMatMul", "QLinearConv", "MatMulIntegerToFloat", "QGemm"}
# intdot runs ONNX Runtime's MatMulIntegerToFloat as MatMulInteger -> Cast -> Mul.
AS_INTDOT = {k: k for k in INTEGER_ORT} | {"MatMulIntegerToFloat": "MatMulInteger"}


@pytest.fixture(autouse=True)
def _oracle():
    ort.need()


def _model(nodes, inits, x_shape, out_type, x_type=1, opset=21):
    from onnx import helper, numpy_helper

    outs = [helper.make_tensor_value_info(o, t, None) for o, t in out_type]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", x_type, list(x_shape))],
        outs,
        [numpy_helper.from_array(np.asarray(v), k) for k, v in inits.items()],
    )
    return helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", opset)])


def _elem(dtype):
    from onnx import helper

    return helper.np_dtype_to_tensor_dtype(np.dtype(dtype))


def qdq(w, ws, wz, xs, xz, ys=None, yz=None, *, w_axis=None, x_axis=None, y_axis=None, x_shape=(8, 16), after=None):
    """x -> Q -> DQ -> MatMul(DQ(w)) [-> after] [-> Q -> y]; a zero point of None is left out, ys=None: no Q."""
    from onnx import helper

    inits = {"w": w, "ws": ws, "xs": xs}
    inits.update({k: v for k, v in (("wz", wz), ("xz", xz), ("ys", ys), ("yz", yz)) if v is not None})
    z = lambda name, v: [name] if v is not None else []  # noqa: E731
    ax = lambda a: {} if a is None else {"axis": a}  # noqa: E731
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "xs", *z("xz", xz)], ["xq"], **ax(x_axis)),
        helper.make_node("DequantizeLinear", ["xq", "xs", *z("xz", xz)], ["xd"], **ax(x_axis)),
        helper.make_node("DequantizeLinear", ["w", "ws", *z("wz", wz)], ["wd"], **ax(w_axis)),
        helper.make_node("MatMul", ["xd", "wd"], ["mm" if after else "yf"], name="mm"),
    ]
    if after:
        kind, extra = after
        inits.update(extra)
        nodes.append(helper.make_node(kind, ["mm", *extra], ["yf"]))
    if ys is None:
        return _model(nodes, inits, x_shape, [("yf", 1)])
    nodes.append(helper.make_node("QuantizeLinear", ["yf", "ys", *z("yz", yz)], ["y"], **ax(y_axis)))
    return _model(nodes, inits, x_shape, [("y", _elem(yz.dtype if yz is not None else U8))])


def qdq_conv(w, ws, wz, *, w_axis=None, bias=None, bs=None, bz=None, act=U8, x_shape=(1, 3, 6, 6)):
    from onnx import helper

    zx = act(0) if act == I8 else act(128)
    inits = {"w": w, "ws": ws, "wz": wz, "xs": F32(1 / 64), "xz": zx, "ys": F32(1 / 4), "yz": zx}
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
        helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"]),
        helper.make_node("DequantizeLinear", ["w", "ws", "wz"], ["wd"], **({} if w_axis is None else {"axis": w_axis})),
    ]
    conv_in = ["xd", "wd"]
    if bias is not None:
        inits.update({"b": bias, "bs": bs, "bz": np.zeros(bs.shape, np.int32) if bz is None else bz})
        nodes.append(helper.make_node("DequantizeLinear", ["b", "bs", "bz"], ["bd"], axis=0))
        conv_in.append("bd")
    nodes += [
        helper.make_node("Conv", conv_in, ["yf"], name="conv", pads=[1, 1, 1, 1]),
        helper.make_node("QuantizeLinear", ["yf", "ys", "yz"], ["y"]),
    ]
    return _model(nodes, inits, x_shape, [("y", _elem(act))])


def _session(model, int8_allowed=None, optimize=True, path=None):
    return ort.session(model, int8_allowed, optimize, path)


def _ort_fused(model, tmp_path, int8_allowed):
    """The integer kinds in the graph ONNX Runtime runs, and every kind there."""
    import onnx

    path = tmp_path / "optimized.onnx"
    _session(model, int8_allowed, path=path)
    kinds = [n.op_type for n in onnx.load(str(path)).graph.node]
    return sorted(k for k in kinds if k in INTEGER_ORT), kinds


def _dyadic_x(shape, seed=0):
    return (np.random.default_rng(seed).integers(-60, 61, shape) / 64).astype(F32)


def _w(shape, dtype=I8, seed=1):
    return np.random.default_rng(seed).integers(-20, 21, shape).astype(dtype)  # no AVX2 pair saturation


COLS = (2.0 ** -np.arange(5, 13)).astype(F32)  # 8 dyadic per-column scales
ROWS16 = (2.0 ** -np.resize(np.arange(5, 9), 16)).astype(F32)
W = _w((16, 8))
WSQ = _w((16, 16))
u8z, i8z = U8(128), I8(0)

MATMULS = {
    "per tensor": (qdq(W, F32(1 / 32), i8z, F32(1 / 64), u8z, F32(1 / 4), u8z), ["QLinearMatMul"], None),
    "w per column (axis 1)": (
        qdq(W, COLS, np.zeros(8, I8), F32(1 / 64), u8z, F32(1 / 4), u8z, w_axis=1),
        ["QLinearMatMul"],
        None,
    ),
    "w per column (axis -1)": (
        qdq(W, COLS, np.zeros(8, I8), F32(1 / 64), u8z, F32(1 / 4), u8z, w_axis=-1),
        ["QLinearMatMul"],
        None,
    ),
    "w per row, square": (qdq(WSQ, ROWS16, np.zeros(16, I8), F32(1 / 64), u8z, F32(1 / 4), u8z, w_axis=0), [], None),
    "w per row": (qdq(_w((16, 4)), ROWS16, np.zeros(16, I8), F32(1 / 64), u8z, F32(1 / 4), u8z, w_axis=0), [], None),
    "y per column": (qdq(W, F32(1 / 32), i8z, F32(1 / 64), u8z, COLS * 64, np.full(8, 128, U8), y_axis=1), [], None),
    "x per K": (qdq(W, F32(1 / 32), i8z, ROWS16, np.full(16, 128, U8), F32(1 / 4), u8z, x_axis=1), [], None),
    "zero points left out": (qdq(W, F32(1 / 32), None, F32(1 / 64), None, F32(1 / 4), None), ["QLinearMatMul"], None),
    "int8 x int8 -> int8 graph output": (
        qdq(W, F32(1 / 32), i8z, F32(1 / 64), i8z, F32(1 / 4), i8z),
        [],
        ["QLinearMatMul"],
    ),
    "int8 x int8 -> uint8": (qdq(W, F32(1 / 32), i8z, F32(1 / 64), i8z, F32(1 / 4), u8z), ["QLinearMatMul"], []),
    "uint8 x int8 -> int8": (qdq(W, F32(1 / 32), i8z, F32(1 / 64), u8z, F32(1 / 4), i8z), [], None),
    "uint8 x uint8": (
        qdq((W + 20).astype(U8), F32(1 / 32), U8(20), F32(1 / 64), u8z, F32(1 / 4), u8z),
        ["QLinearMatMul"],
        None,
    ),
    "Relu, output zero point 0": (
        qdq(W, F32(1 / 32), i8z, F32(1 / 64), u8z, F32(1 / 4), U8(0), after=("Relu", {})),
        ["QLinearMatMul"],
        None,
    ),
    "Relu, output zero point 128": (
        qdq(W, F32(1 / 32), i8z, F32(1 / 64), u8z, F32(1 / 4), u8z, after=("Relu", {})),
        [],
        None,
    ),
    "Clip wider than the output": (
        qdq(W, F32(1 / 32), i8z, F32(1 / 64), u8z, F32(1 / 4), u8z, after=("Clip", {"lo": F32(-40), "hi": F32(40)})),
        ["QLinearMatMul"],
        None,
    ),
    "Clip narrower than the output": (
        qdq(W, F32(1 / 32), i8z, F32(1 / 64), u8z, F32(1 / 4), u8z, after=("Clip", {"lo": F32(-6), "hi": F32(6)})),
        [],
        None,
    ),
    "no QuantizeLinear": (qdq(W, F32(1 / 32), i8z, F32(1 / 64), u8z), ["MatMulIntegerToFloat"], None),
    "no QuantizeLinear, w per column": (
        qdq(W, COLS, np.zeros(8, I8), F32(1 / 64), u8z, w_axis=1),
        ["MatMulIntegerToFloat"],
        None,
    ),
    "no QuantizeLinear, int8 x uint8": (
        qdq((W + 20).astype(U8), F32(1 / 32), U8(20), F32(1 / 64), i8z),
        ["MatMulIntegerToFloat"],
        [],
    ),
}


def _shared_dq_int8():
    """Two MatMuls read one int8 activation DQ: ONNX Runtime copies the DQ first, so its Q is read twice and stays
    int8 on x86."""
    from onnx import helper

    m = qdq(W, F32(1 / 32), i8z, F32(1 / 64), i8z, F32(1 / 4), i8z)
    g = m.graph
    g.node.extend(
        [
            helper.make_node("DequantizeLinear", ["y", "ys", "yz"], ["yd"]),
            helper.make_node("MatMul", ["xd", "wd"], ["yf2"], name="mm2"),
            helper.make_node("QuantizeLinear", ["yf2", "ys", "yz"], ["y2"]),
            helper.make_node("DequantizeLinear", ["y2", "ys", "yz"], ["yd2"]),
        ]
    )
    del g.output[:]
    g.output.extend([helper.make_tensor_value_info(o, 1, None) for o in ("yd", "yd2")])
    return m


def _relu_and_another_reader(relu_readers):
    """MatMul -> Relu -> ..., the product or the Relu read by a second node (Neg, Abs: exact in float)."""
    from onnx import helper

    if relu_readers == 1:  # MatMul -> Relu -> Q (redundant: zero point 0), and MatMul -> Neg
        m = qdq(W, F32(1 / 32), i8z, F32(1 / 64), u8z, F32(1 / 4), U8(0), after=("Relu", {}))
        m.graph.node.append(helper.make_node("Neg", ["mm"], ["n"]))
        m.graph.output.append(helper.make_tensor_value_info("n", 1, None))
        return m
    m = qdq(W, F32(1 / 32), i8z, F32(1 / 64), u8z, after=("Relu", {}))  # MatMul -> Relu -> Neg, Abs
    m.graph.node.extend([helper.make_node("Neg", ["yf"], ["n"]), helper.make_node("Abs", ["yf"], ["a"])])
    del m.graph.output[:]
    m.graph.output.extend([helper.make_tensor_value_info(o, 1, None) for o in ("n", "a")])
    return m


MATMULS["int8 activation DQ read by two MatMuls"] = (_shared_dq_int8(), [], ["QLinearMatMul", "QLinearMatMul"])
# ONNX Runtime drops the redundant Relu first: then the product has two readers, and no group is fused.
MATMULS["redundant Relu, product read elsewhere too"] = (_relu_and_another_reader(1), [], None)
# A Relu with two readers is not part of a group: the MatMul alone becomes MatMulIntegerToFloat.
MATMULS["no QuantizeLinear, Relu read twice"] = (_relu_and_another_reader(2), ["MatMulIntegerToFloat"], None)


@pytest.mark.parametrize("int8_allowed", [False, True], ids=["x86 default", "qdqisint8allowed"])
@pytest.mark.parametrize("case", sorted(MATMULS))
def test_matmul_groups_are_fused_where_onnxruntime_fuses_them(case, int8_allowed, tmp_path):
    model, fused, fused_int8 = MATMULS[case]
    want = fused_int8 if int8_allowed and fused_int8 is not None else fused
    got_ort, _ = _ort_fused(model, tmp_path, int8_allowed)
    assert got_ort == want  # the table above is ONNX Runtime's behaviour
    ours = integer_nodes(model, qdq_int8_allowed=int8_allowed)
    assert sorted(t for _, t in ours) == sorted(AS_INTDOT[k] for k in want)
    x = _dyadic_x((8, 16))
    expect = _session(model, int8_allowed).run(None, {"x": x})
    got = quant.run(model, {"x": x}, op="usdot", platform=ort.platform(), qdq_int8_allowed=int8_allowed)
    for (name, g), e in zip(got.items(), expect):
        assert g.dtype == e.dtype and np.array_equal(g, e), name


def test_a_misread_axis_is_not_an_error_about_a_node_the_model_lacks():
    """The audit's case: per-row weight scales on a non-square weight used to be fused and then refused with a
    message about a QLinearMatMul node; it runs in float, as in ONNX Runtime."""
    model = MATMULS["w per row"][0]
    x = _dyadic_x((8, 16))
    got = quant.run(model, {"x": x}, op="usdot", platform=ort.platform())["y"]
    assert np.array_equal(got, _session(model).run(None, {"x": x})[0])


CONV_W = _w((3, 3, 3, 3), seed=2)
S3 = (2.0 ** -np.array([5, 6, 7])).astype(F32)
BIAS = np.array([1000, -2000, 3000], np.int32)
PRODUCT = (F32(1 / 64) * S3).astype(F32)
CONVS = {
    "per tensor": (qdq_conv(CONV_W, F32(1 / 32), i8z), True),
    "w per output channel": (qdq_conv(CONV_W, S3, np.zeros(3, I8), w_axis=0), True),
    "bias at x_scale * w_scale": (qdq_conv(CONV_W, S3, np.zeros(3, I8), w_axis=0, bias=BIAS, bs=PRODUCT), True),
    "bias scale 0.5% off": (qdq_conv(CONV_W, S3, np.zeros(3, I8), w_axis=0, bias=BIAS, bs=PRODUCT * F32(1.005)), True),
    "bias scale 5% off": (qdq_conv(CONV_W, S3, np.zeros(3, I8), w_axis=0, bias=BIAS, bs=PRODUCT * F32(1.05)), False),
    "bias scale 10x": (qdq_conv(CONV_W, S3, np.zeros(3, I8), w_axis=0, bias=BIAS, bs=PRODUCT * 10), False),
    "bias zero point 5": (
        qdq_conv(CONV_W, S3, np.zeros(3, I8), w_axis=0, bias=BIAS, bs=PRODUCT, bz=np.array([0, 5, 0], np.int32)),
        False,
    ),
    "int8 x int8 -> int8 graph output": (qdq_conv(CONV_W, F32(1 / 32), i8z, act=I8), False),
}


@pytest.mark.parametrize("case", sorted(CONVS))
def test_conv_groups_are_fused_where_onnxruntime_fuses_them(case, tmp_path):
    model, fused = CONVS[case]
    assert _ort_fused(model, tmp_path, False)[0] == (["QLinearConv"] if fused else [])
    assert [t for _, t in integer_nodes(model)] == (["QLinearConv"] if fused else [])
    x = _dyadic_x((1, 3, 6, 6))
    got = quant.run(model, {"x": x}, op="usdot", platform=ort.platform())["y"]
    assert np.array_equal(got, _session(model).run(None, {"x": x})[0])


def test_bias_scale_is_what_onnxruntime_reads_it_as():
    """Within its tolerance ONNX Runtime adds the int32 bias as if its scale were x_scale * w_scale: the model's
    own float meaning (optimizations off) is a different answer, and intdot gives ONNX Runtime's."""
    big = np.array([40000, -80000, 160000], np.int32)  # about 20 in float: 0.5% of it moves outputs
    model = qdq_conv(CONV_W, S3, np.zeros(3, I8), w_axis=0, bias=big, bs=PRODUCT * F32(1.005))
    x = _dyadic_x((1, 3, 6, 6))
    want = _session(model).run(None, {"x": x})[0]
    assert not np.array_equal(want, _session(model, optimize=False).run(None, {"x": x})[0])
    assert np.array_equal(quant.run(model, {"x": x}, op="sdot4")["y"], want)


def test_conv_weight_scales_along_input_channels_run_as_the_model_states(tmp_path):
    """ONNX Runtime fuses this group and reads the weight scales per output channel (docs/differences.md); intdot
    does not fuse it and gives the model's answer, ONNX Runtime's with its optimizations off."""
    model = qdq_conv(CONV_W, S3, np.zeros(3, I8), w_axis=1)
    assert _ort_fused(model, tmp_path, False)[0] == ["QLinearConv"]
    assert integer_nodes(model) == []
    x = _dyadic_x((1, 3, 6, 6))
    got = quant.run(model, {"x": x}, op="usdot", platform=ort.platform())["y"]
    assert np.array_equal(got, _session(model, optimize=False).run(None, {"x": x})[0])


def test_sixteen_bit_activations_run_in_float(tmp_path):
    """Never fused (ONNX Runtime's QLinearMatMul takes 8-bit operands); ONNX Runtime computes this MatMul with its
    MatMulNBits kernel instead, not modelled: intdot gives the model's float answer."""
    model = qdq(W, F32(1 / 32), i8z, F32(1 / 1024), np.uint16(32768), F32(1 / 256), np.uint16(32768))
    _, kinds = _ort_fused(model, tmp_path, False)
    assert "MatMulNBits" in kinds
    assert integer_nodes(model) == []
    x = _dyadic_x((8, 16))
    got = quant.run(model, {"x": x}, op="usdot", platform=ort.platform())["y"]
    assert np.array_equal(got, _session(model, optimize=False).run(None, {"x": x})[0])


def test_four_bit_weights_run_in_float(tmp_path):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    w4 = W.clip(-8, 7).astype(ml_dtypes.int4)
    model = qdq(w4, F32(1 / 32), np.array(0, ml_dtypes.int4), F32(1 / 64), u8z, F32(1 / 4), u8z)
    assert _ort_fused(model, tmp_path, False)[0] == [] and integer_nodes(model) == []
    x = _dyadic_x((8, 16))
    assert np.array_equal(
        quant.run(model, {"x": x}, op="usdot", platform=ort.platform())["y"], _session(model).run(None, {"x": x})[0]
    )


@pytest.mark.parametrize("case", ["zero points left out", "no QuantizeLinear", "int8 x int8 -> uint8"])
def test_fusing_changes_the_bits(case):
    """Realistic (not dyadic) data: ONNX Runtime's fused result differs from the model's float arithmetic, and
    intdot's is ONNX Runtime's."""
    rng = np.random.default_rng(21)
    w = rng.integers(-3, 4, (64, 64)).astype(I8)
    z = {"zero points left out": (None, None, None), "int8 x int8 -> uint8": (i8z, i8z, u8z)}.get(case, (i8z, u8z, u8z))
    ys = None if case == "no QuantizeLinear" else F32(0.3)
    model = qdq(w, F32(0.1), z[0], F32(0.1), z[1], ys, z[2] if ys is not None else None, x_shape=(512, 64))
    x = (0.1 * rng.integers(-8, 8, (512, 64))).astype(F32)
    want = _session(model, False).run(None, {"x": x})[0]  # int8 moved to uint8, on Arm too
    assert not np.array_equal(want, _session(model, optimize=False).run(None, {"x": x})[0])
    for op in ("usdot", "sdot4", "udot4"):
        got = next(iter(quant.run(model, {"x": x}, op=op, qdq_int8_allowed=False, platform=ort.platform()).values()))
        assert got.dtype == want.dtype and np.array_equal(got, want), op


@pytest.mark.parametrize(
    "flag, int8_allowed",
    [
        ([], False),
        (["--qdq-int8-allowed"], True),
        (["--platform", "arm"], True),
        (["--platform", "arm", "--no-qdq-int8-allowed"], False),
        (["--platform", "x86", "--no-qdq-int8-allowed"], False),
    ],
    ids=["x86 default", "qdqisint8allowed", "arm default", "arm without", "x86 without"],
)
def test_the_command_line_takes_onnxruntimes_int8_setting(flag, int8_allowed, tmp_path, capsys):
    """``intdot run --qdq-int8-allowed`` is ``session.qdqisint8allowed=1``, ``--no-qdq-int8-allowed`` 0, and
    without either ONNX Runtime's default on ``--platform`` (1 on Arm): the same groups fused as ONNX Runtime
    fuses with it, the same outputs."""
    import json

    from intdot.cli import main

    model = MATMULS["int8 activation DQ read by two MatMuls"][0]
    path, x = tmp_path / "m.onnx", _dyadic_x((8, 16))
    path.write_bytes(model.SerializeToString())
    np.savez(tmp_path / "x.npz", x=x)
    args = ["run", str(path), "--op", "sdot4", "--inputs", str(tmp_path / "x.npz"), "--json", *flag]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["qdq_int8_allowed"] is int8_allowed and out["platform"] == ("arm" if "arm" in flag else "x86")
    want, _ = _ort_fused(model, tmp_path, int8_allowed)
    assert sorted(n["type"] for n in out["integer_nodes"]) == sorted(AS_INTDOT[k] for k in want)
    expect = _session(model, int8_allowed).run(None, {"x": x})
    assert [o["values"] for o in out["outputs"].values()] == [e.tolist() for e in expect]


# --- cases from the review of the rules: ONNX Runtime's graph and outputs against intdot's ----------------------

BIAS_N = (np.arange(8) / 8 - 0.5).astype(F32)  # dyadic, so that the float paths are exact


def _as_constant_nodes(model, names):
    """``model`` with the initializers ``names`` turned into Constant nodes (as exporters write them)."""
    from onnx import helper

    out = type(model)()
    out.CopyFrom(model)
    inits = {t.name: t for t in out.graph.initializer}
    consts = [helper.make_node("Constant", [], [n], value=inits[n]) for n in names]
    keep = [t for t in out.graph.initializer if t.name not in names]
    del out.graph.initializer[:]
    out.graph.initializer.extend(keep)
    nodes = consts + list(out.graph.node)
    del out.graph.node[:]
    out.graph.node.extend(nodes)
    return out


def _ir3(model):
    """``model`` as IR version 3 writes it: every initializer also a graph input (opset 10)."""
    from onnx import helper

    out = type(model)()
    out.CopyFrom(model)
    out.ir_version = 3
    del out.opset_import[:]
    out.opset_import.extend([helper.make_opsetid("", 10)])
    out.graph.input.extend(
        helper.make_tensor_value_info(t.name, t.data_type, list(t.dims)) for t in out.graph.initializer
    )
    return out


REVIEWED = {
    # ONNX Runtime's MatMulAddFusion makes MatMul + Add a float Gemm before its QDQ rules look (a QGemm with a Q).
    "MatMul -> Add (N,): Gemm": (qdq(W, F32(1 / 32), i8z, F32(1 / 64), u8z, after=("Add", {"bias": BIAS_N})), (8, 16)),
    "MatMul -> Add (N,) -> Q: QGemm": (
        qdq(W, F32(1 / 32), i8z, F32(1 / 64), u8z, F32(1 / 4), u8z, after=("Add", {"bias": BIAS_N})),
        (8, 16),
    ),
    "3-D x, MatMul -> Add (N,): Gemm": (
        qdq(W, F32(1 / 32), i8z, F32(1 / 64), u8z, x_shape=(2, 8, 16), after=("Add", {"bias": BIAS_N})),
        (2, 8, 16),
    ),
    "MatMul -> Add (1, 1): no Gemm": (
        qdq(W, F32(1 / 32), i8z, F32(1 / 64), u8z, after=("Add", {"bias": np.full((1, 1), 0.25, F32)})),
        (8, 16),
    ),
    "MatMul -> Add (M, 1): Gemm": (
        qdq(W, F32(1 / 32), i8z, F32(1 / 64), u8z, after=("Add", {"bias": np.full((8, 1), 0.25, F32)})),
        (8, 16),
    ),
    "3-D w per column": (
        qdq(np.stack([W, W]), COLS, np.zeros(8, I8), F32(1 / 64), u8z, F32(1 / 4), u8z, w_axis=2, x_shape=(2, 8, 16)),
        (2, 8, 16),
    ),
    "int8 zero points as Constant nodes": (
        _as_constant_nodes(qdq(W, F32(1 / 32), i8z, F32(1 / 64), I8(0), F32(1 / 4), I8(0)), ["xz", "yz", "wz"]),
        (8, 16),
    ),
    "conv, bias per channel, weights per tensor": (
        qdq_conv(CONV_W, F32(1 / 32), i8z, bias=BIAS, bs=np.full(3, F32(1 / 64) * F32(1 / 32), F32)),
        (1, 3, 6, 6),
    ),
    "IR 3: initializers listed as inputs": (
        _ir3(qdq(W, F32(1 / 32), i8z, F32(1 / 64), I8(0), F32(1 / 4), I8(0))),
        (8, 16),
    ),
    "Clip with a lower bound only": (
        qdq(W, F32(1 / 32), i8z, F32(1 / 64), u8z, F32(1 / 4), U8(0), after=("Clip", {"lo": F32(0)})),
        (8, 16),
    ),
    # The output zero point left out: fused on Arm, where the selector's int32 conversion of inf saturates, and
    # left in float on x86, where it gives INT32_MIN.
    "Clip with a lower bound only, no output zero point": (
        qdq(W, F32(1 / 32), i8z, F32(1 / 64), u8z, F32(1 / 4), None, after=("Clip", {"lo": F32(0)})),
        (8, 16),
    ),
}


@pytest.mark.parametrize("case", sorted(REVIEWED))
def test_reviewed_groups_are_fused_where_onnxruntime_fuses_them(case, tmp_path):
    model, shape = REVIEWED[case]
    want, kinds = _ort_fused(model, tmp_path, False)
    ours = integer_nodes(model, qdq_int8_allowed=False, platform=ort.platform())
    assert sorted(t for _, t in ours) == sorted(AS_INTDOT[k] for k in want), kinds
    x = _dyadic_x(shape)
    expect = _session(model, False).run(None, {"x": x})
    got = quant.run(model, {"x": x}, op="usdot", qdq_int8_allowed=False, platform=ort.platform())
    for (name, g), e in zip(got.items(), expect):
        assert g.dtype == e.dtype and np.array_equal(g, e), name
