"""ONNX Runtime's QDQS8ToU8Transformer (x86, ``session.qdqisint8allowed`` off): int8 ``QuantizeLinear ->
DequantizeLinear`` pairs of activations become uint8 pairs, each zero point plus 128.

The values the pair carries are the same (``q + 128`` with the zero point ``z + 128``), so MatMul and Conv
products, which read only ``q - z``, do not change.  QLinearAdd does: its kernel computes with the codes and the
zero points apart (:mod:`intdot.quant.qlinear_binary`), so the pair must be moved as ONNX Runtime moves it for its
bits to be ONNX Runtime's.  Which pairs move is :meth:`intdot.quant.qdq_rules._Rules._moved_to_uint8`; here only
those next to an Add or Mul group are moved in the graph (the others keep their int8 codes, which give the same values
and products), so that the rest of a model keeps the types it states.
"""

from __future__ import annotations

import numpy as np


def move_to_uint8(model, rules, names):
    """(a copy of ``model`` with the pairs whose ``QuantizeLinear`` outputs are ``names`` (of ``rules.moved``)
    moved to uint8, the rules rebuilt for it); the shapes inferred for ``model`` are reused (inference is the
    costly part of the rules)."""
    from onnx import numpy_helper

    from .qdq_rules import _Rules, _zp, fresh_names

    g = rules.g
    out = type(model)()
    out.CopyFrom(model)
    fresh = fresh_names(out)
    info = dict(g.info)
    # The nodes of the copy, in the same places: the Q node producing each moved name, and its DQ reader.
    producer = {o: n for n in out.graph.node for o in n.output}
    readers = {}
    for n in out.graph.node:
        for i in n.input:
            readers.setdefault(i, []).append(n)
    for name in sorted(names):
        q = producer[name]
        dq = readers[name][0]
        zero = int(np.ravel(g.const[_zp(q)])[0]) + 128
        new = fresh(f"{_zp(q)}_uint8")
        out.graph.initializer.append(numpy_helper.from_array(np.array(zero, np.uint8), new))
        q.input[2] = new
        dq.input[2] = new
        shape = info.get(name, (None, None))[1]
        info[name] = (np.dtype(np.uint8), shape)
    # Declared types of the moved values would say int8: drop them (shape inference is not run again).
    kept = [vi for vi in out.graph.value_info if vi.name not in names]
    del out.graph.value_info[:]
    out.graph.value_info.extend(kept)
    return out, _Rules(out, rules.int8_allowed, info=info, platform=rules.platform)
