"""Which array path "auto" picks: NumPy for one-off small calls, the compiled kernel once hot."""

from __future__ import annotations

import numpy as np
import pytest

from intdot.core import DotSpec, accel, dot_arrays
from tests.reference import ref_dot


def test_small_calls_compile_only_once_hot(monkeypatch):
    if not accel.numba_available():
        pytest.skip("numba (the 'fast' extra) is not installed")
    monkeypatch.setattr(accel, "_small_calls", {})
    monkeypatch.delenv("INTDOT_BACKEND", raising=False)
    spec = DotSpec.packed32(8, False, True, True)
    picks = [accel.kernel_for(spec, 16) for _ in range(accel.HOT + 2)]
    assert picks[: accel.HOT] == [None] * accel.HOT
    assert picks[-1] is not None
    # Large calls use the kernel at once.
    assert accel.kernel_for(DotSpec.packed32(4, True, True, False), accel.MIN_AUTO) is not None


def test_hot_small_calls_stay_exact():
    rng = np.random.default_rng(7)
    spec = DotSpec.packed32(4, True, False, True)
    for _ in range(accel.HOT + 3):
        a, b, c = (rng.integers(0, 2**32, 5, dtype=np.uint64).astype(np.uint32) for _ in range(3))
        got = dot_arrays(spec, a, b, c, neg=True, clamp=True)
        want = [
            ref_dot(
                int(x), int(y), int(z), width=4, a_signed=True, b_signed=False, result_signed=True, neg=True, clamp=True
            )
            for x, y, z in zip(a, b, c)
        ]
        assert got.tolist() == want


def test_backend_names_are_checked():
    from intdot.errors import OperandError

    with pytest.raises(OperandError, match="backend='gpu'"):
        accel.kernel_for(DotSpec.packed32(8, True, True, True), 10, "gpu")


def test_bad_environment_is_reported_on_every_path(monkeypatch):
    """Issue 8 item 9: INTDOT_BACKEND=bogus is a ConfigError wherever the core is first used, not only by arrays."""
    from intdot import amd
    from intdot.core import check_environment, dot_function
    from intdot.errors import ConfigError

    monkeypatch.setenv("INTDOT_BACKEND", "bogus")
    message = "the environment variable INTDOT_BACKEND='bogus' is not known; expected one of auto, numpy, numba"
    with pytest.raises(ConfigError, match=message):
        check_environment()
    with pytest.raises(ConfigError, match=message):
        amd.builtin("sdot4")
    with pytest.raises(ConfigError, match=message):
        dot_function(DotSpec(4, 16, 3, True, False, 64, False))  # a spec no other test makes
    with pytest.raises(ConfigError, match=message):
        z = np.zeros(2, np.uint32)
        dot_arrays(DotSpec.packed32(8, True, True), z, z, z, neg=False, clamp=False)
    monkeypatch.setenv("INTDOT_BACKEND", "numpy")
    assert check_environment() == "numpy"


def test_bad_environment_in_a_new_process_scalar_call():
    import os
    import subprocess
    import sys

    env = {**os.environ, "INTDOT_BACKEND": "bogus"}
    code = "import intdot\ntry:\n    intdot.dot(1, 2, 3)\nexcept intdot.errors.ConfigError as e:\n    print(e)\n"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert out.stdout.startswith("the environment variable INTDOT_BACKEND='bogus' is not known"), out


def _first_call_in_new_process(cache_dir: str) -> str:
    import os
    import subprocess
    import sys

    code = (
        "import numpy as np\nfrom intdot import amd\na = np.arange(5000, dtype=np.uint32)\n"
        "print(int(amd.sdot8(a, a, a, False, clamp=True).astype(np.int64).sum()))\n"
    )
    env = {**os.environ, "INTDOT_BACKEND": "numba", "INTDOT_CACHE_DIR": cache_dir}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_compiled_kernels_are_cached_on_disk(tmp_path):
    """Issue 8 item 8: a new process loads the kernel an earlier one compiled (numba's index and data files)."""
    if not accel.numba_available():
        pytest.skip("numba (the 'fast' extra) is not installed")
    first = _first_call_in_new_process(str(tmp_path))
    files = sorted(p.suffix for p in tmp_path.rglob("*") if p.is_file())
    assert ".nbi" in files and ".nbc" in files, files
    stamps = {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*.nbc")}
    assert _first_call_in_new_process(str(tmp_path)) == first
    # The second process found what it needed: it wrote no new compiled code.
    assert {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*.nbc")} == stamps


def test_cache_off_or_unusable_still_computes(tmp_path):
    if not accel.numba_available():
        pytest.skip("numba (the 'fast' extra) is not installed")
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    want = _first_call_in_new_process(str(tmp_path / "ok"))
    assert _first_call_in_new_process("off") == want
    assert _first_call_in_new_process(str(blocked / "below")) == want
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file", "ok"]  # "off" and the blocked path wrote nothing


def test_cache_dir_default_and_override(monkeypatch):
    pytest.importorskip("numba")
    from intdot.core import _numba_kernels as kernels

    monkeypatch.delenv("INTDOT_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", "/x/cache")
    assert kernels.cache_dir() == "/x/cache/intdot"
    monkeypatch.setenv("INTDOT_CACHE_DIR", "/y")
    assert kernels.cache_dir() == "/y"
    for off in ("", "off", "0", "none"):
        monkeypatch.setenv("INTDOT_CACHE_DIR", off)
        assert kernels.cache_dir() is None
