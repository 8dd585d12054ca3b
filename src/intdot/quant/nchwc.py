"""Float32 Conv as ONNX Runtime computes it on x86, bit for bit: its NCHWc layout transformer (NchwcTransformer,
at the default optimization level) moves most 2-D Convs into MLAS's NCHWc kernels, which add their products in an
order of their own, and fuses some of the nodes around them.

**Which Convs** (:func:`algorithm`): a 2-D Conv whose weights (and bias, if any) are constants; with one group,
fewer input channels than the block (16 with AVX-512F, 8 without) or a multiple of 4; with several groups, a
depthwise Conv (one channel a group, as many outputs as groups) or groups of a multiple of the block in and out.
Any output channel count (it pads the blocks).  The other Convs run MLAS's own convolution (:mod:`.float_conv`).

**The kernels** (:func:`conv`), each output a chain of fused multiply-adds from 0 over a slice of the input
channels, kernel rows outer, columns, then channels inner, skipping the taps in the padding; each slice's sum then
added to the output so far (the first one is the output), the bias after the last:

- ``nchwc``: slices of one block of input channels (padded with zeros up to a whole block);
- ``pointwise`` (a 1x1 kernel without pads): slices of 128 channels;
- ``nchw`` (fewer input channels than a block, read in place): one channel a slice;
- ``depthwise``: each channel by itself.

**The nodes around them** (:func:`rewrite`, on the graph): a BatchNormalization on an NCHWc tensor becomes a
depthwise 1x1 Conv of ``scale / sqrt(var + eps)`` (one division; ONNX Runtime's own BatchNormalization kernel
multiplies by a reciprocal) with bias ``B - mean * s``; a Mul of an NCHWc tensor by a per-channel constant a
depthwise 1x1 Conv; and an Add (or a two-input Sum) of two NCHWc tensors of one shape, one of them such a Conv's
output used there alone and not activated, becomes that Conv's starting output: its slices are added to the other
operand, the bias after.  Rewritten as ``ai.intdot:NchwcConv`` nodes, found by reading ONNX Runtime 1.32's
optimized graphs and checked bit for bit against it (``tests/quant/test_nchwc.py``).  A linear Resize of an NCHWc
tensor by whole-number scales (asymmetric, half_pixel or align_corners) runs in its NCHWc Upsample kernel
(:func:`upsample`), whose weights and sums round apart from its Resize kernel's.

The session's defaults are modelled: its ``mlas.nchwc_pointwise_conv_max_input_channel_batch`` and
``mlas.nchwc_depthwise_sliding`` options, which change the slices, are not.  The kernels' chains do not depend on
the thread count.
"""

from __future__ import annotations

import numpy as np

from ._args import INTDOT_DOMAIN
from .fma import fma32
from .pooling import NCHWC_BLOCK

F32 = np.float32
DOMAIN = INTDOT_DOMAIN
POINTWISE_BATCH = 128  # input channels a pointwise kernel call takes (its ICSTRIDE)


def algorithm(channels: int, outputs: int, group: int, kernel, pads, block: int) -> str | None:
    """The NCHWc kernel ONNX Runtime runs a 2-D float Conv of ``channels`` inputs, ``outputs`` outputs, ``group``
    groups, ``kernel`` (kh, kw) and ``pads`` (4) in, or None where its transformer leaves the Conv alone."""
    per_group = channels // group
    if group > 1:
        if per_group == 1 and outputs == group:
            return "depthwise"
        if outputs % block or per_group % block or (outputs // group) % block:
            return None
    elif channels < block:
        return "nchw"
    elif channels % 4:
        return None
    if tuple(kernel) == (1, 1) and not any(pads):
        return "pointwise"
    return "nchwc"


def conv(x, w, b=None, z=None, *, kind: str, pads, strides, dilations, group: int = 1, block: int = 16):
    """The NCHWc kernel ``kind`` (:func:`algorithm`) on ``x`` (N, C, H, W) and ``w`` (M, C / group, kh, kw), plus
    ``b`` (M) after; ``z`` (the output's shape), where given, is the output it starts from (a fused Add).
    ``pads``: (top, left, bottom, right)."""
    x, w = np.asarray(x, F32), np.asarray(w, F32)
    if group > 1 and kind != "depthwise":
        cg, mg = x.shape[1] // group, w.shape[0] // group
        parts = [
            conv(x[:, g * cg : (g + 1) * cg], w[g * mg : (g + 1) * mg], None if b is None else b[g * mg : (g + 1) * mg],
                 None if z is None else z[:, g * mg : (g + 1) * mg], kind=kind, pads=pads, strides=strides,
                 dilations=dilations, block=block)
            for g in range(group)
        ]  # fmt: skip
        return np.concatenate(parts, axis=1)
    compiled = _compiled(x.shape[0] * w.size * x.shape[2] * x.shape[3])
    if compiled is not None:  # the same chains, one output at a time, compiled (the ``fast`` extra)
        out = _run_compiled(compiled, x, w, z, kind, pads, strides, dilations, block)
    else:
        out = None if z is None else np.asarray(z, F32)
        for s in _slices(x, w, kind, pads, strides, dilations, block):
            out = s if out is None else (out + s).astype(F32)
    if b is not None:
        out = (out + np.asarray(b, F32).reshape(1, -1, 1, 1)).astype(F32)
    return out


def _output_size(x_shape, w_shape, pads, strides, dilations) -> tuple[int, int]:
    return tuple((x_shape[2 + i] + pads[i] + pads[i + 2] - (dilations[i] * (w_shape[2 + i] - 1) + 1)) // strides[i] + 1
                 for i in range(2))  # fmt: skip


def _slicing(kind: str, channels: int, block: int) -> tuple[int, int]:
    """(input channels a kernel call takes, 0 for a depthwise one's own; the input's channels, padded to whole
    blocks where the layout pads them)."""
    width = {"nchwc": block, "pointwise": POINTWISE_BATCH, "nchw": 1, "depthwise": 0}[kind]
    return width, channels if kind in ("nchw", "depthwise") else -(-channels // block) * block


def _slices(x, w, kind, pads, strides, dilations, block):
    """Each kernel call's sums, in order: (N, M, OH, OW) each."""
    n, c, h, wd = x.shape
    kh, kw = w.shape[2:]
    top, left = pads[:2]
    (sh, sw), (dh, dw) = strides, dilations
    oh, ow = _output_size(x.shape, w.shape, pads, strides, dilations)
    rows = np.arange(oh)[:, None] * sh - top
    cols = np.arange(ow)[None, :] * sw - left
    taps = []
    for i in range(kh):
        for j in range(kw):
            ih, iw = rows + i * dh, cols + j * dw
            valid = (ih >= 0) & (ih < h) & (iw >= 0) & (iw < wd)
            if valid.any():  # a tap wholly in the padding adds nothing anywhere
                taps.append((i, j, np.clip(ih, 0, h - 1), np.clip(iw, 0, wd - 1), None if valid.all() else valid))
    if kind == "depthwise":
        s = np.zeros((n, c, oh, ow), F32)
        for i, j, ih, iw, valid in taps:
            s = _step(s, x[:, :, ih, iw], w[None, :, 0, i, j, None, None], valid)
        yield s
        return
    width, padded = _slicing(kind, c, block)
    for start in range(0, padded, width):
        s = np.zeros((n, w.shape[0], oh, ow), F32)
        for i, j, ih, iw, valid in taps:
            for ch in range(start, min(start + width, c)):
                s = _step(s, x[:, ch, None][:, :, ih, iw], w[None, :, ch, i, j, None, None], valid)
        if start + width > c and padded > c:  # the zero channels' products: fma(0, 0, s), -0 becomes +0
            s = (s + F32(0)).astype(F32)
        yield s


_COMPILED: list = []
# Loading numba costs about 0.7 s in a new process (docs/quant.md, Speed): a Conv of fewer multiply-adds than this
# (about that long in NumPy) runs in NumPy unless numba is loaded already.
COMPILED_FROM = 2**26


def _compiled(work: int):
    """The compiled kernel (numba, from the ``fast`` extra) for a Conv of about ``work`` multiply-adds, or None:
    no numba, ``INTDOT_BACKEND=numpy``, or (``auto``) too little work to pay for loading it."""
    import sys

    from ..core.accel import check_environment

    backend = check_environment()
    if backend == "numpy" or (backend == "auto" and work < COMPILED_FROM and "numba" not in sys.modules):
        return None
    if not _COMPILED:
        try:
            from ._nchwc_numba import kernel
        except ImportError:
            kernel = None
        _COMPILED.append(kernel)
    return _COMPILED[0]


def _run_compiled(kernel, x, w, z, kind, pads, strides, dilations, block):
    out = np.empty((x.shape[0], w.shape[0], *_output_size(x.shape, w.shape, pads, strides, dilations)), F32)
    width, padded = _slicing(kind, x.shape[1], block)
    start = np.zeros((1, 1, 1, 1), F32) if z is None else np.ascontiguousarray(z, F32)
    last = np.ascontiguousarray(x.transpose(0, 2, 3, 1)), np.ascontiguousarray(w.transpose(0, 2, 3, 1))
    kernel(*last, start, z is not None, out, width, padded, pads[0], pads[1], strides[0], strides[1], dilations[0],
           dilations[1])  # fmt: skip
    return out


def _step(s, xv, wv, valid):
    t = fma32(xv, wv, s)
    return t if valid is None else np.where(valid, t, s)


def batch_norm_weights(scale, bias, mean, var, epsilon: float):
    """(filter, bias) of the depthwise 1x1 Conv the transformer makes of a BatchNormalization:
    ``s = scale / sqrt(var + eps)`` and ``bias - mean * s``, each step rounded to float32."""
    scale, bias, mean, var = (np.asarray(a, F32) for a in (scale, bias, mean, var))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        s = (scale / np.sqrt((var + F32(epsilon)).astype(F32))).astype(F32)
        return s.reshape(-1, 1, 1, 1), (bias - (mean * s).astype(F32)).astype(F32)


def block_of(platform: str) -> int | None:
    """The NCHWc block of ``platform`` (16 with AVX-512F, 8 for ``x86-avx2``), None off x86."""
    return NCHWC_BLOCK.get(platform)


# ONNX Runtime's ConvActivationFusion (before the layout transformer) fuses these into a Conv used by them alone;
# its transformer then fuses the first three into an NCHWc Conv used by them alone, and keeps them in the layout.
_FUSED_ACTIVATIONS = ("Relu", "Sigmoid", "Tanh", "LeakyRelu", "HardSigmoid", "Clip")
_NCHWC_ACTIVATIONS = ("Relu", "Sigmoid", "Tanh")
_POOLS = ("MaxPool", "AveragePool", "GlobalMaxPool", "GlobalAveragePool")
_CONV_ATTRS = ("auto_pad", "dilations", "group", "kernel_shape", "pads", "strides")


class _Arg:
    """A value in the NCHWc layout: its channel count, the NchwcConv node that writes it (None for another NCHWc
    node), whether an activation was fused into it, and whether it starts from an Add's operand."""

    __slots__ = ("channels", "node", "activated", "summed")

    def __init__(self, channels, node=None):
        self.channels, self.node = channels, node
        self.activated = self.summed = False


def rewrite(model, platform: str, shapes_of, constants):
    """(``model`` with the nodes ONNX Runtime's NCHWc transformer moves into its NCHWc Conv kernels written as
    ``ai.intdot:NchwcConv`` (module docstring), or ``model`` itself where there is none or ``platform`` is not x86;
    the inputs of the float pools it moves into its NCHWc pooling kernels, 4-D ones of a channel count the graph
    knows to be a multiple of the block (:mod:`.pooling`); the outputs of the linear Resizes it moves into its
    NCHWc Upsample, :func:`upsample`).
    ``shapes_of``: a function giving :func:`.qdq_rules.inferred_values`'s; ``constants``: the values ONNX Runtime
    holds as constants."""
    from onnx import helper

    block = block_of(platform)
    g = model.graph
    if block is None or not any(n.op_type in ("Conv", *_POOLS) for n in g.node):  # where NCHWc values start
        return model, frozenset(), frozenset()
    shapes = shapes_of()
    dims = {t.name: tuple(t.dims) for t in g.initializer}
    float32 = {t.name for t in g.initializer if t.data_type == 1}
    for n in g.node:
        if n.op_type == "Constant" and n.domain in ("", "ai.onnx"):
            for a in n.attribute:
                if a.name == "value":
                    dims[n.output[0]] = tuple(a.t.dims)
                    if a.t.data_type == 1:
                        float32.add(n.output[0])
    uses: dict = {}
    for n in g.node:
        for i in n.input:
            uses[i] = uses.get(i, 0) + 1
    for o in g.output:
        uses[o.name] = uses.get(o.name, 0) + 1
    readers: dict = {}
    for n in g.node:
        for i in n.input:
            readers.setdefault(i, []).append(n)
    outputs = {o.name for o in g.output}

    def shape(name):
        return (shapes.get(name) or (None, None))[1]

    def activated_by_fusion(out):  # ConvActivationFusion: one reader, an activation, no graph output
        if uses.get(out) != 1 or out in outputs:
            return None
        (r,) = readers[out]
        if r.op_type not in _FUSED_ACTIVATIONS or r.domain not in ("", "ai.onnx"):
            return None
        if r.op_type == "Clip" and any(i and i not in constants for i in r.input[1:]):
            return None
        return r

    nodes = list(g.node)
    slot = {id(n): i for i, n in enumerate(nodes)}  # each node's place, the NchwcConv nodes' too

    def replace(old, new):
        nodes[slot[id(old)]] = new
        slot[id(new)] = slot[id(old)]

    args: dict = {}  # value -> _Arg
    upsampled: set = set()  # the outputs of linear Resizes of NCHWc values
    pooled: set = set()  # the inputs of the pools in the layout
    fused_act: dict = {}  # id of an activation node ConvActivationFusion takes -> the _Arg it activates
    changed = False
    for n in g.node:
        if n.domain not in ("", "ai.onnx"):
            continue
        ins = list(n.input)
        op = n.op_type
        if op == "Conv" and _conv_taken(n, dims, float32, block):
            new = helper.make_node("NchwcConv", [ins[0], ins[1], ins[2] if len(ins) > 2 else "", ""], list(n.output),
                                   n.name, domain=DOMAIN, kind="conv")  # fmt: skip
            new.attribute.extend(a for a in n.attribute if a.name in _CONV_ATTRS)
            replace(n, new)
            arg = args[n.output[0]] = _Arg(dims[ins[1]][0], new)
            act = activated_by_fusion(n.output[0])
            if act is not None:
                fused_act[id(act)] = arg
            changed = True
        elif id(n) in fused_act:
            arg = fused_act[id(n)]
            arg.activated = True
            args[n.output[0]] = arg
        elif op in _NCHWC_ACTIVATIONS and ins[0] in args:
            src = args[ins[0]]
            if src.node is not None and uses.get(ins[0]) == 1 and not src.activated:
                src.activated = True
                args[n.output[0]] = src
            else:
                args[n.output[0]] = _Arg(src.channels)
        elif op == "BatchNormalization" and ins[0] in args and _one_output(n) and set(ins[1:5]) <= constants:
            eps = next((a.f for a in n.attribute if a.name == "epsilon"), 1e-5)
            new = helper.make_node("NchwcConv", ins[:5] + [""], [n.output[0]], n.name, domain=DOMAIN,
                                   kind="batchnorm", epsilon=eps)  # fmt: skip
            replace(n, new)
            args[n.output[0]] = _Arg(args[ins[0]].channels, new)
            changed = True
        elif op == "Mul" and len(ins) == 2 and _per_channel_mul(ins, args, constants, lambda v: dims.get(v, shape(v))):
            x, c = (ins[0], ins[1]) if ins[0] in args else (ins[1], ins[0])
            new = helper.make_node("NchwcConv", [x, c, ""], [n.output[0]], n.name, domain=DOMAIN, kind="mul")
            replace(n, new)
            args[n.output[0]] = _Arg(args[x].channels, new)
            changed = True
        elif op in ("Add", "Sum", "Mul") and ins and all(i in args for i in ins) and _alike(ins, args, shape):
            if (op == "Add" or (op == "Sum" and len(ins) == 2)) and _fuse_sum(n, ins, args, uses, nodes, slot):
                changed = True
                continue
            args[n.output[0]] = _Arg(args[ins[0]].channels)
        elif op in _POOLS and _one_output(n) and (shapes.get(ins[0]) or (None,))[0] == np.float32:
            c = args[ins[0]].channels if ins[0] in args else _channels(shape(ins[0]))
            if c and c % block == 0 and len(shape(ins[0]) or ()) == 4:
                args[n.output[0]] = _Arg(c)
                pooled.add(ins[0])
        elif op == "Resize" and ins[0] in args and _attribute(n, "mode") == "linear":
            upsampled.add(n.output[0])  # its NchwcUpsample, where the scales are whole numbers (:func:`upsample`)
            args[n.output[0]] = _Arg(args[ins[0]].channels)
        elif op == "Concat" and ins and all(i in args and args[i].channels % block == 0 for i in ins):
            axis = next((a.i for a in n.attribute if a.name == "axis"), None)
            if axis in (1, -3):
                args[n.output[0]] = _Arg(sum(args[i].channels for i in ins))
    found = frozenset(pooled), frozenset(upsampled)
    if not changed:
        return model, *found
    out = type(model)()
    out.CopyFrom(model)
    del out.graph.node[:]
    out.graph.node.extend(n for n in nodes if n is not None)
    if not any(o.domain == DOMAIN for o in out.opset_import):
        out.opset_import.append(helper.make_opsetid(DOMAIN, 1))
    return out, *found


def _attribute(n, name):
    from ._args import text

    return text(next((a.s for a in n.attribute if a.name == name), None), None)


def _one_output(n) -> bool:
    return len([o for o in n.output if o]) == 1


def _conv_taken(n, dims, float32, block) -> bool:
    ins = list(n.input)
    w = dims.get(ins[1]) if len(ins) > 1 else None
    if w is None or len(w) != 4 or ins[1] not in float32:
        return False
    if len(ins) > 2 and ins[2] and (ins[2] not in float32 or dims.get(ins[2]) != (w[0],)):
        return False
    group = next((a.i for a in n.attribute if a.name == "group"), 1)
    return algorithm(w[1] * group, w[0], group, w[2:], (0, 0, 0, 0), block) is not None


def _channels(dims):
    return dims[1] if dims and len(dims) == 4 and isinstance(dims[1], int) else None


def _per_channel_mul(ins, args, constants, shape) -> bool:
    """A Mul of an NCHWc value by a constant of shape (C, 1, 1) or (1, C, 1, 1)."""
    if (ins[0] in args) == (ins[1] in args):
        return False
    x, c = (ins[0], ins[1]) if ins[0] in args else (ins[1], ins[0])
    return c in constants and shape(c) in ((args[x].channels, 1, 1), (1, args[x].channels, 1, 1))


def _alike(ins, args, shape) -> bool:
    """NCHWc operands of one channel count and one known shape (the transformer's elementwise condition)."""
    first = shape(ins[0])
    return first is not None and all(args[i].channels == args[ins[0]].channels and shape(i) == first for i in ins)


def _fuse_sum(n, ins, args, uses, nodes, slot) -> bool:
    """The Add ``n`` made the starting output of the first of its operands' NchwcConv nodes that takes it."""
    for k, name in enumerate(ins):
        arg = args[name]
        if arg.node is None or uses.get(name) != 1 or arg.activated or arg.summed:
            continue
        conv = arg.node
        other = ins[1 - k]
        conv.input[len(conv.input) - 1] = other
        conv.output[0] = n.output[0]
        nodes[slot[id(conv)]] = None
        nodes[slot[id(n)]] = conv  # where the Add was: both operands are ready there
        slot[id(conv)] = slot[id(n)]
        arg.summed = True
        args[n.output[0]] = arg
        return True
    return False


def run_node(kind: str, x, rest, attrs: dict, platform: str) -> np.ndarray:
    """An ``ai.intdot:NchwcConv`` node of :func:`rewrite`: ``kind`` "conv" (``rest``: W, B, Z), "batchnorm"
    (scale, B, mean, var, Z; ``attrs["epsilon"]``) or "mul" (the constant, Z); None for an absent input."""
    from ..core.errors import OperandError
    from ._args import text
    from .conv import _geometry

    block = block_of(platform)
    x = np.asarray(x)
    if x.dtype != np.float32 or x.ndim != 4:
        raise OperandError(f"x of type {x.dtype} and shape {x.shape}: expected float32 (N, C, H, W)")
    if kind == "conv":
        w, b, z = rest
        group = int(attrs.get("group") or 1)
        begin, end, _, dil, st = _geometry(x.shape, np.shape(w), text(attrs.get("auto_pad"), "NOTSET"),
                                           attrs.get("dilations"), group, attrs.get("kernel_shape"),
                                           attrs.get("pads"), attrs.get("strides"))  # fmt: skip
        pads = (begin[0], begin[1], end[0], end[1])
        if min(pads) < 0:  # SAME with a kernel under its stride: ONNX Runtime's kernels would read outside x
            raise OperandError(f"pads {list(pads)}: a negative pad is not modelled in ONNX Runtime's NCHWc kernels")
        how = algorithm(x.shape[1], np.shape(w)[0], group, np.shape(w)[2:], pads, block)
        return conv(x, w, b, z, kind=how, pads=pads, strides=st, dilations=dil, group=group, block=block)
    if kind == "batchnorm":
        scale, bias, mean, var, z = rest
        w, b = batch_norm_weights(scale, bias, mean, var, float(attrs.get("epsilon", 1e-5)))
    else:
        c, z = rest
        w, b = np.asarray(c, F32).reshape(-1, 1, 1, 1), None
    return conv(x, w, b, z, kind="depthwise", pads=(0, 0, 0, 0), strides=(1, 1), dilations=(1, 1), block=block)


UPSAMPLE_TRANSFORMS = ("asymmetric", "half_pixel", "align_corners")


def upsample_scales(x_shape, scales, sizes):
    """The whole-number (height, width) scales of ONNX Runtime's NCHWc Upsample for a Resize of ``x_shape`` by
    ``scales`` or to ``sizes``, or None where it keeps the Resize (a scale that is no whole number, or other axes
    scaled)."""
    if sizes is not None:
        sizes = [int(v) for v in np.asarray(sizes).reshape(-1)]
        if len(sizes) != 4 or sizes[:2] != list(x_shape[:2]) or any(s % n for s, n in zip(sizes[2:], x_shape[2:])):
            return None
        found = [s // n for s, n in zip(sizes[2:], x_shape[2:])]
    else:
        v = np.asarray(scales, np.float64).reshape(-1)
        if v.size != 4 or v[0] != 1 or v[1] != 1 or np.any(v[2:] != np.floor(v[2:])):
            return None
        found = [int(s) for s in v[2:]]
    return tuple(found) if min(found) >= 1 else None


def upsample(x, scales, transform: str) -> np.ndarray:
    """MLAS's NCHWc linear Upsample of the 4-D float32 ``x`` by whole-number ``scales`` (height, width): each
    output's source position in float32 as ONNX Runtime computes it for ``transform``, its four weights
    ``(1 - fy) (1 - fx)``, ``(1 - fy) fx``, ``fy (1 - fx)``, ``fy fx`` each one product, and the four terms added
    as ``(a + b) + (c + d)``."""
    x = np.asarray(x, F32)
    ys, fy = _positions(x.shape[2], scales[0], transform)
    xs, fx = _positions(x.shape[3], scales[1], transform)
    gy, gx = (F32(1) - fy).astype(F32)[:, None], (F32(1) - fx).astype(F32)[None, :]
    fy, fx = fy[:, None], fx[None, :]
    (y0, y1), (x0, x1) = ys, xs

    def tap(rows, cols, weight):
        return (x[:, :, rows[:, None], cols[None, :]] * weight.astype(F32)).astype(F32)

    top = (tap(y0, x0, gy * gx) + tap(y0, x1, gy * fx)).astype(F32)
    bottom = (tap(y1, x0, fy * gx) + tap(y1, x1, fy * fx)).astype(F32)
    return (top + bottom).astype(F32)


def _positions(n: int, scale: int, transform: str):
    """((first source index, second), fraction) of each output along an axis of ``n`` inputs."""
    o = np.arange(n * scale, dtype=F32)
    if scale == 1:
        v = o
    elif transform == "align_corners":
        v = ((o * F32(n - 1)).astype(F32) / F32(n * scale - 1)).astype(F32)
    elif transform == "half_pixel":
        v = np.maximum(F32(0), (((o + F32(0.5)) / F32(scale)).astype(F32) - F32(0.5)).astype(F32))
    else:
        v = (o / F32(scale)).astype(F32)
    first = v.astype(np.int64)
    return (first, np.minimum(first + 1, n - 1)), (v - first.astype(F32)).astype(F32)
