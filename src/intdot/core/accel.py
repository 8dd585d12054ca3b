"""Optional compiled kernels for the array path (numba, the ``fast`` extra).

Without numba everything still works on the NumPy path.  ``INTDOT_BACKEND``
(``numpy`` or ``numba``) forces one path for the whole process.
"""

from __future__ import annotations

import os

from .errors import OperandError

BACKENDS = ("auto", "numpy", "numba")
MIN_AUTO = 4096  # below this many elements the compile/dispatch cost is not worth it


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
    if backend == "numpy" or (backend == "auto" and n < MIN_AUTO):
        return None
    try:
        from . import _numba_kernels
    except ImportError:
        if backend == "numba":
            raise OperandError("backend='numba' needs numba; install intdot[fast]") from None
        return None
    return _numba_kernels.kernel(spec.width, spec.a_signed, spec.b_signed, spec.result_signed)
