"""A small image classifier exported from PyTorch (``tests/quant/torch_cnn.py``) in float32, through ``run``,
against ONNX Runtime, bit for bit: its Convs in x86's NCHWc kernels (or, with ``INTDOT_ORT=arm``, MLAS's
convolution on Arm), the residual Adds they take, ReLU6 as Clip, pools and the head.  Exported twice: with its
BatchNorms folded by the exporter, and kept (``TrainingMode.PRESERVE``), which ONNX Runtime folds itself
(ConvBNFusion: ``intdot.quant.conv_folds``)."""

import warnings

import onnx
import pytest

from intdot import quant

from . import ort
from .test_float_kernels import _same


@pytest.mark.parametrize("fold", ["exporter", "onnx runtime"])
def test_exported_cnn_as_onnx_runtime(fold, tmp_path):
    torch = pytest.importorskip("torch", reason="PyTorch (the venv's CPU build) exports the network")
    ort.need()
    from .torch_cnn import net

    path = tmp_path / "cnn.onnx"
    x = torch.randn(2, 3, 48, 40, generator=torch.Generator().manual_seed(1))
    mode = torch.onnx.TrainingMode.EVAL if fold == "exporter" else torch.onnx.TrainingMode.PRESERVE
    with warnings.catch_warnings():  # the TorchScript exporter is deprecated, and says so
        warnings.simplefilter("ignore")
        torch.onnx.export(net(), (x,), str(path), dynamo=False, opset_version=17, input_names=["x"],
                          output_names=["y"], training=mode, do_constant_folding=fold == "exporter")  # fmt: skip
    model = onnx.load(path)
    assert any(n.op_type == "BatchNormalization" for n in model.graph.node) == (fold != "exporter")
    want = ort.session(model, neon=True).run(None, {"x": x.numpy()})[0]
    _same(quant.run(model, x.numpy(), op="sdot4", platform=ort.platform())["y"], want, fold)


def test_exported_cnn_on_x86_avx2(tmp_path):
    """The same on QEMU's Haswell CPU (``platform="x86-avx2"``: NCHWc blocks of 8, MLAS's FMA3 kernels)."""
    torch = pytest.importorskip("torch", reason="PyTorch (the venv's CPU build) exports the network")
    from ..oracles import x86_ort
    from .torch_cnn import net

    x86_ort.require()
    path = tmp_path / "cnn.onnx"
    x = torch.randn(1, 3, 40, 36, generator=torch.Generator().manual_seed(2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(net(1), (x,), str(path), dynamo=False, opset_version=17, input_names=["x"],
                          output_names=["y"], training=torch.onnx.TrainingMode.PRESERVE,
                          do_constant_folding=False)  # fmt: skip
    model = onnx.load(path)
    want = x86_ort.Session(model.SerializeToString()).run(None, {"x": x.numpy()})[0]
    _same(quant.run(model, x.numpy(), op="sdot4", platform="x86-avx2")["y"], want, "x86-avx2")


def test_partly_quantized_cnn(tmp_path):
    """The network through ``quantize_static`` (QDQ) with every other Conv left in float (``nodes_to_exclude``):
    QLinearConvs on the instruction beside float Convs in x86's NCHWc layout (or Arm's MLAS convolution), and
    the float fusions around them."""
    torch = pytest.importorskip("torch", reason="PyTorch (the venv's CPU build) exports the network")
    ort.need()
    import numpy as np
    from onnxruntime.quantization import CalibrationDataReader, QuantType, quantize_static

    from .torch_cnn import net

    x = torch.randn(2, 3, 40, 36, generator=torch.Generator().manual_seed(3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(net(2), (x,), str(tmp_path / "f.onnx"), dynamo=False, opset_version=17,
                          input_names=["x"], output_names=["y"])  # fmt: skip
    convs = [n.name for n in onnx.load(tmp_path / "f.onnx").graph.node if n.op_type == "Conv"]

    class Batches(CalibrationDataReader):
        def __init__(self):
            rng = np.random.default_rng(0)
            self.batches = iter([{"x": rng.standard_normal((2, 3, 40, 36)).astype(np.float32)} for _ in range(3)])

        def get_next(self):
            return next(self.batches, None)

    quantize_static(str(tmp_path / "f.onnx"), str(tmp_path / "q.onnx"), Batches(), nodes_to_exclude=convs[1::2],
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)  # fmt: skip
    model = onnx.load(tmp_path / "q.onnx")
    want = ort.session(model, neon=True).run(None, {"x": x.numpy()})[0]
    op = "vpmaddubsw" if not ort.on_arm() and ort.saturates_u8s8() else "usdot"
    _same(quant.run(model, x.numpy(), op=op, platform=ort.platform())["y"], want, "partly quantized")
