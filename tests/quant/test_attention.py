"""``com.microsoft`` Attention (the multi-head self-attention node ONNX Runtime's transformer optimizer writes for
BERT-like models) against ONNX Runtime's CPU kernel, bit for bit, through ``run``: its SGEMMs (the weights packed
or not, K in one block or several), every mask form, causal attention, one row; on this machine's platform (x86, or
under INTDOT_ORT=arm ONNX Runtime for AArch64 on a NEON CPU)."""

import numpy as np
import pytest
from onnx import TensorProto

from intdot import quant
from intdot.core.errors import OperandError
from intdot.quant.attention import attention, multihead_attention

from . import ort
from .test_layer_norm import _same

F32 = np.float32


def _inputs(b, s, d, mask, seed=0):
    rng = np.random.default_rng(seed + s + d)
    x = rng.standard_normal((b, s, d)).astype(F32)
    w = (rng.standard_normal((d, 3 * d)) * 0.1).astype(F32)
    bias = (rng.standard_normal(3 * d) * 0.1).astype(F32)
    masks = {"none": None, "end positions": rng.integers(1, s + 1, b).astype(np.int32),
             "2-D": (rng.random((b, s)) < 0.7).astype(np.int32),
             "3-D": (rng.random((b, s, s)) < 0.7).astype(np.int32)}  # fmt: skip
    m = masks[mask]
    if m is not None and m.ndim > 1:
        m[..., 0] = 1
    return [x, w, bias, m]


@pytest.mark.parametrize("shape", [(1, 8, 32, 4), (2, 5, 40, 2), (1, 1, 24, 3), (2, 7, 300, 4)])
@pytest.mark.parametrize("mask", ["none", "end positions", "2-D", "3-D"])
@pytest.mark.parametrize("causal,weights_constant", [(0, True), (1, True), (0, False)])
def test_attention_as_onnx_runtime(shape, mask, causal, weights_constant):
    ort.need()
    b, s, d, heads = shape
    inputs = _inputs(b, s, d, mask)
    const = (1, 2) if weights_constant else (2,)
    attrs = {"num_heads": heads, "unidirectional": causal}
    model = ort.node_model("Attention", inputs, attrs, TensorProto.FLOAT, opset=17, const=const,
                           domain="com.microsoft")  # fmt: skip
    feeds = {f"in{i}": v for i, v in enumerate(inputs) if v is not None and i not in const}
    want = ort.session(model, neon=True).run(None, feeds)[0]
    got = quant.run(model, feeds, op="sdot4", platform=ort.platform())["y"]
    _same(got, want, (shape, mask, causal, weights_constant))


def test_attention_scale_and_mask_filter_value():
    """A given ``scale`` replaces ``1 / sqrt(head_size)``, a given ``mask_filter_value`` -10000."""
    ort.need()
    inputs = _inputs(2, 6, 32, "2-D", seed=3)
    attrs = {"num_heads": 2, "scale": 0.3, "mask_filter_value": -1e4 * 3}
    model = ort.node_model("Attention", inputs, attrs, TensorProto.FLOAT, opset=17, const=(1, 2),
                           domain="com.microsoft")  # fmt: skip
    feeds = {"in0": inputs[0], "in3": inputs[3]}
    want = ort.session(model, neon=True).run(None, feeds)[0]
    _same(quant.run(model, feeds, op="sdot4", platform=ort.platform())["y"], want, attrs)


def test_bad_input_is_named():
    x, w, bias, _ = _inputs(1, 4, 24, "none")
    with pytest.raises(OperandError, match="num_heads=5: expected a positive divisor of the hidden size 24"):
        attention(x, w, bias, num_heads=5)
    with pytest.raises(OperandError, match=r"mask_index has shape \(3,\): expected \(1,\)"):
        attention(x, w, bias, np.ones(3, np.int32), num_heads=2)
    with pytest.raises(OperandError, match=r"expected \(B, S, D\) and \(D, 3H\)"):
        attention(x[0], w, bias, num_heads=2)


def _q_inputs(b, s, d, weights_dtype, per_column, mask, seed=0):
    rng = np.random.default_rng(seed + s + d)
    x = rng.integers(0, 256, (b, s, d), dtype=np.uint8)
    signed = weights_dtype == np.int8
    w = (rng.integers(-128, 128, (d, 3 * d)) if signed else rng.integers(0, 256, (d, 3 * d))).astype(weights_dtype)
    bias = (rng.standard_normal(3 * d) * 0.1).astype(F32)
    w_scale = (rng.random(3 * d) * 0.01 + 0.001).astype(F32) if per_column else np.array(0.003, F32)
    m = None if mask == "none" else rng.integers(1, s + 1, b).astype(np.int32)
    w_zp = np.array(rng.integers(-10, 10) if signed else rng.integers(120, 136), weights_dtype)
    return [x, w, bias, np.array(0.02, F32), w_scale, m, np.array(rng.integers(0, 256), np.uint8), w_zp]


@pytest.mark.parametrize("shape", [(1, 8, 32, 4), (2, 5, 300, 2)])
@pytest.mark.parametrize("weights_dtype", [np.int8, np.uint8])
@pytest.mark.parametrize("per_column", [False, True])
@pytest.mark.parametrize("mask", ["none", "end positions"])
def test_qattention_as_onnx_runtime(shape, weights_dtype, per_column, mask):
    """QAttention: each head's integer products (on the instruction, here usdot and sdot4), times the two scales'
    product plus the bias (fused on Arm), then the attention."""
    ort.need()
    b, s, d, heads = shape
    inputs = _q_inputs(b, s, d, weights_dtype, per_column, mask)
    const = (1, 2, 3, 4, 6, 7)
    model = ort.node_model("QAttention", inputs, {"num_heads": heads}, TensorProto.FLOAT, opset=17, const=const,
                           domain="com.microsoft")  # fmt: skip
    feeds = {f"in{i}": v for i, v in enumerate(inputs) if v is not None and i not in const}
    want = ort.session(model, neon=True).run(None, feeds)[0]
    for op in ("usdot", "sdot4"):
        _same(quant.run(model, feeds, op=op, platform=ort.platform())["y"], want, (shape, mask, op))


def _attention_model(d, heads, s):
    """A float model: one Attention node on x (1, s, d), its weights and bias initializers."""
    from onnx import helper, numpy_helper

    rng = np.random.default_rng(d)
    inits = [numpy_helper.from_array((rng.standard_normal((d, 3 * d)) * 0.1).astype(F32), "w"),
             numpy_helper.from_array((rng.standard_normal(3 * d) * 0.1).astype(F32), "b")]  # fmt: skip
    node = helper.make_node("Attention", ["x", "w", "b"], ["y"], domain="com.microsoft", num_heads=heads)
    graph = helper.make_graph([node], "attention", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, s, d])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)  # fmt: skip
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
    return helper.make_model(graph, ir_version=10, opset_imports=opsets)


@pytest.mark.parametrize("weight_type", ["QInt8", "QUInt8"])
def test_quantize_dynamic_attention_end_to_end(weight_type, tmp_path):
    """An Attention model quantized by ``quantize_dynamic`` (DynamicQuantizeLinear and QAttention), through ``run``
    on two instructions, bit for bit."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    ort.need()
    onnx.save(_attention_model(64, 4, 6), tmp_path / "f.onnx")
    quantize_dynamic(tmp_path / "f.onnx", tmp_path / "q.onnx", weight_type=getattr(QuantType, weight_type),
                     op_types_to_quantize=["Attention"])  # fmt: skip
    model = onnx.load(tmp_path / "q.onnx")
    assert "QAttention" in [n.op_type for n in model.graph.node]
    x = np.random.default_rng(1).standard_normal((1, 6, 64)).astype(F32)
    want = ort.session(model, neon=True).run(None, {"x": x})[0]
    for op in ("usdot", "vpdpbusd"):
        _same(quant.run(model, {"x": x}, op=op, platform=ort.platform())["y"], want, (weight_type, op))


def _decoder_model(d, heads, causal, with_mask, with_past):
    """An Attention node with its state: outputs ``y`` and ``present``, inputs x (and mask, past) fed."""
    from onnx import helper, numpy_helper

    rng = np.random.default_rng(d)
    w = (rng.standard_normal((d, 3 * d)) * 0.1).astype(F32)
    bias = (rng.standard_normal(3 * d) * 0.1).astype(F32)
    names = ["x", "w", "b", "mask" if with_mask else "", "past" if with_past else ""]
    while names[-1] == "":
        names.pop()
    node = helper.make_node("Attention", names, ["y", "present"], domain="com.microsoft", num_heads=heads,
                            unidirectional=causal)  # fmt: skip
    ins = [helper.make_tensor_value_info("x", TensorProto.FLOAT, None)]
    ins += [helper.make_tensor_value_info("mask", TensorProto.INT32, None)] if with_mask else []
    ins += [helper.make_tensor_value_info("past", TensorProto.FLOAT, None)] if with_past else []
    outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in ("y", "present")]
    graph = helper.make_graph([node], "decoder", ins, outs, [numpy_helper.from_array(w, "w"),
                                                             numpy_helper.from_array(bias, "b")])  # fmt: skip
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
    return helper.make_model(graph, ir_version=10, opset_imports=opsets)


@pytest.mark.parametrize("shape", [(2, 1, 3, 32, 4), (1, 4, 5, 40, 2), (2, 3, 0, 24, 3)])
@pytest.mark.parametrize("causal", [0, 1])
@pytest.mark.parametrize("mask", ["none", "end positions", "2-D"])
def test_attention_with_past_state_as_onnx_runtime(shape, causal, mask):
    """A decoder's step: the past state before this step's K and V (the ``present`` output, bit for bit), the mask
    over both, causal attention from the step's place (none for one row, as ONNX Runtime)."""
    ort.need()
    b, s, p, d, heads = shape
    rng = np.random.default_rng(s + p)
    model = _decoder_model(d, heads, causal, mask != "none", p > 0)
    feeds = {"x": rng.standard_normal((b, s, d)).astype(F32)}
    if p:
        feeds["past"] = rng.standard_normal((2, b, heads, p, d // heads)).astype(F32)
    if mask == "end positions":
        feeds["mask"] = rng.integers(1, p + s + 1, b).astype(np.int32)
    elif mask == "2-D":
        feeds["mask"] = (rng.random((b, p + s)) < 0.7).astype(np.int32)
        feeds["mask"][:, 0] = 1
    want = ort.session(model, neon=True).run(None, feeds)
    got = quant.run(model, feeds, op="sdot4", platform=ort.platform())
    for name, w in zip(("y", "present"), want):
        _same(got[name], w, (shape, causal, mask, name))


@pytest.mark.parametrize("bias_shape", ["(B, N, S, T)", "(1, N, S, T)", "(B, 1, S, T)"])
@pytest.mark.parametrize("mask", ["none", "end positions"])
def test_attention_bias_as_onnx_runtime(bias_shape, mask):
    """An additive attention bias, broadcast over batches or heads: added to the scaled scores after the product
    (which starts from the mask), one rounding."""
    from onnx import helper, numpy_helper

    ort.need()
    b, s, d, heads = 2, 5, 32, 4
    x, w, bias, m = _inputs(b, s, d, mask, seed=7)
    shape = {"(B, N, S, T)": (b, heads, s, s), "(1, N, S, T)": (1, heads, s, s), "(B, 1, S, T)": (b, 1, s, s)}
    ab = (np.random.default_rng(9).standard_normal(shape[bias_shape]) * 3).astype(F32)
    names = ["x", "w", "b", "mask" if m is not None else "", "", "ab"]
    node = helper.make_node("Attention", names, ["y"], domain="com.microsoft", num_heads=heads)
    ins = [helper.make_tensor_value_info(n, t, None) for n, t in (("x", TensorProto.FLOAT), ("ab", TensorProto.FLOAT))]
    ins += [helper.make_tensor_value_info("mask", TensorProto.INT32, None)] if m is not None else []
    graph = helper.make_graph([node], "g", ins, [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              [numpy_helper.from_array(w, "w"), numpy_helper.from_array(bias, "b")])  # fmt: skip
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
    model = helper.make_model(graph, ir_version=10, opset_imports=opsets)
    feeds = {"x": x, "ab": ab} | ({"mask": m} if m is not None else {})
    want = ort.session(model, neon=True).run(None, feeds)[0]
    _same(quant.run(model, feeds, op="sdot4", platform=ort.platform())["y"], want, (bias_shape, mask))


@pytest.mark.parametrize("shape", [(2, 1, 3, 32, 4), (1, 4, 5, 40, 2)])
@pytest.mark.parametrize("causal", [0, 1])
def test_qattention_with_past_state_as_onnx_runtime(shape, causal):
    """QAttention's decoder step: integer products on the instruction, the past state before this step's K and V,
    both outputs bit for bit."""
    from onnx import helper, numpy_helper

    ort.need()
    b, s, p, d, heads = shape
    rng = np.random.default_rng(s + p)
    inits = {"w": rng.integers(-128, 128, (d, 3 * d)).astype(np.int8),
             "b": (rng.standard_normal(3 * d) * 0.1).astype(F32), "isc": np.array(0.02, F32),
             "wsc": np.array(0.003, F32), "izp": np.array(130, np.uint8), "wzp": np.array(3, np.int8)}  # fmt: skip
    node = helper.make_node("QAttention", ["x", "w", "b", "isc", "wsc", "", "izp", "wzp", "past"], ["y", "present"],
                            domain="com.microsoft", num_heads=heads, unidirectional=causal)  # fmt: skip
    ins = [helper.make_tensor_value_info("x", TensorProto.UINT8, None),
           helper.make_tensor_value_info("past", TensorProto.FLOAT, None)]  # fmt: skip
    outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in ("y", "present")]
    graph = helper.make_graph([node], "g", ins, outs, [numpy_helper.from_array(v, k) for k, v in inits.items()])
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
    model = helper.make_model(graph, ir_version=10, opset_imports=opsets)
    feeds = {"x": rng.integers(0, 256, (b, s, d), dtype=np.uint8),
             "past": rng.standard_normal((2, b, heads, p, d // heads)).astype(F32)}  # fmt: skip
    want = ort.session(model, neon=True).run(None, feeds)
    got = quant.run(model, feeds, op="usdot", platform=ort.platform())
    for name, w in zip(("y", "present"), want):
        _same(got[name], w, (shape, causal, name))


def _mha_model(names, outputs, heads, causal):
    """One MultiHeadAttention node; ``names`` its inputs in order ("" for an absent one), all fed."""
    from onnx import helper

    node = helper.make_node("MultiHeadAttention", names, outputs, domain="com.microsoft", num_heads=heads,
                            unidirectional=causal)  # fmt: skip
    kinds = {"mask": TensorProto.INT32}
    ins = [helper.make_tensor_value_info(n, kinds.get(n, TensorProto.FLOAT), None) for n in names if n]
    outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in outputs]
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
    return helper.make_model(helper.make_graph([node], "mha", ins, outs), ir_version=10, opset_imports=opsets)


_MHA_CASES = {  # (batch, S, L, hidden, heads, past P): what is given, causal
    "bias, present": ((2, 3, 5, 32, 2, 0), {"bias", "present"}, 0),
    "end positions": ((2, 3, 5, 32, 4, 0), {"end positions"}, 0),
    "2-D mask, bias": ((2, 4, 6, 40, 2, 0), {"2-D", "bias"}, 0),
    "attention bias": ((2, 3, 5, 24, 3, 0), {"attention bias"}, 0),
    "causal": ((1, 5, 5, 32, 4, 0), set(), 1),
    "past, present": ((2, 1, 1, 32, 4, 3), {"present", "bias"}, 1),
    "past, mask, present": ((1, 2, 2, 300, 4, 4), {"present", "2-D"}, 0),
    "cross-attention cache, bias": ((2, 3, 6, 32, 4, 0), {"cache", "bias", "end positions", "present"}, 0),
    "cache, 2-D mask": ((2, 1, 4, 32, 2, 0), {"cache", "2-D"}, 0),
}


@pytest.mark.parametrize("case", list(_MHA_CASES))
def test_multihead_attention_as_onnx_runtime(case):
    """MultiHeadAttention (Q, K and V projected already; K and V of their own length, or a cross-attention cache):
    each plus its bias, then attended as Attention's, its present K and V bit for bit."""
    ort.need()
    (b, s, length, d, heads, p), given, causal = _MHA_CASES[case]
    head, rng = d // heads, np.random.default_rng(s + length + d)
    feeds = {n: rng.standard_normal((b, t, d)).astype(F32) for n, t in (("q", s), ("k", length), ("v", length))}
    if "bias" in given:
        feeds["bias"] = (rng.standard_normal(3 * d) * 0.5).astype(F32)
    if "end positions" in given:
        feeds["mask"] = rng.integers(1, p + length + 1, b).astype(np.int32)
    if "2-D" in given:
        feeds["mask"] = (rng.random((b, p + length)) < 0.7).astype(np.int32)
        feeds["mask"][:, 0] = 1
    if "attention bias" in given:
        feeds["ab"] = (rng.standard_normal((b, heads, s, p + length)) * 3).astype(F32)
    if p:
        feeds |= {n: rng.standard_normal((b, heads, p, head)).astype(F32) for n in ("pk", "pv")}
    if "cache" in given:  # K and V (B, N, L, head): ONNX Runtime adds no bias to them
        feeds |= {n: np.ascontiguousarray(feeds[n].reshape(b, length, heads, head).transpose(0, 2, 1, 3))
                  for n in ("k", "v")}  # fmt: skip
    names = [n if n in feeds else "" for n in ("q", "k", "v", "bias", "mask", "ab", "pk", "pv")]
    while names[-1] == "":
        names.pop()
    outputs = ["y", "present_k", "present_v"] if "present" in given else ["y"]
    model = _mha_model(names, outputs, heads, causal)
    want = ort.session(model, neon=True).run(None, feeds)
    got = quant.run(model, feeds, op="sdot4", platform=ort.platform())
    for name, w in zip(outputs, want):
        _same(got[name], w, (case, name))


_FLASH_CASES = {  # (batch, S, L, hidden, heads), bias: one block, one row, keys past a block, a last row alone
    "one block": ((2, 3, 5, 32, 2), False),
    "one row, bias": ((1, 1, 7, 64, 4), True),
    "keys past a block": ((1, 40, 600, 128, 2), True),
    "query rows past a block": ((1, 257, 20, 512, 2), False),
}


@pytest.mark.parametrize("case", list(_FLASH_CASES))
def test_multihead_attention_flash_path_as_onnx_runtime(case):
    """Without a mask, attention bias, causality, past or present outputs ONNX Runtime's MultiHeadAttention takes
    MLAS's flash attention, blocked by the L2 cache size it reads on this machine (intdot's default): bit for bit,
    and other bits at another L2 size where the keys pass a block."""
    from intdot.quant.flash import l2_cache_size

    ort.need()
    (b, s, length, d, heads), bias = _FLASH_CASES[case]
    rng = np.random.default_rng(s + length + d)
    feeds = {n: rng.standard_normal((b, t, d)).astype(F32) for n, t in (("q", s), ("k", length), ("v", length))}
    if bias:
        feeds["bias"] = rng.standard_normal(3 * d).astype(F32)
    model = _mha_model(list(feeds), ["y"], heads, 0)
    want = ort.session(model, neon=True).run(None, feeds)[0]
    _same(quant.run(model, feeds, op="sdot4", platform=ort.platform())["y"], want, case)
    if length > l2_cache_size() // (32 * (d // heads)) > 0:
        other = quant.run(model, feeds, op="sdot4", platform=ort.platform(), l2_cache_size=2 * l2_cache_size())
        assert not np.array_equal(other["y"], want)


def test_multihead_attention_bad_input_is_named():
    rng = np.random.default_rng(0)
    q = rng.standard_normal((1, 3, 16)).astype(F32)
    with pytest.raises(OperandError, match=r"query, key and value have shapes \(1, 3, 16\), \(3, 16\)"):
        multihead_attention(q, q[0], q[0], num_heads=2, with_present=True)
    with pytest.raises(OperandError, match=r"bias has shape \(16,\): expected \(48,\)"):
        multihead_attention(q, q, q, q[0, 0], num_heads=2, with_present=True)
    with pytest.raises(OperandError, match=r"key and value have shape \(1, 4, 3, 4\): expected \(1, 2, L, 8\)"):
        multihead_attention(q, q.reshape(1, 4, 3, 4), q.reshape(1, 4, 3, 4), num_heads=2, with_present=True)
    cache = q.reshape(1, 3, 2, 8).transpose(0, 2, 1, 3)
    with pytest.raises(OperandError, match="past_key and past_value with a cross-attention cache"):
        multihead_attention(q, cache, cache, past_key=cache, past_value=cache, num_heads=2, with_present=True)
    with pytest.raises(OperandError, match=r"past_key and past_value have shapes \(1, 2, 2, 8\) and \(1, 2, 3, 8\)"):
        past = np.ones((1, 2, 5, 8), F32)
        multihead_attention(q, q, q, past_key=past[:, :, :2], past_value=past[:, :, :3], num_heads=2, with_present=True)
    with pytest.raises(OperandError, match="past_key and past_value: expected both or neither"):
        multihead_attention(q, q, q, past_key=q[None], num_heads=2, with_present=True)


def test_on_an_x86_cpu_without_avx512():
    """QEMU's Haswell CPU (AVX2, FMA3): Attention with its FMA3 softmax (``platform="x86-avx2"``), and QAttention
    whose uint8 x int8 products ONNX Runtime computes with ``vpmaddubsw``, saturating pairs of products to int16:
    run through that instruction its bits come out, through an exact one they do not."""
    from ..oracles import x86_ort

    x86_ort.require()
    inputs = _inputs(2, 5, 40, "2-D")
    model = ort.node_model("Attention", inputs, {"num_heads": 2}, TensorProto.FLOAT, opset=17, const=(1, 2),
                           domain="com.microsoft")  # fmt: skip
    feeds = {"in0": inputs[0], "in3": inputs[3]}
    want = x86_ort.Session(model.SerializeToString()).run(None, feeds)[0]
    _same(quant.run(model, feeds, op="sdot4", platform="x86-avx2")["y"], want, "Attention")
    q_inputs = _q_inputs(2, 5, 40, np.int8, True, "none")
    model = ort.node_model("QAttention", q_inputs, {"num_heads": 2}, TensorProto.FLOAT, opset=17,
                           const=(1, 2, 3, 4, 6, 7), domain="com.microsoft")  # fmt: skip
    want = x86_ort.Session(model.SerializeToString()).run(None, {"in0": q_inputs[0]})[0]
    _same(quant.run(model, {"in0": q_inputs[0]}, op="vpmaddubsw", platform="x86-avx2")["y"], want, "QAttention")
    exact = quant.run(model, {"in0": q_inputs[0]}, op="usdot", platform="x86-avx2")["y"]
    assert not np.array_equal(exact, want)
