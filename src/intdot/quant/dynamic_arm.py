"""``quantize_dynamic``'s bias as ONNX Runtime adds it on Arm: in the same rounding as the scale.

``onnxruntime.quantization.quantize_dynamic`` writes each MatMul as ``DynamicQuantizeLinear -> MatMulInteger ->
Cast -> Mul(scale)`` and leaves its bias ``Add`` after it; ``scale`` is ``Mul(x_scale, w_scale)``.  ONNX Runtime
fuses the chain, bias included, into ``com.microsoft:DynamicQuantizeMatMul``, whose output step is
``float32(acc) * scale + bias``.  On x86 that is two roundings, the graph's own bits.  Its NEON build computes the
step as one fused multiply-add (the compiler contracts the two operations), so each output can be an ulp from the
graph's.  Measured against ONNX Runtime 1.32 for AArch64 (``tests/quant/test_run.py``).

:func:`fuse_bias` makes that ``Mul -> Add`` pair one node, ``ai.intdot:MulAdd`` (``fma(a, b, c)``, broadcast),
under the conditions ONNX Runtime's fusion checks: the MatMulInteger's A comes from a DynamicQuantizeLinear, the
scale is a Mul of that node's scale output, the bias is a constant of shape ``(N,)`` or ``(1, ..., 1, N)`` with
``N > 1``, and every value between the MatMulInteger and the Add has that one reader and is no graph output.
On a CPU with SME (``platform="arm-sme"``) ONNX Runtime hands the fused node to KleidiAI instead where the weights
are a constant 2-D int8 matrix with constant non-negative scales and no zero point (absent, or all 0), and the
quantized input has no other reader: the whole chain becomes ``ai.intdot:DynamicQuantizeMatMulSME`` (x, W, w_scale,
bias), which quantizes each row of ``x`` with a scale and zero point of its own
(:func:`dynamic_quantize_matmul_sme`).  Measured against ONNX Runtime 1.32 for AArch64 on QEMU 11's ``max`` CPU
(Debian 12's QEMU 7.2 computes SME's 32-bit SMOPA wrongly).
"""

from __future__ import annotations

import numpy as np

from ._args import INTDOT_DOMAIN
from .qdq_rules import _attr, _Graph, _op, rebuilt

DOMAIN = INTDOT_DOMAIN
F32 = np.float32


def _bias_shape(shape) -> bool:
    return shape is not None and len(shape) >= 1 and shape[-1] > 1 and all(d == 1 for d in shape[:-1])


def _other(node, name):
    """The input of a two-input ``node`` that is not ``name``."""
    a, b = node.input
    return b if a == name else a


def _walk(g: _Graph, mmi):
    """(DynamicQuantizeLinear, Cast, scale Mul, Mul, bias Add or None, bias or "") of quantize_dynamic's chain after
    MatMulInteger ``mmi``, or None where it is not one: each value from the MatMulInteger on read once, the scale a
    Mul of the DynamicQuantizeLinear's, the bias a constant of the shape the fusion takes."""
    dql = g.producer.get(mmi.input[0])
    if not _op(dql, "DynamicQuantizeLinear") or dql.output[0] != mmi.input[0]:
        return None
    cast = g.only_reader(mmi.output[0])
    if not _op(cast, "Cast") or _attr(cast, "to", 0) != 1:  # to float32
        return None
    mul = g.only_reader(cast.output[0])
    if not _op(mul, "Mul") or len(mul.input) != 2:
        return None
    scale_node = g.producer.get(_other(mul, cast.output[0]))
    if not _op(scale_node, "Mul") or dql.output[1] not in scale_node.input:
        return None
    add = g.only_reader(mul.output[0])
    bias = _other(add, mul.output[0]) if _op(add, "Add") and len(add.input) == 2 else ""
    if not (bias in g.const and _bias_shape(g.const.shape(bias))):
        add, bias = None, ""
    return dql, cast, scale_node, mul, add, bias


def _chain(g: _Graph, mmi):
    """(Mul, Add, scale, Cast's output, bias) of a chain whose scale and bias :func:`fuse_bias` fuses, or None."""
    walked = _walk(g, mmi)
    if walked is None or walked[4] is None:
        return None
    _, cast, scale_node, mul, add, bias = walked
    return mul, add, scale_node.output[0], cast.output[0], bias


def _sme_chain(g: _Graph, mmi):
    """(the nodes KleidiAI's fused node replaces, x, W, w_scale, bias or "", its output) after MatMulInteger
    ``mmi``, or None (module docstring)."""
    walked = _walk(g, mmi)
    if walked is None:
        return None
    dql, cast, scale_node, mul, add, bias = walked
    w = mmi.input[1]
    wz = mmi.input[3] if len(mmi.input) > 3 else ""
    if w not in g.const or g.const.dtype(w) != np.int8 or len(g.const.shape(w)) != 2:
        return None
    if wz and (wz not in g.const or np.any(g.const[wz] != 0)):
        return None
    if g.only_reader(dql.output[0]) is not mmi or (len(mmi.input) > 2 and g.only_reader(dql.output[2]) is not mmi):
        return None
    if g.only_reader(scale_node.output[0]) is not mul or g.only_reader(dql.output[1]) is not scale_node:
        return None
    ws = _other(scale_node, dql.output[1])
    if ws not in g.const or np.any(g.const[ws] < 0):
        return None
    nodes = [dql, scale_node, mmi, cast, mul, *([add] if add is not None else [])]
    return nodes, dql.input[0], w, ws, bias, (mul if add is None else add).output[0]


def dynamic_quantize_matmul_sme(x, w, w_scale, bias=None, *, op, target=None) -> np.ndarray:
    """``x @ W`` as ONNX Runtime's DynamicQuantizeMatMul computes it through KleidiAI on an Arm CPU with SME.

    Each row of ``x`` (float32, the last axis K) is quantized to int8 with its own scale and zero point, in float32:
    ``[lo, hi]`` the row's range widened to hold 0, ``s = 255 / (hi - lo)`` (1 where ``lo == hi``), the zero point
    ``-128 - lo * s`` or ``127 - hi * s`` (whichever the row's span leans to), clamped, rounded half to even, and
    each value ``clamp(roundf(x * s) + zp, -128, 127)`` (``roundf``: half away from zero).  The int32 products of
    ``q - zp`` with ``W`` go through the instruction ``op``; the output is ``float32(1 / s * w_scale) *
    float32(acc)``, then ``+ bias``, each rounded to float32."""
    from .matmul import matmul_integer

    x = np.asarray(x, F32)
    rows = x.reshape(-1, x.shape[-1])
    lo = np.minimum(F32(0), rows.min(axis=1, initial=np.inf)).astype(F32)
    hi = np.maximum(F32(0), rows.max(axis=1, initial=-np.inf)).astype(F32)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(lo == hi, F32(1), F32(255) / (hi - lo)).astype(F32)
        r = (F32(1) / s).astype(F32)
        dlo, dhi = (lo * s).astype(F32), (hi * s).astype(F32)
        low = ((F32(-128) + dlo).astype(F32) + (F32(127) + dhi).astype(F32)).astype(F32) > 0
        zpf = np.where(low, (F32(-128) - dlo).astype(F32), (F32(127) - dhi).astype(F32))
        zp = np.rint(np.clip(zpf, -128, 127)).astype(np.int64)
        v = (rows * s[:, None]).astype(F32).astype(np.float64)
    q = np.clip(np.sign(v) * np.floor(np.abs(v) + 0.5) + zp[:, None], -128, 127).astype(np.int8)
    acc = matmul_integer(q, np.asarray(w), zp.astype(np.int8), None, op=op, target=target)
    y = ((r[:, None] * np.asarray(w_scale, F32)).astype(F32) * acc.astype(F32)).astype(F32)
    if bias is not None:
        y = (y + np.asarray(bias, F32)).astype(F32)
    return y.reshape(*x.shape[:-1], y.shape[-1])


def fuse_bias(model, sme: bool = False):
    """``model`` with each of quantize_dynamic's scale Mul and bias Add made one ``ai.intdot:MulAdd`` (and, with
    ``sme``, the chains KleidiAI takes made one ``ai.intdot:DynamicQuantizeMatMulSME``), or ``model`` itself where
    there is none (module docstring)."""
    from onnx import helper

    g = _Graph(model, info={})
    mmis = [n for n in model.graph.node if _op(n, "MatMulInteger")]
    whole = [c for c in (_sme_chain(g, n) for n in mmis) if c is not None] if sme else []
    taken = {id(n) for c in whole for n in c[0]}
    chains = [c for c in (_chain(g, n) for n in mmis if id(n) not in taken) if c is not None]
    if not chains and not whole:
        return model
    replace = {}
    for mul, add, scale, cast_out, bias in chains:
        replace[id(mul)] = helper.make_node("MulAdd", [cast_out, scale, bias], [add.output[0]], mul.name, domain=DOMAIN)
    drop = {id(add) for _, add, *_ in chains}
    for found, x, w, ws, bias, y in whole:
        mmi = found[2]
        kind = "DynamicQuantizeMatMulSME"
        replace[id(mmi)] = helper.make_node(kind, [x, w, ws, bias], [y], mmi.name, domain=DOMAIN)
        drop |= {id(n) for n in found if n is not mmi}
    return rebuilt(model, replace, drop, domain=DOMAIN)
