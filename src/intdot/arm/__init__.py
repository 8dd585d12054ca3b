"""AArch64 integer dot products: one table of instruction forms (every
sdot/udot/usdot/sudot form of NEON, SVE, SVE2.1 and SME2), the assembler,
disassembler and codec that read it, a register-file model, the executor and
the ACLE intrinsics.

>>> from intdot import arm
>>> hex(arm.assemble("sudot v0.4s, v1.16b, v2.4b[3]"))
'0x4f22f820'
>>> arm.disassemble(0x44DF0020)
'sdot z0.d, z1.h, z31.h'
"""

from __future__ import annotations

import importlib

from ..core.errors import quote
from .asm import assemble, decode, disassemble, encode, parse
from .executor import execute
from .forms import FORMS, form_named
from .records import SEMANTIC_KINDS, Form, Insn
from .state import State


# The ACLE intrinsics (generated from the table by intdot.arm.acle) load on first use.
def __getattr__(name):
    if not name.startswith(("v", "sv")):
        raise AttributeError(f"module 'intdot.arm' has no attribute {quote(name)}")
    acle = importlib.import_module(".acle", __name__)
    if name not in getattr(acle, "__all__", ()):
        raise AttributeError(f"module 'intdot.arm' has no attribute {quote(name)} (nor has intdot.arm.acle)")
    value = getattr(acle, name)
    globals()[name] = value
    return value


def _acle_names() -> list[str]:
    try:
        return list(importlib.import_module(".acle", __name__).__all__)
    except Exception:  # a broken or absent ACLE module must not hide the rest of dir()
        return []


def __dir__():
    return sorted(set(globals()) | set(_acle_names()))


__all__ = [
    "FORMS",
    "SEMANTIC_KINDS",
    "Form",
    "Insn",
    "State",
    "assemble",
    "decode",
    "disassemble",
    "encode",
    "execute",
    "form_named",
    "parse",
]
