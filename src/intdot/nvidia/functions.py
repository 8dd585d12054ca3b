"""The NVIDIA instructions as Python functions: PTX ``dp4a``/``dp2a``, CUDA ``__dp4a``/``__dp2a_lo``/``__dp2a_hi``
and the integer tensor-core ``mma``.  Every lane product goes through the core (:func:`intdot.core.dot_function`).
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache

import numpy as np

from ..core.dotstep import dot_function
from ..core.errors import OperandError, OperandTypeError
from ..core.lanes import int_array, pack
from ..core.values import a_or_an, as_word_array, check_flag, describe
from .tables import DP_ROWS, MMA_ROWS, MMA_TYPES, TYPES, DpRow, MmaRow

_BY_PTX = {r.ptx: r for r in DP_ROWS}
_BY_CUDA = {s: r for r in DP_ROWS for s in r.cuda}
_MMA = {(r.a_type, r.b_type, r.satfinite): r for r in MMA_ROWS}
INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1


@cache
def _function(row: DpRow):
    return dot_function(row.spec, ("a", "b", "c"))


def _type(name: str, value, allowed, what: str = "a type of this instruction") -> str:
    if isinstance(value, str) and value.lower() in allowed:
        return value.lower()
    raise OperandError(f"{name}={describe(value)} is not {what}; expected one of {allowed}")


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
    part = _type("part", part, ("lo", "hi"), "a dp2a part ('lo': bytes 0-1 of b, 'hi': bytes 2-3)")
    row = _BY_PTX[f"dp2a.{part}.{_type('a_type', a_type, TYPES)}.{_type('b_type', b_type, TYPES)}"]
    return _function(row)(a, b, c)


# --- CUDA ---------------------------------------------------------------------------------------------------

_VECTOR = {"char4": (8, 4, True), "uchar4": (8, 4, False), "short2": (16, 2, True), "ushort2": (16, 2, False)}


def _signature(spelling: str) -> tuple[str, ...]:
    return tuple(t.strip() for t in spelling.split("(", 1)[1].rstrip(")").split(","))


def _lanes(x, name: str, vtype: str) -> np.ndarray:
    """A ``char4``/``short2``/... argument (lanes on the last axis) as uint32 words."""
    width, n, signed = _VECTOR[vtype]
    lo, hi = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if signed else (0, (1 << width) - 1)
    arr = int_array(x, name, lo, hi, f"a lane of {vtype}, in [{lo}, {hi}]")
    if arr.ndim == 0 or arr.shape[-1] != n:
        raise OperandTypeError(
            f"{name}={describe(x)} is not {a_or_an(vtype)}; expected an integer array whose last axis holds {n} lanes"
        )
    words = pack(arr, width)  # one vector gives a Python int, so the result is one too
    return words if isinstance(words, int) else np.asarray(words, dtype=np.uint32)


def _batch(name: str, a, b, c, vector: str) -> None:
    """Refuse vector arguments whose batches do not broadcast, naming the shapes the caller passed."""
    shapes = (np.shape(a)[:-1], np.shape(b)[:-1], np.shape(c))
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        raise OperandError(
            f"{name}: a's {vector} vectors have batch shape {shapes[0]}, b's {shapes[1]}, and c has shape "
            f"{shapes[2]}; these do not broadcast together"
        ) from None


def overload(spelling: str):
    """The function of one CUDA overload, by its signature as the catalog spells it.

    >>> from intdot import nvidia
    >>> f = nvidia.overload("__dp4a(uchar4, uchar4, unsigned int)")
    >>> int(f([255, 255, 255, 255], [255, 255, 255, 255], 0))
    260100
    """
    known = ", ".join(s for s in _BY_CUDA if "(" in s)
    if not isinstance(spelling, str):  # before the dict lookup: a list or an array is unhashable
        raise OperandTypeError(
            f"spelling={describe(spelling)} is {a_or_an(type(spelling).__name__)}, not a str; expected one of {known}"
        )
    row = _BY_CUDA.get(spelling)
    if row is None or "(" not in spelling:
        raise OperandError(f"spelling={describe(spelling)} is not a CUDA overload; expected one of {known}")
    ta, tb, _ = _signature(spelling)
    f = _function(row)
    name = spelling.split("(")[0]

    def call(a, b, c, /):
        if ta in _VECTOR:
            wa, wb = _lanes(a, "a", ta), _lanes(b, "b", tb)
            _batch(name, a, b, c, ta)
            a, b = wa, wb
        return f(a, b, c)

    call.__name__ = name
    call.__doc__ = f"CUDA ``{spelling}`` (PTX ``{row.ptx}``)."
    return call


# How an argument converts to the ``int`` and to the ``unsigned int`` overload's parameter, by C++'s ranks
# ([over.ics.rank]): 0 an exact match, 1 an integral promotion, 2 a conversion.  NumPy types stand for the C
# types of their size: int8/uint8 char, int16/uint16 short (both promote to int), int32 int, uint32 unsigned
# int, int64/uint64 long long (a conversion to either).  A Python int is an ``int`` whatever its value: unlike a
# C++ literal (0xFFFFFFFF is an unsigned int in C++), Python does not say how it was written.
def _ranks(x) -> tuple[int, int]:
    dtype = getattr(x, "dtype", None)
    if dtype is None or dtype.kind not in "iu":
        return 0, 2
    if dtype.itemsize < 4:
        return 1, 2
    if dtype.itemsize == 4:
        return (0, 2) if dtype.kind == "i" else (2, 0)
    return 2, 2


def _c_type(x) -> str:
    dtype = getattr(x, "dtype", None)
    if dtype is None or dtype.kind not in "iu":
        return "int (a Python int)"
    return f"{dtype} ({_C_NAMES[dtype.itemsize, dtype.kind]})"


_C_NAMES = {
    (1, "i"): "signed char", (1, "u"): "unsigned char", (2, "i"): "short", (2, "u"): "unsigned short",
    (4, "i"): "int", (4, "u"): "unsigned int", (8, "i"): "long long", (8, "u"): "unsigned long long",
}  # fmt: skip


def _is_vector(x, bits: int) -> bool:
    dtype = getattr(x, "dtype", None)
    return dtype is not None and dtype.kind in "iu" and dtype.itemsize * 8 == bits and np.ndim(x) > 0


def _resolve(name: str, a, b, c) -> str:
    """The overload of ``name`` that C++ overload resolution picks for these arguments (see :func:`__dp4a`)."""
    vec_a, a_bits = ("char4", 8) if name == "__dp4a" else ("short2", 16)
    a_vec, b_vec = _is_vector(a, a_bits), _is_vector(b, 8)
    if a_vec or b_vec:
        # A vector (a struct in C++) converts to nothing else, so only the vector overload of its sign is viable.
        if not (a_vec and b_vec and a.dtype.kind == b.dtype.kind):
            raise OperandTypeError(
                f"{name}(a, b, c) with a={describe(a)}, b={describe(b)}: no overload takes these; expected "
                f"({vec_a}, char4, int) as int{a_bits}/int8 arrays, (u{vec_a}, uchar4, unsigned int) as "
                f"uint{a_bits}/uint8 arrays, or two 32-bit words"
            )
        return f"{name}(u{vec_a}, uchar4, unsigned int)" if a.dtype.kind == "u" else f"{name}({vec_a}, char4, int)"
    ranks = [_ranks(x) for x in (a, b, c)]
    if all(i <= u for i, u in ranks) and any(i < u for i, u in ranks):
        return f"{name}(int, int, int)"
    if all(u <= i for i, u in ranks) and any(u < i for i, u in ranks):
        return f"{name}(unsigned int, unsigned int, unsigned int)"
    raise OperandTypeError(
        f"{name}(a, b, c) with a {_c_type(a)}, b {_c_type(b)}, c {_c_type(c)}: ambiguous in C++, where neither "
        f"the int nor the unsigned int overload fits every argument at least as well; expected int32 values "
        f"or Python ints throughout (int), or np.uint32 throughout (unsigned int)"
    )


def __dp4a(a, b, c, /):
    """CUDA ``__dp4a``, choosing its overload from the arguments' NumPy types as C++ overload resolution would.

    NumPy types stand for the C types of their size: int32 is ``int``, uint32 ``unsigned int``, int8/uint8 and
    int16/uint16 values promote to ``int``, int64/uint64 convert to either overload equally well.  Python ints
    are ``int`` (Python does not say whether a literal was written in hex, which C++ would make unsigned).  All
    three arguments take part, as in C++: ``__dp4a(np.uint32(x), np.uint32(y), 0)`` is ambiguous, as nvcc says,
    and an error (write ``np.uint32(0)``).  int8/uint8 arrays whose last axis holds the 4 lanes are ``char4``/
    ``uchar4``.  :func:`overload` gives one overload by its signature.

    >>> import numpy as np
    >>> from intdot import nvidia
    >>> nvidia.__dp4a(0xFFFFFFFF, 0xFFFFFFFF, 0)                      # int: (-1)*(-1)*4
    4
    >>> int(nvidia.__dp4a(np.uint32(0xFFFFFFFF), np.uint32(0xFFFFFFFF), np.uint32(0)))
    260100
    >>> nvidia.__dp4a(np.array([[1, -2, 3, -4]], np.int8), np.array([[5, 6, 7, 8]], np.int8), 100)
    array([82], dtype=int32)
    """
    return overload(_resolve("__dp4a", a, b, c))(a, b, c)


def __dp2a_lo(a, b, c, /):
    """CUDA ``__dp2a_lo``: overloads as :func:`__dp4a` (``short2``/``ushort2`` and ``char4``/``uchar4`` lanes).

    >>> from intdot import nvidia
    >>> nvidia.__dp2a_lo(0xFFFF_0003, 0x0102_0304, 0)
    9
    """
    return overload(_resolve("__dp2a_lo", a, b, c))(a, b, c)


def __dp2a_hi(a, b, c, /):
    """CUDA ``__dp2a_hi``: bytes 2 and 3 of ``b``; overloads as :func:`__dp4a`.

    >>> import numpy as np
    >>> from intdot import nvidia
    >>> nvidia.__dp2a_hi(np.array([3, -1], np.int16), np.array([4, 3, 2, 1], np.int8), 0)
    5
    """
    return overload(_resolve("__dp2a_hi", a, b, c))(a, b, c)


# --- MMA ----------------------------------------------------------------------------------------------------


def _tile(x, name: str, elem: str, shape: tuple[int, int]) -> np.ndarray:
    width = int(elem[1:])
    lo, hi = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if elem[0] == "s" else (0, (1 << width) - 1)
    arr = int_array(x, name, lo, hi, f"an element of .{elem}, in [{lo}, {hi}]")
    if arr.shape[-2:] != shape:
        raise OperandError(
            f"{name} has shape {arr.shape}; expected (..., {shape[0]}, {shape[1]}): a tile of {elem} elements"
        )
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
    batches = (a.shape[:-2], b.shape[:-2], cw.shape[:-2])
    try:
        np.broadcast_shapes(*batches)
    except ValueError:
        raise OperandError(
            f"mma: a's tiles have batch shape {batches[0]} (a has shape {a.shape}), b's {batches[1]} ({b.shape}), "
            f"c's {batches[2]} ({cw.shape}); these do not broadcast together"
        ) from None
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
