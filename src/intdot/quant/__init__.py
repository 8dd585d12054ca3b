"""Quantized operators on any dot instruction: ONNX's integer operators, requantization, whole ONNX models.

Functions are named after the ONNX operators and take ONNX's inputs in ONNX's order, attributes as keyword
arguments; ``op=`` (any :mod:`intdot.catalog` spelling or record) and ``target=`` choose the instruction that
computes the integer product, through :func:`intdot.gemm.gemm`.  Results are what ONNX defines (int32 sums
wrap modulo 2**32), bit for bit, whichever instruction computes them: see :mod:`intdot.quant.plan`.
"""

from .conv import conv_integer, qlinear_conv
from .linear import dequantize_linear, dynamic_quantize_linear, quantize_linear
from .matmul import matmul_integer, qlinear_matmul
from .matmul_nbits import matmul_nbits
from .model import prepare, run
from .plan import Plan, exact, fitting, plan
from .qlinear_binary import qlinear_add, qlinear_mul
from .qlinear_concat import qlinear_concat
from .qlinear_lookup import qlinear_leaky_relu, qlinear_sigmoid, qlinear_where
from .qlinear_pool import qlinear_average_pool, qlinear_global_average_pool
from .qlinear_softmax import qlinear_softmax
from .quant_gemm import qgemm
from .requant import METHODS, fixed_point_multiply, quantize_multiplier, requantize

__all__ = [
    "METHODS",
    "Plan",
    "conv_integer",
    "dequantize_linear",
    "dynamic_quantize_linear",
    "exact",
    "fitting",
    "fixed_point_multiply",
    "matmul_integer",
    "matmul_nbits",
    "plan",
    "prepare",
    "qgemm",
    "qlinear_add",
    "qlinear_average_pool",
    "qlinear_concat",
    "qlinear_conv",
    "qlinear_global_average_pool",
    "qlinear_leaky_relu",
    "qlinear_matmul",
    "qlinear_mul",
    "qlinear_sigmoid",
    "qlinear_softmax",
    "qlinear_where",
    "quantize_linear",
    "quantize_multiplier",
    "requantize",
    "run",
]
