"""Which instruction clang emits for each builtin of :mod:`intdot.amd` on a processor: :func:`lowering`.

clang 19 picks the VOP2 form (the accumulator in the destination: ``v_dot4c_i32_i8``) where the
processor has it and ``clamp`` is off, the VOP3P form otherwise; on gfx11 and later ``sudot4`` /
``sudot8`` become ``v_dot4_i32_iu8`` / ``v_dot8_i32_iu4`` with ``neg_lo`` carrying the two
signedness flags.  ``tests/amdgpu/test_clang.py`` checks every answer against ``clang-19 -S`` on
every processor it knows.

>>> lowering("sdot4", "gfx942").text
'v_dot4c_i32_i8 vdst(=src2), src0, src1'
>>> lowering("__builtin_amdgcn_sudot4", "gfx1100", src0_signed=True, src1_signed=False, clamp=True).text
'v_dot4_i32_iu8 vdst, src0, src1, src2 neg_lo:[1,0,0] clamp'
"""

from __future__ import annotations

from dataclasses import dataclass

from ..amd.builtins import lookup
from ..core.errors import OperandTypeError, UnsupportedOnTarget
from ..core.values import check_flag, describe
from .instructions import ROWS
from .targets import FEATURES, GENERATION, check_mcpu

# builtin -> (VOP3P instruction, VOP2 instruction clang prefers without clamp, or None)
_CHOICES = {
    "sdot4": ("v_dot4_i32_i8", "v_dot4c_i32_i8"),
    "sdot8": ("v_dot8_i32_i4", "v_dot8c_i32_i4"),
    "sdot2": ("v_dot2_i32_i16", "v_dot2c_i32_i16"),
    "udot4": ("v_dot4_u32_u8", None),
    "udot8": ("v_dot8_u32_u4", None),
    "udot2": ("v_dot2_u32_u16", None),
    "sudot4": ("v_dot4_i32_iu8", None),
    "sudot8": ("v_dot8_i32_iu4", None),
}


@dataclass(frozen=True)
class Lowering:
    """The instruction a builtin call becomes: its mnemonic and modifiers (``neg_lo`` as 3 bits, source 0
    first)."""

    builtin: str
    mcpu: str
    mnemonic: str
    clamp: bool
    neg_lo: tuple[int, int, int] = (0, 0, 0)

    @property
    def text(self) -> str:
        if ROWS[self.mnemonic].kind == "vop2":
            return f"{self.mnemonic} vdst(=src2), src0, src1"
        text = f"{self.mnemonic} vdst, src0, src1, src2"
        if any(self.neg_lo):
            text += f" neg_lo:[{','.join(map(str, self.neg_lo))}]"
        return text + (" clamp" if self.clamp else "")


def _has(mnemonic: str, mcpu: str) -> bool:
    row = ROWS[mnemonic]
    return row.feature in FEATURES[mcpu] and GENERATION[mcpu] in row.opcodes


def lowering(builtin, target, *, clamp=False, src0_signed=None, src1_signed=None) -> Lowering:
    """The instruction clang 19 emits for ``builtin`` on processor ``target`` (VGPR operands).

    Parameters
    ----------
    builtin : str
        ``"sdot4"`` or ``"__builtin_amdgcn_sdot4"``.
    target : str
        A processor (``"gfx942"``).
    clamp : bool
        clang's last argument.
    src0_signed, src1_signed : bool
        ``sudot4`` / ``sudot8`` only: the builtin's ``src0_neg`` / ``src1_neg`` flags.

    Raises
    ------
    UnsupportedOnTarget
        Where clang refuses the builtin on that processor (it needs a target feature the processor lacks).
    """
    row = lookup(builtin)
    mcpu = check_mcpu(target)
    clamp = check_flag(clamp, "clamp")
    if row.feature not in FEATURES[mcpu]:
        raise UnsupportedOnTarget(
            f"clang-19 refuses {row.full_name} on {mcpu}: it needs target feature {row.feature}, which {mcpu} lacks"
        )
    vop3p, vop2 = _CHOICES[row.name]
    if row.layout == "sudot":
        if not isinstance(src0_signed, bool) or not isinstance(src1_signed, bool):
            raise OperandTypeError(
                f"src0_signed={describe(src0_signed)}, src1_signed={describe(src1_signed)}: {row.name} needs both "
                "flags (bools)"
            )
        return Lowering(row.name, mcpu, vop3p, clamp, (int(src0_signed), int(src1_signed), 0))
    if src0_signed is not None or src1_signed is not None:
        raise OperandTypeError(f"{row.name} fixes its operands' signedness; pass no src0_signed/src1_signed")
    if vop2 is not None and not clamp and _has(vop2, mcpu):
        return Lowering(row.name, mcpu, vop2, False)
    return Lowering(row.name, mcpu, vop3p, clamp)


__all__ = ["Lowering", "lowering"]
