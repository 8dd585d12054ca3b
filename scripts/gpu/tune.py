# ruff: noqa: B023  (each closure runs inside its own loop iteration)
"""Time the int8 GEMM kernels of intdot.gemm.gpu over explicit configurations at 8192^3 (no autotune), each
checked bit for bit against torch._int_mm first, plus transpose tilings.  Prints one line per variant."""

import sys

import torch
import triton

from intdot.gemm import gpu as g

n = int(sys.argv[1]) if len(sys.argv) > 1 else 8192
k = g._triton()
dev = "cuda"
a = torch.randint(-128, 128, (n, n), dtype=torch.int8, device=dev)
b = torch.randint(-128, 128, (n, n), dtype=torch.int8, device=dev)
ref = torch._int_mm(a, b)
bt = b.t().contiguous()
out = torch.empty((n, n), dtype=torch.int32, device=dev)
ops = 2 * n**3
sms = torch.cuda.get_device_properties(0).multi_processor_count


def bench(fn):
    return triton.testing.do_bench(fn, warmup=50, rep=300)


t_ref = bench(lambda: torch._int_mm(a, b))
print(f"torch._int_mm {ops / t_ref / 1e9:.0f} TOPS", flush=True)
CONFIGS = [
    (128, 256, 128, 3, 8),
    (128, 256, 128, 4, 8),
    (256, 128, 128, 3, 8),
    (256, 128, 128, 4, 8),
    (128, 256, 256, 2, 8),
    (128, 256, 64, 5, 8),
    (128, 128, 256, 3, 4),
    (128, 128, 128, 5, 4),
    (256, 128, 64, 6, 8),
]
args = (out, out, out, out, n, n, n, 0, 0, 0, 1)
flags = dict(HAS_C=False, CENTRED=False, G=8)
results = []
for kind in ("plain", "tma", "persist"):
    for bm, bn, bk, st, w in CONFIGS:
        cfg = dict(BM=bm, BN=bn, BK=bk, num_stages=st, num_warps=w)
        grid = ((n // bm) * (n // bn),)
        try:
            if kind == "plain":

                def run():
                    k["mm_raw"][grid](a, bt, *args, **flags, **cfg)
            else:
                da = k["TensorDescriptor"].from_tensor(a, [bm, bk])
                db = k["TensorDescriptor"].from_tensor(bt, [bn, bk])
                if kind == "tma":

                    def run():
                        k["mm_tma_raw"][grid](da, db, *args, **flags, **cfg)
                else:

                    def run():
                        k["mm_persist_raw"][(min(sms, grid[0]),)](da, db, *args, **flags, **cfg, NUM_SMS=sms)

            out.zero_()
            run()
            ok = torch.equal(out, ref)
            t = bench(run)
            results.append((ops / t / 1e9, kind, cfg, ok))
            print(f"{kind:8} {bm}x{bn}x{bk} s{st} w{w}: {ops / t / 1e9:6.0f} TOPS exact={ok}", flush=True)
        except Exception as exc:
            print(f"{kind:8} {bm}x{bn}x{bk} s{st} w{w}: {type(exc).__name__} {str(exc)[:120]}", flush=True)
best = max(r for r in results if r[3])
print("best:", best, f"{best[0] / (ops / t_ref / 1e9):.2f}x torch._int_mm (kernel only)")
for tile, cols, warps in ((64, 64, 4), (128, 128, 8), (64, 256, 8), (128, 64, 4), (32, 256, 4), (256, 64, 8)):
    t = bench(lambda: g.transposed(b, tile, cols, warps))
    print(f"transpose {tile}x{cols} w{warps}: {t * 1e3:.1f} us ({2 * n * n / t / 1e6:.0f} GB/s)")
