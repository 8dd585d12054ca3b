"""The catalog: one record per integer dot instruction of every ISA intdot models.

The records are derived from the front ends' own tables (the AMD builtin rows
of :mod:`intdot.amd.builtins`, the Arm form rows of ``intdot.arm.FORMS`` and
the ACLE names of :mod:`intdot.arm.acle`), never kept by hand, and built on
first use so that ``import intdot.catalog`` stays cheap.  Everything that
enumerates instructions (``intdot list``, GEMM, equivalence tables) reads
them here.

>>> from intdot import catalog
>>> r = catalog.find("__builtin_amdgcn_sdot4")
>>> r.name, r.features, r.k_step, r.neg
('amd.sdot4', 'dot1-insts', (4, 4), None)
>>> catalog.find("sudot z0.s, z1.b, z2.b[0]").name
'arm.sudot_sve_indexed'
>>> catalog.available("sdot4", "gfx942"), catalog.available("arm.sudot_sve_indexed", "neoverse-n1")
(True, False)
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from functools import cache, lru_cache

from .core.errors import (
    AmbiguousInstruction,
    OperandError,
    OperandTypeError,
    UnknownInstruction,
    UnknownTarget,
    UnsupportedOnTarget,
    quote,
)
from .core.features import missing, parse
from .core.values import a_or_an, check_flag, describe
from .isa.record import Instruction, spec_fields
from .isa.registry import ISAS, Availability, check_isa, front_end, front_ends

__all__ = [
    "ISAS",
    "PROFILES",
    "AmbiguousInstruction",
    "Availability",
    "Equivalent",
    "Instruction",
    "NotAName",
    "NotInCatalog",
    "available",
    "equivalents",
    "find",
    "find_all",
    "records",
    "require",
    "require_any",
    "status",
    "swapped",
    "where_available",
]

# The reference specs, or what the toolchains (clang/LLVM 19) do; every front end answers in both.
PROFILES = ("reference", "llvm")


class NotInCatalog(UnknownInstruction, LookupError):
    """A name no catalog record answers to; ``suggestions`` holds close spellings."""

    def __init__(self, message: str, suggestions: tuple[str, ...] = ()):
        super().__init__(message)
        self.suggestions = suggestions


class NotAName(NotInCatalog, OperandTypeError):
    """``name`` is not a string (nor a record): no record answers to it, and its type is wrong (a TypeError)."""


@dataclass(frozen=True)
class _Table:
    records: tuple[Instruction, ...]
    index: dict  # exact spelling -> records
    folded: dict  # lower-case spelling -> records
    swapped: frozenset  # lower-case spellings that exchange the sources


def _key(text: str) -> str:
    return " ".join(text.split())


@lru_cache(maxsize=1)
def _table() -> _Table:
    recs = tuple(r for fe in front_ends() for r in fe.records())
    index: dict[str, list] = {}
    folded: dict[str, list] = {}
    for r in recs:
        for s in dict.fromkeys((r.name, *r.spellings)):
            index.setdefault(_key(s), []).append(r)
            folded.setdefault(_key(s).lower(), []).append(r)
    names = [r.name for r in recs]
    if len(set(names)) != len(names):
        raise RuntimeError("two catalog records share a name")  # a bug in a front end's table
    for r in recs:
        parse(r.features)  # an unparsable expression in a table is a bug: fail at build time
    return _Table(
        recs,
        {k: tuple(v) for k, v in index.items()},
        {k: tuple(v) for k, v in folded.items()},
        frozenset(s for r in recs for s in r.swapped),
    )


# ---------------------------------------------------------------------------
# Lookup.
# ---------------------------------------------------------------------------


def records(isa: str | None = None) -> tuple[Instruction, ...]:
    """Every record, in registry order (each ISA in its table's order); or those of one ``isa``."""
    recs = _table().records
    if isa is None:
        return recs
    isa = check_isa(isa)
    return tuple(r for r in recs if r.isa == isa)


def _text(text: str) -> tuple[Instruction, ...] | None:
    """Records for an assembly line (``sdot z0.d, z1.h, z2.h``); ``None`` if no ISA reads it as one."""
    for fe in front_ends():
        name = fe.parse_text(text) if fe.parse_text else None
        if name is not None:
            return _table().index.get(name)
    return None


def find_all(name) -> tuple[Instruction, ...]:
    """Every record ``name`` spells (canonical name, builtin, ACLE name, mnemonic, assembly line).

    Exact spellings are tried first, then the same ignoring case.  Raises
    :class:`NotInCatalog` with close spellings when nothing matches.
    """
    if isinstance(name, Instruction):
        return (name,)
    if not isinstance(name, str):
        raise NotAName(
            f"name={describe(name)} is not an instruction name; expected a string such as 'sdot4', "
            f"'vusdotq_s32' or 'sdot z0.d, z1.h, z2.h'"
        )
    table, key = _table(), _key(name)
    found = table.index.get(key) or table.folded.get(key.lower()) or _text(key)
    if found:
        return found
    close = _suggest(key)
    hint = f" (did you mean {' or '.join(close)}?)" if close else ""
    raise NotInCatalog(
        f"name={quote(name)} is not in intdot's catalog{hint}; expected a builtin (sdot4, "
        f"__builtin_amdgcn_sudot8), an ACLE intrinsic (vdotq_s32), a mnemonic (usdot), a catalog "
        f"name (arm.sudot_sve_indexed) or an assembly line; 'intdot list' shows them all",
        close,
    )


def _suggest(key: str) -> tuple[str, ...]:
    spellings = {s.lower(): s for s in _table().index}
    key = key.lower()
    close = difflib.get_close_matches(key, spellings, n=8, cutoff=0.75)

    # Of equally close spellings, one of the same length is likelier what was meant (sdot5 -> sdot4, not sdot).
    def rank(m: str):
        return (len(m) != len(key), -difflib.SequenceMatcher(None, key, m).ratio())

    return tuple(spellings[m] for m in sorted(close, key=rank)[:4])


def find(name) -> Instruction:
    """The one record ``name`` spells.

    A spelling shared by several records that compute the same thing (the
    mnemonic ``usdot`` names NEON, SVE and SME2 forms of one dot step) gives
    the first of them; one shared by records that differ (``sdot``: 8-bit
    lanes into 32 bits, or 16-bit lanes into 64) raises
    :class:`AmbiguousInstruction` listing them.

    >>> from intdot import catalog
    >>> catalog.find("sudot4").sign_args, catalog.find("arm.sudot_neon_elem_128").lanes
    (True, '4 x s8 . 4 x u8')
    """
    found = find_all(name)
    first = found[0]
    same = (spec_fields(first.spec), first.sign_args, first.clamp)
    if all((spec_fields(r.spec), r.sign_args, r.clamp) == same for r in found):
        return first
    # Grouped by what they compute, a few names each: a spelling such as 'sdot' names dozens of forms.
    groups: dict[str, list[str]] = {}
    for r in found:
        groups.setdefault(f"{r.lanes} -> {r.acc}", []).append(r.name)
    listing = "; ".join(
        f"{what}: {', '.join(names[:3])}" + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        for what, names in groups.items()
    )
    raise AmbiguousInstruction(
        f"name={quote(name)} names {len(found)} instructions that compute different things; pass one of their "
        f"names (catalog.find_all lists them all): {listing}",
        found,
    )


def swapped(name) -> bool:
    """Whether the spelling ``name`` gives the instruction's two sources in the opposite order.

    ACLE writes some mixed-sign intrinsics as the other instruction with its sources exchanged:
    ``svsudot_s32(acc, int8, uint8)`` compiles to USDOT with the uint8 vector first.  The record found for
    such a name is that instruction's, so its first operand's lanes are the spelling's second.

    >>> from intdot import catalog
    >>> catalog.find("svsudot_s32").lanes, catalog.swapped("svsudot_s32"), catalog.swapped("svusdot_s32")
    ('4 x u8 . 4 x s8', True, False)
    """
    if isinstance(name, Instruction):
        return False  # a record is its own instruction, sources in its own order
    find_all(name)  # an unknown or non-string name raises, as find() does
    return _key(name).lower() in _table().swapped


@dataclass(frozen=True)
class Equivalent:
    """How ``record`` computes the same step as the instruction asked about.

    ``swap``: pass the two sources exchanged (``b`` first).  ``a_signed``/``b_signed``: the
    flags to pass where ``record`` takes its signedness as arguments (AMD ``sudot4``);
    ``clamp``: the clamp to pass where it is an argument.  ``given`` holds the asked-about
    instruction's own arguments under which the equivalence holds (``{}`` where it has none).
    ``name``, ``isa`` and ``lanes`` are the record's.
    """

    record: Instruction
    swap: bool = False
    a_signed: bool | None = None
    b_signed: bool | None = None
    clamp: bool | None = None
    given: tuple = ()  # ((argument, value), ...) of the asked-about instruction

    @property
    def name(self) -> str:
        return self.record.name

    @property
    def isa(self) -> str:
        return self.record.isa

    @property
    def lanes(self) -> str:
        return self.record.lanes

    def describe(self) -> str:
        """One line: the record, then how to call it (``sources exchanged``, its flags, its clamp)."""
        how = []
        if self.swap:
            how.append("sources exchanged")
        if self.a_signed is not None:
            how.append(f"a_signed={self.a_signed}, b_signed={self.b_signed}")
        if self.clamp is not None and self.record.clamp is None:
            how.append(f"clamp={self.clamp}")
        if self.given:
            how.append("when " + ", ".join(f"{k}={v}" for k, v in self.given))
        return self.record.name + (f" ({'; '.join(how)})" if how else "")


def _configurations(rec: Instruction):
    """(spec, clamp, a_signed, b_signed, clamp argument) for every way of calling ``rec``."""
    signs = [(a, b) for a in (False, True) for b in (False, True)] if rec.sign_args else [(None, None)]
    clamps = (False, True) if rec.clamp is None else (rec.clamp,)
    for a, b in signs:
        spec = rec.spec_for(a, b) if rec.sign_args else rec.spec
        for c in clamps:
            yield spec, c, a, b, (c if rec.clamp is None else None)


@cache
def _equivalence_index() -> dict:
    """(spec fields, clamp) -> [(record, a_signed, b_signed, clamp argument)], over every record."""
    index: dict = {}
    for r in _table().records:
        for spec, c, a, b, carg in _configurations(r):
            index.setdefault((spec_fields(spec), c), []).append((r, a, b, carg))
    return index


def equivalents(name, *, swap: bool = True) -> tuple[Equivalent, ...]:
    """The other records (any ISA, any form) that compute the same dot step as ``name``, and how to call them.

    Two records are equivalent when some way of calling each (the flags of an instruction that takes its
    signedness as arguments, the clamp of one that takes it, the sources exchanged where ``swap``) gives
    the same step: the same lanes read, products, accumulator and rule.  Derived from the records only.

    >>> from intdot import catalog
    >>> for e in catalog.equivalents("vsudotq_lane_s32"):
    ...     if e.isa == "amd":
    ...         print(e.describe())
    amd.sudot4 (a_signed=True, b_signed=False; clamp=False)
    amd.sudot4 (sources exchanged; a_signed=False, b_signed=True; clamp=False)
    """
    me = find(name)
    swap = check_flag(swap, "swap")  # before 'if swap': NumPy refuses the truth value of an array
    index = _equivalence_index()
    out: dict = {}
    for spec, c, a, b, carg in _configurations(me):
        given = tuple((k, v) for k, v in (("a_signed", a), ("b_signed", b), ("clamp", carg)) if v is not None)
        # A step that reads both sources alike needs no exchange: its exchanged matches are the same ones.
        for exchanged in (False, True) if swap and spec.exchanged() != spec else (False,):
            key = (spec_fields(spec.exchanged() if exchanged else spec), c)
            for r, ra, rb, rc in index.get(key, ()):
                if r is me and not exchanged:
                    continue
                e = Equivalent(r, exchanged, ra, rb, rc, given)
                out.setdefault((r.name, exchanged, ra, rb, rc, given), e)
    return tuple(out.values())


# ---------------------------------------------------------------------------
# Availability.
# ---------------------------------------------------------------------------


def _check_profile(profile) -> str:
    if not isinstance(profile, str) or profile not in PROFILES:
        raise UnknownTarget(f"profile={describe(profile)} is not known; expected one of {', '.join(PROFILES)}")
    return profile


def _status(name, target, profile, streaming=None) -> tuple[Instruction, Availability]:
    rec = find(name)
    profile = _check_profile(profile)
    fe = front_end(rec.isa)
    if streaming is not None and not isinstance(streaming, bool):
        raise OperandError(f"streaming={describe(streaming)} is not a bool; expected True, False or None (either mode)")
    try:
        t = fe.target(target, profile)
    except UnknownTarget as exc:
        raise UnknownTarget(
            f"{rec.name} is an {fe.title} {fe.noun}, so the target is {fe.target_help}: {exc}"
        ) from None
    if not fe.modes and streaming is not None:
        raise OperandError(f"streaming={streaming}: {rec.name} is {fe.title}'s, which has no streaming mode")
    mode = (streaming,) if fe.modes else ()

    def ask(r):
        return _spelling_status(fe, name, t, fe.status(r, t, profile, *mode))

    forms = find_all(name) if isinstance(name, str) else (rec,)  # rec is the first of them
    if len(forms) == 1:
        return rec, ask(rec)
    # A spelling shared by forms that compute the same thing (the mnemonic usdot: NEON, SVE and SME2 forms) is
    # available where any of them is, in the modes their answers cover together.
    answers = [(r, ask(r)) for r in forms]
    ok = [(r, a) for r, a in answers if a.ok]
    if not ok:
        return answers[0]
    if len({a.mode for _, a in ok}) == 1:
        return ok[0]
    # Modes that differ among available forms: one runs in both, or some outside streaming mode and others in it.
    return next(
        ((r, a) for r, a in ok if a.mode == "both"),
        (
            ok[0][0],
            Availability(True, "", f"some of its {len(forms)} forms outside streaming mode, others in it", "both"),
        ),
    )


def _spelled(fe, name) -> tuple[str, str] | None:
    """(features, label) that the spelling ``name`` needs beyond its record (see ``FrontEnd.spelling``), or None."""
    return fe.spelling(name) if fe.spelling is not None and isinstance(name, str) else None


def _spelling_status(fe, name, t, answer: Availability) -> Availability:
    """``answer`` narrowed by what the spelling ``name`` itself needs."""
    extra = _spelled(fe, name) if answer.ok else None
    if extra is None:
        return answer
    features, label = extra
    lack = missing(features, t.features)
    if lack is None:
        return answer
    return Availability(
        False,
        f"{name} ({label}) is not available on {t.name}: it requires {features}, and {t.name} lacks {lack}",
        answer.note,
    )


def status(name, target, *, profile: str = "reference", streaming: bool | None = None) -> Availability:
    """The whole availability answer: ``ok``, ``why`` (what the target lacks) and ``note`` (a caveat for the
    same line: another profile's different answer, a mode the instruction needs) and, on Arm, ``mode``:
    ``both``, ``normal``, ``streaming`` (in streaming mode only) or ``none``.

    >>> from intdot import catalog
    >>> print(catalog.status("sudot4", "gfx1030").note)
    clang-19 refuses __builtin_amdgcn_sudot4 there: it needs target feature dot8-insts (profile 'llvm')
    """
    return _status(name, target, profile, streaming)[1]


def available(name, target, *, profile: str = "reference", streaming: bool | None = None) -> bool:
    """Whether the instruction ``name`` (any spelling) exists on ``target``.

    Each ISA reads its own targets: AMD families or processors (``CDNA3``,
    ``gfx942``) in the ``reference`` profile (the reference document's table)
    or the ``llvm`` one (clang's target features); Arm ``-march``/``-mcpu``
    strings (``armv9.2-a+sme2``, ``neoverse-v2``), the same in both profiles.
    ``streaming`` (Arm): ``True`` in a streaming function, ``False`` outside one, ``None`` (default)
    in either mode; :func:`status` says which modes.

    >>> from intdot import catalog
    >>> catalog.available("sdot4", "RDNA2"), catalog.available("sdot4", "RDNA2", profile="llvm")
    (False, True)
    >>> catalog.available("arm.sudot_neon_elem_128", "armv8.2-a+i8mm")
    True
    >>> catalog.available("svdot_s32_s16", "armv9.2-a+sme2", streaming=False)
    False
    """
    return _status(name, target, profile, streaming)[1].ok


def require(name, target, *, profile: str = "reference", streaming: bool | None = None) -> Instruction:
    """The record of ``name`` if ``target`` has it; else :class:`~intdot.errors.UnsupportedOnTarget`
    naming the features the target lacks."""
    rec, answer = _status(name, target, profile, streaming)
    if not answer.ok:
        raise UnsupportedOnTarget(answer.why + (f"; {answer.note}" if answer.note else ""))
    return rec


def require_any(spelling: str, target, *, profile: str = "reference", among=None) -> tuple[Instruction, ...]:
    """The records that ``spelling`` names (one, or the forms a shared mnemonic names: Arm ``sdot``, 28 of them),
    or only those ``among`` them, which ``target`` has; :class:`~intdot.errors.UnsupportedOnTarget` where none
    has it, saying why the first does not."""
    recs = find_all(spelling) if among is None else _among(among)
    ok = tuple(r for r in recs if available(r, target, profile=profile))
    if ok:
        return ok
    try:
        require(recs[0], target, profile=profile)
    except UnsupportedOnTarget as exc:
        if len(recs) == 1:
            raise
        raise UnsupportedOnTarget(
            f"none of the {len(recs)} instructions {describe(spelling)} names is available on {target}; the first: "
            f"{exc}"
        ) from None
    raise AssertionError(f"{recs[0].name} is available on {target} yet was not")  # pragma: no cover


def _among(among) -> tuple:
    """``require_any``'s ``among``: a non-empty collection of records or names."""
    expected = (
        "a tuple or list of catalog records or names (as find_all gives), or None for all that the spelling names"
    )
    if not isinstance(among, (tuple, list, set, frozenset)):
        raise OperandTypeError(f"among={describe(among)} is {a_or_an(type(among).__name__)}; expected {expected}")
    recs = tuple(among)
    if not recs:
        raise OperandError(f"among={describe(among)} is empty; expected {expected}")
    bad = next((r for r in recs if not isinstance(r, (str, Instruction))), None)
    if bad is not None:
        raise OperandTypeError(f"among holds {describe(bad)}, {a_or_an(type(bad).__name__)}; expected {expected}")
    return recs


def where_available(name, *, profile: str = "reference") -> tuple[str, ...]:
    """The targets that have ``name``: AMD families, Arm named cores, ... (each ISA's named targets)."""
    rec = find(name)
    fe = front_end(rec.isa)
    have = fe.where(rec, _check_profile(profile))
    extra = _spelled(fe, name)
    if extra is None:
        return have
    return tuple(n for n in have if missing(extra[0], fe.target(n, profile).features) is None)
