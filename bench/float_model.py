"""The float32 modelling under intdot.quant: ``fma32`` (one rounding, built from float64 steps) against its exact
fallback taken for every element, and MatMulNBits at a language model's layer size against ONNX Runtime's own
kernel, timed interleaved in the same run (best of several).

    .venv/bin/python bench/float_model.py [--k 4096] [--n 4096]

A ratio above 1 means the first is faster.  ONNX Runtime runs its compiled kernels on one thread; intdot models
them in NumPy, bit for bit: the ratio says how much slower the golden model is than the kernel it models.
"""

from __future__ import annotations

import argparse
import os

import numpy as np
from timing import interleaved


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k", type=int, default=4096)
    ap.add_argument("--n", type=int, default=4096)
    args = ap.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    from intdot.quant.fma import _fma32_exact, fma32

    rng = np.random.default_rng(0)
    a, c = (rng.standard_normal((64, 4096)).astype(np.float32) for _ in "ac")
    b = rng.standard_normal(4096).astype(np.float32)
    fast, exact = interleaved(lambda: fma32(a, b, c), lambda: _fma32_exact(a, b, c))
    print(f"fma32, 64 x 4096                              {fast * 1e3:8.2f} ms  {exact / fast:5.1f}x the exact path")
    _nbits(args.k, args.n, rng)


def _nbits(k: int, n: int, rng) -> None:
    try:
        import onnxruntime as ort
        from onnx import TensorProto, helper, numpy_helper
    except ImportError:
        print("MatMulNBits: onnx and onnxruntime are not installed (pip install 'intdot[onnx]')")
        return
    from intdot.quant import matmul_nbits

    block = 32
    b = rng.integers(0, 256, (n, k // block, block // 2), dtype=np.uint8)
    scales = (rng.random(n * (k // block)) * 0.02).astype(np.float32)
    for level in (0, 4):
        node = helper.make_node("MatMulNBits", ["a", "b", "s"], ["y"], domain="com.microsoft", K=k, N=n, bits=4,
                                block_size=block, accuracy_level=level)  # fmt: skip
        graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("a", TensorProto.FLOAT, None)],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                                  [numpy_helper.from_array(b, "b"), numpy_helper.from_array(scales, "s")])  # fmt: skip
        opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        model = helper.make_model(graph, ir_version=10, opset_imports=opsets).SerializeToString()
        session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
        for rows in (1, 16):
            x = rng.standard_normal((rows, k)).astype(np.float32)
            ours, theirs = interleaved(
                lambda x=x, level=level: matmul_nbits(x, b, scales, k=k, n=n, bits=4, block_size=block,
                                                      accuracy_level=level),
                lambda x=x, session=session: session.run(None, {"a": x}),
                repeat=3,
            )  # fmt: skip
            print(f"MatMulNBits {k} x {n}, {rows:2d} rows, accuracy_level={level}  {ours * 1e3:8.1f} ms  "
                  f"{theirs / ours:7.4f}x ONNX Runtime ({theirs * 1e3:.2f} ms)")  # fmt: skip


if __name__ == "__main__":
    main()
