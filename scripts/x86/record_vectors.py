"""Record what an x86 CPU computes, for every VNNI / AVX-VNNI intrinsic, the AVX2 idiom's parts and AMX-INT8.

Run on a machine whose CPU has the instructions (an Intel Xeon with avx512_vnni, avx_vnni, amx_int8):

    python3 scripts/x86/record_vectors.py --out tests/data

It compiles ``x86_oracle.c`` (beside this file) with gcc, runs every function the CPU has on the
deterministic inputs of ``tests/oracles/x86.py`` (SplitMix64: a quarter random, the rest extreme lanes
and accumulators; AMX: full 16 x 16 x 64 tiles and odd shapes, half random, half extreme), and writes
``x86_vnni.npz`` and ``x86_amx.npz``: per function the number of registers (tile operations), the
BLAKE2b-64 digest of each chunk of outputs, and the first outputs in full.  The inputs are not stored:
the tests re-create them from the seed.  Nothing here imports intdot.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("x86_oracle", HERE.parents[1] / "tests" / "oracles" / "x86.py")
oracle = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(oracle)

CHUNK = 1024  # registers per digest
HEAD = 256  # registers stored in full
TILE_CHUNK, TILE_HEAD = 64, 8
TILE_SHAPES = (
    (16, 16, 64, 8192),
    (1, 1, 4, 512),
    (16, 16, 4, 512),
    (7, 5, 12, 512),
    (3, 16, 36, 512),
    (16, 1, 64, 512),
)


def cpu_name() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor()


def record_registers(lib, n: int) -> dict:
    out, counts = {}, {}
    for name in oracle.dir_functions():
        intrinsic = name[1:]  # o_mm512_... -> _mm512_...
        lacks = oracle.cpu_lacks(oracle.feature_of(intrinsic))
        if lacks:
            print(f"skip {intrinsic}: CPU lacks {', '.join(lacks)}", flush=True)
            continue
        nbytes, lane = oracle.register_bytes(intrinsic), oracle.lane_bytes(intrinsic)
        src, a, b, k = oracle.registers(oracle.seed_of(intrinsic), n, nbytes, lane)
        res = oracle.run(lib, intrinsic, src, a, b, k if "_mask" in intrinsic else None)
        out[f"{intrinsic}.n"] = np.int64(n)
        out[f"{intrinsic}.digests"] = oracle.digests(res, CHUNK)
        out[f"{intrinsic}.head"] = res[:HEAD]
        counts[intrinsic] = n
    return out, counts


def record_tiles(lib) -> tuple[dict, dict]:
    out, counts = {}, {}
    lacks = oracle.cpu_lacks("amx-int8")
    if lacks:
        print(f"skip AMX: CPU lacks {', '.join(lacks)}", flush=True)
        return out, counts
    if not oracle.amx_permission(lib):
        print("skip AMX: arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) was refused", flush=True)
        return out, counts
    for mn in ("tdpbssd", "tdpbsud", "tdpbusd", "tdpbuud"):
        for m, nn, kk, n in TILE_SHAPES:
            key = f"{mn}.{m}x{nn}x{kk}"
            c, a, b = oracle.tiles(oracle.seed_of(key), n, m, nn, kk)
            res = oracle.run_tiles(lib, mn, c, a, b)
            out[f"{key}.n"] = np.int64(n)
            out[f"{key}.digests"] = oracle.digests(res, TILE_CHUNK)
            out[f"{key}.head"] = res[:TILE_HEAD]
            counts[key] = n
    return out, counts


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, required=True, help="folder for x86_vnni.npz and x86_amx.npz")
    p.add_argument("--n", type=int, default=1 << 17, help="registers per intrinsic (default 131072)")
    p.add_argument("--amx-only", action="store_true", help=argparse.SUPPRESS)  # the child process
    args = p.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    cc = oracle.compiler()
    lib = oracle.library(cc)
    version = subprocess.run([cc, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    meta = {"cpu": cpu_name(), "cc": version, "n": args.n, "chunk": CHUNK, "tile_chunk": TILE_CHUNK}
    if args.amx_only:
        tiles, counts = record_tiles(lib)
        if tiles:
            np.savez_compressed(args.out / "x86_amx.npz", meta=json.dumps(meta), **tiles)
        print(json.dumps(counts))
        return 0
    t = time.time()
    regs, counts = record_registers(lib, args.n)
    np.savez_compressed(args.out / "x86_vnni.npz", meta=json.dumps(meta), **regs)
    print(f"registers: {len(counts)} functions x {args.n} in {time.time() - t:.1f} s", flush=True)
    # AMX runs in a child: where the kernel refuses the tile state, a tile instruction kills the process.
    t = time.time()
    child = subprocess.run([sys.executable, __file__, "--out", str(args.out), "--amx-only"], text=True)
    print(f"tiles: exit {child.returncode} in {time.time() - t:.1f} s", flush=True)
    return child.returncode


if __name__ == "__main__":
    sys.exit(main())
