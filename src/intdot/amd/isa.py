"""The AMD builtins as the ISA layer sees them: catalog records, targets, availability.

Records come from the builtin table (:data:`intdot.amd.builtins.BUILTINS`), one per
builtin; targets are GPU families and processors in two profiles (the reference's table
by family, or clang's target features).  Where the two profiles answer differently for a
target, the answer carries the other one as a note, so a one-line answer is honest
about it.
"""

from __future__ import annotations

from ..core.errors import UnknownTarget
from ..core.features import evaluate
from ..isa.record import Instruction, k_step
from ..isa.registry import Availability, FrontEnd
from ..isa.targets import Target
from .builtins import BUILTINS, PREFIX
from .target import unavailable_message, where_available
from .targets import (
    FAMILIES,
    FAMILY_PROCESSORS,
    FEATURES,
    PROCESSOR_FAMILY,
    PROCESSOR_FEATURES,
    PROFILES,
    canonical_name,
    check_profile,
    family_features,
    processors,
)


def records() -> list[Instruction]:
    out = []
    for row in BUILTINS:
        sign_args = row.src0 == "flag"
        spec = row.spec(True, True) if sign_args else row.spec()
        out.append(
            Instruction(
                isa="amd",
                name=f"amd.{row.name}",
                mnemonic=row.name,
                spellings=(row.name, PREFIX + row.name),
                spec=spec,
                k_step=k_step(spec),
                neg=None,
                clamp=None,
                sign_args=sign_args,
                features=row.feature,
                syntax=row.c_signature("reference"),
                summary=row.summary,
                row=row,
            )
        )
    return out


def target(text, profile: str = "reference") -> Target:
    name = canonical_name(text, check_profile(profile))
    if name in FAMILIES:
        return Target("amd", name, family_features(name), "family", name)
    return Target("amd", name, PROCESSOR_FEATURES[name], "processor", PROCESSOR_FAMILY.get(name, ""), name)


def _has(rec: Instruction, t: Target, profile: str) -> bool:
    if profile == "reference":  # the reference's table is by family, not by feature
        return (t.name if t.kind == "family" else PROCESSOR_FAMILY[t.name]) in rec.row.families
    return evaluate(rec.features, t.features)


def _other(rec: Instruction, text: str, profile: str) -> str:
    """What the other profile says, where it differs: a note for the same line."""
    other = "llvm" if profile == "reference" else "reference"
    try:
        t = target(text, other)
    except UnknownTarget:
        return ""
    mine = _has(rec, target(text, profile), profile)
    if _has(rec, t, other) == mine:
        return ""
    if other == "llvm":
        said = (
            f"clang-19 accepts {rec.row.full_name} there"
            if not mine
            else (f"clang-19 refuses {rec.row.full_name} there: it needs target feature {rec.features}")
        )
        return f"{said} (profile 'llvm')"
    said = "lists it for that family" if not mine else "does not list it for that family"
    return f"the reference {said} (profile 'reference')"


def status(rec: Instruction, t: Target, profile: str) -> Availability:
    ok = _has(rec, t, profile)
    note = _other(rec, t.name, profile)
    return Availability(ok, "" if ok else unavailable_message(rec.row, t.name, profile), note)


def where(rec: Instruction, profile: str) -> tuple[str, ...]:
    return where_available(rec.mnemonic, profile)


def targets(profile: str = "reference") -> list[Target]:
    return [target(n, profile) for n in list(FAMILY_PROCESSORS) + list(processors(profile))]


FRONT_END = FrontEnd(
    isa="amd",
    title="AMD",
    target_help="an AMD GPU family or processor (CDNA3, gfx942)",
    records=records,
    target=target,
    status=status,
    where=where,
    targets=targets,
    noun="builtin",
    profiles=PROFILES,
    listed_features=FEATURES,
    verbs=frozenset({"eval", "table"}),
)
