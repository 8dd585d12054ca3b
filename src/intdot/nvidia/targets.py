"""NVIDIA targets: a compute capability (``sm_90``, ``compute_61``) or a named GPU (``h200``), plus or minus
features.

Each ``sm_XX`` extends the one before it (``sm_90a`` extends ``sm_90``; the Blackwell ``sm_100`` and later
extend ``sm_90``, not its ``a`` variant, and their ``a`` variants extend the family ones: ``sm_100a`` extends
``sm_100f``, which extends ``sm_100``; the targets are those nvcc 13.0 takes).  Only the features that matter
for integer dot products are modelled, named after what the PTX ISA says they need:

* ``dp4a``: ``dp4a``/``dp2a`` and CUDA's ``__dp4a``/``__dp2a_lo``/``__dp2a_hi`` (sm_61 and later; PTX ISA 5.0);
* ``mma-i8``: ``mma.sync.aligned.m16n8k32`` on ``.s8``/``.u8`` (sm_80 and later; PTX ISA 7.0);
* ``mma-i4``: ``mma.sync.aligned.m16n8k64`` on ``.s4``/``.u4`` (sm_80 and later; PTX ISA 7.0).  On sm_90
  ptxas (CUDA 13.0) accepts it and emits two 8-bit ``IMMA.16832`` on unpacked nibbles (seen on the H200).

>>> from intdot.nvidia.targets import MODEL
>>> t = MODEL.target("h200")
>>> t.base, sorted(t.features)
('sm_90', ['dp4a', 'mma-i4', 'mma-i8'])
>>> sorted(MODEL.target("compute_61").features), MODEL.target("SM75").name
(['dp4a'], 'sm_75')
>>> sorted(MODEL.target("a100+nomma-i4").features)
['dp4a', 'mma-i8']
"""

from __future__ import annotations

import re

from ..isa.targets import FeatureModel

__all__ = ["ARCHS", "DEPENDS", "GPUS", "MODEL"]

DEPENDS: dict[str, tuple[str, ...]] = {"dp4a": (), "mma-i8": (), "mma-i4": ()}

# Compute capability -> (the one it extends, the features it adds).
# fmt: off
_ARCH_STEPS: dict[str, tuple[str | None, str]] = {
    "sm_50": (None, ""), "sm_52": ("sm_50", ""), "sm_53": ("sm_52", ""),
    "sm_60": ("sm_53", ""), "sm_61": ("sm_60", "dp4a"), "sm_62": ("sm_61", ""),
    "sm_70": ("sm_62", ""), "sm_72": ("sm_70", ""), "sm_75": ("sm_72", ""),
    "sm_80": ("sm_75", "mma-i8+mma-i4"), "sm_86": ("sm_80", ""), "sm_87": ("sm_86", ""), "sm_88": ("sm_87", ""),
    "sm_89": ("sm_87", ""), "sm_90": ("sm_89", ""), "sm_90a": ("sm_90", ""),
    "sm_100": ("sm_90", ""), "sm_100f": ("sm_100", ""), "sm_100a": ("sm_100f", ""),
    "sm_103": ("sm_100", ""), "sm_103f": ("sm_103", ""), "sm_103a": ("sm_103f", ""),
    "sm_110": ("sm_100", ""), "sm_110f": ("sm_110", ""), "sm_110a": ("sm_110f", ""),
    "sm_120": ("sm_100", ""), "sm_120f": ("sm_120", ""), "sm_120a": ("sm_120f", ""),
    "sm_121": ("sm_120", ""), "sm_121f": ("sm_121", ""), "sm_121a": ("sm_121f", ""),
}
# fmt: on
ARCHS = tuple(_ARCH_STEPS)

# Named GPU -> its compute capability (NVIDIA's CUDA GPU list).
# fmt: off
GPUS: dict[str, str] = {
    "p100": "sm_60",
    "p4": "sm_61", "p40": "sm_61", "gtx1080": "sm_61", "gtx1080ti": "sm_61", "titan-xp": "sm_61",
    "jetson-tx2": "sm_62",
    "v100": "sm_70", "titan-v": "sm_70", "jetson-agx-xavier": "sm_72",
    "t4": "sm_75", "rtx2080": "sm_75", "rtx2080ti": "sm_75", "titan-rtx": "sm_75",
    "a100": "sm_80", "a30": "sm_80",
    "a10": "sm_86", "a40": "sm_86", "rtx-a6000": "sm_86", "rtx3080": "sm_86", "rtx3090": "sm_86",
    "jetson-agx-orin": "sm_87",
    "l4": "sm_89", "l40": "sm_89", "l40s": "sm_89", "rtx4080": "sm_89", "rtx4090": "sm_89",
    "h100": "sm_90", "h200": "sm_90", "h800": "sm_90", "h20": "sm_90", "gh200": "sm_90",
    "b200": "sm_100", "gb200": "sm_100", "b300": "sm_103", "gb300": "sm_103",
    "rtx5080": "sm_120", "rtx5090": "sm_120", "rtx-pro-6000": "sm_120",
}
# fmt: on

_SPELLING = re.compile(r"^(?:sm_?|compute_)(\d{2,3}[af]?)$")


def _spell_arch(word: str) -> str | None:
    """nvcc's other spellings: ``compute_90`` (the virtual architecture), ``sm90``."""
    m = _SPELLING.match(word)
    name = f"sm_{m[1]}" if m else None
    return name if name in _ARCH_STEPS else None


MODEL = FeatureModel(
    "nvidia",
    "NVIDIA",
    depends=DEPENDS,
    archs=_ARCH_STEPS,
    processors=GPUS,
    spell_arch=_spell_arch,
    kind_names=("compute capability", "GPU", "feature"),
    feature_examples="dp4a, mma-i8, mma-i4",
    examples="a compute capability (sm_61, sm_80, sm_90, compute_90, ...) or a GPU such as a100, h100, h200 "
    "('intdot list --targets' lists them)",
)
