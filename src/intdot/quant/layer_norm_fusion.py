"""ONNX Runtime's LayerNormFusion, SimplifiedLayerNormFusion and SkipLayerNormFusion, which change bits.

A layer norm PyTorch decomposes (``torch.onnx`` before opset 17: ``ReduceMean(x) -> Sub -> Pow(., 2) ->
ReduceMean -> Add(epsilon) -> Sqrt -> Div -> Mul(gamma) -> Add(beta)``) ONNX Runtime makes one ``LayerNormalization``
(ONNX's domain, at every opset: below 17 its own operator of that name), and an RMSNorm (``Pow(x, 2) -> ReduceMean ->
Add(epsilon) -> Sqrt -> Div(x, .) -> Mul(gamma)``) one ``SimplifiedLayerNormalization`` (ONNX's domain), each
computed by its kernel (:mod:`intdot.quant.layer_norm`) in place of the chain's operators.  :func:`fuse_layer_norm`
fuses the same chains, under the conditions of ``layer_norm_fusion.cc`` (a recent main, Cast to version 25; where
ONNX Runtime 1.32 behaves otherwise, as its optimized graphs in ``tests/quant/test_layer_norm_fusion.py`` show, as
1.32 behaves):

- LayerNormFusion, from each ReduceMean (version 1 to 18) not a graph output whose one or two readers are all Subs,
  each Sub's other operand the ReduceMean's input ``x`` (either operand order: ``Sub(mean, x)`` fuses too, and the
  fused node gives the layer norm, not its negation); a second Sub is PyTorch's old duplicate;
- the first Sub read by the Pow and the Div alone (or by the Div alone, the duplicate by the Pow); the Div (either
  operand order) read by the Mul alone, its other input a Sqrt's, read by it alone, of an Add read by it alone, one of
  whose inputs is a ReduceMean's, read by it alone, of the Pow, read by it alone; the Pow's exponent any float
  value, constant or not (not an integer type), its base the Sub; the Mul read by the Add alone (no value in the
  chain a graph output; the last Add's output may be);
- epsilon: the Add's other input (either operand order) a float32 constant of one element, any shape, taken as it
  is; anything else (a graph input, several values) leaves the chain;
- both ReduceMeans' axes, the attribute or (opset 18) a constant input (keepdims not read), one axis, the same once
  made negative by ``x``'s rank, and the last (``-1``, or ``rank - 1`` where the rank is known: not ``0`` of a 1-D
  ``x``); the node's ``axis`` is it, negative;
- gamma: the Mul's last input of rank 1, and beta the Add's, constant or not, of the same dimensions (a symbolic one
  as 0): ``[1]`` and ``[1]`` fuse; rank 0 or 2 do not; inputs ``[x, gamma, beta]``, outputs the last Add's;
  ``stash_type=1``;
- SimplifiedLayerNormFusion, after it and after DivMulFusion (:mod:`.div_mul_fusion`, which makes PyTorch's
  ``Mul(x, Div(1, Sqrt))`` the ``Div(x, Sqrt)`` below), so it also takes the tail ``Pow(d, 2) .. Mul(gamma)`` of a
  layer norm the first left, such as one with a differently shaped beta or a graph output inside, or on a
  dequantized value; from each Pow not a graph output, read by a ReduceMean alone, whose exponent is a constant of
  one element equal to 2 (any numeric type); then Add, Sqrt, Div each read by the next alone; the Div's first
  input the Pow's base; the Mul after it (not checked for other readers), its last rank-1 input gamma; epsilon and
  axes as above;
- a float32 to float32 Cast before the ReduceMean, after the Sub, on the Pow's exponent or after the Div (ONNX
  Runtime's CastElimination removes it before fusing) is passed over; a Cast of a constant (its ConstantFolding)
  is the constant;
- ``x`` not a DequantizeLinear's output (as for Gelu: its two readers each get a copy, the chain is broken);
- ``x`` float32.

SkipLayerNormFusion (:func:`fuse_skip_layer_norm`, after the two above and after MatMulAddFusion and the QDQ and
dynamic-quantization fusions, as in ONNX Runtime) makes a ``LayerNormalization`` and the ``Add`` that writes its
input one ``com.microsoft`` SkipLayerNormalization (:mod:`intdot.quant.skip_layer_norm`), as 1.32 does
(``tests/quant/test_skip_layer_norm.py``):

- the Add (version 7 or later) float, read by the LayerNormalization alone and no graph output, its two inputs 3-D
  of the same dimensions: each the same value, or the same symbolic name, one the model declares (its inputs,
  outputs or value infos: a dimension its inference cannot tell, as after a Reshape by ``-1`` or a broadcast of two
  names, has none, and does not fuse);
- a bias Add on its first input (then on its second) taken in too, as the node's ``bias``: read by it alone, no
  graph output, a 3-D input and a constant 1-D one of its last dimension, and not an Add that
  MatMulIntegerToFloatFusion took first (``MatMulInteger -> Cast -> Mul -> Add(bias)``, quantize_dynamic's);
- inputs ``[input, skip, gamma, beta(, bias)]``, the LayerNormalization's epsilon (1e-5 where it has none);
  its axis is not read;
- float32 (the float16 and bfloat16 layer norms it also fuses are left apart here: not modelled).

Not modelled (left unfused here): a chain on another float type (float16, bfloat16, double; with a Cast from such a
type before it ONNX Runtime 1.32 writes a node its session then refuses); Casts to or from other types inside the
chain, and float32 Casts elsewhere in it that ONNX Runtime removes first; a 1-D ``x`` with ``Mul(gamma, .)`` (ONNX
Runtime takes the Div's output as gamma and refuses the graph); chains inside subgraphs; ONNX Runtime's
ReciprocalMul layer norm fusion (AArch64 builds, off unless ``ORT_ENABLE_RM_LN_FUSION=1``).
"""

from __future__ import annotations

import numpy as np

from .float_fusions import _other, integer_bias
from .qdq_rules import _Graph, _op, inferred_values, rebuilt, unnamed

_FLOATS = frozenset({"float16", "float32", "float64", "bfloat16"})
_F32 = np.dtype(np.float32)
_FLOAT = 1  # TensorProto.FLOAT
# LayerNormalization's default epsilon, which SkipLayerNormFusion passes on where the node has none.
_LN_EPSILON = 1e-5


class _Chain:
    """What the layer norm matchers read: ``_Graph``'s, plus node order, ranks and the model's opset."""

    def __init__(self, model, dims):
        self.g = _Graph(model, info={k: (t, None if d is None or None in d else d) for k, (t, d) in dims.items()})
        self.order = {id(n): k for k, n in enumerate(model.graph.node)}
        self.dims = dims
        self.opset = self.g.opset

    def producer(self, name):
        """The node that writes ``name``; None for a constant (ONNX Runtime makes Constant nodes initializers, and
        folds a Cast of a constant)."""
        return None if self.folded(name) is not None else self.g.producer.get(name)

    def folded(self, name):
        """``name``'s value where it is a constant or a Cast of one (ONNX Runtime's ConstantFolding), else None."""
        if name in self.g.const:
            return np.asarray(self.g.const[name])
        p = self.g.producer.get(name)
        if _op(p, "Cast") and p.input and p.input[0] in self.g.const:
            from onnx import helper

            try:
                return np.asarray(self.g.const[p.input[0]]).astype(helper.tensor_dtype_to_np_dtype(_cast_to(p)))
            except (KeyError, TypeError, ValueError):
                return None
        return None

    def edges(self, node) -> list:
        """The readers of ``node``'s outputs, one per input slot, in node order (ONNX Runtime's output edges)."""
        out = [r for o in node.output if o for r in self.g.edges(o)]
        return sorted(out, key=lambda r: self.order[id(r)])

    def ends(self, node, count) -> bool:
        """ONNX Runtime's CheckOutputEdges: no output of ``node`` a graph output, and ``count`` output edges."""
        return not any(o in self.g.outputs for o in node.output) and len(self.edges(node)) == count

    def child(self, node, kind):
        return next((r for r in self.edges(node) if _op(r, kind)), None)

    def parents(self, node) -> list:
        out = {id(p): p for p in (self.producer(i) for i in node.input if i) if p is not None}
        return sorted(out.values(), key=lambda p: self.order[id(p)])

    def parent(self, node, kind):
        return next((p for p in self.parents(node) if _op(p, kind)), None)

    def dtype(self, name):
        t = self.g.dtype(name)
        return None if t is None else np.dtype(t)

    def floats(self, node, first=None) -> bool:
        """IsSupportedDataType: the inputs (the first ``first`` of them) float16, float, double or bfloat16."""
        names = [i for i in node.input if i][:first]
        return all(getattr(self.dtype(i), "name", None) in _FLOATS for i in names)

    def rank(self, name):
        d = self.g.const.shape(name) if name in self.g.const else self.dims.get(name, (None, None))[1]
        return None if d is None else len(d)

    def shape0(self, name):
        """The dimensions as ONNX Runtime compares them: a symbolic one is 0."""
        d = self.g.const.shape(name) if name in self.g.const else self.dims[name][1]
        return tuple(0 if v is None else v for v in d)

    def noop_cast(self, node) -> bool:
        """A Cast from float32 to float32: ONNX Runtime's CastElimination removes it before the fusions run (a
        Cast of a constant it folds); other Casts are not modelled."""
        return _op(node, "Cast") and int(_cast_to(node)) == _FLOAT and self.dtype(node.input[0]) == _F32


def _cast_to(node):
    return next((a.i for a in node.attribute if a.name == "to"), 0)


def _axes(c, rmean):
    """ReduceMean's axes: the attribute, or (opset 18) a constant second input; [] where neither."""
    for a in rmean.attribute:
        if a.name == "axes":
            return [int(v) for v in a.ints]
    if len(rmean.input) == 2 and rmean.input[1] in c.g.const:
        return [int(v) for v in np.asarray(c.g.const[rmean.input[1]]).ravel()]
    return []


def _normal_axes(axes, rank):
    """ONNX Runtime's CheckAxesOnReduceMean: the axes made negative (which needs the rank where one is positive),
    consecutive and ending at -1; None where they are not."""
    axes = sorted(axes)
    if axes[-1] > 0:
        if rank is None:
            return None
        axes = sorted(a - rank if a >= 0 else a for a in axes)
    if any(b != a + 1 for a, b in zip(axes, axes[1:])) or axes[-1] != -1:
        return None
    return axes


def _epsilon(c, add, var):
    """The float32 constant of one element ``add`` adds to ``var``, as ONNX Runtime 1.32 takes it; None where the
    other input is none such (it then leaves the chain)."""
    other = _other(add, var)
    if other is None or other not in c.g.const:
        return None
    v = np.asarray(c.g.const[other])
    return float(v.ravel()[0]) if v.dtype == _F32 and v.size == 1 else None


def _first_input_node(c, node):
    ps = c.parents(node)
    return ps[0] if ps else None


def _layer_norm_match(c, rm1):
    """(nodes to remove, the LayerNormalization node) where ``rm1`` starts a chain ONNX Runtime fuses."""
    from onnx import helper

    g = c.g
    if c.opset < 7 or not rm1.input or any(o in g.outputs for o in rm1.output) or not c.floats(rm1, 1):
        return None
    kids = c.edges(rm1)
    if len(kids) not in (1, 2) or not all(_op(k, "Sub") for k in kids):
        return None
    x, mean = rm1.input[0], rm1.output[0]
    sub, dup = kids[0], (kids[1] if len(kids) == 2 else None)
    if not c.floats(sub):
        return None
    # the input of each Sub that is not the mean must be the ReduceMean's input (Sub(mean, x) passes too)
    for s in (sub, dup):
        if s is not None and next((i for i in s.input if i != mean), None) != x:
            return None
    if _op(g.producer.get(x), "DequantizeLinear"):
        return None  # EnsureUniqueDQForNodeUnit gives the ReduceMean and the Sub copies of their own
    nodes = [rm1, sub]
    lead = c.producer(x)
    if not (_op(lead, "Cast") and c.ends(lead, len(kids) + 1)):
        lead = None
    elif c.noop_cast(lead):
        nodes.insert(0, lead)
    elif c.opset >= 9:
        return None  # a Cast from another type: ONNX Runtime skips it (float16) or writes a node it then refuses
    else:
        lead = None  # Cast-6: not one it takes
    cast1 = None
    sub_edges = c.edges(sub)
    if dup is None and len(sub_edges) == 1 and _op(sub_edges[0], "Cast"):
        if c.ends(sub_edges[0], 2) and c.floats(sub_edges[0]):
            if not c.noop_cast(sub_edges[0]):
                return None
            cast1 = sub_edges[0]
            nodes.append(cast1)
    if not c.ends(sub, 2 if dup is None and cast1 is None else 1):
        return None
    div = c.child(cast1 or sub, "Div")
    if dup is not None:
        if not c.floats(dup) or not c.ends(sub, 1):  # (ONNX Runtime checks the first Sub's edges again here)
            return None
        nodes.append(dup)
        div = div or c.child(dup, "Div")
    if div is None or not c.ends(div, 1) or not c.floats(div):
        return None
    sqrt = c.parent(div, "Sqrt")
    if sqrt is None or not c.ends(sqrt, 1) or not c.floats(sqrt) or not c.parents(sqrt):
        return None
    add2 = _first_input_node(c, sqrt)
    if not _op(add2, "Add") or not c.ends(add2, 1) or not c.floats(add2):
        return None
    rm2 = c.parent(add2, "ReduceMean")
    if rm2 is None or not c.ends(rm2, 1) or not c.floats(rm2, 1) or not c.parents(rm2):
        return None
    pw = _first_input_node(c, rm2)
    if not _op(pw, "Pow") or not c.ends(pw, 1) or not c.floats(pw):
        return None
    nodes += [div, sqrt, add2, rm2, pw]
    cast2 = c.parent(pw, "Cast")
    if cast2 is not None and cast2 is not cast1:
        if not c.ends(cast2, 1) or not c.noop_cast(cast2):
            return None
        nodes.append(cast2)
    elif cast2 is None and c.parent(pw, "Sub") not in [s for s in (sub, dup) if s is not None]:
        return None
    mul = c.edges(div)[0]
    if _op(mul, "Cast") and c.ends(mul, 1):
        if not c.noop_cast(mul):
            return None
        nodes.append(mul)
        mul = c.edges(mul)[0] if c.edges(mul) else None
    if not _op(mul, "Mul") or not c.ends(mul, 1) or not c.floats(mul):
        return None
    last = c.edges(mul)[0]
    if not _op(last, "Add") or not c.floats(last):
        return None
    nodes += [mul, last]
    axes, axes2 = _axes(c, rm1), _axes(c, rm2)
    if not axes or not axes2:
        return None
    rank = c.rank(x)
    axes, axes2 = _normal_axes(axes, rank), _normal_axes(axes2, rank)
    if axes is None or axes != axes2 or len(axes) != 1:
        return None
    scale = next((i for i in reversed(mul.input) if c.rank(i) == 1), None)
    bias = next((i for i in reversed(last.input) if c.rank(i) == 1), None)
    if scale is None or bias is None or c.shape0(scale) != c.shape0(bias):
        return None
    eps = _epsilon(c, add2, rm2.output[0])
    x_in = lead.input[0] if lead is not None else x
    inside = {o for n in nodes for o in n.output}
    if eps is None or c.dtype(x_in) != _F32 or scale in inside or bias in inside:
        return None  # (a scale written inside the chain: ONNX Runtime's graph then reads a value it removed)
    node = helper.make_node("LayerNormalization", [x_in, scale, bias], list(last.output),
                            name=f"{mul.name}/LayerNormFusion/", stash_type=1, axis=axes[0], epsilon=eps)  # fmt: skip
    return nodes, node


def _simplified_match(c, pw):
    """(nodes to remove, the SimplifiedLayerNormalization node) where the Pow ``pw`` starts an RMSNorm chain ONNX
    Runtime fuses."""
    from onnx import helper

    g = c.g
    if c.opset < 7 or len(pw.input) != 2 or not c.ends(pw, 1) or not c.floats(pw, 1):
        return None
    exponent = c.folded(pw.input[1])
    if exponent is None or exponent.size != 1 or float(exponent.ravel()[0]) != 2.0:
        return None
    rm = c.child(pw, "ReduceMean")
    if rm is None or not c.ends(rm, 1) or not c.floats(rm, 1) or not c.parents(rm):
        return None
    add = c.child(rm, "Add")
    if add is None or not c.ends(add, 1) or not c.floats(add):
        return None
    sqrt = c.child(add, "Sqrt")
    if sqrt is None or not c.ends(sqrt, 1) or not c.floats(sqrt):
        return None
    div = c.child(sqrt, "Div")
    if div is None or not c.ends(div, 1) or not c.floats(div) or div.input[0] != pw.input[0]:
        return None
    x = pw.input[0]
    if _op(g.producer.get(x), "DequantizeLinear"):
        return None  # the Pow and the Div read two copies of it
    nodes = [pw, rm, add, sqrt, div]
    mul = c.edges(div)[0]
    if _op(mul, "Cast") and c.ends(mul, 1):
        if not c.noop_cast(mul):
            return None  # a Cast here stops the CPU fusion
        nodes.append(mul)
        mul = c.edges(mul)[0] if c.edges(mul) else None
    if not _op(mul, "Mul") or not c.floats(mul):
        return None
    nodes.append(mul)
    axes = _axes(c, rm)
    axes = _normal_axes(axes, c.rank(rm.input[0])) if axes else None
    if axes is None or len(axes) != 1:
        return None
    scale = next((i for i in reversed(mul.input) if c.rank(i) == 1), None)
    eps = _epsilon(c, add, rm.output[0])
    if scale is None or eps is None or c.dtype(x) != _F32 or scale in {o for n in nodes for o in n.output}:
        return None
    name = f"{mul.name}/SimplifiedLayerNormFusion/"
    node = helper.make_node("SimplifiedLayerNormalization", [x, scale], list(mul.output), name=name,
                            stash_type=1, axis=axes[0], epsilon=eps)  # fmt: skip
    return nodes, node


def _skip_match(c, ln, shapes):
    """(nodes to remove, the SkipLayerNormalization node) where the LayerNormalization ``ln`` reads an Add that ONNX
    Runtime's SkipLayerNormFusion takes with it (and a bias Add before that one); ``shapes``:
    :func:`~intdot.quant.qdq_rules.inferred_values`' symbolic ones."""
    from onnx import helper

    if c.opset < 7 or not c.floats(ln) or c.dtype(ln.input[0]) != _F32:
        return None  # (float16 and bfloat16 layer norms ONNX Runtime fuses too: not modelled, left apart)
    add1 = c.producer(ln.input[0])
    if not _op(add1, "Add") or not _first_add(c, add1, shapes) or any(o in c.g.outputs for o in add1.output):
        return None
    inputs = [add1.input[0], add1.input[1], ln.input[1], ln.input[2] if len(ln.input) > 2 else ""]
    nodes = [add1, ln]
    for slot in (0, 1):  # Format 1 (the bias Add on add1's first input), then Format 2 (on its second)
        add2 = c.producer(add1.input[slot])
        if _op(add2, "Add") and _second_add(c, add2, shapes) and not any(o in c.g.outputs for o in add2.output):
            inputs[slot] = add2.input[0]
            inputs.append(add2.input[1])
            nodes.insert(0, add2)
            break
    eps = next((a.f for a in ln.attribute if a.name == "epsilon"), _LN_EPSILON)
    node = helper.make_node("SkipLayerNormalization", inputs, list(ln.output), name=f"{ln.name}/SkipLayerNormFusion/",
                            domain="com.microsoft", epsilon=eps)  # fmt: skip
    return nodes, node


def _dims(c, name, shapes):
    return tuple(c.g.const.shape(name)) if name in c.g.const else shapes.get(name, (None, None))[1]


def _first_add(c, add, shapes) -> bool:
    """CheckFirstAdd: float, one output edge, two 3-D inputs of the same dimensions, each the same value or the
    same symbolic name (as ONNX Runtime 1.32 checks them: its source takes a name for the first alone)."""
    if not c.floats(add) or len(add.input) != 2 or len(c.edges(add)) != 1:
        return False
    a, b = (_dims(c, i, shapes) for i in add.input)
    if a is None or b is None or len(a) != 3 or len(b) != 3:
        return False
    return all(u is not None and u == v for u, v in zip(a, b))


def _second_add(c, add, shapes) -> bool:
    """CheckSecondAdd: float, one output edge, a 3-D input and a constant 1-D one of its last dimension."""
    if not c.floats(add) or len(add.input) != 2 or len(c.edges(add)) != 1 or c.folded(add.input[1]) is None:
        return False
    if integer_bias(c.g, add):
        return False
    a, b = (_dims(c, i, shapes) for i in add.input)
    return a is not None and b is not None and len(a) == 3 and len(b) == 1 and isinstance(a[2], int) and a[2] == b[0]


def _rewrite(model, dims, kind, match, domain=None):
    """``model`` with each chain ``match`` finds from a ``kind`` node (in node order, as ONNX Runtime walks its
    graph; a node already taken by an earlier chain starts none) made one node, placed where its last node was."""
    c = _Chain(model, dims)
    removed, placed = set(), {}
    for n in model.graph.node:
        if id(n) in removed or not _op(n, kind):
            continue
        found = match(c, n)
        if found is None or any(id(m) in removed for m in found[0]):
            continue
        nodes, node = found
        removed |= {id(m) for m in nodes}
        placed[id(max(nodes, key=lambda m: c.order[id(m)]))] = node
    return rebuilt(model, placed, removed, domain=domain) if placed else model


def fuse_layer_norm(model):
    """``model`` with each decomposed layer norm ONNX Runtime's LayerNormFusion makes one LayerNormalization
    node, then each RMSNorm chain its SimplifiedLayerNormFusion makes one SimplifiedLayerNormalization node
    (module docstring); ``model`` itself where there is none."""
    kinds = {n.op_type for n in model.graph.node if n.domain in ("", "ai.onnx")}
    if not {"ReduceMean", "Pow", "Sqrt", "Div", "Mul"} <= kinds:
        return model
    dims = inferred_values(model)
    model = _rewrite(model, dims, "ReduceMean", _layer_norm_match)
    return _rewrite(model, dims, "Pow", _simplified_match)


def fuse_skip_layer_norm(model, shapes_of=None):
    """``model`` with each residual Add (and the bias Add before it) that ONNX Runtime's SkipLayerNormFusion takes
    into the LayerNormalization after it made one ``com.microsoft`` SkipLayerNormalization node
    (:mod:`intdot.quant.skip_layer_norm`); ``model`` itself where there is none.  ``shapes_of``:
    :func:`~intdot.quant.qdq_rules.inferred_values`' ``first``."""
    kinds = {n.op_type for n in model.graph.node if n.domain in ("", "ai.onnx")}
    if not {"Add", "LayerNormalization"} <= kinds:
        return model
    shapes = inferred_values(model, symbolic=True, first=shapes_of)
    return _rewrite(model, unnamed(shapes), "LayerNormalization", lambda c, ln: _skip_match(c, ln, shapes),
                    domain="com.microsoft")  # fmt: skip
