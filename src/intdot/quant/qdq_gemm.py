"""Gemm groups by ONNX Runtime's rules (1.32, CPU): which ``DequantizeLinear -> Gemm [-> QuantizeLinear]`` groups
become ``com.microsoft:QGemm``, and the float biases it quantizes on the way (:mod:`intdot.quant.qdq` says where
these rules come from; ``tests/quant/test_qgemm.py`` checks each against the graph ONNX Runtime writes).

Three of its passes, in its order:

1. MatMulAddFusion: a MatMul read only by an Add of a shape Gemm takes is a Gemm (``_Rules.becomes_gemm``); an
   activation of another rank is reshaped to 2-D around it.
2. WeightBiasQuantization: a Gemm, Conv or ConvTranspose whose activation is a ``DequantizeLinear`` with one
   scale, and whose output reaches a ``QuantizeLinear`` through Relu/Clip nodes alone, each read once: a constant
   float32 weight is quantized to int8 first (scale ``(max - min) / 255`` over its range widened to hold 0, zero
   point ``-128 - min / scale`` rounded half to even, in float32; then QuantizeLinear); a weight that is a
   ``DequantizeLinear`` must be per tensor or per output channel (axis 0 for Conv and ConvTranspose, Gemm's output
   columns); a bias that is a constant 1-D float tensor becomes ``int32(round(bias / (x_scale * w_scale)))``
   (float32, half to even; a quotient past int32, or NaN, is INT32_MIN, as x86's conversion gives) through a
   ``DequantizeLinear`` of that scale, whether or not the group is then fused.
3. Its Gemm selector: every input of the Gemm from a ``DequantizeLinear``, the bias's int32 (added as it is:
   its scale and zero point are not read), ``alpha`` and ``beta`` 1 where there is a bias (its kernel would scale
   the bias by alpha too), x and the output (if there is a ``QuantizeLinear``) of one 8-bit type, int8 x
   needing int8 weights (``qdqisint8allowed`` plays no part), zero points of x and w given, x and the output per
   tensor, w per tensor or per output column.  Without a ``QuantizeLinear`` the QGemm has a float output.
   (ONNX Runtime also fuses a square weight whose scales run along the other axis, and reads them per column:
   that runs in float here, as written.)
"""

from __future__ import annotations

import numpy as np

from ._args import to_int32
from .qdq_rules import _attr, _op, _zp, fresh_names

MS_DOMAIN = "com.microsoft"


class GemmView:
    """A Gemm as ONNX Runtime sees it: a Gemm node, or a MatMul and the Add it becomes one with."""

    def __init__(self, nodes, a, b, c, out, attrs, shape=None):
        self.nodes, self.a, self.b, self.c, self.out, self.attrs = nodes, a, b, c, out, attrs
        self.shape = shape  # the activation's shape where it is not 2-D (reshaped around the Gemm), else None

    @property
    def last(self):
        return self.nodes[-1]


def gemm_view(rules, n):
    """The GemmView of node ``n`` (a Gemm, or a MatMul that becomes one), else None."""
    g = rules.g
    if _op(n, "Gemm"):
        attrs = {k: _attr(n, k, d) for k, d in (("alpha", 1.0), ("beta", 1.0), ("transA", 0), ("transB", 0))}
        c = n.input[2] if len(n.input) > 2 and n.input[2] else None
        return GemmView([n], n.input[0], n.input[1], c, n.output[0], attrs)
    if not _op(n, "MatMul") or len(n.input) != 2:
        return None
    x_dq, w_dq = (g.producer.get(i) for i in n.input)
    if not (_op(x_dq, "DequantizeLinear") and _op(w_dq, "DequantizeLinear")) or not rules.becomes_gemm(n, x_dq, w_dq):
        return None
    add = g.only_reader(n.output[0])
    c = add.input[1] if add.input[0] == n.output[0] else add.input[0]
    xs = g.shape(x_dq.input[0])
    attrs = {"alpha": 1.0, "beta": 1.0, "transA": 0, "transB": 0}
    return GemmView([n, add], n.input[0], n.input[1], c, add.output[0], attrs, None if len(xs) == 2 else xs)


def _reaches_q(g, name) -> bool:
    """ONNX Runtime's IsNoBranchPathToQuantizeLinear: one reader after another, Relu/Clip, then a QuantizeLinear."""
    for _ in range(len(g.producer) + 1):
        readers = g.readers.get(name, [])
        if len(readers) != 1:
            return False
        r = readers[0]
        if _op(r, "QuantizeLinear"):
            return True
        if not (_op(r, "Relu") or _op(r, "Clip")) or len(r.output) != 1:
            return False
        name = r.output[0]
    return False


def _scalar(g, name) -> bool:
    s = g.shape(name)
    return s is not None and (len(s) == 0 or s == (1,))


def _bias_site(rules, node, x, w, c, out, axis):
    """(x's DQ, w's DQ or None for a float weight) where WeightBiasQuantization quantizes float bias ``c`` (or None)
    of ``node`` or its float weight ``w``, else None."""
    g = rules.g
    x_dq, w_dq = g.producer.get(x), g.producer.get(w)
    if not _op(x_dq, "DequantizeLinear") or not _scalar(g, x_dq.input[1]) or not _reaches_q(g, out):
        return None
    if not _op(w_dq, "DequantizeLinear"):
        # A constant float32 weight: it quantizes it to int8 itself (one scale and zero point, from its range).
        if w not in g.const or g.const.dtype(w) != np.float32 or not g.const.get(w).size:
            return None
        w_dq = None
    elif c is None:
        return None
    if c is not None and (c not in g.const or g.const.shape(c) is None or len(g.const.shape(c)) != 1):
        return None
    if c is not None and g.const.dtype(c) != np.float32:
        return None
    if g.dtype(x_dq.input[1]) != np.float32 or g.const.get(x_dq.input[1]) is None:
        return None
    if w_dq is None:
        return x_dq, None
    ws = g.shape(w_dq.input[1])
    if g.dtype(w_dq.input[1]) != np.float32 or ws is None or g.const.get(w_dq.input[1]) is None:
        return None
    if not _scalar(g, w_dq.input[1]):
        wshape = g.shape(w_dq.input[0])
        if len(ws) != 1 or ws[0] != g.const.shape(c)[0] or int(_attr(w_dq, "block_size", 0)) or wshape is None:
            return None
        if int(_attr(w_dq, "axis", 1)) % len(wshape) != axis:
            return None
    return x_dq, w_dq


def _weight_parameters(w: np.ndarray):
    """The int8 scale and zero point ONNX Runtime gives a float weight it quantizes (qmath.h's
    GetQuantizationParameter, float32): the range widened to hold 0, ``(max - min) / 255``, and ``-128 - min /
    scale`` clamped and rounded half to even."""
    f = np.float32
    lo, hi = min(f(w.min()), f(0)), max(f(w.max()), f(0))
    scale = f(1) if hi == lo else f(f(hi - lo) / f(255))
    zero = float(np.clip(f(f(-128) - f(lo / scale)), -128, 127))
    return scale, np.int8(np.round(zero))


def _quantized(fb: np.ndarray, xs: np.ndarray, ws: np.ndarray, platform: str = "x86"):
    """(int32 bias, float32 scale) as ONNX Runtime folds Mul, Div, Round and Cast."""
    scale = np.float32(np.ravel(xs)[0]) * ws.astype(np.float32).reshape(-1 if ws.size > 1 else ())
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        q = np.rint(fb.astype(np.float32) / scale)
    return to_int32(q, platform).astype(np.int32), np.asarray(scale, np.float32)


def quantize_biases(model, rules, platform="x86"):
    """``model`` with ONNX Runtime's WeightBiasQuantization applied (module docstring), or ``model`` itself."""
    from onnx import helper, numpy_helper

    from .linear import quantize_linear

    g = rules.g
    sites = []
    pos = {id(n): i for i, n in enumerate(model.graph.node)}
    for i, n in enumerate(model.graph.node):
        if _op(n, "Conv") or _op(n, "ConvTranspose"):  # per-channel weights: axis 0 for both, as it checks
            c = n.input[2] if len(n.input) > 2 and n.input[2] else None
            site = _bias_site(rules, n, n.input[0], n.input[1], c, n.output[0], 0)
            if site:
                sites.append((i, n, n.input[1], c, site))
            continue
        v = gemm_view(rules, n)
        if v is not None:
            site = _bias_site(rules, v.last, v.a, v.b, v.c, v.out, 0 if v.attrs["transB"] else 1)
            if site:
                sites.append((pos[id(v.last)], v.last, v.b, v.c, site))
    if not sites:
        return model
    out = type(model)()
    out.CopyFrom(model)
    fresh = fresh_names(model)
    new_nodes = []
    for i, node, w, c, (x_dq, w_dq) in sites:
        base = node.name or node.output[0]
        target = out.graph.node[i]
        if w_dq is None:
            scale, zero = _weight_parameters(g.const[w])
            names = [fresh(base + suffix) for suffix in ("_weight_q", "_weight_scale", "_weight_zp", "_weight_dq")]
            q = quantize_linear(g.const[w], scale, zero)
            for name, value in zip(names[:3], (q, np.float32(scale), zero)):
                out.graph.initializer.append(numpy_helper.from_array(np.asarray(value), name))
            new_nodes.append(helper.make_node("DequantizeLinear", names[:3], [names[3]]))
            target.input[list(target.input).index(w)] = names[3]
            w_scale = np.asarray(scale, np.float32)
        else:
            w_scale = g.const[w_dq.input[1]]
        if c is None:
            continue
        names = [fresh(base + suffix) for suffix in ("_bias_int32", "_bias_scale", "_bias_dq")]
        q, scale = _quantized(g.const[c], g.const[x_dq.input[1]], w_scale, platform)
        out.graph.initializer.extend([numpy_helper.from_array(q, names[0]), numpy_helper.from_array(scale, names[1])])
        attrs = {"axis": 0} if scale.ndim else {}
        new_nodes.append(helper.make_node("DequantizeLinear", names[:2], [names[2]], **attrs))
        for j, inp in enumerate(target.input):
            if inp == c:
                target.input[j] = names[2]
    nodes = new_nodes + list(out.graph.node)
    del out.graph.node[:]
    out.graph.node.extend(nodes)
    return out


def gemm_group(rules, v: GemmView):
    """(x_dq, w_dq, bias_dq or None, q or None, clip or None) where ONNX Runtime makes ``v`` a QGemm, else None."""
    g = rules.g
    dqs = [g.producer.get(i) for i in (v.a, v.b) + ((v.c,) if v.c is not None else ())]
    if not all(_op(d, "DequantizeLinear") for d in dqs):
        return None
    x_dq, w_dq = dqs[:2]
    b_dq = dqs[2] if len(dqs) == 3 else None
    tx, tw = rules.qtype(x_dq.input[0]), rules.qtype(w_dq.input[0])
    if tx not in (np.int8, np.uint8) or tw not in (np.int8, np.uint8) or (tx == np.int8 and tw != np.int8):
        return None
    if b_dq is not None and (g.dtype(b_dq.input[0]) != np.int32 or (v.attrs["alpha"], v.attrs["beta"]) != (1.0, 1.0)):
        return None
    q, clip = rules.output_q(v.last)
    if q is False or _zp(x_dq) is None or _zp(w_dq) is None:
        return None
    if not rules.per_tensor(x_dq) or not rules.along(w_dq, 0 if v.attrs["transB"] else 1, rank=2):
        return None
    if g.shape(v.a) is not None and v.shape is None and len(g.shape(v.a)) != 2:
        return None
    if q is not None and (rules.q_out_type(q) != tx or not rules.per_tensor(q)):
        return None
    return x_dq, w_dq, b_dq, q, clip


def qgemm_nodes(rules, v: GemmView, found, fresh, zero_point, extra) -> list:
    """The nodes ONNX Runtime writes for the group: a QGemm, with Reshapes around it where the activation is not
    2-D (MatMulAddFusion's)."""
    from onnx import helper, numpy_helper

    x_dq, w_dq, b_dq, q, _ = found
    g = rules.g
    ins = [x_dq.input[0], x_dq.input[1], _zp(x_dq), w_dq.input[0], w_dq.input[1], _zp(w_dq)]
    ins.append(b_dq.input[0] if b_dq is not None else "")
    if q is not None:
        ins += [q.input[1], zero_point(q, g.dtype(q.output[0]) or np.dtype(np.uint8))]
    else:
        while ins[-1] == "":
            ins.pop()
    out = q.output[0] if q is not None else v.out
    attrs = {"alpha": float(v.attrs["alpha"]), "transA": int(v.attrs["transA"]), "transB": int(v.attrs["transB"])}
    name = v.nodes[0].name or (q.name if q is not None else "")
    if v.shape is None:
        return [helper.make_node("QGemm", ins, [out], name=name, domain=MS_DOMAIN, **attrs)]
    k, n = v.shape[-1], g.shape(w_dq.input[0])[1]
    flat, result = fresh(f"{ins[0]}_2d"), fresh(f"{out}_2d")
    s_in, s_out = fresh(f"{name or out}_gemm_input_shape"), fresh(f"{name or out}_gemm_output_shape")
    extra.append(numpy_helper.from_array(np.array([-1, k], np.int64), s_in))
    extra.append(numpy_helper.from_array(np.array([*v.shape[:-1], n], np.int64), s_out))
    return [
        helper.make_node("Reshape", [ins[0], s_in], [flat]),
        helper.make_node("QGemm", [flat, *ins[1:]], [result], name=name, domain=MS_DOMAIN, **attrs),
        helper.make_node("Reshape", [result, s_out], [out]),
    ]
