"""The AMD GPU integer dot instructions: one row each.

Columns: the mnemonic as LLVM spells it; the encoding kind (``vop3p``: ``D = S0 . S1 + S2``;
``vop2``: the accumulator is the destination, ``D = S0 . S1 + D``); lane width; lane signedness
of ``src0``/``src1`` (``s``, ``u``, or ``neg`` where ``neg_lo`` chooses it per source); the
result's signedness; the LLVM target feature that gates it; its opcode per generation (a
generation it is not in has no key); and what it computes.

>>> ROWS["v_dot4_i32_iu8"].opcodes, ROWS["v_dot4c_i32_i8"].feature
({'gfx11': 22, 'gfx12': 22}, 'dot6-insts')
>>> ROWS["v_dot2_u32_u16"].spec().lanes
2
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.spec import DotSpec

KINDS = ("vop3p", "vop2")


@dataclass(frozen=True)
class Row:
    mnemonic: str
    kind: str
    width: int
    src0: str
    src1: str
    result_signed: bool
    feature: str
    opcodes: dict
    summary: str

    def __post_init__(self):
        checks = [
            (self.kind in KINDS, f"kind is one of {KINDS}"),
            (self.width in (4, 8, 16), "width is 4, 8 or 16"),
            (self.src0 in ("s", "u", "neg") and self.src1 in ("s", "u", "neg"), "signedness is s, u or neg"),
            (set(self.opcodes) <= {"gfx9", "gfx10", "gfx11", "gfx12"} and self.opcodes, "opcodes by generation"),
            (self.result_signed == (self.src0 != "u"), "a signed result iff the sources may be signed"),
        ]
        for ok, rule in checks:
            if not ok:
                raise ValueError(f"bad instruction row {self.mnemonic}: expected {rule}")

    @property
    def lanes(self) -> int:
        return 32 // self.width

    @property
    def sign_args(self) -> bool:
        """Whether ``neg_lo`` chooses the sources' signedness (``v_dot4_i32_iu8``)."""
        return self.src0 == "neg"

    @property
    def operands(self) -> int:
        """Source operands written in the assembly: 3 for VOP3P, 2 for VOP2."""
        return 3 if self.kind == "vop3p" else 2

    def spec(self, src0_signed: bool | None = None, src1_signed: bool | None = None) -> DotSpec:
        """The core's step; a ``neg`` row needs each source's signedness."""
        a = self.src0 == "s" if not self.sign_args else src0_signed
        b = self.src1 == "s" if not self.sign_args else src1_signed
        if not isinstance(a, bool) or not isinstance(b, bool):
            raise ValueError(f"{self.mnemonic} takes its sources' signedness from neg_lo; pass both")
        return DotSpec.packed32(self.width, a, b, self.result_signed)


def _r(mnemonic, kind, width, s0, s1, signed, feature, summary, **opcodes):
    return Row(mnemonic, kind, width, s0, s1, signed, feature, opcodes, summary)


# fmt: off
INSTRUCTIONS: tuple[Row, ...] = (
    _r("v_dot2_i32_i16", "vop3p", 16, "s", "s", True, "dot2-insts",
       "D = S0.i16[0]*S1.i16[0] + S0.i16[1]*S1.i16[1] + S2", gfx9=0x26, gfx10=0x14),
    _r("v_dot2_u32_u16", "vop3p", 16, "u", "u", False, "dot2-insts",
       "D = S0.u16[0]*S1.u16[0] + S0.u16[1]*S1.u16[1] + S2", gfx9=0x27, gfx10=0x15),
    _r("v_dot4_i32_i8", "vop3p", 8, "s", "s", True, "dot1-insts",
       "D = sum of 4 signed byte products + S2", gfx9=0x28, gfx10=0x16),
    _r("v_dot4_u32_u8", "vop3p", 8, "u", "u", False, "dot7-insts",
       "D = sum of 4 unsigned byte products + S2", gfx9=0x29, gfx10=0x17, gfx11=0x17, gfx12=0x17),
    _r("v_dot8_i32_i4", "vop3p", 4, "s", "s", True, "dot1-insts",
       "D = sum of 8 signed nibble products + S2", gfx9=0x2A, gfx10=0x18),
    _r("v_dot8_u32_u4", "vop3p", 4, "u", "u", False, "dot7-insts",
       "D = sum of 8 unsigned nibble products + S2", gfx9=0x2B, gfx10=0x19, gfx11=0x19, gfx12=0x19),
    _r("v_dot4_i32_iu8", "vop3p", 8, "neg", "neg", True, "dot8-insts",
       "D = sum of 4 byte products + S2; neg_lo[i] = 1 makes source i signed", gfx11=0x16, gfx12=0x16),
    _r("v_dot8_i32_iu4", "vop3p", 4, "neg", "neg", True, "dot8-insts",
       "D = sum of 8 nibble products + S2; neg_lo[i] = 1 makes source i signed", gfx11=0x18, gfx12=0x18),
    _r("v_dot2c_i32_i16", "vop2", 16, "s", "s", True, "dot4-insts",
       "D = S0.i16[0]*S1.i16[0] + S0.i16[1]*S1.i16[1] + D", gfx9=0x38),
    _r("v_dot4c_i32_i8", "vop2", 8, "s", "s", True, "dot6-insts",
       "D = sum of 4 signed byte products + D", gfx9=0x39, gfx10=0x0D),
    _r("v_dot8c_i32_i4", "vop2", 4, "s", "s", True, "dot3-insts",
       "D = sum of 8 signed nibble products + D", gfx9=0x3A),
)
# fmt: on

ROWS: dict[str, Row] = {r.mnemonic: r for r in INSTRUCTIONS}

__all__ = ["INSTRUCTIONS", "KINDS", "ROWS", "Row"]
