"""Whether cache hints on the Hopper kernel's copies spend less energy at the H200's power cap: gemm's 8192^3
kernel (gpu_gluon.THIRDS, the last round cut along K) with its TMA copies of A and B marked to stay in L2
(``evict_last``) and its TMA stores of the output marked to leave first (``evict_first``), so that the 256 MB the
output streams through L2 evicts fewer operand lines that later tiles read again from HBM.  Gluon cannot spell the
hints: gpu_ptx.hinted adds them to the PTX as the variant compiles (gpu_ptx.HINTS set meanwhile); each variant's
PTX constexpr differs, so that Triton's caches keep them apart.  Every variant is checked exact
first, then timed alternating (run back to back for 2 s, then by do_bench), the clock and power sampled.

    python scripts/gpu/l2_hint_ab.py [ROUNDS [NAME ...]]     # on the H200; NAME: VARIANTS' keys
"""

import sys

import torch
from power import compare, launch

from intdot.gemm import gpu_gluon, gpu_ptx

# name: gpu_ptx.HINTS while it compiles (A's and B's loads, the output's stores); None as Triton emits them.
VARIANTS = {
    "gemm's kernel": (None, None),
    "stores evict first": (None, "evict_first"),
    "loads evict last": ("evict_last", None),
    "loads evict last, stores evict first": ("evict_last", "evict_first"),
}


def built(name, a, bt, out):
    """The call of gemm's kernel in variant ``name``, compiled (by its first call) with its hints."""
    saved, gpu_ptx.HINTS = gpu_ptx.HINTS, VARIANTS[name]
    go = launch(dict(gpu_gluon.THIRDS, PTX=f"{gpu_ptx.TAG} {gpu_ptx.HINTS}"), a, bt, out, tail=True)[0]
    try:
        go()
        torch.cuda.synchronize()
    finally:
        gpu_ptx.HINTS = saved
    return go


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    names = sys.argv[2:] or list(VARIANTS)
    m = n = k = 8192
    a = torch.randint(-128, 128, (m, k), dtype=torch.int8, device="cuda")
    bt = torch.randint(-128, 128, (n, k), dtype=torch.int8, device="cuda")
    out = torch.empty((m, n), dtype=torch.int32, device="cuda")
    ref = torch._int_mm(a, bt.t())
    runs = {}
    for name in names:
        runs[name] = built(name, a, bt, out)
        for _ in range(3):
            out.fill_(-7)
            runs[name]()
            assert torch.equal(out, ref), f"{name} not exact"
        print(f"exact: {m}x{n}x{k} {name}, 3 calls", flush=True)
    compare(runs, 2 * m * n * k, f"{m}x{n}x{k} ", rounds=rounds, seconds=2.0)
    compare(runs, 2 * m * n * k, f"{m}x{n}x{k} do_bench ", rounds=rounds + 2)


if __name__ == "__main__":
    main()
