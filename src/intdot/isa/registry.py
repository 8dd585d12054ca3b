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

from ..core.errors import OperandError
from ..core.values import describe
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


@cache
def front_end(isa: str) -> FrontEnd:
    """The front end of ``isa`` (imported on first use)."""
    for name, module in FRONT_ENDS:
        if name == isa:
            fe = importlib.import_module(module).FRONT_END
            if fe.isa != isa:
                raise RuntimeError(f"{module}.FRONT_END says isa={fe.isa!r}, registered as {isa!r}")  # a table bug
            return fe
    raise OperandError(f"isa={describe(isa)} is not known; expected one of {', '.join(ISAS)}")


def front_ends() -> tuple[FrontEnd, ...]:
    """Every front end, in registry order."""
    return tuple(front_end(isa) for isa in ISAS)


def check_isa(isa) -> str:
    """``isa`` in its registry spelling (case-insensitive), or an error listing the ISAs."""
    if isinstance(isa, str) and isa.lower() in ISAS:
        return isa.lower()
    raise OperandError(f"isa={describe(isa)} is not known; expected one of {', '.join(ISAS)}")


__all__ = ["FRONT_ENDS", "ISAS", "Availability", "FrontEnd", "check_isa", "front_end", "front_ends"]
