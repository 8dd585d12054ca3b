"""AMD GPU integer dot builtins, bit for bit, with their availability.

The eight builtins of the reference (``udot4``, ``udot8``, ``sdot4``,
``sdot8``, ``sdot2``, ``udot2``, ``sudot4``, ``sudot8``) are module
attributes, in short and in full (``__builtin_amdgcn_sdot4``) spelling, with
the reference's signatures: ``sdot4(src0, src1, src2, neg=False, *,
clamp=False)``.  They take Python ints (giving a Python int) or arrays (giving
int32/uint32 arrays, broadcasting).  :func:`builtin` gives the same functions
for the ``llvm`` profile, whose last argument is clang's ``clamp``.

>>> from intdot import amd
>>> amd.sdot4(0x01020304, 0x05060708, 10, False)
80
>>> amd.__builtin_amdgcn_sudot4(True, 0xFFFFFFFF, False, 0xFFFFFFFF, 0, False)
-1020
>>> amd.sdot2(amd.short2(-3, 7), amd.short2(2, 5), 100)
129
>>> amd.builtin("__builtin_amdgcn_udot4", profile="llvm")(0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, True)
4294967295
>>> amd.available("sdot4", "RDNA2"), amd.available("sdot4", "RDNA2", profile="llvm")
(False, True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.errors import quote
from .builtins import BUILTINS, BY_NAME, PREFIX, Builtin, lookup
from .functions import Packed, make, packed, short2, ushort2
from .target import BuiltinUnavailable, Target, available, target, where_available
from .targets import (
    FAMILIES,
    FAMILY_PROCESSORS,
    FEATURES,
    PROCESSOR_FEATURES,
    PROFILES,
    TARGET_ID_FEATURES,
    processors,
    target_id,
)


def builtin(name, profile: str = "reference"):
    """The Python function of builtin ``name`` (``"sdot4"`` or ``"__builtin_amdgcn_sdot4"``).

    Parameters
    ----------
    name : str
        The builtin's short or full name.
    profile : {"reference", "llvm"}
        ``"reference"``: ``(..., src2, neg=False, *, clamp=False)``;
        ``"llvm"``: clang's ``(..., src2, clamp=False)``, with no ``neg``.

    Examples
    --------
    >>> from intdot import amd
    >>> f = amd.builtin("__builtin_amdgcn_sdot4")
    >>> f(0x80808080, 0x80808080, 0x7FFFFFFF, False), f(0x80808080, 0x80808080, 0x7FFFFFFF, False, clamp=True)
    (-2147418113, 2147483647)
    >>> amd.builtin("sdot4", profile="llvm")(0x80808080, 0x80808080, 0x7FFFFFFF, True)
    2147483647
    """
    return make(name, profile)


def availability(profile: str = "reference", *, processors: bool = False) -> dict[str, dict[str, bool]]:
    """The availability matrix: ``{builtin: {family or processor: bool}}``.

    >>> from intdot import amd
    >>> amd.availability()["sudot4"]["RDNA2"], amd.availability("llvm")["sudot4"]["RDNA2"]
    (True, False)
    """
    from ..core.values import check_flag
    from .targets import processors as _procs

    cols = _procs(profile) if check_flag(processors, "processors") else FAMILIES
    return {row.name: {c: available(row, c, profile) for c in cols} for row in BUILTINS}


_FUNCTION_NAMES = frozenset(BY_NAME) | {PREFIX + n for n in BY_NAME}

if TYPE_CHECKING:
    # What a type checker and an IDE see of the functions __getattr__ makes on first use (making all of them
    # at import would cost every command-line call about 30 ms); tests/amd check this list against the table.
    from collections.abc import Callable
    from typing import Any

    udot4: Callable[..., Any]
    udot8: Callable[..., Any]
    sdot4: Callable[..., Any]
    sdot8: Callable[..., Any]
    sdot2: Callable[..., Any]
    udot2: Callable[..., Any]
    sudot4: Callable[..., Any]
    sudot8: Callable[..., Any]
    __builtin_amdgcn_udot4: Callable[..., Any]
    __builtin_amdgcn_udot8: Callable[..., Any]
    __builtin_amdgcn_sdot4: Callable[..., Any]
    __builtin_amdgcn_sdot8: Callable[..., Any]
    __builtin_amdgcn_sdot2: Callable[..., Any]
    __builtin_amdgcn_udot2: Callable[..., Any]
    __builtin_amdgcn_sudot4: Callable[..., Any]
    __builtin_amdgcn_sudot8: Callable[..., Any]


def __getattr__(name):
    # The builtins are created on first use (each builds a lookup table in the core).
    if name in _FUNCTION_NAMES:
        fn = make(name)
        globals()[name] = fn
        return fn
    raise AttributeError(f"module 'intdot.amd' has no attribute {quote(name)}")


def __dir__():
    return sorted(set(globals()) | _FUNCTION_NAMES)


__all__ = [
    "BUILTINS",
    "Builtin",
    "FAMILIES",
    "FAMILY_PROCESSORS",
    "FEATURES",
    "PROCESSOR_FEATURES",
    "PROFILES",
    "TARGET_ID_FEATURES",
    "BuiltinUnavailable",
    "Packed",
    "Target",
    "availability",
    "available",
    "builtin",
    "lookup",
    "packed",
    "processors",
    "short2",
    "target",
    "target_id",
    "ushort2",
    "where_available",
    "sdot2",
    "sdot4",
    "sdot8",
    "sudot4",
    "sudot8",
    "udot2",
    "udot4",
    "udot8",
]
