"""The gemm correction's per-row and per-column terms added to a uint32 result in one pass, compiled by numba.

NumPy adds an outer sum ``s += row[:, None] + col[None, :]`` in two passes over each block of ``s`` (one per
term); where ``s`` comes from a fast integer kernel (``torch._int_mm`` on VNNI/AMX) that second pass was 15-20%
of the whole gemm.  The fused loop reads and writes each word once.

Which does it is a rent-or-buy choice, as in the core (:mod:`intdot.core.accel`).  The fused loop saves about
1 ns a word; loading numba costs about 0.7 s in a new process (loading the compiled loop from the disk cache, a
few milliseconds more).  So the NumPy passes do the work until the time the fused loop would have saved pays for
what loading it costs: about 2**29 words where numba is not loaded yet, 2**24 where it is (the core's kernels
load it).  Without numba, or with ``INTDOT_BACKEND=numpy``, NumPy always does it.
"""

from __future__ import annotations

import sys

import numpy as np

from ..core.accel import check_environment

# Words the NumPy passes correct before the compiled loop is loaded, with numba still to import and with it there.
SWITCH_AFTER = 1 << 29
SWITCH_LOADED = 1 << 24
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
    if check_environment() == "numpy" or not s.flags.c_contiguous:
        return False
    if not _kernel and _done[0] < (SWITCH_LOADED if "numba" in sys.modules else SWITCH_AFTER):
        _done[0] += s.size
        return False
    kernel = _load()
    if kernel is None:
        return False
    kernel(s, np.ascontiguousarray(row), np.ascontiguousarray(col))
    return True
