"""intdot: bit-exact golden model of integer dot-product instructions.

>>> import intdot
>>> intdot.amd.sdot4(0x01020304, 0x05060708, 10, False)
80
>>> intdot.dot(0x0001_FFFF, 0x0302, 0, a_width=16, b_width=8)
1
"""

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (type checkers read the name)

__version__ = "0.1.0"

# Everything loads on first use, so `import intdot` imports nothing, NumPy included: a command-line call pays it
# every time, and the console script (intdot._start) must be running before NumPy's import to answer Ctrl-C there.
# A front end registered later (intdot.isa.registry) loads here too, through __getattr__, without a line here.
_LAZY = ("errors", "amd", "amdgpu", "arm", "nvidia", "x86", "catalog", "gemm", "quant", "isa")
_CORE = ("DotSpec", "dot", "lane_values", "pack", "unpack")

if TYPE_CHECKING:  # what a type checker and an IDE see: the same names, imported eagerly
    from . import amd, amdgpu, arm, catalog, errors, gemm, isa, nvidia, quant, x86  # noqa: F401
    from .core import DotSpec, dot, lane_values, pack, unpack  # noqa: F401


def __getattr__(name):
    import importlib

    if name in _LAZY:
        return importlib.import_module(f".{name}", __name__)
    if name in _CORE:
        return getattr(importlib.import_module(".core", __name__), name)
    if not name.startswith("_"):
        from .isa.registry import ISAS

        if name in ISAS:
            return importlib.import_module(f".{name}", __name__)
    from .core.errors import quote

    raise AttributeError(f"module 'intdot' has no attribute {quote(name)}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY) | set(_CORE))


__all__ = ["dot", "DotSpec", "pack", "unpack", "lane_values", "__version__", *_LAZY]
