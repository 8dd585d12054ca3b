"""The quantized-inference demo on a subset, with bounds that a broken quantizer or zero point would miss."""

import json

import numpy as np
import pytest

pytest.importorskip("sklearn")

from intdot.cli import main  # noqa: E402
from intdot.demo import load_digits_split, quant, run_all, train  # noqa: E402


@pytest.fixture(scope="module")
def setup():
    x_tr, y_tr, x_te, y_te = load_digits_split(seed=3, subset=900)
    model = train(x_tr, y_tr, hidden=32, epochs=40, seed=3)
    return model, x_tr, x_te, y_te


def meets_bounds(result) -> bool:
    f = result["float"]["accuracy"]
    ok = f >= 0.9
    for r in result["rows"]:
        slack = {"W8A8": 0.015, "W4A8": 0.04, "W4A4": 0.06}[r["group"]]
        agree = {"W8A8": 0.97, "W4A8": 0.93, "W4A4": 0.9}[r["group"]]
        ok &= r["accuracy"] >= f - slack and r["agrees_with_float"] >= agree and r["identical_in_group"]
        ok &= r["clamp_changed_outputs"] in (None, 0)
    return bool(ok)


def test_demo_accuracy_and_bit_identity(setup):
    result = run_all(*setup[:2], *setup[2:])
    assert meets_bounds(result), json.dumps(
        [{k: v for k, v in r.items() if k != "confusion"} for r in result["rows"]], indent=1
    )
    assert {r["instruction"] for r in result["rows"]} >= {
        "sudot4",
        "sudot8",
        "sdot4",
        "sdot8",
        "usdot",
        "sudot",
        "sdot",
    }


def test_a_wrong_zero_point_is_caught(setup, monkeypatch):
    real = quant._layer

    def off_by_one(v, x, w, bias, amax):
        if v.handling == "shifted":
            bias = bias + w.astype(np.int64).sum(axis=0)  # compensates 129 * colsum instead of 128 * colsum
        return real(v, x, w, bias, amax)

    monkeypatch.setattr(quant, "_layer", off_by_one)
    assert not meets_bounds(run_all(*setup[:2], *setup[2:], variants=quant.VARIANTS[:4]))


def test_a_broken_quantizer_is_caught(setup, monkeypatch):
    def per_row(w, bits):  # scales along the wrong axis: per input instead of per output channel
        qmax = (1 << (bits - 1)) - 1
        scale = np.abs(w).max(axis=1, keepdims=True) / qmax
        return np.clip(np.rint(w / scale), -qmax, qmax).astype(np.int8), np.abs(w).max(axis=0) / qmax

    monkeypatch.setattr(quant, "quantize_weights", per_row)
    assert not meets_bounds(run_all(*setup[:2], *setup[2:], variants=quant.VARIANTS[:2]))


def test_cli_json_and_plot(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    png = tmp_path / "d.png"
    assert main(["demo", "--subset", "300", "--epochs", "10", "--hidden", "16", "--json", "--plot", str(png)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n_test"] == 90 and len(out["rows"]) == len(quant.VARIANTS)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_table_and_bad_arguments(capsys):
    assert main(["demo", "--subset", "300", "--epochs", "5", "--hidden", "8"]) == 0
    text = capsys.readouterr().out
    assert "sudot8" in text and "RDNA3" in text and "identical" in text
    assert main(["demo", "--subset", "5"]) == 1
    assert "--subset 5" in capsys.readouterr().err


@pytest.mark.parametrize(
    "args, words",
    [(["--seed", "-5"], "--seed -5"), (["--hidden", "2"], "--hidden 2"), (["--epochs", "0"], "--epochs 0")],
)
def test_cli_bad_numbers_are_bad_input_not_internal_errors(args, words, capsys):
    assert main(["demo", *args]) == 1
    err = capsys.readouterr().err
    assert words in err and "internal error" not in err and len(err.strip().splitlines()) == 1
