"""MaxPool, GlobalMaxPool and AveragePool through ``run`` against ONNX Runtime over the window layouts where
``onnx.reference`` raised or answered apart (found by fuzzing): every rank from 1 to 3, asymmetric pads,
dilations, ``ceil_mode``, ``auto_pad`` (SAME_UPPER, SAME_LOWER, VALID), float32 and 8-bit codes."""

import numpy as np
import pytest
from onnx import TensorProto, helper

from intdot import quant

from . import ort

_ELEM = {
    np.dtype(np.float32): TensorProto.FLOAT,
    np.dtype(np.uint8): TensorProto.UINT8,
    np.dtype(np.int8): TensorProto.INT8,
}


def _model(op, x, opset=19, **attrs):
    elem = _ELEM[x.dtype]
    graph = helper.make_graph(
        [helper.make_node(op, ["x"], ["y"], **attrs)],
        "g",
        [helper.make_tensor_value_info("x", elem, list(x.shape))],
        [helper.make_tensor_value_info("y", elem, None)],
    )
    return helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", opset)])


def _cases(op, n, seed, opset=19):
    rng = np.random.default_rng(seed)
    for t in range(n):
        d = int(rng.integers(1, 4))
        spatial = [int(v) for v in rng.integers(1, 9, d)]
        kernel = [int(rng.integers(1, min(v, 4) + 1)) for v in spatial]
        attrs = {"kernel_shape": kernel, "strides": [int(v) for v in rng.integers(1, 4, d)]}
        attrs["auto_pad"] = ("NOTSET", "NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID")[t % 5]
        if attrs["auto_pad"] == "NOTSET":
            attrs["pads"] = [int(rng.integers(0, q)) for q in kernel] + [int(rng.integers(0, q)) for q in kernel]
        attrs["ceil_mode"] = int(rng.random() < 0.4)
        if (op == "MaxPool" or opset >= 19) and rng.random() < 0.3:  # AveragePool has dilations from opset 19
            attrs["dilations"] = [int(v) for v in rng.integers(1, 3, d)]
        if op == "AveragePool":
            attrs["count_include_pad"] = int(rng.integers(0, 2))
        dtype = (np.float32, np.float32, np.uint8, np.int8)[t % 4] if op == "MaxPool" else np.float32
        if dtype == np.float32:
            x = rng.standard_normal([2, 3, *spatial]).astype(np.float32)
        else:
            x = rng.integers(np.iinfo(dtype).min, np.iinfo(dtype).max, [2, 3, *spatial], endpoint=True).astype(dtype)
        yield x, attrs


@pytest.mark.parametrize("opset", [17, 19])
@pytest.mark.parametrize("op", ["MaxPool", "AveragePool"])
def test_pools_as_onnx_runtime(op, opset):
    """Opset 19's AveragePool runs in another kernel of ONNX Runtime's (window order), 17's in MLAS's."""
    ort.need()
    checked = 0
    for x, attrs in _cases(op, 200, seed=len(op) + opset, opset=opset):
        model = _model(op, x, opset, **attrs)
        try:
            want = ort.session(model).run(None, {"x": x})[0]
        except Exception as exc:  # noqa: BLE001 - some of its kernels refuse a negative pad (SAME, kernel < stride)
            assert "padding values must be non-negative" in str(exc), exc
            continue
        got = quant.run(model, x, op="sdot4", platform=ort.platform())["y"]
        assert got.dtype == want.dtype and got.shape == want.shape, attrs
        if op == "AveragePool" and opset < 19 and attrs["ceil_mode"] and attrs["count_include_pad"]:
            # MLAS's windows past the pad under ceil_mode and count_include_pad round an ulp apart here, not
            # modelled (docs/differences.md, row 28): the values, not the bits
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
            continue
        assert got.tobytes() == want.tobytes(), attrs
        checked += 1
    assert checked > 80


@pytest.mark.parametrize("rank", [3, 4, 5])
def test_global_max_pool_takes_every_spatial_axis(rank):
    ort.need()
    x = np.random.default_rng(rank).standard_normal([2, 3, *range(2, rank)]).astype(np.float32)
    model = _model("GlobalMaxPool", x)
    want = ort.session(model).run(None, {"x": x})[0]
    got = quant.run(model, x, op="sdot4", platform=ort.platform())["y"]
    assert got.shape == want.shape and got.tobytes() == want.tobytes()
