"""Operators ``onnx.reference`` refuses or computes wrongly where ONNX Runtime answers (found by fuzzing ``run``):
Mean of inputs that broadcast to a larger shape than the first (it raised), LpNormalization with ``p=1`` (it
summed the values, not their magnitudes) and GatherElements with a negative axis or negative indices (it raised).
Computed as ONNX Runtime does, in the inputs' type (``tests/quant/test_onnx_fixes.py``)."""

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
    with np.errstate(divide="ignore", invalid="ignore"):
        return (x / norm).astype(x.dtype)


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
