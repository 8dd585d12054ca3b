"""Slow, obviously-correct models of the quantized operators, from the ONNX operator definitions and TFLite's
fixed-point arithmetic, sharing no code with intdot: int64 sums over (x - zero point) products, modulo 2**32;
convolution by walking every kernel offset over an explicitly padded input; TFLite's requantization one
Python int at a time."""

import itertools

import numpy as np


def wrap32(x):
    return ((np.asarray(x, np.int64) + 2**31) % 2**32 - 2**31).astype(np.int32)


def matmul_integer(a, b, za=0, zb=0):
    """(a - za) @ (b - zb) modulo 2**32; za broadcasts against a's rows ((..., M, 1)), zb against b's columns."""
    return wrap32(np.matmul(a.astype(np.int64) - np.asarray(za, np.int64), b.astype(np.int64) - np.asarray(zb)))


def conv_integer(x, w, zx=0, zw=0, pads=None, strides=None, dilations=None, group=1):
    """ONNX ConvInteger for N spatial axes: pads [b1..bn, e1..en]; zw a scalar or one per output channel."""
    n = x.ndim - 2
    pads = pads or [0] * (2 * n)
    strides = strides or [1] * n
    dilations = dilations or [1] * n
    xs = x.astype(np.int64) - int(zx)
    zw = np.asarray(zw, np.int64)
    ws = w.astype(np.int64) - (zw.reshape((-1,) + (1,) * (n + 1)) if zw.ndim else zw)
    padded = np.zeros(xs.shape[:2] + tuple(s + pads[i] + pads[n + i] for i, s in enumerate(xs.shape[2:])), np.int64)
    padded[(slice(None), slice(None)) + tuple(slice(pads[i], pads[i] + s) for i, s in enumerate(xs.shape[2:]))] = xs
    kernel = w.shape[2:]
    out_shape = tuple((padded.shape[2 + i] - ((kernel[i] - 1) * dilations[i] + 1)) // strides[i] + 1 for i in range(n))
    m, cg = w.shape[0], w.shape[1]
    mg = m // group
    out = np.zeros((x.shape[0], m) + out_shape, np.int64)
    for g in range(group):
        for offset in itertools.product(*(range(k) for k in kernel)):
            window = padded[
                (slice(None), slice(g * cg, (g + 1) * cg))
                + tuple(
                    slice(
                        offset[i] * dilations[i],
                        offset[i] * dilations[i] + strides[i] * (out_shape[i] - 1) + 1,
                        strides[i],
                    )
                    for i in range(n)
                )
            ]
            taps = ws[(slice(g * mg, (g + 1) * mg), slice(None)) + offset]  # (M/g, C/g)
            out[:, g * mg : (g + 1) * mg] += np.einsum("nc...,mc->nm...", window, taps)
    return wrap32(out)


# TFLite's fixed-point requantization, one Python int at a time.


def quantize_multiplier(real: float):
    if real == 0:
        return 0, 0
    frac, exp = np.frexp(real)
    q = int(np.floor(float(frac) * 2**31 + 0.5))  # std::round of a non-negative value
    if q == 2**31:
        q //= 2
        exp += 1
    if exp < -31:
        return 0, 0
    return q, int(exp)


def _srdhm(a: int, b: int) -> int:
    if a == b == -(2**31):
        return 2**31 - 1
    ab = a * b
    nudge = 2**30 if ab >= 0 else 1 - 2**30
    t = ab + nudge
    return abs(t) // 2**31 * (1 if t >= 0 else -1)  # C's division truncates toward zero


def _rounding_divide(x: int, e: int) -> int:
    mask = (1 << e) - 1
    remainder = x & mask
    threshold = (mask >> 1) + (1 if x < 0 else 0)
    return (x >> e) + (1 if remainder > threshold else 0)


def multiply_by_quantized_multiplier(x: int, q: int, shift: int) -> int:
    left = shift if shift > 0 else 0
    right = -shift if shift < 0 else 0
    x = ((x << left) + 2**31) % 2**32 - 2**31
    return _rounding_divide(_srdhm(x, q), right)
