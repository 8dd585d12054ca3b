"""A small CNN with the operators ONNX Runtime fuses beyond MatMul/Conv/Gemm (LeakyRelu, Sigmoid, Mul, Concat,
AveragePool, GlobalAveragePool, Softmax), quantized by ``onnxruntime.quantization`` (QDQ, uint8 and int8 activations):
intdot fuses the groups ONNX Runtime fuses (its optimized graph is the oracle) and gives its bits for the whole
model."""

import numpy as np
import pytest

from intdot import quant

from . import ort
from .test_qdq import _session
from .test_run import _quantize

F32 = np.float32
FUSED = {
    "QLinearConv",
    "QGemm",
    "QLinearMul",
    "QLinearLeakyRelu",
    "QLinearSigmoid",
    "QLinearConcat",
    "QLinearAveragePool",
    "QLinearGlobalAveragePool",
    "QLinearSoftmax",
}


def _float_cnn():
    """pixels (N, 64) -> (N, 1, 8, 8) -> Conv -> LeakyRelu -> [Conv -> Sigmoid] * itself, Conv -> Concat ->
    AveragePool 3x3/2 -> GlobalAveragePool -> Flatten -> Gemm -> Softmax -> probabilities."""
    from onnx import helper, numpy_helper

    rng = np.random.default_rng(5)
    w = {
        "w1": rng.normal(0, 0.3, (8, 1, 3, 3)),
        "b1": rng.normal(0, 0.1, 8),
        "w2": rng.normal(0, 0.1, (8, 8, 3, 3)),
        "b2": rng.normal(0, 0.1, 8),
        "w3": rng.normal(0, 0.1, (4, 8, 1, 1)),
        "b3": rng.normal(0, 0.1, 4),
        "wg": rng.normal(0, 0.3, (12, 10)),
        "bg": rng.normal(0, 0.1, 10),
        "shape": np.array([-1, 1, 8, 8], np.int64),
    }
    inits = [numpy_helper.from_array(v if v.dtype == np.int64 else v.astype(F32), k) for k, v in w.items()]
    pads = {"pads": [1, 1, 1, 1]}
    nodes = [
        helper.make_node("Reshape", ["pixels", "shape"], ["img"]),
        helper.make_node("Conv", ["img", "w1", "b1"], ["c1"], **pads),
        helper.make_node("LeakyRelu", ["c1"], ["a1"], alpha=0.1),
        helper.make_node("Conv", ["a1", "w2", "b2"], ["c2"], **pads),
        helper.make_node("Sigmoid", ["c2"], ["s2"]),
        helper.make_node("Mul", ["a1", "s2"], ["g2"]),
        helper.make_node("Conv", ["a1", "w3", "b3"], ["c3"]),
        helper.make_node("Concat", ["g2", "c3"], ["cat"], axis=1),
        helper.make_node("AveragePool", ["cat"], ["ap"], kernel_shape=[3, 3], strides=[2, 2], **pads),
        helper.make_node("GlobalAveragePool", ["ap"], ["gap"]),
        helper.make_node("Flatten", ["gap"], ["flat"]),
        helper.make_node("Gemm", ["flat", "wg", "bg"], ["logits"]),
        helper.make_node("Softmax", ["logits"], ["probs"]),
    ]
    graph = helper.make_graph(
        nodes,
        "cnn",
        [helper.make_tensor_value_info("pixels", 1, ["N", 64])],
        [helper.make_tensor_value_info("probs", 1, ["N", 10])],
        inits,
    )
    return helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", 21)])


@pytest.fixture(scope="module")
def cnn():
    ort.need()
    return _float_cnn()


@pytest.mark.parametrize("acts", ["uint8", "int8"])
def test_fused_cnn_bit_for_bit(cnn, tmp_path, acts):
    import onnx
    from onnxruntime.quantization import QuantFormat, QuantType

    kind = QuantType.QInt8 if acts == "int8" else QuantType.QUInt8
    path = _quantize(tmp_path, cnn, "qdq", quant_format=QuantFormat.QDQ, activation_type=kind)
    model = onnx.load(str(path))
    optimized = tmp_path / "optimized.onnx"
    _session(model, path=optimized)
    theirs = sorted(n.op_type for n in onnx.load(str(optimized)).graph.node if n.op_type in FUSED)
    ours = sorted(
        n.op_type for n in quant.prepare(model, platform=ort.platform()).model.graph.node if n.op_type in FUSED
    )
    assert ours == theirs
    # With int8 activations the LeakyRelu's output pair is read by three nodes, so ONNX Runtime cannot move it to
    # uint8: the LeakyRelu and the nodes reading it stay in float, in both.
    some = {
        "QLinearSigmoid",
        "QLinearConcat",
        "QLinearAveragePool",
        "QLinearGlobalAveragePool",
        "QGemm",
        "QLinearSoftmax",
    }
    assert some | ({"QLinearLeakyRelu", "QLinearMul"} if acts == "uint8" else set()) <= set(theirs)
    x = np.random.default_rng(9).uniform(0, 16, (32, 64)).astype(F32)
    want = _session(model).run(None, {"pixels": x})[0]
    op = "vpmaddubsw" if ort.saturates_u8s8() else "usdot"
    got = quant.run(model, {"pixels": x}, op=op, platform=ort.platform())["probs"]
    np.testing.assert_array_equal(got, want)
