"""Where ONNX Runtime refuses a configuration the ONNX spec allows, onnx.reference is the oracle: per-row
``a_zero_point`` of MatMulInteger, per-channel weight zero points of ConvInteger.  (ONNX Runtime 1.32 takes
per-channel weight zero points in QLinearConv: there both are oracles, each for its own requantization.)"""

import zlib

import numpy as np
import pytest

from intdot import quant

from . import ort


@pytest.fixture(autouse=True)
def _oracle():
    ort.need()


def _rng(*key):
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def _reference(op_type, inputs, attrs=None, out_type=0):
    from onnx.reference import ReferenceEvaluator

    model = ort.node_model(op_type, inputs, attrs, out_type)
    feed = {f"in{i}": np.asarray(v) for i, v in enumerate(inputs) if v is not None}
    return ReferenceEvaluator(model).run(None, feed)[0]


def _refused(op_type, inputs, attrs=None, out_type=0):
    with pytest.raises(Exception, match="(?i)zero.?point"):
        ort.run(op_type, inputs, attrs, out_type)


def test_matmul_integer_per_row_a_zero_point():
    rng = _rng("row")
    a = rng.integers(0, 256, (96, 200)).astype(np.uint8)
    b = rng.integers(-128, 128, (200, 160)).astype(np.int8)
    za = rng.integers(0, 256, 96).astype(np.uint8)
    _refused("MatMulInteger", [a, b, za, np.array(3, np.int8)], out_type=6)
    # onnx.reference subtracts the zero point with NumPy broadcasting, which lays a 1-D tensor along the last
    # axis (K); the spec's (M,)-element per-row zero point must be given to it as (M, 1).
    want = _reference("MatMulInteger", [a, b, za.reshape(96, 1), np.array(3, np.int8)], out_type=6)
    for p in quant.fitting(np.uint8, np.int8, distinct=True):
        assert (quant.matmul_integer(a, b, za, np.int8(3), op=p.record) == want).all(), p.record.name
        assert (quant.matmul_integer(a, b, za.reshape(96, 1), np.int8(3), op=p.record) == want).all()


def test_matmul_integer_per_row_and_per_column():
    rng = _rng("rowcol")
    a = rng.integers(-128, 128, (2, 64, 100)).astype(np.int8)
    b = rng.integers(0, 256, (100, 300)).astype(np.uint8)
    za = rng.integers(-128, 128, (2, 64, 1)).astype(np.int8)
    zb = rng.integers(0, 256, 300).astype(np.uint8)
    want = _reference("MatMulInteger", [a, b, za, zb], out_type=6)
    for p in quant.fitting(np.int8, np.uint8, distinct=True):
        assert (quant.matmul_integer(a, b, za, zb, op=p.record) == want).all(), p.record.name


@pytest.mark.parametrize("kind", [(np.uint8, np.int8), (np.int8, np.uint8)], ids=["u8xs8", "s8xu8"])
def test_conv_integer_per_channel_weight_zero_points(kind):
    tx, tw = kind
    rng = _rng("conv", tx, tw)
    x = rng.integers(np.iinfo(tx).min, np.iinfo(tx).max + 1, (4, 8, 20, 20)).astype(tx)
    w = rng.integers(np.iinfo(tw).min, np.iinfo(tw).max + 1, (32, 8, 3, 3)).astype(tw)
    zx = np.array(np.iinfo(tx).max, tx)
    zw = rng.integers(np.iinfo(tw).min, np.iinfo(tw).max + 1, 32).astype(tw)
    attrs = {"pads": [1, 1, 1, 1], "strides": [1, 1]}
    _refused("ConvInteger", [x, w, zx, zw], attrs, out_type=6)
    want = _reference("ConvInteger", [x, w, zx, zw], attrs, out_type=6)
    assert want.size >= 40_000
    for p in quant.fitting(tx, tw, distinct=True):
        assert (quant.conv_integer(x, w, zx, zw, op=p.record, **attrs) == want).all(), p.record.name


def test_qlinear_conv_per_channel_weight_zero_points():
    """ONNX Runtime requantizes in float32 (requant="float32"), onnx.reference in float64 (int32 sums times a
    float32 scale: requant="float64"); each method matches its runtime (test_requant.py shows where they differ)."""
    rng = _rng("qlconv")
    x = rng.integers(0, 256, (4, 8, 20, 20)).astype(np.uint8)
    w = rng.integers(-128, 128, (16, 8, 3, 3)).astype(np.int8)
    zw = rng.integers(-20, 20, 16).astype(np.int8)
    sw = rng.uniform(0.001, 0.01, 16).astype(np.float32)
    inputs = [x, np.float32(0.02), np.uint8(7), w, sw, zw, np.float32(0.3), np.uint8(100), None]
    attrs = {"pads": [1, 1, 1, 1]}
    want64 = _reference("QLinearConv", inputs, attrs, out_type=2)
    want32 = ort.exact("QLinearConv", inputs, attrs, out_type=2)
    assert len(np.unique(want64)) > 50
    for p in quant.fitting(np.uint8, np.int8, distinct=True):
        got = quant.qlinear_conv(*inputs, op=p.record, requant="float64", **attrs)
        assert (got == want64).all(), p.record.name
        assert (quant.qlinear_conv(*inputs, op=p.record, **attrs) == want32).all(), p.record.name
