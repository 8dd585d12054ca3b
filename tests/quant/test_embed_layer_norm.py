"""``com.microsoft`` EmbedLayerNormalization (a BERT model's embeddings, as ONNX Runtime's transformer optimizer
writes them) against ONNX Runtime's CPU kernel, bit for bit, every output: hidden sizes around Arm's vectorized
squares, with and without segments, a mask and position ids, tables of mixed magnitudes; on this machine's platform
(x86, or under INTDOT_ORT=arm ONNX Runtime for AArch64)."""

import numpy as np
import onnx.numpy_helper as nh
import pytest
from onnx import TensorProto, helper

from intdot import quant
from intdot.core.errors import OperandError, OperandTypeError
from intdot.quant.embed_layer_norm import embed_layer_norm

from . import ort
from .test_float_kernels import _same

F32 = np.float32


def _case(rng, b, s, h, segments=True, mask=False, positions=False):
    """A node with its tables as initializers, and its feeds."""
    tables = {"we": (rng.standard_normal((50, h)) * rng.choice([0.05, 1, 30]) + rng.choice([0, 3])).astype(F32),
              "pe": (rng.standard_normal((40, h)) * 0.1).astype(F32),
              "se": (rng.standard_normal((2, h)) * 0.1).astype(F32),
              "g": rng.standard_normal(h).astype(F32), "b": rng.standard_normal(h).astype(F32)}  # fmt: skip
    feeds = {"ids": rng.integers(0, 50, (b, s)).astype(np.int32)}
    if segments:
        feeds["seg"] = rng.integers(0, 2, (b, s)).astype(np.int32)
    if mask:
        feeds["mask"] = (rng.random((b, s)) < 0.7).astype(np.int32)
    if positions:
        feeds["pos"] = rng.integers(0, 40, (b, s)).astype(np.int32)
    names = ["ids", "seg" if segments else "", "we", "pe", "se" if segments else "", "g", "b",
             "mask" if mask else "", "pos" if positions else ""]  # fmt: skip
    while names[-1] == "":
        names.pop()
    node = helper.make_node("EmbedLayerNormalization", names, ["y", "mask_index", "sum"], domain="com.microsoft",
                            epsilon=1e-12)  # fmt: skip
    ins = [helper.make_tensor_value_info(n, TensorProto.INT32, [b, s]) for n in feeds]
    outs = [helper.make_tensor_value_info(o, TensorProto.INT32 if o == "mask_index" else TensorProto.FLOAT, None)
            for o in ("y", "mask_index", "sum")]  # fmt: skip
    inits = [nh.from_array(v, n) for n, v in tables.items() if n != "se" or segments]
    graph = helper.make_graph([node], "g", ins, outs, inits)
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
    return helper.make_model(graph, ir_version=10, opset_imports=opsets), feeds, tables


@pytest.mark.parametrize("h", [1, 3, 4, 7, 8, 15, 16, 17, 32, 33, 100, 768])
def test_embed_layer_norm_as_onnx_runtime(h):
    ort.need()
    rng = np.random.default_rng(h)
    for k, (segments, mask, positions) in enumerate([(True, False, False), (False, True, False),
                                                     (True, True, True), (False, False, True)]):  # fmt: skip
        model, feeds, _ = _case(rng, 2 + k % 2, 5, h, segments, mask, positions)
        want = ort.session(model).run(None, feeds)
        got = quant.run(model, feeds, op="sdot4", platform=ort.platform())
        for (name, g), w in zip(got.items(), want):
            if w.dtype == np.int32:
                assert np.array_equal(g, w), (h, k, name)
            else:
                _same(g, w, (h, k, name))


def test_the_platforms_compute_apart():
    """Arm's fused squares and last step give other bits than x86's here: the Arm comparison can fail."""
    rng = np.random.default_rng(0)
    model, feeds, _ = _case(rng, 2, 8, 33)
    x86, arm = (quant.run(model, feeds, op="sdot4", platform=p)["y"] for p in ("x86", "arm"))
    assert not np.array_equal(x86, arm)


def test_errors():
    rng = np.random.default_rng(1)
    _, feeds, t = _case(rng, 1, 3, 4)
    ids = feeds["ids"]
    with pytest.raises(OperandError, match="input_ids holds"):
        embed_layer_norm(ids + 100, t["we"], t["pe"], t["g"], t["b"])
    with pytest.raises(OperandError, match="both or neither"):
        embed_layer_norm(ids, t["we"], t["pe"], t["g"], t["b"], segment_ids=feeds["seg"])
    with pytest.raises(OperandError, match=r"position_embedding.shape=\(40, 5\)"):
        embed_layer_norm(ids, t["we"], np.zeros((40, 5), F32), t["g"], t["b"])
    with pytest.raises(OperandError, match=r"mask.shape"):
        embed_layer_norm(ids, t["we"], t["pe"], t["g"], t["b"], mask=np.ones((2, 3), np.int32))
    with pytest.raises(OperandTypeError, match="int32"):
        embed_layer_norm(ids.astype(np.int64), t["we"], t["pe"], t["g"], t["b"])
