"""ONNX Runtime's ConvBNFusion, ConvMulFusion and ConvAddFusion (``intdot.quant.conv_folds``) against ONNX Runtime,
bit for bit, through ``run``: which nodes it folds (checked against the graph it writes out, at its first level)
and the values (at its default level: on x86 the folded Conv then runs in its NCHWc kernels)."""

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from intdot import quant

from . import ort
from .test_float_kernels import _same

F32 = np.float32
C = 16


def _model(after, constants, conv_bias=True, extra_outputs=(), kernel=3, dims=2):
    rng = np.random.default_rng(len(after) + 7 * len(constants))
    w = rng.standard_normal((C, C) + (kernel,) * dims).astype(F32)
    inits = [numpy_helper.from_array(w, "w")] + [numpy_helper.from_array(v, k) for k, v in constants.items()]
    ins = ["x", "w"]
    if conv_bias:
        inits.append(numpy_helper.from_array(rng.standard_normal(C).astype(F32), "b"))
        ins.append("b")
    conv = helper.make_node("Conv", ins, ["y"], kernel_shape=[kernel] * dims, pads=[kernel // 2] * (2 * dims))
    shape = [2, C] + [7, 9, 5][:dims]
    outs = ["out", *extra_outputs]
    graph = helper.make_graph([conv, *after], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outs],
                              inits)  # fmt: skip
    return helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", 13)]), shape


def _bn(x, out, eps=None):
    attrs = {} if eps is None else {"epsilon": eps}
    return helper.make_node("BatchNormalization", [x, "gamma", "beta", "mean", "var"], [out], **attrs)


def _bn_constants(rng):
    return {"gamma": (rng.random(C) + 0.5).astype(F32), "beta": rng.standard_normal(C).astype(F32),
            "mean": rng.standard_normal(C).astype(F32), "var": (rng.random(C) * 4).astype(F32)}  # fmt: skip


_R = np.random.default_rng(3)
_CASES = {
    "BatchNormalization": ([_bn("y", "out", 1e-3)], _bn_constants(_R), True),
    "BatchNormalization, no conv bias": ([_bn("y", "out")], _bn_constants(_R), True, {"conv_bias": False}),
    "BatchNormalization, then Mul and Add": (
        [_bn("y", "n"), helper.make_node("Mul", ["n", "m"], ["n2"]), helper.make_node("Add", ["n2", "a"], ["out"])],
        _bn_constants(_R) | {"m": _R.standard_normal((1, C, 1, 1)).astype(F32),
                             "a": _R.standard_normal((C, 1, 1)).astype(F32)},
        True),
    "Mul by a scalar, no conv bias": ([helper.make_node("Mul", ["y", "m"], ["out"])],
                                      {"m": np.array(0.3, F32)}, True, {"conv_bias": False}),
    "Add, no conv bias": ([helper.make_node("Add", ["y", "a"], ["out"])],
                          {"a": _R.standard_normal((1, C, 1, 1)).astype(F32)}, True, {"conv_bias": False}),
    "Add of (1,): not folded": ([helper.make_node("Add", ["y", "a"], ["out"])], {"a": np.array([0.7], F32)}, False),
    "Mul of (1, 1, 1, 1): not folded": ([helper.make_node("Mul", ["y", "m"], ["out"])],
                                       {"m": np.full((1, 1, 1, 1), 0.7, F32)}, False),
    "constant first: not folded": ([helper.make_node("Mul", ["m", "y"], ["out"])],
                                   {"m": _R.standard_normal((C, 1, 1)).astype(F32)}, False),
    "the conv's output a graph output: not folded": ([_bn("y", "out")], _bn_constants(_R), False,
                                                     {"extra_outputs": ("y",)}),
    "1-D conv and BatchNormalization": ([_bn("y", "out")], _bn_constants(_R), True, {"dims": 1}),
    "pointwise conv, Mul": ([helper.make_node("Mul", ["y", "m"], ["out"])],
                            {"m": _R.standard_normal((C, 1, 1)).astype(F32)}, True, {"kernel": 1}),
}  # fmt: skip


def _basic_graph(model, path):
    """The graph this machine's ONNX Runtime runs at its first optimization level (the folds are the same on every
    CPU)."""
    import onnxruntime

    so = onnxruntime.SessionOptions()
    so.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_BASIC
    so.optimized_model_filepath = str(path)
    onnxruntime.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    return onnx.load(path).graph


@pytest.mark.parametrize("case", list(_CASES), ids=list(_CASES))
def test_folds_as_onnx_runtime(case, tmp_path):
    ort.need()
    after, constants, folds, *options = _CASES[case]
    model, shape = _model(after, constants, **(options[0] if options else {}))
    x = np.random.default_rng(1).standard_normal(shape).astype(F32)
    want = ort.session(model).run(None, {"x": x})[0]
    _same(quant.run(model, x, op="sdot4", platform=ort.platform())["out"], want, case)
    left = sum(n.op_type != "Conv" for n in _basic_graph(model, tmp_path / "basic.onnx").node)
    assert (left == 0) == folds, case
    prepared = quant.prepare(model, platform="arm")  # no NCHWc rewrite: the fold alone
    assert sum(n.op_type != "Conv" for n in prepared.model.graph.node) == left, case
