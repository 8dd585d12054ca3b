"""ONNX Runtime's ``com.microsoft`` GatherBlockQuantized on the CPU, bit for bit: the embedding lookup of language
models whose embedding table is quantized in blocks (int4, uint4, or uint8 holding 8-, 4- or 2-bit codes), as ONNX
Runtime GenAI's model builder writes it for tied 4-bit embeddings.

The rows (or slices along ``gather_axis``) at ``indices`` are gathered, then each code dequantized with its block's
scale and zero point (blocks of ``block_size`` along ``quantize_axis``): ``float(code - zero_point) * scale``, one
rounding (the difference is exact).  Zero points default to 0 for int4 and uint4 and to ``2**(bits - 1)`` for uint8;
uint8 codes below 8 bits are packed along the last axis, low bits first, and so are their zero points.  Checked
against ONNX Runtime 1.32 in ``tests/quant/test_gather_block_quantized.py``.  FP8 and FP4 tables are not modelled.
"""

from __future__ import annotations

import numpy as np

from ..core.errors import OperandError
from ._args import tensor

F32 = np.float32


def _unpack(packed: np.ndarray, bits: int) -> np.ndarray:
    """uint8 words holding ``8 // bits`` codes each along the last axis, low bits first."""
    if bits == 8:
        return packed.astype(np.int32)
    per = 8 // bits
    shifts = np.arange(per) * bits
    codes = (packed[..., None].astype(np.int32) >> shifts) & ((1 << bits) - 1)
    return codes.reshape(*packed.shape[:-1], packed.shape[-1] * per)


def _codes(data, name: str, bits: int) -> tuple[np.ndarray, str]:
    """Integer codes and the table's kind ("int4", "uint4" or "uint8")."""
    kind = str(np.asarray(data).dtype)
    if kind in ("int4", "uint4"):
        return np.asarray(data).astype(np.int32), kind
    arr = tensor(data, name, (np.dtype(np.uint8),), "int4, uint4 or uint8 (FP8 and FP4 tables are not modelled)")
    if bits not in (2, 4, 8):
        raise OperandError(f"bits={bits!r}: expected 2, 4 or 8 for uint8 {name}")
    return _unpack(arr, bits), "uint8"


def gather_block_quantized(data, indices, scales, zero_points=None, *, gather_axis: int = 0, quantize_axis: int = 1,
                           block_size: int = 128, bits: int = 4) -> np.ndarray:  # fmt: skip
    """The float32 output of GatherBlockQuantized (module docstring)."""
    codes, kind = _codes(data, "data", bits)
    scales = np.asarray(scales)
    if scales.dtype != np.float32:
        raise OperandError(f"scales has dtype {scales.dtype}: only float32 is modelled")
    rank = codes.ndim
    ga, qa = (a + rank if a < 0 else a for a in (gather_axis, quantize_axis))
    if not 0 <= ga < rank or not 0 <= qa < rank:
        raise OperandError(f"gather_axis={gather_axis} and quantize_axis={quantize_axis}: expected axes of the "
                           f"{rank}-D data")  # fmt: skip
    if kind == "uint8" and (ga != 0 or (bits < 8 and qa == ga)):
        raise OperandError(f"gather_axis={gather_axis}, quantize_axis={quantize_axis}: uint8 data is gathered on "
                           "axis 0 and, below 8 bits, quantized on another")  # fmt: skip
    if block_size < 16 or block_size & (block_size - 1):
        raise OperandError(f"block_size={block_size!r}: expected a power of 2 of at least 16")
    blocks = -(-codes.shape[qa] // block_size)
    want = codes.shape[:qa] + (blocks,) + codes.shape[qa + 1 :]
    if scales.shape != want:
        raise OperandError(f"scales has shape {scales.shape}: expected {want} (one per block of {block_size} along "
                           f"axis {qa})")  # fmt: skip
    if zero_points is None:
        zp = np.full(want, 1 << (bits - 1) if kind == "uint8" else 0, np.int32)
    else:
        zp, _ = _codes(zero_points, "zero_points", bits)
        zp = zp[..., : want[-1]] if kind == "uint8" else zp  # packed zero points may hold padding codes
        if zp.shape != want:
            raise OperandError(f"zero_points has shape {zp.shape}: expected {want}, as scales")
    idx = tensor(indices, "indices", (np.dtype(np.int32), np.dtype(np.int64)), "int32 or int64").astype(np.int64)
    extent = codes.shape[ga]
    if ((idx < -extent) | (idx >= extent)).any():
        raise OperandError(f"indices {idx.min()}..{idx.max()}: expected values in [-{extent}, {extent})")
    idx = np.where(idx < 0, idx + extent, idx)
    block_of = np.arange(codes.shape[qa]) // block_size
    full_scales = np.take(scales, block_of, axis=qa)
    full_zp = np.take(zp, block_of, axis=qa)
    gathered = [np.take(t, idx, axis=ga) for t in (codes, full_zp, full_scales)]
    return ((gathered[0] - gathered[1]).astype(F32) * gathered[2]).astype(F32)
