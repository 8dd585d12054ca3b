"""The AMD GPU integer dot instructions as the ISA layer sees them: catalog records, targets, availability.

One record per row of :data:`intdot.amdgpu.instructions.INSTRUCTIONS` (isa ``amdgpu``, beside the
builtins of isa ``amd``).  A target is a processor (``gfx942``); an instruction is there when the
processor has its LLVM target feature and its generation has an encoding of it (one profile: the
instructions are LLVM's).
"""

from __future__ import annotations

from ..isa.record import Instruction, k_step
from ..isa.registry import Availability, FrontEnd
from ..isa.targets import Target
from .instructions import INSTRUCTIONS
from .targets import FEATURES, GENERATION, PROCESSORS, check_mcpu


def _syntax(row) -> str:
    srcs = "src0, src1, src2" if row.kind == "vop3p" else "src0, vsrc1"
    mods = " [op_sel:[..]] [op_sel_hi:[..]] [neg_lo:[..]] [neg_hi:[..]] [clamp]" if row.kind == "vop3p" else ""
    return f"{row.mnemonic} vdst, {srcs}{mods}"


def records() -> list[Instruction]:
    out = []
    for row in INSTRUCTIONS:
        spec = row.spec(True, True) if row.sign_args else row.spec()
        names = (row.mnemonic,) + ((row.mnemonic + "_e32", row.mnemonic + "_e64") if row.kind == "vop2" else ())
        out.append(
            Instruction(
                isa="amdgpu",
                name=f"amdgpu.{row.mnemonic}",
                mnemonic=row.mnemonic,
                spellings=names,
                spec=spec,
                k_step=k_step(spec),
                neg=False,
                clamp=None,  # the clamp bit chooses
                sign_args=row.sign_args,
                features=row.feature,
                syntax=_syntax(row),
                summary=row.summary,
                row=row,
            )
        )
    return out


def target(text, profile: str = "reference") -> Target:
    name = check_mcpu(text)
    return Target("amdgpu", name, FEATURES[name] | {GENERATION[name]}, "processor", GENERATION[name], name)


def _has(rec: Instruction, t: Target) -> bool:
    return rec.features in t.features and t.base in rec.row.opcodes


def status(rec: Instruction, t: Target, profile: str) -> Availability:
    if _has(rec, t):
        return Availability(True)
    where = ", ".join(p for p in PROCESSORS if _has(rec, target(p)))
    why = (
        f"{rec.mnemonic} is not available on {t.name}: it needs LLVM target feature {rec.features}"
        + ("" if t.base in rec.row.opcodes else f" and an encoding of {', '.join(rec.row.opcodes)}")
        + f" ({t.name} is {t.base}); processors that have it: {where or 'none'}"
    )
    return Availability(False, why)


def where(rec: Instruction, profile: str) -> tuple[str, ...]:
    return tuple(p for p in PROCESSORS if _has(rec, target(p)))


def targets(profile: str = "reference") -> list[Target]:
    return [target(p) for p in PROCESSORS]


def parse_text(text: str) -> str | None:
    """The record name of an assembly line (``v_dot4_i32_i8 v0, v1, v2, v3``); None if it is not one."""
    words = text.replace(",", " ").split()
    if not words:
        return None
    base = words[0].lower().removesuffix("_e32").removesuffix("_e64")
    return f"amdgpu.{base}" if any(r.mnemonic == base for r in INSTRUCTIONS) else None


FRONT_END = FrontEnd(
    isa="amdgpu",
    title="AMD GPU",
    target_help="an AMD GPU processor (gfx942, gfx1100)",
    records=records,
    target=target,
    status=status,
    where=where,
    targets=targets,
    parse_text=parse_text,
    verbs=frozenset({"asm", "disasm", "exec"}),
)
