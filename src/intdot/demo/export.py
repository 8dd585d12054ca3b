"""The demo's float models as ONNX graphs (opset 21), taking raw pixels (N, 64) and giving logits (N, 10)."""

from __future__ import annotations

import numpy as np

from .cnn import CNN
from .mlp import Model


def _model(nodes, inits, name):
    from onnx import TensorProto, helper, numpy_helper

    graph = helper.make_graph(
        nodes,
        name,
        [helper.make_tensor_value_info("pixels", TensorProto.FLOAT, ["N", 64])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", 10])],
        [numpy_helper.from_array(np.asarray(v, np.float32), k) for k, v in inits.items()]
        + [numpy_helper.from_array(np.array([-1, 1, 8, 8], np.int64), "image_shape")],
    )
    # IR 10 (opset 21's): ONNX Runtimes older than the onnx package refuse the newer IR versions it writes.
    return helper.make_model(
        graph, ir_version=10, opset_imports=[helper.make_opsetid("", 21)], producer_name="intdot demo"
    )


def mlp_onnx(m: Model):
    """MatMul -> Add -> Relu -> MatMul -> Add."""
    from onnx import helper

    nodes = [
        helper.make_node("MatMul", ["pixels", "w1"], ["fc1"], name="fc1"),
        helper.make_node("Add", ["fc1", "b1"], ["fc1_bias"], name="fc1_bias"),
        helper.make_node("Relu", ["fc1_bias"], ["hidden"], name="relu1"),
        helper.make_node("MatMul", ["hidden", "w2"], ["fc2"], name="fc2"),
        helper.make_node("Add", ["fc2", "b2"], ["logits"], name="fc2_bias"),
    ]
    return _model(nodes, {"w1": m.w1, "b1": m.b1, "w2": m.w2, "b2": m.b2}, "mlp")


def cnn_onnx(m: CNN):
    """Reshape -> Conv 3x3 -> Relu -> Conv 3x3 stride 2 -> Relu -> Flatten -> MatMul -> Add."""
    from onnx import helper

    nodes = [
        helper.make_node("Reshape", ["pixels", "image_shape"], ["image"], name="image"),
        helper.make_node("Conv", ["image", "c1", "cb1"], ["conv1"], name="conv1", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["conv1"], ["act1"], name="relu1"),
        helper.make_node("Conv", ["act1", "c2", "cb2"], ["conv2"], name="conv2", pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("Relu", ["conv2"], ["act2"], name="relu2"),
        helper.make_node("Flatten", ["act2"], ["features"], name="flatten"),
        helper.make_node("MatMul", ["features", "w3"], ["fc"], name="fc"),
        helper.make_node("Add", ["fc", "b3"], ["logits"], name="fc_bias"),
    ]
    inits = {"c1": m.w1, "cb1": m.b1, "c2": m.w2, "cb2": m.b2, "w3": m.w3, "b3": m.b3}
    return _model(nodes, inits, "cnn")
