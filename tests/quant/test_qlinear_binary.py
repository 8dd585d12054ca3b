"""``intdot.quant.qlinear_add`` / ``qlinear_mul`` against ONNX Runtime's own ``com.microsoft:QLinearAdd`` /
``QLinearMul`` nodes, one node at a time: every pair of 8-bit codes under random scales and zero points, extreme
scale ratios (saturation, values past int32, 0/0), every broadcasting shape the kernel's paths tell apart, and
stored parameter sets on which a model that rounds apart where the kernel fuses (or fuses where it rounds apart),
or that swaps which operand it broadcasts, gives other bits (found by search; the expected bits still come from
ONNX Runtime at test time)."""

import numpy as np
import pytest

from intdot.core.errors import OperandError, OperandTypeError
from intdot.quant import qlinear_add, qlinear_mul

from . import ort

F32, U8, I8 = np.float32, np.uint8, np.int8
OPS = {"QLinearAdd": qlinear_add, "QLinearMul": qlinear_mul}


@pytest.fixture(autouse=True)
def _oracle():
    ort.need()


def onnxruntime_binary(op_type, ins):
    """ONNX Runtime's kernel on ``ins`` (A, A_scale, A_zp, B, B_scale, B_zp, C_scale, C_zp), all fed as inputs."""
    return ort.run(op_type, ins, out_type=ort._elem(np.asarray(ins[0])), domain="com.microsoft")


def _agree(op_type, ins):
    want = onnxruntime_binary(op_type, ins)
    got = OPS[op_type](*ins)
    assert got.dtype == want.dtype and got.shape == want.shape
    bad = np.flatnonzero(got.ravel() != want.ravel())
    assert bad.size == 0, (op_type, [np.asarray(v).ravel()[:4] for v in ins], bad[:5], got.ravel()[bad[:5]])
    return want.size


def _grid(dtype):
    """Every (a, b) pair of codes, as two flat arrays of 65,536."""
    v = np.arange(np.iinfo(dtype).min, np.iinfo(dtype).max + 1).astype(dtype)
    return np.repeat(v, v.size), np.tile(v, v.size)


def _zp(rng, dtype):
    info = np.iinfo(dtype)
    return dtype(rng.integers(info.min, info.max + 1))


@pytest.mark.parametrize("dtype", [U8, I8])
@pytest.mark.parametrize("op_type", list(OPS))
def test_every_pair_of_codes_under_random_scales(op_type, dtype):
    """Two sets of random scales (a ratio from 1/400 to 400) and zero points on all 65,536 pairs, so 131,072
    values per operator and type."""
    rng = np.random.default_rng(1 + (op_type == "QLinearMul") + 2 * (dtype == I8))
    a, b = _grid(dtype)
    n = 0
    for _ in range(2):
        sa, sb, sc = (F32(np.exp(rng.uniform(-6, 2))) for _ in range(3))
        n += _agree(op_type, [a, sa, _zp(rng, dtype), b, sb, _zp(rng, dtype), sc, _zp(rng, dtype)])
    assert n >= 10**5


# Parameter sets (type, what they tell apart, A_scale, B_scale, C_scale as float32 in hex, zero points, and for
# "scalar" B's one code) on which the other orders of the kernel's float32 arithmetic give other bits: "fixed",
# ``zc - (rA*zA + rB*zB)`` rounded twice, or with the other product fused; "scalar", the broadcast operand's term
# added to the fixed part apart from its product; "swap", A and B in each other's places; "mul", the ratio as
# ``a_scale * (b_scale / c_scale)``, or the product and the zero point fused.
STORED = [
    ("uint8", "swap", "0x1.56c9bap-5", "0x1.205df8p-2", "0x1.0acad2p-6", 123, 151, 205, None),
    ("uint8", "swap", "0x1.154c76p-1", "0x1.41102ep-3", "0x1.3ef0ep-6", 141, 77, 250, None),
    ("uint8", "fixed", "0x1.ec9878p-2", "0x1.2ae18ep-7", "0x1.63b986p-9", 251, 151, 183, None),
    ("uint8", "fixed", "0x1.206822p+1", "0x1.05e5bep-2", "0x1.4228e2p-2", 169, 99, 118, None),
    ("uint8", "fixed", "0x1.6f0158p+2", "0x1.0f5426p-1", "0x1.dc6168p-8", 36, 1, 184, None),
    ("uint8", "scalar", "0x1.3b6afp-7", "0x1.968ddp-1", "0x1.406b28p-7", 95, 137, 110, 138),
    ("uint8", "scalar", "0x1.37acccp-3", "0x1.1e889ap+1", "0x1.bb1d02p-4", 179, 199, 215, 211),
    ("uint8", "scalar", "0x1.9e3908p-6", "0x1.8e7c82p-6", "0x1.a82dbep-7", 112, 64, 138, 204),
    ("int8", "swap", "0x1.e2a4a2p-3", "0x1.726d8ep-8", "0x1.ba7608p-3", 59, -91, -108, None),
    ("int8", "swap", "0x1.2fd4c6p+1", "0x1.830cc4p-4", "0x1.80a21cp+0", -6, -35, 48, None),
    ("int8", "fixed", "0x1.9d85ecp+2", "0x1.cc2f8ep-8", "0x1.4fb05ap+1", -116, -14, 9, None),
    ("int8", "fixed", "0x1.3eeb58p-1", "0x1.0a4164p-4", "0x1.2b7606p-3", 102, -78, 122, None),
    ("int8", "fixed", "0x1.322ac4p-2", "0x1.0685e2p+1", "0x1.cfc276p-4", 98, -60, -106, None),
    ("int8", "scalar", "0x1.18d4d2p-1", "0x1.bbd0acp+1", "0x1.9390a8p-4", 27, -124, 70, -106),
    ("int8", "scalar", "0x1.046876p-7", "0x1.1b54bp-1", "0x1.571e5ep+0", 43, -5, -63, -17),
    ("int8", "scalar", "0x1.094426p-3", "0x1.26813cp-2", "0x1.5c541ap+0", -63, 39, 21, 79),
    ("uint8", "mul", "0x1.d7e3c4p+1", "0x1.92e7dep-7", "0x1.f9d122p+1", 166, 231, 121, None),
    ("uint8", "mul", "0x1.7812fap-8", "0x1.6b9fd4p-9", "0x1.dfe3ccp-9", 43, 138, 118, None),
    ("uint8", "mul", "0x1.30dd0ep-6", "0x1.b12798p-5", "0x1.ed5a6ep-7", 67, 34, 174, None),
    ("int8", "mul", "0x1.0074e2p-8", "0x1.6e7a74p-5", "0x1.9da4cap-5", -45, -11, 63, None),
    ("int8", "mul", "0x1.33fd52p-3", "0x1.73f59ep-4", "0x1.4dcdp+1", -95, -24, -124, None),
    ("int8", "mul", "0x1.774554p-8", "0x1.76d4fep-6", "0x1.8123eep-9", 107, -54, -84, None),
]


@pytest.mark.parametrize("case", STORED, ids=[f"{c[0]}-{c[1]}-{i}" for i, c in enumerate(STORED)])
def test_stored_cases_that_tell_the_orders_apart(case):
    name, kind, *scales, za, zb, zc, scalar = case
    dtype = np.dtype(name).type
    sa, sb, sc = (F32(float.fromhex(s)) for s in scales)
    a, b = _grid(dtype)
    if kind == "scalar":
        a, b = a[::256], np.array([scalar], dtype)
    elif kind == "swap":  # A a column against the full grid: A is held per row, so B is the kernel's vector
        a, b = a[::256].reshape(256, 1), b.reshape(256, 256)
    op_type = "QLinearMul" if kind == "mul" else "QLinearAdd"
    _agree(op_type, [a, sa, dtype(za), b, sb, dtype(zb), sc, dtype(zc)])


SHAPES = [
    ((), (7,)),
    ((7,), ()),
    ((), ()),
    ((1,), (1,)),
    ((1,), (1, 1)),
    ((5, 33), (33,)),
    ((33,), (5, 33)),
    ((5, 33), (5, 1)),
    ((5, 1), (5, 33)),
    ((5, 1), (1, 33)),
    ((1, 33), (5, 1)),
    ((3, 1), ()),
    ((), (3, 1)),
    ((4, 1), (1,)),
    ((1,), (4, 1)),
    ((2, 3, 1), (2, 1, 4)),
    ((5, 33), (5, 33)),
    ((1, 1), (5, 33)),
    ((5, 33), (1, 1)),
    ((2, 1, 5), (5,)),
    ((3, 1, 1), (1, 1)),
    ((0, 3), (3,)),
]


@pytest.mark.parametrize("op_type", list(OPS))
@pytest.mark.parametrize("dtype", [U8, I8])
def test_broadcasting_shapes(op_type, dtype):
    """Scalars, rows, columns, full tensors and rank mixes, both ways round; four stored 'swap'/'scalar' sets and
    random ones, so that the kernel's choice of which operand it holds constant is exercised on each shape."""
    rng = np.random.default_rng(5 + (dtype == I8))
    info = np.iinfo(dtype)
    stored = [c for c in STORED if c[0] == np.dtype(dtype).name and c[1] in ("swap", "scalar")]
    for s0, s1 in SHAPES:
        for k in range(6):
            if k < len(stored):
                sa, sb, sc = (F32(float.fromhex(s)) for s in stored[k][2:5])
                za, zb, zc = (dtype(v) for v in stored[k][5:8])
            else:
                sa, sb, sc = (F32(np.exp(rng.uniform(-6, 2))) for _ in range(3))
                za, zb, zc = (_zp(rng, dtype) for _ in range(3))
            a = rng.integers(info.min, info.max + 1, s0).astype(dtype)
            b = rng.integers(info.min, info.max + 1, s1).astype(dtype)
            _agree(op_type, [a, sa, za, b, sb, zb, sc, zc])


@pytest.mark.parametrize("op_type", list(OPS))
@pytest.mark.parametrize("dtype", [U8, I8])
def test_extreme_ratios_ties_and_saturation(op_type, dtype):
    """Scale ratios from 2**-30 to 2**40 (values past int32 become the lowest code), zero scales (inf and 0/0),
    negative ones, subnormal ones, dyadic ones that land on halves (ties to even), on every pair of codes."""
    a, b = _grid(dtype)
    rng = np.random.default_rng(9 + (dtype == I8))
    sets = [
        (F32(1.0), F32(1.0), F32(2.0**-30)),
        (F32(2.0**20), F32(2.0**20), F32(1.0)),
        (F32(0.5), F32(0.25), F32(0.0)),
        (F32(0.0), F32(0.0), F32(0.0)),
        (F32(-0.5), F32(0.75), F32(0.5)),
        (F32(1e-40), F32(1e-40), F32(1e-38)),
        (F32(0.5), F32(0.5), F32(1.0)),
        (F32(0.25), F32(0.75), F32(0.5)),
        (F32(2.0**-30), F32(2.0**-30), F32(2.0**-40)),
    ]
    for sa, sb, sc in sets:
        _agree(op_type, [a, sa, _zp(rng, dtype), b, sb, _zp(rng, dtype), sc, _zp(rng, dtype)])


@pytest.mark.slow
@pytest.mark.parametrize("dtype", [U8, I8])
@pytest.mark.parametrize("op_type", list(OPS))
def test_every_pair_of_codes_volume(op_type, dtype):
    """40 random parameter sets on all 65,536 pairs (2.6 million values per operator and type)."""
    rng = np.random.default_rng(100 + (op_type == "QLinearMul") + 2 * (dtype == I8))
    a, b = _grid(dtype)
    for _ in range(40):
        sa, sb, sc = (F32(np.exp(rng.uniform(-8, 4))) for _ in range(3))
        _agree(op_type, [a, sa, _zp(rng, dtype), b, sb, _zp(rng, dtype), sc, _zp(rng, dtype)])


def test_errors_name_the_argument():
    a, b = np.array([1, 2], U8), np.array([3], U8)
    s, z = F32(0.5), U8(0)
    with pytest.raises(OperandTypeError, match="A has dtype uint8 and B has dtype int8"):
        qlinear_add(a, s, z, np.array([3], I8), s, I8(0), s, z)
    with pytest.raises(OperandError, match=r"A has shape \(2,\) and B has shape \(3,\)"):
        qlinear_mul(a, s, z, np.zeros(3, U8), s, z, s, z)
    with pytest.raises(OperandError, match=r"B_scale has shape \(2,\); expected a scalar"):
        qlinear_add(a, s, z, b, np.array([0.5, 0.5], F32), z, s, z)
    with pytest.raises(OperandTypeError, match="C_zero_point has dtype int8; expected uint8"):
        qlinear_mul(a, s, z, b, s, z, s, I8(0))
    with pytest.raises(OperandError, match="C_scale=nan: expected a finite scale"):
        qlinear_add(a, s, z, b, s, z, F32("nan"), z)
    with pytest.raises(OperandTypeError, match="A is a list"):
        qlinear_add([1, 2], s, z, b, s, z, s, z)
