"""intdot.gemm.gpu_ptx on PTX text alone (no Triton needed): what it leaves alone and what it refuses.  The
rewrite of the real kernel is checked where Triton compiles it (gluon_compile._clusters_as_written) and run on
the H200 (test_gpu.py, scripts/gpu/cluster_ab.py)."""

from __future__ import annotations

import pytest

from intdot.gemm import gpu_ptx

COPY = (
    "@%p7 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes "
    "[%r1], [{map}, {{%r2, %r3}}], [%r4];"
)


def _kernel(name: str, b_copies: int) -> str:
    lines = [
        f".visible .entry {name}(",
        f"\t.param .align 64 .b8 {name}_param_0[128],",
        f"\t.param .align 64 .b8 {name}_param_5[128],",
        ")",
        ".reqntid 384",
        f"\tmov.b64 \t%rd4, {name}_param_0;",
        f"\tmov.b64 \t%rd5, {name}_param_5;",
        "\tcvta.param.u64 \t%rd6, %rd4;",
        "\tcvta.param.u64 \t%rd7, %rd5;",
        "\t" + COPY.format(map="%rd6"),
    ]
    lines += ["\t" + COPY.format(map="%rd7")] * b_copies
    return "\n".join(lines) + "\n"


def test_other_kernels_and_whole_b_tiles_are_left_alone():
    for ptx in (_kernel("mm_rowb", 2), _kernel("mm_ws", 1)):
        assert gpu_ptx.clustered(ptx) == ptx


def test_a_kernel_not_shaped_as_triton_emits_it_is_refused():
    parts = _kernel("mm_ws", 2)
    with pytest.raises(gpu_ptx.RewriteError, match="no arrivals"):
        gpu_ptx.clustered(parts)  # parts of B, but no consumer handing stages back
    parts += "\t@%p9 mbarrier.arrive.shared::cta.b64 _, [%r8];\n"
    with pytest.raises(gpu_ptx.RewriteError, match="meeting points"):
        gpu_ptx.clustered(parts)  # nor warp specialisation's meeting points
    with pytest.raises(gpu_ptx.RewriteError, match="3 copies"):
        gpu_ptx.clustered(_kernel("mm_ws", 3))
    no_map = _kernel("mm_ws", 2).replace("mm_ws_param_5[128]", "mm_ws_param_5")
    with pytest.raises(gpu_ptx.RewriteError, match="tensor-map parameters"):
        gpu_ptx.clustered(no_map)


def test_the_tag_names_this_version_of_the_rewrite():
    assert len(gpu_ptx.TAG) == 16 and int(gpu_ptx.TAG, 16) >= 0


def test_clusters_only_on_the_triton_the_rewrite_reads():
    assert gpu_ptx.checked("3.6.0") and gpu_ptx.checked("3.6.1+git123")
    assert not gpu_ptx.checked("3.5.1") and not gpu_ptx.checked("3.7.0") and not gpu_ptx.checked("4.6.0")


def test_install_puts_the_rewrite_back_after_another_hook():
    """A stage hook set after gpu_gluon's import (a profiler's) replaces the rewrite's; install() chains both, once."""
    knobs = pytest.importorskip("triton").knobs
    saved = knobs.runtime.add_stages_inspection_hook
    seen = []
    try:
        knobs.runtime.add_stages_inspection_hook = lambda *args: seen.append("other")
        gpu_ptx.install()
        gpu_ptx.install()
        make_ptx = lambda src, metadata: _kernel("mm_ws", 1)  # noqa: E731
        stages = {"ptx": make_ptx}
        knobs.runtime.add_stages_inspection_hook(None, stages, None, None, 90)
        assert seen == ["other"] and stages["ptx"] is not make_ptx  # the PTX stage goes through the rewrite
        assert stages["ptx"](None, {}) == _kernel("mm_ws", 1)
        assert knobs.runtime.add_stages_inspection_hook._intdot_clustered
    finally:
        knobs.runtime.add_stages_inspection_hook = saved
