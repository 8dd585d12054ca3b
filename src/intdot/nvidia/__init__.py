"""NVIDIA integer dot instructions, bit for bit: PTX ``dp4a``/``dp2a``, CUDA ``__dp4a``/``__dp2a_lo``/
``__dp2a_hi`` (with their ``char4``/``short2`` overloads) and the integer tensor-core ``mma.sync`` forms.

Each was checked against an H200 over more than 10**6 inputs (``tests/data/nvidia_*.npz``,
``scripts/gpu/nvidia_vectors.py``).  ``dp4a``/``dp2a`` wrap modulo 2**32; ``mma`` wraps, or with
``.satfinite`` saturates the exact ``C + A B`` once.

>>> from intdot import nvidia
>>> nvidia.dp4a(0x80808080, 0x80808080, 0)                  # 4 * (-128 * -128)
65536
>>> nvidia.dp2a(0x7FFF_7FFF, 0xFF_FF_7F_7F, 0, part="hi", a_type="u32", b_type="u32")
16711170
>>> nvidia.available("mma.s8.s8", "h200"), nvidia.available("dp4a.s32.s32", "sm_60")
(True, False)
"""

from __future__ import annotations

from .functions import __dp2a_hi, __dp2a_lo, __dp4a, dp2a, dp4a, mma, overload
from .tables import DP_ROWS, MMA_ROWS
from .targets import ARCHS, GPUS, MODEL


def available(name: str, target: str) -> bool:
    """Whether the NVIDIA instruction ``name`` (a PTX or CUDA spelling) exists on ``target`` (``sm_80``, ``h200``)."""
    from .isa import FRONT_END, find

    return FRONT_END.status(find(name), MODEL.target(target), "reference").ok


__all__ = [
    "ARCHS",
    "DP_ROWS",
    "GPUS",
    "MMA_ROWS",
    "MODEL",
    "__dp2a_hi",
    "__dp2a_lo",
    "__dp4a",
    "available",
    "dp2a",
    "dp4a",
    "mma",
    "overload",
]
