"""A slow, obviously-correct model of the DPP lane moves of the VOP2 dots, one lane at a time, written from the
ISA manuals' text (Vega / CDNA "DPP_CTRL Enumeration" table and DPP field table; RDNA DPP16 / DPP8 sections;
LLVM's AMDGPUModifierSyntax for ``fi``), sharing no code with intdot.

- DPP_QUAD_PERM: ``pix[n] = pix[(n & 0x3c) + dpp_ctrl[2*(n%4)+1 : 2*(n%4)]]``;
- ROW_SL n: ``if (n & 0xf) < 16 - cnt: pix[n + cnt] else bound_ctrl``; ROW_SR: ``if (n & 0xf) >= cnt:
  pix[n - cnt] else bound_ctrl``; ROW_RR: ``if (n & 0xf) >= cnt: pix[n - cnt] else pix[n + 16 - cnt]``;
- WF_SL1: ``if n < 63: pix[n+1] else bound_ctrl``; WF_RL1: ``... else pix[0]``; WF_SR1: ``if n > 0: pix[n-1]
  else bound_ctrl``; WF_RR1: ``... else pix[63]``;
- ROW_MIRROR: the lane 15 - (n & 15) of the same row; ROW_HALF_MIRROR: 7 - (n & 7) of the same half row;
- ROW_BCAST15: ``if n > 15: pix[(n & 0x30) - 1]``; ROW_BCAST31: ``if n > 31: pix[(n & 0x20) - 1]`` (nothing for
  the other lanes); ROW_SHARE / ROW_NEWBCAST cnt: ``pix[(n & ~0xf) + cnt]``; ROW_XMASK cnt: lane ``(n & 15) ^ cnt``
  of the same row;
- ROW_MASK bit r / BANK_MASK bit b: lanes 16r..16r+15 / lanes with (n >> 2) & 3 == b of every row are written
  (the destination write only, not the source fetch);
- BC (bound_ctrl): "0 = do not write when source is out of range, 1 = write" (zero); FI (gfx10+): 0 = a source
  lane disabled by EXEC is treated as out of range (bound_ctrl decides), 1 = its value is read;
- DPP8: lane ``8g + i`` reads lane ``8g + sel[i]``; fi:0 reads zero from a disabled lane, fi:1 its value.
"""

from __future__ import annotations

UNDEFINED = "undefined"


def dpp16_source(ctrl: int, n: int, wave_size: int):
    """The lane lane ``n`` reads, None where out of range (bound_ctrl decides), or UNDEFINED."""
    cnt = ctrl % 16
    top = wave_size - 1
    if ctrl < 0x100:
        return (n & 0x3C) + ((ctrl >> (2 * (n % 4))) % 4)
    if 0x101 <= ctrl <= 0x10F:
        return n + cnt if (n & 0xF) < 16 - cnt else None
    if 0x111 <= ctrl <= 0x11F:
        return n - cnt if (n & 0xF) >= cnt else None
    if 0x121 <= ctrl <= 0x12F:
        return n - cnt if (n & 0xF) >= cnt else n + 16 - cnt
    if ctrl == 0x130:
        return n + 1 if n < top else None
    if ctrl == 0x134:
        return n + 1 if n < top else 0
    if ctrl == 0x138:
        return n - 1 if n > 0 else None
    if ctrl == 0x13C:
        return n - 1 if n > 0 else top
    if ctrl == 0x140:
        return 16 * (n // 16) + 15 - (n % 16)
    if ctrl == 0x141:
        return 8 * (n // 8) + 7 - (n % 8)
    if ctrl == 0x142:
        return (n & 0x30) - 1 if n > 15 else UNDEFINED
    if ctrl == 0x143:
        return (n & 0x20) - 1 if n > 31 else UNDEFINED
    if 0x150 <= ctrl <= 0x15F:
        return 16 * (n // 16) + cnt
    if 0x160 <= ctrl <= 0x16F:
        return 16 * (n // 16) + ((n % 16) ^ cnt)
    raise ValueError(hex(ctrl))


def dpp16_src0(vsrc0: list[int], ctrl: int, row_mask: int, bank_mask: int, bound_ctrl: int, fi: int, exec_: int):
    """Per lane: (src0 value, written?) for a DPP16 form; raises LookupError where the manuals define nothing."""
    size = len(vsrc0)
    out = []
    for n in range(size):
        active = (exec_ >> n) & 1
        row_on = (row_mask >> (n // 16)) & 1
        bank_on = (bank_mask >> ((n % 16) // 4)) & 1
        target = active and row_on and bank_on
        src = dpp16_source(ctrl, n, size)
        if src == UNDEFINED:
            if target:
                raise LookupError(f"lane {n} has no source")
            out.append((0, False))
            continue
        if src is not None and not fi and not (exec_ >> src) & 1:
            src = None  # a disabled source lane is out of range
        if src is None:
            out.append((0, bool(target and bound_ctrl)))
        else:
            out.append((vsrc0[src], bool(target)))
    return out


def dpp8_src0(vsrc0: list[int], sels: list[int], fi: int, exec_: int):
    """Per lane: (src0 value, written?) for a DPP8 form."""
    out = []
    for n in range(len(vsrc0)):
        src = 8 * (n // 8) + sels[n % 8]
        value = vsrc0[src] if fi or (exec_ >> src) & 1 else 0
        out.append((value, bool((exec_ >> n) & 1)))
    return out
