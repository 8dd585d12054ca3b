"""One check for the float fusions' tests: ONNX Runtime's optimized graph and ``prepare``'s agree on the nodes a
fusion writes, and ``run`` gives ONNX Runtime's bits (on Arm, on a NEON CPU: :func:`.ort.session`)."""

import numpy as np
import pytest

from intdot import quant

from . import ort
from .test_float_kernels import _same


def check_fusion(model, feeds, tmp_path, nodes, what, fused=None):
    """``nodes(graph)`` (what the fusion wrote: a list) the same for ONNX Runtime's optimized graph and
    ``prepare``'s, non-empty exactly where ``fused`` says (None: not checked), and every output bit for bit; returns
    ONNX Runtime's ``nodes``."""
    import onnx

    optimized = tmp_path / "optimized.onnx"
    want = ort.session(model, optimized_path=optimized, neon=True).run(None, feeds)
    theirs = nodes(onnx.load(optimized).graph)
    ours = nodes(quant.prepare(model, platform=ort.platform()).model.graph)
    assert ours == theirs, (what, theirs, ours)
    assert fused is None or fused == bool(theirs), (what, theirs)
    got = quant.run(model, feeds, op="sdot4", platform=ort.platform())
    for (name, value), w in zip(got.items(), want):
        _same(value, w, (what, name))
    return theirs


def fusion_cases(fused, not_fused, default="default"):
    """The fusion tests' parametrization over ``("kw", "fused")``: each keyword set of ``fused`` expected fused, each
    of ``not_fused`` not, named by its keywords (``default`` for the empty set)."""
    cases = [(kw, True) for kw in fused] + [(kw, False) for kw in not_fused]
    return pytest.mark.parametrize(("kw", "fused"), cases, ids=[_case_name(kw) or default for kw, _ in cases])


def _case_name(kw) -> str:
    def shown(v):
        return f"array{v.shape}" if isinstance(v, np.ndarray) else getattr(v, "__name__", v)

    return ",".join(f"{k}={shown(v)}" for k, v in kw.items())
