"""ONNX Runtime as a live oracle: random and extreme inputs (0/255, -128/127, zero points at the opposite
extreme, K up to 65,536 so that int32 sums pass 2**31, exact .5 ties in requantization), at least 10^5 output
values per operator, the integer operators through every distinct kind of fitting instruction."""

import zlib

import numpy as np
import pytest

from intdot import quant

from . import ort
from . import reference_quant as ref

KINDS = [(np.uint8, np.int8), (np.uint8, np.uint8), (np.int8, np.int8), (np.int8, np.uint8)]
KIND_IDS = ["u8xs8", "u8xu8", "s8xs8", "s8xu8"]
INT32 = 6


@pytest.fixture(autouse=True)
def _oracle():
    ort.need()


def _rng(*key):
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def _values(rng, dtype, shape, extreme=0.0):
    info = np.iinfo(dtype)
    edge = rng.choice(np.array([info.min, info.max], np.int64), shape)
    return np.where(rng.random(shape) < extreme, edge, rng.integers(info.min, info.max + 1, shape)).astype(dtype)


def _opposite(dtype, values):
    """A zero point at the far end from most of the values."""
    info = np.iinfo(dtype)
    return dtype(info.min if float(np.mean(values)) > (info.min + info.max) / 2 else info.max)


def _through_every_step(fn, args, kw, want, ta, tb):
    """``fn(*args, op=..., **kw)`` through one instruction of every kind that fits: each must give ``want``."""
    n = 0
    for p in quant.fitting(ta, tb, distinct=True):
        got = fn(*args, op=p.record, **kw)
        assert got.dtype == want.dtype and got.shape == want.shape, p.record.name
        bad = np.argwhere(got != want)
        assert not bad.size, f"{p.record.name}: {len(bad)} of {want.size} differ, first at {tuple(bad[0])}"
        n = want.size
    return n


@pytest.mark.parametrize("kind", KINDS, ids=KIND_IDS)
def test_matmul_integer(kind):
    ta, tb = kind
    rng = _rng("mmi", ta, tb)
    count = 0
    cases = [
        (_values(rng, ta, (128, 256)), _values(rng, tb, (256, 256)), "random"),
        (_values(rng, ta, (64, 300), 0.8), _values(rng, tb, (300, 96), 0.8), "extreme"),
        (_values(rng, ta, (2, 3, 16, 40)), _values(rng, tb, (40, 24)), "batched"),
    ]
    k = 65536  # the sums pass 2**31 and wrap
    a = np.full((3, k), np.iinfo(ta).max, ta)
    a[1] = np.iinfo(ta).min
    cases.append((a, np.full((k, 4), np.iinfo(tb).min, tb), "K=65536"))
    for a, b, what in cases:
        za, zb = _opposite(ta, a), _opposite(tb, b)
        want = ort.exact("MatMulInteger", [a, b, np.array(za), np.array(zb)], out_type=INT32)
        assert (want == ref.matmul_integer(a, b, za, zb)).all(), f"ONNX Runtime and the reference differ ({what})"
        count += _through_every_step(quant.matmul_integer, (a, b, za, zb), {}, want, ta, tb)
    assert count >= 25_000  # 4 kinds: >= 10^5 values


def _requant_params(rng, acc_scale, per_column, n):
    """Scales that spread the outputs over the whole range rather than saturating them."""
    a_scale = np.float32(rng.uniform(0.001, 0.05))
    b_scale = rng.uniform(0.001, 0.05, n if per_column else 1).astype(np.float32)
    y_scale = np.float32(a_scale * float(b_scale.mean()) * acc_scale / 100)
    return a_scale, b_scale, y_scale


@pytest.mark.parametrize("kind", KINDS, ids=KIND_IDS)
def test_qlinear_matmul(kind):
    ta, tb = kind
    rng = _rng("qlmm", ta, tb)
    count = 0
    for m, k, n, extreme, per_column in [
        (128, 200, 256, 0.0, True),
        (64, 300, 128, 0.7, False),
        (16, 65536, 8, 0, False),
    ]:
        a = _values(rng, ta, (m, k), extreme)
        b = _values(rng, tb, (k, n), extreme)
        za, zb = _opposite(ta, a), _opposite(tb, b)
        acc = ref.matmul_integer(a, b, za, zb).astype(np.float64)
        sa, sb, sy = _requant_params(rng, float(np.abs(acc).max()) or 1.0, per_column, n)
        yz = ta(np.iinfo(ta).min // 2 + np.iinfo(ta).max // 2)
        zbv = np.full(sb.shape, zb, tb)
        inputs = [a, np.array(sa), np.array(za), b, sb, zbv, np.array(sy), np.array(yz)]
        want = ort.exact("QLinearMatMul", inputs, out_type=2 if ta == np.uint8 else 3)
        if k < 65536:  # (at K = 65,536 the point is the wrapping sums)
            assert len(np.unique(want)) > 30  # the outputs spread over the range, not all saturated
        count += _through_every_step(quant.qlinear_matmul, inputs, {}, want, ta, tb)
    # Exact ties: a scale of 0.5 and odd sums, which round half to even.
    a = _values(rng, ta, (64, 64)) // 8
    b = _values(rng, tb, (64, 64)) // 8
    inputs = [
        a,
        np.array(1, np.float32),
        np.array(0, ta),
        b,
        np.array(0.5, np.float32),
        np.array(0, tb),
        np.array(1, np.float32),
        np.array(0, ta),
    ]
    want = ort.exact("QLinearMatMul", inputs, out_type=2 if ta == np.uint8 else 3)
    assert np.mean(ref.matmul_integer(a, b) % 2 == 1) > 0.3
    count += _through_every_step(quant.qlinear_matmul, inputs, {}, want, ta, tb)
    assert count >= 25_000


CONVS = [
    dict(x=(4, 8, 16, 16), w=(16, 8, 3, 3), attrs=dict(pads=[1, 1, 1, 1])),
    dict(x=(2, 6, 17, 15), w=(12, 3, 3, 2), attrs=dict(pads=[2, 0, 1, 1], strides=[2, 1], dilations=[1, 2], group=2)),
    dict(x=(4, 16, 12, 12), w=(16, 1, 3, 3), attrs=dict(group=16, auto_pad="SAME_UPPER", strides=[2, 2])),
    dict(x=(3, 4, 11, 9), w=(8, 4, 4, 3), attrs=dict(auto_pad="SAME_LOWER")),
    dict(x=(3, 4, 11, 9), w=(8, 4, 2, 2), attrs=dict(auto_pad="VALID", strides=[3, 2])),
    dict(x=(4, 8, 200), w=(32, 8, 5), attrs=dict(pads=[2, 2], dilations=[3])),
    dict(x=(1, 4, 6, 7, 5), w=(8, 4, 3, 3, 2), attrs=dict(pads=[1, 0, 1, 1, 1, 0])),
]


@pytest.mark.parametrize("kind", KINDS, ids=KIND_IDS)
def test_conv_integer(kind):
    tx, tw = kind
    rng = _rng("conv", tx, tw)
    count = 0
    for i, c in enumerate(CONVS):
        x = _values(rng, tx, c["x"], 0.5 if i % 2 else 0.0)
        w = _values(rng, tw, c["w"], 0.5 if i % 2 else 0.0)
        zx, zw = _opposite(tx, x), _opposite(tw, w)
        want = ort.exact("ConvInteger", [x, w, np.array(zx), np.array(zw)], c["attrs"], out_type=INT32)
        count += _through_every_step(quant.conv_integer, (x, w, zx, zw), c["attrs"], want, tx, tw)
    assert count >= 25_000


@pytest.mark.parametrize("kind", KINDS, ids=KIND_IDS)
def test_qlinear_conv(kind):
    tx, tw = kind
    rng = _rng("qlconv", tx, tw)
    count = 0
    for i, c in enumerate(CONVS):
        x = _values(rng, tx, c["x"], 0.5 if i % 2 else 0.0)
        w = _values(rng, tw, c["w"], 0.5 if i % 2 else 0.0)
        m = c["w"][0]
        zx, zw = _opposite(tx, x), _opposite(tw, w)
        acc = ort.exact("ConvInteger", [x, w, np.array(zx), np.array(zw)], c["attrs"], out_type=INT32)
        sx = np.float32(rng.uniform(0.001, 0.05))
        sw = rng.uniform(0.001, 0.05, m).astype(np.float32)
        sy = np.float32(sx * float(sw.mean()) * (float(np.abs(acc).max()) or 1) / 100)
        bias = rng.integers(-(2**20), 2**20, m).astype(np.int32)
        yz = tx(np.iinfo(tx).min // 2 + np.iinfo(tx).max // 2)
        # ONNX Runtime takes per-channel scales but one weight zero point for all channels.
        inputs = [x, np.array(sx), np.array(zx), w, sw, np.full(m, zw, tw), np.array(sy), np.array(yz), bias]
        want = ort.exact("QLinearConv", inputs, c["attrs"], out_type=2 if tx == np.uint8 else 3)
        count += _through_every_step(quant.qlinear_conv, inputs, c["attrs"], want, tx, tw)
    assert count >= 25_000


OUTPUTS = [("uint8", 2), ("int8", 3), ("uint16", 4), ("int16", 5), ("uint4", 21), ("int4", 22)]


def _dtype(name):
    import ml_dtypes

    return np.dtype(getattr(ml_dtypes, name)) if name.endswith("4") else np.dtype(name)


@pytest.mark.parametrize("out", OUTPUTS, ids=[o[0] for o in OUTPUTS])
def test_quantize_linear(out):
    name, onnx_type = out
    dt = _dtype(name)
    lo, hi = {
        "uint8": (0, 255),
        "int8": (-128, 127),
        "uint16": (0, 65535),
        "int16": (-32768, 32767),
        "uint4": (0, 15),
        "int4": (-8, 7),
    }[name]
    rng = _rng("ql", name)
    n = 1 << 15
    x = (
        np.concatenate(
            [
                rng.normal(0, (hi - lo) / 4, n // 2),
                np.round(rng.uniform(lo - 20, hi + 20, n // 4)) + 0.5,  # exact ties (scale 1)
                rng.uniform(-1e6, 1e6, n // 4 - 8),
                [1e30, -1e30, np.inf, -np.inf, np.nan, -0.0, hi + 0.5, lo - 0.5],  # NaN: the lowest code, as ORT
            ]
        )
        .astype(np.float32)
        .reshape(8, 4, -1)
    )
    zp = np.array((lo + hi) // 2).astype(dt)
    count = 0
    for scale, zero, attrs in [
        (np.float32(1), zp, {}),
        (np.float32(0.37), np.array(lo).astype(dt), {}),
        (rng.uniform(0.1, 3, 4).astype(np.float32), np.full(4, hi, np.int64).astype(dt), {"axis": 1}),
        (rng.uniform(0.1, 3, (8, 4, 32)).astype(np.float32), np.full((8, 4, 32), zp), {"axis": 2, "block_size": 32}),
    ]:
        # ONNX Runtime's Python API takes no 4-bit arrays as inputs: those zero points are constants.
        cast = 3 if name.endswith("4") else None  # to int8: ONNX Runtime's Python API returns no 4-bit arrays
        want = ort.run("QuantizeLinear", [x, scale, zero], attrs, out_type=onnx_type, const=(1, 2), cast=cast)
        got = quant.quantize_linear(x, scale, zero, **attrs)
        assert got.dtype == dt
        bad = np.argwhere(got.astype(np.int64) != want.astype(np.int64))
        assert not bad.size, (
            f"{len(bad)} differ, first x={x[tuple(bad[0])]}: {got[tuple(bad[0])]} {want[tuple(bad[0])]}"
        )
        count += x.size
    assert count >= 10**5


@pytest.mark.parametrize("name", ["uint8", "int8", "uint16", "int16", "int32", "uint4", "int4"])
def test_dequantize_linear(name):
    dt = _dtype(name)
    rng = _rng("dql", name)
    info = {"uint4": (0, 15), "int4": (-8, 7)}.get(name) or (np.iinfo(dt).min, np.iinfo(dt).max)
    x = rng.integers(info[0], info[1] + 1, (4, 8, 1280)).astype(dt)
    count = 0
    zp0 = np.array(0 if name == "int32" else (info[0] + info[1]) // 2).astype(dt)
    for scale, zero, attrs in [
        (np.float32(0.0123), zp0, {}),
        (rng.uniform(0.001, 1, 8).astype(np.float32), np.full(8, zp0), {"axis": 1}),
        (rng.uniform(0.001, 1, (4, 8, 40)).astype(np.float32), np.full((4, 8, 40), zp0), {"axis": 2, "block_size": 32}),
    ]:
        want = ort.run("DequantizeLinear", [x, scale, zero], attrs, out_type=1, const=(0, 1, 2))
        got = quant.dequantize_linear(x, scale, zero, **attrs)
        assert got.dtype == np.float32 and np.array_equal(got, want)
        count += x.size
    assert count >= 10**5


def test_dynamic_quantize_linear():
    from onnx import helper

    rng = _rng("dyn")
    count = 0
    for x in [
        rng.normal(0, 3, 1 << 15),
        rng.uniform(0.5, 7, 1 << 15),  # all positive: the zero point is 0
        -rng.uniform(0.5, 7, 1 << 15),  # all negative: the zero point is 255
        rng.uniform(-1e-3, 5e4, 1 << 15),
        np.zeros(64),
    ]:
        x = x.astype(np.float32)
        node = helper.make_node("DynamicQuantizeLinear", ["x"], ["y", "s", "z"])
        graph = helper.make_graph(
            [node],
            "g",
            [helper.make_tensor_value_info("x", 1, x.shape)],
            [helper.make_tensor_value_info(v, t, None) for v, t in (("y", 2), ("s", 1), ("z", 2))],
        )
        model = helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", 21)])
        want = ort.session(model).run(None, {"x": x})
        got = quant.dynamic_quantize_linear(x)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and np.array_equal(g, w)
        count += x.size
    assert count >= 10**5


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS, ids=KIND_IDS)
def test_volume_through_every_fitting_form(kind):
    """--slow: every form of every fitting instruction (80), larger random and extreme problems, all four
    integer operators against ONNX Runtime."""
    ta, tb = kind
    rng = _rng("volume", ta, tb)
    plans = quant.fitting(ta, tb)
    for trial in range(3):
        a = _values(rng, ta, (96, 700), 0.3 * trial)
        b = _values(rng, tb, (700, 128), 0.3 * trial)
        za, zb = _opposite(ta, a), _opposite(tb, b)
        want = ort.exact("MatMulInteger", [a, b, np.array(za), np.array(zb)], out_type=INT32)
        for p in plans:
            assert (quant.matmul_integer(a, b, za, zb, op=p.record) == want).all(), p.record.name
        c = CONVS[trial]
        x = _values(rng, ta, c["x"], 0.3 * trial)
        w = _values(rng, tb, c["w"], 0.3 * trial)
        zx, zw = _opposite(ta, x), _opposite(tb, w)
        want = ort.exact("ConvInteger", [x, w, np.array(zx), np.array(zw)], c["attrs"], out_type=INT32)
        for p in plans:
            assert (quant.conv_integer(x, w, zx, zw, op=p.record, **c["attrs"]) == want).all(), p.record.name
