"""`make tour` (scripts/tour.sh) runs from start to end: every command it shows works as
shown, and the one refusal at its end is one line with exit status 1."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_the_tour_runs():
    intdot = Path(sys.executable).with_name("intdot")
    if not intdot.exists():
        intdot = shutil.which("intdot")
    if intdot is None or shutil.which("bash") is None:
        pytest.skip("needs bash and the installed intdot command")
    proc = subprocess.run(
        ["bash", str(ROOT / "scripts" / "tour.sh"), str(intdot)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "TERM": "dumb"},
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Traceback" not in proc.stdout + proc.stderr
    assert proc.stdout.rstrip().endswith("(exit status 1)")
    assert proc.stderr.strip().splitlines() == [
        "intdot eval: error: sudot4 is not available on CDNA3 (gfx940-gfx942) in the reference profile; "
        "the reference lists it for RDNA2, RDNA3, RDNA3.5, RDNA4"
    ]
