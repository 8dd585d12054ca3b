"""The 8192^3 kernel with its tiles stored from registers (as gemm runs it) against stored by TMA through shared
memory in chunks (gpu_gluon._store_by_tma), on uniform random int8 at the H200's power cap: alternating rounds,
each call run back to back for 2 s (bench/timing.sustained), every variant checked exact first.

    python scripts/gpu/epi_ab.py [ROUNDS]     # on the H200

On 2026-12-03 (scripts/gpu/h200-results.txt, eleventh session), without clusters, 4 rounds: registers 1,260 TOPS,
TMA 32 columns x 2 buffers 1,281, 64 x 2 with three stages 1,292, 64 x 1 1,297.
"""

import sys

import torch
from power import compare, kernel

N = 8192
VARIANTS = {
    "registers": {},
    "TMA 64 cols x1": dict(EPI_COLS=64, EPI_BUFS=1),
    "registers, clusters of 2": dict(CLUSTER=2),
    "TMA 64 cols x1, clusters of 2": dict(EPI_COLS=64, EPI_BUFS=1, CLUSTER=2),
}


def main():
    fill = lambda shape, **kw: torch.randint(-128, 128, shape, **kw)  # noqa: E731
    runs = {name: kernel(fill, **over) for name, over in VARIANTS.items()}
    compare(runs, 2 * N**3, rounds=int(sys.argv[1]) if len(sys.argv) > 1 else 4, seconds=2.0)


if __name__ == "__main__":
    main()
