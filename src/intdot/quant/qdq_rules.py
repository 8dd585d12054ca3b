"""What the QDQ rewrite (:mod:`intdot.quant.qdq`, whose docstring states the rules) reads from a graph: its
constants, element types and shapes, readers and producers, and the conditions ONNX Runtime's selectors test.
The group modules (``qdq_gemm``, ``qdq_binary``, ``qdq_unary``, ``qdq_concat``, ``qdq_s8u8``) build on it."""

from __future__ import annotations

import numpy as np

from ._args import to_int32

EIGHT_BIT = (np.dtype(np.int8), np.dtype(np.uint8))
_FLOAT_TYPE = 1  # TensorProto.FLOAT


class _Graph:
    """What the rules read from a graph: constants, element types, producers and readers of each value."""

    def __init__(self, model, info=None):
        g = model.graph
        # An initializer that is also a graph input can be overridden by the feed: not a constant (from IR
        # version 4; before it, every initializer was listed as an input, and ONNX Runtime takes them as constants).
        inputs = {i.name for i in g.input} if model.ir_version >= 4 else set()
        tensors = {t.name: t for t in g.initializer if t.name not in inputs}
        # ONNX Runtime makes Constant nodes initializers as it loads a model.
        for n in g.node:
            if _op(n, "Constant") and n.output and n.attribute:
                value = _constant_value(n)
                if value is not None:
                    tensors[n.output[0]] = value
        self.const = _Consts(tensors)
        self.producer = {o: n for n in g.node for o in n.output}
        self.readers: dict[str, list] = {}
        for n in g.node:
            for i in n.input:
                if i:
                    self.readers.setdefault(i, []).append(n)
        self.outputs = {o.name for o in g.output}
        self.info = _value_info(model) if info is None else info
        self.opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 1)

    def dtype(self, name):
        if name in self.const:
            return self.const.dtype(name)
        if name in self.info:
            return self.info[name][0]
        q = self.producer.get(name)
        if _op(q, "QuantizeLinear"):  # what shape inference would say: the zero point's type, or output_dtype
            zp = _zp(q)
            if zp is not None:
                return self.dtype(zp)
            return _QTYPES.get(int(_attr(q, "output_dtype", 0)))
        return None

    def shape(self, name):
        """A constant's or an inferred value's shape; None where not known."""
        if name in self.const:
            return self.const.shape(name)
        return self.info.get(name, (None, None))[1]

    def edges(self, name) -> list:
        """The nodes that read ``name``, once for each input slot that reads it (ONNX Runtime's output edges)."""
        unique = {id(r): r for r in self.readers.get(name, [])}.values()
        return [r for r in unique for i in r.input if i == name]

    def only_reader(self, name):
        """The node that reads ``name`` once and is its only reader (and not a graph output), else None."""
        r = self.readers.get(name, [])
        if len(r) != 1 or name in self.outputs or list(r[0].input).count(name) != 1:
            return None
        return r[0]


def _constant_value(node):
    """A Constant node's value as an array; None for the kinds that hold no number (sparse tensors, strings)."""
    from onnx import numpy_helper

    a = node.attribute[0]
    if a.name == "value":
        return numpy_helper.to_array(a.t)
    kinds = {"value_float": (np.float32, a.f), "value_floats": (np.float32, list(a.floats))}
    kinds.update({"value_int": (np.int64, a.i), "value_ints": (np.int64, list(a.ints))})
    if a.name in kinds:
        dtype, v = kinds[a.name]
        return np.array(v, dtype)
    return None


# A QuantizeLinear's output type where it has no zero point: output_dtype, uint8 by default.
_QTYPES = {0: np.dtype(np.uint8), 2: np.dtype(np.uint8), 3: np.dtype(np.int8)}


def rebuilt(model, replace: dict, drop=frozenset(), domain: str | None = None, initializers=()):
    """A copy of ``model`` whose nodes are its own in order, each ``id`` in ``replace`` swapped for its new node (or
    list of nodes) and each in ``drop`` left out; ``initializers`` added; with ``domain``, that domain imported
    (version 1) where the model does not."""
    from onnx import helper

    out = type(model)()
    out.CopyFrom(model)
    del out.graph.node[:]
    for n in model.graph.node:
        new = replace.get(id(n))
        if new is not None:
            out.graph.node.extend(new if isinstance(new, list) else [new])
        elif id(n) not in drop:
            out.graph.node.append(n)
    out.graph.initializer.extend(initializers)
    if domain is not None and not any(o.domain == domain for o in out.opset_import):
        out.opset_import.append(helper.make_opsetid(domain, 1))
    return out


def inferred_graph(model):
    """``model``'s graph with ONNX's shape inference's value infos (run on the model without its weights), or the
    graph as declared where inference cannot read the model (ONNX Runtime's own inference may know more).  ONNX's
    inference does not know ``com.microsoft`` MatMulNBits, whose output ONNX Runtime's does (A's shape with N last):
    each such output is declared as that and inference run again, until no more are found."""
    import onnx

    try:
        stripped = without_weights(model)
        g = onnx.shape_inference.infer_shapes(stripped, strict_mode=False).graph
        nbits = [n for n in model.graph.node if n.op_type == "MatMulNBits" and n.domain == "com.microsoft"]
        for _ in nbits:
            found = _nbits_outputs(g, nbits)
            if not found:
                break
            stripped.graph.value_info.extend(found)
            g = onnx.shape_inference.infer_shapes(stripped, strict_mode=False).graph
        return g
    except Exception:  # noqa: BLE001 - a model shape inference cannot read: only what the graph declares
        return model.graph


def _nbits_outputs(graph, nodes) -> list:
    """Value infos for the MatMulNBits outputs of ``nodes`` that ``graph`` does not type yet and whose A it does."""
    from onnx import helper

    typed = {vi.name: vi.type.tensor_type for vi in (*graph.input, *graph.value_info, *graph.output)}
    found = []
    for n in nodes:
        a, out = typed.get(n.input[0]), n.output[0]
        width = next((x.i for x in n.attribute if x.name == "N"), None)
        if out in typed or a is None or not a.HasField("shape") or not a.shape.dim or width is None:
            continue
        dims = [d.dim_value if d.HasField("dim_value") else (d.dim_param or None) for d in a.shape.dim[:-1]]
        found.append(helper.make_tensor_value_info(out, a.elem_type, [*dims, width]))
    return found


def inferred_values(model, symbolic=False, first=None) -> dict:
    """name -> (numpy dtype or None, dims with None for a symbolic one (``symbolic``: its name, a str, where the
    model names it), or None where the rank is unknown).  ONNX's inference names each dimension it cannot tell
    (``unk__N``) where ONNX Runtime's leaves it unnamed: only names the model itself declares (its inputs, outputs
    and value infos) are kept.  ``first``: a function giving the symbolic values of a model with the same value
    names whose shapes ONNX's inference knows better (before intdot's QDQ rewrite wrote ONNX Runtime's operators,
    which it cannot read: ``prepare`` infers them once, for every fusion); its values win."""
    from onnx import helper

    if first is not None:
        better = first()
        return inferred_values(model, symbolic) | (better if symbolic else unnamed(better))

    g = inferred_graph(model)
    declared = {d.dim_param for vi in (*model.graph.input, *model.graph.value_info, *model.graph.output)
                for d in vi.type.tensor_type.shape.dim if d.dim_param}  # fmt: skip
    out = {}
    for vi in list(g.input) + list(g.value_info) + list(g.output):
        if not vi.type.HasField("tensor_type"):
            continue
        tt = vi.type.tensor_type
        try:
            dtype = np.dtype(helper.tensor_dtype_to_np_dtype(tt.elem_type)) if tt.elem_type else None
        except (KeyError, TypeError, ValueError):
            dtype = None
        dims = tuple(d.dim_value if d.HasField("dim_value") else (d.dim_param if d.dim_param in declared else None)
                     if symbolic else None for d in tt.shape.dim)  # fmt: skip
        out[vi.name] = (dtype, dims if tt.HasField("shape") else None)
    return out


def unnamed(values) -> dict:
    """:func:`inferred_values`' symbolic values with each named dimension None, as its plain ones have them."""
    return {k: (t, d if d is None else tuple(v if isinstance(v, int) else None for v in d))
            for k, (t, d) in values.items()}  # fmt: skip


def without_weights(model):
    """``model`` with each large initializer replaced by a declared input of its type and shape: shape inference
    needs the values of small constants only (a Reshape's shape), and copying weights through it cost more than
    the rest of a fusion.  The new model is built from the parts, so the weights are not copied either."""
    from onnx import ModelProto, helper

    g = model.graph
    small = lambda t: np.prod(t.dims, dtype=np.int64) <= 64  # noqa: E731
    if all(small(t) for t in g.initializer):
        return model
    declared = {i.name for i in g.input}
    inputs = list(g.input) + [
        helper.make_tensor_value_info(t.name, t.data_type, list(t.dims))
        for t in g.initializer
        if not small(t) and t.name not in declared
    ]
    graph = helper.make_graph(
        g.node, g.name, inputs, g.output, [t for t in g.initializer if small(t)], value_info=g.value_info
    )
    out = ModelProto(ir_version=model.ir_version, graph=graph)
    out.opset_import.extend(model.opset_import)
    out.functions.extend(model.functions)
    return out


class _Consts:
    """Initializers (and Constant nodes' values) as arrays, each converted when first asked for: a model's
    weights are many megabytes, and the rules read scales and zero points."""

    def __init__(self, tensors: dict):
        self._tensors, self._arrays = tensors, {}

    def get(self, name, default=None):
        if name not in self._arrays:
            if name not in self._tensors:
                return default
            from onnx import numpy_helper

            t = self._tensors[name]
            self._arrays[name] = t if isinstance(t, np.ndarray) else numpy_helper.to_array(t)
        return self._arrays[name]

    def __getitem__(self, name):
        return self.get(name)

    def __contains__(self, name) -> bool:
        return name in self._tensors

    def __iter__(self):
        return iter(self._tensors)

    def shape(self, name):
        t = self._tensors[name]
        return t.shape if isinstance(t, np.ndarray) else tuple(t.dims)

    def scalar(self, name):
        """The constant ``name`` where it holds one element in rank 0 or 1 (ONNX Runtime's IsScalar), else None."""
        if name not in self._tensors or len(self.shape(name)) > 1 or int(np.prod(self.shape(name))) != 1:
            return None
        return self.get(name)

    def dtype(self, name):
        t = self._tensors[name]
        if isinstance(t, np.ndarray):
            return t.dtype
        from onnx import helper

        return np.dtype(helper.tensor_dtype_to_np_dtype(t.data_type))  # as to_array gives it, without the data


def _value_info(model) -> dict:
    """(numpy dtype, shape or None) of every value that ONNX's shape inference or the graph declares."""
    from onnx import helper

    g = inferred_graph(model)
    out = {}
    for vi in list(g.input) + list(g.value_info) + list(g.output):
        if not vi.type.HasField("tensor_type") or not vi.type.tensor_type.elem_type:
            continue
        tt = vi.type.tensor_type
        try:
            dtype = np.dtype(helper.tensor_dtype_to_np_dtype(tt.elem_type))
        except (KeyError, TypeError, ValueError):
            continue
        shape = None
        if tt.HasField("shape") and all(d.HasField("dim_value") for d in tt.shape.dim):
            shape = tuple(d.dim_value for d in tt.shape.dim)
        out[vi.name] = (dtype, shape)
    _microsoft_types(model, out)
    return out


# ONNX's shape inference gives ONNX Runtime's com.microsoft operators no output type (a QOperator model holds
# QLinearSigmoid, QLinearMul, ...): the input whose type each output takes, by position (QGemm's float output
# without a y_zero_point aside).  ONNX Runtime knows them, and fuses the groups that read them.
_MS_TYPE_FROM = {"QLinearConcat": 1, "QLinearWhere": 1, "QGemm": 8}


def _microsoft_types(model, out: dict) -> None:
    from onnx import helper

    known = {t.name: t.data_type for t in model.graph.initializer}
    for n in model.graph.node:
        if n.domain != "com.microsoft" or not n.output or not n.output[0] or n.output[0] in out:
            continue
        k = _MS_TYPE_FROM.get(n.op_type, 0)
        source = n.input[k] if k < len(n.input) and n.input[k] else None
        if source is None:
            dtype = np.dtype(np.float32) if n.op_type == "QGemm" else None
        elif source in out:
            dtype = out[source][0]
        elif source in known:
            dtype = np.dtype(helper.tensor_dtype_to_np_dtype(known[source]))
        else:
            dtype = None
        if dtype is not None:
            out[n.output[0]] = (dtype, None)


def fresh_names(model):
    """A function that names something new in ``model``: ``base`` where no value, node output or initializer has
    that name yet, else ``base_1``, ``base_2``, ...; each name it gives is taken from then on."""
    taken = {v for n in model.graph.node for v in (*n.input, *n.output)} | {t.name for t in model.graph.initializer}

    def fresh(base: str) -> str:
        name, k = base, 0
        while name in taken:
            k += 1
            name = f"{base}_{k}"
        taken.add(name)
        return name

    return fresh


def _op(node, kind) -> bool:
    return node is not None and node.op_type == kind and node.domain in ("", "ai.onnx")


def _attr(node, name, default):
    from onnx import helper

    for a in node.attribute:
        if a.name == name:
            return helper.get_attribute_value(a)
    return default


def _zp(node):
    """The zero-point input of a Q/DQ node, or None where it is left out."""
    return node.input[2] if len(node.input) > 2 and node.input[2] else None


class _Rules:
    def __init__(self, model, int8_allowed: bool, info=None, platform: str = "x86"):
        self.g = _Graph(model, info)
        self.int8_allowed = int8_allowed
        self.platform = platform
        self.moved = set() if int8_allowed else self._moved_to_uint8()

    # -- ONNX Runtime's QDQS8ToU8Transformer (x86) --------------------------------------------------------------

    def _moved_to_uint8(self) -> set:
        """Outputs of the int8 Q -> DQ pairs that ONNX Runtime moves to uint8: a Q read by one DQ alone (it has
        copied every DQ with several readers by then, so a DQ read twice means a Q read twice), both with the same
        constant one-element int8 zero point."""
        g, moved = self.g, set()
        for name, q in g.producer.items():
            if not _op(q, "QuantizeLinear") or q.output[0] != name:
                continue
            dq = g.only_reader(name)
            if not _op(dq, "DequantizeLinear") or len(g.readers.get(dq.output[0], [])) > 1:
                continue
            a, b = g.const.get(_zp(q)), g.const.get(_zp(dq))
            if a is None or b is None or a.dtype != np.int8 or b.dtype != np.int8 or a.size != 1 or b.size != 1:
                continue
            if int(a.ravel()[0]) == int(b.ravel()[0]):
                moved.add(name)
        return moved

    def qtype(self, name):
        """The element type ONNX Runtime sees for a quantized value: uint8 where it moved an int8 pair."""
        return np.dtype(np.uint8) if name in self.moved else self.g.dtype(name)

    def q_out_type(self, q):
        # ONNX Runtime fills a missing zero point with a uint8 0: an int8 output_dtype without one is not fused.
        if _zp(q) is None and int(_attr(q, "output_dtype", 0)) not in (0, 2):
            return None
        return self.qtype(q.output[0])

    # -- where the scales run -------------------------------------------------------------------------------------

    def _ones(self, name) -> bool:
        s = self.g.shape(name)
        return s is not None and len(s) <= 1 and int(np.prod(s)) == 1

    def per_tensor(self, node) -> bool:
        """A Q/DQ node with one float32 scale and one zero point (or none)."""
        zp = _zp(node)
        return (
            self.g.dtype(node.input[1]) == np.float32 and self._ones(node.input[1]) and (zp is None or self._ones(zp))
        )

    def along(self, dq, axis_want: int, rank: int | None = None) -> bool:
        """A weight DQ per tensor, or per axis along ``axis_want`` of its input (float32 scales, not blocked; where
        ``rank`` is given, only for a weight of that rank)."""
        if self.per_tensor(dq):
            return True
        g = self.g
        w, s, zp = g.shape(dq.input[0]), g.shape(dq.input[1]), _zp(dq)
        if w is None or s is None or g.dtype(dq.input[1]) != np.float32 or int(_attr(dq, "block_size", 0)):
            return False
        if rank is not None and len(w) != rank:
            return False
        axis = int(_attr(dq, "axis", 1))
        if not -len(w) <= axis < len(w) or axis % len(w) != axis_want % len(w):
            return False
        return s == (w[axis],) and (zp is None or g.shape(zp) == (w[axis],))

    # -- the product's output: a redundant Relu/Clip, then one QuantizeLinear -----------------------------------

    def _redundant(self, clip, q) -> bool:
        """Whether ONNX Runtime drops ``clip`` (a Relu or Clip) before ``q``: its ReluQuantFusion and ClipQuantFusion
        passes, and its QDQ selectors' own test, all on constant quantization parameters."""
        g = self.g
        zp = _zp(q)
        s = g.const.get(q.input[1])
        z = g.const.get(zp) if zp is not None else np.zeros((), np.uint8)
        if z is None or z.size != 1 or z.dtype not in EIGHT_BIT:
            return False
        info, zero = np.iinfo(z.dtype), int(z.ravel()[0])
        scalar = s is not None and s.shape == () and s.dtype == np.float32
        if clip.op_type == "Relu":
            # ReluQuantFusion needs the zero point given; the selectors, a scalar scale where it is left out.
            return zero == info.min and (zp is not None or scalar)
        lo, hi = _clip_bounds(g, clip)
        if lo is None or not scalar or z.shape != ():
            return False
        scale, eps = np.float32(s), np.finfo(np.float32).eps
        lower, upper = scale * np.float32(info.min - zero), scale * np.float32(info.max - zero)
        if zp is not None and lo - lower <= eps and upper - hi <= eps:  # ClipQuantFusion
            return True
        # The selectors' test, with C's float-to-int32 conversion: out of range, INT32_MIN on x86; saturated on Arm,
        # so there a Clip without an upper bound (its quotient inf) is redundant where the zero point is 0.
        with np.errstate(over="ignore"):  # an absent bound is float32's largest: its quotient is inf, out of range
            qmin, qmax = (int(to_int32(np.rint(np.float64(v / scale)), self.platform)) + zero for v in (lo, hi))
        return _wrap32(qmin) <= info.min and _wrap32(qmax) >= info.max

    def _dropped(self, r):
        """(the QuantizeLinear after ``r``, ``r``) where ``r`` is a Relu/Clip read only by a QuantizeLinear that makes
        it redundant (ONNX Runtime removes it before it looks for groups), else (r, None)."""
        if r.op_type in ("Relu", "Clip") and r.domain in ("", "ai.onnx"):
            after = self.g.only_reader(r.output[0])
            if _op(after, "QuantizeLinear") and self._redundant(r, after):
                return after, r
        return r, None

    def output_q(self, node):
        """(the QuantizeLinear that reads ``node``'s output, the redundant Relu/Clip between them or None);
        (None, None) where no QuantizeLinear reads it; (False, None) where the group cannot be fused."""
        g = self.g
        out = node.output[0]
        readers = [self._dropped(r) for r in g.readers.get(out, [])]
        if not any(_op(r, "QuantizeLinear") for r, _ in readers):
            # ONNX Runtime's selectors stop at a Relu/Clip that is the product's only reader and has one reader of
            # its own (not dropped, or this would be a QuantizeLinear): no group at all.
            lone = g.only_reader(out)
            if lone is not None and lone.op_type in ("Relu", "Clip") and g.only_reader(lone.output[0]) is not None:
                return False, None
            return None, None
        if len(readers) != 1 or out in g.outputs:
            return False, None  # the product goes elsewhere too
        return readers[0]

    def types_ok(self, tx, tw) -> bool:
        if tx not in EIGHT_BIT or tw not in EIGHT_BIT:
            return False  # 16-bit, 4-bit and anything else: ONNX Runtime's selectors leave them
        return tx != np.int8 or (self.int8_allowed and tw == np.int8)

    def bias_ok(self, x_dq, w_dq, b_dq) -> bool:
        """ONNX Runtime's condition on a Conv's bias (measured, tests/quant/test_qdq.py): int32, zero points 0, and a
        scale within 1e-6 + 1e-2 * |x_scale * w_scale| of that product in every channel."""
        g = self.g
        if g.dtype(b_dq.input[0]) != np.int32:
            return False
        zp = _zp(b_dq)
        if zp is not None and (g.const.get(zp) is None or g.const[zp].any()):
            return False
        xs, ws, bs = (g.const.get(d.input[1]) for d in (x_dq, w_dq, b_dq))
        if xs is None or ws is None or bs is None or bs.dtype != np.float32:
            return False
        want = np.float32(xs.ravel()[0]) * ws.astype(np.float32).ravel()
        got = bs.ravel()
        if 1 not in (got.size, want.size) and got.size != want.size:
            return False  # per channel both, but not over the same channels
        return bool((np.abs(got - want) <= 1e-6 + 1e-2 * np.abs(want)).all())

    def becomes_gemm(self, n, x_dq, w_dq) -> bool:
        """Whether ONNX Runtime's MatMulAddFusion, which runs before its QDQ rules, turns MatMul ``n`` and the Add
        that alone reads it into a float Gemm (measured, tests/quant/test_qdq.py): for a 2-D x, an Add of shape
        (N,), or (1 or M, 1 or N) with M or N; for x of another rank, an Add of shape (N,) (reshaped around it)."""
        g = self.g
        add = g.only_reader(n.output[0])
        if not _op(add, "Add"):
            return False
        other = add.input[1] if add.input[0] == n.output[0] else add.input[0]
        xs, ws, bs = g.shape(x_dq.input[0]), g.shape(w_dq.input[0]), g.shape(other)
        if xs is None or ws is None or bs is None or len(ws) != 2:
            return False
        m, nn = (xs[-2] if len(xs) >= 2 else 1), ws[1]
        if bs == (nn,):
            return True
        return len(xs) == 2 and len(bs) == 2 and bs[0] in (1, m) and bs[1] in (1, nn) and (bs[0], bs[1]) != (1, 1)

    def group(self, n):
        """(kind, x_dq, w_dq, bias_dq or None, q, clip) where ONNX Runtime fuses ``n``, else None."""
        ins = [i for i in n.input if i]
        if len(ins) != 2 and not (n.op_type == "Conv" and len(ins) == 3):
            return None
        dqs = [self.g.producer.get(i) for i in ins]
        if not all(_op(d, "DequantizeLinear") for d in dqs):
            return None
        x_dq, w_dq = dqs[0], dqs[1]
        tx, tw = self.qtype(x_dq.input[0]), self.qtype(w_dq.input[0])
        if not self.types_ok(tx, tw):
            return None
        q, clip = self.output_q(n)
        if q is False or not self.per_tensor(x_dq):
            return None
        if q is None:  # MatMulIntegerToFloat; a Conv needs its QuantizeLinear
            ok = n.op_type == "MatMul" and self.along(w_dq, -1, rank=2) and not self.becomes_gemm(n, x_dq, w_dq)
            return ("MatMulIntegerToFloat", x_dq, w_dq, None, None, None) if ok else None
        if self.q_out_type(q) != tx or not self.per_tensor(q):
            return None
        if n.op_type == "MatMul":
            return ("QLinearMatMul", x_dq, w_dq, None, q, clip) if self.along(w_dq, -1, rank=2) else None
        b_dq = dqs[2] if len(dqs) == 3 else None
        if not self.along(w_dq, 0) or (b_dq is not None and not self.bias_ok(x_dq, w_dq, b_dq)):
            return None
        return ("QLinearConv", x_dq, w_dq, b_dq, q, clip)


def _wrap32(v: int) -> int:
    return (v + 2**31) % 2**32 - 2**31


def _clip_bounds(g, clip):
    """A Clip's constant (min, max) as float32, with ONNX Runtime's defaults for absent ones; (None, None) where
    one is not constant."""
    big = float(np.finfo(np.float32).max)
    if len(clip.input) == 1 and clip.attribute:  # opset 6: attributes
        return np.float32(_attr(clip, "min", -big)), np.float32(_attr(clip, "max", big))
    out = []
    for i, default in ((1, -big), (2, big)):
        name = clip.input[i] if len(clip.input) > i else ""
        v = g.const.get(name) if name else np.float32(default)
        if v is None or np.size(v) != 1:
            return None, None
        out.append(np.float32(np.ravel(v)[0]))
    return tuple(out)
