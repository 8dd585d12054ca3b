import pytest

from intdot.core.accel import numba_available

BACKENDS = ["numpy"] + (["numba"] if numba_available() else [])


@pytest.fixture(params=BACKENDS)
def backend(request, monkeypatch):
    """Run the test once per array backend (the public functions read INTDOT_BACKEND)."""
    monkeypatch.setenv("INTDOT_BACKEND", request.param)
    return request.param
