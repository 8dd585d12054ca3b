"""A small float CNN on the 8x8 digits, trained in NumPy: conv 3x3 (8) -> ReLU -> conv 3x3 stride 2 (16) ->
ReLU -> dense (10), so that the quantized demo exercises convolution too."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def _cols(x: np.ndarray, stride: int) -> np.ndarray:
    """(N * OH * OW, C * 9) windows of a 3x3 convolution with padding 1."""
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    oh, ow = (h - 1) // stride + 1, (w - 1) // stride + 1
    cols = np.empty((n, oh, ow, c, 3, 3), x.dtype)
    for i in range(3):
        for j in range(3):
            cols[:, :, :, :, i, j] = xp[:, :, i : i + stride * oh : stride, j : j + stride * ow : stride].transpose(
                0, 2, 3, 1
            )
    return cols.reshape(n * oh * ow, c * 9)


def _uncols(d: np.ndarray, shape, stride: int) -> np.ndarray:
    """The gradient of :func:`_cols`: window gradients summed back into the input's positions."""
    n, c, h, w = shape
    oh, ow = (h - 1) // stride + 1, (w - 1) // stride + 1
    d = d.reshape(n, oh, ow, c, 3, 3)
    out = np.zeros((n, c, h + 2, w + 2), d.dtype)
    for i in range(3):
        for j in range(3):
            out[:, :, i : i + stride * oh : stride, j : j + stride * ow : stride] += d[:, :, :, :, i, j].transpose(
                0, 3, 1, 2
            )
    return out[:, :, 1:-1, 1:-1]


def _conv(x, w, b, stride):
    n = x.shape[0]
    m = w.shape[0]
    oh = (x.shape[2] - 1) // stride + 1
    cols = _cols(x, stride)
    y = cols @ w.reshape(m, -1).T + b
    return y.reshape(n, oh, oh, m).transpose(0, 3, 1, 2), cols


@dataclass
class CNN:
    w1: np.ndarray  # (8, 1, 3, 3), stride 1, padding 1
    b1: np.ndarray
    w2: np.ndarray  # (16, 8, 3, 3), stride 2, padding 1
    b2: np.ndarray
    w3: np.ndarray  # (256, 10)
    b3: np.ndarray

    def logits(self, pixels: np.ndarray) -> np.ndarray:
        """Float logits of raw pixels (N, 64), values 0..16."""
        x = pixels.reshape(-1, 1, 8, 8)
        h1 = np.maximum(_conv(x, self.w1, self.b1, 1)[0], 0)
        h2 = np.maximum(_conv(h1, self.w2, self.b2, 2)[0], 0)
        return h2.reshape(len(x), -1) @ self.w3 + self.b3


def train_cnn(x, y, epochs: int = 12, seed: int = 0, lr: float = 0.01, batch: int = 128) -> CNN:
    """Mini-batch Adam on cross-entropy, inputs scaled by 1/16 inside (folded into the first layer at the end)."""
    rng = np.random.default_rng(seed)
    xs = (x / 16.0).reshape(-1, 1, 8, 8).astype(np.float32)
    params = [
        rng.normal(0, np.sqrt(2 / 9), (8, 1, 3, 3)),
        np.zeros(8),
        rng.normal(0, np.sqrt(2 / 72), (16, 8, 3, 3)),
        np.zeros(16),
        rng.normal(0, np.sqrt(2 / 256), (256, 10)),
        np.zeros(10),
    ]
    params = [p.astype(np.float32) for p in params]  # float32: a quarter of float64's time on these shapes
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    t = 0
    for _ in range(epochs):
        for idx in np.array_split(rng.permutation(len(y)), max(1, len(y) // batch)):
            w1, b1, w2, b2, w3, b3 = params
            xb, yb = xs[idx], y[idx]
            n = len(idx)
            a1, c1 = _conv(xb, w1, b1, 1)
            h1 = np.maximum(a1, 0)
            a2, c2 = _conv(h1, w2, b2, 2)
            h2 = np.maximum(a2, 0)
            f = h2.reshape(n, -1)
            z = f @ w3 + b3
            p = np.exp(z - z.max(axis=1, keepdims=True))
            p /= p.sum(axis=1, keepdims=True)
            p[np.arange(n), yb] -= 1
            p /= n
            g3, gb3 = f.T @ p, p.sum(0)
            d2 = (p @ w3.T).reshape(h2.shape) * (a2 > 0)
            d2f = d2.transpose(0, 2, 3, 1).reshape(-1, 16)
            g2, gb2 = (d2f.T @ c2).reshape(w2.shape), d2f.sum(0)
            d1 = _uncols(d2f @ w2.reshape(16, -1), h1.shape, 2) * (a1 > 0)
            d1f = d1.transpose(0, 2, 3, 1).reshape(-1, 8)
            g1, gb1 = (d1f.T @ c1).reshape(w1.shape), d1f.sum(0)
            t += 1
            for i, g in enumerate((g1, gb1, g2, gb2, g3, gb3)):
                m[i] = 0.9 * m[i] + 0.1 * g
                v[i] = 0.999 * v[i] + 0.001 * g * g
                params[i] -= lr * (m[i] / (1 - 0.9**t)) / (np.sqrt(v[i] / (1 - 0.999**t)) + 1e-8)
    w1, b1, w2, b2, w3, b3 = params
    return CNN(w1 / 16.0, b1, w2, b2, w3, b3)
