"""intdot.quant speed against ONNX Runtime, one thread each, timed interleaved in the same run.

    python bench/quant.py            # n = 2048
    python bench/quant.py --n 1024

Lines (goals from issue 14):
  matmul_integer uint8 x int8 with zero points vs ORT MatMulInteger, B an input        (goal >= 1.0x)
  the same vs ORT with B a constant initializer (ORT prepacks it)                        (goal >= 0.5x)
  matmul_integer uint8 x uint8 vs ORT MatMulInteger                                     (goal >= 2.0x)
  gemm with a (N,) or (M, 1) c vs the same gemm without c                               (goal: c adds <= 10%)
A ratio above 1 means intdot is faster.  The CPU's int8 dot-product support decides the paths on both sides
(ORT's kernels and whether gemm's auto backend uses PyTorch), so the header prints it.
"""

from __future__ import annotations

import argparse
import os
import platform

import numpy as np
from timing import interleaved


def one_thread():
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    # A CPU comparison: gemm's auto backend would take a GPU where there is one.
    os.environ.setdefault("INTDOT_GEMM_GPU", "0")
    try:
        import threadpoolctl

        threadpoolctl.threadpool_limits(1)
    except ImportError:
        print("threadpoolctl is not installed: BLAS may use several threads")
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        pass
    try:
        import numba

        numba.set_num_threads(1)
    except ImportError:
        pass


def cpu_flags() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            flags = next(line for line in f if line.startswith("flags")).split()
    except (OSError, StopIteration):
        return platform.machine()
    want = ["avx2", "avx512f", "avx512_vnni", "avx_vnni", "amx_int8", "asimddp", "i8mm"]
    return f"{platform.machine()} with " + (", ".join(f for f in want if f in flags) or "none of " + ", ".join(want))


def ort_matmul_integer(a, b, za, zb, const_b: bool):
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    t = {np.dtype(np.uint8): TensorProto.UINT8, np.dtype(np.int8): TensorProto.INT8}
    inputs = [helper.make_tensor_value_info("a", t[a.dtype], a.shape)]
    inits = [numpy_helper.from_array(np.array(za, a.dtype), "za"), numpy_helper.from_array(np.array(zb, b.dtype), "zb")]
    if const_b:
        inits.append(numpy_helper.from_array(b, "b"))
    else:
        inputs.append(helper.make_tensor_value_info("b", t[b.dtype], b.shape))
    node = helper.make_node("MatMulInteger", ["a", "b", "za", "zb"], ["y"])
    graph = helper.make_graph([node], "g", inputs, [helper.make_tensor_value_info("y", TensorProto.INT32, None)], inits)
    model = helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", 21)])
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.log_severity_level = 3
    s = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    feed = {"a": a} if const_b else {"a": a, "b": b}
    return lambda: s.run(None, feed)[0]


def line(what, t, t_base, base, n, goal=None):
    ratio = t_base / t
    g = f"  (goal >= {goal}x)" if goal else ""
    print(f"{what:<62} {2 * n**3 / t / 1e9:6.1f} GOPS {t * 1e3:7.1f} ms  {ratio:5.2f}x {base}{g}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2048)
    n = ap.parse_args().n
    one_thread()
    import onnxruntime

    from intdot.gemm import gemm
    from intdot.gemm.api import _pick
    from intdot.quant import matmul_integer

    rng = np.random.default_rng(0)
    a = rng.integers(0, 256, (n, n), dtype=np.uint8)
    b8 = rng.integers(-128, 128, (n, n), dtype=np.int8)
    bu = rng.integers(0, 256, (n, n), dtype=np.uint8)
    print(f"n = {n}, one thread each; CPU {cpu_flags()}; onnxruntime {onnxruntime.__version__}, numpy {np.__version__}")
    print(f"gemm's auto backend for this shape: {_pick('auto', a, b8, n**3)}")

    for b, zb, what in ((b8, -3, "uint8 x int8"), (bu, 130, "uint8 x uint8")):
        ops = ("usdot", "sdot4") if b.dtype == np.int8 else ("udot4", "sdot4")
        want = ort_matmul_integer(a, b, 7, zb, False)()
        for op in ops:
            got = matmul_integer(a, b, np.uint8(7), b.dtype.type(zb), op=op)
            exact = bool(np.array_equal(got, want))
            f_in, f_const = ort_matmul_integer(a, b, 7, zb, False), ort_matmul_integer(a, b, 7, zb, True)
            t_q, t_in, t_const = interleaved(
                lambda op=op, b=b, zb=zb: matmul_integer(a, b, np.uint8(7), b.dtype.type(zb), op=op), f_in, f_const
            )
            note = "" if exact else "  [ORT's result differs: its AVX2 kernel saturates pair sums]"
            goal = 1.0 if b.dtype == np.int8 else 2.0
            line(f"matmul_integer {what} op={op} vs ORT, B an input", t_q, t_in, "ORT", n, goal)
            line(
                f"matmul_integer {what} op={op} vs ORT, B constant (prepacked)",
                t_q,
                t_const,
                "ORT",
                n,
                0.5 if b.dtype == np.int8 else None,
            )
            if note:
                print(note)

    print("-- c broadcast: gemm(a, b, c) against gemm(a, b) in the same run")
    from intdot.gemm import _fused, cpu

    s = np.zeros((n, n), np.uint32)
    ac, za = cpu.centred(a)
    for shape, fused in (((n,), False), ((n, 1), False), ((n, 1), True)):
        c = rng.integers(-(2**31), 2**31, shape)
        # Before and after gemm's rent-or-buy switch to the compiled one-pass correction (intdot.gemm._fused).
        _fused._kernel[:] = [] if fused else [None]
        _fused._done[0] = _fused.SWITCH_AFTER if fused else 0
        t_c, t_plain = interleaved(lambda c=c: gemm(a, b8, c, op="usdot"), lambda: gemm(a, b8, op="usdot"), repeat=9)
        how = (" (compiled correction)" if _fused._kernel[0] else " (NumPy correction)") if len(shape) == 2 else ""
        print(
            f"gemm(op='usdot') with c of shape {shape}{how}: {t_c * 1e3:.1f} ms against {t_plain * 1e3:.1f} ms "
            f"without: {100 * (t_c / t_plain - 1):+.1f}% (goal <= +10%)"
        )
        # The work c adds, alone (whole-gemm times on a busy machine vary by more than it): the correction pass
        # with c folded in against the same pass without it.
        words = np.broadcast_to(c.astype(np.uint32), (n, n))
        t_with, t_without = interleaved(
            lambda w=words: cpu.correct32(s, ac, za, b8, 0, w), lambda: cpu.correct32(s, ac, za, b8, 0), repeat=9
        )
        print(
            f"  the correction pass with c folded in: {t_with * 1e3:.1f} ms against {t_without * 1e3:.1f} ms: "
            f"c adds {100 * (t_with - t_without) / t_plain:+.2f}% of the gemm's time"
        )


if __name__ == "__main__":
    main()
