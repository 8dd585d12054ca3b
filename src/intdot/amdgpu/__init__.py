"""The AMD GPU integer dot instructions behind the builtins of :mod:`intdot.amd`.

``v_dot4_i32_i8``, ``v_dot4_i32_iu8``, ``v_dot4c_i32_i8`` ...: their encodings on every generation
(gfx9, gfx10, gfx11, gfx12) as llvm-mc 19 writes them, their availability per processor, their
semantics through the core on a wave's registers (:class:`Wave`), which instruction clang emits
for each builtin (:func:`lowering`), and the dot instructions of AMDGPU code objects (:func:`read_object`).

>>> from intdot import amdgpu
>>> amdgpu.assemble("v_dot4_u32_u8 v0, v1, v2, v3 clamp", "gfx1100").hex()
'00c017cc01050e1c'
>>> amdgpu.disassemble(bytes.fromhex("00c017cc01050e1c"), "gfx1100")
'v_dot4_u32_u8 v0, v1, v2, v3 clamp'
>>> amdgpu.lowering("sudot4", "gfx1100", src0_signed=True, src1_signed=True).text
'v_dot4_i32_iu8 vdst, src0, src1, src2 neg_lo:[1,1,0]'
"""

from __future__ import annotations

from .asm import Insn, assemble, disassemble, parse
from .bulk import disassemble_array
from .instructions import INSTRUCTIONS
from .lowering import Lowering, lowering
from .objects import CodeObject, read_object
from .targets import GENERATION, PROCESSORS
from .wave import Wave

__all__ = [
    "CodeObject",
    "GENERATION",
    "INSTRUCTIONS",
    "PROCESSORS",
    "Insn",
    "Lowering",
    "Wave",
    "assemble",
    "disassemble",
    "disassemble_array",
    "lowering",
    "parse",
    "read_object",
]
