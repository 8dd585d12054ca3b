"""AMX-INT8 on tiles: ``tdpbssd``, ``tdpbsud``, ``tdpbusd``, ``tdpbuud``.

A call computes what the instruction does to the tile registers, from the SDM's pseudocode::

    for m < M, for k < K/4, for n < N:
        C[m][n] = C[m][n] + dot(A[m] bytes 4k..4k+3, B[k] bytes 4n..4n+3)    (wrapping, 32 bits)

C is an ``M x N`` tile of dwords (int32, or uint32 for ``tdpbuud``), A an ``M x K`` tile of
bytes, B a ``K/4 x 4N`` tile of bytes: the VNNI layout, in which the four bytes of B that
meet A's bytes ``4k..4k+3`` for output column ``n`` are row ``k``'s bytes ``4n..4n+3``.  Each
dot step is the core's (the catalog record's spec).  The tile limits of palette 1 are errors:
at most 16 rows and 64 bytes a row, so M and N at most 16 and K at most 64, a multiple of 4.
Arguments take any integer dtype: C's values in the int32 or uint32 spelling, A's and B's
as bytes (-128..255); leading axes are a batch of tile operations, broadcast together.

>>> import numpy as np
>>> from intdot.x86 import tdpbusd
>>> c = np.zeros((2, 3), np.int32)
>>> a = np.full((2, 8), 255, np.uint8)             # M=2 rows of K=8 unsigned bytes
>>> b = np.full((2, 12), -1, np.int8)              # K/4=2 rows of 4N=12 signed bytes
>>> tdpbusd(c, a, b).tolist()
[[-2040, -2040, -2040], [-2040, -2040, -2040]]
"""

from __future__ import annotations

import numpy as np

from ..core.dotstep import dot_arrays
from ..core.errors import OperandError, UnknownInstruction
from ..core.values import as_word_array, describe
from .instructions import row

__all__ = ["MAX_ROWS", "MAX_COLSB", "tdpbssd", "tdpbsud", "tdpbusd", "tdpbuud", "tile_op"]

MAX_ROWS = 16  # palette 1: rows per tile
MAX_COLSB = 64  # palette 1: bytes per tile row


def _tile(x, name: str, bits: int, func: str) -> np.ndarray:
    arr = as_word_array(x, f"{func}: {name}", bits)
    if arr.ndim < 2:
        raise OperandError(f"{func}: {name} has shape {arr.shape}; expected a tile: an array of rows (2-D, or more)")
    return arr


def _check(func: str, name: str, what: str, value: int, ok: bool, allowed: str) -> None:
    if not ok:
        raise OperandError(f"{func}: {name} has {what} {value}; expected {allowed}")


def tile_op(mnemonic: str, c, a, b) -> np.ndarray:
    """The AMX instruction ``mnemonic`` on tiles ``c``, ``a``, ``b`` (see the module docstring)."""
    tiles = ("tdpbssd", "tdpbsud", "tdpbusd", "tdpbuud")
    if mnemonic not in tiles:
        raise UnknownInstruction(
            f"mnemonic={describe(mnemonic)} is not an AMX-INT8 tile instruction; expected one of {', '.join(tiles)}"
        )
    rec = row(mnemonic)
    spec, func = rec.spec, mnemonic
    tc = _tile(c, "c", 32, func)
    ta = _tile(a, "a", 8, func)
    tb = _tile(b, "b", 8, func)
    m, n = tc.shape[-2:]
    lim = f"1 to {MAX_ROWS} (tile rows)"
    _check(func, "c", "rows (M)", m, 1 <= m <= MAX_ROWS, lim)
    _check(func, "c", "columns (N)", n, 1 <= n <= MAX_COLSB // 4, f"1 to {MAX_COLSB // 4} dwords ({MAX_COLSB} bytes)")
    _check(func, "a", "rows", ta.shape[-2], ta.shape[-2] == m, f"M = {m}, as c")
    k = ta.shape[-1]
    _check(
        func, "a", "columns (K bytes)", k, 4 <= k <= MAX_COLSB and k % 4 == 0, f"a multiple of 4 from 4 to {MAX_COLSB}"
    )
    _check(func, "b", "rows", tb.shape[-2], tb.shape[-2] == k // 4, f"K/4 = {k // 4} (a's {k} bytes a row / 4)")
    _check(func, "b", "columns (bytes)", tb.shape[-1], tb.shape[-1] == 4 * n, f"4N = {4 * n} (c's {n} dwords)")
    try:
        batch = np.broadcast_shapes(tc.shape[:-2], ta.shape[:-2], tb.shape[:-2])
    except ValueError:
        raise OperandError(
            f"{func}: the batch axes (all but the last two) do not broadcast: c {tc.shape[:-2]}, "
            f"a {ta.shape[:-2]}, b {tb.shape[:-2]}"
        ) from None
    wa = np.ascontiguousarray(ta, dtype="<u1").view("<u4")  # (..., M, K/4): A's dwords
    wb = np.ascontiguousarray(tb, dtype="<u1").view("<u4")  # (..., K/4, N): B's dwords
    acc = np.broadcast_to(tc, (*batch, m, n)).astype(np.uint32)
    for step in range(k // 4):  # the SDM's order: k outer, n inner; each step wraps
        out = dot_arrays(spec, wa[..., :, step, None], wb[..., step, None, :], acc, neg=False, clamp=False)
        acc = out.view(np.uint32)
    return acc.view(spec.result_dtype)


def tdpbssd(c, a, b, /) -> np.ndarray:
    """``tdpbssd``: C plus A's signed bytes times B's signed bytes, per 4-byte group (see :mod:`intdot.x86.amx`)."""
    return tile_op("tdpbssd", c, a, b)


def tdpbsud(c, a, b, /) -> np.ndarray:
    """``tdpbsud``: C plus A's signed bytes times B's unsigned bytes (see :mod:`intdot.x86.amx`)."""
    return tile_op("tdpbsud", c, a, b)


def tdpbusd(c, a, b, /) -> np.ndarray:
    """``tdpbusd``: C plus A's unsigned bytes times B's signed bytes (see :mod:`intdot.x86.amx`).

    >>> tdpbusd([[0]], [[1, 2, 3, 4]], [[1, 1, 1, -1]]).tolist()
    [[2]]
    """
    return tile_op("tdpbusd", c, a, b)


def tdpbuud(c, a, b, /) -> np.ndarray:
    """``tdpbuud``: C plus A's unsigned bytes times B's unsigned bytes, as uint32 (see :mod:`intdot.x86.amx`)."""
    return tile_op("tdpbuud", c, a, b)
