"""What one integer dot step is: :class:`DotSpec`.

A spec fixes everything about an instruction's dot product except the
accumulation rule's two switches (``neg``, ``clamp``), which are arguments of
the call because some instructions take them at run time.  Each operand has
its own lane width and signedness (dp2a multiplies 16-bit lanes by 8-bit
ones), ``lanes`` products are summed per step, and the accumulator is 32 or 64
bits wide, signed or unsigned.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import OperandError, OperandTypeError
from .values import describe, is_int_scalar

WIDTHS = (4, 8, 16)
ACC_BITS = (32, 64)
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
    """

    a_width: int  # lane width of operand a in bits: 4, 8 or 16
    b_width: int  # lane width of operand b (may differ from a's)
    lanes: int  # products summed per step
    a_signed: bool
    b_signed: bool
    acc_bits: int = 32  # accumulator and result width: 32 or 64
    acc_signed: bool = True

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
                f"lanes={self.lanes} is not allowed with {longest}-bit lanes; expected 1 to "
                f"{MAX_OPERAND_BITS // longest}, so that each operand fits in {MAX_OPERAND_BITS} bits"
            )

    @classmethod
    def packed32(cls, width: int, a_signed: bool, b_signed: bool, acc_signed: bool = True) -> DotSpec:
        """Both operands one 32-bit word of ``32 // width`` lanes, into a 32-bit accumulator."""
        _check_field("width", width, WIDTHS, f"a lane width in bits, one of {WIDTHS}")
        return cls(width, width, 32 // width, a_signed, b_signed, 32, acc_signed)

    @property
    def a_bits(self) -> int:
        """Bits of the packed operand a."""
        return self.a_width * self.lanes

    @property
    def b_bits(self) -> int:
        return self.b_width * self.lanes

    @property
    def result_range(self) -> tuple[int, int]:
        """The accumulator type's range, which ``clamp`` saturates to."""
        if self.acc_signed:
            return -(1 << (self.acc_bits - 1)), (1 << (self.acc_bits - 1)) - 1
        return 0, (1 << self.acc_bits) - 1

    @property
    def result_dtype(self) -> type:
        """int32, uint32, int64 or uint64."""
        return {(32, True): np.int32, (32, False): np.uint32, (64, True): np.int64, (64, False): np.uint64}[
            self.acc_bits, self.acc_signed
        ]

    @property
    def a_dtype(self) -> type:
        """The unsigned word dtype that holds packed operand a: uint32 up to 32 bits, else uint64."""
        return np.uint32 if self.a_bits <= 32 else np.uint64

    @property
    def b_dtype(self) -> type:
        return np.uint32 if self.b_bits <= 32 else np.uint64

    @property
    def acc_dtype(self) -> type:
        """The unsigned word dtype of the accumulator (its bits; :attr:`result_dtype` is how they read)."""
        return np.uint32 if self.acc_bits == 32 else np.uint64
