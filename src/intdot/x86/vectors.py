"""Vector registers as NumPy arrays, and the dword-lane steps computed on them through the core.

A register argument is an array (or a sequence) of the register's contents in any integer
dtype, read as raw little-endian bytes: a ``__m512i`` is 64 ``uint8``, 32 ``int16`` or 16
``int32`` values, whichever the caller holds.  A sequence of Python ints has as many elements
as its element width implies (64 for bytes, 16 for dwords) and each value must fit that width in
its signed or unsigned spelling.  Leading axes are a batch: millions of registers at once, which
broadcast against each other, with one core call over all their lanes.

>>> import numpy as np
>>> from intdot.x86.vectors import register
>>> register([1, -1, 2, 3], "a", 16, "f").tolist()
[1, 0, 0, 0, 255, 255, 255, 255, 2, 0, 0, 0, 3, 0, 0, 0]
>>> register(np.zeros((5, 8), np.int16), "a", 16, "f").shape
(5, 16)
"""

from __future__ import annotations

import numpy as np

from ..core.dotstep import dot_arrays
from ..core.errors import OperandError, OperandTypeError
from ..core.spec import DotSpec
from ..core.values import a_or_an, asarray_exact, check_int, describe, is_int_scalar

__all__ = ["register", "mask_bits", "lane_steps", "apply_mask", "pair_step"]

_WIDTHS = {1: "int8/uint8", 2: "int16/uint16", 4: "int32/uint32", 8: "int64/uint64"}


def register(x, name: str, nbytes: int, func: str) -> np.ndarray:
    """The bytes of register argument ``x`` (``nbytes`` per register) as a uint8 array of shape ``(..., nbytes)``."""
    if isinstance(x, np.ndarray) and x.dtype.kind in "iu" and x.dtype != np.bool_:
        arr = x
        if arr.ndim == 0 or arr.shape[-1] * arr.itemsize != nbytes:
            have = (
                "a scalar"
                if arr.ndim == 0
                else f"{arr.shape[-1]} {arr.dtype} values ({arr.shape[-1] * arr.itemsize} bytes)"
            )
            raise OperandError(
                f"{func}: {name} holds {have} in its last axis; expected one {8 * nbytes}-bit register: "
                f"{nbytes} bytes, as {nbytes} uint8, {nbytes // 2} int16, {nbytes // 4} int32 or {nbytes // 8} int64"
            )
        little = arr.astype(arr.dtype.newbyteorder("<"), copy=False)
        return np.ascontiguousarray(little).view(np.uint8).reshape(*arr.shape[:-1], nbytes)
    if isinstance(x, np.ndarray) or is_int_scalar(x) or isinstance(x, (str, bytes, float)) or x is None:
        kind = f"dtype {x.dtype}" if isinstance(x, np.ndarray) else f"type {type(x).__name__}"
        raise OperandTypeError(
            f"{func}: {name}={describe(x)} has {kind}; expected a {8 * nbytes}-bit register: an integer "
            f"array (or sequence) of {nbytes} bytes, {nbytes // 4} dwords, ..."
        )
    try:
        arr = asarray_exact(x)
    except (TypeError, ValueError) as exc:  # a ragged list
        raise OperandTypeError(f"{func}: {name}={describe(x)} is not an integer array: {exc}") from None
    if arr.ndim == 0 or arr.size == 0 or nbytes % arr.shape[-1] or nbytes // arr.shape[-1] not in _WIDTHS:
        n = "a scalar" if arr.ndim == 0 else f"{arr.shape[-1]} elements"
        raise OperandError(
            f"{func}: {name} has {n} in its last axis; expected a {8 * nbytes}-bit register as {nbytes} bytes, "
            f"{nbytes // 2} words, {nbytes // 4} dwords or {nbytes // 8} qwords"
        )
    width = nbytes // arr.shape[-1]
    if arr.dtype.kind not in "iuO" or arr.dtype == np.bool_:
        raise OperandTypeError(f"{func}: {name} has dtype {arr.dtype}; expected integers ({_WIDTHS[width]} values)")
    bits = 8 * width
    lo, end = -(1 << (bits - 1)), 1 << bits
    values = arr.ravel().tolist()
    bad = next((v for v in values if not (is_int_scalar(v) and lo <= int(v) < end)), None) if values else None
    if bad is not None:
        raise OperandError(
            f"{func}: {name} holds {describe(bad)}; with {arr.shape[-1]} elements each is "
            f"{a_or_an(f'{bits}-bit')} lane, in [{lo}, {end - 1}] ({_WIDTHS[width]})"
        )
    words = np.array([int(v) & (end - 1) for v in values], dtype=f"<u{width}").reshape(arr.shape)
    return words.view(np.uint8).reshape(*arr.shape[:-1], nbytes)


def mask_bits(k, name: str, bits: int, func: str) -> np.ndarray:
    """An ``__mmask8``/``__mmask16`` argument (an int, or an integer array of a batch) as a uint32 array."""
    top = (1 << bits) - 1
    what = f"a __mmask{bits} value in [0, {top}]"
    if is_int_scalar(k):
        return np.asarray(check_int(k, f"{func}: {name}", 0, top, what), np.uint32)
    if not isinstance(k, np.ndarray):
        try:
            k = asarray_exact(k)
        except (TypeError, ValueError) as exc:
            raise OperandTypeError(f"{func}: {name}={describe(k)} is not {what}: {exc}") from None
    if k.dtype.kind not in "iu" or k.dtype == np.bool_:
        raise OperandTypeError(f"{func}: {name} has dtype {k.dtype}; expected {what} (or an integer array of them)")
    if k.size and (int(k.min()) < 0 or int(k.max()) > top):
        bad = int(k.min()) if int(k.min()) < 0 else int(k.max())
        raise OperandError(f"{func}: {name} holds {bad}; expected {what}")
    return k.astype(np.uint32)


def _batch(func: str, **arrays) -> tuple:
    try:
        return np.broadcast_shapes(*(a.shape[:-1] for a in arrays.values()))
    except ValueError:
        shapes = ", ".join(f"{k} {a.shape[:-1]}" for k, a in arrays.items())
        raise OperandError(f"{func}: the batch axes (all but the last) do not broadcast: {shapes}") from None


def lane_steps(spec: DotSpec, clamp: bool, src: np.ndarray, a: np.ndarray, b: np.ndarray, func: str) -> np.ndarray:
    """Every dword lane's dot step: ``src``, ``a``, ``b`` are register bytes (``(..., nbytes)`` uint8);
    the result is ``(..., nbytes // 4)`` of the spec's result dtype.  One core call over all lanes."""
    batch = _batch(func, src=src, a=a, b=b)
    n = src.shape[-1] // 4
    words = [np.broadcast_to(x, (*batch, x.shape[-1])).view(np.uint32) for x in (src, a, b)]
    # The register bytes were made little-endian; a dword view reads them in the machine's order.
    if np.little_endian is False:  # pragma: no cover - every x86 host is little-endian
        words = [w.byteswap() for w in words]
    wc, wa, wb = (w.reshape(*batch, n) for w in words)
    return dot_arrays(spec, wa, wb, wc, neg=False, clamp=clamp, names=("a", "b", "src"))


def apply_mask(result: np.ndarray, src: np.ndarray, k: np.ndarray, zero: bool, func: str) -> np.ndarray:
    """AVX-512 write masking: lane i keeps the result where bit i of ``k`` is set, else ``src``'s lane
    (merge) or 0 (``zero``)."""
    n = result.shape[-1]
    bits = ((k[..., None] >> np.arange(n, dtype=np.uint32)) & 1).astype(bool)
    try:
        shape = np.broadcast_shapes(result.shape, bits.shape)
    except ValueError:
        raise OperandError(
            f"{func}: the mask's batch axes {k.shape} do not broadcast with the registers' {result.shape[:-1]}"
        ) from None
    if zero:
        return np.where(bits, result, result.dtype.type(0)).astype(result.dtype, copy=False).reshape(shape)
    old = np.broadcast_to(src, (*shape[:-1], src.shape[-1])).view(np.uint32).view(result.dtype)
    return np.where(bits, result, old.reshape(*shape[:-1], n))


def pair_step(spec: DotSpec, clamp: bool, a: np.ndarray, b: np.ndarray, func: str) -> np.ndarray:
    """``pmaddubsw`` / ``pmaddwd``: each pair of adjacent lanes of a and b, one step from a zero accumulator.

    The result lane is ``spec.acc_bits`` wide (16 for pmaddubsw, 32 for pmaddwd)."""
    batch = _batch(func, a=a, b=b)
    step = spec.a_bits // 8  # bytes per result lane
    n = a.shape[-1] // step
    dtype = np.uint16 if step == 2 else np.uint32
    wa, wb = (np.broadcast_to(x, (*batch, x.shape[-1])).view(dtype).reshape(*batch, n) for x in (a, b))
    zero = np.zeros(1, spec.acc_dtype)
    return dot_arrays(spec, wa.astype(spec.a_dtype), wb.astype(spec.b_dtype), zero, neg=False, clamp=clamp)
