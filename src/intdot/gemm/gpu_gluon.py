"""The Hopper (sm_90) int8 GEMM kernel, written in Gluon: warp-specialised and persistent.

Triton's own TMA kernel (gpu_kernels.mm_tma) leaves the scheduling of loads and tensor-core work to Triton's
pipeliner and reaches 1,280-1,290 TOPS at 8192^3 on the H200; this one schedules them itself and reaches 1,376-1,428
through gemm (bench/gemm.py, do_bench alternating with torch's), 1,370-1,404 sustained on a board held at its power
cap, depending on the board (scripts/gpu/h200-results.txt, fourteenth and fifteenth sessions; four boards):

- one loader warp streams A and B tiles through a ring of shared-memory stages with the tensor-copy engine (TMA),
  each stage guarded by a ``ready`` and an ``empty`` barrier;
- the consumer warps issue the warpgroup MMAs, keep one in flight, and hand each stage back to the loader as soon
  as the MMA that read it has retired;
- programs are persistent (one a multiprocessor), walking the output tiles in groups of GROUP tile rows so that B
  tiles are reused from L2;
- two consumers of one warp group each: with PING on every other tile, so that one's K loop runs while the
  other's epilogue stores; without, each on one row half of every tile, handing stages back on their own (an
  empty barrier waits for both), so that no barrier joins the two warp groups every K step;
- the wide configuration's consumers store their tiles by TMA through a buffer of shared memory each, 64 columns
  at a time (_store_by_tma): the two reach a tile's end together (they share every stage), and stored from
  registers the tensor cores idled while both stored (2-3% at the power cap, scripts/gpu/epi_ab.py);
- the wide configuration can run in clusters of two programs on vertically adjacent tiles, each copying half of
  their shared B tile for both by TMA multicast (gpu_ptx adds what Gluon cannot spell): a third less data moved
  from L2; 0.5-0.8% faster with the stores from registers, 1% slower with the stores by TMA (gpu.MULTICAST);
- THIRDS: 192x256 tiles on three consumers, one a row third of every tile, copying 22% fewer bytes from L2 an
  operation than 128x256; on the H200's power cap the copies cost a fifth of the clock, and these clock 7-9%
  higher (1,363 TOPS sustained at 8192^3 against 1,326, scripts/gpu/tail_ab.py);
- TAIL: the last round of tiles, where it would leave half the programs or more idle, cut along K into parts that
  those programs take; the parts meet in the output (the first stores, the others add once a flag in memory says
  it has), wrapping as the whole sum would (1,375 TOPS sustained at 8192^3 with THIRDS, 1,407 by do_bench);
- SNAKE (THIRDS): every other round walks K backwards, starting on the slices of A the round before read last,
  still in L2: fewer bytes from HBM (0.3-1.3% on one board, the same on another).

Used with Triton 3.6 (gpu.py checks); Triton's interpreter does not interpret Gluon kernels, and gpu.py picks this
one for CUDA tensors on sm_90 devices only.  tests/gemm/test_gpu_gluon.py compiles it for sm_90a where no GPU is
lent.  The stage counters are 32-bit: they would wrap only past M N K of about 2^60, far beyond any GPU's memory.
"""

from __future__ import annotations

import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import (
    fence_async_shared,
    mbarrier,
    tma,
    warpgroup_mma,
    warpgroup_mma_wait,
)
from triton.experimental.gluon.nvidia.hopper import TensorDescriptor

from . import gpu_ptx

gpu_ptx.install()  # clusters of programs (CLUSTER > 1): what Gluon cannot spell, added to the PTX

# Measured on the H200 at 8192^3 (scripts/gpu/gluon_mm.py): 128x128 ping-pong 1,384-1,385 TOPS; 128x256 tiles
# 1,386-1,400 with one consumer of two warp groups, and 2-5% more with two consumers, one a row half of every tile
# (scripts/gpu/h200-results.txt, seventh session); clusters of two sharing B, 1% more again alternating, 0.5-0.8%
# through gemm (eighth session; of four, 120 of the 132 multiprocessors fit, 1,208). Through gemm the two
# configurations are within 3% of each other everywhere (sweep.py ws); gpu.WIDE_PER_SM says which runs where.
# Clusters only on the Triton whose PTX the rewrite reads (gpu_ptx.checked).  EPI_COLS, EPI_BUFS: the wide tiles
# stored by TMA in chunks of 64 columns through one buffer a consumer (with NUM = 4 stages the most shared memory
# leaves; at the cap 1,297 TOPS sustained against 1,281 for 32 columns through two, 1,292 for 64 through two with
# three stages, 1,260 from registers: scripts/gpu/epi_ab.py); gpu.py passes the output's descriptor.
PING = dict(BM=128, BN=128, BK=128, GROUP=16, NUM=6, PING=True, CLUSTER=1, PTX=gpu_ptx.TAG, num_warps=4)
_PAIRS = 2 if gpu_ptx.checked(triton.__version__) else 1
WIDE = dict(BM=128, BN=256, BK=128, GROUP=16, NUM=4, PING=False, CLUSTER=_PAIRS, PTX=gpu_ptx.TAG, num_warps=4)
WIDE.update(EPI_COLS=64, EPI_BUFS=1)
# 192x256 tiles on three consumers of one warp group each, A copied in thirds (Triton takes power-of-two block shapes
# only), three stages so that the stores by TMA fit beside them (221 KB of shared memory); gpu.py picks them where M
# fills their rows (gpu.THIRDS_WASTE).
THIRDS = dict(BM=192, BN=256, BK=128, GROUP=16, NUM=3, PING=False, CLUSTER=1, PTX=gpu_ptx.TAG, num_warps=4)
THIRDS.update(EPI_COLS=64, EPI_BUFS=1, PARTS=3)
# Every other round walks K backwards (mm_ws's SNAKE): it starts on the slices of A's rows that the round before
# read last, still in L2.  At 8192^3 on one H200, 0.3-0.7% sustained and 0.2-1.3% by do_bench over the same kernel
# walking K forwards; on another the same (scripts/gpu/tail_ab.py, fifteenth session): kept, as it never lost.
THIRDS.update(SNAKE=True)


def a_rows(cfg):
    """The rows of A's block in a configuration: its tile's, or a consumer's part where those are no power of two."""
    parts = cfg.get("PARTS", 2)
    return cfg["BM"] if cfg["PING"] or parts & (parts - 1) == 0 else cfg["BM"] // parts


def tail_split(tiles: int, programs: int, k_steps: int, most: int = 4) -> int:
    """How many parts along K each tile of the last round is cut into (mm_ws's split, with TAIL): as many as
    the programs that round leaves idle make room for, at most ``most`` and one K step a part; 1 where every
    round is whole or the last is more than half full."""
    tail = tiles % programs if tiles > programs else 0
    return max(1, min(programs // tail, k_steps, most)) if tail else 1


def descriptor(t, block):
    """The Gluon tensor descriptor of a 2-D int8 tensor in ``block`` tiles, with the shared-memory layout (swizzle)
    Gluon picks for such a tile."""
    return TensorDescriptor.from_tensor(t, list(block), gl.NVMMASharedLayout.get_default_for(list(block), gl.int8))


def out_descriptor(out, block):
    """The Gluon tensor descriptor of the int32 output in ``block`` tiles, for the consumers' stores by TMA."""
    return TensorDescriptor.from_tensor(out, list(block), gl.NVMMASharedLayout.get_default_for(list(block), gl.int32))


@gluon.constexpr_function
def _acc_layout(warps):
    # Warps stacked along M, 16 rows each (a warp group's 64 rows a wgmma); int8 wgmma's N of 128 divides BN.
    return gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[warps, 1], instr_shape=[16, 128, 32])


@gluon.jit
def _halves(x):
    # x's left and right column halves: the columns a thread holds stay in its registers.
    ROWS: gl.constexpr = x.shape[0]
    COLS: gl.constexpr = x.shape[1]
    return gl.split(x.reshape([ROWS, 2, COLS // 2]).permute((0, 2, 1)))


@gluon.jit
def _store_by_tma(acc, bufs, out_desc, r0, c0, FIRST_BUF: gl.constexpr, BUFS: gl.constexpr, DONE: gl.constexpr):
    # acc's columns in chunks of the buffers' width, each written into shared memory and copied out by TMA (which
    # leaves out what lies past M or N) while the tensor cores go on: the chunks' copies overlap the writing of
    # the next chunk (BUFS buffers), and the last ones the next tile's K loop.  DONE: the chunks already stored.
    W: gl.constexpr = bufs.type.shape[2]
    if acc.shape[1] == W:
        j: gl.constexpr = DONE
        buf = bufs.index(FIRST_BUF + j % BUFS)
        tma.store_wait(BUFS - 1)  # the copy that last read this buffer has read it
        buf.store(acc)
        fence_async_shared()
        tma.async_copy_shared_to_global(out_desc, [r0, c0 + j * W], buf)
    else:
        left, right = _halves(acc)
        _store_by_tma(left, bufs, out_desc, r0, c0, FIRST_BUF, BUFS, DONE)
        _store_by_tma(right, bufs, out_desc, r0, c0, FIRST_BUF, BUFS, DONE + acc.shape[1] // W // 2)


@gluon.jit
def _tile(t, n_m, n_n, GROUP: gl.constexpr):
    # Grouped order, as gpu_kernels.tile: neighbouring tiles share rows of A and columns of B in L2.
    first = t // (GROUP * n_n) * GROUP
    rows = gl.minimum(n_m - first, GROUP)
    return first + (t % (GROUP * n_n)) % rows, (t % (GROUP * n_n)) // rows


@gluon.jit
def _tiles(M, N, BM: gl.constexpr, BN: gl.constexpr, CLUSTER: gl.constexpr):
    # (first, count, step) of this program's tiles in the order _place reads: a cluster (CLUSTER consecutive
    # programs) takes rows of CLUSTER tiles, which share B's tile.
    return gl.program_id(0) // CLUSTER, gl.cdiv(gl.cdiv(M, BM), CLUSTER) * gl.cdiv(N, BN), gl.num_programs(0) // CLUSTER


@gluon.jit
def _work(count, step, split, TAIL: gl.constexpr):
    # (whole, tail, units): with TAIL (split > 1, the host's choice: split <= step // tail), the last count % step
    # tiles (the last round's, fewer than the programs) are each cut along K into split parts, so that the last
    # round keeps split times as many programs busy; whole tiles come first, and each program takes at most one part.
    if TAIL:
        tail = count % step
    else:
        tail = 0
    return count - tail, tail, count - tail + tail * split


@gluon.jit
def _unit(u, whole, tail, split, k_steps, TAIL: gl.constexpr):
    # (tile, first K step, end K step, part) of the program's unit u (_work): a whole tile, or part p of the tail
    # tile u - whole mod tail, K steps [p k_steps / split, (p + 1) k_steps / split).
    t, k0, k1, part = u, 0, k_steps, 0
    if TAIL:
        if u >= whole:
            v = u - whole
            part = v // tail
            t = whole + v % tail
            k0 = part * k_steps // split
            k1 = (part + 1) * k_steps // split
    return t, k0, k1, part


@gluon.jit
def _place(t, M, N, BM: gl.constexpr, BN: gl.constexpr, GROUP: gl.constexpr, CLUSTER: gl.constexpr):
    # The tile (pm, pn) of this program in its cluster's t-th row of CLUSTER tiles.
    pm, pn = _tile(t, gl.cdiv(gl.cdiv(M, BM), CLUSTER), gl.cdiv(N, BN), GROUP)
    if CLUSTER > 1:
        pm = pm * CLUSTER + gl.program_id(0) % CLUSTER
    return pm, pn


@gluon.jit
def _loader(
    a_desc,
    b_desc,
    a_bufs,
    b_bufs,
    ready,
    empty,
    M,
    N,
    K,
    GROUP: gl.constexpr,
    NUM: gl.constexpr,
    CLUSTER: gl.constexpr,
    split=1,
    TAIL: gl.constexpr = False,
    SNAKE: gl.constexpr = False,
):
    A_COPIES: gl.constexpr = a_bufs.type.shape[0] // NUM  # A's tile in as many copies, each a buffer of its own
    BM: gl.constexpr = a_bufs.type.shape[1] * A_COPIES
    PART: gl.constexpr = b_desc.block_type.shape[0]  # the rows of B's tile that this program copies
    BN: gl.constexpr = PART * CLUSTER
    BK: gl.constexpr = a_desc.block_type.shape[1]
    first, count, step = _tiles(M, N, BM, BN, CLUSTER)
    rank = gl.program_id(0) % CLUSTER  # the part of B's tile this program copies for its cluster
    k_steps = gl.cdiv(K, BK)
    whole, tail, units = _work(count, step, split, TAIL)
    i = 0
    back = 0
    for u in range(first, units, step):
        t, k0, k1, _ = _unit(u, whole, tail, split, k_steps, TAIL)
        pm, pn = _place(t, M, N, BM, BN, GROUP, CLUSTER)
        for kf in range(k0, k1):
            # SNAKE: every other round walks K backwards, so that it starts on the slices of A's rows that the
            # round before read last, still in L2 (integer sums are exact in any order).
            ks = kf + back * (k0 + k1 - 1 - 2 * kf)
            s = i % NUM
            # A stage is free once the consumers' arrivals for its previous use have landed (the first lap is
            # free); in a cluster, those of every program's consumers, since the parts of B land in all of them.
            mbarrier.wait(empty.index(s), ((i // NUM) & 1) ^ 1, pred=i >= NUM)
            mbarrier.expect(ready.index(s), A_COPIES * a_desc.block_type.nbytes + CLUSTER * b_desc.block_type.nbytes)
            # Past M, N or K the copy fills zeros: edge tiles need no masks on the way in.
            for r in gl.static_range(A_COPIES):
                a_part = a_bufs.index(s * A_COPIES + r)
                tma.async_copy_global_to_shared(
                    a_desc, [pm * BM + r * (BM // A_COPIES), ks * BK], ready.index(s), a_part
                )
            if CLUSTER == 1:
                tma.async_copy_global_to_shared(b_desc, [pn * BN, ks * BK], ready.index(s), b_bufs.index(s))
            else:
                # Program r copies part r of B's tile, multicast to the whole cluster (gpu_ptx.clustered).
                for r in gl.static_range(CLUSTER):
                    part = b_bufs.index(s).slice(r * PART, PART)
                    tma.async_copy_global_to_shared(
                        b_desc, [pn * BN + r * PART, ks * BK], ready.index(s), part, pred=rank == r
                    )
            i += 1
        if SNAKE:
            back = 1 - back


@gluon.jit
def _finished(acc, r, c, mask, offs, operands, HAS_C: gl.constexpr, CENTRED: gl.constexpr):
    # gpu_kernels.epilogue spelled in Gluon: undo the centring of unsigned operands (exact modulo 2**32), apply
    # neg, add c.  Calling that @triton.jit function from here compiles to the same PTX, but under TRITON_INTERPRET
    # (the CPU tests) it is an InterpretedFunction, which a Gluon kernel may not reference.
    c_ptr, out_ptr, ra_ptr, cb_ptr, M, N, K, za, zb, zz, sign = operands
    if CENTRED:
        ra = gl.load(ra_ptr + r, mask=r < M, other=0)
        cb = gl.load(cb_ptr + c, mask=c < N, other=0)
        acc += zb * ra[:, None] + za * cb[None, :] + zz
    acc = acc * sign
    if HAS_C:
        acc += gl.load(c_ptr + offs, mask=mask, other=0)
    return acc


@gluon.jit
def _stored(acc, ptrs, mask, epi, r0, c0, FIRST_BUF: gl.constexpr, BUFS: gl.constexpr):
    # The finished tile stored from registers (BUFS 0) or by TMA through the consumer's buffers (_store_by_tma).
    if BUFS == 0:
        gl.store(ptrs, acc, mask=mask)
    else:
        out_desc, c_bufs = epi
        _store_by_tma(acc, c_bufs, out_desc, r0, c0, FIRST_BUF, BUFS, 0)


@gluon.jit
def _part_stored(flag, waiting):
    # Part 0 of a tail tile has stored (every thread of the warp group, from registers: the stores by TMA would
    # need a wait for their writes, not only their reads): the flag counts the later parts that may now add.
    gl.thread_barrier()
    gl.atomic_add(flag, waiting, sem="release", scope="gpu")


@gluon.jit
def _part_added(acc, ptrs, mask, flag):
    # A later part of a tail tile adds its sum once part 0 has stored, counting itself off the flag, which so
    # ends each call at 0.  The parts run at once (each program takes one at most), so the wait is short.
    while gl.atomic_add(flag, 0, sem="acquire", scope="gpu") == 0:
        pass
    gl.atomic_add(flag, -1, sem="relaxed", scope="gpu")
    gl.atomic_add(ptrs, acc, mask=mask, sem="relaxed", scope="gpu")


@gluon.jit
def _consumer(
    ring,
    operands,
    HAS_C: gl.constexpr,
    CENTRED: gl.constexpr,
    GROUP: gl.constexpr,
    NUM: gl.constexpr,
    FIRST: gl.constexpr,
    EVERY: gl.constexpr,
    HALF: gl.constexpr,
    CLUSTER: gl.constexpr,
    epi,
    BUFS: gl.constexpr,
    PARTS: gl.constexpr = 2,
    tail_args=(1, None),
    TAIL: gl.constexpr = False,
):
    # This consumer takes the program's tiles FIRST, FIRST + EVERY, ...: all of them (0, 1) or every other one
    # (ping-pong).  A tile's ring stages follow from its place in the program's sequence of tiles.  HALF 0 or 1:
    # of each tile only that half of the rows; -1: all of them.  BUFS 0: the tiles stored from registers; else by
    # TMA (epi: out_desc, c_bufs) through c_bufs, BUFS a consumer, consumer 0's first.
    a_bufs, b_bufs, ready, empty, turn = ring
    c_ptr, out_ptr, ra_ptr, cb_ptr, M, N, K, za, zb, zz, sign = operands
    A_COPIES: gl.constexpr = a_bufs.type.shape[0] // NUM  # 1, or PARTS: each consumer's part a buffer of its own
    BM: gl.constexpr = a_bufs.type.shape[1] * A_COPIES
    BN: gl.constexpr = b_bufs.type.shape[1]
    BK: gl.constexpr = a_bufs.type.shape[2]
    ROWS: gl.constexpr = BM if HALF < 0 else BM // PARTS
    R0: gl.constexpr = 0 if HALF < 0 else HALF * ROWS
    gl.static_assert(ROWS % (16 * gl.num_warps()) == 0, "a consumer's rows: a multiple of 16 a warp")
    layout: gl.constexpr = _acc_layout(gl.num_warps())
    k_steps = gl.cdiv(K, BK)
    rows = gl.arange(0, ROWS, layout=gl.SliceLayout(1, layout))
    cols = gl.arange(0, BN, layout=gl.SliceLayout(0, layout))
    first, count, step = _tiles(M, N, BM, BN, CLUSTER)
    split, flags_ptr = tail_args
    gl.static_assert(not TAIL or (EVERY == 1 and CLUSTER == 1), "tail parts: one program a tile, every tile")
    whole, tail, units = _work(count, step, split, TAIL)
    j = 0
    i = 0
    for u in range(first + FIRST * step, units, EVERY * step):
        t, k0, k1, part = _unit(u, whole, tail, split, k_steps, TAIL)
        pm, pn = _place(t, M, N, BM, BN, GROUP, CLUSTER)
        if EVERY == 2:
            i = (t - first) // step * k_steps  # the other consumer's tiles in between
            # Ping-pong takes turns over the ring: a consumer starts a tile's K loop once the other has waited on
            # every stage of the tile before it.  Without the turn, a consumer a lap or more ahead would wait on a
            # ready barrier whose phase parity is an older lap's, and pass at once.
            if FIRST == 0:
                mbarrier.wait(turn.index(1), (j + 1) & 1, pred=j > 0)
            else:
                mbarrier.wait(turn.index(0), j & 1)
        acc = gl.zeros((ROWS, BN), dtype=gl.int32, layout=layout)
        for ks in range(k0, k1):
            s = i % NUM
            mbarrier.wait(ready.index(s), (i // NUM) & 1)
            if A_COPIES > 1:
                a = a_bufs.index(s * A_COPIES + HALF)
            elif HALF < 0:
                a = a_bufs.index(s)
            else:
                a = a_bufs.index(s).slice(R0, ROWS)
            acc = warpgroup_mma(a, b_bufs.index(s).permute((1, 0)), acc, is_async=True)
            # One MMA stays in flight: the one before it has read its stage, which goes back to the loader.
            acc = warpgroup_mma_wait(1, deps=(acc,))
            # One thread arrives for all the consumer's warps: Triton synchronises them after the wait and before
            # the arrival (bar.sync in the PTX), which a Triton upgrade should be checked for.
            mbarrier.arrive(empty.index((i + NUM - 1) % NUM), pred=ks > k0)
            i += 1
        if EVERY == 2:
            mbarrier.arrive(turn.index(FIRST))
        acc = warpgroup_mma_wait(0, deps=(acc,))
        mbarrier.arrive(empty.index((i + NUM - 1) % NUM))
        j += 1
        r = pm * BM + R0 + rows
        c = pn * BN + cols
        mask = (r[:, None] < M) & (c[None, :] < N)
        offs = r[:, None].to(gl.int64) * N + c[None, :]
        if TAIL:
            # A tail tile's parts meet in out: part 0 stores its sum finished as a whole tile's, then each later
            # part adds its own (wrapping, as the whole sum would) once part 0's store is there.
            flag = flags_ptr + (u - whole) % tail * PARTS + HALF
            if part > 0:
                _part_added(acc * sign, out_ptr + offs, mask, flag)
            elif u >= whole:
                gl.store(out_ptr + offs, _finished(acc, r, c, mask, offs, operands, HAS_C, CENTRED), mask=mask)
                _part_stored(flag, split - 1)
            else:
                acc = _finished(acc, r, c, mask, offs, operands, HAS_C, CENTRED)
                _stored(acc, out_ptr + offs, mask, epi, pm * BM + R0, pn * BN, HALF * BUFS, BUFS)
        else:
            acc = _finished(acc, r, c, mask, offs, operands, HAS_C, CENTRED)
            _stored(acc, out_ptr + offs, mask, epi, pm * BM + R0, pn * BN, HALF * BUFS, BUFS)
    if BUFS > 0:
        tma.store_wait(0)  # the copies have read the buffers before the program's shared memory goes


@gluon.jit
def ring_of_stages(
    a_desc, b_desc, NUM: gl.constexpr, HAND_BACKS: gl.constexpr, CLUSTER: gl.constexpr, A_COPIES: gl.constexpr = 1
):
    """(A's and B's stage buffers, ready, empty, turn): NUM stages of the tiles' shared memory, each with a barrier
    that the loader's copies complete (ready) and one that HAND_BACKS consumers' arrivals complete (empty), and the
    two ping-pong consumers' turns.  B's tile is CLUSTER times b_desc's block (gpu_ptx)."""
    A_ROWS: gl.constexpr = a_desc.block_type.shape[0]
    BN: gl.constexpr = b_desc.block_type.shape[0] * CLUSTER
    BK: gl.constexpr = a_desc.block_type.shape[1]
    a_bufs = gl.allocate_shared_memory(gl.int8, [NUM * A_COPIES, A_ROWS, BK], a_desc.layout)
    b_bufs = gl.allocate_shared_memory(gl.int8, [NUM, BN, BK], b_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [NUM, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [NUM, 1], mbarrier.MBarrierLayout())
    turn = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    for s in gl.static_range(NUM):
        mbarrier.init(ready.index(s), count=1)
        mbarrier.init(empty.index(s), count=HAND_BACKS)
    for s in gl.static_range(2):
        mbarrier.init(turn.index(s), count=1)
    return a_bufs, b_bufs, ready, empty, turn


@gluon.jit
def tile_stores(out_desc, BUFS: gl.constexpr, a_desc, a_bufs, CONSUMERS: gl.constexpr = 2):
    """What the two row-half consumers store their tiles through (_consumer's epi): out_desc and BUFS buffers of
    its block a consumer where BUFS > 0; else a_desc and a_bufs stand in, unused (warp_specialize's arguments
    cannot be None)."""
    if BUFS > 0:
        block: gl.constexpr = out_desc.block_type.shape
        c_bufs = gl.allocate_shared_memory(gl.int32, [CONSUMERS * BUFS, block[0], block[1]], out_desc.layout)
        return out_desc, c_bufs
    else:
        return a_desc, a_bufs


@gluon.jit
def mm_ws(
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
    HAS_C: gl.constexpr,
    CENTRED: gl.constexpr,
    GROUP: gl.constexpr,
    NUM: gl.constexpr,
    PING: gl.constexpr,
    CLUSTER: gl.constexpr,
    PTX: gl.constexpr,
    out_desc=None,
    EPI_BUFS: gl.constexpr = 0,
    PARTS: gl.constexpr = 2,
    split=1,
    flags_ptr=None,
    TAIL: gl.constexpr = False,
    SNAKE: gl.constexpr = False,
):
    """out = sign * (a @ bt.T + the centring's correction) (+ c): the arguments of gpu_kernels.mm_tma, with the
    descriptors' Gluon layouts (``descriptor``) and the grid at most one program a multiprocessor.

    CLUSTER > 1: clusters of CLUSTER consecutive programs (the grid a multiple of it) on vertically adjacent tiles,
    b_desc's block 1/CLUSTER of B's tile, which each program copies for the whole cluster (gpu_ptx.clustered); PTX:
    gpu_ptx.TAG, so that Triton's cache tells kernels rewritten by different versions apart.  out_desc (a
    descriptor of out, blocks of a consumer's rows by some columns) and EPI_BUFS > 0: the tiles stored by TMA through
    EPI_BUFS buffers of that block a consumer (_store_by_tma), instead of from registers.  PARTS: the consumers
    that share each tile by rows, 2 or 3 (THIRDS: a_desc's block a third of the tile's rows).  TAIL (one program a
    tile, no ping-pong): the last round's tiles cut along K into ``split`` parts (``tail_split``), which meet
    through ``flags_ptr``: int32, 3 a program, 0 before the call and so after it.  SNAKE: the loader walks K
    backwards on every other tile (or tail part) of its program; the consumers see only stages, and wrapping sums
    are exact in any order."""
    gl.static_assert(NUM >= 2, "a stage goes back to the loader one K step late: one stage alone would deadlock")
    # gpu_ptx makes every consumer's arrival one in each program of the cluster: the ping-pong turns' too.
    gl.static_assert(CLUSTER == 1 or not PING, "clusters with the ping-pong consumers would take turns across programs")
    A_COPIES: gl.constexpr = 1 if PING or PARTS & (PARTS - 1) == 0 else PARTS
    ring = ring_of_stages(a_desc, b_desc, NUM, (1 if PING else PARTS) * CLUSTER, CLUSTER, A_COPIES)
    a_bufs, b_bufs, ready, empty, _ = ring
    io = (c_ptr, out_ptr, ra_ptr, cb_ptr, M, N, K, za, zb, zz, sign)  # the operands, gpu_kernels.mm_tma's
    gl.static_assert(EPI_BUFS == 0 or not PING, "the ping-pong consumers store from registers")
    epi = tile_stores(out_desc, EPI_BUFS, a_desc, a_bufs, PARTS)
    tail = (split, flags_ptr if TAIL else out_ptr)  # out_ptr stands in: warp_specialize's arguments cannot be None
    # Two consumers of num_warps each: on alternate tiles (PING), or on the two row halves of every tile, each
    # arriving on the empty barriers (in every program of the cluster) so that no barrier joins them a K step.
    # The register split leaves the loader warp 40.
    EVERY: gl.constexpr = 2 if PING else 1
    NEXT: gl.constexpr = 1 if PING else 0  # the second consumer's first tile
    H0: gl.constexpr = -1 if PING else 0  # the consumers' halves of the tile (-1: all of it)
    H1: gl.constexpr = -1 if PING else 1
    C: gl.constexpr = CLUSTER
    BUFS: gl.constexpr = EPI_BUFS
    if PARTS == 3:
        # A loader of four warps, so that Triton rebalances the registers (160 a consumer thread).
        gl.warp_specialize(
            [
                (_consumer, (ring, io, HAS_C, CENTRED, GROUP, NUM, 0, 1, 0, C, epi, BUFS, 3, tail, TAIL)),
                (_consumer, (ring, io, HAS_C, CENTRED, GROUP, NUM, 0, 1, 1, C, epi, BUFS, 3, tail, TAIL)),
                (_consumer, (ring, io, HAS_C, CENTRED, GROUP, NUM, 0, 1, 2, C, epi, BUFS, 3, tail, TAIL)),
                (
                    _loader,
                    (a_desc, b_desc, a_bufs, b_bufs, ready, empty, M, N, K, GROUP, NUM, CLUSTER, split, TAIL, SNAKE),
                ),
            ],
            [gl.num_warps(), gl.num_warps(), 4],
            [160, 160, 24],
        )
    else:
        gl.warp_specialize(
            [
                (_consumer, (ring, io, HAS_C, CENTRED, GROUP, NUM, 0, EVERY, H0, C, epi, BUFS, 2, tail, TAIL)),
                (_consumer, (ring, io, HAS_C, CENTRED, GROUP, NUM, NEXT, EVERY, H1, C, epi, BUFS, 2, tail, TAIL)),
                (
                    _loader,
                    (a_desc, b_desc, a_bufs, b_bufs, ready, empty, M, N, K, GROUP, NUM, CLUSTER, split, TAIL, SNAKE),
                ),
            ],
            [gl.num_warps(), 1],
            [232, 40],
        )


# mm_ws's defaults for the parameters a launch may leave out: gpu._tma_setup names every one from these, as
# gpu_launch.Direct repeats directly only launches that name them all.
DEFAULTS = {p.name: p.default for p in mm_ws.params if p.has_default}
