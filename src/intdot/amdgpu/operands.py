"""Operands as LLVM writes them: the 9-bit source field, VGPRs, inline constants and literals.

A source field holds an SGPR or special register (0-127), an inline constant (128-208 the
integers 0..64 and -1..-16; 240-248 the floats 0.5 .. 1/(2*pi), read as their 32-bit patterns),
a special source (235-239, 251-254), a VGPR (256-511), or 255: a 32-bit literal that follows the
instruction (where the encoding allows one).  Which names the fields 102-105 and 124-125 have
depends on the generation.

>>> name(124, "gfx11"), name(124, "gfx10"), name(200, "gfx9"), name(242, "gfx12"), name(300, "gfx9")
('null', 'm0', '-8', '1.0', 'v44')
>>> register_value("v3", "gfx9"), register_value("null", "gfx11"), inline_of(0x3F800000), inline_of(0x41)
(259, 124, 242, None)
"""

from __future__ import annotations

import re

from ..core.errors import AsmSyntaxError, quote
from ..core.values import small_decimal

LITERAL = 255
INLINE_FLOATS = {
    240: ("0.5", 0x3F000000),
    241: ("-0.5", 0xBF000000),
    242: ("1.0", 0x3F800000),
    243: ("-1.0", 0xBF800000),
    244: ("2.0", 0x40000000),
    245: ("-2.0", 0xC0000000),
    246: ("4.0", 0x40800000),
    247: ("-4.0", 0xC0800000),
    248: ("0.15915494", 0x3E22F983),
}
SPECIAL = {
    106: "vcc_lo",
    107: "vcc_hi",
    126: "exec_lo",
    127: "exec_hi",
    235: "src_shared_base",
    236: "src_shared_limit",
    237: "src_private_base",
    238: "src_private_limit",
    239: "src_pops_exiting_wave_id",
    251: "src_vccz",
    252: "src_execz",
    253: "src_scc",
    254: "src_lds_direct",
}
_GFX9_HIGH = {102: "flat_scratch_lo", 103: "flat_scratch_hi", 104: "xnack_mask_lo", 105: "xnack_mask_hi"}


def _m0_null(generation: str) -> dict[int, str]:
    return {124: "null", 125: "m0"} if generation in ("gfx11", "gfx12") else {124: "m0", 125: "null"}


def name(value: int, generation: str) -> str | None:
    """The text of source value ``value`` (not 255), or None where no operand has that value."""
    if value >= 256:
        return f"v{value - 256}"
    if value < 102 or (value < 106 and generation != "gfx9"):
        return f"s{value}"
    if value < 106:
        return _GFX9_HIGH[value]
    if 108 <= value <= 123:
        return f"ttmp{value - 108}"
    if value in (124, 125):
        return _m0_null(generation)[value]
    if 128 <= value <= 192:
        return str(value - 128)
    if 193 <= value <= 208:
        return str(192 - value)
    if value in INLINE_FLOATS:
        return INLINE_FLOATS[value][0]
    return SPECIAL.get(value)


def inline_bits(value: int) -> int:
    """The 32-bit value an inline constant reads."""
    if 128 <= value <= 192:
        return value - 128
    if 193 <= value <= 208:
        return (192 - value) & 0xFFFFFFFF
    return INLINE_FLOATS[value][1]


def inline_of(bits: int) -> int | None:
    """The inline constant whose 32-bit value is ``bits``, or None (llvm-mc prints such a literal as it)."""
    n = bits - (1 << 32) if bits >= 1 << 31 else bits
    if -16 <= n <= 64:
        return 128 + n if n >= 0 else 192 - n
    return _BY_FLOAT_BITS.get(bits)


def is_inline(value: int) -> bool:
    return 128 <= value <= 208 or value in INLINE_FLOATS


def is_scalar(value: int) -> bool:
    """Whether a source reads a scalar register (counts against the constant bus)."""
    return value < 128 or value in (235, 236, 237, 238, 239, 251, 252, 253)


_BY_FLOAT_BITS = {bits: v for v, (_, bits) in INLINE_FLOATS.items()}
_SGPRS = {"gfx9": 102, "gfx10": 106, "gfx11": 106, "gfx12": 106}


def register_value(reg: str, generation: str) -> int:
    """The source value of a register by its canonical name (``v1``, ``s7``, ``ttmp3``, ``vcc_lo``, ``m0``...).

    Numbers and floats are read by :mod:`intdot.amdgpu.syntax` and placed by :func:`inline_of`; this
    knows only which registers ``generation`` has.  Raises :class:`~intdot.errors.AsmSyntaxError` for
    a name that is no register there.
    """
    m = re.fullmatch(r"(v|s|ttmp)([0-9]+)", reg)
    if m:
        base, limit = {"v": (256, 256), "s": (0, _SGPRS[generation]), "ttmp": (108, 16)}[m.group(1)]
        n = small_decimal(m.group(2))
        if n < limit:
            return base + n
    else:
        names = {**SPECIAL, **_m0_null(generation), **(_GFX9_HIGH if generation == "gfx9" else {})}
        for v, n in names.items():
            if n == reg and not (n == "null" and generation == "gfx9"):
                return v
    raise AsmSyntaxError(f"{quote(reg)} is not a register of {generation}")


__all__ = [
    "INLINE_FLOATS",
    "LITERAL",
    "SPECIAL",
    "inline_bits",
    "inline_of",
    "is_inline",
    "is_scalar",
    "name",
    "register_value",
]
