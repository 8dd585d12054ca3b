"""Which array path "auto" picks: NumPy for one-off calls, the compiled kernel once it pays for itself."""

from __future__ import annotations

import os

import numpy as np
import pytest

from intdot.core import DotSpec, accel, dot_arrays
from tests.reference import ref_dot


def _fresh(monkeypatch):
    """The policy's state as in a new process."""
    monkeypatch.setattr(accel, "_numpy_work", {})
    monkeypatch.setattr(accel, "_loaded", set())
    monkeypatch.delenv("INTDOT_BACKEND", raising=False)


def _needs_numba():
    if not accel.numba_available():
        pytest.skip("numba (the 'fast' extra) is not installed")


def test_auto_rents_numpy_until_the_kernel_pays_for_itself(monkeypatch):
    """Issue 15 item 7: a large call used the kernel at once, paying 0.7 s of numba start-up for 0.03 s of work."""
    _needs_numba()
    _fresh(monkeypatch)
    spec = DotSpec.packed32(8, False, True, True)
    n = 1 << 20
    calls = accel.SWITCH_AFTER // n
    picks = [accel.kernel_for(spec, n) for _ in range(calls + 1)]
    assert picks[:calls] == [None] * calls and picks[-1] is not None
    assert accel.kernel_for(spec, 1) is picks[-1]  # bought: every later call, small or large, uses it
    # Another dot step starts again on the NumPy path: its kernel is another load (or compile).
    assert accel.kernel_for(DotSpec.packed32(4, True, True, False), n) is None


def test_small_calls_count_their_fixed_cost(monkeypatch):
    _needs_numba()
    _fresh(monkeypatch)
    spec = DotSpec.packed32(8, True, False, True)
    calls = accel.SWITCH_AFTER // accel.CALL_COST
    assert all(accel.kernel_for(spec, 16) is None for _ in range(calls))
    assert accel.kernel_for(spec, 16) is not None


def test_forcing_numba_loads_the_kernel_for_auto_too(monkeypatch):
    _needs_numba()
    _fresh(monkeypatch)
    spec = DotSpec.packed32(8, True, True, True)
    forced = accel.kernel_for(spec, 10, "numba")
    assert forced is not None
    assert accel.kernel_for(spec, 10) is forced  # already loaded: no reason to stay on the NumPy path
    monkeypatch.setenv("INTDOT_BACKEND", "numpy")
    assert accel.kernel_for(spec, 1 << 20) is None


def test_auto_without_numba_stays_on_numpy(monkeypatch):
    _fresh(monkeypatch)
    monkeypatch.setattr(accel, "_numba", [False])
    spec = DotSpec.packed32(8, True, True, True)
    assert [accel.kernel_for(spec, accel.SWITCH_AFTER) for _ in range(3)] == [None] * 3


def test_a_one_off_call_in_a_new_process_does_not_start_numba():
    """The first array call in a process, however large, runs on the NumPy path: numba is not even imported."""
    import subprocess
    import sys

    code = (
        "import sys\nimport numpy as np\nfrom intdot import amd\na = np.arange(1 << 20, dtype=np.uint32)\n"
        "r = amd.sdot4(a, a, a, False)\nprint(r.dtype, 'numba' in sys.modules)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "INTDOT_BACKEND"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["int32", "False"]


def test_small_calls_stay_exact_across_the_switch(monkeypatch):
    _fresh(monkeypatch)
    monkeypatch.setattr(accel, "SWITCH_AFTER", 3 * accel.CALL_COST)
    rng = np.random.default_rng(7)
    spec = DotSpec.packed32(4, True, False, True)
    for _ in range(6):
        a, b, c = (rng.integers(0, 2**32, 5, dtype=np.uint64).astype(np.uint32) for _ in range(3))
        got = dot_arrays(spec, a, b, c, neg=True, clamp=True)
        want = [
            ref_dot(
                int(x), int(y), int(z), width=4, a_signed=True, b_signed=False, result_signed=True, neg=True, clamp=True
            )
            for x, y, z in zip(a, b, c)
        ]
        assert got.tolist() == want
    assert (spec in accel._loaded) == accel.numba_available()


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
