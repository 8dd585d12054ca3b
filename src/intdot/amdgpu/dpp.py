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

import numpy as np

from ..core.errors import AsmSyntaxError, quote
from ..core.values import small_decimal
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
    r"^(quad_perm):\[([0-9]),([0-9]),([0-9]),([0-9])\]$|^(row_shl|row_shr|row_ror|row_share|row_xmask|row_newbcast"
    r"|row_bcast|wave_shl|wave_rol|wave_shr|wave_ror):([0-9]+)$|^(row_mirror|row_half_mirror)$"
)


def parse_ctrl(token: str, mcpu: str) -> int:
    """``dpp_ctrl`` of one control written as llvm-mc reads it, or AsmSyntaxError."""
    m = _CTRL.match(token.replace(" ", ""))
    value = None
    if m and m.group(1):
        lanes = [small_decimal(m.group(k)) for k in range(2, 6)]
        if max(lanes) <= 3:
            value = sum(v << (2 * i) for i, v in enumerate(lanes))
    elif m and m.group(6):
        name, n = m.group(6), small_decimal(m.group(7))
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
        raise AsmSyntaxError(f"{quote(token)} is not a DPP control of {mcpu}")
    return value


def dpp8_text(sels: int) -> str:
    return f"dpp8:[{','.join(str(sels >> (3 * i) & 7) for i in range(8))}]"


# ---------------------------------------------------------------- lane moves (what Wave runs)


def source_lanes(ctrl: int, wave_size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Which lane each lane reads ``src0`` from under DPP16 control ``ctrl`` (a value :func:`valid` accepts).

    Returns ``(source, in_range, defined)``: the source lane of every lane (clipped into the wave where it is
    out of range), whether that lane is in range (else ``bound_ctrl`` decides), and whether the manuals give
    the lane a source at all (``row_bcast:15`` gives none to row 0, ``row_bcast:31`` none to rows 0 and 1).
    """
    lane = np.arange(wave_size)
    row, pos, n = lane & ~15, lane & 15, ctrl & 15
    ok = np.ones(wave_size, dtype=bool)
    defined = ok
    if ctrl <= 0xFF:
        src = (lane & ~3) | ((ctrl >> (2 * (lane & 3))) & 3)
    elif ctrl & ~0xF == 0x100:  # row_shl: lane reads the lane n above it in its row
        src, ok = lane + n, pos + n < 16
    elif ctrl & ~0xF == 0x110:  # row_shr: n below
        src, ok = lane - n, pos >= n
    elif ctrl & ~0xF == 0x120:  # row_ror: n below, wrapping within the row
        src = row | ((pos - n) & 15)
    elif ctrl in (0x130, 0x134):  # wave_shl / wave_rol
        src, ok = lane + 1, (lane + 1 < wave_size) | (ctrl == 0x134)
    elif ctrl in (0x138, 0x13C):  # wave_shr / wave_ror
        src, ok = lane - 1, (lane > 0) | (ctrl == 0x13C)
    elif ctrl == 0x140:
        src = row | (15 - pos)
    elif ctrl == 0x141:
        src = (lane & ~7) | (7 - (lane & 7))
    elif ctrl == 0x142:
        src, defined = (lane & ~15) - 1, lane > 15
    elif ctrl == 0x143:
        src, defined = np.full(wave_size, 31), lane > 31
    elif ctrl & ~0xF == 0x150:  # row_share / row_newbcast
        src = row | n
    elif ctrl & ~0xF == 0x160:  # row_xmask
        src = row | (pos ^ n)
    else:
        raise ValueError(f"dpp_ctrl {ctrl:#x} is no lane pattern")
    return src % wave_size, ok, defined


def dpp8_source_lanes(sels: int, wave_size: int) -> np.ndarray:
    """Which lane each lane reads ``src0`` from under ``dpp8:[...]`` (``sels``: eight 3-bit selectors)."""
    lane = np.arange(wave_size)
    return (lane & ~7) | ((sels >> (3 * (lane & 7))) & 7)


def bank_row_lanes(row_mask: int, bank_mask: int, wave_size: int) -> np.ndarray:
    """The lanes ``row_mask`` (16-lane rows) and ``bank_mask`` (4-lane groups of each row) let DPP write."""
    lane = np.arange(wave_size)
    return ((row_mask >> (lane >> 4)) & 1).astype(bool) & ((bank_mask >> ((lane >> 2) & 3)) & 1).astype(bool)


__all__ = ["bank_row_lanes", "ctrl_text", "dpp8_source_lanes", "dpp8_text", "parse_ctrl", "source_lanes", "valid"]
