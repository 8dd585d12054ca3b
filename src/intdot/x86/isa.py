"""The x86 dot instructions as the ISA layer sees them: catalog records, targets, availability.

One record per row of :data:`intdot.x86.instructions.ROWS`, spelt by its mnemonic, its other
assembler spellings and the intrinsics that compile to it (:mod:`intdot.x86.intrinsics`).
Targets are ``-march`` strings with ``+feature``/``+nofeature`` (:mod:`intdot.x86.targets`).
"""

from __future__ import annotations

from functools import cache

from ..core.features import evaluate, missing
from ..isa.record import Instruction, k_step
from ..isa.registry import Availability, FrontEnd
from ..isa.targets import Target
from .instructions import ROWS
from .targets import MODEL


def records() -> list[Instruction]:
    from .intrinsics import BY_INSTRUCTION

    out = []
    for r in ROWS:
        names = (r.mnemonic, *r.spellings, *BY_INSTRUCTION.get(r.mnemonic, ()))
        name = "vpmaddubsw_vpmaddwd_vpaddd" if r.kind == "idiom" else r.mnemonic
        out.append(
            Instruction(
                isa="x86",
                name=f"x86.{name}",
                mnemonic=r.mnemonic,
                spellings=tuple(dict.fromkeys(names)),
                spec=r.spec,
                k_step=k_step(r.spec),
                neg=False,
                clamp=r.clamp,
                sign_args=False,
                features=r.features,
                syntax=r.syntax,
                summary=f"{r.mnemonic.upper()} ({r.extension}{', ' + r.kind if r.kind != 'vector' else ''})",
                row=r,
            )
        )
    return out


def target(text, profile: str = "reference") -> Target:
    return MODEL.target(text)  # x86 availability is the same in both profiles


@cache
def _with(features: str) -> tuple[str, ...]:
    return tuple(p for p in MODEL.names() if evaluate(features, MODEL.target(p).features))


def status(rec: Instruction, t: Target, profile: str) -> Availability:
    lack = missing(rec.features, t.features)
    if lack is None:
        return Availability(True)
    have = _with(rec.features)
    shown = ", ".join(have[:8]) + (f" and {len(have) - 8} more" if len(have) > 8 else "") if have else "none"
    return Availability(
        False,
        f"{rec.name} ({rec.mnemonic}) is not available on {t.name}: it requires {rec.features}, and "
        f"{t.name} lacks {lack}; targets that have it: {shown}",
    )


def where(rec: Instruction, profile: str) -> tuple[str, ...]:
    return _with(rec.features)


def targets(profile: str = "reference") -> list[Target]:
    return [MODEL.target(n) for n in MODEL.names()]


FRONT_END = FrontEnd(
    isa="x86",
    title="x86",
    target_help="an x86 level or processor (x86-64-v3+avxvnni, sapphirerapids)",
    records=records,
    target=target,
    status=status,
    where=where,
    targets=targets,
    verbs=frozenset({"eval"}),
)
