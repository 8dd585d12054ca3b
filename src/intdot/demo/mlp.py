"""A small float MLP (64 -> hidden -> 10, ReLU) trained in NumPy on scikit-learn's bundled digits."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Model:
    w1: np.ndarray  # (64, hidden)
    b1: np.ndarray
    w2: np.ndarray  # (hidden, 10)
    b2: np.ndarray

    def hidden(self, x: np.ndarray) -> np.ndarray:
        return np.maximum(x @ self.w1 + self.b1, 0)

    def logits(self, x: np.ndarray) -> np.ndarray:
        return self.hidden(x) @ self.w2 + self.b2


def load_digits_split(seed: int = 0, test_fraction: float = 0.3, subset: int | None = None):
    """(x_train, y_train, x_test, y_test): pixels 0..16 as float32, from the data scikit-learn ships."""
    try:
        from sklearn.datasets import load_digits
    except ImportError:
        from ..core.errors import IntdotError

        raise IntdotError("the demo needs scikit-learn (the 'demo' extra): pip install 'intdot[demo]'") from None
    d = load_digits()
    x, y = d.data.astype(np.float32), d.target.astype(np.int64)
    order = np.random.default_rng(seed).permutation(len(y))
    if subset is not None:
        order = order[:subset]
    n_test = int(len(order) * test_fraction)
    te, tr = order[:n_test], order[n_test:]
    return x[tr], y[tr], x[te], y[te]


def train(x, y, hidden: int = 64, epochs: int = 60, seed: int = 0, lr: float = 0.01, batch: int = 64) -> Model:
    """Mini-batch Adam on cross-entropy; inputs scaled by 1/16 inside so the weights see 0..1."""
    rng = np.random.default_rng(seed)
    xs = x / 16.0
    w1 = rng.normal(0, np.sqrt(2 / 64), (64, hidden))
    b1 = np.zeros(hidden)
    w2 = rng.normal(0, np.sqrt(2 / hidden), (hidden, 10))
    b2 = np.zeros(10)
    params = [w1, b1, w2, b2]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    t = 0
    for _ in range(epochs):
        for idx in np.array_split(rng.permutation(len(y)), max(1, len(y) // batch)):
            xb, yb = xs[idx], y[idx]
            h_pre = xb @ w1 + b1
            h = np.maximum(h_pre, 0)
            z = h @ w2 + b2
            p = np.exp(z - z.max(axis=1, keepdims=True))
            p /= p.sum(axis=1, keepdims=True)
            p[np.arange(len(yb)), yb] -= 1
            p /= len(yb)
            gh = (p @ w2.T) * (h_pre > 0)
            grads = [xb.T @ gh, gh.sum(0), h.T @ p, p.sum(0)]
            t += 1
            for i, g in enumerate(grads):
                m[i] = 0.9 * m[i] + 0.1 * g
                v[i] = 0.999 * v[i] + 0.001 * g * g
                params[i] -= lr * (m[i] / (1 - 0.9**t)) / (np.sqrt(v[i] / (1 - 0.999**t)) + 1e-8)
    # Fold the 1/16 input scaling into the first layer, so the model takes raw pixels.
    return Model(params[0] / 16.0, params[1], params[2], params[3])
