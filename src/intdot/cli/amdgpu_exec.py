"""``intdot exec --isa amdgpu --mcpu gfxN --set v1=0x01020304 ... 'v_dot4_i32_i8 v0, v1, v2, v3'``: one wave
(:class:`intdot.amdgpu.Wave`) runs each instruction, the DPP forms too; the destinations' lanes are printed.

``--set`` items: ``vN=VALUE`` fills every lane of a VGPR, ``vN=A,B,C,...`` gives lanes 0, 1, 2, ... (the rest
keep their value), ``vN=A..B`` lane k gets A+k up to B; ``vN[LANE]=VALUE`` one lane; ``sN=VALUE`` an SGPR;
``exec=MASK``; ``wave_size=64`` (before the others) runs wave64 where the processor also has wave32."""

from __future__ import annotations

import re

from ..core.errors import OperandError

_SET = re.compile(r"^(v|s)(\d+)(?:\[(\d+)\])?=(.+)$|^(exec)=(.+)$|^(wave_size)=(.+)$", re.I)
_FORMS = "vN=VALUE, vN=A,B,..., vN=A..B, vN[LANE]=VALUE, sN=VALUE, exec=MASK or wave_size=32|64"


def _value(text: str, what: str) -> int:
    try:
        return int(text.strip(), 0)
    except ValueError:
        raise OperandError(f"--set {what}: {text!r} is not an integer (decimal or 0x hex)") from None


def _lanes(text: str, what: str, wave_size: int) -> list[int]:
    """The lane values of ``vN=...``: one value (every lane), a list (lanes 0, 1, ...) or a range A..B."""
    if ".." in text:
        lo, _, hi = text.partition("..")
        a, b = _value(lo, what), _value(hi, what)
        values = list(range(a, b + 1))
    else:
        values = [_value(t, what) for t in text.split(",")]
    if len(values) > wave_size:
        raise OperandError(f"--set {what}: {len(values)} values for a wave of {wave_size} lanes")
    return [v & 0xFFFFFFFF for v in values]


def run(args) -> int:
    from ..amdgpu import Wave, parse
    from .amdgpu_asm import mcpu_of

    if not args.insns:  # as for Arm: a state with nothing run on it is more likely a forgotten argument
        raise OperandError("no instruction given; pass instruction text as an argument")
    items = [item.replace(" ", "") for item in getattr(args, "sets", None) or []]
    sizes = [m.group(8) for m in map(_SET.match, items) if m and m.group(7)]
    w = Wave(mcpu_of(args), wave_size=_value(sizes[-1], "wave_size") if sizes else None)
    for item in items:
        m = _SET.match(item)
        if not m:
            raise OperandError(f"--set {item!r}: expected {_FORMS}")
        if m.group(7):
            continue
        if m.group(5):
            w.exec = _value(m.group(6), item) & ((1 << w.wave_size) - 1)
            continue
        kind, n, lane = m.group(1).lower(), int(m.group(2)), m.group(3)
        if kind == "s":
            w.s[n] = _value(m.group(4), item) & 0xFFFFFFFF
        elif lane is not None:
            w.v[n, int(lane)] = _value(m.group(4), item) & 0xFFFFFFFF
        else:
            values = _lanes(m.group(4), item, w.wave_size)
            if len(values) == 1:
                w.v[n] = values[0]
            else:
                w.v[n, : len(values)] = values
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
