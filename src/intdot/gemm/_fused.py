"""The gemm correction's per-row and per-column terms added to a uint32 result in one pass, compiled by numba.

NumPy adds an outer sum ``s += row[:, None] + col[None, :]`` in two passes over each block of ``s`` (one per
term); where ``s`` comes from a fast integer kernel (``torch._int_mm`` on VNNI/AMX) that second pass was 15-20%
of the whole gemm.  The fused loop reads and writes each word once.

Loading numba costs about 0.7 s in a new process (and compiling the loop, the first time on a machine, about as
much again), so this is the same rent-or-buy choice as the core's (:mod:`intdot.core.accel`): the NumPy passes do
the work until they have spent about that much time, and the compiled loop takes over from then on.  Without
numba, or with ``INTDOT_BACKEND=numpy``, NumPy always does it.
"""

from __future__ import annotations

import os

import numpy as np

# Elements the NumPy passes correct before the compiled loop is loaded: about 0.5 s of them on a slow core.
SWITCH_AFTER = 1 << 27
_done = [0]
_kernel: list = []  # [the compiled loop] or [None] once loading it has been tried


def _load():
    if not _kernel:
        try:
            from ..core._numba_kernels import _jit
        except ImportError:
            _kernel.append(None)
        else:

            def add_terms(s, row, col):
                m, n = s.shape
                for i in range(m):
                    ri = row[i]
                    for j in range(n):
                        s[i, j] = s[i, j] + ri + col[j]

            _kernel.append(_jit(add_terms))
    return _kernel[0]


def add_terms(s: np.ndarray, row: np.ndarray, col: np.ndarray) -> bool:
    """``s += row[:, None] + col[None, :]`` modulo 2**32 in one compiled pass (``s`` a C-contiguous 2-D uint32,
    ``row``/``col`` uint32 of its rows/columns); False, doing nothing, where the NumPy passes should do it."""
    if os.environ.get("INTDOT_BACKEND") == "numpy" or not s.flags.c_contiguous:
        return False
    if not _kernel and _done[0] < SWITCH_AFTER:
        _done[0] += s.size
        return False
    kernel = _load()
    if kernel is None:
        return False
    kernel(s, np.ascontiguousarray(row), np.ascontiguousarray(col))
    return True
