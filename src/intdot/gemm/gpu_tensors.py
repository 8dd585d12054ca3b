"""gemm on CUDA tensors: checks once per call, batch axes and 1-D operands as :func:`numpy.matmul` reads them,
then one 2-D problem per batch element (or one tall problem where the batch folds into M) through :mod:`.gpu`.

Repeated calls with the same shapes, strides and dtypes (inference's decode loop) skip the checks that depend
only on those: what they decided is kept in ``_PLANS``; data-dependent checks (lane ranges that the dtype does
not guarantee, ``c``) still run on every call.
"""

from __future__ import annotations

import numpy as np

from ..core.errors import OperandError, OperandTypeError
from ..core.values import a_or_an
from . import gpu, gpu_clamp

# (op, dtypes, shapes, strides, device) -> the 2-D kernel call that needs no per-call checks; see _plan.
_PLANS: dict = {}
_PLAN_LIMIT = 4096


def _tensor_acc(c, o, shape, device):
    """``c`` checked as the in-memory path checks it and broadcast to ``shape``, as a CUDA tensor whose bits
    are the accumulator's (int32 for 32 bits, int64 for 64); None stays None."""
    import torch

    from .inputs import accumulator

    if c is None:
        return None
    if not isinstance(c, torch.Tensor):  # ints, NumPy: the in-memory checks, then onto the device
        words = accumulator(c, o, shape)
        bits = words.astype(np.uint32).view(np.int32) if o.acc_bits == 32 else words.view(np.int64)
        # A C-ordered copy: the checked words may be a read-only view, and a broadcast one np.array would copy in
        # Fortran order by default (the kernels read c at row-major offsets).
        return torch.from_numpy(np.array(bits, order="C")).to(device)
    if c.dtype.is_floating_point or c.dtype.is_complex or c.dtype == torch.bool:
        raise OperandTypeError(f"c is {a_or_an(c.dtype)} tensor; expected an integer tensor")
    n = o.acc_bits
    lo, hi = -(1 << (n - 1)), (1 << n) - 1
    info = torch.iinfo(c.dtype)
    if (info.min < lo or info.max > hi) and c.numel():
        mn, mx = int(c.min()), int(c.max())
        if mn < lo or mx > hi:
            raise OperandError(
                f"c contains {mn if mn < lo else mx}, which is not a {n}-bit accumulator value of {o.name}; "
                f"expected values in [{lo}, {hi}] (signed or unsigned spelling)"
            )
    try:
        if tuple(torch.broadcast_shapes(c.shape, shape)) != tuple(shape):  # c may not add axes to the result
            raise RuntimeError
        c = c.to(device).expand(shape)
    except RuntimeError:
        raise OperandError(
            f"c has shape {tuple(c.shape)}; expected a shape that broadcasts to the result's {tuple(shape)}"
        ) from None
    return c.contiguous()


def _check_operand(torch, name, x, which, a, o):
    if not isinstance(x, torch.Tensor) or x.device != a.device:
        where = a_or_an(type(x).__name__) if not isinstance(x, torch.Tensor) else f"a tensor on {x.device}"
        raise OperandTypeError(
            f"{name} is {where}, but a is a CUDA tensor on {a.device}; expected both on that device "
            f"(or NumPy arrays for both)"
        )
    if x.dtype.is_floating_point or x.dtype.is_complex or x.dtype == torch.bool:
        raise OperandTypeError(f"{name} is {a_or_an(x.dtype)} tensor; expected an integer CUDA tensor")
    if x.dim() < 1:
        raise OperandError(
            f"{name} has shape {tuple(x.shape)}; expected at least 1 dimension ((K,) or (..., M, K) for a, (K,) or "
            f"(..., K, N) for b, as numpy.matmul takes them)"
        )
    lo, hi = o.lane_range(which)
    info = torch.iinfo(x.dtype)
    # A dtype whose every value is a lane needs no pass over the data (int8 for 8-bit signed lanes).
    if (info.min < lo or info.max > hi) and x.numel() and (int(x.min()) < lo or int(x.max()) > hi):
        raise OperandError(f"{name} holds values outside [{lo}, {hi}], the lanes of {o.name}")
    return info.min >= lo and info.max <= hi


def _shapes(a, b):
    """(batch, M, K, N) of numpy.matmul on a, b (1-D operands already promoted), or an OperandError."""
    import torch

    if a.shape[-1] != b.shape[-2]:
        raise OperandError(
            f"a has shape {tuple(a.shape)} and b {tuple(b.shape)}: K differs (a's last axis, b's second-to-last)"
        )
    try:
        batch = tuple(torch.broadcast_shapes(a.shape[:-2], b.shape[:-2]))
    except RuntimeError:
        raise OperandError(
            f"a has shape {tuple(a.shape)} and b has shape {tuple(b.shape)}: their batch dimensions "
            f"{tuple(a.shape[:-2])} and {tuple(b.shape[:-2])} do not broadcast"
        ) from None
    return batch, a.shape[-2], a.shape[-1], b.shape[-1]


def _result_dtype(torch, o):
    return {(32, True): torch.int32, (32, False): torch.uint32, (64, True): torch.int64, (64, False): torch.uint64}[
        o.acc_bits, o.acc_signed
    ]


def _signed(torch, dtype):
    return {torch.uint32: torch.int32, torch.uint64: torch.int64}.get(dtype, dtype)


def gemm_tensors(a, b, c, o, clamp: bool, neg: bool):
    """gemm on CUDA tensors, staying on the device: returns a CUDA tensor of the instruction's type.

    ``a`` (..., M, K) or (K,), ``b`` (..., K, N) or (K,), any strides; batch axes broadcast as in numpy.matmul.
    """
    import torch

    if a.is_cuda and a.get_device() != torch.cuda.current_device():
        # Triton launches on the current device's stream and context: make the operands' device current.
        with torch.cuda.device(a.device):
            return gemm_tensors(a, b, c, o, clamp, neg)
    if c is None and isinstance(b, torch.Tensor) and o.pair_sat is None:
        # 16-byte alignment and the kernel choice too: a compiled kernel is specialised on the first.
        # Devices as indices (get_device): cheaper to read and hash than torch.device objects, and as exact.
        key = (o, clamp, neg, a.dtype, b.dtype, a.shape, a.stride(), b.shape, b.stride(), a.get_device())
        key += (b.get_device(), a.data_ptr() % 16 == 0, b.data_ptr() % 16 == 0, gpu.KERNEL, gpu.TMA, gpu.WS)
        plan = _PLANS.get(key)
        if plan is not None:
            return plan(a, b)
    else:
        key = None
    fits_a = _check_operand(torch, "a", a, "a", a, o)
    fits_b = _check_operand(torch, "b", b, "b", a, o)
    if clamp and c is None and o.pair_sat is None:
        # No chain can reach a limit where the dtypes alone keep it inside (int8 lanes, K below 2**17): the
        # saturating call is the wrapping one, bit for bit, and takes its plan.
        clamp = not gpu_clamp.never_saturates(torch, a.dtype, b.dtype, a.shape[-1], *o.acc_range, neg)
    a_vec, b_vec = a.dim() == 1, b.dim() == 1
    a2 = a[None, :] if a_vec else a
    b2 = b[:, None] if b_vec else b
    batch, m, k, n = _shapes(a2, b2)
    out_shape = batch + (() if a_vec else (m,)) + (() if b_vec else (n,))
    cc = _tensor_acc(c, o, out_shape, a.device)
    if cc is not None and (a_vec or b_vec):
        cc = cc.reshape(batch + (m, n))
    if not batch and not (a_vec or b_vec):
        if key is not None and fits_a and fits_b and len(_PLANS) < _PLAN_LIMIT:
            # Nothing left to check on a later call with this key: remember the one call that computes it.
            plan, first = _direct_plan(torch, a, b, o, clamp, neg)
            if plan is None:

                def plan(x, y):
                    return _one(x, y, None, o, clamp, neg)

            _PLANS[key] = plan
            if first is not None:
                return first
        return _one(a2, b2, cc, o, clamp, neg)
    out = _batched(torch, a2, b2, cc, o, clamp, neg, batch, m, k, n)
    return out.reshape(out_shape)


def _direct_plan(torch, a, b, o, clamp, neg):
    """(plan, this call's result) where the split-K kernel or the TMA kernel on int8 x int8 computes the call and
    its remembered launch serves later calls (gpu.fast); (None, result) where another kernel computes it,
    (None, None) where gpu.fast does not apply (the later calls go through _one, their launches direct all the
    same: gpu_launch.Direct)."""
    m, k = a.shape
    n = b.shape[1]
    eligible = not clamp and o.acc_bits == 32 and m and n and k
    if not eligible or a.dtype not in (torch.int8, torch.uint8) or b.dtype not in (torch.int8, torch.uint8):
        return None, None
    call, out = gpu.fast(a, b, neg)
    if call is None:
        return None, out if o.acc_signed else out.view(torch.uint32)
    if o.acc_signed:
        return call, out

    def unsigned(x, y):
        return call(x, y).view(torch.uint32)

    return unsigned, out.view(torch.uint32)


def _batched(torch, a, b, c, o, clamp, neg, batch, m, k, n):
    """The batch of 2-D problems: folded into one (batch x M, K) problem where b has no batch axes and a's
    batch views as rows without a copy; else one problem per batch element."""
    if b.dim() == 2 and a.dim() > 2:
        try:
            tall = a.view(-1, k)
        except RuntimeError:  # a's batch strides do not fold into rows (a per-matrix column-major a, say)
            tall = None
        if tall is not None and tall.shape[0]:
            cc = None if c is None else c.reshape(-1, n)
            return _one(tall, b, cc, o, clamp, neg).reshape(batch + (m, n))
    dtype = _result_dtype(torch, o)
    out = torch.empty(batch + (m, n), dtype=_signed(torch, dtype), device=a.device)
    ab = a.expand(batch + (m, k))
    bb = b.expand(batch + (k, n))
    for idx in np.ndindex(*batch):
        r = _one(ab[idx], bb[idx], None if c is None else c[idx], o, clamp, neg)
        out[idx] = r.view(_signed(torch, r.dtype))
    return out.view(dtype)


def _start(torch, c, o):
    """The accumulators' values as int64 (a 32-bit accumulator given in either spelling), or None."""
    if c is None:
        return None
    start = c.to(torch.int64)
    if not o.acc_signed:
        return start % (1 << 32)
    if c.dtype in (torch.uint32, torch.int64):
        return torch.where(start > o.acc_range[1], start - (1 << 32), start)
    return start


def _pairs_on_host(torch, a, b, start, o, clamp: bool, neg: bool):
    """An instruction whose pair sums saturate first (x86's vpmaddubsw idiom), computed by the CPU path on copies
    of the operands and put back on the device in the instruction's type."""
    from . import cpu, pairs

    an, bn = a.cpu().numpy(), b.cpu().numpy()
    s = np.zeros((an.shape[0], bn.shape[1]), np.int64) if start is None else start.cpu().numpy()
    r = pairs.gemm(an, bn, s, o, clamp, neg, lambda x, y: cpu.float_product(x, y, np.float64))
    out = torch.from_numpy(np.ascontiguousarray(r.view(np.int32 if o.acc_bits == 32 else np.int64))).to(a.device)
    return out if o.acc_signed else out.view(torch.uint32 if o.acc_bits == 32 else torch.uint64)


def _one(a, b, c, o, clamp: bool, neg: bool):
    """One 2-D problem on checked tensors; ``c`` None or (M, N) of the accumulator's bits."""
    import torch

    lo, hi = o.acc_range
    if o.pair_sat is not None:  # x86's saturating-pair idiom: on the host (pairs.py), exactly
        return _pairs_on_host(torch, a, b, _start(torch, c, o), o, clamp, neg)
    if clamp:
        # A signed 32-bit accumulator given as int32 holds its values already: no int64 copy unless walked.
        signed32 = c is not None and c.dtype == torch.int32 and o.acc_signed and o.acc_bits == 32
        r = gpu_clamp.clamp_chain(a, b, c if signed32 else _start(torch, c, o), o.k_step, lo, hi, neg)
        if r.dtype == torch.int32:  # already the accumulator's bits
            return r if o.acc_signed else r.view(torch.uint32)
        return r.to(torch.int32) if o.acc_signed else r.to(torch.uint32)
    small = a.element_size() == 1 and b.element_size() == 1 and a.dtype != torch.int16
    if o.acc_bits == 32 and small:
        cc = c if c is None or c.dtype == torch.int32 else gpu._bits32(c.to(torch.int64))
        out = gpu.mm_int8(a, b, cc, neg=neg)
        return out if o.acc_signed else out.view(torch.uint32)
    s = gpu._f64_product(a.to(torch.int64), b.to(torch.int64))
    s = -s if neg else s
    if c is not None:
        s = s + c.to(torch.int64)
    if o.acc_bits == 32:
        s = s.remainder(1 << 32).to(torch.int64)
        return (torch.where(s > hi, s - (1 << 32), s) if o.acc_signed else s).to(
            torch.int32 if o.acc_signed else torch.uint32
        )
    return s if o.acc_signed else s.view(torch.uint64)
