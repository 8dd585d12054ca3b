"""glibc's logf and expf as intdot computes them (``intdot.quant.libm``) against this machine's C library, bit for
bit: every binade, subnormals, the table's subinterval edges, the overflow and underflow points and the special
values.  (ONNX Runtime for AArch64's own C library is checked through LogSoftmax and ReduceLogSumExp.)"""

import ctypes
import ctypes.util
import platform
import sys

import numpy as np
import pytest

from intdot.quant.libm import expf, logf, powf
from intdot.quant.tanhf import tanhf

F32 = np.float32


def _libm():
    name = ctypes.util.find_library("m")
    if sys.platform != "linux" or name is None:
        pytest.skip("no C math library to compare with (glibc's logf is the one modelled)")
    lib = ctypes.CDLL(name)
    lib.logf.restype, lib.logf.argtypes = ctypes.c_float, [ctypes.c_float]
    libc, version = platform.libc_ver()
    if libc != "glibc" or tuple(int(v) for v in version.split(".")[:2]) < (2, 28):
        pytest.skip(f"the C library is {libc} {version}: glibc's logf, as from 2.28, is the one modelled")
    return lib


def test_logf_as_glibc():
    lib = _libm()
    rng = np.random.default_rng(0)
    edges = ((np.arange(-8, 8)[:, None] << 19) + 0x3F330000 + np.array([-1, 0, 1])).ravel().astype(np.uint32)
    x = np.concatenate([
        rng.integers(0, 0x7F800000, 60000, dtype=np.uint32).view(F32),  # every binade, subnormals too
        edges.view(F32),
        np.array([0.0, -0.0, 1.0, np.inf, -np.inf, -1.0, np.nan, 1e-45, 3.4e38, 0.99999994, 1.0000001], F32),
    ])  # fmt: skip
    _same_as(lib.logf, logf, x)


def _same_as(c_function, model, x):
    """``model(x)`` bit for bit as the C function gives it for each element (NaNs alike); returns the values."""
    want = np.array([c_function(float(v)) for v in x], F32)
    got = model(x)
    nan = np.isnan(want)
    assert np.array_equal(nan, np.isnan(got))
    bad = (got.view(np.uint32) != want.view(np.uint32)) & ~nan
    assert not bad.any(), (x[bad][:5], got[bad][:5], want[bad][:5])
    return got


def test_expf_as_glibc():
    lib = _libm()
    lib.expf.restype, lib.expf.argtypes = ctypes.c_float, [ctypes.c_float]
    rng = np.random.default_rng(1)
    edges = [float.fromhex("0x1.62e42ep6"), float.fromhex("-0x1.9fe368p6"), 88.0, -87.33655, 1e-45, -1e-45]
    x = np.concatenate([
        rng.integers(0, 0x7F800000, 30000, dtype=np.uint32).view(F32),  # every binade, both signs
        -rng.integers(0, 0x7F800000, 30000, dtype=np.uint32).view(F32),
        (rng.standard_normal(30000) * 30).astype(F32),  # where the values are
        np.nextafter(np.array(edges, F32), np.float32(np.inf)), np.nextafter(np.array(edges, F32), -np.float32(np.inf)),
        np.array([*edges, 0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0], F32),
    ])  # fmt: skip
    got = _same_as(lib.expf, expf, x)
    with np.errstate(over="ignore"):  # not the correctly rounded exp
        assert not np.array_equal(got[:30000], np.exp(x[:30000].astype(np.float64)).astype(F32))


def test_powf_as_glibc():
    lib = _libm()
    lib.powf.restype, lib.powf.argtypes = ctypes.c_float, [ctypes.c_float, ctypes.c_float]
    rng = np.random.default_rng(2)
    n = 20000
    x = np.concatenate([rng.integers(0, 0x7F800000, n, dtype=np.uint32).view(F32),  # every binade
                        (rng.standard_normal(n) * 3).astype(F32), -rng.uniform(0, 10, n).astype(F32)])  # fmt: skip
    y = np.concatenate(
        [
            (rng.standard_normal(n) * 3).astype(F32),
            rng.uniform(-40, 40, n).astype(F32),
            rng.integers(-9, 10, n).astype(F32),
        ]
    )  # negative bases: integer exponents, odd and even
    special = np.array([0, -0.0, 1, -1, np.inf, -np.inf, np.nan, 2, 0.5, 1e-45, -1e-45, 3.4e38, -3.5], F32)
    xs, ys = np.meshgrid(special, special)
    x, y = np.concatenate([x, xs.ravel()]), np.concatenate([y, ys.ravel()])
    want = np.array([lib.powf(float(a), float(b)) for a, b in zip(x, y)], F32)
    got = powf(x, y)
    nan = np.isnan(want)
    assert np.array_equal(nan, np.isnan(got))
    bad = (got.view(np.uint32) != want.view(np.uint32)) & ~nan
    assert not bad.any(), (x[bad][:5], y[bad][:5], got[bad][:5], want[bad][:5])
    with np.errstate(all="ignore"):  # not the correctly rounded power
        assert not np.array_equal(got[:n], (x[:n].astype(np.float64) ** y[:n]).astype(F32))


def _tanhf_inputs():
    rng = np.random.default_rng(3)
    edges = [0.0, -0.0, 1e-45, 2.0**-55, 2.0**-25, 0.17328679, 0.51986039, 1.0, 22.0, 9.35, 88.0, np.inf, -np.inf]
    return np.concatenate([
        rng.integers(0x20000000, 0x42000000, 40000, dtype=np.uint32).view(F32),  # 2**-63 .. 32, both signs
        -rng.integers(0x20000000, 0x42000000, 40000, dtype=np.uint32).view(F32),
        (rng.standard_normal(20000) * 3).astype(F32),
        np.array(edges + [-v for v in edges] + [np.nan], F32),
    ])  # fmt: skip


def test_tanhf_as_glibc():
    """glibc's fdlibm tanhf (before 2.41), as this machine's C library computes it: without fused products on
    x86 (the build intdot models as ``fused=False``)."""
    lib = _libm()
    libc, version = platform.libc_ver()
    if tuple(int(v) for v in version.split(".")[:2]) >= (2, 41):
        pytest.skip(f"glibc {version}: tanhf is CORE-MATH's from 2.41, not the fdlibm routine modelled")
    if platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip(f"a {platform.machine()} C library: the x86 build (no fused products) is the one compared here")
    lib.tanhf.restype, lib.tanhf.argtypes = ctypes.c_float, [ctypes.c_float]
    x = _tanhf_inputs()
    got = _same_as(lib.tanhf, tanhf, x)
    assert not np.array_equal(got[:80000], np.tanh(x[:80000].astype(np.float64)).astype(F32))  # not rounded right


def test_tanhf_as_aarch64_glibc():
    """The same for AArch64's glibc (Debian's cross C library, statically linked, under QEMU), whose build fuses
    each product into its addition (``fused=True``); the unfused routine differs from it."""
    import subprocess
    import tempfile

    from ..oracles import find_tool, missing

    gcc = find_tool("INTDOT_AARCH64_GCC", "aarch64-linux-gnu-gcc")
    qemu = find_tool("INTDOT_QEMU", "/usr/bin/qemu-aarch64", "qemu-aarch64")
    if gcc is None or qemu is None:
        missing("aarch64-linux-gnu-gcc and qemu-aarch64 (AArch64's glibc tanhf)")
    program = "#include <math.h>\n#include <stdio.h>\nint main(void) { float x; while (fread(&x, 4, 1, stdin) == 1) " \
              "{ x = tanhf(x); fwrite(&x, 4, 1, stdout); } return 0; }\n"  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        source, exe = f"{tmp}/t.c", f"{tmp}/t"
        with open(source, "w") as f:
            f.write(program)
        subprocess.run([gcc, "-O2", "-static", "-o", exe, source, "-lm"], check=True)
        x = _tanhf_inputs()
        out = subprocess.run([qemu, exe], input=x.tobytes(), capture_output=True, check=True).stdout
    want = np.frombuffer(out, F32)
    got = tanhf(x, fused=True)
    nan = np.isnan(want)
    assert np.array_equal(nan, np.isnan(got))
    bad = (got.view(np.uint32) != want.view(np.uint32)) & ~nan
    assert not bad.any(), (x[bad][:5], got[bad][:5], want[bad][:5])
    assert not np.array_equal(tanhf(x).view(np.uint32)[~nan], want.view(np.uint32)[~nan])
