"""BatchNormalization and InstanceNormalization in float32 against ONNX Runtime's kernels, bit for bit, through
``run``: on this machine's platform (x86, or Arm under INTDOT_ORT=arm on a NEON CPU), and on QEMU's Haswell CPU
(``platform="x86-avx2"``).  Each test also checks that the other platform's rounding differs on its inputs, so
that the platforms are told apart."""

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from intdot import quant

from ..oracles import arm_ort
from . import ort
from .test_float_kernels import _same

F32 = np.float32


def _model(op, shape, params, opset, **attrs):
    names = ("s", "b", "m", "v")[: len(params)]
    node = helper.make_node(op, ["x", *names], ["y"], **attrs)
    inits = [numpy_helper.from_array(p, n) for p, n in zip(params, names)]
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)], inits)  # fmt: skip
    return helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", opset)])


def _session(model):
    if ort.on_arm():  # Eigen's NEON code on a NEON CPU (QEMU's default one has SVE, which Eigen does not use)
        return arm_ort.Session(model.SerializeToString(), "neoverse-n1")
    return ort.session(model)


def _batch_norm_params(rng, c):
    scale = (rng.standard_normal(c) * rng.choice([0.01, 1, 30], c)).astype(F32)
    var = (rng.random(c) * rng.choice([1e-6, 1, 100, 1e6, 1e30], c)).astype(F32)
    var[0] = 0.0  # var + eps is eps alone
    return scale, rng.standard_normal(c).astype(F32), (rng.standard_normal(c) * 5).astype(F32), var


def _check(model, x, apart=True):
    """Bit for bit on this platform; with ``apart``, the other platform's rounding differs on ``x``."""
    want = _session(model).run(None, {"x": x})[0]
    _same(quant.run(model, x, op="sdot4", platform=ort.platform())["y"], want, x.shape)
    if apart:
        other = quant.run(model, x, op="sdot4", platform="x86" if ort.on_arm() else "arm")["y"]
        assert not np.array_equal(other.view(np.uint32), want.view(np.uint32))


_BN_CASES = [((2, 6, 5, 7), 15, {}), ((3, 4), 9, {"epsilon": 1e-3}), ((1, 5, 4, 3, 2), 14, {"epsilon": 0.0}),
             ((2, 3, 11), 7, {}), ((1, 67, 3), 15, {})]  # fmt: skip


@pytest.mark.parametrize("shape, opset, attrs", _BN_CASES)
def test_batch_normalization_through_run(shape, opset, attrs):
    """Inference BatchNormalization on its own (nothing to fold it into): x86 in two steps, Arm with fused
    multiply-adds and, for the channels in whole packets of 4, the reciprocal by FRECPE and Newton steps."""
    ort.need()
    rng = np.random.default_rng(len(shape) + opset)
    model = _model("BatchNormalization", list(shape), _batch_norm_params(rng, shape[1]), opset, **attrs)
    _check(model, (rng.standard_normal(shape) * 4).astype(F32))


# Spatial sizes around Eigen's packets (4) and pairs of packets (8), each row starting at another alignment.
_IN_SHAPES = [(1, 4, 1), (1, 2, 3), (2, 3, 5, 7), (2, 3, 16), (1, 3, 37), (3, 5, 2, 11), (1, 2, 1000), (2, 7, 6),
              (1, 3, 9), (2, 2, 2, 3, 5)]  # fmt: skip


@pytest.mark.parametrize("shape", _IN_SHAPES)
def test_instance_normalization_through_run(shape):
    """Each (n, c) row's mean and squared deviations summed as Eigen's vectorized sum adds them (its aligned start
    moves from row to row where W is not a multiple of 4)."""
    ort.need()
    rng = np.random.default_rng(sum(shape))
    c = shape[1]
    params = (rng.standard_normal(c) * 3).astype(F32), rng.standard_normal(c).astype(F32)
    model = _model("InstanceNormalization", list(shape), params, 15, epsilon=1e-5)
    x = (rng.standard_normal(shape) * rng.choice([0.01, 3, 300]) + 1).astype(F32)
    _check(model, x, apart=int(np.prod(shape[2:])) > 1)  # a row of one element gives the bias on every platform


def test_normalizations_on_x86_avx2():
    """The same kernels on an x86 CPU without AVX-512F (ONNX Runtime's Eigen code is built for SSE either way)."""
    from ..oracles import x86_ort

    x86_ort.require()
    rng = np.random.default_rng(7)
    for shape in ((2, 24, 7, 9), (1, 5, 13)):
        x = (rng.standard_normal(shape) * 3).astype(F32)
        c = shape[1]
        affine = rng.standard_normal(c).astype(F32), rng.standard_normal(c).astype(F32)
        models = (
            _model("BatchNormalization", list(shape), _batch_norm_params(rng, c), 15),
            _model("InstanceNormalization", list(shape), affine, 15),
        )
        for model in models:
            want = x86_ort.Session(model.SerializeToString()).run(None, {"x": x})[0]
            _same(quant.run(model, x, op="sdot4", platform="x86-avx2")["y"], want, (shape, model.graph.node[0].op_type))
