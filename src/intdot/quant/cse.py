"""ONNX Runtime's first graph passes that change no value but change which QDQ groups fuse: its EliminateIdentity
and ExpandElimination (:func:`drop_noops`), and its CommonSubexpressionElimination (:func:`merge_common`), which
make nodes that compute the same thing from the same values one.

It changes no value, but it changes which QDQ groups fuse: a Conv whose output two identical QuantizeLinear nodes
read (``onnxruntime.quantization``'s ``DedicatedQDQPair``) has one reader once they are merged, and fuses into
QLinearConv as ONNX Runtime fuses it (``tests/quant/test_qdq_graph_cases.py``).  The rule, as its
``common_subexpression_elimination.cc`` states it: two nodes of one domain and type, with equal attributes and equal
inputs (the same value, or constant initializers of equal type, shape and contents) are one; not a
DequantizeLinear (its QDQ groups take one reader each), not a node with a subgraph, not a random one; and, as its
EnsureUniqueDQForNodeUnit gives every reader of a DequantizeLinear its own copy first, never two nodes that read
one.  Here a node whose output is a graph output is left as it is.
"""

from __future__ import annotations

import numpy as np

_RANDOM = {"RandomNormal", "RandomNormalLike", "RandomUniform", "RandomUniformLike", "Multinomial", "Bernoulli"}


def _constants(model) -> dict:
    """Constant initializers (not overridable graph inputs) as (type, dims, bytes) keys."""
    import hashlib

    from onnx import numpy_helper

    inputs = {i.name for i in model.graph.input} if model.ir_version >= 4 else set()
    out = {}
    for t in model.graph.initializer:
        if t.name not in inputs:  # a digest, not the bytes: a model's weights are many megabytes
            digest = hashlib.sha256(numpy_helper.to_array(t).tobytes()).hexdigest()
            out[t.name] = ("const", t.data_type, tuple(t.dims), digest)
    return out


def merge_common(model):
    """``model`` with the nodes ONNX Runtime merges merged (module docstring); ``model`` itself where none are."""
    g = model.graph
    consts = _constants(model)
    outputs = {o.name for o in g.output}
    alias: dict[str, str] = {}
    seen: dict[tuple, object] = {}
    drop = set()
    # Its EnsureUniqueDQForNodeUnit runs first and gives each reader of a DequantizeLinear a copy of its own: two
    # nodes reading one are then reading two values, never one computation.
    dequantized = {
        o for n in g.node if n.op_type == "DequantizeLinear" and n.domain in ("", "ai.onnx") for o in n.output
    }
    for k, n in enumerate(g.node):
        if n.op_type in _RANDOM or (n.op_type == "DequantizeLinear" and n.domain in ("", "ai.onnx")):
            continue
        if any(i in dequantized for i in n.input):
            continue
        if any(a.g.node or a.graphs for a in n.attribute):
            continue
        ins = tuple(consts.get(alias.get(i, i), alias.get(i, i)) for i in n.input)
        attrs = tuple(sorted((a.name, a.SerializeToString()) for a in n.attribute))
        key = (n.domain, n.op_type, ins, attrs, len(n.output))
        first = seen.get(key)
        if first is None:
            seen[key] = n
            continue
        if any(o in outputs for o in n.output) or any(m and not t for m, t in zip(n.output, first.output)):
            continue
        for mine, theirs in zip(n.output, first.output):
            if mine:
                alias[mine] = theirs
        drop.add(k)  # by position: protobuf may hand out a new wrapper object for a node on each pass
    return _without(model, drop, alias)


def _expand_is_noop(model, node, shapes) -> bool:
    """An Expand whose constant shape broadcasts its input to the input's own (inferred) shape."""
    from onnx import numpy_helper

    consts = {t.name: t for t in model.graph.initializer}
    if len(node.input) != 2 or node.input[1] not in consts or node.input[0] not in shapes:
        return False
    target = [int(v) for v in numpy_helper.to_array(consts[node.input[1]]).ravel()]
    shape = shapes[node.input[0]]
    try:
        return tuple(np.broadcast_shapes(shape, tuple(target))) == tuple(shape)
    except ValueError:
        return False


def drop_noops(model):
    """``model`` without the Identity nodes, and the Expand nodes that leave their input's shape as it is, that
    ONNX Runtime removes before it fuses (an output of the graph is kept); ``model`` itself where there are none.
    A ``DequantizeLinear -> Identity -> MatMul`` then fuses, and a Q/DQ pair around a removed Expand merges with
    its neighbour (:mod:`intdot.quant.qdq_double`), as there."""
    from .qdq_rules import _value_info

    g = model.graph
    outputs = {o.name for o in g.output}
    kinds = {n.op_type for n in g.node if n.domain in ("", "ai.onnx")}
    if not kinds & {"Identity", "Expand"}:
        return model
    shapes = {k: v[1] for k, v in _value_info(model).items() if v[1] is not None} if "Expand" in kinds else {}
    alias, drop = {}, set()
    for k, n in enumerate(g.node):
        if n.domain not in ("", "ai.onnx") or not n.output or n.output[0] in outputs:
            continue
        if n.op_type == "Identity" or (n.op_type == "Expand" and _expand_is_noop(model, n, shapes)):
            alias[n.output[0]] = alias.get(n.input[0], n.input[0])
            drop.add(k)
    return _without(model, drop, alias)


def _without(model, drop: set, alias: dict):
    """``model`` without the nodes at the positions ``drop``, every input renamed through ``alias`` (a chain of
    names followed to its end); ``model`` itself where nothing is dropped."""
    if not drop:
        return model
    out = type(model)()
    out.CopyFrom(model)
    del out.graph.node[:]
    for k, n in enumerate(model.graph.node):
        if k in drop:
            continue
        copy = out.graph.node.add()
        copy.CopyFrom(n)
        for j, name in enumerate(copy.input):
            while name in alias:
                name = alias[name]
            copy.input[j] = name
    return out
