"""ONNX Runtime's DivMulFusion, one of its first rewrite rules (every optimization level), which changes bits:
``Mul(y, Div(1, x))`` becomes ``Div(y, x)``, one rounding where there were two.

PyTorch writes ``x * torch.rsqrt(v)`` as ``Div(1, Sqrt(v))`` then ``Mul``, so a language model's RMSNorm reaches
ONNX Runtime's SimplifiedLayerNormFusion only once this rule has made it ``Div(x, Sqrt(v))``
(:mod:`.layer_norm_fusion`).  The conditions, as ``div_mul_fusion.cc`` states them and ONNX Runtime 1.32 applies
them (``tests/quant/test_div_mul_fusion.py``): the Div (ONNX's, any version) read by one input of one Mul alone and
no graph output; its first input a constant (an initializer that is no graph input, or a Constant node) of at most
one element equal to 1, of type float32, float16, double, int32 or int64 (so ``Mul(y, Div(1, x))`` on integers,
where ``1 / x`` truncates, becomes ``y / x`` too, as there).  The Div takes the Mul's other input as its first and
the Mul's outputs.
"""

from __future__ import annotations

import numpy as np

from .qdq_rules import _constant_value, rebuilt

_ONE_TYPES = frozenset(np.dtype(t) for t in (np.float32, np.float16, np.float64, np.int32, np.int64))


def _constants(model) -> dict:
    """Values of the constant initializers and Constant nodes, by name."""
    from onnx import numpy_helper

    inputs = {i.name for i in model.graph.input}
    out = {t.name: t for t in model.graph.initializer if t.name not in inputs}
    out = {name: numpy_helper.to_array(t) for name, t in out.items()}
    for n in model.graph.node:
        if n.op_type == "Constant" and n.domain in ("", "ai.onnx") and n.attribute and n.output:
            value = _constant_value(n)
            if value is not None:
                out[n.output[0]] = value
    return out


def _is_one(value) -> bool:
    return value is not None and value.dtype in _ONE_TYPES and value.size <= 1 and value.size and value.ravel()[0] == 1


def fuse_div_mul(model):
    """``model`` with each ``Div(1, x) -> Mul`` ONNX Runtime fuses made one Div (module docstring); ``model`` itself
    where there is none."""
    from onnx import helper

    g = model.graph
    kinds = {n.op_type for n in g.node if n.domain in ("", "ai.onnx")}
    if not {"Div", "Mul"} <= kinds:
        return model
    constants = _constants(model)
    readers: dict[str, list] = {}
    for n in g.node:
        for i in n.input:
            readers.setdefault(i, []).append(n)
    outputs = {o.name for o in g.output}
    replace, drop = {}, set()
    for n in g.node:
        if n.op_type != "Div" or n.domain not in ("", "ai.onnx") or len(n.input) != 2:
            continue
        out = n.output[0]
        users = readers.get(out, [])
        if out in outputs or len(users) != 1 or not _is_one(constants.get(n.input[0])):
            continue
        mul = users[0]
        if mul.op_type != "Mul" or mul.domain not in ("", "ai.onnx") or list(mul.input).count(out) != 1:
            continue
        other = mul.input[1] if mul.input[0] == out else mul.input[0]
        # in the Mul's place, where both of its inputs have been computed
        replace[id(mul)] = helper.make_node("Div", [other, n.input[1]], list(mul.output), name=n.name)
        drop.add(id(n))
    return rebuilt(model, replace, drop) if replace else model
