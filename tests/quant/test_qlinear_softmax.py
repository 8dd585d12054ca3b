"""``qlinear_softmax`` against ONNX Runtime's own ``com.microsoft:QLinearSoftmax`` node: random shapes, axes,
opsets and parameters; the cases that tell ONNX Runtime 1.32's arithmetic from the other readings of its sources;
extreme and broken scales.  Every expected value comes from ONNX Runtime at test time."""

import numpy as np
import pytest

from intdot.core.errors import OperandError, OperandTypeError
from intdot.quant import qlinear_softmax
from intdot.quant.qlinear_softmax import logf

from . import ort

F32, U8, I8 = np.float32, np.uint8, np.int8


@pytest.fixture(autouse=True)
def _oracle():
    ort.need()


def onnxruntime_node(x, sx, zx, sy, zy, axis, opset, const=True):
    """ONNX Runtime's kernel; with ``const`` the scales are initializers (the table is built as the session loads),
    else graph inputs (built at run time)."""
    ins = [x, F32(sx), x.dtype.type(zx), F32(sy), x.dtype.type(zy)]
    attrs = {"axis": axis, "opset": opset}
    return ort.run(
        "QLinearSoftmax", ins, attrs, ort._elem(x), const=(1, 2, 3, 4) if const else (), domain="com.microsoft"
    )


def _agree(x, sx, zx, sy, zy, axis=-1, opset=13, const=True):
    want = onnxruntime_node(x, sx, zx, sy, zy, axis, opset, const)
    got = qlinear_softmax(x, F32(sx), x.dtype.type(zx), F32(sy), x.dtype.type(zy), axis=axis, opset=opset)
    assert got.dtype == want.dtype and got.shape == want.shape
    bad = np.argwhere(got != want)
    assert bad.size == 0, (x.shape, axis, opset, float(sx), float(sy), int(zy), bad[:3].tolist(), got[got != want][:3])


def _random_case(rng):
    dtype = I8 if rng.integers(2) else U8
    shape = tuple(int(v) for v in rng.integers(1, 7, size=int(rng.integers(1, 4))))
    if rng.random() < 0.3:
        shape = shape[:-1] + (int(rng.choice([16, 33, 100, 1000])),)
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max + 1, size=shape).astype(dtype)
    axis = int(rng.integers(-len(shape), len(shape)))
    opset = int(rng.choice([11, 12, 13, 21]))
    sx, sy = F32(10 ** rng.uniform(-2.5, 0.5)), F32(10 ** rng.uniform(-2.7, 0.3))
    zx, zy = (int(rng.integers(info.min, info.max + 1)) for _ in range(2))
    return x, sx, zx, sy, zy, axis, opset


def test_random_shapes_axes_opsets_and_parameters(request):
    """300 random nodes (3,000 with --slow): ranks 1-3, any axis, opsets 11-21 (before 13 the tensor is read as
    rows from the axis on), uint8 and int8, scales over three decades; the parameters constant or fed."""
    rng = np.random.default_rng(11)
    for k in range(3000 if request.config.getoption("--slow") else 300):
        x, sx, zx, sy, zy, axis, opset = _random_case(rng)
        _agree(x, sx, zx, sy, zy, axis, opset, const=bool(k % 2))


# Nodes on which a reading of ONNX Runtime's sources that 1.32 does not follow gives other bits, found by search
# among random nodes: (seed, int8, D, x_scale, y_scale, y_zero_point); x is 8 rows of D codes from the seed (_draw).
TELLING = {
    "entry / sum in float32, then times floor(1 / y_scale)": [
        (1334107804, True, 100, 0.009437003172934055, 0.009646140970289707, 23),
        (1956083867, True, 16, 0.07773292064666748, 0.004642946179956198, -92),
        (664418644, True, 5, 0.01732051745057106, 0.01833978109061718, 9),
    ],
    "entry times floor(1 / y_scale) / sum in float32": [
        (134071124, False, 10, 0.5493124723434448, 0.13830451667308807, 244),
        (1458177429, True, 16, 2.681370258331299, 0.13895395398139954, -113),
        (16772483, False, 3, 2.922147035598755, 0.16903433203697205, 188),
    ],
    "the double quotient rounded to float32 before the integer": [
        (1266671506, True, 64, 0.0972370058298111, 0.00927767064422369, -8),
    ],
    "the shift's logarithm in double": [
        (51850137, False, 5, 0.1990022510290146, 0.2511949837207794, 71),
        (1805592452, True, 257, 0.006543949246406555, 0.002159964293241501, 11),
        (1696896551, False, 2, 0.003829828929156065, 0.00408029044046998, 93),
    ],
    "the shift in float32 throughout": [
        (965142842, False, 64, 1.2846567630767822, 0.008661141619086266, 124),
        (1113155720, False, 64, 2.412515878677368, 0.022798599675297737, 145),
    ],
}


def _draw(seed):
    """The search's node for ``seed``: (int8, D, x_scale, y_scale, y_zero_point, x)."""
    r = np.random.default_rng(seed)
    signed = bool(r.integers(2))
    d = int(r.choice([2, 3, 4, 5, 7, 10, 16, 17, 33, 64, 100, 257]))
    sx, sy = float(F32(10 ** r.uniform(-2.5, 0.5))), float(F32(10 ** r.uniform(-2.7, -0.3)))
    lo, hi = (-128, 128) if signed else (0, 256)
    zy = int(r.integers(lo, hi))
    return signed, d, sx, sy, zy, r.integers(lo, hi, size=(8, d)).astype(I8 if signed else U8)


@pytest.mark.parametrize("reading", list(TELLING))
def test_nodes_that_tell_the_readings_apart(reading):
    for seed, *params in TELLING[reading]:
        *drawn, x = _draw(seed)
        assert drawn == params, "the generator changed: search again"
        _agree(x, params[2], 0, params[3], params[4])


@pytest.mark.parametrize("dtype", [U8, I8])
@pytest.mark.parametrize(
    "sx, sy",
    [
        (0.1, 1e-12),  # floor(1 / y_scale) near 10**12: large quotients saturate, small ones still round
        (0.1, 1e-6),
        (0.1, 0.5),
        (0.1, 1.0),
        (0.1, 3.0),  # floor(1 / 3) = 0: every output the zero point
        (0.1, 0.0),  # floor(1 / 0) = inf
        (0.1, -0.01),  # a negative multiplier: clamped below
        (50.0, 0.0),  # entries that underflow to 0 times inf: NaN, which gives 0 whatever the zero point
        (1e-30, 1 / 256),  # the shift swamps the codes: every entry equal
        (1e30, 1 / 256),
        (1.4e-45, 1 / 256),
    ],
)
def test_extreme_and_broken_scales(dtype, sx, sy):
    x = np.array([[0, 10, 200, 255], [255, 255, 0, 1], [7, 7, 7, 7]]).astype(np.int16)
    x = (x - 128 if dtype == I8 else x).astype(dtype)
    for zy in (0, 7, np.iinfo(dtype).min, np.iinfo(dtype).max):
        _agree(x, sx, 0, sy, zy)


@pytest.mark.parametrize("sx, words", [(0.0, "a positive scale"), (-0.1, "a positive scale"), (float("nan"), "finite")])
def test_a_scale_onnx_runtime_refuses_is_an_error(sx, words):
    x = np.array([[1, 2, 3]], U8)
    with pytest.raises(Exception, match="x_scale must be positive"):
        onnxruntime_node(x, sx, 0, 1 / 256, 0, -1, 13)
    with pytest.raises(OperandError, match=f"X_scale=.*{words}"):
        qlinear_softmax(x, F32(sx), U8(0), F32(1 / 256), U8(0))


@pytest.mark.parametrize("sx, sy", [(float("inf"), 1 / 256), (0.1, float("inf")), (0.1, float("nan"))])
def test_infinite_and_nan_scales_are_refused_as_everywhere(sx, sy):
    """ONNX Runtime runs these (NaN codes become 0); intdot refuses a scale that is not finite, as for every
    operator (docs/differences.md, row 10)."""
    with pytest.raises(OperandError, match="expected a finite scale"):
        qlinear_softmax(np.array([[1, 2, 3]], U8), F32(sx), U8(0), F32(sy), U8(0))


def test_bad_arguments_name_what_was_allowed():
    x = np.array([[1, 2, 3]], U8)
    args = (F32(0.1), U8(0), F32(1 / 256), U8(0))
    with pytest.raises(OperandError, match=r"axis=2: expected an axis of X, in \[-2, 1\]"):
        qlinear_softmax(x, *args, axis=2)
    with pytest.raises(OperandTypeError, match="opset=None"):
        qlinear_softmax(x, *args, opset=None)
    with pytest.raises(OperandError, match="opset=0"):
        qlinear_softmax(x, *args, opset=0)
    with pytest.raises(OperandError, match="X is a scalar"):
        qlinear_softmax(np.uint8(3), *args)
    assert qlinear_softmax(np.zeros((0, 4), U8), *args).shape == (0, 4)


def test_logf_is_the_c_library_s():
    """The shift's logarithm: the C library's logf (here through C itself), which glibc does not round correctly
    for every length (module docstring)."""
    import ctypes
    import ctypes.util

    libm = ctypes.CDLL(ctypes.util.find_library("m"))
    libm.logf.restype, libm.logf.argtypes = ctypes.c_float, [ctypes.c_float]
    top = F32(np.finfo(F32).max)
    for d in (1, 2, 10, 1000, 60594, 96962, 123457):
        v = top / F32(d)
        assert logf(v) == F32(libm.logf(float(v))), d
