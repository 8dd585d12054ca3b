"""intdot against this machine's x86 CPU, live: tests/oracles/x86.py compiles scripts/x86/x86_oracle.c with gcc
and runs every intrinsic the CPU has on 10^5 registers (10^6 with --slow), random and extreme; AMX on full and
odd-shaped tiles after asking the kernel for the tile state.  A feature the CPU lacks skips, naming the flag
(CI's and this machine's CPU have AVX2 only: the idiom runs live here; VNNI and AMX run on the device host and
are checked everywhere through the vectors it recorded, tests/x86/test_vectors.py)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from intdot import x86
from intdot.x86 import intrinsics as X
from tests.oracles import missing
from tests.oracles import x86 as oracle
from tests.x86.calls import intrinsic

pytestmark = pytest.mark.oracle


@pytest.fixture(scope="module")
def lib():
    cc = oracle.compiler()
    if cc is None:
        missing("gcc (the C compiler for the x86 CPU oracle)", "install gcc")
    return oracle.library(cc)


def _require(feature: str) -> None:
    lacks = oracle.cpu_lacks(feature)
    if lacks:
        pytest.skip(f"this CPU lacks {', '.join(lacks)} (/proc/cpuinfo flags) for {feature}")


def _compare(lib, name: str, n: int) -> None:
    _require(oracle.feature_of(name))
    nbytes = oracle.register_bytes(name)
    src, a, b, k = oracle.registers(oracle.seed_of(name) ^ 0x5EED, n, nbytes, oracle.lane_bytes(name))
    k = k if nbytes == 64 else k & 0xFF  # __mmask8 below 512 bits (the C side casts)
    want = oracle.run(lib, name, src, a, b, k if "_mask" in name else None)
    got = np.ascontiguousarray(intrinsic(name, src, a, b, k)).view(np.uint8).reshape(n, nbytes)
    bad = np.flatnonzero((got != want).any(axis=1))
    assert bad.size == 0, (
        f"{name}: {bad.size} of {n} registers differ from the CPU; first: register {bad[0]}: "
        f"src={src[bad[0]].tobytes().hex()} a={a[bad[0]].tobytes().hex()} b={b[bad[0]].tobytes().hex()} "
        f"k={int(k[bad[0]]):#x}: cpu {want[bad[0]].tobytes().hex()}, intdot {got[bad[0]].tobytes().hex()}"
    )


NAMES = oracle.dir_functions()


@pytest.mark.parametrize("name", [n[1:] for n in NAMES])
def test_register_intrinsic(lib, name):
    _compare(lib, name, 100_000)


@pytest.mark.slow
@pytest.mark.parametrize("name", [n[1:] for n in NAMES])
def test_register_intrinsic_volume(lib, name):
    _compare(lib, name, 1_000_000)


def test_every_cpu_intrinsic_is_in_the_oracle():
    on_cpu = {n for n, r in X.INTRINSICS.items() if "avxvnniint" not in r.features}
    assert on_cpu == {n[1:] for n in NAMES}


# -- AMX --------------------------------------------------------------------------------------------------

SHAPES = ((16, 16, 64), (1, 1, 4), (16, 16, 4), (7, 5, 12), (3, 16, 36), (16, 1, 64))


@pytest.fixture(scope="module")
def amx(lib):
    _require("amx-int8")
    # A tile instruction without the kernel's permission kills the process: try it in a child first.
    probe = (
        "import sys; sys.path.insert(0, '.'); from tests.oracles import x86 as o; import numpy as np; "
        "lib = o.library(o.compiler()); assert o.amx_permission(lib); "
        "o.run_tiles(lib, 'tdpbusd', np.zeros((1, 1, 1), np.int32), np.zeros((1, 1, 4), np.uint8), "
        "np.zeros((1, 1, 4), np.uint8))"
    )
    child = subprocess.run([sys.executable, "-c", probe], cwd=oracle.ROOT, capture_output=True, text=True)
    if child.returncode != 0:
        pytest.skip(f"the kernel refused AMX tile data (arch_prctl ARCH_REQ_XCOMP_PERM): {child.stderr[-300:]}")
    assert oracle.amx_permission(lib)
    return lib


def _tiles(lib, mnemonic: str, shape, n: int) -> None:
    m, nn, kk = shape
    c, a, b = oracle.tiles(oracle.seed_of(f"{mnemonic}.{shape}") ^ 0x5EED, n, m, nn, kk)
    want = oracle.run_tiles(lib, mnemonic, c, a, b)
    got = getattr(x86, mnemonic)(c, a, b).view(np.int32)
    bad = np.flatnonzero((got != want).reshape(n, -1).any(axis=1))
    assert bad.size == 0, f"{mnemonic} {shape}: {bad.size} of {n} tile operations differ; first {bad[0]}"


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("mnemonic", ["tdpbssd", "tdpbsud", "tdpbusd", "tdpbuud"])
def test_tiles(amx, mnemonic, shape):
    # 8192 full tiles = 131072 rows of C (each a 512-bit register of dwords, 16 K/4 steps per dword)
    _tiles(amx, mnemonic, shape, 8192 if shape == (16, 16, 64) else 512)


@pytest.mark.slow
@pytest.mark.parametrize("mnemonic", ["tdpbssd", "tdpbsud", "tdpbusd", "tdpbuud"])
def test_tiles_volume(amx, mnemonic):
    _tiles(amx, mnemonic, (16, 16, 64), 65536)
