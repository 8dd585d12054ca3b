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
