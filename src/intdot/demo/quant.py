"""The demo's pipeline: quantize with ONNX Runtime's quantizer, run in ONNX Runtime, run through intdot on
every instruction of the catalog that fits, and say where outputs differ and why.

Quantization is ``onnxruntime.quantization.quantize_static`` as it comes (QDQ format, int8 activations and
weights), with per-channel weights and the training images as calibration data.  ONNX Runtime runs each model
twice: as it configures itself on this CPU (on x86 it turns int8 activations into uint8, and its uint8 x int8
kernel without VNNI saturates pair sums to int16), and with its int8 x int8 kernels kept
(``session.qdqisint8allowed``), which compute the integer products exactly.  intdot runs the model once per
catalog instruction whose lanes take 8-bit operands, each on a target that has it; instructions are grouped by
the dot step they compute, because every form of one step gives the same bits by construction.
"""

from __future__ import annotations

import os
import tempfile
import time
import warnings

import numpy as np

from ..quant import fitting, run
from ..quant.model import integer_nodes
from ..quant.plan import exact


def _threads(n):
    """One BLAS thread for the training (small matrices: a busy 2-core machine was 8x slower with more)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        import contextlib

        return contextlib.nullcontext()
    return threadpool_limits(n)


def quantize(model, calibration: np.ndarray):
    """``model`` (float ONNX) quantized by onnxruntime.quantization: static, QDQ, int8, per-channel weights."""
    import onnx
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.batches = iter([{"pixels": b} for b in np.array_split(calibration.astype(np.float32), 4)])

        def get_next(self):
            return next(self.batches, None)

    import logging

    import onnxruntime

    with tempfile.TemporaryDirectory() as d:
        src, dst = os.path.join(d, "float.onnx"), os.path.join(d, "int8.onnx")
        onnx.save(model, src)
        # The quantizer's general advice (pre-processing) on the root logger, and its own sessions' notes.
        onnxruntime.set_default_logger_severity(3)
        logging.disable(logging.WARNING)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                quantize_static(
                    src,
                    dst,
                    Reader(),
                    quant_format=QuantFormat.QDQ,
                    per_channel=True,
                    activation_type=QuantType.QInt8,
                    weight_type=QuantType.QInt8,
                )
        finally:
            logging.disable(logging.NOTSET)
        return onnx.load(dst)


def ort_session(model, int8_kernels: bool):
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.log_severity_level = 3
    so.intra_op_num_threads = 1
    if int8_kernels:
        so.add_session_config_entry("session.qdqisint8allowed", "1")
    return ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])


def ort_saturates_u8s8() -> bool:
    """Whether ONNX Runtime's uint8 x int8 kernel saturates pair sums on this CPU: 255*127 + 255*127 = 64,770."""
    from onnx import TensorProto, helper, numpy_helper

    a = numpy_helper.from_array(np.array([[255, 255]], np.uint8), "a")
    b = numpy_helper.from_array(np.array([[127], [127]], np.int8), "b")
    node = helper.make_node("MatMulInteger", ["a", "b"], ["y"])
    graph = helper.make_graph(
        [node], "probe", [], [helper.make_tensor_value_info("y", TensorProto.INT32, None)], [a, b]
    )
    model = helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", 21)])
    return int(ort_session(model, False).run(None, {})[0][0, 0]) != 64770


def _step(rec) -> str:
    """The dot step a record computes, with its accumulation rule where that is not exact wrapping."""
    rule = ""
    if getattr(rec.spec, "pair_sat", None):
        rule = f", pairs saturate to int{rec.spec.pair_sat}"
    elif rec.clamp is True:
        rule = ", saturating"
    return f"{rec.lanes} -> {rec.acc}{rule}"


def _first_target(rec):
    from .. import catalog

    targets = catalog.where_available(rec)
    return targets[0] if targets else None, targets


def run_model(name: str, qmodel, x_test, y_test, progress=None, distinct: bool = False) -> dict:
    """ONNX Runtime and every fitting instruction (``distinct``: one of each kind of step) on one model."""
    from .. import catalog

    feed = {"pixels": x_test.astype(np.float32)}
    out = {"name": name, "integer_nodes": [f"{n} ({t})" for n, t in integer_nodes(qmodel)], "ort": {}}
    logits = {}
    for key, int8 in (("default", False), ("int8_kernels", True)):
        s = ort_session(qmodel, int8)
        s.run(None, feed)
        t0 = time.perf_counter()
        logits[key] = s.run(None, feed)[0]
        out["ort"][key] = {
            "accuracy": float((logits[key].argmax(1) == y_test).mean()),
            "time_ms": (time.perf_counter() - t0) * 1e3,
        }
    groups: dict = {}
    # Every instruction whose lanes take the operands, those that do not accumulate exactly as ONNX defines
    # (always saturating, or pair sums saturating first) included: their rows say whether that showed.
    plans = fitting(np.int8, np.int8, distinct=distinct, exact_only=False)
    for i, p in enumerate(plans):
        if progress:
            progress(i, len(plans), f"{name}: {p.record.name}")
        target, targets = _first_target(p.record)
        t0 = time.perf_counter()
        got = run(qmodel, feed, op=p.record, target=target)["logits"]
        dt = time.perf_counter() - t0
        key = (_step(p.record), p.record.sign_args, p.handling)
        g = groups.setdefault(key, {"logits": got, "rows": [], "targets": set(), "time_ms": dt * 1e3})
        g["rows"].append((p, target))
        g["targets"].update(targets)
        g.setdefault("same", True)
        g["same"] &= bool(np.array_equal(got, g["logits"]))
    rows = []
    for (step, sign_args, handling), g in groups.items():
        first = g["rows"][0][0]
        got = g["logits"]
        rows.append(
            {
                "step": step + (" (sign flags)" if sign_args else ""),
                "exact": exact(first.record),
                "instructions": [p.record.name for p, _ in g["rows"]],
                "example": f"{first.record.mnemonic} on {g['rows'][0][1]}",
                "targets": sorted(g["targets"]),
                "handling": handling,
                "how": first.describe(),
                "identical_within_step": g["same"],
                "identical_to_ort_int8": bool(np.array_equal(got, logits["int8_kernels"])),
                "differ_from_ort_default": int((got != logits["default"]).sum()),
                "accuracy": float((got.argmax(1) == y_test).mean()),
                "time_ms": g["time_ms"],
            }
        )
    out["rows"] = rows
    out["outputs"] = int(logits["default"].size)
    out["ort_default_vs_int8"] = int((logits["default"] != logits["int8_kernels"]).sum())
    fit = {p.record.name for p in fitting(np.int8, np.int8, exact_only=False)}
    out["not_fitting"] = [
        {"instruction": r.name, "step": _step(r), "why": _why_not(qmodel, feed, r)}
        for r in catalog.records()
        if r.name not in fit
    ]
    conf = np.zeros((10, 10), np.int64)
    np.add.at(conf, (y_test, logits["int8_kernels"].argmax(1)), 1)
    out["confusion"] = conf.tolist()
    return out


def _why_not(qmodel, feed, rec) -> str:
    """The error ``intdot.quant.run`` gives for an instruction that cannot run the model."""
    from ..core.errors import IntdotError

    try:
        run(qmodel, {k: v[:1] for k, v in feed.items()}, op=rec)
    except IntdotError as exc:
        return str(exc)
    return "runs"  # not expected: fitting() lists every instruction that can


def run_all(models: dict, x_calib, x_test, y_test, progress=None, distinct: bool = False) -> dict:
    """Quantize each float model (name -> (ONNX model, float logits of x_test)) and run it everywhere."""
    result = {"ort_saturates_u8s8": ort_saturates_u8s8(), "models": []}
    for name, (fmodel, float_logits) in models.items():
        q = quantize(fmodel, x_calib)
        r = run_model(name, q, x_test, y_test, progress, distinct)
        r["float_accuracy"] = float((float_logits.argmax(1) == y_test).mean())
        result["models"].append(r)
    return result
