"""ONNX Runtime's folds of a constant after a float Conv into its weights and bias (its ConvBNFusion, ConvMulFusion
and ConvAddFusion, on every CPU at its first optimization level), which round the folded constants in float32 once,
where the nodes they replace would round each output:

- BatchNormalization: ``s = scale / sqrt(var + eps)``, weights ``W * s`` per output channel, bias
  ``(B - mean) * s + beta`` (or ``beta - mean * s`` without one);
- Mul by a constant second operand of shape (M, 1, 1), (1, M, 1, 1) or a scalar: weights and bias times it;
- Add of a constant second operand of shape (M, 1, 1) or (1, M, 1, 1): added to the bias (or the bias).

Each under 1.32's conditions, found by reading its optimized graphs: the Conv's weights (and bias) constants, its
output read by that node alone and no graph output; the folds repeat along a chain.  Checked against ONNX Runtime
for x86 and for AArch64 in ``tests/quant/test_conv_folds.py``.
"""

from __future__ import annotations

import numpy as np

F32 = np.float32


def fold(model):
    """``model`` with every BatchNormalization, Mul and Add that ONNX Runtime folds into the float Conv before it
    folded (module docstring); ``model`` itself where there is none."""
    from onnx import numpy_helper

    g = model.graph
    if not any(n.op_type == "Conv" and n.domain in ("", "ai.onnx") for n in g.node):
        return model
    names = {t.name for t in g.initializer} | {o for n in g.node if n.op_type == "Constant" for o in n.output}
    readers, outputs = _readers(g.node), {o.name for o in g.output}
    if not any(_next(n, readers, outputs, names) for n in g.node):
        return model
    out = type(model)()
    out.CopyFrom(model)  # the nodes are changed in place: never the caller's
    g = out.graph
    values = {t.name: t for t in g.initializer}
    for n in g.node:
        if n.op_type == "Constant" and n.domain in ("", "ai.onnx") and n.attribute and n.attribute[0].name == "value":
            values[n.output[0]] = n.attribute[0].t
    nodes = list(g.node)
    added: dict = {}
    changed = True
    while changed:
        changed = False
        readers = _readers(nodes)
        for conv in nodes:
            nxt = _next(conv, readers, outputs, values)
            if nxt is None or values[conv.input[1]].data_type != 1:  # float32 alone is modelled
                continue
            w = numpy_helper.to_array(values[conv.input[1]])
            b = numpy_helper.to_array(values[conv.input[2]]) if len(conv.input) > 2 and conv.input[2] else None
            folded = _folded(nxt, w, b, {i: numpy_helper.to_array(values[i]) for i in nxt.input[1:] if i in values})
            if folded is None:
                continue
            names = []
            for v, kind in zip(folded, ("weights", "bias")):
                if v is not None:
                    names.append(f"{conv.name or conv.output[0]}_folded_{kind}_{len(added)}")
                    values[names[-1]] = added[names[-1]] = numpy_helper.from_array(v, names[-1])
            del conv.input[1:]
            conv.input.extend(names)
            conv.output[0] = nxt.output[0]
            nodes.remove(nxt)
            changed = True
            break
    if not added:
        return model
    del g.node[:]
    g.node.extend(nodes)
    g.initializer.extend(added.values())
    return out


def _readers(nodes) -> dict:
    readers: dict = {}
    for n in nodes:
        for i in n.input:
            readers.setdefault(i, []).append(n)
    return readers


def _next(conv, readers, outputs, values):
    """The node after ``conv`` that a fold may take, or None; ``values``: the constants' names."""
    if conv.op_type != "Conv" or conv.domain not in ("", "ai.onnx") or len(conv.input) < 2:
        return None
    if conv.input[1] not in values or (len(conv.input) > 2 and conv.input[2] and conv.input[2] not in values):
        return None
    after = readers.get(conv.output[0], [])
    if len(after) != 1 or conv.output[0] in outputs or list(after[0].input).count(conv.output[0]) != 1:
        return None
    nxt = after[0]
    if nxt.domain not in ("", "ai.onnx") or nxt.input[0] != conv.output[0]:
        return None
    if nxt.op_type == "BatchNormalization" and len([o for o in nxt.output if o]) == 1:
        return nxt if all(i in values for i in nxt.input[1:5]) else None
    if nxt.op_type in ("Mul", "Add") and len(nxt.input) == 2 and nxt.input[1] in values:
        return nxt
    return None


def _folded(nxt, w, b, constants):
    """(weights, bias) with ``nxt`` folded in, or None where ONNX Runtime does not fold it."""
    m = w.shape[0]
    if nxt.op_type == "BatchNormalization":
        scale, beta, mean, var = (constants[i] for i in nxt.input[1:5])
        if any(v.dtype != F32 or v.shape != (m,) for v in (scale, beta, mean, var)):
            return None
        eps = F32(next((a.f for a in nxt.attribute if a.name == "epsilon"), 1e-5))
        with np.errstate(all="ignore"):
            s = (scale / np.sqrt((var + eps).astype(F32))).astype(F32)
            if b is None:
                return _scaled(w, s), (beta - (mean * s).astype(F32)).astype(F32)
            return _scaled(w, s), (((b - mean).astype(F32) * s).astype(F32) + beta).astype(F32)
    c = constants[nxt.input[1]]
    per_channel = c.shape in ((m,) + (1,) * (w.ndim - 2), (1, m) + (1,) * (w.ndim - 2))
    if c.dtype != F32 or not (per_channel or (nxt.op_type == "Mul" and c.ndim == 0)):
        return None
    c = c.reshape(-1)
    with np.errstate(all="ignore"):
        if nxt.op_type == "Mul":
            return _scaled(w, np.broadcast_to(c, (m,))), None if b is None else (b * c).astype(F32)
        return w, c.astype(F32) if b is None else (b + c).astype(F32)


def _scaled(w, s):
    return (w * s.reshape((-1,) + (1,) * (w.ndim - 1))).astype(F32)
