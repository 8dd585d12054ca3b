"""ONNX Runtime for AArch64, run under qemu-user: the Arm oracle for :mod:`intdot.quant`.

``scripts/install-arm-ort.sh`` unpacks Debian's arm64 Python and PyPI's aarch64 onnxruntime wheel under
``$INTDOT_ORACLES/arm-ort``. :func:`session` gives an object that runs a model as ``InferenceSession.run`` does,
in a long-lived AArch64 Python (``arm_ort_worker.py``) so that each run pays for QEMU's translation only once.
ONNX Runtime picks its kernels by the CPU features QEMU's ``-cpu`` model reports: ``max,sme=off`` (the default)
has SDOT, I8MM and SVE2, as Neoverse V2 does; ``neoverse-n1`` has SDOT only. Not SME: with it ONNX Runtime runs
int8 products through KleidiAI's SMOPA kernels, which the QEMU of Debian 12 (7.2) computes wrongly (its 32-bit
SMOPA, fixed upstream in 2024, gets every odd row or column wrong).
"""

from __future__ import annotations

import atexit
import io
import json
import os
import struct
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from . import PREFIX, find_tool, missing

HOME = Path(os.environ.get("INTDOT_ARM_ORT", os.path.join(PREFIX, "arm-ort")))
PYTHON = HOME / "root" / "usr" / "bin" / "python3.11"
WORKER = Path(__file__).with_name("arm_ort_worker.py")
DEFAULT_CPU = "max,sme=off"

SME_CPU = "max"  # with SME, on QEMU 11: ONNX Runtime then takes KleidiAI's SME kernels where it has them

_workers: dict[tuple, _Worker] = {}


def qemu(sme: bool = False) -> str | None:
    """qemu-aarch64; with ``sme``, the oracle installer's QEMU 11, whose SME is right."""
    if sme:
        return find_tool("INTDOT_QEMU_SME2", os.path.join(PREFIX, "qemu-unstable/usr/bin/qemu-aarch64"))
    return find_tool("INTDOT_QEMU", "/usr/bin/qemu-aarch64", "qemu-aarch64")


def require(sme: bool = False) -> None:
    """Skip (or, in CI, fail) the calling test unless QEMU and ONNX Runtime for AArch64 are both there."""
    if qemu(sme) is None:
        missing("qemu-aarch64" + (" with SME (QEMU 11 of the oracle installer)" if sme else "") + " for ONNX Runtime")
    if not PYTHON.exists() or not (HOME / "site" / "onnxruntime").is_dir():
        missing(f"ONNX Runtime for AArch64 under {HOME}", "run scripts/install-oracles.sh (as root) to install it")


class ArmOrtError(RuntimeError):
    """ONNX Runtime on Arm refused the model or its inputs (its own message), or the worker died."""


class _Worker:
    """A long-lived ONNX Runtime serving requests (``arm_ort_worker.py``), started by ``cmd`` (a Python under
    QEMU, and the worker's path)."""

    def __init__(self, cmd: list):
        self.log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log)
        self._receive()  # its ready message: ONNX Runtime imported

    def _receive(self) -> bytes:
        head = self.proc.stdout.read(8)
        if len(head) != 8:
            self.log.seek(0)
            tail = self.log.read().decode(errors="replace")[-2000:]
            raise ArmOrtError(f"ONNX Runtime for AArch64 stopped (exit {self.proc.poll()}): {tail}")
        (n,) = struct.unpack("<Q", head)
        return self.proc.stdout.read(n)

    def ask(self, arrays: dict) -> dict:
        buf = io.BytesIO()
        np.savez(buf, **arrays)
        data = buf.getvalue()
        self.proc.stdin.write(struct.pack("<Q", len(data)) + data)
        self.proc.stdin.flush()
        with np.load(io.BytesIO(self._receive())) as z:
            return {k: z[k] for k in z.files}

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(timeout=30)


def worker(key: tuple, cmd) -> _Worker:
    """The running worker for ``key``, started by ``cmd()`` if there is none (or it died)."""
    w = _workers.get(key)
    if w is None or w.proc.poll() is not None:
        w = _workers[key] = _Worker(cmd())
    return w


def _worker(cpu: str, sme: bool) -> _Worker:
    def cmd():
        qemu_args = [qemu(sme), "-cpu", cpu, "-L", str(HOME / "root"), "-E", f"PYTHONPATH={HOME / 'site'}"]
        return [*qemu_args, str(PYTHON), str(WORKER)]

    return worker(("arm", cpu, sme), cmd)


@atexit.register
def _close_all():
    for w in _workers.values():
        w.close()


class Session:
    """A model ready to run on ONNX Runtime for AArch64, as ``onnxruntime.InferenceSession`` is on the host.

    ``entries``: session config entries (``{"session.qdqisint8allowed": "0"}``); ``optimize=False`` turns the
    graph optimizer off; ``optimized_path``: where to write the graph ONNX Runtime runs, as
    ``SessionOptions.optimized_model_filepath`` does (at once); ``sme``: run on QEMU 11 (``cpu`` then
    :data:`SME_CPU` by default); ``threads``: its ``intra_op_num_threads``."""

    def __init__(self, model, cpu: str | None = None, entries=None, optimize=True, optimized_path=None, sme=False,
                 threads=1):  # fmt: skip
        require(sme)
        self.model = model if isinstance(model, bytes) else Path(model).read_bytes()
        self.cpu = cpu or (SME_CPU if sme else DEFAULT_CPU)
        self.sme = sme
        self.config = {"entries": dict(entries or {}), "optimize": optimize, "threads": threads}
        if optimized_path is not None:
            answer = self._ask({}, save=True, run=False)
            Path(optimized_path).write_bytes(answer["__optimized__"].tobytes())

    def _ask(self, feeds: dict, **flags) -> dict:
        request = {f: np.asarray(v) for f, v in feeds.items()}
        request["__model__"] = np.frombuffer(self.model, np.uint8)
        request["__config__"] = np.array(json.dumps({**self.config, **flags}))
        answer = _worker(self.cpu, self.sme).ask(request)
        if "__error__" in answer:
            raise ArmOrtError(str(answer["__error__"]))
        return answer

    def run(self, output_names, feeds: dict) -> list:
        answer = self._ask(feeds)
        outs = [answer[f"out{i}"] for i in range(len(answer))]
        if output_names is None:
            return outs
        import onnx

        names = [o.name for o in onnx.load_from_string(self.model).graph.output]
        return [outs[names.index(n)] for n in output_names]
