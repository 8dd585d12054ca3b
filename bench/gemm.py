"""intdot.gemm speed, as ratios against baselines measured in the same run.

    python bench/gemm.py            # CPU parts (n=4096 wrap, clamp chain, INT4 unpacking), GPU if present
    python bench/gemm.py --quick    # smaller shapes
    python bench/gemm.py --gpu-only # the 8192^3 GPU comparison (scripts/gpu/run.sh)
    python bench/gemm.py --decode   # the GPU's decode shapes alone

Every line gives a rate and the ratio to its baseline; thresholds from issue 7 are printed beside them.
"""

from __future__ import annotations

import argparse
import os
import time
from functools import partial

import numpy as np
from timing import alternated, host_us, interleaved, kernels_us, sustained

import intdot
from intdot.gemm import gemm, installed


def best(fn, repeat=3):
    fn()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def header():
    blas = "unknown"
    try:
        cfg = np.__config__.CONFIG["Build Dependencies"]["blas"]
        blas = f"{cfg.get('name')} {cfg.get('version', '')}".strip()
    except Exception:
        pass
    threads = {"cpus": os.cpu_count()}
    try:
        import threadpoolctl

        threads["blas"] = [p["num_threads"] for p in threadpoolctl.threadpool_info()]
    except ImportError:
        pass
    try:
        import torch

        threads["torch"] = torch.get_num_threads()
    except ImportError:
        pass
    try:
        import numba

        threads["numba"] = numba.get_num_threads()
    except ImportError:
        pass
    print(f"numpy {np.__version__}, BLAS {blas}, threads {threads}, backends {installed()}")


def line(what, seconds, ops, base_what, base_seconds, goal=None):
    ratio = base_seconds / seconds
    g = f"  (goal >= {goal}x)" if goal else ""
    print(f"{what:<44} {ops / seconds / 1e9:9.1f} GOPS   {ratio:7.2f}x {base_what}{g}")


def cpu_wrap(n):
    rng = np.random.default_rng(0)
    a = rng.integers(-128, 128, (n, n), dtype=np.int8)
    b = rng.integers(-128, 128, (n, n), dtype=np.int8)
    ops = 2 * n**3
    t_auto = best(lambda: gemm(a, b, op="sdot4", backend="auto"))
    t_f64 = best(lambda: a.astype(np.float64) @ b.astype(np.float64), 2)
    print(f"-- CPU int8 wrap, n={n} (auto picks {_auto_name(a, b)})")
    if installed()["torch"]:
        import torch

        from intdot.gemm import cpu

        # Without VNNI or AMX torch._int_mm is about 100 times slower than float BLAS (22 s at 2048^3 on one
        # AVX2 core): compared at a size it finishes in a second there.
        x, y = (a, b) if cpu.torch_fast() else (a[:512, :512].copy(), b[:512, :512].copy())
        ta, tb = torch.from_numpy(x), torch.from_numpy(y)
        t_x, t_torch = interleaved(lambda: gemm(x, y, op="sdot4", backend="auto"), lambda: torch._int_mm(ta, tb))
        what = "" if x is a else f" (no VNNI/AMX here: n={len(x)})"
        line(f"gemm(op='sdot4') auto vs torch._int_mm{what}", t_x, 2 * len(x) ** 3, "torch._int_mm", t_torch, 0.9)
    line("gemm(op='sdot4') auto vs float64 BLAS", t_auto, ops, "float64 @", t_f64)
    ua = rng.integers(0, 256, (n, n), dtype=np.uint8)
    t_us = best(lambda: gemm(ua, b, op="usdot"))
    line("gemm(op='usdot') uint8 x int8 vs sdot4", t_us, ops, "sdot4 auto", t_auto)
    m = min(n, 1024)
    a1, b1 = a[:m, :m], b[:m, :m]
    t_np = best(lambda: a1.astype(np.int32) @ b1.astype(np.int32), 1)
    t_np64 = best(lambda: a1.astype(np.int64) @ b1.astype(np.int64), 1)
    af, bf = a1.astype(np.float32), b1.astype(np.float32)
    t_f32, t_sgemm = interleaved(lambda: gemm(a1, b1, op="sdot4", backend="float32"), lambda: af @ bf, repeat=9)
    line(f"gemm float32 path (no torch) n={m}", t_f32, 2 * m**3, "NumPy int32 @", t_np, 200)
    line(f"gemm float32 path (no torch) n={m}", t_f32, 2 * m**3, "NumPy int64 @", t_np64, 200)
    line(f"  the ceiling: float32 BLAS itself n={m}", t_sgemm, 2 * m**3, "NumPy int32 @", t_np)


def cpu_small():
    """Calls too small for BLAS to matter (a test harness checking one tile, a decode step of a tiny model):
    gemm's own per-call work (checks, plan, centring) against NumPy's int64 matmul of the same operands."""
    print("-- CPU small calls (per call; the baseline is NumPy's exact int64 matmul, no checks)")
    for m, k, n in ((1, 64, 64), (4, 256, 256), (16, 512, 512)):
        _small(m, k, n)


def _small(m, k, n):
    rng = np.random.default_rng(m)
    a = rng.integers(-128, 128, (m, k), dtype=np.int8)
    ua = rng.integers(0, 256, (m, k), dtype=np.uint8)
    b = rng.integers(-128, 128, (k, n), dtype=np.int8)
    calls = max(20, 200_000 // (m * k * n // 4096 + 1))

    def repeat(fn):
        return lambda: [fn() for _ in range(calls)]

    t_s, t_u, t_np = interleaved(
        repeat(lambda: gemm(a, b, op="sdot4")),
        repeat(lambda: gemm(ua, b, op="usdot")),
        repeat(lambda: a.astype(np.int64) @ b.astype(np.int64)),
    )
    for what, t in (("sdot4", t_s), ("usdot", t_u)):
        print(
            f"gemm(op='{what}') {m}x{k}x{n}: {t / calls * 1e6:8.1f} us a call   "
            f"{t_np / t:6.2f}x NumPy int64 @ ({t_np / calls * 1e6:.1f} us)"
        )


def _auto_name(a, b):
    from intdot.gemm.api import _pick

    return _pick("auto", a, b)


def cpu_clamp(m, k, n):
    rng = np.random.default_rng(1)
    a = rng.integers(-128, 128, (m, k), dtype=np.int8)
    b = rng.integers(-128, 128, (k, n), dtype=np.int8)
    # Adversarial: every accumulator starts at a limit, so no bound proves any output safe.
    c = rng.choice(np.array([-(2**31), 2**31 - 1], np.int64), (m, n))
    ops = 2 * m * n * k
    gemm(a[:2], b, c[:2], op="sdot4", clamp=True)  # compile outside the timing
    t_clamp = best(lambda: gemm(a, b, c, op="sdot4", clamp=True), 2)
    af, bf = a.astype(np.float32), b.astype(np.float32)
    t_f32 = best(lambda: af @ bf)
    print(f"-- CPU clamp chain {m}x{n}x{k}, accumulators at the limits")
    line("gemm(op='sdot4', clamp=True) vs float32 BLAS", t_clamp, ops, "float32 @ same shape", t_f32, 0.05)


def cpu_int4(n):
    import ml_dtypes

    rng = np.random.default_rng(2)
    a = rng.integers(-8, 8, (n, n), dtype=np.int8)
    b = rng.integers(-8, 8, (n, n), dtype=np.int8)
    # What a kernel holds: eight nibbles per 32-bit word along K, lane 0 in the low bits.
    words = np.zeros((n, n // 8), np.uint32)
    for i in range(8):
        words |= (a[:, i::8].astype(np.uint32) & 0xF) << np.uint32(4 * i)

    def unpack():
        return intdot.unpack(words, 4).reshape(n, n)

    assert np.array_equal(unpack(), a)
    t_unpack = best(unpack)
    t_gemm = best(lambda: gemm(a, b, op="sdot8"))
    a4 = a.astype(ml_dtypes.int4)
    t_ml = best(lambda: gemm(a4, b, op="sdot8"))
    # Measured on its own: the difference of two gemm timings is mostly noise and can come out negative.
    t_conv = best(lambda: a4.astype(np.int8))
    ops = 2 * n**3
    print(f"-- CPU INT4 sdot8, n={n}")
    print(
        f"{'unpack packed nibbles + gemm(op=sdot8)':<44} {ops / (t_unpack + t_gemm) / 1e9:9.1f} GOPS   "
        f"unpacking is {t_unpack / (t_unpack + t_gemm):.1%} of the time"
    )
    print(
        f"{'gemm on ml_dtypes int4 a':<44} {ops / t_ml / 1e9:9.1f} GOPS   "
        f"converting int4 to int8 is {t_conv / t_ml:.1%} of the time"
    )


def _layouts(x):
    """The same values row-major and column-major."""
    return {"row": x.contiguous(), "col": x.t().contiguous().t()}


def timed(fn, reps=None):
    """Seconds a call of fn takes on the GPU: Triton's do_bench for ours and the baseline alike, L2 flushed before
    each run, the median of many (of fewer where ``reps`` is given: slow calls)."""
    import triton

    return triton.testing.do_bench(fn, warmup=25, rep=200 if reps is None else 50, return_mode="median") / 1e3


def gpu(n):
    """Every figure beside torch._int_mm on its best layout (B column-major, measured in the same run)."""
    import torch
    import triton

    from intdot.gemm import gpu as g

    dev = torch.device("cuda")
    # The board too: at the H200's power cap, boards of one model differ by about 3% on the 8192^3 lines
    # (scripts/gpu/h200-results.txt, fifteenth session), so runs compare only on one board.
    board = str(getattr(torch.cuda.get_device_properties(dev), "uuid", "?"))[:8]
    name = torch.cuda.get_device_name()
    print(f"-- GPU {name} (board {board}) n={n}, torch {torch.__version__}, triton {triton.__version__}")
    # Exact on the worst case before any timing is trusted.
    w = torch.full((n, n), -128, dtype=torch.int8, device=dev)
    r = gemm(w, w, op="sdot4")
    assert int(r.min()) == int(r.max()) == (n * 16384 + 2**31) % 2**32 - 2**31, "worst case not exact"

    peak = 1979e12
    a = torch.randint(-128, 128, (n, n), dtype=torch.int8, device=dev)
    b = torch.randint(-128, 128, (n, n), dtype=torch.int8, device=dev)
    ua = torch.randint(0, 256, (n, n), dtype=torch.uint8, device=dev)
    ub = torch.randint(0, 256, (n, n), dtype=torch.uint8, device=dev)
    la, lb = _layouts(a), _layouts(b)
    ops = 2 * n**3
    best_call = partial(torch._int_mm, a, lb["col"])
    bases = []  # every timing of the baseline, each beside one of ours

    def show(what, fn, goal="1.3x, 1400 TOPS", o=ops):
        # Each call alternating with the baseline (bench/timing.alternated): the ratio of the two medians.
        t, t_best = alternated(timed, fn, best_call)
        bases.append(t_best)
        print(
            f"{what:<52} {o / t / 1e12:8.0f} TOPS  {t_best / t * o / ops:6.2f}x torch best "
            f"({o / t / peak:.0%} of peak; goal {goal})"
        )
        return t

    show("torch._int_mm, B row-major", lambda: torch._int_mm(a, lb["row"]), "-")
    show("torch._int_mm with its own B transpose", lambda: torch._int_mm(a, lb["row"].t().contiguous().t()), "-")
    calls = []  # (layouts, the call, its time): profiled after every timing (below)
    for al in ("row", "col"):
        for bl in ("row", "col"):
            fn = partial(gemm, la[al], lb[bl], op="sdot4")
            calls.append((f"A {al}, B {bl}", fn, show(f"gemm(op='sdot4') A {al}, B {bl}", fn)))
    c = torch.randint(-(2**31), 2**31 - 1, (n, n), dtype=torch.int32, device=dev)
    show("gemm(op='sdot4') A row, B col, c in the epilogue", lambda: gemm(a, lb["col"], c, op="sdot4"))
    for what, x, y, op in (
        ("usdot uint8 x int8", ua, b, "usdot"),
        ("udot4 uint8 x uint8", ua, ub, "udot4"),
    ):
        for bl, yy in _layouts(y).items():
            show(f"gemm(op='{op}') {what.split(' ', 1)[1]}, B {bl}", partial(gemm, x, yy, op=op))
    t_best = sorted(bases)[len(bases) // 2]
    print(
        f"{'torch._int_mm, B column-major (its best: the baseline)':<52} {ops / t_best / 1e12:8.0f} TOPS  "
        f"(the median; {ops / max(bases) / 1e12:.0f}-{ops / min(bases) / 1e12:.0f} beside the lines above)"
    )
    # The headline call run back to back for seconds, alternating with the baseline run the same way: the rate a
    # long job gets at the board's power cap, below do_bench's for both (bench/timing.sustained).
    t_us, t_torch = alternated(sustained, partial(gemm, a, lb["col"], op="sdot4"), best_call)
    print(
        f"{'gemm(op=sdot4) A row, B col, 2 s back to back':<52} {ops / t_us / 1e12:8.0f} TOPS  "
        f"{t_torch / t_us:6.2f}x torch best run the same way ({ops / t_torch / 1e12:.0f} TOPS)"
    )
    t_layout = timed(lambda: g.transposed(b))
    print(
        f"  the B transpose pass (row-major B): {t_layout * 1e3:.3f} ms; torch's b.t().contiguous(): "
        f"{timed(lambda: b.t().contiguous()) * 1e3:.3f} ms"
    )

    # The exact per-step clamp chain on random data, beside the same call without clamp: only outputs that can
    # saturate are walked.  Without c the dtypes alone bound every chain (K < 2**17 for int8); with c, its
    # extremes are read back first; unsigned lanes (udot4) move each chain one way, so it is the sum clamped once.
    m = 4096
    sa, sb = a[:m, :m].contiguous(), b[:m, :m].contiguous()
    mid = torch.randint(-(2**30), 2**30, (m, m), dtype=torch.int32, device=dev)
    for what, x, y, cc, op, goal in (
        ("gemm clamp chain 4096^3, random data", sa, sb, None, "sdot4", " (goal >= 0.25x)"),
        ("gemm clamp chain 4096^3, random data, c in +-2**30", sa, sb, mid, "sdot4", " (goal >= 0.25x)"),
        (
            "gemm clamp chain 4096^3 udot4 (uint8), random data",
            ua[:m, :m].contiguous(),
            ub[:m, :m].contiguous(),
            None,
            "udot4",
            "",
        ),
    ):
        t_wrap, t_cl = alternated(timed, partial(gemm, x, y, cc, op=op), partial(gemm, x, y, cc, op=op, clamp=True))
        print(f"{what:<52} {2 * m**3 / t_cl / 1e12:8.1f} TOPS  {t_wrap / t_cl:6.2f}x the same call without clamp{goal}")
    cs = torch.full((m, m), 2**31 - 1, dtype=torch.int32, device=dev)
    m2 = 2048
    t_sat = timed(lambda: gemm(sa[:m2, :m2], sb[:m2, :m2], cs[:m2, :m2], op="sdot4", clamp=True), 3)
    print(f"{'gemm clamp chain 2048^3, every output at INT32_MAX':<52} {2 * m2**3 / t_sat / 1e12:8.2f} TOPS")

    decode()
    s16 = torch.randint(-(2**15), 2**15, (m2, m2), dtype=torch.int16, device=dev)
    t_64 = timed(lambda: gemm(s16, s16, op="svdot_s64"), 3)
    print(f"{'gemm svdot_s64 16-bit into 64, 2048^3':<52} {2 * m2**3 / t_64 / 1e12:8.2f} TOPS")

    # Each 8192^3 layout's kernels one by one (profiled once, L2 not flushed), on a board that has rested: shorter
    # than in the timings above, where it works for a fifth of a second at its power cap and clocks lower.  There
    # is no idle time between a call's kernels (scripts/gpu/layouts.py traces flushed calls in a row: 1-2 us).
    # Last, because launches after torch's profiler has run cost the host more (decode calls measured after it
    # came out up to 2x slower, scripts/gpu/h200-results.txt).
    for what, fn, t in calls:
        ks = ", ".join(f"{name[:24]} {us:.0f} us" for name, us in kernels_us(fn))
        print(f"  {n}^3 {what}: {t * 1e6:.0f} us a call; its kernels: {ks}")


def decode():
    """Small and skinny shapes, as inference decodes them, each call alternating with its baseline."""
    import torch

    dev = torch.device("cuda")
    # torch._int_mm refuses M <= 16: there its baseline is torch._int_mm on A zero-padded to 17 rows, the padding
    # inside its timing.
    pad = torch.nn.functional.pad
    for nk in (4096, 16384):
        wb = torch.randint(-128, 128, (nk, nk), dtype=torch.int8, device=dev)
        wcol = wb.t().contiguous().t()
        for mm in (1, 16, 17, 32, 64, 128, 256, 512):  # past 64 rows: prefill chunks, beyond the goal
            x = torch.randint(-128, 128, (mm, nk), dtype=torch.int8, device=dev)
            o2 = 2 * mm * nk * nk
            if mm > 16:
                base, base_fn = "torch best", partial(torch._int_mm, x, wcol)
            else:
                base = "torch (A padded to 17 rows)"

                def base_fn(x=x, w=wcol, r=17 - mm):
                    return torch._int_mm(pad(x, (0, 0, 0, r)), w)

            t_t, t_us, t_us_row = alternated(
                timed, base_fn, partial(gemm, x, wcol, op="sdot4"), partial(gemm, x, wb, op="sdot4"), rounds=2
            )
            print(
                f"{f'gemm sdot4 M={mm}, N=K={nk}, B col':<52} {o2 / t_us / 1e12:8.1f} TOPS  {t_t / t_us:6.2f}x {base} "
                f"({o2 / t_t / 1e12:.1f} TOPS, {t_t * 1e6:.0f} us vs {t_us * 1e6:.0f}); B row-major: "
                f"{t_t / t_us_row:.2f}x{' (goal >= 1.0x)' if mm <= 64 else ''}"
            )
        # What the do_bench figures leave out: the host time of one call, measured back to back (M = 512: the
        # split-K kernel at N = K = 4096, the TMA kernel at 16384, each launched directly by its remembered plan).
        for mm in (32, 512):
            x = torch.randint(-128, 128, (mm, nk), dtype=torch.int8, device=dev)
            print(
                f"  host time per call, M={mm}, N=K={nk}: gemm {host_us(partial(gemm, x, wcol, op='sdot4')):.1f} us,"
                f" torch._int_mm {host_us(partial(torch._int_mm, x, wcol)):.1f} us"
            )


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true")
    p.add_argument("--gpu-only", action="store_true")
    p.add_argument("--cpu-only", action="store_true")
    p.add_argument("--decode", action="store_true", help="the GPU's decode shapes only (M = 1..512)")
    p.add_argument("--n", type=int, default=None)
    args = p.parse_args()
    header()
    if args.decode:
        return decode()
    if not args.gpu_only:
        cpu_small()
        cpu_wrap(args.n or (1024 if args.quick else 4096))
        cpu_clamp(512, 1024 if args.quick else 4096, 512)
        cpu_int4(1024 if args.quick else 2048)
    if not args.cpu_only and installed()["gpu"]:
        gpu(args.n if args.gpu_only and args.n else 8192)


if __name__ == "__main__":
    main()
