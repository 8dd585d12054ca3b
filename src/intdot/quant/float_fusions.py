"""The float fusions of ONNX Runtime's optimizer that change bits: its GeluFusion, FastGeluFusion, MatMulAddFusion,
MatMulScaleFusion and MatMulNBitsFusion.

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

FastGeluFusion makes a tanh GELU chain one ``com.microsoft`` FastGelu, whose kernel forms ``x * (C * x * x + B)``
(fused on Arm) before MLAS's tanh, where the chain cubes, adds and scales in its own order.  :func:`fuse_fast_gelu`
fuses its two formulas, as 1.32 does (``tests/quant/test_fast_gelu.py``): ``x * 0.044715 * x + 1`` times
``0.7978845834732056 * x`` (TensorFlow's), or ``(Pow(x, 3) * 0.044715 + x) * 0.7978845834732056`` (PyTorch's
``gelu_new``, GPT-2's, at any opset), then Tanh, ``+ 1``, times ``0.5 * x``; every constant one element within
the GELU's tolerance, every node float32 with no graph output (the chain's last Mul neither), each but the last
read once, and ``0.5 * x`` read by the chain alone (ONNX Runtime removes it whatever else reads it, and then refuses
its own graph).

MatMulAddFusion makes a float ``MatMul`` and the ``Add`` after it one ``Gemm``, whose SGEMM starts from the
bias and adds each block of K to it (:mod:`intdot.quant.sgemm`): where K is more than one block, not the bits of
the product then the sum.  :func:`fuse_matmul_add` fuses the same pairs, under the conditions ONNX Runtime 1.32
applies (checked against its optimized graphs in ``tests/quant/test_matmul_add_fusion.py``):

- the MatMul read by the Add alone (one input slot), not a graph output; the Add's version 7 or later; MatMul's
  first input and the Add's first input of one type, float32, float16 or bfloat16;
- the shapes of both MatMul inputs known, B 2-D;
- A 2-D: the Add's other input ``C`` of shape ``[N]``, ``[1, N]``, ``[M, 1]`` or ``[M, N]`` (each dimension the same
  value or the same symbolic name);
- A of another rank: every dimension of A and B fixed, ``C`` of shape ``[N]``; a ``Reshape`` of A to ``[M, K]``
  before the Gemm and one back after it (1.32 fuses an attention's projections too, which later sources leave to
  AttentionFusion).

MatMulScaleFusion moves a scalar ``Mul`` or ``Div`` of a float MatMul's input or output into the ``alpha`` of one
``com.microsoft`` FusedMatMul, which MLAS applies to each block's sum: a scaled input is not rounded first, and a
Div by ``s`` multiplies by ``float32(1 / s)`` (an attention's ``scores / sqrt(d)``).  :func:`fuse_matmul_scale`
fuses under 1.32's conditions (``tests/quant/test_matmul_scale_fusion.py``), after MatMulAddFusion (a MatMul that
became a Gemm is not one):

- a MatMul (version 9 or later) of float32 operands (ONNX Runtime's float64 ones are left apart here: not
  modelled);
- each input written by a Mul or a Div (version 7 or later) by a constant initializer of one element (either
  operand of a Mul, the divisor of a Div) whose rank is at most the other operand's, that other operand of known
  shape and not a scalar: the MatMul reads the unscaled value (the scaling node stays where something else reads
  it);
- its output, where the MatMul alone writes to one node and no graph output, read by such a Mul or Div: the
  FusedMatMul writes its output;
- ``alpha``: the scales multiplied in float32 (a Div's as ``float32(1 / c)``).

MatMulNBitsFusion makes the ``Add`` after a ``com.microsoft`` MatMulNBits its bias input, which its kernels add at
their own step (before the zero points' part at ``accuracy_level=4``; where the SGEMM starts from it otherwise):
:func:`fuse_matmul_nbits_bias`, under 1.32's conditions and after the fusions it runs before (SkipLayerNormFusion
takes such an Add into its node, BiasGeluFusion an Add read by a Gelu: :func:`fuse_bias_gelu`): the MatMulNBits
without a bias, read by the Add alone (one slot) and no graph output, the Add's other input of shape ``[N]``.

A decomposed layer norm and RMSNorm, which its LayerNormFusion and SimplifiedLayerNormFusion make one node, and the
residual Add before a LayerNormalization, which its SkipLayerNormFusion takes in, are fused by
:mod:`intdot.quant.layer_norm_fusion`.  Its other float fusions (Attention, EmbedLayerNormalization, ...) are not
modelled (``docs/differences.md``, row 28); BiasGelu and QuickGelu give the bits of the nodes they replace.
"""

from __future__ import annotations

import math

import numpy as np

from .qdq_rules import _Graph, _op, inferred_values, rebuilt

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


def fuse_matmul_add(model, shapes_of=None):
    """``model`` with each float MatMul and the Add after it that ONNX Runtime's MatMulAddFusion makes one Gemm
    made one (module docstring); ``model`` itself where there is none.  ``shapes_of``:
    :func:`~intdot.quant.qdq_rules.inferred_values`' ``first``."""
    from onnx import helper, numpy_helper

    if not {"MatMul", "Add"} <= {n.op_type for n in model.graph.node if n.domain in ("", "ai.onnx")}:
        return model
    shapes = inferred_values(model, symbolic=True, first=shapes_of)
    g = _Graph(model, info=shapes)
    if g.opset < 7:  # Add-6: not a version the fusion takes
        return model
    placed, removed, inits = {}, set(), []
    for n in model.graph.node:
        found = _matmul_add(g, n, shapes)
        if found is None:
            continue
        add, a, bias, reshape = found
        stem = n.name or n.output[0]
        if reshape is None:
            placed[id(add)] = helper.make_node("Gemm", [a, n.input[1], bias], list(add.output),
                                               name=f"{stem}/MatMulAddFusion")  # fmt: skip
        else:
            into, back = reshape
            names = [f"{stem}/gemm_{k}" for k in ("input_shape", "output_shape", "input", "output")]
            inits += [numpy_helper.from_array(np.array(v, np.int64), k) for v, k in zip((into, back), names)]
            placed[id(add)] = [
                helper.make_node("Reshape", [a, names[0]], [names[2]], name=f"{stem}/gemm_input_reshape"),
                helper.make_node("Gemm", [names[2], n.input[1], bias], [names[3]], name=f"{stem}/MatMulAddFusion"),
                helper.make_node("Reshape", [names[3], names[1]], list(add.output), name=f"{stem}/gemm_output_reshape"),
            ]  # fmt: skip
        removed |= {id(n), id(add)}
    return rebuilt(model, placed, removed, initializers=inits) if placed else model


# The element types MatMulAddFusion takes (Gemm's floats).
_GEMM_TYPES = ("float32", "float16", "bfloat16")


def _same_dim(a, b) -> bool:
    """Two dimensions equal as ONNX's protobuf compares them: the same value, the same name, or both unknown."""
    return a == b


def _matmul_add(g, n, shapes):
    """(the Add, Gemm's A, its C, None or the (input, output) shapes of the Reshapes around it) where ONNX Runtime's
    MatMulAddFusion takes MatMul ``n``, else None."""
    if not _op(n, "MatMul") or len(n.input) != 2 or any(o in g.outputs for o in n.output):
        return None
    readers = g.edges(n.output[0])
    if len(readers) != 1 or not _op(readers[0], "Add") or len(readers[0].input) != 2:
        return None
    add = readers[0]
    dtype = g.dtype(n.input[0])
    if dtype is None or dtype != g.dtype(add.input[0]) or np.dtype(dtype).name not in _GEMM_TYPES:
        return None
    a_dims, b_dims = (g.shape(i) if i in g.const else shapes.get(i, (None, None))[1] for i in n.input)
    if a_dims is None or b_dims is None or len(b_dims) != 2:
        return None
    reshape = None
    if len(a_dims) != 2:
        if not all(isinstance(d, int) for d in (*a_dims, *b_dims)):
            return None  # Reshapes of fixed shapes only
        m = int(np.prod(a_dims[:-1], dtype=np.int64))
        reshape = ((m, b_dims[0]), (*a_dims[:-1], b_dims[1]))
    bias = add.input[1] if add.input[0] == n.output[0] else add.input[0]
    c_dims = g.shape(bias) if bias in g.const else shapes.get(bias, (None, None))[1]
    if c_dims is None:
        return None
    one = lambda d: d == 1  # noqa: E731
    n_dim = b_dims[1]
    valid = (len(c_dims) == 1 and _same_dim(c_dims[0], n_dim)) or (reshape is None and len(c_dims) == 2 and (
        (one(c_dims[0]) and _same_dim(c_dims[1], n_dim))
        or (_same_dim(c_dims[0], a_dims[0]) and (one(c_dims[1]) or _same_dim(c_dims[1], n_dim)))))  # fmt: skip
    return (add, n.input[0], bias, reshape) if valid else None


def fuse_bias_gelu(model, shapes_of=None):
    """``model`` with each Add that ONNX Runtime's BiasGeluFusion takes into the ``com.microsoft`` Gelu after it
    made one BiasGelu (a FastGelu without a bias: its bias input); ``model`` itself where there is none.  The bits are
    the two nodes' (both kernels add the bias first); what changes is that MatMulNBitsFusion, which runs later, no
    longer finds the Add.  1.32's conditions: the Add (version 7 or later) read by the Gelu alone (one slot) and no
    graph output, not one MatMulIntegerToFloatFusion took first (:func:`integer_bias`); both inputs' shapes known,
    their last dimensions fixed and equal, one input 1-D (the bias)."""
    from onnx import helper

    g = _graph_with_shapes(model, shapes_of, _gelu_without_bias)
    if g is None:
        return model
    placed, removed = {}, set()
    for n in model.graph.node:
        if not _op(n, "Add") or g.opset < 7 or len(n.input) != 2 or n.output[0] in g.outputs:
            continue
        readers = g.edges(n.output[0])
        if len(readers) != 1 or not _gelu_without_bias(readers[0]) or id(readers[0]) in placed or integer_bias(g, n):
            continue
        dims = [g.shape(i) for i in n.input]
        if any(d is None or not d or not isinstance(d[-1], int) for d in dims) or dims[0][-1] != dims[1][-1]:
            continue
        if len(dims[0]) == 1:
            x, bias = n.input[1], n.input[0]
        elif len(dims[1]) == 1:
            x, bias = n.input
        else:
            continue
        after = readers[0]
        kind = "BiasGelu" if after.op_type == "Gelu" else "FastGelu"
        placed[id(after)] = helper.make_node(kind, [x, bias], list(after.output), name=f"{after.name}/BiasGeluFusion",
                                             domain=MS_DOMAIN)  # fmt: skip
        removed.add(id(n))
    return rebuilt(model, placed, removed) if placed else model


def _graph_with_shapes(model, shapes_of, wanted):
    """``model``'s graph with its inferred symbolic shapes where one of its nodes is ``wanted`` (a fusion's
    start), else None: nothing to fuse, and no inference run."""
    if not any(wanted(n) for n in model.graph.node):
        return None
    return _Graph(model, info=inferred_values(model, symbolic=True, first=shapes_of))


def integer_bias(g, add) -> bool:
    """Whether ONNX Runtime's MatMulIntegerToFloatFusion, which runs before the float fusions, takes ``add`` as its
    bias: ``MatMulInteger -> Cast -> Mul(., Mul(scales)) -> Add(., bias)`` (quantize_dynamic's chain), each node
    before the Add read once and no graph output, the bias a constant of shape ``[1, ..., 1, N]`` with N > 1."""
    readers = lambda n: sum(len(g.edges(o)) for o in n.output if o)  # noqa: E731
    mul = g.producer.get(add.input[0])
    if not _op(mul, "Mul") or readers(mul) != 1:
        return False
    parents = [g.producer.get(i) for i in mul.input]
    cast = next((p for p in parents if _op(p, "Cast")), None)
    scales = next((p for p in parents if _op(p, "Mul")), None)
    integer = g.producer.get(cast.input[0]) if cast is not None else None
    if scales is None or not _op(integer, "MatMulInteger"):
        return False
    if any(readers(n) != 1 or any(o in g.outputs for o in n.output) for n in (cast, integer, scales)):
        return False
    dims = g.const.shape(add.input[1]) if add.input[1] in g.const else None
    return dims is not None and len(dims) >= 1 and all(d == 1 for d in dims[:-1]) and dims[-1] > 1


def _gelu_without_bias(n) -> bool:
    """A ``com.microsoft`` Gelu, or FastGelu without a bias input: what BiasGeluFusion gives the Add before it."""
    if n is None or n.domain != MS_DOMAIN:
        return False
    return n.op_type == "Gelu" or (n.op_type == "FastGelu" and len([i for i in n.input if i]) == 1)


def fuse_matmul_nbits_bias(model, shapes_of=None):
    """``model`` with the Add after each ``com.microsoft`` MatMulNBits that ONNX Runtime's MatMulNBitsFusion takes
    in made its bias input (module docstring; the kernel then adds the bias at its own step,
    :mod:`intdot.quant.matmul_nbits`); ``model`` itself where there is none."""
    from onnx import helper

    nbits = lambda n: n.op_type == "MatMulNBits" and n.domain == MS_DOMAIN  # noqa: E731
    g = _graph_with_shapes(model, shapes_of, nbits)
    if g is None:
        return model
    placed, removed = {}, set()
    for n in model.graph.node:
        if not nbits(n) or (len(n.input) > 5 and n.input[5]) or g.opset < 7:
            continue
        readers = g.edges(n.output[0])
        if len(readers) != 1 or n.output[0] in g.outputs or not _op(readers[0], "Add") or len(readers[0].input) != 2:
            continue
        add = readers[0]
        bias = add.input[1] if add.input[0] == n.output[0] else add.input[0]
        width = next((a.i for a in n.attribute if a.name == "N"), None)
        if g.shape(bias) != (width,):
            continue
        inputs = (list(n.input) + [""] * 5)[:5] + [bias]
        fused = helper.make_node("MatMulNBits", inputs, list(add.output), name=n.name, domain=MS_DOMAIN)
        fused.attribute.extend(n.attribute)
        placed[id(add)] = fused
        removed.add(id(n))
    return rebuilt(model, placed, removed) if placed else model


def fuse_matmul_scale(model, shapes_of=None):
    """``model`` with each float MatMul and the scalar Mul or Div ONNX Runtime's MatMulScaleFusion moves into it made
    one ``com.microsoft`` FusedMatMul whose ``alpha`` is the scale (module docstring); ``model`` itself where there is
    none.  ``shapes_of``: as :func:`fuse_matmul_add`'s."""
    from onnx import helper

    kinds = {n.op_type for n in model.graph.node if n.domain in ("", "ai.onnx")}
    if "MatMul" not in kinds or not kinds & {"Mul", "Div"}:
        return model
    shapes = inferred_values(model, symbolic=True, first=shapes_of)
    g = _Graph(model, info=shapes)
    if g.opset < 9:  # MatMul-1: not a version the fusion takes
        return model
    placed, removed = {}, set()
    order = {id(m): k for k, m in enumerate(model.graph.node)}
    for n in model.graph.node:
        # (ONNX Runtime fuses float64 too; intdot's FusedMatMul is float32's: a float64 pair stays as it is)
        if not _op(n, "MatMul") or id(n) in removed or g.dtype(n.input[0]) != np.float32:
            continue
        inputs, scales, taken = list(n.input), [], []
        for slot, name in enumerate(n.input):
            p = g.producer.get(name)
            found = _scale(g, p) if p is not None and id(p) not in removed else None
            if found is None:
                continue
            value, kept = found
            if not g.shape(p.input[kept]):  # the unscaled input must not be a scalar (nor of unknown shape)
                continue
            inputs[slot] = p.input[kept]
            scales.append(value)
            if len(g.edges(name)) == 1 and name not in g.outputs:
                taken.append(p)
        outputs = list(n.output)
        after = g.edges(n.output[0]) if n.output[0] not in g.outputs else []
        found = _scale(g, after[0]) if len(after) == 1 and id(after[0]) not in removed else None
        if found is not None:
            scales.append(found[0])
            outputs = list(after[0].output)
            taken.append(after[0])
        if not scales:
            continue
        alpha = _alpha(scales)
        if alpha is None:
            continue
        node = helper.make_node("FusedMatMul", inputs, outputs, name=f"{n.name or n.output[0]}/MatMulScaleFusion/",
                                domain=MS_DOMAIN, alpha=alpha)  # fmt: skip
        last = max([n, *taken], key=lambda m: order[id(m)])
        placed[id(last)] = node
        removed |= {id(n)} | {id(m) for m in taken}
    return rebuilt(model, placed, removed, domain=MS_DOMAIN) if placed else model


def _scale(g, node):
    """(scale, the index of the scaled input) where ``node`` is a Mul or Div by a scalar constant initializer
    (ONNX Runtime's GetScaleFromNode: one element, of a rank no more than the other input's; an integer one only
    where float32 holds it exactly); a Div's scale is the reciprocal, in float32 (float64 for a double)."""
    if not (_op(node, "Div") or _op(node, "Mul")) or len(node.input) != 2 or g.opset < 7:
        return None
    for slot in (1,) if node.op_type == "Div" else (0, 1):
        c = node.input[slot]
        if c not in g.const:
            continue
        v = np.asarray(g.const[c])
        other = g.shape(node.input[1 - slot])
        if v.size != 1 or v.ndim > (len(other) if other is not None else 0):
            continue
        x = v.ravel()[0]
        if v.dtype.kind in "iu" and int(np.float32(x)) != int(x):
            continue
        if v.dtype.kind not in "iuf":
            continue
        double = v.dtype == np.float64
        value = np.float64(x) if double else np.float32(x)
        if node.op_type == "Div":
            value = 1.0 / value if double else np.float32(1) / value
        return (value, 1 - slot)
    return None


def _alpha(scales):
    """The scales' product as ONNX Runtime forms it: in float32, or where one is a double in float64, and then only
    if float32 holds it exactly (None otherwise)."""
    if any(isinstance(s, np.float64) for s in scales):
        total = np.float64(1.0)
        for s in scales:
            total = total * np.float64(s)
        return float(np.float32(total)) if np.float64(np.float32(total)) == total else None
    total = np.float32(1)
    for s in scales:
        total = np.float32(total * np.float32(s))
    return float(total)


# FastGeluFusion's constants: 0.044715, sqrt(2 / pi) and the second formula's 0.044715 as float32 gives it.
_CUBE, _SQRT_2_PI, _CUBE32 = 0.044715, 0.7978845834732056, 0.044714998453855515


def fuse_fast_gelu(model, shapes_of=None):
    """``model`` with each tanh GELU chain ONNX Runtime's FastGeluFusion makes one ``com.microsoft`` FastGelu
    made one (module docstring); ``model`` itself where there is none.  ``shapes_of``: as
    :func:`fuse_matmul_add`'s."""
    from onnx import helper

    kinds = {n.op_type for n in model.graph.node if n.domain in ("", "ai.onnx")}
    if not {"Tanh", "Mul", "Add"} <= kinds:
        return model
    g = _Graph(model, info=inferred_values(model, first=shapes_of))
    if g.opset < 7:
        return model
    placed, removed = {}, set()
    for n in model.graph.node:
        if id(n) in removed:
            continue
        found = _fast_gelu(g, n)
        if found is None or any(id(m) in removed for m in found[0]):
            continue
        nodes, x = found
        last = nodes[-1]
        name = f"{last.name or last.output[0]}_FastGelu"
        placed[id(last)] = helper.make_node("FastGelu", [x], list(last.output), name=name, domain=MS_DOMAIN)
        removed |= {id(m) for m in nodes}
    return rebuilt(model, placed, removed, domain=MS_DOMAIN) if placed else model


def _fast_gelu(g, start):
    """(the chain's nodes, its input) where ``start`` begins a tanh GELU chain FastGeluFusion takes: ``x * 0.044715
    * x + 1`` times ``0.7978 * x`` (its first formula) or ``(Pow(x, 3) * 0.044715 + x) * 0.7978`` (its second), then
    Tanh, ``+ 1``, times ``0.5 * x``; each node float32, of a version it takes, no graph output, each but the last two
    read once."""
    if _op(start, "Mul") and _fused_kind(g, start, "Mul"):
        k = next((i for i in (0, 1) if _near(g, start.input[i], _CUBE)), None)
        if k is None:
            return None
        x = start.input[1 - k]
        mul2 = _next(g, start, "Mul")
        if mul2 is None or _other(mul2, start.output[0]) != x:
            return None
        add1 = _next(g, mul2, "Add")
        if add1 is None or not _near(g, _other(add1, mul2.output[0]) or "", 1.0):
            return None
        mul3 = _next(g, add1, "Mul")
        mul4 = g.producer.get(_other(mul3, add1.output[0]) or "") if mul3 is not None else None
        if mul4 is None or not _fused_kind(g, mul4, "Mul") or _scaled_by(g, mul4, _SQRT_2_PI) != x:
            return None
        nodes, inner = [start, mul2, add1, mul4, mul3], mul3
    elif _op(start, "Pow") and _fused_kind(g, start, "Pow"):
        x = start.input[0]
        if not _near(g, start.input[1], 3.0) or _op(g.producer.get(x), "Cast"):
            return None  # (a Cast before it: float16's form, not modelled)
        mul1 = _next(g, start, "Mul")
        if mul1 is None or not _near(g, _other(mul1, start.output[0]) or "", _CUBE32):
            return None
        add1 = _next(g, mul1, "Add")
        if add1 is None or _other(add1, mul1.output[0]) != x:
            return None
        mul2 = _next(g, add1, "Mul")
        if mul2 is None or not _near(g, _other(mul2, add1.output[0]) or "", _SQRT_2_PI):
            return None
        nodes, inner = [start, mul1, add1, mul2], mul2
    else:
        return None
    th = _next(g, inner, "Tanh")
    add2 = _next(g, th, "Add") if th is not None else None
    if add2 is None or not _near(g, _other(add2, th.output[0]) or "", 1.0):
        return None
    mul5 = next(iter(g.edges(add2.output[0])), None)
    if not _fused_kind(g, mul5, "Mul", single=False):
        return None
    mul6 = g.producer.get(_other(mul5, add2.output[0]) or "")
    # (ONNX Runtime removes the 0.5 * x node whatever else reads it: here it must be read by the chain alone)
    if not _fused_kind(g, mul6, "Mul") or _scaled_by(g, mul6, 0.5) != x:
        return None
    return nodes + [th, add2, mul6, mul5], x


def _fused_kind(g, node, kind, single=True) -> bool:
    """FastGeluFusion's CheckNode: ``kind`` (of a version it takes), float32 inputs, no graph output, and (``single``)
    one output edge."""
    if not _op(node, kind) or any(o in g.outputs for o in node.output):
        return False
    if kind == "Tanh" and g.opset < 6:
        return False
    if single and len(g.edges(node.output[0])) != 1:
        return False
    return all(g.dtype(i) == np.float32 for i in node.input if i)


def _next(g, node, kind):
    """The one node reading ``node``'s output, where it is a ``kind`` FastGeluFusion takes, read once itself."""
    readers = g.edges(node.output[0])
    return readers[0] if len(readers) == 1 and _fused_kind(g, readers[0], kind) else None


def _scaled_by(g, mul, value):
    """The other input of the two-input ``mul`` where one is a constant near ``value``, else None."""
    k = next((i for i in (0, 1) if _near(g, mul.input[i], value)), None)
    return None if k is None else mul.input[1 - k]
