"""ONNX Runtime's QDQPropagationTransformer (1.32, every optimization level, after the DoubleQDQPairsRemover and
before any fusion): Q/DQ pairs copied across the operators that only move or pick values, so that a MatMul
followed by a Reshape and a QuantizeLinear (or preceded by a DequantizeLinear and a Reshape) becomes a group it
fuses.

The copies change no value by themselves (``Q(DQ(q)) == q``; these operators move or pick values), but the groups
they complete are fused, which rounds differently.  The rules (``qdq_propagation.cc``, checked on 1.32 in
``tests/quant/test_qdq_propagate.py``):

- the operators: MaxPool (versions 12, 22), Reshape, Transpose, Squeeze, Unsqueeze, Slice (1 to 13), by the
  version the model's opset gives them;
- the Q or DQ has a constant scale of one element and a constant zero point of one element, or none;
- backwards, from each ``QuantizeLinear``: while its input (then each operator's data input, in turn) is the only
  use of a node's output that is no graph output, or a graph input, and comes from one of the operators, a pair
  with the Q's scale and zero point goes in front of that operator; it stops at a ``DequantizeLinear``;
- forwards, from each ``DequantizeLinear`` (one read several times counts as a copy for each reader, as ONNX
  Runtime makes them first): while the reader is one of the
  operators and none of the uses of its output is a ``QuantizeLinear``, a Q with the DQ's parameters goes after
  it and a DQ in front of each use (a graph output keeps its name).
"""

from __future__ import annotations

from .qdq_rules import _op, _zp, fresh_names

_VERSIONS = {
    "MaxPool": {12, 22},
    "Reshape": {5, 13, 14, 19, 21, 23, 24, 25},
    "Transpose": {1, 13, 21, 23, 24, 25},
    "Squeeze": {1, 11, 13, 21, 23, 24, 25},
    "Unsqueeze": {1, 11, 13, 21, 23, 24, 25},
    "Slice": {1, 10, 11, 13},
}


class _Edit:
    """The graph being rewritten: its nodes in order, who makes and who reads each value."""

    def __init__(self, model, const):
        self.nodes = list(model.graph.node)
        self.const = const
        self.outputs = {o.name for o in model.graph.output}
        self.inputs = {i.name for i in model.graph.input} - {t.name for t in model.graph.initializer}
        self.opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 1)
        self.fresh = fresh_names(model)
        self._since = {}
        self._index = None

    def _maps(self):
        # Rebuilt after each edit only: edits are rare, lookups many (a large model has thousands of Q/DQ nodes).
        if self._index is None:
            made, used = {}, {}
            for n in self.nodes:
                made.update((o, n) for o in n.output)
                for k, i in enumerate(n.input):
                    used.setdefault(i, []).append((n, k))
            self._index = made, used
        return self._index

    def edited(self):
        self._index = None

    def producer(self, name):
        return self._maps()[0].get(name)

    def uses(self, name):
        """(node, input slot) for every use of ``name``."""
        return list(self._maps()[1].get(name, []))

    def moves(self, node) -> bool:
        """One of the operators that only move or pick values, at a version ONNX Runtime propagates across."""
        if node is None or node.domain not in ("", "ai.onnx") or node.op_type not in _VERSIONS:
            return False
        if node.op_type not in self._since:
            from onnx import defs

            self._since[node.op_type] = defs.get_schema(node.op_type, self.opset, "").since_version
        return self._since[node.op_type] in _VERSIONS[node.op_type]

    def scalar_params(self, node) -> bool:
        names = [node.input[1]] + ([_zp(node)] if _zp(node) is not None else [])
        return all(self.const.scalar(n) is not None for n in names)

    def sole_use(self, name) -> bool:
        """``name`` is a graph input, or a node output used once and no graph output (its GetPreviousEdge)."""
        if name in self.inputs:
            return True
        return self.producer(name) is not None and name not in self.outputs and len(self.uses(name)) == 1

    def quantize(self, like, value):
        """A QuantizeLinear of ``value`` with ``like``'s parameters (and, from a Q, its attributes)."""
        from onnx import helper

        q = helper.make_node("QuantizeLinear", [value, *like.input[1:3]], [self.fresh(f"{value}_q_to_dq")])
        q.name = self.fresh(f"{value}_q")
        if _op(like, "QuantizeLinear"):
            q.attribute.extend(like.attribute)
        else:
            q.attribute.extend(a for a in like.attribute if a.name in ("axis", "block_size"))
        return q

    def dequantize(self, like, q, name):
        """A DequantizeLinear of ``q``'s output, with ``like``'s parameters, writing ``name``."""
        from onnx import helper

        dq = helper.make_node("DequantizeLinear", [q.output[0], *like.input[1:3]], [name])
        dq.name = self.fresh(f"{name}_dq")
        dq.attribute.extend(a for a in like.attribute if a.name in ("axis", "block_size"))
        return dq


def _backward(e, q):
    value = q.input[0]
    if not e.sole_use(value):
        return
    while value not in e.inputs:
        op = e.producer(value)
        if not e.moves(op):
            return
        data = op.input[0]
        if not e.sole_use(data) or _op(e.producer(data), "DequantizeLinear"):
            return
        new_q = e.quantize(q, data)
        new_dq = e.dequantize(q, new_q, e.fresh(f"{data}_post_dq"))
        op.input[0] = new_dq.output[0]
        at = next(k for k, n in enumerate(e.nodes) if n is op)
        e.nodes[at:at] = [new_q, new_dq]
        e.edited()
        value = data


def _forward(e, dq):
    # ONNX Runtime first gives each reader of a DQ read several times, or also a graph output, a DQ of its own
    # (its EnsureUniqueDQForNodeUnit), and copies forwards from each: the same as walking from every reader.
    todo = [n for n, _ in e.uses(dq.output[0])]
    while todo:
        op = todo.pop(0)
        if not e.moves(op):
            continue
        out = op.output[0]
        uses = e.uses(out)
        if (not uses and out not in e.outputs) or any(_op(n, "QuantizeLinear") for n, _ in uses):
            continue
        pre = e.fresh(f"{out}_pre_q")
        new_q, new = e.quantize(dq, pre), []
        for n, k in uses:
            new.append(e.dequantize(dq, new_q, e.fresh(f"{out}_post_dq")))
            n.input[k] = new[-1].output[0]
        if out in e.outputs:  # a graph output keeps its name, now written by a DQ
            new.append(e.dequantize(dq, new_q, out))
        op.output[0] = pre
        at = next(k for k, n in enumerate(e.nodes) if n is op) + 1
        e.nodes[at:at] = [new_q, *new]
        e.edited()
        todo += [n for n, _ in uses]


def propagate(model):
    """``model`` with ONNX Runtime's Q/DQ copies made (the same object where there are none)."""
    from .qdq_rules import _Graph

    out = type(model)()
    out.CopyFrom(model)
    e = _Edit(out, _Graph(out, info={}).const)
    before = len(e.nodes)
    snapshot = list(e.nodes)
    for n in snapshot:
        if _op(n, "QuantizeLinear") and n.input and e.scalar_params(n):
            _backward(e, n)
    for n in snapshot:
        if _op(n, "DequantizeLinear") and n.input and e.scalar_params(n):
            _forward(e, n)
    if len(e.nodes) == before:
        return model
    nodes = [type(n)() for n in e.nodes]
    for copy, n in zip(nodes, e.nodes):
        copy.CopyFrom(n)
    del out.graph.node[:]
    out.graph.node.extend(nodes)
    return out
