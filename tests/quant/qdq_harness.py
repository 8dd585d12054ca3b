"""What the QDQ fusion tests share: the pieces their small models are built of, random feeds for them, the fused
node kinds in ONNX Runtime's optimized graph and in intdot's rewrite, and the bits of both runs."""

from __future__ import annotations

import numpy as np

from intdot import quant

from . import ort
from .test_qdq import _session


def pairs(dtypes, scales, zps, *, channels=None, one_element=None, scale_input=False):
    """The initializers ``s{k}``, ``z{k}`` of each (dtype, scale, zero point), and the graph inputs among them.

    A zero point None is the middle of its type; ``channels``: pair 0 is per channel, of that many;
    ``one_element``: that parameter (``s0``, ``z1``, ...) is a 1-element 1-D tensor; ``scale_input``: ``s0`` is a
    float graph input, not an initializer."""
    from onnx import helper

    inits, graph_in = {}, []
    for k, (dtype, scale, zp) in enumerate(zip(dtypes, scales, zps)):
        zp = (0 if dtype == np.int8 else 128) if zp is None else zp
        if k == 0 and channels is not None:
            inits["s0"] = np.full(channels, scale, np.float32)
            inits["z0"] = np.full(channels, zp, dtype)
        else:
            inits[f"s{k}"] = np.array(scale, np.float32)
            inits[f"z{k}"] = np.array(zp, dtype)
    if one_element is not None:
        inits[one_element] = inits[one_element].reshape(1)
    if scale_input:
        graph_in.append(helper.make_tensor_value_info("s0", 1, []))
        del inits["s0"]
    return inits, graph_in


def q_dq(x, k, y, *, q=None, axis=None):
    """x -> QuantizeLinear -> DequantizeLinear -> y under the pair ``s{k}``, ``z{k}``; the codes are ``q{k}`` unless
    ``q`` names them."""
    from onnx import helper

    q = f"q{k}" if q is None else q
    ax = {} if axis is None else {"axis": axis}
    return [
        helper.make_node("QuantizeLinear", [x, f"s{k}", f"z{k}"], [q], **ax),
        helper.make_node("DequantizeLinear", [q, f"s{k}", f"z{k}"], [y], **ax),
    ]


def output_tail(k, *, after=None, extra_reader=False, no_q=False, q=None):
    """The nodes and graph outputs that follow the grouped op's output ``t``: [-> after] -> Q -> DQ -> y under the
    pair ``s{k}``, ``z{k}`` (codes ``q``, as :func:`q_dq`).

    ``extra_reader``: the value Q reads is also a graph output; ``no_q``: no Q -> DQ, that value is the output."""
    from onnx import helper

    nodes, last = [], "t"
    if after is not None:
        nodes.append(helper.make_node(after, ["t"], ["r"]))
        last = "r"
    outputs = [helper.make_tensor_value_info(last, 1, None)] if extra_reader or no_q else []
    if not no_q:
        nodes += q_dq(last, k, "y", q=q)
        outputs.append(helper.make_tensor_value_info("y", 1, None))
    return nodes, outputs


def make_model(nodes, graph_in, outputs, inits, *, microsoft=False):
    """The model of graph ``g``; ``inits`` maps names to arrays; ``microsoft``: its nodes include com.microsoft's.

    IR 10 is what ONNX Runtimes older than the onnx package still load."""
    from onnx import helper, numpy_helper

    initializers = [numpy_helper.from_array(np.asarray(v), name) for name, v in inits.items()]
    graph = helper.make_graph(nodes, "g", graph_in, outputs, initializers)
    opsets = [helper.make_opsetid("", 21)] + ([helper.make_opsetid("com.microsoft", 1)] if microsoft else [])
    return helper.make_model(graph, ir_version=10, opset_imports=opsets)


def feed(model, seed=0, spread=6.0):
    """Uniform floats for every float graph input (a scale given as an input, ``s0``, is 0.05), random bools for
    the bool ones."""
    rng = np.random.default_rng(seed)
    out = {}
    for vi in model.graph.input:
        shape = [d.dim_value for d in vi.type.tensor_type.shape.dim]
        if vi.type.tensor_type.elem_type == 9:  # bool
            out[vi.name] = rng.integers(0, 2, shape).astype(bool)
            continue
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
    got = quant.run(model, x, op="usdot", platform=ort.platform(), qdq_int8_allowed=int8_allowed)
    if only is not None:
        np.testing.assert_array_equal(got[only], _session(model, int8_allowed).run([only], x)[0])
        return
    want = _session(model, int8_allowed).run(None, x)
    for w, (name, g) in zip(want, got.items()):
        np.testing.assert_array_equal(g, w, err_msg=name)
