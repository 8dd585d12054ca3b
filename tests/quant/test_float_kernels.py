"""The float operators a quantized model leaves in float (Sigmoid, Tanh, Softmax) against ONNX Runtime's kernels, bit
for bit: one node at a time over sizes that reach each kernel's vector tails, values that reach its clamps, and
whole models through ``run``.

On Arm, ONNX Runtime picks an SVE Softmax kernel on CPUs with SVE (QEMU's default CPU has it): the NEON Softmax
tests run ONNX Runtime for AArch64 on a Neoverse N1 (NEON only), and the SVE ones on QEMU's max CPU at each vector
length (``platform="arm-sve128"`` ... ``"arm-sve512"``)."""

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from intdot import quant
from intdot.quant import float_kernels

from ..oracles import arm_ort
from . import ort

F32 = np.float32
NEON_CPU = "neoverse-n1"


def _node_model(op, shape, opset=13, **attrs):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)
    graph = helper.make_graph([helper.make_node(op, ["x"], ["y"], **attrs)], "g", [x], [y])
    return helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", opset)])


def _session(model, neon=False):
    """ONNX Runtime's session; with ``neon``, on Arm, on a CPU without SVE."""
    if neon and ort.on_arm():
        return arm_ort.Session(model.SerializeToString(), NEON_CPU, sme=ort.platform() == "arm-sme")
    return ort.session(model)


def _same(got, want, what):
    """Bit for bit, NaNs alike wherever they are (their payloads are not the operators' concern)."""
    assert got.dtype == want.dtype and got.shape == want.shape, what
    nan = np.isnan(want)
    assert np.array_equal(nan, np.isnan(got)), what
    bad = (got.view(np.uint32) != want.view(np.uint32)) & ~nan
    assert not bad.any(), (what, np.flatnonzero(bad)[:5], got[bad][:5], want[bad][:5])


def _elementwise_inputs(n, seed):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(n) * rng.choice([0.01, 0.3, 1, 4, 12, 40], n)).astype(F32)
    special = np.array([0.0, -0.0, 8.99, 9.0, 9.01, -9.0, 17.99, 18.0, 18.5, -18.0, -18.5, 1e-40, -1e-40, 1e30, -1e30,
                        np.inf, -np.inf, np.nan], F32)  # fmt: skip
    x[: min(n, special.size)] = special[: min(n, special.size)]
    near = np.arange(F32(17).view(np.int32), F32(18).view(np.int32), 977, dtype=np.int32).view(F32)
    return np.concatenate([x, near[: n // 2]]) if n > 40 else x


_ELEMENTWISE = {
    "Sigmoid": (13, {}, lambda x, p: float_kernels.logistic(x, p)),
    "Tanh": (13, {}, lambda x, p: float_kernels.tanh(x)),
    "Erf": (13, {}, lambda x, p: float_kernels.erf(x)),
    "Gelu": (20, {}, lambda x, p: float_kernels.gelu(x, "none", p)),
    "Gelu-tanh": (20, {"approximate": "tanh"}, lambda x, p: float_kernels.gelu(x, "tanh", p)),
    "Exp": (13, {}, lambda x, p: float_kernels.exp(x, p)),
    "HardSigmoid": (13, {}, lambda x, p: float_kernels.hard_sigmoid(x, platform=p)),
    "HardSigmoid-0.3-0.4": (13, {"alpha": 0.3, "beta": 0.4}, lambda x, p: float_kernels.hard_sigmoid(x, 0.3, 0.4, p)),
}


@pytest.mark.parametrize("op", list(_ELEMENTWISE))
@pytest.mark.parametrize("n", [1, 3, 4, 7, 8, 9, 15, 16, 17, 31, 33, 4099])
def test_elementwise_as_onnx_runtime(op, n):
    ort.need()
    opset, attrs, ours = _ELEMENTWISE[op]
    x = _elementwise_inputs(n, seed=n)
    model = _node_model(op.split("-")[0], [x.size], opset, **attrs)
    want = _session(model, neon=op == "Exp").run(None, {"x": x})[0]  # SVE has an Exp of its own (below)
    _same(ours(x, "arm" if ort.on_arm() else "x86"), want, (op, n))


def _exp_inputs(rng):
    """Exp's clamps and overflow: [-110, -80] (MLAS clamps at -103.97, SVE's kernel gives 0 below -86.64), [80, 95]
    (inf past 88.72; SVE's kernel past 88.37), the edges themselves, and random values of every scale."""
    edges = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 88.37, 88.3701, 88.72283, 88.72284, 88.7762, 88.7763,
             89.0, -86.64, -86.6401, -87.33654, -88.3763, -103.97208, -103.9721, -104.0, -150.0]  # fmt: skip
    parts = [np.linspace(-110, -80, 3001), np.linspace(80, 95, 1501), edges, rng.standard_normal(3000) * 30]
    return np.concatenate(parts).astype(F32)


def test_exp_ranges_as_onnx_runtime():
    """This machine's kernel (x86 AVX-512F: vscalefps; Arm NEON: 2**m' as two factors) at its clamps."""
    ort.need()
    x = _exp_inputs(np.random.default_rng(3))
    want = _session(_node_model("Exp", [x.size]), neon=True).run(None, {"x": x})[0]
    _same(float_kernels.exp(x, "arm" if ort.on_arm() else "x86"), want, "exp")


@pytest.mark.parametrize("bits", [128, 256, 512])
def test_exp_on_sve_as_onnx_runtime(bits):
    """ONNX Runtime's SVE Exp (Arm Compute Library's polynomial, its own overflow and underflow points) at every
    tail length, and a tensor of one element, which goes to the C library's expf."""
    arm_ort.require()
    cpu = f"max,sme=off,sve-default-vector-length={bits // 8}"
    rng = np.random.default_rng(bits)
    for x in (_exp_inputs(rng), *(_exp_inputs(rng)[:n] for n in (1, 2, 3, 5, 17))):
        want = arm_ort.Session(_node_model("Exp", [x.size]).SerializeToString(), cpu).run(None, {"x": x})[0]
        _same(float_kernels.exp(x, f"arm-sve{bits}"), want, (bits, x.size))


def _softmax_rows(rng, rows, d):
    scale = rng.choice([0.3, 3, 20, 80])
    x = (rng.standard_normal((rows, d)) * scale).astype(F32)
    if d > 2:
        x[0, :] = x[0, 0]  # a row of equal values
        x[-1, 1] = -np.inf
        x[-1, 2] = x[-1].max() - F32(95)  # past the Arm kernel's clamp at -88.38, not x86's at -103.97
    return x


@pytest.mark.parametrize("d", [*range(1, 51), 63, 64, 65, 95, 96, 97, 100, 255, 1000])
def test_softmax_rows_as_onnx_runtime(d):
    ort.need()
    rng = np.random.default_rng(d)
    x = _softmax_rows(rng, 5, d)
    want = _session(_node_model("Softmax", [5, d], axis=-1), neon=True).run(None, {"x": x})[0]
    _same(float_kernels.softmax_rows(x, "arm" if ort.on_arm() else "x86"), want, d)


@pytest.mark.parametrize("d", [1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33, 64, 65, 100, 1000])
def test_log_softmax_rows_as_onnx_runtime(d):
    """LogSoftmax: the same sums, then ``(x - max) - logf(sum)`` by the C library's logf."""
    ort.need()
    x = _softmax_rows(np.random.default_rng(d + 100), 5, d)
    want = _session(_node_model("LogSoftmax", [5, d], axis=-1), neon=True).run(None, {"x": x})[0]
    _same(float_kernels.softmax_rows(x, "arm" if ort.on_arm() else "x86", log=True), want, d)


def test_softmax_exp_underflow_as_onnx_runtime():
    """Differences from the maximum down to -110, where the kernels' clamps and the 2**m scale meet subnormals."""
    ort.need()
    x = np.linspace(0, -110, 4001, dtype=F32).reshape(1, -1)
    x = np.concatenate([x, x[:, ::-1], (x * F32(0.8)).astype(F32)])
    want = _session(_node_model("Softmax", list(x.shape), axis=1), neon=True).run(None, {"x": x})[0]
    _same(float_kernels.softmax_rows(x, "arm" if ort.on_arm() else "x86"), want, "underflow")


@pytest.mark.parametrize(
    "shape, opset, axis",
    [((2, 3, 4), 11, None), ((2, 3, 4), 11, 0), ((2, 3, 4), 11, 2), ((2, 3, 4), 11, -1), ((3, 5, 7), 12, 1),
     ((2, 3, 4), 13, None), ((2, 3, 4), 13, 0), ((2, 3, 4), 13, 1), ((2, 37, 3), 13, -2), ((1, 4, 5, 6), 13, 1),
     ((6,), 13, 0), ((6,), 11, 0), ((4, 1), 13, 1)],
)  # fmt: skip
def test_softmax_axes_through_run(shape, opset, axis):
    """Up to opset 12 the input is flattened to 2-D at the axis; from 13 on one axis is taken (onnx.reference
    takes one axis at every version, and its axis 0 as the default)."""
    ort.need()
    x = (np.random.default_rng(len(shape) + opset).standard_normal(shape) * 4).astype(F32)
    model = _node_model("Softmax", list(shape), opset=opset, **({} if axis is None else {"axis": axis}))
    want = _session(model, neon=True).run(None, {"x": x})[0]
    _same(quant.run(model, x, op="sdot4", platform=ort.platform())["y"], want, (shape, opset, axis))


@pytest.mark.parametrize("bits", [128, 256, 512])
def test_softmax_on_sve_as_onnx_runtime(bits):
    """ONNX Runtime for AArch64 on a CPU with SVE of ``bits`` (QEMU's max CPU at that vector length) runs its SVE
    Softmax kernel: ``platform="arm-sve<bits>"``, every row length to 40 and past two vectors."""
    arm_ort.require()
    rng = np.random.default_rng(bits)
    cpu = f"max,sme=off,sve-default-vector-length={bits // 8}"
    for d in [*range(1, 41), 63, 64, 65, 127, 128, 129, 300]:
        x = _softmax_rows(rng, 3, d)
        model = _node_model("Softmax", [3, d], axis=-1)
        want = arm_ort.Session(model.SerializeToString(), cpu).run(None, {"x": x})[0]
        _same(float_kernels.softmax_rows(x, f"arm-sve{bits}"), want, (bits, d))


@pytest.mark.parametrize("bits", [128, 512])
def test_log_softmax_on_sve_as_onnx_runtime(bits):
    arm_ort.require()
    rng = np.random.default_rng(bits + 1)
    cpu = f"max,sme=off,sve-default-vector-length={bits // 8}"
    for d in (1, 3, 4, 5, 17, 33, 65, 300):
        x = _softmax_rows(rng, 3, d)
        want = arm_ort.Session(_node_model("LogSoftmax", [3, d], axis=-1).SerializeToString(), cpu).run(None, {"x": x})
        _same(float_kernels.softmax_rows(x, f"arm-sve{bits}", log=True), want[0], (bits, d))


def _quantized_tail_model(op_chain, n=24):
    """uint8 codes -> DequantizeLinear -> the float operators in ``op_chain`` -> a float output: ONNX Runtime runs
    the float operators with its float kernels (no QuantizeLinear follows, so nothing fuses)."""
    nodes = [helper.make_node("DequantizeLinear", ["q", "s", "z"], ["t0"])]
    for i, op in enumerate(op_chain):
        src, dst = f"t{i}", f"t{i + 1}"
        if op == "Swish":  # x * Sigmoid(x): ONNX Runtime's optimizer makes it one QuickGelu node
            nodes += [helper.make_node("Sigmoid", [src], [f"g{i}"]), helper.make_node("Mul", [src, f"g{i}"], [dst])]
        else:
            nodes.append(helper.make_node(op, [src], [dst], **({"axis": -1} if "Softmax" in op else {})))
    out = f"t{len(op_chain)}"
    inits = [numpy_helper.from_array(np.array(0.07, F32), "s"), numpy_helper.from_array(np.array(120, np.uint8), "z")]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("q", TensorProto.UINT8, [3, n])],
        [helper.make_tensor_value_info(out, TensorProto.FLOAT, [3, n])],
        inits,
    )
    return helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize(
    "chain",
    [["Sigmoid"], ["Tanh"], ["Softmax"], ["Swish"], ["Tanh", "Softmax"], ["Swish", "Softmax"], ["Exp"], ["LogSoftmax"]],
)
def test_quantized_float_tail_through_run(chain):
    ort.need()
    model = _quantized_tail_model(chain)
    rng = np.random.default_rng(len(chain))
    for n in range(4):
        q = rng.integers(0, 256, (3, 24), dtype=np.uint8)
        want = _session(model, neon=any(op in ("Softmax", "LogSoftmax", "Exp") for op in chain)).run(None, {"q": q})[0]
        got = quant.run(model, q, op="sdot4", platform=ort.platform())
        _same(next(iter(got.values())), want, (chain, n))


def _pool_model(op, shape, declared=None, **attrs):
    """One pooling node; ``declared``: the input shape the graph states (ONNX Runtime's x86 NCHWc transformer
    takes a 4-D input whose channel count it knows to be a multiple of 16)."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, declared if declared is not None else shape)
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    graph = helper.make_graph([helper.make_node(op, ["x"], ["y"], **attrs)], "g", [x], [y])
    return helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize("channels", [1, 3, 8, 16, 32])
@pytest.mark.parametrize("spatial", [(1,), (7,), (2, 3), (5, 13), (7, 7), (9, 9), (3, 4, 5)])
def test_global_average_pool_through_run(channels, spatial):
    ort.need()
    shape = (2, channels, *spatial)
    x = (np.random.default_rng(channels + sum(spatial)).standard_normal(shape) * 3).astype(F32)
    declarations = [shape] + ([("n", "c", *spatial)] if len(spatial) == 2 and channels % 16 == 0 else [])
    for declared in declarations:  # a symbolic channel count keeps MLAS's plain kernel
        model = _pool_model("GlobalAveragePool", list(shape), declared)
        want = _session(model).run(None, {"x": x})[0]
        _same(quant.run(model, x, op="sdot4", platform=ort.platform())["y"], want, (shape, declared))


def _average_pool_cases(n, seed):
    rng = np.random.default_rng(seed)
    for k in range(n):
        d = (1, 2, 2, 2, 3)[k % 5]
        channels = (3, 16)[k // 5 % 2]
        spatial = [int(v) for v in rng.integers(2, 10 if d < 3 else 6, d)]
        kernel = [int(rng.integers(1, min(s, 5) + 1)) for s in spatial]
        attrs = {"kernel_shape": kernel, "strides": [int(v) for v in rng.integers(1, 4, d)]}
        attrs["count_include_pad"] = int(rng.integers(0, 2))
        style = k // 10 % 4
        if style == 0:
            attrs["pads"] = [int(rng.integers(0, q)) for q in kernel] + [int(rng.integers(0, q)) for q in kernel]
        elif style == 1:  # SAME with a kernel smaller than its stride pads negatively: not covered
            attrs["auto_pad"] = ("SAME_UPPER", "SAME_LOWER", "VALID")[k % 3]
            attrs["strides"] = [min(s, q) for s, q in zip(attrs["strides"], kernel)]
        elif style == 2:
            attrs["kernel_shape"], attrs["strides"] = spatial, [1] * d  # the window is the whole input
        x = (rng.standard_normal((2, channels, *spatial)) * 3).astype(F32)
        yield x, attrs


@pytest.mark.parametrize("part", range(4))
def test_average_pool_through_run(part):
    """1 to 3 spatial axes, pads given or from auto_pad, strides 1 to 3 (MLAS's vector kernels take a last stride
    up to 2, its generic ones the rest), 3 channels and 16 (x86's NCHWc kernel), windows as large as the input."""
    ort.need()
    for x, attrs in list(_average_pool_cases(160, seed=3))[part::4]:
        model = _pool_model("AveragePool", list(x.shape), **attrs)
        want = _session(model).run(None, {"x": x})[0]
        _same(quant.run(model, x, op="sdot4", platform=ort.platform())["y"], want, (x.shape, attrs))


def _gelu_chain(pattern, opset=17, sqrt2=1.4142135, half=0.5, one=1.0, output_inside=False):
    """PyTorch's GELU before opset 20, ``x / sqrt(2) -> Erf -> + 1``, then ``* (x * 0.5)`` ("inner") or ``* x``
    and ``* 0.5`` ("outer"), or with ``* (1 / sqrt(2))`` in place of the Div ("mul"); ``output_inside``: the Erf's
    output is a graph output too."""
    consts = {"c": np.array(sqrt2, F32), "one": np.array([one], F32), "half": np.array(half, F32)}
    nodes = [helper.make_node("Mul" if pattern == "mul" else "Div", ["x", "c"], ["d"]),
             helper.make_node("Erf", ["d"], ["e"]), helper.make_node("Add", ["one", "e"], ["a"])]  # fmt: skip
    if pattern == "inner":
        nodes += [helper.make_node("Mul", ["half", "x"], ["h"]), helper.make_node("Mul", ["a", "h"], ["y"])]
    else:
        nodes += [helper.make_node("Mul", ["x", "a"], ["m"]), helper.make_node("Mul", ["m", "half"], ["y"])]
    if pattern == "mul":
        consts["c"] = np.array(1 / sqrt2, F32)
    outs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, [64])]
    if output_inside:
        outs.append(helper.make_tensor_value_info("e", TensorProto.FLOAT, [64]))
    inits = [numpy_helper.from_array(v, k) for k, v in consts.items()]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [64])], outs, inits)
    return helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", opset)])


@pytest.mark.parametrize(
    "kw",
    [{"pattern": "inner"}, {"pattern": "outer"}, {"pattern": "inner", "opset": 20}, {"pattern": "outer", "opset": 13},
     {"pattern": "mul"}, {"pattern": "inner", "sqrt2": 1.41423}, {"pattern": "inner", "sqrt2": 1.4143},
     {"pattern": "outer", "half": 0.5001}, {"pattern": "inner", "one": 1.00001}, {"pattern": "inner", "one": 1.0001},
     {"pattern": "inner", "output_inside": True}],
)  # fmt: skip
def test_gelu_fusion_as_onnx_runtime(kw, tmp_path):
    """Where ONNX Runtime's GeluFusion makes the chain one Gelu node and where it leaves it (its optimized graph
    says which), run gives its bits."""
    ort.need()
    model = _gelu_chain(**kw)
    x = (np.random.default_rng(5).standard_normal(64) * 2).astype(F32)
    optimized = tmp_path / "optimized.onnx"
    want = ort.session(model, optimized_path=optimized).run(None, {"x": x})
    got = quant.run(model, x, op="sdot4", platform=ort.platform())
    for (name, value), w in zip(got.items(), want):
        _same(value, w, (kw, name))
    import onnx

    theirs = any(n.op_type == "Gelu" for n in onnx.load(optimized).graph.node)
    ours = any(n.op_type == "Gelu" for n in quant.prepare(model, platform=ort.platform()).model.graph.node)
    assert ours == theirs, (kw, theirs)


@pytest.mark.parametrize("op", ["Gelu", "BiasGelu", "QuickGelu"])
def test_microsoft_gelu_nodes_as_onnx_runtime(op):
    """ONNX Runtime's own Gelu nodes, as its optimizer writes them into the models it saves."""
    ort.need()
    rng = np.random.default_rng(len(op))
    x = (rng.standard_normal((3, 40)) * 3).astype(F32)
    ins, inits, attrs = ["x"], [], {}
    if op == "BiasGelu":
        ins.append("b")
        inits.append(numpy_helper.from_array((rng.standard_normal(40)).astype(F32), "b"))
    if op == "QuickGelu":
        attrs["alpha"] = 1.5
    node = helper.make_node(op, ins, ["y"], domain="com.microsoft", **attrs)
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 40])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 40])], inits,
    )  # fmt: skip
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
    model = helper.make_model(graph, ir_version=10, opset_imports=opsets)
    want = _session(model).run(None, {"x": x})[0]
    _same(quant.run(model, x, op="sdot4", platform=ort.platform())["y"], want, op)


# platform="x86-avx2": this machine's ONNX Runtime on QEMU's Haswell CPU (AVX2 and FMA3, no AVX-512), where MLAS
# picks its FMA3 Softmax kernel and an NCHWc block of 8 (tests/oracles/x86_ort.py).


def _avx2(model):
    from ..oracles import x86_ort

    return x86_ort.Session(model.SerializeToString())


def test_x86_avx2_float_operators_as_onnx_runtime():
    """Softmax over row lengths past each vector tail, the elementwise operators, and pools whose channel count is
    a multiple of 8 but not 16 (NCHWc only without AVX-512F) and of 16, through run and against the kernels."""
    from ..oracles import x86_ort

    x86_ort.require()
    rng = np.random.default_rng(11)
    for d in (1, 3, 7, 8, 9, 23, 24, 25, 47, 100):
        x = _softmax_rows(rng, 4, d)
        want = _avx2(_node_model("Softmax", [4, d], axis=-1)).run(None, {"x": x})[0]
        _same(float_kernels.softmax_rows(x, "x86-avx2"), want, ("softmax", d))
        want = _avx2(_node_model("LogSoftmax", [4, d], axis=-1)).run(None, {"x": x})[0]
        _same(float_kernels.softmax_rows(x, "x86-avx2", log=True), want, ("log softmax", d))
        if d == 25:  # the AVX-512F kernel sums these apart: the platforms are told apart
            assert not np.array_equal(float_kernels.softmax_rows(x, "x86").view(np.uint32), want.view(np.uint32))
    x = np.concatenate([_elementwise_inputs(999, seed=5), _exp_inputs(rng)])
    for op, (opset, attrs, ours) in _ELEMENTWISE.items():
        want = _avx2(_node_model(op.split("-")[0], [x.size], opset, **attrs)).run(None, {"x": x})[0]
        _same(ours(x, "x86-avx2"), want, op)
    for channels in (8, 16, 24):
        x = (rng.standard_normal((2, channels, 7, 9)) * 3).astype(F32)
        for op, attrs in (("GlobalAveragePool", {}), ("AveragePool", {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]})):
            model = _pool_model(op, list(x.shape), **attrs)
            want = _avx2(model).run(None, {"x": x})[0]
            _same(quant.run(model, x, op="sdot4", platform="x86-avx2")["y"], want, (op, channels))


def test_a_gelu_chain_on_a_dequantized_value_is_not_fused(tmp_path):
    """ONNX Runtime gives each reader of a DequantizeLinear its own copy before its GeluFusion: the chain's Div
    and Mul then read two values, and it stays as written (so does run's)."""
    ort.need()
    model = _gelu_chain("inner")
    graph = model.graph
    graph.input[0].name = "q"
    graph.input[0].type.tensor_type.elem_type = TensorProto.UINT8
    inits = [numpy_helper.from_array(np.array(0.05, F32), "qs"), numpy_helper.from_array(np.array(128, np.uint8), "qz")]
    graph.initializer.extend(inits)
    graph.node.insert(0, helper.make_node("DequantizeLinear", ["q", "qs", "qz"], ["x"]))
    q = np.random.default_rng(2).integers(0, 256, 64, dtype=np.uint8)
    optimized = tmp_path / "optimized.onnx"
    want = ort.session(model, optimized_path=optimized).run(None, {"q": q})[0]
    _same(quant.run(model, q, op="sdot4", platform=ort.platform())["y"], want, "dq gelu")
    import onnx

    assert not any(n.op_type == "Gelu" for n in onnx.load(optimized).graph.node)
    assert not any(n.op_type == "Gelu" for n in quant.prepare(model, platform=ort.platform()).model.graph.node)
