"""Float32 MatMul and Gemm as ONNX Runtime's MLAS SGEMM adds them, bit for bit, on the session's thread count.

Each output is a sum of K products, and MLAS adds them in blocks of K: within a block one fused multiply-add per
product, from 0, in order of k; the blocks' sums are then added to the output one after the other (Gemm's ``C``,
scaled by ``beta``, first).  The block length is

- 256 where B is a constant (ONNX Runtime packs such a B once, in blocks of 256; a 2-D initializer, or one moved by
  Transpose, Reshape, Squeeze, Unsqueeze, Identity or a float Cast, which it folds);
- otherwise 128, doubled while N is at most half the panel's columns (128 halved each time, down to 16) if N < K
  and A is not transposed, halved (while still at least K) if N >= K.

With several threads (the session's ``intra_op_num_threads``; ONNX Runtime's default is the machine's cores)
MLAS cuts the output into parts, never K: about one thread a 65,536 multiply-adds, no more than it has, shared by
the products of a batch; the columns in whole 16s where N > M, else the rows (:func:`thread_parts`).  Each part is
an SGEMM of its own, so a part of fewer columns than K may take longer K blocks, and a part of one row MLAS's GEMV
(below) where the whole would not.

A one-row product with a B that is not constant (A not transposed, alpha 1, beta 0 or 1), on x86 a one-column one
(the column taken as the row: GEMV of a transposed A, the M1 TransposeB kernel below otherwise; an N-D A times a 2-D
B is one product of A's rows stacked), and each row of A times a 1-D B, go to MLAS's GEMV instead (:func:`gemv`): on
x86 the products four at a time (each four rounded and added in order, then added to the output), then two, then
one; on Arm one fused multiply-add per product in order.  With B transposed (Gemm's ``transB``, a FusedMatMul's) x86
takes its M1 TransposeB kernel (:func:`_gemv_transposed`), Arm the blocks above.  Checked against ONNX Runtime on x86
and for AArch64 in ``tests/quant/test_sgemm.py``.
"""

from __future__ import annotations

import numpy as np

from ..core.errors import OperandError
from .fma import fma32

F32 = np.float32
PACKED_STRIDE_K = 256


def stride_k(n: int, k: int, trans_a: bool = False) -> int:
    """MLAS's K block for a B it packs as it goes (module docstring)."""
    stride_n, stride = 128, 128
    if n >= k:
        while stride // 2 >= k:
            stride_n, stride = stride_n * 2, stride // 2
    elif not trans_a:
        while stride_n > 16 and stride_n // 2 >= n:
            stride_n, stride = stride_n // 2, stride * 2
    return stride


def thread_parts(m: int, n: int, k: int, threads: int, batch: int = 1) -> list:
    """(rows, columns) ranges, ``((r0, r1), (c0, c1))``, of the parts MLAS's SGEMM of (M, K) x (K, N) is cut into on
    ``threads`` threads, ``batch`` products sharing them (its MlasGemmBatch and MlasSgemmThreaded)."""
    target = min(int(m * n * k / 65536) + 1, max(threads, 1))
    per_gemm = (target + batch - 1) // batch
    if n > m:
        blocks = (n + 15) // 16
        cuts = [(c0 * 16, min(n, c1 * 16)) for c0, c1 in _partition(blocks, min(per_gemm, blocks))]
        return [((0, m), c) for c in cuts]
    return [(r, (0, n)) for r in _partition(m, min(per_gemm, m))]


def _partition(total: int, parts: int) -> list:
    """MLAS's MlasPartitionWork: ``total`` in ``parts`` runs, the first ``total % parts`` one longer."""
    each, extra = divmod(total, max(parts, 1))
    bounds = [i * each + min(i, extra) for i in range(parts + 1)]
    return [(bounds[i], bounds[i + 1]) for i in range(parts) if bounds[i + 1] > bounds[i]]


def gemm2d(a, b, c=None, *, alpha: float = 1.0, b_constant: bool = False, trans_a: bool = False, one_row: bool = True,
           trans_b: bool = False, platform: str = "x86", threads: int = 1, batch: int = 1) -> np.ndarray:  # fmt: skip
    """``alpha * a @ b (+ c)`` for the 2-D float32 ``a`` (M, K) and ``b`` (K, N) (already transposed where the node
    says so; ``trans_a`` only picks the block length) and ``c`` (M, N; already scaled by beta) or None, as MLAS adds
    it: the first block's sum times alpha, or added to ``c`` by a fused multiply-add, the next ones added likewise
    (module docstring); ``one_row``: whether MLAS may take a one-row product to its GEMV (not where Gemm's beta is
    other than 0 and 1); ``trans_b``: the node gave B transposed (x86 then has a GEMV of its own for it);
    ``threads``, ``batch``: :func:`thread_parts`."""
    a, b = np.asarray(a, F32), np.asarray(b, F32)
    m, k = a.shape
    n = b.shape[1]
    parts = thread_parts(m, n, k, threads, batch) if threads > 1 else []
    if len(parts) > 1:
        out = np.empty((m, n), F32)
        for (r0, r1), (c0, c1) in parts:  # a part keeps the whole's strides: a one-column GEMV only where N is 1
            start = None if c is None else np.asarray(c, F32)[r0:r1, c0:c1]
            out[r0:r1, c0:c1] = _gemm2d(a[r0:r1], b[:, c0:c1], start, alpha, b_constant, trans_a, one_row, trans_b,
                                        platform, n == 1)  # fmt: skip
        return out
    return _gemm2d(a, b, c, alpha, b_constant, trans_a, one_row, trans_b, platform, True)


def _gemm2d(a, b, c, alpha, b_constant, trans_a, one_row, trans_b, platform, one_column) -> np.ndarray:
    m, k = a.shape
    n = b.shape[1]
    alpha = F32(alpha)
    with np.errstate(over="ignore", invalid="ignore"):
        if m == 1 and one_row and not b_constant and not trans_a and alpha == 1:
            start = None if c is None else np.asarray(c, F32)[0]
            if not trans_b:
                return gemv(a[0], b, platform, start)[None, :]
            if not platform.startswith("arm"):
                return _gemv_transposed(a[0], b, start)[None, :]
        x86 = not platform.startswith("arm")
        if x86 and n == 1 and one_column and one_row and not b_constant and alpha == 1 and (not trans_b or k == 1):
            # one column on x86: MLAS swaps the roles, B's column the row and A the matrix (transposed unless A is)
            start = None if c is None else np.asarray(c, F32)[:, 0]
            if trans_a:
                return gemv(b[:, 0], a.T, platform, start)[:, None]
            return _gemv_transposed(b[:, 0], a.T, start)[:, None]
        block = PACKED_STRIDE_K if b_constant else stride_k(n, k, trans_a)
        out = None if c is None else np.asarray(c, F32).copy()
        for k0 in range(0, max(k, 1), block):
            acc = np.zeros((m, n), F32)
            for j in range(k0, min(k, k0 + block)):
                acc = fma32(a[:, j : j + 1], b[j : j + 1, :], acc)
            out = (acc * alpha).astype(F32) if out is None else fma32(acc, alpha, out)
        return out


def gemm(a, b, c=None, *, alpha: float = 1.0, beta: float = 1.0, trans_a: bool = False, trans_b: bool = False,
         b_constant: bool = False, platform: str = "x86", threads: int = 1) -> np.ndarray:  # fmt: skip
    """ONNX's float32 Gemm as ONNX Runtime computes it on ``threads`` threads: ``c`` broadcast to the output and
    scaled by ``beta`` (rounded) where beta is neither 0 nor 1, then :func:`gemm2d`."""
    a, b = np.asarray(a, F32), np.asarray(b, F32)
    a, b = (a.T if trans_a else a), (b.T if trans_b else b)
    _check(a.shape, b.shape, a.shape[-1:], b.shape[:1])
    start = None
    if c is not None and beta != 0:
        c = np.asarray(c, F32)
        try:
            start = np.broadcast_to(c, (a.shape[0], b.shape[1])).copy()
        except ValueError:
            raise OperandError(f"C has shape {c.shape}: expected one that broadcasts to the output's "
                               f"{(a.shape[0], b.shape[1])}") from None  # fmt: skip
        if beta != 1:
            start = (start * F32(beta)).astype(F32)
    one_row = c is None or beta in (0, 1)  # MLAS's GEMV: beta (0 without C) 0 or 1
    return gemm2d(a, b, start, alpha=alpha, b_constant=b_constant, trans_a=trans_a, one_row=one_row, trans_b=trans_b,
                  platform=platform, threads=threads)  # fmt: skip


def _gemv_transposed(a, b, start=None) -> np.ndarray:
    """x86 MLAS's one-row product with a transposed B (its M1 TransposeB kernel, AVX): for each output, 8 lanes of
    rounded products over k in chunks of 8 (the last chunk padded with zeros); the outputs four at a time, then two,
    then one, each group reducing its lanes in its own order (:data:`_M1_LANE_SUMS`); then ``start`` (N) added, or
    +0.0 where there is none."""
    k, n = b.shape
    lanes = np.zeros((n, 8), F32)
    for k0 in range(0, k, 8):
        chunk = np.zeros((n, 8), F32)
        chunk[:, : min(8, k - k0)] = (a[k0 : k0 + 8][None, :] * b[k0 : k0 + 8].T).astype(F32)
        lanes = (lanes + chunk).astype(F32)
    four = 4 * (n // 4)
    groups = [(0, four, 4)] + ([(four, four + 2, 2)] if n % 4 >= 2 else []) + ([(n - 1, n, 1)] if n % 2 else [])
    s = np.empty(n, F32)
    for lo, hi, size in groups:
        s[lo:hi] = _tree(lanes[lo:hi], _M1_LANE_SUMS[size])
    return (s + (F32(0) if start is None else start)).astype(F32)


# How the M1 TransposeB kernel reduces an output's 8 lanes, by the size of its group of outputs (nested pairs are
# additions, in float32): its 4-wide transposes add the lanes in order within each half, its 2-wide unpacks lane
# 0 with 2 and 1 with 3, its one-wide horizontal adds neighbours.
_M1_LANE_SUMS = {
    4: ((((0, 1), 2), 3), (((4, 5), 6), 7)),
    2: (((0, 2), (4, 6)), ((1, 3), (5, 7))),
    1: (((0, 1), (2, 3)), ((4, 5), (6, 7))),
}


def _tree(lanes, order) -> np.ndarray:
    if isinstance(order, int):
        return lanes[:, order]
    left, right = (_tree(lanes, o) for o in order)
    return (left + right).astype(F32)


def _check(a_shape, b_shape, a_k, b_k) -> None:
    """A's and B's K agree, and their batch axes broadcast (ONNX Runtime's errors, as intdot's)."""
    try:
        np.broadcast_shapes(a_shape[:-2], b_shape[:-2])
        ok = a_k == b_k
    except ValueError:
        ok = False
    if not ok:
        raise OperandError(f"A has shape {a_shape} and B {b_shape}: expected A's last axis as long as B's "
                           "(second to last, or only) one, and batch axes that broadcast")  # fmt: skip


def gemv(a, b, platform: str, start=None) -> np.ndarray:
    """MLAS's one-row product of the vector ``a`` (K) and ``b`` (K, N), added to ``start`` (N) where given (module
    docstring)."""
    k = a.size
    s = np.zeros(b.shape[1], F32) if start is None else start.copy()
    if platform.startswith("arm"):
        for j in range(k):
            s = fma32(a[j], b[j], s)
        return s
    i = 0
    for width in (4, 2, 1):
        while k - i >= width:
            part = (a[i] * b[i]).astype(F32)
            for j in range(i + 1, i + width):
                part = (part + (a[j] * b[j]).astype(F32)).astype(F32)
            s, i = (s + part).astype(F32), i + width
            if width < 4:
                break
    return s


def matmul(a, b, *, b_constant: bool = False, trans_a: bool = False, trans_b: bool = False, alpha: float = 1.0,
           platform: str = "x86", threads: int = 1) -> np.ndarray:  # fmt: skip
    """ONNX's float32 MatMul (NumPy's broadcasting of batches, 1-D operands as NumPy takes them) as ONNX Runtime
    computes it; ``b_constant``: B is a constant 2-D matrix, which ONNX Runtime packs; ``trans_a``, ``trans_b``: the
    operand is a Transpose of its last two axes that ONNX Runtime's MatmulTransposeFusion folds into a FusedMatMul,
    whose SGEMM then reads it transposed (module docstring); ``alpha``: a FusedMatMul's (a scale its
    MatMulScaleFusion moved into the product; not with a 1-D operand); ``threads``: the session's thread count, which
    MLAS shares among the batch's products (:func:`thread_parts`)."""
    a, b = np.asarray(a, F32), np.asarray(b, F32)
    _check(a.shape, b.shape, a.shape[-1:], b.shape[-2:][:1] if b.ndim > 1 else b.shape)
    if F32(alpha) != 1 and (a.ndim == 1 or b.ndim == 1):
        raise OperandError(f"alpha={alpha} with a 1-D operand (shapes {a.shape}, {b.shape}): not modelled")
    if b.ndim == 1 and a.ndim >= 2:  # ONNX Runtime takes each row of A times the vector B as a one-row product
        rows = a.reshape(-1, a.shape[-1])
        with np.errstate(over="ignore", invalid="ignore"):
            return np.array([gemv(b, r[:, None], platform)[0] for r in rows], F32).reshape(a.shape[:-1])
    if a.ndim > 2 and b.ndim == 2:  # ONNX Runtime stacks A's matrices into one product with the one B
        rows = matmul(a.reshape(-1, a.shape[-1]), b, b_constant=b_constant, trans_a=trans_a, trans_b=trans_b,
                      alpha=alpha, platform=platform, threads=threads)  # fmt: skip
        return rows.reshape(*a.shape[:-1], b.shape[-1])
    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    batch = np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2])
    am = np.broadcast_to(a2, batch + a2.shape[-2:]).reshape(-1, *a2.shape[-2:])
    bm = np.broadcast_to(b2, batch + b2.shape[-2:]).reshape(-1, *b2.shape[-2:])
    packed = b_constant and b.ndim == 2
    kw = {
        "b_constant": packed,
        "trans_a": trans_a and a.ndim > 1,
        "trans_b": trans_b and b.ndim > 1,
        "alpha": alpha,
        "threads": threads,
        "batch": len(am),
    }
    out = np.stack([gemm2d(x, y, platform=platform, **kw) for x, y in zip(am, bm)]) if am.size or bm.size \
        else np.zeros((0, a2.shape[-2], b2.shape[-1]), F32)  # fmt: skip
    out = out.reshape(batch + (a2.shape[-2], b2.shape[-1]))
    if a.ndim == 1:
        out = out[..., 0, :]
    if b.ndim == 1:
        out = out[..., 0]
    return out.astype(F32)
