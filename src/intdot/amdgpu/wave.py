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

The DPP forms of the VOP2 dots (``v_dot4c_i32_i8_dpp``, ``dpp8:[...]``) move ``src0`` between lanes first:
each lane reads the lane its control names; ``row_mask``/``bank_mask`` choose the lanes written; a source lane
out of range, or (``fi:0``, and always on gfx9) disabled by ``exec``, reads 0 with ``bound_ctrl`` set and
otherwise leaves the destination lane unwritten; DPP8 reads 0 from a disabled lane unless ``fi:1``.

Modifier bits whose effect on an integer dot no manual defines (``neg_lo``/``neg_hi`` elsewhere,
``op_sel`` on a 32-bit operand, the gfx9 VOP3 form's ``abs``/``neg``, DPP's reserved bits and ``dpp_ctrl``
values, ``row_bcast`` writing a row it gives no source) are refused with
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

from ..core.dotstep import dot_function
from ..core.errors import OperandError, OperandTypeError, UndefinedEncoding, UnsupportedOnTarget, quote
from ..core.spec import DotSpec
from ..core.values import a_or_an, describe, is_int_scalar
from . import dpp
from . import operands as opnd
from .asm import _ANY, Insn, _available, decode_one, parse
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
    if insn.row.layout.family.startswith("dpp16"):
        if f.get("zres") or f.get("zfi"):
            raise UndefinedEncoding(
                f"{insn.text}: the DPP word sets reserved bit {49 if f.get('zres') else 50}"
                f"{' (the fi bit, which gfx9 does not have)' if f.get('zfi') else ''}; no manual defines its effect"
            )
        if not dpp.valid(f["dpp_ctrl"], insn.mcpu or _ANY[insn.generation]):
            raise UndefinedEncoding(
                f"{insn.text}: dpp_ctrl {f['dpp_ctrl']:#x} is reserved on {insn.mcpu or insn.generation}: "
                "the ISA manuals give it no lane pattern"
            )
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
        if not is_int_scalar(wave_size):  # before 'in': NumPy refuses the truth value of an array's ==
            raise OperandTypeError(
                f"wave_size={describe(wave_size)} is {a_or_an(type(wave_size).__name__)}, not an int; expected "
                f"one of {sizes} on {self.mcpu}"
            )
        wave_size = int(wave_size)
        if wave_size not in sizes:
            raise OperandError(
                f"wave_size={describe(wave_size)} is not allowed on {self.mcpu}; expected one of {sizes}"
            )
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
                raise UndefinedEncoding(
                    f"{quote(bytes(instruction).hex(), marks=False)} is not one integer dot instruction on {self.mcpu}"
                )
            return insn
        raise OperandTypeError(
            f"instruction={describe(instruction)} has type {type(instruction).__name__}; expected assembly text, bytes "
            "or an intdot.amdgpu.Insn"
        )

    def run(self, instruction) -> None:
        """Execute one instruction (text, bytes or Insn) in the lanes ``exec`` enables."""
        insn = self.decode(instruction)
        spec, clamp = check_modifiers(insn)
        f = insn.fields
        row = ROWS[insn.mnemonic]
        kinds = SYNTAX[insn.row.layout.family]
        srcs = [self.v[f[k]].copy() if k in ("vsrc0", "vsrc1") else self.read(f[k], insn) for k in kinds if k != "vdst"]
        if row.kind == "vop3p":
            a, b, c = srcs
            if row.width == 16:
                a = _halves(a, f["op_sel"] & 1, f["op_sel_hi"] & 1)
                b = _halves(b, f["op_sel"] & 2, f["op_sel_hi"] & 2)
        else:
            a, b = srcs
            c = self.v[f["vdst"]].copy()
        lanes = self.exec_mask()
        if insn.row.layout.family.startswith("dpp"):
            a, lanes = self._dpp_src0(insn, lanes)
        d = dot_function(spec, ("src0", "src1", "src2"))(a, b, c, False, clamp)
        self.v[f["vdst"], lanes] = np.asarray(d).view(np.uint32)[lanes]

    def _dpp_src0(self, insn: Insn, active: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``src0`` as a DPP form reads it in every lane, and the lanes it writes (see ``docs/amdgpu.md``)."""
        f, n = insn.fields, self.wave_size
        data = self.v[f["vsrc0"]]
        if insn.row.layout.family.startswith("dpp8"):
            src = dpp.dpp8_source_lanes(f["sels"], n)
            fetch = active[src] | insn.row.name.endswith("fi")  # fi:0 reads 0 from a lane exec disables
            return np.where(fetch, data[src], np.uint32(0)).astype(np.uint32), active
        if not dpp.valid(f["dpp_ctrl"], self.mcpu):  # an Insn read for another processor of the generation
            raise UndefinedEncoding(
                f"{insn.text}: dpp_ctrl {f['dpp_ctrl']:#x} ({dpp.ctrl_text(f['dpp_ctrl'], insn.mcpu or self.mcpu)}) "
                f"is reserved on {self.mcpu}: the ISA manuals give it no lane pattern there"
            )
        src, in_range, defined = dpp.source_lanes(f["dpp_ctrl"], n)
        writable = active & dpp.bank_row_lanes(f["row_mask"], f["bank_mask"], n)
        if (writable & ~defined).any():
            ctrl = dpp.ctrl_text(f["dpp_ctrl"], self.mcpu)
            rows = sorted({int(x) >> 4 for x in np.flatnonzero(writable & ~defined)})
            raise UndefinedEncoding(
                f"{insn.text}: {ctrl} gives row(s) {rows} no source lane in the ISA manuals (they define it for "
                f"{'rows 1-3' if ctrl.endswith('15') else 'rows 2 and 3'} only); clear those rows in row_mask "
                "or their lanes in exec"
            )
        # a source lane out of range, or (fi:0; gfx9 has no fi) disabled by exec, is invalid: bound_ctrl:1 reads 0
        # there, bound_ctrl:0 leaves the destination lane as it was
        ok = in_range & (active[src] | bool(f.get("fi", 0)))
        a = np.where(ok, data[src], np.uint32(0)).astype(np.uint32)
        return a, writable & (ok | bool(f["bound_ctrl"]))


__all__ = ["Wave", "check_modifiers"]
