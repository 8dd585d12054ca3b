"""AMD GPU targets: families, processors, target features and the two profiles.

Two sources of truth are kept side by side (see ``docs/differences.md``):

``reference``
    The reference document's availability table, by GPU family.  A processor
    name stands for its family; processors that belong to none of the
    reference's families are not known in this profile.
``llvm``
    What clang accepts: each builtin needs one target feature, and each
    processor has a fixed set of features.  A family has a feature when
    *every* one of its processors has it (so code written for "a CDNA3 GPU"
    compiles for all of them).
"""

from __future__ import annotations

import difflib

from ..core.errors import UnknownTarget, quote
from ..core.values import describe

PROFILES = ("reference", "llvm")

FAMILIES = ("CDNA", "CDNA2", "CDNA3", "CDNA4", "RDNA2", "RDNA3", "RDNA3.5", "RDNA4")

FEATURES = ("dot1-insts", "dot2-insts", "dot7-insts", "dot8-insts")


def _gfx(first: int, last: int) -> tuple[str, ...]:
    return tuple(f"gfx{n}" for n in range(first, last + 1))


# Processor -> family, for the processors the reference's families cover.
FAMILY_PROCESSORS: dict[str, tuple[str, ...]] = {
    "CDNA": ("gfx908",),
    "CDNA2": ("gfx90a",),
    "CDNA3": ("gfx940", "gfx941", "gfx942"),
    "CDNA4": ("gfx950",),
    "RDNA2": _gfx(1030, 1036),
    "RDNA3": _gfx(1100, 1103),
    "RDNA3.5": _gfx(1150, 1153),
    "RDNA4": ("gfx1200", "gfx1201"),
}

_DOT127 = frozenset({"dot1-insts", "dot2-insts", "dot7-insts"})
_DOT78 = frozenset({"dot7-insts", "dot8-insts"})
_NONE: frozenset = frozenset()

# Processor -> the dot target features clang gives it (llvm profile), in
# the order the processors are listed by ``intdot table --processors``.
PROCESSOR_FEATURES: dict[str, frozenset] = {
    "gfx900": _NONE,
    "gfx906": _DOT127,
    "gfx908": _DOT127,
    "gfx90a": _DOT127,
    "gfx940": _DOT127,
    "gfx941": _DOT127,
    "gfx942": _DOT127,
    "gfx950": _DOT127,
    "gfx1010": _NONE,
    "gfx1011": _DOT127,
    "gfx1012": _DOT127,
    "gfx1013": _NONE,
    **{p: _DOT127 for p in _gfx(1030, 1036)},
    **{p: _DOT78 for p in _gfx(1100, 1103) + _gfx(1150, 1153) + ("gfx1200", "gfx1201", "gfx1250", "gfx1251")},
}

PROCESSOR_FAMILY: dict[str, str] = {p: fam for fam, procs in FAMILY_PROCESSORS.items() for p in procs}


def _check_tables() -> None:
    # The tables are data typed in by hand: check they agree with each other once, at import.
    if tuple(FAMILY_PROCESSORS) != FAMILIES:
        raise ValueError("FAMILY_PROCESSORS must list the families in FAMILIES order")
    for proc in PROCESSOR_FAMILY:
        if proc not in PROCESSOR_FEATURES:
            raise ValueError(f"{proc} has a family but no feature set")
    for proc, feats in PROCESSOR_FEATURES.items():
        if not feats <= set(FEATURES):
            raise ValueError(f"{proc} has unknown features {sorted(feats - set(FEATURES))}")


_check_tables()


def check_profile(profile) -> str:
    """Validate a profile name."""
    if not isinstance(profile, str) or profile not in PROFILES:
        raise UnknownTarget(f"profile={describe(profile)} is not known; expected one of {', '.join(PROFILES)}")
    return profile


def processors(profile: str = "reference") -> tuple[str, ...]:
    """The processor names known in ``profile``, in table order."""
    check_profile(profile)
    if profile == "reference":
        return tuple(PROCESSOR_FAMILY)
    return tuple(PROCESSOR_FEATURES)


def compress(names) -> str:
    """``gfx1030, gfx1031, ..., gfx1036`` -> ``gfx1030-gfx1036`` (runs of 3 or more)."""
    names = list(names)
    out, i = [], 0
    while i < len(names):
        j = i
        while (
            j + 1 < len(names)
            and names[j].startswith("gfx")
            and names[j + 1].startswith("gfx")
            and names[j][3:].isdigit()
            and names[j + 1][3:].isdigit()
            and int(names[j + 1][3:]) == int(names[j][3:]) + 1
        ):
            j += 1
        if j - i >= 2:
            out.append(f"{names[i]}-{names[j]}")
        else:
            out.extend(names[i : j + 1])
        i = j + 1
    return ", ".join(out)


def canonical_name(name, profile: str = "reference") -> str:
    """The canonical spelling of a family or processor name (case-insensitive),
    or :class:`~intdot.errors.UnknownTarget` listing what is accepted."""
    check_profile(profile)
    if not isinstance(name, str):
        raise UnknownTarget(
            f"target={describe(name)} is not a target name; expected a family or processor name "
            "such as 'CDNA3' or 'gfx942'"
        )
    key = name.strip().lower()
    for fam in FAMILIES:
        if fam.lower() == key:
            return fam
    for proc in processors(profile):
        if proc == key:
            return proc
    if profile == "reference" and key in PROCESSOR_FEATURES:
        raise UnknownTarget(
            f"target={quote(name)} belongs to none of the reference's families, so the reference profile does not "
            f"know it; use profile='llvm' (known there), or one of the families {', '.join(FAMILIES)}"
        )
    known = {n.lower(): n for n in FAMILIES + processors(profile)}
    close = [known[k] for k in difflib.get_close_matches(key, known, n=3, cutoff=0.75)] if len(key) <= 100 else []
    hint = f" (did you mean {' or '.join(close)}?)" if close else ""
    raise UnknownTarget(
        f"target={quote(name)} is not known in the {profile} profile{hint}; expected a family "
        f"({', '.join(FAMILIES)}) or a processor ({compress(processors(profile))})"
    )


def family_features(family: str) -> frozenset:
    """The features every processor of ``family`` has (llvm profile)."""
    feats = [PROCESSOR_FEATURES[p] for p in FAMILY_PROCESSORS[family]]
    return frozenset.intersection(*feats)
