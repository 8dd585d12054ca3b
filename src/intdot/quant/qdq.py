"""QDQ groups into integer nodes, by ONNX Runtime's rules, so that an integer product runs where ONNX Runtime's
CPU graph optimizer (1.32) puts one, and nowhere else.

A QDQ model states its arithmetic in float: ``DequantizeLinear -> MatMul/Conv -> QuantizeLinear``.  ONNX Runtime
rewrites the groups its selectors accept into integer nodes and runs everything else in float, as written; the two
differ in rounding, so whether a group is rewritten decides the bits.  What it rewrites (read from its sources,
``qdq_selectors.cc``, ``qdq_actions.cc``, ``qdq_s8_to_u8.cc``, ``relu_quantizelinear.cc``,
``clip_quantizelinear.cc``, and where they say nothing, from the graphs its optimizer writes;
``tests/quant/test_qdq.py`` checks each rule against it):

- ``DQ(x), DQ(w) -> MatMul -> Q`` becomes ``QLinearMatMul`` when x and the output have the same type, both 8-bit,
  w 8-bit (int8 x needs int8 w and int8 allowed, below), x and the output quantized per tensor and w per tensor
  or per column (its last axis): it leaves per-row weights, per-K activations and per-axis outputs in float.
- ``DQ(x), DQ(w) -> MatMul`` with no ``QuantizeLinear`` after it becomes ``com.microsoft:MatMulIntegerToFloat``:
  the int32 product times ``float32(x_scale * w_scale)``; here ``MatMulInteger -> Cast -> Mul`` compute the same
  bits.  (ONNX Runtime rewrites it whatever the scales' axes, and its kernel then fails or misreads them; only
  per-tensor x and per-tensor or per-column w are rewritten here, the rest runs in float, as the model states.)
- ``DQ(x), DQ(w)[, DQ(bias int32)] -> Conv -> Q`` becomes ``QLinearConv`` on the same type rules (int8 x needs
  int8 w; no 4-bit weights), when the bias has zero points of 0 and a scale within ``1e-6 + 1e-2 * |x_scale *
  w_scale|`` of ``x_scale * w_scale`` in every channel (ONNX Runtime then adds the int32 bias as it is).
  (ONNX Runtime also rewrites one whose weight scales run along the input channels, or whose output is per
  channel, and reads them per output channel, or fails; those run in float here.)
- ``DQ(x), DQ(w)[, DQ(bias int32)] -> Gemm [-> Q]`` becomes ``com.microsoft:QGemm`` (with a float output where
  no ``QuantizeLinear`` follows), and so does a MatMul whose output only an ``Add`` reads, which ONNX Runtime's
  MatMulAddFusion first merges into a Gemm where the Add's other operand has a shape Gemm takes
  (``becomes_gemm``); a constant 1-D float bias of a Gemm or Conv whose output reaches a ``QuantizeLinear`` is
  first rounded onto ``x_scale * w_scale``'s int32 grid (its WeightBiasQuantization).  The rules, and where they
  differ from the MatMul ones (no ``int8_allowed`` test; the bias's scale and zero point not read), are in
  :mod:`intdot.quant.qdq_gemm`.
- ``DQ(a), DQ(b) -> Add/Mul -> Q`` becomes ``com.microsoft:QLinearAdd`` / ``QLinearMul`` when a, b and the output
  have one 8-bit type (after the int8 move below; no ``int8_allowed`` test) and every scale and zero point is a
  scalar; the int8 pairs next to such a group are moved to uint8 in the graph, as ONNX Runtime moves them, since
  QLinearAdd's kernel rounds differently for the moved codes (:mod:`intdot.quant.qdq_binary`,
  :mod:`intdot.quant.qlinear_binary`).
- ``DQ(x) -> GlobalAveragePool/AveragePool/Sigmoid/LeakyRelu -> Q`` becomes ``com.microsoft:QLinearGlobalAveragePool``
  / ``QLinearAveragePool`` / ``QLinearSigmoid`` / ``QLinearLeakyRelu`` when x and the output have one 8-bit type
  (after the int8 move, whatever ``int8_allowed`` says) and one-element parameters; its int8 pairs are moved
  too, since QLinearAveragePool adds the zero point in float32 (:mod:`intdot.quant.qdq_unary`,
  :mod:`intdot.quant.qlinear_pool`, :mod:`intdot.quant.qlinear_lookup`).
- ``DQ(x0), DQ(x1), ... -> Concat -> Q`` becomes ``com.microsoft:QLinearConcat`` when every input is dequantized,
  all inputs and the output have one 8-bit type (after the int8 move; no ``int8_allowed`` test) and one-element
  parameters (:mod:`intdot.quant.qdq_concat`, :mod:`intdot.quant.qlinear_concat`).
- Before any of these, Q/DQ pairs are copied across Reshape, Transpose, Squeeze, Unsqueeze, Slice and MaxPool
  so that the groups around them fuse (its QDQPropagationTransformer, :mod:`intdot.quant.qdq_propagate`), and
  two pairs in a row, ``Q1 -> DQ1 -> Q2 -> DQ2``, become one on a scale and zero point
  computed from both (its DoubleQDQPairsRemover, :mod:`intdot.quant.qdq_double`): where the pairs differ, the
  values change.
- Constants are initializers and ``Constant`` nodes (ONNX Runtime folds those into initializers); below IR version
  4, initializers that are also listed as graph inputs are constants too.  Per-column weights are 2-D.
- 16-bit and 4-bit groups are never rewritten; nor is a group whose MatMul/Conv output also goes elsewhere or is
  a graph output.  A ``Relu``, or a ``Clip`` whose range covers the output's, between the product and its
  ``QuantizeLinear`` is dropped first when the quantization makes it redundant.
- ``int8_allowed`` is ONNX Runtime's ``session.qdqisint8allowed``.  Its default is False on x86, where ONNX
  Runtime first moves every int8 ``QuantizeLinear -> DequantizeLinear`` pair of an activation to uint8 (zero point
  + 128; the values are the same) and so runs uint8 x int8 groups; a pair it cannot move (its zero points not
  constant, or the ``QuantizeLinear`` read twice) keeps the group in float, as does an int8 activation whose
  output pair was moved and whose input was not.  True is its default on Arm.

What ONNX Runtime does that is not modelled, so that those parts run in float here and its bits may differ, is
listed in docs/differences.md (its other QDQ fusion, ``MatMulNBits`` for weight-only and 16-bit groups; float
weights of a Gemm or Conv, which it quantizes to int8 first).
"""

from __future__ import annotations

import numpy as np

from ._args import platform_of
from .qdq_rules import _FLOAT_TYPE, _op, _Rules, _zp, fresh_names


def fuse(model, *, int8_allowed: bool = False, platform: str = "x86"):
    """``model`` with the QDQ groups ONNX Runtime rewrites into integer nodes rewritten (module docstring)."""
    from onnx import helper, numpy_helper

    from .qdq_binary import binary_group, binary_node
    from .qdq_concat import concat_group, concat_node
    from .qdq_double import remove_double_pairs
    from .qdq_gemm import gemm_group, gemm_view, qgemm_nodes, quantize_biases
    from .qdq_propagate import propagate
    from .qdq_s8u8 import move_to_uint8
    from .qdq_unary import unary_group, unary_node

    platform = platform_of(platform)  # the kernel family: "arm" for both Arm values
    model = propagate(remove_double_pairs(model))  # ONNX Runtime's first two QDQ passes, at every level
    rules = _Rules(model, int8_allowed, platform=platform)
    # ONNX Runtime moves int8 activation pairs to uint8 before it fuses (x86): QLinearAdd's and QLinearAveragePool's
    # bits depend on it (they add the zero point in float), QLinearAdd/QLinearMul/QLinearConcat nodes take one
    # type, and the pooling groups are fused only as uint8.
    binaries = [f for f in (binary_group(rules, n) for n in model.graph.node) if f is not None]
    near = {v for f in binaries for v in (f[1].input[0], f[2].input[0], f[3].output[0])}
    unaries = [f for f in (unary_group(rules, n) for n in model.graph.node) if f is not None]
    near |= {v for f in unaries for v in (f[1].input[0], f[2].output[0])}
    concats = [f for f in (concat_group(rules, n) for n in model.graph.node) if f is not None]
    near |= {v for f in concats for v in (*(d.input[0] for d in f[0]), f[1].output[0])}
    near &= rules.moved
    if near:
        model, rules = move_to_uint8(model, rules, near)
    biased = quantize_biases(model, rules, platform)
    if biased is not model:  # the new bias DequantizeLinear nodes are part of the groups below
        model, rules = biased, _Rules(biased, int8_allowed, platform=platform)
    replace, drop, extra = {}, set(), []
    fresh = fresh_names(model)

    def zero_point(node, dtype):
        """A Q/DQ node's zero point, or a new initializer 0 of ``dtype`` where it is left out (as ONNX Runtime)."""
        if _zp(node) is not None:
            return _zp(node)
        name = fresh(f"{node.input[0]}_zero_point")
        extra.append(numpy_helper.from_array(np.zeros((), dtype), name))
        return name

    def fuse_one_node(n) -> bool:
        """Rewrite ``n`` where it is an Add/Mul/Where, one-input or Concat group's operator (each group found ends
        with its QuantizeLinear and its redundant Relu/Clip or None, which the new node replaces)."""
        for group, make in ((binary_group, binary_node), (unary_group, unary_node), (concat_group, concat_node)):
            found = group(rules, n)
            if found is not None:
                *_, q, clip = found
                replace[id(n)] = [make(rules, found, n, n.name or q.name, zero_point)]
                drop.update(id(m) for m in (q, clip) if m is not None)
                return True
        return False

    for n in model.graph.node:
        if fuse_one_node(n):
            continue
        if n.op_type not in ("MatMul", "Conv", "Gemm") or n.domain not in ("", "ai.onnx"):
            continue
        view = gemm_view(rules, n)
        if view is not None:
            found = gemm_group(rules, view)
            if found is not None:
                q, clip = found[3], found[4]
                replace[id(n)] = qgemm_nodes(rules, view, found, fresh, zero_point, extra)
                drop.update(id(m) for m in (*view.nodes[1:], q, clip) if m is not None)
            if n.op_type == "Gemm" or found is not None:
                continue
        found = rules.group(n)
        if found is None:
            continue
        kind, x_dq, w_dq, b_dq, q, clip = found
        tx, tw = rules.g.dtype(x_dq.input[0]), rules.g.dtype(w_dq.input[0])
        xz, wz = zero_point(x_dq, tx), zero_point(w_dq, tw)
        if kind == "MatMulIntegerToFloat":
            # ONNX Runtime's kernel: float32(int32 product) * float32(x_scale * w_scale), in that order.
            out = n.output[0]
            acc, accf, mul = fresh(f"{out}_int32"), fresh(f"{out}_float"), fresh(f"{out}_scale")
            replace[id(n)] = [
                helper.make_node("MatMulInteger", [x_dq.input[0], w_dq.input[0], xz, wz], [acc], name=n.name),
                helper.make_node("Cast", [acc], [accf], to=_FLOAT_TYPE),
                helper.make_node("Mul", [x_dq.input[1], w_dq.input[1]], [mul]),
                helper.make_node("Mul", [accf, mul], [out]),
            ]
            continue
        ins = [x_dq.input[0], x_dq.input[1], xz, w_dq.input[0], w_dq.input[1], wz]
        ins += [q.input[1], zero_point(q, rules.g.dtype(q.output[0]) or tx)]
        if b_dq is not None:
            ins.append(b_dq.input[0])
        attrs = {a.name: helper.get_attribute_value(a) for a in n.attribute}
        replace[id(n)] = [helper.make_node(kind, ins, [q.output[0]], name=n.name or q.name, **attrs)]
        drop.update({id(q), id(clip)} if clip is not None else {id(q)})
    if not replace:
        return model
    nodes = [m for n in model.graph.node if id(n) not in drop for m in replace.get(id(n), [n])]
    used = {i for n in nodes for i in n.input} | rules.g.outputs
    # DequantizeLinear nodes whose only readers were fused away go too.
    nodes = [n for n in nodes if not _op(n, "DequantizeLinear") or any(o in used for o in n.output)]
    out = type(model)()
    out.CopyFrom(model)
    del out.graph.node[:]
    out.graph.node.extend(nodes)
    out.graph.initializer.extend(extra)
    if any(n.domain == "com.microsoft" for n in nodes) and not any(
        o.domain == "com.microsoft" for o in out.opset_import
    ):
        out.opset_import.extend([helper.make_opsetid("com.microsoft", 1)])
    return out
