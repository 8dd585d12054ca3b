"""ONNX Runtime's Resize (1.32, CPU) where its kernel and ``onnx.reference`` compute apart: ``linear`` over the
last two axes of a 4-D tensor (float32, uint8 and int8; in QOperator models it resizes the codes themselves), and
``nearest`` under ``align_corners`` and ``pytorch_half_pixel``, where the two read other source elements.

Its arithmetic (``upsamplebase.h``, ``upsample.cc``; checked bit for bit in ``tests/quant/test_resize.py``), every
quantity float32 unless said:

- the output extent ``trunc(scale * n)`` from scales; from sizes the scale ``out / n``; an output the shape of the
  input is the input, whatever the scales; an axis of scale 1 reads its own coordinate;
- the source coordinate of output index ``x``: half_pixel ``(x + 0.5) / scale - 0.5``; asymmetric ``x / scale``;
  pytorch_half_pixel the same as half_pixel, 0 for an output extent of 1; align_corners ``x * (n - 1) / (out -
  1)``, 0 for an output extent of 1; half_pixel_symmetric ``offset + (x + 0.5) / scale - 0.5`` in double with
  ``offset = n / 2 * (1 - out / (scale * n))`` in float32; tf_crop_and_resize ``start * (n - 1) + x * (end -
  start) * (n - 1) / (out - 1)`` (an extent of 1: ``(start + end) / 2 * (n - 1)``), and outside ``[0, n - 1]``
  the extrapolation value;
- linear: the coordinate clamped to ``[0, n - 1]``, ``i1 = floor``, ``i2 = min(i1 + 1, n - 1)``, the weights
  ``|v - i1|`` and ``|v - i2|`` (both 0.5 where ``i1 == i2``); the value ``dx2*dy2*X11 + dx1*dy2*X21 + dx2*dy1*X12 +
  dx1*dy1*X22``, each weight product rounded, summed left to right; 8-bit codes truncated toward zero;
- Arm (its AArch64 build, compiled with fused multiply-adds): the second term's product rounded first, then
  ``fma(dx2*dy2, X11, .)``, ``fma(dx2*dy1, X12, .)``, ``fma(dx1*dy1, X22, .)``; tf_crop_and_resize's coordinate
  ``fma(start, n - 1, x * (end - start) * (n - 1) / (out - 1))``;
- nearest: ``round_prefer_floor`` rounds half down and otherwise half away from zero, ``round_prefer_ceil`` half
  away from zero, then ``floor``/``ceil``; the index clamped to the axis.
"""

from __future__ import annotations

import numpy as np

from .fma import fma32

_F = np.float32
LINEAR = (
    "half_pixel",
    "asymmetric",
    "pytorch_half_pixel",
    "align_corners",
    "half_pixel_symmetric",
    "tf_crop_and_resize",
)
NEAREST = ("align_corners", "pytorch_half_pixel")
_TYPES = (np.dtype(np.float32), np.dtype(np.uint8), np.dtype(np.int8))


def _source(n_out, n_in, scale, transform, start, end, fused=False):
    """The float32 source coordinate of every output index along one axis (``fused``: as Arm's build computes it,
    tf_crop_and_resize's ``start * (n - 1) + ...`` one fused multiply-add)."""
    x, s, o, n = np.arange(n_out, dtype=_F), _F(scale), _F(n_out), _F(n_in)
    if s == 1:
        return x
    with np.errstate(all="ignore"):
        if transform == "asymmetric":
            return x / s
        if transform in ("half_pixel", "pytorch_half_pixel"):
            if transform == "pytorch_half_pixel" and n_out <= 1:
                return np.zeros(n_out, _F)
            return (x + _F(0.5)) / s - _F(0.5)
        if transform == "align_corners":
            return np.zeros(n_out, _F) if n_out == 1 else x * (n - 1) / (o - 1)
        if transform == "half_pixel_symmetric":
            offset = n / 2 * (1 - o / (s * n))
            return (float(offset) + (x.astype(np.float64) + 0.5) / float(s) - 0.5).astype(_F)
        start, end = _F(start), _F(end)  # tf_crop_and_resize
        if n_out > 1:
            rest = x * (end - start) * (n - 1) / (o - 1)
            return fma32(np.full(n_out, start), np.full(n_out, n - 1), rest) if fused else start * (n - 1) + rest
        return np.full(n_out, 0.5 * float(start + end) * float(n - 1), _F)


def _geometry(shape, scales, sizes):
    """(output shape, float32 scale of each axis), as ONNX Runtime derives them."""
    if sizes is not None:
        out = [int(v) for v in sizes]
        return out, [_F(o) / _F(n) if n else _F(1) for o, n in zip(out, shape)]
    sc = [_F(v) for v in scales]
    return [int(s * _F(n)) for s, n in zip(sc, shape)], sc


def covered(x, mode, transform, *, scales, sizes, axes, antialias, exclude_outside, keep_aspect_ratio_policy):
    """Whether :func:`resize` computes this Resize (else ``onnx.reference``'s, which ONNX Runtime agrees with)."""
    if np.ndim(x) != 4 or np.asarray(x).dtype not in _TYPES or axes is not None or antialias or exclude_outside:
        return False
    if keep_aspect_ratio_policy not in (None, "stretch"):
        return False
    if mode == "linear":
        ok = transform in LINEAR
    else:
        ok = mode == "nearest" and transform in NEAREST
    if not ok or (scales is None) == (sizes is None):
        return False
    out, sc = _geometry(np.shape(x), scales, sizes)
    return len(out) == 4 and sc[0] == 1 and sc[1] == 1 and min(out) > 0


def _round_nearest(o, nearest_mode):
    half_away = np.sign(o) * np.floor(np.abs(o.astype(np.float64)) + 0.5)
    if nearest_mode == "floor":
        return np.floor(o)
    if nearest_mode == "ceil":
        return np.ceil(o)
    if nearest_mode == "round_prefer_ceil":
        return half_away
    tie = o == np.trunc(o) + _F(0.5)
    return np.where(tie, np.floor(o), half_away)


def resize(x, mode, transform, *, scales=None, sizes=None, roi=None, extrapolation_value=0.0,
           nearest_mode="round_prefer_floor", platform="x86"):  # fmt: skip
    """ONNX Runtime's Resize of a 4-D array over its last two axes (module docstring; :func:`covered` says when), its
    x86 kernel's or (``platform`` "arm...") its AArch64 one's."""
    x = np.asarray(x)
    out, sc = _geometry(x.shape, scales, sizes)
    if out == list(x.shape):
        return x.copy()
    roi = [0, 0, 0, 0, 1, 1, 1, 1] if roi is None or np.size(roi) != 8 else [float(v) for v in np.ravel(roi)]
    axes = [(out[a], x.shape[a], sc[a], roi[a], roi[4 + a]) for a in (2, 3)]
    coords = [_source(o, n, s, transform, a, b, platform.startswith("arm")) for o, n, s, a, b in axes]
    if mode == "nearest":
        idx = [
            np.clip(_round_nearest(c, nearest_mode), 0, n - 1).astype(np.intp) for c, (_, n, *_) in zip(coords, axes)
        ]
        return x[:, :, idx[0][:, None], idx[1][None, :]]
    ends, weights = [], []
    for c, (_, n, *_) in zip(coords, axes):
        v = np.clip(c, _F(0), _F(n - 1))
        i1 = np.minimum(v.astype(np.intp), n - 1)
        i2 = np.minimum(i1 + 1, n - 1)
        d1, d2 = np.abs(v - i1.astype(_F)), np.abs(v - i2.astype(_F))
        d1[i1 == i2], d2[i1 == i2] = 0.5, 0.5
        ends.append((i1, i2))
        weights.append((d1, d2))
    (y1, y2), (x1, x2) = ends
    (dy1, dy2), (dx1, dx2) = weights
    dy1, dy2 = dy1[:, None], dy2[:, None]  # down the rows
    f = x.astype(_F)
    terms = [(dx2 * dy2, f[:, :, y1[:, None], x1]), (dx1 * dy2, f[:, :, y1[:, None], x2]),
             (dx2 * dy1, f[:, :, y2[:, None], x1]), (dx1 * dy1, f[:, :, y2[:, None], x2])]  # fmt: skip
    if platform.startswith("arm"):
        # AArch64's build: the second term's product first, the others fused into it in turn
        r = (terms[1][0] * terms[1][1]).astype(_F)
        for w, v in (terms[0], terms[2], terms[3]):
            r = fma32(np.broadcast_to(w, v.shape), v, r)
    else:
        r = terms[0][0] * terms[0][1] + terms[1][0] * terms[1][1]
        r = r + terms[2][0] * terms[2][1]
        r = r + terms[3][0] * terms[3][1]
    if transform == "tf_crop_and_resize":
        (cy, cx), (h, w) = coords, x.shape[2:]
        outside = ((cy < 0) | (cy > h - 1))[:, None] | ((cx < 0) | (cx > w - 1))[None, :]
        r = np.where(outside, _F(extrapolation_value), r)
    if x.dtype == np.float32:
        return r.astype(_F)
    return np.trunc(r).astype(np.int64).astype(x.dtype)  # a convex sum of codes: always in range
