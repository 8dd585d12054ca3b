"""ONNX Runtime for x86 on a CPU without AVX-512: this machine's own ONNX Runtime, its Python run under
``qemu-x86_64 -cpu Haswell`` (AVX2 and FMA3, no AVX-512), so that MLAS picks the kernels it picks on such CPUs
(AMD Zen 2 and 3, Intel's client cores): the oracle for ``platform="x86-avx2"``.  The same worker as the Arm
oracle (``arm_ort_worker.py``), one long-lived process, so each run pays for QEMU's translation once."""

from __future__ import annotations

import json
import sys

import numpy as np

from . import find_tool, missing
from .arm_ort import WORKER, ArmOrtError, worker

CPU = "Haswell"


def qemu() -> str | None:
    return find_tool("INTDOT_QEMU_X86", "/usr/bin/qemu-x86_64", "qemu-x86_64")


def require() -> None:
    """Skip (or, in CI, fail) the calling test unless qemu-x86_64 and ONNX Runtime are both there."""
    if sys.platform != "linux" or qemu() is None:
        missing("qemu-x86_64 (ONNX Runtime on an x86 CPU without AVX-512)", "apt-get install qemu-user")
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        missing("onnxruntime", "pip install 'intdot[onnx]'")


class Session:
    """A model run by this machine's ONNX Runtime on QEMU's Haswell CPU, as ``InferenceSession.run`` runs it."""

    def __init__(self, model: bytes):
        require()
        self.model = model

    def run(self, output_names, feeds: dict) -> list:
        request = {f: np.asarray(v) for f, v in feeds.items()}
        request["__model__"] = np.frombuffer(self.model, np.uint8)
        request["__config__"] = np.array(json.dumps({"entries": {}, "optimize": True}))

        def cmd():
            return [qemu(), "-cpu", CPU, sys.executable, str(WORKER)]

        answer = worker(("x86", CPU), cmd).ask(request)
        if "__error__" in answer:
            raise ArmOrtError(str(answer["__error__"]))
        return [answer[f"out{i}"] for i in range(len(answer))]
