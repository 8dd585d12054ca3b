"""The Triton kernels of the CUDA backend, at module level (imported only where Triton is installed).

They live at module level, not inside a builder function, so that Triton's interpreter (``TRITON_INTERPRET=1``)
can run them on the CPU too: it resolves a kernel's calls of other kernels (``tile``, ``epilogue``) through the
module's globals.  The tests use that to check the kernels' logic where no GPU is lent (tests/gemm/
test_gpu_interpret.py); speed is measured on the device only (bench/gemm.py --gpu-only).
"""

from __future__ import annotations

import triton
import triton.language as tl

try:  # programmatic dependent launch (Hopper): Triton 3.3 and later
    from triton.language.extra.cuda import gdc_launch_dependents, gdc_wait
except ImportError:  # pragma: no cover - older Triton: nothing launches a kernel as a dependent there
    gdc_launch_dependents = gdc_wait = None

try:  # Hopper's tensor-copy engine (TMA): Triton 3.2 and later
    from triton.tools.tensor_descriptor import TensorDescriptor
except ImportError:  # pragma: no cover - older Triton
    TensorDescriptor = None

MM_CONFIGS = [
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
def chain(a_ptr, b_ptr, c_ptr, out_ptr, M, N, K, lo, hi, sign, STEP: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
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
def chain_points(a_ptr, bt_ptr, i_ptr, j_ptr, s_ptr, out_ptr, U, K, lo, hi, sign, STEP: tl.constexpr, BU: tl.constexpr):
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
def abs_stats(x_ptr, s_ptr, mx_ptr, R, C, sr, sc, chunk, BR: tl.constexpr, BC: tl.constexpr):
    # Sum and maximum of |x| along C for each of R lines of 8-bit x, at any strides (rows of A, columns of B).
    # Program (line block, chunk of C): many programs even for few lines, met by atomics in zeroed outputs.
    r = tl.program_id(0) * BR + tl.arange(0, BR)
    start = tl.program_id(1) * chunk
    tot = tl.zeros((BR,), dtype=tl.int32)
    top = tl.zeros((BR,), dtype=tl.int32)
    for c0 in range(0, chunk, BC):
        c = start + c0 + tl.arange(0, BC)
        m = (r[:, None] < R) & (c[None, :] < C)
        t = tl.load(x_ptr + r[:, None].to(tl.int64) * sr + c[None, :].to(tl.int64) * sc, mask=m, other=0)
        t = tl.abs(t.to(tl.int32))
        tot += tl.sum(t, axis=1)
        top = tl.maximum(top, tl.max(t, axis=1))
    tl.atomic_add(s_ptr + r, tot.to(tl.int64), mask=r < R, sem="relaxed")
    tl.atomic_max(mx_ptr + r, top.to(tl.int64), mask=r < R, sem="relaxed")


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
    # y[c, r] = x[r, c] as int8 (FLIP: uint8 x ^ 0x80, centred on the way).
    r = tl.program_id(0) * BR + tl.arange(0, BR)
    c = tl.program_id(1) * BC + tl.arange(0, BC)
    t = tl.load(x_ptr + r[:, None].to(tl.int64) * C + c[None, :], mask=(r[:, None] < R) & (c[None, :] < C))
    if FLIP:
        t = (t ^ 0x80).to(tl.int8, bitcast=True)
    tl.store(y_ptr + c[:, None].to(tl.int64) * R + r[None, :], tl.trans(t), mask=(c[:, None] < C) & (r[None, :] < R))


def _blocks(nargs):
    nargs["a_desc"].block_shape = [nargs["BM"], nargs["BK"]]
    nargs["b_desc"].block_shape = [nargs["BN"], nargs["BK"]]


TMA_CONFIGS = [
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
    at = tl.program_id(0) - NUM_SMS
    ki = -1
    acc = tl.zeros((BM, BN), dtype=tl.int32)
    pm = 0
    pn = 0
    for _ in tl.range(0, k_tiles * tl.cdiv(tiles - tl.program_id(0), NUM_SMS), flatten=True):
        ki = tl.where(ki == k_tiles - 1, 0, ki + 1)
        if ki == 0:
            at += NUM_SMS
            group = at // (G * n_n)
            first_m = group * G
            size_m = min(n_m - first_m, G)
            pm = first_m + (at % (G * n_n)) % size_m
            pn = (at % (G * n_n)) // size_m
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


@triton.jit
def zeros(out_ptr, n, BLOCK: tl.constexpr):
    """out[:n] = 0 (int32), BLOCK a program.  It first lets the kernel launched after it as its programmatic
    dependent (launch_pdl) start, which must wait for it (gdc_wait) before it touches out: the fill and the gap
    between the two launches hide under that kernel's K loop."""
    gdc_launch_dependents()
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.zeros((BLOCK,), dtype=tl.int32), mask=offs < n)


@triton.jit
def split(
    a_ptr,
    b_ptr,
    out_ptr,
    ws_ptr,
    cnt_ptr,
    M,
    N,
    K,
    sam,
    sak,
    sbk,
    sbn,
    chunk,
    za,
    zb,
    sign,
    REDUCE: tl.constexpr,
    A_U8: tl.constexpr,
    B_U8: tl.constexpr,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
    SWAP: tl.constexpr,
):
    # a (M, K) and b (K, N) at any strides (Triton specialises a stride of 1, so each layout gets its own
    # vectorised loads); program (n tile, K chunk, m tile).  uint8 is centred here (x ^ 0x80 is x - 128)
    # and the chunk's share of the correction added: zb * rowsum(a') + za * colsum(b') + za * zb * (K in
    # the chunk), with a', b' the centred operands; every term is linear in the chunk, all modulo 2**32.
    pn = tl.program_id(0)
    ps = tl.program_id(1)
    rm = tl.program_id(2) * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    k0 = ps * chunk
    a_p = a_ptr + rm[:, None].to(tl.int64) * sam + (k0 + rk)[None, :].to(tl.int64) * sak
    b_p = b_ptr + (k0 + rk)[:, None].to(tl.int64) * sbk + rn[None, :].to(tl.int64) * sbn
    # SWAP: out.T = b.T @ a.T, so that N fills the tensor cores' M side (at least 64) and the few rows of a
    # their N side; b.T then comes from registers, whatever its layout in memory.
    if SWAP:
        acc = tl.zeros((BN, BM), dtype=tl.int32)
    else:
        acc = tl.zeros((BM, BN), dtype=tl.int32)
    ra = tl.zeros((BM,), dtype=tl.int32)
    cb = tl.zeros((BN,), dtype=tl.int32)
    for kk in range(0, chunk, BK):
        mk = (k0 + kk + rk) < K
        # A uint8 pad of 0x80 centres to 0: padding adds nothing to the product or the sums.
        a = tl.load(a_p, mask=(rm[:, None] < M) & mk[None, :], other=0x80 if A_U8 else 0)
        b = tl.load(b_p, mask=mk[:, None] & (rn[None, :] < N), other=0x80 if B_U8 else 0)
        if A_U8:
            a = (a ^ 0x80).to(tl.int8, bitcast=True)
        if B_U8:
            b = (b ^ 0x80).to(tl.int8, bitcast=True)
            ra += tl.sum(a.to(tl.int32), axis=1)
        if A_U8:
            cb += tl.sum(b.to(tl.int32), axis=0)
        if SWAP:
            acc = tl.dot(tl.trans(b), tl.trans(a), acc, out_dtype=tl.int32)
        else:
            acc = tl.dot(a, b, acc, out_dtype=tl.int32)
        a_p += BK * sak
        b_p += BK * sbk
    if SWAP:
        acc = tl.trans(acc)
    if A_U8 or B_U8:
        steps = tl.minimum(K - k0, chunk)
        acc += zb * ra[:, None] + za * cb[None, :] + za * zb * steps
    acc = acc * sign
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    offs = rm[:, None].to(tl.int64) * N + rn[None, :]
    # How the chunks meet (gpu_split.STORE, ADD, ATOMIC, LAST, FILLED): the only chunk stores (into an empty
    # output) or adds (to c); several add atomically into c or a zero-filled output; with no c, into the
    # workspace, whose last arrival for a tile moves the sum to the (empty) output and leaves the workspace and
    # the tile's counter at 0 again; or into the output that ``zeros``, launched just before, fills.
    if REDUCE == 4:
        gdc_wait()  # the fill's grid has finished and its zeros are visible
        tl.atomic_add(out_ptr + offs, acc, mask=mask, sem="relaxed")
    elif REDUCE == 0:
        tl.store(out_ptr + offs, acc, mask=mask)
    elif REDUCE == 1:
        tl.store(out_ptr + offs, acc + tl.load(out_ptr + offs, mask=mask, other=0), mask=mask)
    elif REDUCE == 2:
        tl.atomic_add(out_ptr + offs, acc, mask=mask, sem="relaxed")
    else:
        tl.atomic_add(ws_ptr + offs, acc, mask=mask, sem="relaxed")
        # Every thread's adds are issued before the counter's release (CUTLASS's semaphore pattern).
        tl.debug_barrier()
        t = tl.program_id(2) * tl.num_programs(0) + pn
        seen = tl.atomic_add(cnt_ptr + t, 1, sem="acq_rel")
        if seen == tl.num_programs(1) - 1:
            # Read where the atomics landed (L2, past this multiprocessor's L1); plain accesses, no fences: the
            # counter's acquire already orders them after every other chunk's adds.
            tl.store(out_ptr + offs, tl.load(ws_ptr + offs, mask=mask, cache_modifier=".cg"), mask=mask)
            tl.store(ws_ptr + offs, tl.zeros((BM, BN), dtype=tl.int32), mask=mask)
            tl.atomic_xchg(cnt_ptr + t, 0, sem="relaxed")


mm_tuned = triton.autotune(configs=MM_CONFIGS, key=["M", "N", "K"])(mm)
tune_tma = triton.autotune(configs=TMA_CONFIGS, key=["M", "N", "K"])
mm_tma_tuned = tune_tma(mm_tma)
mm_persist_tuned = tune_tma(mm_persist)
