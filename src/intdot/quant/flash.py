"""MLAS's flash attention on the CPU (float32), bit for bit: the tiled online softmax that ONNX Runtime's
MultiHeadAttention (without masks or caches) and GroupQueryAttention (prompts, with the present outputs) run.

Query rows go in blocks of ``q_block``, key and value rows in blocks of ``kv_block``, both sized from the CPU's L2
cache: ``kv_block = L2 / (16 (qk_head + v_head))`` (at least 1, at most the keys), ``q_block`` at most
``qk_head + v_head`` (:func:`blocks`).  Per block: the scores by MLAS's SGEMM with the scale as alpha
(:func:`.sgemm.gemm2d`), the mask (GQA's causal limit, window and bias), the running row max, MLAS's exp-and-sum
kernel from it, ``exp(old - new)`` by glibc's ``expf`` rescaling the running sum (``shrink * sum + block_sum``, fused
on Arm) and the rows of the output so far, then the block's unnormalised probabilities times V added by the SGEMM.
At the end MultiHeadAttention divides the rows by the sum, GroupQueryAttention multiplies them by its reciprocal.
So the bits depend on the L2 size once the keys pass ``kv_block``; :func:`l2_cache_size` reads this machine's as
ONNX Runtime does.  Checked against ONNX Runtime 1.32 in ``tests/quant/test_group_query_attention.py`` and
``tests/quant/test_attention.py``.
"""

from __future__ import annotations

import sys

import numpy as np

from ..core.errors import OperandError
from .float_kernels import _exp, _row_sums
from .fma import fma32
from .libm import expf
from .sgemm import gemm2d

F32 = np.float32
LOWEST = np.finfo(F32).min
_SC_LEVEL2_CACHE_SIZE = 191  # glibc's number for it; Python's os.sysconf does not know the name


def l2_cache_size() -> int:
    """This machine's L2 cache size in bytes as ONNX Runtime reads it on Linux, by glibc's
    ``sysconf(_SC_LEVEL2_CACHE_SIZE)`` (0 elsewhere, or where the system says none)."""
    if not sys.platform.startswith("linux"):
        return 0
    try:
        import ctypes

        return max(int(ctypes.CDLL(None).sysconf(_SC_LEVEL2_CACHE_SIZE)), 0)
    except (OSError, AttributeError):
        return 0


def checked_l2(size) -> int:
    """``size`` (None: this machine's) as a checked byte count."""
    if size is None:
        return l2_cache_size()
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 0:
        raise OperandError(f"l2_cache_size={size!r}: expected the L2 cache size in bytes, an integer >= 0")
    return int(size)


def blocks(l2: int, width: int, keys: int, rows: int) -> tuple[int, int]:
    """(q_block, kv_block) for heads of ``width = qk_head + v_head`` over ``keys`` key rows and ``rows`` query
    rows."""
    kv_block = max(l2 // (16 * width), 1)
    return min(kv_block, width, rows), min(kv_block, keys)


def sum_exp(row, platform) -> tuple[np.ndarray, np.float32]:
    """MLAS's exp-and-sum kernel on one row already shifted by its max: (exp values, their sum)."""
    e = _exp(row[None, :], platform)
    return e[0], _row_sums(e, platform)[0]


def attend(q, k, v, alpha, q_block, kv_block, platform, *, past=None, window=-1, bias=None, divide=False,
           kernels=None):  # fmt: skip
    """One (batch, head): ``q`` (S, qk_head), ``k`` (T, qk_head), ``v`` (T, v_head) -> (S, v_head).  ``past``: the
    causal offset (row ``r`` sees keys up to ``past + r``; None: no causal mask, MultiHeadAttention's), with
    ``window`` and ``bias`` (S, T) GroupQueryAttention's; ``divide``: the end divides by the sum
    (MultiHeadAttention) instead of multiplying by its reciprocal; ``kernels``: ``(scores(rows, k0, n),
    accumulate(p, k0, n, acc))`` in place of the SGEMMs (a quantized cache's, :mod:`.kv_cache`; ``acc`` starts at
    zeros)."""
    s, t = q.shape[0], k.shape[0]
    fused = platform.startswith("arm")
    out = np.empty((s, v.shape[1]), F32)
    for q0 in range(0, s, q_block):
        rows = min(q_block, s - q0)
        m, total = np.full(rows, LOWEST, F32), np.zeros(rows, F32)
        acc = None
        end = t if past is None else min(t, past + q0 + rows)  # blocks past every row's causal limit are skipped
        for k0 in range(0, end, kv_block):
            n = min(kv_block, t - k0)
            if kernels is None:
                scores = gemm2d(q[q0 : q0 + rows], k[k0 : k0 + n].T, alpha=alpha, trans_b=True, platform=platform)
            else:
                scores = kernels[0](q[q0 : q0 + rows], k0, n)
            if bias is not None:
                scores = (scores + bias[q0 : q0 + rows, k0 : k0 + n]).astype(F32)
            pos = k0 + np.arange(n)
            if past is not None:
                limit = past + q0 + np.arange(rows)[:, None] + 1  # row r sees keys below its limit
                hidden = pos >= limit
                if window >= 0:
                    hidden |= pos < np.maximum(limit - window, 0)
                scores[hidden] = LOWEST
            top = scores.max(axis=1)
            live = np.ones(rows, bool) if past is None else top != LOWEST  # a row masked whole adds nothing
            old, new_max = m, np.where(live, np.maximum(m, top), m)
            e = _exp((scores + (-new_max)[:, None]).astype(F32), platform)
            row_sums = _row_sums(e, platform)
            if k0:
                shrink = expf((old - new_max).astype(F32))
                grown = fma32(shrink, total, row_sums) if fused else ((shrink * total).astype(F32) + row_sums)
                total = np.where(live, grown, total).astype(F32)
                acc = np.where(live[:, None], (acc * shrink[:, None]).astype(F32), acc)
            else:
                total = np.where(live, row_sums, total).astype(F32)
            m = new_max
            scores = np.where(live[:, None], e, F32(0))
            if kernels is None:
                acc = gemm2d(scores, v[k0 : k0 + n], acc, platform=platform)
            else:
                acc = kernels[1](scores, k0, n, np.zeros((rows, v.shape[1]), F32) if acc is None else acc)
        if divide:
            out[q0 : q0 + rows] = (acc / total[:, None]).astype(F32)
        else:
            inverse = np.where(total > 0, F32(1) / total, F32(0)).astype(F32)
            out[q0 : q0 + rows] = (acc * inverse[:, None]).astype(F32)
    return out
