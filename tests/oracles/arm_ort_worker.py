"""Runs inside a Python under qemu-user (tests/oracles/arm_ort.py starts it in AArch64 Python, x86_ort.py in this
machine's on a CPU without AVX-512): ONNX Runtime as a server. Each request on stdin and each answer on stdout is
an 8-byte little-endian length and that many bytes of an ``np.savez`` archive. A request holds ``__model__`` (the
serialized model as uint8), ``__config__`` (JSON: the session's config entries and whether to disable the graph
optimizer) and the feeds; an answer holds the outputs, in order, or ``__error__``. Needs nothing but numpy and
onnxruntime, the two wheels the installer unpacks."""

import io
import json
import os
import struct
import sys
import tempfile

import numpy as np
import onnxruntime as ort


def _read(stream, n):
    data = stream.read(n)
    if len(data) != n:
        raise EOFError
    return data


def _session(model: bytes, config: dict, save: str = ""):
    so = ort.SessionOptions()
    so.intra_op_num_threads = int(config.get("threads", 1))
    so.inter_op_num_threads = 1
    so.log_severity_level = 3
    if config.get("optimize") is False:
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    for key, value in config.get("entries", {}).items():
        so.add_session_config_entry(key, value)
    if save:
        so.optimized_model_filepath = save
    return ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])


def _answer(request: bytes) -> dict:
    with np.load(io.BytesIO(request)) as z:
        arrays = {k: z[k] for k in z.files}
    model = arrays.pop("__model__").tobytes()
    config = json.loads(str(arrays.pop("__config__")))
    answer = {}
    with tempfile.TemporaryDirectory() as tmp:
        save = os.path.join(tmp, "optimized.onnx") if config.get("save") else ""
        try:
            session = _session(model, config, save)
            if save:
                with open(save, "rb") as f:
                    answer["__optimized__"] = np.frombuffer(f.read(), np.uint8)
            if config.get("run", True):
                answer.update((f"out{i}", np.asarray(y)) for i, y in enumerate(session.run(None, arrays)))
        except Exception as exc:  # the caller raises it, with ONNX Runtime's message
            return {"__error__": np.array(f"{type(exc).__name__}: {exc}")}
    return answer


def main():
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    stdout.write(struct.pack("<Q", 0))  # ready: ONNX Runtime imported
    stdout.flush()
    while True:
        try:
            (n,) = struct.unpack("<Q", _read(stdin, 8))
        except EOFError:
            return
        buf = io.BytesIO()
        np.savez(buf, **_answer(_read(stdin, n)))
        data = buf.getvalue()
        stdout.write(struct.pack("<Q", len(data)) + data)
        stdout.flush()


if __name__ == "__main__":
    main()
