"""Operators ``onnx.reference`` refuses or computes wrongly where ONNX Runtime answers (found by fuzzing ``run``):
Mean of inputs that broadcast to a larger shape than the first (it raised), LpNormalization with ``p=1`` (it
summed the values, not their magnitudes), GatherElements with a negative axis or negative indices (it raised) and
ConvTranspose with groups (it raised, or with a bias answered wrongly) or SAME padding (ONNX Runtime lays it out
apart from the spec).  Computed as ONNX Runtime does, in the inputs' type (``tests/quant/test_onnx_fixes.py``)."""

from __future__ import annotations

import numpy as np


def mean(*inputs) -> np.ndarray:
    """The inputs summed in order, broadcast, then times ``1 / n`` in their type (ONNX Runtime's Mean)."""
    total = np.asarray(inputs[0])
    for v in inputs[1:]:
        total = (total + np.asarray(v)).astype(total.dtype)
    return (total * total.dtype.type(1 / len(inputs))).astype(total.dtype)


def lp_normalization(x, axis: int = -1, p: int = 2) -> np.ndarray:
    """``x / sum(|x|)`` (p=1) or ``x / sqrt(sum(x * x))`` (p=2) along ``axis``, in x's type."""
    x = np.asarray(x)
    if p == 1:
        norm = np.abs(x).sum(axis=axis, keepdims=True, dtype=x.dtype)
    else:
        norm = np.sqrt((x * x).sum(axis=axis, keepdims=True, dtype=x.dtype)).astype(x.dtype)
    with np.errstate(divide="ignore", invalid="ignore"):  # a zero norm gives 0, as ONNX Runtime's kernel does
        return np.where(norm == 0, x.dtype.type(0), x / norm).astype(x.dtype)


def gather_elements(data, indices, axis: int = 0) -> np.ndarray:
    """``data``'s elements at ``indices`` along ``axis`` (negative axis and indices counted from the end)."""
    from ..core.errors import OperandError

    data, indices = np.asarray(data), np.asarray(indices).astype(np.int64)
    if not -data.ndim <= axis < data.ndim:
        raise OperandError(f"axis={axis}: expected an axis of data's rank {data.ndim}, {-data.ndim} to {data.ndim - 1}")
    axis %= data.ndim
    n = data.shape[axis]
    if indices.size and (indices.min() < -n or indices.max() >= n):
        bad = indices[(indices < -n) | (indices >= n)].ravel()[0]
        raise OperandError(f"indices hold {bad}: expected -{n} to {n - 1} (data's extent along axis {axis})")
    return np.take_along_axis(data, np.where(indices < 0, indices + n, indices), axis=axis)


def _conv_transpose_layout(spatial, kernel, strides, dilations, pads, adj, auto_pad, output_shape):
    """(pads before, output sizes) as ONNX Runtime lays a ConvTranspose out (its ComputeTransposePadAndOutputShape):
    with ``output_shape``, or under SAME (which aims at ``in * stride``), the total pad is ``max(0, full -
    target)`` with ``full = (in - 1) * s + adj + (k - 1) * d + 1``, split with the odd one before for SAME_LOWER
    and for ``output_shape``, after for SAME_UPPER (measured in ``tests/quant/test_onnx_fixes.py``); so SAME gives
    ``full`` where that is under ``in * stride`` (the spec says ``in * stride``)."""
    d = len(spatial)
    begins, outs = [], []
    for i in range(d):
        full = (spatial[i] - 1) * strides[i] + adj[i] + (kernel[i] - 1) * dilations[i] + 1
        if output_shape or auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            target = output_shape[i] if output_shape else spatial[i] * strides[i]
            total = max(0, full - target)
            head = total - total // 2 if auto_pad == "SAME_LOWER" or output_shape else total // 2
            begins.append(head)
            outs.append(full - total if not output_shape else target)
        elif auto_pad == "VALID":
            begins.append(0)
            outs.append(full)
        else:
            begins.append(pads[i])
            outs.append(full - pads[i] - pads[i + d])
    return begins, outs


def conv_transpose(x, w, b=None, *, group=1, strides=None, dilations=None, pads=None, output_padding=None,
                   auto_pad=None, output_shape=None, platform=None, w_constant=True) -> np.ndarray:  # fmt: skip
    """ConvTranspose of ``x`` (N, C, spatial...) by ``w`` (C, M / group, kernel...) as ONNX Runtime lays it out
    (groups, strides, dilations, pads, ``output_padding``, ``output_shape``, ``auto_pad``: str or bytes, None for
    NOTSET).  float32 with ``platform``: as its kernel computes it, bit for bit (a GEMM of each group through MLAS's
    SGEMM, then Col2im adding each output's kernel taps in order, then the bias; ``w_constant``: W is a constant,
    which it transposes once, so that its GEMM reads A as it is); otherwise each output summed in float64 and
    rounded to x's type."""
    from ..core.errors import OperandError
    from ._args import text

    x, w = np.asarray(x), np.asarray(w)
    auto_pad = text(auto_pad, "NOTSET")
    d = x.ndim - 2
    spatial, kernel = x.shape[2:], w.shape[2:]
    if d < 1 or w.ndim != x.ndim or x.shape[1] != w.shape[0] or x.shape[1] % group:
        raise OperandError(
            f"X {x.shape} and W {w.shape} with group={group}: expected W's first axis X's channels, a multiple of "
            "group, and one kernel axis for each of X's spatial axes"
        )
    strides = list(strides or [1] * d)
    dilations = list(dilations or [1] * d)
    adj = list(output_padding or [0] * d)
    shape = list(output_shape or [])[-d:] if output_shape else None
    begins, outs = _conv_transpose_layout(spatial, kernel, strides, dilations, list(pads or [0] * (2 * d)), adj,
                                          auto_pad, shape)  # fmt: skip
    if min(outs) < 1:
        raise OperandError(f"ConvTranspose output sizes {outs}: expected every one at least 1")
    cin, cout = x.shape[1] // group, w.shape[1]
    full = [(n - 1) * s + (k - 1) * dil + 1 for n, s, k, dil in zip(spatial, strides, kernel, dilations)]
    size = [max(f, bg + o) for f, bg, o in zip(full, begins, outs)]
    exact = platform is not None and x.dtype == np.float32 and w.dtype == np.float32
    y = np.zeros((x.shape[0], cout * group, *size), np.float32 if exact else np.float64)
    for g in range(group):
        xs, ws = x[:, g * cin : (g + 1) * cin], w[g * cin : (g + 1) * cin]
        if exact:
            cols = _columns(xs, ws, platform, w_constant)
            _col2im(y[:, g * cout : (g + 1) * cout], cols, kernel, strides, dilations, spatial)
            continue
        xs, ws = xs.astype(np.float64), ws.astype(np.float64)
        for offset in np.ndindex(*kernel):
            part = np.einsum("nc...,cm->nm...", xs, ws[(slice(None), slice(None), *offset)])
            y[(slice(None), slice(g * cout, (g + 1) * cout), *_taps(offset, dilations, strides, spatial))] += part
    y = y[(slice(None), slice(None), *(slice(bg, bg + o) for bg, o in zip(begins, outs)))]
    if b is not None:
        y = y + np.asarray(b, y.dtype).reshape(1, -1, *([1] * d))
    return y.astype(x.dtype)


def _taps(offset, dilations, strides, spatial):
    """Where the inputs land in the full output for one kernel position."""
    return tuple(
        slice(o * dil, o * dil + s * (n - 1) + 1, s) for o, dil, s, n in zip(offset, dilations, strides, spatial)
    )


def _columns(xs, ws, platform, w_constant):
    """ONNX Runtime's GEMM of a group: ``W^T (M/group * prod(kernel), C/group) @ X (C/group, prod(spatial))`` for
    each image, through MLAS's SGEMM (:mod:`.sgemm`), A read transposed unless W was transposed once beforehand (a
    constant W of more than one row of A; one row it reads as it is, transposed)."""
    from .sgemm import gemm2d

    a = ws.reshape(ws.shape[0], -1).T
    kw = {"trans_a": not w_constant or a.shape[0] == 1, "platform": platform}
    return np.stack([gemm2d(a, image.reshape(image.shape[0], -1), **kw) for image in xs])


def _col2im(y, cols, kernel, strides, dilations, spatial):
    """ONNX Runtime's Col2im into ``y`` (N, M/group, full...), zeroed: for each output channel, each kernel position
    in order, its column added (float32) where it lands, so an output sums its taps in kernel order from 0."""
    n, m = y.shape[:2]
    cols = cols.reshape(n, m, *kernel, *spatial)
    for offset in np.ndindex(*kernel):
        at = (slice(None), slice(None), *_taps(offset, dilations, strides, spatial))
        y[at] = (y[at] + cols[(slice(None), slice(None), *offset)]).astype(np.float32)
