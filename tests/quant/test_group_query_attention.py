"""``com.microsoft`` GroupQueryAttention (the attention node of ONNX Runtime GenAI's language models) and
RotaryEmbedding against ONNX Runtime's CPU kernels, bit for bit, through ``run``: the flash kernel (prompt and
decode, one block and several), the classic path (no present outputs, a ``qk`` output, smooth softmax, head sinks),
dynamic and static caches, packed Q/K/V, rotary (halves and interleaved, a partial rotary dimension), local
windows, attention bias; on this machine's platform (x86, or under INTDOT_ORT=arm ONNX Runtime for AArch64)."""

import numpy as np
import pytest
from onnx import TensorProto, helper

from intdot import quant
from intdot.core.errors import OperandError
from intdot.quant.flash import l2_cache_size
from intdot.quant.group_query_attention import group_query_attention

from . import ort
from .test_layer_norm import _same

F32 = np.float32
_INPUTS = ("q", "k", "v", "pk", "pv", "seqlens_k", "total", "cos", "sin", "pos", "bias", "sink", "ks", "vs")


def _model(feeds, outputs, attrs):
    names = [n if n in feeds else "" for n in _INPUTS]
    while names[-1] == "":
        names.pop()
    node = helper.make_node("GroupQueryAttention", names, outputs, domain="com.microsoft", **attrs)
    kinds = {"seqlens_k": TensorProto.INT32, "total": TensorProto.INT32, "pos": TensorProto.INT64}
    ins = [helper.make_tensor_value_info(n, kinds.get(n, TensorProto.FLOAT), None) for n in names if n]
    outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in outputs]
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
    return helper.make_model(helper.make_graph([node], "gqa", ins, outs), ir_version=10, opset_imports=opsets)


def _feeds(b, s, n, nkv, head, past, cache="dynamic", given=(), seed=0, totals=None):
    """Inputs for one node: ``past`` rows of cache before this step's ``s``; a static cache is a buffer of
    ``past + s + 2`` rows; ``totals`` each batch's total (default: all full)."""
    rng = np.random.default_rng(seed + 7 * s + past + head)
    feeds = {}
    if "packed" in given:
        feeds["q"] = rng.standard_normal((b, s, (n + 2 * nkv) * head)).astype(F32)
    else:
        feeds["q"] = rng.standard_normal((b, s, n * head)).astype(F32)
        feeds |= {t: rng.standard_normal((b, s, nkv * head)).astype(F32) for t in ("k", "v")}
    rows = past + s + 2 if cache == "static" else past
    if rows:
        feeds |= {t: rng.standard_normal((b, nkv, rows, head)).astype(F32) for t in ("pk", "pv")}
    total = past + s
    totals = np.full(b, total) if totals is None else np.asarray(totals)
    feeds["seqlens_k"] = (totals - 1).astype(np.int32)
    feeds["total"] = np.array(total, np.int32)
    if "rotary" in given:
        half = head // 2 if "partial" not in given else head // 4
        angles = rng.uniform(0, 6, (total + 4, half))
        feeds["cos"], feeds["sin"] = np.cos(angles).astype(F32), np.sin(angles).astype(F32)
    if "positions" in given:  # on a first prompt ONNX Runtime reads the first as every batch's base
        feeds["pos"] = rng.integers(0, past + 4, (b, s)).astype(np.int64)
    if "bias" in given:
        feeds["bias"] = (rng.standard_normal((b, n, s, total)) * 2).astype(F32)
    if "sink" in given:
        feeds["sink"] = rng.standard_normal(n).astype(F32)
    return feeds


def _as_onnx_runtime(feeds, outputs, attrs, what, **options):
    """One node built from ``feeds`` and ``attrs``, run by ONNX Runtime and by ``run`` (``options`` passed on to
    it), every output bit for bit; returns ONNX Runtime's outputs."""
    model = _model(feeds, outputs, attrs)
    want = ort.session(model, neon=True).run(None, feeds)
    got = quant.run(model, feeds, op="sdot4", platform=ort.platform(), **options)
    for name, w in zip(outputs, want):
        _same(got[name], w, (what, name))
    return model, want


_CASES = {  # (batch, S, heads, kv heads, head, past rows), given, attributes, outputs
    "prompt": ((2, 5, 4, 2, 16, 0), (), {}, 3),
    "decode": ((2, 1, 4, 2, 24, 9), (), {}, 3),
    "decode, one kv head": ((1, 1, 8, 1, 32, 6), (), {}, 3),
    "continued prompt": ((1, 3, 4, 2, 8, 5), (), {}, 3),
    "prompt, classic (no present)": ((2, 4, 4, 2, 16, 0), (), {}, 1),
    "decode, classic (qk output)": ((2, 1, 4, 2, 16, 6), (), {"qk_output": 1}, 4),
    "qk before softmax": ((1, 4, 2, 1, 16, 2), (), {"qk_output": 1}, 4),
    "qk after softmax": ((1, 4, 2, 1, 16, 2), (), {"qk_output": 2}, 4),
    "packed": ((1, 3, 4, 2, 8, 4), ("packed",), {}, 3),
    "packed prompt": ((2, 3, 4, 2, 8, 0), ("packed",), {}, 3),
    "rotary": ((2, 4, 4, 2, 16, 0), ("rotary",), {"do_rotary": 1}, 3),
    "rotary, decode": ((2, 1, 4, 2, 16, 7), ("rotary",), {"do_rotary": 1}, 3),
    "rotary interleaved": ((1, 3, 2, 2, 32, 3), ("rotary",), {"do_rotary": 1, "rotary_interleaved": 1}, 3),
    "rotary partial, packed": ((1, 2, 4, 2, 32, 3), ("rotary", "partial", "packed"), {"do_rotary": 1}, 3),
    "position ids, prompt": ((2, 4, 4, 2, 16, 0), ("rotary", "positions"), {"do_rotary": 1}, 3),
    "position ids, decode": ((2, 1, 4, 2, 16, 5), ("rotary", "positions"), {"do_rotary": 1}, 3),
    "local window": ((1, 6, 2, 1, 16, 0), (), {"local_window_size": 3}, 3),
    "local window, decode": ((1, 1, 2, 1, 16, 8), (), {"local_window_size": 4}, 3),
    "local window, classic": ((1, 6, 2, 1, 16, 0), (), {"local_window_size": 3}, 1),
    "attention bias": ((1, 3, 4, 2, 8, 2), ("bias",), {}, 3),
    "attention bias, decode": ((1, 1, 4, 2, 8, 5), ("bias",), {}, 3),
    "attention bias, classic": ((2, 3, 4, 2, 8, 0), ("bias",), {}, 1),
    "smooth softmax": ((1, 4, 2, 1, 16, 1), (), {"smooth_softmax": 1}, 3),
    "head sink": ((1, 3, 4, 2, 16, 2), ("sink",), {}, 3),
    "scale": ((1, 3, 2, 2, 8, 1), (), {"scale": 0.3}, 3),
    "softcap": ((1, 40, 4, 2, 32, 0), ("bias",), {"softcap": 2.5, "qk_output": 1}, 4),
    "softcap, decode": ((2, 1, 4, 2, 64, 30), (), {"softcap": 1.5}, 3),
}


@pytest.mark.parametrize("case", list(_CASES))
def test_group_query_attention_as_onnx_runtime(case):
    ort.need()
    (b, s, n, nkv, head, past), given, attrs, count = _CASES[case]
    feeds = _feeds(b, s, n, nkv, head, past, given=given)
    outputs = ["y", "present_k", "present_v", "qk"][:count]
    _as_onnx_runtime(feeds, outputs, {"num_heads": n, "kv_num_heads": nkv, **attrs}, case)


@pytest.mark.parametrize("case", ["decode", "prompt"])
def test_static_cache_with_batches_of_their_own_length(case):
    """A static cache (a buffer longer than the total), each batch at its own length (``seqlens_k``; ONNX
    Runtime takes several new rows after a past in one batch only)."""
    ort.need()
    s, b = (1, 3) if case == "decode" else (3, 1)
    feeds = _feeds(b, s, 4, 2, 16, 6, cache="static", totals=[7, 6 + s, 5][:b] if b > 1 else [8])
    _as_onnx_runtime(feeds, ["y", "present_k", "present_v"], {"num_heads": 4, "kv_num_heads": 2}, case)


@pytest.mark.parametrize("variant", ["rotary", "window and bias"])
def test_flash_blocks_follow_the_l2_cache(variant):
    """A prompt longer than the flash kernel's block (``L2 / (32 head)`` positions): ONNX Runtime's bits need the
    L2 size it reads on this machine (the default); another size gives other bits."""
    ort.need()
    head = 128
    block = max(l2_cache_size() // (32 * head), 1)
    s = min(block + 37, 600)
    given, attrs = (("rotary",), {"do_rotary": 1}) if variant == "rotary" else (("bias",), {"local_window_size": 90})
    feeds = _feeds(1, s, 2, 1, head, 0, given=given, seed=5)
    attrs = {"num_heads": 2, "kv_num_heads": 1, **attrs}
    model, want = _as_onnx_runtime(feeds, ["y", "present_k", "present_v"], attrs, s)
    other = quant.run(model, feeds, op="sdot4", platform=ort.platform(), l2_cache_size=2 * l2_cache_size() or 1 << 20)
    assert not np.array_equal(other["y"], want[0])


def _rotary_model(attrs, shape):
    node = helper.make_node("RotaryEmbedding", ["x", "pos", "cos", "sin"], ["y"], domain="com.microsoft", **attrs)
    ins = [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape),
           helper.make_tensor_value_info("pos", TensorProto.INT64, None),
           helper.make_tensor_value_info("cos", TensorProto.FLOAT, None),
           helper.make_tensor_value_info("sin", TensorProto.FLOAT, None)]  # fmt: skip
    out = [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
    return helper.make_model(helper.make_graph([node], "rope", ins, out), ir_version=10, opset_imports=opsets)


@pytest.mark.parametrize("interleaved", [0, 1])
@pytest.mark.parametrize("form", ["3-D", "4-D", "partial", "one position", "odd head"])
def test_rotary_embedding_as_onnx_runtime(form, interleaved):
    ort.need()
    rng = np.random.default_rng(interleaved + len(form))
    b, s, heads, head = 2, 3, 2, 20 if form == "odd head" else 64
    half = head // 4 if form == "partial" else head // 2
    angles = rng.uniform(0, 6, (12, half))
    cos, sin = np.cos(angles).astype(F32), np.sin(angles).astype(F32)
    x = rng.standard_normal((b, heads, s, head) if form == "4-D" else (b, s, heads * head)).astype(F32)
    pos = np.array([4], np.int64) if form == "one position" else rng.integers(0, 12, (b, s)).astype(np.int64)
    attrs = {"interleaved": interleaved}
    if form == "partial":
        attrs |= {"num_heads": heads, "rotary_embedding_dim": 2 * half}
    model = _rotary_model(attrs, list(x.shape))
    feeds = {"x": x, "pos": pos, "cos": cos, "sin": sin}
    want = ort.session(model, neon=True).run(None, feeds)[0]
    _same(quant.run(model, feeds, op="sdot4", platform=ort.platform())["y"], want, (form, interleaved))


def test_bad_input_is_named():
    q = np.ones((1, 2, 32), F32)
    kv = np.ones((1, 2, 16), F32)
    seq, total = np.array([1], np.int32), np.array(2, np.int32)
    with pytest.raises(OperandError, match="num_heads=4 and kv_num_heads=3"):
        group_query_attention(q, kv, kv, None, None, seq, total, num_heads=4, kv_num_heads=3)
    with pytest.raises(OperandError, match=r"key and value have shapes \(1, 2, 16\) and \(1, 2, 8\)"):
        group_query_attention(q, kv, kv[..., :8], None, None, seq, total, num_heads=4, kv_num_heads=2)
    with pytest.raises(OperandError, match=r"seqlens_k=\[5\]: expected each plus 1 in \[1, 2\]"):
        group_query_attention(q, kv, kv, None, None, np.array([5], np.int32), total, num_heads=4, kv_num_heads=2)
    with pytest.raises(OperandError, match="total_sequence_length=9 with a past of 3 rows and 2 new"):
        past = np.ones((1, 2, 3, 8), F32)
        group_query_attention(q, kv, kv, past, past, np.array([8], np.int32), np.array(9, np.int32), num_heads=4,
                              kv_num_heads=2)  # fmt: skip
    with pytest.raises(OperandError, match="head size 8: ONNX Runtime's kernel takes multiples of 16 with do_rotary"):
        group_query_attention(q, kv, kv, None, None, seq, total, num_heads=4, kv_num_heads=2, do_rotary=1)
    q16, kv16 = np.ones((1, 2, 64), F32), np.ones((1, 2, 32), F32)
    with pytest.raises(OperandError, match="do_rotary=1: expected cos_cache and sin_cache"):
        group_query_attention(q16, kv16, kv16, None, None, seq, total, num_heads=4, kv_num_heads=2, do_rotary=1)
    with pytest.raises(OperandError, match="past_key and past_value without the present outputs"):
        past = np.ones((1, 2, 4, 8), F32)
        group_query_attention(q, kv, kv, past, past, np.array([5], np.int32), np.array(6, np.int32), num_heads=4,
                              kv_num_heads=2, with_present=False)  # fmt: skip
    with pytest.raises(OperandError, match="l2_cache_size=-1"):
        group_query_attention(q, kv, kv, None, None, seq, total, num_heads=4, kv_num_heads=2, l2_cache_size=-1)
    with pytest.raises(OperandError, match="cos_cache has 4 columns: ONNX Runtime's GroupQueryAttention takes a"):
        past = np.ones((1, 2, 4, 16), F32)
        group_query_attention(q16, kv16, kv16, past, past, np.array([5], np.int32), np.array(6, np.int32),
                              np.ones((8, 4), F32), np.ones((8, 4), F32), num_heads=4, kv_num_heads=2,
                              do_rotary=1)  # fmt: skip
    cos = np.ones((4, 8), F32)
    with pytest.raises(OperandError, match="cos_cache has 4 rows: ONNX Runtime's GroupQueryAttention takes at least"):
        past = np.ones((1, 2, 4, 16), F32)
        group_query_attention(q16, kv16, kv16, past, past, np.array([5], np.int32), np.array(6, np.int32), cos, cos,
                              num_heads=4, kv_num_heads=2, do_rotary=1)  # fmt: skip
    cos = np.ones((8, 8), F32)
    with pytest.raises(OperandError, match="position 9 lies outside the rotary caches' 8 positions"):
        group_query_attention(q16[:, :1], kv16[:, :1], kv16[:, :1], past, past, np.array([4], np.int32),
                              np.array(5, np.int32), cos, cos, position_ids=np.array([[9]], np.int64), num_heads=4,
                              kv_num_heads=2, do_rotary=1)  # fmt: skip


def test_on_an_x86_cpu_without_avx512():
    """QEMU's Haswell CPU (AVX2, FMA3; ``platform="x86-avx2"``, its FMA3 softmax): a prompt and a decode step with
    rotary through the flash kernel, softcap through the classic path, every output bit for bit."""
    from ..oracles import x86_ort

    x86_ort.require()
    cases = [((2, 5, 4, 2, 16, 0), ("rotary",), {"do_rotary": 1}),
             ((2, 1, 4, 2, 32, 9), ("rotary",), {"do_rotary": 1, "rotary_interleaved": 1}),
             ((1, 6, 2, 1, 16, 0), (), {"softcap": 2.0, "qk_output": 1})]  # fmt: skip
    for (b, s, n, nkv, head, past), given, attrs in cases:
        feeds = _feeds(b, s, n, nkv, head, past, given=given)
        outputs = ["y", "present_k", "present_v"] + (["qk"] if "qk_output" in attrs else [])
        model = _model(feeds, outputs, {"num_heads": n, "kv_num_heads": nkv, **attrs})
        want = x86_ort.Session(model.SerializeToString()).run(None, feeds)
        got = quant.run(model, feeds, op="sdot4", platform="x86-avx2")
        for name, w in zip(outputs, want):
            _same(got[name], w, (attrs, name))


@pytest.mark.parametrize("interleaved", [0, 1])
@pytest.mark.parametrize("form", ["3-D, positions", "4-D, positions", "4-D, caches per row", "partial"])
def test_onnx_rotary_embedding_as_onnx_runtime(form, interleaved):
    """ONNX's own RotaryEmbedding (opset 23), which ONNX Runtime computes with the same kernels."""
    ort.need()
    rng = np.random.default_rng(interleaved + 3 * len(form))
    b, s, heads, head = 2, 3, 2, 48
    dim = head // 2 if form == "partial" else head
    x = rng.standard_normal((b, heads, s, head) if form.startswith("4-D") else (b, s, heads * head)).astype(F32)
    rows = (b, s, dim // 2) if "per row" in form else (10, dim // 2)
    angles = rng.uniform(0, 6, rows)
    feeds = {"x": x, "cos": np.cos(angles).astype(F32), "sin": np.sin(angles).astype(F32)}
    if "per row" not in form:
        feeds["pos"] = rng.integers(0, 10, (b, s)).astype(np.int64)
    attrs = {"interleaved": interleaved}
    if x.ndim == 3:
        attrs["num_heads"] = heads
    if form == "partial":
        attrs["rotary_embedding_dim"] = dim
    node = helper.make_node("RotaryEmbedding", list(feeds), ["y"], **attrs)
    kinds = {"pos": TensorProto.INT64}
    ins = [helper.make_tensor_value_info(n, kinds.get(n, TensorProto.FLOAT), None) for n in feeds]
    graph = helper.make_graph([node], "rope", ins, [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, ir_version=11, opset_imports=[helper.make_opsetid("", 23)])
    want = ort.session(model, neon=True).run(None, feeds)[0]
    _same(quant.run(model, feeds, op="sdot4", platform=ort.platform())["y"], want, (form, interleaved))


def _random_case(seed):
    """A random node: heads, head size, prompt or decode, past, cache kind, packing, rotary (interleaved, partial,
    position ids), bias, window, scale, and on the classic path softcap, smooth softmax, sinks or a qk output."""
    rng = np.random.default_rng(seed)
    nkv = int(rng.choice([1, 2, 4]))
    n = nkv * int(rng.choice([1, 2, 4]))
    rotary = rng.random() < 0.5
    head = int(rng.choice([16, 32, 64] if rotary else [8, 16, 24, 32, 64]))
    decode = rng.random() < 0.5
    past = int(rng.integers(1, 12)) if decode or rng.random() < 0.3 else 0
    s = 1 if decode else int(rng.integers(2, 9))
    b = int(rng.integers(1, 3)) if s == 1 or past == 0 else 1
    given, attrs = [], {}
    if rotary:
        given.append("rotary")
        attrs |= {"do_rotary": 1, "rotary_interleaved": int(rng.random() < 0.5)}
        if head >= 32 and rng.random() < 0.3:  # ONNX Runtime takes rotary_dim / 2 in multiples of 8
            given.append("partial")
        if rng.random() < 0.3:
            given.append("positions")
    given += [g for g in ("packed", "bias") if rng.random() < 0.3]
    if rng.random() < 0.3:
        attrs["local_window_size"] = int(rng.integers(1, 6))
    if rng.random() < 0.4:  # the classic path
        kind = rng.integers(4)
        if kind == 0:
            attrs["softcap"] = float(rng.choice([1.5, 5.0, 30.0]))
        elif kind == 1:
            attrs["smooth_softmax"] = 1
        elif kind == 2:
            given.append("sink")
        else:
            attrs["qk_output"] = int(rng.choice([1, 2]))
    if rng.random() < 0.2:
        attrs["scale"] = float(rng.uniform(0.05, 0.5))
    cache = "static" if past and rng.random() < 0.3 else "dynamic"
    totals = None
    if cache == "static" and b > 1:
        totals = rng.integers(1, past + 2, b)
        totals[0] = past + 1
    return (b, s, n, nkv, head, past), cache, tuple(given), attrs, totals


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(200))
def test_random_nodes_as_onnx_runtime(seed):
    """200 random GroupQueryAttention nodes (:func:`_random_case`), every output bit for bit."""
    ort.need()
    (b, s, n, nkv, head, past), cache, given, attrs, totals = _random_case(seed)
    feeds = _feeds(b, s, n, nkv, head, past, cache=cache, given=given, seed=seed, totals=totals)
    outputs = ["y", "present_k", "present_v"] + (["qk"] if attrs.get("qk_output") else [])
    _as_onnx_runtime(feeds, outputs, {"num_heads": n, "kv_num_heads": nkv, **attrs}, seed)


def _quantized_cache_case(bits, kind, b, s, head, past, seed):
    """Feeds of a node with a quantized cache: random stored past codes, scales of ``kind``."""
    rng = np.random.default_rng(seed)
    feeds = _feeds(b, s, 4, 2, head, past, given=("rotary",) if head % 16 == 0 else (), seed=seed)
    width = head if bits == 8 else (head + 1) // 2
    if bits == 8:
        feeds |= {t: rng.integers(-128, 128, (b, 2, past, width)).astype(np.int8) for t in ("pk", "pv")}
    else:
        feeds |= {t: rng.integers(0, 256, (b, 2, past, width)).astype(np.uint8) for t in ("pk", "pv")}
    feeds["seqlens_k"] = np.full(b, past + s - 1, np.int32)
    feeds["total"] = np.array(past + s, np.int32)
    count = 2 * head if kind == "PER_CHANNEL" else 1
    feeds |= {t: (rng.random(count) * 0.05 + 0.01).astype(F32) for t in ("ks", "vs")}
    return feeds


_QUANTIZED_SHAPES = [(1, 4, 64, 0, "flash"), (1, 4, 64, 0, "classic"), (2, 1, 64, 5, "flash"),
                     (1, 3, 32, 4, "classic"), (1, 5, 24, 0, "classic"), (2, 1, 40, 6, "flash")]  # fmt: skip


@pytest.mark.parametrize("bits", [8, 4])
@pytest.mark.parametrize("kind", ["PER_TENSOR", "PER_CHANNEL"])
@pytest.mark.parametrize("shape", _QUANTIZED_SHAPES)
def test_quantized_kv_cache_as_onnx_runtime(bits, kind, shape):
    """A quantized KV cache (int8 or two int4 codes a byte, per tensor or per channel): the present codes, the
    flash path (prompt and decode) and the classic one (with a qk output), heads past the kernels' vectors."""
    ort.need()
    b, s, head, past, path = shape
    feeds = _quantized_cache_case(bits, kind, b, s, head, past, seed=head + past + bits)
    attrs = {"num_heads": 4, "kv_num_heads": 2, "k_quant_type": kind, "v_quant_type": kind, "kv_cache_bit_width": bits,
             "do_rotary": int("cos" in feeds)}  # fmt: skip
    outputs = ["y", "present_k", "present_v"] + (["qk"] if path == "classic" else [])
    if path == "classic":
        attrs["qk_output"] = 1
    model = _quantized_cache_model(feeds, outputs, attrs, bits)
    want = ort.session(model, neon=True).run(None, feeds)
    got = quant.run(model, feeds, op="sdot4", platform=ort.platform())
    for name, w in zip(outputs, want):
        assert got[name].dtype == w.dtype and np.array_equal(got[name].view(np.uint8), w.view(np.uint8)), name


def _quantized_cache_model(feeds, outputs, attrs, bits):
    """:func:`_model` with the past and present caches typed as the stored codes (int8, or uint8 for int4)."""
    model = _model(feeds, outputs, attrs)
    cache = TensorProto.INT8 if bits == 8 else TensorProto.UINT8
    for value in list(model.graph.input) + list(model.graph.output):
        if value.name in ("pk", "pv", "present_k", "present_v"):
            value.CopyFrom(helper.make_tensor_value_info(value.name, cache, None))
    return model


@pytest.mark.parametrize("bits,kind", [(8, "PER_TENSOR"), (4, "PER_CHANNEL")])
def test_quantized_kv_cache_without_avx512(bits, kind):
    """The same on QEMU's Haswell CPU (``platform="x86-avx2"``: MLAS's AVX2 quantized-cache kernels, 8 lanes)."""
    from ..oracles import x86_ort

    x86_ort.require()
    for b, s, head, past, path in _QUANTIZED_SHAPES[1:5]:
        feeds = _quantized_cache_case(bits, kind, b, s, head, past, seed=head + past)
        attrs = {"num_heads": 4, "kv_num_heads": 2, "k_quant_type": kind, "v_quant_type": kind,
                 "kv_cache_bit_width": bits, "do_rotary": int("cos" in feeds),
                 "qk_output": int(path == "classic")}  # fmt: skip
        outputs = ["y", "present_k", "present_v"] + (["qk"] if path == "classic" else [])
        model = _quantized_cache_model(feeds, outputs, attrs, bits)
        want = x86_ort.Session(model.SerializeToString()).run(None, feeds)
        got = quant.run(model, feeds, op="sdot4", platform="x86-avx2")
        for name, w in zip(outputs, want):
            assert np.array_equal(got[name].view(np.uint8), w.view(np.uint8)), (head, past, name)


@pytest.mark.parametrize("bits,kind", [(8, "PER_TENSOR"), (4, "PER_CHANNEL")])
def test_quantized_kv_cache_prompt_past_a_block(bits, kind):
    """A prompt longer than the flash kernel's block of keys (the L2 cache's), through the quantized cache."""
    ort.need()
    head = 64
    s = min(max(l2_cache_size() // (32 * head), 1) + 37, 600)
    feeds = _quantized_cache_case(bits, kind, 1, s, head, 0, seed=1)
    attrs = {"num_heads": 4, "kv_num_heads": 2, "k_quant_type": kind, "v_quant_type": kind, "kv_cache_bit_width": bits,
             "do_rotary": 1}  # fmt: skip
    outputs = ["y", "present_k", "present_v"]
    model = _quantized_cache_model(feeds, outputs, attrs, bits)
    want = ort.session(model, neon=True).run(None, feeds)
    got = quant.run(model, feeds, op="sdot4", platform=ort.platform())
    for name, w in zip(outputs, want):
        assert np.array_equal(got[name].view(np.uint8), w.view(np.uint8)), (s, name)
