"""The float32 modelling under intdot.quant: ``fma32`` (one rounding, built from float64 steps) against its exact
fallback taken for every element, MatMulNBits and GroupQueryAttention at a language model's layer size, and float
Conv at a ResNet-50 layer's (x86's NCHWc kernels), against ONNX Runtime's own kernels, timed interleaved in the same
run (best of several).

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
    _gqa(rng)
    _conv(rng)


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


def _gqa(rng) -> None:
    """GroupQueryAttention as a 1B-parameter model's layer has it (32 query heads, 8 K/V heads of 64): one decode
    step after 1,023 cached positions, and a prompt of 256 from an empty cache, with rotary."""
    try:
        import onnxruntime as ort
        from onnx import TensorProto, helper, numpy_helper
    except ImportError:
        print("GroupQueryAttention: onnx and onnxruntime are not installed (pip install 'intdot[onnx]')")
        return
    from intdot.quant.group_query_attention import group_query_attention

    heads, kv_heads, head = 32, 8, 64
    angles = np.arange(2048)[:, None] / 10000.0 ** (np.arange(0, head, 2) / head)
    cos, sin = np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)
    names = ["q", "k", "v", "pk", "pv", "seqlens_k", "total", "cos", "sin"]
    node = helper.make_node("GroupQueryAttention", names, ["y", "present_k", "present_v"], domain="com.microsoft",
                            num_heads=heads, kv_num_heads=kv_heads, do_rotary=1)  # fmt: skip
    kinds = {"seqlens_k": TensorProto.INT32, "total": TensorProto.INT32}
    ins = [helper.make_tensor_value_info(n, kinds.get(n, TensorProto.FLOAT), None) for n in names[:7]]
    outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in ("y", "present_k", "present_v")]
    inits = [numpy_helper.from_array(cos, "cos"), numpy_helper.from_array(sin, "sin")]
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
    model = helper.make_model(helper.make_graph([node], "gqa", ins, outs, inits), ir_version=10, opset_imports=opsets)
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    for what, s, past in (("decode step after 1023", 1, 1023), ("prompt of 256         ", 256, 0)):
        feeds = {"q": rng.standard_normal((1, s, heads * head)).astype(np.float32),
                 **{t: rng.standard_normal((1, s, kv_heads * head)).astype(np.float32) for t in "kv"},
                 **{t: rng.standard_normal((1, kv_heads, past, head)).astype(np.float32) for t in ("pk", "pv")},
                 "seqlens_k": np.array([past + s - 1], np.int32), "total": np.array(past + s, np.int32)}  # fmt: skip
        args = [feeds[n] for n in names[:7]] + [cos, sin]
        ours, theirs = interleaved(
            lambda args=args: group_query_attention(*args, num_heads=heads, kv_num_heads=kv_heads, do_rotary=1),
            lambda feeds=feeds: session.run(None, feeds),
            repeat=3,
        )
        print(f"GroupQueryAttention 32/8 heads of 64, {what} {ours * 1e3:8.1f} ms  {theirs / ours:7.4f}x ONNX "
              f"Runtime ({theirs * 1e3:.2f} ms)")  # fmt: skip


def _conv(rng) -> None:
    """Float Convs of ResNet-50's second stage (56 x 56): a 3x3 of 64 channels and a pointwise 256 -> 64, with a
    bias, through x86's NCHWc kernels as intdot models them (``intdot.quant.nchwc.conv``: compiled by numba where
    the ``fast`` extra is installed, on its threads, and ONNX Runtime then on as many) and as ONNX Runtime runs them
    (its NCHWc layout, reorders included)."""
    try:
        import onnxruntime as ort
        from onnx import TensorProto, helper, numpy_helper
    except ImportError:
        print("Conv: onnx and onnxruntime are not installed (pip install 'intdot[onnx]')")
        return
    from intdot.quant.nchwc import conv

    try:  # the compiled kernel spreads the output channels over numba's threads: ONNX Runtime gets as many
        import numba

        threads = numba.get_num_threads()
    except ImportError:
        threads = 1
    for what, c, k, kind in (("3x3, 64 -> 64      ", 64, 3, "nchwc"), ("1x1, 256 -> 64     ", 256, 1, "pointwise")):
        x = rng.standard_normal((1, c, 56, 56)).astype(np.float32)
        w = rng.standard_normal((64, c, k, k)).astype(np.float32)
        b = rng.standard_normal(64).astype(np.float32)
        node = helper.make_node("Conv", ["x", "w", "b"], ["y"], kernel_shape=[k, k], pads=[k // 2] * 4)
        graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                                  [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])  # fmt: skip
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        model = helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", 17)])
        session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
        options = {"kind": kind, "pads": (k // 2,) * 4, "strides": (1, 1), "dilations": (1, 1)}
        ours, theirs = interleaved(
            lambda x=x, w=w, b=b, options=options: conv(x, w, b, **options),
            lambda x=x, session=session: session.run(None, {"x": x}),
            repeat=3,
        )
        print(f"Conv {what} 56 x 56, NCHWc, {threads} thread(s)   {ours * 1e3:8.1f} ms  {theirs / ours:7.4f}x ONNX "
              f"Runtime ({theirs * 1e3:.2f} ms)")  # fmt: skip


if __name__ == "__main__":
    main()
