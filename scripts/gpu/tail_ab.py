"""The last round's tiles cut along K into parts (gpu_gluon.mm_ws's TAIL, gpu_gluon.tail_split) so that the
programs it leaves idle take a part each, against the same kernels without; THIRDS (192x256 tiles, stores by TMA,
three stages) against WIDE (128x256, four stages).  Every variant is checked exact first, on shapes whose last
round is cut and on odd edges, five calls each (the parts meet through flags in memory, which must end each call at
0), then timed at 8192^3 at the H200's power cap on uniform random int8 (each call run back to back for 2 s,
alternating) and by do_bench (as bench/gemm.py times).

    python scripts/gpu/tail_ab.py [ROUNDS [NAME ...]]     # on the H200; NAME: VARIANTS' keys (default TIMED)

NAME "gemm" times intdot.gemm(op="sdot4") itself on the same operands beside the kernels it launches: what its
path costs beyond the launch, if anything; "torch" torch._int_mm (B column-major, its best), as bench/gemm.py
alternates with it.

On 2026-12-03 (scripts/gpu/h200-results.txt, twelfth session), 3 rounds: back to back, wide 1,326 TOPS (1,500-1,575
MHz), thirds 1,363 (1,560-1,725), thirds with the last round cut 1,375; do_bench, 5 rounds: 1,355 / 1,399 / 1,407.
Thirteenth session: thirds with the last round cut 1,362 / 1,405 (do_bench), and gemm itself the same, 1,362 / 1,405:
its path costs nothing beyond the launch.
"""

import sys

import torch
from power import compare, launch

from intdot.gemm import gemm, gpu_gluon

VARIANTS = {
    "wide, TMA stores": (dict(gpu_gluon.WIDE, CLUSTER=1), False),
    "thirds, TMA stores": (gpu_gluon.THIRDS, False),
    "thirds, TMA stores, tail cut": (gpu_gluon.THIRDS, True),
    "wide, TMA stores, tail cut": (dict(gpu_gluon.WIDE, CLUSTER=1), True),
    # Measured on 2026-12-03 (thirteenth session; sustained / do_bench TOPS, beside gemm's own 1,362 / 1,405): none
    # beats gemm's. Groups of 8 tile rows 1,352 / 1,399; stores in chunks of 32 columns through two buffers a
    # consumer 1,346 / 1,402. K steps of 64 draw more power an operation (the clock 1,500 MHz, not 1,620): six
    # stages 1,291 / 1,303, seven with 32-column chunks 1,283 / 1,306. A fourth stage with the stores from registers
    # (230 KB) 1,308 / 1,357, at 1,545 MHz.
    "thirds, tail cut, groups of 8": (dict(gpu_gluon.THIRDS, GROUP=8), True),
    "thirds, tail cut, groups of 32": (dict(gpu_gluon.THIRDS, GROUP=32), True),
    "thirds, tail cut, 32 x 2": (dict(gpu_gluon.THIRDS, EPI_COLS=32, EPI_BUFS=2), True),
    "thirds, tail cut, BK 64 x 6": (dict(gpu_gluon.THIRDS, BK=64, NUM=6), True),
    "thirds, tail cut, registers x 4": (dict(gpu_gluon.THIRDS, NUM=4, EPI_COLS=0, EPI_BUFS=0), True),
    "thirds, tail cut, BK 64 x 7, 32 x 1": (dict(gpu_gluon.THIRDS, BK=64, NUM=7, EPI_COLS=32), True),
    # gemm's THIRDS walk K backwards every other round (mm_ws's SNAKE), starting on the slices of A's rows the round
    # before read last. Measured on 2026-12-03 (fifteenth session), sustained / do_bench TOPS, against walking K
    # forwards: 1,361 / 1,382 against 1,351 / 1,379 (3 rounds), 1,341 / 1,390 against 1,337 / 1,372 (6 rounds);
    # groups of 24 1,352 / 1,369, groups of 8 1,347 / 1,378 (3 rounds). On a second board 1,393 / 1,424 against
    # 1,394 / 1,426; WIDE there 1,353 / 1,417 against 1,352 / 1,423 (WIDE keeps K forwards).
    "thirds, tail cut, K forwards": (dict(gpu_gluon.THIRDS, SNAKE=False), True),
    "thirds, tail cut, groups of 24": (dict(gpu_gluon.THIRDS, GROUP=24), True),
    "wide, TMA stores, tail cut, snake": (dict(gpu_gluon.WIDE, CLUSTER=1, SNAKE=True), True),
}
TIMED = ["wide, TMA stores", "thirds, TMA stores", "thirds, TMA stores, tail cut"]
CHECKS = [(8192, 7936, 8000), (1000, 6000, 784), (999, 6000, 2000), (8192, 8192, 8192), (6000, 8192, 1008)]


def check(names):
    for m, n, k in CHECKS:
        a = torch.randint(-128, 128, (m, k), dtype=torch.int8, device="cuda")
        bt = torch.randint(-128, 128, (n, k), dtype=torch.int8, device="cuda")
        out = torch.empty((m, n), dtype=torch.int32, device="cuda")
        ref = torch._int_mm(a, bt.t())
        for name in names:
            cfg, tail = VARIANTS[name]
            go, split, fl = launch(cfg, a, bt, out, tail)
            for _ in range(5):
                out.fill_(-7)
                go()
                assert torch.equal(out, ref), f"{name} not exact at {m}x{n}x{k}"
                assert fl is None or not fl.any(), "flags not back at 0"
            print(f"exact: {m}x{n}x{k} {name} (split {split}), 5 calls", flush=True)


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    names = sys.argv[2:] or TIMED
    check(list(dict.fromkeys([*(n for n in names if n in VARIANTS), "wide, TMA stores, tail cut"])))
    m = n = k = 8192
    a = torch.randint(-128, 128, (m, k), dtype=torch.int8, device="cuda")
    bt = torch.randint(-128, 128, (n, k), dtype=torch.int8, device="cuda")
    out = torch.empty((m, n), dtype=torch.int32, device="cuda")
    calls = {"gemm": lambda: gemm(a, bt.t(), op="sdot4"), "torch": lambda: torch._int_mm(a, bt.t())}
    runs = {name: calls.get(name) or launch(VARIANTS[name][0], a, bt, out, VARIANTS[name][1])[0] for name in names}
    compare(runs, 2 * m * n * k, f"{m}x{n}x{k} ", rounds=rounds, seconds=2.0)
    compare(runs, 2 * m * n * k, f"{m}x{n}x{k} do_bench ", rounds=rounds + 2)


if __name__ == "__main__":
    main()
