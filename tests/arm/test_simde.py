"""SIMDe's NEON test vectors (tests/data/simde_neon_dot.json): every dot intrinsic's entries must match.

The file has vectors for all 22 NEON integer dot intrinsics (vdot*, vusdot*, vsudot*) and for the
matrix-multiply ones (vmmlaq*, not dot products, so not intdot's).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from intdot.arm import acle

DATA = json.loads((Path(__file__).resolve().parents[1] / "data" / "simde_neon_dot.json").read_text())
DOT = sorted(name for name in DATA["functions"] if "mmla" not in name)
CASES = [(name, k, v) for name in DOT for k, v in enumerate(DATA["functions"][name]["vectors"])]


def test_every_neon_dot_intrinsic_has_vectors():
    assert DOT == sorted(n for n in acle.INTRINSICS if n.startswith("v"))
    assert len(DOT) == 22


def _dtypes(name: str) -> list[np.dtype]:
    """The element dtypes of (r, a, b) as the C prototype states them."""
    proto = acle.INTRINSICS[name].prototype
    args = proto[proto.index("(") + 1 :].split(", ")[:3]
    return [np.dtype(a.split("x")[0]) for a in args]


@pytest.mark.parametrize("name, k, vec", CASES, ids=[f"{n}-{k}" for n, k, _ in CASES])
def test_simde_vector(name, k, vec):
    f = getattr(acle, name)
    lane = () if "lane" not in vec else (vec["lane"],)
    tr, ta, tb = _dtypes(name)
    got = f(np.array(vec["acc_in"], tr), np.array(vec["a"], ta), np.array(vec["b"], tb), *lane)
    assert got.dtype == tr
    assert got.tolist() == vec["expected"]
    # Plain lists in the same spelling give the same answer.
    assert f(vec["acc_in"], vec["a"], vec["b"], *lane).tolist() == vec["expected"]
