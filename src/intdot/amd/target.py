"""Availability of the builtins, and the :class:`Target` object."""

from __future__ import annotations

from ..core.errors import OperandError, UnsupportedOnTarget, quote
from ..core.values import describe
from .builtins import BUILTINS, PREFIX, Builtin, lookup
from .functions import make
from .targets import (
    FAMILIES,
    FAMILY_PROCESSORS,
    PROCESSOR_FAMILY,
    PROCESSOR_FEATURES,
    canonical_name,
    check_profile,
    compress,
    family_features,
    parse_target_id,
    processors,
)


class BuiltinUnavailable(UnsupportedOnTarget, AttributeError):
    """A builtin the target lacks, asked for as an attribute of a :class:`Target`.

    It is an :class:`~intdot.errors.UnsupportedOnTarget`; being an
    ``AttributeError`` too keeps ``hasattr(target, "sdot4")`` and
    ``getattr(target, "sdot4", None)`` working.
    """


def _features(name: str) -> frozenset:
    return family_features(name) if name in FAMILIES else PROCESSOR_FEATURES[name]


def _available(row: Builtin, name: str, profile: str) -> bool:
    """``name`` is canonical and known in ``profile``."""
    if profile == "reference":
        return (name if name in FAMILIES else PROCESSOR_FAMILY[name]) in row.families
    return row.feature in _features(name)


def available(builtin, target, profile: str = "reference") -> bool:
    """Whether ``builtin`` exists on ``target`` (a family or processor name).

    Parameters
    ----------
    builtin : str
        ``"sdot4"`` or ``"__builtin_amdgcn_sdot4"``.
    target : str
        A family (``"CDNA3"``) or processor (``"gfx942"``), or a clang target ID
        (``"gfx90a:sramecc+:xnack-"``: its features change no builtin); case-insensitive.
    profile : {"reference", "llvm"}
        ``"reference"``: the reference document's table by family.
        ``"llvm"``: clang's target features; a family has a builtin when every
        one of its processors has it.

    Examples
    --------
    >>> from intdot import amd
    >>> amd.available("sudot4", "gfx1030")
    True
    >>> amd.available("sudot4", "gfx1030", profile="llvm")
    False
    >>> amd.available("__builtin_amdgcn_sdot4", "RDNA2", profile="llvm")
    True
    """
    row = lookup(builtin)
    return _available(row, canonical_name(target, profile), check_profile(profile))


def where_available(builtin, profile: str = "reference", *, by: str = "family") -> tuple[str, ...]:
    """The families (``by="family"``) or processors (``by="processor"``) that have ``builtin``.

    >>> from intdot import amd
    >>> amd.where_available("sudot8", "llvm")
    ('RDNA3', 'RDNA3.5', 'RDNA4')
    >>> amd.where_available("sdot2", "llvm", by="processor")[:3]
    ('gfx906', 'gfx908', 'gfx90a')
    """
    row, profile = lookup(builtin), check_profile(profile)
    if not isinstance(by, str) or by not in ("family", "processor"):
        raise OperandError(f"by={describe(by)} is not known; expected 'family' or 'processor'")
    names = FAMILIES if by == "family" else processors(profile)
    return tuple(n for n in names if _available(row, n, profile))


def unavailable_message(row: Builtin, name: str, profile: str) -> str:
    where = f"{name} ({compress(FAMILY_PROCESSORS[name])})" if name in FAMILIES else name
    if profile == "reference":
        fams = where_available(row, profile)
        if name not in FAMILIES:
            where = f"{name} (family {PROCESSOR_FAMILY[name]})"
        return (
            f"{row.name} is not available on {where} in the reference profile; "
            f"the reference lists it for {', '.join(fams)}"
        )
    have = ", ".join(sorted(_features(name))) or "no dot features"
    if name in FAMILIES:
        lacking = [p for p in FAMILY_PROCESSORS[name] if row.feature not in PROCESSOR_FEATURES[p]]
        who = "none" if len(lacking) == len(FAMILY_PROCESSORS[name]) else "not every one"
        why = f"{who} of its processors has target feature {row.feature} (lacking it: {compress(lacking)})"
    else:
        why = f"it lacks target feature {row.feature} (it has {have})"
    procs = where_available(row, profile, by="processor")
    return (
        f"{row.name} is not available on {where} in the llvm profile: {why}, which clang requires "
        f"for {row.full_name}; processors with {row.feature}: {compress(procs)}"
    )


class Target:
    """A GPU family or processor in one profile; its builtins are attributes.

    Attributes named after a builtin (short or ``__builtin_amdgcn_`` spelling)
    are the profile's functions when the target has the builtin; otherwise
    they raise :class:`~intdot.errors.UnsupportedOnTarget` saying where the
    builtin is available (and, in the llvm profile, which feature is missing).

    A clang target ID (``gfx90a:sramecc+:xnack-``) names its processor: ``name`` is the processor,
    ``target_id`` the ID as clang writes it (features sorted); the features change no builtin.

    Examples
    --------
    >>> from intdot import amd
    >>> t = amd.target("gfx942")
    >>> t.family, t.sdot4(0x01020304, 0x05060708, 10, False)
    ('CDNA3', 80)
    >>> amd.target("gfx90a:xnack-:sramecc+", profile="llvm")
    Target('gfx90a:sramecc+:xnack-', profile='llvm')
    >>> amd.target("RDNA3", profile="llvm").sudot4(True, -1, False, -1, 0, False)
    -1020
    """

    def __init__(self, name, profile: str = "reference"):
        self.profile = check_profile(profile)
        self.name, features = parse_target_id(name, profile)
        self.target_id = ":".join([self.name, *(f + sign for f, sign in features)])
        self.is_family = self.name in FAMILIES
        self.family = self.name if self.is_family else PROCESSOR_FAMILY.get(self.name)
        self.processors = FAMILY_PROCESSORS[self.name] if self.is_family else (self.name,)
        # Features are what clang knows; they are shown in both profiles but gate only the llvm one.
        self.features = tuple(sorted(_features(self.name)))
        self.builtins = tuple(r.name for r in BUILTINS if _available(r, self.name, profile))

    def available(self, builtin) -> bool:
        """Whether this target has ``builtin`` in this profile."""
        return _available(lookup(builtin), self.name, self.profile)

    def builtin(self, builtin):
        """The function for ``builtin``, or :class:`~intdot.errors.UnsupportedOnTarget`."""
        row = lookup(builtin)
        if not _available(row, self.name, self.profile):
            raise BuiltinUnavailable(unavailable_message(row, self.name, self.profile))
        return make(row.name, self.profile)

    def __getattr__(self, attr):
        # Only builtin names resolve here; anything else (dunder lookups by copy/pickle, typos) is the
        # ordinary AttributeError.
        if attr.startswith("_") and not attr.startswith(PREFIX):
            raise AttributeError(attr)
        try:
            lookup(attr)
        except ValueError:
            raise AttributeError(f"Target has no attribute {quote(attr)}") from None
        return self.builtin(attr)

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self.builtins))

    def __repr__(self):
        return f"Target({self.target_id!r}, profile={self.profile!r})"

    def __eq__(self, other):
        return isinstance(other, Target) and (self.target_id, self.profile) == (other.target_id, other.profile)

    def __hash__(self):
        return hash((self.target_id, self.profile))


def target(name, profile: str = "reference") -> Target:
    """The :class:`Target` for a family or processor name in ``profile``.

    Raises :class:`~intdot.errors.UnknownTarget` (listing the accepted names)
    for a name the profile does not know.

    >>> from intdot import amd
    >>> amd.target("cdna3").processors
    ('gfx940', 'gfx941', 'gfx942')
    >>> amd.target("gfx1030", profile="llvm").builtins
    ('udot4', 'udot8', 'sdot4', 'sdot8', 'sdot2', 'udot2')
    """
    return Target(name, profile)
