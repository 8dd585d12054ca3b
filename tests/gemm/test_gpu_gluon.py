"""The Hopper kernel (intdot.gemm.gpu_gluon) compiled for sm_90a where no GPU is lent: well formed down to ptxas,
warp-specialised, within the H200's shared memory and needing no scratch memory (the remembered plan launches it
itself), and gpu._tma_setup's choice of configuration.  Its results are checked on the H200 (test_gpu*.py)."""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

from ..oracles import missing
from .triton_interpret import TRITON

ROOT = Path(__file__).resolve().parents[2]


def test_gluon_kernel_compiles_for_hopper_in_every_configuration():
    if importlib.util.find_spec("triton") is None:
        missing("Triton (compiles the Hopper kernel for sm_90a)", f"pip install '{TRITON}'")
    # A process of its own: Triton compiles here, while the interpreter tests need it imported in interpreter mode.
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(ROOT), env.get("PYTHONPATH", "")])
    run = subprocess.run(
        [sys.executable, "-m", "tests.gemm.gluon_compile"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    if "No module named 'triton.experimental.gluon" in run.stderr:
        missing("Triton with Gluon (3.6 or later)", f"pip install '{TRITON}'")
    assert run.returncode == 0, run.stderr[-3000:]
