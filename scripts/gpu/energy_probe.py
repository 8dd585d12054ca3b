# ruff: noqa: E731  (lambdas name the timed variants)
"""What the 8192^3 kernel's speed at the H200's power cap is made of: the Hopper kernel as gemm launches it
(gpu_gluon.mm_ws, wide tiles) beside probes that do the same tensor-core work on the same random data while
moving more or less of it from L2 into shared memory.  The probes' products are wrong by design (a stage reused
holds an older tile); only the kernel's is checked bit for bit.

    python scripts/gpu/energy_probe.py      # on the H200

MODE 0: the kernel (its loader as gpu_gluon._loader);
MODE 1: B's tile copied every other K step (after the first lap of the ring): half of B's traffic from L2, what
        a two-program cluster sharing each B tile by TMA multicast would save at most (multicast still writes the
        whole tile into each program's shared memory; this does not);
MODE 2: no copies after the first lap (the stages re-read as they are): the tensor cores', the barriers' and the
        epilogue's share alone, the rate no loading scheme can beat at this power;
MODE 3: every tile copied twice (twice the traffic): the other side of MODE 1's slope.

Each is timed as bench/gemm.py times (do_bench medians, L2 flushed, the modes alternating), then the SM clock and
the board's power sampled while it runs back to back (scripts/gpu/power.py).
"""

import torch
import triton
from power import compare
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import mbarrier, tma

from intdot.gemm import gpu_gluon
from intdot.gemm.gpu_gluon import _consumer, _tile, ring_of_stages, tile_stores

N = 8192
MODES = {0: "kernel", 1: "B copied every other step", 2: "no copies after the first lap", 3: "every tile copied twice"}


@gluon.jit
def _loader(
    a_desc, b_desc, a_bufs, b_bufs, ready, empty, M, N, K, GROUP: gl.constexpr, NUM: gl.constexpr, MODE: gl.constexpr
):
    BM: gl.constexpr = a_desc.block_type.shape[0]
    BN: gl.constexpr = b_desc.block_type.shape[0]
    BK: gl.constexpr = a_desc.block_type.shape[1]
    A_BYTES: gl.constexpr = a_desc.block_type.nbytes
    B_BYTES: gl.constexpr = b_desc.block_type.nbytes
    i = 0
    for t in range(gl.program_id(0), gl.cdiv(M, BM) * gl.cdiv(N, BN), gl.num_programs(0)):
        pm, pn = _tile(t, gl.cdiv(M, BM), gl.cdiv(N, BN), GROUP)
        for ks in range(gl.cdiv(K, BK)):
            s = i % NUM
            mbarrier.wait(empty.index(s), ((i // NUM) & 1) ^ 1, pred=i >= NUM)
            first = i < NUM
            if MODE == 3:
                mbarrier.expect(ready.index(s), 2 * (A_BYTES + B_BYTES))
                for _ in gl.static_range(2):
                    tma.async_copy_global_to_shared(a_desc, [pm * BM, ks * BK], ready.index(s), a_bufs.index(s))
                    tma.async_copy_global_to_shared(b_desc, [pn * BN, ks * BK], ready.index(s), b_bufs.index(s))
            elif MODE == 2:
                mbarrier.expect(ready.index(s), A_BYTES + B_BYTES, pred=first)
                tma.async_copy_global_to_shared(a_desc, [pm * BM, ks * BK], ready.index(s), a_bufs.index(s), first)
                tma.async_copy_global_to_shared(b_desc, [pn * BN, ks * BK], ready.index(s), b_bufs.index(s), first)
                mbarrier.arrive(ready.index(s), pred=i >= NUM)
            elif MODE == 1:
                with_b = first | (i % 2 == 0)
                mbarrier.expect(ready.index(s), A_BYTES + B_BYTES, pred=with_b)
                mbarrier.expect(ready.index(s), A_BYTES, pred=(i >= NUM) & (i % 2 == 1))
                tma.async_copy_global_to_shared(a_desc, [pm * BM, ks * BK], ready.index(s), a_bufs.index(s))
                tma.async_copy_global_to_shared(b_desc, [pn * BN, ks * BK], ready.index(s), b_bufs.index(s), with_b)
            else:
                mbarrier.expect(ready.index(s), A_BYTES + B_BYTES)
                tma.async_copy_global_to_shared(a_desc, [pm * BM, ks * BK], ready.index(s), a_bufs.index(s))
                tma.async_copy_global_to_shared(b_desc, [pn * BN, ks * BK], ready.index(s), b_bufs.index(s))
            i += 1


@gluon.jit
def mm_probe(
    a_desc,
    b_desc,
    out_ptr,
    M,
    N,
    K,
    GROUP: gl.constexpr,
    NUM: gl.constexpr,
    MODE: gl.constexpr,
    out_desc=None,
    EPI_BUFS: gl.constexpr = 0,
):
    """gpu_gluon.mm_ws's wide configuration (two consumers, one a row half of every tile) with the loader above;
    out_desc and EPI_BUFS as mm_ws's (its tiles stored by TMA)."""
    ring = ring_of_stages(a_desc, b_desc, NUM, 2, 1)  # two consumers on row halves, as gemm's wide tiles
    a_bufs, b_bufs, ready, empty, _ = ring
    operands = (out_ptr, out_ptr, out_ptr, out_ptr, M, N, K, 0, 0, 0, 1)
    epi = tile_stores(out_desc, EPI_BUFS, a_desc, a_bufs)
    gl.warp_specialize(
        [
            (_consumer, (ring, operands, False, False, GROUP, NUM, 0, 1, 0, 1, epi, EPI_BUFS)),
            (_consumer, (ring, operands, False, False, GROUP, NUM, 0, 1, 1, 1, epi, EPI_BUFS)),
            (_loader, (a_desc, b_desc, a_bufs, b_bufs, ready, empty, M, N, K, GROUP, NUM, MODE)),
        ],
        [gl.num_warps(), 1],
        [232, 40],
    )


def main():
    cfg = gpu_gluon.WIDE
    bm, bn, bk = cfg["BM"], cfg["BN"], cfg["BK"]
    a = torch.randint(-128, 128, (N, N), dtype=torch.int8, device="cuda")
    bt = torch.randint(-128, 128, (N, N), dtype=torch.int8, device="cuda")
    out = torch.empty((N, N), dtype=torch.int32, device="cuda")
    da, db = gpu_gluon.descriptor(a, [bm, bk]), gpu_gluon.descriptor(bt, [bn, bk])
    sms = torch.cuda.get_device_properties("cuda").multi_processor_count
    grid = (min(sms, triton.cdiv(N, bm) * triton.cdiv(N, bn)),)
    flags = dict(GROUP=cfg["GROUP"], NUM=cfg["NUM"], num_warps=cfg["num_warps"])
    runs = {m: (lambda m=m: mm_probe[grid](da, db, out, N, N, N, **flags, MODE=m)) for m in MODES}
    ref = torch._int_mm(a, bt.t())
    for m, go in runs.items():
        out.zero_()
        go()
        torch.cuda.synchronize()
        if m in (0, 3):
            assert torch.equal(out, ref), f"MODE {m} not exact"
    compare({f"{m} {MODES[m]}": go for m, go in runs.items()}, 2 * N**3, "MODE ")


if __name__ == "__main__":
    main()
