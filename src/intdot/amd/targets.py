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

# Target ID features (clang's ``--offload-arch`` / ``-mcpu`` suffixes ``:sramecc+``, ``:xnack-``): what each
# processor takes.  They change no dot builtin's availability; they are checked so that a target ID clang
# refuses is refused here too.
_X = ("xnack",)
_SX = ("sramecc", "xnack")

# Processor -> (the dot target features clang gives it (llvm profile), the target ID features it takes), in
# the order the processors are listed by ``intdot table --processors``.  The ``-generic`` targets are clang's
# generic processors (code that runs on every processor of a generation range); each follows its range.
# fmt: off
_TABLE: dict[str, tuple[frozenset, tuple[str, ...]]] = {
    "gfx900": (_NONE, _X), "gfx902": (_NONE, _X), "gfx904": (_NONE, _X),
    "gfx906": (_DOT127, _SX), "gfx908": (_DOT127, _SX), "gfx909": (_NONE, _X), "gfx90a": (_DOT127, _SX),
    "gfx90c": (_NONE, _X),
    "gfx940": (_DOT127, _SX), "gfx941": (_DOT127, _SX), "gfx942": (_DOT127, _SX), "gfx950": (_DOT127, _SX),
    "gfx9-generic": (_NONE, _X),
    "gfx1010": (_NONE, _X), "gfx1011": (_DOT127, _X), "gfx1012": (_DOT127, _X), "gfx1013": (_NONE, _X),
    "gfx10-1-generic": (_NONE, _X),
    **{p: (_DOT127, ()) for p in _gfx(1030, 1036)},
    "gfx10-3-generic": (_DOT127, ()),
    **{p: (_DOT78, ()) for p in _gfx(1100, 1103) + _gfx(1150, 1153)},
    "gfx11-generic": (_DOT78, ()),
    **{p: (_DOT78, ()) for p in ("gfx1200", "gfx1201", "gfx1250", "gfx1251")},
    "gfx12-generic": (_DOT78, ()),
}
# fmt: on

#: Processor -> the dot target features clang gives it (llvm profile).
PROCESSOR_FEATURES: dict[str, frozenset] = {p: f for p, (f, _) in _TABLE.items()}
#: Processor -> the target ID features clang takes after its name (``gfx90a:sramecc+:xnack-``).
TARGET_ID_FEATURES: dict[str, tuple[str, ...]] = {p: t for p, (_, t) in _TABLE.items()}

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


# LLVM's processors before gfx9 (GCN 1 to 3, by name and by alias; llvm-mc 19's -mcpu=help): none has a dot
# instruction or builtin, and their encodings are a generation intdot does not have.
BEFORE_GFX9: frozenset = frozenset(
    ("gfx600", "gfx601", "gfx602", "gfx700", "gfx701", "gfx702", "gfx703", "gfx704", "gfx705", "gfx801", "gfx802",
     "gfx803", "gfx805", "gfx810", "bonaire", "carrizo", "fiji", "hainan", "hawaii", "iceland", "kabini", "kaveri",
     "mullins", "oland", "pitcairn", "polaris10", "polaris11", "stoney", "tahiti", "tonga", "tongapro", "verde")
)  # fmt: skip


def _check_name(key: str, name: str, profile: str) -> str:
    """The canonical spelling of family or processor ``key`` (lower case, no target ID features) of the
    user's text ``name``."""
    for fam in FAMILIES:
        if fam.lower() == key:
            return fam
    if key in processors(profile):
        return key
    if key in BEFORE_GFX9:
        raise UnknownTarget(
            f"target={quote(name)} is a processor before gfx9, which has no dot builtin (the first are gfx906's); "
            f"expected a family ({', '.join(FAMILIES)}) or a processor ({compress(processors(profile))})"
        )
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


def _id_features(text: str, argument: str, head: str, parts: list[str]) -> tuple[tuple[str, str], ...]:
    """The ``(feature, sign)`` pairs of a target ID's ``:feature+`` / ``:feature-`` parts, as clang checks them."""
    allowed = TARGET_ID_FEATURES[head]
    takes = (
        f"{head} takes {' and '.join(f'{f}+ or {f}-' for f in allowed)}, each at most once"
        if allowed
        else f"{head} takes no target ID features"
    )
    example = f" (as in {head}:{':'.join(f + '+' for f in allowed)})" if allowed else ""
    if parts and parts[-1] == "":
        parts = parts[:-1]  # clang reads 'gfx90a:' and 'gfx90a:xnack+:' as if the last ':' were not there
    seen: dict[str, str] = {}
    for part in parts:
        name, sign = part[:-1], part[-1:]
        if sign not in ("+", "-") or name not in allowed or name in seen:
            why = (
                f"feature {quote(name)} is given twice"
                if name in seen and sign in ("+", "-")
                else f"{quote(part)} is not a target ID feature of {head}"
            )
            raise UnknownTarget(f"{argument}={quote(text)}: {why}; {takes}{example}")
        seen[name] = sign
    return tuple(sorted(seen.items()))


def parse_target_id(name, profile: str = "reference", *, argument: str = "target") -> tuple[str, tuple]:
    """A target name or clang target ID split into its canonical family or processor name and its
    target ID features, sorted as clang writes them: ``"gfx90a:xnack-:sramecc+"`` ->
    ``("gfx90a", (("sramecc", "+"), ("xnack", "-")))``.

    A target ID is a processor, then ``:feature+`` or ``:feature-`` for each feature the processor takes
    (:data:`TARGET_ID_FEATURES`), each at most once, as clang's ``--offload-arch`` and ``-mcpu`` take them.
    The features change no dot builtin's availability.  :class:`~intdot.errors.UnknownTarget` for a name
    the profile does not know, a family with features, or a feature the processor does not take.

    >>> parse_target_id("gfx90a:xnack-:sramecc+", "llvm")
    ('gfx90a', (('sramecc', '+'), ('xnack', '-')))
    """
    check_profile(profile)
    if not isinstance(name, str):
        raise UnknownTarget(
            f"{argument}={describe(name)} is not a target name; expected a family or processor name "
            "such as 'CDNA3' or 'gfx942', or a target ID such as 'gfx90a:sramecc+:xnack-'"
        )
    head, *parts = name.strip().lower().split(":")
    canonical = _check_name(head, name, profile)
    if not parts:
        return canonical, ()
    if canonical in FAMILIES:
        raise UnknownTarget(
            f"{argument}={quote(name)}: target ID features follow a processor, not a family; "
            f"name one of {canonical}'s processors ({compress(FAMILY_PROCESSORS[canonical])})"
        )
    return canonical, _id_features(name, argument, canonical, parts)


def target_id(name, profile: str = "reference") -> str:
    """The canonical spelling of a target name or target ID: ``"GFX90A:xnack-:sramecc+"`` ->
    ``"gfx90a:sramecc+:xnack-"`` (features in clang's order)."""
    head, features = parse_target_id(name, profile)
    return ":".join([head, *(f + sign for f, sign in features)])


def canonical_name(name, profile: str = "reference") -> str:
    """The canonical spelling of a family or processor name (case-insensitive), or
    :class:`~intdot.errors.UnknownTarget` listing what is accepted.  A target ID (``gfx90a:xnack+``) names
    its processor; its features are checked (:func:`parse_target_id`) and left out."""
    return parse_target_id(name, profile)[0]


def family_features(family: str) -> frozenset:
    """The features every processor of ``family`` has (llvm profile)."""
    feats = [PROCESSOR_FEATURES[p] for p in FAMILY_PROCESSORS[family]]
    return frozenset.intersection(*feats)
