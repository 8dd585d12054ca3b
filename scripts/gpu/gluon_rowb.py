# ruff: noqa: B023, E731  (closures run inside their loop iteration; lambdas name the timed variants)
"""Decode shapes with B row-major (M = 1..64, N = K = 4096 and 16384): an experiment in Gluon for issue 12.

    timeout 120 python scripts/gpu/gluon_rowb.py quick   # on the H200 first: two shapes, one configuration
    python scripts/gpu/gluon_rowb.py            # on the H200: each configuration exact against torch, then timed
    python scripts/gpu/gluon_rowb.py compile    # anywhere with Triton: compile for sm_90a, show the transpose's code

int8 tensor-core operands must be K-contiguous, and a row-major B (K, N) is N-contiguous.  gemm's split-K kernel
(gpu_split.py) leaves the re-layout to Triton, and runs at 0.54-0.88x torch's best at M >= 32: M = 64 takes 1.73x
the time of M = 32 at N = K = 16384 (sweep.py row_cost), though reading B once for both 32-row tiles was no faster,
so the re-layout itself is the cost.  Here it is explicit and done once per B tile for all M rows:

- the tensor-copy engine (TMA) streams B tiles (BK x BN, as they lie) and A tiles (MP x BK) through a ring of NUM
  shared-memory stages, NUM tiles ahead;
- each B tile is read into registers in 4 x 4 byte blocks, transposed in registers (a relabelling: ``permute``)
  and stored K-contiguous into one of two staging tiles (the byte packing is the compiler's: ``compile`` shows
  what the stores became);
- one warp group computes out.T (BN x MP) += B.T @ A.T with asynchronous warpgroup MMAs (B.T the wide side, the M
  rows padded to MP, a multiple of 8), one left in flight;
- K is split over SPLIT programs a column of tiles, which add into a zeroed output (int32 addition wraps, so the
  order changes no bit).

B's bytes cross HBM once; at N = K = 16384 that is 256 MB, about 55 us at the H200's 4.8 TB/s, against 77-84 us for
torch._int_mm with B column-major.
"""

import collections
import itertools
import re
import sys

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

# (BN, BK, NUM stages, programs a multiprocessor to aim the split at)
CONFIGS = [(128, 128, 4, 1), (128, 128, 3, 2), (64, 128, 4, 2), (128, 64, 6, 2), (64, 64, 8, 3)]
MS = (1, 16, 32, 48, 64)


@gluon.constexpr_function
def _acc_layout(mp):
    return gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, mp, 32])


@gluon.constexpr_function
def _b_regs(bk, bn):
    # A thread holds 4 K rows x 4 adjacent N bytes: after the relabelling, 4 adjacent K bytes for each of 4 columns,
    # one 32-bit word each in the K-contiguous staging tile.
    return gl.BlockedLayout(
        size_per_thread=[4, 4], threads_per_warp=[1, 32] if bn >= 128 else [2, 16], warps_per_cta=[4, 1], order=[1, 0]
    )


@gluon.jit
def _issue(a_desc, b_desc, a_bufs, b_bufs, ready, step, k0, pn, NUM: gl.constexpr, B_COL: gl.constexpr):
    BK: gl.constexpr = a_desc.block_type.shape[1]
    s = step % NUM
    mbarrier.expect(ready.index(s), a_desc.block_type.nbytes + b_desc.block_type.nbytes)
    tma.async_copy_global_to_shared(a_desc, [0, k0 + step * BK], ready.index(s), a_bufs.index(s))
    if B_COL:  # b_desc over B.T (N, K): its tiles are already K-contiguous
        BN: gl.constexpr = b_desc.block_type.shape[0]
        tma.async_copy_global_to_shared(b_desc, [pn * BN, k0 + step * BK], ready.index(s), b_bufs.index(s))
    else:
        BN: gl.constexpr = b_desc.block_type.shape[1]
        tma.async_copy_global_to_shared(b_desc, [k0 + step * BK, pn * BN], ready.index(s), b_bufs.index(s))


@gluon.jit
def mm_rowb(a_desc, b_desc, out_ptr, M, N, K, chunk, NUM: gl.constexpr, B_COL: gl.constexpr):
    """out (M, N) int32, zeroed, += a (M, K) @ b (K, N), b row-major (b_desc over b, tiles BK x BN) or, with B_COL,
    column-major (b_desc over b.T, tiles BN x BK: no transposition); program (pn, pk) the columns of tile pn and K
    from pk * chunk (chunk a multiple of BK)."""
    MP: gl.constexpr = a_desc.block_type.shape[0]
    BK: gl.constexpr = a_desc.block_type.shape[1]
    BN: gl.constexpr = b_desc.block_type.shape[0] if B_COL else b_desc.block_type.shape[1]
    gl.static_assert(NUM >= 2, "a stage is refilled only once the MMA after the one that read it has retired")
    pn = gl.program_id(0)
    k0 = gl.program_id(1) * chunk
    steps = gl.cdiv(gl.minimum(K - k0, chunk), BK)
    a_bufs = gl.allocate_shared_memory(gl.int8, [NUM, MP, BK], a_desc.layout)
    b_bufs = gl.allocate_shared_memory(gl.int8, [NUM] + b_desc.block_type.shape, b_desc.layout)
    t_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BN, BK], gl.int8)
    t_bufs = gl.allocate_shared_memory(gl.int8, [1 if B_COL else 2, BN, BK], t_layout)
    ready = gl.allocate_shared_memory(gl.int64, [NUM, 1], mbarrier.MBarrierLayout())
    for i in gl.static_range(NUM):
        mbarrier.init(ready.index(i), count=1)
    for p in gl.static_range(NUM):
        if p < steps:
            _issue(a_desc, b_desc, a_bufs, b_bufs, ready, p, k0, pn, NUM, B_COL)
    acc = gl.zeros((BN, MP), dtype=gl.int32, layout=_acc_layout(MP))
    for ks in range(steps):
        st = ks % NUM
        mbarrier.wait(ready.index(st), (ks // NUM) & 1)
        if B_COL:
            t = b_bufs.index(st)
        else:
            b = b_bufs.index(st).load(_b_regs(BK, BN))
            t = t_bufs.index(ks % 2)
            # The MMA that last read this staging tile (step ks - 2) has retired: at most one is left in flight.
            t.store(gl.permute(b, [1, 0]))
            fence_async_shared()
            gl.thread_barrier()
        acc = warpgroup_mma(t, a_bufs.index(st).permute((1, 0)), acc, is_async=True)
        acc = warpgroup_mma_wait(1, deps=(acc,))
        # Step ks - 1's MMA has retired, and its B tile was read before the barrier: its stage takes step ks - 1 + NUM.
        if ks >= 1:
            if ks - 1 + NUM < steps:
                _issue(a_desc, b_desc, a_bufs, b_bufs, ready, ks - 1 + NUM, k0, pn, NUM, B_COL)
    acc = warpgroup_mma_wait(0, deps=(acc,))
    layout: gl.constexpr = _acc_layout(MP)
    n = pn * BN + gl.arange(0, BN, layout=gl.SliceLayout(1, layout))
    m = gl.arange(0, MP, layout=gl.SliceLayout(0, layout))
    offs = m[None, :] * N + n[:, None]
    gl.atomic_add(out_ptr + offs, acc, mask=(m[None, :] < M) & (n[:, None] < N), sem="relaxed")


def _mp(m):
    # The rows padded for the MMA's N side: a power of two (Triton's shapes), at least 8 (wgmma's narrowest).
    return max(8, triton.next_power_of_2(m))


def _blocks(mp, bn, bk, b_col):
    """The descriptors' block shapes and shared layouts: A's, then B's (over B.T where B is column-major)."""
    block_b = [bn, bk] if b_col else [bk, bn]
    return [(block, gl.NVMMASharedLayout.get_default_for(block, gl.int8)) for block in ([mp, bk], block_b)]


def _descriptors(a, b, bn, bk, b_col):
    from triton.experimental.gluon.nvidia.hopper import TensorDescriptor

    (block_a, la), (block_b, lb) = _blocks(_mp(a.shape[0]), bn, bk, b_col)
    b = b.t() if b_col else b
    return TensorDescriptor.from_tensor(a, block_a, la), TensorDescriptor.from_tensor(b, block_b, lb)


def compile_only():
    """Compile for sm_90a without a GPU, and show how the transposing stores came out."""
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource

    for (bn, bk, stages, _), mp, b_col in itertools.product(CONFIGS, sorted({_mp(m) for m in MS}), (False, True)):
        (block_a, la), (block_b, lb) = _blocks(mp, bn, bk, b_col)
        sig = {
            "a_desc": f"tensordesc<i8[{block_a[0]}, {block_a[1]}],{la!r}>",
            "b_desc": f"tensordesc<i8[{block_b[0]}, {block_b[1]}],{lb!r}>",
            "out_ptr": "*i32",
            "M": "i32",
            "N": "i32",
            "K": "i32",
            "chunk": "i32",
            "NUM": "constexpr",
            "B_COL": "constexpr",
        }
        src = GluonASTSource(mm_rowb, sig, {"NUM": stages, "B_COL": b_col})
        k = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})
        ptx = k.asm["ptx"]
        # The transposition's shared-memory traffic: how it reads B (ldmatrix, ld.shared) and stores it K-contiguous.
        ops = collections.Counter(re.findall(r"\b((?:ldmatrix|ld\.shared|st\.shared)[.\w]*)", ptx))
        print(
            f"BN {bn} BK {bk} NUM {stages} MP {mp} B {'col' if b_col else 'row'}: shared {k.metadata.shared} B, "
            f"{ptx.count('wgmma.mma_async')} wgmma, {ptx.count('prmt')} prmt, {dict(ops)}",
            flush=True,
        )


def _time(x, w, b_col, ref, t_torch, bench, sms):
    """Each configuration on x @ w: exact against ref, then its ratio to torch's best time."""
    import torch

    m, nk = x.shape
    line = ""
    for bn, bk, stages, per_sm in CONFIGS:
        tiles = triton.cdiv(nk, bn)
        split = max(1, min(nk // bk, per_sm * sms // tiles))
        chunk = triton.cdiv(triton.cdiv(nk, split), bk) * bk
        grid = (tiles, triton.cdiv(nk, chunk))

        def go():
            out = torch.zeros((m, nk), dtype=torch.int32, device="cuda")  # inside the timing: the sum meets in it
            mm_rowb[grid](da, db, out, m, nk, nk, chunk, stages, b_col, num_warps=4)
            return out

        try:
            da, db = _descriptors(x, w, bn, bk, b_col)
            exact = torch.equal(go(), ref)
            line += f" {bn}x{bk} s{stages} split {grid[1]}: {t_torch / bench(go):.2f}x exact={exact};"
        except Exception as exc:  # a configuration that does not fit: say so and go on
            line += f" {bn}x{bk} s{stages}: {type(exc).__name__} {str(exc)[:100]};"
    return line


def run():
    import torch

    from intdot.gemm import gemm

    bench = lambda f: triton.testing.do_bench(f, warmup=10, rep=100, return_mode="median") * 1e-3
    sms = torch.cuda.get_device_properties("cuda").multi_processor_count
    pad = torch.nn.functional.pad
    for nk in (4096, 16384):
        w = torch.randint(-128, 128, (nk, nk), dtype=torch.int8, device="cuda")  # row-major
        wcol = w.t().contiguous().t()
        for lay, m in itertools.product(("row", "col"), MS):
            x = torch.randint(-128, 128, (m, nk), dtype=torch.int8, device="cuda")
            # torch's best: B column-major; below 17 rows it refuses, so A padded to 17 (the padding timed too)
            best = (
                (lambda: torch._int_mm(x, wcol)) if m > 16 else (lambda: torch._int_mm(pad(x, (0, 0, 0, 17 - m)), wcol))
            )
            ref, t_torch = best()[:m], bench(best)
            wl = wcol if lay == "col" else w
            t_gemm = bench(lambda: gemm(x, wl, op="sdot4"))
            line = f"M={m} N=K={nk} B {lay}: torch best {t_torch * 1e6:.1f} us, gemm {t_torch / t_gemm:.2f}x;"
            print(line + _time(x, wl, lay == "col", ref, t_torch, bench, sms), flush=True)


if __name__ == "__main__":
    # "quick": one shape a layout, the first configuration only (under `timeout` first: a fault or a hang ends a run)
    if sys.argv[1:] == ["quick"]:
        MS, CONFIGS[1:] = (1, 48), []
    compile_only() if sys.argv[1:] == ["compile"] else run()
