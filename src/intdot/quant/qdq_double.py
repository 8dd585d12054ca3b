"""ONNX Runtime's DoubleQDQPairsRemover (1.32, every optimization level, before any QDQ fusion): two pairs in a
row, ``Q1 -> DQ1 -> Q2 -> DQ2``, become one, ``Q1 -> DQ2``, on a scale and zero point it computes for both.

Where the two pairs quantize differently this changes the values: the codes land on the new grid, the
intersection of the two ranges, not on Q2's.  The conditions (``double_qdq_pairs_remover.cc`` and
``qdq_util.cc``'s IsQDQPairSupported, checked on 1.32 in ``tests/quant/test_qdq_double.py``):

- Q1 is read by DQ1 alone, DQ1 by Q2 alone (Identity nodes between them aside: ONNX Runtime removes those
  first), and every reader of Q2 is a DQ2; none of Q1, DQ1, Q2 is a graph output (a DQ2 may be);
- each pair (Q1, DQ1) and (Q2, each DQ2) has one constant scale (float32) and one constant zero point, each of
  one element, and the two nodes of a pair the same ones (equal values);
- both zero points of one type: uint8, int8, uint16 or int16.

The new parameters, in float32 as it computes them: ``lo = max((qmin - z1) * s1, (qmin - z2) * s2)``, ``hi =
min((qmax - z1) * s1, (qmax - z2) * s2)``, ``scale = (hi - lo) / (qmax - qmin)``, ``zero_point = round(qmin - lo
/ scale)`` half away from zero.  Pairs whose zero points are left out are identities ONNX Runtime merges only
where nothing changes, so they are left as they are here.  Where the intersection is empty (zero points at
opposite ends: ONNX Runtime divides 0 by 0 there) the pairs are also left as written.
"""

from __future__ import annotations

import math

import numpy as np

from .qdq_rules import _Graph, _op, _zp, fresh_names

_TYPES = tuple(np.dtype(t) for t in (np.uint8, np.int8, np.uint16, np.int16))


def _pair(g, q, dq):
    """(scale, zero point) of a Q -> DQ pair ONNX Runtime takes as one, else None."""
    if _zp(q) is None or _zp(dq) is None:
        return None
    found = []
    for node in (q, dq):
        s, z = g.const.scalar(node.input[1]), g.const.scalar(_zp(node))
        if s is None or z is None:
            return None
        if s.dtype != np.float32 or z.dtype not in _TYPES:
            return None
        found.append((np.float32(s.ravel()[0]), z.dtype, int(z.ravel()[0])))
    (s1, t1, z1), (s2, t2, z2) = found
    return (s1, t1, z1) if (t1, z1) == (t2, z2) and s1 == s2 else None


def _round_half_away(x: float) -> int:
    r = math.floor(x)
    return r + 1 if x - r > 0.5 or (x - r == 0.5 and x > 0) else r


def merged(s1, z1, s2, z2, dtype):
    """The scale and zero point ONNX Runtime gives the merged pair (module docstring), or None where they are not
    a number (ranges that meet in one point)."""
    info = np.iinfo(dtype)
    qmin, qmax, f = info.min, info.max, np.float32
    with np.errstate(all="ignore"):
        lo = max(f(qmin - z1) * s1, f(qmin - z2) * s2)
        hi = min(f(qmax - z1) * s1, f(qmax - z2) * s2)
        scale = f(hi - lo) / f(qmax - qmin)
        if not np.isfinite(scale) or scale <= 0:
            return None
        zero = _round_half_away(float(f(qmin) - f(lo / scale)))
    return (scale, zero) if qmin <= zero <= qmax else None


def _chain(g, q1):
    """([DQ1, Identity nodes, Q2], the DQ2s, (new scale, new zero point) or None) where ``q1`` starts a pair of
    pairs to merge, else None."""
    name = q1.output[0]
    dq1 = g.only_reader(name)
    if not _op(dq1, "DequantizeLinear") or dq1.input[0] != name:
        return None
    between, value = [], dq1.output[0]  # Identity nodes between them go first (its EliminateIdentity)
    q2 = g.only_reader(value)
    while _op(q2, "Identity"):
        between.append(q2)
        value = q2.output[0]
        q2 = g.only_reader(value)
    if not _op(q2, "QuantizeLinear") or q2.input[0] != value or q2.output[0] in g.outputs:
        return None
    dq2s = g.readers.get(q2.output[0], [])
    if not dq2s or any(not _op(d, "DequantizeLinear") or list(d.input).count(q2.output[0]) != 1 for d in dq2s):
        return None
    if any(d.input[0] != q2.output[0] for d in dq2s):
        return None
    first, second = _pair(g, q1, dq1), [_pair(g, q2, d) for d in dq2s]
    if first is None or any(p is None or p != second[0] for p in second):
        return None
    (s1, t1, z1), (s2, t2, z2) = first, second[0]
    if t1 != t2:
        return None
    if (dq1.input[1], _zp(dq1)) == (q2.input[1], _zp(q2)) or (z1 == z2 and abs(s1 - s2) < 1e-20):
        return [dq1, *between, q2], dq2s, None  # the same grid: each outer node keeps its own parameters
    new = merged(s1, z1, s2, z2, t1)
    if new is None:
        return None
    return [dq1, *between, q2], dq2s, (new[0], np.array(new[1], t1))


def _initializers(out, g, q1, scale, zero) -> list:
    """Names of new initializers in ``out`` holding the merged scale and zero point, shaped as Q1's."""
    from onnx import numpy_helper

    fresh, names = fresh_names(out), []
    for base, value in ((q1.input[1], np.float32(scale)), (_zp(q1), zero)):
        name = fresh(f"DoubleQDQRemoved_{base}")
        shaped = np.asarray(value).reshape(g.const.shape(base))
        out.graph.initializer.append(numpy_helper.from_array(shaped, name))
        names.append(name)
    return names


def remove_double_pairs(model):
    """``model`` with every pair of pairs ONNX Runtime merges merged (the same object where there is none)."""
    while True:
        g = _Graph(model, info={})
        for q1 in model.graph.node:
            if not _op(q1, "QuantizeLinear"):
                continue
            found = _chain(g, q1)
            if found is not None:
                break
        else:
            return model
        removed, dq2s, params = found
        out = type(model)()
        out.CopyFrom(model)
        names = None
        if params is not None:
            names = _initializers(out, g, q1, *params)
        index = {id(n): i for i, n in enumerate(model.graph.node)}
        gone = {index[id(n)] for n in removed}
        copies = out.graph.node
        for n in [q1, *dq2s] if names else []:
            copies[index[id(n)]].input[1] = names[0]
            copies[index[id(n)]].input[2] = names[1]
        for d in dq2s:
            copies[index[id(d)]].input[0] = q1.output[0]
        for i in sorted(gone, reverse=True):
            del copies[i]
        model = out
