"""The per-step saturating chain (clamp) on the GPU: exact, and fast where outputs cannot saturate.

An output whose accumulator is further from both limits than a bound on ``sum_k |a_ik| |b_kj|`` can never
saturate, whatever the order of the steps, so it is the wrapped tensor-core result (:mod:`.gpu`); only the
outputs that may saturate are walked step by step (a Triton kernel over their list, or over tiles where many may).
"""

from __future__ import annotations

import numpy as np

from .gpu import _as_torch, _bits32, _triton, mm_int8


def chain_tensors(a, b, start, step: int, lo: int, hi: int, neg: bool):
    """Saturating chain on CUDA tensors: a (M, K), b (K, N), start int64 (M, N) -> int64 (M, N)."""
    import torch

    m, kk = a.shape
    n = b.shape[1]
    if not (m and n and kk):  # no step to take: the accumulators are the answer
        return start.contiguous().clone()
    k = _triton()
    out = torch.empty((m, n), dtype=torch.int64, device=a.device)
    bm, bn = 32, 64
    grid = (k["triton"].cdiv(m, bm), k["triton"].cdiv(n, bn))
    k["chain"][grid](
        a.contiguous(),
        b.contiguous(),
        start.contiguous(),
        out,
        m,
        n,
        kk,
        lo,
        hi,
        -1 if neg else 1,
        STEP=step,
        BM=bm,
        BN=bn,
    )
    return out


# Above this share of outputs that may saturate, walking every output (chain_tensors) beats listing them.
DENSE_WALK = 0.25


# abs_stats' tile, and how many programs it aims for (a few per multiprocessor: one per line block leaves a
# 4096-line operand to 64 long-running programs, latency-bound).
STATS_TILE, STATS_PROGRAMS = 64, 512


def _abs_stats(x, dim: int, sums, tops):
    """Sums and maxima of |x| along ``dim`` into ``sums`` and ``tops`` (zeroed int64 vectors, one per line), for
    int8/uint8 x of any layout: one pass."""
    k = _triton()
    lines, length = (x.shape[0], x.shape[1]) if dim == 1 else (x.shape[1], x.shape[0])
    sr, sc = (x.stride(0), x.stride(1)) if dim == 1 else (x.stride(1), x.stride(0))
    t = STATS_TILE
    blocks, steps = -(-lines // t), -(-length // t)
    split = max(1, min(steps, STATS_PROGRAMS // blocks))
    chunk = -(-steps // split) * t
    grid = (blocks, -(-length // chunk))
    k["abs_stats"][grid](x, sums, tops, lines, length, sr, sc, chunk, BR=t, BC=t)


def _start_or_zeros(start, m: int, n: int, device):
    """The int64 accumulators where they are needed: start, or zeros."""
    import torch

    return start if start is not None else torch.zeros((m, n), dtype=torch.int64, device=device)


def _peak(torch, dtype) -> int:
    """The largest magnitude ``dtype`` holds (128 for int8, 255 for uint8)."""
    info = torch.iinfo(dtype)
    return max(-info.min, info.max)


def never_saturates(torch, a_dtype, b_dtype, k: int, lo: int, hi: int, neg: bool, s_lo=0, s_hi=0) -> bool:
    """Whether the dtypes alone keep every chain in [lo, hi]: K products of at most 128 x 128 (int8) or 255 x 255
    (uint8) each, from accumulators in [s_lo, s_hi] (0 without c).  Known from shapes and dtypes: then the
    saturating call is the wrapping one, bit for bit."""
    unsigned = a_dtype == b_dtype == torch.uint8
    return _safe(s_lo, s_hi, k * _peak(torch, a_dtype) * _peak(torch, b_dtype), unsigned, neg, lo, hi)


def _safe(s_lo: int, s_hi: int, reach: int, unsigned: bool, neg: bool, lo: int, hi: int) -> bool:
    """Whether chains starting in [s_lo, s_hi] that move at most ``reach`` stay in [lo, hi].  Unsigned lanes move
    every chain one way (up, or down with neg), so only that side can be hit."""
    down, up = ((reach, 0) if neg else (0, reach)) if unsigned else (reach, reach)
    return s_lo - down >= lo and s_hi + up <= hi


def clamp_chain(a, b, start, step: int, lo: int, hi: int, neg: bool):
    """The per-step saturating chain, walked only where saturation can happen.

    ``start`` is the int64 accumulator (M, N), an int32 one holding a signed 32-bit accumulator's values, or None
    for zeros.  An output whose accumulator is further from both limits than ``sum_k |a_ik| |b_kj|`` (bounded by a
    row sum of |a| times a column maximum of |b|, or the other way round) never saturates, in whatever order the
    steps come, so it is ``start ± a @ b`` exactly: the tensor-core kernel's wrapped result, which is exact there.
    The dtypes alone bound every output where the accumulators are far enough from the limits (without ``start``:
    int8 lanes and K below 2**17), and then no pass over the data is needed.  Only the outputs that may saturate
    are walked step by step.  On random data that is almost none, so a saturating call costs little more than a
    wrapping one.  Unsigned lanes (uint8 x uint8) move every chain one way (up, or down with neg), so only that
    limit is checked, and a chain that reaches it stays there: the sum clamped once.

    Returns the int32 bits of the results (8-bit lanes, 32-bit accumulators) or int64 values (otherwise).
    """
    import torch

    m, kk = a.shape
    n = b.shape[1]
    small = a.dtype in (torch.int8, torch.uint8) and b.dtype in (torch.int8, torch.uint8)
    if start is not None:
        start = start.contiguous()  # may_saturate reads it at row-major offsets
    if not (m and n and kk) or not small or hi - lo != (1 << 32) - 1:
        wide = None if start is None else start.to(torch.int64)
        return chain_tensors(a, b, _start_or_zeros(wide, m, n, a.device), step, lo, hi, neg)
    k = _triton()
    c32 = None
    if start is not None:  # the accumulator's bits as int32 (a uint32 accumulator wraps into them)
        c32 = start if start.dtype == torch.int32 else _bits32(start)
    # The wrapped product first: it is the answer wherever no partial sum can leave [lo, hi], and the GPU works
    # on it while the bounds below are launched (a call this size is otherwise bound by its launches).
    out = mm_int8(a, b, c32, neg=neg)
    unsigned = a.dtype == torch.uint8 and b.dtype == torch.uint8
    # The dtypes' bound first.  Without c and with K below 2**17 (int8) no chain can reach a limit: no pass over
    # the data, no read back (and gpu_tensors' plan never comes here); with c, only its extremes are read back.
    s_lo, s_hi = torch.stack(torch.aminmax(start)).tolist() if start is not None else (0, 0)
    if never_saturates(torch, a.dtype, b.dtype, kk, lo, hi, neg, s_lo, s_hi):
        return out
    if start is not None:
        start = start.to(torch.int64)  # the bounds and walks below take int64 accumulators
    # Rows of |a| and columns of |b|: sums and maxima (rows 0-1 and 2-3 of one zeroed buffer).
    stats = torch.zeros((4, max(m, n)), dtype=torch.int64, device=a.device)
    _abs_stats(a, 1, stats[0], stats[1])
    _abs_stats(b, 0, stats[2], stats[3])
    ra, rmax, cs, cmax = stats[0, :m], stats[1, :m], stats[2, :n], stats[3, :n]
    # One bound for all outputs (the largest row statistic times the largest column one bounds every output's):
    # on random data no output can saturate, and one read back says so (the bound in Python's exact ints).
    top = stats.amax(dim=1).tolist()
    reach = min(top[0] * top[3], top[1] * top[2])
    if _safe(s_lo, s_hi, reach, unsigned, neg, lo, hi):
        return out
    if unsigned and reach < 1 << 32:
        # Moving one way, each chain saturates at most once, at the limit it heads for, and stays there: the sum
        # clamped once.  The sum is below 2**32 (reach bounds it), so the wrapped product gives it exactly.
        s0 = start if start is not None else 0
        sign = -1 if neg else 1
        total = ((out.to(torch.int64) - s0) * sign).remainder(1 << 32)
        return _bits32(torch.clamp(s0 + sign * total, lo, hi))
    flags = torch.empty((m, n), dtype=torch.int8, device=a.device)
    count = torch.zeros(1, dtype=torch.int32, device=a.device)
    bm, bn = 64, 64
    k["may_saturate"][(k["triton"].cdiv(m, bm), k["triton"].cdiv(n, bn))](
        start if start is not None else flags,
        ra,
        rmax,
        cs,
        cmax,
        flags,
        count,
        m,
        n,
        lo,
        hi,
        HAS_S=start is not None,
        BM=bm,
        BN=bn,
    )
    unsafe = int(count.item())  # one small read back: the outputs to list, or so many that all are walked
    if unsafe > DENSE_WALK * m * n:
        return chain_tensors(a, b, _start_or_zeros(start, m, n, a.device), step, lo, hi, neg)
    if unsafe:
        idx = flags.nonzero()
        i, j = idx[:, 0].contiguous(), idx[:, 1].contiguous()
        s = start[i, j].contiguous() if start is not None else torch.zeros(len(i), dtype=torch.int64, device=a.device)
        walked = torch.empty_like(s)
        bu = 128
        k["chain_points"][(k["triton"].cdiv(len(idx), bu),)](
            a.contiguous(),
            b.t().contiguous(),
            i,
            j,
            s,
            walked,
            len(idx),
            kk,
            lo,
            hi,
            -1 if neg else 1,
            STEP=step,
            BU=bu,
        )
        out[i, j] = _bits32(walked)
    return out


def clamp_gemm(a, b, acc, o, neg):
    """The saturating result (int64 NumPy) computed on the GPU."""
    from .inputs import read_acc

    lo, hi = o.acc_range
    start = None if acc is None else _as_torch(read_acc(acc, o))
    r = clamp_chain(_as_torch(a), _as_torch(b), start, o.k_step, lo, hi, neg).cpu().numpy()
    if r.dtype == np.int32:  # the int32 bits of the accumulator type
        return r.view(np.int32 if o.acc_signed else np.uint32).astype(np.int64)
    return r
