# ruff: noqa: E731  (lambdas name the timed variants)
"""Whether the H200 runs the 8192^3 int8 GEMM at its power cap: the Hopper kernel (intdot.gemm.gpu_gluon, its wide
tiles, without gemm's clusters) on random operands and on zeros, timed (do_bench medians, alternating), then the SM
clock, the board's power draw and NVIDIA's active clock-limit reasons (0x4: the software power cap)
sampled while each runs back to back for three seconds.

    python scripts/gpu/power.py     # on the H200

On 2026-12-02 (scripts/gpu/h200-results.txt): random data 1,385-1,421 TOPS at 682-698 W of the 700 W cap, the
clock held at 1,440-1,545 MHz; zeros 1,611 TOPS at 446-497 W and 1,980 MHz.  TOPS on random int8 data are the
power budget's: a kernel is faster there by doing less work per operation (data moved, operands read), not by
keeping more multiprocessors busy (stream-K over the last round of tiles, which idles 64 of 132 here, measured
1,387 against 1,421 TOPS).
"""

import statistics
import subprocess
import sys
from pathlib import Path

import torch
import triton

from intdot.gemm import gpu_gluon, gpu_ptx

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from timing import sustained  # noqa: E402  (bench/timing.py, shared with the bench)

N = 8192
SMI = ["nvidia-smi", "--query-gpu=clocks.sm,power.draw,clocks_throttle_reasons.active", "--format=csv,noheader"]


def launch(cfg, a, bt, out, tail=False):
    """(go, split, flags): go() calls mm_ws in configuration cfg (gpu_gluon's: its tile, EPI_COLS the width of the
    chunks stored by TMA, 0 from registers, and the kernel's constexprs) on a (M, K) and bt (N, K) into out, the
    last round of tiles cut along K into ``split`` parts where tail, meeting through the int32 ``flags``."""
    (m, k), n = a.shape, bt.shape[0]
    parts, c, cols = cfg.get("PARTS", 2), cfg.get("CLUSTER", 1), cfg.get("EPI_COLS", 0)
    da = gpu_gluon.descriptor(a, [gpu_gluon.a_rows(cfg), cfg["BK"]])
    db = gpu_gluon.descriptor(bt, [cfg["BN"] // c, cfg["BK"]])  # a cluster's c programs copy 1/c of B's tile each
    flags = {key: value for key, value in cfg.items() if key not in ("BM", "BN", "BK", "EPI_COLS")}
    flags.update(PARTS=parts, CLUSTER=c, EPI_BUFS=flags.get("EPI_BUFS", 0) if cols else 0)
    if cols:
        flags["out_desc"] = gpu_gluon.out_descriptor(out, (cfg["BM"] // parts, cols))
    sms = torch.cuda.get_device_properties("cuda").multi_processor_count
    tiles = triton.cdiv(m, cfg["BM"]) * triton.cdiv(n, cfg["BN"])
    grid = (min(sms, tiles) // c * c,)
    split = gpu_gluon.tail_split(tiles, grid[0], triton.cdiv(k, cfg["BK"])) if tail else 1
    if split > 1:
        flags.update(TAIL=True, split=split, flags_ptr=torch.zeros(sms * parts, dtype=torch.int32, device="cuda"))
    args = (out, out, out, out, m, n, k, 0, 0, 0, 1)  # c, out, the centring's sums (unused), M, N, K, za, zb, zz, sign
    go = lambda: gpu_gluon.mm_ws[grid](da, db, *args, HAS_C=False, CENTRED=False, **flags)
    return go, split, flags.get("flags_ptr")


def rewrite_ptx(rewrite):
    """Put a stage hook after gpu_ptx's, so that every kernel's PTX passes through ``rewrite(ptx)`` as it compiles:
    an experiment's change to what Gluon emits.  Triton's caches do not see the hook: a kernel compiled with and
    without the change must differ in a constexpr (mm_ws's PTX)."""
    from triton import knobs

    gpu_ptx.install()
    previous = knobs.runtime.add_stages_inspection_hook

    def hook(backend, stages, options, language, capability):
        previous(backend, stages, options, language, capability)
        make_ptx = stages["ptx"]
        stages["ptx"] = lambda src, metadata: rewrite(make_ptx(src, metadata))

    knobs.runtime.add_stages_inspection_hook = hook


def kernel(fill, base=None, **over):
    """The 8192^3 call of the Hopper kernel on operands made by fill, checked against torch; ``base``: the
    configuration (the wide one stored from registers unless given, e.g. gpu_gluon.THIRDS, whose stores stay by
    TMA unless ``over`` says); ``over``: what replaces its own (BK its K step, EPI_COLS the width of the chunks
    stored by TMA with EPI_BUFS buffers a consumer, CLUSTER 1 unless said, constexprs)."""
    cfg = dict(base or dict(gpu_gluon.WIDE, EPI_COLS=0, EPI_BUFS=0), CLUSTER=1)
    cfg.update(over)
    a = fill((N, N), dtype=torch.int8, device="cuda")
    bt = fill((N, N), dtype=torch.int8, device="cuda")
    out = torch.empty((N, N), dtype=torch.int32, device="cuda")
    go = launch(cfg, a, bt, out)[0]
    go()
    assert torch.equal(out, torch._int_mm(a, bt.t())), "not exact"
    return go


def sampled(fn, seconds=3.0):
    """nvidia-smi's samples (every 200 ms) while fn runs back to back, the first few (ramping up) left out."""
    smi = subprocess.Popen([*SMI, "-lms", "200"], stdout=subprocess.PIPE, text=True)
    sustained(fn, seconds)
    smi.terminate()
    return smi.communicate()[0].split("\n")[3:-1]


def compare(runs, ops, label="", rounds=6, rep=200, seconds=None):
    """Each of ``runs`` ({name: fn}) timed by do_bench (or, given ``seconds``, run back to back for that long:
    bench/timing.sustained), the runs alternating over ``rounds`` rounds: its median TOPS (and the slowest and
    fastest round) for ``ops`` operations a call; then nvidia-smi's samples while each runs back to back."""
    times = {name: [] for name in runs}
    for _ in range(rounds):
        for name, go in runs.items():
            if seconds:
                times[name].append(sustained(go, seconds))
            else:
                times[name].append(triton.testing.do_bench(go, warmup=25, rep=rep, return_mode="median") * 1e-3)
    how = f"{seconds} s back to back" if seconds else "do_bench"
    for name in runs:
        ts = sorted(times[name])
        tops = [ops / t / 1e12 for t in (statistics.median(ts), ts[-1], ts[0])]
        print(f"{label}{name}: {tops[0]:.0f} TOPS ({tops[1]:.0f}-{tops[2]:.0f}, {rounds} rounds, {how})", flush=True)
    for name, go in runs.items():
        print(f"  {label}{name} back to back: {'; '.join(sampled(go))}", flush=True)


def main():
    kernels = {
        "random": kernel(lambda shape, **kw: torch.randint(-128, 128, shape, **kw)),
        "zeros": kernel(torch.zeros),
    }
    compare(kernels, 2 * N**3, rep=100)


if __name__ == "__main__":
    main()
