"""ReduceSum, ReduceMean, ReduceSumSquare, ReduceL2, ReduceL1, ReduceLogSum, ReduceProd and ReduceLogSumExp in
float32 against ONNX Runtime, bit for bit, through ``run``: every combination of axes over shapes that reach each of
its paths (all axes, trailing, leading, middle, outer-and-inner, and axes that merge into none of them), rows around
Eigen's packets and MLAS's GEMV groups of 4, on this machine's platform (x86, or under INTDOT_ORT=arm ONNX Runtime
for AArch64) and on QEMU's Haswell CPU.  One model holds every node of a shape, so that each oracle session runs them
all at once."""

import itertools

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from intdot import quant

from . import ort
from .test_float_kernels import _same

F32 = np.float32
OPS = ("ReduceSum", "ReduceMean", "ReduceSumSquare", "ReduceL2")
SHAPES = [(7,), (1000,), (5, 37), (300, 6), (2, 3, 4), (3, 9, 5), (2, 7, 3, 5), (4, 1, 6, 3), (3, 2, 50), (2, 300, 5),
          (3, 1001, 2), (2, 33, 3, 17)]  # fmt: skip


def _model(shape, opset=18, keepdims=1, ops=OPS):
    """Every operator over every non-empty combination of axes; from opset 18 (13 for ReduceSum) the axes are an
    input, before it an attribute."""
    nodes, outputs, inits = [], [], []
    for r in range(1, len(shape) + 1):
        for axes in itertools.combinations(range(len(shape)), r):
            for op in ops:
                y = f"{op}_{'_'.join(map(str, axes))}"
                as_input = opset >= (13 if op == "ReduceSum" else 18)
                if as_input:
                    inits.append(numpy_helper.from_array(np.array(axes, np.int64), f"a_{y}"))
                inputs = ["x", f"a_{y}"] if as_input else ["x"]
                attrs = {"keepdims": keepdims} | ({} if as_input else {"axes": list(axes)})
                nodes.append(helper.make_node(op, inputs, [y], **attrs))
                outputs.append(helper.make_tensor_value_info(y, TensorProto.FLOAT, None))
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape))
    graph = helper.make_graph(nodes, "g", [x], outputs, inits)
    return helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", opset)])


def _x(shape):
    rng = np.random.default_rng(sum(shape))
    return (rng.standard_normal(shape) * rng.choice([0.1, 10, 1e4]) + 1).astype(F32)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_reductions_through_run(shape):
    ort.need()
    model, x = _model(shape), _x(shape)
    want = ort.session(model).run(None, {"x": x})
    got = quant.run(model, x, op="sdot4", platform=ort.platform())
    for (name, g), w in zip(got.items(), want):
        _same(g, w, (shape, name))


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_l1_log_sum_and_prod_through_run(shape):
    """ReduceL1, ReduceLogSum (glibc's logf of the sum) and ReduceProd (Eigen's vectorized product where every axis
    is reduced) on values near 1, whose products neither overflow nor vanish; the sign of a few flipped."""
    ort.need()
    rng = np.random.default_rng(len(shape))
    x = (1 + rng.standard_normal(shape) * 0.02).astype(F32)
    x.reshape(-1)[::7] *= -1
    model = _model(shape, ops=("ReduceL1", "ReduceLogSum", "ReduceProd"))
    want = ort.session(model).run(None, {"x": x})
    got = quant.run(model, x, op="sdot4", platform=ort.platform())
    for (name, g), w in zip(got.items(), want):
        _same(g, w, (shape, name))


@pytest.mark.parametrize("shape", SHAPES[:9], ids=str)
def test_log_sum_exp_through_run(shape):
    """ReduceLogSumExp: glibc's expf of each element less the max, added in order, glibc's logf; then with
    infinities, which its running max passes over (from 0 where a row starts with one)."""
    ort.need()
    rng = np.random.default_rng(len(shape) + 7)
    x = (rng.standard_normal(shape) * 5).astype(F32)
    model = _model(shape, ops=("ReduceLogSumExp",))
    want = ort.session(model).run(None, {"x": x})
    got = quant.run(model, x, op="sdot4", platform=ort.platform())
    for (name, g), w in zip(got.items(), want):
        _same(g, w, (shape, name))
    if x.size > 20:
        flat = x.reshape(-1)
        flat[[0, 5, 11]] = -np.inf, np.inf, -np.inf  # the first element infinite: the running max starts from 0
        want = ort.session(model).run(None, {"x": x})
        got = quant.run(model, x, op="sdot4", platform=ort.platform())
        for (name, g), w in zip(got.items(), want):
            _same(g, w, (shape, name, "infinities"))


@pytest.mark.parametrize("opset, keepdims", [(13, 0), (11, 1)])
def test_reductions_with_axes_attributes(opset, keepdims):
    """The older versions, whose axes are an attribute (all but ReduceSum at 13), and keepdims=0."""
    ort.need()
    shape = (3, 9, 5)
    model, x = _model(shape, opset, keepdims), _x(shape)
    want = ort.session(model).run(None, {"x": x})
    got = quant.run(model, x, op="sdot4", platform=ort.platform())
    for (name, g), w in zip(got.items(), want):
        _same(g, w, (opset, name))


def test_the_platforms_add_apart():
    """x86 pairs Eigen's lanes and groups MLAS's GEMV rows apart from Arm: some outputs differ between them."""
    model, x = _model((2, 33, 3, 17)), _x((2, 33, 3, 17))
    x86, arm = (quant.run(model, x, op="sdot4", platform=p) for p in ("x86", "arm"))
    assert any(not np.array_equal(a.view(np.uint32), b.view(np.uint32)) for a, b in zip(x86.values(), arm.values()))


def test_reductions_on_x86_avx2():
    from ..oracles import x86_ort

    x86_ort.require()
    for shape in ((5, 37), (2, 7, 3, 5), (2, 300, 5)):
        model, x = _model(shape), _x(shape)
        want = x86_ort.Session(model.SerializeToString()).run(None, {"x": x})
        got = quant.run(model, x, op="sdot4", platform="x86-avx2")
        for (name, g), w in zip(got.items(), want):
            _same(g, w, (shape, name))
