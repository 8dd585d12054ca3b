"""Optional compiled kernels for the array path (numba, the ``fast`` extra).

Without numba everything still works on the NumPy path.  ``INTDOT_BACKEND``
(``numpy`` or ``numba``) forces one path for the whole process.

Which path ``"auto"`` takes is a rent-or-buy choice.  The kernel is 5-10 times
faster than the NumPy path per element, but a new process pays for it once
per dot step: importing numba and its first dispatch cost about 0.7 s even
with the compiled kernel on disk (1.5-2.2 s when it has to compile), the
time the NumPy path takes for some 30 million elements.  So every dot step
starts on the NumPy path, whatever the size of the call, and moves to the
kernel once the NumPy path has done about as much work for it as loading
the kernel costs: a one-off call never waits for numba, and a loop over
many calls never spends more than about twice what the better path alone
would have cost.  A step whose kernel is already loaded in the process
(forced with ``backend="numba"``, or bought earlier) uses it at once.
"""

from __future__ import annotations

import os

from .errors import ConfigError, OperandError, quote

BACKENDS = ("auto", "numpy", "numba")
ENV = "INTDOT_BACKEND"
# Work, in elements, that the NumPy path does for one dot step before "auto" loads its kernel: about 0.6-0.9 s
# of NumPy time here (8-28 ns an element, bench/builtins.py --first-call), the cost of
# loading it.  Each call also counts at least CALL_COST elements: the NumPy path's fixed cost per call (about
# 40 us) is what makes a loop of small calls worth compiling.
SWITCH_AFTER = 1 << 25
CALL_COST = 1 << 11
_numpy_work: dict = {}  # spec -> elements done on the NumPy path by "auto" calls
_loaded: set = set()  # specs whose kernel this process has handed out (compiled or loaded from disk)
_numba: list = []  # [True] or [False] once the import of the kernels module has been tried


def numba_available() -> bool:
    if not _numba:
        try:
            from . import _numba_kernels  # noqa: F401
        except ImportError:
            _numba.append(False)
        else:
            _numba.append(True)
    return _numba[0]


def check_environment() -> str:
    """The backend ``INTDOT_BACKEND`` asks for (``"auto"`` when unset); a :class:`ConfigError` if unknown.

    Every path that uses the core calls this once (the command line at
    start-up), so a misspelt value is reported whatever the command, not
    only by the first call that reaches the array path.
    """
    value = os.environ.get(ENV, "auto")
    if value not in BACKENDS:
        raise ConfigError(
            f"the environment variable {ENV}={quote(value)} is not known; expected one of "
            f"{', '.join(BACKENDS)} (or leave it unset for auto)"
        )
    return value


def kernel_for(spec, n: int, backend: str = "auto"):
    """The compiled kernel to use for ``n`` elements, or None for the NumPy path."""
    if backend == "auto":
        backend = check_environment()
    elif not isinstance(backend, str) or backend not in BACKENDS:
        from .values import describe  # imports NumPy: only for the error

        raise OperandError(f"backend={describe(backend)} is not known; expected one of {', '.join(BACKENDS)}")
    if backend == "numpy":
        return None
    if backend == "auto" and spec not in _loaded:
        done = _numpy_work.get(spec, 0)
        if done < SWITCH_AFTER:
            _numpy_work[spec] = done + max(int(n), CALL_COST)
            return None
        if not numba_available():
            return None
    try:
        from . import _numba_kernels
    except ImportError:
        if backend == "numba":
            raise OperandError("backend='numba' needs numba; install intdot[fast]") from None
        return None
    _loaded.add(spec)
    return _numba_kernels.kernel(
        spec.a_width,
        spec.b_width,
        spec.lanes,
        spec.a_signed,
        spec.b_signed,
        spec.acc_bits,
        spec.acc_signed,
        spec.pair_sat or 0,
    )
