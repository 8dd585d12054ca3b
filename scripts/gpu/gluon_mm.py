# ruff: noqa: B023, E731  (closures run inside their loop iteration; lambdas name the timed variants)
"""Configurations of the Hopper kernel (intdot.gemm.gpu_gluon.mm_ws), each checked bit for bit, then timed at 8192^3.

    python scripts/gpu/gluon_mm.py [i ...]    # on the H200: the configurations numbered i (all without any)
    python scripts/gpu/gluon_mm.py c [i ...]  # the same with c added in the epilogue

Each configuration can be run in a process of its own (a kernel that hangs or faults takes its process with it).
gpu.py launches two of them (gpu_gluon.PING and WIDE); the measurements behind that choice are in
scripts/gpu/h200-results.txt.
"""

import sys

import torch
import triton

from intdot.gemm import gpu_gluon, gpu_ptx

# (BM, BN, BK, stages, GROUP, warps a consumer, ping-pong): two consumers, on alternate tiles (ping-pong) or on
# the two row halves of every tile.
CONFIGS = [
    (128, 256, 128, 4, 16, 4, False),
    (128, 256, 128, 3, 16, 4, False),
    (128, 256, 128, 4, 8, 4, False),
    (128, 256, 64, 8, 16, 4, False),
    (128, 128, 128, 6, 16, 4, True),
    (128, 128, 64, 10, 16, 4, True),
    (128, 128, 128, 6, 8, 4, True),
    (128, 128, 128, 6, 16, 4, False),
    (256, 128, 128, 4, 8, 8, False),
]


def run(which, with_c=False):
    n = 8192
    a = torch.randint(-128, 128, (n, n), dtype=torch.int8, device="cuda")
    bt = torch.randint(-128, 128, (n, n), dtype=torch.int8, device="cuda")
    ref = torch._int_mm(a, bt.t())
    bench = lambda f: triton.testing.do_bench(f, warmup=25, rep=200, return_mode="median") * 1e-3
    ops = 2 * n**3
    print(f"torch._int_mm (B col) {ops / bench(lambda: torch._int_mm(a, bt.t())) / 1e12:.0f} TOPS", flush=True)
    sms = torch.cuda.get_device_properties("cuda").multi_processor_count
    out = torch.empty((n, n), dtype=torch.int32, device="cuda")
    # With c: the epilogue that reads c (its cost against the same kernel without; ptxas reports register spills there)
    c = torch.randint(-(2**31), 2**31 - 1, (n, n), dtype=torch.int32, device="cuda") if with_c else out
    ref = ref + c if with_c else ref
    for bm, bn, bk, stages, group, warps, ping in [CONFIGS[i] for i in which]:
        da, db = gpu_gluon.descriptor(a, [bm, bk]), gpu_gluon.descriptor(bt, [bn, bk])
        grid = (min(sms, triton.cdiv(n, bm) * triton.cdiv(n, bn)),)
        # c, out, the centring's sums (unused), M, N, K, za, zb, zz, sign
        args = (c, out, out, out, n, n, n, 0, 0, 0, 1)
        flags = dict(HAS_C=with_c, CENTRED=False, GROUP=group, NUM=stages, PING=ping, CLUSTER=1, PTX=gpu_ptx.TAG)
        go = lambda: gpu_gluon.mm_ws[grid](da, db, *args, **flags, num_warps=warps)
        label = f"gluon mm_ws {bm}x{bn}x{bk} s{stages} G{group} w{warps}{' ping-pong' if ping else ' halves'}"
        label += " with c" if with_c else ""
        try:
            out.zero_()
            go()
            exact = torch.equal(out, ref)
            print(f"{label}: {ops / bench(go) / 1e12:.0f} TOPS, exact={exact}", flush=True)
        except Exception as exc:  # a configuration that does not fit or compile: say so and go on
            print(f"{label}: {type(exc).__name__} {str(exc)[:160]}", flush=True)


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "c"]
    run([int(i) for i in args] or range(len(CONFIGS)), with_c="c" in sys.argv[1:])
