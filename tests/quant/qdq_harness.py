"""What the QDQ fusion tests share: random feeds for their small models, the fused node kinds in ONNX Runtime's
optimized graph and in intdot's rewrite, and the bits of both runs."""

from __future__ import annotations

import numpy as np

from intdot import quant

from .test_qdq import _session


def feed(model, seed=0, spread=6.0):
    """Uniform floats for every graph input (a scale given as an input, ``s0``, is 0.05)."""
    rng = np.random.default_rng(seed)
    out = {}
    for vi in model.graph.input:
        shape = [d.dim_value for d in vi.type.tensor_type.shape.dim]
        out[vi.name] = np.array(0.05, np.float32) if vi.name == "s0" else rng.uniform(-spread, spread, shape)
        out[vi.name] = out[vi.name].astype(np.float32)
    return out


def ort_kinds(model, tmp_path, int8_allowed=False, *, fused):
    """The kinds in ``fused`` that ONNX Runtime's optimizer writes into the graph, sorted."""
    import onnx

    path = tmp_path / "optimized.onnx"
    _session(model, int8_allowed, path=path)
    return sorted(n.op_type for n in onnx.load(str(path)).graph.node if n.op_type in fused)


def intdot_kinds(model, int8_allowed=False, *, fused):
    """The kinds in ``fused`` that intdot's QDQ rewrite makes, sorted."""
    prepared = quant.prepare(model, qdq_int8_allowed=int8_allowed)
    return sorted(n.op_type for n in prepared.model.graph.node if n.op_type in fused)


def same_bits(model, int8_allowed=False, seed=0, *, only=None):
    """intdot's outputs equal ONNX Runtime's bit for bit: every output, or the one named ``only``."""
    x = feed(model, seed)
    got = quant.run(model, x, op="usdot", qdq_int8_allowed=int8_allowed)
    if only is not None:
        np.testing.assert_array_equal(got[only], _session(model, int8_allowed).run([only], x)[0])
        return
    want = _session(model, int8_allowed).run(None, x)
    for w, (name, g) in zip(want, got.items()):
        np.testing.assert_array_equal(g, w, err_msg=name)
