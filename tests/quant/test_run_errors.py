"""Bad input to ``intdot.quant.run`` and ``intdot.quant.plan``: intdot's own errors, naming the argument, its value
and what was allowed, before anything runs (onnx.reference would fail deep inside an operator, or run on the
wrong type); where the feed is right, the result is ONNX Runtime's."""

import numpy as np
import pytest

from intdot import quant
from intdot.core.errors import OperandError, OperandTypeError, UnknownInstruction, UnknownTarget, UnsupportedOnTarget
from intdot.gemm import gemm

from . import ort


def _model(a_type=2, a_shape=("m", 4), b_shape=(4, 3)):
    """MatMulInteger of two graph inputs, A (``a_type``, uint8 by default) and B (uint8)."""
    from onnx import TensorProto, helper

    node = helper.make_node("MatMulInteger", ["A", "B"], ["Y"], name="mm")
    graph = helper.make_graph(
        [node],
        "g",
        [
            helper.make_tensor_value_info("A", a_type, a_shape),
            helper.make_tensor_value_info("B", TensorProto.UINT8, b_shape),
        ],
        [helper.make_tensor_value_info("Y", TensorProto.INT32, None)],
    )
    return helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", 21)])


def _float_model():
    from onnx import TensorProto, helper

    node = helper.make_node("Relu", ["x"], ["y"])
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
    )
    return helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", 21)])


U8 = np.ones((2, 4), np.uint8)
B8 = np.arange(12, dtype=np.uint8).reshape(4, 3)


@pytest.mark.parametrize(
    "feed, exc, words",
    [
        ({"A": U8.astype(np.int32), "B": B8}, OperandTypeError, "input 'A' has dtype int32; the model declares uint8"),
        ({"A": U8.astype(np.int8), "B": B8}, OperandTypeError, "input 'A' has dtype int8; the model declares uint8"),
        ({"A": U8, "B": [[1, 2, 3]] * 4}, OperandTypeError, "input 'B' has dtype int64; the model declares uint8"),
        ({"A": U8[0], "B": B8}, OperandError, "input 'A' has shape [4] (1 dimension); the model declares [m, 4]"),
        ({"A": U8, "B": B8[:, :2]}, OperandError, "input 'B' has shape [4, 2]; the model declares [4, 3] (dimension 1"),
        ({"A": U8[:, :3], "B": B8}, OperandError, "input 'A' has shape [2, 3]; the model declares [m, 4] (dimension 1"),
    ],
)
def test_the_feed_is_checked_against_the_declared_inputs(feed, exc, words):
    with pytest.raises(exc) as info:
        quant.run(_model(), feed, op="udot4")
    assert words in str(info.value)


def test_a_feed_of_the_declared_types_runs_as_onnxruntime():
    ort.need()
    a = np.random.default_rng(5).integers(0, 256, (3, 4)).astype(np.uint8)  # any M: the model names it "m"
    model = _model()
    want = ort.session(model).run(None, {"A": a, "B": B8})[0]
    assert np.array_equal(quant.run(model, {"A": a, "B": B8}, op="udot4")["Y"], want)


def test_undeclared_types_and_shapes_are_not_guessed_at():
    # An input whose type leaves out the shape, or the element type, is fed as it is.
    from onnx import helper

    model = _model(a_shape=None)
    assert quant.run(model, {"A": U8, "B": B8}, op="udot4")["Y"].shape == (2, 3)
    assert quant.model.declared(helper.make_tensor_value_info("x", 0, None)) == (None, None)


@pytest.mark.parametrize(
    "a, b, words",
    [
        (np.float32, np.int8, "a_dtype=float32 is not an integer dtype; expected int8 or uint8"),
        (np.uint8, "float16", "b_dtype=float16 is not an integer dtype"),
        ("nosuch", np.int8, "a_dtype='nosuch' is not an integer dtype"),
        (None, np.int8, "a_dtype=None is not an integer dtype"),
        (bool, np.int8, "a_dtype=bool is not an integer dtype"),
    ],
)
def test_plan_of_a_non_integer_dtype(a, b, words):
    with pytest.raises(OperandTypeError) as info:
        quant.plan("sdot4", a, b)
    assert words in str(info.value)
    with pytest.raises(OperandTypeError):
        quant.fitting(a, b)


def test_fitting_flags_are_bools():
    with pytest.raises(OperandTypeError, match=r"distinct='x' is not a bool"):
        quant.fitting(distinct="x")
    with pytest.raises(OperandTypeError, match=r"exact_only=1 is not a bool"):
        quant.fitting(exact_only=1)


def test_models_that_are_not_models(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # short paths: messages shorten long ones
    with pytest.raises(OperandError, match=r"^model='nonexistent\.onnx': cannot read it: No such file"):
        quant.run("nonexistent.onnx", {}, op="sdot4")
    with pytest.raises(OperandError, match=r"^model='\.': cannot read it: Is a directory"):
        quant.run(".", {}, op="sdot4")
    with pytest.raises(OperandError, match=r"model \(7 bytes\) is not an ONNX model: Error parsing message"):
        quant.run(b"garbage", {}, op="sdot4")
    # Protobuf parses the empty string (and so an empty file, /dev/null) as a model with nothing set.
    with pytest.raises(OperandError, match=r"model \(0 bytes\) is not an ONNX model: it has no graph"):
        quant.run(b"", {}, op="sdot4")
    (tmp_path / "empty.onnx").write_bytes(b"")
    with pytest.raises(OperandError, match=r"^model='empty\.onnx' is not an ONNX model: it has no graph"):
        quant.run("empty.onnx", {}, op="sdot4")
    model = _float_model()
    del model.graph.node[:]
    with pytest.raises(OperandError, match=r"model \(an onnx.ModelProto\) has a graph with no nodes: nothing to run"):
        quant.run(model, {"x": np.ones(2, np.float32)}, op="sdot4")
    with pytest.raises(OperandTypeError, match=r"model=3: expected an onnx.ModelProto, a path or bytes"):
        quant.run(3, {}, op="sdot4")


def test_the_target_is_checked_even_where_no_node_reaches_the_instruction():
    x = {"x": np.ones(2, np.float32)}
    with pytest.raises(UnknownTarget, match=r"amd\.sdot4 is an AMD builtin.*target='foo' is not known"):
        quant.run(_float_model(), x, op="sdot4", target="foo")
    with pytest.raises(UnsupportedOnTarget, match=r"not available on cortex-a76"):
        quant.run(_float_model(), x, op="usdot", target="cortex-a76")
    with pytest.raises(UnknownInstruction, match=r"'nosuch' is not in intdot's catalog"):
        quant.run(_float_model(), x, op="nosuch")
    # A spelling shared by forms (Arm sdot: 8- and 16-bit) passes where one of them exists.
    assert quant.run(_float_model(), x, op="sdot", target="neoverse-n1")["y"].tolist() == [1.0, 1.0]
    # usdot names NEON, SVE and SME2 forms that compute the same, and a run takes the first (NEON, i8mm): a target
    # with only the SME2 form is refused up front, as gemm(op="usdot", target=...) refuses it.
    with pytest.raises(UnsupportedOnTarget, match=r"not available on armv9-a\+sme2"):
        quant.run(_float_model(), x, op="usdot", target="armv9-a+sme2")
    with pytest.raises(UnsupportedOnTarget, match=r"not available on armv9-a\+sme2"):
        gemm(np.ones((1, 4), np.uint8), np.ones((4, 1), np.int8), op="usdot", target="armv9-a+sme2")


def test_a_type_error_inside_a_node_is_intdots_own(tmp_path, capsys):
    """onnx.reference re-raises any TypeError of an operator as a bare TypeError("Issues with types ..."); the
    error that comes out is intdot's, naming the node, and the command line reports it as bad input (exit 1)."""
    from onnx import TensorProto, helper

    from intdot.cli import main

    q = helper.make_tensor("q", TensorProto.FLOAT8E4M3FN, [3], [1.0, 2.0, 3.0])
    node = helper.make_node("DequantizeLinear", ["q", "s"], ["y"], name="dq")
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("s", 1, [])], [helper.make_tensor_value_info("y", 1, None)], [q]
    )
    model = helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", 21)])
    with pytest.raises(OperandTypeError, match=r"^node 'dq' \(DequantizeLinear\): x=array\(.*float8_e4m3fn\)"):
        quant.run(model, {"s": np.array(1.0, np.float32)}, op="usdot")
    import onnx

    onnx.save(model, tmp_path / "f8.onnx")
    np.savez(tmp_path / "s.npz", s=np.array(1.0, np.float32))
    assert main(["run", str(tmp_path / "f8.onnx"), "--op", "usdot", "--inputs", str(tmp_path / "s.npz")]) == 1
    err = capsys.readouterr().err
    assert "node 'dq' (DequantizeLinear)" in err and len(err.strip().splitlines()) == 1


def test_names_from_the_model_file_are_cut_in_messages():
    """Node names, operator types and input names come from the file: a megabyte of one gives a short message."""
    from onnx import TensorProto, helper

    long = "n" * 10**6
    node = helper.make_node("Frob", ["x"], ["y"], name=long, domain="custom." + long)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info(long, TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
    )
    graph.node[0].input[0] = long
    model = helper.make_model(
        graph, ir_version=10, opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid("custom." + long, 1)]
    )
    with pytest.raises(OperandError) as info:
        quant.run(model, {long: np.ones(2, np.float32)}, op="sdot4")
    assert len(str(info.value)) < 2000 and "an operator outside ONNX" in str(info.value)
    with pytest.raises(OperandError) as info:
        quant.run(_model(), {"A": U8, "B": B8, long: U8}, op="sdot4")
    assert len(str(info.value)) < 2000 and "not inputs of the model: nnn" in str(info.value)
