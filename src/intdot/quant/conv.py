"""ONNX ``ConvInteger`` and ``QLinearConv`` through a chosen instruction, as im2col and one batched product.

Padding takes the input's zero point (a padded element is zero after the zero point is subtracted, as ONNX
defines it); each group is one batch entry of the product, so a depthwise convolution is ``group`` small
products; weight zero points per output channel are per-column zero points of the product.
"""

from __future__ import annotations

import numpy as np

from ..core.errors import OperandError
from ..core.values import check_choice, describe
from . import _args
from .integer import product
from .plan import plan
from .requant import METHODS, multiplier, requantize

AUTO_PAD = ("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID")


def _geometry(x_shape, w_shape, auto_pad, dilations, group, kernel_shape, pads, strides):
    """(pads begin, pads end, output spatial shape, dilations, strides) as ONNX defines them."""
    n = len(x_shape) - 2
    if n < 1 or len(w_shape) != n + 2:
        raise OperandError(
            f"x has shape {x_shape} and w has shape {w_shape}; expected x (N, C, D1, ...) and w (M, C/group, k1, "
            f"...) with as many spatial axes"
        )
    if not isinstance(group, int) or isinstance(group, bool) or group < 1:
        raise OperandError(f"group={describe(group)}: expected a positive integer")
    c, m = x_shape[1], w_shape[0]
    if c % group or m % group or w_shape[1] != c // group:
        raise OperandError(
            f"group={group} with x of {c} channels and w of shape {w_shape}: expected both channel counts divisible "
            f"by group and w.shape[1] == C / group ({c // group if not c % group else 'C is not divisible'})"
        )
    kernel = tuple(w_shape[2:])
    if kernel_shape is not None and tuple(_args.ints(kernel_shape, "kernel_shape", n, 1, 1)) != kernel:
        raise OperandError(f"kernel_shape={describe(kernel_shape)} differs from w's spatial shape {kernel}")
    dil = _args.ints(dilations, "dilations", n, 1, 1)
    st = _args.ints(strides, "strides", n, 1, 1)
    check_choice(auto_pad, "auto_pad", AUTO_PAD)
    span = [(k - 1) * d + 1 for k, d in zip(kernel, dil)]
    size = x_shape[2:]
    if auto_pad == "NOTSET":
        p = _args.ints(pads, "pads", 2 * n, 0, 0)
        begin, end = p[:n], p[n:]
    elif auto_pad == "VALID":
        begin = end = (0,) * n
    else:
        if pads is not None:
            raise OperandError(f"pads={describe(pads)} with auto_pad={describe(auto_pad)}: ONNX takes one or the other")
        total = [max(0, (-(-s // t) - 1) * t + e - s) for s, t, e in zip(size, st, span)]
        head = [(p + 1) // 2 if auto_pad == "SAME_LOWER" else p // 2 for p in total]
        begin, end = tuple(head), tuple(p - h for p, h in zip(total, head))
    out = tuple((s + b + e - sp) // t + 1 for s, b, e, sp, t in zip(size, begin, end, span, st))
    if any(o < 1 for o in out):
        raise OperandError(
            f"x's spatial shape {size} with pads {begin + end}, dilated kernel {tuple(span)} and strides {st} "
            f"gives no output ({out})"
        )
    return begin, end, out, dil, st


def _im2col(x, zx, begin, end, out, kernel, dil, st, group):
    """(group, N * prod(out), prod(kernel) * C/group) windows of x padded with its zero point.

    K runs over kernel positions, channels innermost, as ONNX Runtime's channels-last kernels lay it out: exact
    sums do not depend on the order, but an instruction that saturates pair sums (the AVX2 idiom) pairs
    neighbours along K, and with this order it pairs them as ONNX Runtime's x86 kernel does.
    """
    nb, c = x.shape[:2]
    n = len(kernel)
    if any(begin) or any(end):
        xp = np.full(x.shape[:2] + tuple(s + b + e for s, b, e in zip(x.shape[2:], begin, end)), zx, x.dtype)
        xp[(slice(None), slice(None)) + tuple(slice(b, b + s) for b, s in zip(begin, x.shape[2:]))] = x
    else:
        xp = x
    span = tuple((k - 1) * d + 1 for k, d in zip(kernel, dil))
    win = np.lib.stride_tricks.sliding_window_view(xp, span, axis=tuple(range(2, 2 + n)))
    win = win[(slice(None), slice(None)) + tuple(slice(None, (o - 1) * t + 1, t) for o, t in zip(out, st))]
    win = win[(Ellipsis,) + tuple(slice(None, None, d) for d in dil)]  # (N, C, *out, *kernel)
    cg = c // group
    win = win.reshape((nb, group, cg) + tuple(out) + tuple(kernel))
    order = (1, 0) + tuple(range(3, 3 + 2 * n)) + (2,)
    return np.ascontiguousarray(win.transpose(order)).reshape(group, nb * int(np.prod(out)), cg * int(np.prod(kernel)))


def _integer(x, w, x_zero_point, w_zero_point, attrs, op, target, names=("x", "w", "x_zero_point", "w_zero_point")):
    x = _args.operand8(x, names[0])
    w = _args.operand8(w, names[1])
    zx = _args.per_tensor(_args.zero_point(x_zero_point, names[2], x.dtype), names[2])
    zw = _args.along(
        _args.zero_point(w_zero_point, names[3], w.dtype),
        names[3],
        1,
        0,
        w.shape[0] if w.ndim else 0,
        f"{w.shape[0] if w.ndim else 0} values (one per output channel)",
    )
    begin, end, out, dil, st = _geometry(x.shape, w.shape, **attrs)
    group = attrs["group"]
    m = w.shape[0]
    mg = m // group
    cols = _im2col(x, zx, begin, end, out, w.shape[2:], dil, st, group)
    n = w.ndim - 2
    # (group, prod(k) * Cg, M/g), K in the order of the windows: kernel positions, channels innermost.
    wg = w.reshape((group, mg) + w.shape[1:]).transpose((0,) + tuple(range(3, 3 + n)) + (2, 1))
    wmat = np.ascontiguousarray(wg).reshape(group, -1, mg)
    zb = zw.reshape(group, 1, mg) if zw.ndim else zw
    acc = product(cols, wmat, zx.astype(np.int64), zb.astype(np.int64), plan(op, x.dtype, w.dtype), target)
    nb = x.shape[0]
    acc = acc.reshape((group, nb) + tuple(out) + (mg,))
    acc = acc.transpose((1, 0, n + 2) + tuple(range(2, 2 + n))).reshape((nb, m) + tuple(out))
    return np.ascontiguousarray(acc)


def _attrs(auto_pad, dilations, group, kernel_shape, pads, strides):
    return dict(
        auto_pad=auto_pad, dilations=dilations, group=group, kernel_shape=kernel_shape, pads=pads, strides=strides
    )


def conv_integer(
    x,
    w,
    x_zero_point=None,
    w_zero_point=None,
    *,
    auto_pad: str = "NOTSET",
    dilations=None,
    group: int = 1,
    kernel_shape=None,
    pads=None,
    strides=None,
    op,
    target=None,
) -> np.ndarray:
    """ONNX ``ConvInteger``: the convolution of ``x - x_zero_point`` with ``w - w_zero_point``, as int32.

    Parameters
    ----------
    x : numpy.ndarray of int8 or uint8, shape (N, C, D1, ..., Dn)
    w : numpy.ndarray of int8 or uint8, shape (M, C / group, k1, ..., kn)
    x_zero_point : optional
        Per tensor, of x's dtype.
    w_zero_point : optional
        Per tensor or one per output channel (M values), of w's dtype.
    auto_pad, dilations, group, kernel_shape, pads, strides
        ONNX's attributes (``pads`` as [x1_begin, x2_begin, ..., x1_end, x2_end]); ``group == C`` is depthwise.
    op, target
        The instruction that computes the products, as for :func:`intdot.quant.matmul_integer`.

    Examples
    --------
    >>> import numpy as np
    >>> from intdot.quant import conv_integer
    >>> x = np.arange(2, 11, dtype=np.uint8).reshape(1, 1, 3, 3)
    >>> w = np.ones((1, 1, 2, 2), np.uint8)
    >>> conv_integer(x, w, np.uint8(1), op="sdot").tolist()                  # ONNX's own test case
    [[[[12, 16], [24, 28]]]]
    """
    return _integer(
        x, w, x_zero_point, w_zero_point, _attrs(auto_pad, dilations, group, kernel_shape, pads, strides), op, target
    )


def qlinear_conv(
    x,
    x_scale,
    x_zero_point,
    w,
    w_scale,
    w_zero_point,
    y_scale,
    y_zero_point,
    B=None,
    *,
    auto_pad: str = "NOTSET",
    dilations=None,
    group: int = 1,
    kernel_shape=None,
    pads=None,
    strides=None,
    op,
    target=None,
    requant: str = "float32",
    platform: str = "x86",
) -> np.ndarray:
    """ONNX ``QLinearConv``: ``saturate(round((conv + B) * x_scale * w_scale / y_scale) + y_zero_point)``.

    ``w_scale`` and ``w_zero_point`` are per tensor or per output channel; ``B`` is an optional int32 bias
    per output channel, added to the int32 sums (wrapping) before requantization.  ``requant`` and ``platform``
    as for :func:`intdot.quant.qlinear_matmul`.  Attributes, ``op`` and ``target`` as for :func:`conv_integer`.

    Examples
    --------
    >>> import numpy as np
    >>> from intdot.quant import qlinear_conv
    >>> x = np.array([[[[10, 20], [30, 40]]]], np.uint8)
    >>> w = np.array([[[[2]]]], np.int8)
    >>> one = np.float32(1)
    >>> qlinear_conv(x, one, np.uint8(0), w, np.float32(0.5), np.int8(0), one, np.uint8(5),
    ...              np.array([1], np.int32), op="usdot").tolist()     # (2x + 1) / 2: 10.5 -> 10, 20.5 -> 20
    [[[[15, 25], [35, 45]]]]
    """
    check_choice(requant, "requant", METHODS)
    platform = _args.platform_of(platform)
    attrs = _attrs(auto_pad, dilations, group, kernel_shape, pads, strides)
    acc = _integer(x, w, x_zero_point, w_zero_point, attrs, op, target)
    m = acc.shape[1]
    spatial = acc.ndim - 2
    yz = _args.per_tensor(
        _args.tensor(y_zero_point, "y_zero_point", _args.EIGHT_BIT, "int8 or uint8 (the output's type)"),
        "y_zero_point",
    )
    sx = _args.per_tensor(_args.scale(x_scale, "x_scale"), "x_scale")
    sy = _args.per_tensor(_args.scale(y_scale, "y_scale"), "y_scale")
    sw = _args.along(_args.scale(w_scale, "w_scale"), "w_scale", 1, 0, m, f"{m} values (one per output channel)")
    per_channel = (1, m) + (1,) * spatial
    sw = sw.reshape(per_channel) if sw.ndim else sw
    bias = None
    if B is not None:
        b = _args.tensor(B, "B", (np.dtype(np.int32),), "int32")
        if b.shape != (m,):
            raise OperandError(f"B has shape {b.shape}; expected ({m},), one int32 bias per output channel")
        bias = b.reshape(per_channel)
    if requant == "fixed_point":
        with np.errstate(divide="ignore", invalid="ignore"):  # a zero y_scale: refused by multiplier()
            real = sx.astype(np.float64) * sw.astype(np.float64) / sy.astype(np.float64)
        scale = multiplier(real, "x_scale * w_scale / y_scale")
    else:
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):  # IEEE, as ONNX Runtime: zero y_scale
            scale = sx * sw / sy  # float32, in ONNX Runtime's order
    return requantize(acc, scale, yz, bias=bias, method=requant, platform=platform)
