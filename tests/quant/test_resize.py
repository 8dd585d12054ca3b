"""Resize through ``run`` against ONNX Runtime: ``linear`` on float32 values and on uint8/int8 codes (QOperator
models resize the codes), ``nearest`` under align_corners and pytorch_half_pixel at scales where ``onnx.reference``
reads other source elements; scales and sizes at random, up and down."""

import numpy as np
import pytest
from onnx import helper, numpy_helper

from intdot import quant
from intdot.quant.resize import LINEAR, NEAREST

from . import ort

_ELEM = {np.float32: 1, np.uint8: 2, np.int8: 3}


def _model(dtype, attrs, scales=None, sizes=None):
    names = ["x", "roi", "scales" if scales is not None else "", "sizes" if sizes is not None else ""]
    inits = [numpy_helper.from_array(np.array([0.1, 0, 0.2, 0.3, 1, 1, 0.9, 0.8], np.float32), "roi")]
    if scales is not None:
        inits.append(numpy_helper.from_array(np.asarray(scales, np.float32), "scales"))
    if sizes is not None:
        inits.append(numpy_helper.from_array(np.asarray(sizes, np.int64), "sizes"))
    node = helper.make_node("Resize", [n for n in names if n] if sizes is None else names, ["y"], **attrs)
    x = helper.make_tensor_value_info("x", _ELEM[dtype], None)
    graph = helper.make_graph([node], "g", [x], [helper.make_tensor_value_info("y", _ELEM[dtype], None)], inits)
    return helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", 19)])


def _cases(mode, transforms, dtype, n, seed):
    rng = np.random.default_rng(seed)
    for k in range(n):
        shape = (int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.integers(1, 9)), int(rng.integers(1, 9)))
        if np.dtype(dtype).kind == "f":
            x = rng.uniform(-4, 4, shape).astype(dtype)
        else:
            x = rng.integers(np.iinfo(dtype).min, np.iinfo(dtype).max, shape, endpoint=True).astype(dtype)
        attrs = {"mode": mode, "coordinate_transformation_mode": transforms[k % len(transforms)]}
        if mode == "nearest":
            attrs["nearest_mode"] = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")[k // 2 % 4]
        if attrs["coordinate_transformation_mode"] == "tf_crop_and_resize":
            attrs["extrapolation_value"] = 7.0
        if k % 2:
            sizes = [shape[0], shape[1], int(rng.integers(1, 13)), int(rng.integers(1, 13))]
            yield x, _model(dtype, attrs, sizes=sizes)
        else:
            yield x, _model(dtype, attrs, scales=[1, 1, *rng.uniform(0.3, 3.7, 2).round(3)])


@pytest.mark.parametrize("dtype", [np.float32, np.uint8, np.int8])
@pytest.mark.parametrize("mode", ["linear", "nearest"])
def test_resize_as_onnx_runtime(mode, dtype):
    """Every coordinate transform, on this machine's platform or under INTDOT_ORT=arm ONNX Runtime for AArch64's."""
    ort.need()
    transforms = LINEAR if mode == "linear" else NEAREST
    seed = {np.float32: 0, np.uint8: 100, np.int8: 200}[dtype] + len(mode)
    for x, model in _cases(mode, transforms, dtype, n=120, seed=seed):
        want = ort.session(model).run(None, {"x": x})[0]
        got = quant.run(model, x, op="sdot4", platform=ort.platform())["y"]
        assert got.dtype == want.dtype and got.shape == want.shape, model.graph.node[0]
        assert got.tobytes() == want.tobytes(), (model.graph.node[0], x)


def test_arm_rounds_apart_from_x86():
    """Arm's fused products give other bits than x86's on some of these cases: the Arm comparison can fail."""
    differs = 0
    for x, model in _cases("linear", LINEAR, np.float32, n=30, seed=4):
        x86, arm = (quant.run(model, x, op="sdot4", platform=p)["y"] for p in ("x86", "arm"))
        differs += x86.tobytes() != arm.tobytes()
    assert differs > 5
