"""ONNX Runtime's DivMulFusion (``Mul(y, Div(1, x))`` made ``Div(y, x)``) against intdot's ``fuse_div_mul``: for each
form and each condition that keeps it apart, ONNX Runtime's optimized graph (its basic level, where the rule runs)
says whether it fused and ``prepare``'s graph says the same; ``run`` gives its bits.  Then PyTorch's RMSNorm
(``x * rsqrt(mean(x**2) + eps) * w``), which reaches SimplifiedLayerNormFusion only through this rule, and a
Llama block as ``torch.onnx.export`` writes it, bit for bit."""

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from intdot import quant

from . import ort
from .test_layer_norm import _same

F32 = np.float32
_TYPES = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.float64): TensorProto.DOUBLE,
          np.dtype(np.int64): TensorProto.INT64, np.dtype(np.int32): TensorProto.INT32}  # fmt: skip


def _model(opset=17, one=1.0, dtype=np.float32, one_as="initializer", mul="y*r", extra_reader=False, output=False):
    """``z = Mul(y, Div(one, x))`` of 6-element x and y; ``one_as``: "initializer", "constant" (a Constant node) or
    "input" (a graph input); ``extra_reader``: the Div read by a Neg too; ``output``: the Div a graph output."""
    kind = _TYPES[np.dtype(dtype)]
    one = np.asarray(one, dtype)
    inits, nodes, ins = [], [], [helper.make_tensor_value_info(n, kind, [6]) for n in "xy"]
    if one_as == "initializer":
        inits.append(numpy_helper.from_array(one, "one"))
    elif one_as == "constant":
        nodes.append(helper.make_node("Constant", [], ["one"], value=numpy_helper.from_array(one)))
    else:
        ins.append(helper.make_tensor_value_info("one", kind, list(one.shape)))
    nodes += [helper.make_node("Div", ["one", "x"], ["r"]),
              helper.make_node("Mul", ["y", "r"] if mul == "y*r" else ["r", "y"], ["z"])]  # fmt: skip
    outs = [helper.make_tensor_value_info("z", kind, None)]
    if extra_reader:
        nodes.append(helper.make_node("Neg", ["r"], ["w"]))
        outs.append(helper.make_tensor_value_info("w", kind, None))
    if output:
        outs.append(helper.make_tensor_value_info("r", kind, None))
    graph = helper.make_graph(nodes, "div_mul", ins, outs, inits)
    return helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", opset)])


FUSED = [{}, {"opset": 7}, {"opset": 13}, {"opset": 21}, {"one_as": "constant"}, {"mul": "r*y"},
         {"one": [1.0]}, {"one": [[1.0]]}, {"dtype": np.float64}, {"dtype": np.int64, "one": 1},
         {"dtype": np.int32, "one": 1}]  # fmt: skip
NOT_FUSED = [{"one": 2.0}, {"one": [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]}, {"one_as": "input"}, {"extra_reader": True},
             {"output": True}]  # fmt: skip


@pytest.mark.parametrize("kw,fused", [(kw, True) for kw in FUSED] + [(kw, False) for kw in NOT_FUSED],
                         ids=lambda v: str(v) if isinstance(v, dict) else "")  # fmt: skip
def test_div_mul_fusion_as_onnx_runtime(kw, fused, tmp_path):
    import onnx

    ort.need()
    model = _model(**kw)
    rng = np.random.default_rng(len(str(kw)))
    dtype = np.dtype(kw.get("dtype", np.float32))
    if dtype.kind == "i":
        feeds = {"x": rng.integers(1, 9, 6).astype(dtype) * rng.choice([-1, 1], 6).astype(dtype),
                 "y": rng.integers(-50, 50, 6).astype(dtype)}  # fmt: skip
    else:
        feeds = {n: (rng.standard_normal(6) * 3).astype(dtype) for n in "xy"}
    if kw.get("one_as") == "input":
        feeds["one"] = np.ones(np.shape(kw.get("one", 1.0)), dtype)
    optimized = tmp_path / "optimized.onnx"
    want = ort.session(model, optimized_path=optimized).run(None, feeds)
    theirs = [n.op_type for n in onnx.load(optimized).graph.node]
    ours = [n.op_type for n in quant.prepare(model).model.graph.node if n.op_type != "Constant"]
    assert ("Mul" not in theirs) == fused and ("Mul" not in ours) == fused, (kw, theirs, ours)
    got = quant.run(model, feeds, op="sdot4", platform=ort.platform())
    for (name, value), w in zip(got.items(), want):
        assert value.dtype == w.dtype and np.array_equal(value.view(np.uint8), w.view(np.uint8)), (kw, name)


def test_pytorch_rms_norm_fuses_as_onnx_runtime():
    """``x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w`` as torch.onnx writes it (Div of a Constant 1 by
    the Sqrt, then two Muls): DivMulFusion makes the Div read x, then SimplifiedLayerNormFusion takes the chain."""
    ort.need()
    rng = np.random.default_rng(0)
    const = [helper.make_node("Constant", [], [n], value=numpy_helper.from_array(np.array(v, F32)))
             for n, v in (("two", 2.0), ("eps", 1e-5), ("one", 1.0))]  # fmt: skip
    nodes = const + [helper.make_node("Pow", ["x", "two"], ["p"]),
                     helper.make_node("ReduceMean", ["p"], ["m"], axes=[-1]),
                     helper.make_node("Add", ["m", "eps"], ["a"]), helper.make_node("Sqrt", ["a"], ["s"]),
                     helper.make_node("Div", ["one", "s"], ["r"]), helper.make_node("Mul", ["x", "r"], ["n"]),
                     helper.make_node("Mul", ["w", "n"], ["y"])]  # fmt: skip
    w = numpy_helper.from_array((1 + rng.standard_normal(64) * 0.1).astype(F32), "w")
    graph = helper.make_graph(nodes, "rms", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 7, 64])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [w])  # fmt: skip
    model = helper.make_model(graph, ir_version=8, opset_imports=[helper.make_opsetid("", 17)])
    kinds = [n.op_type for n in quant.prepare(model).model.graph.node if n.op_type != "Constant"]
    assert kinds == ["SimplifiedLayerNormalization"], kinds
    feeds = {"x": rng.standard_normal((2, 7, 64)).astype(F32)}
    want = ort.session(model).run(None, feeds)[0]
    _same(quant.run(model, feeds, op="sdot4", platform=ort.platform())["y"], want, "rms")


def test_torch_exported_llama_block(tmp_path):
    """A Llama decoder block (RMSNorm by rsqrt, grouped-query attention with rotary by torch's
    scaled_dot_product_attention, a SiLU-gated MLP) exported by torch.onnx (TorchScript, opset 17), in float: ONNX
    Runtime's bits."""
    ort.need()
    torch = pytest.importorskip("torch", reason="PyTorch (the venv's CPU build) exports the block")
    import warnings

    from .torch_llama import block

    path = tmp_path / "block.onnx"
    module, x = block(torch)
    with warnings.catch_warnings():  # the TorchScript exporter is deprecated, and says so
        warnings.simplefilter("ignore")
        torch.onnx.export(module, (x,), str(path), opset_version=17, input_names=["x"], output_names=["y"],
                          dynamo=False)  # fmt: skip
    feeds = {"x": np.random.default_rng(0).standard_normal((1, 7, 64)).astype(F32)}
    want = ort.session(str(path), neon=True).run(None, feeds)[0]
    _same(quant.run(str(path), feeds, op="sdot4", platform=ort.platform())["y"], want, "llama block")
