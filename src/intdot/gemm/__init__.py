"""Exact INT8/INT4/INT16 GEMM on any dot instruction's semantics, on the CPU, a GPU or Dask.

:func:`gemm` returns what a kernel computes when it chains one instruction along
K in ascending order, bit for bit: wrapping or saturating at every step, with
the instruction's lane widths, signedness and accumulator.  Every backend is an
exact path to the same bits; ``backend="auto"`` picks the fastest installed.
"""

from .api import BACKENDS, gemm, installed
from .ops import GemmOp, resolve

__all__ = ["BACKENDS", "GemmOp", "gemm", "installed", "resolve"]
