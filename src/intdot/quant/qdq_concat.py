"""Concat groups by ONNX Runtime's rules (1.32, CPU): ``DQ(x0), DQ(x1), ... -> Concat [-> redundant Relu/Clip] ->
Q`` becomes ``com.microsoft:QLinearConcat`` (its VariadicSelector and VariadicReplaceWithQLinear;
``tests/quant/test_qdq_concat.py`` checks each condition against the graph ONNX Runtime writes):

- every input of the Concat comes from a ``DequantizeLinear`` (one read elsewhere too still counts);
- one ``QuantizeLinear`` reads the output, which goes nowhere else and is no graph output (a redundant Relu/Clip
  between them is dropped first, as for MatMul);
- every input and the output of one 8-bit type as ONNX Runtime sees it after moving int8 pairs to uint8 (x86);
  no ``qdqisint8allowed`` test;
- scales and zero points of one element (float32 scales), constant or not.

The new node's inputs are ``y_scale, y_zero_point`` and then ``(x, x_scale, x_zero_point)`` per input, with
Concat's ``axis``.
"""

from __future__ import annotations

from .qdq_rules import EIGHT_BIT, _op


def concat_group(rules, n):
    """(x DQs, q, redundant Relu/Clip or None) where ONNX Runtime fuses Concat ``n``, else None."""
    if not _op(n, "Concat") or not n.input or not all(n.input):
        return None
    g = rules.g
    dqs = [g.producer.get(i) for i in n.input]
    if not all(_op(d, "DequantizeLinear") for d in dqs):
        return None
    q, clip = rules.output_q(n)
    if q is None or q is False:
        return None
    types = {rules.qtype(d.input[0]) for d in dqs} | {rules.q_out_type(q)}
    if len(types) != 1 or next(iter(types)) not in EIGHT_BIT:
        return None
    if not all(rules.per_tensor(d) for d in (*dqs, q)):
        return None
    return dqs, q, clip


def concat_node(rules, found, node, name, zero_point):
    """The QLinearConcat node for a group :func:`concat_group` found."""
    from onnx import helper

    from .qdq_gemm import MS_DOMAIN

    dqs, q, _ = found
    dtype = rules.g.dtype(dqs[0].input[0])
    ins = [q.input[1], zero_point(q, dtype)]
    for d in dqs:
        ins += [d.input[0], d.input[1], zero_point(d, dtype)]
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    return helper.make_node("QLinearConcat", ins, [q.output[0]], name=name, domain=MS_DOMAIN, **attrs)
