"""Checking and converting gemm's operands: integer dtypes, lane ranges, shapes, the accumulator."""

from __future__ import annotations

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


def _as_int_array(x, name: str) -> np.ndarray:
    if isinstance(x, (bool, np.bool_)):
        raise OperandTypeError(f"{name}={describe(x)} is a bool; expected an integer array")
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
        raise OperandTypeError(
            f"{name} has dtype {arr.dtype}; expected an integer dtype (int8, uint8, int16, "
            f"uint16, ml_dtypes int4/uint4, ...)"
        )
    return arr


def operand(x, name: str, op: GemmOp, which: str) -> np.ndarray:
    """``x`` as the smallest NumPy dtype holding the instruction's lanes, every value checked."""
    arr = _as_int_array(x, name)
    if arr.ndim < 2:
        raise OperandError(
            f"{name} has shape {arr.shape}; expected at least 2 dimensions ((..., M, K) for a, (..., K, N) for b)"
        )
    lo, hi = op.lane_range(which)
    if arr.size:
        mn, mx = arr.min(), arr.max()
        if mn < lo or mx > hi:
            bad = mn if mn < lo else mx
            at = tuple(int(i) for i in np.argwhere(arr == bad)[0])
            width, signed = (op.a_width, op.a_signed) if which == "a" else (op.b_width, op.b_signed)
            kind = "a signed" if signed else "an unsigned"
            raise OperandError(
                f"{name}[{', '.join(map(str, at))}]={int(bad)} does not fit {kind} {width}-bit "
                f"lane of {op.name}; expected values in [{lo}, {hi}]"
            )
    want = _SMALL[(op.a_signed, op.a_width) if which == "a" else (op.b_signed, op.b_width)]
    return np.ascontiguousarray(arr, dtype=want)


def accumulator(c, op: GemmOp, shape: tuple[int, ...]) -> np.ndarray | None:
    """``c`` broadcast to ``shape`` as uint64 words modulo 2**64 (None stays None).

    As for the core's scalar operands, a value may be given in the accumulator's signed or unsigned spelling.
    """
    if c is None:
        return None
    arr = _as_int_array(c, "c")
    n = op.acc_bits
    lo, hi = -(1 << (n - 1)), (1 << n) - 1
    if arr.size:
        mn, mx = int(arr.min()), int(arr.max())
        if mn < lo or mx > hi:
            bad = mn if mn < lo else mx
            raise OperandError(
                f"c contains {bad}, which is not a {n}-bit accumulator value of {op.name}; "
                f"expected values in [{lo}, {hi}] (signed or unsigned spelling)"
            )
    try:
        arr = np.broadcast_to(arr, shape)
    except ValueError:
        raise OperandError(
            f"c has shape {arr.shape}; expected a shape that broadcasts to the result's {shape}"
        ) from None
    if arr.dtype == object:  # Python ints in either spelling, possibly beyond int64 and uint64 together
        words = (arr % (1 << 64)).astype(np.uint64)
    else:
        words = arr.astype(np.uint64) if arr.dtype.kind == "u" else arr.astype(np.int64).view(np.uint64)
    if n == 32:
        words = words & np.uint64(0xFFFFFFFF)
    return words


def read_acc(words: np.ndarray, op: GemmOp) -> np.ndarray:
    """uint64 words as the accumulator type reads them, in int64 (uint64 for unsigned 64-bit)."""
    if op.acc_bits == 64:
        return words.view(np.int64) if op.acc_signed else words
    w = words.astype(np.int64)
    if op.acc_signed:
        w = np.where(w >= 1 << 31, w - (1 << 32), w)
    return w


def shapes(a: np.ndarray, b: np.ndarray) -> tuple[tuple[int, ...], int, int, int]:
    """The broadcast batch shape and M, K, N, as numpy.matmul defines them."""
    (m, k), (k2, n) = a.shape[-2:], b.shape[-2:]
    if k != k2:
        raise OperandError(
            f"a has shape {a.shape} and b has shape {b.shape}: a's last axis (K={k}) must equal "
            f"b's second-to-last (K={k2})"
        )
    try:
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ValueError:
        raise OperandError(
            f"a has shape {a.shape} and b has shape {b.shape}: their batch dimensions "
            f"{a.shape[:-2]} and {b.shape[:-2]} do not broadcast"
        ) from None
    return batch, m, k, n
