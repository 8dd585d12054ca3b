"""The Python functions generated from the builtin rows.

Each function is a thin closure over the core's callable for the row's
:class:`~intdot.core.DotSpec` (one per sign combination for ``sudot``): it only
rearranges arguments, so the core does all validation and arithmetic and the
scalar path stays fast.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from ..core import check_environment, dot_function, pack, pack_scalar
from ..core.errors import OperandError, OperandTypeError
from ..core.values import asarray_exact, check_flag, check_int, describe, is_int_scalar
from .builtins import Builtin, lookup
from .targets import check_profile

NAMES = ("src0", "src1", "src2")


class Packed:
    """Marks an array as packed 32-bit words.

    Words are always read as words, so this marker changes nothing; it is
    kept so that code written for older versions (where ``sdot2``/``udot2``
    read an array whose last axis had length 2 as pairs) still runs.

    >>> import numpy as np
    >>> from intdot import amd
    >>> amd.sdot2(amd.packed(np.array([0x00070003, 0x00010001])), 0x00010001, 0).tolist()
    [10, 2]
    """

    __slots__ = ("words",)

    def __init__(self, words):
        self.words = words

    def __repr__(self):
        return f"packed({self.words!r})"


def packed(words) -> Packed:
    """Mark ``words`` as packed 32-bit words (see :class:`Packed`)."""
    return Packed(words)


_LANE_LO, _LANE_HI = -(1 << 15), (1 << 16) - 1


def short2(e0, e1):
    """Pack 16-bit elements into ``short2``/``ushort2`` words: element 0 in the low half.

    ``e0`` and ``e1`` are ints or integer arrays (broadcast together), each
    element in ``[-32768, 65535]`` (signed or unsigned spelling; the builtin's
    signedness reads the bits).  Ints give a Python int, arrays a uint32 array.
    This is the explicit way to hand ``sdot2``/``udot2`` a pair: any other int
    or array (lists and tuples included) is packed 32-bit words, whatever its
    shape, as for every other builtin.

    >>> from intdot import amd
    >>> hex(amd.short2(-3, 7)), amd.sdot2(amd.short2(-3, 7), amd.short2(2, 5), 100)
    ('0x7fffd', 129)
    >>> amd.short2([1, 2], 3).tolist()
    [196609, 196610]
    """
    if is_int_scalar(e0) and is_int_scalar(e1):
        what = f"a 16-bit element in [{_LANE_LO}, {_LANE_HI}] (signed or unsigned spelling)"
        return pack_scalar(
            [check_int(e0, "e0", _LANE_LO, _LANE_HI, what), check_int(e1, "e1", _LANE_LO, _LANE_HI, what)], 16, "short2"
        )
    elements = [_elements(e0, "e0"), _elements(e1, "e1")]
    try:
        parts = np.broadcast_arrays(*elements)
    except ValueError:
        raise OperandError(
            f"e0 and e1 have shapes {np.shape(e0)} and {np.shape(e1)}, which do not broadcast "
            f"together; expected arrays NumPy can broadcast to one shape"
        ) from None
    return np.asarray(pack(np.stack(parts, axis=-1), 16), dtype=np.uint32)


ushort2 = short2


def _elements(x, name: str) -> np.ndarray:
    """16-bit elements of one half of a pair, as int64, range-checked."""
    if isinstance(x, (bool, np.bool_, str, bytes, float, complex)) or x is None:
        raise OperandTypeError(
            f"{name}={describe(x)} has type {type(x).__name__}; expected an int or an integer "
            f"array of 16-bit elements in [{_LANE_LO}, {_LANE_HI}]"
        )
    try:
        arr = asarray_exact(x)
    except (ValueError, TypeError) as exc:
        raise OperandTypeError(f"{name}={describe(x)} is not an integer array: {exc}") from None
    what = f"a 16-bit element in [{_LANE_LO}, {_LANE_HI}] (signed or unsigned spelling)"
    if arr.dtype == object:
        for index in np.ndindex(arr.shape):
            check_int(arr[index], f"{name}[{', '.join(map(str, index))}]", _LANE_LO, _LANE_HI, what)
        return arr.astype(np.int64)
    if arr.dtype.kind not in "iu" or arr.dtype == np.bool_:
        raise OperandTypeError(f"{name} has dtype {arr.dtype}; expected an integer array of 16-bit elements")
    if arr.size and (arr.min() < _LANE_LO or arr.max() > _LANE_HI):
        bad = arr.min() if arr.min() < _LANE_LO else arr.max()
        raise OperandError(f"{name} holds {int(bad)}, out of range; every element must be {what}")
    return arr.astype(np.int64)


def short2_operand(x, name: str):
    """A ``short2``/``ushort2`` operand as the core wants it: packed word(s).

    An int16/uint16 array whose last axis has length 2 holds pairs (element 0
    first) and is packed here; everything else (ints, lists, tuples, arrays of
    any other dtype) is packed 32-bit words and goes to the core unchanged,
    so a batch of two words means two words, as for every other builtin.
    """
    if isinstance(x, Packed):
        return x.words
    if isinstance(x, np.ndarray) and x.dtype.kind in "iu" and x.dtype.itemsize == 2:
        if x.ndim == 0 or x.shape[-1] != 2:
            raise OperandError(
                f"{name} is a 16-bit array of shape {x.shape}; 16-bit elements must come in "
                f"pairs along the last axis (length 2); packed 32-bit words go in an int32/uint32 "
                f"array, and intdot.amd.short2(e0, e1) packs separate element arrays"
            )
        return np.asarray(pack(x, 16), dtype=np.uint32)
    return x


def _plain(row: Builtin, profile: str):
    f = dot_function(row.spec(), names=NAMES)
    if profile == "reference":

        def fn(src0, src1, src2, neg=False, *, clamp=False):
            return f(src0, src1, src2, neg, clamp)
    else:

        def fn(src0, src1, src2, clamp=False):
            return f(src0, src1, src2, False, clamp)

    return fn


def _short2(row: Builtin, profile: str):
    f = dot_function(row.spec(), names=NAMES)
    conv = short2_operand
    if profile == "reference":

        def fn(src0, src1, src2, neg=False, *, clamp=False):
            if type(src0) is not int:
                src0 = conv(src0, "src0")
            if type(src1) is not int:
                src1 = conv(src1, "src1")
            return f(src0, src1, src2, neg, clamp)
    else:

        def fn(src0, src1, src2, clamp=False):
            if type(src0) is not int:
                src0 = conv(src0, "src0")
            if type(src1) is not int:
                src1 = conv(src1, "src1")
            return f(src0, src1, src2, False, clamp)

    return fn


def _sudot(row: Builtin, profile: str):
    by_flags = {(a, b): dot_function(row.spec(a, b), names=NAMES) for a in (False, True) for b in (False, True)}

    def flags(src0_neg, src1_neg):
        return check_flag(src0_neg, "src0_neg"), check_flag(src1_neg, "src1_neg")

    if profile == "reference":

        def fn(src0_neg, src0, src1_neg, src1, src2, neg=False, *, clamp=False):
            if type(src0_neg) is not bool or type(src1_neg) is not bool:
                src0_neg, src1_neg = flags(src0_neg, src1_neg)
            return by_flags[src0_neg, src1_neg](src0, src1, src2, neg, clamp)
    else:

        def fn(src0_neg, src0, src1_neg, src1, src2, clamp=False):
            if type(src0_neg) is not bool or type(src1_neg) is not bool:
                src0_neg, src1_neg = flags(src0_neg, src1_neg)
            return by_flags[src0_neg, src1_neg](src0, src1, src2, False, clamp)

    return fn


_MAKERS = {"plain": _plain, "short2": _short2, "sudot": _sudot}


def _docstring(row: Builtin, profile: str, fn) -> str:
    if row.layout == "sudot":
        operands = (
            "src0_neg, src1_neg : bool\n"
            "    True: that operand's lanes are signed; False: unsigned.\n"
            f"src0, src1 : int or array_like of int\n"
            f"    {row.lanes} packed {row.width}-bit lanes, lane 0 in the low bits.\n"
        )
    elif row.layout == "short2":
        operands = (
            f"src0, src1 : int or array_like\n"
            f"    {row.operand_type}: packed 32-bit words (element 0 in the low half), e.g. made by\n"
            f"    ``intdot.amd.short2(e0, e1)``; or an int16/uint16 array whose last axis (length 2)\n"
            f"    holds the pairs.  Any other int, list or array is words, whatever its shape.\n"
        )
    else:
        operands = (
            f"src0, src1 : int or array_like of int\n"
            f"    {row.lanes} packed {'unsigned' if row.src0 == 'u' else 'signed'} {row.width}-bit lanes, "
            f"lane 0 in the low bits.\n"
        )
    acc = "src2 : int or array_like of int\n    The accumulator, read as " + (
        "int32.\n" if row.result_signed else "uint32.\n"
    )
    if profile == "reference":
        last = (
            "neg : bool, default False\n    Negate the dot product before adding it to src2.\n"
            "clamp : bool, default False, keyword-only\n"
            "    Saturate the exact sum to the result type's range instead of wrapping mod 2**32.\n"
        )
    else:
        last = (
            "clamp : bool, default False\n    clang's last argument: saturate the exact sum to the result "
            "type's range instead of wrapping mod 2**32.  (There is no neg.)\n"
        )
    text, args = _EXAMPLES[row.layout]
    if profile == "reference":
        text, args = text + ", False", args + (False,)
    return (
        f"{row.summary}\n\n``{row.c_signature(profile)}`` ({profile} profile).\n\n"
        f"Parameters\n----------\n{operands}{acc}{last}\n"
        f"Returns\n-------\nint or numpy.ndarray\n"
        f"    A Python int ({'signed' if row.result_signed else 'unsigned'}) for scalar inputs, else an "
        f"{'int32' if row.result_signed else 'uint32'} array (NumPy broadcasting).\n\n"
        f"Examples\n--------\n>>> from intdot import amd\n"
        f">>> amd.builtin({row.name!r}, profile={profile!r})({text})\n{fn(*args)}\n"
    )


# One example call per layout, as text and as the arguments it stands for.
_EXAMPLES = {
    "plain": ("0x01020304, 0x05060708, 10", (0x01020304, 0x05060708, 10)),
    "short2": ("amd.short2(3, -7), amd.short2(2, 5), 10", (short2(3, -7), short2(2, 5), 10)),
    "sudot": ("True, 0xFFFFFFFF, False, 0xFFFFFFFF, 0", (True, 0xFFFFFFFF, False, 0xFFFFFFFF, 0)),
}


@cache
def _make(name: str, profile: str):
    row = lookup(name)
    fn = _MAKERS[row.layout](row, profile)
    fn.__name__ = row.name
    fn.__qualname__ = row.name
    fn.__module__ = "intdot.amd"
    fn.row = row
    fn.profile = profile
    fn.__doc__ = _docstring(row, profile, fn)
    return fn


def make(name, profile: str = "reference"):
    """The function for builtin ``name`` in ``profile`` (cached)."""
    check_environment()  # reported even when the function was made before, e.g. by an earlier command
    check_profile(profile)
    return _make(lookup(name).name, profile)
