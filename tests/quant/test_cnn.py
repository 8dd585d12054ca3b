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
