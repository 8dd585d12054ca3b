"""ONNX Runtime's ``com.microsoft`` MatMulNBits on the CPU (float32), bit for bit: a MatMul whose weights are stored
in 2, 4 or 8 bits, in blocks of ``block_size`` along K, each block with a float32 scale and a zero point (what
``onnxruntime.quantization.matmul_nbits_quantizer`` writes for an LLM's weights).

The weights ``b`` are (N, blocks, bytes per block), each byte holding ``8 // bits`` values, the first in its low
bits; zero points are packed the same way along the blocks of a column (a uint8 tensor) or given as float32, one per
block; without them the zero point is ``2**(bits - 1)``.  ONNX Runtime 1.32 takes one of three paths:

- **MLAS's 4-bit kernels** (``accuracy_level`` below 4; 4 bits, a block of 16 to 256, ``b`` a constant it packs
  once, uint8 zero points, no ``g_idx``): each weight is ``float(q - zero_point) * scale``, rounded once.  Several
  rows (A's leading axes stacked) go through MLAS's SGEMM kernel over the whole of K: one fused multiply-add per
  product, from 0, in order of k, then the bias added.  One row goes through its AVX-512F kernel, 16 lanes per
  output: lane ``j`` takes, for each chunk of 32 of K (16 with a block of 16) that starts before K, the products of
  its ``j``-th and ``j + 16``-th entries by fused multiply-adds (A read as 0 past K); the lanes are then folded four
  outputs at a time (in each quarter ``((l0 + l1) + l2) + l3``, the quarters ``(q0 + q2) + (q1 + q3)``), the bias
  added where there is one, and the last ``N % 4`` outputs reduced by halves (``l_i + l_(i+8)``, then 4, 2, 1)
  with the bias or +0.0 added.  Without AVX-512 (``platform="x86-avx2"``) its AVX2 kernel: the same with 8 lanes
  (entries ``j``, ``j + 8``, ... of each chunk), FoldAccumulators' two halves, and the last outputs' lanes by
  ``_mm_hadd_ps``.  On Arm its NEON kernel: 4 lanes, lane ``l`` taking the entries ``4j + l`` of each
  chunk of 16 (within a block) that starts before K by fused multiply-adds, then ``(l0 + l1) + (l2 + l3)`` and the
  bias where there is one.
- **Dequantized, then SGEMM** (every other case: 2 or 8 bits, ``b`` not a constant, other block sizes): the weights
  ``float(q - zero_point) * scale`` as above, then MLAS's SGEMM of A and the weights read transposed, starting
  from the bias (:func:`.sgemm.gemm2d`).  With float32 zero points or a ``g_idx`` (4 bits only) each weight is
  ``q * scale + (-scale * zero_point)``, two roundings (on Arm the second product fused into the sum), with its
  block taken from ``g_idx[k]`` where given; there ONNX Runtime 1.32 reads uint8 zero points as 8 (its kernel drops
  them: a bug, modelled).
- **int8 products** (``accuracy_level=4``, 4 or 8 bits, a block of 16 to 256, a constant B): A quantized per
  block to int8 and integer dot products with the weights' codes (:mod:`.nbits_int8`: x86 with AVX-512 or AVX2;
  2 bits, and Arm, whose kernels differ, are errors).

Read from ONNX Runtime 1.32 and checked against it on x86 (this machine's CPU, with AVX-512 VNNI; AVX2 on QEMU's
Haswell CPU; a CPU with AVX-512F but not VNNI takes the same kernels by MLAS's source, unchecked: under QEMU's
Skylake-Server CPU ONNX Runtime runs its AVX2 kernels, Softmax's too) and for AArch64 in
``tests/quant/test_matmul_nbits.py``.
"""

from __future__ import annotations

import numpy as np

from ..core.errors import OperandError, OperandTypeError
from . import nbits_int8
from ._args import float32_operand, tensor
from .fma import fma32
from .nbits_int8 import fold4, halves
from .sgemm import gemm2d

F32 = np.float32
PACKED_BLOCKS = (16, 32, 64, 128, 256)  # MLAS's 4-bit kernels' block sizes


def matmul_nbits(a, b, scales, zero_points=None, g_idx=None, bias=None, *, k: int, n: int, bits: int,
                 block_size: int, accuracy_level: int = 0, b_constant: bool = True,
                 platform: str = "x86") -> np.ndarray:  # fmt: skip
    """``a @ dequantized(b)`` (plus ``bias``) as ONNX Runtime's MatMulNBits computes it (module docstring): ``a``
    float32 (..., K); ``b`` uint8 (N, blocks, block_size * bits / 8); ``scales`` float32, N * blocks of them;
    ``zero_points`` uint8 (packed) or float32, or None; ``g_idx`` int32 (K,), each k's block, or None; ``bias``
    float32 (N,) or None; the node's attributes ``k``, ``n``, ``bits``, ``block_size``, ``accuracy_level``;
    ``b_constant``: ``b`` is an initializer (ONNX Runtime packs only those); ``platform`` as :mod:`.sgemm`'s.  A
    float16 ``a`` (with float16 scales and bias) is computed in float32 and rounded to float16, as on x86."""
    _attributes(k, n, bits, block_size, accuracy_level)
    if isinstance(a, np.ndarray) and a.dtype == np.float16:
        return _half(a, b, scales, zero_points, g_idx, bias, k=k, n=n, bits=bits, block_size=block_size,
                     accuracy_level=accuracy_level, b_constant=b_constant, platform=platform)  # fmt: skip
    a = float32_operand(a, "A")
    if a.ndim < 1 or a.shape[-1] != k:
        raise OperandError(f"A has shape {a.shape}: expected its last axis K={k} long (the node's attribute K)")
    blocks = -(-k // block_size)
    b = _sized(tensor(b, "B", (np.dtype(np.uint8),), "uint8"), "B", n * blocks * block_size * bits // 8,
               f"(N, blocks, bytes per block) = ({n}, {blocks}, {block_size * bits // 8})")  # fmt: skip
    scales = _sized(float32_operand(scales, "scales"), "scales", n * blocks, f"N * blocks = {n} * {blocks}")
    zp_float = zero_points is not None and np.asarray(zero_points).dtype == np.float32
    if zero_points is not None:
        z = tensor(zero_points, "zero_points", (np.dtype(np.uint8), np.dtype(np.float32)), "uint8 or float32")
        per_column = blocks if zp_float else -(-blocks * bits // 8)
        zero_points = _sized(z, "zero_points", n * per_column, f"N * {per_column} ({z.dtype}: "
                             + ("one per block)" if zp_float else f"{8 // bits} blocks a byte)"))  # fmt: skip
    if g_idx is not None:
        g_idx = _sized(tensor(g_idx, "g_idx", (np.dtype(np.int32),), "int32"), "g_idx", k, f"K = {k}")
        if g_idx.size and (g_idx.min() < 0 or g_idx.max() >= blocks):
            raise OperandError(f"g_idx holds {int(g_idx.min())}..{int(g_idx.max())}: expected block indices "
                               f"in [0, {blocks})")  # fmt: skip
    if bias is not None:
        bias = _sized(float32_operand(bias, "bias"), "bias", n, f"N = {n}")
    rows = a.reshape(-1, k)  # ONNX Runtime stacks A's leading axes into the rows of one product
    naive = zp_float or g_idx is not None
    if naive and bits != 4:
        raise OperandError(f"bits={bits} with " + ("float32 zero_points" if zp_float else "g_idx")
                           + ": ONNX Runtime computes that case for 4 bits only")  # fmt: skip
    packed = b_constant and not naive and bits == 4 and block_size in PACKED_BLOCKS
    int8 = accuracy_level == 4 and b_constant and not naive and block_size in PACKED_BLOCKS
    if int8 and (bits == 2 or platform not in ("x86", "x86-avx2")):
        raise OperandError(f"accuracy_level=4 ({bits}-bit weights, a constant B, platform={platform!r}): ONNX "
                           "Runtime's int8 products are modelled for 4 and 8 bits on x86 (platform='x86' or "
                           "'x86-avx2'); accuracy_level 0 to 3 everywhere")  # fmt: skip
    with np.errstate(over="ignore", invalid="ignore"):
        if int8:
            codes = _codes(b.reshape(n, blocks, -1), bits)
            zps = _block_zero_points(zero_points, n, blocks, bits)
            out = nbits_int8.products(rows, codes, zps, scales.reshape(n, blocks), bias, block_size, platform,
                                      given_zero_points=zero_points is not None, bits=bits)  # fmt: skip
            return out.reshape(*a.shape[:-1], n)
        if naive:
            weights = _naive_weights(b, scales, zero_points, g_idx, n, blocks, block_size, platform)
        else:
            weights = _weights(b, scales, zero_points, n, blocks, bits)
        if not packed:
            start = None if bias is None else np.broadcast_to(bias, (rows.shape[0], n))
            out = gemm2d(rows, weights[:, :k].T, start, trans_b=True, platform=platform)
        elif rows.shape[0] == 1:
            out = _one_row(rows[0], weights, block_size, bias, platform)[None, :]
        else:
            out = _rows(rows, weights[:, :k], bias)
    return out.reshape(*a.shape[:-1], n).astype(F32)


def _half(a, b, scales, zero_points, g_idx, bias, *, platform, **attrs) -> np.ndarray:
    """float16 A (and scales, bias, float zero points): on x86 ONNX Runtime widens them to float32, computes as for
    float32 and rounds the output to float16 (its Arm build has float16 kernels of its own, not modelled)."""
    if platform.startswith("arm"):
        raise OperandError(f"A of dtype float16 on platform={platform!r}: ONNX Runtime's Arm float16 MatMulNBits "
                           "kernels are not modelled (float16 on x86 is, and float32 everywhere)")  # fmt: skip
    wide = {}
    for name, v in (("scales", scales), ("bias", bias), ("zero_points", zero_points)):
        arr = None if v is None else np.asarray(v)
        if arr is not None and arr.dtype != np.uint8 and (arr.dtype != np.float16 or name == "zero_points"):
            allowed = "uint8 (float16 ones are not modelled)" if name == "zero_points" else "float16, as A"
            raise OperandTypeError(f"{name} has dtype {arr.dtype}; expected {allowed}")
        wide[name] = arr if arr is None or arr.dtype == np.uint8 else arr.astype(F32)
    out = matmul_nbits(a.astype(F32), b, wide["scales"], wide["zero_points"], g_idx, wide["bias"], platform=platform,
                       **attrs)  # fmt: skip
    return out.astype(np.float16)


def _attributes(k, n, bits, block_size, accuracy_level) -> None:
    for name, v in (("K", k), ("N", n)):
        if not isinstance(v, (int, np.integer)) or v < 1:
            raise OperandError(f"{name}={v!r}: expected a positive integer (the node's attribute)")
    if bits not in (2, 4, 8):
        raise OperandError(f"bits={bits!r}: expected 2, 4 or 8 (ONNX Runtime's CPU kernel)")
    if not isinstance(block_size, (int, np.integer)) or block_size < 16 or block_size & (block_size - 1):
        raise OperandError(f"block_size={block_size!r}: expected a power of 2, at least 16")
    if accuracy_level not in (0, 1, 2, 3, 4):
        raise OperandError(f"accuracy_level={accuracy_level!r}: expected 0, 1, 2, 3 or 4")


def _sized(arr: np.ndarray, name: str, size: int, what: str) -> np.ndarray:
    if arr.size != size:
        raise OperandError(f"{name} has shape {arr.shape} ({arr.size} values): expected {size}, {what}")
    return arr.reshape(-1)


def _codes(packed: np.ndarray, bits: int) -> np.ndarray:
    """The ``8 // bits`` values of each byte along the last axis, low bits first (uint8)."""
    per = 8 // bits
    mask = np.uint8((1 << bits) - 1)
    out = np.empty(packed.shape[:-1] + (packed.shape[-1] * per,), np.uint8)
    for i in range(per):  # written in place: a language model's weights are hundreds of megabytes
        np.bitwise_and(packed >> (bits * i) if i else packed, mask, out=out[..., i::per])
    return out


def _block_zero_points(zero_points, n, blocks, bits) -> np.ndarray:
    """(N, blocks) int32: the uint8 zero points unpacked, or ``2**(bits - 1)`` without them."""
    if zero_points is None:
        return np.full((n, blocks), 1 << (bits - 1), np.int32)
    return _codes(zero_points.reshape(n, -1), bits)[:, :blocks].astype(np.int32)


def _weights(b, scales, zero_points, n, blocks, bits) -> np.ndarray:
    """(N, blocks * block_size) float32: ``float(q - zero_point) * scale`` (MLAS's dequantization)."""
    d = _codes(b.reshape(n, blocks, -1), bits).astype(np.int16)
    d -= _block_zero_points(zero_points, n, blocks, bits).astype(np.int16)[:, :, None]  # exact: |q - z| < 256
    w = d.astype(F32)
    w *= scales.reshape(n, blocks)[:, :, None]  # one rounding, as MLAS's float32 product
    return w.reshape(n, -1)


def _naive_weights(b, scales, zero_points, g_idx, n, blocks, block_size, platform) -> np.ndarray:
    """(N, K') float32: ``q * scale + (-scale * zero_point)`` with each k's block from ``g_idx`` (ONNX Runtime's
    4-bit dequantization for float zero points and ``g_idx``; it reads uint8 zero points as 8 there); on Arm the
    second product fused into the sum."""
    q = _codes(b.reshape(n, blocks, -1), 4).reshape(n, -1).astype(F32)
    k = q.shape[1] if g_idx is None else g_idx.size
    block = np.arange(q.shape[1]) // block_size if g_idx is None else g_idx.astype(np.int64)
    s = scales.reshape(n, blocks)[:, block]
    if zero_points is not None and zero_points.dtype == np.float32:
        z = zero_points.reshape(n, blocks)[:, block]
    else:
        z = np.full_like(s, 8)
    scaled = (q[:, :k] * s).astype(F32)
    if platform.startswith("arm"):  # its build fuses the zero point's product into the sum
        return fma32(-s, z, scaled)
    return (scaled + (-s * z).astype(F32)).astype(F32)


def _rows(rows, weights, bias) -> np.ndarray:
    """Several rows: MLAS's SGEMM kernel over the whole of K (one fused multiply-add per product, in order of k,
    from 0), then the bias added."""
    acc = np.zeros((rows.shape[0], weights.shape[0]), F32)
    for j in range(rows.shape[1]):
        acc = fma32(rows[:, j : j + 1], weights[None, :, j], acc)
    return acc if bias is None else (acc + bias).astype(F32)


def _one_row(a, weights, block_size, bias, platform) -> np.ndarray:
    """One row: MLAS's AVX-512F kernel (16 lanes), its AVX2 one (8), or its NEON one on Arm (module docstring)."""
    n, width = weights.shape
    k = a.size
    padded = np.zeros(width, F32)
    padded[:k] = a
    if platform.startswith("arm"):
        return _one_row_neon(padded, k, weights, block_size, bias)
    wide = 16 if platform == "x86" else 8
    lanes = np.zeros((n, wide), F32)
    step = 16 if block_size == 16 else 32
    for c in range(0, k, step):
        for h in range(c, c + step, wide):
            lanes = fma32(weights[:, h : h + wide], padded[None, h : h + wide], lanes)
    four = 4 * (n // 4)
    out = np.empty(n, F32)
    out[:four] = fold4(lanes[:four])
    if bias is not None:
        out[:four] = (out[:four] + bias[:four]).astype(F32)
    rest = halves(lanes[four:]) if wide == 16 else _hadds(lanes[four:])
    out[four:] = (rest + (F32(0) if bias is None else bias[four:])).astype(F32)
    return out


def _hadds(lanes) -> np.ndarray:
    """AVX2's sum of 8 lanes by ``_mm_hadd_ps``: the halves added (``l_i + l_(i+4)``), then neighbours, twice."""
    v = (lanes[:, :4] + lanes[:, 4:]).astype(F32)
    return ((v[:, 0] + v[:, 1]).astype(F32) + (v[:, 2] + v[:, 3]).astype(F32)).astype(F32)


def _one_row_neon(padded, k, weights, block_size, bias) -> np.ndarray:
    """Arm's NEON kernel: 4 lanes per output, lane ``l`` taking entries ``4j + l`` of each chunk of 16 that starts
    before K (within a block) by fused multiply-adds; then ``(l0 + l1) + (l2 + l3)`` and the bias added."""
    n = weights.shape[0]
    lanes = np.zeros((n, 4), F32)
    for start in range(0, k, block_size):
        for c in range(start, min(k, start + block_size), 16):
            for h in range(c, c + 16, 4):
                lanes = fma32(padded[None, h : h + 4], weights[:, h : h + 4], lanes)
    out = ((lanes[:, 0] + lanes[:, 1]).astype(F32) + (lanes[:, 2] + lanes[:, 3]).astype(F32)).astype(F32)
    return out if bias is None else (out + bias).astype(F32)
