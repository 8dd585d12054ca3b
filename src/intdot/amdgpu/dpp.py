"""The DPP (data-parallel primitive) controls of the VOP2 dots, as llvm-mc 19 prints and reads them.

DPP16 (gfx9, gfx10): a 9-bit ``dpp_ctrl`` says which lane each lane reads ``src0`` from; ``row_mask`` and
``bank_mask`` choose the rows and banks written; ``bound_ctrl:1`` reads 0 where the source lane is out of
range; gfx10 adds ``fi:1`` (fetch inactive lanes).  DPP8 (gfx10): ``dpp8:[s0,...,s7]``, lane ``8g+i``
reads lane ``8g+s_i``.

>>> ctrl_text(0x1B, "gfx908"), ctrl_text(0x142, "gfx908"), ctrl_text(0x151, "gfx1030")
('quad_perm:[3,2,1,0]', 'row_bcast:15', 'row_share:1')
>>> parse_ctrl("row_shr:3", "gfx1030")
275
"""

from __future__ import annotations

import re

from ..core.errors import AsmSyntaxError
from .targets import GENERATION

_GFX90A_UP = frozenset({"gfx90a", "gfx940", "gfx941", "gfx942", "gfx950"})
_WAVE = {0x130: "wave_shl:1", 0x134: "wave_rol:1", 0x138: "wave_shr:1", 0x13C: "wave_ror:1"}
_INVALID = "/* Invalid dpp_ctrl value */"


def ctrl_text(ctrl: int, mcpu: str) -> str:
    """The text of ``dpp_ctrl`` on ``mcpu`` (llvm-mc's comment where the value means nothing there)."""
    gfx10 = GENERATION[mcpu] != "gfx9"
    if ctrl <= 0xFF:
        return f"quad_perm:[{','.join(str(ctrl >> (2 * i) & 3) for i in range(4))}]"
    low = ctrl & 0xF
    for base, name in ((0x100, "row_shl"), (0x110, "row_shr"), (0x120, "row_ror")):
        if ctrl & ~0xF == base:
            return f"{name}:{low}" if low else _INVALID
    if ctrl in _WAVE:
        return f"/* {_WAVE[ctrl][:-2]} is not supported starting from GFX10 */" if gfx10 else _WAVE[ctrl]
    if ctrl == 0x140:
        return "row_mirror"
    if ctrl == 0x141:
        return "row_half_mirror"
    if ctrl in (0x142, 0x143):
        return (
            "/* row_bcast is not supported starting from GFX10 */"
            if gfx10
            else f"row_bcast:{15 if ctrl == 0x142 else 31}"
        )
    if ctrl & ~0xF == 0x150:
        if gfx10:
            return f"row_share:{low}"
        if mcpu in _GFX90A_UP:
            return f"row_newbcast:{low}"
        return "/* row_newbcast/row_share is not supported on ASICs earlier than GFX90A/GFX10 */"
    if ctrl & ~0xF == 0x160:
        return f"row_xmask:{low}" if gfx10 else "/* row_xmask is not supported on ASICs earlier than GFX10 */"
    return _INVALID


def valid(ctrl: int, mcpu: str) -> bool:
    """Whether ``dpp_ctrl`` means a lane pattern on ``mcpu``."""
    return not ctrl_text(ctrl, mcpu).startswith("/*")


_CTRL = re.compile(
    r"^(quad_perm):\[(\d),(\d),(\d),(\d)\]$|^(row_shl|row_shr|row_ror|row_share|row_xmask|row_newbcast|row_bcast"
    r"|wave_shl|wave_rol|wave_shr|wave_ror):(\d+)$|^(row_mirror|row_half_mirror)$"
)


def parse_ctrl(token: str, mcpu: str) -> int:
    """``dpp_ctrl`` of one control written as llvm-mc reads it, or AsmSyntaxError."""
    m = _CTRL.match(token.replace(" ", ""))
    value = None
    if m and m.group(1):
        lanes = [int(m.group(k)) for k in range(2, 6)]
        if max(lanes) <= 3:
            value = sum(v << (2 * i) for i, v in enumerate(lanes))
    elif m and m.group(6):
        name, n = m.group(6), int(m.group(7))
        shifts = {"row_shl": 0x100, "row_shr": 0x110, "row_ror": 0x120}
        lanes = {"row_share": 0x150, "row_newbcast": 0x150, "row_xmask": 0x160}
        if name in shifts and 1 <= n <= 15:
            value = shifts[name] + n
        elif name in lanes and 0 <= n <= 15:
            value = lanes[name] + n
        elif name == "row_bcast" and n in (15, 31):
            value = 0x142 if n == 15 else 0x143
        elif name.startswith("wave_") and n == 1:
            value = {v: k for k, v in _WAVE.items()}[f"{name}:1"]
        if value is not None and ctrl_text(value, mcpu) != f"{name}:{n}":
            value = None  # e.g. row_share on gfx9, row_bcast on gfx10
    elif m:
        value = 0x140 if m.group(8) == "row_mirror" else 0x141
    if value is None or not valid(value, mcpu):
        raise AsmSyntaxError(f"{token!r} is not a DPP control of {mcpu}")
    return value


def dpp8_text(sels: int) -> str:
    return f"dpp8:[{','.join(str(sels >> (3 * i) & 7) for i in range(8))}]"


__all__ = ["ctrl_text", "dpp8_text", "parse_ctrl", "valid"]
