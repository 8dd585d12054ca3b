"""QDQ Concat groups: intdot turns exactly those ONNX Runtime turns into ``com.microsoft:QLinearConcat`` (the graph
it writes with ``optimized_model_filepath`` is the oracle), and ``intdot.quant.run`` gives ONNX Runtime's bits for
the whole model, fused or not; QOperator models holding the node run too."""

from functools import partial

import numpy as np
import pytest

from intdot import quant

from . import ort, qdq_harness

F32, U8, I8 = np.float32, np.uint8, np.int8
FUSED = {"QLinearConcat"}


_feed = qdq_harness.feed
_ort_kinds = partial(qdq_harness.ort_kinds, fused=FUSED)
_intdot_kinds = partial(qdq_harness.intdot_kinds, fused=FUSED)
_same_bits = partial(qdq_harness.same_bits, only="y")


@pytest.fixture(autouse=True)
def _oracle():
    ort.need()


def concat_qdq(
    shapes=((1, 4, 5, 5), (1, 6, 5, 5)),
    *,
    axis=1,
    dtypes=(U8, U8, U8),
    scales=(0.05, 0.03, 0.04),
    zps=(None, None, None),
    x_axis=None,
    after=None,
    extra_reader=False,
    scale_input=False,
    one_element=None,
    const_input=None,
    float_input=False,
):
    """x_k -> Q -> DQ for each shape (the last dtype/scale/zp are the output's) -> Concat [-> after] -> Q -> DQ.

    ``x_axis``: x0's pair per channel along that axis; ``one_element``: a parameter name (s0, z0, ..., the output's
    s{n}, z{n}) given as a 1-element 1-D tensor; ``const_input``: codes for input 0 as a constant DQ;
    ``float_input``: the last input is a plain float graph input, not dequantized."""
    from onnx import helper

    n = len(shapes)
    channels = None if x_axis is None else shapes[0][x_axis]
    inits, graph_in = qdq_harness.pairs(
        dtypes, scales, zps, channels=channels, one_element=one_element, scale_input=scale_input
    )
    ax = {} if x_axis is None else {"axis": x_axis}
    nodes, cat_in = [], []
    for k, shape in enumerate(shapes):
        if k == n - 1 and float_input:
            graph_in.append(helper.make_tensor_value_info(f"x{k}", 1, list(shape)))
            cat_in.append(f"x{k}")
            continue
        if k == 0 and const_input is not None:
            inits["c0"] = const_input
            nodes.append(helper.make_node("DequantizeLinear", ["c0", "s0", "z0"], ["d0"], **ax))
        else:
            graph_in.append(helper.make_tensor_value_info(f"x{k}", 1, list(shape)))
            nodes += qdq_harness.q_dq(f"x{k}", k, f"d{k}", axis=x_axis if k == 0 else None)
        cat_in.append(f"d{k}")
    nodes.append(helper.make_node("Concat", cat_in, ["t"], name="concat", axis=axis))
    tail, outputs = qdq_harness.output_tail(n, after=after, extra_reader=extra_reader, q="qy")
    return qdq_harness.make_model(nodes + tail, graph_in, outputs, inits)


C = ["QLinearConcat"]
THREE = ((2, 3, 4), (2, 5, 4), (2, 1, 4))

RULES = {
    "uint8, two inputs": (concat_qdq(), C),
    "uint8, three inputs, last axis": (
        concat_qdq(
            ((2, 4, 3), (2, 4, 5), (2, 4, 1)),
            axis=-1,
            dtypes=(U8,) * 4,
            scales=(0.05, 0.03, 0.04, 0.045),
            zps=(None,) * 4,
        ),
        C,
    ),
    "one input's parameters equal the output's (copied)": (
        concat_qdq(scales=(0.04, 0.03, 0.04), zps=(120, 131, 120)),
        C,
    ),
    "int8 (moved to uint8)": (concat_qdq(dtypes=(I8, I8, I8), zps=(3, -7, 5)), C),
    "int8 and uint8 inputs (the int8 pair moved)": (concat_qdq(dtypes=(I8, U8, U8)), C),
    "zero points not the middle": (concat_qdq(zps=(3, 250, 17)), C),
    "scale a graph input": (concat_qdq(scale_input=True), C),
    "constant codes": (concat_qdq(const_input=np.arange(100, dtype=U8).reshape(1, 4, 5, 5)), C),
    "x scale of shape (1,)": (concat_qdq(one_element="s0"), C),
    "y zero point of shape (1,)": (concat_qdq(one_element="z2"), C),
    "redundant Relu (zero point 0)": (concat_qdq(after="Relu", zps=(None, None, 0)), C),
    "Relu kept (zero point 128)": (concat_qdq(after="Relu"), []),
    "output also a graph output": (concat_qdq(extra_reader=True), []),
    "an input not dequantized": (concat_qdq(float_input=True), []),
}


@pytest.mark.parametrize("name", list(RULES))
def test_groups_fused_as_onnx_runtime_fuses_them(name, tmp_path):
    model, want = RULES[name]
    assert _ort_kinds(model, tmp_path) == want, "ONNX Runtime changed: update the rule"
    assert _intdot_kinds(model) == want
    _same_bits(model)


def test_qdqisint8allowed(tmp_path):
    """With int8 allowed nothing is moved: an int8 group is fused as int8, one mixing int8 and uint8 not."""
    for dtypes, want in (((I8, I8, I8), C), ((I8, U8, U8), []), ((U8, U8, I8), [])):
        model = concat_qdq(dtypes=dtypes)
        assert _ort_kinds(model, tmp_path, int8_allowed=True) == want
        assert _intdot_kinds(model, int8_allowed=True) == want
        _same_bits(model, int8_allowed=True)


@pytest.mark.parametrize("dtype", [U8, I8])
def test_fused_bits_on_many_values(dtype):
    """Three inputs of 64 x 16 x 16 values under random scales (some equal to the output's) and zero points."""
    rng = np.random.default_rng(5 + (dtype == I8))
    info = np.iinfo(dtype)
    for k in range(3):
        scales = [float(np.exp(rng.uniform(-4, -1))) for _ in range(4)]
        zps = [int(rng.integers(info.min // 2, info.max // 2)) for _ in range(4)]
        if k == 1:
            scales[0], zps[0] = scales[3], zps[3]
        shapes = ((1, 64, 16, 16), (1, 32, 16, 16), (1, 16, 16, 16))
        _same_bits(concat_qdq(shapes, dtypes=(dtype,) * 4, scales=tuple(scales), zps=tuple(zps)), seed=k)


def _qoperator(dtype):
    """A QOperator model: x (constant-parameter input) and a constant tensor concatenated by QLinearConcat."""
    from onnx import helper

    mid = 0 if dtype == I8 else 128
    inits = {
        "sy": F32(0.03),
        "zy": np.array(mid + 2, dtype),
        "sx": F32(0.05),
        "zx": np.array(mid - 9, dtype),
        "c": (np.arange(-20, 20).reshape(1, 40) + mid).astype(dtype),
        "sc": F32(0.03),
        "zc": np.array(mid + 2, dtype),
    }
    node = helper.make_node(
        "QLinearConcat", ["sy", "zy", "x", "sx", "zx", "c", "sc", "zc"], ["y"], domain="com.microsoft", axis=0
    )
    elem = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    graph_in = [helper.make_tensor_value_info("x", elem, [16, 40])]
    outputs = [helper.make_tensor_value_info("y", elem, None)]
    return qdq_harness.make_model([node], graph_in, outputs, inits, microsoft=True)


@pytest.mark.parametrize("dtype", [U8, I8])
def test_qoperator_models_run(dtype):
    model = _qoperator(dtype)
    info = np.iinfo(dtype)
    x = np.random.default_rng(1).integers(info.min, info.max + 1, (16, 40)).astype(dtype)
    want = ort.session(model).run(None, {"x": x})[0]
    np.testing.assert_array_equal(quant.run(model, x, op="usdot", platform=ort.platform())["y"], want)
