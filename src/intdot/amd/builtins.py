"""The table of AMD GPU integer dot builtins: one row per builtin.

Everything else in :mod:`intdot.amd` (the Python functions, availability,
``intdot table``, ``intdot eval``) reads these rows.  Columns:

========  ======================================================================
name      the builtin without its ``__builtin_amdgcn_`` prefix
width     lane width in bits (4, 8 or 16)
src0      lane signedness of ``src0``: ``s``, ``u``, or ``flag`` (chosen by ``src0_neg``)
src1      the same for ``src1``
result    C result (and accumulator) type: ``int`` or ``unsigned int``
layout    argument layout: ``plain`` (src0, src1, src2, last),
          ``short2`` (as plain, src0/src1 are 2 x 16-bit vectors),
          ``sudot`` (src0_neg, src0, src1_neg, src1, src2, last)
families  where the reference's table says it exists
feature   the clang target feature that gates it (llvm profile)
========  ======================================================================
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from ..core import DotSpec
from ..core.errors import OperandTypeError, UnknownInstruction
from ..core.values import check_flag, describe
from .targets import FAMILIES, FEATURES, check_profile

PREFIX = "__builtin_amdgcn_"
LAYOUTS = ("plain", "short2", "sudot")

_ALL = FAMILIES
_CDNA = ("CDNA", "CDNA2", "CDNA3", "CDNA4")
_RDNA = ("RDNA2", "RDNA3", "RDNA3.5", "RDNA4")


@dataclass(frozen=True)
class Builtin:
    """One row of the table (see the module docstring for the columns)."""

    name: str
    width: int
    src0: str
    src1: str
    result: str
    layout: str
    families: tuple[str, ...]
    feature: str
    summary: str

    def __post_init__(self):
        # Validate each row as it loads, so a typo in the table fails at import, not in a user's call.
        checks = [
            (self.width in (4, 8, 16), "width is 4, 8 or 16"),
            (self.src0 in ("s", "u", "flag") and self.src1 in ("s", "u", "flag"), "signedness is s, u or flag"),
            (self.result in ("int", "unsigned int"), "result is int or unsigned int"),
            (self.layout in LAYOUTS, f"layout is one of {LAYOUTS}"),
            ((self.layout == "short2") == (self.width == 16), "short2 layout iff 16-bit lanes"),
            ((self.layout == "sudot") == (self.src0 == "flag") == (self.src1 == "flag"), "sudot layout iff flags"),
            (set(self.families) <= set(FAMILIES), "families are known"),
            (self.feature in FEATURES, "the feature is known"),
            ((self.result == "unsigned int") == (self.src0 == self.src1 == "u"), "unsigned result iff u x u"),
        ]
        for ok, rule in checks:
            if not ok:
                raise ValueError(f"bad builtin row {self!r}: expected {rule}")

    @property
    def full_name(self) -> str:
        return PREFIX + self.name

    @property
    def lanes(self) -> int:
        return 32 // self.width

    @property
    def result_signed(self) -> bool:
        return self.result == "int"

    @property
    def operand_type(self) -> str:
        """The C type of src0/src1."""
        if self.layout == "short2":
            return "short2" if self.src0 == "s" else "ushort2"
        return self.result

    def params(self, profile: str) -> tuple[str, ...]:
        """Parameter names in C order, for ``profile`` ("reference": neg, "llvm": clamp)."""
        last = "neg" if check_profile(profile) == "reference" else "clamp"
        if self.layout == "sudot":
            return ("src0_neg", "src0", "src1_neg", "src1", "src2", last)
        return ("src0", "src1", "src2", last)

    def c_signature(self, profile: str = "reference") -> str:
        types = {
            "src0_neg": "bool",
            "src1_neg": "bool",
            "src2": self.result,
            "neg": "bool",
            "clamp": "bool",
            "src0": self.operand_type,
            "src1": self.operand_type,
        }
        args = ", ".join(f"{types[p]} {p}" for p in self.params(profile))
        return f"{self.result} {self.full_name}({args})"

    def spec(self, src0_signed: bool | None = None, src1_signed: bool | None = None) -> DotSpec:
        """The core's parameters; for ``sudot`` rows the two signedness flags are needed."""
        src0_signed, src1_signed = (
            None if v is None else check_flag(v, name)
            for v, name in ((src0_signed, "src0_signed"), (src1_signed, "src1_signed"))
        )
        a = self.src0 == "s" if self.src0 != "flag" else src0_signed
        b = self.src1 == "s" if self.src1 != "flag" else src1_signed
        if a is None or b is None:
            raise OperandTypeError(
                f"src0_signed={describe(src0_signed)}, src1_signed={describe(src1_signed)}: {self.name} reads "
                f"its operands' signedness from flags; expected True or False for each"
            )
        return DotSpec.packed32(self.width, a, b, self.result_signed)


def _row(name, width, src0, src1, result, layout, families, feature, summary):
    return Builtin(name, width, src0, src1, result, layout, tuple(families), feature, summary)


# In the order of the reference document.
# fmt: off
BUILTINS: tuple[Builtin, ...] = (
    _row("udot4", 8, "u", "u", "unsigned int", "plain", _ALL, "dot7-insts",
         "Dot product of four unsigned byte pairs, accumulated into a 32-bit unsigned integer."),
    _row("udot8", 4, "u", "u", "unsigned int", "plain", _ALL, "dot7-insts",
         "Dot product of eight unsigned nibble (4-bit) pairs, accumulated into a 32-bit unsigned integer."),
    _row("sdot4", 8, "s", "s", "int", "plain", _CDNA, "dot1-insts",
         "Dot product of four signed byte pairs, accumulated into a 32-bit signed integer."),
    _row("sdot8", 4, "s", "s", "int", "plain", _CDNA, "dot1-insts",
         "Dot product of eight signed nibble (4-bit) pairs, accumulated into a 32-bit signed integer."),
    _row("sdot2", 16, "s", "s", "int", "short2", _CDNA, "dot2-insts",
         "Dot product of two signed 16-bit pairs, accumulated into a 32-bit signed integer."),
    _row("udot2", 16, "u", "u", "unsigned int", "short2", _CDNA, "dot2-insts",
         "Dot product of two unsigned 16-bit pairs, accumulated into a 32-bit unsigned integer."),
    _row("sudot4", 8, "flag", "flag", "int", "sudot", _RDNA, "dot8-insts",
         "Dot product of four byte pairs, each operand signed or unsigned as its flag says, "
         "accumulated into a 32-bit signed integer."),
    _row("sudot8", 4, "flag", "flag", "int", "sudot", _RDNA, "dot8-insts",
         "Dot product of eight nibble pairs, each operand signed or unsigned as its flag says, "
         "accumulated into a 32-bit signed integer."),
)
# fmt: on

BY_NAME: dict[str, Builtin] = {r.name: r for r in BUILTINS}
if len(BY_NAME) != len(BUILTINS):
    raise ValueError("two builtin rows share a name")


def lookup(name) -> Builtin:
    """The row for ``sdot4`` or ``__builtin_amdgcn_sdot4``; else :class:`~intdot.errors.UnknownInstruction`."""
    if isinstance(name, Builtin):
        return name
    if isinstance(name, str):
        short = name.strip()
        if short.startswith(PREFIX):
            short = short[len(PREFIX) :]
        row = BY_NAME.get(short)
        if row is not None:
            return row
    close = []
    if isinstance(name, str):
        short = name.strip().lower().removeprefix(PREFIX)
        close = difflib.get_close_matches(short, BY_NAME, n=2, cutoff=0.75) if len(short) <= 100 else []
    hint = f" (did you mean {' or '.join(close)}?)" if close else ""
    raise UnknownInstruction(
        f"builtin={describe(name)} is not an AMD dot builtin{hint}; expected one of {', '.join(BY_NAME)} "
        f"(optionally spelled with the {PREFIX} prefix)"
    )
