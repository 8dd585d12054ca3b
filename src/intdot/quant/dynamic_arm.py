"""``quantize_dynamic``'s bias as ONNX Runtime adds it on Arm: in the same rounding as the scale.

``onnxruntime.quantization.quantize_dynamic`` writes each MatMul as ``DynamicQuantizeLinear -> MatMulInteger ->
Cast -> Mul(scale)`` and leaves its bias ``Add`` after it; ``scale`` is ``Mul(x_scale, w_scale)``.  ONNX Runtime
fuses the chain, bias included, into ``com.microsoft:DynamicQuantizeMatMul``, whose output step is
``float32(acc) * scale + bias``.  On x86 that is two roundings, the graph's own bits.  Its NEON build computes the
step as one fused multiply-add (the compiler contracts the two operations), so each output can be an ulp from the
graph's.  Measured against ONNX Runtime 1.32 for AArch64 (``tests/quant/test_run.py``).

:func:`fuse_bias` makes that ``Mul -> Add`` pair one node, ``ai.intdot:MulAdd`` (``fma(a, b, c)``, broadcast),
under the conditions ONNX Runtime's fusion checks: the MatMulInteger's A comes from a DynamicQuantizeLinear, the
scale is a Mul of that node's scale output, the bias is a constant of shape ``(N,)`` or ``(1, ..., 1, N)`` with
``N > 1``, and every value between the MatMulInteger and the Add has that one reader and is no graph output.
(On a CPU with SME, int8 weights with non-negative constant scales and no zero point take KleidiAI's kernel
instead, which quantizes each row of A on its own: not modelled, ``docs/differences.md`` row 27.)
"""

from __future__ import annotations

from .qdq_rules import _attr, _Graph, _op

DOMAIN = "ai.intdot"


def _bias_shape(shape) -> bool:
    return shape is not None and len(shape) >= 1 and shape[-1] > 1 and all(d == 1 for d in shape[:-1])


def _other(node, name):
    """The input of a two-input ``node`` that is not ``name``."""
    a, b = node.input
    return b if a == name else a


def _chain(g: _Graph, mmi):
    """(Mul, Add, scale, bias) of the fusable chain after MatMulInteger ``mmi``, or None."""
    dql = g.producer.get(mmi.input[0])
    if not _op(dql, "DynamicQuantizeLinear") or dql.output[0] != mmi.input[0]:
        return None
    cast = g.only_reader(mmi.output[0])
    if not _op(cast, "Cast") or _attr(cast, "to", 0) != 1:  # to float32
        return None
    mul = g.only_reader(cast.output[0])
    if not _op(mul, "Mul") or len(mul.input) != 2:
        return None
    scale = _other(mul, cast.output[0])
    scale_node = g.producer.get(scale)
    if not _op(scale_node, "Mul") or dql.output[1] not in scale_node.input:
        return None
    add = g.only_reader(mul.output[0])
    if not _op(add, "Add") or len(add.input) != 2:
        return None
    bias = _other(add, mul.output[0])
    if bias not in g.const or not _bias_shape(g.const.shape(bias)):
        return None
    return mul, add, scale, cast.output[0], bias


def fuse_bias(model):
    """``model`` with each of quantize_dynamic's scale Mul and bias Add made one ``ai.intdot:MulAdd``, or
    ``model`` itself where there is none (module docstring)."""
    from onnx import helper

    g = _Graph(model, info={})
    chains = [c for c in (_chain(g, n) for n in model.graph.node if _op(n, "MatMulInteger")) if c is not None]
    if not chains:
        return model
    out = type(model)()
    out.CopyFrom(model)
    replace = {id(mul): (add, cast_out, scale, bias) for mul, add, scale, cast_out, bias in chains}
    drop = {id(add) for _, add, *_ in chains}
    nodes = []
    for n in model.graph.node:
        if id(n) in replace:
            add, cast_out, scale, bias = replace[id(n)]
            nodes.append(helper.make_node("MulAdd", [cast_out, scale, bias], [add.output[0]], n.name, domain=DOMAIN))
        elif id(n) not in drop:
            nodes.append(n)
    del out.graph.node[:]
    out.graph.node.extend(nodes)
    if not any(o.domain == DOMAIN for o in out.opset_import):
        out.opset_import.append(helper.make_opsetid(DOMAIN, 1))
    return out
