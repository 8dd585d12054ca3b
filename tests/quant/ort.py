"""ONNX Runtime as a live oracle: one ONNX node built and run on the CPU, one thread.

ONNX Runtime's x86 kernel for uint8 x int8 products on a CPU without VNNI (AVX2) multiplies byte pairs with
``vpmaddubsw``, which saturates each pair's sum to int16: its result then differs from ONNX's definition
(``tests/quant/test_ort_kernels.py`` shows where, and why).  Its int8 x int8 and uint8 x uint8 kernels are
exact on every CPU, so :func:`exact` hands ONNX Runtime a mixed-sign node with the uint8 operand moved into
int8 (``x - 128``, with its zero point and, for a uint8 output, the output's moved too): the same function,
computed by ONNX Runtime's exact kernels.
"""

from __future__ import annotations

import os

import numpy as np

from ..oracles import arm_ort, missing

# Which ONNX Runtime the tests compare against: this machine's, or (INTDOT_ORT=arm, or arm:<QEMU CPU model> such
# as arm:neoverse-n1, or arm-sme) ONNX Runtime for AArch64 under qemu-user, whose kernels and defaults are Arm's
# (tests/oracles/arm_ort.py). make test runs tests/quant both ways; the Arm tests (arm=True) use it every time.
WHERE = os.environ.get("INTDOT_ORT", "host")

_TYPES = {
    "uint8": 2,
    "int8": 3,
    "uint16": 4,
    "int16": 5,
    "int32": 6,
    "float32": 1,
    "float16": 10,
    "uint4": 21,
    "int4": 22,
    "bool": 9,
}


def need():
    """onnx and onnxruntime (and, with INTDOT_ORT=arm, ONNX Runtime for AArch64), or skip (fail in CI) naming
    what brings them."""
    try:
        import onnx  # noqa: F401
        import onnxruntime  # noqa: F401
    except ImportError:
        missing("onnxruntime and onnx", "pip install 'intdot[onnx]' (make test installs them)")
    if on_arm():
        arm_ort.require(sme=platform() == "arm-sme")


def on_arm() -> bool:
    """Whether the tests compare against ONNX Runtime for AArch64 (INTDOT_ORT=arm, or arm-sme: on QEMU 11's max
    CPU, with SME)."""
    return WHERE.split(":")[0] in ("arm", "arm-sme")


def platform() -> str:
    """intdot's ``platform=`` for the ONNX Runtime the tests compare against: "x86", "arm" or "arm-sme"."""
    return WHERE.split(":")[0] if on_arm() else "x86"


def _elem(x: np.ndarray) -> int:
    return _TYPES[np.dtype(x.dtype).name]


def node_model(
    op_type: str,
    inputs: list,
    attrs: dict | None = None,
    out_type=None,
    opset: int = 21,
    const=(),
    cast=None,
    domain: str | None = None,
):
    """A one-node model; ``inputs`` are arrays or None (absent optional inputs); ``const``: indices that are
    initializers (constant, so ONNX Runtime may prepack them); ``cast``: an element type the output is cast to
    by a second node (ONNX Runtime's Python API returns no 4-bit arrays); ``domain``: the node's operator set
    (version 1 of it, as ``com.microsoft``'s contrib operators), else ONNX's."""
    from onnx import helper, numpy_helper

    names = [f"in{i}" if v is not None else "" for i, v in enumerate(inputs)]
    node = helper.make_node(op_type, names, ["y0" if cast else "y"], domain=domain, **(attrs or {}))
    graph_in, inits = [], []
    for i, (n, v) in enumerate(zip(names, inputs)):
        if v is None:
            continue
        if i in const:
            inits.append(numpy_helper.from_array(np.asarray(v), n))
        else:
            graph_in.append(helper.make_tensor_value_info(n, _elem(np.asarray(v)), np.shape(v)))
    nodes = [node] + ([helper.make_node("Cast", ["y0"], ["y"], to=cast)] if cast else [])
    out = helper.make_tensor_value_info("y", cast or (out_type if out_type is not None else 0), None)
    graph = helper.make_graph(nodes, op_type, graph_in, [out], initializer=inits)
    opsets = [helper.make_opsetid("", opset)] + ([helper.make_opsetid(domain, 1)] if domain else [])
    # IR 10 is what ONNX Runtimes older than the onnx package still load (opsets up to 22).
    return helper.make_model(graph, ir_version=10 if opset <= 22 else 11, opset_imports=opsets)


def session(model, int8_allowed=None, optimize=True, optimized_path=None, arm=False, neon=False, threads=1):
    """``model`` (a ModelProto, its bytes or a path) ready to run on one thread, by the ONNX Runtime the tests
    compare against (:data:`WHERE`), or with ``arm`` by ONNX Runtime for AArch64 (its default CPU) whatever
    :data:`WHERE` says. ``int8_allowed``: ``session.qdqisint8allowed`` (None: the platform's default, 0 on x86 and
    1 on Arm); ``optimize=False`` turns the graph optimizer off; ``optimized_path``: where to write the graph it
    runs; ``neon``: on Arm, a NEON-only CPU, the one ``platform="arm"`` names (QEMU's default CPU has SVE, whose
    Softmax kernel is ``platform="arm-sve512"``'s); ``threads``: its ``intra_op_num_threads``."""
    if not isinstance(model, (bytes, str, os.PathLike)):
        model = model.SerializeToString()
    entries = {} if int8_allowed is None else {"session.qdqisint8allowed": "1" if int8_allowed else "0"}
    if arm:
        return arm_ort.Session(model, None, entries, optimize, optimized_path, threads=threads)
    if on_arm():
        sme = platform() == "arm-sme"
        cpu = "neoverse-n1" if neon else WHERE.partition(":")[2] or None
        return arm_ort.Session(model, cpu, entries, optimize, optimized_path, sme, threads)
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.log_severity_level = 3
    for key, value in entries.items():
        so.add_session_config_entry(key, value)
    if not optimize:
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    if optimized_path is not None:
        so.optimized_model_filepath = str(optimized_path)
    return ort.InferenceSession(
        model if isinstance(model, bytes) else os.fspath(model), so, providers=["CPUExecutionProvider"]
    )


def run(op_type: str, inputs: list, attrs: dict | None = None, out_type=None, arm=False, **options):
    """The node's output computed by ONNX Runtime (with ``arm``, for AArch64: :func:`session`); ``options`` are
    :func:`node_model`'s (the inputs named in ``const`` are not fed)."""
    model = node_model(op_type, inputs, attrs, out_type, **options)
    const = options.get("const", ())
    feed = {f"in{i}": np.asarray(v) for i, v in enumerate(inputs) if v is not None and i not in const}
    return session(model, arm=arm).run(None, feed)[0]


def _down(x):
    """uint8 values (or None) moved into int8: x - 128."""
    return None if x is None else (np.asarray(x) ^ np.uint8(0x80)).view(np.int8)


def exact(op_type: str, inputs: list, attrs: dict | None = None, out_type=None):
    """As :func:`run`, with a uint8 x int8 node computed through ONNX Runtime's exact int8 x int8 kernels."""
    from onnx import TensorProto

    ins = list(inputs)
    # (first operand, its zero point, second operand, its zero point, output zero point) positions.
    where = {
        "MatMulInteger": (0, 2, 1, 3, None),
        "ConvInteger": (0, 2, 1, 3, None),
        "QLinearMatMul": (0, 2, 3, 5, 7),
        "QLinearConv": (0, 2, 3, 5, 7),
    }[op_type]
    x, zx, w, zw, zy = where
    kinds = {np.asarray(ins[x]).dtype, np.asarray(ins[w]).dtype}
    if kinds != {np.dtype(np.uint8), np.dtype(np.int8)}:
        return run(op_type, ins, attrs, out_type)
    moved_y = False
    for i, z in ((x, zx), (w, zw)):
        if np.asarray(ins[i]).dtype == np.uint8:
            ins[i] = _down(ins[i])
            ins[z] = _down(ins[z]) if ins[z] is not None else np.full(1, -128, np.int8)
    if zy is not None and np.asarray(ins[zy]).dtype == np.uint8:
        ins[zy], moved_y = _down(ins[zy]), True
        out_type = TensorProto.INT8
    y = run(op_type, ins, attrs, out_type)
    return (y.view(np.uint8) ^ np.uint8(0x80)) if moved_y else y


def saturates_u8s8() -> bool:
    """Whether ONNX Runtime's uint8 x int8 kernel saturates pair sums on this CPU (x86 without VNNI)."""
    from onnx import TensorProto

    a = np.array([[255, 255]], np.uint8)
    b = np.array([[127], [127]], np.int8)
    y = run("MatMulInteger", [a, b], out_type=TensorProto.INT32)
    return int(y[0, 0]) != 255 * 127 * 2
