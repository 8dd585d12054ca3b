# ruff: noqa: E731  (lambdas name the timed variants)
"""How many of the tensor cores' operations a clock the 8192^3 kernel gets, and where the rest go, against what
the tensor cores give with nothing else to do.  The H200's 1,979 dense int8 TOPS is its rate at 1,830 MHz (4,096
int8 multiply-adds a clock on each of 132 multiprocessors); the board runs between about 1,400 MHz (at its 700 W
cap) and 1,980 MHz, so every figure is also given as a share of the peak at the clock sampled while it ran.

    python scripts/gpu/mma_rate.py [zeros|random [NAME ...]]     # on the H200; STEPS=1024 for shorter loops

- loop: the consumers' MMAs alone, as Triton emits them for the kernel's 128x256x128 stage (two warp groups, each
  on a row half, one stage in flight), over one stage that never changes: no copies, barriers or epilogue.
  Variants: one warp group; every 64 steps (a tile at K = 8192) the tile stored as the kernel stores it, by TMA
  from shared memory, or through shared memory by whole rows; with the two meetings of the warp group (bar.sync)
  the kernel's K loop has a step; reading four buffers in turn as the kernel's ring does; and with those, the
  two consumers held together as the ring holds them, without a loader ("coupled": one may be three steps ahead
  of the other at most; "lockstep": none), without stores or with them (from registers, by TMA through one or two
  buffers a consumer, by rows).
- probe: scripts/gpu/energy_probe.py's MODE 2: the kernel's consumers, ring of stages and loader, with no copies
  after the ring's first lap; at 8192^3 and at 8448 x 8192 x 8192, whose 2,112 tiles are 16 whole rounds of 132
  programs (8192^3: 15.5, the last round half idle); with two stages instead of four; with its tiles stored by
  TMA as gemm's kernel now stores them (whether the stores by TMA gain a clock where nothing is copied in).
- kernel: the kernel at 8192^3 (power.kernel), its tiles stored from registers, and by TMA in chunks of 32 or 64
  columns through one or two buffers a consumer; BK 256: a K step of 256 on two stages.
- "hinted": the probe on whole rounds and the kernel with every mbarrier wait given a suspend-time hint.

On zeros, none of them reaches the power cap, so the clock holds at 1,980 MHz and the shares compare the
kernels' structure alone; on uniform random int8 the cap sets the clock.  The loops' products are meaningless
(the same stage over and over) and not checked; the kernel's are checked by power.kernel.

On 2026-12-03 (scripts/gpu/h200-results.txt, tenth session), on zeros: loop 90.3%; with the kernel's stores 88.2%
(TMA stores and stores by rows the same); with the bar.syncs 89.2%; four buffers 89.7%; probe at whole rounds
82.4-83.0% (two stages 81.5%), at 8192^3 80.0%; kernel 77.5-78.7%.  The epilogue costs 2 points, the last
round 2.5, the copies 2.5 (and, at the cap, a fifth of the clock), and the ring's hand-overs between the loader
and the consumers 5-6: the largest share, and not the ring's depth.  The waits given a suspend-time hint
("hinted": the waiting warps sleep instead of polling) changed nothing (83.6% against 82.9%; the kernel 78.9%
against 78.7%).

Eleventh session, on zeros: the loop with the stores 89.0%; coupled 84.2-84.5%, lockstep 84.3%, coupled without
stores 89.8-89.9%: the consumers held together cost nothing until both store at a tile's end together.  Coupled,
stored by TMA through one buffer 85.2%, through two 86.0%, by rows 82.7% (uncoupled, two buffers 88.9%).  Probe on
whole rounds 82.4%, with a K step of 256 81.8%.  The kernel 77.4-78.6%; stored by TMA, 64 columns through one buffer
78.6%, 32 through two 77.9%, 64 through two with three stages 67.1% (at the cap it clocks higher:
scripts/gpu/epi_ab.py has those at the cap).

Thirteenth session, on zeros: the kernel stored by TMA (64 x 1) 78.6% at 480 W; gemm's 192x256 tiles ("kernel,
thirds", the last round whole) 72.5% at 426 W.  At the cap they are the faster (1,620 MHz against 1,530): fewer
bytes copied an operation buy more clock than they lose a clock.
"""

import os
import re
import statistics
import sys
from pathlib import Path

import torch
import triton
from energy_probe import mm_probe
from power import kernel, rewrite_ptx, sampled
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import (
    fence_async_shared,
    mbarrier,
    tma,
    warpgroup_mma,
    warpgroup_mma_wait,
)

from intdot.gemm import gpu_gluon

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from timing import sustained  # noqa: E402  (bench/timing.py, shared with the bench)

N = 8192
SIZE = gl.constexpr(N)  # N inside the kernels
BM, BN, BK = 128, 256, 128
STEPS = int(os.environ.get("STEPS", 4096))  # stages a program runs through: 4096 about 2 ms a call at 1,980 MHz
PEAK_PER_MHZ = 1979 / 1830  # dense int8 TOPS a MHz


@gluon.jit
def _quarters(acc):
    # acc's four 64-column quarters, in order: the columns a thread holds stay in its registers.
    ROWS: gl.constexpr = acc.shape[0]
    q = acc.reshape([ROWS, 2, 2, 64]).permute((0, 3, 2, 1))
    left, right = gl.split(q)
    q0, q1 = gl.split(left)
    q2, q3 = gl.split(right)
    return q0, q1, q2, q3


@gluon.jit
def _spin(
    a_smem,
    b_smem,
    c_smem,
    out_ptr,
    out_desc,
    STEPS: gl.constexpr,
    HALF: gl.constexpr,
    EPI: gl.constexpr,
    SYNC: gl.constexpr,
    meet,
    COUPLE: gl.constexpr,
):
    # COUPLE >= 0: the two consumers held together as the kernel's ring holds them, without a loader: each arrives
    # on meet[i % 4] once its step i - 1 has retired, and starts step i once both have arrived for step
    # i - 1 - COUPLE (the ring of four stages: COUPLE 2; 0: in lockstep).
    # EPI 0: no epilogue; 1: every 64 steps (a tile's K loop at K = 8192) the tile stored as the kernel stores it
    # (gl.store from the MMA's layout); 2: stored by TMA from shared memory, a quarter of the columns at a time;
    # 3: a quarter at a time through shared memory into a layout of whole rows, then gl.store (16 bytes a thread).
    RING: gl.constexpr = a_smem.type.shape[0]
    ROWS: gl.constexpr = a_smem.type.shape[1] // 2
    BN: gl.constexpr = b_smem.type.shape[1]
    TILE: gl.constexpr = 64
    layout: gl.constexpr = gpu_gluon._acc_layout(gl.num_warps())
    rows = gl.arange(0, ROWS, layout=gl.SliceLayout(1, layout))
    cols = gl.arange(0, BN, layout=gl.SliceLayout(0, layout))
    rowwise: gl.constexpr = gl.BlockedLayout([1, 4], [2, 16], [gl.num_warps(), 1], [1, 0])
    rr = gl.arange(0, ROWS, layout=gl.SliceLayout(1, rowwise))
    cc = gl.arange(0, 64, layout=gl.SliceLayout(0, rowwise))
    acc = gl.zeros((ROWS, BN), dtype=gl.int32, layout=layout)
    for i in range(STEPS):
        if SYNC:  # the two meetings of the warp group that the kernel's K loop has a step (bar.sync)
            gl.thread_barrier()
        if COUPLE >= 0:
            back = i - 1 - COUPLE
            mbarrier.wait(meet.index((back + 4) % 4), (back // 4) & 1, pred=back >= 0)
        # RING buffers holding the same stage, in turn: the kernel's MMAs read a new buffer each step.
        a = a_smem.index(i % RING).slice(HALF * ROWS, ROWS)
        acc = warpgroup_mma(a, b_smem.index(i % RING).permute((1, 0)), acc, is_async=True)
        acc = warpgroup_mma_wait(1, deps=(acc,))
        if SYNC:
            gl.thread_barrier()
        if COUPLE >= 0:
            mbarrier.arrive(meet.index(i % 4))
        if EPI > 0 and i % TILE == TILE - 1:
            acc = warpgroup_mma_wait(0, deps=(acc,))
            # The program's (i // TILE)-th tile of the 32 x 32 tiles of an 8192 x 8192 output, round robin.
            t = (gl.program_id(0) + (i // TILE) * gl.num_programs(0)) % 2048
            r0 = (t // 32) * (2 * ROWS) + HALF * ROWS
            c0 = (t % 32) * BN
            if EPI == 1:
                r = r0 + rows
                c = c0 + cols
                mask = (r[:, None] < SIZE) & (c[None, :] < SIZE)
                gl.store(out_ptr + r[:, None].to(gl.int64) * SIZE + c[None, :], acc, mask=mask)
            elif EPI == 3:
                q = _quarters(acc)
                for j in gl.static_range(4):
                    c_smem.index(HALF).store(q[j])
                    v = c_smem.index(HALF).load(rowwise)
                    r = r0 + rr
                    c = c0 + 64 * j + cc
                    mask = (r[:, None] < SIZE) & (c[None, :] < SIZE)
                    gl.store(out_ptr + r[:, None].to(gl.int64) * SIZE + c[None, :], v, mask=mask)
            else:
                # EPI 2: one buffer a consumer; 4: two, so that a quarter's copy overlaps the next one's writing.
                NB: gl.constexpr = c_smem.type.shape[0] // 2
                q = _quarters(acc)
                for j in gl.static_range(4):
                    buf = c_smem.index(HALF * NB + j % NB)
                    tma.store_wait(NB - 1)  # the copy that last read this buffer is done reading
                    buf.store(q[j])
                    fence_async_shared()
                    tma.async_copy_shared_to_global(out_desc, [r0, c0 + 64 * j], buf)
            acc = gl.zeros((ROWS, BN), dtype=gl.int32, layout=layout)
    acc = warpgroup_mma_wait(0, deps=(acc,))
    tma.store_wait(0)
    base = out_ptr + gl.program_id(0) * (2 * ROWS * BN) + HALF * ROWS * BN
    gl.store(base + rows[:, None] * BN + cols[None, :], acc)


@gluon.jit
def mma_loop(
    a_ptr,
    b_ptr,
    out_ptr,
    out_desc,
    STEPS: gl.constexpr,
    CONSUMERS: gl.constexpr,
    EPI: gl.constexpr,
    SYNC: gl.constexpr,
    RING: gl.constexpr,
    COUPLE: gl.constexpr,
):
    """Each program copies one stage (A: 128 x BK, B: BN x BK) into shared memory once, then its consumers run
    STEPS stages' MMAs over it, with the epilogue EPI (_spin)."""
    BM: gl.constexpr = 128
    BN: gl.constexpr = 256
    BK: gl.constexpr = 128
    load: gl.constexpr = gl.BlockedLayout([1, 16], [4, 8], [gl.num_warps(), 1], [1, 0])
    ra = gl.arange(0, BM, layout=gl.SliceLayout(1, load))
    rb = gl.arange(0, BN, layout=gl.SliceLayout(1, load))
    k = gl.arange(0, BK, layout=gl.SliceLayout(0, load))
    a = gl.load(a_ptr + ra[:, None] * BK + k[None, :])
    b = gl.load(b_ptr + rb[:, None] * BK + k[None, :])
    a_smem = gl.allocate_shared_memory(gl.int8, [RING, BM, BK], gl.NVMMASharedLayout.get_default_for([BM, BK], gl.int8))
    b_smem = gl.allocate_shared_memory(gl.int8, [RING, BN, BK], gl.NVMMASharedLayout.get_default_for([BN, BK], gl.int8))
    for r in gl.static_range(RING):
        a_smem.index(r).store(a)
        b_smem.index(r).store(b)
    c_smem = gl.allocate_shared_memory(gl.int32, [4 if EPI == 4 else 2, BM // 2, 64], out_desc.layout)
    meet = gl.allocate_shared_memory(gl.int64, [4, 1], mbarrier.MBarrierLayout())
    for r in gl.static_range(4):
        mbarrier.init(meet.index(r), count=2)
    fence_async_shared()
    if CONSUMERS == 2:
        gl.warp_specialize(
            [
                (_spin, (a_smem, b_smem, c_smem, out_ptr, out_desc, STEPS, 0, EPI, SYNC, meet, COUPLE)),
                (_spin, (a_smem, b_smem, c_smem, out_ptr, out_desc, STEPS, 1, EPI, SYNC, meet, COUPLE)),
            ],
            [gl.num_warps()],
            [232],
        )
    else:
        _spin(a_smem, b_smem, c_smem, out_ptr, out_desc, STEPS, 0, EPI, SYNC, meet, -1)


_HINT = {"on": False}


def _hinted_waits(ptx):
    """ptx, while _HINT is on with every mbarrier wait given a suspend-time hint (10 ms, as CUTLASS's barriers give),
    so that a waiting warp sleeps in hardware until the phase completes instead of polling the barrier in shared
    memory (power.rewrite_ptx runs it)."""
    if not _HINT["on"]:
        return ptx
    wait = r"(mbarrier\.try_wait\.parity\.shared\.b64 complete, \[%r\d+\], %r\d+);"
    out, n = re.subn(wait, r"\1, 10000000;", ptx)
    assert n, "no mbarrier wait found"
    return out


def hinted(build):
    """build, run with the waits hinted, as is the first call of what it returns: whichever of the two compiles
    the kernel.  Its constexprs must differ from any kernel compiled unhinted: Triton's caches do not see the hook."""

    def built():
        _HINT["on"] = True
        try:
            go = build()
            go()
            torch.cuda.synchronize()
        finally:
            _HINT["on"] = False
        return go

    return built


def variants(fill):
    """{name: (build, operations a call)}: build() makes the operands (by fill(shape, dtype=..., device=...)) and
    returns the call, so that only the variants asked for allocate and compile."""
    sms = torch.cuda.get_device_properties("cuda").multi_processor_count

    def loop(consumers, epi, sync=False, ring=1, couple=-1):
        def build():
            a = fill((BM, BK), dtype=torch.int8, device="cuda")
            b = fill((BN, BK), dtype=torch.int8, device="cuda")
            out = torch.empty((N, N), dtype=torch.int32, device="cuda")
            out_desc = gpu_gluon.out_descriptor(out, (BM // 2, 64))
            flags = dict(CONSUMERS=consumers, EPI=epi, SYNC=sync, RING=ring, COUPLE=couple, num_warps=4)
            return lambda: mma_loop[(sms,)](a, b, out, out_desc, STEPS=STEPS, **flags)

        return build, consumers * sms * STEPS * BM * BN * BK

    def probe(m, bk=BK, cols=0, **over):
        # energy_probe's MODE 2 on an m x N x N product, one program a multiprocessor at most; cols: its tiles
        # stored by TMA in chunks of that many columns (over: EPI_BUFS).
        def build():
            a, bt = fill((m, N), dtype=torch.int8, device="cuda"), fill((N, N), dtype=torch.int8, device="cuda")
            out = torch.empty((m, N), dtype=torch.int32, device="cuda")
            if cols:
                over["out_desc"] = gpu_gluon.out_descriptor(out, (BM // 2, cols))
            da, db = gpu_gluon.descriptor(a, [BM, bk]), gpu_gluon.descriptor(bt, [BN, bk])
            grid = (min(sms, triton.cdiv(m, BM) * triton.cdiv(N, BN)),)
            cfg = gpu_gluon.WIDE
            flags = dict(dict(GROUP=cfg["GROUP"], NUM=cfg["NUM"], num_warps=cfg["num_warps"]), **over)
            return lambda: mm_probe[grid](da, db, out, m, N, N, **flags, MODE=2)

        return build, 2 * m * N * N

    # 8448 = 66 tile rows: 2,112 tiles, 16 whole rounds of 132 programs (8192: 15.5, the last round half idle).
    # Hinted waits: GROUP 15 (no copies: the tiles' order changes nothing else) and PTX "hinted waits" keep them
    # apart from the unhinted kernels in Triton's caches.
    whole, probe_hinted = probe(8448), probe(8448, GROUP=15)
    return {
        "loop": loop(2, 0),
        "loop, one consumer": loop(1, 0),
        "loop, kernel's stores": loop(2, 1),
        "loop, TMA stores": loop(2, 2),
        "loop, stores by rows": loop(2, 3),
        "loop, stores, 2 syncs": loop(2, 1, True),
        "loop, stores, 4 buffers": loop(2, 1, False, 4),
        "loop, stores, coupled": loop(2, 1, True, 4, 2),
        "loop, stores, lockstep": loop(2, 1, True, 4, 0),
        "loop, coupled": loop(2, 0, True, 4, 2),
        "loop, TMA stores, coupled": loop(2, 2, True, 4, 2),
        "loop, rows, coupled": loop(2, 3, True, 4, 2),
        "loop, TMA x2, coupled": loop(2, 4, True, 2, 2),
        "loop, TMA x2": loop(2, 4, True, 2),
        "probe": probe(N),
        "probe, whole rounds": whole,
        "probe, whole, 2 stages": probe(8448, NUM=2),
        "probe, whole, hinted": (hinted(probe_hinted[0]), probe_hinted[1]),
        "probe, whole, BK 256": probe(8448, 256, NUM=2),
        "probe, whole, TMA stores": probe(8448, cols=64, EPI_BUFS=1),
        "probe, TMA stores": probe(N, cols=64, EPI_BUFS=1),
        "kernel": (lambda: kernel(fill), 2 * N**3),
        "kernel, TMA 64x1, clusters": (lambda: kernel(fill, EPI_COLS=64, EPI_BUFS=1, CLUSTER=2), 2 * N**3),
        "kernel, TMA 32x2": (lambda: kernel(fill, EPI_COLS=32, EPI_BUFS=2), 2 * N**3),
        "kernel, TMA 64x2, 3 stages": (lambda: kernel(fill, EPI_COLS=64, EPI_BUFS=2, NUM=3), 2 * N**3),
        "kernel, TMA 64x1": (lambda: kernel(fill, EPI_COLS=64, EPI_BUFS=1), 2 * N**3),
        # gemm's 192x256 tiles (stored by TMA, three stages), without the last round cut: against the line above.
        "kernel, thirds": (lambda: kernel(fill, gpu_gluon.THIRDS), 2 * N**3),
        "kernel, hinted": (hinted(lambda: kernel(fill, PTX="hinted waits")), 2 * N**3),
    }


def main():
    rewrite_ptx(_hinted_waits)
    fills = {"zeros": torch.zeros, "random": lambda s, **kw: torch.randint(-128, 128, s, **kw)}
    for data in sys.argv[1:2] or fills:
        for name, (build, ops) in variants(fills[data]).items():
            if len(sys.argv) > 2 and name not in sys.argv[2:]:
                continue
            go = build()
            tops = ops / sustained(go, 2.0) / 1e12
            samples = [line.split(", ") for line in sampled(go)]
            mhz = statistics.median(float(s[0].split()[0]) for s in samples)
            watts = statistics.median(float(s[1].split()[0]) for s in samples)
            share = tops / (mhz * PEAK_PER_MHZ)
            print(
                f"{data:>6} {name:<24} {tops:6.0f} TOPS at {mhz:4.0f} MHz, {watts:3.0f} W: {share:.1%} of the peak "
                f"at that clock (limits {sorted({s[2] for s in samples})})",
                flush=True,
            )


if __name__ == "__main__":
    main()
