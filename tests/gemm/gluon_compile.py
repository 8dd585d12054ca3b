"""Run in a process of its own by test_gpu_gluon.py (Triton compiled, not interpreted): compiles the Hopper
kernel (intdot.gemm.gpu_gluon) for sm_90a in each configuration gpu.py launches, down to ptxas, and checks what
the remembered plan (gpu._tma_plan) and the H200 rely on; then gpu._tma_setup's choice between them."""

from __future__ import annotations

import sys
from types import SimpleNamespace

import triton
from triton.backends.compiler import GPUTarget
from triton.experimental.gluon import language as gl
from triton.experimental.gluon._runtime import GluonASTSource

from intdot.gemm import gpu, gpu_gluon

SHARED_MAX = 232448  # bytes of shared memory a block may have on sm_90


def _signature(bm: int, bn: int, bk: int) -> dict:
    kinds = dict.fromkeys(gpu_gluon.mm_ws.arg_names, "i32")
    for name in ("c_ptr", "out_ptr", "ra_ptr", "cb_ptr"):
        kinds[name] = "*i32"
    for name in ("HAS_C", "CENTRED", "GROUP", "NUM", "PING"):
        kinds[name] = "constexpr"
    for name, block in (("a_desc", [bm, bk]), ("b_desc", [bn, bk])):
        layout = gl.NVMMASharedLayout.get_default_for(block, gl.int8)
        kinds[name] = f"tensordesc<i8[{block[0]}, {block[1]}],{layout!r}>"
    return kinds


def compile_all() -> None:
    for cfg in (gpu_gluon.PING, gpu_gluon.WIDE):
        for has_c, centred in ((False, False), (True, True)):
            consts = dict(HAS_C=has_c, CENTRED=centred, GROUP=cfg["GROUP"], NUM=cfg["NUM"], PING=cfg["PING"])
            src = GluonASTSource(gpu_gluon.mm_ws, _signature(cfg["BM"], cfg["BN"], cfg["BK"]), consts)
            k = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": cfg["num_warps"]})
            ptx, what = k.asm["ptx"], (cfg, has_c, centred)
            # Two MMAs a K step for each consumer (N = 256 or two of M = 64), asynchronous warpgroup ones.
            assert ptx.count("wgmma.mma_async") == (4 if cfg["PING"] else 2) * cfg["BK"] // 32, what
            assert "setmaxnreg" in ptx, what  # the partitions' registers rebalanced: warp specialisation happened
            assert k.metadata.shared <= SHARED_MAX, (what, k.metadata.shared)
            # The plan calls the launcher itself and passes no scratch memory.
            assert not k.metadata.global_scratch_size and not k.metadata.profile_scratch_size, what


def one_stage_refused() -> None:
    """A ring of one stage would deadlock (a stage goes back a K step late): refused when compiled."""
    cfg = gpu_gluon.PING
    consts = dict(HAS_C=False, CENTRED=False, GROUP=cfg["GROUP"], NUM=1, PING=True)
    src = GluonASTSource(gpu_gluon.mm_ws, _signature(cfg["BM"], cfg["BN"], cfg["BK"]), consts)
    try:
        triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": cfg["num_warps"]})
    except Exception as exc:  # Triton's CompilationError, with the static assertion's message
        assert "deadlock" in str(exc), exc
    else:
        raise AssertionError("NUM=1 compiled")


def choice() -> None:
    """Wide tiles only once there are WIDE_PER_SM of them a multiprocessor; the grid one program a
    multiprocessor at most; Triton's own kernel wherever the device is not a Hopper GPU (or WS is off)."""
    sms = 132
    gpu._sm_count = lambda device: sms
    gpu._ws = lambda device: True
    hopper = SimpleNamespace(type="cuda", index=0)
    kernel, grid, _, blocks, cfg = gpu._tma_setup(8192, 8192, hopper)
    assert kernel.fn is gpu_gluon.mm_ws and blocks == ([128, 128], [256, 128]) and grid == sms and not cfg["PING"]
    kernel, grid, _, blocks, cfg = gpu._tma_setup(1024, 4096, hopper)
    assert blocks == ([128, 128], [128, 128]) and cfg["PING"] and grid == sms
    kernel, grid, _, blocks, cfg = gpu._tma_setup(200, 300, hopper)
    assert cfg["PING"] and grid == 2 * 3
    gpu._ws = lambda device: False
    kernel, grid, _, blocks, cfg = gpu._tma_setup(8192, 8192, hopper)
    assert kernel.fn.__name__ == "mm_tma" and grid == 64 * 64


if __name__ == "__main__":
    compile_all()
    one_stage_refused()
    choice()
    print("ok", file=sys.stderr)
