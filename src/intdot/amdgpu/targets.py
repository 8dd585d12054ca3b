"""The processors of the AMD GPU instructions: generation (which encodings), LLVM dot features, wave size.

The processor list is :data:`intdot.amd.targets.PROCESSOR_FEATURES`'s; this table adds the dot
features that gate the VOP2 dots (``dot3-insts`` ``v_dot8c_i32_i4``, ``dot4-insts``
``v_dot2c_i32_i16``, ``dot6-insts`` ``v_dot4c_i32_i8``), the encoding generation, and whether
llvm-mc 19 knows the processor (where it does not, encodings are not offered: nothing here can
check them).  ``tests/amdgpu`` checks every row against llvm-mc 19 and against the builtins' table.

>>> GENERATION["gfx942"], GENERATION["gfx1151"], sorted(FEATURES["gfx1030"])
('gfx9', 'gfx11', ['dot1-insts', 'dot2-insts', 'dot5-insts', 'dot6-insts', 'dot7-insts'])
"""

from __future__ import annotations

import difflib

from ..amd.targets import BEFORE_GFX9, PROCESSOR_FEATURES, parse_target_id
from ..core.errors import UnknownTarget, quote

GENERATIONS = ("gfx9", "gfx10", "gfx11", "gfx12")

_NONE: frozenset = frozenset()
_GFX906 = frozenset({"dot1-insts", "dot2-insts", "dot7-insts"})
_CDNA = frozenset({f"dot{n}-insts" for n in range(1, 8)})
_RDNA2 = frozenset({"dot1-insts", "dot2-insts", "dot5-insts", "dot6-insts", "dot7-insts"})
_RDNA3 = frozenset({"dot7-insts", "dot8-insts"})

# processor -> (generation, dot features, llvm-mc 19 knows it)
# fmt: off
_TABLE: dict[str, tuple[str, frozenset, bool]] = {
    "gfx900": ("gfx9", _NONE, True),
    "gfx902": ("gfx9", _NONE, True),
    "gfx904": ("gfx9", _NONE, True),
    "gfx906": ("gfx9", _GFX906, True),
    "gfx908": ("gfx9", _CDNA, True),
    "gfx909": ("gfx9", _NONE, True),
    "gfx90a": ("gfx9", _CDNA, True),
    "gfx90c": ("gfx9", _NONE, True),
    "gfx940": ("gfx9", _CDNA, True),
    "gfx941": ("gfx9", _CDNA, True),
    "gfx942": ("gfx9", _CDNA, True),
    "gfx950": ("gfx9", _CDNA, False),
    "gfx9-generic": ("gfx9", _NONE, True),
    "gfx1010": ("gfx10", _NONE, True),
    "gfx1011": ("gfx10", _RDNA2, True),
    "gfx1012": ("gfx10", _RDNA2, True),
    "gfx1013": ("gfx10", _NONE, True),
    "gfx10-1-generic": ("gfx10", _NONE, True),
    **{f"gfx{n}": ("gfx10", _RDNA2, True) for n in range(1030, 1037)},
    "gfx10-3-generic": ("gfx10", _RDNA2, True),
    **{f"gfx{n}": ("gfx11", _RDNA3, True) for n in (1100, 1101, 1102, 1103, 1150, 1151, 1152)},
    "gfx1153": ("gfx11", _RDNA3, False),
    "gfx11-generic": ("gfx11", _RDNA3, True),
    "gfx1200": ("gfx12", _RDNA3, True),
    "gfx1201": ("gfx12", _RDNA3, True),
    "gfx1250": ("gfx12", _RDNA3, False),
    "gfx1251": ("gfx12", _RDNA3, False),
    "gfx12-generic": ("gfx12", _RDNA3, True),
}
# fmt: on

if tuple(_TABLE) != tuple(PROCESSOR_FEATURES):
    raise ValueError("intdot.amdgpu.targets must list the processors of intdot.amd.targets, in its order")

PROCESSORS: tuple[str, ...] = tuple(_TABLE)
GENERATION: dict[str, str] = {p: g for p, (g, _, _) in _TABLE.items()}
FEATURES: dict[str, frozenset] = {p: f for p, (_, f, _) in _TABLE.items()}
LLVM_MC_KNOWS: frozenset = frozenset(p for p, (_, _, k) in _TABLE.items() if k)


def wave_sizes(mcpu: str) -> tuple[int, ...]:
    """The wave sizes a processor runs (the first is its default): gfx9 64; gfx10 and later 32 and 64."""
    return (64,) if GENERATION[mcpu] == "gfx9" else (32, 64)


def check_mcpu(mcpu, *, encodings: bool = False) -> str:
    """A processor name as this table spells it, or :class:`~intdot.errors.UnknownTarget`.

    A clang target ID (``gfx90a:sramecc+:xnack-``) names its processor; its features are checked as clang
    checks them (:func:`intdot.amd.targets.parse_target_id`) and change no instruction.  With
    ``encodings=True`` a processor that llvm-mc 19 does not know is refused too: its encodings could not be
    checked here.
    """
    key = mcpu.strip().lower() if isinstance(mcpu, str) else None
    if key is not None and ":" in key and key.split(":")[0] in _TABLE:
        key = parse_target_id(mcpu, "llvm", argument="mcpu")[0]
    if key in _TABLE:
        if encodings and key not in LLVM_MC_KNOWS:
            raise UnknownTarget(
                f"mcpu={quote(mcpu)}: llvm-mc 19 does not know {key}, so intdot has no checked encodings for it; "
                f"expected one of {', '.join(p for p in PROCESSORS if p in LLVM_MC_KNOWS)}"
            )
        return key
    if key in BEFORE_GFX9:
        raise UnknownTarget(
            f"mcpu={quote(mcpu)} is a processor before gfx9, which has no dot instruction (the first are gfx906's) "
            f"and an encoding generation intdot does not model; expected one of {', '.join(PROCESSORS)}"
        )
    close = difflib.get_close_matches((key or "").split(":")[0], PROCESSORS, n=3, cutoff=0.75)
    hint = f" (did you mean {' or '.join(close)}?)" if close else ""
    from ..core.values import describe  # imports NumPy: only for the error

    raise UnknownTarget(
        f"mcpu={describe(mcpu)} is not a known AMD GPU processor{hint}; expected one of {', '.join(PROCESSORS)}"
    )


__all__ = [
    "BEFORE_GFX9",
    "FEATURES",
    "GENERATION",
    "GENERATIONS",
    "LLVM_MC_KNOWS",
    "PROCESSORS",
    "check_mcpu",
    "wave_sizes",
]
