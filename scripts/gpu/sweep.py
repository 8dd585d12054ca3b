# ruff: noqa: B023, E731  (closures run inside their loop iteration; lambdas name the variants)
"""Configuration sweeps for intdot.gemm's GPU kernels on the lent H200, each variant checked bit for bit first.

    python scripts/gpu/sweep.py skinny   # split-K configurations for M = 1..64, N = K = 4096 and 16384
    python scripts/gpu/sweep.py host     # where a small call's host time goes (cProfile), host us per call
    python scripts/gpu/sweep.py skinny2  # the same, wider, for the shapes the first sweep left below torch
    python scripts/gpu/sweep.py big      # 8192^3 tensor-core configurations
    python scripts/gpu/sweep.py reduce   # split-K chunks meeting in a zero-filled output or in the workspace
    python scripts/gpu/sweep.py row      # row-major B at M = 1..64: read in the kernel, or transposed first
    python scripts/gpu/sweep.py row_cost # row-major B: M = 64 against 32 with B in L2 and not (re-layout or re-read)
    python scripts/gpu/sweep.py clamp    # the clamp chain at 4096^3, stage by stage
    python scripts/gpu/sweep.py tune     # split-K configurations for the decode shapes still near or below torch
    python scripts/gpu/sweep.py mid      # split-K past 64 rows (M = 96..512), against the TMA kernel
    python scripts/gpu/sweep.py host_mid # host time of calls past 64 rows (the TMA kernel's launch)
    python scripts/gpu/sweep.py host_big # the same at M = 512, N = K = 16384 (the TMA kernel)
    python scripts/gpu/sweep.py host_tma # a TMA-kernel call's host time, step by step
    python scripts/gpu/sweep.py tma_launch  # past the split-K rows: launches repeated directly, or through Triton
    python scripts/gpu/sweep.py mid_direct  # 65..512 rows: split-K or the TMA kernel, both launched directly
    python scripts/gpu/sweep.py ws       # the Hopper kernel's two configurations and Triton's kernel, through gemm
    python scripts/gpu/sweep.py layouts  # 8192^3 in each layout of A and B: the whole call, each pass, the kernel

Timing as bench/gemm.py times: Triton's do_bench (L2 flushed before each run, median).
"""

import cProfile
import itertools
import pstats
import sys
import time
from pathlib import Path

import torch
import triton

from intdot.gemm import gemm
from intdot.gemm import gpu as g
from intdot.gemm import gpu_clamp as gc
from intdot.gemm import gpu_split as gs

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from timing import host_and_wall_us  # noqa: E402  (bench/timing.py, shared with the bench)

dev = "cuda"


def bench(fn, rep=100):
    return triton.testing.do_bench(fn, warmup=10, rep=rep, return_mode="median") * 1e-3


def _torch_best(x, wcol):
    """(torch's x @ wcol, its time) on its best path: B column-major; torch._int_mm refuses M <= 16, so there A is
    padded to 17 rows, the padding inside its timing (and only there: a pad of no rows is still a copy)."""
    m, pad = x.shape[0], torch.nn.functional.pad
    run = (lambda: torch._int_mm(x, wcol)) if m > 16 else (lambda: torch._int_mm(pad(x, (0, 0, 0, 17 - m)), wcol))
    return run()[:m], bench(run)


def _host_us(fn, calls):
    """(host, wall) microseconds per call of ``fn`` over ``calls`` back-to-back calls, after 20 warm-up calls."""
    return host_and_wall_us(fn, calls, warmup=20)


def split_sweep(x, wl, ref, t_torch, configs, rep, top, label=""):
    """Each split-K configuration in ``configs`` on x @ wl: checked against ``ref`` bit for bit, then timed; the
    ``top`` fastest printed beside torch's time ``t_torch``."""
    m, nk = x.shape[0], wl.shape[1]
    res = []
    for cfg in configs:
        try:
            # launched as gemm's remembered plan launches it: no per-call argument binding in the timing
            call, first = gs.fast(x, wl, False, cfg)
            run = (lambda c=call: c(x, wl)) if call is not None else (lambda c=cfg: gs.mm_split(x, wl, None, False, c))
            ok = torch.equal(first, ref) and torch.equal(run(), ref)
            res.append((bench(run, rep), ok, cfg))
        except Exception as exc:
            print(f"  {cfg}: {type(exc).__name__} {str(exc)[:100]}", flush=True)
    res.sort(key=lambda r: r[0])
    for t, ok, cfg in res[:top]:
        shown = " ".join(f"{k}={v}" for k, v in cfg.items() if k != "num_stages")
        print(
            f"  split{label} {shown}: {t * 1e6:.1f} us {t_torch / t:.2f}x exact={ok} plan={gs.plan(m, nk, nk, cfg)}",
            flush=True,
        )
    print(f"  {len(res)} configs, {sum(not r[1] for r in res)} inexact", flush=True)


def _configs(space):
    """Split-K configurations from (SWAP, BN, BK, programs, num_warps) tuples."""
    return [dict(BN=bn, BK=bk, num_warps=wp, num_stages=4, programs=p, SWAP=sw) for sw, bn, bk, p, wp in space]


def skinny():
    for nk, ms in ((4096, (1, 16, 32, 64)), (16384, (1, 64))):
        w = torch.randint(-128, 128, (nk, nk), dtype=torch.int8, device=dev)
        wcol = w.t().contiguous().t()
        for m in ms:
            x = torch.randint(-128, 128, (m, nk), dtype=torch.int8, device=dev)
            ops = 2 * m * nk * nk
            ref, t_t = _torch_best(x, wcol)
            t_now = bench(lambda: gemm(x, wcol, op="sdot4"))
            assert torch.equal(gemm(x, wcol, op="sdot4"), ref)
            print(
                f"M={m} NK={nk}: torch{'(pad 17)' if m <= 16 else ''} {ops / t_t / 1e12:.1f} TOPS {t_t * 1e6:.1f} us;"
                f" gemm now {t_now * 1e6:.1f} us ({t_t / t_now:.2f}x)",
                flush=True,
            )
            space = itertools.product((False, True), (64, 128, 256), (128, 256), (264, 528), (4,))
            configs = _configs(t for t in space if not (t[1] == 256 and t[2] == 256))
            for lay, wl in (("col", wcol), ("row", w)):
                split_sweep(x, wl, ref, t_t, configs, 50, 3, f" B {lay}")


def skinny2():
    """The shapes the first sweep left below torch: M = 32, 64 with B column-major, and B row-major."""
    for nk, m, lay in ((4096, 32, "col"), (4096, 64, "col"), (16384, 64, "col"), (16384, 1, "row"), (4096, 64, "row")):
        w = torch.randint(-128, 128, (nk, nk), dtype=torch.int8, device=dev)
        wcol = w.t().contiguous().t()
        wl = wcol if lay == "col" else w
        x = torch.randint(-128, 128, (m, nk), dtype=torch.int8, device=dev)
        ref, t_t = _torch_best(x, wcol)
        print(f"M={m} NK={nk} B {lay}: torch {t_t * 1e6:.1f} us", flush=True)
        space = itertools.product((False, True), (64, 128), (128, 256), (66, 132, 264), (4, 8))
        if lay == "row":
            space = itertools.product((False, True), (128, 256), (64, 128), (132, 264, 528), (4, 8))
        split_sweep(x, wl, ref, t_t, _configs(space), 40, 4)
        if lay == "col":
            # the TMA kernel (wgmma, no split), kernel only, operands ready
            out = torch.empty((m, nk), dtype=torch.int32, device=dev)
            desc = g._triton()["TensorDescriptor"]
            bt = w.t().contiguous()
            for bm, bn, bk, st, wp in ((64, 64, 128, 4, 4), (64, 32, 128, 4, 4), (64, 128, 128, 4, 4)):
                da, db = desc.from_tensor(x, [bm, bk]), desc.from_tensor(bt, [bn, bk])
                run = lambda: g._triton()["mm_tma_raw"][(triton.cdiv(m, bm) * triton.cdiv(nk, bn),)](
                    da,
                    db,
                    out,
                    out,
                    out,
                    out,
                    m,
                    nk,
                    nk,
                    0,
                    0,
                    0,
                    1,
                    HAS_C=False,
                    CENTRED=False,
                    BM=bm,
                    BN=bn,
                    BK=bk,
                    G=8,
                    num_stages=st,
                    num_warps=wp,
                )
                try:
                    run()
                    ok = torch.equal(out, ref)
                    t = bench(run, 40)
                    print(f"  tma {bm}x{bn}x{bk}: {t * 1e6:.1f} us {t_t / t:.2f}x exact={ok}", flush=True)
                except Exception as exc:
                    print(f"  tma {bm}x{bn}x{bk}: {type(exc).__name__} {str(exc)[:100]}", flush=True)


def host(ms=(1, 32), nk=4096):
    w = torch.randint(-128, 128, (nk, nk), dtype=torch.int8, device=dev)
    wcol = w.t().contiguous().t()
    for m in ms:
        x = torch.randint(-128, 128, (m, nk), dtype=torch.int8, device=dev)
        for what, fn in (
            ("gemm", lambda: gemm(x, wcol, op="sdot4")),
            ("torch._int_mm", lambda: torch._int_mm(torch.nn.functional.pad(x, (0, 0, 0, 17 - m)), wcol))
            if m <= 16
            else ("torch._int_mm", lambda: torch._int_mm(x, wcol)),
        ):
            host_us, wall_us = _host_us(fn, 500)
            few_us = _host_us(fn, 30)[0]  # too few calls to fill the launch queue when each kernel is long
            # back to back, CUDA events, no flush (B stays in L2: 16 MB)
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            for _ in range(200):
                fn()
            e.record()
            torch.cuda.synchronize()
            print(
                f"M={m} N=K={nk} {what}: host {host_us:.1f} us/call (over 30 calls {few_us:.1f}), wall {wall_us:.1f},"
                f" back-to-back events "
                f"{s.elapsed_time(e) / 200 * 1e3:.1f} us/call, do_bench {bench(fn) * 1e6:.1f} us",
                flush=True,
            )
        # Where a small call's host time goes, layer by layer (each host-bound, back to back): the whole call, the
        # CUDA-tensor layer without gemm's front, the remembered plan alone, and the output fill it starts with.
        from intdot.gemm.gpu_tensors import _PLANS, gemm_tensors
        from intdot.gemm.ops import resolve

        o = resolve("sdot4", None, None, a_bits=8)
        gemm(x, wcol, op="sdot4")
        plan = next(p for k, p in _PLANS.items() if k[0] == o and k[5] == x.shape and k[7] == wcol.shape)
        for what, fn in (
            ("gemm(x, w, op=...)", lambda: gemm(x, wcol, op="sdot4")),
            ("gemm_tensors", lambda: gemm_tensors(x, wcol, None, o, False, False)),
            ("the remembered plan", lambda: plan(x, wcol)),
            ("torch.zeros of the output", lambda: torch.zeros((m, nk), dtype=torch.int32, device=dev)),
            ("torch.empty of the output", lambda: torch.empty((m, nk), dtype=torch.int32, device=dev)),
        ):
            print(f"  M={m} host {_host_us(fn, 1000 if m < 128 else 30)[0]:6.1f} us/call: {what}", flush=True)
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(300 if m < 128 else 30):
            gemm(x, wcol, op="sdot4")
        prof.disable()
        torch.cuda.synchronize()
        pstats.Stats(prof).sort_stats("tottime").print_stats(20)


def _skinny_cases(ms=(1, 16, 32, 64)):
    """(m, nk, x, B row-major, B column-major, torch's result, torch's time at its best) for the decode shapes."""
    for nk in (4096, 16384):
        w = torch.randint(-128, 128, (nk, nk), dtype=torch.int8, device=dev)
        wcol = w.t().contiguous().t()
        for m in ms:
            x = torch.randint(-128, 128, (m, nk), dtype=torch.int8, device=dev)
            yield (m, nk, x, w, wcol) + _torch_best(x, wcol)


def _compare(label, variants, ref, t_t):
    for what, fn in variants:
        ok = torch.equal(fn(), ref)
        t = bench(fn, 50)
        print(f"  {label} {what}: {t * 1e6:.1f} us, {t_t / t:.2f}x torch best, exact={ok}", flush=True)


def reduce():
    """Split-K without c: the chunks adding atomically into a zero-filled output (two launches), or meeting in
    the workspace (one); kernel only, then the whole gemm call."""
    for m, nk, x, _, wcol, ref, t_t in _skinny_cases():
        cfg = gs.config(m, nk, nk, wcol)

        def zeros_atomic():
            out = torch.zeros((m, nk), dtype=torch.int32, device=dev)
            grid, args, opts = gs._launch_args(x, wcol, out, False, cfg, gs.ATOMIC)
            gs._kernel()[grid](*args, **opts)
            return out

        print(f"M={m} NK={nk}: torch {t_t * 1e6:.1f} us, split {gs.plan(m, nk, nk, cfg)}", flush=True)
        variants = [
            ("zero fill + atomics", zeros_atomic),
            ("workspace, last chunk stores", lambda: gs.mm_split(x, wcol, None, False, cfg)),
        ]
        _compare(f"M={m} NK={nk}", variants + [("gemm", lambda: gemm(x, wcol, op="sdot4"))], ref, t_t)


def row():
    """Row-major B, decode shapes: the split-K kernel reading it as it is (several tilings), or the transposing
    pass first; each launched as gemm's remembered plan launches it (no per-call argument binding)."""
    for m, nk, x, w, _, ref, t_t in _skinny_cases():
        print(f"M={m} NK={nk} B row-major: torch (B col) {t_t * 1e6:.1f} us", flush=True)
        variants = []
        for what, cfg in (
            ("in the kernel (ROW: 32-row tiles)", gs.ROW),
            ("in the kernel, 64-row tiles", dict(gs.ROW, BM_MAX=64)),
            ("in the kernel, 32-row tiles, 8 warps", dict(gs.ROW, BM_MAX=32, num_warps=8)),
            ("in the kernel, 16-row tiles", dict(gs.ROW, BM_MAX=16)),
        ):
            call = gs.fast(x, w, False, cfg)[0]
            variants.append((what, lambda call=call: call(x, w)))
        inner = gs.fast(x, g.transposed(w)[0].t(), False)[0]
        variants.append(("transposed first", lambda: inner(x, g.transposed(w)[0].t())))
        variants.append(("gemm", lambda: gemm(x, w, op="sdot4")))
        _compare(f"M={m} NK={nk}", variants, ref, t_t)
        t = bench(lambda: g.transposed(w), 50)
        print(f"  the transposing pass alone: {t * 1e6:.1f} us", flush=True)


def row_cost():
    """Row-major B at M = 33..64: what the second 32-row tile costs. Each ROW configuration timed at M = 32 and 64,
    with B small enough to stay in L2 (N = K = 2048: 4 MB) and far larger (16384: 256 MB). Where M = 64 takes twice
    M = 32 at both sizes, the re-layout of B (compute) is the cost; where only at the large size, reading B twice."""
    for nk in (2048, 4096, 16384):
        w = torch.randint(-128, 128, (nk, nk), dtype=torch.int8, device=dev)
        line = f"N=K={nk} B row-major:"
        times = {}
        for m in (32, 64):
            x = torch.randint(-128, 128, (m, nk), dtype=torch.int8, device=dev)
            call = gs.fast(x, w, False, gs.ROW)[0]
            assert torch.equal(call(x, w), torch._int_mm(x, w.t().contiguous().t()))
            times[m] = bench(lambda: call(x, w))
            line += f" M={m} {times[m] * 1e6:.1f} us;"
        print(f"{line} M=64 / M=32: {times[64] / times[32]:.2f}", flush=True)


def clamp():
    """Where the clamp chain's time goes at 4096^3 on random data, stage by stage (each timed alone)."""
    n = 4096
    a = torch.randint(-128, 128, (n, n), dtype=torch.int8, device=dev)
    b = torch.randint(-128, 128, (n, n), dtype=torch.int8, device=dev)
    stats = torch.zeros((4, n), dtype=torch.int64, device=dev)
    ra, rmax, cs, cmax = stats
    gc._abs_stats(a, 1, ra, rmax)
    gc._abs_stats(b, 0, cs, cmax)
    flags = torch.empty((n, n), dtype=torch.int8, device=dev)
    count = torch.zeros(1, dtype=torch.int32, device=dev)
    k = g._triton()

    def saturate():
        count.zero_()
        k["may_saturate"][(n // 64, n // 64)](
            flags, ra, rmax, cs, cmax, flags, count, n, n, -(2**31), 2**31 - 1, HAS_S=False, BM=64, BN=64
        )

    for what, fn in (
        ("the whole call, clamp=True", lambda: gemm(a, b, op="sdot4", clamp=True)),
        ("the same without clamp", lambda: gemm(a, b, op="sdot4")),
        ("abs_stats of a (rows)", lambda: gc._abs_stats(a, 1, ra, rmax)),
        ("abs_stats of b (columns)", lambda: gc._abs_stats(b, 0, cs, cmax)),
        ("may_saturate", saturate),
        ("count.item() after may_saturate", lambda: (saturate(), count.item())),
        ("mm_int8", lambda: g.mm_int8(a, b)),
    ):
        print(f"  clamp 4096^3 {what}: {bench(fn) * 1e6:.1f} us", flush=True)


def tune():
    """Split-K configurations for the decode shapes still near or below torch, with the workspace meeting and
    launched as gemm launches them: B column-major at M = 64, N = K = 4096; B row-major at M >= 16."""
    col = _configs(itertools.product((False, True), (64, 128), (128, 256), (132, 264), (4,)))
    row = _configs(itertools.product((False, True), (128, 256), (64, 128), (264, 528), (4,)))
    row = [dict(c, BM_MAX=32) for c in row]
    shapes = ((4096, 64, "col"), (4096, 64, "row"), (4096, 32, "row"), (16384, 64, "row"), (16384, 32, "row"))
    for nk, m, lay in shapes + ((16384, 16, "row"),):
        w = torch.randint(-128, 128, (nk, nk), dtype=torch.int8, device=dev)
        wcol = w.t().contiguous().t()
        wl = wcol if lay == "col" else w
        x = torch.randint(-128, 128, (m, nk), dtype=torch.int8, device=dev)
        ref, t_t = _torch_best(x, wcol)
        now = gs.config(m, nk, nk, wl)
        print(f"M={m} NK={nk} B {lay}: torch {t_t * 1e6:.1f} us; now {now}", flush=True)
        split_sweep(x, wl, ref, t_t, [now] + (col if lay == "col" else row), 40, 4)


def mid():
    """Split-K past 64 rows: M = 96..512 (prefill chunks), where the TMA kernel's tiles leave multiprocessors idle."""
    configs = _configs(itertools.product((False,), (128,), (128, 256), (64, 132, 264), (4, 8)))
    for nk, m in ((4096, 96), (4096, 128), (4096, 256), (4096, 512), (8192, 128), (8192, 256), (8192, 512)):
        w = torch.randint(-128, 128, (nk, nk), dtype=torch.int8, device=dev)
        wcol = w.t().contiguous().t()
        x = torch.randint(-128, 128, (m, nk), dtype=torch.int8, device=dev)
        ref, t_t = _torch_best(x, wcol)
        t_now = bench(lambda: gemm(x, wcol, op="sdot4"))
        print(
            f"M={m} NK={nk}: torch {t_t * 1e6:.1f} us; gemm now {t_now * 1e6:.1f} us ({t_t / t_now:.2f}x)", flush=True
        )
        split_sweep(x, wcol, ref, t_t, configs, 40, 6)


def tma_launch():
    """Past the split-K rows: gemm with every launch repeated directly (gpu_launch.Direct) against gemm with every
    launch through Triton's argument binding (gpu_launch.LIMIT = 0) and torch; host time and do_bench, each
    result checked bit for bit first."""
    from intdot.gemm import gpu_launch, gpu_tensors

    def through_triton(on: bool):
        gpu_launch.LIMIT = 0 if on else 4096
        g._KERNELS.clear()
        gpu_launch._DIRECT.clear()
        gpu_tensors._PLANS.clear()

    for m, nk, layout in (
        (128, 16384, "col"),
        (256, 16384, "col"),
        (1024, 4096, "col"),
        (128, 4096, "row"),
        (512, 4096, "row"),
        (1024, 4096, "row"),
    ):
        w = torch.randint(-128, 128, (nk, nk), dtype=torch.int8, device=dev)
        wcol = w.t().contiguous().t()
        wl = wcol if layout == "col" else wcol.contiguous()
        x = torch.randint(-128, 128, (m, nk), dtype=torch.int8, device=dev)
        ref, t_t = _torch_best(x, wcol)
        fn = lambda: gemm(x, wl, op="sdot4")
        line = f"M={m} N=K={nk} B {layout}: torch {t_t * 1e6:.1f} us;"
        for what, on in (("Triton's launch", True), ("direct", False)):
            through_triton(on)
            ok = all(torch.equal(fn(), ref) for _ in range(3))
            t = bench(fn)
            line += f" {what} {t * 1e6:.1f} us ({t_t / t:.2f}x, host {_host_us(fn, 300)[0]:.1f} us, exact={ok})"
        print(line, flush=True)


def host_tma():
    """Where the host time of a call through the TMA kernel goes, step by step (each step alone, back to back, host
    microseconds per call), at shapes whose kernels are shorter than the host time (no launch queue to wait on)."""
    from triton.backends.nvidia import driver as nvd

    k = g._triton()
    desc = k["TensorDescriptor"]
    cfg = g.TMA_CONFIG
    bm, bn, bk = cfg["BM"], cfg["BN"], cfg["BK"]
    for m, nk in ((1024, 1024), (1024, 4096)):
        w = torch.randint(-128, 128, (nk, nk), dtype=torch.int8, device=dev)
        wcol = w.t().contiguous().t()
        x = torch.randint(-128, 128, (m, nk), dtype=torch.int8, device=dev)
        assert torch.equal(gemm(x, wcol, op="sdot4"), torch._int_mm(x, wcol))
        a8, bt, out, args, flags = g._operands(x, wcol, None, False)
        da, db = desc.from_tensor(a8, [bm, bk]), desc.from_tensor(bt, [bn, bk])
        grid = (-(-m // bm) * -(-nk // bn),)
        d = k["mm_tma_raw"]
        d[grid](da, db, *args, **flags, **cfg)
        ((ck, _),) = [v for v in d._cache.values()][:1]
        meta = getattr(ck.metadata, "tensordesc_meta", None)
        fill = nvd.make_tensordesc_arg
        steps = (
            ("gemm(x, w, op='sdot4')", lambda: gemm(x, wcol, op="sdot4")),
            ("gpu.mm_int8", lambda: g.mm_int8(x, wcol)),
            ("gpu._operands", lambda: g._operands(x, wcol, None, False)),
            (
                "two TensorDescriptor.from_tensor",
                lambda: (desc.from_tensor(a8, [bm, bk]), desc.from_tensor(bt, [bn, bk])),
            ),
            ("Direct launch, descriptors made", lambda: d[grid](da, db, *args, **flags, **cfg)),
            ("Direct._signature", lambda: d._signature(grid, (da, db, *args), {**flags, **cfg})),
            ("two make_tensordesc_arg (tensor maps)", lambda: (fill(da, meta and meta[0]), fill(db, meta and meta[1]))),
            ("torch.empty of the output", lambda: torch.empty((m, nk), dtype=torch.int32, device=dev)),
            ("torch._int_mm", lambda: torch._int_mm(x, wcol)),
        )
        print(f"M={m} N=K={nk} B col, tensordesc_meta {meta}", flush=True)
        for what, fn in steps:
            print(f"  host {_host_us(fn, 300)[0]:7.1f} us/call: {what}", flush=True)
        prof = cProfile.Profile(time.perf_counter)
        prof.enable()
        for _ in range(200):
            gemm(x, wcol, op="sdot4")
        prof.disable()
        torch.cuda.synchronize()
        stats = pstats.Stats(prof).stats
        top = sorted(stats.items(), key=lambda kv: -kv[1][2])[:16]
        for (file, line, name), (_, calls, tot, cum, _) in top:
            where = f"{name} {file[-40:]}:{line}"
            print(f"    {tot / 200 * 1e6:6.2f} us self {cum / 200 * 1e6:7.2f} cum /call  {calls:5d}x {where}")


def mid_direct():
    """65..512 rows, B column-major: the split-K kernel (gpu.splits today) against the TMA kernel, both launched
    directly from the second call on (split-K's remembered plan, gpu_launch.Direct), by lifting or lowering the
    routing limits (gpu.splits); plans forgotten between the two."""
    from intdot.gemm import gpu_tensors

    limits = g.SPLIT_M_WIDE, g.SPLIT_TILES_WIDE, g.SPLIT_NK_WIDE
    for nk in (4096, 8192, 16384):
        w = torch.randint(-128, 128, (nk, nk), dtype=torch.int8, device=dev)
        wcol = w.t().contiguous().t()
        for m in (96, 128, 192, 256, 384, 512):
            x = torch.randint(-128, 128, (m, nk), dtype=torch.int8, device=dev)
            ref, t_t = _torch_best(x, wcol)
            line = f"M={m} N=K={nk}: torch {t_t * 1e6:.1f} us;"
            for what, limit in (("split", (512, 1 << 30, 1 << 62)), ("tma", (g.SPLIT_M,) + limits[1:])):
                g.SPLIT_M_WIDE, g.SPLIT_TILES_WIDE, g.SPLIT_NK_WIDE = limit
                gpu_tensors._PLANS.clear()
                fn = lambda: gemm(x, wcol, op="sdot4")
                ok = all(torch.equal(fn(), ref) for _ in range(2))
                t = bench(fn)
                line += f" {what} {t * 1e6:.1f} us ({t_t / t:.2f}x, host {_host_us(fn, 200)[0]:.1f} us, exact={ok})"
            g.SPLIT_M_WIDE, g.SPLIT_TILES_WIDE, g.SPLIT_NK_WIDE = limits
            gpu_tensors._PLANS.clear()
            print(line, flush=True)


def big():
    n = 8192
    ops = 2 * n**3
    a = torch.randint(-128, 128, (n, n), dtype=torch.int8, device=dev)
    b = torch.randint(-128, 128, (n, n), dtype=torch.int8, device=dev)
    bt = b.t().contiguous()
    ref = torch._int_mm(a, bt.t())
    t_ref = bench(lambda: torch._int_mm(a, bt.t()))
    print(f"torch._int_mm B col {ops / t_ref / 1e12:.0f} TOPS", flush=True)
    out = torch.empty((n, n), dtype=torch.int32, device=dev)
    desc = g._triton()["TensorDescriptor"]
    args = (out, out, out, out, n, n, n, 0, 0, 0, 1)
    flags = dict(HAS_C=False, CENTRED=False)
    for bm, bn, bk, st, w, gr in ((128, 256, 128, 4, 8, 8),):
        da, db = desc.from_tensor(a, [bm, bk]), desc.from_tensor(bt, [bn, bk])
        run = lambda: g._triton()["mm_tma_raw"][(triton.cdiv(n, bm) * triton.cdiv(n, bn),)](
            da, db, *args, **flags, BM=bm, BN=bn, BK=bk, G=gr, num_stages=st, num_warps=w
        )
        try:
            out.zero_()
            run()
            ok = torch.equal(out, ref)
            t = bench(run, 200)
            print(f"tma {bm}x{bn}x{bk} s{st} w{w} G{gr}: {ops / t / 1e12:.0f} TOPS exact={ok}", flush=True)
        except Exception as exc:
            print(f"tma {bm}x{bn}x{bk} s{st} w{w} G{gr}: {type(exc).__name__} {str(exc)[:150]}", flush=True)


def ws():
    """Through gemm (B column-major and row-major): the Hopper kernel as gpu.py chooses its configuration, always
    ping-pong 128x128, always 128x256, and Triton's own TMA kernel (WS off); each checked against torch first."""
    variants = [
        ("chosen", dict(WS=True, WIDE_PER_SM=g.WIDE_PER_SM)),
        ("ping-pong", dict(WS=True, WIDE_PER_SM=1 << 30)),
        ("wide", dict(WS=True, WIDE_PER_SM=0)),
        ("triton", dict(WS=False)),
    ]
    saved = dict(WS=g.WS, WIDE_PER_SM=g.WIDE_PER_SM)
    for m, nk in ((8192, 8192), (4096, 4096), (1024, 4096), (512, 16384)):
        x = torch.randint(-128, 128, (m, nk), dtype=torch.int8, device=dev)
        wcol = torch.randint(-128, 128, (nk, nk), dtype=torch.int8, device=dev).t()
        wrow = wcol.contiguous()
        ref, t_ref = _torch_best(x, wcol)
        line = f"M={m} N=K={nk}: torch {2 * m * nk * nk / t_ref / 1e12:.0f} TOPS;"
        for name, knobs in variants:
            for attr, value in knobs.items():
                setattr(g, attr, value)
            for lay, w in (("col", wcol), ("row", wrow)):
                assert torch.equal(gemm(x, w, op="sdot4"), ref), (name, lay)
                t = bench(lambda: gemm(x, w, op="sdot4"))
                line += f" {name} B {lay} {t_ref / t:.2f}x"
        for attr, value in saved.items():
            setattr(g, attr, value)
        print(line, flush=True)


def layouts():
    """8192^3 sdot4 in each layout of A and B: the whole gemm call against its parts, each timed alone (the layout
    passes that make A and B K-contiguous, and the tensor-core kernel on operands already prepared), to find what a
    layout costs beyond its passes (A column-major with B row-major: 1.21x torch against 1.47x, ed5059e)."""
    n = 8192
    a = torch.randint(-128, 128, (n, n), dtype=torch.int8, device=dev)
    b = torch.randint(-128, 128, (n, n), dtype=torch.int8, device=dev)
    ref, t_ref = _torch_best(a, b.t().contiguous().t())
    print(f"8192^3: torch._int_mm B col {t_ref * 1e6:.0f} us", flush=True)
    for la, lb in (("row", "col"), ("row", "row"), ("col", "col"), ("col", "row")):
        x = a if la == "row" else a.t().contiguous().t()
        w = b if lb == "row" else b.t().contiguous().t()
        assert torch.equal(gemm(x, w, op="sdot4"), ref), (la, lb)
        a8, bt, out, args, flags = g._operands(x, w, None, False)
        parts = [("whole call", lambda: gemm(x, w, op="sdot4")), ("kernel", lambda: g._tma(a8, bt, args, flags))]
        if la == "col":
            parts.append(("pass for A", lambda: g.rows_int8(x)))
        if lb == "row":
            parts.append(("pass for B", lambda: g.cols_int8(w)))
        times = ", ".join(f"{what} {bench(fn) * 1e6:.0f} us" for what, fn in parts)
        print(f"  A {la} B {lb}: {times}", flush=True)


if __name__ == "__main__":
    for part in sys.argv[1:] or ["skinny", "host", "big"]:
        {
            "skinny": skinny,
            "skinny2": skinny2,
            "host": host,
            "big": big,
            "reduce": reduce,
            "row": row,
            "row_cost": row_cost,
            "clamp": clamp,
            "tune": tune,
            "mid": mid,
            "host_mid": lambda: host((128, 512)),
            "host_big": lambda: host((512,), 16384),
            "host_tma": host_tma,
            "tma_launch": tma_launch,
            "mid_direct": mid_direct,
            "ws": ws,
            "layouts": layouts,
        }[part]()
