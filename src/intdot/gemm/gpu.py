"""The CUDA backend: Triton int8 tensor-core GEMM, a per-step saturating kernel, float64 for 16-bit lanes.

Exactness, not hope:
- 8- and 4-bit lanes: unsigned operands are centred to int8 (``x ^ 0x80`` is ``x - 128``), the int8 x int8
  products accumulate in int32 on the tensor cores, and the centring is corrected in the kernel's epilogue;
  every step is arithmetic modulo 2**32, which is what a 32-bit accumulator keeps, so even sums that pass
  2**31 come out right (tested on the device with worst-case inputs, scripts/gpu/).
- 16-bit lanes and 64-bit accumulators: float64 matmul over K blocks in which no partial sum reaches
  2**53, summed in int64.
- clamp: a Triton kernel walks the K steps in order for a tile of outputs, saturating at each step.

Up to ``SPLIT_M`` rows, the split-K kernel of :mod:`.gpu_split` computes the product, reading any layout and
uint8 as they are.  Beyond, the tensor-core kernel reads both operands K-contiguous: A row-major and B column-major
(``b.T`` contiguous), the layout on which the H200 is fastest.  Operands given in that layout are used as they
are; any other layout costs one pass of the transposing kernel (``rows_int8``, ``cols_int8``), which is part of
every call and of every timing.
"""

from __future__ import annotations

import os

import numpy as np

_KERNELS: dict = {}
TMA_CONFIG = {"BM": 128, "BN": 256, "BK": 128, "G": 8, "num_stages": 4, "num_warps": 8}
# Up to this many rows the split-K kernel (gpu_split.py) streams B on every multiprocessor.
SPLIT_M = 64


def _triton():
    """The Triton kernels, compiled on first use (None where Triton is missing)."""
    if "mm" in _KERNELS:
        return _KERNELS
    import triton
    import triton.language as tl

    configs = [
        triton.Config({"BM": 128, "BN": 256, "BK": 128, "G": 8}, num_stages=3, num_warps=8),
        triton.Config({"BM": 256, "BN": 128, "BK": 128, "G": 8}, num_stages=3, num_warps=8),
        triton.Config({"BM": 128, "BN": 128, "BK": 128, "G": 8}, num_stages=4, num_warps=4),
        triton.Config({"BM": 64, "BN": 64, "BK": 64, "G": 8}, num_stages=3, num_warps=4),
    ]

    @triton.jit
    def tile(M, N, BM: tl.constexpr, BN: tl.constexpr, G: tl.constexpr):
        # Grouped order: neighbouring programs share rows of A, so tiles stay in L2.
        pid = tl.program_id(0)
        n_m = tl.cdiv(M, BM)
        n_n = tl.cdiv(N, BN)
        first_m = (pid // (G * n_n)) * G
        size_m = min(n_m - first_m, G)
        return first_m + (pid % (G * n_n)) % size_m, (pid % (G * n_n)) // size_m

    @triton.jit
    def epilogue(
        acc, rm, rn, c_ptr, out_ptr, ra_ptr, cb_ptr, M, N, za, zb, zz, sign, HAS_C: tl.constexpr, CENTRED: tl.constexpr
    ):
        # Undo the centring of unsigned operands (exact modulo 2**32), apply neg, add c, store.
        if CENTRED:
            ra = tl.load(ra_ptr + rm, mask=rm < M, other=0)
            cb = tl.load(cb_ptr + rn, mask=rn < N, other=0)
            acc += zb * ra[:, None] + za * cb[None, :] + zz
        acc = acc * sign
        mask = (rm[:, None] < M) & (rn[None, :] < N)
        offs = rm[:, None].to(tl.int64) * N + rn[None, :]
        if HAS_C:
            acc += tl.load(c_ptr + offs, mask=mask, other=0)
        tl.store(out_ptr + offs, acc, mask=mask)

    @triton.jit
    def mm(
        a_ptr,
        bt_ptr,
        c_ptr,
        out_ptr,
        ra_ptr,
        cb_ptr,
        M,
        N,
        K,
        za,
        zb,
        zz,
        sign,
        HAS_C: tl.constexpr,
        CENTRED: tl.constexpr,
        BM: tl.constexpr,
        BN: tl.constexpr,
        BK: tl.constexpr,
        G: tl.constexpr,
    ):
        pm, pn = tile(M, N, BM, BN, G)
        rm = pm * BM + tl.arange(0, BM)
        rn = pn * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        a_p = a_ptr + rm[:, None].to(tl.int64) * K + rk[None, :]
        b_p = bt_ptr + rn[:, None].to(tl.int64) * K + rk[None, :]
        acc = tl.zeros((BM, BN), dtype=tl.int32)
        for k0 in range(0, K, BK):
            mk = (rk[None, :] + k0) < K
            a = tl.load(a_p, mask=(rm[:, None] < M) & mk, other=0)
            b = tl.load(b_p, mask=(rn[:, None] < N) & mk, other=0)
            acc = tl.dot(a, tl.trans(b), acc, out_dtype=tl.int32)
            a_p += BK
            b_p += BK
        epilogue(acc, rm, rn, c_ptr, out_ptr, ra_ptr, cb_ptr, M, N, za, zb, zz, sign, HAS_C, CENTRED)

    @triton.jit
    def chain(
        a_ptr, b_ptr, c_ptr, out_ptr, M, N, K, lo, hi, sign, STEP: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr
    ):
        rm = tl.program_id(0) * BM + tl.arange(0, BM)
        rn = tl.program_id(1) * BN + tl.arange(0, BN)
        mask = (rm[:, None] < M) & (rn[None, :] < N)
        offs = rm[:, None].to(tl.int64) * N + rn[None, :]
        acc = tl.load(c_ptr + offs, mask=mask, other=0)
        for t in range(0, K, STEP):
            d = tl.zeros((BM, BN), dtype=tl.int64)
            for j in tl.static_range(STEP):
                kk = t + j
                av = tl.load(a_ptr + rm.to(tl.int64) * K + kk, mask=(rm < M) & (kk < K), other=0).to(tl.int64)
                bv = tl.load(b_ptr + kk * N + rn, mask=(rn < N) & (kk < K), other=0).to(tl.int64)
                d += av[:, None] * bv[None, :]
            acc = tl.minimum(tl.maximum(acc + sign * d, lo), hi)
        tl.store(out_ptr + offs, acc, mask=mask)

    @triton.jit
    def chain_points(
        a_ptr, bt_ptr, i_ptr, j_ptr, s_ptr, out_ptr, U, K, lo, hi, sign, STEP: tl.constexpr, BU: tl.constexpr
    ):
        # The per-step walk for a list of outputs (i, j): a row-major, b given as its transpose (both K-contiguous).
        u = tl.program_id(0) * BU + tl.arange(0, BU)
        mu = u < U
        row = tl.load(i_ptr + u, mask=mu, other=0).to(tl.int64) * K
        col = tl.load(j_ptr + u, mask=mu, other=0).to(tl.int64) * K
        acc = tl.load(s_ptr + u, mask=mu, other=0)
        for t in range(0, K, STEP):
            d = tl.zeros((BU,), dtype=tl.int64)
            for j in tl.static_range(STEP):
                kk = t + j
                av = tl.load(a_ptr + row + kk, mask=mu & (kk < K), other=0).to(tl.int64)
                bv = tl.load(bt_ptr + col + kk, mask=mu & (kk < K), other=0).to(tl.int64)
                d += av * bv
            acc = tl.minimum(tl.maximum(acc + sign * d, lo), hi)
        tl.store(out_ptr + u, acc, mask=mu)

    @triton.jit
    def rows(x_ptr, y_ptr, s_ptr, R, C, FLIP: tl.constexpr, SUM: tl.constexpr, BR: tl.constexpr, BC: tl.constexpr):
        # One pass over x (R, C), rows contiguous: y = x ^ 0x80 read as int8 (FLIP: uint8 centred), and the sum
        # of each row of what the kernel will read (SUM: for the zero-point correction).
        r = tl.program_id(0) * BR + tl.arange(0, BR)
        acc = tl.zeros((BR,), dtype=tl.int32)
        for c0 in range(0, C, BC):
            c = c0 + tl.arange(0, BC)
            m = (r[:, None] < R) & (c[None, :] < C)
            offs = r[:, None].to(tl.int64) * C + c[None, :]
            t = tl.load(x_ptr + offs, mask=m, other=0)
            if FLIP:
                t = (t ^ 0x80).to(tl.int8, bitcast=True)
                tl.store(y_ptr + offs, t, mask=m)
            if SUM:
                acc += tl.sum(tl.where(m, t.to(tl.int32), 0), axis=1)
        if SUM:
            tl.store(s_ptr + r, acc, mask=r < R)

    @triton.jit
    def abs_stats(x_ptr, s_ptr, mx_ptr, R, C, sr, sc, BR: tl.constexpr, BC: tl.constexpr):
        # Sum and maximum of |x| along C for each of R lines of 8-bit x, at any strides (rows of A, columns of B).
        r = tl.program_id(0) * BR + tl.arange(0, BR)
        tot = tl.zeros((BR,), dtype=tl.int32)
        top = tl.zeros((BR,), dtype=tl.int32)
        for c0 in range(0, C, BC):
            c = c0 + tl.arange(0, BC)
            m = (r[:, None] < R) & (c[None, :] < C)
            t = tl.load(x_ptr + r[:, None].to(tl.int64) * sr + c[None, :].to(tl.int64) * sc, mask=m, other=0)
            t = tl.abs(t.to(tl.int32))
            tot += tl.sum(t, axis=1)
            top = tl.maximum(top, tl.max(t, axis=1))
        tl.store(s_ptr + r, tot.to(tl.int64), mask=r < R)
        tl.store(mx_ptr + r, top.to(tl.int64), mask=r < R)

    @triton.jit
    def may_saturate(
        s_ptr,
        ra_ptr,
        rmax_ptr,
        cs_ptr,
        cmax_ptr,
        flag_ptr,
        count_ptr,
        M,
        N,
        lo,
        hi,
        HAS_S: tl.constexpr,
        BM: tl.constexpr,
        BN: tl.constexpr,
    ):
        # 1 where an output's partial sums might leave [lo, hi]: |start| plus a bound on sum_k |a_ik| |b_kj|
        # (row sum of |a| times column max of |b|, or row max times column sum, whichever is smaller).
        rm = tl.program_id(0) * BM + tl.arange(0, BM)
        rn = tl.program_id(1) * BN + tl.arange(0, BN)
        mask = (rm[:, None] < M) & (rn[None, :] < N)
        offs = rm[:, None].to(tl.int64) * N + rn[None, :]
        ra = tl.load(ra_ptr + rm, mask=rm < M, other=0)
        rmax = tl.load(rmax_ptr + rm, mask=rm < M, other=0)
        cs = tl.load(cs_ptr + rn, mask=rn < N, other=0)
        cmax = tl.load(cmax_ptr + rn, mask=rn < N, other=0)
        bound = tl.minimum(ra[:, None] * cmax[None, :], rmax[:, None] * cs[None, :])
        if HAS_S:
            st = tl.load(s_ptr + offs, mask=mask, other=0)
        else:
            st = tl.zeros((BM, BN), dtype=tl.int64)
        bad = ((st - bound < lo) | (st + bound > hi)) & mask
        tl.store(flag_ptr + offs, bad.to(tl.int8), mask=mask)
        tl.atomic_add(count_ptr, tl.sum(bad.to(tl.int32)))

    @triton.jit
    def transpose(x_ptr, y_ptr, R, C, FLIP: tl.constexpr, BR: tl.constexpr, BC: tl.constexpr):
        # y[c, r] = x[r, c] (optionally x ^ 0x80: uint8 centred to int8 on the way).
        r = tl.program_id(0) * BR + tl.arange(0, BR)
        c = tl.program_id(1) * BC + tl.arange(0, BC)
        t = tl.load(x_ptr + r[:, None].to(tl.int64) * C + c[None, :], mask=(r[:, None] < R) & (c[None, :] < C))
        if FLIP:
            t = t ^ 0x80
        tl.store(
            y_ptr + c[:, None].to(tl.int64) * R + r[None, :],
            tl.trans(t).to(tl.int8, bitcast=True),
            mask=(c[:, None] < C) & (r[None, :] < R),
        )

    kernels = dict(
        mm=triton.autotune(configs=configs, key=["M", "N", "K"])(mm),
        mm_raw=mm,
        chain=chain,
        chain_points=chain_points,
        rows=rows,
        abs_stats=abs_stats,
        may_saturate=may_saturate,
        transpose=transpose,
        triton=triton,
    )
    try:
        from triton.tools.tensor_descriptor import TensorDescriptor
    except ImportError:
        TensorDescriptor = None
    if TensorDescriptor is not None:

        def _blocks(nargs):
            nargs["a_desc"].block_shape = [nargs["BM"], nargs["BK"]]
            nargs["b_desc"].block_shape = [nargs["BN"], nargs["BK"]]

        tma_configs = [
            triton.Config({"BM": 128, "BN": 256, "BK": 128, "G": 8}, num_stages=3, num_warps=8, pre_hook=_blocks),
            triton.Config({"BM": 256, "BN": 128, "BK": 128, "G": 8}, num_stages=3, num_warps=8, pre_hook=_blocks),
            triton.Config({"BM": 128, "BN": 256, "BK": 64, "G": 8}, num_stages=4, num_warps=8, pre_hook=_blocks),
            triton.Config({"BM": 128, "BN": 128, "BK": 128, "G": 8}, num_stages=4, num_warps=8, pre_hook=_blocks),
            triton.Config({"BM": 128, "BN": 256, "BK": 128, "G": 8}, num_stages=4, num_warps=8, pre_hook=_blocks),
            triton.Config({"BM": 256, "BN": 128, "BK": 64, "G": 8}, num_stages=5, num_warps=8, pre_hook=_blocks),
        ]

        @triton.jit
        def mm_tma(
            a_desc,
            b_desc,
            c_ptr,
            out_ptr,
            ra_ptr,
            cb_ptr,
            M,
            N,
            K,
            za,
            zb,
            zz,
            sign,
            HAS_C: tl.constexpr,
            CENTRED: tl.constexpr,
            BM: tl.constexpr,
            BN: tl.constexpr,
            BK: tl.constexpr,
            G: tl.constexpr,
        ):
            pm, pn = tile(M, N, BM, BN, G)
            acc = tl.zeros((BM, BN), dtype=tl.int32)
            for k0 in range(0, K, BK):
                a = a_desc.load([pm * BM, k0])
                b = b_desc.load([pn * BN, k0])
                acc = tl.dot(a, b.T, acc, out_dtype=tl.int32)
            rm = pm * BM + tl.arange(0, BM)
            rn = pn * BN + tl.arange(0, BN)
            epilogue(acc, rm, rn, c_ptr, out_ptr, ra_ptr, cb_ptr, M, N, za, zb, zz, sign, HAS_C, CENTRED)

        @triton.jit
        def mm_persist(
            a_desc,
            b_desc,
            c_ptr,
            out_ptr,
            ra_ptr,
            cb_ptr,
            M,
            N,
            K,
            za,
            zb,
            zz,
            sign,
            HAS_C: tl.constexpr,
            CENTRED: tl.constexpr,
            BM: tl.constexpr,
            BN: tl.constexpr,
            BK: tl.constexpr,
            G: tl.constexpr,
            NUM_SMS: tl.constexpr,
        ):
            # One program per multiprocessor walks tiles; flatten lets the next tile's loads overlap
            # this tile's epilogue.
            n_m = tl.cdiv(M, BM)
            n_n = tl.cdiv(N, BN)
            k_tiles = tl.cdiv(K, BK)
            tiles = n_m * n_n
            tile = tl.program_id(0) - NUM_SMS
            ki = -1
            acc = tl.zeros((BM, BN), dtype=tl.int32)
            pm = 0
            pn = 0
            for _ in tl.range(0, k_tiles * tl.cdiv(tiles - tl.program_id(0), NUM_SMS), flatten=True):
                ki = tl.where(ki == k_tiles - 1, 0, ki + 1)
                if ki == 0:
                    tile += NUM_SMS
                    group = tile // (G * n_n)
                    first_m = group * G
                    size_m = min(n_m - first_m, G)
                    pm = first_m + (tile % (G * n_n)) % size_m
                    pn = (tile % (G * n_n)) // size_m
                a = a_desc.load([pm * BM, ki * BK])
                b = b_desc.load([pn * BN, ki * BK])
                acc = tl.dot(a, b.T, acc, out_dtype=tl.int32)
                if ki == k_tiles - 1:
                    rm = pm * BM + tl.arange(0, BM)
                    rn = pn * BN + tl.arange(0, BN)
                    if CENTRED:
                        ra = tl.load(ra_ptr + rm, mask=rm < M, other=0)
                        cb = tl.load(cb_ptr + rn, mask=rn < N, other=0)
                        acc += zb * ra[:, None] + za * cb[None, :] + zz
                    acc = acc * sign
                    mask = (rm[:, None] < M) & (rn[None, :] < N)
                    offs = rm[:, None].to(tl.int64) * N + rn[None, :]
                    if HAS_C:
                        acc += tl.load(c_ptr + offs, mask=mask, other=0)
                    tl.store(out_ptr + offs, acc, mask=mask)
                    acc = tl.zeros((BM, BN), dtype=tl.int32)

        tune = triton.autotune(configs=tma_configs, key=["M", "N", "K"])
        kernels.update(
            mm_tma=tune(mm_tma),
            mm_persist=tune(mm_persist),
            mm_tma_raw=mm_tma,
            mm_persist_raw=mm_persist,
            TensorDescriptor=TensorDescriptor,
        )
    _KERNELS.update(kernels)
    return _KERNELS


def _centre(x):
    """int8 view of a uint8/int8 tensor and its zero point (x - 128 is x ^ 0x80 read as int8)."""
    import torch

    if x.dtype == torch.uint8:
        return (x ^ 0x80).view(torch.int8), 128
    return x, 0


def transposed(b, tile: int = 64, cols: int = 256, warps: int = 8):
    """b.T contiguous as int8 (uint8 centred on the way) and b's zero point: one pass over b."""
    import torch

    k = _triton()
    r, c = b.shape
    y = torch.empty((c, r), dtype=torch.int8, device=b.device)
    grid = (k["triton"].cdiv(r, tile), k["triton"].cdiv(c, cols))
    k["transpose"][grid](b.contiguous(), y, r, c, FLIP=b.dtype == torch.uint8, BR=tile, BC=cols, num_warps=warps)
    return y, 128 if b.dtype == torch.uint8 else 0


def _canonical(x):
    """x with the strides and alignment a tensor descriptor needs (a copy only where they differ)."""
    if x.stride() == (x.shape[1], 1) and x.data_ptr() % 16 == 0:
        return x
    return x.new_empty(x.shape).copy_(x)


def _rows_pass(x, want_sum: bool):
    """x (R, C) rows contiguous: its int8 form (uint8 centred; int8 as it is) and, if asked, its row sums (int32
    of the int8 form), in at most one pass."""
    import torch

    flip = x.dtype == torch.uint8
    if not (flip or want_sum):
        return x, None
    k = _triton()
    r, c = x.shape
    y = torch.empty((r, c), dtype=torch.int8, device=x.device) if flip else x
    sums = torch.empty(r, dtype=torch.int32, device=x.device) if want_sum else y
    k["rows"][(k["triton"].cdiv(r, 16),)](x, y, sums, r, c, FLIP=flip, SUM=want_sum, BR=16, BC=256, num_warps=4)
    return y, sums if want_sum else None


def rows_int8(a, want_sum: bool = False):
    """a (M, K) as a K-contiguous int8 tensor (uint8 centred) and, if asked, its row sums; at most one pass over
    a where it is row-major (a no-op for int8), one pass of the transposing kernel where it is column-major
    (torch's ``a.contiguous()`` of a transposed int8 tensor is ten times slower), plus a summing pass."""
    if not a.is_contiguous() and a.t().is_contiguous():
        y, _ = transposed(a.t())
        return y, (_rows_pass(y, True)[1] if want_sum else None)
    return _rows_pass(_canonical(a.contiguous()), want_sum)


def cols_int8(b, want_sum: bool = False):
    """b (K, N) as its transpose (N, K), K-contiguous int8 (uint8 centred), and, if asked, its column sums.

    Column-major b already is that transpose: int8 needs no pass at all, uint8 one; row-major (and any other
    strided) b takes one pass of the transposing kernel.
    """
    if b.t().is_contiguous():
        return _rows_pass(_canonical(b.t()), want_sum)
    y, _ = transposed(b)
    return y, (_rows_pass(y, True)[1] if want_sum else None)


def use_tma(k: int) -> bool:
    # The tensor-copy engine needs 16-byte aligned rows: K a multiple of 16 int8 values.
    return "mm_tma" in _triton() and k % 16 == 0 and os.environ.get("INTDOT_GEMM_TMA", "1") != "0"


def _zz(za: int, zb: int, k: int) -> int:
    """za * zb * K as the int32 that wraps to the same bits."""
    zz = (za * zb * k) % (1 << 32)
    return zz - (1 << 32) if zz >= 1 << 31 else zz


def mm_int8(a, b, c=None, *, neg: bool = False):
    """``c ± a @ b`` modulo 2**32 as an int32 CUDA tensor; a: (M, K), b: (K, N), int8 or uint8 tensors.

    ``c`` (int32, (M, N), optional) is added in the epilogue; the transposed copy of b is made here.
    """
    import torch

    m, kk = a.shape
    n = b.shape[1]
    if not (m and n and kk):  # nothing to multiply; the tensor-core kernel's descriptors need real strides
        return torch.zeros((m, n), dtype=torch.int32, device=a.device) if c is None else c.contiguous().clone()
    kind = os.environ.get("INTDOT_GEMM_KERNEL", "tma")
    if m <= SPLIT_M and kind in ("tma", "split"):
        from .gpu_split import mm_split

        # Few rows: split K too, so that streaming B keeps every multiprocessor busy; any layout, no pass.
        out = torch.zeros((m, n), dtype=torch.int32, device=a.device) if c is None else c.clone()
        return mm_split(a, b, out, neg)
    k = _triton()
    za = 128 if a.dtype == torch.uint8 else 0
    zb = 128 if b.dtype == torch.uint8 else 0
    # Each correction only where its zero point is not 0 (out stands in: multiplied by a zero point of 0).
    a8, ra = rows_int8(a, want_sum=bool(zb))
    bt, cb = cols_int8(b, want_sum=bool(za))
    out = torch.empty((m, n), dtype=torch.int32, device=a.device)
    ra = out if ra is None else ra
    cb = out if cb is None else cb
    zz = _zz(za, zb, kk)
    cc = c if c is not None else out

    def grid(meta):
        return (k["triton"].cdiv(m, meta["BM"]) * k["triton"].cdiv(n, meta["BN"]),)

    args = (cc, out, ra, cb, m, n, kk, za, zb, zz, -1 if neg else 1)
    flags = dict(HAS_C=c is not None, CENTRED=bool(za or zb))
    if use_tma(kk) and kind in ("tma", "persist"):
        desc = k["TensorDescriptor"]
        if kind == "tma":
            # Measured best on the H200 at 8192^3 (scripts/gpu/tune.py: 1,237 TOPS for the kernel alone); one
            # fixed configuration, so no call pays an autotuning sweep or the autotuner's dispatch.
            cfg = TMA_CONFIG
            bm, bn, bk = cfg["BM"], cfg["BN"], cfg["BK"]
            da, db = desc.from_tensor(a8, [bm, bk]), desc.from_tensor(bt, [bn, bk])
            k["mm_tma_raw"][(k["triton"].cdiv(m, bm) * k["triton"].cdiv(n, bn),)](da, db, *args, **flags, **cfg)
        else:
            # Block shapes are placeholders; each autotune config sets its own (pre_hook).
            da, db = desc.from_tensor(a8, [128, 128]), desc.from_tensor(bt, [128, 128])
            sms = torch.cuda.get_device_properties(a.device).multi_processor_count
            k["mm_persist"][lambda meta: (min(sms, grid(meta)[0]),)](da, db, *args, **flags, NUM_SMS=sms)
    else:
        k["mm"][grid](a8, bt, *args, **flags)
    return out


def _f64_product(a, b):
    """Exact int64 a @ b for 16-bit lanes: float64 over K blocks whose partial sums stay below 2**53."""
    import torch

    p = max(int(a.abs().max()), 1) * max(int(b.abs().max()), 1) if a.numel() and b.numel() else 1
    kb = max(1, (1 << 53) // p)
    s = torch.zeros((a.shape[0], b.shape[1]), dtype=torch.int64, device=a.device)
    for k0 in range(0, a.shape[1], kb):
        s += (a[:, k0 : k0 + kb].double() @ b[k0 : k0 + kb].double()).to(torch.int64)
    return s


def _as_torch(x):
    import torch

    return torch.from_numpy(np.ascontiguousarray(x)).cuda()


def product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Exact int64 a @ b (NumPy in and out) on the GPU."""
    import torch

    ta, tb = _as_torch(a), _as_torch(b)
    if a.dtype.itemsize == 1 and b.dtype.itemsize == 1 and a.shape[1] < (1 << 17):
        # |sum| < 2**31 for K < 2**17, so the int32 result is the exact sum.
        return mm_int8(ta, tb).to(torch.int64).cpu().numpy()
    return _f64_product(ta.to(torch.int64), tb.to(torch.int64)).cpu().numpy()


def wrap_gemm(a, b, acc, o, neg):
    """The wrapping result (NumPy, the instruction's dtype) computed on the GPU."""
    import torch

    if o.acc_bits == 32 and a.dtype.itemsize == 1 and b.dtype.itemsize == 1:
        c = None if acc is None else _as_torch(acc.astype(np.uint32).view(np.int32))
        out = mm_int8(_as_torch(a), _as_torch(b), c, neg=neg).cpu().numpy()
        return out.view(o.result_dtype)
    s = _f64_product(_as_torch(a).to(torch.int64), _as_torch(b).to(torch.int64)).cpu().numpy().view(np.uint64)
    if acc is not None:
        s = acc - s if neg else acc + s
    elif neg:
        s = np.uint64(0) - s
    return s.astype(np.uint32 if o.acc_bits == 32 else np.uint64).view(o.result_dtype)


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


def _abs_stats(x, dim: int):
    """Sums and maxima of |x| along ``dim`` (int64 vectors), for int8/uint8 x of any layout: one pass."""
    import torch

    k = _triton()
    lines, length = (x.shape[0], x.shape[1]) if dim == 1 else (x.shape[1], x.shape[0])
    sr, sc = (x.stride(0), x.stride(1)) if dim == 1 else (x.stride(1), x.stride(0))
    sums = torch.empty(lines, dtype=torch.int64, device=x.device)
    tops = torch.empty(lines, dtype=torch.int64, device=x.device)
    k["abs_stats"][(k["triton"].cdiv(lines, 32),)](x, sums, tops, lines, length, sr, sc, BR=32, BC=64)
    return sums, tops


def clamp_chain(a, b, start, step: int, lo: int, hi: int, neg: bool):
    """The per-step saturating chain, walked only where saturation can happen.

    ``start`` is the int64 accumulator (M, N), or None for zeros.  An output whose accumulator is further from
    both limits than ``sum_k |a_ik| |b_kj|`` (bounded by a row sum of |a| times a column maximum of |b|, or the
    other way round) never saturates, in whatever order the steps come, so it is ``start ± a @ b`` exactly: the
    tensor-core kernel's wrapped result, which is exact there.  Only the other outputs are walked step by step.
    On random data that is almost none, so a saturating call costs little more than a wrapping one.

    Returns the int32 bits of the results (8-bit lanes, 32-bit accumulators) or int64 values (otherwise).
    """
    import torch

    m, kk = a.shape
    n = b.shape[1]
    small = a.dtype in (torch.int8, torch.uint8) and b.dtype in (torch.int8, torch.uint8)
    full = start if start is not None else torch.zeros((m, n), dtype=torch.int64, device=a.device)
    if not (m and n and kk) or not small or hi - lo != (1 << 32) - 1:
        return chain_tensors(a, b, full, step, lo, hi, neg)
    k = _triton()
    ra, rmax = _abs_stats(a, 1)
    cs, cmax = _abs_stats(b, 0)
    flags = torch.empty((m, n), dtype=torch.int8, device=a.device)
    count = torch.zeros(1, dtype=torch.int32, device=a.device)
    bm, bn = 64, 64
    k["may_saturate"][(k["triton"].cdiv(m, bm), k["triton"].cdiv(n, bn))](
        full if start is not None else flags,
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
    unsafe = int(count.item())  # one small read back: most calls on random data need no list of outputs
    if unsafe > DENSE_WALK * m * n:
        return chain_tensors(a, b, full, step, lo, hi, neg)
    c32 = None
    if start is not None:  # the accumulator's bits as int32 (a uint32 accumulator wraps into them)
        c32 = torch.where(start > (1 << 31) - 1, start - (1 << 32), start).to(torch.int32)
    out = mm_int8(a, b, c32, neg=neg)
    if unsafe:
        idx = flags.nonzero()
        i, j = idx[:, 0].contiguous(), idx[:, 1].contiguous()
        s = full[i, j].contiguous()
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
        out[i, j] = torch.where(walked > (1 << 31) - 1, walked - (1 << 32), walked).to(torch.int32)
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
