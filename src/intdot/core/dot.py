"""The single semantic kernel: a packed dot product with accumulation.

Every instruction of every ISA in intdot is a call of :func:`dot` (or of the
callable :func:`dot_function` returns for a fixed :class:`DotSpec`) with fixed
parameters.  The semantics, for 32-bit words ``a``, ``b``, ``acc``::

    d   = sum(lane_k(a) * lane_k(b) for k in lanes)        # exact
    r   = acc + d   (or acc - d with neg)                   # exact
    out = clamp(r) if clamp else r mod 2**32

``acc`` and the result are read as int32 when ``result_signed`` and as
uint32 otherwise; clamping is to that type's range.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from . import _numpy_path
from .lanes import _lanes, check_width
from .errors import OperandError
from .values import MASK32, WORD_END, WORD_MIN, as_word_array, check_flag, check_word

_SIGN = 1 << 31
_WRAP = 1 << 32


@dataclass(frozen=True)
class DotSpec:
    """The fixed parameters of one instruction's dot product."""

    width: int  # lane width in bits: 4, 8 or 16
    a_signed: bool
    b_signed: bool
    result_signed: bool  # the accumulator's and the result's type: int32 or uint32

    def __post_init__(self):
        check_width(self.width)
        for f in ("a_signed", "b_signed", "result_signed"):
            check_flag(getattr(self, f), f)

    @property
    def lanes(self) -> int:
        return 32 // self.width

    @property
    def result_range(self) -> tuple[int, int]:
        return (-_SIGN, _SIGN - 1) if self.result_signed else (0, MASK32)

    @property
    def result_dtype(self):
        return np.int32 if self.result_signed else np.uint32


@lru_cache(maxsize=None)
def _scalar_dot(width: int, a_signed: bool, b_signed: bool):
    """A function (a, b) -> exact dot product, for unsigned 32-bit Python ints."""
    if width == 16:
        ua = struct.Struct("<2h" if a_signed else "<2H").unpack
        ub = struct.Struct("<2h" if b_signed else "<2H").unpack
        pk = struct.Struct("<I").pack

        def dot16(a, b):
            a0, a1 = ua(pk(a))
            b0, b1 = ub(pk(b))
            return a0 * b0 + a1 * b1

        return dot16
    # The array path's table of every byte pair, as a list: indexing a list is the fastest lookup in Python.
    t = _numpy_path.byte_pair_table(width, a_signed, b_signed).tolist()

    def dot_bytes(a, b):
        return (
            t[((a & 0xFF) << 8) | (b & 0xFF)]
            + t[(a & 0xFF00) | ((b >> 8) & 0xFF)]
            + t[((a >> 8) & 0xFF00) | ((b >> 16) & 0xFF)]
            + t[((a >> 16) & 0xFF00) | (b >> 24)]
        )

    return dot_bytes


def _read_acc(spec: DotSpec, acc: int) -> int:
    """The unsigned word ``acc`` as the accumulator type reads it: int32 or uint32."""
    return acc - _WRAP if spec.result_signed and acc & _SIGN else acc


def _finish(spec: DotSpec, acc: int, d: int, neg: bool, clamp: bool) -> int:
    """Accumulate the exact dot product ``d`` into unsigned word ``acc``."""
    acc = _read_acc(spec, acc)
    r = acc - d if neg else acc + d
    if clamp:
        lo, hi = spec.result_range
        return lo if r < lo else hi if r > hi else r
    r &= MASK32
    if spec.result_signed and r & _SIGN:
        r -= _WRAP
    return r


@dataclass(frozen=True)
class DotTrace:
    """Every step of one scalar dot product, for explanations (see :func:`trace`)."""

    a_lanes: tuple[int, ...]
    b_lanes: tuple[int, ...]
    products: tuple[int, ...]
    dot: int  # the exact sum of the products
    acc: int  # the accumulator as read: int32 or uint32
    exact: int  # acc + dot, or acc - dot with neg: exact
    result: int  # clamped, or wrapped modulo 2**32, in the result type's spelling


def trace(spec: DotSpec, a, b, acc, *, neg: bool = False, clamp: bool = False) -> DotTrace:
    """The lanes, products, dot product, accumulation and result of one scalar call.

    The same arithmetic as :func:`dot_function`'s scalar path, step by step.

    >>> t = trace(DotSpec(8, True, False, True), 0x80FF7F01, 0x01020304, 100)
    >>> t.a_lanes, t.b_lanes, t.products, t.dot, t.exact, t.result
    ((1, 127, -1, -128), (4, 3, 2, 1), (4, 381, -2, -128), 255, 355, 355)
    """
    ua, ub, uc = check_word(a, "a"), check_word(b, "b"), check_word(acc, "acc")
    neg, clamp = check_flag(neg, "neg"), check_flag(clamp, "clamp")
    la = tuple(_lanes(ua, spec.width, spec.a_signed))
    lb = tuple(_lanes(ub, spec.width, spec.b_signed))
    products = tuple(x * y for x, y in zip(la, lb))
    d = sum(products)
    start = _read_acc(spec, uc)
    return DotTrace(la, lb, products, d, start, start - d if neg else start + d, _finish(spec, uc, d, neg, clamp))


def _is_scalar(x) -> bool:
    return not isinstance(x, (np.ndarray, list, tuple))


@lru_cache(maxsize=None)
def dot_function(spec: DotSpec, names: tuple[str, str, str] = ("a", "b", "acc")):
    """The dot product of ``spec`` as a fast callable ``f(a, b, acc, neg=False, clamp=False)``.

    Scalars in give a Python int out; anything array-like gives an int32/uint32
    array (NumPy broadcasting).  ``names`` are the argument names used in error
    messages, so a front end's errors speak its users' language.
    """
    lanes_dot = _scalar_dot(spec.width, spec.a_signed, spec.b_signed)
    result_signed = spec.result_signed
    na, nb, nc = names
    lo, hi = spec.result_range

    def f(a, b, acc, neg=False, clamp=False):
        # Fast path: plain Python ints in range and real bools.
        if (
            type(a) is int and type(b) is int and type(acc) is int
            and WORD_MIN <= a < WORD_END and WORD_MIN <= b < WORD_END and WORD_MIN <= acc < WORD_END
            and (neg is False or neg is True) and (clamp is False or clamp is True)
        ):
            d = lanes_dot(a & MASK32, b & MASK32)
            acc &= MASK32
            if result_signed and acc & _SIGN:
                acc -= _WRAP
            r = acc - d if neg else acc + d
            if clamp:
                return lo if r < lo else hi if r > hi else r
            r &= MASK32
            if result_signed and r & _SIGN:
                r -= _WRAP
            return r
        neg = check_flag(neg, "neg")
        clamp = check_flag(clamp, "clamp")
        if _is_scalar(a) and _is_scalar(b) and _is_scalar(acc):
            ua, ub, uc = check_word(a, na), check_word(b, nb), check_word(acc, nc)
            return _finish(spec, uc, lanes_dot(ua, ub), neg, clamp)
        wa, wb, wc = as_word_array(a, na), as_word_array(b, nb), as_word_array(acc, nc)
        return dot_arrays(spec, wa, wb, wc, neg=neg, clamp=clamp, names=names)

    f.spec = spec
    return f


def dot_arrays(spec: DotSpec, a: np.ndarray, b: np.ndarray, acc: np.ndarray, *, neg: bool, clamp: bool,
               out: np.ndarray | None = None, backend: str = "auto",
               names: tuple[str, str, str] = ("a", "b", "acc")) -> np.ndarray:
    """The array path on already-validated ``uint32`` arrays (broadcasting).

    ``backend`` is ``"auto"`` (the compiled kernel where available and the
    arrays are large enough to pay for it), ``"numpy"`` or ``"numba"``.
    ``names`` name the operands in the error for shapes that do not broadcast.
    """
    try:
        # Equal shapes (the common case) need no broadcasting machinery, which costs microseconds.
        shape = a.shape if a.shape == b.shape == acc.shape else np.broadcast_shapes(a.shape, b.shape, acc.shape)
    except ValueError:
        given = ", ".join(f"{n} {x.shape}" for n, x in zip(names, (a, b, acc)))
        raise OperandError(f"the operands' shapes do not broadcast together: {given}; expected shapes that "
                           f"NumPy can broadcast to one shape") from None
    if out is None:
        out = np.empty(shape, dtype=spec.result_dtype)
    elif out.shape != shape or out.dtype != spec.result_dtype or not out.flags.c_contiguous:
        raise OperandError(f"out has shape {out.shape}, dtype {out.dtype}; expected a C-contiguous "
                           f"{np.dtype(spec.result_dtype)} array of shape {shape}")
    n = out.size
    # A single value (e.g. a scalar accumulator) is read with stride 0, not copied n times.
    flat = []
    for x in (a, b, acc):
        if x.size == 1 and n != 1:
            flat.append((np.ascontiguousarray(x, dtype=np.uint32).reshape(1), 0))
        else:
            x = x if x.shape == shape else np.broadcast_to(x, shape)
            flat.append((np.ascontiguousarray(x, dtype=np.uint32).reshape(-1), 1))
    o = out.reshape(-1)
    from . import accel

    kernel = accel.kernel_for(spec, n, backend)
    if kernel is not None:
        (fa, sa), (fb, sb), (fc, sc) = flat
        kernel(fa, sa, fb, sb, fc, sc, neg, clamp, o.view(np.uint32))
    else:
        fa, fb, fc = (np.broadcast_to(x, (n,)) if s == 0 else x for x, s in flat)
        _numpy_path.dot_into(spec, fa, fb, fc, neg, clamp, o)
    return out


def dot(a, b, acc, /, *, width: int = 8, a_signed: bool = True, b_signed: bool = True,
        result_signed: bool | None = None, neg: bool = False, clamp: bool = False):
    """Packed dot product of 32-bit words ``a`` and ``b``, accumulated into ``acc``.

    Parameters
    ----------
    a, b : int or array_like of int
        Packed words of ``32 // width`` lanes each, lane 0 in the low bits.
        Signed or unsigned spelling, within ``[-2**31, 2**32)``.
    acc : int or array_like of int
        The accumulator, read as int32 (``result_signed``) or uint32.
    width : {4, 8, 16}
        Lane width in bits.
    a_signed, b_signed : bool
        Whether the lanes of ``a`` / ``b`` are two's complement.
    result_signed : bool, optional
        Type of the accumulator and the result; default: ``a_signed or b_signed``.
    neg : bool
        Negate the dot product before accumulating.
    clamp : bool
        Saturate the exact sum to the result type's range instead of wrapping
        modulo ``2**32``.

    Returns
    -------
    int or numpy.ndarray
        A Python int for scalar inputs, else an int32/uint32 array.

    Examples
    --------
    >>> dot(0x01020304, 0x05060708, 10)
    80
    >>> dot(0xFFFFFFFF, 0xFFFFFFFF, 0, a_signed=True, b_signed=False)
    -1020
    """
    a_signed, b_signed = check_flag(a_signed, "a_signed"), check_flag(b_signed, "b_signed")
    if result_signed is None:
        result_signed = a_signed or b_signed
    spec = DotSpec(width, a_signed, b_signed, result_signed)
    return dot_function(spec)(a, b, acc, neg, clamp)
