"""Float32 Conv on x86 against ONNX Runtime, bit for bit: the Convs its NCHWc layout transformer takes, in MLAS's
NCHWc kernels (blocks of 16 input channels, 128 for a pointwise Conv, one for fewer channels than a block, each
channel alone for a depthwise one), the ones it leaves in MLAS's own convolution, and the nodes it fuses around
them (a BatchNormalization or a per-channel Mul made depthwise Convs, an Add made a Conv's starting output).

Which nodes it takes is checked against the graph ONNX Runtime writes out (``optimized_model_filepath``), the
values against its outputs; with ``INTDOT_ORT=arm`` the same graphs against ONNX Runtime for AArch64, which has no
NCHWc layout (``platform="arm"``).  QEMU's Haswell CPU (``x86-avx2``) has a block of 8."""

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from intdot import quant
from intdot.quant.nchwc import DOMAIN

from . import ort
from .test_float_kernels import _same

F32 = np.float32


def _model(nodes, weights, x_shape, outputs=("out",)):
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
                              [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outputs],
                              [numpy_helper.from_array(v, k) for k, v in weights.items()])  # fmt: skip
    return helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", 13)])


def _onnx_runtime_convs(model, tmp_path):
    """(NCHWc Convs, those of them that start from an Add's operand) in the graph ONNX Runtime runs."""
    path = tmp_path / "optimized.onnx"
    ort.session(model, optimized_path=path)
    nodes = [n for n in onnx.load(path).graph.node if n.op_type == "Conv" and n.domain == "com.microsoft.nchwc"]
    return len(nodes), sum(len(n.input) > 3 and bool(n.input[3]) for n in nodes)


def _intdot_convs(model, platform="x86"):
    nodes = [n for n in quant.prepare(model, platform=platform).model.graph.node if n.domain == DOMAIN]
    return len(nodes), sum(bool(n.input[-1]) for n in nodes)


def _check(model, x, tmp_path, what):
    ort.need()
    want = ort.session(model).run(None, {"x": x})
    got = quant.run(model, x, op="sdot4", platform=ort.platform())
    for name, w in zip((o.name for o in model.graph.output), want):
        _same(got[name], w, (what, name))
    if not ort.on_arm():
        assert _intdot_convs(model) == _onnx_runtime_convs(model, tmp_path), what


def _conv_cases(rng, count):
    """Random 2-D Convs around the transformer's conditions: channel counts under, at and past a block (and not a
    multiple of 4), groups and depthwise ones, 1x1 kernels with and without pads, strides, dilations, asymmetric
    pads, SAME, pads past the kernel, a kernel past the input."""
    cases = []
    while len(cases) < count:
        c = int(rng.choice([1, 3, 8, 12, 15, 16, 17, 20, 24, 32, 33, 48, 64, 136, 160]))
        m = int(rng.choice([1, 4, 16, 17, 24, 32, 40]))
        group = 1
        if rng.random() < 0.25:
            c = m = int(rng.choice([8, 16, 24, 32]))
            group = c if rng.random() < 0.7 else 2  # depthwise, or two groups of whole blocks
        k = [int(rng.choice([1, 1, 2, 3, 5])), int(rng.choice([1, 1, 3, 4]))]
        attrs = {"kernel_shape": k, "group": group, "strides": [int(rng.choice([1, 1, 2])) for _ in k],
                 "dilations": [int(rng.choice([1, 1, 1, 2])) for _ in k]}  # fmt: skip
        if rng.random() < 0.2 and max(attrs["dilations"]) == 1:
            attrs["auto_pad"] = str(rng.choice(["SAME_UPPER", "SAME_LOWER", "VALID"]))
        else:
            attrs["pads"] = [int(rng.choice([0, 0, 1, 2, 4])) for _ in range(4)]
        size = [int(rng.integers(max(2, kk - 2), 12)) for kk in k]
        pads = attrs.get("pads", [0] * 4) if attrs.get("auto_pad", "NOTSET") in ("NOTSET", "VALID") else [9] * 4
        if any(s + pads[i] + pads[i + 2] < (kk - 1) * d + 1
               for i, (s, kk, d) in enumerate(zip(size, k, attrs["dilations"]))):  # fmt: skip
            continue  # no output
        cases.append(([int(rng.integers(1, 3)), c, *size], [m, c // group, *k], attrs, rng.random() < 0.75))
    return cases


def _conv_model(rng, x_shape, w_shape, attrs, bias):
    weights = {"w": rng.standard_normal(w_shape).astype(F32)}
    if bias:
        weights["b"] = rng.standard_normal(w_shape[0]).astype(F32)
    node = helper.make_node("Conv", ["x", "w"] + (["b"] if bias else []), ["out"], **attrs)
    return _model([node], weights, x_shape)


@pytest.mark.parametrize("seed", [0, 1])
def test_convs_in_and_out_of_the_nchwc_layout(seed, tmp_path):
    rng = np.random.default_rng(seed)
    for case in _conv_cases(rng, 24):
        x = (rng.standard_normal(case[0]) * 2).astype(F32)
        _check(_conv_model(rng, *case), x, tmp_path, case)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(10))
def test_many_random_convs(seed, tmp_path):
    rng = np.random.default_rng(100 + seed)
    for case in _conv_cases(rng, 40):
        _check(_conv_model(rng, *case), rng.standard_normal(case[0]).astype(F32), tmp_path, case)


def _graph_weights(rng, c):
    def w(*shape):
        return rng.standard_normal(shape).astype(F32)

    return {"w1": w(c, c, 3, 3), "b1": w(c), "w2": w(c, c, 3, 3), "b2": w(c), "w3": w(c, 2 * c, 3, 3),
            "wp": w(c, c, 1, 1), "wd": w(c, 1, 3, 3), "w24": w(24, c, 3, 3), "b24": w(24), "w40": w(c, 24, 3, 3),
            "ws": w(c, 3, 3, 3), "gamma": (rng.random(c) + 0.5).astype(F32), "beta": w(c), "mean": w(c),
            "var": (rng.random(c) * 3 + 0.1).astype(F32), "mc": w(1, c, 1, 1), "mc3": w(c, 1, 1),
            "k": np.array(1.7, F32), "up": np.array([1, 1, 2, 2], F32), "up3": np.array([1, 1, 3, 2], F32),
            "up15": np.array([1, 1, 1.5, 1.5], F32), "sizes": np.array([2, c, 16, 30], np.int64)}  # fmt: skip


def _conv(x, y, w="w1", b="b1", k=3, **attrs):
    return helper.make_node("Conv", [x, w, b], [y], kernel_shape=[k, k], pads=[k // 2] * 4, **attrs)


def _op(op, ins, out, **attrs):
    return helper.make_node(op, ins, [out], **attrs)


def _relu_conv(x="x"):  # a Conv with a Relu fused into it (ONNX Runtime's ConvActivationFusion): no Add joins it
    return [_conv(x, "y"), _op("Relu", ["y"], "r")]


_BN = ["gamma", "beta", "mean", "var"]

# (name, nodes, outputs, input channels)
_GRAPHS = [
    ("residual into the second conv", _relu_conv() + [_conv("r", "z", "w2", "b2"), _op("Add", ["z", "r"], "out")]),
    ("operands swapped", _relu_conv() + [_conv("r", "z", "w2", "b2"), _op("Add", ["r", "z"], "out")]),
    ("two convs: the first operand's takes it", [_conv("x", "y"), _conv("x", "z", "w2", "b2"),
                                                  _op("Add", ["y", "z"], "out")]),
    ("a graph input is not NCHWc", [_conv("x", "y"), _op("Add", ["y", "x"], "out")]),
    ("ResNet's block", _relu_conv() + [_conv("r", "z", "w2", "b2"), _op("Add", ["z", "x"], "a"),
                                       _op("Relu", ["a"], "out")]),
    ("Relu and Sigmoid after the sum, a pointwise and a depthwise conv",
     _relu_conv() + [_conv("r", "z", "w2", "b2"), _op("Relu", ["z"], "r2"), _conv("r2", "z2", "wp", "b1", k=1),
                     _op("Add", ["z2", "r"], "a"), _op("Sigmoid", ["a"], "a2"),
                     _conv("a2", "z3", "wd", "b2", group=32), _op("Add", ["a2", "z3"], "out")]),
    ("the conv's output is a graph output too", _relu_conv() + [_conv("r", "z", "w2", "b2"),
                                                                _op("Add", ["z", "r"], "out")], ("out", "z")),
    ("an operand used twice", [_conv("x", "y"), _op("Add", ["y", "y"], "a"), _op("Sigmoid", ["a"], "s"),
                                _conv("s", "z", "w2", "b2"), _op("Add", ["z", "s"], "out")]),
    ("Sum of two, Sum of three", _relu_conv() + [_conv("r", "z", "w2", "b2"), _op("Sum", ["z", "r"], "a"),
                                                 _conv("a", "z2", "w2", "b1"), _op("Sum", ["z2", "r", "a"], "out")]),
    ("MaxPool keeps the layout", _relu_conv() + [_op("MaxPool", ["r"], "m", kernel_shape=[2, 2]),
                                                 _conv("m", "z", "w2", "b2"), _op("Add", ["z", "m"], "out")]),
    ("Concat keeps it", _relu_conv() + [_conv("x", "y2", "w2", "b2"), _op("Relu", ["y2"], "r2"),
                                         _op("Concat", ["r", "r2"], "cat", axis=1), _conv("cat", "z", "w3", "b2"),
                                         _op("Add", ["z", "r"], "out")]),
    ("Clip fused into the conv", [_conv("x", "y"), _op("Clip", ["y"], "r"), _conv("r", "z", "w2", "b2"),
                                   _op("Add", ["z", "r"], "out")]),
    ("BatchNormalization as a depthwise conv", _relu_conv() + [_op("BatchNormalization", ["r", *_BN], "out")]),
    ("BatchNormalization taking the Add", _relu_conv() + [_op("BatchNormalization", ["r", *_BN], "n"),
                                                         _op("Add", ["n", "r"], "out")]),
    ("BatchNormalization before a conv", _relu_conv() + [_op("BatchNormalization", ["r", *_BN], "n"),
                                                        _conv("n", "z", "w2", "b2"), _op("Add", ["z", "n"], "out")]),
    ("Mul by (1, C, 1, 1) and by (C, 1, 1)",
     _relu_conv() + [_op("Mul", ["r", "mc"], "n"), _op("Add", ["n", "r"], "a"), _op("Mul", ["mc3", "a"], "n2"),
                     _conv("n2", "z", "w2", "b2"), _op("Add", ["z", "n2"], "out")]),
    ("Mul by a scalar stays a Mul", _relu_conv() + [_op("Mul", ["r", "k"], "n"), _op("Add", ["n", "r"], "out")]),
    ("24 output channels, then 24 input channels", [_conv("x", "y", "w24", "b24"), _op("Relu", ["y"], "r"),
                                                    _conv("r", "z", "w40", "b1"), _op("Add", ["z", "x"], "out")]),
    ("an RGB stem (the NCHW kernel)", [_conv("x", "y", "ws", "b1", strides=[2, 2]), _op("Relu", ["y"], "r"),
                                      _conv("r", "z", "w2", "b2"), _op("Add", ["z", "r"], "out")], ("out",), 3),
    ("FPN: a linear Resize (NCHWc Upsample) into a pointwise conv's sum",
     _relu_conv() + [_op("MaxPool", ["r"], "m", kernel_shape=[2, 2], strides=[2, 2]), _conv("m", "z", "w2", "b2"),
                     _op("Resize", ["z", "", "up"], "u", mode="linear"), _conv("r", "p", "wp", "b1", k=1),
                     _op("Add", ["p", "u"], "a"),
                     _op("Resize", ["a", "", "up3"], "out", mode="linear",
                         coordinate_transformation_mode="align_corners")],
     ("out",), 32, [8, 10]),
    ("Resizes its NCHWc Upsample leaves: pytorch_half_pixel, a scale of 1.5",
     _relu_conv() + [_op("Resize", ["r", "", "up"], "u1", mode="linear",
                         coordinate_transformation_mode="pytorch_half_pixel"),
                     _op("Resize", ["r", "", "up15"], "u2", mode="linear"),
                     _op("Resize", ["r", "", "", "sizes"], "out", mode="linear",
                         coordinate_transformation_mode="asymmetric")],
     ("out", "u1", "u2"), 32, [8, 10]),
    ("GlobalAveragePool of an NCHWc output",
     _relu_conv() + [_conv("r", "z", "w2", "b2"), _op("Add", ["z", "r"], "out"), _op("GlobalAveragePool", ["z"], "g")],
     ("out", "g")),
]  # fmt: skip


@pytest.mark.parametrize("graph", _GRAPHS, ids=[g[0] for g in _GRAPHS])
def test_graphs_around_nchwc_convs(graph, tmp_path):
    name, nodes, *rest = graph
    outputs, channels, spatial = (list(rest) + [("out",), 32, [9, 10]][len(rest) :])[:3]
    rng = np.random.default_rng(len(name))
    weights = _graph_weights(rng, 32)
    used = {i for n in nodes for i in n.input}
    shape = [2, channels, *spatial]
    model = _model(nodes, {k: v for k, v in weights.items() if k in used}, shape, outputs)
    _check(model, rng.standard_normal(shape).astype(F32), tmp_path, name)


def test_x86_avx2_has_blocks_of_8():
    """QEMU's Haswell CPU: 8 to 15 input channels are whole blocks there (no NCHW kernel), 12 a block and a half."""
    from ..oracles import x86_ort

    x86_ort.require()
    rng = np.random.default_rng(5)
    cases = [([1, c, 7, 8], [m, c, 3, 3], {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}, True)
             for c, m in ((4, 8), (8, 8), (12, 16), (15, 8), (20, 24))]  # fmt: skip
    cases.append(([1, 136, 5, 6], [8, 136, 1, 1], {"kernel_shape": [1, 1]}, True))  # pointwise: 128 and 8
    cases.append(([1, 24, 6, 6], [24, 1, 3, 3], {"kernel_shape": [3, 3], "group": 24, "pads": [1, 1, 1, 1]}, False))
    # two outputs a channel, 7x7, stride 2: no AVX-512F kernel here, MLAS's SGEMM
    cases.append(([1, 4, 13, 11], [8, 1, 7, 7], {"kernel_shape": [7, 7], "group": 4, "strides": [2, 2],
                                                 "pads": [3] * 4}, True))  # fmt: skip
    for case in cases:
        model = _conv_model(rng, *case)
        x = rng.standard_normal(case[0]).astype(F32)
        want = x86_ort.Session(model.SerializeToString()).run(None, {"x": x})[0]
        _same(quant.run(model, x, op="sdot4", platform="x86-avx2")["out"], want, case)
    nodes = _GRAPHS[5][1]  # sums into a 3x3, a pointwise and a depthwise conv
    weights = _graph_weights(rng, 32)
    model = _model(nodes, {k: v for k, v in weights.items() if k in {i for n in nodes for i in n.input}}, [1, 32, 6, 7])
    x = rng.standard_normal((1, 32, 6, 7)).astype(F32)
    want = x86_ort.Session(model.SerializeToString()).run(None, {"x": x})[0]
    _same(quant.run(model, x, op="sdot4", platform="x86-avx2")["out"], want, "graph")


def _random_cnn(rng):
    """A random float CNN graph: Convs (1x1 to 5x5, strides, depthwise, with and without bias) of 8 to 40
    channels, activations (fused by ConvActivationFusion or not), Add, Sum and Mul of tensors of one shape or by
    constants, BatchNormalization, pools, Concat and linear Resize; some values are graph outputs too."""
    channels = {"x": int(rng.choice([3, 8, 16, 24, 32]))}
    sizes = {"x": (int(rng.integers(6, 12)), int(rng.integers(6, 12)))}
    nodes, weights = [], {}

    def const(v):
        weights[f"c{len(weights)}"] = np.asarray(v, F32)
        return f"c{len(weights) - 1}"

    values = ["x"]
    for _ in range(int(rng.integers(3, 9))):
        src = str(rng.choice(values))
        c, (h, w) = channels[src], sizes[src]
        out = f"v{len(nodes)}"
        kind = str(rng.choice(["conv"] * 3 + ["act", "add", "bn", "mul", "pool", "concat", "resize"]))
        if kind == "conv":
            m, k = int(rng.choice([8, 16, 24, 32, 40])), int(rng.choice([1, 1, 3, 3, 5]))
            st = int(rng.choice([1, 1, 2]))
            group = c if rng.random() < 0.2 and c in (8, 16, 24, 32) else 1
            m = c if group > 1 else m
            pad = int(rng.choice([0, k // 2, k // 2]))
            if min(h, w) + 2 * pad < k:
                continue
            ins = [src, const(rng.standard_normal((m, c // group, k, k)) * 0.3)]
            ins += [const(rng.standard_normal(m))] if rng.random() < 0.8 else []
            nodes.append(helper.make_node("Conv", ins, [out], kernel_shape=[k, k], pads=[pad] * 4, strides=[st, st],
                                          group=group))  # fmt: skip
            channels[out], sizes[out] = m, ((h + 2 * pad - k) // st + 1, (w + 2 * pad - k) // st + 1)
        else:
            channels[out], sizes[out] = c, (h, w)
            alike = [v for v in values if channels[v] == c and sizes[v] == (h, w)]
            if kind == "act":
                op = str(rng.choice(["Relu", "Sigmoid", "Tanh", "LeakyRelu", "Clip", "HardSigmoid"]))
                nodes.append(helper.make_node(op, [src] + ([const(0.0), const(6.0)] if op == "Clip" else []), [out]))
            elif kind in ("add", "mul"):
                other = str(rng.choice(alike))
                if kind == "mul" and rng.random() < 0.5:
                    other = const(rng.standard_normal((1, c, 1, 1)) if rng.random() < 0.7 else 1.3)
                op = "Mul" if kind == "mul" else str(rng.choice(["Add", "Sum"]))
                ins = [src, other] if rng.random() < 0.5 else [other, src]
                nodes.append(helper.make_node(op, ins + ([str(rng.choice(alike))] if op == "Sum" and rng.random() < 0.3
                                                          else []), [out]))  # fmt: skip
            elif kind == "bn":
                stats = (rng.random(c) + 0.5, rng.standard_normal(c), rng.standard_normal(c), rng.random(c) + 0.3)
                nodes.append(helper.make_node("BatchNormalization", [src] + [const(v) for v in stats], [out]))
            elif kind == "pool" and min(h, w) >= 3:
                op = str(rng.choice(["MaxPool", "AveragePool"]))
                nodes.append(helper.make_node(op, [src], [out], kernel_shape=[2, 2], strides=[2, 2]))
                sizes[out] = (h // 2, w // 2)
            elif kind == "concat":
                other = str(rng.choice([v for v in values if sizes[v] == (h, w)]))
                nodes.append(helper.make_node("Concat", [src, other], [out], axis=1))
                channels[out] += channels[other]
            elif kind == "resize":
                transform = str(rng.choice(["half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel"]))
                nodes.append(helper.make_node("Resize", [src, "", const([1, 1, 2, 2])], [out], mode="linear",
                                              coordinate_transformation_mode=transform))  # fmt: skip
                sizes[out] = (2 * h, 2 * w)
            else:
                continue
        values.append(out)
    outputs = [v for v in values[1:-1] if rng.random() < 0.3] + [values[-1]]
    shape = [1, channels["x"], *sizes["x"]]
    return _model(nodes, weights, shape, [o for o in outputs if o != "x"] or [values[-1]]), shape


def _random_cnns_as(seeds, session, platform):
    """Each seed's random CNN through ``run`` on ``platform`` against ``session(model)``, bit for bit."""
    for seed in seeds:
        rng = np.random.default_rng(seed)
        model, shape = _random_cnn(rng)
        if model.graph.node:
            x = rng.standard_normal(shape).astype(F32)
            want = session(model).run(None, {"x": x})
            got = quant.run(model, x, op="sdot4", platform=platform)
            for out, w in zip(model.graph.output, want):
                _same(got[out.name], w, (seed, out.name))


@pytest.mark.parametrize("seeds", [range(0, 60), pytest.param(range(60, 560), marks=pytest.mark.slow)],
                         ids=["60", "500"])  # fmt: skip
def test_random_cnn_graphs(seeds):
    ort.need()
    _random_cnns_as(seeds, lambda model: ort.session(model, neon=True), ort.platform())


@pytest.mark.parametrize("seeds", [range(0, 12), pytest.param(range(12, 112), marks=pytest.mark.slow)],
                         ids=["12", "100"])  # fmt: skip
def test_random_cnn_graphs_on_x86_avx2(seeds):
    """The same on QEMU's Haswell CPU (NCHWc blocks of 8: other Convs, Concats and pools in the layout)."""
    from ..oracles import x86_ort

    x86_ort.require()
    _random_cnns_as(seeds, lambda model: x86_ort.Session(model.SerializeToString()), "x86-avx2")


def test_numpy_and_compiled_kernels_agree(monkeypatch):
    """The kernels' chains compiled by numba (the ``fast`` extra) and in NumPy give the same bits: every kind, pads
    past the kernel, strides, dilations, padded channel blocks, a starting output, zeros of both signs."""
    pytest.importorskip("numba", reason="the compiled kernel comes with the fast extra")
    from intdot.quant import nchwc

    monkeypatch.setenv("INTDOT_BACKEND", "numba")
    assert nchwc._compiled(1) is not None  # the compiled kernel, whatever the size, under INTDOT_BACKEND=numba
    rng = np.random.default_rng(8)
    cases = [("nchwc", 40, 24, (3, 3)), ("pointwise", 136, 16, (1, 1)), ("nchw", 3, 16, (3, 5)),
             ("depthwise", 24, 24, (3, 3)), ("nchwc", 16, 8, (5, 2))]  # fmt: skip
    for kind, c, m, k in cases:
        x = rng.standard_normal((2, c, 7, 9)).astype(F32)
        x[0, :, 0] = 0.0
        x[1, :, 1] = -0.0
        w = rng.standard_normal((m, 1 if kind == "depthwise" else c) + k).astype(F32)
        for pads, strides, dil, z in (((0, 0, 0, 0), (1, 1), (1, 1), None), ((2, 1, 0, 3), (2, 1), (1, 2), True)):
            if kind == "pointwise" and any(pads):
                continue
            start = None if z is None else rng.standard_normal((2, m, *_out_size((7, 9), k, pads, strides, dil)))
            start = None if start is None else start.astype(F32)
            options = {"kind": kind, "pads": pads, "strides": strides, "dilations": dil}
            compiled = nchwc.conv(x, w, None, start, **options)
            monkeypatch.setenv("INTDOT_BACKEND", "numpy")
            _same(nchwc.conv(x, w, None, start, **options), compiled, (kind, pads))
            monkeypatch.setenv("INTDOT_BACKEND", "numba")


def _out_size(size, k, pads, strides, dil):
    return tuple((n + pads[i] + pads[i + 2] - (d * (kk - 1) + 1)) // s + 1
                 for i, (n, kk, s, d) in enumerate(zip(size, k, strides, dil)))  # fmt: skip
