"""The float fusions of ONNX Runtime's optimizer that change bits: its GeluFusion.

PyTorch writes GELU as ``x / sqrt(2) -> Erf -> + 1 -> * x -> * 0.5`` (before ONNX opset 20 had a Gelu), and ONNX
Runtime, at its default optimization level, makes that chain one Gelu node (``com.microsoft:Gelu``; ONNX's
``Gelu`` from opset 20), whose kernel multiplies by ``float32(1 / sqrt(2))`` where the graph divides by ``sqrt(2)``
(:func:`intdot.quant.float_kernels.gelu`): a few ulps apart.  :func:`fuse_gelu` fuses the same chains, under the
conditions of its ``gelu_fusion.cc`` (checked against its optimized graphs in ``tests/quant/test_float_kernels.py``):

- ``Div(x, c)`` with ``c`` a constant of one element (rank 0 or shape [1]) within ``1e-8 + 1e-5 * sqrt(2)`` of
  ``float32(sqrt(2))``, read by an ``Erf`` alone, read by an ``Add`` alone whose other input is such a constant near
  1.0;
- then either ``Mul(add, Mul(x, 0.5))``, the inner Mul read by the outer alone, or ``Mul(x, add)`` read by a
  ``Mul(., 0.5)`` alone (either operand order in each);
- no value inside the chain a graph output;
- ``x`` not a DequantizeLinear's output (ONNX Runtime gives each of its readers a copy first, so the chain's two
  uses of ``x`` read two values).

A decomposed layer norm and RMSNorm, which its LayerNormFusion and SimplifiedLayerNormFusion make one node, are
fused by :mod:`intdot.quant.layer_norm_fusion`.  Its other float fusions (SkipLayerNormalization, Attention,
FastGelu, ...) are not modelled (``docs/differences.md``, row 28); BiasGelu and QuickGelu give the bits of the nodes
they replace.
"""

from __future__ import annotations

import math

import numpy as np

from .qdq_rules import _Graph, _op, rebuilt

MS_DOMAIN = "com.microsoft"


def _near(g, name, expected: float) -> bool:
    """ONNX Runtime's CheckConstantInput: a constant of one element, of a float type, within its tolerance."""
    if name not in g.const:
        return False
    shape = g.const.shape(name)
    if shape not in ((), (1,)):
        return False
    v = np.asarray(g.const[name])
    if v.dtype.kind != "f" or not np.isfinite(v).all():
        return False
    expected = float(np.float32(expected))
    return abs(float(v.ravel()[0]) - expected) <= 1e-8 + 1e-5 * abs(expected)


def _other(node, name):
    """The input of the two-input ``node`` that is not ``name`` (None where both or neither are)."""
    a, b = node.input[0], node.input[1]
    return b if a == name and b != name else a if b == name and a != name else None


def _chain(g, div):
    """(nodes to remove, the value the fused Gelu writes) where ``div`` starts a chain ONNX Runtime fuses."""
    if len(div.input) != 2 or not _near(g, div.input[1], math.sqrt(2)):
        return None
    x = div.input[0]
    if _op(g.producer.get(x), "DequantizeLinear"):
        return None  # its EnsureUniqueDQForNodeUnit gives the Div and the Mul copies of their own: no chain is left
    erf = g.only_reader(div.output[0])
    if not _op(erf, "Erf"):
        return None
    add = g.only_reader(erf.output[0])
    if not _op(add, "Add") or not _near(g, _other(add, erf.output[0]) or "", 1.0):
        return None
    mul = g.only_reader(add.output[0])
    if not _op(mul, "Mul"):
        return None
    partner = _other(mul, add.output[0])
    inner = g.producer.get(partner)
    if _op(inner, "Mul") and g.only_reader(partner) is mul and _near(g, _other(inner, x) or "", 0.5):
        nodes, out = [div, erf, add, inner, mul], mul.output[0]
    elif partner == x:
        half = g.only_reader(mul.output[0])
        if not _op(half, "Mul") or not _near(g, _other(half, mul.output[0]) or "", 0.5):
            return None
        nodes, out = [div, erf, add, mul, half], half.output[0]
    else:
        return None
    if any(o in g.outputs for n in nodes for o in n.output if o != out):
        return None
    return nodes, out


def fuse_gelu(model):
    """``model`` with each GELU chain ONNX Runtime fuses made one Gelu node (module docstring); ``model`` itself
    where there is none."""
    from onnx import helper

    g = _Graph(model, info={})
    chains = [c for c in (_chain(g, n) for n in model.graph.node if _op(n, "Div")) if c is not None]
    if not chains:
        return model
    opset = g.opset
    removed, placed = {id(n) for nodes, _ in chains for n in nodes}, {}
    for nodes, out in chains:
        x, last = nodes[0].input[0], nodes[-1]
        domain = "" if opset >= 20 else MS_DOMAIN
        placed[id(last)] = helper.make_node("Gelu", [x], [out], name=f"{last.name or out}_Gelu", domain=domain)
    return rebuilt(model, placed, removed, domain=None if opset >= 20 else MS_DOMAIN)
