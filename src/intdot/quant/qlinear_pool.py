"""ONNX Runtime's ``com.microsoft:QLinearGlobalAveragePool`` and ``QLinearAveragePool``, bit for bit as its CPU
kernels compute them on x86 (``platform="x86"``, the default) or on Arm (AArch64 with NEON, ``platform="arm"``).

Its optimizer writes these for ``DequantizeLinear -> GlobalAveragePool/AveragePool -> QuantizeLinear`` groups
(:mod:`intdot.quant.qdq_unary`).  Read from ``qlinear_global_average_pool.cc``, ``qlinear_pool.cc``,
``pool_attributes.h`` and MLAS's ``qlgavgpool.cpp`` / ``MlasRequantizeOutput``, and checked against ONNX Runtime
1.32 for x86 and for AArch64 (under qemu-user) in ``tests/quant/test_qlinear_pool.py``:

QLinearGlobalAveragePool (MLAS: SSE2 on every x86 CPU, NEON on Arm)
    Integer sums: ``acc = sum(x) - x_zero_point * n`` in int32 over the ``n`` positions of each channel;
    then ``float32(acc) * scale`` with ``scale = x_scale / (y_scale * float32(n))`` (each step float32), clamped
    to ``[lowest - y_zero_point, highest - y_zero_point]`` (a NaN to the lower bound), rounded half to even
    (``cvtps2dq``) and ``y_zero_point`` added.  ONNX Runtime refuses ``scale`` outside ``[2**-32, 256)`` and
    ``n >= 2**24`` ("parameter out of computation range", "ImageSize too large"): a zero or negative scale
    included.
QLinearAveragePool (plain C++)
    Where the kernel covers every spatial axis and no padding is left (after ``auto_pad``), the global kernel
    above.  Otherwise all of x is dequantized first, ``x_scale * float32(x - x_zero_point)``; each window is summed
    in float32 from 0, in row-major order of its positions (padding adds nothing), divided by the count (the
    kernel's size with ``count_include_pad``, else the positions inside the input) in float32, and quantized as
    ``nearbyintf(y / y_scale + float32(y_zero_point))``, truncated to int32 (NaN and values past int32 give
    INT32_MIN: ``cvttss2si``) and saturated.  Windows never reach past the input's end, whatever the pads and
    ``ceil_mode`` (ONNX Runtime clips them at the input, and with ``count_include_pad`` still divides by the
    kernel's size); ``dilations`` other than 1 are not read by this kernel (the output size counts them, the
    windows do not), so they are refused here.

On Arm (``platform="arm"``)
    The global kernel's bits are x86's.  MLAS's NEON kernel sums in int32 the same way (wrapping alike) and hands
    the sums to ``MlasRequantizeOutput``: ``float32(acc) * scale`` (the same float32 scale), ``fcvtns`` (half to
    even, saturating to int32), a saturating narrowing to int16, ``y_zero_point`` added saturating in int16 and a
    saturating narrowing to the 8-bit type.  The scale is finite and positive once checked, so clamping before or
    after the rounding gives the same codes; the refused range is x86's (``[2**-32, 256)``, ``n < 2**24``).  (Older
    MLAS releases requantized with a fixed-point multiplier, the scale's 24-bit significand, and a rounding
    shift, rounding ties away from zero; ONNX Runtime 1.32 does not: ties go to even.)
    QLinearAveragePool's C++ loop is x86's up to the float32 -> int32 conversion of ``nearbyintf``'s result:
    AArch64's ``fcvtzs`` saturates and sends a NaN to 0, and the 8-bit saturation follows.  Where x86 gives the
    lowest code, Arm gives 0 for a NaN (a zero ``y_scale`` over a zero mean, or zero scales) and the highest code
    for +inf (a zero ``y_scale`` over a positive mean) and for a value past ``2**31`` (scales far apart); -inf and
    values below ``-2**31`` give the lowest code on both.  (An empty output on the NHWC path, which kills the
    process on x86, an integer division by zero, is an empty tensor on Arm, where that division gives 0.)

``channels_last=1`` (which ONNX Runtime's NHWC transformer sets) changes the layout, not the arithmetic.
"""

from __future__ import annotations

import numpy as np

from ..core.errors import OperandError
from ..core.values import check_choice, describe
from . import _args

F32 = np.float32


def _params(x_scale, x_zero_point, y_scale, y_zero_point, dtype):
    return (*_args.per_tensor_params(x_scale, x_zero_point, "x", dtype),
            *_args.per_tensor_params(y_scale, y_zero_point, "y", dtype))  # fmt: skip


def _input(X, channels_last):
    x = _args.operand8(X, "X")
    if x.ndim < 3:
        raise OperandError(f"X has shape {x.shape}; expected at least 3 dimensions (N, C and a spatial one)")
    if not (isinstance(channels_last, (int, np.integer, np.bool_)) and channels_last in (0, 1)):
        raise OperandError(f"channels_last={describe(channels_last)}: expected 0 or 1 (ONNX Runtime's attribute)")
    flag = bool(channels_last)
    # The spatial axes, and x with the channels at axis 1 (the arithmetic does not depend on the layout).
    return (np.moveaxis(x, -1, 1) if flag else x), flag


def _global(x, sx, zx, sy, zy) -> np.ndarray:
    """MLAS's global average pool of an NC... array ``x``, keeping the spatial axes as 1s."""
    axes = tuple(range(2, x.ndim))
    n = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        scale = F32(sx / F32(sy * F32(n)))
    if n >= 2**24 or not (scale >= F32(2.0**-32) and scale < F32(256)):
        raise OperandError(
            f"x_scale={describe(float(sx))}, y_scale={describe(float(sy))} over {n} positions give the scale "
            f"{describe(float(scale))}; ONNX Runtime's kernel takes x_scale / (y_scale * positions) in [2**-32, 256) "
            f"and fewer than 2**24 positions"
        )
    acc = x.astype(np.int64).sum(axis=axes, keepdims=True) - zx * n
    acc = ((acc + 2**31) % 2**32 - 2**31).astype(np.int32)  # int32 sums (wrapping only past 2**31)
    info = np.iinfo(x.dtype)
    v = acc.astype(F32) * scale
    lo, hi = F32(info.min - zy), F32(info.max - zy)
    v = np.minimum(np.maximum(np.where(np.isnan(v), lo, v), lo), hi)  # MAXPS takes the bound for a NaN
    return (np.rint(v).astype(np.int32) + zy).astype(x.dtype)


def qlinear_global_average_pool(
    X, x_scale, x_zero_point, y_scale, y_zero_point, *, channels_last=0, platform: str = "x86"
) -> np.ndarray:
    """ONNX Runtime's ``com.microsoft:QLinearGlobalAveragePool``: the mean of each channel of a quantized tensor,
    requantized, as its kernel computes it on ``platform`` (module docstring; x86 and Arm give the same bits).

    Parameters
    ----------
    X : numpy.ndarray of int8 or uint8, (N, C, spatial...) or, with ``channels_last``, (N, spatial..., C)
    x_scale, y_scale : float32, per tensor
    x_zero_point, y_zero_point : of X's type, per tensor
    channels_last : 0 or 1
    platform : "x86" or "arm", whose ONNX Runtime kernels to compute

    Returns
    -------
    numpy.ndarray of X's type, the spatial axes of length 1.

    Examples
    --------
    >>> import numpy as np
    >>> from intdot.quant.qlinear_pool import qlinear_global_average_pool
    >>> x = np.array([[[[10, 20], [30, 41]]]], np.uint8)         # 25.25 / 0.5 = 50.5: 50 (to even) + 3
    >>> qlinear_global_average_pool(x, np.float32(1), np.uint8(0), np.float32(0.5), np.uint8(3)).tolist()
    [[[[53]]]]
    """
    _args.platform_of(platform)  # the global kernel's bits are the same on both
    x, last = _input(X, channels_last)
    sx, zx, sy, zy = _params(x_scale, x_zero_point, y_scale, y_zero_point, x.dtype)
    y = _global(x, sx, zx, sy, zy)
    return np.moveaxis(y, 1, -1) if last else y


def _trunc_div(n: int, d: int) -> int:
    """C's integer division (toward zero)."""
    q = abs(n) // d
    return q if n >= 0 else -q


def _geometry(spatial, kernel, strides, pads, auto_pad, ceil_mode):
    """(output sizes, head pads) per spatial axis, as ONNX Runtime's PoolAttributes computes them (1.32): the
    SAME pads from its legacy target size (negative where the stride passes the kernel), the size by C's integer
    division, or with ``ceil_mode`` a float32 quotient rounded up, less one where the last window would start
    past the input and its head pad."""
    k = len(kernel)
    out, heads = [], []
    for i, size in enumerate(spatial):
        s, kk = strides[i], kernel[i]
        if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            need = ((size + s - 1) // s - 1) * s + kk - size
            head = _trunc_div(need + 1, 2) if auto_pad == "SAME_LOWER" else _trunc_div(need, 2)
            tail = need - head
        elif auto_pad == "VALID":
            head, tail = 0, 0
        else:
            head, tail = pads[i], pads[i + k]
        num = size + head + tail - (kk - 1) - 1
        n = _trunc_div(num, s) + 1
        if ceil_mode:
            n = int(np.ceil(F32(num) / F32(s))) + 1
            if (n - 1) * s >= size + head:
                n -= 1
        if n < 0:
            raise OperandError(
                f"kernel_shape={list(kernel)}, strides={list(strides)} and pads={list(pads)} (auto_pad "
                f"{auto_pad}) give a negative output size along spatial axis {i} of X's {tuple(spatial)}"
            )
        out.append(n)
        heads.append(head)
    return out, heads


def qlinear_average_pool(
    X,
    x_scale,
    x_zero_point,
    y_scale,
    y_zero_point,
    *,
    kernel_shape,
    auto_pad="NOTSET",
    ceil_mode=0,
    count_include_pad=0,
    dilations=None,
    pads=None,
    strides=None,
    channels_last=0,
    platform: str = "x86",
) -> np.ndarray:
    """ONNX Runtime's ``com.microsoft:QLinearAveragePool``: AveragePool of a quantized tensor, requantized, as its
    kernel computes it on ``platform`` ("x86" or "arm": they part where a value is NaN or past int32, module
    docstring); attributes as ONNX's AveragePool (1 to 3 spatial axes).

    Examples
    --------
    >>> import numpy as np
    >>> from intdot.quant.qlinear_pool import qlinear_average_pool
    >>> x = np.array([[[1, 2, 4, 7]]], np.uint8)
    >>> qlinear_average_pool(x, np.float32(1), np.uint8(0), np.float32(0.5), np.uint8(0),
    ...                      kernel_shape=[2], strides=[2]).tolist()     # means 1.5 and 5.5, over 0.5
    [[[3, 11]]]
    """
    platform = _args.platform_of(platform)
    x, last = _input(X, channels_last)
    sx, zx, sy, zy = _params(x_scale, x_zero_point, y_scale, y_zero_point, x.dtype)
    nsp = x.ndim - 2
    if not isinstance(kernel_shape, (list, tuple, np.ndarray)) or len(kernel_shape) != nsp or nsp > 3:
        raise OperandError(
            f"kernel_shape={describe(kernel_shape)} for X of shape {X.shape}: expected {nsp} integers, one per "
            f"spatial axis (ONNX Runtime's kernel takes 1 to 3)"
        )
    kernel = _args.ints(kernel_shape, "kernel_shape", nsp, 1, 1)
    strides = _args.ints(strides, "strides", nsp, 1, 1)
    pads = _args.ints(pads, "pads", 2 * nsp, 0, 0)
    if dilations is not None and _args.ints(dilations, "dilations", nsp, 1, 1) != (1,) * nsp:
        raise OperandError(
            f"dilations={describe(dilations)}: ONNX Runtime's QLinearAveragePool does not read dilations (its "
            f"output size counts them, its windows do not); expected all 1"
        )
    auto_pad = check_choice(
        auto_pad.decode() if isinstance(auto_pad, bytes) else auto_pad,
        "auto_pad",
        ("NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER"),
    )
    for i in range(nsp):
        if pads[i] >= kernel[i] or pads[i + nsp] >= kernel[i]:
            raise OperandError(
                f"pads={describe(list(pads))}: each pad must be smaller than the kernel (kernel_shape={list(kernel)})"
            )
    spatial = x.shape[2:]
    out, heads = _geometry(spatial, kernel, strides, pads, auto_pad, int(ceil_mode))
    no_pads = auto_pad == "VALID" or (auto_pad == "NOTSET" and not any(pads))
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):  # the pads ONNX Runtime computed replace the attribute's
        no_pads = all(((sz + st - 1) // st - 1) * st + kk - sz == 0 for sz, st, kk in zip(spatial, strides, kernel))
    if tuple(spatial) == kernel and no_pads:
        y = _global(x, sx, zx, sy, zy)
        return np.moveaxis(y, 1, -1) if last else y
    # x_scale * float32(code - x_zero_point), once per code (ONNX Runtime's table for large inputs gives the same).
    info = np.iinfo(x.dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        table = (F32(sx) * (np.arange(info.min, info.max + 1) - zx).astype(F32)).astype(F32)
    xf = table[x.astype(np.int32) - info.min]
    # Window j of output o along an axis reads position o * stride - head + j where that lies in the input; a
    # float32 sum from 0 in row-major order of the positions, so adding 0 where a position is outside changes
    # nothing.
    pos = [np.arange(out[i])[:, None] * strides[i] - heads[i] + np.arange(kernel[i])[None, :] for i in range(nsp)]
    inside = [(p >= 0) & (p < spatial[i]) for i, p in enumerate(pos)]
    acc = np.zeros(x.shape[:2] + tuple(out), F32)
    for offs in np.ndindex(*kernel):
        v, keep = xf, np.ones((), bool)
        for i in range(nsp):
            v = np.take(v, np.clip(pos[i][:, offs[i]], 0, spatial[i] - 1), axis=2 + i)
            keep = np.multiply.outer(keep, inside[i][:, offs[i]])
        acc = (acc + np.where(keep, v, F32(0))).astype(F32)
    count = np.ones((), np.int64)
    for i in range(nsp):  # ONNX Runtime's count: the kernel's size, or the positions inside the input
        n = np.full(out[i], kernel[i]) if count_include_pad else inside[i].sum(axis=1)
        count = np.multiply.outer(count, n)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        v = (acc / count.astype(F32)).astype(F32)
        v = ((v / sy).astype(F32) + F32(zy)).astype(F32)
    y = _args.to_codes(v, x.dtype, platform)
    return np.moveaxis(y, 1, -1) if last else y
