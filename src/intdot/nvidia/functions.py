"""The NVIDIA instructions as Python functions: PTX ``dp4a``/``dp2a``, CUDA ``__dp4a``/``__dp2a_lo``/``__dp2a_hi``
and the integer tensor-core ``mma``.  Every lane product goes through the core (:func:`intdot.core.dot_function`).
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache

import numpy as np

from ..core.dot import dot_function
from ..core.errors import OperandError, OperandTypeError
from ..core.lanes import pack
from ..core.values import a_or_an, as_word_array, check_flag, describe
from .tables import DP_ROWS, MMA_ROWS, MMA_TYPES, TYPES, DpRow, MmaRow

_BY_PTX = {r.ptx: r for r in DP_ROWS}
_BY_CUDA = {s: r for r in DP_ROWS for s in r.cuda}
_MMA = {(r.a_type, r.b_type, r.satfinite): r for r in MMA_ROWS}
INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1


@cache
def _function(row: DpRow):
    return dot_function(row.spec, ("a", "b", "c"))


def _type(name: str, value, allowed) -> str:
    if isinstance(value, str) and value.lower() in allowed:
        return value.lower()
    raise OperandError(f"{name}={describe(value)} is not a type of this instruction; expected one of {allowed}")


def dp4a(a, b, c, /, *, a_type: str = "s32", b_type: str = "s32"):
    """PTX ``dp4a.atype.btype d, a, b, c``: four 8-bit lanes of ``a`` times those of ``b``, added to ``c``.

    Parameters
    ----------
    a, b : int or array_like of int
        32-bit words of four byte lanes (lane 0 in the low bits), in either spelling (``-1`` or ``0xFFFFFFFF``).
    c : int or array_like of int
        The 32-bit accumulator.
    a_type, b_type : {"s32", "u32"}
        Whether each operand's bytes are signed.

    Returns
    -------
    int or numpy.ndarray
        ``c`` plus the exact sum, modulo 2**32: unsigned (``.u32``) when both types are ``u32``, else signed.

    Examples
    --------
    >>> from intdot import nvidia
    >>> nvidia.dp4a(0xFFFFFFFF, 0x01010101, 10, a_type="s32", b_type="u32")
    6
    >>> nvidia.dp4a(0xFFFFFFFF, 0xFFFFFFFF, 0, a_type="u32", b_type="u32")
    260100
    """
    row = _BY_PTX[f"dp4a.{_type('a_type', a_type, TYPES)}.{_type('b_type', b_type, TYPES)}"]
    return _function(row)(a, b, c)


def dp2a(a, b, c, /, *, part: str = "lo", a_type: str = "s32", b_type: str = "s32"):
    """PTX ``dp2a.part.atype.btype d, a, b, c``: the two 16-bit lanes of ``a`` times two bytes of ``b``.

    ``part="lo"`` reads bytes 0 and 1 of ``b``, ``part="hi"`` bytes 2 and 3; the result type is as for
    :func:`dp4a`.

    Examples
    --------
    >>> from intdot import nvidia
    >>> nvidia.dp2a(0xFFFF_0003, 0x0102_0304, 0)                  # 3*4 + (-1)*3
    9
    >>> nvidia.dp2a(0xFFFF_0003, 0x0102_0304, 0, part="hi")       # 3*2 + (-1)*1
    5
    """
    if part not in ("lo", "hi"):
        raise OperandError(f"part={describe(part)} is not a dp2a part; expected 'lo' (bytes 0-1 of b) or 'hi'")
    row = _BY_PTX[f"dp2a.{part}.{_type('a_type', a_type, TYPES)}.{_type('b_type', b_type, TYPES)}"]
    return _function(row)(a, b, c)


# --- CUDA ---------------------------------------------------------------------------------------------------

_VECTOR = {"char4": (8, 4, True), "uchar4": (8, 4, False), "short2": (16, 2, True), "ushort2": (16, 2, False)}


def _signature(spelling: str) -> tuple[str, ...]:
    return tuple(t.strip() for t in spelling.split("(", 1)[1].rstrip(")").split(","))


def _lanes(x, name: str, vtype: str) -> np.ndarray:
    """A ``char4``/``short2``/... argument (lanes on the last axis) as uint32 words."""
    width, n, signed = _VECTOR[vtype]
    arr = np.asarray(x)
    if arr.dtype.kind not in "iu" or arr.ndim == 0 or arr.shape[-1] != n:
        raise OperandTypeError(
            f"{name}={describe(x)} is not {a_or_an(vtype)}; expected an integer array whose last axis holds {n} lanes"
        )
    lo, hi = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if signed else (0, (1 << width) - 1)
    if arr.size and (arr.min() < lo or arr.max() > hi):
        raise OperandError(f"{name}={describe(x)} has lanes outside {vtype}'s range; expected {lo} to {hi}")
    words = pack(arr, width)  # one vector gives a Python int, so the result is one too
    return words if isinstance(words, int) else np.asarray(words, dtype=np.uint32)


def overload(spelling: str):
    """The function of one CUDA overload, by its signature as the catalog spells it.

    >>> from intdot import nvidia
    >>> f = nvidia.overload("__dp4a(uchar4, uchar4, unsigned int)")
    >>> int(f([255, 255, 255, 255], [255, 255, 255, 255], 0))
    260100
    """
    row = _BY_CUDA.get(spelling)
    if row is None or "(" not in spelling:
        known = ", ".join(s for s in _BY_CUDA if "(" in s)
        raise OperandError(f"spelling={describe(spelling)} is not a CUDA overload; expected one of {known}")
    ta, tb, _ = _signature(spelling)
    f = _function(row)

    def call(a, b, c, /):
        if ta in _VECTOR:
            a, b = _lanes(a, "a", ta), _lanes(b, "b", tb)
        return f(a, b, c)

    call.__name__ = spelling.split("(")[0]
    call.__doc__ = f"CUDA ``{spelling}`` (PTX ``{row.ptx}``)."
    return call


def _kind(x) -> str | None:
    """'i' or 'u' for a NumPy integer value or array, None for Python ints and lists."""
    dtype = getattr(x, "dtype", None)
    return dtype.kind if dtype is not None and dtype.kind in "iu" else None


def _resolve(name: str, a, b) -> str:
    """Which overload of ``name`` a C++ compiler would pick for these arguments (see :func:`__dp4a`)."""
    vec_a, a_bits = ("char4", 8) if name == "__dp4a" else ("short2", 16)
    ka, kb = _kind(a), _kind(b)
    a_vec = ka is not None and a.dtype.itemsize * 8 == a_bits
    b_vec = kb is not None and b.dtype.itemsize == 1
    if a_vec or b_vec:
        if not (a_vec and b_vec and ka == kb):
            raise OperandTypeError(
                f"{name}(a, b, c) with a={describe(a)}, b={describe(b)}: no overload takes these; expected "
                f"({vec_a}, char4, int) as int{a_bits}/int8 arrays, (u{vec_a}, uchar4, unsigned int) as "
                f"uint{a_bits}/uint8 arrays, or two 32-bit words"
            )
        return f"{name}(u{vec_a}, uchar4, unsigned int)" if ka == "u" else f"{name}({vec_a}, char4, int)"
    # A Python int (or list of them) is an int, as a C++ literal is: with an unsigned operand beside it,
    # neither overload matches both arguments better, which C++ calls ambiguous.
    kinds = {ka or "i", kb or "i"}
    if len(kinds) > 1:
        raise OperandTypeError(
            f"{name}(a, b, c) with a={describe(a)}, b={describe(b)}: one signed and one unsigned operand is "
            f"ambiguous, as in C++; expected both int (signed dtypes or Python ints) or both unsigned "
            f"(np.uint32 values or arrays)"
        )
    return f"{name}(unsigned int, unsigned int, unsigned int)" if kinds == {"u"} else f"{name}(int, int, int)"


def __dp4a(a, b, c, /):
    """CUDA ``__dp4a``, choosing its overload from the arguments' NumPy types as C++ would.

    Words (``int`` overload) by default; ``unsigned int`` when ``a`` and ``b`` are both unsigned NumPy values
    (``np.uint32``); ``char4``/``uchar4`` when they are int8/uint8 arrays whose last axis holds the 4 lanes.
    Python ints are ``int``, as C++ literals are: one beside an unsigned ``a`` or ``b`` is ambiguous, as in C++,
    and an error.  ``c`` takes the overload ``a`` and ``b`` choose.  :func:`overload` gives one overload by its
    signature.

    >>> import numpy as np
    >>> from intdot import nvidia
    >>> nvidia.__dp4a(0xFFFFFFFF, 0xFFFFFFFF, 0)                      # int: (-1)*(-1)*4
    4
    >>> int(nvidia.__dp4a(np.uint32(0xFFFFFFFF), np.uint32(0xFFFFFFFF), 0))
    260100
    >>> nvidia.__dp4a(np.array([[1, -2, 3, -4]], np.int8), np.array([[5, 6, 7, 8]], np.int8), 100)
    array([82], dtype=int32)
    """
    return overload(_resolve("__dp4a", a, b))(a, b, c)


def __dp2a_lo(a, b, c, /):
    """CUDA ``__dp2a_lo``: overloads as :func:`__dp4a` (``short2``/``ushort2`` and ``char4``/``uchar4`` lanes).

    >>> from intdot import nvidia
    >>> nvidia.__dp2a_lo(0xFFFF_0003, 0x0102_0304, 0)
    9
    """
    return overload(_resolve("__dp2a_lo", a, b))(a, b, c)


def __dp2a_hi(a, b, c, /):
    """CUDA ``__dp2a_hi``: bytes 2 and 3 of ``b``; overloads as :func:`__dp4a`.

    >>> import numpy as np
    >>> from intdot import nvidia
    >>> nvidia.__dp2a_hi(np.array([3, -1], np.int16), np.array([4, 3, 2, 1], np.int8), 0)
    5
    """
    return overload(_resolve("__dp2a_hi", a, b))(a, b, c)


# --- MMA ----------------------------------------------------------------------------------------------------


def _tile(x, name: str, elem: str, shape: tuple[int, int]) -> np.ndarray:
    arr = np.asarray(x)
    if arr.dtype.name in ("int4", "uint4"):  # ml_dtypes' 4-bit arrays
        arr = arr.astype(np.int8)
    if arr.dtype.kind not in "iu":
        raise OperandTypeError(f"{name}={describe(x)} has dtype {arr.dtype}; expected an integer array of {elem}")
    if arr.shape[-2:] != shape:
        raise OperandError(
            f"{name} has shape {arr.shape}; expected (..., {shape[0]}, {shape[1]}): a tile of {elem} elements"
        )
    width = int(elem[1:])
    lo, hi = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if elem[0] == "s" else (0, (1 << width) - 1)
    if arr.size and (arr.min() < lo or arr.max() > hi):
        raise OperandError(f"{name} has elements outside .{elem}'s range; expected {lo} to {hi}")
    return arr


def mma(a, b, c, /, *, a_type: str = "s8", b_type: str = "s8", satfinite: bool = False) -> np.ndarray:
    """``mma.sync.aligned.m16n8k32.row.col{.satfinite}.s32.atype.btype.s32`` (``m16n8k64`` for 4-bit types):
    ``D = C + A B`` on one warp's tiles.

    Parameters
    ----------
    a : array_like of int, shape (..., 16, K)
        A's elements (K = 32 for ``s8``/``u8``, 64 for ``s4``/``u4``); leading axes are a batch of tiles.
    b : array_like of int, shape (..., K, 8)
    c : array_like of int, shape (..., 16, 8)
        The ``.s32`` accumulators, in either 32-bit spelling.
    a_type, b_type : {"s8", "u8", "s4", "u4"}
        Element types: both 8-bit or both 4-bit.
    satfinite : bool
        Saturate to int32 instead of wrapping.  Measured on an H200: the exact ``C + A B`` of the whole
        instruction saturates once; no partial sum along K saturates.

    Returns
    -------
    numpy.ndarray of int32, shape (..., 16, 8)

    Examples
    --------
    >>> import numpy as np
    >>> from intdot import nvidia
    >>> a = np.full((16, 32), -128, np.int8); b = np.full((32, 8), -128, np.int8)
    >>> c = np.full((16, 8), 2**31 - 2**19, np.int32)
    >>> int(nvidia.mma(a, b, c)[0, 0]), int(nvidia.mma(a, b, c, satfinite=True)[0, 0])
    (-2147483648, 2147483647)
    """
    at, bt = _type("a_type", a_type, MMA_TYPES), _type("b_type", b_type, MMA_TYPES)
    if at[1:] != bt[1:]:
        raise OperandError(f"a_type={at!r}, b_type={bt!r}: mma takes two 8-bit or two 4-bit types, not one of each")
    row = _MMA[at, bt, check_flag(satfinite, "satfinite")]
    return mma_row(row, a, b, c)


def mma_row(row: MmaRow, a, b, c) -> np.ndarray:
    """:func:`mma` for one table row."""
    k, n = row.k, row.spec.lanes
    a = _tile(a, "a", row.a_type, (16, k))
    b = _tile(b, "b", row.b_type, (k, 8))
    cw = as_word_array(c, "c", 32)
    if cw.shape[-2:] != (16, 8):
        raise OperandError(f"c has shape {cw.shape}; expected (..., 16, 8): a tile of .s32 accumulators")
    acc = cw.view(np.int32).astype(np.int64)
    # Rows of A and columns of B as 64-bit words of `n` lanes each: K / n words per row or column.
    wa = pack(a.reshape(*a.shape[:-1], k // n, n), row.width, bits=64)
    wb = pack(np.swapaxes(b, -1, -2).reshape(*b.shape[:-2], 8, k // n, n), row.width, bits=64)
    wa, wb = np.asarray(wa, np.uint64), np.asarray(wb, np.uint64)
    # Exact in 64 bits: |C| < 2**31 and |A B| < 2**22.
    step = dot_function(replace(row.spec, acc_bits=64), ("a", "b", "c"))
    for j in range(k // n):
        acc = step(wa[..., :, None, j], wb[..., None, :, j], acc)
    if row.satfinite:
        return np.clip(acc, INT32_MIN, INT32_MAX).astype(np.int32)
    return acc.astype(np.int32)  # the low 32 bits: wraps modulo 2**32


__all__ = ["__dp2a_hi", "__dp2a_lo", "__dp4a", "dp2a", "dp4a", "mma", "mma_row", "overload"]
