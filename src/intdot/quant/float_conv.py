"""Float32 Conv as ONNX Runtime's Arm build computes it, bit for bit: MLAS's convolution for each image and group,
its input expanded into columns (im2col: K over the input channels, then the kernel positions, row-major; a
pointwise Conv reads its input as they are, the same matrix), multiplied by the filters through MLAS's SGEMM
(:mod:`.sgemm`: the columns are no constant, so its K blocks follow N and K), the bias added after.  Depthwise and
grouped Convs go the same way, one group at a time.  Checked against ONNX Runtime for AArch64 in
``tests/quant/test_float_conv.py``.

ONNX Runtime on x86 runs most float Convs in its NCHWc kernels (its layout transformer), which add in another order:
not modelled, ``onnx.reference``'s there (docs/differences.md, row 28).  With several threads MLAS may cut the
output columns of a large Conv into segments, each with its own K blocks; this models one thread.
"""

from __future__ import annotations

import numpy as np

from .conv import _geometry
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


def conv(x, w, b=None, *, auto_pad="NOTSET", dilations=None, group=1, kernel_shape=None, pads=None, strides=None,
         platform: str = "arm") -> np.ndarray:  # fmt: skip
    """ONNX's float32 Conv of ``x`` (N, C, spatial...) by ``w`` (M, C/group, kernel...) plus ``b`` (M), as MLAS
    computes it on Arm (module docstring); bad shapes or attributes are :class:`~intdot.errors.OperandError`."""
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
    for image in range(x.shape[0]):
        for g in range(group):
            cols = _columns(x[image, g * cg : (g + 1) * cg], begin, end, out, w.shape[2:], dil, st)
            y[image, g * mg : (g + 1) * mg] = gemm2d(filters[g], cols, platform=platform).reshape((mg,) + tuple(out))
    if b is not None:
        y = (y + np.asarray(b, F32).reshape((1, m) + (1,) * len(out))).astype(F32)
    return y
