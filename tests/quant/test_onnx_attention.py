"""ONNX's Attention (opset 23 and 24) against ONNX Runtime's CPU kernel, bit for bit, through ``run``: 4-D and 3-D
inputs, grouped K/V heads, past K and V, bool and float masks, causality, softcap, a given scale, every
``qk_matmul_output_mode``, ``nonpad_kv_seqlen``; on this machine's platform (x86, or under INTDOT_ORT=arm ONNX
Runtime for AArch64)."""

import numpy as np
import pytest
from onnx import TensorProto, helper

from intdot import quant
from intdot.core.errors import OperandError
from intdot.quant.onnx_attention import attention

from . import ort
from .test_layer_norm import _same

F32 = np.float32


def _model(feeds, outputs, attrs, opset):
    names = [n if n in feeds else "" for n in ("q", "k", "v", "mask", "pk", "pv", "nonpad")]
    while names[-1] == "":
        names.pop()
    node = helper.make_node("Attention", names, outputs, **attrs)

    def kind(name):
        if name == "nonpad":
            return TensorProto.INT64
        return TensorProto.BOOL if feeds[name].dtype == np.bool_ else TensorProto.FLOAT

    ins = [helper.make_tensor_value_info(n, kind(n), None) for n in names if n]
    outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in outputs]
    graph = helper.make_graph([node], "attention", ins, outs)
    return helper.make_model(graph, ir_version=11, opset_imports=[helper.make_opsetid("", opset)])


_CASES = {  # (batch, heads, kv heads, S, L, head, past), given, attributes
    "plain": ((2, 4, 4, 5, 5, 16, 0), (), {}),
    "grouped heads, head 24": ((2, 4, 2, 5, 5, 24, 0), (), {}),
    "3-D": ((2, 4, 2, 5, 7, 16, 0), ("3-D",), {}),
    "3-D, head 40": ((1, 2, 2, 3, 5, 40, 0), ("3-D",), {}),
    "causal": ((1, 2, 2, 5, 5, 16, 0), (), {"is_causal": 1}),
    "causal after a past": ((1, 2, 1, 3, 3, 16, 4), (), {"is_causal": 1}),
    "one row after a past": ((1, 2, 2, 1, 9, 16, 3), (), {"is_causal": 1}),
    "bool mask": ((2, 2, 2, 4, 6, 16, 0), ("bool mask",), {}),
    "float mask (S, T)": ((1, 2, 2, 4, 6, 16, 0), ("float mask",), {}),
    "bool mask per head, causal": ((2, 2, 2, 4, 4, 16, 0), ("bool mask per head",), {"is_causal": 1}),
    "a row masked whole (zeros)": ((2, 2, 2, 3, 5, 16, 0), ("bool mask", "row masked"), {}),
    "softcap": ((1, 2, 2, 6, 6, 16, 0), (), {"softcap": 3.0}),
    "softcap, float mask": ((1, 2, 2, 6, 6, 16, 0), ("float mask",), {"softcap": 3.0}),
    "scale": ((1, 2, 2, 3, 6, 16, 0), (), {"scale": 0.3}),
    "nonpad_kv_seqlen": ((2, 2, 2, 1, 6, 16, 0), ("nonpad",), {}),
}


def _feeds(b, n, nkv, s, length, head, past, given, seed):
    rng = np.random.default_rng(seed)
    if "3-D" in given:
        feeds = {"q": rng.standard_normal((b, s, n * head)), "k": rng.standard_normal((b, length, nkv * head)),
                 "v": rng.standard_normal((b, length, nkv * head))}  # fmt: skip
    else:
        feeds = {"q": rng.standard_normal((b, n, s, head)), "k": rng.standard_normal((b, nkv, length, head)),
                 "v": rng.standard_normal((b, nkv, length, head))}  # fmt: skip
    feeds = {k: v.astype(F32) for k, v in feeds.items()}
    t = past + length
    if "bool mask" in given:
        feeds["mask"] = rng.random((b, 1, s, t)) < 0.8
    if "row masked" in given:
        feeds["mask"][..., 1, :] = False
    if "bool mask per head" in given:
        feeds["mask"] = rng.random((b, n, s, t)) < 0.8
    if "float mask" in given:
        feeds["mask"] = (rng.standard_normal((s, t)) * 2).astype(F32)
    if past:
        feeds |= {name: rng.standard_normal((b, nkv, past, head)).astype(F32) for name in ("pk", "pv")}
    if "nonpad" in given:
        feeds["nonpad"] = rng.integers(1, t + 1, b).astype(np.int64)
    return feeds


@pytest.mark.parametrize("case", list(_CASES))
def test_attention_as_onnx_runtime(case):
    ort.need()
    (b, n, nkv, s, length, head, past), given, attrs = _CASES[case]
    feeds = _feeds(b, n, nkv, s, length, head, past, given, seed=len(case))
    if "3-D" in given:
        attrs = {**attrs, "q_num_heads": n, "kv_num_heads": nkv}
    outputs = ["y", "present_key", "present_value"]
    model = _model(feeds, outputs, attrs, 24 if "nonpad" in feeds else 23)
    want = ort.session(model, neon=True).run(None, feeds)
    got = quant.run(model, feeds, op="sdot4", platform=ort.platform())
    for name, w in zip(outputs, want):
        _same(got[name], w, (case, name))


@pytest.mark.parametrize("softcap", [0.0, 2.0])
@pytest.mark.parametrize("mode", [0, 1, 2, 3])
def test_qk_matmul_output_as_onnx_runtime(mode, softcap):
    """The scores as the SGEMM gives them (0), after softcap (1), after the mask (2), after softmax (3); where the
    mask is not folded into the SGEMM the output's bits change too."""
    ort.need()
    feeds = _feeds(1, 2, 2, 4, 6, 16, 0, ("float mask",), seed=mode)
    outputs = ["y", "present_key", "present_value", "qk"]
    model = _model(feeds, outputs, {"qk_matmul_output_mode": mode, "softcap": softcap}, 23)
    want = ort.session(model, neon=True).run(None, feeds)
    got = quant.run(model, feeds, op="sdot4", platform=ort.platform())
    for name, w in zip(outputs, want):
        _same(got[name], w, (mode, softcap, name))


def test_bad_input_is_named():
    q = np.ones((1, 2, 3, 8), F32)
    with pytest.raises(OperandError, match=r"Q, K and V have shapes \(1, 2, 3, 8\), \(1, 3, 3, 8\)"):
        attention(q, np.ones((1, 3, 3, 8), F32), np.ones((1, 3, 3, 8), F32))
    with pytest.raises(OperandError, match=r"attn_mask has shape \(3, 4\): expected \(S, T\)"):
        attention(q, q, q, np.ones((3, 4), bool))
    with pytest.raises(OperandError, match="q_num_heads=0 and kv_num_heads=0: expected both"):
        attention(q[0], q[0], q[0])
    with pytest.raises(OperandError, match=r"nonpad_kv_seqlen=\[9\]"):
        attention(q, q, q, nonpad_kv_seqlen=np.array([9], np.int64))
