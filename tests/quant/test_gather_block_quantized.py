"""``com.microsoft`` GatherBlockQuantized (a block-quantized embedding table's lookup) against ONNX Runtime's CPU
kernel, bit for bit, through ``run``: int4 and uint4 tables with and without zero points, another gather and
quantize axis, uint8 tables of 8-, 4- and 2-bit codes (packed zero points, an odd block count), negative indices."""

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from intdot import quant
from intdot.core.errors import OperandError, OperandTypeError
from intdot.quant.gather_block_quantized import gather_block_quantized

from . import ort
from .test_layer_norm import _same

F32 = np.float32
_FOUR_BIT = (TensorProto.INT4, TensorProto.UINT4)


def _table(name, values, data_type):
    if data_type in _FOUR_BIT:  # 4-bit tensors as ONNX stores them: one value a nibble
        return helper.make_tensor(name, data_type, values.shape, values.ravel().tolist())
    return numpy_helper.from_array(values, name)


def _model(data, scales, zero_points, attrs, data_type):
    inits = [_table("data", data, data_type), numpy_helper.from_array(scales, "scales")]
    names = ["data", "idx", "scales"]
    if zero_points is not None:
        inits.append(_table("zp", zero_points, data_type))
        names.append("zp")
    node = helper.make_node("GatherBlockQuantized", names, ["y"], domain="com.microsoft", **attrs)
    graph = helper.make_graph([node], "gbq", [helper.make_tensor_value_info("idx", TensorProto.INT64, None)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)  # fmt: skip
    opsets = [helper.make_opsetid("", 21), helper.make_opsetid("com.microsoft", 1)]
    return helper.make_model(graph, ir_version=10, opset_imports=opsets)


def _case(kind, rng):
    """(data, scales, zero points, attributes, ONNX type, indices) of a table of 10 rows of 64 (48 for 3 blocks)."""
    rows, width, block = 10, 48 if "3 blocks" in kind else 64, 16
    blocks = width // block
    scales = (rng.random((rows, blocks)) * 0.1).astype(F32)
    attrs = {"block_size": block, "quantize_axis": 1, "gather_axis": 0}
    idx = rng.integers(-rows, rows, (2, 3)).astype(np.int64)
    if kind.startswith(("int4", "uint4")):
        signed = kind.startswith("int4")
        low, high = (-8, 8) if signed else (0, 16)
        data_type = TensorProto.INT4 if signed else TensorProto.UINT4
        if "axis" in kind:  # quantized along axis 0, gathered along axis 1
            data = rng.integers(low, high, (32, 6)).astype(np.int8 if signed else np.uint8)
            scales = (rng.random((2, 6)) * 0.1).astype(F32)
            return data, scales, None, {"block_size": 16, "quantize_axis": 0, "gather_axis": 1}, data_type, \
                rng.integers(0, 6, 4).astype(np.int64)  # fmt: skip
        data = rng.integers(low, high, (rows, width)).astype(np.int8 if signed else np.uint8)
        zp = rng.integers(low, high, (rows, blocks)).astype(data.dtype) if "zero points" in kind else None
        return data, scales, zp, attrs, data_type, idx
    bits = int(kind.split()[1].split("-")[0])
    per = 8 // bits
    data = rng.integers(0, 256, (rows, width // per)).astype(np.uint8)
    zp = rng.integers(0, 256, (rows, -(-blocks // per))).astype(np.uint8) if "zero points" in kind else None
    return data, scales, zp, {**attrs, "bits": bits}, TensorProto.UINT8, idx


CASES = ["int4, zero points", "int4", "uint4, zero points", "int4, another axis", "uint8 8-bit, zero points",
         "uint8 8-bit", "uint8 4-bit, zero points", "uint8 4-bit", "uint8 2-bit, zero points",
         "uint8 4-bit, zero points, 3 blocks"]  # fmt: skip


@pytest.mark.parametrize("kind", CASES)
def test_gather_block_quantized_as_onnx_runtime(kind):
    ort.need()
    data, scales, zp, attrs, data_type, idx = _case(kind, np.random.default_rng(len(kind)))
    model = _model(data, scales, zp, attrs, data_type)
    want = ort.session(model).run(None, {"idx": idx})[0]
    _same(quant.run(model, {"idx": idx}, op="sdot4", platform=ort.platform())["y"], want, kind)


def test_bad_input_is_named():
    data = np.zeros((4, 32), np.uint8)
    scales = np.ones((4, 2), F32)
    idx = np.array([0], np.int64)
    with pytest.raises(OperandError, match=r"scales has shape \(4, 2\): expected \(4, 4\)"):
        gather_block_quantized(data, idx, scales, block_size=16, bits=4)
    with pytest.raises(OperandError, match=r"indices 7..7: expected values in \[-4, 4\)"):
        gather_block_quantized(data, np.array([7], np.int64), scales, block_size=16, bits=8)
    with pytest.raises(OperandError, match="block_size=24"):
        gather_block_quantized(data, idx, scales, block_size=24, bits=8)
    with pytest.raises(OperandTypeError, match="FP8 and FP4 tables are not modelled"):
        gather_block_quantized(data.astype(np.float32), idx, scales, block_size=16)
