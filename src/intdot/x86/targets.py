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
"""

from __future__ import annotations

from ..isa.targets import FeatureModel, Target

__all__ = ["DEPENDS", "LEVELS", "MODEL", "PROCESSORS", "target"]

# Feature -> the features it directly implies (LLVM 19's ImpliedFeatures); every name is one clang and gcc
# accept as -mNAME.  The features that matter to no dot instruction here are left out, and so are some that do
# (avx10.x, which clang also takes): a name outside the table is refused as unknown.
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
}
# fmt: on

# The micro-architecture levels of the x86-64 psABI, each extending the last.
LEVELS: dict[str, tuple[str | None, str]] = {
    "x86-64": (None, "x87+mmx+cx8+fxsr+sse2"),
    "x86-64-v2": ("x86-64", "cx16+sahf+popcnt+crc32+sse4.2"),
    "x86-64-v3": ("x86-64-v2", "avx2+bmi+bmi2+f16c+fma+lzcnt+movbe+xsave"),
    "x86-64-v4": ("x86-64-v3", "avx512f+avx512bw+avx512cd+avx512dq+avx512vl"),
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
    "knl": "x86-64-v3+avx512f+avx512cd", "btver2": "x86-64-v2+avx+f16c", "bdver4": "x86-64-v3",
}
# fmt: on


MODEL = FeatureModel(
    "x86",
    "x86",
    depends=DEPENDS,
    archs=LEVELS,
    processors=PROCESSORS,
    kind_names=("micro-architecture level", "processor", "feature"),
    feature_examples="a -m flag's name: avx2, avx512vnni, avxvnni, avxvnniint8, avxvnniint16, amx-int8, ...",
    examples=f"a level ({', '.join(LEVELS)}) or a processor such as sapphirerapids, alderlake, znver4 "
    "('intdot list --targets' lists them)",
)


def target(text) -> Target:
    """Parse an x86 target: ``x86-64-v3+avxvnni``, ``sapphirerapids``, ``znver4+noavx512vnni``; case-insensitive.

    Raises :class:`~intdot.errors.UnknownTarget` naming the unknown part.
    """
    return MODEL.target(text)
