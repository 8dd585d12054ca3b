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
_LAZY = ("amd", "arm", "catalog", "gemm", "nvidia")

if TYPE_CHECKING:  # what a type checker and an IDE see: the same names, imported eagerly
    from . import amd, arm, catalog, gemm, nvidia  # noqa: F401


def __getattr__(name):
    import importlib

    if name in _LAZY:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'intdot' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


__all__ = ["errors", "dot", "DotSpec", "pack", "unpack", "lane_values", "__version__", *_LAZY]
