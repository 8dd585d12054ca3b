"""ONNX Runtime's CommonSubexpressionElimination (every optimization level, before its QDQ fusions): nodes that
compute the same thing from the same values become one.

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
    if not drop:
        return model
    out = type(model)()
    out.CopyFrom(model)
    del out.graph.node[:]
    for k, n in enumerate(g.node):
        if k in drop:
            continue
        copy = out.graph.node.add()
        copy.CopyFrom(n)
        for k, name in enumerate(copy.input):
            copy.input[k] = alias.get(name, name)
    return out
