"""Exact integer products ``a @ b`` on the CPU, as int64, by several exact paths.

Each function takes 2-D int8/uint8/int16/uint16 arrays and returns the exact
product in int64 (exact while ``K * max|a| * max|b| < 2**63``, far beyond any
real shape).  The float paths are exact because K is cut into blocks in which
no partial sum can reach 2**24 (float32) or 2**53 (float64), whatever order the
BLAS sums in: every partial sum is then an integer the format holds exactly.

Unsigned operands are first centred (``x - 128``), which halves the products'
magnitude (so float32 blocks are four times longer) and lets uint8 use int8
kernels; the exact correction is added back in int64:
``(a' + za)(b' + zb) = a'b' + zb*rowsum(a') + za*colsum(b') + za*zb*K``.
"""

from __future__ import annotations

import numpy as np

from . import _fused
from .inputs import limits

_CENTRE = {np.dtype(np.uint8): (np.int8, 128), np.dtype(np.uint16): (np.int16, 32768)}

# Rows of a processed at once, so float temporaries stay bounded on an 8192^3 problem.
_ROW_BYTES = 256 << 20


def centred(x: np.ndarray) -> tuple[np.ndarray, int]:
    """``(x - z, z)`` with ``x - z`` signed of the same width; z is 0 unless x has values above the signed range."""
    if x.dtype in _CENTRE:
        dt, z = _CENTRE[x.dtype]
        if x.size and int(x.max()) >= z:
            # Flipping the top bit is subtracting z in two's complement: one pass, no wider temporary.
            return (x ^ x.dtype.type(z)).view(dt), z
        return x.astype(dt), 0
    return x, 0


def _sums(x: np.ndarray, axis: int) -> np.ndarray:
    """``x.sum(axis)`` in int64, added in int32 where no sum can leave it (2.5 times faster for int8)."""
    bound = x.shape[axis] << (8 * x.dtype.itemsize)
    return x.sum(axis=axis, dtype=np.int32 if bound < 1 << 31 else np.int64).astype(np.int64)


def correct(s: np.ndarray, a: np.ndarray, za: int, b: np.ndarray, zb: int) -> np.ndarray:
    """Add back the centring of ``a`` and ``b`` into the int64 product ``s`` (in place)."""
    if zb:
        s += zb * _sums(a, 1)[:, None]
    if za:
        s += za * _sums(b, 0)[None, :]
    if za and zb:
        s += za * zb * a.shape[1]
    return s


def _maxabs(x: np.ndarray) -> int:
    return max(abs(int(x.min())), abs(int(x.max()))) if x.size else 0


def _dtype_maxabs(x: np.ndarray) -> int:
    lo, hi = limits(x.dtype)
    return max(-lo, hi)


def k_block(a: np.ndarray, b: np.ndarray, mantissa_bits: int) -> int:
    """The longest K block whose partial sums all stay below 2**mantissa_bits in magnitude."""
    if a.shape[1] * _dtype_maxabs(a) * _dtype_maxabs(b) < 1 << mantissa_bits:
        return max(1, a.shape[1])  # the whole of K, whatever the values: no pass over them
    p = _maxabs(a) * _maxabs(b)
    return max(1, (1 << mantissa_bits) // p) if p else max(1, a.shape[1])


def _rows(m: int, n: int, itemsize: int) -> int:
    return max(1, min(m, _ROW_BYTES // max(1, n * itemsize)))


def float_product(a: np.ndarray, b: np.ndarray, dtype=np.float32) -> np.ndarray:
    """Exact ``a @ b`` through float BLAS with exact K blocks."""
    a, za = centred(a)
    b, zb = centred(b)
    m, k = a.shape
    n = b.shape[1]
    wide = _dtype_maxabs(a) * _dtype_maxabs(b) >= 1 << 24
    if dtype == np.float32 and wide and _maxabs(a) * _maxabs(b) >= 1 << 24:
        # One 16-bit product alone can need more than float32's 24 bits; float64 holds it.
        dtype = np.float64
    kb = k_block(a, b, 24 if dtype == np.float32 else 53)
    s = np.zeros((m, n), np.int64)
    bf = [b[k0 : k0 + kb].astype(dtype) for k0 in range(0, k, kb)]
    rows = _rows(m, n, 8)
    for r0 in range(0, m, rows):
        ar = a[r0 : r0 + rows]
        out = s[r0 : r0 + rows]
        for i, k0 in enumerate(range(0, k, kb)):
            part = ar[:, k0 : k0 + kb].astype(dtype) @ bf[i]
            out += part.astype(np.int64)
    return correct(s, a, za, b, zb)


def numpy_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Exact ``a @ b`` by NumPy's integer matmul in int64 (slow; always there)."""
    a64 = a.astype(np.int64)
    s = np.empty((a.shape[0], b.shape[1]), np.int64)
    b64 = b.astype(np.int64)
    rows = _rows(a.shape[0], b.shape[1], 64)
    for r0 in range(0, a.shape[0], rows):
        np.matmul(a64[r0 : r0 + rows], b64, out=s[r0 : r0 + rows])
    return s


# torch._int_mm accumulates in int32: keep every block's sum inside it (|sum| <= K * 2**14).
_TORCH_K = 1 << 16


def _writable(x: np.ndarray) -> np.ndarray:
    # Broadcast batch views are read-only, which torch.from_numpy warns about.  And NumPy calls an array with a
    # length-1 axis C-contiguous whatever that axis's stride (``v[:, None]`` has 0); torch keeps the stride, and
    # its CPU torch._int_mm (2.13, on an AVX-512 VNNI core) read such a (K, 1) operand wrong: a copy has the
    # row-major strides.
    dense = x.strides == tuple(x.itemsize * int(np.prod(x.shape[i + 1 :])) for i in range(x.ndim))
    return x if x.flags.writeable and dense else np.array(x)


_FAST: list[bool] = []


def torch_fast() -> bool:
    """Whether ``torch._int_mm`` has int8 dot-product hardware under it here (x86 VNNI or AMX).

    Without it PyTorch's CPU kernel is far slower than float BLAS: on an AVX2-only core (no VNNI) a 2048^3
    ``torch._int_mm`` took 22.5 s against 0.23 s for float32 ``sgemm`` on one thread, so ``backend="auto"``
    leaves PyTorch to CPUs where it is the fast path.
    """
    if not _FAST:
        try:
            import torch

            probes = [getattr(torch.cpu, p, None) for p in ("_is_vnni_supported", "_is_amx_tile_supported")]
            _FAST.append(any(bool(p()) for p in probes if p is not None))
        except (ImportError, RuntimeError):
            _FAST.append(False)
    return _FAST[0]


def torch_fits(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether both operands become int8 after centring (8-bit and 4-bit lanes)."""
    return a.dtype.itemsize == 1 and b.dtype.itemsize == 1


def torch_product(a: np.ndarray, b: np.ndarray, device: str = "cpu") -> np.ndarray:
    """Exact ``a @ b`` through ``torch._int_mm`` (int8 x int8 -> int32), K in int32-safe blocks."""
    import torch

    a, za = centred(a)
    b, zb = centred(b)
    m, k = a.shape
    n = b.shape[1]
    s = np.zeros((m, n), np.int64)
    # CUDA's kernel needs M > 16 and K, N multiples of 8; zero padding changes no sum.
    pm = max(m, 17) if device != "cpu" else m
    pn = -(-n // 8) * 8 if device != "cpu" else n
    ta = torch.from_numpy(_writable(a)).to(device)
    tb = torch.from_numpy(_writable(b)).to(device)
    for k0 in range(0, k, _TORCH_K):
        kk = min(_TORCH_K, k - k0)
        pk = -(-kk // 8) * 8 if device != "cpu" else kk
        xa, xb = ta[:, k0 : k0 + kk], tb[k0 : k0 + kk]
        if (pm, pk, pn) != (m, kk, n):
            xa = torch.nn.functional.pad(xa, (0, pk - kk, 0, pm - m))
            xb = torch.nn.functional.pad(xb, (0, pn - n, 0, pk - kk))
        part = torch._int_mm(xa.contiguous(), xb.contiguous())[:m, :n]
        s += part.cpu().numpy().astype(np.int64)
    return correct(s, a, za, b, zb)


def torch_wrap32(a: np.ndarray, b: np.ndarray, extra: np.ndarray | None = None) -> np.ndarray:
    """``a @ b`` modulo 2**32 as uint32, through ``torch._int_mm`` with no int64 pass over the result.

    int32 arithmetic wraps, and a 32-bit accumulator keeps only the sum modulo 2**32, so the blocks and the
    centring corrections are added in uint32 (NumPy's unsigned arithmetic wraps by definition).  ``extra``
    (uint32 words broadcast to the result, or None) is added too, see :func:`correct32`.
    """
    import torch

    a, za = centred(a)
    b, zb = centred(b)
    k = a.shape[1]
    ta = torch.from_numpy(_writable(a))
    tb = torch.from_numpy(_writable(b))
    s = None
    for k0 in range(0, max(k, 1), _TORCH_K):
        part = torch._int_mm(ta[:, k0 : k0 + _TORCH_K].contiguous(), tb[k0 : k0 + _TORCH_K].contiguous())
        part = part.numpy().view(np.uint32)
        s = part if s is None else s + part
    return correct32(s, a, za, b, zb, extra)


def correct32(s: np.ndarray, a: np.ndarray, za: int, b: np.ndarray, zb: int, extra=None) -> np.ndarray:
    """:func:`correct` modulo 2**32, on a uint32 ``s`` (in place), plus ``extra`` (uint32 words broadcast to
    ``s``'s shape, or None).

    The corrections are one value per row and one per column; an ``extra`` that is the same in every row or
    in every column (a broadcast ``(N,)`` or ``(M, 1)`` accumulator) is folded into them, so that adding it
    costs no pass over the result of its own.
    """
    if not s.size:
        return s
    row = zb * _sums(a, 1) if zb else None
    col = za * _sums(b, 0) if za else None
    if za and zb:
        col += za * zb * a.shape[1]
    if extra is not None:
        if extra.strides[0] == 0 or extra.shape[0] == 1:  # one value per column
            col = extra[0].astype(np.int64) if col is None else col + extra[0]
            extra = None
        elif extra.strides[1] == 0 or extra.shape[1] == 1:  # one value per row
            row = extra[:, 0].astype(np.int64) if row is None else row + extra[:, 0]
            extra = None
    # Casting int64 to uint32 keeps the low 32 bits: each term modulo 2**32.
    r32 = None if row is None else row.astype(np.uint32)[:, None]
    c32 = None if col is None else col.astype(np.uint32)[None, :]
    if r32 is not None and c32 is not None and extra is None and _fused.add_terms(s, r32[:, 0], c32[0]):
        return s
    # Both terms (and a full extra) are added a block of rows at a time, so that the second and third passes
    # over a block find it in cache: about one pass over the result in memory traffic.
    rows = max(1, (1 << 16) // max(1, s.shape[1]))  # 256 KiB of the result: within L2
    for r0 in range(0, s.shape[0], rows):
        blk = s[r0 : r0 + rows]
        if r32 is not None:
            blk += r32[r0 : r0 + rows]
        if c32 is not None:
            blk += c32
        if extra is not None:
            blk += extra[r0 : r0 + rows]
    return s


def float32_wrap32(a: np.ndarray, b: np.ndarray, extra: np.ndarray | None = None) -> np.ndarray:
    """``a @ b`` modulo 2**32 as uint32 through float32 BLAS, for 8- and 4-bit lanes, with no int64 pass.

    After centring every lane is in [-128, 127], so each exact block's sums stay below 2**24 and convert to
    int32 exactly; the blocks and the centring corrections then add in wrapping uint32.  Against
    :func:`float_product` this saves an int64 temporary and two passes over the result (a quarter of the
    time at n = 1024, where the BLAS call itself is about 9 ms).  ``extra`` as in :func:`correct32`.
    """
    a, za = centred(a)
    b, zb = centred(b)
    m, k = a.shape
    n = b.shape[1]
    kb = k_block(a, b, 24)
    s = np.empty((m, n), np.uint32)
    bf = [b[k0 : k0 + kb].astype(np.float32) for k0 in range(0, k, kb)]
    rows = _rows(m, n, 4)
    for r0 in range(0, m, rows):
        ar = a[r0 : r0 + rows]
        out = s[r0 : r0 + rows]
        for i, k0 in enumerate(range(0, k, kb)):
            part = ar[:, k0 : k0 + kb].astype(np.float32) @ bf[i]
            if i == 0:
                np.copyto(out.view(np.int32), part, casting="unsafe")
            else:
                out += part.astype(np.int32).view(np.uint32)
    return correct32(s, a, za, b, zb, extra)
