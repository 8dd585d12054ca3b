# ruff: noqa: B023, E731  (closures run inside their loop iteration; lambdas name the variants)
"""How close the int8 tensor-core kernel at 8192^3 comes to the H200's peak, and what NVIDIA's own library reaches.

    python scripts/gpu/peak.py [PART ...]

PARTS: ceilings, tiles, store, near, shapes, layouts (default: the first three).

Every variant is checked bit for bit against torch._int_mm first, then timed.

Ceilings: cuBLAS at FP8 (torch._scaled_mm, the same tensor-core rate as int8 on Hopper: 1,979 dense TOPS) and
cuBLASLt int8 (torch._int_mm) on its best layout.  Variants: intdot's TMA kernel over tile shapes, including
tiles small enough for two programs per multiprocessor (one's epilogue overlapping the other's K loop), thread
block clusters (num_ctas=2), a register cap, and an epilogue stored through the copy engine (TMA store).
The SM clock and power are sampled while it runs (nvidia-smi), since a power-capped clock caps every figure.
"""

import subprocess
import sys

import torch
import triton
import triton.language as tl

from intdot.gemm import gpu as g
from intdot.gemm.gpu_kernels import tile

dev = "cuda"
n = 8192
ops = 2 * n**3


def bench(fn, rep=200):
    return triton.testing.do_bench(fn, warmup=25, rep=rep, return_mode="median") * 1e-3


@triton.jit
def mm_tma_store(
    a_desc,
    b_desc,
    o_desc,
    M,
    N,
    K,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
    G: tl.constexpr,
    SUB: tl.constexpr,
):
    pm, pn = tile(M, N, BM, BN, G)
    acc = tl.zeros((BM, BN), dtype=tl.int32)
    for k0 in range(0, K, BK):
        acc = tl.dot(a_desc.load([pm * BM, k0]), b_desc.load([pn * BN, k0]).T, acc, out_dtype=tl.int32)
    if SUB == 1:
        o_desc.store([pm * BM, pn * BN], acc)
    else:
        halves = tl.split(tl.permute(tl.reshape(acc, (BM, 2, BN // 2)), (0, 2, 1)))
        o_desc.store([pm * BM, pn * BN], halves[0])
        o_desc.store([pm * BM, pn * BN + BN // 2], halves[1])


def ceilings(a, bt, ref):
    t = bench(lambda: torch._int_mm(a, bt.t()))
    print(f"ceiling: torch._int_mm B col (cuBLASLt int8)  {ops / t / 1e12:5.0f} TOPS", flush=True)
    try:
        fa, fb = a.to(torch.float8_e4m3fn), bt.to(torch.float8_e4m3fn)
        one = torch.ones((), device=dev)
        t = bench(lambda: torch._scaled_mm(fa, fb.t(), one, one, out_dtype=torch.bfloat16))
        print(f"ceiling: torch._scaled_mm FP8 e4m3 (cuBLAS)   {ops / t / 1e12:5.0f} TOPS (int8's peak)", flush=True)
    except Exception as exc:  # an older torch or GPU
        print(f"ceiling: FP8 not run: {type(exc).__name__} {str(exc)[:100]}")
    ha, hb = a.to(torch.bfloat16), bt.to(torch.bfloat16)
    t = bench(lambda: ha @ hb.t())
    print(f"ceiling: bf16 a @ b (cuBLAS)                 {ops / t / 1e12:5.0f} TFLOPS (peak 989)", flush=True)


def _report(label, run, out, ref):
    try:
        out.zero_()
        run()
        ok = torch.equal(out, ref)
        t = bench(run)
        print(f"{label:42} {ops / t / 1e12:5.0f} TOPS exact={ok}", flush=True)
    except Exception as exc:
        print(f"{label:42} {type(exc).__name__} {str(exc)[:150]}", flush=True)


# (BM, BN, BK, stages, warps, G, extra launch options)
TILES = [
    (128, 256, 128, 4, 8, 8, {}),  # the kernel gemm ran until this sweep
    (128, 256, 128, 3, 8, 8, {}),
    (128, 256, 64, 6, 8, 8, {}),
    (256, 128, 128, 4, 8, 8, {}),
    (128, 256, 128, 4, 8, 8, {"num_ctas": 2}),
    (128, 256, 128, 4, 8, 8, {"maxnreg": 232}),
    (128, 128, 128, 3, 4, 8, {}),  # 96 KB of stages: two programs per multiprocessor
    (128, 128, 64, 6, 4, 8, {}),
    (128, 128, 128, 2, 4, 8, {}),
    (128, 128, 128, 3, 4, 16, {}),
    (128, 128, 128, 3, 8, 8, {}),
    (64, 256, 128, 3, 4, 8, {}),
    (128, 256, 128, 4, 8, 16, {}),
]
# Around the best of TILES (128x128x128, three stages, one warp group: two programs per multiprocessor).
NEAR = [
    (128, 128, 128, 3, 4, 16, {}),
    (128, 128, 128, 3, 4, 32, {}),
    (128, 128, 128, 3, 4, 4, {}),
    (128, 128, 128, 3, 4, 64, {}),
    (128, 128, 128, 4, 4, 16, {}),
    (128, 128, 64, 5, 4, 16, {}),
    (128, 128, 128, 3, 4, 16, {"maxnreg": 168}),
    (128, 128, 128, 3, 4, 16, {"num_ctas": 2}),
    (128, 128, 256, 1, 4, 16, {}),
]


# The TMA kernels' plain product: no c, no centring (the output stands in for the unused pointers), neg off.
FLAGS = dict(HAS_C=False, CENTRED=False)


def _plain(out, m, nn, kk):
    """The TMA kernels' arguments after the two descriptors, for out = a @ b of shape (m, nn) over K = kk."""
    return (out, out, out, out, m, nn, kk, 0, 0, 0, 1)


def tma(a, bt, ref, out, tiles):
    k = g._triton()
    desc = k["TensorDescriptor"]
    args = _plain(out, n, n, n)
    for bm, bn, bk, st, w, gr, extra in tiles:
        da, db = desc.from_tensor(a, [bm, bk]), desc.from_tensor(bt, [bn, bk])
        grid = (triton.cdiv(n, bm) * triton.cdiv(n, bn),)
        run = lambda: k["mm_tma_raw"][grid](
            da, db, *args, **FLAGS, BM=bm, BN=bn, BK=bk, G=gr, num_stages=st, num_warps=w, **extra
        )
        _report(f"tma {bm}x{bn}x{bk} s{st} w{w} G{gr} {extra or ''}", run, out, ref)


def persist(a, bt, ref, out):
    """The persistent kernel with two programs per multiprocessor, for the tiles that fit two."""
    k = g._triton()
    desc = k["TensorDescriptor"]
    args = _plain(out, n, n, n)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    for bm, bn, bk, st, w, gr, per in ((128, 128, 128, 3, 4, 16, 2), (128, 128, 128, 3, 4, 8, 2)):
        da, db = desc.from_tensor(a, [bm, bk]), desc.from_tensor(bt, [bn, bk])
        run = lambda: k["mm_persist_raw"][(per * sms,)](
            da, db, *args, **FLAGS, BM=bm, BN=bn, BK=bk, G=gr, num_stages=st, num_warps=w, NUM_SMS=per * sms
        )
        _report(f"persist {bm}x{bn}x{bk} s{st} w{w} G{gr} x{per}/SM", run, out, ref)


def store(a, bt, ref, out):
    desc = g._triton()["TensorDescriptor"]
    for bm, bn, bk, st, w, gr, sub in (
        (128, 256, 128, 4, 8, 8, 2),
        (128, 256, 128, 3, 8, 8, 2),
        (128, 128, 128, 3, 4, 8, 1),
        (128, 256, 64, 5, 8, 8, 2),
    ):
        da, db = desc.from_tensor(a, [bm, bk]), desc.from_tensor(bt, [bn, bk])
        do = desc.from_tensor(out, [bm, bn // sub])
        grid = (triton.cdiv(n, bm) * triton.cdiv(n, bn),)
        run = lambda: mm_tma_store[grid](
            da, db, do, n, n, n, BM=bm, BN=bn, BK=bk, G=gr, SUB=sub, num_stages=st, num_warps=w
        )
        _report(f"tma+store {bm}x{bn}x{bk} s{st} w{w} G{gr} sub{sub}", run, out, ref)


def shapes():
    """The two best configurations of TILES on other shapes: squares and the tall-skinny ones of prefill."""
    k = g._triton()
    desc = k["TensorDescriptor"]
    for m, nn, kk in (
        (2048, 2048, 2048),
        (4096, 4096, 4096),
        (16384, 16384, 16384),
        (128, 4096, 4096),
        (256, 8192, 8192),
        (1024, 4096, 4096),
        (4096, 14336, 4096),
        (8192, 4096, 14336),
    ):
        a = torch.randint(-128, 128, (m, kk), dtype=torch.int8, device=dev)
        bt = torch.randint(-128, 128, (nn, kk), dtype=torch.int8, device=dev)
        ref = torch._int_mm(a, bt.t())
        out = torch.empty((m, nn), dtype=torch.int32, device=dev)
        t_ref = bench(lambda: torch._int_mm(a, bt.t()))
        line = f"{m}x{nn}x{kk}: torch {2 * m * nn * kk / t_ref / 1e12:.0f} TOPS;"
        for bm, bn, bk, st, w, gr in ((128, 256, 128, 4, 8, 8), (128, 128, 128, 3, 4, 16)):
            da, db = desc.from_tensor(a, [bm, bk]), desc.from_tensor(bt, [bn, bk])
            grid = (triton.cdiv(m, bm) * triton.cdiv(nn, bn),)
            args = _plain(out, m, nn, kk)
            run = lambda: k["mm_tma_raw"][grid](
                da, db, *args, **FLAGS, BM=bm, BN=bn, BK=bk, G=gr, num_stages=st, num_warps=w
            )
            out.zero_()
            run()
            t = bench(run)
            line += (
                f" {bm}x{bn} w{w}: {2 * m * nn * kk / t / 1e12:.0f} ({t_ref / t:.2f}x, exact={torch.equal(out, ref)})"
            )
        print(line, flush=True)


def layouts():
    """Where each layout's time goes at 8192^3: the CUDA kernels of one gemm call and their times (profiler)."""
    from torch.profiler import ProfilerActivity, profile

    from intdot.gemm import gemm

    a = torch.randint(-128, 128, (n, n), dtype=torch.int8, device=dev)
    b = torch.randint(-128, 128, (n, n), dtype=torch.int8, device=dev)
    ua = torch.randint(0, 256, (n, n), dtype=torch.uint8, device=dev)
    col = lambda x: x.t().contiguous().t()
    for what, x, y, op in (
        ("A row B col", a, col(b), "sdot4"),
        ("A col B row", col(a), b, "sdot4"),
        ("A col B col", col(a), col(b), "sdot4"),
        ("uint8 A row, uint8 B row", ua, ua, "udot4"),
    ):
        t = bench(lambda: gemm(x, y, op=op))
        for _ in range(3):
            gemm(x, y, op=op)
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(5):
                gemm(x, y, op=op)
            torch.cuda.synchronize()
        kernels = [
            f"{e.key[:40]} {e.device_time_total / e.count:.0f} us x{e.count // 5}"
            for e in prof.key_averages()
            if e.device_time_total > 0
        ]
        print(f"{what}: {t * 1e6:.0f} us ({ops / t / 1e12:.0f} TOPS): " + "; ".join(kernels), flush=True)


def main(parts):
    smi = subprocess.Popen(
        [
            "nvidia-smi",
            "--query-gpu=clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu",
            "--format=csv",
            "-lms",
            "500",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    a = torch.randint(-128, 128, (n, n), dtype=torch.int8, device=dev)
    bt = torch.randint(-128, 128, (n, n), dtype=torch.int8, device=dev)
    ref = torch._int_mm(a, bt.t())
    out = torch.empty((n, n), dtype=torch.int32, device=dev)
    for part in parts:
        if part == "ceilings":
            ceilings(a, bt, ref)
        elif part == "tiles":
            tma(a, bt, ref, out, TILES)
        elif part == "layouts":
            layouts()
        elif part == "shapes":
            shapes()
        elif part == "near":
            tma(a, bt, ref, out, NEAR)
            persist(a, bt, ref, out)
        else:
            store(a, bt, ref, out)
    smi.terminate()
    rows = [r.split(", ") for r in smi.stdout.read().splitlines()[1:] if r]
    busy = [r for r in rows if float(r[2].split()[0]) > 300]
    if busy:
        clocks = sorted(int(r[0].split()[0]) for r in busy)
        power = sorted(float(r[2].split()[0]) for r in busy)
        mid = clocks[len(clocks) // 2]
        print(
            f"under load ({len(busy)} samples): SM clock {clocks[0]}-{clocks[-1]} MHz (median {mid}, max {busy[0][1]}),"
            f" power {power[len(power) // 2]:.0f} W of {busy[0][3]}, {busy[-1][4]} C"
        )


if __name__ == "__main__":
    main(sys.argv[1:] or ["ceilings", "tiles", "store"])
