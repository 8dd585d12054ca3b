"""The Python functions generated from the builtin rows.

Each function is a thin closure over the core's callable for the row's
:class:`~intdot.core.DotSpec` (one per sign combination for ``sudot``): it only
rearranges arguments, so the core does all validation and arithmetic and the
scalar path stays fast.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..core import dot_function, pack, pack_scalar
from ..core.errors import OperandError, OperandTypeError
from ..core.values import asarray_exact, check_flag, check_int, describe, is_int_scalar
from .builtins import Builtin, lookup
from .targets import check_profile

NAMES = ("src0", "src1", "src2")


class Packed:
    """Marks an array as packed 32-bit words for ``sdot2``/``udot2``.

    Without it, an array whose last axis has length 2 (or a 16-bit dtype) is
    read as pairs of 16-bit elements.

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


def short2_operand(x, name: str):
    """A ``short2``/``ushort2`` operand as the core wants it: packed word(s).

    Accepted: a packed 32-bit int (element 0 in the low half), a pair of ints
    (each 16 bits, signed or unsigned spelling), an array-like whose last axis
    has length 2 (pairs), or :func:`packed` words.
    """
    if isinstance(x, Packed):
        return x.words
    if is_int_scalar(x) or isinstance(x, (bool, np.bool_, str, bytes, float, complex)) or x is None:
        return x  # a packed word, or a type the core rejects with a message naming the argument
    if isinstance(x, (tuple, list)) and len(x) == 2:
        if all(not isinstance(v, (tuple, list, np.ndarray)) for v in x):
            return pack_scalar(list(x), 16, name)
        # (e0s, e1s) could mean "element arrays" or "two pairs": refuse to guess.
        raise OperandTypeError(
            f"{name} is a sequence of 2 non-scalars, which is ambiguous; pass np.stack([e0, e1], axis=-1) for "
            f"arrays of element 0 and element 1, or np.asarray(...) for an array of pairs (last axis 2)")
    try:
        arr = asarray_exact(x)
    except (ValueError, TypeError) as exc:
        raise OperandTypeError(f"{name}={describe(x)} is not an integer array: {exc}") from None
    if arr.size == 0 and arr.dtype == np.float64:
        return np.empty(arr.shape, dtype=np.uint32)  # an empty list: no elements, no pairs
    if arr.dtype == object:
        # Python ints beyond int64, or other objects: the same reading as an integer array, checked one by one.
        if arr.ndim == 0 or arr.shape[-1] != 2:
            return arr  # packed words: the core checks each element
        what = f"a 16-bit element in [{_LANE_LO}, {_LANE_HI}] (signed or unsigned spelling)"
        for index in np.ndindex(arr.shape):
            check_int(arr[index], f"{name}[{', '.join(map(str, index))}]", _LANE_LO, _LANE_HI, what)
        arr = arr.astype(np.int64)
    if arr.dtype.kind not in "iu" or arr.dtype == np.bool_:
        raise OperandTypeError(f"{name} has dtype {arr.dtype}; expected integers (packed words, or pairs of "
                               f"16-bit elements along a last axis of length 2)")
    if arr.ndim == 0:
        return arr  # a packed word
    if arr.shape[-1] != 2:
        if arr.dtype.itemsize == 2:
            raise OperandError(f"{name} is a 16-bit array of shape {arr.shape}; 16-bit elements must come in "
                               f"pairs along the last axis (length 2); packed 32-bit words go in an int32/uint32 "
                               f"array (wrapped in intdot.amd.packed() if its last axis has length 2)")
        return arr  # packed words
    if arr.size:
        lo, hi = int(arr.min()), int(arr.max())
        if lo < _LANE_LO or hi > _LANE_HI:
            bad = lo if lo < _LANE_LO else hi
            raise OperandError(f"{name} holds the element {bad}; each 16-bit element must be in "
                               f"[{_LANE_LO}, {_LANE_HI}] (signed or unsigned spelling); an array whose last axis "
                               f"has length 2 is read as pairs: wrap packed 32-bit words in intdot.amd.packed()")
    return np.asarray(pack(arr, 16), dtype=np.uint32)


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
            f"    {row.lanes} packed {row.width}-bit lanes, lane 0 in the low bits.\n")
    elif row.layout == "short2":
        operands = (
            f"src0, src1 : int, pair of int, or array_like\n"
            f"    {row.operand_type}: a packed 32-bit word (element 0 in the low half), a pair\n"
            f"    ``(e0, e1)`` of 16-bit values, an array whose last axis has length 2, or\n"
            f"    ``intdot.amd.packed(words)``.\n")
    else:
        operands = (
            f"src0, src1 : int or array_like of int\n"
            f"    {row.lanes} packed {'unsigned' if row.src0 == 'u' else 'signed'} {row.width}-bit lanes, "
            f"lane 0 in the low bits.\n")
    acc = "src2 : int or array_like of int\n    The accumulator, read as " + (
        "int32.\n" if row.result_signed else "uint32.\n")
    if profile == "reference":
        last = ("neg : bool, default False\n    Negate the dot product before adding it to src2.\n"
                "clamp : bool, default False, keyword-only\n"
                "    Saturate the exact sum to the result type's range instead of wrapping mod 2**32.\n")
    else:
        last = ("clamp : bool, default False\n    clang's last argument: saturate the exact sum to the result "
                "type's range instead of wrapping mod 2**32.  (There is no neg.)\n")
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
    "short2": ("(3, -7), (2, 5), 10", ((3, -7), (2, 5), 10)),
    "sudot": ("True, 0xFFFFFFFF, False, 0xFFFFFFFF, 0", (True, 0xFFFFFFFF, False, 0xFFFFFFFF, 0)),
}


@lru_cache(maxsize=None)
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
    check_profile(profile)
    return _make(lookup(name).name, profile)
