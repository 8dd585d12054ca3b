"""gemm over Dask arrays: one in-memory gemm per (row block, column block), through the same backends.

K is gathered into one chunk per block, because a saturating chain must see its steps in order; the
result's chunks are a's row chunks by b's column chunks.  The graph runs on any Dask scheduler, so a
verification sweep larger than one machine runs on a cluster.
"""

from __future__ import annotations

import numpy as np

from ..core.errors import OperandError, OperandTypeError
from ..core.values import a_or_an
from .inputs import accumulator, is_dask, operand
from .ops import GemmOp


def dask_gemm(a, b, c, *, block, op: GemmOp, clamp: bool, neg: bool, backend: str):
    """``block(a, b[, c], op=, clamp=, neg=, backend=)`` is the in-memory gemm that each block runs (passed in, so
    this module does not import the API that calls it)."""
    import dask.array as da

    # What is not a Dask array yet gets gemm's own checks first (dask.array.asarray would read [1, True] as
    # [1, 1] and stop at Python ints past int64 with an error of its own).
    if not is_dask(a):
        a = operand(a, "a", op, "a")
    if not is_dask(b):
        b = operand(b, "b", op, "b")
    a = da.asarray(a)
    b = da.asarray(b)
    for name, x in (("a", a), ("b", b)):
        if x.ndim != 2:
            raise OperandError(
                f"{name} is {a_or_an(f'{x.ndim}-D')} Dask array; gemm over Dask takes 2-D arrays "
                f"(compute batches as separate calls)"
            )
        if x.dtype.kind not in "iu" and x.dtype.name not in ("int4", "uint4", "int2", "uint2"):
            raise OperandTypeError(f"{name} has dtype {x.dtype}; expected an integer dtype")
    if a.shape[1] != b.shape[0]:
        raise OperandError(
            f"a has shape {a.shape} and b has shape {b.shape}: a's last axis (K={a.shape[1]}) "
            f"must equal b's first (K={b.shape[0]})"
        )
    a = a.rechunk({1: -1})
    b = b.rechunk({0: -1})
    kw = dict(op=op, clamp=clamp, neg=neg, backend=backend, dtype=np.dtype(op.result_dtype), concatenate=True)
    if c is None:
        return da.blockwise(block, "ij", a, "ik", b, "kj", **kw)
    shape = (a.shape[0], b.shape[1])
    if not is_dask(c):
        c = accumulator(c, op, shape)
    c = da.asarray(c)
    try:
        c = da.broadcast_to(c, shape).rechunk((a.chunks[0], b.chunks[1]))
    except ValueError:
        raise OperandError(f"c has shape {c.shape}; expected a shape that broadcasts to the result's {shape}") from None
    return da.blockwise(block, "ij", a, "ik", b, "kj", c, "ij", **kw)
