"""Whole quantized models (as onnxruntime.quantization writes them: QDQ, QOperator, dynamic) through
``intdot.quant.run`` and ``intdot run``, bit for bit against ONNX Runtime."""

import json
import logging
import warnings

import numpy as np
import pytest

from intdot import quant
from intdot.cli import main
from intdot.core.errors import OperandError

from . import ort


def _float_models(rng):
    from intdot.demo.cnn import CNN
    from intdot.demo.export import cnn_onnx, mlp_onnx
    from intdot.demo.mlp import Model

    mlp = Model(
        rng.normal(0, 0.05, (64, 32)), rng.normal(0, 0.1, 32), rng.normal(0, 0.2, (32, 10)), rng.normal(0, 0.1, 10)
    )
    cnn = CNN(
        rng.normal(0, 0.05, (8, 1, 3, 3)),
        rng.normal(0, 0.1, 8),
        rng.normal(0, 0.2, (16, 8, 3, 3)),
        rng.normal(0, 0.1, 16),
        rng.normal(0, 0.1, (256, 10)),
        rng.normal(0, 0.1, 10),
    )
    return {"mlp": mlp_onnx(mlp), "cnn": cnn_onnx(cnn)}


def _quantize(tmp_path, model, how, **kw):
    import onnx
    from onnxruntime.quantization import CalibrationDataReader, quantize_dynamic, quantize_static

    rng = np.random.default_rng(1)

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.batches = iter([{"pixels": rng.uniform(0, 16, (16, 64)).astype(np.float32)} for _ in range(4)])

        def get_next(self):
            return next(self.batches, None)

    src, dst = tmp_path / "float.onnx", tmp_path / f"{how}.onnx"
    onnx.save(model, src)
    logging.disable(logging.WARNING)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if how == "dynamic":
                quantize_dynamic(str(src), str(dst), **kw)
            else:
                quantize_static(str(src), str(dst), Reader(), per_channel=True, **kw)
    finally:
        logging.disable(logging.NOTSET)
    return dst


@pytest.fixture(scope="module")
def models():
    ort.need()
    return _float_models(np.random.default_rng(0))


def _ort(path, int8_kernels=True):
    return ort.session(path, True if int8_kernels else None)


def _pixels(n=64, seed=2):
    return np.random.default_rng(seed).uniform(0, 16, (n, 64)).astype(np.float32)


@pytest.mark.parametrize("name", ["mlp", "cnn"])
def test_qdq_models_as_onnxruntime_writes_them(models, tmp_path, name):
    from onnxruntime.quantization import QuantFormat, QuantType

    path = _quantize(tmp_path, models[name], "qdq", quant_format=QuantFormat.QDQ, activation_type=QuantType.QInt8)
    x = _pixels()
    want = _ort(path).run(None, {"pixels": x})[0]  # session.qdqisint8allowed: its int8 kernels, exact everywhere
    nodes = quant.model.integer_nodes(path, qdq_int8_allowed=True)
    assert {t for _, t in nodes} == ({"QLinearMatMul"} if name == "mlp" else {"QLinearMatMul", "QLinearConv"})
    assert nodes == quant.model.integer_nodes(path)  # x86's default moves them to uint8: the same groups
    for p in quant.fitting(np.int8, np.int8, distinct=True):
        got = quant.run(path, x, op=p.record, qdq_int8_allowed=True)["logits"]
        assert np.array_equal(got, want), p.record.name


@pytest.mark.parametrize("acts", ["int8", "uint8"])
def test_qoperator_models(models, tmp_path, acts):
    from onnxruntime.quantization import QuantFormat, QuantType

    kind = QuantType.QInt8 if acts == "int8" else QuantType.QUInt8
    path = _quantize(
        tmp_path,
        models["cnn"],
        "qop",
        quant_format=QuantFormat.QOperator,
        activation_type=kind,
        op_types_to_quantize=["Conv", "MatMul"],
    )
    x = _pixels()
    got = quant.run(path, {"pixels": x}, op="usdot", target="neoverse-v2")["logits"]
    want = _ort(path, int8_kernels=False).run(None, {"pixels": x})[0]
    if acts == "uint8" and ort.saturates_u8s8():
        # ONNX Runtime's uint8 x int8 kernel saturates pair sums on this CPU (test_ort_kernels.py): it computes
        # the AVX2 idiom, and so does intdot on the catalog's record of it.
        assert not np.array_equal(got, want)
        assert np.array_equal(quant.run(path, {"pixels": x}, op="vpmaddubsw")["logits"], want)
        return
    assert np.array_equal(got, want)


@pytest.mark.parametrize("weights", ["uint8", "int8"])
def test_dynamic_quantization_matmul_integer(models, tmp_path, weights):
    """quantize_dynamic writes DynamicQuantizeLinear -> MatMulInteger -> Cast -> Mul."""
    from onnxruntime.quantization import QuantType

    wt = QuantType.QUInt8 if weights == "uint8" else QuantType.QInt8
    path = _quantize(tmp_path, models["mlp"], "dynamic", weight_type=wt)
    assert {t for _, t in quant.model.integer_nodes(path)} == {"MatMulInteger"}
    x = _pixels()
    want = _ort(path, int8_kernels=False).run(None, {"pixels": x})[0]
    for op in ("sdot4", "udot", "usdot", "sudot4"):
        assert np.array_equal(quant.run(path, x, op=op, platform=ort.platform())["logits"], want), op


@pytest.mark.parametrize("platform", ["arm", "arm-sme"])
@pytest.mark.parametrize("weights", ["uint8", "int8"])
def test_dynamic_quantization_on_arm(models, tmp_path, weights, platform):
    """ONNX Runtime for AArch64 fuses quantize_dynamic's MatMulInteger -> Cast -> Mul -> Add and adds the bias by a
    fused multiply-add; with SME it computes int8 weights through KleidiAI, each row of x quantized on its own
    (quant.dynamic_arm). platform="arm" / "arm-sme" give its bits on a CPU without / with SME; x86's miss them."""
    from onnxruntime.quantization import QuantType

    from ..oracles import arm_ort

    sme = platform == "arm-sme"
    arm_ort.require(sme)
    wt = QuantType.QUInt8 if weights == "uint8" else QuantType.QInt8
    path = _quantize(tmp_path, models["mlp"], "dynamic", weight_type=wt)
    x = np.random.default_rng(5).standard_normal((256, 64)).astype(np.float32) * 4
    x[3] = 0  # a row of zeros: KleidiAI's scale 1
    x[4] = np.abs(x[4])  # one sign only: its zero point at an end
    want = arm_ort.Session(path, sme=sme).run(None, {"pixels": x})[0]
    for op in ("usdot", "sdot4"):
        assert np.array_equal(quant.run(path, x, op=op, platform=platform)["logits"], want), op
    assert not np.array_equal(quant.run(path, x, op="usdot")["logits"], want)
    prepared = quant.prepare(path, platform=platform)
    kleidi = sme and weights == "int8"
    want_kinds = {"DynamicQuantizeMatMulSME"} if kleidi else {"MatMulInteger"}
    assert {t for _, t in quant.model.integer_nodes(prepared, platform=platform)} == want_kinds
    assert ("MulAdd" in {n.op_type for n in prepared.model.graph.node}) != kleidi


def test_a_node_the_instruction_cannot_compute_is_named(models, tmp_path):
    from onnxruntime.quantization import QuantFormat

    path = _quantize(tmp_path, models["cnn"], "qdq", quant_format=QuantFormat.QDQ)
    with pytest.raises(OperandError, match=r"node '\w+' \(QLinearConv\): op='sdot8' .* cannot compute int8 x int8"):
        quant.run(path, _pixels(2), op="sdot8")
    with pytest.raises(OperandError, match=r"the model takes pixels; missing pixels; not inputs of the model: x"):
        quant.run(path, {"x": _pixels(2)}, op="usdot")


def test_cli_run(models, tmp_path, capsys, monkeypatch):
    from onnxruntime.quantization import QuantFormat

    from intdot.quant import qdq

    fuse, calls = qdq.fuse, []  # the QDQ rewrite reads every node and infers every shape: once a run
    monkeypatch.setattr(qdq, "fuse", lambda *a, **k: calls.append(1) or fuse(*a, **k))

    path = _quantize(tmp_path, models["mlp"], "qdq", quant_format=QuantFormat.QDQ)
    x = _pixels(5)
    np.savez(tmp_path / "x.npz", pixels=x)
    want = _ort(path).run(None, {"pixels": x})[0]
    args = ["run", str(path), "--op", "usdot", "--target", "neoverse-v2", "--inputs", str(tmp_path / "x.npz")]
    assert main([*args, "--json", "--save", str(tmp_path / "y.npz")]) == 0
    assert len(calls) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["instruction"] == "arm.usdot_neon_vec_64" and len(out["integer_nodes"]) == 2
    assert np.array_equal(np.array(out["outputs"]["logits"]["values"], np.float32), want)
    with np.load(tmp_path / "y.npz") as y:
        assert np.array_equal(y["logits"], want)
    assert main(args) == 0
    text = capsys.readouterr().out
    assert (
        "2 integer nodes through arm.usdot_neon_vec_64 on neoverse-v2" in text
        and "output logits: float32 [5, 10]" in text
    )
    assert main(["run", str(path), "--op", "sdot"]) == 0  # random inputs; the 8-bit form of a shared spelling
    assert "random (seed 0)" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args, words",
    [
        (["--op", "usdot", "--target", "cortex-a76"], "not available on cortex-a76"),
        (["--op", "sdot8"], "cannot compute int8 x int8"),
        (["--op", "nosuch"], "not in intdot's catalog"),
        (["--op", "usdot", "--inputs", "{bad}"], "not a NumPy .npz file"),
    ],
)
def test_cli_run_errors(models, tmp_path, capsys, args, words):
    from onnxruntime.quantization import QuantFormat

    path = _quantize(tmp_path, models["mlp"], "qdq", quant_format=QuantFormat.QDQ)
    (tmp_path / "bad.npz").write_text("not an npz")
    args = [a.replace("{bad}", str(tmp_path / "bad.npz")) for a in args]
    assert main(["run", str(path), *args]) == 1
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1
    (tmp_path / "junk.onnx").write_bytes(b"\x00junk")
    assert main(["run", str(tmp_path / "junk.onnx"), "--op", "usdot"]) == 1
    assert "is not an ONNX model" in capsys.readouterr().err
