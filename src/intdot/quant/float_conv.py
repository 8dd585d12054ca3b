"""Float32 Conv as ONNX Runtime computes it outside x86's NCHWc layout, bit for bit: MLAS's convolution for each
image and group,
its input expanded into columns (im2col: K over the input channels, then the kernel positions, row-major; a
pointwise Conv reads its input as they are, the same matrix), multiplied by the filters through MLAS's SGEMM
(:mod:`.sgemm`: the columns are no constant, so its K blocks follow N and K), the bias added after.  Depthwise and
grouped Convs go the same way, one group at a time.  This is every float Conv on Arm, and on x86 the ones its
NCHWc layout transformer leaves (:mod:`.nchwc`: 1-D and 3-D ones, weights that are no constant, channel counts
its kernels do not take).

ONNX Runtime's ConvAddActivationFusion (on every CPU, after that transformer) makes a Conv with a bias and the
Add after it, of two operands of one shape, one node whose SGEMM starts from the Add's other operand, the bias
after (:func:`fuse_conv_add`).  Checked against ONNX Runtime for AArch64 and for x86 in
``tests/quant/test_float_conv.py`` and ``tests/quant/test_nchwc.py``.  With several threads MLAS may cut the output
columns of a large Conv into segments, each with its own K blocks; this models one thread.
"""

from __future__ import annotations

import numpy as np

from ._args import INTDOT_DOMAIN
from .conv import _geometry
from .fma import fma32
from .sgemm import gemm2d

F32 = np.float32


def _columns(x, begin, end, out, kernel, dil, st):
    """(C * prod(kernel), prod(out)) windows of the 3-D+ image ``x`` (C, spatial...), zero padded: channels outer,
    kernel positions inner, as MLAS's im2col lays them out."""
    n = len(kernel)
    xp = np.pad(x, [(0, 0)] + [(b, e) for b, e in zip(begin, end)])
    span = tuple((k - 1) * d + 1 for k, d in zip(kernel, dil))
    win = np.lib.stride_tricks.sliding_window_view(xp, span, axis=tuple(range(1, 1 + n)))
    win = win[(slice(None),) + tuple(slice(None, (o - 1) * t + 1, t) for o, t in zip(out, st))]
    win = win[(Ellipsis,) + tuple(slice(None, None, d) for d in dil)]  # (C, *out, *kernel)
    order = (0,) + tuple(range(1 + n, 1 + 2 * n)) + tuple(range(1, 1 + n))
    return np.ascontiguousarray(win.transpose(order)).reshape(x.shape[0] * int(np.prod(kernel)), -1)


def conv(x, w, b=None, z=None, *, auto_pad="NOTSET", dilations=None, group=1, kernel_shape=None, pads=None,
         strides=None, platform: str = "arm") -> np.ndarray:  # fmt: skip
    """ONNX's float32 Conv of ``x`` (N, C, spatial...) by ``w`` (M, C/group, kernel...) plus ``b`` (M), as MLAS
    computes it (module docstring); ``z`` (the output's shape), where given, is the output its SGEMM starts from
    (an Add fused into the Conv, :func:`fuse_conv_add`).  Bad shapes or attributes are
    :class:`~intdot.errors.OperandError`."""
    from ..core.errors import OperandError

    x, w = np.asarray(x, F32), np.asarray(w, F32)
    if auto_pad in ("SAME_UPPER", "SAME_LOWER") and any(d != 1 for d in (dilations or [])):
        raise OperandError(f"dilations={list(dilations)} with auto_pad={auto_pad!r}: ONNX Runtime refuses dilations "
                           "under SAME padding")  # fmt: skip
    begin, end, out, dil, st = _geometry(x.shape, w.shape, auto_pad, dilations, group, kernel_shape, pads, strides)
    m, cg = w.shape[0], w.shape[1]
    mg = m // group
    filters = w.reshape(group, mg, -1)
    y = np.empty((x.shape[0], m) + tuple(out), F32)
    if z is not None and np.shape(z) != y.shape:
        raise OperandError(f"z of shape {np.shape(z)}: expected the output's, {y.shape}")
    if (platform == "x86" and group > 1 and cg == 1 and mg == 2 and len(out) == 2 and tuple(w.shape[2:]) == (7, 7)
            and list(begin) + list(end) == [3] * 4 and tuple(st) == (2, 2) and tuple(dil) == (1, 1)):  # fmt: skip
        return _bias(_multiplier2(x, w, z, out), b)
    # MLAS's depthwise kernel on Arm (3x3, pads up to 1, stride 1) adds its taps from 0, then the Add's operand
    direct = platform.startswith("arm") and cg == mg == 1 and len(out) == 2 and tuple(w.shape[2:]) == (3, 3) and (
        max(begin + end) <= 1 and tuple(st) == (1, 1) and tuple(dil) == (1, 1))  # fmt: skip
    for image in range(x.shape[0]):
        for g in range(group):
            cols = _columns(x[image, g * cg : (g + 1) * cg], begin, end, out, w.shape[2:], dil, st)
            start = None if z is None or direct else np.asarray(z[image, g * mg : (g + 1) * mg], F32).reshape(mg, -1)
            y[image, g * mg : (g + 1) * mg] = gemm2d(filters[g], cols, start, platform=platform).reshape(
                (mg,) + tuple(out)
            )
    if z is not None and direct:
        y = (y + np.asarray(z, F32)).astype(F32)
    return _bias(y, b)


def _bias(y, b):
    if b is None:
        return y
    return (y + np.asarray(b, F32).reshape((1, -1) + (1,) * (y.ndim - 2))).astype(F32)


def _multiplier2(x, w, z, out):
    """MLAS's AVX-512F kernel for a depthwise 7x7 Conv of stride 2, pads 3 and two outputs a channel: an output
    whose window lies inside the input adds each of its 7 columns' taps in a lane by fused multiply-adds, the
    lanes then summed as ``((l0 + l4) + (l2 + l6)) + ((l1 + l5) + l3)`` (and the Add's operand after); one whose
    window reaches the padding adds its taps in order, by fused multiply-adds, from the operand or 0."""
    n, c, h, wd = x.shape
    oh, ow = out
    x2 = np.repeat(x, 2, axis=1)  # output channel m reads input channel m // 2
    rows, cols = np.arange(oh)[:, None] * 2 - 3, np.arange(ow)[None, :] * 2 - 3
    edge = np.zeros((n, 2 * c, oh, ow), F32) if z is None else np.asarray(z, F32).copy()
    lanes = np.zeros((7, n, 2 * c, oh, ow), F32)
    for i in range(7):
        for j in range(7):
            ih, iw = rows + i, cols + j
            valid = (ih >= 0) & (ih < h) & (iw >= 0) & (iw < wd)
            tap = x2[:, :, np.clip(ih, 0, h - 1), np.clip(iw, 0, wd - 1)]
            wv = w[None, :, 0, i, j, None, None]
            edge = np.where(valid, fma32(tap, wv, edge), edge)
            lanes[j] = fma32(tap, wv, lanes[j])
    s = [(v + F32(0)).astype(F32) for v in lanes]  # the 256-bit halves' sum adds the zero lanes 8 to 15
    inner = ((s[0] + s[4]).astype(F32) + (s[2] + s[6]).astype(F32)).astype(F32)
    inner = (inner + ((s[1] + s[5]).astype(F32) + (s[3] + F32(0)).astype(F32)).astype(F32)).astype(F32)
    if z is not None:
        inner = (inner + np.asarray(z, F32)).astype(F32)
    inside = (rows >= 0) & (rows + 7 <= h) & (cols >= 0) & (cols + 7 <= wd)
    return np.where(inside, inner, edge)


DOMAIN = INTDOT_DOMAIN


def fuse_conv_add(model, shapes_of):
    """``model`` with each float Conv that ONNX Runtime's ConvAddActivationFusion fuses with the Add after it made
    one ``ai.intdot:ConvAdd`` node (X, W, B, Z); ``model`` itself where there is none.  Its conditions: a Conv
    with a bias, used by that Add alone and no graph output; an Add of two 4-D operands of one shape (each
    dimension a value, or one name); the first of its operands such a Conv writes.  ``shapes_of``: a function
    giving :func:`.qdq_rules.inferred_values`'s."""
    from onnx import helper

    g = model.graph
    if not any(n.op_type == "Conv" and n.domain in ("", "ai.onnx") for n in g.node):
        return model
    uses: dict = {}
    for n in g.node:
        for i in n.input:
            uses[i] = uses.get(i, 0) + 1
    for o in g.output:
        uses[o.name] = uses.get(o.name, 0) + 2  # a graph output is never fused away
    writer = {o: n for n in g.node for o in n.output}
    shapes = None
    nodes, drop = list(g.node), set()
    for k, n in enumerate(nodes):
        if n.op_type != "Add" or n.domain not in ("", "ai.onnx") or len(n.input) != 2:
            continue
        conv = next((writer.get(i) for i in n.input if _fusable_conv(writer.get(i), uses)), None)
        if conv is None:
            continue
        shapes = shapes if shapes is not None else shapes_of()
        a, b = ((shapes.get(i) or (None, None))[1] for i in n.input)
        if a is None or len(a) != 4 or a != b or any(d is None or d == 0 for d in a):
            continue
        if (shapes.get(n.input[0]) or (None,))[0] != np.float32:
            continue
        other = n.input[1] if writer.get(n.input[0]) is conv else n.input[0]
        fused = helper.make_node("ConvAdd", [*conv.input[:3], other], list(n.output), conv.name, domain=DOMAIN)
        fused.attribute.extend(conv.attribute)
        nodes[k] = fused  # where the Add was: both operands are ready there
        drop.add(id(conv))
    if not drop:
        return model
    out = type(model)()
    out.CopyFrom(model)
    del out.graph.node[:]
    out.graph.node.extend(n for n in nodes if id(n) not in drop)
    if not any(o.domain == DOMAIN for o in out.opset_import):
        out.opset_import.append(helper.make_opsetid(DOMAIN, 1))
    return out


def _fusable_conv(node, uses) -> bool:
    return (node is not None and node.op_type == "Conv" and node.domain in ("", "ai.onnx") and len(node.input) == 3
            and bool(node.input[2]) and uses.get(node.output[0]) == 1)  # fmt: skip
