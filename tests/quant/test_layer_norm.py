"""float32 ``LayerNormalization``, ``SimplifiedLayerNormalization`` and ``RMSNormalization`` against ONNX Runtime's
CPU kernel, bit for bit, all outputs (Y, Mean, InvStdDev): row lengths on both sides of x86's MLAS threshold (8,
and 16 for the simplified kernel), of its 4- and 8-wide loops and of Arm's NEON loop (26), several axes, scale and
bias that broadcast (ONNX Runtime's float64 path), rows of one value, infinities and NaNs.

The host's ONNX Runtime (or, with INTDOT_ORT=arm, ONNX Runtime for AArch64) in the first tests; then this machine's
ONNX Runtime on QEMU's Haswell CPU (``platform="x86-avx2"``) and ONNX Runtime for AArch64 on a NEON-only and an SVE
CPU, each skipped, visibly, where its oracle is missing."""

import numpy as np
import pytest
from onnx import TensorProto, helper

from intdot import quant
from intdot.quant.layer_norm import layer_norm

from ..oracles import arm_ort
from . import ort

F32 = np.float32
SIZES = [*range(1, 10), 15, 16, 17, 26, 27, 31, 32, 33, 64, 100, 768, 1027]
VARIANTS = ("bias", "no bias", "simplified")


def _model(shape, axis=-1, scale_shape=None, bias=True, simplified=False, outputs=3, epsilon=1e-5, op=None):
    """One normalization node with every output; ``op``: the operator (default LayerNormalization, or
    SimplifiedLayerNormalization when ``simplified``; "RMSNormalization" is ONNX's, opset 23, one output)."""
    a = axis % len(shape)
    scale_shape = list(shape[a:]) if scale_shape is None else list(scale_shape)
    op = op or ("SimplifiedLayerNormalization" if simplified else "LayerNormalization")
    names = ["x", "s"] + (["b"] if bias and not simplified else [])
    stats = [d if i < a else 1 for i, d in enumerate(shape)]
    outs = ["y"] + ([] if op == "RMSNormalization" else ["inv"] if simplified else ["mean", "inv"])[: outputs - 1]
    ins = [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape))]
    ins += [helper.make_tensor_value_info(n, TensorProto.FLOAT, scale_shape) for n in names[1:]]
    values = [helper.make_tensor_value_info(o, TensorProto.FLOAT, list(shape) if o == "y" else stats) for o in outs]
    node = helper.make_node(op, names, outs, axis=axis, epsilon=epsilon)
    opset = 23 if op == "RMSNormalization" else 17
    graph = helper.make_graph([node], "g", ins, values)
    return helper.make_model(graph, ir_version=11 if opset > 22 else 10, opset_imports=[helper.make_opsetid("", opset)])


def _inputs(rng, shape, scale_shape, bias):
    """Rows of mixed magnitudes and offsets (large offsets make the variance cancel), one row of a single value and
    one of -0.0 (where they fit); scale with a zero and negative values."""
    outer = (shape[0],) + (1,) * (len(shape) - 1)
    x = rng.standard_normal(shape) * rng.choice([1e-3, 0.3, 1, 20, 3e3], outer) + rng.choice([0, 1, -50, 1e4], outer)
    x = x.astype(F32)
    flat = x.reshape(shape[0], -1)
    if shape[0] > 2:
        flat[1] = flat[1, 0]
        flat[2] = -0.0
    s = rng.standard_normal(scale_shape).astype(F32)
    s.reshape(-1)[:1] = 0
    b = (rng.standard_normal(scale_shape) * 2).astype(F32) if bias else None
    return x, s, b


def _feed(x, s, b):
    return {"x": x, "s": s} | ({} if b is None else {"b": b})


def _same(got, want, what):
    """Bit for bit, NaNs alike wherever they are."""
    assert got.dtype == want.dtype and got.shape == want.shape, (what, got.shape, want.shape)
    nan = np.isnan(want)
    assert np.array_equal(nan, np.isnan(got)), what
    bad = (got.view(np.uint32) != want.view(np.uint32)) & ~nan
    assert not bad.any(), (what, np.flatnonzero(bad)[:5], got[bad][:5], want[bad][:5])


def _check(session, platform, shape, axis=-1, scale_shape=None, variant="bias", seed=0, epsilon=1e-5, op=None):
    """One node run by ``session`` (a function of the model) and by :func:`layer_norm` on ``platform``, every
    output compared; returns ONNX Runtime's outputs and the inputs."""
    simplified, bias = variant == "simplified", variant == "bias"
    a = axis % len(shape)
    scale_shape = shape[a:] if scale_shape is None else scale_shape
    x, s, b = _inputs(np.random.default_rng(seed), shape, scale_shape, bias)
    model = _model(shape, axis, scale_shape, bias, simplified, epsilon=epsilon, op=op)
    want = session(model).run(None, _feed(x, s, b))
    got = layer_norm(x, s, b, axis, epsilon, platform, simplified=simplified, outputs=len(want))
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        _same(g, w, (shape, axis, scale_shape, variant, op, ["y", "mean" if len(want) == 3 else "inv", "inv"][i]))
    return want, (x, s, b)


@pytest.mark.parametrize("n", SIZES)
def test_layer_norm_as_onnx_runtime(n):
    """Rows of ``n``: with and without bias, and simplified (RMSNorm), with their statistics."""
    ort.need()
    for variant in VARIANTS:
        _check(ort.session, ort.platform(), (7, n), variant=variant, seed=n)


@pytest.mark.parametrize(
    "shape, axis, scale_shape, variant",
    [((2, 3, 4, 5), 1, None, "bias"), ((2, 3, 4, 5), -2, None, "no bias"), ((2, 3, 4, 5), 2, None, "simplified"),
     ((3, 2, 9), 0, None, "bias"), ((2, 5, 6), -1, (1, 6), "bias"), ((2, 3, 4, 5), 2, (1, 5), "bias"),
     # scale and bias that broadcast, or differ from row to row: ONNX Runtime's float64 path
     ((4, 20), -1, (4, 1), "bias"), ((4, 20), -1, (4, 20), "no bias"), ((4, 20), -1, (4, 20), "simplified"),
     ((2, 3, 4), 2, (1, 3, 4), "bias"), ((2, 3, 4), 2, (2, 1, 4), "bias"), ((3, 3), 1, (3, 1), "no bias"),
     ((2, 3, 10), 1, (3, 1), "bias"), ((2, 3, 10), 1, (3, 1), "simplified"), ((5, 6, 33), 2, (1,), "bias"),
     ((5, 6, 33), 1, (6, 33), "simplified")],
)  # fmt: skip
def test_axes_and_broadcasts_as_onnx_runtime(shape, axis, scale_shape, variant):
    ort.need()
    _check(ort.session, ort.platform(), shape, axis, scale_shape, variant, seed=sum(shape))


@pytest.mark.parametrize("n", [5, 20, 33])
def test_rms_normalization_as_onnx_runtime(n):
    """ONNX's RMSNormalization (opset 23) runs the simplified kernel."""
    ort.need()
    _check(ort.session, ort.platform(), (6, n), variant="simplified", seed=n, epsilon=1e-3, op="RMSNormalization")


@pytest.mark.parametrize("n", [4, 9, 20, 33])
def test_special_values_as_onnx_runtime(n):
    """Infinities, NaN, zeros, -0.0, huge and subnormal rows, epsilon 0 and 0.5, with and without bias."""
    ort.need()
    rng = np.random.default_rng(n)
    x = rng.standard_normal((8, n)).astype(F32)
    x[0, 1], x[1, 2], x[2, 0] = np.inf, -np.inf, np.nan
    x[3], x[4], x[5], x[6, ::2], x[7] = 0, 1e30, 1e-42, 3e38, -0.0
    s = rng.standard_normal(n).astype(F32)
    s[:2] = 0, -1
    b = rng.standard_normal(n).astype(F32)
    for epsilon in (1e-5, 0.0, 0.5):
        for variant in VARIANTS:
            simplified, bias = variant == "simplified", b if variant == "bias" else None
            model = _model(x.shape, -1, None, bias is not None, simplified, epsilon=epsilon)
            want = ort.session(model).run(None, _feed(x, s, bias))
            got = layer_norm(x, s, bias, -1, epsilon, ort.platform(), simplified=simplified, outputs=len(want))
            for g, w in zip(got, want):
                _same(g, w, (n, epsilon, variant))


def test_outputs_and_errors():
    x = np.arange(24, dtype=F32).reshape(2, 3, 4)
    s = np.ones(4, F32)
    y, mean, inv = layer_norm(x, s, None, axis=-1, outputs=3)
    assert y.shape == x.shape and mean.shape == inv.shape == (2, 3, 1)
    y, inv = layer_norm(x, np.ones((3, 4), F32), None, 1, simplified=True, outputs=2)
    assert y.shape == x.shape and inv.shape == (2, 1, 1)
    assert layer_norm(np.zeros((0, 4), F32), s, None)[0].shape == (0, 4)
    from intdot.core.errors import OperandError, OperandTypeError

    with pytest.raises(OperandError, match="axis=3"):
        layer_norm(x, s, None, 3)
    with pytest.raises(OperandError, match="outputs=3"):
        layer_norm(x, s, None, simplified=True, outputs=3)
    with pytest.raises(OperandError, match="broadcast"):
        layer_norm(x, np.ones(3, F32), None)
    with pytest.raises(OperandTypeError, match="float32"):
        layer_norm(x.astype(np.float64), s, None)
    with pytest.raises(OperandError, match="platform"):
        layer_norm(x, s, None, platform="riscv")


# platform="x86-avx2": this machine's ONNX Runtime on QEMU's Haswell CPU (tests/oracles/x86_ort.py).  MLAS's
# LayerNorm kernel is an AVX2 one, so the bits are the same as with AVX-512F: this says so.


def test_x86_avx2_layer_norm_as_onnx_runtime():
    from ..oracles import x86_ort

    x86_ort.require()

    def session(model):
        return x86_ort.Session(model.SerializeToString())

    for n in (1, 3, 7, 8, 9, 15, 16, 17, 27, 33, 100):
        for variant in VARIANTS:
            _check(session, "x86-avx2", (5, n), variant=variant, seed=n)
    for shape, axis, scale_shape in (((2, 3, 10), 1, (3, 1)), ((4, 3, 5), 1, None)):
        _check(session, "x86-avx2", shape, axis, scale_shape, "bias", seed=3)


# ONNX Runtime for AArch64 has no MLAS LayerNorm kernel: its C++ runs, compiled with fused multiply-adds, the same
# on every Arm CPU (NEON only, SVE of any length, SME).


@pytest.mark.parametrize(
    "cpu, platform", [("neoverse-n1", "arm"), ("max,sme=off,sve-default-vector-length=64", "arm-sve512")]
)
def test_layer_norm_on_arm_as_onnx_runtime(cpu, platform):
    arm_ort.require()

    def session(model):
        return arm_ort.Session(model.SerializeToString(), cpu)

    differs = 0
    for n in (1, 3, 7, 8, 9, 16, 17, 26, 27, 33, 100):
        for variant in VARIANTS:
            want, (x, s, b) = _check(session, platform, (5, n), variant=variant, seed=n)
            x86 = layer_norm(x, s, b, -1, 1e-5, "x86", simplified=variant == "simplified", outputs=len(want))
            differs += not all(np.array_equal(g.view(np.uint32), w.view(np.uint32)) for g, w in zip(x86, want))
    assert differs > 10, "x86's kernels should give other bits than Arm's here"  # the test tells them apart
    for shape, axis, scale_shape in (((2, 3, 10), 1, (3, 1)), ((4, 3, 5), 1, None), ((3, 4, 9), 2, (1,))):
        _check(session, platform, shape, axis, scale_shape, "bias", seed=4)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4))
def test_layer_norm_volume_as_onnx_runtime(seed):
    """Random shapes, axes, broadcasts and variants, many rows."""
    ort.need()
    rng = np.random.default_rng(100 + seed)
    for _ in range(40):
        rank = int(rng.integers(1, 4))
        shape = tuple(int(v) for v in rng.integers(1, 7, rank - 1)) + (int(rng.integers(1, 300)),)
        shape = (int(rng.integers(20, 200)), *shape)
        axis = int(rng.integers(1, len(shape)))
        scale_shape = shape[axis:]
        if rng.random() < 0.3:  # broadcast over the row, or row-dependent
            scale_shape = tuple(d if rng.random() < 0.5 else 1 for d in shape[int(rng.integers(0, axis + 1)) :])
        variant = str(rng.choice(VARIANTS))
        _check(ort.session, ort.platform(), shape, axis, scale_shape, variant, seed=int(rng.integers(1e6)))


@pytest.mark.parametrize("op, outputs", [("LayerNormalization", 3), ("LayerNormalization", 1),
                                         ("SimplifiedLayerNormalization", 2), ("RMSNormalization", 1)])  # fmt: skip
@pytest.mark.parametrize("n", [5, 16, 33, 768])
def test_through_run(op, outputs, n):
    """The nodes through ``run``, every output, as ONNX Runtime on this machine's platform computes them."""
    ort.need()
    simplified = op != "LayerNormalization"
    shape = (3, 2, n)
    model = _model(shape, bias=not simplified, simplified=simplified, outputs=outputs, op=op)
    rng = np.random.default_rng(n)
    feeds = {"x": (rng.standard_normal(shape) * 3 + 1).astype(F32)}
    for name in ("s", "b")[: 1 if simplified else 2]:
        feeds[name] = rng.standard_normal(n).astype(F32)
    want = ort.session(model).run(None, feeds)
    got = quant.run(model, feeds, op="sdot4", platform=ort.platform())
    assert len(got) == len(want)
    for g, w in zip(got.values(), want):
        _same(g, w, (op, n))
