"""Pooling as ONNX Runtime computes it: its windows (:func:`geometry`), MaxPool (any rank, pads, dilations,
``ceil_mode``, ``auto_pad``) and GlobalMaxPool (any rank) for every element type, and float32 GlobalAveragePool and
AveragePool bit for bit.

``onnx.reference`` raises on MaxPool with asymmetric pads or 1-D and 3-D inputs, on a pool with ``ceil_mode`` and
``auto_pad``, gives other output shapes in several more, and reduces only the last two axes in GlobalMaxPool
(found by fuzzing ``run`` against ONNX Runtime).  :func:`geometry` is ONNX Runtime's PoolAttributes (its
``SetOutputSize`` and ``ComputeSizePadDilations``), checked on 277 random MaxPool nodes in
``tests/quant/test_pooling.py``; C++'s division, which truncates toward 0, included.

GlobalAveragePool and AveragePool (float32) are MLAS's pooling kernels (``pooling.cpp``), chosen as it chooses
them: the sums in the order each kernel adds (:func:`global_average_pool`, :func:`average_pool`), divided by the
element count or the window size.  On x86 ONNX Runtime's NCHWc layout transformer first moves a 4-D pool whose
channel count its graph knows to be a multiple of 16 (the AVX-512F block; 8 without AVX-512F) into its NCHWc
kernels, which add in window order; from opset 19 AveragePool runs in a kernel of its own, in window order too,
dilations included (``tests/quant/test_float_kernels.py``, ``tests/quant/test_pooling.py``).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from .float_kernels import sum4

F32 = np.float32


def _truncated(a: int, b: int) -> int:
    return int(a / b) if (a < 0) != (b < 0) else a // b


def geometry(spatial, kernel, strides, dilations, pads, auto_pad, ceil_mode: bool):
    """(pads before, pads after, output sizes) of a pooling window over ``spatial`` as ONNX Runtime computes them:
    ``auto_pad`` SAME_UPPER/SAME_LOWER pads ``(ceil(n / s) - 1) * s + k - n`` (the kernel undilated), split with
    the odd one after (UPPER) or before (LOWER); VALID pads nothing; otherwise ``pads`` (begins, then ends).
    Output: ``(n + pads - (d * (k - 1) + 1)) / s + 1``, rounded up under ``ceil_mode`` (less one where the last
    window would start past the input and its leading pad); a negative one is an error, as in ONNX Runtime.
    ``auto_pad`` may be bytes, as onnx.reference passes it, or None for NOTSET."""
    from ..core.errors import OperandError
    from ._args import text

    auto_pad = text(auto_pad, "NOTSET")
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
    if min(outs, default=0) < 0:
        raise OperandError(f"kernel_shape={list(kernel)} on spatial shape {list(spatial)} gives output sizes {outs}")
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


# Average pooling: MLAS's pooling.cpp, and its NCHWc kernels on x86.

# MlasNchwcGetBlockSize(): 16 on a CPU with AVX-512F, 8 with AVX2 only.
NCHWC_BLOCK = {"x86": 16, "x86-avx2": 8}
_REDUCTION_BUFFER = 2048 - 3  # MLAS_POOL_REDUCTION_BUFFER_STACK less its over-read padding


def _sequential(v) -> np.ndarray:
    s = np.zeros(v.shape[0], F32)
    for j in range(v.shape[1]):
        s = (s + v[:, j]).astype(F32)
    return s


def global_average_pool(x, platform: str = "x86", nchwc: bool = False) -> np.ndarray:
    """ONNX Runtime's float32 GlobalAveragePool over the spatial axes of ``x`` (N, C, spatial...): MLAS's global
    kernel (:func:`.float_kernels.sum4`), or with ``nchwc`` (x86: a 4-D input whose channel count its graph knows
    to be a multiple of :data:`NCHWC_BLOCK`) its NCHWc kernel, which sums each channel in order; each sum divided
    by the element count."""
    x = np.asarray(x, F32)
    v = x.reshape(x.shape[0] * x.shape[1], -1)
    s = _sequential(v) if nchwc else sum4(v, "neon" if platform.startswith("arm") else "sse")
    return (s / F32(v.shape[1])).astype(F32).reshape(*x.shape[:2], *([1] * (x.ndim - 2)))


def pool_pads(x, attributes):
    """(pads: begins then ends, output sizes) ONNX Runtime gives MLAS for an AveragePool node's ``attributes`` on
    ``x`` (:func:`intdot.quant.pooling.geometry`), or None where :func:`average_pool` does not cover the node (not
    float32, not 1 to 3 spatial axes; negative pads, from SAME with a kernel smaller than its stride, are returned
    for the caller to crop)."""
    kernel = attributes.get("kernel_shape")
    d = np.ndim(x) - 2
    if np.asarray(x).dtype != F32 or not 1 <= d <= 3 or kernel is None or len(kernel) != d or np.size(x) == 0:
        return None
    strides = [int(v) for v in attributes.get("strides") or [1] * d]
    pads = [int(p) for p in attributes.get("pads") or [0] * (2 * d)]
    if len(pads) != 2 * d:
        return None
    spatial = np.shape(x)[2:]
    dilations = [int(v) for v in attributes.get("dilations") or [1] * d]
    ceil = bool(attributes.get("ceil_mode"))
    begins, ends, outs = geometry(spatial, kernel, strides, dilations, pads, attributes.get("auto_pad"), ceil)
    return begins + ends, outs


def average_pool(
    x, kernel, pads, strides, outs, include_pad: bool, platform="x86", nchwc=False, opset=17, dilations=None
):
    """ONNX Runtime's float32 AveragePool of ``x`` (N, C, 1 to 3 spatial axes) with explicit ``pads`` (begins, then
    ends) and output sizes ``outs`` (:func:`pool_pads` gives both), as MLAS computes it: its global kernel where
    the window is the whole input (strides 1, no pads); its vector kernel for 2 and 3 spatial axes with a last
    stride of at most 2, windows of at most 32 and a padded row that fits its buffer (sums down the window's rows
    first, then along its columns, pads as zeros); otherwise, and under ``nchwc``, the window's elements in order
    from 0.  Divided
    by the window's size (``include_pad``) or by its count of input elements.  From opset 19 on ONNX Runtime runs
    AveragePool in a kernel of its own, which adds every window's elements in order from 0 (the generic way)."""
    x = np.asarray(x, F32)
    d = x.ndim - 2
    kernel, strides = [int(k) for k in kernel], [int(s) for s in strides]
    begins, ends = [int(p) for p in pads[:d]], [int(p) for p in pads[d:]]
    spatial = x.shape[2:]
    if min(outs) == 0:  # a window wider than the padded input: an empty output, as there
        return np.empty((*x.shape[:2], *outs), F32)
    generic = opset >= 19 or any(d != 1 for d in dilations or [])
    if not generic and list(kernel) == list(spatial) and all(s == 1 for s in strides) and not any(begins + ends):
        return global_average_pool(x, platform, nchwc)
    v = x.reshape(-1, *spatial)
    vector = (
        not nchwc
        and not generic
        and d >= 2
        and strides[-1] <= 2
        and max(kernel) <= 32
        and begins[-1] + ends[-1] + spatial[-1] <= _REDUCTION_BUFFER
        # ceil_mode's last window may pass the buffer's zeros: MLAS would read what the stack holds there
        and (outs[-1] - 1) * strides[-1] + kernel[-1] <= begins[-1] + spatial[-1] + ends[-1] + 3
    )
    if vector:
        y = _pool_vector(v, kernel, begins, strides, outs, include_pad, ends)
    else:
        y = _pool_generic(v, kernel, begins, strides, outs, include_pad, ends, dilations)
    return y.reshape(*x.shape[:2], *outs)


def _counts(spatial, kernel, begins, ends, strides, outs, dilations, include_pad) -> np.ndarray:
    """Each window's count of taps, as float32 divisors: those inside the padded input (``include_pad``: the
    kernel's size, but for ceil_mode's last window, whose overhang past the pad is not counted), else those inside
    the input."""
    counts = np.ones((), np.int64)
    for axis, (n, k, b, e, s, c, d) in enumerate(zip(spatial, kernel, begins, ends, strides, outs, dilations)):
        taps = (np.arange(c) * s - b)[:, None] + np.arange(k)[None, :] * d  # each window's input positions
        inside = (taps < n + e) if include_pad else (taps >= 0) & (taps < n)
        count = inside.sum(axis=1)
        counts = np.multiply.outer(counts, count) if axis else count
    return counts.astype(F32)


def _windows(n, k, begin, s, count):
    """Each output's first and end input index along one axis, clipped to the input."""
    start = np.arange(count) * s - begin
    return np.maximum(start, 0), np.minimum(start + k, n)


def _pool_generic(v, kernel, begins, strides, outs, include_pad, ends, dilations=None):
    """MLAS's generic kernels: each window's input elements summed in order from 0 (as its NCHWc kernels and
    opset 19's kernel do; that one with dilations too)."""
    dilations = dilations or [1] * len(kernel)
    span = [d * (k - 1) + 1 for d, k in zip(dilations, kernel)]
    sizes = [max(n + b + w, (c - 1) * s + w) for n, b, w, c, s in zip(v.shape[1:], begins, span, outs, strides)]
    padded = np.zeros((v.shape[0], *sizes), F32)
    padded[(slice(None), *(slice(b, b + n) for b, n in zip(begins, v.shape[1:])))] = v
    total = np.zeros((v.shape[0], *outs), F32)
    for offset in np.ndindex(*kernel):  # row-major: a zero outside the input adds nothing to a sum begun at +0
        window = tuple(slice(o * d, o * d + s * (c - 1) + 1, s) for o, d, s, c in zip(offset, dilations, strides, outs))
        total = (total + padded[(slice(None), *window)]).astype(F32)
    divisor = _counts(v.shape[1:], kernel, begins, ends, strides, outs, dilations, include_pad)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (total / divisor).astype(F32)


def _pool_vector(v, kernel, begins, strides, outs, include_pad, ends):
    """MLAS's 2-D and 3-D vector kernels: per output row, the window's rows (planes, then rows) summed column by
    column (2-D from the first row, 3-D from 0), laid in a buffer between zero pads, then ``kernel[-1]`` buffer
    entries summed from the window's first; divided by the window size, or by ``columns * rows`` (at least 1)."""
    rows_axes = v.shape[1:-1]
    width, kw, sw, pl = v.shape[-1], kernel[-1], strides[-1], begins[-1]
    ranges = [_windows(n, k, b, s, c) for n, k, b, s, c in zip(rows_axes, kernel[:-1], begins[:-1], strides[:-1],
                                                                 outs[:-1])]  # fmt: skip
    out = np.empty((v.shape[0], *outs), F32)
    starts = np.arange(outs[-1]) * sw
    col_lo, col_hi = _windows(width, kw, pl, sw, outs[-1])
    columns = (col_hi - col_lo).astype(F32)
    if include_pad:
        sizes = _counts(v.shape[1:], kernel, begins, ends, strides, outs, [1] * len(kernel), True)
    for index in np.ndindex(*outs[:-1]):
        spans = [range(lo[i], hi[i]) for (lo, hi), i in zip(ranges, index)]
        cells = [v[(slice(None), *cell)] for cell in itertools.product(*spans)]
        if len(spans) == 1:
            col = cells[0].copy()
            rest = cells[1:]
        else:
            col, rest = np.zeros((v.shape[0], width), F32), cells
        for c in rest:
            col = (col + c).astype(F32)
        buf = np.zeros((v.shape[0], pl + width + kw + sw * outs[-1]), F32)
        buf[:, pl : pl + width] = col
        total = buf[:, starts]
        for j in range(1, kw):
            total = (total + buf[:, starts + j]).astype(F32)
        if include_pad:
            divisor = sizes[index]
        else:
            height = F32(np.prod([len(s) for s in spans]))
            divisor = np.maximum((columns * height).astype(F32), F32(1))
        out[(slice(None), *index)] = (total / divisor).astype(F32)
    return out
