"""A pre-LN transformer encoder block (LayerNormalization, multi-head attention with Softmax, a GELU MLP written as
PyTorch exports it, residual Adds) quantized by ``onnxruntime.quantization.quantize_static`` (QDQ) and run through
``run``: every output bit as ONNX Runtime computes it, and the nodes its optimizer runs, kind for kind.
The integer nodes (QLinearMatMul, QLinearAdd, QLinearMul, QLinearSoftmax) and the float ones left between them
(LayerNormalization, the GELU's Div and Erf) all take part."""

import numpy as np
import pytest
from onnx import TensorProto, helper

from intdot import quant

from . import ort
from .graph_builder import Nodes

F32 = np.float32
S, D, H = 8, 32, 4


def _block(gelu="erf"):
    """The float model: x [1, S, D] -> y [1, S, D]; ``gelu="tanh"``: GPT-2's tanh GELU (``gelu_new``) in place of
    PyTorch's erf one."""
    g = Nodes(0)
    inits, nodes, weight, const, node = g.inits, g.nodes, g.weight, g.const, g.node

    def linear(x, n_in, n_out, name):
        product = node("MatMul", [x, weight(f"{name}_w", (n_in, n_out))], f"{name}_mm")
        return node("Add", [product, weight(f"{name}_b", (n_out,), 0.1)], name)

    def layer_norm(x, name):
        params = [weight(f"{name}_g", (D,), 1.0), weight(f"{name}_b", (D,), 0.1)]
        return node("LayerNormalization", [x, *params], name, axis=-1, epsilon=1e-5)

    def heads(t, perm):
        return node("Transpose", [node("Reshape", [t, "heads"], f"{t}_r")], f"{t}_t", perm=perm)

    const("heads", np.array([1, S, H, D // H], np.int64))
    h = layer_norm("x", "ln1")
    q, k, v = (linear(h, D, D, n) for n in "qkv")
    scores = node("MatMul", [heads(q, [0, 2, 1, 3]), heads(k, [0, 2, 3, 1])], "scores")
    scaled = node("Mul", [scores, const("scale", np.array(1 / np.sqrt(D // H), F32))], "scaled")
    probs = node("Softmax", [scaled], "probs", axis=-1)
    context = node("Transpose", [node("MatMul", [probs, heads(v, [0, 2, 1, 3])], "ctx")], "ctx_t", perm=[0, 2, 1, 3])
    context = node("Reshape", [context, const("merged", np.array([1, S, D], np.int64))], "ctx_r")
    x2 = node("Add", ["x", linear(context, D, D, "o")], "x2")
    f = linear(layer_norm(x2, "ln2"), D, 4 * D, "f1")
    if gelu == "tanh":
        cube = node("Mul", [node("Pow", [f, const("three", np.array(3, F32))], "g_pow"),
                            const("c", np.array(0.044715, F32))], "g_cube")  # fmt: skip
        inner = node("Mul", [node("Add", [f, cube], "g_sum"), const("s", np.array(np.sqrt(2 / np.pi), F32))], "g_in")
        erf = node("Tanh", [inner], "g_erf")
    else:
        erf = node("Erf", [node("Div", [f, const("sqrt2", np.array(np.sqrt(2), F32))], "g_div")], "g_erf")
    one = node("Add", [erf, const("one", np.array(1, F32))], "g_add")
    if gelu == "tanh":  # 0.5 * x * (1 + tanh(...)), as gelu_new writes it
        gelu = node("Mul", [node("Mul", [const("half", np.array(0.5, F32)), f], "g_half"), one], "gelu")
    else:
        gelu = node("Mul", [node("Mul", [f, one], "g_mul"), const("half", np.array(0.5, F32))], "gelu")
    node("Add", [x2, linear(gelu, 4 * D, D, "f2")], "y")
    io = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, S, D]) for n in ("x", "y")]
    graph = helper.make_graph(nodes, "block", io[:1], io[1:], inits)
    return helper.make_model(graph, ir_version=9, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize("activations, per_channel", [("QUInt8", False), ("QUInt8", True), ("QInt8", False)])
def test_quantized_transformer_block(activations, per_channel, tmp_path):
    import onnx
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

    ort.need()

    class Reader(CalibrationDataReader):
        def __init__(self):
            rng = np.random.default_rng(1)
            self.data = iter([{"x": rng.standard_normal((1, S, D)).astype(F32)} for _ in range(16)])

        def get_next(self):
            return next(self.data, None)

    onnx.save(_block(), tmp_path / "f.onnx")
    quantize_static(tmp_path / "f.onnx", tmp_path / "q.onnx", Reader(), quant_format=QuantFormat.QDQ,
                    activation_type=getattr(QuantType, activations), weight_type=QuantType.QInt8,
                    per_channel=per_channel)  # fmt: skip
    model = onnx.load(tmp_path / "q.onnx")
    prepared = quant.prepare(model, platform=ort.platform())
    optimized = tmp_path / "optimized.onnx"
    for seed in range(4):
        x = (np.random.default_rng(100 + seed).standard_normal((1, S, D)) * 1.5).astype(F32)
        want = ort.session(model, optimized_path=optimized if seed == 0 else None).run(None, {"x": x})[0]
        got = quant.run(prepared, x, op="usdot", platform=ort.platform())["y"]
        assert got.tobytes() == want.tobytes(), (seed, int((got != want).sum()))
    # ONNX Runtime also drops the Q/DQ pairs of equal parameters around the Reshapes and Transposes (its
    # DropQDQNodes rule), which changes no value; run keeps them (docs/differences.md, row 11).
    kinds = lambda m: sorted(n.op_type for n in m.graph.node if n.op_type not in ("QuantizeLinear", "DequantizeLinear"))  # noqa: E731
    theirs = kinds(onnx.load(optimized))
    assert kinds(prepared.model) == theirs
    assert "QLinearMatMul" in theirs and "LayerNormalization" in theirs


@pytest.mark.parametrize("weights, per_channel, gelu", [("QInt8", False, "erf"), ("QInt8", True, "erf"),
                                                        ("QUInt8", False, "erf"),
                                                        ("QInt8", False, "tanh")])  # fmt: skip
def test_dynamically_quantized_transformer_block(weights, per_channel, gelu, tmp_path):
    """``quantize_dynamic``: each Linear's MatMul becomes ONNX Runtime's DynamicQuantizeMatMul or
    MatMulIntegerToFloat (run computes them as DynamicQuantizeLinear, MatMulInteger, Cast and Mul, the same bits);
    the attention's MatMuls, LayerNormalization, Softmax and the GELU stay in float (GPT-2's tanh GELU becomes
    ONNX Runtime's FastGelu, in both graphs)."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    ort.need()
    onnx.save(_block(gelu), tmp_path / "f.onnx")
    quantize_dynamic(tmp_path / "f.onnx", tmp_path / "d.onnx", weight_type=getattr(QuantType, weights),
                     per_channel=per_channel)  # fmt: skip
    model = onnx.load(tmp_path / "d.onnx")
    prepared = quant.prepare(model, platform=ort.platform())
    optimized = tmp_path / "optimized.onnx"
    session = ort.session(model, neon=True, optimized_path=optimized)
    fast = [sum(n.op_type == "FastGelu" for n in m.graph.node) for m in (onnx.load(optimized), prepared.model)]
    assert fast == [gelu == "tanh"] * 2, fast
    for seed in range(3):
        x = (np.random.default_rng(200 + seed).standard_normal((1, S, D)) * 1.5).astype(F32)
        want = session.run(None, {"x": x})[0]
        got = quant.run(prepared, x, op="usdot", platform=ort.platform())["y"]
        assert got.tobytes() == want.tobytes(), (seed, int((got != want).sum()))
