"""Q/DQ pairs copied across Reshape, Transpose, Squeeze, Unsqueeze, Slice and MaxPool: intdot copies them where
ONNX Runtime's QDQPropagationTransformer does, so that the same MatMul groups fuse (its optimized graph is the
oracle), and ``run`` gives its bits."""

import numpy as np
import pytest

from intdot import quant
from intdot.quant.model import integer_nodes

from . import ort
from .test_qdq import AS_INTDOT, _ort_fused, _session

F32, U8, I8 = np.float32, np.uint8, np.int8


@pytest.fixture(autouse=True)
def _oracle():
    ort.need()


def _init(name, value):
    from onnx import numpy_helper

    return numpy_helper.from_array(np.asarray(value), name)


def _operands(x_type, seed):
    """x's pair (zero point the middle of the type, 3 for int8) and the int8 weight's DQ, as initializers."""
    zx = 128 if x_type == U8 else 3
    w = np.random.default_rng(seed).integers(-90, 91, (32, 24)).astype(I8)
    return [_init("sx", F32(0.05)), _init("zx", x_type(zx)), _init("w", w), _init("sw", F32(0.01)), _init("zw", I8(0))]


def _moves(ops, inits):
    """The nodes t0 -> ops... -> t{len(ops)}; ``ops``: (op_type, constant inputs, attributes)."""
    from onnx import helper

    nodes = []
    for k, (op, extra, attrs) in enumerate(ops):
        names = [f"c{k}_{j}" for j in range(len(extra))]
        inits += [_init(n, v) for n, v in zip(names, extra)]
        nodes.append(helper.make_node(op, [f"t{k}", *names], [f"t{k + 1}"], **attrs))
    return nodes


def _model(nodes, x_shape, outputs, inits, opset=21):
    from onnx import helper

    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", 1, x_shape)], outputs, inits)
    return helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", opset)])


def matmul_then(ops, *, x_type=U8, reader=False, out_too=False, axis_q=False, opset=21):
    """x -> Q -> DQ, DQ(w) -> MatMul -> ops... -> Q -> DQ -> y; ``reader``: the MatMul output is read by a Relu
    too; ``out_too``: the last op's output is a graph output; ``axis_q``: the output Q's parameters per axis."""
    from onnx import helper

    inits = _operands(x_type, seed=4)
    if axis_q:
        inits += [_init("sy", np.full(24, 0.9, F32)), _init("zy", np.full(24, 120, U8))]
    else:
        inits += [_init("sy", F32(0.9)), _init("zy", x_type(120 if x_type == U8 else -5))]
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "sx", "zx"], ["xq"]),
        helper.make_node("DequantizeLinear", ["xq", "sx", "zx"], ["xd"]),
        helper.make_node("DequantizeLinear", ["w", "sw", "zw"], ["wd"]),
        helper.make_node("MatMul", ["xd", "wd"], ["t0"]),
        *_moves(ops, inits),
    ]
    last = f"t{len(ops)}"
    nodes += [
        helper.make_node("QuantizeLinear", [last, "sy", "zy"], ["yq"], axis=-1),
        helper.make_node("DequantizeLinear", ["yq", "sy", "zy"], ["y"], axis=-1),
    ]
    outputs = [helper.make_tensor_value_info("y", 1, None)]
    if reader:
        nodes.append(helper.make_node("Relu", ["t0"], ["r"]))
        outputs.append(helper.make_tensor_value_info("r", 1, None))
    if out_too:
        outputs.append(helper.make_tensor_value_info(last, 1, None))
    return _model(nodes, [16, 32], outputs, inits, opset)


def then_matmul(ops, *, x_type=U8, dq_read_twice=False, dq_out=False):
    """x -> Q -> DQ -> ops... -> MatMul(DQ(w)) -> Q -> DQ -> y: the DQ copied forwards; ``dq_read_twice``: a Relu
    reads the DQ too; ``dq_out``: the DQ's output is a graph output too."""
    from onnx import helper

    inits = _operands(x_type, seed=5)
    inits += [_init("sy", F32(0.9)), _init("zy", x_type(120 if x_type == U8 else -5))]
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "sx", "zx"], ["xq"]),
        helper.make_node("DequantizeLinear", ["xq", "sx", "zx"], ["t0"]),
        *_moves(ops, inits),
        helper.make_node("DequantizeLinear", ["w", "sw", "zw"], ["wd"]),
        helper.make_node("MatMul", [f"t{len(ops)}", "wd"], ["m"]),
        helper.make_node("QuantizeLinear", ["m", "sy", "zy"], ["yq"]),
        helper.make_node("DequantizeLinear", ["yq", "sy", "zy"], ["y"]),
    ]
    outputs = [helper.make_tensor_value_info("y", 1, None)]
    if dq_read_twice:
        nodes.append(helper.make_node("Relu", ["t0"], ["r"]))
        outputs.append(helper.make_tensor_value_info("r", 1, None))
    if dq_out:
        outputs.append(helper.make_tensor_value_info("t0", 1, None))
    return _model(nodes, [16, 2, 16], outputs, inits)


RESHAPE = ("Reshape", [np.array([4, 4, 24])], {})
TRANSPOSE = ("Transpose", [], {"perm": [1, 0]})
CASES = {
    "Reshape": matmul_then([RESHAPE]),
    "Transpose": matmul_then([TRANSPOSE]),
    "Unsqueeze then Squeeze": matmul_then([("Unsqueeze", [np.array([0])], {}), ("Squeeze", [np.array([0])], {})]),
    "Slice": matmul_then([("Slice", [np.array([0]), np.array([8]), np.array([0])], {})]),
    "Reshape then Transpose": matmul_then([RESHAPE, ("Transpose", [], {"perm": [1, 0, 2]})]),
    "int8 activations": matmul_then([RESHAPE], x_type=I8),
    "Flatten (not copied across)": matmul_then([("Flatten", [], {"axis": 1})]),
    "Relu (not copied across)": matmul_then([("Relu", [], {})]),
    "the product read twice": matmul_then([RESHAPE], reader=True),
    "the Reshape a graph output": matmul_then([RESHAPE], out_too=True),
    "Q per axis": matmul_then([RESHAPE], axis_q=True),
    "Reshape at opset 13": matmul_then([RESHAPE], opset=13),
    "forwards: Reshape": then_matmul([("Reshape", [np.array([16, 32])], {})]),
    "forwards: Reshape then Transpose": then_matmul(
        [("Reshape", [np.array([32, 16])], {}), ("Transpose", [], {"perm": [1, 0]})]
    ),
    "forwards: the DQ read twice": then_matmul([("Reshape", [np.array([16, 32])], {})], dq_read_twice=True),
    "forwards: the DQ a graph output": then_matmul([("Reshape", [np.array([16, 32])], {})], dq_out=True),
    "forwards: Flatten (not copied across)": then_matmul([("Flatten", [], {"axis": 1})]),
}


@pytest.mark.parametrize("int8_allowed", [False, True], ids=["x86 default", "qdqisint8allowed"])
@pytest.mark.parametrize("case", list(CASES))
def test_pairs_copied_as_onnx_runtime_copies_them(case, int8_allowed, tmp_path):
    model = CASES[case]
    theirs, _ = _ort_fused(model, tmp_path, int8_allowed)
    ours = sorted(t for _, t in integer_nodes(model, qdq_int8_allowed=int8_allowed))
    assert ours == sorted(AS_INTDOT[k] for k in theirs)
    if not theirs:
        return  # a float MatMul: its sums may round apart from ONNX Runtime's (docs/differences.md, row 15)
    shape = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
    for seed in range(3):
        x = np.random.default_rng(seed).uniform(-7, 7, shape).astype(F32)
        want = _session(model, int8_allowed).run(None, {"x": x})
        got = quant.run(model, {"x": x}, op="usdot", platform=ort.platform(), qdq_int8_allowed=int8_allowed)
        for w, g in zip(want, got.values()):
            np.testing.assert_array_equal(g, w)
