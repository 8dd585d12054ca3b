"""Validation of operands: packed words of 1 to 64 bits (scalar or array) and flags.

An n-bit operand may be spelled signed or unsigned (``-1`` or ``0xFFFFFFFF``
for 32 bits); anything outside ``[-2**(n-1), 2**n)`` is an error, never
silently masked.  Words come back unsigned: Python ints, or uint32 arrays
(up to 32 bits) and uint64 arrays (wider).
"""

from __future__ import annotations

import itertools
import numbers

import numpy as np

from .errors import OperandError, OperandTypeError, quote

WORD_MIN = -(1 << 31)
WORD_END = 1 << 32  # exclusive
MASK32 = 0xFFFFFFFF
WORD_RANGE = "an integer in [-2**31, 2**32), i.e. a 32-bit value in its signed or unsigned spelling"


def operand_range(bits: int) -> str:
    """What an operand of ``bits`` bits may be, for error messages."""
    if bits == 32:
        return WORD_RANGE
    return (
        f"an integer in [-2**{bits - 1}, 2**{bits}), i.e. {a_or_an(f'{bits}-bit')} value in its signed or unsigned "
        "spelling"
    )


def word_dtype(bits: int) -> type:
    """The unsigned dtype that holds words of ``bits`` bits: uint32 up to 32, else uint64."""
    return np.uint32 if bits <= 32 else np.uint64


def describe(value) -> str:
    """A short, safe ``repr`` of a user value for error messages (text through :func:`~intdot.core.errors.quote`).

    >>> describe(2**32), describe(-(10**5000))
    ('4294967296', '<a negative integer of 16610 bits>')
    >>> describe("0x" + "f" * 100_000)
    "'0xffffffffffffffffffffffffffffffffffffffffffffffffffffffffff'... (100002 characters)"
    """
    if isinstance(value, str):
        return quote(value)
    if isinstance(value, np.ndarray):
        return f"array(shape={value.shape}, dtype={value.dtype})"
    if isinstance(value, int) and value.bit_length() > 128:
        # Python refuses to print ints of more than 4300 digits; nobody wants to read 40 of them.
        return f"<{'a negative' if value < 0 else 'an'} integer of {value.bit_length()} bits>"
    try:
        text = repr(value)
    except ValueError:  # e.g. a list holding an int too long to print
        return f"<{a_or_an(type(value).__name__)} that cannot be printed>"
    return text if len(text) <= 60 else text[:57] + "..."


def describe_all(values, limit: int = 8, show=describe) -> str:
    """:func:`describe` (or ``show``) of each of ``values``, comma-separated: the first ``limit`` of them and how
    many there are in all, so that a dict of 100,000 unknown keys is not listed whole.

    >>> describe_all(["regs2", "x"]), describe_all(range(100), limit=2)
    ("'regs2', 'x'", '0, 1, ... (100 in all)')
    """
    values = list(values)
    shown = ", ".join(show(v) for v in values[:limit])
    return shown + (f", ... ({len(values)} in all)" if len(values) > limit else "")


# Letters whose English name starts with a vowel sound (ef, aitch, el, em, en, ar, ess, ex; not "you").
_VOWEL_LETTERS = frozenset("aefhilmnorsx")


def a_or_an(word) -> str:
    """``word`` with its indefinite article, as it is spoken: a number by its first spoken word, an acronym
    or a letter with digits letter by letter, any other word by its first letter.

    >>> [a_or_an(w) for w in ("Arm", "AMD", "x86", "int8", "uint8", "8-bit", "16-bit", "11-bit", "NVIDIA")]
    ['an Arm', 'an AMD', 'an x86', 'an int8', 'a uint8', 'an 8-bit', 'a 16-bit', 'an 11-bit', 'an NVIDIA']
    >>> [a_or_an(w) for w in ("unsigned", "ushort2", "ndarray", "short2", "SME2", "CPU", "processor")]
    ['an unsigned', 'a ushort2', 'an ndarray', 'a short2', 'an SME2', 'a CPU', 'a processor']
    """
    text = str(word)
    digits = len(text) - len(text.lstrip("0123456789"))
    if digits:  # eight, eleven, eighteen, eighty..., eight hundred..., eleven thousand...
        number = text[:digits]
        vowel = number[0] == "8" or (digits % 3 == 2 and number[:2] in ("11", "18"))
    elif not text:
        vowel = False
    else:
        first = text[0].lower()
        spelt = len(text) == 1 or not text[1].islower() or text[:2].lower() == "nd"  # AMD, x86, SME2, ndarray
        if spelt:
            vowel = first in _VOWEL_LETTERS
        elif first == "u":  # "an unsigned", "an upper", but "a uint8", "a ushort2", "a unit", "a user"
            low = text.lower()
            vowel = low.startswith(("un", "up")) and not low.startswith("uni")
        else:
            vowel = first in "aeio"
    return f"{'an' if vowel else 'a'} {text}"


def is_int_scalar(x) -> bool:
    """True for Python ints and NumPy integer scalars, False for bools."""
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def check_word(x, name: str, bits: int = 32) -> int:
    """Validate one operand of ``bits`` bits and return it as an unsigned Python int."""
    lo, end = -(1 << (bits - 1)), 1 << bits
    if type(x) is int:  # the common case first
        if lo <= x < end:
            return x & (end - 1)
    elif is_int_scalar(x):
        x = int(x)
        if lo <= x < end:
            return x & (end - 1)
    else:
        raise OperandTypeError(f"{name}={describe(x)} has type {type(x).__name__}; expected {operand_range(bits)}")
    raise OperandError(f"{name}={describe(x)} is out of range; expected {operand_range(bits)}")


def small_decimal(digits: str) -> int:
    """A decimal digit string read as an int for a range check (a register, row or index number).

    Past 40 significant digits the value is out of every range intdot checks,
    so only its size matters: it comes back as 10**40 (Python refuses to
    convert more than 4300 digits at all).  Leading zeros do not count, as
    llvm-mc reads ``v`` followed by 5000 zeros and a 1 as ``v1``.

    >>> small_decimal("07"), small_decimal("9" * 5000) == 10**40, small_decimal("0" * 5000 + "1")
    (7, True, 1)
    """
    significant = digits.lstrip("0")
    return int(significant or "0") if len(significant) <= 40 else 10**40


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


def check_choice(x, name: str, choices: tuple[str, ...]) -> str:
    """``x`` if it is one of the strings ``choices``.

    The type is checked first: a NumPy array compared with ``in`` raises NumPy's "truth value of an array is
    ambiguous" ValueError, so anything but a str is an :class:`OperandTypeError`; a str not among ``choices``
    an :class:`OperandError`.

    >>> check_choice("mark", "errors", ("raise", "mark"))
    'mark'
    """
    expected = " or ".join(map(repr, choices)) if len(choices) <= 2 else "one of " + ", ".join(map(repr, choices))
    if not isinstance(x, str):
        raise OperandTypeError(f"{name}={describe(x)} is {a_or_an(type(x).__name__)}, not a str; expected {expected}")
    if x not in choices:
        raise OperandError(f"{name}={describe(x)}; expected {expected}")
    return x


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


def _object_words(arr: np.ndarray, name: str, bits: int) -> np.ndarray:
    """Validate an object array (Python ints beyond int64, mixed objects) one element at a time."""
    flat = np.empty(arr.size, dtype=word_dtype(bits))
    lo, end = -(1 << (bits - 1)), 1 << bits
    for i, v in enumerate(arr.flat):
        if type(v) is int and lo <= v < end:
            flat[i] = v & (end - 1)
            continue
        index = ", ".join(str(int(k)) for k in np.unravel_index(i, arr.shape))  # only for the message
        flat[i] = check_word(v, f"{name}[{index}]" if index else name, bits)
    return flat.reshape(arr.shape)


def as_word_array(x, name: str, bits: int = 32) -> np.ndarray:
    """Validate an array-like of operands of ``bits`` bits; return a uint32 (or, past 32 bits, uint64) array.

    Integer dtypes only (or object arrays of integers); the values must lie in
    ``[-2**(bits-1), 2**bits)``.  Inputs of the word's own size (int32 and
    uint32 for 32 bits, int64 and uint64 for 64) in native byte order are
    reinterpreted without a copy.

    >>> as_word_array([-1, 0xFFFFFFFF], "a").tolist()
    [4294967295, 4294967295]
    >>> as_word_array(np.array([-1, 5], np.int8), "b", 16).tolist()
    [65535, 5]
    """
    dtype = word_dtype(bits)
    if not isinstance(x, np.ndarray):
        if is_int_scalar(x):
            return np.asarray(check_word(x, name, bits), dtype=dtype)
        if isinstance(x, (str, bytes, float, complex, numbers.Number)) or x is None:
            raise OperandTypeError(f"{name}={describe(x)} has type {type(x).__name__}; expected {operand_range(bits)}")
        try:
            arr = asarray_exact(x)
        except (ValueError, TypeError) as exc:
            raise OperandTypeError(f"{name}={describe(x)} is not an integer array: {exc}") from None
        if arr.size == 0 and arr.dtype == np.float64:
            # An empty list has no elements to be floats: NumPy's default dtype says nothing here.
            return np.empty(arr.shape, dtype=dtype)
        x = arr
    if x.dtype == object:
        return _object_words(x, name, bits)
    kind = x.dtype.kind
    if kind not in "iu" or x.dtype == np.bool_:
        native = "int32/uint32" if bits == 32 else "int64/uint64" if bits == 64 else "an integer dtype"
        raise OperandTypeError(
            f"{name} has dtype {x.dtype}; expected an integer dtype ({native}, or another with values "
            f"in range){_lane_dtype_hint(x.dtype)}"
        )
    size = 8 * x.dtype.itemsize
    if size == bits == 8 * np.dtype(dtype).itemsize and x.dtype.isnative:
        return x if kind == "u" else x.view(dtype)
    if size > bits and x.size:
        lo, hi = x.min(), x.max()
        if (kind == "i" and lo < -(1 << (bits - 1))) or hi >= 1 << bits:
            bad = lo if (kind == "i" and lo < -(1 << (bits - 1))) else hi
            raise OperandError(f"{name} holds {int(bad)}, out of range; every element must be {operand_range(bits)}")
    # A C cast keeps a narrow int's value modulo the word (int8 -1 becomes 0xFFFFFFFF); the mask then
    # keeps the operand's own bits (-1 as a 16-bit operand is 0xFFFF).
    out = x.astype(dtype)
    if bits < 8 * np.dtype(dtype).itemsize:
        out &= dtype((1 << bits) - 1)
    return out
