"""SIMDe's NEON test vectors (tests/data/simde_neon_dot.json): every ``vsudot*`` entry must match."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from intdot import arm

DATA = json.loads((Path(__file__).resolve().parents[1] / "data" / "simde_neon_dot.json").read_text())
SUDOT = sorted(name for name in DATA["functions"] if name.startswith("vsudot"))
CASES = [(name, k, v) for name in SUDOT for k, v in enumerate(DATA["functions"][name]["vectors"])]


def test_all_four_neon_sudot_intrinsics_have_vectors():
    assert SUDOT == ["vsudot_lane_s32", "vsudot_laneq_s32", "vsudotq_lane_s32", "vsudotq_laneq_s32"]


@pytest.mark.parametrize("name, k, vec", CASES, ids=[f"{n}-{k}" for n, k, _ in CASES])
def test_simde_vector(name, k, vec):
    f = getattr(arm, name)
    got = f(np.array(vec["acc_in"], np.int32), np.array(vec["a"], np.int8), np.array(vec["b"], np.uint8),
            vec["lane"])
    assert got.dtype == np.int32
    assert got.tolist() == vec["expected"]
    # Plain lists in the same spelling give the same answer.
    assert f(vec["acc_in"], vec["a"], vec["b"], vec["lane"]).tolist() == vec["expected"]
