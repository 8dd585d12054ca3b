"""``quant.fma.fma32`` (a float32 fused multiply-add built from float64 steps) against C's ``fmaf``, which rounds
``a * b + c`` once: the oracle is the C library, compiled here."""

from __future__ import annotations

import ctypes
import subprocess

import numpy as np
import pytest

from intdot.quant.fma import fma32
from tests.oracles import missing
from tests.oracles.x86 import compiler

C_SOURCE = r"""
#include <math.h>
#include <stddef.h>
void fma_many(const float *a, const float *b, const float *c, float *out, size_t n) {
    for (size_t i = 0; i < n; i++) out[i] = fmaf(a[i], b[i], c[i]);
}
"""


@pytest.fixture(scope="module")
def fmaf(tmp_path_factory):
    cc = compiler()
    if cc is None:
        missing("a C compiler (gcc or cc) for C's fmaf")
    d = tmp_path_factory.mktemp("fma")
    (d / "fma.c").write_text(C_SOURCE)
    # -ffp-contract=off and no -ffast-math: fmaf stays the library's correctly rounded one
    subprocess.run([cc, "-O1", "-ffp-contract=off", "-shared", "-fPIC", "-o", str(d / "fma.so"), str(d / "fma.c"),
                    "-lm"], check=True, capture_output=True)  # fmt: skip
    lib = ctypes.CDLL(str(d / "fma.so"))
    p = ctypes.c_void_p
    lib.fma_many.argtypes, lib.fma_many.restype = [p, p, p, p, ctypes.c_size_t], None

    def run(a, b, c):
        a, b, c = (np.ascontiguousarray(x, np.float32) for x in np.broadcast_arrays(a, b, c))
        out = np.empty_like(a)
        lib.fma_many(a.ctypes.data, b.ctypes.data, c.ctypes.data, out.ctypes.data, a.size)
        return out

    return run


def _same(got, want):
    """Bit for bit, every NaN counted equal (their payloads are not the question)."""
    g, w = got.view(np.uint32), want.view(np.uint32)
    return np.all((g == w) | (np.isnan(got) & np.isnan(want)))


def test_random_bit_patterns(fmaf):
    rng = np.random.default_rng(1)
    a, b, c = (rng.integers(0, 2**32, 200_000, dtype=np.uint64).astype(np.uint32).view(np.float32) for _ in "abc")
    assert _same(fma32(a, b, c), fmaf(a, b, c))


def test_sums_near_halfway_points(fmaf):
    """Where double rounding would go wrong: a product near half an ulp of c (or of the sum), so that the float64 sum
    lands on, or next to, a point halfway between two float32 values."""
    rng = np.random.default_rng(2)
    n = 300_000
    c = rng.uniform(-4, 4, n).astype(np.float32)
    # a * b ~ ulp(c)/2 * (1 + small), with the small part spread over many magnitudes
    half = np.spacing(np.abs(c)).astype(np.float64) / 2
    a = (1 + rng.integers(-(2**12), 2**12, n) * 2.0**-23).astype(np.float32)
    b = (half * (1 + rng.integers(-(2**12), 2**12, n) * 2.0 ** -rng.integers(12, 40, n)) / a).astype(np.float32)
    b *= rng.choice(np.array([-1, 1, 3, 5], np.float32), n)
    got, want = fma32(a, b, c), fmaf(a, b, c)
    assert _same(got, want)
    # the cases are the hard ones: the plain float32 evaluation misses many of them
    plain = (a.astype(np.float64) * b + c).astype(np.float32)
    assert np.count_nonzero(plain != want) > 100


def test_subnormals_infinities_and_zeros(fmaf):
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1.1754942e-38, 3.4028235e38, 1.0, -1.0],
                        np.float32)  # fmt: skip
    a, b, c = (x.ravel() for x in np.meshgrid(specials, specials, specials))
    with np.errstate(all="ignore"):
        assert _same(fma32(a, b, c), fmaf(a, b, c))
