"""x86 targets: a micro-architecture level or a named processor, plus or minus features.

A target is written as clang's and gcc's ``-march`` values, with features as their
``-m``/``-mno-`` flags: ``x86-64-v3+avxvnni``, ``sapphirerapids``, ``znver4+noavx512vnni``.
A feature brings what it depends on (``avx512vnni`` brings ``avx512f``, which brings ``avx2``,
``fma`` and ``f16c``; ``amx-int8`` brings ``amx-tile``), and ``+noX`` removes ``X`` and
everything that depends on it (``+noavx2`` removes every AVX-512 and AVX-VNNI feature).

The facts are LLVM 19's (``llvm/lib/TargetParser/X86TargetParser.cpp``: the implied
features and the processor table) and agree with gcc's ``-march`` documentation for the
features below.  For named processors only the features that matter for integer dot
products are recorded, on top of the level each one includes; ``tests/x86/test_targets.py``
checks every name against ``clang-19 -march=NAME -dM -E``.

>>> from intdot.x86.targets import MODEL
>>> t = MODEL.target("sapphirerapids")
>>> sorted(t.features & {"avx512vnni", "avxvnni", "amx-int8", "avxvnniint8"})
['amx-int8', 'avx512vnni', 'avxvnni']
>>> sorted(MODEL.target("alderlake+noavx2").features & {"avx", "avx2", "avxvnni"})
['avx']

AVX10.1 (``avx10.1-256``, ``avx10.1-512``) brings the AVX-512 features it contains; whether 512-bit
registers come with them is the feature ``evex512``, which clang settles after the other flags
(``clang/lib/Basic/Targets/X86.cpp``, see ``_ClangFeatures``): ``avx10.1-512`` has it; ``avx10.1-256`` has
it only where AVX-512F is on as well (clang warns that it "will be promoted"); any AVX-512 feature brings it
unless ``+noevex512`` says not.  The 512-bit intrinsics need it:

>>> sorted(MODEL.target("x86-64+avx10.1-256").features & {"avx512vnni", "avx512vl", "evex512"})
['avx512vl', 'avx512vnni']
>>> "evex512" in MODEL.target("x86-64+avx10.1-512").features
True
"""

from __future__ import annotations

from dataclasses import dataclass

from ..isa.targets import FeatureModel, Target

__all__ = ["DEPENDS", "LEVELS", "MODEL", "PROCESSORS", "target"]

# Feature -> the features it directly implies (LLVM 19's ImpliedFeatures); every name is one clang accepts
# as -mNAME.  The features that matter to no dot instruction here are left out (and clang's -mavx10.1, its
# other spelling of avx10.1-256): a name outside the table is refused as unknown.
# fmt: off
DEPENDS: dict[str, tuple[str, ...]] = {
    "x87": (), "mmx": (), "cx8": (), "fxsr": (), "cx16": (), "sahf": (), "popcnt": (), "bmi": (), "bmi2": (),
    "lzcnt": (), "movbe": (), "xsave": (), "crc32": (),
    "sse": (), "sse2": ("sse",), "sse3": ("sse2",), "ssse3": ("sse3",), "sse4.1": ("ssse3",), "sse4.2": ("sse4.1",),
    "pclmul": ("sse2",), "aes": ("sse2",), "sha": ("sse2",), "gfni": ("sse2",),
    "avx": ("sse4.2",), "avx2": ("avx",), "f16c": ("avx",), "fma": ("avx",),
    "vaes": ("aes", "avx2"), "vpclmulqdq": ("avx", "pclmul"),
    "avx512f": ("avx2", "f16c", "fma"),
    "avx512bw": ("avx512f",), "avx512cd": ("avx512f",), "avx512dq": ("avx512f",), "avx512vl": ("avx512f",),
    "avx512vnni": ("avx512f",), "avx512ifma": ("avx512f",), "avx512vpopcntdq": ("avx512f",),
    "avx512vbmi": ("avx512bw",), "avx512vbmi2": ("avx512bw",), "avx512bitalg": ("avx512bw",),
    "avx512bf16": ("avx512bw",), "avx512fp16": ("avx512bw", "avx512dq", "avx512vl"),
    "avxvnni": ("avx2",), "avxvnniint8": ("avx2",), "avxvnniint16": ("avx2",), "avxifma": ("avx2",),
    "avxneconvert": ("avx2",),
    "amx-tile": (), "amx-int8": ("amx-tile",), "amx-bf16": ("amx-tile",), "amx-fp16": ("amx-tile",),
    "amx-complex": ("amx-tile",),
    "evex512": (),
    "avx10.1-256": ("avx512cd", "avx512vbmi", "avx512ifma", "avx512vnni", "avx512bf16", "avx512vpopcntdq",
                    "avx512vbmi2", "avx512bitalg", "vaes", "vpclmulqdq", "avx512fp16"),
    "avx10.1-512": ("avx10.1-256", "evex512"),
}
# fmt: on

# The micro-architecture levels of the x86-64 psABI, each extending the last.
LEVELS: dict[str, tuple[str | None, str]] = {
    "x86-64": (None, "x87+mmx+cx8+fxsr+sse2"),
    "x86-64-v2": ("x86-64", "cx16+sahf+popcnt+crc32+sse4.2"),
    "x86-64-v3": ("x86-64-v2", "avx2+bmi+bmi2+f16c+fma+lzcnt+movbe+xsave"),
    "x86-64-v4": ("x86-64-v3", "avx512f+avx512bw+avx512cd+avx512dq+avx512vl+evex512"),
}

_SPR = "x86-64-v4+avx512vnni+avx512bf16+avxvnni+amx-int8+amx-bf16"
_INT8 = "x86-64-v3+avxvnni+avxvnniint8"
_INT16 = "x86-64-v3+avxvnni+avxvnniint8+avxvnniint16"

# Named processor -> the level it includes plus its dot-relevant features (LLVM 19's processor table).
# fmt: off
PROCESSORS: dict[str, str] = {
    "core2": "x86-64+ssse3", "penryn": "x86-64+sse4.1",
    "nehalem": "x86-64-v2", "westmere": "x86-64-v2+pclmul",
    "sandybridge": "x86-64-v2+avx", "ivybridge": "x86-64-v2+avx+f16c",
    "haswell": "x86-64-v3", "broadwell": "x86-64-v3", "skylake": "x86-64-v3",
    "skylake-avx512": "x86-64-v4", "cannonlake": "x86-64-v4+avx512ifma+avx512vbmi",
    "cascadelake": "x86-64-v4+avx512vnni", "cooperlake": "x86-64-v4+avx512vnni+avx512bf16",
    "icelake-client": "x86-64-v4+avx512vnni", "icelake-server": "x86-64-v4+avx512vnni",
    "tigerlake": "x86-64-v4+avx512vnni", "rocketlake": "x86-64-v4+avx512vnni",
    "sapphirerapids": _SPR, "emeraldrapids": _SPR,
    "graniterapids": f"{_SPR}+amx-fp16", "graniterapids-d": f"{_SPR}+amx-fp16+amx-complex",
    "alderlake": "x86-64-v3+avxvnni", "raptorlake": "x86-64-v3+avxvnni", "meteorlake": "x86-64-v3+avxvnni",
    "gracemont": "x86-64-v3+avxvnni",
    "arrowlake": _INT8, "sierraforest": _INT8, "grandridge": _INT8,
    "arrowlake-s": _INT16, "lunarlake": _INT16, "pantherlake": _INT16, "clearwaterforest": _INT16,
    "znver1": "x86-64-v3", "znver2": "x86-64-v3", "znver3": "x86-64-v3",
    "znver4": "x86-64-v4+avx512vnni+avx512bf16", "znver5": "x86-64-v4+avx512vnni+avx512bf16+avxvnni",
    # clang's other names for some of these, and older cores it takes
    "corei7": "x86-64-v2", "corei7-avx": "x86-64-v2+avx", "core-avx-i": "x86-64-v2+avx+f16c",
    "core-avx2": "x86-64-v3", "skx": "x86-64-v4",
    "goldmont": "x86-64-v2+pclmul", "tremont": "x86-64-v2+pclmul",
    "knl": "x86-64-v3+avx512f+avx512cd+evex512", "btver2": "x86-64-v2+avx+f16c", "bdver4": "x86-64-v3",
}
# fmt: on


def _feature(mod: str) -> str:
    return mod[2:] if mod.startswith("no") and mod[2:] in DEPENDS else mod


@dataclass(frozen=True, eq=False)
class _ClangFeatures(FeatureModel):
    """The feature model, read as clang-19 reads ``-march=HEAD -mX -mno-Y ...``.

    Its driver keeps only the last flag of each feature (at its place); then ``X86TargetInfo::initFeatureMap``
    applies the AVX10 flags after the others and settles ``evex512`` last: ``+evex512`` where AVX-512F is on
    (the processor's, set by a ``+avx512...`` flag, cleared by ``-avx512f``) unless ``-mno-evex512`` says
    ``-evex512``; with AVX10 and no AVX-512F, ``+evex512`` for ``avx10.1-512`` and ``-evex512`` for
    ``avx10.1-256`` (``-evex512`` also removes ``avx10.1-512``, which needs it).  The name keeps the text.
    """

    def _parse(self, key: str, text: str) -> Target:
        head, *mods = key.split("+")
        last = {_feature(m): i for i, m in enumerate(mods)}
        cpu = super()._parse(head, text).features
        f512, avx10, avx10_512, evex = "avx512f" in cpu, "avx10.1-256" in cpu, "avx10.1-512" in cpu, None
        ordinary, later = [], []
        for i, m in enumerate(mods):
            if last[_feature(m)] != i:
                continue
            name, on = _feature(m), _feature(m) == m
            if name.startswith("avx10."):
                if on:
                    avx10, avx10_512 = True, avx10_512 or name.endswith("512")
                elif name == "avx10.1-256" and avx10:
                    avx10 = avx10_512 = False
                elif name == "avx10.1-512":
                    avx10_512 = False
                later.append(m)
                continue
            if name == "evex512":
                evex = on
                continue
            if on and name.startswith("avx512"):
                f512 = True
            elif not on and name == "avx512f":
                f512 = False
            ordinary.append(m)
        steps = ordinary + later
        if f512:
            steps.append("noevex512" if evex is False else "evex512")
        elif avx10:
            steps.append("evex512" if avx10_512 else "noevex512")
        t = super()._parse("+".join([head, *steps]), text)
        return Target(self.isa, "+".join([t.name.split("+")[0], *mods]), t.features, t.kind, t.base, t.core)


MODEL = _ClangFeatures(
    "x86",
    "x86",
    depends=DEPENDS,
    archs=LEVELS,
    processors=PROCESSORS,
    kind_names=("micro-architecture level", "processor", "feature"),
    feature_examples="a -m flag's name: avx2, avx512vnni, avxvnni, avxvnniint8, avxvnniint16, amx-int8, "
    "avx10.1-512, ...",
    examples=f"a level ({', '.join(LEVELS)}) or a processor such as sapphirerapids, alderlake, znver4 "
    "('intdot list --targets' lists them)",
)


def target(text) -> Target:
    """Parse an x86 target: ``x86-64-v3+avxvnni``, ``sapphirerapids``, ``znver4+noavx512vnni``; case-insensitive.

    Raises :class:`~intdot.errors.UnknownTarget` naming the unknown part.
    """
    return MODEL.target(text)
