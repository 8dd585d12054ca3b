"""The semantic core: lanes, validation, the one dot-product function, errors.

Its modules load on first use: ``intdot.core.errors`` is imported by every command-line start-up, and must not
bring NumPy (``core.dotstep``, ``core.values``) with it.  (The dot function's module is not named ``dot``: a
submodule loaded after the package would then replace the function ``intdot.core.dot`` with itself.)
"""

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (type checkers read the name)

# Each public name and the module that holds it.
_WHERE = {
    "check_environment": "accel",
    "DotSpec": "spec",
    "DotTrace": "dotstep",
    "dot": "dotstep",
    "dot_arrays": "dotstep",
    "dot_function": "dotstep",
    "trace": "dotstep",
    "lane_values": "lanes",
    "pack": "lanes",
    "pack_scalar": "lanes",
    "unpack": "lanes",
    "as_word_array": "values",
    "check_flag": "values",
    "check_int": "values",
    "check_word": "values",
}

if TYPE_CHECKING:  # what a type checker and an IDE see: the same names, imported eagerly
    from .accel import check_environment  # noqa: F401
    from .dotstep import DotTrace, dot, dot_arrays, dot_function, trace  # noqa: F401
    from .lanes import lane_values, pack, pack_scalar, unpack  # noqa: F401
    from .spec import DotSpec  # noqa: F401
    from .values import as_word_array, check_flag, check_int, check_word  # noqa: F401


def __getattr__(name):
    import importlib

    if name in _WHERE:
        return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    errors = importlib.import_module(".errors", __name__)
    if name in errors.__all__:  # the error classes, as `from .errors import *` used to put them here
        return getattr(errors, name)
    quote = errors.quote

    raise AttributeError(f"module 'intdot.core' has no attribute {quote(name)}")


def __dir__():
    import importlib

    errors = importlib.import_module(".errors", __name__)
    return sorted(set(globals()) | set(_WHERE) | set(errors.__all__))


__all__ = list(_WHERE)
