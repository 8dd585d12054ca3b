"""AArch64 integer dot products: a register-file model, one table of
instruction forms, and the assembler, disassembler, executor and ACLE
intrinsics that read it.

>>> from intdot import arm
>>> hex(arm.assemble("sudot v0.4s, v1.16b, v2.4b[3]"))
'0x4f22f820'
"""

from __future__ import annotations

import importlib

# Public name -> submodule that defines it.  Submodules load on first use.
_EXPORTS = {
    # the form table and text/word conversions (intdot.arm.asm)
    "assemble": "asm", "disassemble": "asm", "decode": "asm", "encode": "asm", "parse": "asm",
    "FORMS": "forms",
    "Form": "insn", "Insn": "insn",
    # the register-file model and the executor
    "State": "state",
    "execute": "executor",
    # ACLE intrinsics
    "vsudot_lane_s32": "acle", "vsudotq_lane_s32": "acle",
    "vsudot_laneq_s32": "acle", "vsudotq_laneq_s32": "acle",
    "svsudot_lane_s32": "acle",
    "svsudot_lane_za32_s8_vg1x2": "acle", "svsudot_lane_za32_s8_vg1x4": "acle",
    "svsudot_single_za32_s8_vg1x2": "acle", "svsudot_single_za32_s8_vg1x4": "acle",
}


def __getattr__(name):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'intdot.arm' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(list(globals()) + list(_EXPORTS))


__all__ = list(_EXPORTS)
