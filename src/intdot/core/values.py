"""Validation of operands: 32-bit words (scalar or array) and flags.

A 32-bit operand may be spelled signed or unsigned (``-1`` or ``0xFFFFFFFF``);
anything outside ``[-2**31, 2**32)`` is an error, never silently masked.
"""

from __future__ import annotations

import itertools
import numbers

import numpy as np

from .errors import OperandError, OperandTypeError

WORD_MIN = -(1 << 31)
WORD_END = 1 << 32  # exclusive
MASK32 = 0xFFFFFFFF
WORD_RANGE = "an integer in [-2**31, 2**32), i.e. a 32-bit value in its signed or unsigned spelling"


def describe(value) -> str:
    """A short, safe ``repr`` of a user value for error messages.

    >>> describe(2**32), describe(-(10**5000))
    ('4294967296', '<a negative integer of 16610 bits>')
    """
    if isinstance(value, np.ndarray):
        return f"array(shape={value.shape}, dtype={value.dtype})"
    if isinstance(value, int) and value.bit_length() > 128:
        # Python refuses to print ints of more than 4300 digits; nobody wants to read 40 of them.
        return f"<{'a negative' if value < 0 else 'an'} integer of {value.bit_length()} bits>"
    try:
        text = repr(value)
    except ValueError:  # e.g. a list holding an int too long to print
        return f"<a {type(value).__name__} that cannot be printed>"
    return text if len(text) <= 60 else text[:57] + "..."


def is_int_scalar(x) -> bool:
    """True for Python ints and NumPy integer scalars, False for bools."""
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def check_word(x, name: str) -> int:
    """Validate one 32-bit operand and return it as an unsigned Python int."""
    if type(x) is int:  # the common case first
        if WORD_MIN <= x < WORD_END:
            return x & MASK32
    elif is_int_scalar(x):
        x = int(x)
        if WORD_MIN <= x < WORD_END:
            return x & MASK32
    else:
        raise OperandTypeError(f"{name}={describe(x)} has type {type(x).__name__}; expected {WORD_RANGE}")
    raise OperandError(f"{name}={describe(x)} is out of range; expected {WORD_RANGE}")


def small_decimal(digits: str) -> int:
    """A decimal digit string read as an int for a range check (a register, row or index number).

    Past 40 digits the value is out of every range intdot checks, so only its
    size matters: it comes back as 10**40 (Python refuses to convert more than
    4300 digits at all).

    >>> small_decimal("07"), small_decimal("9" * 5000) == 10**40
    (7, True)
    """
    return int(digits) if len(digits) <= 40 else 10**40


def check_int(x, name: str, lo: int, hi: int, what: str | None = None) -> int:
    """Validate an integer in the closed range ``[lo, hi]``."""
    if not is_int_scalar(x):
        raise OperandTypeError(
            f"{name}={describe(x)} has type {type(x).__name__}; expected {what or f'an integer in [{lo}, {hi}]'}"
        )
    x = int(x)
    if not lo <= x <= hi:
        what = what or f"an integer in [{lo}, {hi}]"
        raise OperandError(f"{name}={describe(x)} is out of range; expected {what}")
    return x


def check_flag(x, name: str) -> bool:
    """Validate a flag: ``True``/``False`` (or NumPy's bool scalar)."""
    if x is True or x is False:
        return x
    if isinstance(x, np.bool_):
        return bool(x)
    raise OperandTypeError(f"{name}={describe(x)} is not a bool; expected True or False")


def asarray_exact(x) -> np.ndarray:
    """``np.asarray(x)``, except that a sequence of integers stays integers.

    NumPy reads ``[2**63, -1]`` or ``[np.uint64(5), np.int64(-1)]`` as float64
    (losing precision), and ``[True, 2]`` as ``[1, 2]``; such a sequence comes
    back as an object array, for per-element checks.  Raises ``ValueError`` or
    ``TypeError`` as ``np.asarray`` does (e.g. for ragged sequences).
    """
    arr = np.asarray(x)
    if arr.dtype.kind in "fc" and arr.size and not isinstance(x, np.ndarray):
        obj = np.asarray(x, dtype=object)
        if obj.shape == arr.shape and all(is_int_scalar(v) for v in obj.flat):
            return obj
    elif arr.dtype.kind in "iu" and isinstance(x, (list, tuple)) and _holds_bool(x):
        # NumPy reads [True, 2] as [1, 2]; a bool is not a 32-bit operand, in a list or not.
        return np.asarray(x, dtype=object)
    return arr


def _holds_bool(seq) -> bool:
    # One level of nesting at a time; set(map(type, ...)) and chain run at C speed, so a list of
    # plain ints costs about one more pass over it.
    level = seq
    while level:
        types = set(map(type, level))
        if bool in types or np.bool_ in types:
            return True
        if np.ndarray in types and any(type(v) is np.ndarray and v.dtype == np.bool_ for v in level):
            return True
        if not types & {list, tuple}:
            return False
        nested = level if types <= {list, tuple} else [v for v in level if type(v) in (list, tuple)]
        level = list(itertools.chain.from_iterable(nested))
    return False


def _lane_dtype_hint(dtype) -> str:
    # ml_dtypes' int4/uint4 arrays are lanes, not words: say how to make words of them.
    if dtype.name in ("int4", "uint4", "int2", "uint2"):
        return f"; {dtype.name} values are lanes: pack them into words with intdot.pack(lanes, 4)"
    return ""


def _object_words(arr: np.ndarray, name: str) -> np.ndarray:
    """Validate an object array (Python ints beyond int64, mixed objects) one element at a time."""
    flat = np.empty(arr.size, dtype=np.uint32)
    for i, v in enumerate(arr.flat):
        if type(v) is int and WORD_MIN <= v < WORD_END:
            flat[i] = v & MASK32
            continue
        index = ", ".join(str(int(k)) for k in np.unravel_index(i, arr.shape))  # only for the message
        flat[i] = check_word(v, f"{name}[{index}]" if index else name)
    return flat.reshape(arr.shape)


def as_word_array(x, name: str) -> np.ndarray:
    """Validate an array-like of 32-bit operands; return a ``uint32`` array.

    Integer dtypes only (or object arrays of integers); the values must lie in
    ``[-2**31, 2**32)``.  int32 and uint32 inputs in native byte order are
    reinterpreted without a copy.

    >>> as_word_array([-1, 0xFFFFFFFF], "a").tolist()
    [4294967295, 4294967295]
    """
    if not isinstance(x, np.ndarray):
        if is_int_scalar(x):
            return np.asarray(check_word(x, name), dtype=np.uint32)
        if isinstance(x, (str, bytes, float, complex, numbers.Number)) or x is None:
            raise OperandTypeError(f"{name}={describe(x)} has type {type(x).__name__}; expected {WORD_RANGE}")
        try:
            arr = asarray_exact(x)
        except (ValueError, TypeError) as exc:
            raise OperandTypeError(f"{name}={describe(x)} is not an integer array: {exc}") from None
        if arr.size == 0 and arr.dtype == np.float64:
            # An empty list has no elements to be floats: NumPy's default dtype says nothing here.
            return np.empty(arr.shape, dtype=np.uint32)
        x = arr
    if x.dtype == object:
        return _object_words(x, name)
    kind = x.dtype.kind
    if kind not in "iu" or x.dtype == np.bool_:
        raise OperandTypeError(
            f"{name} has dtype {x.dtype}; expected an integer dtype (int32/uint32, or a wider one with values "
            f"in range){_lane_dtype_hint(x.dtype)}"
        )
    if x.dtype.itemsize < 4 or x.dtype in (np.int32, np.uint32):
        if x.dtype.itemsize == 4:
            return x.view(np.uint32) if x.dtype == np.int32 else x
        # Narrow ints: their values are what the user means (e.g. int8 -1 is -1).
        return x.astype(np.int64).astype(np.uint32)
    if x.size:
        lo, hi = x.min(), x.max()
        if (kind == "i" and lo < WORD_MIN) or hi >= WORD_END:
            bad = lo if (kind == "i" and lo < WORD_MIN) else hi
            raise OperandError(f"{name} holds {int(bad)}, out of range; every element must be {WORD_RANGE}")
    return x.astype(np.uint32)
