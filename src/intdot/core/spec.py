"""What one integer dot step is: :class:`DotSpec`.

A spec fixes everything about an instruction's dot product except the
accumulation rule's two switches (``neg``, ``clamp``), which are arguments of
the call because some instructions take them at run time (an instruction
that fixes them says so in its catalog record).  Each operand has its own lane
width and signedness (dp2a multiplies 16-bit lanes by 8-bit ones) and its own
lane selector: the operand is a word of ``a_word`` bits of which lanes
``a_first .. a_first + lanes - 1`` are read (PTX ``dp2a.hi`` reads lanes 2-3
of a 32-bit word of bytes).  ``lanes`` products are summed per step; with
``pair_sat`` each sum of two adjacent products first saturates to a signed
integer of that many bits (x86 ``pmaddubsw``: int16).  The accumulator is 16,
32 or 64 bits wide, signed or unsigned.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .errors import OperandError, OperandTypeError
from .values import describe, is_int_scalar

WIDTHS = (4, 8, 16)
ACC_BITS = (16, 32, 64)
PAIR_SAT = (None, 16)
MAX_OPERAND_BITS = 64


def _check_field(name: str, value, allowed, what: str) -> None:
    if not is_int_scalar(value):
        raise OperandTypeError(f"{name}={describe(value)} has type {type(value).__name__}; expected {what}")
    if allowed is not None and value not in allowed:
        raise OperandError(f"{name}={describe(value)} is not allowed; expected {what}")


def _check_bool(name: str, value) -> None:
    if value is not True and value is not False:
        raise OperandTypeError(f"{name}={describe(value)} is not a bool; expected True or False")


@dataclass(frozen=True)
class DotSpec:
    """The fixed parameters of one instruction's dot step.

    >>> s = DotSpec(16, 8, 2, True, False)          # dp2a-like: 16-bit lanes x 8-bit lanes
    >>> s.a_bits, s.b_bits, s.result_range, s.result_dtype.__name__
    (32, 16, (-2147483648, 2147483647), 'int32')
    >>> DotSpec(16, 16, 4, True, True, acc_bits=64).result_dtype.__name__   # SVE sdot z.d, z.h, z.h
    'int64'
    >>> DotSpec.packed32(4, False, False, acc_signed=False).lanes
    8
    >>> hi = DotSpec(16, 8, 2, True, False, b_first=2, b_word=32)   # PTX dp2a.hi.s32.u32
    >>> hi.b_bits, hi.plain.b_bits, hi.selects
    (32, 16, True)
    >>> DotSpec(8, 8, 4, False, True, pair_sat=16).pair_sat          # vpmaddubsw + vpmaddwd
    16
    """

    a_width: int  # lane width of operand a in bits: 4, 8 or 16
    b_width: int  # lane width of operand b (may differ from a's)
    lanes: int  # products summed per step
    a_signed: bool
    b_signed: bool
    acc_bits: int = 32  # accumulator and result width: 16, 32 or 64
    acc_signed: bool = True
    a_first: int = 0  # the first lane of operand a that is read
    b_first: int = 0
    a_word: int | None = None  # bits of operand a's word; default: just the lanes read (first + lanes)
    b_word: int | None = None
    pair_sat: int | None = None  # sums of adjacent product pairs saturate to this many signed bits first

    def __post_init__(self):
        widths = f"a lane width in bits, one of {WIDTHS}"
        _check_field("a_width", self.a_width, WIDTHS, widths)
        _check_field("b_width", self.b_width, WIDTHS, widths)
        _check_field("lanes", self.lanes, None, "a positive number of lanes")
        _check_field("acc_bits", self.acc_bits, ACC_BITS, f"an accumulator width in bits, one of {ACC_BITS}")
        for name in ("a_signed", "b_signed", "acc_signed"):
            _check_bool(name, getattr(self, name))
        # NumPy integer scalars would make hashing and equality of specs depend on how they were spelled.
        for name in ("a_width", "b_width", "lanes", "acc_bits"):
            object.__setattr__(self, name, int(getattr(self, name)))
        longest = max(self.a_width, self.b_width)
        if not 1 <= self.lanes <= MAX_OPERAND_BITS // longest:
            raise OperandError(
                f"lanes={describe(self.lanes)} is not allowed with {longest}-bit lanes; expected 1 to "
                f"{MAX_OPERAND_BITS // longest}, so that each operand fits in {MAX_OPERAND_BITS} bits"
            )
        for op in ("a", "b"):
            width, first = getattr(self, f"{op}_width"), getattr(self, f"{op}_first")
            _check_field(f"{op}_first", first, None, "a lane index >= 0")
            need = (int(first) + self.lanes) * width
            word = getattr(self, f"{op}_word")
            if word is None:
                word = need
            _check_field(f"{op}_word", word, None, f"a word size in bits, {need} to {MAX_OPERAND_BITS}")
            if first < 0 or not need <= word <= MAX_OPERAND_BITS:
                raise OperandError(
                    f"{op}_first={first}, {op}_word={word}: lanes {first}..{first + self.lanes - 1} of "
                    f"{width} bits must lie in a word of at most {MAX_OPERAND_BITS} bits; expected "
                    f"{op}_first >= 0 and {op}_word from {need} to {MAX_OPERAND_BITS}"
                )
            object.__setattr__(self, f"{op}_first", int(first))
            object.__setattr__(self, f"{op}_word", int(word))
        if self.pair_sat not in PAIR_SAT or isinstance(self.pair_sat, bool):
            raise OperandError(f"pair_sat={describe(self.pair_sat)} is not allowed; expected one of {PAIR_SAT}")
        if self.pair_sat is not None and self.lanes % 2:
            raise OperandError(f"pair_sat={self.pair_sat} needs an even number of lanes; got lanes={self.lanes}")

    @classmethod
    def packed32(cls, width: int, a_signed: bool, b_signed: bool, acc_signed: bool = True) -> DotSpec:
        """Both operands one 32-bit word of ``32 // width`` lanes, into a 32-bit accumulator."""
        _check_field("width", width, WIDTHS, f"a lane width in bits, one of {WIDTHS}")
        return cls(width, width, 32 // width, a_signed, b_signed, 32, acc_signed)

    @property
    def a_bits(self) -> int:
        """Bits of operand a's word (the lanes read, unless a lane selector widens it)."""
        return self.a_word

    @property
    def b_bits(self) -> int:
        return self.b_word

    @property
    def selects(self) -> bool:
        """Whether an operand's word holds more than the lanes read (see :attr:`plain`)."""
        return self.a_word != self.a_width * self.lanes or self.b_word != self.b_width * self.lanes

    @property
    def plain(self) -> DotSpec:
        """The same step on words that hold just the lanes read: the selector applied, the rest dropped."""
        if not self.selects:
            return self
        return replace(self, a_first=0, b_first=0, a_word=None, b_word=None)

    def exchanged(self) -> DotSpec:
        """The same step with the two operands' roles exchanged (a's lanes, selector and word become b's)."""
        return replace(
            self,
            a_width=self.b_width,
            b_width=self.a_width,
            a_signed=self.b_signed,
            b_signed=self.a_signed,
            a_first=self.b_first,
            b_first=self.a_first,
            a_word=self.b_word,
            b_word=self.a_word,
        )

    def select(self, which: str, word):
        """The lanes operand ``which`` ("a" or "b") reads, moved to the bottom of the word (int or array)."""
        first, width = getattr(self, f"{which}_first"), getattr(self, f"{which}_width")
        shift, mask = first * width, (1 << (width * self.lanes)) - 1
        if isinstance(word, int):
            return (word >> shift) & mask
        dtype = word.dtype.type
        return (word >> dtype(shift)) & dtype(mask)

    @property
    def result_range(self) -> tuple[int, int]:
        """The accumulator type's range, which ``clamp`` saturates to."""
        if self.acc_signed:
            return -(1 << (self.acc_bits - 1)), (1 << (self.acc_bits - 1)) - 1
        return 0, (1 << self.acc_bits) - 1

    @property
    def result_dtype(self) -> type:
        """int32, uint32, int64 or uint64."""
        return _RESULT_DTYPES[self.acc_bits, self.acc_signed]

    @property
    def a_dtype(self) -> type:
        """The unsigned word dtype that holds packed operand a: uint32 up to 32 bits, else uint64."""
        return np.uint32 if self.a_bits <= 32 else np.uint64

    @property
    def b_dtype(self) -> type:
        return np.uint32 if self.b_bits <= 32 else np.uint64

    @property
    def acc_dtype(self) -> type:
        """The unsigned word dtype that holds the accumulator's bits (:attr:`result_dtype` is how they read):
        uint32 up to 32 bits, else uint64."""
        return np.uint32 if self.acc_bits <= 32 else np.uint64


_RESULT_DTYPES = {
    (16, True): np.int16,
    (16, False): np.uint16,
    (32, True): np.int32,
    (32, False): np.uint32,
    (64, True): np.int64,
    (64, False): np.uint64,
}
