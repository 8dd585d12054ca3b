"""QDQ Sigmoid and LeakyRelu groups: intdot turns exactly those ONNX Runtime turns into ``com.microsoft:QLinearSigmoid``
/ ``QLinearLeakyRelu`` (the graph it writes is the oracle), and ``intdot.quant.run`` gives ONNX Runtime's bits for
the whole model; Softmax groups, which ONNX Runtime also fuses, stay in float here (its kernel is not modelled).
The group builder and checks are the pooling tests' (the same selector)."""

from functools import partial

import numpy as np
import pytest

from . import ort, qdq_harness
from .test_qdq import _session
from .test_qdq_pool import I8, U8, _feed, _same_bits, unary_qdq

F32 = np.float32
FUSED = {"QLinearSigmoid", "QLinearLeakyRelu", "QLinearSoftmax"}

_kinds = partial(qdq_harness.ort_kinds, fused=FUSED)
_ours = partial(qdq_harness.intdot_kinds, fused=FUSED)


@pytest.fixture(autouse=True)
def _oracle():
    ort.need()


SIG, LR = ["QLinearSigmoid"], ["QLinearLeakyRelu"]
RULES = {
    "Sigmoid uint8": (unary_qdq("Sigmoid", scales=(0.05, 1 / 256), zps=(None, 0)), SIG),
    "LeakyRelu uint8": (unary_qdq("LeakyRelu", attrs={"alpha": 0.1}), LR),
    "LeakyRelu, default alpha": (unary_qdq("LeakyRelu", zps=(30, 200)), LR),
    "Sigmoid int8 (moved to uint8)": (
        unary_qdq("Sigmoid", dtypes=(I8, I8), scales=(0.05, 1 / 256), zps=(3, -128)),
        SIG,
    ),
    "LeakyRelu int8 (moved to uint8)": (unary_qdq("LeakyRelu", dtypes=(I8, I8), zps=(-20, 9)), LR),
    "Sigmoid, scale a graph input": (unary_qdq("Sigmoid", scale_input=True), SIG),
    "Sigmoid, x scale of shape (1,)": (unary_qdq("Sigmoid", one_element="s0"), SIG),
    "LeakyRelu, y zero point of shape (1,)": (unary_qdq("LeakyRelu", one_element="z1"), LR),
    "Sigmoid, output also a graph output": (unary_qdq("Sigmoid", extra_reader=True), []),
}


@pytest.mark.parametrize("name", list(RULES))
def test_groups_fused_as_onnx_runtime_fuses_them(name, tmp_path):
    model, want = RULES[name]
    assert _kinds(model, tmp_path) == want, "ONNX Runtime changed: update the rule"
    assert _ours(model) == want
    _same_bits(model)


@pytest.mark.parametrize("op", ["Sigmoid", "LeakyRelu"])
def test_qdqisint8allowed(op, tmp_path):
    """With int8 allowed nothing is moved: int8 groups fuse as int8, mixed ones not."""
    kind = SIG if op == "Sigmoid" else LR
    for dtypes, want in (((I8, I8), kind), ((U8, I8), []), ((I8, U8), [])):
        zps = (3 if dtypes[0] == I8 else 130, -7 if dtypes[1] == I8 else 120)
        model = unary_qdq(op, dtypes=dtypes, zps=zps)
        assert _kinds(model, tmp_path, int8_allowed=True) == want
        assert _ours(model, int8_allowed=True) == want
        _same_bits(model, int8_allowed=True)


@pytest.mark.parametrize("dtype", [U8, I8])
@pytest.mark.parametrize("op", ["Sigmoid", "LeakyRelu"])
def test_fused_bits_on_many_values(op, dtype):
    """Fused groups on 64 x 20 x 20 values under random scales and zero points."""
    rng = np.random.default_rng(3 + (dtype == I8) + 2 * (op == "Sigmoid"))
    info = np.iinfo(dtype)
    for k in range(3):
        scales = (float(np.exp(rng.uniform(-5, -1))), float(np.exp(rng.uniform(-9, -3))))
        zps = tuple(int(rng.integers(info.min, info.max + 1)) for _ in range(2))
        attrs = {"alpha": float(rng.uniform(0, 0.4))} if op == "LeakyRelu" else None
        model = unary_qdq(op, (2, 64, 20, 20), dtypes=(dtype, dtype), scales=scales, zps=zps, attrs=attrs)
        _same_bits(model, seed=k)


def test_softmax_fused_by_onnx_runtime_runs_in_float_here(tmp_path):
    """ONNX Runtime fuses a Softmax group into QLinearSoftmax; intdot leaves it in float (docs/differences.md,
    row 14), so the bits are the float graph's, which may differ from ONNX Runtime's by a code."""
    model = unary_qdq("Softmax", (2, 10), scales=(0.1, 1 / 256), zps=(None, 0), attrs={"axis": -1})
    assert _kinds(model, tmp_path) == ["QLinearSoftmax"], "ONNX Runtime changed: update the docs"
    assert _ours(model) == []
    feed = _feed(model)
    import intdot.quant as quant

    want = _session(model, optimize=False).run(["y"], feed)[0]
    np.testing.assert_allclose(quant.run(model, feed, op="usdot")["y"], want, atol=1 / 256)
