"""Random transformer blocks through ``run`` against ONNX Runtime, bit for bit: pre- or post-LN, the attention's
scale a Div or a Mul (exact or not), PyTorch's erf GELU, GPT-2's tanh GELU or a Relu, MLPs whose K spans one SGEMM
block or several, fixed or symbolic batch and sequence; left in float or quantized by ``quantize_dynamic`` or
``quantize_static`` (QDQ), or with 4-bit weights by ``MatMulNBitsQuantizer`` (MatMulNBits).  Each
block meets several of ONNX Runtime's float fusions at once (MatMulAdd, MatMulScale, MatmulTranspose, Gelu,
FastGelu, SkipLayerNorm), so this checks them together, in the order it runs them.  A few blocks by default; the
volume run (``--slow``) draws 100."""

import numpy as np
import pytest
from onnx import TensorProto, helper

from intdot import quant

from . import ort
from .graph_builder import Nodes

F32 = np.float32


def _block(rng):
    """A random block and its description."""
    d = int(rng.choice([16, 24, 32, 40]))
    what = dict(d=d, heads=int(rng.choice([h for h in (1, 2, 4, 8) if d % h == 0])), s=int(rng.choice([1, 3, 8])),
                post_ln=bool(rng.integers(2)), scale=str(rng.choice(["Div", "Mul"])),
                gelu=str(rng.choice(["erf", "tanh", "relu"])), ratio=int(rng.choice([2, 4, 8])),
                symbolic=bool(rng.integers(2)))  # fmt: skip
    return block(**what, seed=int(rng.integers(1 << 30))), what["s"], d, what


def block(d=32, heads=4, s=8, post_ln=True, scale="Div", gelu="erf", ratio=4, symbolic=False, epsilon=1e-5, seed=0):
    """An encoder block on x [1, s, d] (declared [batch, seq, d] where ``symbolic``): self-attention whose scores
    are scaled by a ``scale`` node (Div by ``sqrt(d / heads)`` or Mul by its reciprocal), a residual Add, an MLP of
    ``ratio * d`` with ``gelu`` ("erf": PyTorch's chain; "tanh": GPT-2's; or "relu"), a residual Add; each residual
    then a LayerNormalization (``post_ln``, BERT's), or one before each half (GPT-2's)."""
    g = Nodes(seed)
    node, weight, const = g.node, g.weight, g.const
    scale_op = scale

    def linear(t, n_in, n_out, name):
        return node("Add", [node("MatMul", [t, weight(f"{name}_w", (n_in, n_out))], f"{name}_mm"),
                            weight(f"{name}_b", (n_out,), 0.1)], name)  # fmt: skip

    def layer_norm(t, name):
        params = [weight(f"{name}_g", (d,), 1.0), weight(f"{name}_beta", (d,), 0.1)]
        return node("LayerNormalization", [t, *params], name, axis=-1, epsilon=epsilon)

    const("heads", np.array([0, -1, heads, d // heads], np.int64))  # (one initializer: each split reads it)

    def split(t, perm):
        r = node("Reshape", [t, "heads"], f"{t}_r")
        return node("Transpose", [r], f"{t}_t", perm=perm)

    h = "x" if post_ln else layer_norm("x", "ln1")
    q, k, v = (linear(h, d, d, n) for n in "qkv")
    scores = node("MatMul", [split(q, [0, 2, 1, 3]), split(k, [0, 2, 3, 1])], "scores")
    root = np.sqrt(d // heads)
    factor = np.array(root if scale_op == "Div" else 1 / root, F32)
    probs = node("Softmax", [node(scale_op, [scores, const("scale", factor)], "sc")], "probs", axis=-1)
    ctx = node("Transpose", [node("MatMul", [probs, split(v, [0, 2, 1, 3])], "ctx")], "ctx_t", perm=[0, 2, 1, 3])
    ctx = node("Reshape", [ctx, const("merged", np.array([0, -1, d], np.int64))], "ctx_r")
    r1 = node("Add", ["x", linear(ctx, d, d, "o")], "res1")
    h1 = layer_norm(r1, "ln_a") if post_ln else r1
    f_in = h1 if post_ln else layer_norm(h1, "ln2")
    f = linear(f_in, d, ratio * d, "f1")
    if gelu == "relu":
        act = node("Relu", [f], "act")
    elif gelu == "erf":
        erf = node("Erf", [node("Div", [f, const("sqrt2", np.array(np.sqrt(2), F32))], "g_div")], "g_erf")
        act = node("Mul", [node("Mul", [f, node("Add", [erf, const("one", np.array(1, F32))], "g_add")], "g_mul"),
                           const("half", np.array(0.5, F32))], "act")  # fmt: skip
    else:
        cube = node("Mul", [node("Pow", [f, const("three", np.array(3, F32))], "g_pow"),
                            const("c", np.array(0.044715, F32))], "g_cube")  # fmt: skip
        inner = node("Mul", [node("Add", [f, cube], "g_sum"), const("s2pi", np.array(np.sqrt(2 / np.pi), F32))], "g_in")
        one = node("Add", [node("Tanh", [inner], "g_t"), const("one", np.array(1, F32))], "g_add")
        act = node("Mul", [node("Mul", [const("half", np.array(0.5, F32)), f], "g_half"), one], "act")
    r2 = node("Add", [h1, linear(act, ratio * d, d, "f2")], "res2")
    if post_ln:
        layer_norm(r2, "y")
    else:
        node("Identity", [r2], "y")
    dims = ["batch", "seq", d] if symbolic else [1, s, d]
    ins = [helper.make_tensor_value_info("x", TensorProto.FLOAT, dims)]
    outs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]
    return helper.make_model(helper.make_graph(g.nodes, "block", ins, outs, g.inits), ir_version=9,
                             opset_imports=[helper.make_opsetid("", 17)])  # fmt: skip


class _Reader:
    """Calibration inputs for quantize_static."""

    def __init__(self, s, d):
        rng = np.random.default_rng(1)
        self.data = iter([{"x": rng.standard_normal((1, s, d)).astype(F32)} for _ in range(8)])

    def get_next(self):
        return next(self.data, None)


def _check(seed, tmp_path, int4=False):
    import onnx
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_dynamic, quantize_static

    rng = np.random.default_rng(seed)
    model, s, d, what = _block(rng)
    mode = str(rng.choice(["float", "QInt8", "QUInt8", "static QUInt8", "static QInt8"]))
    per_channel = bool(rng.integers(2))
    if int4:  # weight-only: MatMulNBits of 4 bits (int8 products at accuracy level 4, modelled on x86)
        block, level = int(rng.choice([16, 32, 64, 128])), int(rng.choice([0, 4] if not ort.on_arm() else [0]))
        mode = f"int4 block {block} level {level}"
        model = _int4(model, block, level, bool(rng.integers(2)))
    elif mode != "float":
        onnx.save(model, tmp_path / "f.onnx")
        kind = getattr(QuantType, mode.split()[-1])
        if mode.startswith("static"):
            quantize_static(tmp_path / "f.onnx", tmp_path / "q.onnx", _Reader(s, d), quant_format=QuantFormat.QDQ,
                            activation_type=kind, weight_type=QuantType.QInt8, per_channel=per_channel)  # fmt: skip
        else:
            quantize_dynamic(tmp_path / "f.onnx", tmp_path / "q.onnx", weight_type=kind, per_channel=per_channel)
        model = onnx.load(tmp_path / "q.onnx")
    session = ort.session(model, neon=True)
    prepared = quant.prepare(model, platform=ort.platform())
    for k in range(2):
        x = (rng.standard_normal((1, s, d)) * (1.5 + k)).astype(F32)
        want = session.run(None, {"x": x})[0]
        got = quant.run(prepared, x, op="usdot", platform=ort.platform())["y"]
        assert got.tobytes() == want.tobytes(), (seed, mode, what, int((got != want).sum()))


def _int4(model, block, level, symmetric):
    from ..oracles import missing

    try:
        from onnxruntime.quantization.matmul_nbits_quantizer import DefaultWeightOnlyQuantConfig, MatMulNBitsQuantizer
    except ImportError:  # it imports onnx_ir, which onnxruntime does not require
        missing("onnxruntime's MatMulNBitsQuantizer", "pip install onnx-ir (make test installs it)")
    config = DefaultWeightOnlyQuantConfig(block_size=block, is_symmetric=symmetric, accuracy_level=level or None)
    quantizer = MatMulNBitsQuantizer(model, algo_config=config)
    quantizer.process()
    return quantizer.model.model


@pytest.mark.parametrize("seed", range(6))
def test_random_blocks(seed, tmp_path):
    ort.need()
    _check(seed, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(100, 200))
def test_random_blocks_volume(seed, tmp_path):
    ort.need()
    _check(seed, tmp_path)


@pytest.mark.parametrize("seed", range(4))
def test_random_int4_blocks(seed, tmp_path):
    """The blocks with 4-bit weights (MatMulNBitsQuantizer): its projections and MLP become MatMulNBits nodes."""
    ort.need()
    _check(seed, tmp_path, int4=True)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(300, 350))
def test_random_int4_blocks_volume(seed, tmp_path):
    ort.need()
    _check(seed, tmp_path, int4=True)
