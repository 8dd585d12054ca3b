"""The registry of ISA front ends: one line per ISA.

Adding an ISA is a folder of tables under ``intdot/`` whose ``isa`` module defines
``FRONT_END`` (a :class:`FrontEnd`), and one line in :data:`FRONT_ENDS`.  Everything
above this layer (the catalog, ``gemm``, the command line) iterates :func:`front_ends`
and never asks which ISA it holds.  A front end's module is imported on first use only.

>>> from intdot.isa.registry import front_end, ISAS
>>> ISAS[:2], front_end("arm").title
(('amd', 'arm'), 'Arm')
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from ..core.errors import OperandError

if TYPE_CHECKING:  # annotations only: the command line reads ISAS at start-up, and pays for what this imports
    from .record import Instruction
    from .targets import Target

# fmt: off
FRONT_ENDS: tuple[tuple[str, str], ...] = (
    ("amd", "intdot.amd.isa"),
    ("arm", "intdot.arm.isa"),
    ("x86", "intdot.x86.isa"),
    ("nvidia", "intdot.nvidia.isa"),
    ("amdgpu", "intdot.amdgpu.isa"),
)
# fmt: on
ISAS = tuple(isa for isa, _ in FRONT_ENDS)


@dataclass(frozen=True)
class Availability:
    """One availability answer: ``ok``; ``why`` says what is missing when not; ``note`` is a caveat that
    belongs on the same line (another profile's different answer, a mode the instruction needs).

    ``mode`` is set by ISAs whose availability depends on the processor's mode (Arm's streaming
    mode): ``"both"``, ``"normal"`` (outside streaming mode only), ``"streaming"`` (in streaming
    mode only) or ``"none"``; ``""`` elsewhere."""

    ok: bool
    why: str = ""
    note: str = ""
    mode: str = ""


@dataclass(frozen=True, eq=False)
class FrontEnd:
    """What one ISA exports to the layers above.

    ``records()`` gives its catalog records; ``target(text, profile)`` parses a target
    (:class:`~intdot.isa.targets.Target`); ``status(record, target, profile)`` answers
    availability; ``where(record, profile)`` names the targets that have a record;
    ``targets(profile)`` lists the named targets; ``modes`` says the ISA has a streaming mode (its
    ``status`` then takes ``streaming=None|True|False``); ``parse_text(text)`` finds the
    record an assembly line spells (None where the line is not this ISA's).
    ``verbs`` names the command-line verbs the ISA has (``asm``, ``disasm``, ``exec``,
    ``eval``, ``table``): data only, the command line owns the handlers.
    ``spelling(name)`` gives ``(features, label)`` for a spelling that needs more than its record (an x86
    intrinsic whose masked or 128-bit form asks for AVX-512 VL where its instruction does not), else None.
    """

    isa: str
    title: str  # as the ISA's vendor writes it: "AMD", "Arm", "x86", "NVIDIA"
    target_help: str  # what a target is, for messages: "an AMD GPU family or processor (CDNA3, gfx942)"
    records: Callable[[], Iterable[Instruction]]
    target: Callable[[str, str], Target]
    status: Callable[[Instruction, Target, str], Availability]
    where: Callable[[Instruction, str], tuple[str, ...]]
    targets: Callable[[str], Iterable[Target]]
    noun: str = "instruction"  # what its records are: "builtin" for AMD's
    profiles: tuple[str, ...] = ("reference",)  # more than one where the reference and the toolchains differ
    listed_features: tuple[str, ...] = ()  # the features a target listing shows, in order (default: the records')
    parse_text: Callable[[str], str | None] | None = None
    verbs: frozenset = frozenset()
    modes: bool = False
    spelling: Callable[[str], tuple[str, str] | None] | None = None


def _shown(names: tuple[str, ...]) -> str:
    return ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "") if names else "none"


def model_front_end(model, records: Callable[[], Iterable[Instruction]], **fields) -> FrontEnd:
    """A front end whose targets are a :class:`~intdot.isa.targets.FeatureModel` and whose availability is
    each record's feature expression on the target's features (the same in both profiles): the target reader,
    availability, where-available and the target list come from ``model``; ``fields`` are the rest of the
    :class:`FrontEnd` (``isa``, ``title``, ``target_help``, ``parse_text``, ``verbs``, ... or a ``status`` of
    the ISA's own).  A missing feature is named with the first architecture version that has it, and the
    named targets that do."""
    from ..core.features import evaluate, missing

    @cache
    def having(features: str) -> tuple[str, ...]:
        return tuple(n for n in model.names() if evaluate(features, model.target(n).features))

    def status(rec: Instruction, t: Target, profile: str) -> Availability:
        lack = missing(rec.features, t.features)
        if lack is None:
            return Availability(True)
        first = next((a for a in model.archs if evaluate(rec.features, model.arch_features(a))), None)
        since = f" ({first} or later)" if first else ""
        have = [n for n in having(rec.features) if n not in model.archs]
        return Availability(
            False,
            f"{rec.name} ({rec.mnemonic}) is not available on {t.name}: it requires {rec.features}{since}, and "
            f"{t.name} lacks {lack}; {model.kind_names[1]}s that have it: {_shown(tuple(have))}",
        )

    base = dict(
        records=records,
        target=lambda text, profile="reference": model.target(text),
        status=status,
        where=lambda rec, profile: having(rec.features),
        targets=lambda profile="reference": [model.target(n) for n in model.names()],
    )
    return FrontEnd(**{**base, **fields})


@cache
def front_end(isa: str) -> FrontEnd:
    """The front end of ``isa`` (imported on first use)."""
    for name, module in FRONT_ENDS:
        if name == isa:
            fe = importlib.import_module(module).FRONT_END
            if fe.isa != isa:
                raise RuntimeError(f"{module}.FRONT_END says isa={fe.isa!r}, registered as {isa!r}")  # a table bug
            return fe
    from ..core.values import describe  # NumPy: only for the error, not at every start-up

    raise OperandError(f"isa={describe(isa)} is not known; expected one of {', '.join(ISAS)}")


def front_ends() -> tuple[FrontEnd, ...]:
    """Every front end, in registry order."""
    return tuple(front_end(isa) for isa in ISAS)


def check_isa(isa) -> str:
    """``isa`` in its registry spelling (case-insensitive), or an error listing the ISAs."""
    if isinstance(isa, str) and isa.lower() in ISAS:
        return isa.lower()
    from ..core.values import describe  # NumPy: only for the error, not at every start-up

    raise OperandError(f"isa={describe(isa)} is not known; expected one of {', '.join(ISAS)}")


__all__ = ["FRONT_ENDS", "ISAS", "Availability", "FrontEnd", "check_isa", "front_end", "front_ends", "model_front_end"]
