"""Arm targets: an architecture version or a named core, plus or minus extensions.

A target is written as clang's ``-march``/``-mcpu`` values are:
``armv9.2-a+sme2``, ``armv8.2-a+dotprod+i8mm``, ``neoverse-v2``,
``neoverse-v2+sme2``, ``armv9-a+nosve``.  Its feature set is what LLVM 19
would enable, in LLVM's implied-features sense: an architecture version
brings its mandatory extensions (``dotprod`` from v8.4-A, ``i8mm`` from
v8.6-A and v9.1-A, ``sve2`` from v9.0-A), an extension brings what it depends
on (``sme2`` brings ``sme``; ``sve2p1`` brings ``sve2`` and ``sve``), and
``+noX`` removes ``X`` and everything that depends on it.  Extensions are
applied left to right, as clang does.

The facts are LLVM 19's (``llvm/lib/Target/AArch64/AArch64Features.td``,
``AArch64Processors.td``, ``llvm/lib/TargetParser/AArch64TargetParser.cpp``).
For named cores only the extensions that matter for integer dot products
are recorded (``simd``, ``dotprod``, ``i8mm``, ``sve``/``sve2``/``sve2p1``,
``sme``/``sme2``/``sme2p1``/``sme-i16i64``, and ``fp``, ``fp16``, ``bf16`` which
those depend on); ``tests/catalog/test_arm_targets.py`` checks every core and
architecture against clang-19's ``--print-enabled-extensions`` and by
assembling one instruction of every form with ``-mcpu``.

>>> from intdot.arm.targets import target
>>> t = target("neoverse-v2")
>>> t.base, sorted(t.features & {"dotprod", "i8mm", "sve2", "sme"})
('armv9-a', ['dotprod', 'i8mm', 'sve2'])
>>> sorted(target("armv8.2-a+sme-i16i64").features & {"sme", "sme2", "sme-i16i64"})
['sme', 'sme-i16i64']
>>> "sve" in target("armv9-a+nosve").features, "sve2" in target("armv9-a+nosve").features
(False, False)
"""

from __future__ import annotations

import re

from ..isa.targets import FeatureModel, Target

__all__ = ["ARCHS", "CORES", "ALIASES", "DEPENDS", "EXTENSIONS", "MODEL", "core_names", "target"]

# Extension -> the extensions it directly depends on (LLVM 19).  Every -march extension name of
# LLVM 19 is a key, so a name outside this table is a typo, not a feature we forgot.
# One line per group of related extensions, as LLVM's tables are read.
# fmt: off
DEPENDS: dict[str, tuple[str, ...]] = {
    "fp": (), "simd": ("fp",), "fp16": ("fp",), "bf16": (), "i8mm": (), "dotprod": ("simd",),
    "sve": ("fp16",), "sve2": ("sve",), "sve2p1": ("sve2",),
    "sme": ("bf16",), "sme2": ("sme",), "sme2p1": ("sme2",), "sme-i16i64": ("sme",),
    "sme-f64f64": ("sme",), "sme-f16f16": ("sme2",), "sme-b16b16": ("sme2", "sve-b16b16"),
    "sme-f8f16": ("sme2", "fp8"), "sme-f8f32": ("sme2", "fp8"), "sme-lutv2": (), "sme-fa64": ("sme", "sve2"),
    "ssve-fp8dot2": ("sme2", "fp8"), "ssve-fp8dot4": ("sme2", "fp8"), "ssve-fp8fma": ("sme2", "fp8"),
    "f32mm": ("sve",), "f64mm": ("sve",), "sve-b16b16": ("bf16",), "b16b16": ("bf16",),
    "sve2-aes": ("sve2", "aes"), "sve2-bitperm": ("sve2",), "sve2-sha3": ("sve2", "sha3"), "sve2-sm4": ("sve2", "sm4"),
    "aes": ("simd",), "crypto": ("aes", "sha2"), "sha2": ("simd",), "sha3": ("sha2",), "sm4": ("simd",),
    "fcma": ("simd",), "rdm": ("simd",), "jscvt": ("fp",), "fp16fml": ("fp16",),
    "fp8": ("bf16",), "fp8dot2": ("fp8",), "fp8dot4": ("fp8",), "fp8fma": ("fp8",),
    **{name: () for name in (
        "brbe", "bti", "cpa", "crc", "cssc", "d128", "dit", "faminmax", "flagm", "gcs", "hbc", "ite", "ls64", "lse",
        "lse128", "lut", "mops", "memtag", "pauth", "pauth-lr", "pmuv3", "predres", "predres2", "profile", "rng",
        "ras", "rasv2", "rcpc", "rcpc3", "sb", "ssbs", "the", "tlbiw", "tme", "wfxt")},
}
# fmt: on
EXTENSIONS = tuple(DEPENDS)

# Architecture version -> (the version it extends, the dot-relevant extensions it makes mandatory).
_ARCH_STEPS: dict[str, tuple[str | None, str]] = {
    "armv8-a": (None, "fp+simd"),
    "armv8.1-a": ("armv8-a", ""),
    "armv8.2-a": ("armv8.1-a", ""),
    "armv8.3-a": ("armv8.2-a", ""),
    "armv8.4-a": ("armv8.3-a", "dotprod"),
    "armv8.5-a": ("armv8.4-a", ""),
    "armv8.6-a": ("armv8.5-a", "i8mm+bf16"),
    "armv8.7-a": ("armv8.6-a", ""),
    "armv8.8-a": ("armv8.7-a", ""),
    "armv8.9-a": ("armv8.8-a", ""),
    "armv9-a": ("armv8.5-a", "sve2"),
    "armv9.1-a": ("armv9-a", "i8mm+bf16"),  # v9.1-A includes v8.6-A
    "armv9.2-a": ("armv9.1-a", ""),
    "armv9.3-a": ("armv9.2-a", ""),
    "armv9.4-a": ("armv9.3-a", ""),
    "armv9.5-a": ("armv9.4-a", ""),
    "armv8-r": ("armv8.4-a", "fp16"),
}
ARCHS = tuple(_ARCH_STEPS)

# Named core -> its architecture version plus extensions (LLVM 19's processor table, dot-relevant part).
# fmt: off
CORES: dict[str, str] = {
    "a64fx": "armv8.2-a+fp16+sve",
    "ampere1": "armv8.6-a+fp16", "ampere1a": "armv8.6-a+fp16", "ampere1b": "armv8.7-a+fp16",
    "apple-a7": "armv8-a", "apple-a10": "armv8-a", "apple-a11": "armv8.2-a+fp16", "apple-a12": "armv8.3-a+fp16",
    "apple-a13": "armv8.4-a+fp16", "apple-a14": "armv8.4-a+fp16", "apple-a15": "armv8.6-a+fp16",
    "apple-a16": "armv8.6-a+fp16", "apple-a17": "armv8.6-a+fp16",
    "apple-m4": "armv8.7-a+fp16+sme+sme2+sme-i16i64",
    "carmel": "armv8.2-a+fp16",
    "cortex-a34": "armv8-a", "cortex-a35": "armv8-a", "cortex-a53": "armv8-a", "cortex-a57": "armv8-a",
    "cortex-a72": "armv8-a", "cortex-a73": "armv8-a",
    "cortex-a55": "armv8.2-a+dotprod+fp16", "cortex-a65": "armv8.2-a+dotprod+fp16",
    "cortex-a65ae": "armv8.2-a+dotprod+fp16", "cortex-a75": "armv8.2-a+dotprod+fp16",
    "cortex-a76": "armv8.2-a+dotprod+fp16", "cortex-a76ae": "armv8.2-a+dotprod+fp16",
    "cortex-a77": "armv8.2-a+dotprod+fp16", "cortex-a78": "armv8.2-a+dotprod+fp16",
    "cortex-a78ae": "armv8.2-a+dotprod+fp16", "cortex-a78c": "armv8.2-a+dotprod+fp16",
    "cortex-x1": "armv8.2-a+dotprod+fp16", "cortex-x1c": "armv8.2-a+dotprod+fp16",
    "cortex-a510": "armv9-a+bf16+i8mm", "cortex-a710": "armv9-a+bf16+i8mm", "cortex-a715": "armv9-a+bf16+i8mm",
    "cortex-x2": "armv9-a+bf16+i8mm", "cortex-x3": "armv9-a+bf16+i8mm",
    "cortex-a520": "armv9.2-a", "cortex-a520ae": "armv9.2-a", "cortex-a720": "armv9.2-a",
    "cortex-a720ae": "armv9.2-a", "cortex-a725": "armv9.2-a", "cortex-x4": "armv9.2-a", "cortex-x925": "armv9.2-a",
    "cortex-r82": "armv8-r", "cortex-r82ae": "armv8-r",
    "exynos-m3": "armv8-a", "exynos-m4": "armv8.2-a+dotprod+fp16", "exynos-m5": "armv8.2-a+dotprod+fp16",
    "falkor": "armv8-a", "generic": "armv8-a", "kryo": "armv8-a", "saphira": "armv8.4-a",
    "neoverse-e1": "armv8.2-a+dotprod+fp16", "neoverse-n1": "armv8.2-a+dotprod+fp16",
    "neoverse-n2": "armv9-a+bf16+i8mm", "neoverse-n3": "armv9.2-a",
    "neoverse-v1": "armv8.4-a+bf16+fp16+i8mm+sve", "neoverse-512tvb": "armv8.4-a+bf16+fp16+i8mm+sve",
    "neoverse-v2": "armv9-a+bf16+i8mm", "neoverse-v3": "armv9.2-a", "neoverse-v3ae": "armv9.2-a",
    "oryon-1": "armv8.6-a+fp16",
    "thunderx": "armv8-a", "thunderxt81": "armv8-a", "thunderxt83": "armv8-a", "thunderxt88": "armv8-a",
    "thunderx2t99": "armv8.1-a", "thunderx3t110": "armv8.3-a",
    "tsv110": "armv8.2-a+dotprod+fp16",
}
# fmt: on

# Other names LLVM 19 accepts for the same cores.
# fmt: off
ALIASES: dict[str, str] = {
    "apple-m1": "apple-a14", "apple-m2": "apple-a15", "apple-m3": "apple-a16",
    "apple-s4": "apple-a12", "apple-s5": "apple-a12", "apple-a8": "apple-a7", "apple-a9": "apple-a7",
    "cyclone": "apple-a7", "grace": "neoverse-v2", "cobalt-100": "neoverse-n2",
}
# fmt: on


def _spell_arch(word: str) -> str | None:
    """Other spellings of an architecture version: ``v9.2a``, ``armv9.2a`` (clang's), and ``armv9.0-a`` (clang refuses
    it; taken here as ``armv9-a``)."""
    m = _ARCH_SPELLING.match(word)
    if not m:
        return None
    major, minor, profile = m.groups()
    name = f"armv{major}{'.' + minor if minor and minor != '0' else ''}-{profile}"
    return name if name in _ARCH_STEPS else None


_ARCH_SPELLING = re.compile(r"^(?:arm)?v(\d)(?:\.(\d))?-?([ar])$")

MODEL = FeatureModel(
    "arm",
    "Arm",
    depends=DEPENDS,
    archs=_ARCH_STEPS,
    processors=CORES,
    aliases=ALIASES,
    spell_arch=_spell_arch,
    kind_names=("architecture version", "core", "extension"),
    feature_examples="an LLVM name: dotprod, i8mm, sve, sve2, sve2p1, sme, sme2, sme-i16i64, ...",
    examples=f"an architecture version ({', '.join(_ARCH_STEPS)}) or a core such as neoverse-v2, "
    "cortex-x925, apple-m4 ('intdot list --targets' lists them)",
)


def core_names() -> tuple[str, ...]:
    """Every named core intdot knows, aliases included, sorted."""
    return MODEL.processor_names()


def target(text) -> Target:
    """Parse an Arm target: ``armv9.2-a+sme2``, ``neoverse-v2``, ``apple-m4+nosme``; case-insensitive.

    Raises :class:`~intdot.errors.UnknownTarget` naming the unknown part.
    """
    return MODEL.target(text)
