"""Pow in float32 against ONNX Runtime's kernel, bit for bit: by a one-element 2 or 3 it multiplies (a decomposed
layer norm's square, the tanh GELU's cube), by any other float32 exponent it calls glibc's powf
(``intdot.quant.libm.powf``, itself checked against this machine's C library in ``test_libm.py``); on this
machine's platform or under INTDOT_ORT=arm ONNX Runtime for AArch64's."""

import numpy as np
import pytest

from intdot import quant

from . import ort
from .test_fast_gelu import _x
from .test_layer_norm import _same

F32 = np.float32


@pytest.mark.parametrize("exponent", [np.array(2.0, F32), np.array([3.0], F32), np.array(3, np.int32)])
def test_pow_as_onnx_runtime(exponent):
    """Pow by a one-element 2 or 3 (a decomposed layer norm's square, the tanh GELU's cube): ``x * x`` and ``(x * x)
    * x``, as its kernel multiplies (a cube rounded twice: not NumPy's power)."""
    ort.need()
    x = _x(np.random.default_rng(3), (40, 50))
    for const in ((), (1,)):
        want = ort.run("Pow", [x, exponent], opset=17, out_type=1, const=const)
        model = ort.node_model("Pow", [x, exponent], opset=17, out_type=1, const=const)
        feeds = {f"in{i}": v for i, v in enumerate((x, exponent)) if i not in const}
        _same(quant.run(model, feeds, op="sdot4", platform=ort.platform())["y"], want, (exponent, const))
    if float(exponent.ravel()[0]) == 3:
        assert not np.array_equal(want, np.power(x, F32(3)), equal_nan=True)  # the test tells them apart


@pytest.mark.parametrize("kind", ["scalar", "vector", "elementwise", "integers"])
def test_pow_to_other_exponents_as_onnx_runtime(kind):
    """glibc's powf: negative bases to integer exponents (odd ones keep the sign), to others NaN; zeros, infinities
    and NaNs as C returns them."""
    ort.need()
    rng = np.random.default_rng(len(kind))
    x = np.concatenate([rng.standard_normal(3000) * 3, -rng.uniform(0, 5, 500), [0, -0.0, np.inf, -np.inf, np.nan,
                        1e-40, 1, -1]]).astype(F32)  # fmt: skip
    exponent = {"scalar": np.array(0.5, F32), "vector": np.array([-1.5], F32),
                "elementwise": (rng.standard_normal(x.size) * 3).astype(F32),
                "integers": np.round(rng.standard_normal(x.size) * 3).astype(F32)}[kind]  # fmt: skip
    for const in ((), (1,)):
        want = ort.run("Pow", [x, exponent], opset=17, out_type=1, const=const)
        model = ort.node_model("Pow", [x, exponent], opset=17, out_type=1, const=const)
        feeds = {f"in{i}": v for i, v in enumerate((x, exponent)) if i not in const}
        _same(quant.run(model, feeds, op="sdot4", platform=ort.platform())["y"], want, (kind, const))
