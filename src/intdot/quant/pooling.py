"""Pooling windows as ONNX Runtime lays them out, and the pools ``onnx.reference`` gets wrong: MaxPool (any rank,
pads, dilations, ``ceil_mode``, ``auto_pad``) and GlobalMaxPool (any rank), for every element type.

``onnx.reference`` raises on MaxPool with asymmetric pads or 1-D and 3-D inputs, on a pool with ``ceil_mode`` and
``auto_pad``, gives other output shapes in several more, and reduces only the last two axes in GlobalMaxPool
(found by fuzzing ``run`` against ONNX Runtime).  :func:`geometry` is ONNX Runtime's PoolAttributes (its
``SetOutputSize`` and ``ComputeSizePadDilations``), checked on 277 random MaxPool nodes in
``tests/quant/test_pooling.py``; C++'s division, which truncates toward 0, included.
"""

from __future__ import annotations

import math

import numpy as np


def _truncated(a: int, b: int) -> int:
    return int(a / b) if (a < 0) != (b < 0) else a // b


def geometry(spatial, kernel, strides, dilations, pads, auto_pad: str, ceil_mode: bool):
    """(pads before, pads after, output sizes) of a pooling window over ``spatial`` as ONNX Runtime computes them:
    ``auto_pad`` SAME_UPPER/SAME_LOWER pads ``(ceil(n / s) - 1) * s + k - n`` (the kernel undilated), split with
    the odd one after (UPPER) or before (LOWER); VALID pads nothing; otherwise ``pads`` (begins, then ends).
    Output: ``(n + pads - (d * (k - 1) + 1)) / s + 1``, rounded up under ``ceil_mode`` (less one where the last
    window would start past the input and its leading pad)."""
    d = len(spatial)
    begins, ends, outs = [], [], []
    for i in range(d):
        n, k, s, dil = spatial[i], kernel[i], strides[i], dilations[i]
        if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            need = ((n + s - 1) // s - 1) * s + k - n
            head = _truncated(need + 1, 2) if auto_pad == "SAME_LOWER" else _truncated(need, 2)
            b, e = head, need - head
        elif auto_pad == "VALID":
            b = e = 0
        else:
            b, e = pads[i], pads[i + d]
        span = n + b + e - (dil * (k - 1) + 1)
        if ceil_mode:
            o = math.ceil(span / s) + 1
            if (o - 1) * s >= n + b:
                o -= 1
        else:
            o = _truncated(span, s) + 1
        begins.append(b)
        ends.append(e)
        outs.append(o)
    return begins, ends, outs


def crop(x, begins, ends):
    """``x`` and its pads with each negative pad (SAME with a kernel under its stride) made input left out: the
    windows then read what ONNX Runtime's do, where it takes such a node (some of its kernels refuse it)."""
    begins, ends = list(begins), list(ends)
    for axis in range(len(begins)):
        n = x.shape[axis + 2]
        lo, hi = max(0, -begins[axis]), n - max(0, -ends[axis])
        if lo or hi < n:
            x = x[(slice(None),) * (axis + 2) + (slice(lo, max(lo, hi)),)]
            begins[axis], ends[axis] = max(0, begins[axis]), max(0, ends[axis])
    return x, begins, ends


def check(begins, ends, outs, spatial, kernel) -> None:
    """A negative output size is an error (ONNX Runtime's too)."""
    from ..core.errors import OperandError

    if min(outs, default=0) < 0:
        raise OperandError(f"kernel_shape={list(kernel)} on spatial shape {list(spatial)} gives output sizes {outs}")


def _lowest(dtype):
    """ONNX Runtime's starting value of a maximum: the lowest finite value (a window of -inf gives it too)."""
    return np.finfo(dtype).min if np.dtype(dtype).kind == "f" else np.iinfo(dtype).min


def max_pool(x, kernel, strides, dilations, begins, outs) -> np.ndarray:
    """The maximum over each window's input elements (pads take no part), for ``x`` of any rank and type."""
    x = np.asarray(x)
    if min(outs) == 0:
        return np.empty((*x.shape[:2], *outs), x.dtype)
    x, begins, _ = crop(x, begins, [0] * len(begins))
    spatial = x.shape[2:]
    ends = [max(0, (o - 1) * s + dil * (k - 1) + 1 - b - n) for o, s, dil, k, b, n in
            zip(outs, strides, dilations, kernel, begins, spatial)]  # fmt: skip
    padded = np.full((*x.shape[:2], *(b + n + e for b, n, e in zip(begins, spatial, ends))), _lowest(x.dtype), x.dtype)
    padded[(slice(None), slice(None), *(slice(b, b + n) for b, n in zip(begins, spatial)))] = x
    y = np.full((*x.shape[:2], *outs), _lowest(x.dtype), x.dtype)
    for offset in np.ndindex(*kernel):
        window = tuple(
            slice(o * dil, o * dil + s * (c - 1) + 1, s) for o, dil, s, c in zip(offset, dilations, strides, outs)
        )
        y = np.maximum(y, padded[(slice(None), slice(None), *window)])
    return y


def global_max_pool(x) -> np.ndarray:
    """The maximum over every spatial axis of ``x`` (N, C, spatial...), kept as axes of 1."""
    x = np.asarray(x)
    return x.max(axis=tuple(range(2, x.ndim)), keepdims=True) if x.ndim > 2 else x.copy()
