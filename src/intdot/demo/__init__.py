"""Quantized inference on the handwritten digits (``intdot demo``): an MLP and a small CNN trained in NumPy,
quantized by ONNX Runtime's quantizer, run in ONNX Runtime and through :func:`intdot.quant.run` on every catalog
instruction that fits."""

from .cnn import CNN, train_cnn
from .mlp import Model, load_digits_split, train
from .quant import run_all

__all__ = ["CNN", "Model", "load_digits_split", "run_all", "train", "train_cnn"]
