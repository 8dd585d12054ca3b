"""``gemm``: what a kernel chaining one dot instruction along K computes, exactly."""

from __future__ import annotations

import math
import os

import numpy as np

from ..core.errors import OperandError
from ..core.values import describe
from . import clamp as _clamp
from . import cpu
from .inputs import accumulator, is_dask, operand, read_acc, shapes
from .ops import check_target, resolve

BACKENDS = ("auto", "torch", "float32", "float64", "numpy", "gpu")


_INSTALLED: dict[str, bool] = {}


def installed() -> dict[str, bool]:
    """Which exact backends can run here."""
    if _INSTALLED:
        return dict(_INSTALLED)
    have = {"numpy": True, "float32": True, "float64": True, "torch": False, "gpu": False}
    try:
        import torch

        have["torch"] = hasattr(torch, "_int_mm")
        have["gpu"] = bool(torch.cuda.is_available())
    except ImportError:
        pass
    _INSTALLED.update(have)
    return have


# Below this many multiply-adds per call, one BLAS call beats importing and calling PyTorch or a GPU.
SMALL = 1 << 26


def check_backend(backend) -> None:
    """Raise unless ``backend`` names a backend that can run here."""
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise OperandError(f"backend={describe(backend)} is not a gemm backend; expected one of {BACKENDS}")
    if backend != "auto" and not installed()[backend]:
        why = "PyTorch is not installed (the 'torch' extra)" if backend == "torch" else "no CUDA GPU is visible"
        raise OperandError(f"backend={backend!r} cannot run here: {why}")


def _pick(backend, a, b, work: int = SMALL) -> str:
    check_backend(backend)
    if backend == "auto" and work < SMALL:
        return "float32" if a.dtype.itemsize == 1 and b.dtype.itemsize == 1 else "float64"
    have = installed()
    if backend == "auto":
        if have["gpu"] and os.environ.get("INTDOT_GEMM_GPU", "1") != "0":
            return "gpu"
        if have["torch"] and cpu.torch_fits(a, b) and cpu.torch_fast():
            return "torch"
        # 16-bit lanes make float32 blocks too short to pay; float64 holds whole K.
        return "float32" if a.dtype.itemsize == 1 and b.dtype.itemsize == 1 else "float64"
    if backend == "torch" and not cpu.torch_fits(a, b):
        raise OperandError(
            f"backend='torch' takes 8- and 4-bit lanes only (torch._int_mm is int8); "
            f"got {a.dtype} x {b.dtype}; use backend='float64' or 'auto'"
        )
    return backend


def product(a: np.ndarray, b: np.ndarray, backend: str) -> np.ndarray:
    """The exact 2-D ``a @ b`` as int64 through one backend."""
    if backend == "torch":
        return cpu.torch_product(a, b)
    if backend == "float32":
        return cpu.float_product(a, b, np.float32)
    if backend == "float64":
        return cpu.float_product(a, b, np.float64)
    if backend == "gpu":
        from . import gpu

        return gpu.product(a, b)
    return cpu.numpy_product(a, b)


def gemm(a, b, c=None, *, op, clamp=None, neg=None, target=None, backend="auto", a_signed=None, b_signed=None):
    """Exactly what a kernel computes that walks K in ascending order, one ``op`` step at a time.

    Each output starts from ``c`` (zero if omitted) and accumulates one instruction step (``k_step``
    lanes of K) at a time, with the instruction's accumulator width and rule: wrap modulo 2**acc_bits,
    or with ``clamp=True`` saturate at every step.  K that is not a multiple of the step is padded with
    zeros, as kernels do; zeros add nothing, so only the grouping of the last step changes.

    Parameters
    ----------
    a : array_like, shape (..., M, K) or (K,)
        Lane values of the first operand (int8/uint8, int4/uint4 incl. ml_dtypes', int16/uint16) that fit
        the instruction's lanes; anything else is an error, never wrapped.
    b : array_like, shape (..., K, N) or (K,)
        Lane values of the second operand. Batch axes broadcast and 1-D operands are read as in
        :func:`numpy.matmul` (a 1-D ``a`` is one row, a 1-D ``b`` one column, and that axis is not in the result).
    c : array_like, optional
        Accumulators, broadcast to the result's shape, in signed or unsigned spelling. Only ``c``'s own elements
        are converted: a ``(N,)`` or ``(M, 1)`` ``c`` is added by broadcasting, never expanded.
    op : str or intdot.catalog.Instruction
        Any spelling of a dot instruction: ``"sdot4"``, ``"__builtin_amdgcn_sudot8"``, ``"usdot"``,
        ``"vusdotq_s32"``, ``"svdot_s64"``...; or one of :func:`intdot.catalog.records`.
    clamp, neg : bool, optional
        Saturate at every step; subtract each step's dot product: for instructions that take them as
        operands (AMD's builtins).  An instruction that fixes its rule (``vpdpbusds`` always saturates,
        Arm's forms always wrap) computes with it; a contradicting value is an error.
    target : str, optional
        Checked for the instruction's availability (``"RDNA3"``, ``"gfx942"``, ``"armv8.6-a"``...).
    backend : {"auto", "torch", "float32", "float64", "numpy", "gpu"}
        Which exact path computes the sum; all give the same bits.
    a_signed, b_signed : bool, optional
        The signedness flags of instructions that take them (AMD ``sudot4``/``sudot8``).

    Returns
    -------
    numpy.ndarray of int32, uint32, int64 or uint64 (the instruction's accumulator type); a NumPy scalar of that
    type when both operands are 1-D.

    Examples
    --------
    >>> import numpy as np
    >>> from intdot.gemm import gemm
    >>> a = np.full((1, 8), -128, np.int8)
    >>> gemm(a, a.T, op="sdot4").tolist()
    [[131072]]
    >>> gemm(a, a.T, np.int32(2**31 - 70000), op="sdot4", clamp=True).tolist()
    [[2147483647]]
    >>> gemm(a, a.T, np.int32(2**31 - 70000), op="sdot4").tolist()
    [[-2147422576]]
    >>> gemm(a[0], a.T, op="sdot4"), gemm(a[0], a[0], op="sdot4")      # 1-D operands, as numpy.matmul
    (array([131072], dtype=int32), np.int32(131072))
    """
    o, clamp, neg = _front(op, a_signed, b_signed, clamp, neg, target, _bits(a))
    if type(a).__module__ == "torch" and getattr(a, "is_cuda", False):
        if not _ON_DEVICE:  # imported once: an import statement would cost a decode step's call about 1 us
            from .gpu_tensors import gemm_tensors

            _ON_DEVICE.append(gemm_tensors)
        return _ON_DEVICE[0](a, b, c, o, bool(clamp), bool(neg))
    if is_dask(a) or is_dask(b) or is_dask(c):
        from .blockwise import dask_gemm

        check_backend(backend)  # now, not when the graph runs
        return dask_gemm(a, b, c, block=gemm, op=o, clamp=bool(clamp), neg=bool(neg), backend=backend)
    av = operand(a, "a", o, "a")
    bv = operand(b, "b", o, "b")
    shown = (av.shape, bv.shape)
    # numpy.matmul's rules for 1-D operands: a (K,) is a row, b (K,) a column, and that axis leaves the result.
    a_vec, b_vec = av.ndim == 1, bv.ndim == 1
    av = av[None, :] if a_vec else av
    bv = bv[:, None] if b_vec else bv
    batch, m, k, n = shapes(av, bv, shown)
    chosen = _pick(backend, av, bv, m * n * k * max(1, math.prod(batch)))
    out_shape = batch + ((m,) if not a_vec else ()) + ((n,) if not b_vec else ())
    acc = accumulator(c, o, out_shape)
    if acc is not None and (a_vec or b_vec):
        acc = np.expand_dims(acc, tuple(i for i, drop in ((-2, a_vec), (-1, b_vec)) if drop))  # a view
    if not batch:  # the result of the one problem is the answer: no copy into a batch array
        out = _one(av, bv, acc, o, bool(clamp), bool(neg), chosen)
    else:
        out = np.empty(batch + (m, n), o.result_dtype)
        ab = np.broadcast_to(av, batch + (m, k))
        bb = np.broadcast_to(bv, batch + (k, n))
        for idx in np.ndindex(*batch):
            out[idx] = _one(ab[idx], bb[idx], None if acc is None else acc[idx], o, bool(clamp), bool(neg), chosen)
    if a_vec or b_vec:
        out = out.reshape(out_shape)
        return out[()] if not out_shape else out  # 1-D . 1-D: a NumPy scalar, as numpy.matmul gives
    return out


def _pairs(a, b, acc, o, clamp, neg, backend):
    """An instruction whose pair sums saturate first (:mod:`intdot.gemm.pairs`)."""
    from . import pairs

    start = np.zeros((a.shape[0], b.shape[1]), np.int64) if acc is None else read_acc(acc, o)
    return pairs.gemm(a, b, start, o, clamp, neg, lambda x, y: product(x, y, backend))


_FRONT: dict = {}
_PLAIN = (bool, type(None))
_ON_DEVICE: list = []  # gpu_tensors.gemm_tensors, once a call has passed CUDA tensors


def _front(op, a_signed, b_signed, clamp, neg, target, a_bits):
    """(instruction, clamp, neg) of a call: ``op`` resolved, its rule applied, ``target`` checked; remembered for
    spellings by name with plain flags, so that a decode loop calling gemm on small shapes pays all that once."""
    # bool and None only: 1 == True and hashes alike, but clamp=1 is an error, never a remembered answer.
    plain = type(op) is str and (target is None or type(target) is str) and type(a_signed) in _PLAIN
    plain = plain and type(b_signed) in _PLAIN and type(clamp) in _PLAIN and type(neg) in _PLAIN
    key = (op, a_signed, b_signed, clamp, neg, target, a_bits) if plain else None
    got = _FRONT.get(key) if plain else None
    if got is None:
        o = resolve(op, a_signed, b_signed, a_bits=a_bits)
        clamp, neg = o.rule(clamp, neg)
        check_target(o, target, op)
        got = o, clamp, neg
        if plain and len(_FRONT) < 1024:
            _FRONT[key] = got
    return got


def _bits(x):
    """The element width of ``x`` in bits, if it has a dtype (numpy, torch, dask); for ambiguous spellings."""
    size = getattr(getattr(x, "dtype", None), "itemsize", None)
    return 8 * size if isinstance(size, int) else None


def _one(a, b, acc, o, clamp, neg, backend):
    """One 2-D problem: (M, K) x (K, N) with uint64 accumulator words or None."""
    m, n = a.shape[0], b.shape[1]
    if o.pair_sat is not None:
        return _pairs(a, b, acc, o, clamp, neg, "float64" if backend == "gpu" else backend)
    if clamp:
        if backend == "gpu":
            from . import gpu_clamp

            return gpu_clamp.clamp_gemm(a, b, acc, o, neg).astype(o.result_dtype)
        lo, hi = o.acc_range
        start = np.zeros((m, n), np.int64) if acc is None else read_acc(acc, o)
        safe = _clamp.safe_rows(start, a, b, lo, hi)
        res = np.empty((m, n), np.int64)
        if safe.any():
            s = product(np.ascontiguousarray(a[safe]), b, backend)
            res[safe] = start[safe] - s if neg else start[safe] + s
        if not safe.all():
            res[~safe] = _clamp.chain(a[~safe], b, start[~safe], o.k_step, lo, hi, neg=neg)
        return res.astype(o.result_dtype)
    if backend == "gpu":
        from . import gpu

        return gpu.wrap_gemm(a, b, acc, o, neg)
    wrap32 = {"torch": cpu.torch_wrap32, "float32": cpu.float32_wrap32}.get(backend)
    if wrap32 and o.acc_bits == 32 and a.dtype.itemsize == 1 and b.dtype.itemsize == 1 and a.shape[1]:
        if not neg:
            # c is folded into the centring correction: a (N,) or (M, 1) c costs no pass of its own.
            return wrap32(a, b, acc).view(o.result_dtype)
        s = wrap32(a, b)
        s = np.subtract(acc, s, out=s) if acc is not None else np.subtract(np.uint32(0), s, out=s)
        return s.view(o.result_dtype)
    s = product(a, b, backend).view(np.uint64)
    if acc is not None:
        # acc's words broadcast: a (N,) or (M, 1) c is read in place, never expanded to (M, N).
        np.subtract(acc, s, out=s) if neg else np.add(s, acc, out=s)
    elif neg:
        np.subtract(np.uint64(0), s, out=s)
    # astype to a narrower unsigned type keeps the low bits: the sum modulo 2**acc_bits.
    return s.view(o.result_dtype) if o.acc_bits == 64 else s.astype(np.uint32).view(o.result_dtype)
