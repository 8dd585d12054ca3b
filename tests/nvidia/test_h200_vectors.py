"""intdot against the H200: every NVIDIA variant's stored GPU outputs (tests/data/nvidia_*.npz).

The vectors were made by ``scripts/gpu/nvidia_vectors.py`` on an H200 (see tests/data/README.md).  Inputs are
regenerated from their seeds (tests/nvidia/vector_inputs.py); every output is recomputed through intdot's
public functions and compared: the first ones of each part value by value, all of them through the stored
hash of each block (a mismatch names the block).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from intdot import catalog, nvidia

from .vector_inputs import BLOCK, FIRST, PARTS, PROBE_LANES, dp_inputs, mma_inputs, probe_inputs, tile_elements

DATA = Path(__file__).resolve().parents[1] / "data"
DP = np.load(DATA / "nvidia_dp.npz")
MMA = np.load(DATA / "nvidia_mma.npz")
INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1


def _check(out: np.ndarray, store, v: int, p: int, what: str) -> None:
    flat = np.ascontiguousarray(out).reshape(-1).view(np.uint32).astype("<u4")
    np.testing.assert_array_equal(flat[:FIRST], store["first"][v, p], err_msg=f"{what}: first {FIRST} outputs")
    for i, stored in enumerate(store["hashes"][v, p]):
        block = flat[i * BLOCK : (i + 1) * BLOCK]
        digest = np.frombuffer(hashlib.blake2b(block.tobytes(), digest_size=8).digest(), np.uint8)
        assert (digest == stored).all(), f"{what}: outputs {i * BLOCK}..{(i + 1) * BLOCK - 1} differ from the H200's"
    assert len(store["hashes"][v, p]) * BLOCK == flat.size


def _lanes(words: np.ndarray, dtype, n: int) -> np.ndarray:
    return np.ascontiguousarray(words, dtype="<u4").view(dtype).reshape(-1, n)


def _dp_call(name: str, a, b, c):
    """Call intdot as a user would for the variant ``name`` (a PTX spelling or a CUDA overload)."""
    if not name.startswith("__"):
        kind, *rest = name.split(".")
        if kind == "dp4a":
            return nvidia.dp4a(a, b, c, a_type=rest[0], b_type=rest[1])
        return nvidia.dp2a(a, b, c, part=rest[0], a_type=rest[1], b_type=rest[2])
    fn = getattr(nvidia, name.split("(")[0])
    sig = name.split("(")[1]
    if sig.startswith("unsigned"):
        return fn(a, b, c)  # uint32 arrays pick the unsigned overload
    if sig.startswith("int"):
        return fn(a.view(np.int32), b.view(np.int32), c.view(np.int32))
    unsigned = sig.startswith("u")
    a_dtype, n = {"char4": (np.int8, 4), "short2": (np.int16, 2)}[sig.split(",")[0].lstrip("u")]
    a_dtype = np.dtype(a_dtype).newbyteorder("<") if not unsigned else np.dtype(f"<u{np.dtype(a_dtype).itemsize}")
    b_dtype = np.uint8 if unsigned else np.int8
    return fn(_lanes(a, a_dtype, n), _lanes(b, b_dtype, 4), c if unsigned else c.view(np.int32))


@pytest.mark.parametrize("v", range(len(DP["names"])), ids=[str(n) for n in DP["names"]])
def test_dp_matches_h200(v):
    name, seed = str(DP["names"][v]), int(DP["seeds"][v])
    a_width = 8 if "dp4a" in name else 16
    for p, part in enumerate(PARTS):
        a, b, c = dp_inputs(seed, part, a_width, 8)
        out = np.asarray(_dp_call(name, a, b, c))
        assert out.dtype == (np.uint32 if "unsigned" in name or name.endswith("u32.u32") else np.int32)
        _check(out, DP, v, p, f"{name} ({part})")


def _parse_mma(name: str):
    words = name.split(".")
    return words[-3], words[-2], "satfinite" in words


def _tiles(a, b, at, bt):
    width = int(at[1:])
    return tile_elements(a, width, at[0] == "s"), np.swapaxes(tile_elements(b, width, bt[0] == "s"), -1, -2)


@pytest.mark.parametrize("v", range(len(MMA["names"])), ids=[str(n) for n in MMA["names"]])
def test_mma_matches_h200(v):
    name, seed = str(MMA["names"][v]), int(MMA["seeds"][v])
    at, bt, sat = _parse_mma(name)
    for p, part in enumerate(PARTS):
        a, b, c = mma_inputs(seed, part, int(at[1:]))
        ta, tb = _tiles(a, b, at, bt)
        out = nvidia.mma(ta, tb, c.view(np.int32), a_type=at, b_type=bt, satfinite=sat)
        assert out.dtype == np.int32 and out.shape == c.shape
        _check(out, MMA, v, p, f"{name} ({part})")


# The probes need a negative product, which two unsigned types cannot give.
PROBED = [v for v, n in enumerate(MMA["names"]) if _parse_mma(str(n))[:2] in PROBE_LANES]


@pytest.mark.parametrize("v", PROBED, ids=[str(MMA["names"][v]) for v in PROBED])
@pytest.mark.parametrize("direction", ["down", "up"])
def test_mma_probes_match_h200(v, direction):
    name = str(MMA["names"][v])
    at, bt, sat = _parse_mma(name)
    a, b, c = probe_inputs(at, bt, direction)
    ta, tb = _tiles(a, b, at, bt)
    out = nvidia.mma(ta, tb, c.view(np.int32), a_type=at, b_type=bt, satfinite=sat)
    assert (out == out[:, :1, :1]).all()  # every row of A and column of B alike
    np.testing.assert_array_equal(out[:, 0, 0], MMA[f"probe_{v}_{direction}"])


@pytest.mark.parametrize("v", PROBED, ids=[str(MMA["names"][v]) for v in PROBED])
def test_h200_satfinite_saturates_once(v):
    """The hardware fact docs/nvidia.md states, read off the stored probes alone: for every pair of K
    indices, C + both products saturated once, never C + the first product saturated before the second."""
    at, bt, sat = _parse_mma(str(MMA["names"][v]))
    for direction in ("down", "up"):
        ap, bp, aq, bq = PROBE_LANES[at, bt][direction]
        exact = (INT32_MAX if direction == "down" else INT32_MIN) + ap * bp + aq * bq
        once = min(max(exact, INT32_MIN), INT32_MAX) if sat else (exact + (1 << 31)) % (1 << 32) - (1 << 31)
        assert (MMA[f"probe_{v}_{direction}"] == once).all()


def test_vectors_cover_every_nvidia_record():
    stored = {str(n) for n in DP["names"]} | {str(n) for n in MMA["names"]}
    for rec in catalog.records("nvidia"):
        overloads = [s for s in rec.spellings if "(" in s]
        assert rec.spellings[0] in stored, rec.name
        assert all(s in stored for s in overloads), rec.name
    meta = json.loads(str(MMA["meta"]))
    assert meta["gpu"].startswith("NVIDIA H200") and "accepted" in meta["int4"]
