"""Optional compiled kernels for the array path (numba, the ``fast`` extra).

Without numba everything still works on the NumPy path.  ``INTDOT_BACKEND``
(``numpy`` or ``numba``) forces one path for the whole process.
"""

from __future__ import annotations

import os

from .errors import ConfigError, OperandError

BACKENDS = ("auto", "numpy", "numba")
ENV = "INTDOT_BACKEND"
# Below MIN_AUTO elements a call is small: the compiled kernel still wins (a few
# microseconds against tens for NumPy), but its first use in a process costs
# importing numba (0.2-0.3 s) and compiling (0.35-0.7 s) or loading it from the
# disk cache (a few ms), so "auto" uses it for small calls only once a spec has
# been used HOT times (a loop, e.g. an instruction executed many times), never
# for one-off use.
MIN_AUTO = 4096
HOT = 64
_small_calls: dict = {}


def numba_available() -> bool:
    try:
        from . import _numba_kernels  # noqa: F401
    except ImportError:
        return False
    return True


def check_environment() -> str:
    """The backend ``INTDOT_BACKEND`` asks for (``"auto"`` when unset); a :class:`ConfigError` if unknown.

    Every path that uses the core calls this once (the command line at
    start-up), so a misspelt value is reported whatever the command, not
    only by the first call that reaches the array path.
    """
    value = os.environ.get(ENV, "auto")
    if value not in BACKENDS:
        raise ConfigError(
            f"the environment variable {ENV}={value!r} is not known; expected one of "
            f"{', '.join(BACKENDS)} (or leave it unset for auto)"
        )
    return value


def kernel_for(spec, n: int, backend: str = "auto"):
    """The compiled kernel to use for ``n`` elements, or None for the NumPy path."""
    if backend == "auto":
        backend = check_environment()
    elif not isinstance(backend, str) or backend not in BACKENDS:
        raise OperandError(f"backend={backend!r} is not known; expected one of {', '.join(BACKENDS)}")
    if backend == "numpy" or spec.pair_sat is not None or spec.acc_bits == 16:
        return None  # no compiled kernel for these (x86's pmaddubsw idiom): the NumPy path computes them
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
    return _numba_kernels.kernel(
        spec.a_width, spec.b_width, spec.lanes, spec.a_signed, spec.b_signed, spec.acc_bits, spec.acc_signed
    )
