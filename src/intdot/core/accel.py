"""Optional compiled kernels for the array path (numba, the ``fast`` extra).

Without numba everything still works on the NumPy path.  ``INTDOT_BACKEND``
(``numpy`` or ``numba``) forces one path for the whole process.
"""

from __future__ import annotations

import os

from .errors import OperandError

BACKENDS = ("auto", "numpy", "numba")
# Below MIN_AUTO elements a call is small: the compiled kernel still wins (a few
# microseconds against tens for NumPy), but compiling it costs about half a
# second, so "auto" compiles for small calls only once a spec has been used
# HOT times (a loop, e.g. an instruction executed many times), never for one-off use.
MIN_AUTO = 4096
HOT = 64
_small_calls: dict = {}


def numba_available() -> bool:
    try:
        from . import _numba_kernels  # noqa: F401
    except ImportError:
        return False
    return True


def kernel_for(spec, n: int, backend: str = "auto"):
    """The compiled kernel to use for ``n`` elements, or None for the NumPy path."""
    name = "backend"
    if backend == "auto":
        backend, name = os.environ.get("INTDOT_BACKEND", "auto"), "the environment variable INTDOT_BACKEND"
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise OperandError(f"{name}={backend!r} is not known; expected one of {', '.join(BACKENDS)}")
    if backend == "numpy":
        return None
    if backend == "auto" and n < MIN_AUTO:
        seen = _small_calls.get(spec, 0)
        if seen < HOT:
            _small_calls[spec] = seen + 1
            return None
    try:
        from . import _numba_kernels
    except ImportError:
        if backend == "numba":
            raise OperandError("backend='numba' needs numba; install intdot[fast]") from None
        return None
    return _numba_kernels.kernel(spec.width, spec.a_signed, spec.b_signed, spec.result_signed)
