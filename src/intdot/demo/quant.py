"""Quantize the MLP and run it in integers through intdot.gemm, once per instruction and target that fits.

Weights: symmetric per output channel (int8: [-127, 127]; int4: [-7, 7]).  Activations after ReLU (and the
input pixels) are unsigned: uint8, or uint4 for the 4-bit instructions.  Mixed-sign instructions take them
directly; signed-only instructions get ``x - zero`` (int8/int4) with ``zero * colsum(W)`` added to the
accumulator, as kernels for those targets do.  The integer logits must then be bit-identical.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ..gemm import gemm
from ..gemm.ops import check_target, resolve
from .mlp import Model


@dataclass(frozen=True)
class Variant:
    """One row of the demo's table."""

    op: str
    target: str
    weights: int  # weight bits: 8 or 4
    acts: int  # activation bits: 8 or 4
    handling: str  # "direct", "shifted" (zero point compensated) or "transposed" (weights as first operand)
    clamp: bool = False
    flags: dict = field(default_factory=dict)

    @property
    def group(self) -> str:
        return f"W{self.weights}A{self.acts}"


VARIANTS = (
    Variant("sudot4", "RDNA3", 8, 8, "direct", flags={"a_signed": False, "b_signed": True}),
    Variant("usdot", "neoverse-v2", 8, 8, "direct"),
    Variant("sudot", "neoverse-v2", 8, 8, "transposed"),
    Variant("sdot4", "CDNA3", 8, 8, "shifted"),
    Variant("sdot", "neoverse-n1", 8, 8, "shifted"),
    Variant("sudot4", "RDNA3", 8, 8, "direct", True, {"a_signed": False, "b_signed": True}),
    Variant("sdot4", "CDNA3", 8, 8, "shifted", True),
    Variant("sudot4", "RDNA3", 4, 8, "direct", flags={"a_signed": False, "b_signed": True}),
    Variant("usdot", "neoverse-v2", 4, 8, "direct"),
    Variant("sdot4", "CDNA3", 4, 8, "shifted"),
    Variant("sudot8", "RDNA3", 4, 4, "direct", flags={"a_signed": False, "b_signed": True}),
    Variant("sdot8", "CDNA3", 4, 4, "shifted"),
    Variant("sudot8", "RDNA3", 4, 4, "direct", True, {"a_signed": False, "b_signed": True}),
    Variant("sdot8", "CDNA3", 4, 4, "shifted", True),
)

HANDLING = {
    "direct": "unsigned, direct",
    "shifted": "shifted to signed, zero point compensated",
    "transposed": "unsigned, direct (W as first operand)",
}


def quantize_weights(w: np.ndarray, bits: int) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric per output channel (column): (int8 values, float scales)."""
    qmax = (1 << (bits - 1)) - 1
    scale = np.abs(w).max(axis=0) / qmax
    scale = np.where(scale == 0, 1.0, scale)
    return np.clip(np.rint(w / scale), -qmax, qmax).astype(np.int8), scale


@dataclass
class Quantized:
    """Integer weights, biases and scales of one (weight bits, activation bits) combination."""

    w1: np.ndarray
    s1: np.ndarray
    w2: np.ndarray
    s2: np.ndarray
    b1: np.ndarray  # int64, in units of s_x * s1
    b2: np.ndarray  # int64, in units of s_h * s2
    s_x: float
    s_h: float
    amax: int  # the largest activation code: 255 or 15


def quantize(model: Model, x_calib: np.ndarray, weights: int, acts: int) -> Quantized:
    amax = (1 << acts) - 1
    s_x = 16.0 / amax
    w1, s1 = quantize_weights(model.w1, weights)
    w2, s2 = quantize_weights(model.w2, weights)
    s_h = float(np.percentile(model.hidden(x_calib), 99.9)) / amax or 1.0
    b1 = np.rint(model.b1 / (s_x * s1)).astype(np.int64)
    b2 = np.rint(model.b2 / (s_h * s2)).astype(np.int64)
    return Quantized(w1, s1, w2, s2, b1, b2, s_x, s_h, amax)


def _layer(v: Variant, x: np.ndarray, w: np.ndarray, bias: np.ndarray, amax: int) -> np.ndarray:
    """One integer layer through gemm: int32 accumulators of x (unsigned codes) @ w (signed)."""
    c = np.broadcast_to(bias, (x.shape[0], w.shape[1]))
    kw = dict(op=v.op, target=v.target, clamp=v.clamp, **v.flags)
    if v.handling == "shifted":
        zero = (amax + 1) // 2  # 128 for uint8, 8 for uint4
        xs = (x.astype(np.int16) - zero).astype(np.int8)
        comp = zero * w.astype(np.int64).sum(axis=0)
        return gemm(xs, w, c + comp, **kw)
    if v.handling == "transposed":
        return gemm(np.ascontiguousarray(w.T), np.ascontiguousarray(x.T), np.ascontiguousarray(c.T), **kw).T
    return gemm(x, w, c, **kw)


def infer(v: Variant, q: Quantized, x: np.ndarray) -> np.ndarray:
    """Integer logits (int32) of pixels ``x``."""
    xq = np.clip(np.rint(x / q.s_x), 0, q.amax).astype(np.uint8)
    acc1 = _layer(v, xq, q.w1, q.b1, q.amax).astype(np.int64)
    # Requantize: ReLU, rescale to the hidden activation's step, round, saturate to the activation codes.
    h = np.clip(np.rint(np.maximum(acc1, 0) * (q.s_x * q.s1 / q.s_h)), 0, q.amax).astype(np.uint8)
    return _layer(v, h, q.w2, q.b2, q.amax)


def run_all(model: Model, x_calib, x_test, y_test, variants=VARIANTS, progress=None) -> dict:
    """Every variant's accuracy, agreement with the float model, bit-identity within its group, time."""
    float_pred = model.logits(x_test).argmax(axis=1)
    out = {"float": {"accuracy": float((float_pred == y_test).mean())}, "rows": [], "n_test": int(len(y_test))}
    quant: dict = {}
    first: dict = {}
    plain: dict = {}
    for i, v in enumerate(variants):
        if progress:
            progress(i, len(variants), f"{v.op} {v.group}{' clamp' if v.clamp else ''}")
        # The table never claims an instruction on a target that lacks it.
        check_target(resolve(v.op, v.flags.get("a_signed"), v.flags.get("b_signed"), a_bits=8), v.target)
        q = quant.setdefault((v.weights, v.acts), quantize(model, x_calib, v.weights, v.acts))
        t0 = time.perf_counter()
        logits = infer(v, q, x_test)
        dt = time.perf_counter() - t0
        pred = (logits.astype(np.float64) * q.s2).argmax(axis=1)
        ref = first.setdefault(v.group, logits)
        key = (v.op, v.target, v.group, v.handling)
        clamp_diff = None
        if v.clamp and key in plain:
            clamp_diff = int((plain[key] != logits).sum())
        elif not v.clamp:
            plain[key] = logits
        conf = np.zeros((10, 10), np.int64)
        np.add.at(conf, (y_test, pred), 1)
        out["rows"].append(
            {
                "instruction": v.op,
                "target": v.target,
                "group": v.group,
                "weights": f"int{v.weights}",
                "activations": f"uint{v.acts}",
                "handling": HANDLING[v.handling],
                "clamp": v.clamp,
                "accuracy": float((pred == y_test).mean()),
                "agrees_with_float": float((pred == float_pred).mean()),
                "identical_in_group": bool(np.array_equal(ref, logits)),
                "clamp_changed_outputs": clamp_diff,
                "time_ms": dt * 1e3,
                "confusion": conf.tolist(),
            }
        )
    if progress:
        progress(len(variants), len(variants), "done")
    return out
