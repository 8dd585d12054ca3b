"""x86 integer dot products: AVX512-VNNI, AVX-VNNI, AVX-VNNI-INT8/INT16, AMX-INT8 and the AVX2 idiom.

- :mod:`~intdot.x86.instructions`: one row per instruction, with the core spec of its dword step.
- :mod:`~intdot.x86.intrinsics`: the ``immintrin.h`` intrinsics on NumPy registers (``_mm512_dpbusd_epi32``,
  ``_mm256_maddubs_epi16``, ...), generated from rows; also importable from this package.
- :mod:`~intdot.x86.amx`: ``tdpbusd(c, a, b)`` and its siblings on tiles.
- :mod:`~intdot.x86.targets`: ``-march`` levels and processors with ``+feature`` / ``+nofeature``.

>>> from intdot import x86
>>> x86._mm256_dpbusd_epi32([0] * 8, [255] * 32, [127] * 32).tolist()[:2]
[129540, 129540]
>>> x86.tdpbusd([[0]], [[255] * 4], [[127] * 4]).tolist()
[[129540]]
"""

from __future__ import annotations

import importlib

from .amx import tdpbssd, tdpbsud, tdpbusd, tdpbuud
from .instructions import ROWS
from .targets import MODEL, target


# The intrinsics (generated from their rows by intdot.x86.intrinsics) load on first use.
def __getattr__(name):
    from ..core.errors import quote

    if not name.startswith("_mm"):
        raise AttributeError(f"module 'intdot.x86' has no attribute {quote(name)}")
    module = importlib.import_module(".intrinsics", __name__)
    if name not in module.INTRINSICS:
        raise AttributeError(f"module 'intdot.x86' has no attribute {quote(name)} (nor has intdot.x86.intrinsics)")
    value = getattr(module, name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(importlib.import_module(".intrinsics", __name__).INTRINSICS))


__all__ = ["MODEL", "ROWS", "target", "tdpbssd", "tdpbsud", "tdpbusd", "tdpbuud"]
