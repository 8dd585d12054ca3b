"""QDQ Where groups: intdot turns exactly those ONNX Runtime turns into ``com.microsoft:QLinearWhere`` (the graph it
writes is the oracle), and ``intdot.quant.run`` gives ONNX Runtime's bits for the whole model.  The builder is the
Add/Mul tests' (a condition input added)."""

from functools import partial

import numpy as np
import pytest

from . import ort, qdq_harness
from .test_qdq_binary import I8, U8, binary_qdq

FUSED = {"QLinearWhere"}
W = ["QLinearWhere"]

_kinds = partial(qdq_harness.ort_kinds, fused=FUSED)
_ours = partial(qdq_harness.intdot_kinds, fused=FUSED)


@pytest.fixture(autouse=True)
def _oracle():
    ort.need()


def where(a_shape=(2, 3, 4), b_shape=(2, 3, 4), **kw):
    return binary_qdq("Where", a_shape, b_shape, **kw)


RULES = {
    "uint8": (where(), W),
    "uint8, one scale and zero point throughout (codes copied)": (where(scales=(0.05,) * 3, zps=(130,) * 3), W),
    "broadcast: condition, a and b of three shapes": (where((3, 1), (1, 4), cond_shape=(2, 1, 1)), W),
    "int8 (moved to uint8)": (where(dtypes=(I8, I8, I8), zps=(3, -7, 0)), W),
    "uint8 and an int8 input (moved to uint8)": (where(dtypes=(U8, I8, U8)), W),
    "b a constant": (where(b_const=np.array(200, U8)), W),
    "x scale a graph input": (where(scale_input=True), W),
    "a per channel (fused by ONNX Runtime, which then fails: float here)": (where(a_axis=1), None),
    "redundant Relu (zero point 0)": (where(after="Relu", zps=(None, None, 0)), W),
    "Relu kept (zero point 128)": (where(after="Relu"), []),
    "output also a graph output": (where(extra_reader=True), []),
    "no QuantizeLinear": (where(no_q=True), []),
}


@pytest.mark.parametrize("name", list(RULES))
def test_groups_fused_as_onnx_runtime_fuses_them(name, tmp_path):
    model, want = RULES[name]
    if want is None:  # ONNX Runtime cannot load its own rewrite: intdot runs the model as written
        with pytest.raises(Exception, match="X_scale must be a scalar or 1D tensor of size 1"):
            _kinds(model, tmp_path)
        assert _ours(model) == []
        return
    assert _kinds(model, tmp_path) == want, "ONNX Runtime changed: update the rule"
    assert _ours(model) == want
    qdq_harness.same_bits(model, only="y" if "y" in [o.name for o in model.graph.output] else None)


def test_qdqisint8allowed(tmp_path):
    """With int8 allowed nothing is moved: an int8 group fuses as int8, a mixed one not."""
    model = where(dtypes=(I8, I8, I8), zps=(3, -7, 0))
    assert _kinds(model, tmp_path, True) == W and _ours(model, True) == W
    qdq_harness.same_bits(model, True)
    mixed = where(dtypes=(U8, I8, U8))
    assert _kinds(mixed, tmp_path, True) == [] and _ours(mixed, True) == []


@pytest.mark.parametrize("seed", range(4))
def test_fused_bits_on_random_parameters(seed):
    import numpy as np

    rng = np.random.default_rng(seed)
    dtype = (U8, I8)[seed % 2]
    info = np.iinfo(dtype)
    scales = tuple(float(np.exp(rng.uniform(-5, -1))) for _ in range(3))
    zps = tuple(int(rng.integers(info.min, info.max + 1)) for _ in range(3))
    model = where((4, 16, 16), (16, 16), dtypes=(dtype,) * 3, scales=scales, zps=zps)
    qdq_harness.same_bits(model, seed=seed)
