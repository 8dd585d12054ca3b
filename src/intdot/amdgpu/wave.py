"""One wave's registers, and the dot instructions run on them exactly: :class:`Wave`.

VGPRs are a ``(256, wave_size)`` uint32 array (lane ``l`` of ``v[n]`` is ``wave.v[n, l]``), SGPRs a
uint32 array of 106, with ``vcc``, ``exec`` (a lane mask of ``wave_size`` bits), ``m0``, ``scc`` and
``ttmp0-15``.  :meth:`Wave.run` executes one instruction (text, bytes or :class:`~intdot.amdgpu.Insn`)
in every lane whose ``exec`` bit is set; the lane products go through the core.

What the modifiers do to an integer dot (see ``docs/amdgpu.md``):

- ``clamp``: the sum saturates to the result type instead of wrapping;
- ``op_sel`` / ``op_sel_hi`` bit ``i`` on a 16-bit source (``v_dot2_*``): lane 0 / lane 1 of source
  ``i`` is read from the high half of its register instead of the low half (``op_sel_hi`` set: the
  high half, as the default ``[1,1,1]`` reads lane 1);
- ``neg_lo`` bits 0 and 1 of ``v_dot4_i32_iu8`` / ``v_dot8_i32_iu4``: source 0 / 1 is signed.

Modifier bits whose effect on an integer dot no manual defines (``neg_lo``/``neg_hi`` elsewhere,
``op_sel`` on a 32-bit operand, the gfx9 VOP3 form's ``abs``/``neg``) are refused with
:class:`~intdot.errors.UndefinedEncoding` rather than given a guessed meaning.

>>> import numpy as np
>>> w = Wave("gfx1100")
>>> w.v[1], w.v[2], w.v[3] = 0x01020304, 0xFFFFFFFF, 10
>>> w.run("v_dot4_i32_iu8 v0, v1, v2, v3 neg_lo:[1,1,0]")
>>> int(w.v[0, 0]), w.wave_size
(0, 32)
"""

from __future__ import annotations

import numpy as np

from ..core.dot import dot_function
from ..core.errors import OperandError, OperandTypeError, UndefinedEncoding, UnsupportedOnTarget
from ..core.spec import DotSpec
from . import operands as opnd
from .asm import Insn, _available, decode_one, parse
from .encodings import SYNTAX
from .instructions import ROWS
from .targets import GENERATION, check_mcpu, wave_sizes


def _undefined(insn: Insn, what: str) -> UndefinedEncoding:
    return UndefinedEncoding(
        f"{insn.text}: {what} on an integer dot is not defined by the ISA manuals; intdot does not guess it"
    )


def check_modifiers(insn: Insn) -> tuple[DotSpec, bool]:
    """The core's spec and the clamp flag of an instruction, or UndefinedEncoding for modifier bits whose
    effect no manual defines."""
    row = ROWS[insn.mnemonic]
    f = insn.fields
    if any(v for k, v in f.items() if k.startswith("x")):
        raise _undefined(insn, "abs/neg")
    if insn.row.layout.family.startswith("dpp"):
        raise UndefinedEncoding(f"{insn.text}: intdot.amdgpu.Wave does not run DPP forms (their lane moves)")
    if row.kind == "vop3p":
        neg_lo, neg_hi = f["neg_lo"], f["neg_hi"]
        if neg_hi:
            raise _undefined(insn, "neg_hi")
        if row.sign_args:
            if neg_lo & 4:
                raise _undefined(insn, "neg_lo on src2")
            spec = row.spec(bool(neg_lo & 1), bool(neg_lo & 2))
        else:
            if neg_lo:
                raise _undefined(insn, "neg_lo")
            spec = row.spec()
        if f["op_sel"] & 4 or not f["op_sel_hi"] & 4:
            raise _undefined(insn, "op_sel/op_sel_hi on the 32-bit src2")
        if row.width != 16 and ((f["op_sel"] & 3) or (f["op_sel_hi"] & 3) != 3):
            raise _undefined(insn, "op_sel/op_sel_hi on a 32-bit packed source")
    else:
        spec = row.spec()
    return spec, bool(f.get("clamp", 0))


def _halves(word: np.ndarray, lo_hi: int, hi_hi: int) -> np.ndarray:
    """A 16-bit-lane source as op_sel reads it: lane 0 from the high half if ``lo_hi``, lane 1 if ``hi_hi``."""
    lo = (word >> np.uint32(16)) if lo_hi else (word & np.uint32(0xFFFF))
    hi = (word >> np.uint32(16)) if hi_hi else (word & np.uint32(0xFFFF))
    return (lo | (hi << np.uint32(16))).astype(np.uint32)


class Wave:
    """The registers of one wave on processor ``mcpu`` (see the module docstring).

    Parameters
    ----------
    mcpu : str
        A processor with these instructions' encodings (``gfx942``, ``gfx1100``).
    wave_size : {32, 64}, optional
        Lanes of the wave; default 64 on gfx9, 32 from gfx10 on (which also run 64).
    """

    def __init__(self, mcpu: str, *, wave_size: int | None = None):
        self.mcpu = check_mcpu(mcpu, encodings=True)
        sizes = wave_sizes(self.mcpu)
        if wave_size is None:
            wave_size = sizes[0]
        if wave_size not in sizes:
            raise OperandError(f"wave_size={wave_size!r} is not allowed on {self.mcpu}; expected one of {sizes}")
        self.wave_size = wave_size
        self.v = np.zeros((256, wave_size), dtype=np.uint32)
        self.s = np.zeros(106, dtype=np.uint32)
        self.ttmp = np.zeros(16, dtype=np.uint32)
        self.vcc = 0
        self.exec = (1 << wave_size) - 1
        self.m0 = 0
        self.scc = 0

    @property
    def generation(self) -> str:
        return GENERATION[self.mcpu]

    def exec_mask(self) -> np.ndarray:
        """The ``exec`` bits as a bool array of the lanes."""
        return np.array([(self.exec >> lane) & 1 for lane in range(self.wave_size)], dtype=bool)

    def _scalar(self, value: int, insn: Insn) -> int:
        g = self.generation
        null = 124 if g in ("gfx11", "gfx12") else 125
        m0 = 125 if null == 124 else 124
        mask = (1 << 32) - 1
        if value < 102 or (value < 106 and g != "gfx9"):
            return int(self.s[value])
        table = {
            106: self.vcc & mask,
            107: (self.vcc >> 32) & mask,
            126: self.exec & mask,
            127: (self.exec >> 32) & mask,
            null: 0,
            m0: self.m0,
            251: int(self.vcc == 0),
            252: int(self.exec == 0),
            253: self.scc,
        }
        if 108 <= value <= 123:
            return int(self.ttmp[value - 108])
        if value in table:
            return table[value]
        if opnd.is_inline(value):
            return opnd.inline_bits(value)
        raise UndefinedEncoding(
            f"{insn.text}: source {opnd.name(value, g)} is not modelled by intdot.amdgpu.Wave "
            f"(flat_scratch, xnack_mask, the src_* apertures and lds_direct are not)"
        )

    def read(self, value: int, insn: Insn) -> np.ndarray:
        """Source field ``value`` as a uint32 array of the lanes."""
        if value >= 256:
            return self.v[value - 256].copy()
        if value == opnd.LITERAL:
            return np.full(self.wave_size, insn.literal, dtype=np.uint32)
        return np.full(self.wave_size, self._scalar(value, insn), dtype=np.uint32)

    def decode(self, instruction) -> Insn:
        if isinstance(instruction, Insn):
            if instruction.generation != self.generation or not _available(instruction.mnemonic, self.mcpu):
                raise UnsupportedOnTarget(
                    f"{instruction.text} ({instruction.generation} encoding) does not run on {self.mcpu} "
                    f"({self.generation}); parse or decode it for {self.mcpu}"
                )
            return instruction
        if isinstance(instruction, str):
            return parse(instruction, self.mcpu)
        if isinstance(instruction, (bytes, bytearray)):
            insn = decode_one(bytes(instruction), 0, self.mcpu)
            if insn is None or insn.size != len(instruction):
                raise UndefinedEncoding(f"{bytes(instruction).hex()} is not one integer dot instruction on {self.mcpu}")
            return insn
        raise OperandTypeError(
            f"instruction={instruction!r} has type {type(instruction).__name__}; expected assembly text, bytes "
            "or an intdot.amdgpu.Insn"
        )

    def run(self, instruction) -> None:
        """Execute one instruction (text, bytes or Insn) in the lanes ``exec`` enables."""
        insn = self.decode(instruction)
        spec, clamp = check_modifiers(insn)
        f = insn.fields
        row = ROWS[insn.mnemonic]
        kinds = SYNTAX[insn.row.layout.family]
        srcs = [self.v[f[k]].copy() if k == "vsrc1" else self.read(f[k], insn) for k in kinds if k != "vdst"]
        if row.kind == "vop3p":
            a, b, c = srcs
            if row.width == 16:
                a = _halves(a, f["op_sel"] & 1, f["op_sel_hi"] & 1)
                b = _halves(b, f["op_sel"] & 2, f["op_sel_hi"] & 2)
        else:
            a, b = srcs
            c = self.v[f["vdst"]].copy()
        d = dot_function(spec, ("src0", "src1", "src2"))(a, b, c, False, clamp)
        lanes = self.exec_mask()
        self.v[f["vdst"], lanes] = np.asarray(d).view(np.uint32)[lanes]


__all__ = ["Wave", "check_modifiers"]
