"""Property: the array path equals the scalar path element by element, for
random shapes (empty and 0-d included, broadcasting) and integer dtypes, on
both array backends."""

from __future__ import annotations

import os
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from intdot import amd
from intdot.core.accel import numba_available
from tests.amd.spec import NAMES, SUDOT, call, params

# dtype -> the value range it may carry into a 32-bit operand
DTYPES = {
    np.int32: (-(2**31), 2**31 - 1),
    np.uint32: (0, 2**32 - 1),
    np.int64: (-(2**31), 2**32 - 1),
    np.uint64: (0, 2**32 - 1),
    np.int8: (-128, 127),
    np.uint8: (0, 255),
    np.int16: (-(2**15), 2**15 - 1),
    np.uint16: (0, 2**16 - 1),
}


def operand(shape):
    return st.sampled_from(list(DTYPES)).flatmap(
        lambda dt: hnp.arrays(
            dt, shape, elements=st.integers(*DTYPES[dt]) if dt != np.uint64 else st.integers(0, 2**32 - 1)
        )
    )


@st.composite
def calls(draw):
    name = draw(st.sampled_from(NAMES))
    shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=3, min_dims=0, max_dims=3, min_side=0, max_side=4))
    arrays = []
    for i, shape in enumerate(shapes.input_shapes):
        if name in ("sdot2", "udot2") and i < 2 and shape and draw(st.booleans()):
            # 16-bit lanes given as pairs along a last axis of 2
            dtype = draw(st.sampled_from([np.int16, np.uint16, np.dtype(">i2")]))
            lanes = draw(hnp.arrays(dtype, shape + (2,)))
            arrays.append(("pairs", lanes))
        elif draw(st.booleans()) and not shape:
            arrays.append(("int", draw(st.integers(-(2**31), 2**32 - 1))))
        elif name in ("sdot2", "udot2") and i < 2:
            arrays.append(("packed", draw(operand(shape))))  # words that may end in an axis of 2, in packed()
        else:
            arrays.append(("array", draw(operand(shape))))
    flags = draw(st.tuples(st.booleans(), st.booleans())) if name in SUDOT else (None, None)
    return name, arrays, draw(st.booleans()), draw(st.booleans()), flags


def as_word(kind, x):
    """One element of an operand as a Python int (the scalar path's input)."""
    if kind == "pairs":
        return (int(x[..., 0]) & 0xFFFF) | ((int(x[..., 1]) & 0xFFFF) << 16)
    return int(x)


def scalar_words(kind, value, shape):
    """The operand, broadcast to ``shape``, as an object array of Python ints."""
    if kind == "int":
        return np.full(shape, value, dtype=object)
    if kind == "pairs":
        words = np.vectorize(lambda a, b: (int(a) & 0xFFFF) | ((int(b) & 0xFFFF) << 16), otypes=[object])(
            value[..., 0], value[..., 1]
        )
        return np.broadcast_to(words, shape)
    return np.broadcast_to(value.astype(object), shape)


def _check(name, arrays, neg, clamp, flags):
    fn = getattr(amd, name)
    kw = {} if flags[0] is None else {"src0_neg": flags[0], "src1_neg": flags[1]}
    values = [amd.packed(v) if k == "packed" else v for k, v in arrays]
    got = call(fn, name, *values, neg=neg, clamp=clamp, **kw)
    if all(k == "int" for k, _ in arrays):
        assert type(got) is int
        return
    p = params(name, *flags)
    assert isinstance(got, np.ndarray) and got.dtype == (np.int32 if p["result_signed"] else np.uint32)
    shapes = [np.shape(v)[:-1] if k == "pairs" else np.shape(v) for k, v in arrays]
    shape = np.broadcast_shapes(*shapes)
    assert got.shape == shape
    words = [scalar_words(k, v, shape) for k, v in arrays]
    for idx in np.ndindex(shape):
        want = call(fn, name, *(int(w[idx]) for w in words), neg=neg, clamp=clamp, **kw)
        assert int(got[idx]) == want, (idx, name, neg, clamp, flags)


@pytest.mark.parametrize("backend", ["numpy"] + (["numba"] if numba_available() else []))
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=calls())
def test_array_path_equals_scalar_path(backend, case):
    with mock.patch.dict(os.environ, {"INTDOT_BACKEND": backend}):
        _check(*case)


@pytest.mark.parametrize("name", NAMES)
def test_empty_and_zero_d(name):
    fn = getattr(amd, name)
    p = params(name, True, False)
    args = (np.zeros((0, 3), dtype=np.uint32), 5, np.int64(7))
    got = call(fn, name, *args, src0_neg=True, src1_neg=False) if name in SUDOT else call(fn, name, *args)
    assert got.shape == (0, 3) and got.dtype == (np.int32 if p["result_signed"] else np.uint32)
    zero_d = np.array(0x01020304, dtype=np.uint32)
    got = (
        call(fn, name, zero_d, 0x05060708, 10, src0_neg=True, src1_neg=True)
        if name in SUDOT
        else call(fn, name, zero_d, 0x05060708, 10)
    )
    assert isinstance(got, np.ndarray) and got.shape == ()
    scalar = (
        call(fn, name, 0x01020304, 0x05060708, 10, src0_neg=True, src1_neg=True)
        if name in SUDOT
        else call(fn, name, 0x01020304, 0x05060708, 10)
    )
    assert int(got) == scalar
