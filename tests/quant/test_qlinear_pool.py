"""``qlinear_global_average_pool`` / ``qlinear_average_pool`` against ONNX Runtime's own
``com.microsoft:QLinearGlobalAveragePool`` / ``QLinearAveragePool`` nodes, one node at a time: random shapes,
geometries (1 to 3 spatial axes, strides, pads, every ``auto_pad``, ``ceil_mode``, ``count_include_pad``, both
layouts), scales and zero points; sums past 2**24 (where int32 -> float32 rounds); scales at the edges of what the
global kernel accepts; and the parameters both refuse.  intdot runs with ``platform=ort.platform()`` against the
ONNX Runtime the run names (``INTDOT_ORT``); the ``test_arm_*`` tests compare ``platform="arm"`` with ONNX Runtime
for AArch64 in every run."""

import numpy as np
import pytest

from intdot.core.errors import OperandError, OperandTypeError
from intdot.quant.qlinear_pool import _geometry, qlinear_average_pool, qlinear_global_average_pool

from ..oracles import arm_ort
from . import ort

F32, U8, I8 = np.float32, np.uint8, np.int8


@pytest.fixture(autouse=True)
def _oracle():
    ort.need()


def onnxruntime_node(op_type, ins, attrs=None, arm=False):
    """ONNX Runtime's kernel on ``ins`` (X, x_scale, x_zp, y_scale, y_zp), all fed as inputs: the run's, or with
    ``arm`` ONNX Runtime for AArch64's whatever ``INTDOT_ORT`` says."""
    return ort.run(op_type, ins, attrs, ort._elem(np.asarray(ins[0])), arm=arm, domain="com.microsoft")


def arm_node(op_type, ins, attrs=None):
    return onnxruntime_node(op_type, ins, attrs, arm=True)


REFUSALS = ("out of computation range", "ImageSize too large")


def _agree(op_type, ins, attrs=None, oracle=onnxruntime_node, platform=None):
    """intdot's bits (``platform``: the oracle's, by default the run's) are ``oracle``'s; where ONNX Runtime refuses
    the scales or the size (its global kernel, which QLinearAveragePool also takes for a kernel over the whole
    image), intdot refuses them too."""
    fn = qlinear_global_average_pool if op_type == "QLinearGlobalAveragePool" else qlinear_average_pool
    kw = {**(attrs or {}), "platform": platform or ort.platform()}
    try:
        want = oracle(op_type, ins, attrs)
    except Exception as exc:
        if not any(r in str(exc) for r in REFUSALS):
            raise
        with pytest.raises(OperandError, match=r"in \[2\*\*-32, 256\)"):
            fn(*ins, **kw)
        return 0
    got = fn(*ins, **kw)
    assert got.dtype == want.dtype and got.shape == want.shape, (attrs, got.shape, want.shape)
    bad = np.flatnonzero(got.ravel() != want.ravel())
    assert bad.size == 0, (op_type, attrs, bad[:5], got.ravel()[bad[:5]], want.ravel()[bad[:5]])
    return want.size


def _params(rng, dtype, lo=-5, hi=0):
    info = np.iinfo(dtype)
    sx, sy = (F32(np.exp(rng.uniform(lo, hi))) for _ in range(2))
    zx, zy = (dtype(rng.integers(info.min, info.max + 1)) for _ in range(2))
    return sx, zx, sy, zy


@pytest.mark.parametrize("dtype", [U8, I8])
def test_global_average_pool_random(dtype):
    """300 random (N, C, H, W) tensors per type, both layouts, random scales and zero points."""
    rng = np.random.default_rng(1 + (dtype == I8))
    info = np.iinfo(dtype)
    n = 0
    for k in range(300):
        shape = [int(rng.integers(1, 3)), int(rng.integers(1, 20))] + [int(rng.integers(1, 9)) for _ in range(2)]
        last = k % 2
        if last:
            shape = [shape[0], *shape[2:], shape[1]]
        x = rng.integers(info.min, info.max + 1, shape).astype(dtype)
        n += _agree("QLinearGlobalAveragePool", [x, *_params(rng, dtype)], {"channels_last": last})
    assert n > 1000


@pytest.mark.parametrize("dtype", [U8, I8])
def test_global_average_pool_large_sums_and_edge_scales(dtype):
    """300 x 300 images of the extreme codes (sums past 2**24, rounded by int32 -> float32), 1-D and 3-D images,
    and scales just inside [2**-32, 256) (saturation both ways)."""
    info = np.iinfo(dtype)
    rng = np.random.default_rng(3)
    for code in (info.min, info.max):
        x = np.full((1, 3, 300, 300), code, dtype)
        x[0, 1] = rng.integers(info.min, info.max + 1, (300, 300))
        _agree("QLinearGlobalAveragePool", [x, F32(0.02), dtype(0), F32(0.01), dtype(1)])
        _agree(
            "QLinearGlobalAveragePool",
            [x, F32(1.0), dtype(info.max), F32(1.0 / 90000), dtype(-1 if dtype == I8 else 1)],
        )
    x = rng.integers(info.min, info.max + 1, (2, 5, 7)).astype(dtype)
    _agree("QLinearGlobalAveragePool", [x, *_params(rng, dtype)])
    x = rng.integers(info.min, info.max + 1, (1, 4, 3, 4, 5)).astype(dtype)
    _agree("QLinearGlobalAveragePool", [x, *_params(rng, dtype)])
    x = rng.integers(info.min, info.max + 1, (1, 8, 4, 4)).astype(dtype)
    mid = dtype(0 if dtype == I8 else 128)
    for sx, sy in ((F32(2.0**-31), F32(1.0 / 16)), (F32(255.0 * 16), F32(1.0)), (F32(1.0), F32(2.0**-4 / 255.9))):
        _agree("QLinearGlobalAveragePool", [x, sx, mid, sy, mid])


@pytest.mark.parametrize("sx, sy", [(0.0, 1.0), (-0.5, 1.0), (1.0, 0.0), (2.0**-40, 1.0), (4096.0, 1.0)])
def test_global_average_pool_scales_onnx_runtime_refuses(sx, sy):
    """A combined scale outside [2**-32, 256) (zero, negative, too small, too large) is refused by both."""
    x = np.arange(16, dtype=U8).reshape(1, 1, 4, 4)
    ins = [x, F32(sx), U8(0), F32(sy), U8(0)]
    with pytest.raises(Exception, match="out of computation range"):
        onnxruntime_node("QLinearGlobalAveragePool", ins)
    with pytest.raises(OperandError, match=r"x_scale=.* in \[2\*\*-32, 256\)"):
        qlinear_global_average_pool(*ins, platform=ort.platform())


def _random_geometry(rng):
    """Random spatial sizes and pooling attributes whose output is not empty: ONNX Runtime's NHWC kernels divide by
    zero on an empty one."""
    while True:
        nsp = int(rng.integers(1, 4))
        spatial = [int(rng.integers(1, 9)) for _ in range(nsp)]
        kernel = [min(int(rng.integers(1, s + 2)), 4) for s in spatial]
        strides = [int(rng.integers(1, 4)) for _ in range(nsp)]
        pads = [int(rng.integers(0, k)) for k in kernel] * 1 + [int(rng.integers(0, k)) for k in kernel]
        auto_pad = ["NOTSET", "NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER"][int(rng.integers(0, 5))]
        attrs = {
            "kernel_shape": kernel,
            "strides": strides,
            "ceil_mode": int(rng.integers(0, 2)),
            "count_include_pad": int(rng.integers(0, 2)),
            "channels_last": int(rng.integers(0, 2)),
        }
        if auto_pad == "NOTSET":
            attrs["pads"] = pads
        else:
            attrs["auto_pad"] = auto_pad
        out, _ = _geometry(spatial, kernel, strides, attrs.get("pads", [0] * 2 * nsp), auto_pad, attrs["ceil_mode"])
        if min(out) > 0:
            return spatial, attrs


def _random_pool_input(rng, dtype):
    """A random geometry's attributes and an input of random codes for it (1-2 images, 1-4 channels)."""
    info = np.iinfo(dtype)
    spatial, attrs = _random_geometry(rng)
    n, c = int(rng.integers(1, 3)), int(rng.integers(1, 5))
    shape = [n, *spatial, c] if attrs["channels_last"] else [n, c, *spatial]
    return rng.integers(info.min, info.max + 1, shape).astype(dtype), attrs


@pytest.mark.parametrize("dtype", [U8, I8])
def test_average_pool_random_geometries(dtype):
    """400 random geometries per type (ONNX Runtime's NHWC kernels divide by zero on an empty output, so those
    are left out)."""
    rng = np.random.default_rng(10 + (dtype == I8))
    for _ in range(400):
        x, attrs = _random_pool_input(rng, dtype)
        _agree("QLinearAveragePool", [x, *_params(rng, dtype)], attrs)


@pytest.mark.parametrize("dtype", [U8, I8])
def test_average_pool_many_values_and_extreme_scales(dtype):
    """A 3x3 pool over 32 x 24 x 24 values under scale ratios from 2**-20 to 2**20, zero and negative scales."""
    rng = np.random.default_rng(20 + (dtype == I8))
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max + 1, (1, 32, 24, 24)).astype(dtype)
    attrs = {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}
    sets = [(2.0**-20, 1.0), (1.0, 2.0**-20), (2.0**20, 1.0), (0.5, 0.0), (0.0, 0.0), (-0.3, 0.02), (0.02, -0.3)]
    for sx, sy in sets:
        _, zx, _, zy = _params(rng, dtype)
        _agree("QLinearAveragePool", [x, F32(sx), zx, F32(sy), zy], attrs)
    for _ in range(4):
        _agree("QLinearAveragePool", [x, *_params(rng, dtype, -8, 2)], attrs)


# Parameter sets (kernel, what they tell apart, x_scale and y_scale as float32 in hex, zero points) on which other
# orders of the kernels' float32 arithmetic give other bits, on the stored data below (found by search; the
# expected bits still come from ONNX Runtime at test time).  Global: "ratio", the scale as (x_scale / y_scale) / n;
# "div", acc * x_scale / (y_scale * n); "f64", exact arithmetic.  Average: "zp", the zero point added after
# rounding (also float64 and the window summed column by column); "recip", times 1 / count; "joint", divided by
# count * y_scale at once.
STORED = [
    ("global", "ratio", "0x1.7edcc2p-6", "0x1.24e00ep-6", 35, 114),
    ("global", "ratio", "0x1.0abd38p-4", "0x1.660548p-5", 31, 24),
    ("global", "div", "0x1.a6a1d8p-3", "0x1.0897ccp-3", 166, 169),
    ("global", "div", "0x1.13e976p-4", "0x1.c77946p-6", 125, 46),
    ("global", "f64", "0x1.1a94e2p-3", "0x1.6ab274p-4", 226, 213),
    ("global", "f64", "0x1.ecaefcp-4", "0x1.7014b0p-2", 254, 84),
    ("average", "zp", "0x1.1d27d0p-3", "0x1.844016p-2", 183, 161),
    ("average", "zp", "0x1.a1b74ep-4", "0x1.396ad6p-3", 33, 148),
    ("average", "recip", "0x1.7b94f4p-3", "0x1.2efa18p-7", 119, 128),
    ("average", "joint", "0x1.8b8974p-2", "0x1.f57d86p-5", 147, 182),
]


@pytest.mark.parametrize("case", STORED, ids=[f"{c[0]}-{c[1]}-{i}" for i, c in enumerate(STORED)])
def test_stored_cases_that_tell_the_orders_apart(case):
    kind, _, sx, sy, zx, zy = case
    ins = [F32(float.fromhex(sx)), U8(zx), F32(float.fromhex(sy)), U8(zy)]
    if kind == "global":
        x = np.random.default_rng(42).integers(0, 256, (1, 4096, 7, 7)).astype(U8)
        _agree("QLinearGlobalAveragePool", [x, *ins])
    else:
        x = np.random.default_rng(43).integers(0, 256, (1, 64, 16, 16)).astype(U8)
        _agree("QLinearAveragePool", [x, *ins], {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]})


@pytest.mark.slow
@pytest.mark.parametrize("dtype", [U8, I8])
def test_average_pool_random_geometries_volume(dtype):
    """4,000 more random geometries per type."""
    rng = np.random.default_rng(100 + (dtype == I8))
    info = np.iinfo(dtype)
    for _ in range(4000):
        spatial, attrs = _random_geometry(rng)
        shape = [1, *spatial, 3] if attrs["channels_last"] else [1, 3, *spatial]
        x = rng.integers(info.min, info.max + 1, shape).astype(dtype)
        _agree("QLinearAveragePool", [x, *_params(rng, dtype, -8, 2)], attrs)


def test_errors_name_the_argument():
    x = np.zeros((1, 2, 4, 4), U8)
    s, z = F32(0.5), U8(0)
    with pytest.raises(OperandTypeError, match="X has dtype int32"):
        qlinear_global_average_pool(x.astype(np.int32), s, z, s, z)
    with pytest.raises(OperandError, match=r"X has shape \(4, 4\); expected at least 3 dimensions"):
        qlinear_global_average_pool(x[0, 0], s, z, s, z)
    with pytest.raises(OperandTypeError, match="y_zero_point has dtype int8; expected uint8"):
        qlinear_average_pool(x, s, z, s, I8(0), kernel_shape=[2, 2])
    with pytest.raises(OperandError, match=r"kernel_shape=\[2\] for X of shape \(1, 2, 4, 4\): expected 2 integers"):
        qlinear_average_pool(x, s, z, s, z, kernel_shape=[2])
    with pytest.raises(OperandError, match=r"dilations=\[2, 2\]: ONNX Runtime's QLinearAveragePool does not read"):
        qlinear_average_pool(x, s, z, s, z, kernel_shape=[2, 2], dilations=[2, 2])
    with pytest.raises(OperandError, match="auto_pad=.SAME.; expected one of"):
        qlinear_average_pool(x, s, z, s, z, kernel_shape=[2, 2], auto_pad="SAME")
    with pytest.raises(OperandError, match=r"pads=\[2, 0, 0, 0\]: each pad must be smaller than the kernel"):
        qlinear_average_pool(x, s, z, s, z, kernel_shape=[2, 2], pads=[2, 0, 0, 0])
    with pytest.raises(OperandError, match="negative output size along spatial axis 0"):
        qlinear_average_pool(x, s, z, s, z, kernel_shape=[6, 1], auto_pad="VALID")
    with pytest.raises(OperandError, match="channels_last=2: expected 0 or 1"):
        qlinear_global_average_pool(x, s, z, s, z, channels_last=2)


def _arm_agree(op_type, ins, attrs=None):
    """``platform="arm"`` against ONNX Runtime for AArch64; also how many codes ``platform="x86"`` gives otherwise."""
    n = _agree(op_type, ins, attrs, oracle=arm_node, platform="arm")
    if n == 0:
        return 0, 0
    fn = qlinear_global_average_pool if op_type == "QLinearGlobalAveragePool" else qlinear_average_pool
    arm = fn(*ins, **(attrs or {}), platform="arm")
    return n, int((fn(*ins, **(attrs or {}), platform="x86") != arm).sum())


@pytest.mark.parametrize("dtype", [U8, I8])
def test_arm_global_average_pool_against_onnx_runtime_for_aarch64(dtype):
    """platform="arm" against ONNX Runtime for AArch64 (NEON), in every run: random tensors in both layouts (channel
    counts past NEON's 8 lanes, images past its 7- and 32-position loops), sums past 2**24, ties (half to even, not
    a fixed-point shift's away from zero), scales at the edges of [2**-32, 256) and past them, 2**24 positions."""
    arm_ort.require()
    rng = np.random.default_rng(30 + (dtype == I8))
    info = np.iinfo(dtype)
    n = 0
    for k in range(60):
        shape = [int(rng.integers(1, 3)), int(rng.integers(1, 20)), int(rng.integers(1, 9)), int(rng.integers(1, 9))]
        last = k % 2
        if last:
            shape = [shape[0], *shape[2:], shape[1]]
        x = rng.integers(info.min, info.max + 1, shape).astype(dtype)
        n += _arm_agree("QLinearGlobalAveragePool", [x, *_params(rng, dtype, -8, 2)], {"channels_last": last})[0]
    assert n > 200
    x = np.full((1, 3, 300, 300), info.max, dtype)
    x[0, 1] = rng.integers(info.min, info.max + 1, (300, 300))
    for last in (0, 1):
        _arm_agree("QLinearGlobalAveragePool", [x, F32(0.02), dtype(0), F32(0.01), dtype(1)], {"channels_last": last})
        ins = [x, F32(1.0), dtype(info.min), F32(1.0 / 90000), dtype(-1 if dtype == I8 else 1)]
        _arm_agree("QLinearGlobalAveragePool", ins, {"channels_last": last})
    # Odd sums over 2 positions, halved: x.5 everywhere, rounded to even.
    odd = np.arange(-63, 64, 2) if dtype == I8 else np.arange(1, 128, 2)
    x = np.stack([odd, np.zeros_like(odd)], axis=-1).astype(dtype).reshape(1, -1, 1, 2)
    assert _arm_agree("QLinearGlobalAveragePool", [x, F32(1), dtype(0), F32(1), dtype(0)])[0] == odd.size
    x = rng.integers(info.min, info.max + 1, (1, 8, 4, 4)).astype(dtype)
    mid = dtype(0 if dtype == I8 else 128)
    lo, hi = F32(2.0**-32), F32(256.0)
    for s in (np.nextafter(lo, F32(0)), lo, np.nextafter(hi, F32(0)), hi, F32(0), F32(-1)):
        for last in (0, 1):  # x_scale / (y_scale * 16) = s
            _arm_agree("QLinearGlobalAveragePool", [x, s, mid, F32(1 / 16), mid], {"channels_last": last})
    big = np.zeros((1, 1, 4096, 4096), dtype)
    assert _arm_agree("QLinearGlobalAveragePool", [big, F32(1), dtype(0), F32(2.0**-20), dtype(0)]) == (0, 0)


@pytest.mark.parametrize("dtype", [U8, I8])
def test_arm_average_pool_against_onnx_runtime_for_aarch64(dtype):
    """platform="arm" against ONNX Runtime for AArch64, in every run: random geometries and scales, then, in both
    layouts, scale ratios from 2**-40 to 2**40, zero and negative scales, where AArch64's saturating float -> int32
    conversion (NaN to 0) parts from x86's; and an empty NHWC output (x86's process dies on one, Arm's does not)."""
    arm_ort.require()
    rng = np.random.default_rng(40 + (dtype == I8))
    info = np.iinfo(dtype)
    for _ in range(100):
        x, attrs = _random_pool_input(rng, dtype)
        _arm_agree("QLinearAveragePool", [x, *_params(rng, dtype, -8, 2)], attrs)
    x = rng.integers(info.min, info.max + 1, (1, 8, 12, 12)).astype(dtype)
    x[0, 0, :6] = 0  # zero means: NaN over a zero y_scale
    sets = [(2.0**-20, 1.0), (1.0, 2.0**-20), (2.0**20, 1.0), (2.0**20, 2.0**-20), (-(2.0**20), 2.0**-20)]
    sets += [(0.5, 0.0), (0.0, 0.0), (-0.3, 0.0), (-0.3, 0.02), (0.02, -0.3), (2.0**-40, 1.0)]
    parted = 0
    for sx, sy in sets:
        for last in (0, 1):
            _, zx, _, zy = _params(rng, dtype)
            ins = [np.moveaxis(x, 1, -1) if last else x, F32(sx), dtype(0) if sy == 0 else zx, F32(sy), zy]
            attrs = {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1], "channels_last": last}
            parted += _arm_agree("QLinearAveragePool", ins, attrs)[1]
    assert parted > 1000  # the sets do tell the platforms apart
    x = np.arange(4, dtype=dtype).reshape(1, 2, 1, 2)
    attrs = {"kernel_shape": [3, 1], "auto_pad": "VALID", "channels_last": 1}
    assert _arm_agree("QLinearAveragePool", [x, F32(1), dtype(0), F32(1), dtype(0)], attrs) == (0, 0)


def test_platform_is_checked():
    x = np.zeros((1, 2, 4, 4), U8)
    s, z = F32(0.5), U8(0)
    with pytest.raises(OperandError, match="platform='bogus'; expected one of 'x86', 'x86-avx2', 'arm'"):
        qlinear_global_average_pool(x, s, z, s, z, platform="bogus")
    with pytest.raises(OperandError, match="platform='bogus'; expected one of 'x86', 'x86-avx2', 'arm'"):
        qlinear_average_pool(x, s, z, s, z, kernel_shape=[2, 2], platform="bogus")
    with pytest.raises(OperandTypeError, match="platform=None is"):
        qlinear_average_pool(x, s, z, s, z, kernel_shape=[2, 2], platform=None)
    a = qlinear_average_pool(x + 1, s, z, F32(0), z, kernel_shape=[2, 2], platform="arm")
    b = qlinear_average_pool(x + 1, s, z, F32(0), z, kernel_shape=[2, 2], platform="x86")
    assert (a == 255).all() and (b == 0).all()  # +inf: saturated on Arm, INT32_MIN on x86
