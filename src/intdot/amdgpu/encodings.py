"""The encodings of the AMD GPU integer dot instructions, as families and one row per instruction.

The families are :class:`intdot.isa.encoding.Format` s without an operand grammar (fields are read and
written by name; a slice no field names is a field of its own, ``OpSel`` -> ``op_sel``); each row is an
:class:`intdot.isa.encoding.Row` whose ``data`` holds its generation and mnemonic.

Bit templates run from the highest bit down to bit 0; a 64-bit word is the first dword in bits
31..0 and the second in bits 63..32 (the bytes are little-endian, as in memory).  A field whose
name starts with ``X`` is one llvm-mc 19 decodes and keeps but neither prints nor lets the assembler
set (the source ``abs``/``neg`` bits of the gfx9 VOP3 and DPP forms); one starting with ``Z`` it decodes
and drops (``op_sel`` of the gfx9 VOP3 form, DPP's reserved bit and gfx9's ``fi`` bit).  intdot decodes
the same words and prints the same text; assembling that text gives both kinds as 0.

>>> row = ROWS["gfx10", "v_dot4_i32_i8"]
>>> row.layout.family, hex(row.layout.match)
('vop3p_gfx10', '0xcc160000')
>>> [r.name for r in rows_for("gfx9") if r.name.startswith("gfx9.v_dot8c")]
['gfx9.v_dot8c_i32_i4_e32', 'gfx9.v_dot8c_i32_i4_e64', 'gfx9.v_dot8c_i32_i4_dpp']
"""

from __future__ import annotations

from ..isa.encoding import Format, Row, check_layout, check_overlaps
from .instructions import INSTRUCTIONS
from .targets import GENERATIONS

_VOP3P_FIELDS = {"op_sel_hi": "OpSelHi2:OpSelHi"}


def _fam(name: str, width: int, bits: str, fields: dict | None = None) -> Format:
    # "|" marks the dword boundary in the templates below (the second dword is the high half)
    return Format(name, bits, fields or {}, "", word_bits=width, auto_fields=True)


# fmt: off
_VOP3P_HIGH = "NegLo:3 OpSelHi:2 Src2:9 Src1:9 Src0:9"
_VOP3P_LOW = "$op:7 Clamp:1 OpSelHi2:1 OpSel:3 NegHi:3 Vdst:8"
VOP3P_GFX9 = _fam("vop3p_gfx9", 64, f"{_VOP3P_HIGH} | 110100111 {_VOP3P_LOW}", _VOP3P_FIELDS)
VOP3P_GFX10 = _fam("vop3p_gfx10", 64, f"{_VOP3P_HIGH} | 110011000 {_VOP3P_LOW}", _VOP3P_FIELDS)
VOP2 = _fam("vop2", 32, "0 $op:6 Vdst:8 Vsrc1:8 Src0:9")
VOP3_GFX9 = _fam("vop3_gfx9", 64,
              "0 XNeg:2 00 000000000 Src1:9 Src0:9 | 110100 $op:10 Clamp:1 ZOpSel:4 0 XAbs:2 Vdst:8")
_DPP_HIGH = "RowMask:4 BankMask:4 XSrc1Abs:1 XSrc1Neg:1 XSrc0Abs:1 XSrc0Neg:1 BoundCtrl:1"
DPP16_GFX9 = _fam("dpp16_gfx9", 64, f"{_DPP_HIGH} ZFi:1 ZRes:1 DppCtrl:9 Vsrc0:8 | 0 $op:6 Vdst:8 Vsrc1:8 011111010")
DPP16_GFX10 = _fam("dpp16_gfx10", 64, f"{_DPP_HIGH} Fi:1 ZRes:1 DppCtrl:9 Vsrc0:8 | 0 $op:6 Vdst:8 Vsrc1:8 011111010")
DPP8_GFX10 = _fam("dpp8_gfx10", 64, "Sels:24 Vsrc0:8 | 0 $op:6 Vdst:8 Vsrc1:8 $src0:9")
# fmt: on

# The syntax of each kind of row: operand kinds in order, then the modifiers it prints.
SYNTAX = {
    "vop3p_gfx9": ("vdst", "src0", "src1", "src2"),
    "vop3p_gfx10": ("vdst", "src0", "src1", "src2"),
    "vop2": ("vdst", "src0", "vsrc1"),
    "vop3_gfx9": ("vdst", "src0", "src1"),
    "dpp16_gfx9": ("vdst", "vsrc0", "vsrc1"),
    "dpp16_gfx10": ("vdst", "vsrc0", "vsrc1"),
    "dpp8_gfx10": ("vdst", "vsrc0", "vsrc1"),
}


def _row(fam: Format, name: str, generation: str, mnemonic: str, **params) -> Row:
    layout = fam.layout(name, fam.values(name, params))
    return Row(name, layout, {"generation": generation, "mnemonic": mnemonic})


def _rows() -> tuple[Row, ...]:
    out = []
    for g in GENERATIONS:
        for ins in INSTRUCTIONS:
            op = ins.opcodes.get(g)
            if op is None:
                continue
            if ins.kind == "vop3p":
                fam = VOP3P_GFX9 if g == "gfx9" else VOP3P_GFX10
                out.append(_row(fam, f"{g}.{ins.mnemonic}", g, ins.mnemonic, op=op))
            else:
                out.append(_row(VOP2, f"{g}.{ins.mnemonic}_e32", g, ins.mnemonic, op=op))
                if g == "gfx9":  # the VOP3 (e64) form of a VOP2 opcode is 0x100 above it
                    out.append(_row(VOP3_GFX9, f"{g}.{ins.mnemonic}_e64", g, ins.mnemonic, op=0x100 + op))
                    out.append(_row(DPP16_GFX9, f"{g}.{ins.mnemonic}_dpp", g, ins.mnemonic, op=op))
                else:
                    out.append(_row(DPP16_GFX10, f"{g}.{ins.mnemonic}_dpp", g, ins.mnemonic, op=op))
                    out.append(_row(DPP8_GFX10, f"{g}.{ins.mnemonic}_dpp8", g, ins.mnemonic, op=op, src0=233))
                    out.append(_row(DPP8_GFX10, f"{g}.{ins.mnemonic}_dpp8fi", g, ins.mnemonic, op=op, src0=234))
    return tuple(out)


LAYOUTS: tuple[Row, ...] = _rows()
for _g in GENERATIONS:
    check_overlaps([r for r in LAYOUTS if r.data["generation"] == _g])
for _r in LAYOUTS:
    check_layout(_r.name, _r.layout)

ROWS: dict[tuple[str, str], Row] = {}
for _r in LAYOUTS:
    _g, _m = _r.name.split(".")
    ROWS[_g, _m] = _r
    if _r.layout.family == "vop2":
        ROWS[_g, _m.removesuffix("_e32")] = _r


def rows_for(generation: str) -> tuple[Row, ...]:
    """The rows of one generation."""
    return tuple(r for r in LAYOUTS if r.data["generation"] == generation)


def mnemonic_of(row: Row) -> str:
    """The instruction's mnemonic (no ``_e32``/``_e64``/``_dpp``)."""
    return row.data["mnemonic"]


__all__ = ["DPP16_GFX9", "DPP16_GFX10", "DPP8_GFX10", "LAYOUTS", "ROWS", "SYNTAX", "VOP2", "VOP3P_GFX9", "VOP3P_GFX10",
           "VOP3_GFX9", "mnemonic_of", "rows_for"]  # fmt: skip
