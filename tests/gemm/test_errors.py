"""Bad input gives one IntdotError naming the argument, the value and what was allowed."""

import numpy as np
import pytest

from intdot.core.errors import IntdotError, OperandError, OperandTypeError, UnknownInstruction, UnsupportedOnTarget
from intdot.gemm import gemm

A = np.zeros((2, 4), np.int8)
B = np.zeros((4, 3), np.int8)


@pytest.mark.parametrize(
    "call, exc, words",
    [
        (lambda: gemm(np.full((2, 4), 128), B, op="sdot4"), OperandError, ["a[0, 0]=128", "[-128, 127]"]),
        (lambda: gemm(A, np.full((4, 3), -1), op="udot4"), OperandError, ["b[0, 0]=-1", "[0, 255]"]),
        (lambda: gemm(np.full((2, 4), 8), B, op="sdot8"), OperandError, ["a[0, 0]=8", "[-8, 7]"]),
        (lambda: gemm(A.astype(float), B, op="sdot4"), OperandTypeError, ["float64", "integer dtype"]),
        (lambda: gemm(A, B, op="sdot9"), UnknownInstruction, ["sdot9", "sdot4"]),
        (lambda: gemm(A, B, op=4), OperandTypeError, ["op=4"]),
        (lambda: gemm(A, B, op="sdot", clamp=True), OperandError, ["clamp=True", "wraps modulo 2**32", "not a choice"]),
        (lambda: gemm(A, B, op="usdot", neg=True), OperandError, ["neg=True"]),
        (lambda: gemm(A, B, op="sdot4", clamp=1), OperandTypeError, ["clamp=1"]),
        (lambda: gemm(A, B, op="sdot4", target="RDNA3"), UnsupportedOnTarget, ["RDNA3", "sdot4"]),
        (lambda: gemm(A, B, op="usdot", target="armv8.4-a"), UnsupportedOnTarget, ["i8mm"]),
        (lambda: gemm(A, B, op="sudot4"), OperandTypeError, ["a_signed=None", "b_signed"]),
        (lambda: gemm(A, B, op="sdot4", a_signed=True), OperandTypeError, ["fixed"]),
        (lambda: gemm(A, B.T, op="sdot4"), OperandError, ["K=4", "K=3"]),
        (lambda: gemm(np.int8(1), B, op="sdot4"), OperandError, ["shape ()", "at least 1 dimension"]),
        (lambda: gemm(A, B, np.full((2, 3), 2**32), op="sdot4"), OperandError, ["c[0, 0]=4294967296 is not"]),
        # The first bad element in C order, not the most extreme one.
        (lambda: gemm([[200, 0, 300, 0]], B, op="sdot4"), OperandError, ["a[0, 0]=200"]),
        (lambda: gemm(A, B, [[0, 2**32, 2**40]], op="sdot4"), OperandError, ["c[0, 1]=4294967296"]),
        (lambda: gemm(None, B, op="sdot4"), OperandTypeError, ["a=None; expected an integer array"]),
        (lambda: gemm(A, B, 1.5, op="sdot4"), OperandTypeError, ["c has dtype float64", "32-bit accumulator"]),
        (lambda: gemm(A, B, np.zeros((5, 3)), op="sdot4"), OperandTypeError, ["c has dtype float64"]),
        (lambda: gemm(A, B, np.zeros((5, 3), int), op="sdot4"), OperandError, ["c has shape (5, 3)"]),
        (lambda: gemm(A, B, op="sdot4", backend="cuda"), OperandError, ["backend='cuda'", "auto"]),
        (
            lambda: gemm(np.zeros((2, 4), np.int16), np.zeros((4, 3), np.int16), op="sdot"),
            ValueError,
            ["with 16-bit elements", "arm.sdot_sve_vec_d (4 x s16 . 4 x s16 -> s64); arm.sdot_sve_vec_hs (2 x s16"],
        ),
        # NumPy reads these lists as float64 or turns the bool into 1: each element is checked instead.
        (lambda: gemm([[2**64 - 1, -1, 0, 0]], B, op="sdot4"), OperandError, ["a[0, 0]=18446744073709551615"]),
        (lambda: gemm([[True, 1, 1, 1]], B, op="sdot4"), OperandTypeError, ["a[0, 0]=True", "bool"]),
        (lambda: gemm(A, B, [[0, True, 0]], op="sdot4"), OperandTypeError, ["c[0, 1]=True", "bool"]),
        (lambda: gemm(A, B, [[0, None, 0]], op="sdot4"), OperandTypeError, ["c[0, 1]=None"]),
        (
            lambda: gemm(np.zeros((2, 4), np.int16), np.zeros((4, 3), np.int16), op="sdot2", backend="torch"),
            OperandError,
            ["8- and 4-bit"],
        ),
    ],
)
def test_errors(call, exc, words):
    with pytest.raises(exc) as info:
        call()
    assert isinstance(info.value, IntdotError)
    for w in words:
        assert w in str(info.value)


def test_both_spellings_of_an_accumulator_agree():
    a = np.ones((1, 4), np.int8)
    assert gemm(a, a.T, np.array([[0xFFFFFFFF]], np.uint32), op="sdot4").tolist() == [[3]]
    assert gemm(a, a.T, np.array([[-1]]), op="sdot4").tolist() == [[3]]


@pytest.mark.parametrize("name", ["svdot_s64", "svdot_u64"])
def test_a_list_of_64_bit_accumulators_in_both_spellings(name):
    # [-1, 2**64 - 1] is one bit pattern twice; NumPy alone makes the list float64 and loses it.
    a = np.ones((1, 4), np.uint16 if name.endswith("u64") else np.int16)
    got = gemm(a, np.ones((4, 2), a.dtype), [[-1, 2**64 - 1]], op=name)
    assert got.tolist() == [[3, 3]]


def test_numpy_and_python_ints_mixed_in_a_64_bit_accumulator_list():
    a = np.ones((1, 4), np.int16)
    got = gemm(a, np.ones((4, 2), np.int16), [[np.int64(-1), 2**64 - 1]], op="svdot_s64")
    assert got.tolist() == [[3, 3]]


def test_numpy_bools_as_flags_and_float_tensors():
    a, b = np.ones((2, 4), np.int8), np.ones((4, 3), np.uint8)
    assert np.array_equal(
        gemm(a, b, op="sudot4", a_signed=np.True_, b_signed=np.False_),
        gemm(a, b, op="sudot4", a_signed=True, b_signed=False),
    )
    torch = pytest.importorskip("torch")
    # NumPy's conversion of a tensor that requires grad raises torch's RuntimeError; the dtype is refused first.
    with pytest.raises(OperandTypeError, match="a has dtype torch.float32"):
        gemm(torch.ones((2, 4), requires_grad=True), b, op="usdot")
    with pytest.raises(OperandTypeError, match="a has dtype torch.float32"):  # a subclass, from torch.nn.parameter
        gemm(torch.nn.Parameter(torch.ones((2, 4))), b, op="usdot")


def test_empty_lists_are_k_zero():
    assert gemm([], [], op="sdot4") == 0


def test_empty_shapes():
    assert gemm(np.zeros((0, 4), np.int8), B, op="sdot4").shape == (0, 3)
    assert (
        gemm(np.zeros((2, 0), np.int8), np.zeros((0, 3), np.int8), np.full((2, 3), 7), op="sdot4", clamp=True).tolist()
        == [[7] * 3] * 2
    )


def test_a_remembered_front_never_answers_for_a_flag_of_another_type():
    """gemm remembers a spelling's resolved instruction and flags; 1 == True and hashes alike, but clamp=1 stays an
    error after a clamp=True call, and the remembered GemmOp's hash does not travel with it to another process."""
    import pickle

    from intdot.gemm import api

    gemm(A, B, op="sdot4", clamp=True)
    with pytest.raises(OperandTypeError, match="clamp=1"):
        gemm(A, B, op="sdot4", clamp=1)
    o = api._front("sdot4", None, None, True, None, None, 8)[0]
    h = hash(o)
    copy = pickle.loads(pickle.dumps(o))
    assert "_hash" not in copy.__dict__ and copy == o and hash(copy) == h


@pytest.mark.parametrize(
    ("op", "target", "lacks"),
    [("_mm512_dpbusd_epi32", "alderlake", "avx512vnni"), ("_mm256_dpbusd_avx_epi32", "cascadelake", "avxvnni")],
)
def test_an_intrinsics_own_features_are_checked_against_the_target(op, target, lacks):
    """vpdpbusd exists on both CPUs (VEX on one, EVEX on the other); the intrinsic asks for one encoding."""
    from intdot import catalog

    assert catalog.available("vpdpbusd", target) and not catalog.available(op, target)
    a, b = np.ones((1, 64), np.uint8), np.ones((64, 1), np.int8)
    with pytest.raises(UnsupportedOnTarget, match=lacks):
        gemm(a, b, op=op, target=target)
    assert gemm(a, b, op="vpdpbusd", target=target).tolist() == [[64]]
