"""intdot: bit-exact golden model of integer dot-product instructions.

>>> import intdot
>>> intdot.amd.sdot4(0x01020304, 0x05060708, 10, False)
80
"""

from . import errors
from .core import DotSpec, dot, lane_values, pack, unpack

__version__ = "0.1.0"


def __getattr__(name):
    # Front ends load on first use, so `import intdot` stays cheap.
    import importlib

    if name in ("amd", "arm"):
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'intdot' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | {"amd", "arm"})


__all__ = ["errors", "dot", "DotSpec", "pack", "unpack", "lane_values", "__version__"]
