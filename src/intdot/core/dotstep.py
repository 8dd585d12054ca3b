"""The single semantic kernel: a packed dot product with accumulation.

Every instruction of every ISA in intdot is a call of :func:`dot` (or of the
callable :func:`dot_function` returns for a fixed :class:`DotSpec`) with fixed
parameters.  The semantics, for packed operands ``a``, ``b`` and an
accumulator ``acc`` of ``spec.acc_bits`` bits::

    d   = sum(lane_k(a) * lane_k(b) for k in range(spec.lanes))   # exact
    r   = acc + d   (or acc - d with neg)                         # exact
    out = clamp(r) if clamp else r mod 2**acc_bits

``lane_k(a)`` is lane ``spec.a_first + k`` of the word ``a`` (likewise for
``b``); with ``spec.pair_sat`` the products are summed in adjacent pairs, each
pair sum saturated to a signed integer of that many bits, before ``d`` adds
them up.  ``acc`` and the result are read as the accumulator type (int16 ...
uint64); ``clamp`` saturates the exact sum once, to that type's range.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from functools import cache

import numpy as np

from . import _numpy_path
from .errors import OperandError
from .lanes import _lanes, check_width
from .spec import DotSpec
from .values import as_word_array, check_flag, check_word, describe


def _byte_table_word32(spec: DotSpec) -> bool:
    return spec.a_width == spec.b_width and spec.a_width in (4, 8) and spec.a_bits == 32 and _simple(spec)


def _simple(spec: DotSpec) -> bool:
    """No lane selector and no intermediate saturation: the plain sum of products."""
    return not spec.selects and spec.pair_sat is None


def _saturate(x: int, bits: int) -> int:
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return lo if x < lo else hi if x > hi else x


def _pair_sums(spec: DotSpec, products) -> tuple[int, ...]:
    """Each sum of two adjacent products, saturated to ``spec.pair_sat`` signed bits."""
    return tuple(_saturate(products[k] + products[k + 1], spec.pair_sat) for k in range(0, len(products), 2))


@cache
def _scalar_dot(spec: DotSpec):
    """A function (a, b) -> exact dot product, for unsigned Python ints of the plain spec's operand sizes."""
    if spec.pair_sat is not None:
        n, wa, wb, sa, sb = spec.lanes, spec.a_width, spec.b_width, spec.a_signed, spec.b_signed

        def dot_pairs(a, b):
            products = tuple(map(int.__mul__, _lanes(a, wa, sa, n), _lanes(b, wb, sb, n)))
            return sum(_pair_sums(spec, products))

        return dot_pairs
    if spec.a_width == spec.b_width == 16:
        code = "h" if spec.a_signed else "H", "h" if spec.b_signed else "H"
        word, pad = ("<I", 4) if spec.a_bits <= 32 else ("<Q", 8)
        tail = f"{pad - 2 * spec.lanes}x" if pad > 2 * spec.lanes else ""
        ua = struct.Struct(f"<{spec.lanes}{code[0]}{tail}").unpack
        ub = struct.Struct(f"<{spec.lanes}{code[1]}{tail}").unpack
        pk = struct.Struct(word).pack

        if spec.lanes == 2:

            def dot16(a, b):
                a0, a1 = ua(pk(a))
                b0, b1 = ub(pk(b))
                return a0 * b0 + a1 * b1

            return dot16

        def dot16n(a, b):
            return sum(map(int.__mul__, ua(pk(a)), ub(pk(b))))

        return dot16n
    if spec.a_width == spec.b_width and spec.a_width in (4, 8) and spec.a_bits % 8 == 0:
        # The array path's table of every byte pair, as a list: indexing a list is the fastest lookup in Python.
        t = _numpy_path.byte_pair_table(spec.a_width, spec.a_signed, spec.b_signed).tolist()
        if spec.a_bits == 32:

            def dot_bytes(a, b):
                return (
                    t[((a & 0xFF) << 8) | (b & 0xFF)]
                    + t[(a & 0xFF00) | ((b >> 8) & 0xFF)]
                    + t[((a >> 8) & 0xFF00) | ((b >> 16) & 0xFF)]
                    + t[((a >> 16) & 0xFF00) | (b >> 24)]
                )

            return dot_bytes
        shifts = range(0, spec.a_bits, 8)

        def dot_bytes_n(a, b):
            return sum(t[(((a >> s) & 0xFF) << 8) | ((b >> s) & 0xFF)] for s in shifts)

        return dot_bytes_n
    n, wa, wb, sa, sb = spec.lanes, spec.a_width, spec.b_width, spec.a_signed, spec.b_signed

    def dot_lanes(a, b):
        return sum(map(int.__mul__, _lanes(a, wa, sa, n), _lanes(b, wb, sb, n)))

    return dot_lanes


def _read_acc(spec: DotSpec, acc: int) -> int:
    """The unsigned accumulator bits ``acc`` as the accumulator type reads them."""
    if spec.acc_signed and acc >> (spec.acc_bits - 1):
        return acc - (1 << spec.acc_bits)
    return acc


def _finish(spec: DotSpec, acc: int, d: int, neg: bool, clamp: bool) -> int:
    """Accumulate the exact dot product ``d`` into the unsigned accumulator bits ``acc``."""
    acc = _read_acc(spec, acc)
    r = acc - d if neg else acc + d
    if clamp:
        lo, hi = spec.result_range
        return lo if r < lo else hi if r > hi else r
    return _read_acc(spec, r & ((1 << spec.acc_bits) - 1))


@dataclass(frozen=True)
class DotTrace:
    """Every step of one scalar dot product, for explanations (see :func:`trace`)."""

    a_lanes: tuple[int, ...]
    b_lanes: tuple[int, ...]
    products: tuple[int, ...]
    dot: int  # the sum of the products (of the saturated pair sums, where the spec has pair_sat)
    acc: int  # the accumulator as read: in the accumulator type's spelling
    exact: int  # acc + dot, or acc - dot with neg: exact
    result: int  # clamped, or wrapped modulo 2**acc_bits, in the result type's spelling
    pair_sums: tuple[int, ...] = ()  # with pair_sat: each adjacent pair's sum, saturated


def trace(spec: DotSpec, a, b, acc, *, neg: bool = False, clamp: bool = False) -> DotTrace:
    """The lanes, products, dot product, accumulation and result of one scalar call.

    The same arithmetic as :func:`dot_function`'s scalar path, step by step.

    >>> t = trace(DotSpec.packed32(8, True, False), 0x80FF7F01, 0x01020304, 100)
    >>> t.a_lanes, t.b_lanes, t.products, t.dot, t.exact, t.result
    ((1, 127, -1, -128), (4, 3, 2, 1), (4, 381, -2, -128), 255, 355, 355)
    >>> trace(DotSpec(16, 8, 2, True, True), 0xFFFF0003, 0x0205, 0).products
    (15, -2)
    >>> t = trace(DotSpec(8, 8, 4, False, True, pair_sat=16), 0xFFFFFFFF, 0x7F7F7F7F, 0)
    >>> t.products, t.pair_sums, t.result
    ((32385, 32385, 32385, 32385), (32767, 32767), 65534)
    """
    ua, ub = check_word(a, "a", spec.a_bits), check_word(b, "b", spec.b_bits)
    uc = check_word(acc, "acc", spec.acc_bits)
    neg, clamp = check_flag(neg, "neg"), check_flag(clamp, "clamp")
    ua, ub = spec.select("a", ua), spec.select("b", ub)
    la = tuple(_lanes(ua, spec.a_width, spec.a_signed, spec.lanes))
    lb = tuple(_lanes(ub, spec.b_width, spec.b_signed, spec.lanes))
    products = tuple(x * y for x, y in zip(la, lb))
    pairs = _pair_sums(spec, products) if spec.pair_sat is not None else ()
    d = sum(pairs) if pairs else sum(products)
    start = _read_acc(spec, uc)
    result = _finish(spec, uc, d, neg, clamp)
    return DotTrace(la, lb, products, d, start, start - d if neg else start + d, result, pairs)


def _is_scalar(x) -> bool:
    return not isinstance(x, (np.ndarray, list, tuple))


@cache
def dot_function(spec: DotSpec, names: tuple[str, str, str] = ("a", "b", "acc")):
    """The dot product of ``spec`` as a fast callable ``f(a, b, acc, neg=False, clamp=False)``.

    Scalars in give a Python int out; anything array-like gives an array of
    the spec's result dtype (NumPy broadcasting).  ``names`` are the argument
    names used in error messages, so a front end's errors speak its users' language.
    """
    from . import accel

    accel.check_environment()  # a bad INTDOT_BACKEND is reported at first use, whatever the path
    if spec.selects:
        return _selecting(spec, names)
    lanes_dot = _scalar_dot(spec)
    na, nb, nc = names
    lo, hi = spec.result_range
    a_bits, b_bits, acc_bits = spec.a_bits, spec.b_bits, spec.acc_bits
    a_lo, a_end, a_mask = -(1 << (a_bits - 1)), 1 << a_bits, (1 << a_bits) - 1
    b_lo, b_end, b_mask = -(1 << (b_bits - 1)), 1 << b_bits, (1 << b_bits) - 1
    c_lo, c_end, c_mask = -(1 << (acc_bits - 1)), 1 << acc_bits, (1 << acc_bits) - 1
    # ((x + bias) & mask) - bias reads either spelling of x in the accumulator type: bias 2**(n-1) gives the
    # signed reading, bias 0 the unsigned one; no branch.
    bias = 1 << (acc_bits - 1) if spec.acc_signed else 0

    def slow(a, b, acc, neg, clamp):
        neg = check_flag(neg, "neg")
        clamp = check_flag(clamp, "clamp")
        if _is_scalar(a) and _is_scalar(b) and _is_scalar(acc):
            ua, ub, uc = check_word(a, na, a_bits), check_word(b, nb, b_bits), check_word(acc, nc, acc_bits)
            return _finish(spec, uc, lanes_dot(ua, ub), neg, clamp)
        wa, wb = as_word_array(a, na, a_bits), as_word_array(b, nb, b_bits)
        wc = as_word_array(acc, nc, acc_bits)
        return dot_arrays(spec, wa, wb, wc, neg=neg, clamp=clamp, names=names)

    if _byte_table_word32(spec):
        # The common case (8- and 4-bit lanes in 32-bit words) with the byte-pair lookups written out: a call
        # fewer per dot product, which is most of a scalar call's cost.  Every index is masked, so either
        # spelling of a and b reads the same bits.
        t = _numpy_path.byte_pair_table(spec.a_width, spec.a_signed, spec.b_signed).tolist()

        def f(a, b, acc, neg=False, clamp=False):
            if (
                type(a) is int
                and type(b) is int
                and type(acc) is int
                and a_lo <= a < a_end
                and b_lo <= b < b_end
                and c_lo <= acc < c_end
                and (neg is False or neg is True)
                and (clamp is False or clamp is True)
            ):
                d = (
                    t[((a & 0xFF) << 8) | (b & 0xFF)]
                    + t[(a & 0xFF00) | ((b >> 8) & 0xFF)]
                    + t[((a >> 8) & 0xFF00) | ((b >> 16) & 0xFF)]
                    + t[((a >> 16) & 0xFF00) | ((b >> 24) & 0xFF)]
                )
                acc = ((acc + bias) & c_mask) - bias
                r = acc - d if neg else acc + d
                if clamp:
                    return lo if r < lo else hi if r > hi else r
                return ((r + bias) & c_mask) - bias
            return slow(a, b, acc, neg, clamp)
    else:

        def f(a, b, acc, neg=False, clamp=False):
            if (
                type(a) is int
                and type(b) is int
                and type(acc) is int
                and a_lo <= a < a_end
                and b_lo <= b < b_end
                and c_lo <= acc < c_end
                and (neg is False or neg is True)
                and (clamp is False or clamp is True)
            ):
                d = lanes_dot(a & a_mask, b & b_mask)
                acc = ((acc + bias) & c_mask) - bias
                r = acc - d if neg else acc + d
                if clamp:
                    return lo if r < lo else hi if r > hi else r
                return ((r + bias) & c_mask) - bias
            return slow(a, b, acc, neg, clamp)

    f.spec = spec
    return f


def _selecting(spec: DotSpec, names: tuple[str, str, str]):
    """The dot function of a spec with a lane selector: each operand is checked as its whole word, then the
    lanes read are moved down and the plain spec's function does the rest."""
    inner = dot_function(spec.plain, names)
    na, nb, nc = names

    def f(a, b, acc, neg=False, clamp=False):
        if _is_scalar(a) and _is_scalar(b) and _is_scalar(acc):
            ua, ub = check_word(a, na, spec.a_bits), check_word(b, nb, spec.b_bits)
            return inner(spec.select("a", ua), spec.select("b", ub), acc, neg, clamp)
        neg, clamp = check_flag(neg, "neg"), check_flag(clamp, "clamp")
        wa, wb = as_word_array(a, na, spec.a_bits), as_word_array(b, nb, spec.b_bits)
        wc = as_word_array(acc, nc, spec.acc_bits)
        return dot_arrays(spec, wa, wb, wc, neg=neg, clamp=clamp, names=names)

    f.spec = spec
    return f


def dot_arrays(
    spec: DotSpec,
    a: np.ndarray,
    b: np.ndarray,
    acc: np.ndarray,
    *,
    neg: bool,
    clamp: bool,
    out: np.ndarray | None = None,
    backend: str = "auto",
    names: tuple[str, str, str] = ("a", "b", "acc"),
) -> np.ndarray:
    """The array path on already-validated unsigned word arrays (broadcasting).

    ``a``, ``b`` and ``acc`` hold the operands' bits: of dtype ``spec.a_dtype``,
    ``spec.b_dtype``, ``spec.acc_dtype`` (uint32, or uint64 past 32 bits).
    ``backend`` is ``"auto"`` (the compiled kernel where available and the
    arrays are large enough to pay for it), ``"numpy"`` or ``"numba"``.
    ``names`` name the operands in the error for shapes that do not broadcast.
    """
    if spec.selects:
        a, b = spec.select("a", a), spec.select("b", b)
        spec = spec.plain
        a, b = a.astype(spec.a_dtype, copy=False), b.astype(spec.b_dtype, copy=False)
    try:
        # Equal shapes (the common case) need no broadcasting machinery, which costs microseconds.
        shape = a.shape if a.shape == b.shape == acc.shape else np.broadcast_shapes(a.shape, b.shape, acc.shape)
    except ValueError:
        given = ", ".join(f"{n} {x.shape}" for n, x in zip(names, (a, b, acc)))
        raise OperandError(
            f"the operands' shapes do not broadcast together: {given}; expected shapes that "
            f"NumPy can broadcast to one shape"
        ) from None
    if out is None:
        out = np.empty(shape, dtype=spec.result_dtype)
    elif out.shape != shape or out.dtype != spec.result_dtype or not out.flags.c_contiguous:
        raise OperandError(
            f"out has shape {out.shape}, dtype {out.dtype}; expected a C-contiguous "
            f"{np.dtype(spec.result_dtype)} array of shape {shape}"
        )
    n = out.size
    # A single value (e.g. a scalar accumulator) is read with stride 0, not copied n times.
    flat = []
    for x, dtype in zip((a, b, acc), (spec.a_dtype, spec.b_dtype, spec.acc_dtype)):
        if x.size == 1 and n != 1:
            flat.append((np.ascontiguousarray(x, dtype=dtype).reshape(1), 0))
        else:
            x = x if x.shape == shape else np.broadcast_to(x, shape)
            flat.append((np.ascontiguousarray(x, dtype=dtype).reshape(-1), 1))
    o = out.reshape(-1)
    from . import accel

    kernel = accel.kernel_for(spec, n, backend)
    if kernel is not None:
        (fa, sa), (fb, sb), (fc, sc) = flat
        kernel(fa, sa, fb, sb, fc, sc, neg, clamp, o.view(np.uint16 if spec.acc_bits == 16 else spec.acc_dtype))
    else:
        fa, fb, fc = (np.broadcast_to(x, (n,)) if s == 0 else x for x, s in flat)
        _numpy_path.dot_into(spec, fa, fb, fc, neg, clamp, o)
    return out


def dot(
    a,
    b,
    acc,
    /,
    *,
    width: int | None = None,
    a_width: int | None = None,
    b_width: int | None = None,
    lanes: int | None = None,
    a_signed: bool = True,
    b_signed: bool = True,
    acc_bits: int = 32,
    acc_signed: bool | None = None,
    neg: bool = False,
    clamp: bool = False,
):
    """Packed dot product of ``a`` and ``b``, accumulated into ``acc``.

    Parameters
    ----------
    a, b : int or array_like of int
        Packed operands of ``lanes`` lanes each, lane 0 in the low bits, in
        their signed or unsigned spelling (for 32 bits: within ``[-2**31, 2**32)``).
    acc : int or array_like of int
        The accumulator, read as the accumulator type (``acc_bits``, ``acc_signed``).
    width : {4, 8, 16}, optional
        The lane width of both operands (default 8); or give ``a_width`` and
        ``b_width`` for operands whose lanes differ.
    lanes : int, optional
        Products per step; default: as many lanes of the wider operand as fill 32 bits.
    a_signed, b_signed : bool
        Whether the lanes of ``a`` / ``b`` are two's complement.
    acc_bits : {32, 64}
        Width of the accumulator and the result.
    acc_signed : bool, optional
        Signedness of the accumulator and the result; default: ``a_signed or b_signed``.
    neg : bool
        Negate the dot product before accumulating.
    clamp : bool
        Saturate the exact sum to the result type's range instead of wrapping
        modulo ``2**acc_bits``.

    Returns
    -------
    int or numpy.ndarray
        A Python int for scalar inputs, else an int32/uint32/int64/uint64 array.

    Examples
    --------
    >>> dot(0x01020304, 0x05060708, 10)
    80
    >>> dot(0xFFFFFFFF, 0xFFFFFFFF, 0, a_signed=True, b_signed=False)
    -1020
    >>> dot(0x0001_FFFF, 0x0302, 0, a_width=16, b_width=8)      # 16-bit lanes x 8-bit lanes
    1
    >>> dot(-1, -1, 2**63 - 1, width=16, lanes=4, acc_bits=64, clamp=True)
    9223372036854775807
    """
    if width is not None and (a_width is not None or b_width is not None):
        raise OperandError(
            f"width={describe(width)} was given with a_width={describe(a_width)}, b_width={describe(b_width)}; "
            f"expected either width (both operands) or a_width and b_width"
        )
    if width is None and a_width is None and b_width is None:
        width = 8
    if width is not None:
        width = check_width(width)  # named as the caller spelt it, not as a_width
    a_width = width if a_width is None else a_width
    b_width = width if b_width is None else b_width
    if a_width is None or b_width is None:
        raise OperandError(f"a_width={describe(a_width)}, b_width={describe(b_width)}: give both (or width for both)")
    a_signed, b_signed = check_flag(a_signed, "a_signed"), check_flag(b_signed, "b_signed")
    if acc_signed is None:
        acc_signed = a_signed or b_signed
    if lanes is None:
        DotSpec(a_width, b_width, 1, a_signed, b_signed)  # the widths' own message, before dividing by them
        lanes = 32 // max(a_width, b_width)
    spec = DotSpec(a_width, b_width, lanes, a_signed, b_signed, acc_bits, acc_signed)
    return dot_function(spec)(a, b, acc, neg, clamp)
