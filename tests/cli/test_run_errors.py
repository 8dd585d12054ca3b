"""``intdot run`` on bad input: one stderr line from intdot's own message and exit status 1, never an internal
error (3); a model none of whose nodes reaches the instruction runs, with a warning line on stderr."""

import numpy as np
import pytest

pytest.importorskip("onnx", reason="intdot run needs the 'onnx' extra")


@pytest.fixture
def models(tmp_path):
    from onnx import TensorProto, helper, save

    def model(nodes, inputs, outputs, name):
        graph = helper.make_graph(nodes, "g", inputs, outputs)
        path = tmp_path / name
        save(helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", 21)]), path)
        return path

    vi = helper.make_tensor_value_info
    model(
        [helper.make_node("MatMulInteger", ["A", "B"], ["Y"], name="mm")],
        [vi("A", TensorProto.UINT8, ["m", 4]), vi("B", TensorProto.UINT8, [4, 3])],
        [vi("Y", TensorProto.INT32, None)],
        "mm.onnx",
    )
    model(
        [helper.make_node("Relu", ["x"], ["y"])],
        [vi("x", TensorProto.FLOAT, [2])],
        [vi("y", TensorProto.FLOAT, [2])],
        "float.onnx",
    )
    np.savez(tmp_path / "xbad.npz", A=np.ones((2, 4), np.int32), B=np.ones((4, 3), np.uint8))
    (tmp_path / "empty.onnx").write_bytes(b"")
    (tmp_path / "junk.onnx").write_bytes(b"garbage")
    return tmp_path


def _one_error(rc, err, words):
    assert rc == 1, err
    assert len(err.strip().splitlines()) == 1 and err.startswith("intdot run: error: "), err
    assert words in err, err
    assert "internal error" not in err


@pytest.mark.parametrize(
    "args, words",
    [
        (["mm.onnx", "--op", "udot4", "--inputs", "xbad.npz"], "input 'A' has dtype int32; the model declares uint8"),
        (["mm.onnx", "--op", "udot4", "--seed", "-1"], "--seed -1: expected a non-negative integer"),
        (["float.onnx", "--op", "sdot4", "--target", "foo"], "target='foo' is not known"),
        (["float.onnx", "--op", "usdot", "--target", "cortex-a76"], "not available on cortex-a76"),
        (["empty.onnx", "--op", "sdot4"], "model='empty.onnx' is not an ONNX model: it has no graph"),
        (["junk.onnx", "--op", "sdot4"], "model='junk.onnx' is not an ONNX model"),
        (["nonexistent.onnx", "--op", "sdot4"], "model='nonexistent.onnx': cannot read it: No such file"),
    ],
)
def test_bad_input_is_one_line_and_status_1(cli, models, monkeypatch, args, words):
    monkeypatch.chdir(models)
    rc, _, err = cli("run", *args)
    _one_error(rc, err, words)


def test_dev_null_is_not_a_model(cli):
    rc, _, err = cli("run", "/dev/null", "--op", "sdot4")
    _one_error(rc, err, "model='/dev/null' is not an ONNX model: it has no graph")


def test_a_model_without_integer_nodes_warns(cli, models, monkeypatch):
    monkeypatch.chdir(models)
    rc, out, err = cli("run", "float.onnx", "--op", "sdot4", "--target", "gfx942")
    assert rc == 0
    assert out.startswith("float.onnx: 0 integer nodes through amd.sdot4 on gfx942")
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("intdot run: warning: float.onnx has no integer nodes")
    assert "is it the quantized model?" in lines[0]
    # With integer nodes, no warning.
    rc, out, err = cli("run", "mm.onnx", "--op", "udot4", "--seed", "3")
    assert rc == 0 and err == "" and "1 integer node through amd.udot4" in out


def test_inputs_from_an_npy_file(cli, models, monkeypatch):
    """A model with one input takes an .npy file (numpy.save's); one with more says it needs an .npz."""
    from onnx import TensorProto, helper, save

    monkeypatch.chdir(models)
    graph = helper.make_graph(
        [helper.make_node("MatMulInteger", ["A", "W"], ["Y"])],
        "g",
        [helper.make_tensor_value_info("A", TensorProto.UINT8, [2, 4])],
        [helper.make_tensor_value_info("Y", TensorProto.INT32, None)],
        [helper.make_tensor(
            "W", TensorProto.UINT8, [4, 3], np.arange(12, dtype=np.uint8).tobytes(), raw=True)],
    )  # fmt: skip
    save(helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", 21)]), "one.onnx")
    a = np.arange(8, dtype=np.uint8).reshape(2, 4)
    np.save("a.npy", a)
    rc, out, err = cli("run", "one.onnx", "--op", "udot4", "--inputs", "a.npy", "--json")
    assert rc == 0, err
    import json

    y = json.loads(out)["outputs"]["Y"]["values"]
    assert y == (a.astype(np.int64) @ np.arange(12).reshape(4, 3)).tolist()
    rc, _, err = cli("run", "mm.onnx", "--op", "udot4", "--inputs", "a.npy")
    _one_error(rc, err, "a .npy file holds one array, and the model has 2 inputs ('A', 'B')")


def test_save_writes_the_name_given(cli, models, monkeypatch):
    """numpy.savez adds .npz to a name without it; --save writes the file it names (and says so)."""
    monkeypatch.chdir(models)
    rc, out, err = cli("run", "mm.onnx", "--op", "udot4", "--save", "outputs.bin")
    assert rc == 0, err
    assert out.strip().endswith("outputs written to outputs.bin")
    assert (models / "outputs.bin").exists() and not (models / "outputs.bin.npz").exists()
    assert list(np.load(models / "outputs.bin")) == ["Y"]


def test_a_weight_only_model_says_what_ran(cli, tmp_path):
    """A model whose only product is a MatMulNBits (weight-only quantization) runs, with a note (not the float
    model's warning) that its products are float32 ones; its outputs are :func:`intdot.quant.run`'s."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper, save

    from intdot import quant

    rng = np.random.default_rng(0)
    weights = {"B": rng.integers(0, 256, (5, 2, 16), dtype=np.uint8), "S": rng.random(10).astype(np.float32)}
    node = helper.make_node("MatMulNBits", ["x", "B", "S"], ["y"], domain="com.microsoft", K=64, N=5, bits=4,
                            block_size=32)  # fmt: skip
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 5])],
        [numpy_helper.from_array(v, k) for k, v in weights.items()],
    )  # fmt: skip
    opsets = [helper.make_opsetid("", 21), helper.make_opsetid("com.microsoft", 1)]
    model = helper.make_model(graph, ir_version=10, opset_imports=opsets)
    save(model, tmp_path / "nbits.onnx")
    x = rng.standard_normal((2, 64)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    rc, out, err = cli("run", tmp_path / "nbits.onnx", "--op", "sdot4", "--inputs", tmp_path / "x.npy",
                       "--save", tmp_path / "y.npz")  # fmt: skip
    assert rc == 0, err
    assert err.strip().splitlines() == [
        f"intdot run: note: {tmp_path / 'nbits.onnx'} has 1 MatMulNBits node (weights of 2, 4 or 8 bits, products "
        "in float32 as ONNX Runtime computes them) and no integer nodes: nothing ran through amd.sdot4"
    ]
    want = quant.run(model, {"x": x}, op="sdot4")["y"]
    assert np.array_equal(np.load(tmp_path / "y.npz")["y"], want)
