"""``qlinear_sigmoid`` / ``qlinear_leaky_relu`` against ONNX Runtime's own ``com.microsoft:QLinearSigmoid`` /
``QLinearLeakyRelu`` nodes: all 256 codes under many random scales and zero points (the table ONNX Runtime builds
per node is then seen whole), extreme scales, random ``alpha``s, and stored sets on which MLAS's logistic without
fused multiply-adds, or the exact logistic, gives another table (found by search; the expected bits still come
from ONNX Runtime at test time)."""

import numpy as np
import pytest

from intdot.core.errors import OperandError, OperandTypeError
from intdot.quant import qlinear_leaky_relu, qlinear_sigmoid, qlinear_where

from . import ort

F32, U8, I8 = np.float32, np.uint8, np.int8


@pytest.fixture(autouse=True)
def _oracle():
    ort.need()


def onnxruntime_node(op_type, ins, attrs=None):
    """ONNX Runtime's kernel on ``ins`` (X, X_scale, X_zp, Y_scale, Y_zp), all fed as inputs (its table is then
    built at run time; constant parameters build the same table once)."""
    return ort.run(op_type, ins, attrs, ort._elem(np.asarray(ins[0])), domain="com.microsoft")


def _agree(op_type, ins, alpha=None):
    attrs = None if alpha is None else {"alpha": float(alpha)}
    want = onnxruntime_node(op_type, ins, attrs)
    got = qlinear_sigmoid(*ins) if op_type == "QLinearSigmoid" else qlinear_leaky_relu(*ins, alpha=alpha)
    assert got.dtype == want.dtype and got.shape == want.shape
    bad = np.flatnonzero(got.ravel() != want.ravel())
    assert bad.size == 0, (op_type, [float(ins[1]), int(ins[2]), float(ins[3]), int(ins[4])], bad[:5])


def _every_code(dtype):
    info = np.iinfo(dtype)
    return np.arange(info.min, info.max + 1).astype(dtype).reshape(4, 64)


def _zp(rng, dtype):
    info = np.iinfo(dtype)
    return dtype(rng.integers(info.min, info.max + 1))


@pytest.mark.parametrize("dtype", [U8, I8])
@pytest.mark.parametrize("op_type", ["QLinearSigmoid", "QLinearLeakyRelu"])
def test_every_code_under_random_parameters(op_type, dtype):
    """300 random parameter sets per operator and type (x_scale from e^-7 to 1, y_scale down to e^-9)."""
    rng = np.random.default_rng(1 + 2 * (dtype == I8) + (op_type == "QLinearSigmoid"))
    x = _every_code(dtype)
    for _ in range(300):
        sx, sy = F32(np.exp(rng.uniform(-7, 0))), F32(np.exp(rng.uniform(-9, -2)))
        alpha = F32(rng.uniform(0, 0.5)) if op_type == "QLinearLeakyRelu" else None
        _agree(op_type, [x, sx, _zp(rng, dtype), sy, _zp(rng, dtype)], alpha)


@pytest.mark.parametrize("dtype", [U8, I8])
@pytest.mark.parametrize("op_type", ["QLinearSigmoid", "QLinearLeakyRelu"])
def test_extreme_parameters(op_type, dtype):
    """Inputs past the logistic's clamp (|x| > 18), huge and tiny scales, zero and negative ones; alphas 0, 1,
    negative and above 1."""
    rng = np.random.default_rng(5)
    x = _every_code(dtype)
    sets = [
        (1.0, 2.0**-8),
        (2.0**20, 2.0**-8),
        (2.0**-30, 2.0**-30),
        (0.5, 0.0),
        (0.0, 0.0),
        (-0.2, 0.01),
        (0.1, -0.004),
        (1e-40, 2.0**-8),
        (0.15, 2.0**-14),
    ]
    for sx, sy in sets:
        for alpha in (None,) if op_type == "QLinearSigmoid" else (0.0, 1.0, -0.5, 3.0):
            _agree(op_type, [x, F32(sx), _zp(rng, dtype), F32(sy), _zp(rng, dtype)], alpha)


# (type, X_scale, Y_scale as float32 in hex, zero points): sets where MLAS's logistic computed without fused
# multiply-adds (its C version, which CPUs without FMA run), or the exact logistic, gives another table.
STORED = [
    ("uint8", "0x1.0d45a2p-4", "0x1.449db2p-13", 210, 22),
    ("uint8", "0x1.8c4554p-1", "0x1.a4e4fcp-12", 44, 165),
    ("int8", "0x1.19cd32p-4", "0x1.fc2b6ap-12", 26, 39),
    ("int8", "0x1.6df2eep-6", "0x1.0297e0p-10", 34, 47),
]


@pytest.mark.parametrize("case", STORED, ids=[f"{c[0]}-{i}" for i, c in enumerate(STORED)])
def test_stored_sigmoid_cases(case):
    name, sx, sy, zx, zy = case
    dtype = np.dtype(name).type
    ins = [_every_code(dtype), F32(float.fromhex(sx)), dtype(zx), F32(float.fromhex(sy)), dtype(zy)]
    _agree("QLinearSigmoid", ins)


@pytest.mark.slow
@pytest.mark.parametrize("dtype", [U8, I8])
def test_sigmoid_volume(dtype):
    """5,000 more random sets of every code."""
    rng = np.random.default_rng(50 + (dtype == I8))
    x = _every_code(dtype)
    for _ in range(5000):
        sx, sy = F32(np.exp(rng.uniform(-7, 1))), F32(np.exp(rng.uniform(-10, -2)))
        _agree("QLinearSigmoid", [x, sx, _zp(rng, dtype), sy, _zp(rng, dtype)])


def test_errors_name_the_argument():
    x = np.zeros(4, U8)
    s, z = F32(0.5), U8(0)
    with pytest.raises(OperandTypeError, match="X has dtype float32"):
        qlinear_sigmoid(x.astype(F32), s, z, s, z)
    with pytest.raises(OperandTypeError, match="Y_zero_point has dtype int8; expected uint8"):
        qlinear_sigmoid(x, s, z, s, I8(0))
    with pytest.raises(OperandError, match=r"X_scale has shape \(2,\)"):
        qlinear_leaky_relu(x, np.array([0.5, 0.5], F32), z, s, z)
    with pytest.raises(OperandError, match="alpha=nan: expected a finite number"):
        qlinear_leaky_relu(x, s, z, s, z, alpha=float("nan"))
    with pytest.raises(OperandError, match="alpha='0.1': expected a finite number"):
        qlinear_leaky_relu(x, s, z, s, z, alpha="0.1")


def _where_node(c, x, sx, zx, y, sy, zy, sz, zz, const):
    ins = [c, x, F32(sx), x.dtype.type(zx), y, F32(sy), x.dtype.type(zy), F32(sz), x.dtype.type(zz)]
    want = ort.run(
        "QLinearWhere", ins, None, ort._elem(x), const=(2, 3, 5, 6, 7, 8) if const else (), domain="com.microsoft"
    )
    got = qlinear_where(*ins)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(got, want), (x.shape, y.shape, c.shape, [float(sx), zx, float(sy), zy, float(sz), zz])


@pytest.mark.parametrize("dtype", [U8, I8])
def test_where_on_every_code_and_broadcast(dtype):
    """QLinearWhere: all 256 codes of X and of Y under 200 random parameter sets (some equal to Z's, whose codes
    ONNX Runtime copies), constant or fed, with condition, X and Y of shapes that broadcast."""
    rng = np.random.default_rng(21 + (dtype == I8))
    x = _every_code(dtype).reshape(4, 1, 64)
    y = rng.permutation(_every_code(dtype).ravel()).reshape(1, 4, 64)
    for k in range(200):
        c = rng.integers(0, 2, [(4, 4, 64), (4, 1, 1), (64,), ()][k % 4]).astype(bool)
        sz, zz = F32(np.exp(rng.uniform(-6, 0))), _zp(rng, dtype)
        sx, zx = (sz, zz) if k % 5 == 0 else (F32(np.exp(rng.uniform(-6, 0))), _zp(rng, dtype))
        sy, zy = (sz, zz) if k % 7 == 0 else (F32(np.exp(rng.uniform(-6, 0))), _zp(rng, dtype))
        _where_node(c, x, sx, zx, y, sy, zy, sz, zz, const=bool(k % 2))


def test_where_errors_name_the_argument():
    c, x = np.array([True, False]), np.array([1, 2], U8)
    p = (F32(0.1), U8(0))
    with pytest.raises(OperandTypeError, match="Y has dtype int8; expected uint8"):
        qlinear_where(c, x, *p, x.astype(I8), F32(0.1), I8(0), *p)
    with pytest.raises(OperandTypeError, match="condition has dtype uint8; expected bool"):
        qlinear_where(x, x, *p, x, *p, *p)
    with pytest.raises(OperandError, match=r"condition \(2,\), X \(2,\) and Y \(3,\) do not broadcast"):
        qlinear_where(c, x, *p, np.zeros(3, U8), *p, *p)
    assert qlinear_where(np.True_, x, *p, x, *p, *p).tolist() == [1, 2]
