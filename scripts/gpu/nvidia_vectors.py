"""Run every NVIDIA dp4a/dp2a/MMA variant on the GPU and store compact vectors: tests/data/nvidia_{dp,mma}.npz.

Usage, on a CUDA machine from the repository root (needs nvcc and NumPy only; not intdot)::

    python3 scripts/gpu/nvidia_vectors.py [--out tests/data] [--quick]

It builds ``scripts/gpu/nvidia_vectors.cu`` with nvcc (``-arch=sm_90`` unless ``--arch``; the 4-bit
``m16n8k64`` MMA forms are added when ptxas accepts them), feeds each variant the inputs of
``tests/nvidia/vector_inputs.py`` (seed-reproducible: a uniform part and a part of edge values, >= 10**6 values
per variant) and stores, per variant and part, the first outputs in full and a BLAKE2b hash of every block of
outputs, so that the tests recompute and compare all of them.  The signed MMA variants also run the saturation
probes (one tile per ordered pair of K indices) whose outputs show where ``.satfinite`` saturates; those are
stored in full.  A NumPy model of each instruction, written here from the PTX ISA text, prints how many
outputs differ from it (the stored values are the GPU's, whatever the model says).
"""

from __future__ import annotations

import argparse
import ctypes
import datetime
import hashlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from tests.nvidia.vector_inputs import (  # noqa: E402
    BLOCK,
    FIRST,
    PARTS,
    PROBE_LANES,
    dp_inputs,
    mma_inputs,
    probe_inputs,
    probe_pairs,
)

SOURCE = Path(__file__).with_suffix(".cu")
INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1


def build(arch: str, work: Path) -> tuple[ctypes.CDLL, str, Path]:
    """The library, with the 4-bit forms if ptxas takes them; the note says what happened."""
    lib = work / "libnvvectors.so"
    base = ["nvcc", "-O2", f"-arch={arch}", "-shared", "-Xcompiler", "-fPIC", str(SOURCE), "-o", str(lib)]
    r = subprocess.run([*base, "-DWITH_INT4"], capture_output=True, text=True)
    note = f"nvcc -arch={arch} -DWITH_INT4: accepted"
    if r.returncode:
        note = f"nvcc -arch={arch} -DWITH_INT4 refused: {(r.stderr or r.stdout).strip()[-1500:]}"
        subprocess.run(base, check=True)
    print(note, flush=True)
    return ctypes.CDLL(str(lib)), note, lib


def u32(x: np.ndarray):
    return np.ascontiguousarray(x, dtype=np.uint32).ctypes.data_as(ctypes.POINTER(ctypes.c_uint32))


def run_dp(lib, v: int, a, b, c) -> np.ndarray:
    d = np.empty(a.size, dtype=np.uint32)
    a, b, c = (np.ascontiguousarray(x, dtype=np.uint32) for x in (a, b, c))
    err = lib.run_dp(v, u32(a), u32(b), u32(c), u32(d), ctypes.c_size_t(a.size))
    if err:
        raise RuntimeError(f"run_dp({v}) failed with CUDA error {err}")
    return d


def run_mma(lib, v: int, a, b, c) -> np.ndarray:
    a, b, c = (np.ascontiguousarray(x, dtype=np.uint32) for x in (a, b, c))
    d = np.empty(c.shape, dtype=np.uint32)
    err = lib.run_mma(v, u32(a), u32(b), u32(c), u32(d), ctypes.c_int(c.shape[0]))
    if err:
        raise RuntimeError(f"run_mma({v}) failed with CUDA error {err}")
    return d


def hashes(out: np.ndarray) -> np.ndarray:
    """BLAKE2b-64 of every BLOCK outputs (little-endian uint32), as a (blocks, 8) uint8 array."""
    flat = out.reshape(-1).astype("<u4")
    return np.array(
        [
            np.frombuffer(hashlib.blake2b(flat[i : i + BLOCK].tobytes(), digest_size=8).digest(), np.uint8)
            for i in range(0, flat.size, BLOCK)
        ]
    )


# --- a NumPy model, from the PTX ISA text, for the printed check only -------------------------------------


def lanes(words: np.ndarray, width: int, signed: bool) -> np.ndarray:
    """(..., 32 // width) int64 lanes, lane 0 the low bits."""
    w = words.astype(np.int64)[..., None] >> np.arange(0, 32, width, dtype=np.int64)
    w &= (1 << width) - 1
    return np.where(signed & (w >= 1 << (width - 1)), w - (1 << width), w)


def model_dp(name: str, a, b, c) -> np.ndarray:
    cuda = name.startswith("__")
    if cuda:  # __dp4a(int...) is dp4a.s32.s32; the unsigned/uchar4/ushort2 overloads are .u32.u32
        signed = "unsigned" not in name and "uchar" not in name and "ushort" not in name
        sa = sb = signed
        kind = name[2:].split("(")[0]  # dp4a, dp2a_lo, dp2a_hi
    else:
        parts = name.split(".")
        sa, sb = parts[-2] == "s32", parts[-1] == "s32"
        kind = "_".join(parts[:-2])
    if kind == "dp4a":
        d = (lanes(a, 8, sa) * lanes(b, 8, sb)).sum(-1)
    else:
        bl = lanes(b, 8, sb)
        bl = bl[..., 2:4] if kind.endswith("hi") else bl[..., 0:2]
        d = (lanes(a, 16, sa) * bl).sum(-1)
    return ((c.astype(np.int64) + d) & 0xFFFFFFFF).astype(np.uint32)


def mma_parse(name: str):
    words = name.split(".")
    return words[-3], words[-2], "satfinite" in words


def tile_lanes(words: np.ndarray, width: int, signed: bool) -> np.ndarray:
    """(tiles, rows, 8 words) -> (tiles, rows, K) lanes."""
    x = lanes(words, width, signed)
    return x.reshape(*words.shape[:-1], -1)


def model_mma(name: str, a, b, c, chunk: int | None = None) -> np.ndarray:
    """D = C + A B, wrapped; with satfinite, saturated to int32 once (chunk None) or after each chunk of K."""
    at, bt, sat = mma_parse(name)
    width = int(at[1:])
    la = tile_lanes(a, width, at[0] == "s")  # (t, 16, K)
    lb = tile_lanes(b, width, bt[0] == "s")  # (t, 8, K)
    acc = c.astype(np.int32).astype(np.int64)
    k = la.shape[-1]
    step = chunk or k
    for s in range(0, k, step):
        acc = acc + np.einsum("tik,tjk->tij", la[..., s : s + step], lb[..., s : s + step])
        if sat:
            acc = np.clip(acc, INT32_MIN, INT32_MAX)
    return (acc & 0xFFFFFFFF).astype(np.uint32)


# ------------------------------------------------------------------------------------------------------------


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default=str(ROOT / "tests" / "data"), help="folder for nvidia_dp.npz, nvidia_mma.npz")
    p.add_argument("--arch", default="sm_90")
    p.add_argument("--quick", action="store_true", help="skip the CUDA overloads (a smoke run)")
    args = p.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="nvvectors-"))
    lib, note, so = build(args.arch, work)
    for f in ("dp_name", "mma_name"):
        getattr(lib, f).restype = ctypes.c_char_p
    smi = subprocess.run(
        ["nvidia-smi", "--query-gpu=name,driver_version,compute_cap", "--format=csv,noheader"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    nvcc = subprocess.run(["nvcc", "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    meta = {
        "gpu": smi,
        "nvcc": nvcc,
        "arch": args.arch,
        "int4": note,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "script": "scripts/gpu/nvidia_vectors.py",
    }
    print(json.dumps(meta), flush=True)
    sass = subprocess.run(["cuobjdump", "--dump-sass", str(so)], capture_output=True, text=True).stdout
    (out / "nvidia_sass.txt").write_text(sass)

    # dp4a / dp2a
    names, seeds, firsts, hs = [], [], [], []
    for v in range(lib.dp_count()):
        name = lib.dp_name(v).decode()
        if args.quick and name.startswith("__"):
            continue
        a_width = 8 if "dp4a" in name else 16
        seed = 1000 + v
        f, h, bad = [], [], 0
        for part in PARTS:
            a, b, c = dp_inputs(seed, part, a_width, 8)
            d = run_dp(lib, v, a, b, c)
            bad += int((d != model_dp(name, a, b, c)).sum())
            f.append(d[:FIRST])
            h.append(hashes(d))
        names.append(name)
        seeds.append(seed)
        firsts.append(f)
        hs.append(h)
        print(f"{name:55s} {2 * a.size:8d} values, {bad} differ from the wrap model", flush=True)
    np.savez_compressed(
        out / "nvidia_dp.npz",
        names=np.array(names),
        seeds=np.array(seeds),
        first=np.array(firsts, dtype=np.uint32),
        hashes=np.array(hs, dtype=np.uint8),
        meta=np.array(json.dumps(meta)),
    )

    # MMA
    names, seeds, firsts, hs, probes = [], [], [], [], {}
    findings = {}
    for v in range(lib.mma_count()):
        name = lib.mma_name(v).decode()
        at, bt, sat = mma_parse(name)
        width = int(at[1:])
        seed = 2000 + v
        f, h = [], []
        bad = {"once": 0, "wrap": 0, **({f"chunk{k}": 0 for k in (4, 8, 16)} if sat else {})}
        for part in PARTS:
            a, b, c = mma_inputs(seed, part, width)
            d = run_mma(lib, v, a, b, c)
            for key in bad:
                model_name = name if key != "wrap" else name.replace(".satfinite", "")
                chunk = None if key in ("once", "wrap") else int(key[5:]) * (8 // width)
                bad[key] += int((d != model_mma(model_name, a, b, c, chunk)).sum())
            f.append(d.reshape(-1)[:FIRST])
            h.append(hashes(d))
        names.append(name)
        seeds.append(seed)
        firsts.append(f)
        hs.append(h)
        print(f"{name:60s} {2 * d.size:8d} values; outputs that differ from each model: {bad}", flush=True)
        if (at, bt) in PROBE_LANES:
            for direction in ("down", "up"):
                a, b, c = probe_inputs(at, bt, direction)
                d = run_mma(lib, v, a, b, c).astype(np.int64)
                d = np.where(d > INT32_MAX, d - (1 << 32), d)
                uniform = bool((d == d[:, :1, :1]).all())
                probes[f"probe_{v}_{direction}"] = d[:, 0, 0].astype(np.int32)
                ap, bp, aq, bq = PROBE_LANES[at, bt][direction]
                start = INT32_MAX if direction == "down" else INT32_MIN
                exact = start + ap * bp + aq * bq
                expect = max(INT32_MIN, min(INT32_MAX, exact)) if sat else (exact + (1 << 31)) % (1 << 32) - (1 << 31)
                between = start + aq * bq  # p's product absorbed by a saturation, then q's added
                pairs = probe_pairs(256 // width)
                hit = d[:, 0, 0] == between
                vals = sorted(set(d[:, 0, 0].tolist()))
                findings[f"{name} {direction}"] = {
                    "uniform_tiles": uniform,
                    "values": vals[:6],
                    "exact_once": int((d[:, 0, 0] == expect).sum()),
                    "saturated_between": int(hit.sum()),
                    "pairs": len(pairs),
                    "between_pairs_sample": pairs[hit][:12].tolist(),
                }
                print(f"  probe {direction}: {findings[f'{name} {direction}']}", flush=True)
    np.savez_compressed(
        out / "nvidia_mma.npz",
        names=np.array(names),
        seeds=np.array(seeds),
        first=np.array(firsts, dtype=np.uint32),
        hashes=np.array(hs, dtype=np.uint8),
        meta=np.array(json.dumps(meta)),
        **probes,
    )
    (out / "nvidia_probes.json").write_text(json.dumps(findings, indent=1))
    print("wrote", *(str(out / n) for n in ("nvidia_dp.npz", "nvidia_mma.npz")), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
