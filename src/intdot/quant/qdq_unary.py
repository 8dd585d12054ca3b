"""One-input groups by ONNX Runtime's rules (1.32, CPU): ``DQ(x) -> GlobalAveragePool/AveragePool/Sigmoid/LeakyRelu/
Softmax [-> redundant Relu/Clip] -> Q`` becomes ``com.microsoft:QLinearGlobalAveragePool`` / ``QLinearAveragePool``
/ ``QLinearSigmoid`` / ``QLinearLeakyRelu`` / ``QLinearSoftmax`` (its UnarySelector and UnaryReplaceWithQLinear,
the node's attributes kept; a Softmax's ``axis`` written out, its default made explicit, and an ``opset``
attribute added, the Softmax's version; ``tests/quant/test_qdq_pool.py`` and ``test_qdq_activations.py`` check
each condition against the graph ONNX Runtime writes):

- the operator's input comes from a ``DequantizeLinear`` (one read elsewhere too still counts: ONNX Runtime first
  gives each reader its own copy);
- one ``QuantizeLinear`` reads the output, which goes nowhere else and is no graph output (a Relu/Clip between
  them that the quantization makes redundant is dropped first, as for MatMul);
- input and output of one 8-bit type as ONNX Runtime sees them, after moving int8 pairs to uint8 (x86; with
  ``session.qdqisint8allowed`` nothing is moved); the selector itself does not read that option, so int8 codes
  from a graph input to a graph output (no Q -> DQ pair to move) fuse as int8 on x86 too;
- its selector reads no scale or zero point shape.  Here a group is fused only where ONNX Runtime's kernel then
  runs: scales and zero points of one element (float32 scales), constant or not.  Measured: ONNX Runtime also
  fuses a group whose x is quantized per channel and then fails (QLinearGlobalAveragePool at run time, "x_scale
  must be a scalar or 1D tensor of size 1"; QLinearAveragePool as the session loads, "Scale and Zero-point must
  be a scalar"), and an AveragePool group with any 1-element 1-D scale or zero point fails the same way as the
  session loads (QLinearGlobalAveragePool takes those); such groups run in float here, as the model states.
- a Softmax group also needs a constant x scale (measured: ONNX Runtime leaves it in float otherwise; its other
  scales and zero points may be graph inputs).
"""

from __future__ import annotations

from .qdq_binary import _rank0
from .qdq_rules import EIGHT_BIT, _op

KINDS = {
    "GlobalAveragePool": "QLinearGlobalAveragePool",
    "AveragePool": "QLinearAveragePool",
    "Sigmoid": "QLinearSigmoid",
    "LeakyRelu": "QLinearLeakyRelu",
    "Softmax": "QLinearSoftmax",
}


def unary_group(rules, n):
    """(kind, x's DQ, q, redundant Relu/Clip or None) where ONNX Runtime fuses ``n``, else None."""
    if not any(_op(n, k) for k in KINDS) or len([i for i in n.input if i]) != 1:
        return None
    g = rules.g
    dq = g.producer.get(n.input[0])
    if not _op(dq, "DequantizeLinear"):
        return None
    q, clip = rules.output_q(n)
    if q is None or q is False:
        return None
    t = rules.qtype(dq.input[0])
    if t not in EIGHT_BIT or t != rules.q_out_type(q):
        return None
    if not all(rules.per_tensor(d) for d in (dq, q)):
        return None  # ONNX Runtime fuses it, and its kernel then fails (module docstring)
    if n.op_type == "AveragePool" and not all(_rank0(g, d) for d in (dq, q)):
        return None  # the same, as ONNX Runtime loads the model
    if n.op_type == "Softmax" and dq.input[1] not in g.const:
        return None  # measured: a Softmax whose x scale is not constant stays in float
    return KINDS[n.op_type], dq, q, clip


def unary_node(rules, found, node, name, zero_point):
    """The QLinear node for a group :func:`unary_group` found, with ``node``'s attributes (``zero_point(node,
    dtype)`` names a Q/DQ node's zero point, or a new 0 where it is left out)."""
    from onnx import helper

    from .qdq_gemm import MS_DOMAIN

    kind, dq, q, _ = found
    dtype = rules.g.dtype(dq.input[0])
    ins = [dq.input[0], dq.input[1], zero_point(dq, dtype), q.input[1], zero_point(q, dtype)]
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    if kind == "QLinearSoftmax":
        since = 13 if rules.g.opset >= 13 else 11 if rules.g.opset >= 11 else 1  # Softmax's versions
        attrs = {"axis": -1 if since >= 13 else 1, **attrs, "opset": since}
    return helper.make_node(kind, ins, [q.output[0]], name=name, domain=MS_DOMAIN, **attrs)
