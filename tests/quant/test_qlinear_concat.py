"""``qlinear_concat`` against ONNX Runtime's own ``com.microsoft:QLinearConcat`` node: every code of each input
under random scales and zero points (one input sometimes sharing the output's, which ONNX Runtime copies),
extreme scale ratios, zero and negative scales, every axis, empty inputs, and stored sets on which a
requantization that skips the float32 dequantized value (``round((q - zx) * (sx / sy))``) gives other bits (found
by search; the expected bits still come from ONNX Runtime at test time)."""

import numpy as np
import pytest

from intdot.core.errors import OperandError, OperandTypeError
from intdot.quant.qlinear_concat import qlinear_concat

from . import ort

F32, U8, I8 = np.float32, np.uint8, np.int8


@pytest.fixture(autouse=True)
def _oracle():
    ort.need()


def onnxruntime_concat(ins, axis):
    """ONNX Runtime's kernel on ``ins`` (Y_scale, Y_zero_point, then X, X_scale, X_zero_point triples), all fed
    as inputs (so its tables are built at run time; constant parameters build the same tables once)."""
    return ort.run("QLinearConcat", ins, {"axis": axis}, ort._elem(np.asarray(ins[1])), domain="com.microsoft")


def _agree(ins, axis):
    want = onnxruntime_concat(ins, axis)
    got = qlinear_concat(*ins, axis=axis)
    assert got.dtype == want.dtype and got.shape == want.shape
    bad = np.flatnonzero(got.ravel() != want.ravel())
    assert bad.size == 0, (axis, bad[:5], got.ravel()[bad[:5]], want.ravel()[bad[:5]])


def _codes(dtype, rng):
    info = np.iinfo(dtype)
    return rng.permutation(np.arange(info.min, info.max + 1).astype(dtype)).reshape(4, 64)


def _zp(rng, dtype):
    info = np.iinfo(dtype)
    return dtype(rng.integers(info.min, info.max + 1))


@pytest.mark.parametrize("dtype", [U8, I8])
def test_every_code_under_random_parameters(dtype):
    """200 random sets per type, one to three inputs each holding every code."""
    rng = np.random.default_rng(1 + (dtype == I8))
    for _ in range(200):
        sy, zy = F32(np.exp(rng.uniform(-6, 2))), _zp(rng, dtype)
        ins = [sy, zy]
        for _ in range(int(rng.integers(1, 4))):
            same = rng.uniform() < 0.2
            sx, zx = (sy, zy) if same else (F32(np.exp(rng.uniform(-6, 2))), _zp(rng, dtype))
            ins += [_codes(dtype, rng), sx, zx]
        _agree(ins, int(rng.integers(-2, 2)))


@pytest.mark.parametrize("dtype", [U8, I8])
def test_extreme_scales_and_shapes(dtype):
    """Ratios 2**-30 and 2**30, zero and negative scales, subnormal ones; 1-D, 4-D and empty inputs."""
    rng = np.random.default_rng(7)
    x = _codes(dtype, rng)
    for sx, sy in ((1.0, 2.0**-30), (2.0**-30, 1.0), (0.0, 0.5), (0.5, 0.0), (0.0, 0.0), (-0.3, 0.1), (1e-40, 1e-39)):
        _agree([F32(sy), _zp(rng, dtype), x, F32(sx), _zp(rng, dtype), x, F32(0.25), _zp(rng, dtype)], 0)
    a, b = x.reshape(256), x[:1].reshape(64)
    _agree([F32(0.1), _zp(rng, dtype), a, F32(0.3), _zp(rng, dtype), b, F32(0.02), _zp(rng, dtype)], 0)
    a, b = x.reshape(2, 2, 8, 8), x.reshape(2, 2, 8, 8)[:, :, :3]
    _agree([F32(0.1), _zp(rng, dtype), a, F32(0.3), _zp(rng, dtype), b, F32(0.02), _zp(rng, dtype)], 2)
    e = np.zeros((2, 0, 8, 8), dtype)
    _agree([F32(0.1), _zp(rng, dtype), a, F32(0.3), _zp(rng, dtype), e, F32(0.02), _zp(rng, dtype)], 1)


# (type, x_scale, y_scale as float32 in hex, x zero point, y zero point): sets where the float32 dequantized value
# rounds onto another code than the ratio ``x_scale / y_scale`` in float32 or exactly (found by search: about
# one random set in 25,000).
STORED = [
    ("uint8", "0x1.2ae0b8p-8", "0x1.f68244p-7", 79, 209),
    ("uint8", "0x1.34e166p-6", "0x1.1941ccp-8", 158, 111),
    ("uint8", "0x1.14b1d6p-3", "0x1.38fee8p-4", 114, 190),
    ("int8", "0x1.51a3c8p-4", "0x1.d8ec4cp-6", -65, -116),
    ("int8", "0x1.b8edacp-6", "0x1.a4645ap-7", 54, 75),
    ("int8", "0x1.848c92p-7", "0x1.03cc92p-5", -103, -115),
]


@pytest.mark.parametrize("case", STORED, ids=[f"{c[0]}-{i}" for i, c in enumerate(STORED)])
def test_stored_cases(case):
    name, sx, sy, zx, zy = case
    dtype = np.dtype(name).type
    x = np.arange(np.iinfo(dtype).min, np.iinfo(dtype).max + 1).astype(dtype)
    _agree([F32(float.fromhex(sy)), dtype(zy), x, F32(float.fromhex(sx)), dtype(zx)], 0)


def test_errors_name_the_argument():
    x = np.zeros((2, 3), U8)
    s, z = F32(0.5), U8(0)
    with pytest.raises(OperandTypeError, match="X1 has dtype int8; expected uint8, Y_zero_point's type"):
        qlinear_concat(s, z, x, s, z, x.astype(I8), s, I8(0), axis=0)
    with pytest.raises(OperandError, match="4 values after Y_scale and Y_zero_point; expected"):
        qlinear_concat(s, z, x, s, z, x, axis=0)
    with pytest.raises(OperandError, match=r"inputs of shapes \(2, 3\), \(3, 2\) do not concatenate along axis 0"):
        qlinear_concat(s, z, x, s, z, x.T.copy(), s, z, axis=0)
    with pytest.raises(OperandError, match="axis=2 for inputs of 2 dimensions; expected -2 to 1"):
        qlinear_concat(s, z, x, s, z, axis=2)
    with pytest.raises(OperandTypeError, match="axis=None"):
        qlinear_concat(s, z, x, s, z, axis=None)
    with pytest.raises(OperandError, match="X0_scale=nan: expected a finite scale"):
        qlinear_concat(s, z, x, F32("nan"), z, axis=0)
