"""``com.microsoft`` SkipLayerNormalization and SkipSimplifiedLayerNormalization against ONNX Runtime's CPU kernel,
bit for bit (output and input_skip_bias_sum): row lengths on both sides of every threshold LayerNormalization has
(x86's MLAS kernel from 8 and 16, Arm's vectorized squares from 7 and 26), with and without beta and bias, skip
read across batches, special values; then ONNX Runtime's SkipLayerNormFusion, in each of its forms and each
condition that stops it, against ``prepare``'s graph; then a post-LN encoder block quantized by ``quantize_dynamic``,
whose residual Adds ONNX Runtime fuses, through ``run``.

The host's ONNX Runtime (or, with INTDOT_ORT=arm, ONNX Runtime for AArch64) first; then QEMU's Haswell CPU
(``platform="x86-avx2"``) and ONNX Runtime for AArch64 on a NEON-only and an SVE CPU, each skipped, visibly, where its
oracle is missing."""

import numpy as np
import pytest
from onnx import TensorProto, helper

from intdot import quant
from intdot.core.errors import OperandError, OperandTypeError
from intdot.quant.skip_layer_norm import skip_layer_norm

from ..oracles import arm_ort
from . import ort
from .fusions import check_fusion, fusion_cases
from .graph_builder import Nodes
from .test_layer_norm import _same
from .test_transformer_variants import block

F32 = np.float32
SIZES = [1, 2, 3, 5, 6, 7, 8, 9, 15, 16, 17, 26, 27, 33, 64, 100, 768]
# (beta, bias, simplified)
VARIANTS = [(True, True, False), (True, False, False), (False, True, False), (False, False, False),
            (False, True, True), (False, False, True)]  # fmt: skip


def _node_model(x_shape, skip_shape, beta, bias, simplified, epsilon=1e-5, sum_out=True):
    n = x_shape[-1]
    op = "SkipSimplifiedLayerNormalization" if simplified else "SkipLayerNormalization"
    names = ["x", "skip", "gamma"] + ([] if simplified else ["beta" if beta else ""]) + (["bias"] if bias else [])
    shapes = {"x": x_shape, "skip": skip_shape}
    ins = [helper.make_tensor_value_info(m, TensorProto.FLOAT, list(shapes.get(m, (n,)))) for m in names if m]
    outs = ["y"] + (["", "", "sum"] if sum_out else [])
    node = helper.make_node(op, names, outs, domain="com.microsoft", epsilon=epsilon)
    values = [helper.make_tensor_value_info(o, TensorProto.FLOAT, list(x_shape)) for o in outs if o]
    graph = helper.make_graph([node], "g", ins, values)
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
    return helper.make_model(graph, ir_version=10, opset_imports=opsets)


def _inputs(rng, x_shape, skip_shape, beta, bias):
    """Rows of mixed magnitudes and offsets (large offsets make Welford's variance cancel); gamma with a zero."""
    outer = (x_shape[0],) + (1,) * (len(x_shape) - 1)
    x = rng.standard_normal(x_shape) * rng.choice([1e-3, 1, 20, 3e3], outer) + rng.choice([0, 1, -50, 1e4], outer)
    n = x_shape[-1]
    v = {"x": x.astype(F32), "skip": rng.standard_normal(skip_shape).astype(F32)}
    v["gamma"] = rng.standard_normal(n).astype(F32)
    v["gamma"][:1] = 0
    for name, on in (("beta", beta), ("bias", bias)):
        if on:
            v[name] = (rng.standard_normal(n) * 2).astype(F32)
    return v


def _check(session, platform, x_shape, skip_shape=None, variant=VARIANTS[0], seed=0, epsilon=1e-5, values=None):
    """One node run by ``session`` (a function of the model) and by :func:`skip_layer_norm`; returns ONNX Runtime's
    outputs and the inputs."""
    beta, bias, simplified = variant
    skip_shape = x_shape if skip_shape is None else skip_shape
    v = values or _inputs(np.random.default_rng(seed), x_shape, skip_shape, beta, bias)
    want = session(_node_model(x_shape, skip_shape, beta, bias, simplified, epsilon)).run(None, v)
    got = skip_layer_norm(v["x"], v["skip"], v["gamma"], v.get("beta"), v.get("bias"), epsilon, platform,
                          simplified=simplified)  # fmt: skip
    for g, w, what in zip(got, want, ("output", "input_skip_bias_sum")):
        _same(g, w, (x_shape, skip_shape, variant, what))
    return want, v


@pytest.mark.parametrize("n", SIZES)
def test_skip_layer_norm_as_onnx_runtime(n):
    ort.need()
    for k, variant in enumerate(VARIANTS):
        _check(ort.session, ort.platform(), (2, 5, n), variant=variant, seed=n * 8 + k)


@pytest.mark.parametrize("x_shape, skip_shape", [((3, 4, 9), (4, 9)), ((3, 4, 9), (1, 4, 9)), ((6, 20), (6, 20)),
                                                 ((2, 3, 33), (2, 3, 33)), ((0, 3, 8), (3, 8))])  # fmt: skip
def test_skip_shapes_as_onnx_runtime(x_shape, skip_shape):
    """A skip without a batch, or of batch 1, is read again for every batch; 2-D input."""
    ort.need()
    for k, variant in enumerate(VARIANTS):
        _check(ort.session, ort.platform(), x_shape, skip_shape, variant, seed=k)


@pytest.mark.parametrize("n", [4, 9, 20, 33])
def test_special_values_as_onnx_runtime(n):
    """Infinities, NaN, zeros, -0.0 (in input, skip and their sum), huge and subnormal rows; epsilon 0 and 0.5."""
    ort.need()
    rng = np.random.default_rng(n)
    for epsilon in (1e-12, 0.0, 0.5):
        for variant in VARIANTS:
            v = _inputs(rng, (1, 8, n), (1, 8, n), *variant[:2])
            x, skip = v["x"][0], v["skip"][0]
            x[0, 1], x[1, 2], skip[2, 0] = np.inf, -np.inf, np.nan
            x[3], skip[3], x[4], x[5], skip[5], x[6, ::2], x[7], skip[7] = 0, 0, 1e30, 1e-42, 0, 3e38, -0.0, -0.0
            _check(ort.session, ort.platform(), (1, 8, n), variant=variant, epsilon=epsilon, values=v)


def test_errors():
    x, g = np.ones((2, 3, 4), F32), np.ones(4, F32)
    assert skip_layer_norm(x, x, g)[0].shape == x.shape
    with pytest.raises(OperandError, match="input.shape"):
        skip_layer_norm(np.ones((2, 3, 4, 4), F32), x, g)
    with pytest.raises(OperandError, match=r"skip.shape=\(3, 3\)"):
        skip_layer_norm(x, np.ones((3, 3), F32), g)
    with pytest.raises(OperandError, match=r"skip.shape=\(1, 3, 4\) for input.shape=\(3, 4\)"):
        skip_layer_norm(x[0], x[:1], g)
    with pytest.raises(OperandError, match=r"gamma.shape=\(3,\)"):
        skip_layer_norm(x, x, np.ones(3, F32))
    with pytest.raises(OperandError, match="bias.shape"):
        skip_layer_norm(x, x, g, bias=np.ones((1, 4), F32))
    with pytest.raises(OperandError, match="beta: SkipSimplified"):
        skip_layer_norm(x, x, g, g, simplified=True)
    with pytest.raises(OperandError, match="epsilon=-1"):
        skip_layer_norm(x, x, g, epsilon=-1)
    with pytest.raises(OperandTypeError, match="skip has dtype float64"):
        skip_layer_norm(x, x.astype(np.float64), g)
    with pytest.raises(OperandError, match="platform"):
        skip_layer_norm(x, x, g, platform="riscv")


def test_x86_avx2_as_onnx_runtime():
    """QEMU's Haswell CPU: the C++ loops have no AVX-512 path, so the bits are AVX-512F's; this says so."""
    from ..oracles import x86_ort

    x86_ort.require()

    def session(model):
        return x86_ort.Session(model.SerializeToString())

    for n in (3, 8, 17, 33, 100):
        for k, variant in enumerate(VARIANTS):
            _check(session, "x86-avx2", (1, 4, n), variant=variant, seed=n + k)


@pytest.mark.parametrize("cpu, platform", [("neoverse-n1", "arm"), ("max,sme=off,sve-default-vector-length=64",
                                                                   "arm-sve512")])  # fmt: skip
def test_on_arm_as_onnx_runtime(cpu, platform):
    """ONNX Runtime for AArch64 on a NEON-only and an SVE CPU (the same C++ on both); x86's bits differ."""
    arm_ort.require()

    def session(model):
        return arm_ort.Session(model.SerializeToString(), cpu)

    differs = 0
    for n in (3, 6, 7, 8, 17, 27, 33, 100):
        for k, variant in enumerate(VARIANTS):
            want, v = _check(session, platform, (1, 4, n), variant=variant, seed=n + k)
            x86 = skip_layer_norm(v["x"], v["skip"], v["gamma"], v.get("beta"), v.get("bias"), 1e-5, "x86",
                                  simplified=variant[2])[0]  # fmt: skip
            differs += not np.array_equal(x86.view(np.uint32), want[0].view(np.uint32))
    assert differs > 10, "x86's loops should give other bits than Arm's here"  # the test tells them apart


# SkipLayerNormFusion: Add (+ a bias Add before it) -> LayerNormalization, as ONNX Runtime's optimizer writes it.


def _block(form="bias second", shape=(2, 4, 16), dims=None, ln_bias=True, epsilon=1e-5, extra=None, output=None,
           bias_shape=None, opset=17, skip_shape=None):  # fmt: skip
    """``x -> MatMul(W) [-> Add(bias)] -> Add(residual) -> LayerNormalization -> y``; ``form``: where the bias Add
    is ("bias second": the residual Add's second input, "bias first", "none", "both inputs": each input of the
    residual Add a bias Add's); ``dims``: the declared dimensions of x (names for symbolic ones); ``extra``: a value
    also read by a Neg whose output is a second graph output; ``output``: a value also a graph output."""
    g = Nodes(sum(shape))
    n = shape[-1]
    ins = [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(dims or shape))]
    h = g.node("MatMul", ["x", g.weight("w", (n, n))], "h")
    bias = g.weight("b", bias_shape or (n,), 0.5)
    r = "x"
    if skip_shape is not None:
        ins.append(helper.make_tensor_value_info("r", TensorProto.FLOAT, list(skip_shape)))
        r = "r"
    if form == "bias second":
        s = g.node("Add", [r, g.node("Add", [h, bias], "hb")], "s")
    elif form == "bias first":
        s = g.node("Add", [g.node("Add", [h, bias], "hb"), r], "s")
    elif form == "both inputs":
        s = g.node("Add", [g.node("Add", [h, bias], "hb"), g.node("Add", [r, g.weight("b2", (n,))], "rb")], "s")
    else:
        s = g.node("Add", [r, h], "s")
    params = [g.weight("gamma", (n,), 1.0)] + ([g.weight("beta", (n,), 0.3)] if ln_bias else [])
    attrs = {} if epsilon is None else {"epsilon": epsilon}
    if opset >= 17:
        g.node("LayerNormalization", [s, *params], "y", axis=-1, **attrs)
    else:  # torch.onnx's decomposed layer norm: ONNX Runtime's LayerNormFusion first
        mean = g.node("ReduceMean", [s], "mean", axes=[-1])
        d = g.node("Sub", [s, mean], "d")
        var = g.node("ReduceMean", [g.node("Pow", [d, g.const("two", np.array(2, F32))], "sq")], "var", axes=[-1])
        sd = g.node("Sqrt", [g.node("Add", [var, g.const("eps", np.array(epsilon or 1e-5, F32))], "ve")], "sd")
        m = g.node("Mul", [g.node("Div", [d, sd], "q"), params[0]], "m")
        g.node("Add", [m, params[1]], "y")
    outs = ["y"] + ([output] if output else [])
    if extra:
        outs.append(g.node("Neg", [extra], "neg"))
    values = [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outs]
    model = helper.make_model(helper.make_graph(g.nodes, "block", ins, values, g.inits), ir_version=10,
                              opset_imports=[helper.make_opsetid("", opset)])  # fmt: skip
    feeds = {"x": g.rng.standard_normal(shape).astype(F32) * 2}
    if skip_shape is not None:
        feeds["r"] = g.rng.standard_normal(skip_shape).astype(F32)
    return model, feeds


def _skips(graph):
    """The SkipLayerNormalization nodes of ``graph``: (inputs, outputs, epsilon)."""
    return [(list(n.input), list(n.output), next((a.f for a in n.attribute if a.name == "epsilon"), None))
            for n in graph.node if n.op_type == "SkipLayerNormalization"]  # fmt: skip


# Each Add the MatMul writes becomes a Gemm first where x's shape is fixed (MatMulAddFusion): the bias Add is then
# SkipLayerNormFusion's only where a dimension is symbolic.
FUSED = [{}, {"form": "bias first"}, {"form": "none"}, {"form": "both inputs"}, {"ln_bias": False},
         {"epsilon": None}, {"epsilon": 1e-3}, {"dims": ("batch", 4, 16)}, {"dims": ("batch", "seq", 16)},
         {"dims": (2, "seq", 16)}, {"dims": ("batch", "seq", 16), "form": "bias first"},
         {"dims": ("batch", "seq", 16), "form": "both inputs"}, {"dims": ("batch", "seq", 16), "ln_bias": False},
         {"opset": 13}, {"opset": 14}, {"opset": 13, "dims": ("batch", "seq", 16)}, {"bias_shape": (1, 1, 16)},
         {"skip_shape": (2, 4, 16), "form": "none"}, {"shape": (1, 3, 100)}, {"extra": "hb"}, {"output": "hb"},
         {"dims": ("batch", "seq", 16), "extra": "hb"}, {"dims": ("batch", "seq", 16), "output": "hb"}]  # fmt: skip
NOT_FUSED = [{"extra": "s"}, {"output": "s"}, {"skip_shape": (4, 16), "form": "none"},
             {"skip_shape": (1, 4, 16), "form": "none"}, {"shape": (4, 16)}]  # fmt: skip


@fusion_cases(FUSED, NOT_FUSED)
def test_skip_layer_norm_fusion_as_onnx_runtime(kw, fused, tmp_path):
    """Fused (and into what) or not as ONNX Runtime's optimized graph says, and its bits through run."""
    ort.need()
    check_fusion(*_block(**kw), tmp_path, _skips, kw, fused)


def test_mean_output_is_refused():
    """ONNX Runtime's CPU kernel writes no mean: a node that asks for it is an error naming the output."""
    model = _node_model((1, 2, 4), (1, 2, 4), True, False, False)
    model.graph.node[0].output[1] = "mean"
    model.graph.output.append(helper.make_tensor_value_info("mean", TensorProto.FLOAT, None))
    v = _inputs(np.random.default_rng(0), (1, 2, 4), (1, 2, 4), True, False)
    with pytest.raises(OperandError, match="'mean'.*does not write"):
        quant.run(model, v, op="sdot4")


@pytest.mark.parametrize("dims, weights, per_channel", [((1, 8, 32), "QInt8", False), (("batch", "seq", 32), "QInt8",
                         True), (("batch", "seq", 32), "QUInt8", False), ((1, 8, 32), None, False)])  # fmt: skip
def test_post_ln_encoder_block(dims, weights, per_channel, tmp_path):
    """A BERT block quantized by ``quantize_dynamic`` (or left in float: ``weights`` None): ONNX Runtime makes each
    residual Add and the LayerNormalization after it one SkipLayerNormalization (the float block's bias Adds go to
    the Gemms first, the quantized one's to its DynamicQuantizeMatMuls); run gives its bits."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    ort.need()
    model = block(symbolic=not isinstance(dims[0], int), epsilon=1e-12, seed=40)
    if weights is not None:
        onnx.save(model, tmp_path / "f.onnx")
        quantize_dynamic(tmp_path / "f.onnx", tmp_path / "d.onnx", weight_type=getattr(QuantType, weights),
                         per_channel=per_channel)  # fmt: skip
        model = onnx.load(tmp_path / "d.onnx")
    optimized = tmp_path / "optimized.onnx"
    session = ort.session(model, optimized_path=optimized, neon=True)
    theirs = [n.input[:] for n in onnx.load(optimized).graph.node if n.op_type == "SkipLayerNormalization"]
    prepared = quant.prepare(model, platform=ort.platform())
    ours = [n.input[:] for n in prepared.model.graph.node if n.op_type == "SkipLayerNormalization"]
    # two where x's dimensions are fixed; with symbolic ones the attention's Reshape leaves its output's unnamed
    assert len(theirs) == (2 if all(isinstance(d, int) for d in dims) else 1), theirs
    assert [len(t) for t in ours] == [len(t) for t in theirs], (theirs, ours)
    for seed in range(3):
        x = (np.random.default_rng(300 + seed).standard_normal((1, 8, 32)) * 1.5).astype(F32)
        want = session.run(None, {"x": x})[0]
        got = quant.run(prepared, x, op="usdot", platform=ort.platform())["y"]
        assert got.tobytes() == want.tobytes(), (seed, int((got != want).sum()))


def test_float16_is_left_apart():
    """A float16 Add and LayerNormalization stay two nodes (SkipLayerNormalization is modelled in float32) and run."""
    g = Nodes(2)
    params = [g.const("gamma", np.ones(8, np.float16)), g.const("beta", np.zeros(8, np.float16))]
    g.node("LayerNormalization", [g.node("Add", ["x", "r"], "s"), *params], "y", axis=-1)
    ins = [helper.make_tensor_value_info(n, TensorProto.FLOAT16, [1, 2, 8]) for n in ("x", "r")]
    out = helper.make_tensor_value_info("y", TensorProto.FLOAT16, None)
    graph = helper.make_graph(g.nodes, "g", ins, [out], g.inits)
    model = helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", 17)])
    assert [n.op_type for n in quant.prepare(model).model.graph.node] == ["Add", "LayerNormalization"]
    x = np.random.default_rng(0).standard_normal((1, 2, 8)).astype(np.float16)
    assert quant.run(model, {"x": x, "r": x}, op="sdot4")["y"].dtype == np.float16
