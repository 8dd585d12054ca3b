"""Float operators a QOperator model runs on 8-bit codes, through ``run``, against ONNX Runtime.

onnx.reference's MaxPool pads with NaN, which an int8 array cannot hold; intdot pools the codes exactly
instead (``intdot.quant.model``'s MaxPool).
"""

import numpy as np
import pytest
from onnx import helper

from intdot import quant

from . import ort

WINDOWS = [
    {"kernel_shape": [3, 3]},
    {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]},
    {"kernel_shape": [2, 2], "strides": [2, 2], "ceil_mode": 1},
    {"kernel_shape": [2, 3], "dilations": [2, 1], "pads": [0, 1, 1, 1]},
    {"kernel_shape": [3, 3], "strides": [2, 2], "auto_pad": "SAME_UPPER"},
    {"kernel_shape": [3, 3], "auto_pad": "SAME_LOWER"},
]


@pytest.mark.parametrize("dtype", [np.int8, np.uint8])
@pytest.mark.parametrize("attrs", WINDOWS, ids=lambda a: "-".join(f"{k}{v}" for k, v in a.items()))
def test_max_pool_on_codes(dtype, attrs):
    ort.need()
    info = np.iinfo(dtype)
    rng = np.random.default_rng(7)
    x = rng.integers(info.min, info.max, size=(2, 3, 7, 6), endpoint=True).astype(dtype)
    x[0, 0] = info.min  # a window of nothing but the lowest code, padding beside it
    x[1, 1, :, 0] = info.max
    code = helper.np_dtype_to_tensor_dtype(x.dtype)
    got = quant.run(ort.node_model("MaxPool", [x], attrs, code), x, op="sdot4")["y"]
    want = ort.run("MaxPool", [x], attrs, code)
    assert got.dtype == want.dtype == dtype
    np.testing.assert_array_equal(got, want)
