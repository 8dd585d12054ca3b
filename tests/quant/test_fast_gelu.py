"""``com.microsoft`` FastGelu (the tanh GELU) against ONNX Runtime's kernel, and its FastGeluFusion of the two tanh
GELU chains (TensorFlow's and PyTorch's ``gelu_new``, GPT-2's) against ``prepare``: whether it fused, as ONNX
Runtime's optimized graph says, and its bits through ``run`` (the host's ONNX Runtime, or with INTDOT_ORT=arm ONNX
Runtime for AArch64)."""

import numpy as np
import pytest

from intdot import quant
from intdot.quant.float_kernels import gelu

from . import ort
from .fusions import check_fusion, fusion_cases
from .graph_builder import Nodes
from .test_layer_norm import _same
from .test_matmul_add_fusion import _model

F32 = np.float32


def _x(rng, shape):
    x = (rng.standard_normal(shape) * 4).astype(F32)
    x.reshape(-1)[:8] = [np.inf, -np.inf, np.nan, 0, -0.0, 20, -20, 1e-30]
    return x


@pytest.mark.parametrize("bias", [False, True])
def test_fast_gelu_as_onnx_runtime(bias):
    """Every element through MLAS's tanh, the argument as the C++ forms it (fused on Arm); with bias, x + bias
    first."""
    ort.need()
    rng = np.random.default_rng(bias)
    x = _x(rng, (3, 4100))
    inputs = [x] + ([rng.standard_normal(4100).astype(F32)] if bias else [])
    want = ort.run("FastGelu", inputs, domain="com.microsoft", out_type=1)
    model = ort.node_model("FastGelu", inputs, domain="com.microsoft", out_type=1)
    got = quant.run(model, {f"in{i}": v for i, v in enumerate(inputs)}, op="sdot4", platform=ort.platform())["y"]
    _same(got, want, bias)
    assert np.array_equal(got, gelu((x + inputs[1]).astype(F32) if bias else x, "tanh", ort.platform()),
                          equal_nan=True)  # fmt: skip


def _chain(formula="pow", opset=13, half_first=True, cube_first=False, out_first=False, output=None, extra=None,
           cube=0.044715, shape=(2, 8, 24)):  # fmt: skip
    """``h = MatMul(x, W)``, a tanh GELU of ``h``, then ``MatMul(., W2)``; the GELU in one of FastGeluFusion's
    formulas (``"pow"``: ``0.5 * h * (1 + tanh(0.7978 * (h + 0.044715 * Pow(h, 3))))``; ``"mul"``: ``0.5 * h * (1 +
    tanh(0.7978 * h * (1 + 0.044715 * h * h)))``), operands in either order; ``output``/``extra``: a value inside
    also a graph output / also read by a Neg."""
    g = Nodes(opset + len(formula))
    node, const = g.node, g.const
    h = node("MatMul", ["x", g.weight("w", (shape[-1], shape[-1]), 1.0)], "h")
    c = const("cube", np.array(cube, F32))
    s = const("s2pi", np.array(0.7978845608, F32))
    one = const("one", np.array(1.0, F32))
    if formula == "pow":
        p = node("Pow", [h, const("three", np.array(3.0, F32))], "p")
        inner = node("Mul", [node("Add", [h, node("Mul", [c, p] if cube_first else [p, c], "cp")], "a1"), s], "m2")
    else:
        m1 = node("Mul", [c, h] if cube_first else [h, c], "m1")
        a1 = node("Add", [node("Mul", [m1, h], "m2"), one], "a1")
        inner = node("Mul", [a1, node("Mul", [s, h], "m4")], "m3")
    t = node("Add", [node("Tanh", [inner], "t"), one], "a2")
    c_half = const("half", np.array(0.5, F32))
    half = node("Mul", [c_half, h] if half_first else [h, c_half], "hh")
    y = node("Mul", [t, half] if out_first else [half, t], "gelu")
    node("MatMul", [y, g.weight("w2", (shape[-1], 4), 0.5)], "y")  # (a graph output ends no chain it fuses)
    outs = ["y"] + ([output] if output else []) + ([node("Neg", [extra], "neg")] if extra else [])
    return _model(g, [("x", shape)], outs, opset), {"x": (g.rng.standard_normal(shape)).astype(F32)}


def _fast(graph):
    return [list(n.input) for n in graph.node if n.op_type == "FastGelu"]


FUSED = [{}, {"formula": "mul"}, {"formula": "mul", "opset": 17}, {"half_first": False}, {"cube_first": True},
         {"out_first": True}, {"formula": "mul", "cube_first": True, "half_first": False, "out_first": True},
         {"opset": 14}, {"opset": 15}, {"opset": 17}, {"cube": 0.0447151}, {"extra": "gelu"}]  # fmt: skip
# (Where 0.5 * x is also read elsewhere, ONNX Runtime 1.32 removes it all the same and refuses its own graph; here
# such a chain is left apart.)
NOT_FUSED = [{"output": "t"}, {"extra": "a1"}, {"cube": 0.0448},
             {"formula": "mul", "extra": "m4"}, {"formula": "mul", "output": "a2"}, {"output": "gelu"}]  # fmt: skip


@fusion_cases(FUSED, NOT_FUSED)
def test_fast_gelu_fusion_as_onnx_runtime(kw, fused, tmp_path):
    ort.need()
    check_fusion(*_chain(**kw), tmp_path, _fast, kw, fused)
