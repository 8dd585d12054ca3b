"""Float32 Conv against ONNX Runtime for AArch64 (its MLAS convolution: im2col, SGEMM, bias), bit for bit, through
``run`` with ``platform="arm"``: 1-D, 2-D and 3-D, groups and depthwise, dilations, strides, pads and auto_pad,
batches, with and without bias, K past SGEMM's blocks.  On x86 the Convs its NCHWc layout transformer leaves run
the same way (``tests/quant/test_nchwc.py`` has the others), but for a depthwise 7x7 Conv of two outputs a channel,
which has an AVX-512F kernel of its own; and on both the Add after a Conv that ConvAddActivationFusion takes."""

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from intdot import quant
from intdot.errors import OperandError

from ..oracles import arm_ort
from .test_float_kernels import _same

F32 = np.float32


def _cases(rng, count):
    """Random Convs that ONNX Runtime takes (no dilation under SAME padding)."""
    out = []
    while len(out) < count:
        nd = int(rng.choice([1, 2, 2, 2, 3]))
        g, cg, mg = int(rng.choice([1, 1, 2, 4])), int(rng.integers(1, 20)), int(rng.integers(1, 9))
        if rng.random() < 0.2:  # depthwise
            g, cg, mg = int(rng.choice([4, 8])), 1, 1
        k = [int(rng.integers(1, 4)) for _ in range(nd)]
        dil = [int(rng.choice([1, 1, 2])) for _ in range(nd)]
        auto_pad = str(rng.choice(["NOTSET", "NOTSET", "SAME_UPPER", "VALID"]))
        if auto_pad.startswith("SAME") and max(dil) > 1:
            continue
        attrs = {"kernel_shape": k, "strides": [int(rng.choice([1, 1, 2])) for _ in range(nd)], "dilations": dil,
                 "group": g}  # fmt: skip
        if auto_pad == "NOTSET":
            attrs["pads"] = [int(rng.integers(0, 2)) for _ in range(2 * nd)]
        else:
            attrs["auto_pad"] = auto_pad
        size = [int(rng.integers(max(kk * d, 3), 12 if nd < 3 else 7)) for kk, d in zip(k, dil)]
        out.append(([int(rng.integers(1, 3)), g * cg, *size], [g * mg, cg, *k], attrs, rng.random() < 0.7))
    return out + [([1, 64, 10, 10], [16, 64, 3, 3], {"pads": [1, 1, 1, 1]}, True),  # K = 576: several blocks
                  ([1, 128, 9, 9], [8, 128, 3, 3], {"strides": [2, 2]}, True)]  # fmt: skip


@pytest.mark.parametrize("seed", [0, 1])
def test_float_conv_on_arm(seed):
    arm_ort.require()
    rng = np.random.default_rng(seed)
    for x_shape, w_shape, attrs, bias in _cases(rng, 14):
        w = rng.standard_normal(w_shape).astype(F32)
        inits = [numpy_helper.from_array(w, "w")]
        if bias:
            inits.append(numpy_helper.from_array(rng.standard_normal(w_shape[0]).astype(F32), "b"))
        node = helper.make_node("Conv", ["x", "w"] + (["b"] if bias else []), ["y"], **attrs)
        graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, None)],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)  # fmt: skip
        model = helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", 13)])
        x = rng.standard_normal(x_shape).astype(F32)
        want = arm_ort.Session(model.SerializeToString(), "neoverse-n1").run(None, {"x": x})[0]
        _same(quant.run(model, x, op="sdot4", platform="arm")["y"], want, (x_shape, w_shape, attrs))


def test_dilations_under_same_padding_are_refused_as_onnx_runtime_refuses_them():
    from intdot.quant.float_conv import conv

    x, w = np.ones((1, 2, 8, 8), F32), np.ones((3, 2, 3, 3), F32)
    with pytest.raises(OperandError, match="dilations"):
        conv(x, w, auto_pad="SAME_UPPER", dilations=[2, 2])


# Convs outside x86's NCHWc layout (MLAS's convolution there too), alone and with the Add that ONNX Runtime's
# ConvAddActivationFusion takes into them: (x shape, w shape, attributes, weights a graph input)
_MLAS_CONVS = [
    ([2, 8, 9], [5, 8, 3], {"pads": [1, 1]}, False),  # 1-D
    ([1, 4, 4, 5, 6], [8, 4, 3, 3, 3], {"pads": [1] * 6}, False),  # 3-D
    ([1, 17, 7, 8], [17, 17, 3, 3], {"pads": [1] * 4}, False),  # 17 channels: not a multiple of 4
    ([2, 6, 17, 19], [12, 1, 7, 7], {"group": 6, "strides": [2, 2], "pads": [3] * 4}, False),  # MLAS's AVX-512F kernel
    ([1, 6, 6, 5], [12, 1, 7, 7], {"group": 6, "strides": [2, 2], "pads": [3] * 4}, False),  # every window at an edge
    ([1, 6, 9, 9], [12, 1, 3, 3], {"group": 6, "pads": [1] * 4}, False),  # two outputs a channel, 3x3
    ([1, 32, 6, 7], [16, 8, 3, 3], {"group": 4, "pads": [1] * 4}, False),  # groups of 8
    ([1, 32, 6, 7], [32, 32, 3, 3], {"pads": [1] * 4}, True),  # the weights an input: no NCHWc
]


@pytest.mark.parametrize("add", [False, True], ids=["alone", "with the Add after it"])
def test_mlas_convolution_outside_the_nchwc_layout(add):
    """On x86 (or, with INTDOT_ORT=arm, Arm) against ONNX Runtime: Convs its NCHWc transformer leaves, through
    MLAS's convolution, and the Add after each made the output its SGEMM starts from."""
    from . import ort

    ort.need()
    rng = np.random.default_rng(4)
    for x_shape, w_shape, attrs, w_input in _MLAS_CONVS:
        x, w = rng.standard_normal(x_shape).astype(F32), rng.standard_normal(w_shape).astype(F32)
        b = rng.standard_normal(w_shape[0]).astype(F32)
        y = "y" if add else "out"
        nodes = [helper.make_node("Conv", ["x", "w", "b"], [y], kernel_shape=w_shape[2:], **attrs)]
        inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)]
        feeds = {"x": x}
        if w_input:
            inputs.append(helper.make_tensor_value_info("w", TensorProto.FLOAT, w_shape))
            feeds["w"] = w
        inits = [numpy_helper.from_array(b, "b")] + ([] if w_input else [numpy_helper.from_array(w, "w")])
        if add:
            out_shape = quant.run(_single(nodes, inputs, inits, "y"), feeds, op="sdot4")["y"].shape
            inputs.append(helper.make_tensor_value_info("z", TensorProto.FLOAT, list(out_shape)))
            feeds["z"] = rng.standard_normal(out_shape).astype(F32)
            nodes.append(helper.make_node("Add", ["y", "z"], ["out"]))
        model = _single(nodes, inputs, inits, "out")
        want = ort.session(model, neon=True).run(None, feeds)[0]
        _same(quant.run(model, feeds, op="sdot4", platform=ort.platform())["out"], want, (x_shape, w_shape, attrs))


def _single(nodes, inputs, inits, out):
    graph = helper.make_graph(nodes, "g", inputs, [helper.make_tensor_value_info(out, TensorProto.FLOAT, None)], inits)
    return helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", 13)])
