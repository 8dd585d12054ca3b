"""Drivers for the real oracles (QEMU, llvm-mc, the x86 CPU).

A missing oracle makes its tests skip with a visible reason on a user's
machine, and fail where ``INTDOT_REQUIRE_ORACLES=1`` (set by ``.ci/run``).
"""

from __future__ import annotations

import os
import shutil

import pytest

REQUIRED = os.environ.get("INTDOT_REQUIRE_ORACLES", "") not in ("", "0")
# Where scripts/install-oracles.sh puts what Debian's stable suite lacks.
PREFIX = os.environ.get("INTDOT_ORACLES", "/opt/intdot-oracles")


def missing(what: str, how: str = "run scripts/install-oracles.sh (as root) to install it"):
    """Skip (or, in CI, fail) the calling test because oracle ``what`` is absent."""
    message = f"oracle missing: {what}; {how}"
    if REQUIRED:
        pytest.fail(message + " [INTDOT_REQUIRE_ORACLES is set, so this is a failure]", pytrace=False)
    pytest.skip(message)


def find_tool(env_var: str, *candidates: str) -> str | None:
    """An oracle executable: $env_var if set, else the first candidate found."""
    if os.environ.get(env_var):
        return os.environ[env_var]
    for c in candidates:
        path = c if os.path.isabs(c) and os.access(c, os.X_OK) else shutil.which(c)
        if path:
            return path
    return None
