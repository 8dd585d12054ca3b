"""Targets as feature sets: architectures and named processors, implied features, ``+x`` / ``+nox``.

A :class:`FeatureModel` holds one ISA's facts as tables: which feature depends on which
(``DEPENDS``: enabling one enables what it needs; removing one removes what needs it),
architecture versions that each extend another and make some features mandatory, and
named processors written as an architecture plus features.  It reads a target the way
clang reads ``-march``/``-mcpu`` (and ``--offload-arch``) values: a head (architecture or
processor) then ``+feature`` or ``+nofeature`` parts, applied left to right.  Every ISA's
availability is then one feature expression (:mod:`intdot.core.features`) evaluated on the
target's set.

>>> m = FeatureModel("toy", "Toy", depends={"a": (), "b": ("a",), "c": ("b",)},
...                  archs={"v1": (None, "a"), "v2": ("v1", "c")}, processors={"chip": "v1+b"})
>>> sorted(m.target("v2").features), sorted(m.target("chip+noa").features)
(['a', 'b', 'c'], [])
>>> m.target("CHIP+c").name, m.target("chip").kind, m.target("v1").kind
('chip+c', 'processor', 'architecture')
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property

from ..core.errors import UnknownTarget
from ..core.values import a_or_an, describe


@dataclass(frozen=True)
class Target:
    """A parsed target: its normalized text, its kind, the architecture it rests on, its features."""

    isa: str
    name: str
    features: frozenset
    kind: str = "architecture"  # or "processor" (a named core/chip), "family"
    base: str = ""  # the architecture version a processor rests on
    core: str | None = None  # the canonical processor name, where the head names one

    def __str__(self) -> str:
        return self.name


def closure(names, table: Mapping[str, tuple[str, ...]]) -> set:
    """``names`` and everything they lead to through ``table`` (name -> names)."""
    out, todo = set(), list(names)
    while todo:
        n = todo.pop()
        if n not in out:
            out.add(n)
            todo.extend(table.get(n, ()))
    return out


@dataclass(frozen=True, eq=False)
class FeatureModel:
    """One ISA's targets (see the module docstring).

    ``depends``: feature -> the features it directly needs; every feature name the ISA's
    toolchain accepts is a key, so a name outside it is a typo.  ``archs``: architecture ->
    (the one it extends or None, the features it makes mandatory joined by ``+``).
    ``processors``: name -> ``arch+feature...``.  ``aliases``: other names of processors.
    ``spell_arch``: a function that maps a spelling of an architecture to its canonical
    name or None (Arm accepts ``v9.2a`` for ``armv9.2-a``).  ``kind_names``: what the ISA
    calls an architecture, a processor and a feature, for messages.
    """

    isa: str
    title: str
    depends: Mapping[str, tuple[str, ...]]
    archs: Mapping[str, tuple[str | None, str]]
    processors: Mapping[str, str] = field(default_factory=dict)
    aliases: Mapping[str, str] = field(default_factory=dict)
    spell_arch: Callable[[str], str | None] | None = None
    kind_names: tuple[str, str, str] = ("architecture version", "processor", "feature")
    examples: str = ""
    feature_examples: str = ""
    case_sensitive: bool = False

    @cached_property
    def _dependents(self) -> dict[str, set]:
        out: dict[str, set] = {}
        for ext, deps in self.depends.items():
            for d in deps:
                out.setdefault(d, set()).add(ext)
        return out

    @cached_property
    def _arch_cache(self) -> dict:
        return {}

    @cached_property
    def _parsed(self) -> dict:
        return {}

    def arch_features(self, arch: str) -> frozenset:
        """The features an architecture version makes mandatory, with what they imply."""
        hit = self._arch_cache.get(arch)
        if hit is None:
            parent, adds = self.archs[arch]
            base = set(self.arch_features(parent)) if parent else set()
            hit = frozenset(base | closure([a for a in adds.split("+") if a], self.depends))
            self._arch_cache[arch] = hit
        return hit

    def processor_names(self) -> tuple[str, ...]:
        """Every named processor, aliases included, sorted."""
        return tuple(sorted(set(self.processors) | set(self.aliases)))

    def names(self) -> tuple[str, ...]:
        """Every architecture and named processor, in table order (architectures first)."""
        return (*self.archs, *self.processor_names())

    def _canonical_arch(self, word: str) -> str | None:
        if word in self.archs:
            return word
        return self.spell_arch(word) if self.spell_arch else None

    def _unknown(self, kind: str, word: str, text: str, known, example: str) -> UnknownTarget:
        import difflib  # only for a message: the model itself loads without it

        close = difflib.get_close_matches(word, list(known), n=3, cutoff=0.7) if len(word) <= 100 else []
        hint = f" (did you mean {' or '.join(close)}?)" if close else ""
        return UnknownTarget(
            f"target={describe(text)}: {describe(word)} is not a known {self.title} {kind}{hint}; expected {example}"
        )

    def _parse(self, key: str, text: str) -> Target:
        head, *mods = key.split("+")
        arch = self._canonical_arch(head)
        proc = self.aliases.get(head, head)
        proc = proc if proc in self.processors else None
        if arch is None and proc is None:
            arch_kind, proc_kind, _ = self.kind_names
            raise self._unknown(
                f"{arch_kind} or {proc_kind}",
                head,
                text,
                self.names(),
                self.examples or f"one of {', '.join(self.archs)} or {a_or_an(proc_kind)} name",
            )
        if proc is not None:
            base = self.target(self.processors[proc])
            arch, features = base.base, set(base.features)
        else:
            features = set(self.arch_features(arch))
        for mod in mods:
            remove = mod.startswith("no") and mod[2:] in self.depends
            ext = mod[2:] if remove else mod
            if ext not in self.depends:
                shown = self.feature_examples or f"{', '.join(list(self.depends)[:10])}, ..."
                raise self._unknown(
                    self.kind_names[2],
                    mod,
                    text,
                    self.depends,
                    f"{a_or_an(self.kind_names[2])} name ({shown}), optionally prefixed with 'no'",
                )
            if remove:
                features -= closure([ext], self._dependents)
            else:
                features |= closure([ext], self.depends)
        kind = "processor" if proc else "architecture"
        return Target(self.isa, "+".join([head if proc else arch, *mods]), frozenset(features), kind, arch, proc)

    def target(self, text) -> Target:
        """Parse a target (see the module docstring); :class:`~intdot.errors.UnknownTarget` naming the bad part."""
        if isinstance(text, Target) and text.isa == self.isa:
            return text
        if not isinstance(text, str) or not text.strip():
            raise UnknownTarget(
                f"target={describe(text)} is not {a_or_an(self.title)} target; expected a string such as "
                f"{self.examples or repr(next(iter(self.archs)))}"
            )
        key = text.strip() if self.case_sensitive else text.strip().lower()
        if "" in key.split("+"):
            raise UnknownTarget(f"target={describe(text)} has an empty part between '+' signs")
        hit = self._parsed.get(key)
        if hit is None:
            hit = self._parse(key, text)
            if len(self._parsed) < 1024:
                self._parsed[key] = hit
        return hit


__all__ = ["FeatureModel", "Target", "closure"]
