"""ReduceSum, ReduceMean, ReduceSumSquare, ReduceL2, ReduceL1, ReduceLogSum, ReduceProd and ReduceLogSumExp in
float32 as ONNX Runtime's CPU kernels compute them, bit for bit: which elements each output adds, and in which order,
follow the path its ``reduction_ops`` picks.

ONNX Runtime first merges neighbouring axes that are both reduced or both kept, which leaves a shape of kept (K) and
reduced (R) runs, then (ReduceSum and ReduceMean):

- ``R`` (every axis reduced) and ``KR`` (the trailing axes reduced): each output is Eigen's vectorized sum of its
  contiguous elements (:func:`.normalization.eigen_sum`, its packets starting at the first 16-byte aligned one);
- ``RK``: row after row added to the first row, one by one; ``KRK``: for each output its middle run by a 1-row GEMM
  against ones, MLAS's GEMV (:func:`.sgemm.gemv`: on Arm in order from 0; on x86 four rows at a time, each four
  added in order from its first, then two, then one);
- ``RKR``: for each kept element, from 0, each outer block's contiguous run added as its Eigen sum;
- anything else: the reduced elements added in memory order, from 0.

ReduceMean divides each sum by the element count in float32.  ReduceSumSquare, ReduceL2, ReduceL1, ReduceLogSum and
ReduceProd have no fast paths besides ``R``: they add ``x * x`` (fused into the addition on Arm), ``|x|`` or ``x``, or
multiply ``x`` from 1, in memory order, or under ``R`` take Eigen's vectorized sum (of squares, of magnitudes) or
product (:func:`.normalization.eigen_prod`); ReduceL2 takes the square root and ReduceLogSum glibc's ``logf``
(:mod:`.libm`).  ReduceLogSumExp takes each output's max, then adds ``expf(x - max)`` in memory order and returns
``logf`` of the sum plus the max (:func:`_log_sum_exp`).  Checked against ONNX Runtime on x86, on QEMU's Haswell CPU
and for AArch64 in ``tests/quant/test_reduce.py``.

ONNX Runtime takes the ``RKR`` path only when the kept run has at least as many elements as the session has
threads (and at least 2); this models a session of one thread, where a smaller kept run is summed in memory order.
"""

from __future__ import annotations

import math

import numpy as np

from .fma import fma32
from .libm import expf, logf
from .normalization import eigen_prod, eigen_sum
from .sgemm import gemv

F32 = np.float32
OPERATORS = (
    "ReduceSum",
    "ReduceMean",
    "ReduceSumSquare",
    "ReduceL2",
    "ReduceL1",
    "ReduceLogSum",
    "ReduceProd",
    "ReduceLogSumExp",
)
# The operators whose aggregators have no fast path but ``R``'s: each output in memory order otherwise.
_IN_ORDER = ("ReduceSumSquare", "ReduceL2", "ReduceL1", "ReduceLogSum", "ReduceProd")


def reduced_axes(ndim: int, axes, noop_with_empty_axes) -> set | None:
    """The axes a node reduces, normalized, or None where :func:`reduce` does not cover it: a scalar, no axes with
    ``noop_with_empty_axes`` (a copy), or an axis outside the input (an error, the reference evaluator's)."""
    named = [] if axes is None else [int(v) for v in np.ravel(axes)]
    if ndim == 0 or (not named and noop_with_empty_axes) or any(not -ndim <= v < ndim for v in named):
        return None
    return {v % ndim for v in named} if named else set(range(ndim))


def _runs(shape, reduced):
    """ONNX Runtime's merged shape: [(extent, reduced?)] with neighbouring axes of one kind merged."""
    runs = []
    for n, r in zip(shape, reduced):
        if runs and runs[-1][1] == r:
            runs[-1] = (runs[-1][0] * n, r)
        else:
            runs.append((n, r))
    return runs


def reduce(x, axes, keepdims: bool, op: str, platform: str = "x86") -> np.ndarray:
    """``op`` (one of :data:`OPERATORS`) of the float32 ``x`` over ``axes`` (normalized, non-empty, in range), as
    ONNX Runtime computes it on ``platform`` (module docstring); ``x`` has at least one element."""
    x = np.ascontiguousarray(x, F32)
    reduced = [i in axes for i in range(x.ndim)]
    count = math.prod(n for n, r in zip(x.shape, reduced) if r)
    squares = op in ("ReduceSumSquare", "ReduceL2")
    pairs = "neon" if platform.startswith("arm") else "sse"
    runs = _runs(x.shape, reduced)
    kinds = "".join("R" if r else "K" for _, r in runs)
    if op == "ReduceL1":
        x = np.abs(x)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        if op == "ReduceLogSumExp":
            s = _log_sum_exp(_by_output(x, reduced))
        elif kinds == "R" and op == "ReduceProd":
            s = eigen_prod(x.reshape(1, -1), [0], pairs)
        elif kinds == "R":
            s = eigen_sum(x.reshape(1, -1), [0], pairs, squares)
        elif op in _IN_ORDER:
            s = _in_order(x, reduced, squares, pairs, product=op == "ReduceProd")
        elif kinds == "KR":
            rows, d = runs[0][0], runs[1][0]
            s = eigen_sum(x.reshape(rows, d), np.arange(rows) * d, pairs)
        elif kinds == "RK":
            s = _running(x.reshape(runs[0][0], runs[1][0]))
        elif kinds == "KRK":
            v = x.reshape(runs[0][0], runs[1][0], runs[2][0]).transpose(1, 0, 2).reshape(runs[1][0], -1)
            s = gemv(np.ones(runs[1][0], F32), v, platform)  # ONNX Runtime's one-row MatMul against ones
        elif kinds == "RKR" and runs[1][0] >= 2:
            s = _rkr(x.reshape(runs[0][0], runs[1][0], runs[2][0]), pairs)
        else:
            s = _in_order(x, reduced, False, pairs)
        if op == "ReduceMean":
            s = (s / F32(count)).astype(F32)
        elif op == "ReduceL2":
            s = np.sqrt(s).astype(F32)
        elif op == "ReduceLogSum":
            s = logf(s)
    kept = [n for n, r in zip(x.shape, reduced) if not r]
    out = s.reshape(kept)
    return out.reshape([1 if r else n for n, r in zip(x.shape, reduced)]) if keepdims else out


def _running(v) -> np.ndarray:
    """The rows of the 2-D ``v`` added to its first one after the other."""
    s = v[0].copy()
    for row in v[1:]:
        s = (s + row).astype(F32)
    return s


def _by_output(x, reduced) -> np.ndarray:
    """A row for each output, its reduced elements in memory order."""
    order = [i for i, r in enumerate(reduced) if not r] + [i for i, r in enumerate(reduced) if r]
    return x.transpose(order).reshape(math.prod(n for n, r in zip(x.shape, reduced) if not r), -1)


def _log_sum_exp(v) -> np.ndarray:
    """``logf(sum of expf(x - max)) + max`` for each row, the exps added in order from 0 (glibc's functions,
    :mod:`.libm`); the max ONNX Runtime's running one (on every path), which starts from the row's first element
    (from 0 where that is infinite) and passes over infinities and NaNs."""
    m = np.where(np.isinf(v[:, 0]), F32(0), v[:, 0])
    for j in range(v.shape[1]):
        c = v[:, j]
        m = np.where(np.isinf(c) | np.isnan(c) | (c < m), m, c)
    s = np.zeros(v.shape[0], F32)
    for j in range(v.shape[1]):
        s = (s + expf((v[:, j] - m).astype(F32))).astype(F32)
    return (logf(s) + m).astype(F32)


def _in_order(x, reduced, squares: bool, pairs: str, product: bool = False) -> np.ndarray:
    """From 0 (``product``: multiplied from 1), each output's reduced elements in memory order (``x * x`` for the
    squares: on Arm one fused multiply-add each)."""
    v = _by_output(x, reduced)
    kept = v.shape[0]
    s = np.full(kept, F32(product))
    for j in range(v.shape[1]):
        c = v[:, j]
        if product:
            s = (s * c).astype(F32)
        elif not squares:
            s = (s + c).astype(F32)
        elif pairs == "neon":
            s = fma32(c, c, s)
        else:
            s = (s + (c * c).astype(F32)).astype(F32)
    return s


def _rkr(v, pairs: str) -> np.ndarray:
    """For each middle element, from 0, each outer block's contiguous run added as its Eigen sum."""
    outer, middle, inner = v.shape
    s = np.zeros(middle, F32)
    for i in range(outer):
        offsets = i * middle * inner + np.arange(middle) * inner
        s = (s + eigen_sum(v[i], offsets, pairs)).astype(F32)
    return s
