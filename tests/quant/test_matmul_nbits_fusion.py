"""ONNX Runtime's MatMulNBitsFusion (the bias Add after a MatMulNBits becomes its bias input) and BiasGeluFusion
(an Add before a ``com.microsoft`` Gelu or FastGelu becomes its bias, which MatMulNBitsFusion then does not find):
``prepare`` writes the nodes ONNX Runtime's optimizer writes, under each condition that stops it, and ``run`` gives
its bits (``accuracy_level`` 0, and 4 on x86, where the kernel adds the bias before the zero points' part)."""

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from . import ort
from .fusions import check_fusion

F32 = np.float32
MS = "com.microsoft"
K, N = 96, 40


def _model(variant, level):
    rng = np.random.default_rng(len(variant) + level)
    inits = {"B": rng.integers(0, 256, (N, 3, 16), dtype=np.uint8), "S": (rng.random(N * 3) * 0.1).astype(F32),
             "bias": rng.standard_normal(N).astype(F32), "bias2": rng.standard_normal((1, N)).astype(F32)}  # fmt: skip
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, K])]
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]
    nbits_in = ["x", "B", "S"] + (["", "", "bias"] if variant == "has a bias" else [])
    nodes = [helper.make_node("MatMulNBits", nbits_in, ["mm"], domain=MS, K=K, N=N, bits=4, block_size=32,
                              accuracy_level=level)]  # fmt: skip
    bias = {"bias of shape [1, N]": "bias2", "bias an input": "b_in"}.get(variant, "bias")
    if variant == "bias an input":
        inputs.append(helper.make_tensor_value_info("b_in", TensorProto.FLOAT, [N]))
    nodes.append(helper.make_node("Add", ["mm", bias] if variant != "bias first" else [bias, "mm"], ["sum"]))
    if variant == "Gelu after":
        nodes.append(helper.make_node("Gelu", ["sum"], ["y"], domain=MS))
    elif variant == "FastGelu after":
        nodes.append(helper.make_node("FastGelu", ["sum"], ["y"], domain=MS))
    else:
        nodes.append(helper.make_node("Identity", ["sum"], ["y"]))
    if variant == "product an output":
        outputs.append(helper.make_tensor_value_info("mm", TensorProto.FLOAT, None))
    graph = helper.make_graph(nodes, "g", inputs, outputs, [numpy_helper.from_array(v, k) for k, v in inits.items()])
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid(MS, 1)]
    feeds = {"x": rng.standard_normal((1, 3, K)).astype(F32)}
    if variant == "bias an input":
        feeds["b_in"] = rng.standard_normal(N).astype(F32)
    return helper.make_model(graph, ir_version=10, opset_imports=opsets), feeds


def _written(graph):
    """The MatMulNBits, BiasGelu, FastGelu and Add nodes: type and inputs."""
    kinds = ("MatMulNBits", "BiasGelu", "FastGelu", "Add")
    return sorted((n.op_type, tuple(i for i in n.input if i)) for n in graph.node if n.op_type in kinds)


@pytest.mark.parametrize("level", [0, 4])
@pytest.mark.parametrize(
    "variant,fused",
    [("plain", True), ("bias first", True), ("bias an input", True), ("bias of shape [1, N]", False),
     ("product an output", False), ("has a bias", False), ("Gelu after", False), ("FastGelu after", False)],
)  # fmt: skip
def test_matmul_nbits_bias_fusion_as_onnx_runtime(variant, fused, level, tmp_path):
    ort.need()
    if level == 4 and ort.on_arm():
        pytest.skip("ONNX Runtime's int8 MatMulNBits kernels on Arm are not modelled")
    model, feeds = _model(variant, level)
    written = check_fusion(model, feeds, tmp_path, _written, variant)
    took_bias = any(kind == "MatMulNBits" and len(ins) == 4 for kind, ins in written)
    assert took_bias == (fused or variant == "has a bias"), (variant, written)
    if variant.endswith("after"):  # BiasGeluFusion took the Add first
        assert ("Add", ("mm", "bias")) not in written, written
