"""``intdot.quant.qlinear_add`` / ``qlinear_mul`` against ONNX Runtime's own ``com.microsoft:QLinearAdd`` /
``QLinearMul`` nodes, one node at a time: every pair of 8-bit codes under random scales and zero points, extreme
scale ratios (saturation, values past int32, 0/0), every broadcasting shape the kernel's paths tell apart, and
stored parameter sets on which a model that rounds apart where the kernel fuses (or fuses where it rounds apart),
or that swaps which operand it broadcasts, gives other bits (found by search; the expected bits still come from
ONNX Runtime at test time).  Against the ONNX Runtime the run compares with (``INTDOT_ORT``,
``platform=ort.platform()``), and, with ``platform="arm"``, against ONNX Runtime for AArch64 in every run
(``test_arm_*``): its NEON kernels' fixed-point and float paths, the bounds between them, and stored cases on which
Arm's bits are not x86's."""

import numpy as np
import pytest

from intdot.core.errors import OperandError, OperandTypeError
from intdot.quant import qlinear_add, qlinear_mul

from ..oracles import arm_ort
from . import ort

F32, U8, I8 = np.float32, np.uint8, np.int8
OPS = {"QLinearAdd": qlinear_add, "QLinearMul": qlinear_mul}


@pytest.fixture(autouse=True)
def _oracle():
    ort.need()


def onnxruntime_binary(op_type, ins, arm=False):
    """ONNX Runtime's kernel on ``ins`` (A, A_scale, A_zp, B, B_scale, B_zp, C_scale, C_zp), all fed as inputs: the
    run's, or with ``arm`` ONNX Runtime for AArch64's whatever ``INTDOT_ORT`` says."""
    return ort.run(op_type, ins, out_type=ort._elem(np.asarray(ins[0])), arm=arm, domain="com.microsoft")


def _agree(op_type, ins, arm=False):
    """intdot's bits are ONNX Runtime's: the run's (``platform=ort.platform()``), or with ``arm`` those of ONNX
    Runtime for AArch64 (``platform="arm"``)."""
    want = onnxruntime_binary(op_type, ins, arm)
    got = OPS[op_type](*ins, platform="arm" if arm else ort.platform())
    assert got.dtype == want.dtype and got.shape == want.shape
    bad = np.flatnonzero(got.ravel() != want.ravel())
    scales = [float(np.asarray(v)).hex() for v in ins[1::3]]
    zero_points = [int(np.asarray(v)) for v in ins[2::3]]
    assert bad.size == 0, (op_type, scales, zero_points, bad[:5], got.ravel()[bad[:5]], want.ravel()[bad[:5]])
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
    _agree(*_stored_inputs(case))


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


def _shapes(op_type, dtype, rng, stored, arm=False):
    """Every shape in SHAPES with the stored sets first, then random ones (with ``arm``, :func:`_arm_scales`'s, and
    against ONNX Runtime for AArch64)."""
    info = np.iinfo(dtype)
    for s0, s1 in SHAPES:
        for k in range(6):
            if k < len(stored):
                sa, sb, sc = (F32(float.fromhex(s)) for s in stored[k][2:5])
                za, zb, zc = (dtype(v) for v in stored[k][5:8])
            else:
                sa, sb, sc = _arm_scales(rng, k) if arm else (F32(np.exp(rng.uniform(-6, 2))) for _ in range(3))
                za, zb, zc = (_zp(rng, dtype) for _ in range(3))
            a = rng.integers(info.min, info.max + 1, s0).astype(dtype)
            b = rng.integers(info.min, info.max + 1, s1).astype(dtype)
            _agree(op_type, [a, sa, za, b, sb, zb, sc, zc], arm)


@pytest.mark.parametrize("op_type", list(OPS))
@pytest.mark.parametrize("dtype", [U8, I8])
def test_broadcasting_shapes(op_type, dtype):
    """Scalars, rows, columns, full tensors and rank mixes, both ways round; four stored 'swap'/'scalar' sets and
    random ones, so that the kernel's choice of which operand it holds constant is exercised on each shape."""
    stored = [c for c in STORED if c[0] == np.dtype(dtype).name and c[1] in ("swap", "scalar")]
    _shapes(op_type, dtype, np.random.default_rng(5 + (dtype == I8)), stored)


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
    for fn in OPS.values():
        with pytest.raises(OperandError, match="platform='bogus'; expected one of 'x86', 'x86-avx2', 'arm'"):
            fn(a, s, z, b, s, z, s, z, platform="bogus")
        with pytest.raises(OperandTypeError, match="platform=None is"):
            fn(a, s, z, b, s, z, s, z, platform=None)


# ---- Arm: platform="arm" against ONNX Runtime for AArch64, in every run ----


def _arm_scales(rng, k=0):
    """A_scale, B_scale, C_scale with ratios mostly in MLAS's fixed-point range on NEON ([2**-14, 256)), some past
    256, and every third set with one ratio below 2**-14 (its float path)."""
    sc = np.exp(rng.uniform(-6, 1))
    ra, rb = np.exp(rng.uniform(-7.5, 6, 2))
    if k % 3 == 0:
        rb = 2.0**-14 * np.exp(rng.uniform(-5, -0.001))
    if k % 2:
        ra, rb = rb, ra
    return F32(sc * ra), F32(sc * rb), F32(sc)


@pytest.mark.parametrize("dtype", [U8, I8])
@pytest.mark.parametrize("op_type", list(OPS))
def test_arm_every_pair_of_codes_against_onnx_runtime_for_aarch64(op_type, dtype):
    """platform="arm" against ONNX Runtime for AArch64, in every run: 100 random parameter sets on all 65,536 pairs
    (6.5 million values per operator and type), a third of them on QLinearAdd's float path."""
    arm_ort.require()
    rng = np.random.default_rng(50 + (op_type == "QLinearMul") + 2 * (dtype == I8))
    a, b = _grid(dtype)
    parted = 0
    for k in range(100):
        sa, sb, sc = _arm_scales(rng, k)
        ins = [a, sa, _zp(rng, dtype), b, sb, _zp(rng, dtype), sc, _zp(rng, dtype)]
        _agree(op_type, ins, arm=True)
        parted += int((OPS[op_type](*ins, platform="arm") != OPS[op_type](*ins, platform="x86")).any())
    # Arm's QLinearMul parts from x86's only where one rounding instead of two lands across a half: rarely.
    assert parted > 0 or op_type == "QLinearMul"


def _below(x):
    return np.nextafter(F32(x), F32(0))


@pytest.mark.parametrize("dtype", [U8, I8])
@pytest.mark.parametrize("op_type", list(OPS))
def test_arm_extreme_ratios_ties_and_bounds(op_type, dtype):
    """platform="arm" against ONNX Runtime for AArch64 on every pair of codes, mostly with C_scale 1 so that the
    scales are the ratios: at and beside the bounds of QLinearAdd's fixed-point path (2**-14, 2**-10, 256, a
    multiplier that rounds up to 2**22), ties both ways (fixed point's away from zero, float's to even), zero,
    negative, subnormal and huge scales, 0/0 and 0 * inf (NaN: 0 on Arm, the lowest code on x86)."""
    arm_ort.require()
    a, b = _grid(dtype)
    rng = np.random.default_rng(60 + (dtype == I8))
    one = F32(1.0)
    sets = [
        (F32(2.0**-14), F32(0.75), one),
        (_below(2.0**-14), F32(0.75), one),
        (F32(0.75), _below(2.0**-14), one),
        (F32(2.0**-10), F32(2.0**-14), one),
        (_below(2.0**-10), _below(2.0**-10), one),
        (_below(256.0), F32(1.0), one),
        (F32(256.0), F32(1.0), one),
        (F32(0.3), F32(256.0), one),
        (F32(float.fromhex("0x1.fffffep-1")), F32(0.3), one),
        (F32(float.fromhex("0x1.fffffcp-1")), F32(0.3), one),
        (F32(0.3), F32(float.fromhex("0x1.fffffep+3")), one),
        (F32(float.fromhex("0x1.fffffap+3")), F32(0.3), one),
        (F32(0.5), F32(0.25), one),
        (F32(1.5), F32(0.5), F32(2.0)),
        (F32(0.5), F32(2.0**-15), one),
        (F32(2.0**-15), F32(0.5), one),
        (F32(0.0), F32(0.5), one),
        (F32(-0.5), F32(0.75), F32(0.5)),
        (F32(0.5), F32(0.25), F32(0.0)),
        (F32(0.0), F32(0.0), F32(0.0)),
        (F32(1e-40), F32(1e-40), F32(1e-38)),
        (F32(2.0**20), F32(2.0**20), one),
        (F32(2.0**-30), F32(2.0**-30), F32(2.0**-40)),
    ]
    for sa, sb, sc in sets:
        _agree(op_type, [a, sa, _zp(rng, dtype), b, sb, _zp(rng, dtype), sc, _zp(rng, dtype)], arm=True)
    mid = dtype(0 if dtype == I8 else 128)
    _agree(op_type, [a, F32(0.5), mid, b, F32(0.25), mid, one, mid], arm=True)  # zero points at the middle


# Parameter sets (as STORED) on which ONNX Runtime for AArch64 gives other bits than x86's, each also telling a
# reading of Arm's kernels apart from MLAS's: "tie", its fixed point rounded half to even rather than away from
# zero; "float-order", QLinearAdd's float path with the products rounded apart or the other one fused;
# "below-2^-14" and "multiplier-2^22", that path taken where a ratio is under 2**-14 or the larger one's Q21
# multiplier rounds up to 2**22 (fixed point there gives other bits); "float-scalar" (B's one code) and "float-swap"
# (A a column against the full grid), that path on A and B in each other's places; "mul-fused", QLinearMul's
# multiply and add rounded apart (as x86 has them).
ARM_STORED = [
    ("uint8", "tie", "0x1.4e251p-4", "0x1.cf4676p-2", "0x1.adbc7ap-6", 165, 146, 83, None),
    ("uint8", "tie", "0x1.45d42p-6", "0x1.dff2dcp-8", "0x1.6bf73ap-7", 86, 209, 7, None),
    ("int8", "tie", "0x1.54c10ep-1", "0x1.b28226p-3", "0x1.32b374p-2", -81, 106, 42, None),
    ("int8", "tie", "0x1.96c974p-3", "0x1.99575ap-9", "0x1.7c428ap-5", -75, 10, 79, None),
    ("uint8", "float-order", "0x1.1266ccp-6", "0x1.f449fcp-24", "0x1.0da488p-5", 0, 94, 159, None),
    ("uint8", "float-order", "0x1.060e7p-5", "0x1.22911ep-18", "0x1.7928b2p-2", 237, 153, 207, None),
    ("int8", "float-order", "0x1.0a08c2p-5", "0x1.c6734p-20", "0x1.e104b2p-4", 96, 19, 15, None),
    ("int8", "float-order", "0x1.612be0p-8", "0x1.e4ae5ep-23", "0x1.29b678p-7", 35, 30, 83, None),
    ("uint8", "below-2^-14", "0x1.e68ce4p-24", "0x1.783b5ap-5", "0x1.183538p-5", 250, 147, 204, None),
    ("uint8", "below-2^-14", "0x1.353946p-7", "0x1.7b5d54p-20", "0x1.bf7868p-5", 33, 73, 76, None),
    ("int8", "below-2^-14", "0x1.ea83fp-5", "0x1.33cddcp-21", "0x1.a8a7eap-7", -36, -77, 127, None),
    ("int8", "below-2^-14", "0x1.579662p-6", "0x1.3843d6p-21", "0x1.7db17ep-6", 14, 5, 118, None),
    ("uint8", "multiplier-2^22", "0x1.4cefb4p-16", "0x1.fffffcp-9", "0x1p-7", 204, 37, 204, None),
    ("uint8", "multiplier-2^22", "0x1.fffffep-4", "0x1.c12bacp-10", "0x1p-2", 165, 122, 154, None),
    ("int8", "multiplier-2^22", "0x1.5e1798p-13", "0x1.fffffcp-10", "0x1p-5", -124, 82, -22, None),
    ("int8", "multiplier-2^22", "0x1.fffffcp-8", "0x1.6cf402p-12", "0x1p-5", 49, 6, 84, None),
    ("uint8", "float-scalar", "0x1.1266ccp-6", "0x1.f449fcp-24", "0x1.0da488p-5", 0, 94, 159, 170),
    ("int8", "float-scalar", "0x1.80e618p-18", "0x1.bd2dd4p+0", "0x1.bfb93p-1", 35, 38, -24, 21),
    ("int8", "float-scalar", "0x1.216864p-21", "0x1.67f0fap-5", "0x1.2f6c1cp-5", 106, 63, 20, 116),
    ("uint8", "float-swap", "0x1.1266ccp-6", "0x1.f449fcp-24", "0x1.0da488p-5", 0, 94, 159, None),
    ("uint8", "float-swap", "0x1.4934dcp-22", "0x1.c55334p-7", "0x1.d10164p-5", 104, 209, 223, None),
    ("int8", "float-swap", "0x1.80e618p-18", "0x1.bd2dd4p+0", "0x1.bfb93p-1", 35, 38, -24, None),
    ("int8", "float-swap", "0x1.216864p-21", "0x1.67f0fap-5", "0x1.2f6c1cp-5", 106, 63, 20, None),
    ("uint8", "mul-fused", "0x1.090364p-4", "0x1.5e1e9ap-2", "0x1.f55c08p-1", 55, 193, 247, None),
    ("uint8", "mul-fused", "0x1.01b606p-9", "0x1.2e3272p-5", "0x1.eeb7c8p-7", 61, 165, 58, None),
    ("int8", "mul-fused", "0x1.457e3cp-5", "0x1.93eeb6p-9", "0x1.8f8e8ap+0", -109, 92, 45, None),
]


def _stored_inputs(case):
    """(operator, inputs) of a STORED or ARM_STORED case: every pair of codes, or, by its kind, one operand one code
    ("scalar": B, "float-scalar": A, which the kernel then takes as its constant) or A a column against the grid
    ("swap", "float-swap": A is held per row, so B is the kernel's vector)."""
    name, kind, *scales, za, zb, zc, scalar = case
    dtype = np.dtype(name).type
    sa, sb, sc = (F32(float.fromhex(s)) for s in scales)
    a, b = _grid(dtype)
    if kind == "scalar":
        a, b = a[::256], np.array([scalar], dtype)
    elif kind == "float-scalar":
        a, b = np.array([scalar], dtype), a[::256]
    elif kind.endswith("swap"):
        a, b = a[::256].reshape(256, 1), b.reshape(256, 256)
    op_type = "QLinearMul" if kind in ("mul", "mul-fused") else "QLinearAdd"
    return op_type, [a, sa, dtype(za), b, sb, dtype(zb), sc, dtype(zc)]


@pytest.mark.parametrize("case", ARM_STORED, ids=[f"{c[0]}-{c[1]}-{i}" for i, c in enumerate(ARM_STORED)])
def test_arm_stored_cases_where_arm_and_x86_differ(case):
    """Each case: intdot's Arm bits are ONNX Runtime for AArch64's and are not intdot's x86 bits, which (in a run
    against x86's ONNX Runtime) are x86's."""
    arm_ort.require()
    op_type, ins = _stored_inputs(case)
    _agree(op_type, ins, arm=True)
    assert (OPS[op_type](*ins, platform="arm") != OPS[op_type](*ins, platform="x86")).any()
    if not ort.on_arm():
        _agree(op_type, ins)


@pytest.mark.parametrize("op_type", list(OPS))
@pytest.mark.parametrize("dtype", [U8, I8])
def test_arm_broadcasting_shapes(op_type, dtype):
    """SHAPES against ONNX Runtime for AArch64: the stored float-path sets (where it matters which operand the
    kernel holds constant) and random ones, a third of them on the float path."""
    arm_ort.require()
    name = np.dtype(dtype).name
    stored = [c for c in ARM_STORED if c[0] == name and c[1] in ("float-swap", "float-scalar", "tie")][:4]
    _shapes(op_type, dtype, np.random.default_rng(70 + (dtype == I8)), stored, arm=True)
