"""QDQ groups whose fusion depends on the graph around them, found by fuzzing ``run`` against ONNX Runtime:
groups that read the outputs of its com.microsoft nodes (ONNX's shape inference leaves them untyped), products
read by two identical QuantizeLinear nodes (merged by its common subexpression elimination), and the float weights
and biases of Conv and ConvTranspose that its WeightBiasQuantization quantizes. Each case checks the graph ONNX
Runtime's optimizer writes and the bits of its outputs."""

import numpy as np
import pytest
from onnx import TensorProto, helper

from intdot import quant

from . import ort

F32 = np.float32


def _quantize(model, shape, tmp_path, **kw):
    import onnx
    from onnxruntime.quantization import CalibrationDataReader, QuantType, quantize_static

    class Reader(CalibrationDataReader):
        def __init__(self):
            rng = np.random.default_rng(0)
            self.data = iter([{"x": rng.standard_normal(shape).astype(F32)} for _ in range(8)])

        def get_next(self):
            return next(self.data, None)

    tmp_path.mkdir(parents=True, exist_ok=True)
    src, dst = tmp_path / "f.onnx", tmp_path / "q.onnx"
    onnx.save(model, src)
    kw.setdefault("activation_type", QuantType.QUInt8)
    kw.setdefault("weight_type", QuantType.QUInt8)
    quantize_static(src, dst, Reader(), **kw)
    return onnx.load(dst)


def _float_model(nodes, shape, inits=()):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    graph = helper.make_graph(nodes, "g", [x], [y], list(inits))
    return helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", 19)])


def _check(model, shape, tmp_path, seeds=4):
    import onnx

    optimized = tmp_path / "optimized.onnx"
    rng = np.random.default_rng(1)
    for k in range(seeds):
        x = (rng.standard_normal(shape) * 2).astype(F32)
        want = ort.session(model, optimized_path=optimized if k == 0 else None).run(None, {"x": x})[0]
        got = quant.run(model, x, op="udot4", platform=ort.platform())["y"]
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), k
    theirs = [n.op_type for n in onnx.load(optimized).graph.node]
    ours = [n.op_type for n in quant.prepare(model, platform=ort.platform()).model.graph.node]
    return theirs, ours


def test_a_group_reading_a_microsoft_node_fuses(tmp_path):
    """QOperator: Sigmoid quantized alone (QLinearSigmoid), its DequantizeLinear read by a MatMul of two
    dequantized values: ONNX Runtime makes MatMulIntegerToFloat of it, which needs QLinearSigmoid's output type."""
    ort.need()
    from onnxruntime.quantization import QuantFormat

    shape = [1, 4, 6, 5]
    nodes = [helper.make_node("Sigmoid", ["x"], ["s"]), helper.make_node("Transpose", ["s"], ["t"], perm=[0, 1, 3, 2]),
             helper.make_node("MatMul", ["s", "t"], ["y"])]  # fmt: skip
    model = _quantize(_float_model(nodes, shape), shape, tmp_path, quant_format=QuantFormat.QOperator,
                      op_types_to_quantize=["Sigmoid"])  # fmt: skip
    theirs, ours = _check(model, shape, tmp_path)
    assert "MatMul" not in theirs
    assert ("MatMul" in ours) == ("MatMul" in theirs), (theirs, ours)


def test_a_softmax_reading_a_microsoft_node_fuses(tmp_path):
    """QOperator MatMul -> Mul -> Softmax -> MatMul with Softmax left to float by the quantizer: ONNX Runtime
    makes its DequantizeLinear -> Softmax -> QuantizeLinear a QLinearSoftmax, whose input QLinearMul writes."""
    ort.need()
    from onnx import numpy_helper
    from onnxruntime.quantization import QuantFormat

    shape = [2, 6]
    rng = np.random.default_rng(3)
    inits = [numpy_helper.from_array(rng.standard_normal((6, 6)).astype(F32), "w"),
             numpy_helper.from_array(rng.standard_normal((6, 4)).astype(F32), "w2"),
             numpy_helper.from_array(np.array(0.7, F32), "k")]  # fmt: skip
    nodes = [helper.make_node("MatMul", ["x", "w"], ["a"]), helper.make_node("Mul", ["a", "k"], ["b"]),
             helper.make_node("Softmax", ["b"], ["c"], axis=-1),
             helper.make_node("MatMul", ["c", "w2"], ["y"])]  # fmt: skip
    model = _quantize(_float_model(nodes, shape, inits), shape, tmp_path, quant_format=QuantFormat.QOperator,
                      op_types_to_quantize=["MatMul", "Mul"])  # fmt: skip
    theirs, ours = _check(model, shape, tmp_path, seeds=12)
    assert "QLinearSoftmax" in theirs and theirs == ours, (theirs, ours)


@pytest.mark.parametrize("kind", ["Conv", "MatMul"])
def test_identical_quantize_nodes_are_one(kind, tmp_path):
    """DedicatedQDQPair gives a product read twice two identical QuantizeLinear nodes; ONNX Runtime's common
    subexpression elimination makes them one, and the product then fuses (QLinearConv / QLinearMatMul)."""
    ort.need()
    from onnx import numpy_helper
    from onnxruntime.quantization import QuantType

    rng = np.random.default_rng(10052)
    if kind == "Conv":
        shape, w = [1, 8, 6, 6], (rng.standard_normal((4, 8, 3, 3)) * 0.3).astype(F32)
        inits = [numpy_helper.from_array(w, "W"), numpy_helper.from_array(rng.standard_normal(4).astype(F32), "B")]
        first = helper.make_node("Conv", ["x", "W", "B"], ["c"], kernel_shape=[3, 3])
    else:
        shape, inits = [8, 64], [numpy_helper.from_array((rng.standard_normal((64, 6)) * 0.3).astype(F32), "W")]
        first = helper.make_node("MatMul", ["x", "W"], ["c"])
    nodes = [first, helper.make_node("Relu", ["c"], ["r"]), helper.make_node("Sigmoid", ["c"], ["s"]),
             helper.make_node("Add", ["r", "s"], ["y"])]  # fmt: skip
    options = {"DedicatedQDQPair": True, "QuantizeBias": False}
    model = _quantize(_float_model(nodes, shape, inits), shape, tmp_path, weight_type=QuantType.QInt8,
                      extra_options=options)  # fmt: skip
    assert [n.input[0] for n in model.graph.node if n.op_type == "QuantizeLinear"].count("c") == 2
    theirs, ours = _check(model, shape, tmp_path, seeds=20)
    assert f"QLinear{kind}" in theirs and f"QLinear{kind}" in ours and kind not in ours, (theirs, ours)


@pytest.mark.parametrize("case", ["ConvTranspose float bias", "ConvTranspose float weight", "Conv float weight"])
def test_weights_and_biases_quantized_as_onnx_runtime_does(case, tmp_path):
    """WeightBiasQuantization takes ConvTranspose as it takes Conv and Gemm: a float bias onto the int32 grid of
    x_scale * w_scale, and a float weight (left out of op_types_to_quantize) to int8 by its range."""
    ort.need()
    from onnx import numpy_helper
    from onnxruntime.quantization import QuantFormat, QuantType

    rng = np.random.default_rng(2379)
    shape = [1, 3, 5, 3]
    w = (rng.standard_normal((3, 2, 1, 3)) * 0.5).astype(F32)
    inits = [numpy_helper.from_array(w, "W"), numpy_helper.from_array((rng.standard_normal(2) * 0.5).astype(F32), "B")]
    if case.startswith("Conv "):
        inits[0] = numpy_helper.from_array((rng.standard_normal((2, 3, 1, 3)) * 0.5).astype(F32), "W")
        middle = helper.make_node("Conv", ["s", "W", "B"], ["t"], kernel_shape=[1, 3])
    else:
        middle = helper.make_node("ConvTranspose", ["s", "W", "B"], ["t"], kernel_shape=[1, 3], strides=[1, 2])
    nodes = [helper.make_node("Sigmoid", ["x"], ["s"]), middle, helper.make_node("Sigmoid", ["t"], ["y"])]
    options = {"weight_type": QuantType.QInt8, "quant_format": QuantFormat.QDQ}
    if case.endswith("float bias"):
        options["extra_options"] = {"QuantizeBias": False}
    else:
        options["op_types_to_quantize"] = ["Sigmoid"]  # the weight stays float; the product reaches a Q
    model = _quantize(_float_model(nodes, shape, inits), shape, tmp_path, **options)
    theirs, ours = _check(model, shape, tmp_path, seeds=40)
    if case == "Conv float weight":
        assert "QLinearConv" in theirs and "QLinearConv" in ours, (theirs, ours)


def test_noop_nodes_are_removed_before_fusing(tmp_path):
    """ONNX Runtime removes an Expand to the input's own shape and an Identity before it fuses: the Q/DQ pairs
    around the Expand then merge (one rounding, not two), and DequantizeLinear -> Identity -> MatMul fuses."""
    ort.need()
    from onnx import numpy_helper
    from onnxruntime.quantization import QuantFormat

    shape = [1, 1, 3, 3, 3]
    shp = numpy_helper.from_array(np.array(shape, np.int64), "shp")
    nodes = [helper.make_node("Expand", ["x", "shp"], ["e"]), helper.make_node("Relu", ["e"], ["y"])]
    model = _quantize(_float_model(nodes, shape, [shp]), shape, tmp_path, quant_format=QuantFormat.QDQ,
                      per_channel=True, extra_options={"QDQKeepRemovableActivations": True},
                      op_types_to_quantize=["Expand", "Relu"])  # fmt: skip
    _check(model, shape, tmp_path, seeds=6)
    shape = [2, 6]
    nodes = [helper.make_node("Sigmoid", ["x"], ["s"]), helper.make_node("Identity", ["s"], ["i"]),
             helper.make_node("Transpose", ["i"], ["t"]), helper.make_node("MatMul", ["i", "t"], ["y"])]  # fmt: skip
    model = _quantize(_float_model(nodes, shape), shape, tmp_path / "b", quant_format=QuantFormat.QDQ,
                      op_types_to_quantize=["Sigmoid", "Identity"])  # fmt: skip
    _check(model, shape, tmp_path, seeds=6)
