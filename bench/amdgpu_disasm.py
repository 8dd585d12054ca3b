"""Bulk disassembly of AMD GPU dot instructions (intdot.amdgpu.disassemble_array) against the scalar decoder and
against a plain copy of the same bytes, measured in the same run (interleaved, best of several).

    .venv/bin/python bench/amdgpu_disasm.py [--words N]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from intdot import amdgpu
from intdot.amdgpu.asm import decode_one


def _words(n: int, rng) -> tuple[np.ndarray, np.ndarray]:
    seeds = [amdgpu.assemble(t, "gfx1100") for t in ("v_dot4_i32_iu8 v0, v1, v2, v3 neg_lo:[1,0,0]",
                                                     "v_dot8_u32_u4 v7, s1, v2, v3 clamp")]  # fmt: skip
    base = np.frombuffer(b"".join(seeds), "<u8")
    w = base[rng.integers(0, len(base), n)] ^ (rng.integers(0, 1 << 16, n).astype(np.uint64) << np.uint64(32))
    return w, rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--words", type=int, default=200_000)
    n = ap.parse_args().words
    w, lits = _words(n, np.random.default_rng(0))
    data = w.tobytes()
    sample = min(n, 20_000)
    best = {"copy": 1e9, "bulk": 1e9, "scalar": 1e9}
    for _ in range(3):
        t = time.perf_counter()
        w.copy()
        best["copy"] = min(best["copy"], time.perf_counter() - t)
        t = time.perf_counter()
        amdgpu.disassemble_array(w, "gfx1100", literals=lits, errors="mark")
        best["bulk"] = min(best["bulk"], time.perf_counter() - t)
        t = time.perf_counter()
        for i in range(sample):
            insn = decode_one(data, 8 * i, "gfx1100")
            if insn is not None:
                insn.text  # noqa: B018 - the text is the work
        best["scalar"] = min(best["scalar"], (time.perf_counter() - t) * n / sample)
    for k, v in best.items():
        print(f"{k:>7}: {n / v / 1e6:10.2f} M words/s")
    print(f"bulk is {best['scalar'] / best['bulk']:.1f}x the scalar decoder, {best['bulk'] / best['copy']:.0f}x a copy")


if __name__ == "__main__":
    main()
