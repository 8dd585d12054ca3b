"""The x86 dot instructions as the ISA layer sees them: catalog records, targets, availability.

One record per row of :data:`intdot.x86.instructions.ROWS`, spelt by its mnemonic, its other
assembler spellings and the intrinsics that compile to it (:mod:`intdot.x86.intrinsics`).
Targets are ``-march`` strings with ``+feature``/``+nofeature`` (:mod:`intdot.x86.targets`).
"""

from __future__ import annotations

from ..isa.record import Instruction, k_step
from ..isa.registry import model_front_end
from .instructions import ROWS
from .targets import MODEL


def records() -> list[Instruction]:
    from .intrinsics import BY_INSTRUCTION

    out = []
    for r in ROWS:
        # AMX's intrinsics name tile registers by number (_tile_dpbusd(0, 1, 2)): the tile functions of
        # intdot.x86.amx compute them; the idiom's parts (_mm*_maddubs_epi16, _mm*_madd_epi16) are not the
        # idiom's dot step, so they are intrinsics of x86.eval alone, not spellings of a record.
        amx = (f"_tile_{r.mnemonic[1:]}",) if r.kind == "tile" else ()
        names = (r.mnemonic, *r.spellings, *BY_INSTRUCTION.get(r.mnemonic, ()), *amx)
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


def spelling(name: str) -> tuple[str, str] | None:
    """What the spelling ``name`` needs beyond its record, for the catalog's availability: an intrinsic's own
    features (clang-19's), or an encoding's: ``{vex} vpdpbusd`` is AVX-VNNI's form alone, and the VEX-encoded
    ``vpmaddubsw`` needs AVX where the legacy ``pmaddubsw`` needs SSSE3."""
    from .intrinsics import INTRINSICS

    row = INTRINSICS.get(name)
    if row is not None:
        return row.features, row.label
    text = " ".join(name.lower().split())
    if text.startswith("{vex} "):
        return "avxvnni", "its VEX encoding, AVX-VNNI's"
    if text.startswith("vpmaddubsw"):
        return "avx", "VEX-encoded"
    return None


FRONT_END = model_front_end(
    MODEL,
    records,
    isa="x86",
    title="x86",
    target_help="an x86 level or processor (x86-64-v3+avxvnni, sapphirerapids)",
    verbs=frozenset({"eval"}),
    spelling=spelling,
)
