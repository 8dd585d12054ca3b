"""Checking and converting gemm's operands: integer dtypes, lane ranges, shapes, the accumulator."""

from __future__ import annotations

import functools

import numpy as np

from ..core.errors import OperandError, OperandTypeError
from ..core.values import asarray_exact, describe, is_int_scalar
from .ops import GemmOp

_SMALL = {
    (True, 8): np.int8,
    (False, 8): np.uint8,
    (True, 4): np.int8,
    (False, 4): np.uint8,
    (True, 16): np.int16,
    (False, 16): np.uint16,
}


_LANE_DTYPES = "int8, uint8, int16, uint16, ml_dtypes int4/uint4, ..."


@functools.cache
def limits(dtype: np.dtype) -> tuple[int, int]:
    """(min, max) of an integer dtype (np.iinfo is slow enough to show in a small call's time)."""
    info = np.iinfo(dtype)
    return int(info.min), int(info.max)


def _first_outside(arr: np.ndarray, lo: int, hi: int) -> tuple[int, ...]:
    """The index of ``arr``'s first element (in C order) outside ``[lo, hi]``; one must be."""
    return tuple(int(i) for i in np.argwhere((arr < lo) | (arr > hi))[0])


def is_dask(x) -> bool:
    """Whether ``x`` is a Dask collection (by its module: Dask is not imported to ask)."""
    return type(x).__module__.startswith("dask.")


def _as_int_array(x, name: str, allowed: str = _LANE_DTYPES) -> np.ndarray:
    if isinstance(x, (bool, np.bool_)):
        raise OperandTypeError(f"{name}={describe(x)} is a bool; expected an integer array")
    if x is None:
        raise OperandTypeError(f"{name}=None; expected an integer array")
    if type(x).__module__.partition(".")[0] == "torch" and (x.is_floating_point() or x.is_complex()):  # Parameter
        # Read by dtype first: NumPy's conversion of a tensor that requires grad fails with torch's own error.
        raise OperandTypeError(f"{name} has dtype {x.dtype}; expected an integer dtype ({allowed})")
    try:
        # Not np.asarray: it reads [[2**64 - 1, -1]] as float64 and [[True, 2]] as [[1, 2]].
        arr = asarray_exact(x)
    except (ValueError, TypeError) as exc:  # ragged lists
        raise OperandTypeError(f"{name} is not an array: {exc}") from None
    if arr.dtype == object:
        for index in np.ndindex(arr.shape):
            if not is_int_scalar(arr[index]):
                v = arr[index]
                raise OperandTypeError(
                    f"{name}[{', '.join(map(str, index))}]={describe(v)} has type {type(v).__name__}; "
                    f"expected an integer"
                )
        return arr  # Python ints, each range-checked by the caller before conversion
    # ml_dtypes' int4/uint4 are not NumPy integer kinds; their values convert to int8/uint8 exactly.
    if arr.dtype.kind not in "iu" and arr.dtype.name in ("int4", "uint4", "int2", "uint2"):
        return arr.astype(np.int8 if arr.dtype.name[0] == "i" else np.uint8)
    if arr.dtype.kind not in "iu":
        if arr.size == 0 and arr.dtype == np.float64 and not isinstance(x, np.ndarray):
            return arr.astype(np.int8)  # an empty list: no element to be a float
        raise OperandTypeError(f"{name} has dtype {arr.dtype}; expected an integer dtype ({allowed})")
    return arr


def operand(x, name: str, op: GemmOp, which: str) -> np.ndarray:
    """``x`` as the smallest NumPy dtype holding the instruction's lanes, every value checked."""
    arr = _as_int_array(x, name)
    if arr.ndim < 1:
        raise OperandError(
            f"{name} has shape {arr.shape}; expected at least 1 dimension ((K,) or (..., M, K) for a, (K,) or "
            f"(..., K, N) for b, as numpy.matmul takes them)"
        )
    lo, hi = op.lane_range(which)
    # A dtype whose every value is a lane (int8 for signed 8-bit lanes) needs no pass over the data.
    fits = arr.dtype != object and lo <= limits(arr.dtype)[0] and limits(arr.dtype)[1] <= hi
    if arr.size and not fits:
        mn, mx = arr.min(), arr.max()
        if mn < lo or mx > hi:
            at = _first_outside(arr, lo, hi)
            bad = arr[at]
            width, signed = (op.a_width, op.a_signed) if which == "a" else (op.b_width, op.b_signed)
            kind = "a signed" if signed else "an unsigned"
            raise OperandError(
                f"{name}[{', '.join(map(str, at))}]={describe(int(bad))} does not fit {kind} {width}-bit "
                f"lane of {op.name}; expected values in [{lo}, {hi}]"
            )
    want = _SMALL[(op.a_signed, op.a_width) if which == "a" else (op.b_signed, op.b_width)]
    return np.ascontiguousarray(arr, dtype=want)


def accumulator(c, op: GemmOp, shape: tuple[int, ...]) -> np.ndarray | None:
    """``c`` as the accumulator's words (uint32 for 32 bits, uint64 for 64), broadcast to ``shape`` as a view.

    As for the core's scalar operands, a value may be given in the accumulator's signed or unsigned spelling.
    Only ``c``'s own elements are converted: a ``(N,)`` or ``(M, 1)`` ``c`` stays that size in memory, and
    adding it to the result is one broadcast pass (it used to be expanded to ``(M, N)`` uint64 words first).
    """
    if c is None:
        return None
    n = op.acc_bits
    arr = _as_int_array(c, "c", f"int32, uint32, int64, uint64 or smaller: {n}-bit accumulator values")
    lo, hi = -(1 << (n - 1)), (1 << n) - 1
    if arr.size:
        mn, mx = int(arr.min()), int(arr.max())
        if mn < lo or mx > hi:
            at = _first_outside(arr, lo, hi)
            raise OperandError(
                f"c[{', '.join(map(str, at))}]={describe(int(arr[at]))} is not a {n}-bit accumulator value of "
                f"{op.name}; expected values in [{lo}, {hi}] (signed or unsigned spelling)"
            )
    try:
        if np.broadcast_shapes(arr.shape, shape) != tuple(shape):  # c may not add axes to the result
            raise ValueError
    except ValueError:
        raise OperandError(
            f"c has shape {arr.shape}; expected a shape that broadcasts to the result's {tuple(shape)}"
        ) from None
    word = np.uint32 if n == 32 else np.uint64
    if arr.dtype == object:  # Python ints in either spelling, possibly beyond int64 and uint64 together
        # One by one as Python ints: NumPy's % on an object array fails on an int64 element beside 2**64 - 1.
        words = np.array([int(v) % (1 << n) for v in arr.flat], dtype=word).reshape(arr.shape)
    else:
        # Casting an integer array to an unsigned type keeps its low bits: either spelling gives the same word.
        words = arr.astype(word)
    return np.broadcast_to(words, shape)


def read_acc(words: np.ndarray, op: GemmOp) -> np.ndarray:
    """Accumulator words as the accumulator type reads them, in int64 (uint64 for unsigned 64-bit)."""
    if op.acc_bits == 64:
        return words.view(np.int64) if op.acc_signed else words
    return (words.view(np.int32) if op.acc_signed else words).astype(np.int64)


def shapes(a: np.ndarray, b: np.ndarray, shown=None) -> tuple[tuple[int, ...], int, int, int]:
    """The broadcast batch shape and M, K, N, as numpy.matmul defines them (``shown``: the shapes the caller
    gave, for messages, where a 1-D operand was promoted to 2-D)."""
    sa, sb = shown or (a.shape, b.shape)
    (m, k), (k2, n) = a.shape[-2:], b.shape[-2:]
    if k != k2:
        b_axis = "only axis" if len(sb) == 1 else "second-to-last"
        raise OperandError(
            f"a has shape {sa} and b has shape {sb}: a's last axis (K={k}) must equal b's {b_axis} (K={k2})"
        )
    try:
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ValueError:
        raise OperandError(
            f"a has shape {sa} and b has shape {sb}: their batch dimensions "
            f"{a.shape[:-2]} and {b.shape[:-2]} do not broadcast"
        ) from None
    return batch, m, k, n
