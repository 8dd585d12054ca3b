"""intdot: bit-exact golden model of integer dot-product instructions.

>>> import intdot
>>> intdot.amd.sdot4(0x01020304, 0x05060708, 10, False)
80
>>> intdot.dot(0x0001_FFFF, 0x0302, 0, a_width=16, b_width=8)
1
"""

from typing import TYPE_CHECKING

from . import errors
from .core import DotSpec, dot, lane_values, pack, unpack

__version__ = "0.1.0"

# Subpackages that load on first use, so `import intdot` stays cheap (a command-line call pays it every time).
# A front end registered later (intdot.isa.registry) loads here too, through __getattr__, without a line here.
_LAZY = ("amd", "amdgpu", "arm", "nvidia", "x86", "catalog", "gemm", "quant", "isa")

if TYPE_CHECKING:  # what a type checker and an IDE see: the same names, imported eagerly
    from . import amd, amdgpu, arm, catalog, gemm, isa, nvidia, quant, x86  # noqa: F401


def __getattr__(name):
    import importlib

    if name in _LAZY:
        return importlib.import_module(f".{name}", __name__)
    if not name.startswith("_"):
        from .isa.registry import ISAS

        if name in ISAS:
            return importlib.import_module(f".{name}", __name__)
    from .core.errors import quote

    raise AttributeError(f"module 'intdot' has no attribute {quote(name)}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


__all__ = ["errors", "dot", "DotSpec", "pack", "unpack", "lane_values", "__version__", *_LAZY]
