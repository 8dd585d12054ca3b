"""``intdot exec --isa amdgpu --mcpu gfxN --set v1=0x01020304 ... 'v_dot4_i32_i8 v0, v1, v2, v3'``: one wave
(:class:`intdot.amdgpu.Wave`) runs each instruction; ``--set vN=value`` sets every lane of a VGPR
(``vN[lane]=value`` one lane; ``sN=value`` an SGPR; ``exec=mask``); the destinations' lanes are printed."""

from __future__ import annotations

import re

from ..core.errors import OperandError

_SET = re.compile(r"^(v|s)(\d+)(?:\[(\d+)\])?=(.+)$|^(exec)=(.+)$", re.I)


def _value(text: str, what: str) -> int:
    try:
        return int(text.strip(), 0)
    except ValueError:
        raise OperandError(f"--set {what}: {text!r} is not an integer (decimal or 0x hex)") from None


def run(args) -> int:
    from ..amdgpu import Wave, parse
    from .amdgpu_asm import mcpu_of

    w = Wave(mcpu_of(args))
    for item in getattr(args, "sets", None) or []:
        m = _SET.match(item.replace(" ", ""))
        if not m:
            raise OperandError(f"--set {item!r}: expected vN=VALUE, vN[LANE]=VALUE, sN=VALUE or exec=MASK")
        if m.group(5):
            w.exec = _value(m.group(6), item) & ((1 << w.wave_size) - 1)
            continue
        kind, n, lane, value = m.group(1).lower(), int(m.group(2)), m.group(3), _value(m.group(4), item)
        value &= 0xFFFFFFFF
        if kind == "s":
            w.s[n] = value
        elif lane is None:
            w.v[n] = value
        else:
            w.v[n, int(lane)] = value
    for text in args.insns:
        insn = parse(text, w.mcpu) if isinstance(text, str) else text
        w.run(insn)
        dst = int(re.match(r"\s*\S+\s+v(\d+)", insn.text).group(1))
        lanes = w.v[dst]
        signed = "_i32" in insn.mnemonic
        shown = lanes.view("int32") if signed else lanes
        print(f"{insn.text}")
        print(f"  v{dst} = " + " ".join(str(int(x)) for x in shown))
    return 0
