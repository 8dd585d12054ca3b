"""Add, Mul and Where groups by ONNX Runtime's rules (1.32, CPU): ``DQ(a), DQ(b) -> Add/Mul [-> redundant
Relu/Clip] -> Q`` becomes ``com.microsoft:QLinearAdd`` / ``QLinearMul`` (its BinarySelector and
BinaryReplaceWithQLinear), and ``condition, DQ(a), DQ(b) -> Where -> Q`` ``com.microsoft:QLinearWhere`` (its
WhereSelector; ``tests/quant/test_qdq_binary.py`` and ``test_qdq_where.py`` check each condition against the graph
ONNX Runtime writes):

- both inputs of the Add/Mul (a Where's two inputs after the condition) come from ``DequantizeLinear`` nodes (a
  ``DequantizeLinear`` read elsewhere too still counts: ONNX Runtime first gives each reader its own copy);
- one ``QuantizeLinear`` reads the output, which goes nowhere else and is no graph output (a Relu/Clip between
  them that the quantization makes redundant is dropped first, as for MatMul);
- a, b and the output have one 8-bit type, as ONNX Runtime sees it after moving int8 pairs to uint8 (x86); no
  ``qdqisint8allowed`` test: int8 groups it could not move are fused as int8;
- scales and zero points scalars (rank 0; measured: a 1-element 1-D one, or one per channel, leaves the group in
  float), constant or not (a scale that is a graph input is fused).  A Where takes 1-element 1-D ones too; one per
  channel ONNX Runtime fuses and then fails as the session loads ("input X_scale must be a scalar or 1D tensor of
  size 1"): such a group runs in float here, as the model states.
"""

from __future__ import annotations

from .qdq_rules import EIGHT_BIT, _op

KINDS = {"Add": "QLinearAdd", "Mul": "QLinearMul", "Where": "QLinearWhere"}


def binary_group(rules, n):
    """(kind, a's DQ, b's DQ, q, redundant Relu/Clip or None) where ONNX Runtime fuses Add/Mul/Where ``n``, else
    None."""
    if not any(_op(n, k) for k in KINDS):
        return None
    first = 1 if n.op_type == "Where" else 0  # a Where's condition comes first
    if len(n.input) != first + 2 or not all(n.input):
        return None
    g = rules.g
    a_dq, b_dq = (g.producer.get(i) for i in n.input[first:])
    if not (_op(a_dq, "DequantizeLinear") and _op(b_dq, "DequantizeLinear")):
        return None
    q, clip = rules.output_q(n)
    if q is None or q is False:
        return None
    ta, tb, ty = rules.qtype(a_dq.input[0]), rules.qtype(b_dq.input[0]), rules.q_out_type(q)
    if ta not in EIGHT_BIT or ta != tb or ta != ty:
        return None
    if not all(rules.per_tensor(d) and (first or _rank0(g, d)) for d in (a_dq, b_dq, q)):
        return None
    return KINDS[n.op_type], a_dq, b_dq, q, clip


def _rank0(g, node) -> bool:
    """A Q/DQ node whose scale and zero point are scalars: ONNX Runtime leaves a group with a 1-element 1-D one
    in float (measured, tests/quant/test_qdq_binary.py)."""
    zp = node.input[2] if len(node.input) > 2 and node.input[2] else None
    return g.shape(node.input[1]) == () and (zp is None or g.shape(zp) == ())


def binary_node(rules, found, node, name, zero_point):
    """The QLinearAdd/QLinearMul/QLinearWhere node for a group :func:`binary_group` found in ``node``;
    ``zero_point(node, dtype)`` names a node's zero point, or a new 0 of ``dtype`` where it is left out (as ONNX
    Runtime reads a missing one)."""
    from onnx import helper

    from .qdq_gemm import MS_DOMAIN

    kind, a_dq, b_dq, q, _ = found
    dtype = rules.g.dtype(a_dq.input[0])
    ins = [node.input[0]] if kind == "QLinearWhere" else []
    for dq in (a_dq, b_dq):
        ins += [dq.input[0], dq.input[1], zero_point(dq, dtype)]
    ins += [q.input[1], zero_point(q, dtype)]
    return helper.make_node(kind, ins, [q.output[0]], name=name, domain=MS_DOMAIN)
