# ruff: noqa: E731  (lambdas name the timed variants)
"""The Hopper kernel's wide configuration in clusters of 1, 2 and 4 programs sharing B's tile by TMA multicast
(gpu_gluon.mm_ws's CLUSTER, gpu_ptx.clustered), each checked bit for bit on random, extreme and uneven inputs,
then timed at 8192^3 alternating (do_bench medians, as bench/gemm.py), with the SM clock and the board's power
sampled while each runs back to back (scripts/gpu/power.py).

    python scripts/gpu/cluster_ab.py        # on the H200
    python scripts/gpu/cluster_ab.py gemm   # only gemm's own path (gpu.mm_int8), multicast on and off
    python scripts/gpu/cluster_ab.py gemm M N K ...   # the same on shapes (M, N, K), A row- and B column-major

gemm's path: gpu.mm_int8 on three layouts of A and B at 8192^3 (no plan remembered: each call reads
gpu.MULTICAST), the two settings alternating with each other and torch._int_mm on B column-major.
"""

import ctypes
import sys

import torch
import triton
from power import compare

from intdot.gemm import gpu, gpu_gluon, gpu_ptx

gpu_ptx.install()
SIZES = (1, 2, 4)
# Variants of the rewrite, for finding where time goes: "" as gpu_ptx writes it; "release": the arrivals on the
# programs' barriers with .release.cluster (the first version, 805 TOPS); "co": CLUSTER 1 launched in clusters of
# 2 (the programs' placement alone, nothing shared).
VARIANT = [""]
_clustered = gpu_ptx.clustered


def _variant(ptx):
    out = _clustered(ptx)
    if VARIANT[0] == "release":
        out = out.replace("mbarrier.arrive.shared::cluster.b64", "mbarrier.arrive.release.cluster.shared::cluster.b64")
    if VARIANT[0] == "co" and ".reqnctapercluster" not in out and ".entry mm_ws(" in out:
        out = out.replace(".reqntid 384\n", ".reqntid 384\n.reqnctapercluster 2, 1, 1\n")
    return out


gpu_ptx.clustered = _variant


class LaunchConfig(ctypes.Structure):
    _fields_ = [
        ("grid", ctypes.c_uint * 3),
        ("block", ctypes.c_uint * 3),
        ("shared", ctypes.c_uint),
        ("stream", ctypes.c_void_p),
        ("attrs", ctypes.c_void_p),
        ("n_attrs", ctypes.c_uint),
    ]


def max_clusters(compiled, size):
    """How many clusters of the compiled kernel the GPU runs at once (cuOccupancyMaxActiveClusters)."""
    compiled._init_handles()
    cuda = ctypes.CDLL("libcuda.so.1")
    threads = compiled.metadata.num_warps * 32
    cfg = LaunchConfig((size * 33, 1, 1), (threads, 1, 1), compiled.metadata.shared, None, None, 0)
    n = ctypes.c_int(0)
    err = cuda.cuOccupancyMaxActiveClusters(ctypes.byref(n), ctypes.c_void_p(compiled.function), ctypes.byref(cfg))
    return n.value if err == 0 else f"error {err}"


def launcher(a, bt, out, size, grid=None, variant="", **changes):
    cfg = dict(gpu_gluon.WIDE, **changes)
    bm, bn, bk = cfg["BM"], cfg["BN"], cfg["BK"]
    m, k = a.shape  # the launch returns the compiled kernel (max_clusters)
    n = bt.shape[0]
    da, db = gpu_gluon.descriptor(a, [bm, bk]), gpu_gluon.descriptor(bt, [bn // size, bk])
    sms = torch.cuda.get_device_properties("cuda").multi_processor_count
    tiles = triton.cdiv(triton.cdiv(m, bm), size) * triton.cdiv(n, bn) * size
    grid = grid or min(sms // size * size, tiles)
    args = (out, out, out, out, m, n, k, 0, 0, 0, 1)  # c, out, the centring's sums (unused), M, N, K, za, zb, zz, sign
    flags = dict(HAS_C=False, CENTRED=False, GROUP=cfg["GROUP"], NUM=cfg["NUM"], PING=False, num_warps=cfg["num_warps"])
    tag = f"{gpu_ptx.TAG}-{variant}-{changes}"

    def go():
        VARIANT[0] = variant  # read by the rewrite while this launch compiles (the first)
        return gpu_gluon.mm_ws[(grid,)](da, db, *args, **flags, CLUSTER=size, PTX=tag)

    return go


def check():
    for m, n, k, fill in (
        (8192, 8192, 8192, None),
        (8000, 7936, 8000, None),
        (1000, 520, 4208, -128),
        (129, 33, 96, 127),
    ):
        if fill is None:
            a = torch.randint(-128, 128, (m, k), dtype=torch.int8, device="cuda")
            bt = torch.randint(-128, 128, (n, k), dtype=torch.int8, device="cuda")
        else:
            a = torch.full((m, k), fill, dtype=torch.int8, device="cuda")
            bt = torch.full((n, k), fill, dtype=torch.int8, device="cuda")
        ref = (a.double() @ bt.double().t()).remainder(2**32)  # exact: every sum is below 2**53
        for size in SIZES:
            out = torch.zeros((m, n), dtype=torch.int32, device="cuda")
            go = launcher(a, bt, out, size)
            go()
            torch.cuda.synchronize()
            got = out.double().remainder(2**32)
            print(f"{m}x{n}x{k} fill {fill} cluster {size}: exact={torch.equal(got, ref)}", flush=True)


def main():
    import shutil

    print("profilers:", shutil.which("ncu"), shutil.which("nsys"))
    check()
    n = 8192
    a = torch.randint(-128, 128, (n, n), dtype=torch.int8, device="cuda")
    bt = torch.randint(-128, 128, (n, n), dtype=torch.int8, device="cuda")
    out = torch.empty((n, n), dtype=torch.int32, device="cuda")
    ref = (a.double() @ bt.double().t()).remainder(2**32)
    runs = {
        "1": launcher(a, bt, out, 1),
        "2": launcher(a, bt, out, 2),
        "4 on 120": launcher(a, bt, out, 4, grid=120),
        "2 release": launcher(a, bt, out, 2, variant="release"),
        "1 co": launcher(a, bt, out, 1, variant="co"),
        "2 BK64": launcher(a, bt, out, 2, BK=64, NUM=8),
        "2 G8": launcher(a, bt, out, 2, GROUP=8),
    }
    for key, go in runs.items():
        out.zero_()
        compiled = go()
        torch.cuda.synchronize()
        exact = torch.equal(out.double().remainder(2**32), ref)
        print(f"cluster {key}: exact={exact}, at most {max_clusters(compiled, int(key[0]))} clusters at once")
    runs["torch B col"] = lambda: torch._int_mm(a, bt.t())
    compare(runs, 2 * n**3, "cluster ", rounds=4, rep=100)


def through_gemm(m=8192, n=8192, k=8192, pairs=(("row", "col"), ("row", "row"), ("col", "col"))):
    a = torch.randint(-128, 128, (m, k), dtype=torch.int8, device="cuda")
    b = torch.randint(-128, 128, (k, n), dtype=torch.int8, device="cuda")
    layouts = {"row": lambda x: x.contiguous(), "col": lambda x: x.t().contiguous().t()}
    ref = (a.double() @ b.double()).remainder(2**32)
    b_col = layouts["col"](b)

    def call(x, y, multicast):
        def go():
            gpu.MULTICAST = multicast
            return gpu.mm_int8(x, y)

        return go

    for al, bl in pairs:
        x, y = layouts[al](a), layouts[bl](b)
        runs = {f"A {al} B {bl} multicast {on}": call(x, y, on) for on in (True, False)}
        for key, go in runs.items():
            print(f"{key}: exact={torch.equal(go().double().remainder(2**32), ref)}", flush=True)
        runs["torch B col"] = lambda: torch._int_mm(a, b_col)
        compare(runs, 2 * m * n * k, f"gemm {m}x{n}x{k} ", rounds=4, rep=200)


if __name__ == "__main__":
    if sys.argv[1:2] == ["gemm"]:
        shapes = [int(x) for x in sys.argv[2:]]
        for i in range(0, len(shapes), 3):
            through_gemm(*shapes[i : i + 3], pairs=(("row", "col"),))
        if not shapes:
            through_gemm()
    else:
        main()
