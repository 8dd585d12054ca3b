"""Quantized inference on the handwritten digits, through :func:`intdot.gemm.gemm` (``intdot demo``)."""

from .mlp import Model, load_digits_split, train
from .quant import run_all

__all__ = ["Model", "load_digits_split", "run_all", "train"]
