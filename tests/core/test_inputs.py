"""Unusual but valid inputs give the reference's answers; odd ones give typed errors.

Byte order, strides, read-only and Fortran arrays, 0-d arrays, object arrays,
empty lists, uint64 beyond int64: each once through the core, expected values
from tests/reference.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from intdot.core import DotSpec, dot_function, lane_values, pack, trace, unpack
from intdot.core.accel import numba_available
from intdot.errors import ConfigError, OperandError, OperandTypeError
from tests.reference import lanes as ref_lanes
from tests.reference import ref_dot

BACKENDS = ["numpy"] + (["numba"] if numba_available() else [])
SPEC = DotSpec.packed32(8, True, False, True)
f = dot_function(SPEC, ("src0", "src1", "src2"))
WORDS = [0x80FF7F01, 0xFFFFFFFF, 0x7F7F7F7F, 0x01020304, 0, 0x80808080]
ACCS = [5, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0, 12345]


def want(a, b, c, spec=SPEC, neg=False, clamp=False):
    return [
        ref_dot(
            int(x),
            int(y),
            int(z),
            width=spec.a_width,
            a_signed=spec.a_signed,
            b_signed=spec.b_signed,
            result_signed=spec.acc_signed,
            neg=neg,
            clamp=clamp,
        )
        for x, y, z in zip(a, b, c)
    ]


@pytest.fixture(params=BACKENDS)
def backend(request, monkeypatch):
    monkeypatch.setenv("INTDOT_BACKEND", request.param)
    return request.param


@pytest.mark.parametrize("dtype", [">u4", ">i8", ">u8", "<i8", "<u8"])
@pytest.mark.parametrize("n", [6, 6 * 1000])  # small arrays and arrays past the compiled kernel's threshold
def test_byte_orders_and_widths(dtype, n, backend):
    reps = n // len(WORDS)
    a = np.array(WORDS * reps, dtype=dtype)
    b = np.array(WORDS[::-1] * reps, dtype=dtype)
    c = np.array(ACCS * reps, dtype=dtype)
    got = f(a, b, c)
    assert got.dtype == np.int32
    assert got[: len(WORDS)].tolist() == want(WORDS, WORDS[::-1], ACCS)
    assert got.tolist() == want(WORDS, WORDS[::-1], ACCS) * reps


def test_big_endian_signed_32_bit():
    a = np.array([-1, -(2**31), 2**31 - 1, 0x01020304], dtype=">i4")
    assert f(a, a, a).tolist() == want(a.tolist(), a.tolist(), a.tolist())


def test_big_endian_narrow():
    a = np.array([-1, 127, -128, 5], dtype=">i2")
    assert f(a, 0x01010101, 0).tolist() == want(a.tolist(), [0x01010101] * 4, [0] * 4)


def test_strided_reversed_fortran_readonly(backend):
    base = np.array(WORDS * 1000, dtype=np.uint32).reshape(200, 30)
    views = {
        "reversed": base[::-1, ::-1],
        "strided": base[::3, ::7],
        "fortran": np.asfortranarray(base),
        "transposed": base.T,
    }
    ro = base.copy()
    ro.setflags(write=False)
    views["read-only"] = ro
    for name, v in views.items():
        got = f(v, v.T.T[..., ::-1], 7)
        w = np.array(want(v.ravel(), v[..., ::-1].ravel(), [7] * v.size), dtype=np.int32).reshape(v.shape)
        np.testing.assert_array_equal(got, w, err_msg=name)


def test_zero_d_arrays_give_zero_d_arrays():
    got = f(np.array(0x80FF7F01, dtype=">u4"), np.array(0x01020304), np.array(5, dtype=np.int8))
    assert got.shape == () and got.dtype == np.int32
    assert int(got) == want([0x80FF7F01], [0x01020304], [5])[0]


def test_uint64_beyond_int64_is_refused():
    with pytest.raises(OperandError, match=r"src0 holds 9223372036854775808"):
        f(np.array([2**63], dtype=np.uint64), 0, 0)
    with pytest.raises(OperandError, match=r"src0=18446744073709551615"):
        f(np.uint64(2**64 - 1), 0, 0)
    assert f(np.array([2**32 - 1], dtype=np.uint64), 0x01010101, 0).tolist() == want([2**32 - 1], [0x01010101], [0])


@pytest.mark.parametrize("t", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64])
def test_numpy_scalars_of_every_int_type(t):
    v = t(np.iinfo(t).max if np.iinfo(t).max < 2**32 else 2**32 - 1)
    got = f(v, v, v)
    assert type(got) is int and got == want([int(v)], [int(v)], [int(v)])[0]


def test_object_arrays_are_validated_like_lists():
    assert f(np.array([0x80FF7F01, -1], dtype=object), 0x01020304, 0).tolist() == want(
        [0x80FF7F01, 2**32 - 1], [0x01020304] * 2, [0, 0]
    )
    with pytest.raises(OperandError, match=r"src0\[1\]=1099511627776"):
        f(np.array([1, 2**40], dtype=object), 0, 0)
    with pytest.raises(OperandError, match=r"src0\[1, 0\]=1180591620717411303424"):
        f(np.array([[1], [2**70]], dtype=object), 0, 0)
    with pytest.raises(OperandTypeError, match=r"src0\[0\]=1.5"):
        f(np.array([1.5], dtype=object), 0, 0)


def test_empty_list_is_an_empty_array():
    got = f([], 0, 0)
    assert got.shape == (0,) and got.dtype == np.int32


def test_shapes_that_do_not_broadcast_name_the_operands():
    with pytest.raises(OperandError, match=r"src0 \(3,\), src1 \(2,\), src2 \(\)"):
        f(np.zeros(3, np.int32), np.zeros(2, np.int32), 0)
    with pytest.raises(ValueError):  # OperandError is a ValueError
        f(np.zeros((0, 3), np.int32), np.zeros(2, np.int32), 0)


def test_int4_array_as_words_points_at_pack():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    with pytest.raises(OperandTypeError, match=r"intdot.pack\(lanes, 4\)"):
        f(np.zeros(8, dtype=ml_dtypes.int4), 0, 0)


@pytest.mark.parametrize("width", [4, 8, 16])
@pytest.mark.parametrize("signed", [False, True])
def test_unpack_of_one_word(width, signed):
    for word in (0x80FF7F01, 0xFFFF8000, -1, 0x0000F00F):
        got = unpack(word, width, signed=signed)
        assert got.shape == (32 // width,)
        assert got.tolist() == ref_lanes(word, width, signed)
        assert lane_values(word, width, signed) == ref_lanes(word, width, signed)


def test_unpack_big_endian_words():
    words = np.array([0x80FF7F01, 0x01020304], dtype=">u4")
    assert unpack(words, 8).tolist() == [ref_lanes(0x80FF7F01, 8, True), ref_lanes(0x01020304, 8, True)]


def test_pack_refuses_uint64_beyond_int64():
    # A cast to int64 first would read 2**64 - 1 as -1 and pack it as 0xFF.
    with pytest.raises(OperandError, match="18446744073709551615"):
        pack(np.array([1, 2, 3, 2**64 - 1], dtype=np.uint64), 8)


def test_pack_python_ints_beyond_int64():
    with pytest.raises(OperandError, match=r"lanes\[3\]=1180591620717411303424"):
        pack([1, 2, 3, 2**70], 8)
    assert pack(np.array([1, 2, 3, -4], dtype=object), 8) == 0xFC030201


def test_pack_big_endian_lanes():
    assert pack(np.array([1, 127, -1, -128], dtype=">i2"), 8) == 0x80FF7F01
    assert pack(np.array([[-1, 7]], dtype=">i8"), 16).tolist() == [0x0007FFFF]


def test_lane_values_validates():
    with pytest.raises(OperandError, match="word=1099511627776"):
        lane_values(2**40, 8, True)
    with pytest.raises(OperandError, match="width=3"):
        lane_values(1, 3, True)
    with pytest.raises(OperandTypeError, match="signed=1"):
        lane_values(1, 8, 1)


@pytest.mark.parametrize("neg", [False, True])
@pytest.mark.parametrize("clamp", [False, True])
def test_trace_matches_the_reference(neg, clamp):
    for spec in (
        DotSpec.packed32(8, True, False, True),
        DotSpec.packed32(16, False, False, False),
        DotSpec.packed32(4, True, True, True),
    ):
        for a, b, c in zip(WORDS, WORDS[::-1], ACCS):
            t = trace(spec, a, b, c, neg=neg, clamp=clamp)
            la, lb = ref_lanes(a, spec.a_width, spec.a_signed), ref_lanes(b, spec.a_width, spec.b_signed)
            assert list(t.a_lanes) == la and list(t.b_lanes) == lb
            assert list(t.products) == [x * y for x, y in zip(la, lb)]
            assert t.result == want([a], [b], [c], spec, neg, clamp)[0]


def test_width_given_as_an_array():
    with pytest.raises(OperandError, match="width=array"):
        pack([1, 2, 3, 4], np.array([8, 8]))


def test_unknown_backend_names_its_source(monkeypatch):
    from intdot.core import dot_arrays

    words = np.zeros(3, np.uint32)
    with pytest.raises(OperandError, match="backend='gpu' is not known; expected one of auto, numpy, numba"):
        dot_arrays(SPEC, words, words, words, neg=False, clamp=False, backend="gpu")
    monkeypatch.setenv("INTDOT_BACKEND", "gpu")
    with pytest.raises(ConfigError, match="INTDOT_BACKEND='gpu' is not known"):
        f(words, words, words)


def test_pack_scalar_needs_a_sequence():
    from intdot.core import pack_scalar

    assert pack_scalar((-3, 7), 16, "src0") == ((-3) & 0xFFFF) | (7 << 16)
    with pytest.raises(OperandTypeError, match="src0=5 has type int; expected a list or tuple of 2 lane values"):
        pack_scalar(5, 16, "src0")


@pytest.mark.parametrize("width", [4, 8, 16])
def test_numpy_path_across_block_boundaries(width, monkeypatch):
    from intdot.core._numpy_path import BLOCK

    monkeypatch.setenv("INTDOT_BACKEND", "numpy")
    spec = DotSpec.packed32(width, True, False, True)
    rng = np.random.default_rng(width)
    n = BLOCK + BLOCK // 2 + 3
    a = rng.integers(0, 2**32, n, dtype=np.uint64).astype(">u4")  # non-native: converted block by block
    b = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)[::-1]
    c = rng.integers(-(2**31), 2**31, n, dtype=np.int64)
    got = dot_function(spec)(a, b, c, True, True)
    picks = sorted({0, BLOCK - 1, BLOCK, BLOCK + 1, n - 1, *rng.integers(0, n, 100).tolist()})
    assert [int(got[i]) for i in picks] == want(a[picks], b[picks], c[picks], spec, neg=True, clamp=True)


def test_ints_too_long_to_print_are_described():
    # str() of an int over 4300 digits raises ValueError in Python: the message must not print it.
    with pytest.raises(OperandError, match=r"src0=<an integer of 16610 bits> is out of range"):
        f(10**5000, 0, 0)
    with pytest.raises(OperandError, match=r"src0\[0\]=<a negative integer of 16610 bits>"):
        f([-(10**5000)], 0, 0)
    with pytest.raises(OperandError, match=r"lanes\[3\]=<an integer of 16610 bits>"):
        pack([1, 2, 3, 10**5000], 8)


def test_lists_numpy_would_read_as_float_stay_exact():
    # NumPy reads these integer lists as float64; they are integers and are checked as such.
    assert f([np.uint64(5), np.int64(-1)], 0x01010101, 0).tolist() == want([5, -1], [0x01010101] * 2, [0, 0])
    with pytest.raises(OperandError, match=r"src0\[0\]=9223372036854775808 is out of range"):
        f([2**63, -1], 0, 0)
    assert pack([np.uint64(5), np.int64(-1), 1, 2], 8) == 0x0201FF05
    with pytest.raises(OperandTypeError, match="dtype float64"):
        f([1.5, 2], 0, 0)


def test_pack_of_a_ragged_list():
    with pytest.raises(OperandTypeError, match=r"lanes=\[\[1, 2\], \[3\]\] is not an integer array"):
        pack([[1, 2], [3]], 8)


def test_bools_inside_lists_are_refused_like_bool_scalars():
    # NumPy reads [True, 2] as [1, 2]; a bool is no more a word inside a list than outside.
    with pytest.raises(OperandTypeError, match=r"src0\[0\]=True has type bool"):
        f([True, 2], 0, 0)
    with pytest.raises(OperandTypeError, match=r"src1\[1, 1\]=np.True_ has type bool"):
        f(0, [[1, 2], (3, np.True_)], 0)
    with pytest.raises(OperandTypeError, match=r"lanes\[2\]=True has type bool"):
        pack([1, 2, True, 3], 8)
    assert f([[1, 2], (3, 4)], 0x01010101, 0).tolist() == [
        want([1, 2], [0x01010101] * 2, [0, 0]),
        want([3, 4], [0x01010101] * 2, [0, 0]),
    ]
