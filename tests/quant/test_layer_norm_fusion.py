"""ONNX Runtime's LayerNormFusion and SimplifiedLayerNormFusion against intdot's ``fuse_layer_norm``: for each form
of the decomposed chains and each condition that keeps them apart, ONNX Runtime's optimized graph says whether (and
into what) it fused, ``prepare``'s graph must say the same, and ``run`` gives ONNX Runtime's bits (the host's ONNX
Runtime, or with INTDOT_ORT=arm ONNX Runtime for AArch64)."""

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from intdot import quant

from . import ort
from .fusions import fusion_cases
from .graph_builder import Nodes
from .test_float_kernels import _same

F32 = np.float32


def _chain(kind="ln", opset=17, shape=(2, 3, 16), axes=(-1,), axes2=None, sub="x-mean", dup_sub=False, eps=1e-5,
           eps_first=False, exp=2.0, exp_dtype=F32, div="sub/sqrt", mul="div*g", add="mul+b", g_shape=None,
           b_shape=None, gamma="init", output=None, extra=None, keepdims=None, cast=(), declare=True):  # fmt: skip
    """A decomposed layer norm (``kind="ln"``: ReduceMean, Sub, Pow, ReduceMean, Add(epsilon), Sqrt, Div, Mul(gamma),
    Add(beta)) or RMSNorm (``"rms"``: Pow, ReduceMean, Add, Sqrt, Div, Mul) of ``x``, in one of its forms: operand
    orders (``sub``, ``div``, ``mul``, ``add``, ``eps_first``), PyTorch's old duplicated Sub, no-op Casts (``cast``:
    "lead", "mid", "exp", "div"), ReduceMean's axes as an input from opset 18; ``eps=None``: a graph input;
    ``exp=None``: a graph input; ``gamma``: "init", "input" or "neg" (computed); ``output``: a value inside also a
    graph output; ``extra``: a value inside also read by another node; ``declare=False``: x of unknown rank."""
    n = shape[-1]
    g_shape = (n,) if g_shape is None else g_shape
    b_shape = (n,) if b_shape is None else b_shape
    axes2 = axes if axes2 is None else axes2
    g = Nodes(len(shape) + n)
    rng, inits, nodes, const, node = g.rng, g.inits, g.nodes, g.const, g.node
    ins = [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape) if declare else None)]

    def rmean(inp, out, ax, tag):
        kw = {} if keepdims is None else {"keepdims": keepdims}
        if opset >= 18:
            return node("ReduceMean", [inp, const(f"axes{tag}", np.array(ax, np.int64))], out, **kw)
        return node("ReduceMean", [inp], out, axes=list(ax), **kw)

    x = node("Cast", ["x"], "xc", to=TensorProto.FLOAT) if "lead" in cast else "x"
    if kind == "ln":
        rmean(x, "mean", axes, 1)
        d = node("Sub", [x, "mean"] if sub == "x-mean" else ["mean", x], "d")
        d_pow = d_div = d
        if dup_sub:
            d_div = node("Sub", [x, "mean"], "d2")
        if "mid" in cast:
            d_pow = d_div = node("Cast", [d], "dc", to=TensorProto.FLOAT)
    else:
        d_pow = d_div = x
    if exp is None:
        e = "expin"
        ins.append(helper.make_tensor_value_info(e, TensorProto.FLOAT, []))
    else:
        e = const("two", np.array(exp, exp_dtype))
    if "exp" in cast:
        e = node("Cast", [e], "twoc", to=TensorProto.FLOAT)
    node("Pow", [d_pow, e], "sq")
    rmean("sq", "var", axes2, 2)
    if eps is None:
        ec = "epsin"
        ins.append(helper.make_tensor_value_info(ec, TensorProto.FLOAT, []))
    else:
        ec = const("eps", np.array(eps, F32))
    node("Add", [ec, "var"] if eps_first else ["var", ec], "ve")
    node("Sqrt", ["ve"], "sd")
    q = node("Div", [d_div, "sd"] if div == "sub/sqrt" else ["sd", d_div], "q")
    if "div" in cast:
        q = node("Cast", [q], "qc", to=TensorProto.FLOAT)
    values = {"gamma": (rng.standard_normal(g_shape) * 0.5 + 1).astype(F32)}
    if gamma == "init":
        const("gamma", values["gamma"])
    else:
        name = "gamma" if gamma == "input" else "gin"
        ins.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, list(g_shape)))
        values[name] = values.pop("gamma") * (-1 if gamma == "neg" else 1)
        if gamma == "neg":
            node("Neg", ["gin"], "gamma")
    last = "y" if kind == "rms" else "m"
    node("Mul", [q, "gamma"] if mul == "div*g" else ["gamma", q], last)
    if kind == "ln":
        const("beta", (rng.standard_normal(b_shape) * 0.5).astype(F32))
        node("Add", ["m", "beta"] if add == "mul+b" else ["beta", "m"], "y")
    outs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]
    if output:
        outs.append(helper.make_tensor_value_info(output, TensorProto.FLOAT, None))
    if extra:
        node("Neg", [extra], "extra_out")
        outs.append(helper.make_tensor_value_info("extra_out", TensorProto.FLOAT, None))
    feeds = {"x": (rng.standard_normal(shape) * 3 + 1).astype(F32)}
    feeds.update({k: v for k, v in values.items() if k != "gamma" or gamma == "input"})
    if eps is None:
        feeds["epsin"] = np.array(1e-3, F32)
    if exp is None:
        feeds["expin"] = np.array(2.0, F32)
    graph = helper.make_graph(nodes, "g", ins, outs, inits)
    model = helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", opset)])
    return model, feeds


def _fused(graph):
    """The normalization nodes of ``graph``: (type, domain, inputs, outputs, axis, epsilon)."""
    out = []
    for n in graph.node:
        if n.op_type in ("LayerNormalization", "SimplifiedLayerNormalization"):
            attrs = {a.name: helper.get_attribute_value(a) for a in n.attribute}
            out.append((n.op_type, n.domain, list(n.input), list(n.output), attrs.get("axis"), attrs.get("epsilon")))
    return out


def _check(model, feeds, tmp_path, what, inputs_as_ort=True):
    """ONNX Runtime's optimized graph and prepare's hold the same normalization nodes, and run gives its bits."""
    import onnx

    optimized = tmp_path / "optimized.onnx"
    want = ort.session(model, optimized_path=optimized).run(None, feeds)
    theirs = _fused(onnx.load(optimized).graph)
    ours = _fused(quant.prepare(model, platform=ort.platform()).model.graph)
    if not inputs_as_ort:  # a no-op Cast ONNX Runtime removed before fusing: the node reads the Cast's input
        theirs, ours = [t[:2] + t[3:] for t in theirs], [t[:2] + t[3:] for t in ours]
    assert ours == theirs, (what, theirs, ours)
    got = quant.run(model, feeds, op="sdot4", platform=ort.platform())
    for (name, value), w in zip(got.items(), want):
        _same(value, w, (what, name))
    return theirs


FUSED = [
    {}, {"opset": 14}, {"opset": 18}, {"opset": 11}, {"opset": 7}, {"kind": "rms"}, {"kind": "rms", "opset": 18},
    {"sub": "mean-x"}, {"div": "sqrt/sub"}, {"mul": "g*div"}, {"add": "b+mul"}, {"eps": 1e-3, "eps_first": True},
    {"eps": np.array([[1e-3]], F32)}, {"exp": 3.0}, {"exp": None}, {"dup_sub": True}, {"dup_sub": True, "opset": 13},
    {"axes": (2,)}, {"axes": (-1,), "axes2": (2,)}, {"opset": 18, "axes": (2,)}, {"shape": (16,)},
    {"shape": (4, 16), "axes": (1,)}, {"declare": False}, {"gamma": "input"}, {"gamma": "neg"},
    {"g_shape": (1,), "b_shape": (1,)}, {"keepdims": 0, "shape": (16, 16)}, {"extra": "x"},
    {"cast": ("lead", "mid", "div")}, {"cast": ("exp",), "exp_dtype": np.float64}, {"cast": ("mid",), "opset": 7},
    {"kind": "rms", "mul": "g*div"}, {"kind": "rms", "eps": 1e-3, "eps_first": True},
    {"kind": "rms", "exp": 2, "exp_dtype": np.int64}, {"kind": "rms", "exp": np.array([2.0], F32)},
    {"kind": "rms", "cast": ("exp",), "exp_dtype": np.float64}, {"kind": "rms", "cast": ("div",)},
    {"kind": "rms", "extra": "x"}, {"kind": "rms", "keepdims": 0, "shape": (16, 16)}, {"kind": "rms", "shape": (7,)},
    {"shape": (2, 5)}, {"kind": "rms", "shape": (3, 40)},
]  # fmt: skip

# Where ONNX Runtime leaves the layer norm, and (some) where its SimplifiedLayerNormFusion then takes the chain's
# tail: Pow(d, 2) -> ReduceMean -> Add -> Sqrt -> Div(d, .) -> Mul(gamma), the Add(beta) left after it.
NOT_FUSED = [
    {"eps": None}, {"eps": np.linspace(1e-3, 2e-3, 16).astype(F32)}, {"g_shape": (1, 16)}, {"g_shape": ()},
    {"b_shape": (1,)}, {"axes": (-2, -1)}, {"axes": (-2,)}, {"axes": (0,), "shape": (16,)},
    {"declare": False, "axes": (2,)}, {"exp": 2, "exp_dtype": np.int32}, {"output": "mean"}, {"output": "d"},
    {"output": "sq"}, {"output": "var"}, {"output": "ve"}, {"output": "sd"}, {"output": "q"}, {"output": "m"},
    {"extra": "mean"}, {"extra": "d"}, {"extra": "q"}, {"extra": "m"}, {"kind": "rms", "eps": None},
    {"kind": "rms", "exp": 4.0}, {"kind": "rms", "exp": 2.0000002}, {"kind": "rms", "exp": None},
    {"kind": "rms", "div": "sqrt/sub"}, {"kind": "rms", "g_shape": (1, 16)}, {"kind": "rms", "output": "sq"},
    {"kind": "rms", "extra": "var"}, {"kind": "rms", "extra": "q"}, {"kind": "rms", "axes": (-2, -1)},
    {"kind": "rms", "axes": (2,), "declare": False},
]  # fmt: skip


@fusion_cases(FUSED, NOT_FUSED, default="torch-like")
def test_layer_norm_fusion_as_onnx_runtime(kw, fused, tmp_path):
    """Each form and each condition: fused (and into what) or not as ONNX Runtime's optimized graph says, and its
    bits through run."""
    ort.need()
    model, feeds = _chain(**kw)
    theirs = _check(model, feeds, tmp_path, kw, inputs_as_ort="lead" not in kw.get("cast", ()))
    full = "SimplifiedLayerNormalization" if kw.get("kind") == "rms" else "LayerNormalization"
    assert fused == any(t[0] == full and t[-3] == ["y"] for t in theirs), (kw, theirs)


def _torch_layer_norm(opset=14, shape=(2, 7, 32), dq=False):
    """A Linear then an nn.LayerNorm over the last axis, as torch.onnx.export (TorchScript, opsets 9 to 16) writes
    them with constant folding: ReduceMean(axes=[-1]), Sub, Pow by a float scalar Constant, ReduceMean, Add of the
    epsilon's scalar Constant, Sqrt, Div, Mul by the weight, Add of the bias (the initializers ``ln.weight`` and
    ``ln.bias``); ``dq``: a QuantizeLinear/DequantizeLinear pair before the layer norm."""
    rng = np.random.default_rng(opset)
    c = shape[-1]
    inits = [numpy_helper.from_array((rng.standard_normal((c, c)) * 0.3).astype(F32), "onnx::MatMul_20"),
             numpy_helper.from_array((rng.standard_normal(c) * 0.2).astype(F32), "fc.bias"),
             numpy_helper.from_array((rng.standard_normal(c) * 0.3 + 1).astype(F32), "ln.weight"),
             numpy_helper.from_array((rng.standard_normal(c) * 0.1).astype(F32), "ln.bias")]  # fmt: skip

    def scalar(name, v):
        return helper.make_node("Constant", [], [name], name=name.rsplit("_output", 1)[0],
                                value=numpy_helper.from_array(np.array(v, F32)))  # fmt: skip

    h = "/fc/Add_output_0"
    nodes = [helper.make_node("MatMul", ["input", "onnx::MatMul_20"], ["/fc/MatMul_output_0"], name="/fc/MatMul"),
             helper.make_node("Add", ["fc.bias", "/fc/MatMul_output_0"], [h], name="/fc/Add")]  # fmt: skip
    if dq:
        inits += [numpy_helper.from_array(np.array(0.04, F32), "h_scale"),
                  numpy_helper.from_array(np.array(128, np.uint8), "h_zp")]  # fmt: skip
        nodes += [helper.make_node("QuantizeLinear", [h, "h_scale", "h_zp"], ["h_q"]),
                  helper.make_node("DequantizeLinear", ["h_q", "h_scale", "h_zp"], ["h_dq"])]  # fmt: skip
        h = "h_dq"
    ln = "/ln/"
    nodes += [
        helper.make_node("ReduceMean", [h], [ln + "ReduceMean_output_0"], name=ln + "ReduceMean", axes=[-1]),
        helper.make_node("Sub", [h, ln + "ReduceMean_output_0"], [ln + "Sub_output_0"], name=ln + "Sub"),
        scalar(ln + "Constant_output_0", 2.0),
        helper.make_node("Pow", [ln + "Sub_output_0", ln + "Constant_output_0"], [ln + "Pow_output_0"],
                         name=ln + "Pow"),
        helper.make_node("ReduceMean", [ln + "Pow_output_0"], [ln + "ReduceMean_1_output_0"],
                         name=ln + "ReduceMean_1", axes=[-1]),
        scalar(ln + "Constant_1_output_0", 1e-5),
        helper.make_node("Add", [ln + "ReduceMean_1_output_0", ln + "Constant_1_output_0"], [ln + "Add_output_0"],
                         name=ln + "Add"),
        helper.make_node("Sqrt", [ln + "Add_output_0"], [ln + "Sqrt_output_0"], name=ln + "Sqrt"),
        helper.make_node("Div", [ln + "Sub_output_0", ln + "Sqrt_output_0"], [ln + "Div_output_0"], name=ln + "Div"),
        helper.make_node("Mul", [ln + "Div_output_0", "ln.weight"], [ln + "Mul_output_0"], name=ln + "Mul"),
        helper.make_node("Add", [ln + "Mul_output_0", "ln.bias"], ["output"], name=ln + "Add_1"),
    ]  # fmt: skip
    graph = helper.make_graph(
        nodes, "main_graph", [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", *shape[1:]])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, ["batch", *shape[1:]])], inits,
    )  # fmt: skip
    model = helper.make_model(graph, ir_version=8, opset_imports=[helper.make_opsetid("", opset)])
    x = (rng.standard_normal(shape) * 2).astype(F32)
    return model, {"input": x}


@pytest.mark.parametrize("opset", [14, 15, 16, 17])
def test_torch_exported_layer_norm(opset, tmp_path):
    """nn.LayerNorm as torch.onnx exports it before opset 17 (and the same chain at 17): one LayerNormalization,
    axis -1, torch's epsilon, as ONNX Runtime makes it; run gives its bits."""
    ort.need()
    model, feeds = _torch_layer_norm(opset)
    theirs = _check(model, feeds, tmp_path, opset)
    assert [t[0] for t in theirs] == ["LayerNormalization"] and theirs[0][4] == -1, theirs
    assert theirs[0][2] == ["/fc/Add_output_0", "ln.weight", "ln.bias"], theirs


def test_a_layer_norm_on_a_dequantized_value(tmp_path):
    """ONNX Runtime gives each reader of a DequantizeLinear its own copy first: the ReduceMean and the Sub then read
    two values and the layer norm stays, but its SimplifiedLayerNormFusion takes the chain from the Pow on (the
    Sub's output read by the Pow and the Div); run gives its bits."""
    ort.need()
    model, feeds = _torch_layer_norm(14, dq=True)
    theirs = _check(model, feeds, tmp_path, "dq")
    assert [t[0] for t in theirs] == ["SimplifiedLayerNormalization"], theirs
    rms, feeds = _chain("rms")
    graph = rms.graph
    graph.input[0].name = "qin"
    graph.input[0].type.tensor_type.elem_type = TensorProto.UINT8
    graph.initializer.extend([numpy_helper.from_array(np.array(0.05, F32), "qs"),
                              numpy_helper.from_array(np.array(128, np.uint8), "qz")])  # fmt: skip
    graph.node.insert(0, helper.make_node("DequantizeLinear", ["qin", "qs", "qz"], ["x"]))
    q = np.random.default_rng(3).integers(0, 256, (2, 3, 16), dtype=np.uint8)
    assert _check(rms, {"qin": q}, tmp_path, "dq rms") == []


@pytest.mark.parametrize("ops", [None, ["MatMul"]])
@pytest.mark.parametrize("opset", [14, 17])
def test_quantize_static_layer_norm(opset, ops, tmp_path):
    """A torch-exported Linear + LayerNorm quantized by onnxruntime.quantization.quantize_static (QDQ): what ONNX
    Runtime fuses of its layer norm, intdot fuses, and run gives its bits.  Quantizing every operator it can puts
    Q/DQ pairs inside the chain (its Add, Mul, ...): nothing fuses; quantizing the MatMul alone leaves the chain
    float, on the float Add after it: one LayerNormalization."""
    ort.need()
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, quantize_static

    model, feeds = _torch_layer_norm(opset)
    src, dst = tmp_path / "float.onnx", tmp_path / "qdq.onnx"
    src.write_bytes(model.SerializeToString())
    rng = np.random.default_rng(9)

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.data = iter([{"input": (rng.standard_normal((2, 7, 32)) * 2).astype(F32)} for _ in range(4)])

        def get_next(self):
            return next(self.data, None)

    quantize_static(str(src), str(dst), Reader(), quant_format=QuantFormat.QDQ, op_types_to_quantize=ops)
    import onnx

    qdq = onnx.load(dst)
    assert any(n.op_type == "DequantizeLinear" for n in qdq.graph.node)
    theirs = _check(qdq, feeds, tmp_path, ("qdq", opset, ops))
    assert [t[0] for t in theirs] == ([] if ops is None else ["LayerNormalization"]), theirs
