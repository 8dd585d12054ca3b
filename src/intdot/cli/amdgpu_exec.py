"""``intdot exec --isa amdgpu --mcpu gfxN --set v1=0x01020304 ... 'v_dot4_i32_i8 v0, v1, v2, v3'``: one wave
(:class:`intdot.amdgpu.Wave`) runs each instruction, the DPP forms too; the destinations' lanes are printed.

``--set`` items: ``vN=VALUE`` fills every lane of a VGPR, ``vN=A,B,C,...`` gives lanes 0, 1, 2, ... (the rest
keep their value), ``vN=A..B`` lane k gets A+k up to B; ``vN[LANE]=VALUE`` one lane; ``sN=VALUE`` an SGPR;
``exec=MASK``; ``wave_size=64`` (before the others) runs wave64 where the processor also has wave32.

Every register number, lane and value is checked against what the wave holds before anything is written or
allocated: a value is a 32-bit word in its signed or unsigned spelling (as ``docs/DESIGN.md`` asks), never
masked; a range longer than the wave is refused from its two ends alone."""

from __future__ import annotations

import re

from ..core.errors import OperandError, quote
from .numbers import parse_int

_SET = re.compile(r"^(v|s)(\d+)(?:\[(\d+)\])?=(.+)$|^(exec)=(.+)$|^(wave_size)=(.+)$", re.I)
_FORMS = "vN=VALUE, vN=A,B,..., vN=A..B, vN[LANE]=VALUE, sN=VALUE, exec=MASK or wave_size=32|64"
_VGPRS = 256
_PREFIXES = ("0x", "0b", "0o")


def _value(text: str, name: str, bits: int = 32) -> int:
    """The integer ``text`` spells (:func:`~intdot.cli.numbers.parse_int`: ``bits`` wide, signed or unsigned
    spelling, a leading 0 decimal) as the register's unsigned bits."""
    return parse_int(text, name, prefixes=_PREFIXES, bits=bits) & ((1 << bits) - 1)


def _index(n: str, count: int, what: str, prefix: str, kind: str) -> int:
    """A register or lane number below ``count``."""
    if len(n) > 6 or int(n) >= count:
        shown = prefix + quote(n, marks=False)
        raise OperandError(f"--set {what}: {kind} {shown} does not exist; expected {prefix}0..{prefix}{count - 1}")
    return int(n)


def _lanes(text: str, what: str, name: str, wave_size: int) -> list[int]:
    """The lane values of ``vN=...``: one value (every lane), a list (lanes 0, 1, ...) or a range A..B."""
    if ".." in text:
        lo, _, hi = text.partition("..")
        # The ends as spelt (-2..1 runs upwards), each lane's value masked to its word below.
        a, b = (parse_int(end, name, prefixes=_PREFIXES, bits=32) for end in (lo, hi))
        # Compare the ends before building the list: 0..999999999 would otherwise allocate a billion ints.
        if b < a or b - a + 1 > wave_size:
            raise OperandError(
                f"--set {what}: range {quote(text)} must run upwards over at most {wave_size} values, one a lane of "
                f"the wave{wave_size}"
            )
        return [v & 0xFFFFFFFF for v in range(a, b + 1)]
    items = text.split(",")
    if len(items) > wave_size:
        raise OperandError(f"--set {what}: {len(items)} values for a wave of {wave_size} lanes")
    return [_value(t, name) for t in items]


def _sgprs(mcpu: str) -> int:
    """How many SGPRs ``--set sN`` may write: gfx9 numbers 102-105 as other registers (flat_scratch, xnack)."""
    from ..amdgpu.targets import GENERATION

    return 102 if GENERATION[mcpu] == "gfx9" else 106


def load(w, items: list[str]) -> None:
    """Apply the ``--set`` items (``wave_size`` already taken) to wave ``w``."""
    for item in items:
        m = _SET.match(item)
        what = quote(item, marks=False)
        # A value's message names the register it was for (--set v1[3]), as Arm's names z1.b.
        name = "--set " + quote(item.split("=", 1)[0], marks=False)
        if not m:
            raise OperandError(f"--set {quote(item)}: expected {_FORMS}")
        if m.group(7):
            continue
        if m.group(5):
            w.exec = _value(m.group(6), name, bits=w.wave_size)
            continue
        kind, lane = m.group(1).lower(), m.group(3)
        if kind == "s":
            if lane is not None:
                raise OperandError(f"--set {what}: an SGPR has no lanes; expected sN=VALUE")
            w.s[_index(m.group(2), _sgprs(w.mcpu), what, "s", "SGPR")] = _value(m.group(4), name)
            continue
        n = _index(m.group(2), _VGPRS, what, "v", "VGPR")
        if lane is not None:
            w.v[n, _index(lane, w.wave_size, what, "", f"wave{w.wave_size} lane")] = _value(m.group(4), name)
            continue
        values = _lanes(m.group(4), what, name, w.wave_size)
        if len(values) == 1 and ".." not in m.group(4):
            w.v[n] = values[0]
        else:
            w.v[n, : len(values)] = values


_HEX = re.compile(r"\[?(?:0x[0-9a-f]{1,8}[\s,\]]*)+", re.I)


def _insns(texts, mcpu: str) -> list:
    """Each INSN argument: assembly text, or the instruction in hex as ``intdot disasm --isa amdgpu`` reads it
    (dwords ``0xd3a64000 0x1c0e0501`` or an llvm-mc byte list ``[0x00,0x40,...]``, little-endian)."""
    from ..amdgpu import disassemble, parse
    from ..core.errors import UndefinedEncoding
    from .amdgpu_disasm import _bytes

    out = []
    for text in texts:
        if not _HEX.fullmatch(text.strip()):
            out.append(parse(text, mcpu))
            continue
        try:
            lines = disassemble(_bytes([text]), mcpu).splitlines()
        except (UndefinedEncoding, OperandError) as exc:  # the library's words name its keyword, not the INSN
            # A VOP3P dot is two dwords (a DPP form three): a lone first dword decodes as nothing.
            hint = "; give every dword of the instruction (VOP3P and DPP forms are 8 or 12 bytes)"
            raise type(exc)(f"INSN {quote(text)}: {str(exc).split('; pass errors=')[0]}{hint}") from None
        out.extend(parse(line, mcpu) for line in lines)
    return out


def run(args) -> int:
    from ..amdgpu import Wave
    from .amdgpu_asm import mcpu_of
    from .arm_exec import _block, _grid

    if not args.insns:  # as for Arm: a state with nothing run on it is more likely a forgotten argument
        raise OperandError("no instruction given; pass instruction text as an argument")
    items = [item.replace(" ", "") for item in getattr(args, "sets", None) or []]
    sizes = [m.group(8) for m in map(_SET.match, items) if m and m.group(7)]
    w = Wave(mcpu_of(args), wave_size=int(_value(sizes[-1], "--set wave_size")) if sizes else None)
    load(w, items)
    for insn in _insns(args.insns, w.mcpu):
        w.run(insn)
        dst = int(re.match(r"\s*\S+\s+v(\d+)", insn.text).group(1))
        lanes = w.v[dst]
        shown = lanes.view("int32") if "_i32" in insn.mnemonic else lanes
        rows = [(f"v{dst}", [int(x) for x in shown])]
        # Lanes in rows of 8 with the first lane's number, as Arm's exec shows elements.
        print(insn.text)
        print("\n".join(_block(rows, _grid(rows))))
    return 0
