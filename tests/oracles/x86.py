"""The x86 CPU as an oracle: ``scripts/x86/x86_oracle.c`` compiled with the system gcc at test time, called
through ctypes; and the deterministic inputs that the live tests and ``scripts/x86/record_vectors.py`` share.

Shares no code with intdot.  ``cpu_lacks(flags)`` names the /proc/cpuinfo flags this CPU lacks (a test
skips naming them: a CPU feature is not an installable oracle).  ``run(name, src, a, b, k)`` runs C
function ``o<intrinsic>`` over arrays of registers; ``run_tiles(mnemonic, c, a, b)`` runs an AMX
instruction over a batch of tile operations after asking the kernel for the tile data state.

Inputs come from SplitMix64 written out in NumPy (so a recorded file can be re-created on any NumPy):
``registers(seed, n, nbytes, lane)`` gives ``n`` registers each of src, a, b and a mask, a quarter each
random, extreme-valued sources, extreme accumulators, and both extreme.
"""

from __future__ import annotations

import ctypes
import functools
import os
import shutil
import subprocess
import tempfile
import zlib
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "scripts" / "x86" / "x86_oracle.c"

# What intrinsic features mean in /proc/cpuinfo's flags.
CPUINFO = {
    "sse2": ("sse2",),
    "ssse3": ("ssse3",),
    "avx2": ("avx2",),
    "avx512bw": ("avx512f", "avx512bw"),
    "avx512vnni": ("avx512f", "avx512_vnni"),
    "avx512vnni+avx512vl": ("avx512f", "avx512vl", "avx512_vnni"),
    "avxvnni": ("avx_vnni",),
    "amx-int8": ("amx_tile", "amx_int8"),
}


@functools.cache
def cpu_flags() -> frozenset:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return frozenset()
    for line in text.splitlines():
        if line.startswith("flags"):
            return frozenset(line.split(":", 1)[1].split())
    return frozenset()


def cpu_lacks(feature: str) -> tuple[str, ...]:
    """The cpuinfo flags this CPU lacks for ``feature`` (a key of :data:`CPUINFO`)."""
    return tuple(f for f in CPUINFO[feature] if f not in cpu_flags())


def feature_of(intrinsic: str) -> str:
    """The key of :data:`CPUINFO` that C function ``o<intrinsic>`` of the oracle source needs."""
    width = intrinsic.split("_")[1]  # mm, mm256, mm512
    if "madd" in intrinsic:
        return {"mm512": "avx512bw", "mm256": "avx2"}.get(width, "ssse3" if "maddubs" in intrinsic else "sse2")
    if "_avx_" in intrinsic:
        return "avxvnni"
    return "avx512vnni" if width == "mm512" else "avx512vnni+avx512vl"


def register_bytes(intrinsic: str) -> int:
    return {"mm": 16, "mm256": 32, "mm512": 64}[intrinsic.split("_")[1]]


def lane_bytes(intrinsic: str) -> int:
    """The width of a source lane: 1 for the byte forms (dpb*, maddubs), 2 for the word forms."""
    return 1 if "_dpb" in intrinsic or "maddubs" in intrinsic else 2


def compiler() -> str | None:
    return os.environ.get("INTDOT_X86_CC") or shutil.which("gcc") or shutil.which("cc")


@functools.cache
def library(cc: str) -> ctypes.CDLL:
    """The oracle library built from :data:`SOURCE` with ``cc`` (once per process)."""
    out = Path(tempfile.mkdtemp(prefix="intdot-x86-")) / "x86_oracle.so"
    subprocess.run([cc, "-O1", "-shared", "-fPIC", "-o", str(out), str(SOURCE)], check=True, capture_output=True)
    lib = ctypes.CDLL(str(out))
    p = ctypes.c_void_p
    for name in dir_functions():
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = [p, p, p, p, p, ctypes.c_size_t], None
    for mn in ("tdpbssd", "tdpbsud", "tdpbusd", "tdpbuud"):
        fn = getattr(lib, f"o_{mn}")
        fn.argtypes = [p, p, p, p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int]
        fn.restype = None
    lib.amx_request.restype = ctypes.c_int
    return lib


def dir_functions() -> tuple[str, ...]:
    """The register functions the C source defines (``REG(name, ...)`` lines)."""
    return tuple(line[4 : line.index(",")] for line in SOURCE.read_text().splitlines() if line.startswith("REG(o"))


def _ptr(x: np.ndarray) -> int:
    return x.ctypes.data


def run(lib, name: str, src, a, b, k=None) -> np.ndarray:
    """``o<name>`` over ``n`` registers: src, a, b are ``(n, nbytes)`` uint8; k ``(n,)`` uint16 or None."""
    src, a, b = (np.ascontiguousarray(x, np.uint8) for x in (src, a, b))
    out = np.empty_like(a)
    kk = None if k is None else np.ascontiguousarray(k, np.uint16)
    getattr(lib, f"o{name}")(_ptr(src), _ptr(a), _ptr(b), None if kk is None else _ptr(kk), _ptr(out), len(a))
    return out


@functools.cache
def amx_permission(lib) -> bool:
    """Ask Linux for the AMX tile data state (arch_prctl ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)."""
    return lib.amx_request() == 0


def run_tiles(lib, mnemonic: str, c, a, b) -> np.ndarray:
    """An AMX instruction over a batch of tile operations: c ``(n, M, N)`` int32, a ``(n, M, K)`` uint8,
    b ``(n, K/4, 4N)`` uint8; returns the C tiles after the operation."""
    c = np.ascontiguousarray(c, np.int32)
    a, b = np.ascontiguousarray(a, np.uint8), np.ascontiguousarray(b, np.uint8)
    n, m, nn = c.shape
    out = np.empty_like(c)
    getattr(lib, f"o_{mnemonic}")(_ptr(c), _ptr(a), _ptr(b), _ptr(out), n, m, nn, a.shape[2])
    return out


# -- inputs ---------------------------------------------------------------------------------------------

_GOLDEN, _M1, _M2 = np.uint64(0x9E3779B97F4A7C15), np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)


def splitmix(seed: int, count: int) -> np.ndarray:
    """``count`` outputs of SplitMix64 from ``seed``, as uint64."""
    z = np.uint64(seed & (2**64 - 1)) + np.arange(1, count + 1, dtype=np.uint64) * _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


def random_bytes(seed: int, shape) -> np.ndarray:
    n = int(np.prod(shape))
    return splitmix(seed, (n + 7) // 8).astype("<u8").view(np.uint8)[:n].reshape(shape)


# Lane values at the edges: 0, 1, the signed extremes and their neighbours, all ones.
EXTREMES = {
    1: (0x00, 0x01, 0x7F, 0x80, 0x81, 0xFE, 0xFF),
    2: (0x0000, 0x0001, 0x7FFF, 0x8000, 0x8001, 0xFFFE, 0xFFFF),
    4: (0, 1, 0x7FFFFFFF, 0x80000000, 0x80000001, 0xFFFFFFFF, 0x7FFF0000, 0x8000FFFF, 0xFFFF0000),
}


def extreme_lanes(seed: int, shape, lane: int) -> np.ndarray:
    """Bytes of ``shape`` (last axis a multiple of ``lane``) whose ``lane``-byte lanes are all extremes."""
    values = np.array(EXTREMES[lane], dtype=f"<u{lane}")
    count = int(np.prod(shape)) // lane
    pick = random_bytes(seed, (count,)).astype(np.intp) % len(values)
    return values[pick].view(np.uint8).reshape(shape)


def registers(seed: int, n: int, nbytes: int, lane: int):
    """``(src, a, b, k)``: n registers of ``nbytes`` (src, a, b as uint8 ``(n, nbytes)``) and n uint16 masks.

    Quarters: 0 random; 1 a and b of extreme ``lane``-byte lanes; 2 those with extreme accumulators;
    3 random a and b with extreme accumulators.
    """
    shape = (n, nbytes)
    src, a, b = (random_bytes(seed * 8 + i, shape) for i in range(3))
    k = random_bytes(seed * 8 + 3, (n, 2)).view("<u2").reshape(n)
    q = np.arange(n) % 4
    ea, eb = extreme_lanes(seed * 8 + 4, shape, lane), extreme_lanes(seed * 8 + 5, shape, lane)
    es = extreme_lanes(seed * 8 + 6, shape, 4)
    a = np.where((q == 1)[:, None] | (q == 2)[:, None], ea, a)
    b = np.where((q == 1)[:, None] | (q == 2)[:, None], eb, b)
    src = np.where((q >= 2)[:, None], es, src)
    return src, a, b, k


def tiles(seed: int, n: int, m: int, nn: int, kk: int):
    """``(c, a, b)`` for n tile operations of shape M x N x K: half random, half extreme bytes and dwords."""
    c = random_bytes(seed * 8, (n, m, 4 * nn))
    a = random_bytes(seed * 8 + 1, (n, m, kk))
    b = random_bytes(seed * 8 + 2, (n, kk // 4, 4 * nn))
    odd = (np.arange(n) % 2 == 1)[:, None, None]
    a = np.where(odd, extreme_lanes(seed * 8 + 3, a.shape, 1), a)
    b = np.where(odd, extreme_lanes(seed * 8 + 4, b.shape, 1), b)
    c = np.where(odd, extreme_lanes(seed * 8 + 5, c.shape, 4), c)
    return np.ascontiguousarray(c).view("<i4"), a, b


def seed_of(name: str) -> int:
    """A fixed seed per function name (the same on every machine)."""
    return zlib.crc32(name.encode())


def digests(out: np.ndarray, chunk: int) -> np.ndarray:
    """BLAKE2b-64 of each run of ``chunk`` registers (rows) of ``out``, as uint64."""
    import hashlib

    rows = np.ascontiguousarray(out).reshape(len(out), -1).view(np.uint8)
    return np.array(
        [
            int.from_bytes(hashlib.blake2b(rows[i : i + chunk].tobytes(), digest_size=8).digest(), "little")
            for i in range(0, len(rows), chunk)
        ],
        dtype=np.uint64,
    )
