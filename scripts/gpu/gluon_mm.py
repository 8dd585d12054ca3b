# ruff: noqa: B023, E731  (closures run inside their loop iteration; lambdas name the timed variants)
"""A warp-specialised, persistent int8 GEMM for Hopper written in Gluon: the experiment behind issue 12's 1,400 TOPS.

    python scripts/gpu/gluon_mm.py [i ...]    # on the H200: exact against torch._int_mm, then TOPS at 8192^3
    python scripts/gpu/gluon_mm.py compile    # anywhere with Triton: compile for sm_90a only (no GPU needed)

Triton's own kernel (gpu_kernels.mm_tma) leaves the scheduling of loads and tensor-core work to Triton's pipeliner,
and runs at 1,280-1,290 TOPS at 8192^3 under load; Triton 3.6's automatic warp specialisation is for Blackwell
only.  Here one loader warp streams A and B tiles through a ring of shared-memory stages with the tensor-copy engine
(TMA), and the kernel's warps issue the warpgroup MMAs, each stage handed back to the loader as soon as the MMA
that read it has retired; programs are persistent (one a multiprocessor) and walk the output tiles in groups of G
tile rows, so that B tiles are reused from L2.  The ping-pong configurations have two consumers taking every other
tile: the loader fills the ring in tile order, so one consumer's K loop runs while the other stores its tile.

a: (M, K) int8 row-major; bt: (N, K) int8 row-major (B column-major); out: (M, N) int32.  M, N, K multiples of the
tile (this is a measurement, not a library path).
"""

import sys

import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import mbarrier, tma, warpgroup_mma, warpgroup_mma_wait

# (BM, BN, BK, stages, G, warps a consumer, ping-pong): each compiled, checked bit for bit, then timed.
CONFIGS = [
    (128, 256, 128, 4, 8, 8, False),
    (128, 256, 128, 3, 8, 8, False),
    (128, 256, 64, 6, 8, 8, False),
    (128, 128, 128, 6, 8, 4, False),
    (128, 128, 128, 6, 16, 4, True),
    (128, 128, 64, 10, 16, 4, True),
    (128, 128, 128, 6, 8, 4, True),
    (256, 128, 128, 4, 8, 8, False),
    (128, 256, 128, 4, 16, 8, False),
]


@gluon.constexpr_function
def _acc_layout(bm, bn, warps):
    # warps stacked along M (16 rows each, a warp group's 64 rows per wgmma); int8 wgmma's widest N form that
    # divides BN (224 and up are not all legal for 8-bit operands: 128).
    return gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[warps, 1], instr_shape=[16, 128, 32])


@gluon.jit
def _tile(t, n_m, n_n, GROUP: gl.constexpr):
    group = t // (GROUP * n_n)
    first = group * GROUP
    rows = gl.minimum(n_m - first, GROUP)
    return first + (t % (GROUP * n_n)) % rows, (t % (GROUP * n_n)) // rows


@gluon.jit
def _loader(a_desc, b_desc, a_bufs, b_bufs, ready, empty, M, N, K, GROUP: gl.constexpr, NUM: gl.constexpr):
    BM_: gl.constexpr = a_desc.block_type.shape[0]
    BN_: gl.constexpr = b_desc.block_type.shape[0]
    BK_: gl.constexpr = a_desc.block_type.shape[1]
    n_m = gl.cdiv(M, BM_)
    n_n = gl.cdiv(N, BN_)
    k_steps = gl.cdiv(K, BK_)
    i = 0
    for t in range(gl.program_id(0), n_m * n_n, gl.num_programs(0)):
        pm, pn = _tile(t, n_m, n_n, GROUP)
        for ks in range(k_steps):
            s = i % NUM
            # A stage is free once the consumer's arrival for its previous use has landed (the first lap is free).
            mbarrier.wait(empty.index(s), ((i // NUM) & 1) ^ 1, pred=i >= NUM)
            mbarrier.expect(ready.index(s), a_desc.block_type.nbytes + b_desc.block_type.nbytes)
            tma.async_copy_global_to_shared(a_desc, [pm * BM_, ks * BK_], ready.index(s), a_bufs.index(s))
            tma.async_copy_global_to_shared(b_desc, [pn * BN_, ks * BK_], ready.index(s), b_bufs.index(s))
            i += 1


@gluon.jit
def _consumer(
    a_bufs,
    b_bufs,
    ready,
    empty,
    turn,
    out_ptr,
    M,
    N,
    K,
    GROUP: gl.constexpr,
    NUM: gl.constexpr,
    BM_: gl.constexpr,
    BN_: gl.constexpr,
    BK_: gl.constexpr,
    WARPS_: gl.constexpr,
    FIRST: gl.constexpr,
    EVERY: gl.constexpr,
):
    # This consumer takes the program's tiles FIRST, FIRST + EVERY, ...: all of them (0, 1), or every other one (two
    # consumers, ping-pong: the loader fills the ring in tile order, so one consumer's K loop runs while the other
    # stores its tile).  A tile's stages follow from its place in the program's sequence.
    layout: gl.constexpr = _acc_layout(BM_, BN_, WARPS_)
    n_m = gl.cdiv(M, BM_)
    n_n = gl.cdiv(N, BN_)
    k_steps = gl.cdiv(K, BK_)
    rows = gl.arange(0, BM_, layout=gl.SliceLayout(1, layout))
    cols = gl.arange(0, BN_, layout=gl.SliceLayout(0, layout))
    step = gl.num_programs(0)
    j = 0
    for t in range(gl.program_id(0) + FIRST * step, n_m * n_n, EVERY * step):
        pm, pn = _tile(t, n_m, n_n, GROUP)
        i = (t - gl.program_id(0)) // step * k_steps
        if EVERY == 2:
            # Ping-pong takes turns over the ring: a consumer starts a tile's K loop only once the other has waited
            # on every stage of the tile before it.  Without the turn, a consumer a lap or more ahead would wait on
            # a ready barrier whose phase parity is that of an older lap, and pass at once.
            if FIRST == 0:
                mbarrier.wait(turn.index(1), (j + 1) & 1, pred=j > 0)
            else:
                mbarrier.wait(turn.index(0), j & 1)
        acc = gl.zeros((BM_, BN_), dtype=gl.int32, layout=layout)
        for ks in range(k_steps):
            s = i % NUM
            mbarrier.wait(ready.index(s), (i // NUM) & 1)
            acc = warpgroup_mma(a_bufs.index(s), b_bufs.index(s).permute((1, 0)), acc, is_async=True)
            # One MMA stays in flight; the one before it (this tile's) has read its stage, which goes back to the
            # loader.  The previous tile's last stage went back when that tile ended.
            acc = warpgroup_mma_wait(1, deps=(acc,))
            mbarrier.arrive(empty.index((i + NUM - 1) % NUM), pred=ks > 0)
            i += 1
        if EVERY == 2:
            mbarrier.arrive(turn.index(FIRST))
        acc = warpgroup_mma_wait(0, deps=(acc,))
        mbarrier.arrive(empty.index((i + NUM - 1) % NUM))
        j += 1
        r = pm * BM_ + rows
        c = pn * BN_ + cols
        offs = r[:, None].to(gl.int64) * N + c[None, :]
        gl.store(out_ptr + offs, acc, mask=(r[:, None] < M) & (c[None, :] < N))


@gluon.jit
def mm_ws(
    a_desc,
    b_desc,
    out_ptr,
    M,
    N,
    K,
    GROUP: gl.constexpr,
    NUM: gl.constexpr,
    PING: gl.constexpr,
    num_warps: gl.constexpr,
):
    BM_: gl.constexpr = a_desc.block_type.shape[0]
    BN_: gl.constexpr = b_desc.block_type.shape[0]
    BK_: gl.constexpr = a_desc.block_type.shape[1]
    a_bufs = gl.allocate_shared_memory(gl.int8, [NUM, BM_, BK_], a_desc.layout)
    b_bufs = gl.allocate_shared_memory(gl.int8, [NUM, BN_, BK_], b_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [NUM, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [NUM, 1], mbarrier.MBarrierLayout())
    turn = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    for s in gl.static_range(NUM):
        mbarrier.init(ready.index(s), count=1)
        mbarrier.init(empty.index(s), count=1)
    for s in gl.static_range(2):
        mbarrier.init(turn.index(s), count=1)
    if PING:  # two consumers of num_warps each, alternate tiles
        gl.warp_specialize(
            [
                (
                    _consumer,
                    (a_bufs, b_bufs, ready, empty, turn, out_ptr, M, N, K, GROUP, NUM, BM_, BN_, BK_, num_warps, 0, 2),
                ),
                (
                    _consumer,
                    (a_bufs, b_bufs, ready, empty, turn, out_ptr, M, N, K, GROUP, NUM, BM_, BN_, BK_, num_warps, 1, 2),
                ),
                (_loader, (a_desc, b_desc, a_bufs, b_bufs, ready, empty, M, N, K, GROUP, NUM)),
            ],
            [num_warps, 1],
            [232, 40],
        )
    else:
        gl.warp_specialize(
            [
                (
                    _consumer,
                    (a_bufs, b_bufs, ready, empty, turn, out_ptr, M, N, K, GROUP, NUM, BM_, BN_, BK_, num_warps, 0, 1),
                ),
                (_loader, (a_desc, b_desc, a_bufs, b_bufs, ready, empty, M, N, K, GROUP, NUM)),
            ],
            [1],
            [40],
        )


def layouts(bm, bn, bk):
    return (
        gl.NVMMASharedLayout.get_default_for([bm, bk], gl.int8),
        gl.NVMMASharedLayout.get_default_for([bn, bk], gl.int8),
    )


def compile_only():
    """Compile mm_ws for sm_90a without a GPU: the check that the Gluon is well formed, down to ptxas."""
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource

    for bm, bn, bk, stages, group, warps, ping in CONFIGS:
        la, lb = layouts(bm, bn, bk)
        sig = {
            "a_desc": f"tensordesc<i8[{bm}, {bk}],{la!r}>",
            "b_desc": f"tensordesc<i8[{bn}, {bk}],{lb!r}>",
            "out_ptr": "*i32",
            "M": "i32",
            "N": "i32",
            "K": "i32",
            "GROUP": "constexpr",
            "NUM": "constexpr",
            "PING": "constexpr",
            "num_warps": "constexpr",
        }
        consts = {"GROUP": group, "NUM": stages, "PING": ping, "num_warps": warps}
        src = GluonASTSource(mm_ws, sig, consts)
        k = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": warps})
        ptx = k.asm["ptx"]
        print(
            f"{bm}x{bn}x{bk} s{stages} G{group} w{warps}{' ping-pong' if ping else ''}: "
            f"shared {k.metadata.shared} bytes, "
            f"{ptx.count('wgmma.mma_async')} wgmma, {ptx.count('setmaxnreg')} setmaxnreg",
            flush=True,
        )


def run(which):
    import torch
    from triton.experimental.gluon.nvidia.hopper import TensorDescriptor

    n = 8192
    a = torch.randint(-128, 128, (n, n), dtype=torch.int8, device="cuda")
    bt = torch.randint(-128, 128, (n, n), dtype=torch.int8, device="cuda")
    ref = torch._int_mm(a, bt.t())
    bench = lambda f: triton.testing.do_bench(f, warmup=25, rep=200, return_mode="median") * 1e-3
    ops = 2 * n**3
    print(f"torch._int_mm (B col) {ops / bench(lambda: torch._int_mm(a, bt.t())) / 1e12:.0f} TOPS", flush=True)
    sms = torch.cuda.get_device_properties("cuda").multi_processor_count
    out = torch.empty((n, n), dtype=torch.int32, device="cuda")
    for bm, bn, bk, stages, group, warps, ping in [CONFIGS[i] for i in which]:
        la, lb = layouts(bm, bn, bk)
        da, db = TensorDescriptor.from_tensor(a, [bm, bk], la), TensorDescriptor.from_tensor(bt, [bn, bk], lb)
        grid = (min(sms, triton.cdiv(n, bm) * triton.cdiv(n, bn)),)
        go = lambda: mm_ws[grid](da, db, out, n, n, n, group, stages, ping, num_warps=warps)
        label = f"gluon mm_ws {bm}x{bn}x{bk} s{stages} G{group} w{warps}{' ping-pong' if ping else ''}"
        try:
            out.zero_()
            go()
            exact = torch.equal(out, ref)
            print(f"{label}: {ops / bench(go) / 1e12:.0f} TOPS, exact={exact}", flush=True)
        except Exception as exc:  # a configuration that does not fit or compile: say so and go on
            print(f"{label}: {type(exc).__name__} {str(exc)[:160]}", flush=True)


if __name__ == "__main__":
    # python scripts/gpu/gluon_mm.py 2 4: only those configurations (each in its own process guards against a hang)
    compile_only() if sys.argv[1:] == ["compile"] else run([int(i) for i in sys.argv[1:]] or range(len(CONFIGS)))
