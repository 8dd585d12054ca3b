"""The demo: ONNX Runtime's quantized models run bit-identically through every kind of fitting instruction; the
command line checks --plot before any work and records its seed and parameters."""

import json

import numpy as np
import pytest

pytest.importorskip("sklearn")

from intdot.cli import main  # noqa: E402

from . import ort  # noqa: E402


@pytest.fixture(scope="module")
def result():
    ort.need()
    from intdot.demo import load_digits_split, run_all, train, train_cnn
    from intdot.demo.export import cnn_onnx, mlp_onnx
    from intdot.demo.quant import _threads

    x_tr, y_tr, x_te, y_te = load_digits_split(seed=3, subset=400)
    with _threads(1):
        mlp = train(x_tr, y_tr, hidden=32, epochs=40, seed=3)
        cnn = train_cnn(x_tr, y_tr, epochs=6, seed=3)
    models = {"mlp": (mlp_onnx(mlp), mlp.logits(x_te)), "cnn": (cnn_onnx(cnn), cnn.logits(x_te))}
    return run_all(models, x_tr[:128], x_te, y_te, distinct=True)


def test_every_kind_of_fitting_instruction_is_bit_identical_to_onnx_runtime(result):
    for m in result["models"]:
        assert len(m["rows"]) >= 9, m["name"]
        assert m["integer_nodes"], m["name"]
        for r in m["rows"]:
            assert r["identical_to_ort_int8"] and r["identical_within_step"], (m["name"], r["step"])
            assert r["accuracy"] == m["ort"]["int8_kernels"]["accuracy"]
            assert r["accuracy"] >= m["float_accuracy"] - 0.03, (m["name"], r)
        assert {n["instruction"] for n in m["not_fitting"]} >= {"amd.sdot8", "amd.udot8", "amd.sudot8"}
        assert all("cannot compute int8 x int8" in n["why"] and "node '" in n["why"] for n in m["not_fitting"])
        # ONNX Runtime as it sets itself up differs only where its own uint8 x int8 kernel saturates.
        assert (m["ort_default_vs_int8"] > 0) == result["ort_saturates_u8s8"]
        assert all(r["differ_from_ort_default"] == m["ort_default_vs_int8"] for r in m["rows"])


def test_a_wrong_zero_point_shift_is_caught(result, monkeypatch):
    """A compensation off by one (x - 128 with the zero point moved by 127) must show as a difference."""
    from intdot.demo import load_digits_split, run_all, train
    from intdot.demo.export import mlp_onnx
    from intdot.quant import integer

    x_tr, y_tr, x_te, y_te = load_digits_split(seed=3, subset=200)
    mlp = train(x_tr, y_tr, hidden=16, epochs=10, seed=3)
    real = integer.product

    def off_by_one(a, b, za, zb, p, target=None):
        return real(a, b, np.asarray(za) + (1 if p.handling == "compensated" else 0), zb, p, target)

    monkeypatch.setattr(integer, "product", off_by_one)
    monkeypatch.setattr("intdot.quant.matmul.product", off_by_one)
    out = run_all({"mlp": (mlp_onnx(mlp), mlp.logits(x_te))}, x_tr[:64], x_te, y_te, distinct=True)
    rows = out["models"][0]["rows"]
    assert any(r["handling"] == "compensated" for r in rows)
    assert all(r["identical_to_ort_int8"] == (r["handling"] == "direct") for r in rows)


def test_cli_json_records_seed_and_parameters_and_plot_without_extension(tmp_path, capsys, monkeypatch):
    ort.need()
    pytest.importorskip("matplotlib")
    import functools

    import intdot.demo.quant

    # One instruction of each kind of step (the command runs all 80 forms; the fixture's test checks the bits).
    monkeypatch.setattr(intdot.demo.quant, "run_all", functools.partial(intdot.demo.quant.run_all, distinct=True))
    base = tmp_path / "noext"
    args = ["demo", "--subset", "200", "--epochs", "5", "--hidden", "8", "--cnn-epochs", "1", "--seed", "4"]
    assert main([*args, "--json", "--plot", str(base)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["seed"] == 4
    assert out["parameters"]["subset"] == 200 and out["parameters"]["hidden"] == 8
    assert out["parameters"]["epochs"] == 5 and out["parameters"]["cnn_epochs"] == 1
    assert out["n_test"] == 60 and [m["name"] for m in out["models"]] == ["mlp", "cnn"]
    assert (tmp_path / "noext.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not base.exists()


def test_cli_says_which_file_the_plot_went_to(tmp_path, capsys, monkeypatch):
    pytest.importorskip("matplotlib")
    from intdot.cli import demo

    # The table and the plot of a stand-in result: what is printed is the name of the file written.
    monkeypatch.setattr(demo, "run", _fake_run(demo))
    assert main(["demo", "--plot", str(tmp_path / "adir")]) == 0
    assert capsys.readouterr().out.strip().endswith(f"plot written to {tmp_path / 'adir.png'}")
    assert (tmp_path / "adir.png").exists()


def _fake_run(demo):
    def run(args):
        path, fmt = demo.plot_path(args.plot)
        print(f"plot written to {path}")
        with open(path, "wb"):
            pass
        return 0

    return run


@pytest.mark.parametrize("name", ["out.txt", "x.docx"])
def test_an_unknown_plot_format_is_refused_before_any_work(name, tmp_path, capsys, monkeypatch):
    pytest.importorskip("matplotlib")
    import intdot.demo

    def fail(*a, **k):
        raise AssertionError("the demo started its work")

    monkeypatch.setattr(intdot.demo, "load_digits_split", fail)
    assert main(["demo", "--plot", str(tmp_path / name)]) == 1
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert f"cannot write .{name.split('.')[1]} files" in err and ".png" in err and ".svg" in err
    assert "internal error" not in err
    assert main(["demo", "--plot", str(tmp_path)]) == 1
    assert "is a directory" in capsys.readouterr().err


@pytest.mark.parametrize(
    "args, words",
    [
        (["--seed", "-5"], "--seed -5"),
        (["--hidden", "2"], "--hidden 2"),
        (["--epochs", "0"], "--epochs 0"),
        (["--cnn-epochs", "0"], "--cnn-epochs 0"),
        (["--subset", "5"], "--subset 5"),
    ],
)
def test_cli_bad_numbers_are_bad_input_not_internal_errors(args, words, capsys):
    assert main(["demo", *args]) == 1
    err = capsys.readouterr().err
    assert words in err and "internal error" not in err and len(err.strip().splitlines()) == 1
