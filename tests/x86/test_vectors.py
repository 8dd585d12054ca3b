"""intdot against what an Intel Xeon (avx512_vnni, avx_vnni, amx_int8) computed: the vectors that
scripts/x86/record_vectors.py recorded there (tests/data/x86_vnni.npz, x86_amx.npz; see tests/data/README.md).

The files hold, per intrinsic (or AMX instruction and tile shape), the number of registers, a BLAKE2b-64
digest of each chunk of the CPU's outputs and the first outputs in full; the inputs are re-created from
the seed by tests/oracles/x86.py.  The default run checks 32768 registers per intrinsic (11 intrinsics per
VNNI instruction: over 10^5 registers each) and 2048 full 16 x 16 x 64 tiles per AMX instruction; --slow
checks every recorded register."""

from __future__ import annotations

import json

import numpy as np
import pytest

from intdot import x86
from intdot.x86 import intrinsics as X
from tests.oracles import x86 as oracle
from tests.x86.calls import intrinsic

DATA = oracle.ROOT / "tests" / "data"
DEFAULT_REGISTERS = 32768
DEFAULT_TILES = 2048


def _load(name: str):
    path = DATA / name
    if not path.exists():
        pytest.fail(f"{path} is missing: record it with scripts/x86/record_vectors.py on a CPU with the features")
    return np.load(path)


def _names(name: str) -> list[str]:
    path = DATA / name
    if not path.exists():
        return ["<missing>"]
    with np.load(path) as f:
        return sorted(k[: -len(".n")] for k in f.files if k.endswith(".n"))


def _check(name: str, got: np.ndarray, stored, chunk: int, n: int) -> None:
    head = stored[f"{name}.head"]
    first = np.ascontiguousarray(got[: len(head)]).view(np.uint8).ravel()
    assert np.array_equal(first, np.ascontiguousarray(head).view(np.uint8).ravel()), (
        f"{name}: intdot differs from the CPU in the first {len(head)} recorded outputs"
    )
    want = stored[f"{name}.digests"][: n // chunk]
    mine = oracle.digests(got, chunk)
    bad = np.flatnonzero(mine != want)
    assert bad.size == 0, f"{name}: {bad.size} chunks of {chunk} differ from the CPU; first at output {bad[0] * chunk}"


def _registers(name: str, count) -> int:
    stored = _load("x86_vnni.npz")
    meta = json.loads(str(stored["meta"]))
    n = min(int(stored[f"{name}.n"]), count or int(stored[f"{name}.n"]))
    row = X.INTRINSICS[name]
    src, a, b, k = oracle.registers(oracle.seed_of(name), n, row.bits // 8, oracle.lane_bytes(name))
    k = k if row.bits == 512 else k & 0xFF  # __mmask8 below 512 bits (the recorder's C casts)
    got = np.ascontiguousarray(intrinsic(name, src, a, b, k)).view(np.uint8).reshape(n, row.bits // 8)
    _check(name, got, stored, meta["chunk"], n)
    return n


@pytest.mark.parametrize("name", _names("x86_vnni.npz"))
def test_registers(name):
    _registers(name, DEFAULT_REGISTERS)


@pytest.mark.slow
@pytest.mark.parametrize("name", _names("x86_vnni.npz"))
def test_registers_all(name):
    _registers(name, None)


def _tiles(key: str, count) -> None:
    stored = _load("x86_amx.npz")
    meta = json.loads(str(stored["meta"]))
    mnemonic, shape = key.split(".")
    m, nn, kk = map(int, shape.split("x"))
    n = min(int(stored[f"{key}.n"]), count or int(stored[f"{key}.n"]))
    c, a, b = oracle.tiles(oracle.seed_of(key), n, m, nn, kk)
    got = getattr(x86, mnemonic)(c, a, b).view(np.int32)
    _check(key, got, stored, meta["tile_chunk"], n)


@pytest.mark.parametrize("key", _names("x86_amx.npz"))
def test_tiles(key):
    _tiles(key, DEFAULT_TILES)


@pytest.mark.slow
@pytest.mark.parametrize("key", _names("x86_amx.npz"))
def test_tiles_all(key):
    _tiles(key, None)


def test_every_intrinsic_the_cpu_has_was_recorded():
    recorded = set(_names("x86_vnni.npz"))
    assert recorded == {n[1:] for n in oracle.dir_functions()}
    assert {k.split(".")[0] for k in _names("x86_amx.npz")} == {"tdpbssd", "tdpbsud", "tdpbusd", "tdpbuud"}
