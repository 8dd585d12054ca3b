"""ONNX's own test cases for these operators, as the ``onnx`` package defines them
(``onnx/backend/test/case/node/{matmulinteger,qlinearmatmul,convinteger,qlinearconv,quantizelinear,
dequantizelinear,dynamicquantizelinear}.py``: each ``expect(node, inputs, outputs)`` is one case; the package
builds them when those modules are imported), through every fitting instruction for the integer operators."""

import importlib

import numpy as np
import pytest

from intdot import quant

from . import ort

MODULES = {
    "MatMulInteger": "matmulinteger",
    "QLinearMatMul": "qlinearmatmul",
    "ConvInteger": "convinteger",
    "QLinearConv": "qlinearconv",
    "QuantizeLinear": "quantizelinear",
    "DequantizeLinear": "dequantizelinear",
    "DynamicQuantizeLinear": "dynamicquantizelinear",
}


def _cases():
    try:
        import onnx.backend.test.case.node as cases
    except ImportError:
        return []
    for m in MODULES.values():
        importlib.import_module(f"onnx.backend.test.case.node.{m}")
    return [c for c in cases._NodeTestCases if not c.name.endswith("_expanded") and "_expanded_" not in c.name]


def _array(x):
    from onnx import numpy_helper

    return np.asarray(x) if isinstance(x, (np.ndarray, np.generic)) else numpy_helper.to_array(x)


def _attrs(node):
    from onnx import helper

    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


CASES = {c.name: c for c in _cases()}
INTEGER = ("MatMulInteger", "QLinearMatMul", "ConvInteger", "QLinearConv")


def _compute(node, inputs, attrs, op):
    kind = node.op_type
    if kind == "MatMulInteger":
        return quant.matmul_integer(*inputs, op=op)
    if kind == "QLinearMatMul":
        return quant.qlinear_matmul(*inputs, op=op)
    if kind == "ConvInteger":
        return quant.conv_integer(*inputs, op=op, **attrs)
    if kind == "QLinearConv":
        return quant.qlinear_conv(*inputs, op=op, **attrs)
    if kind == "QuantizeLinear":
        return quant.quantize_linear(*inputs, **attrs)
    if kind == "DequantizeLinear":
        return quant.dequantize_linear(*inputs, **attrs)
    return quant.dynamic_quantize_linear(*inputs)


def _supported(case) -> str | None:
    """Why intdot does not compute a case (float8/float4/2-bit types, which no dot instruction here takes)."""
    node = case.model.graph.node[0]
    arrays = [_array(x) for x in case.data_sets[0][0] + case.data_sets[0][1]]
    names = {a.dtype.name for a in arrays}
    odd = {n for n in names if "float8" in n or "float4" in n or "float6" in n or n in ("int2", "uint2", "bfloat16")}
    if odd:
        return f"{node.op_type} on {', '.join(sorted(odd))}: not an integer type intdot quantizes to"
    return None


def test_the_cases_are_found():
    ort.need()
    kinds = {c.model.graph.node[0].op_type for c in CASES.values()}
    assert kinds == set(MODULES)
    assert len(CASES) >= 20


@pytest.mark.parametrize("name", sorted(CASES) or ["none"])
def test_onnx_case(name):
    ort.need()
    case = CASES[name]
    why = _supported(case)
    if why:
        pytest.skip(why)
    node = case.model.graph.node[0]
    # ONNX leaves an optional input out by giving it the name "".
    given = iter(_array(x) for x in case.data_sets[0][0])
    inputs = [next(given) if n else None for n in node.input]
    want = [_array(x) for x in case.data_sets[0][1]]
    attrs = _attrs(node)
    if node.op_type in INTEGER:
        for p in quant.fitting(inputs[0].dtype, inputs[3 if node.op_type.startswith("QLinear") else 1].dtype):
            got = _compute(node, inputs, attrs, p.record)
            assert got.dtype == want[0].dtype and (got == want[0]).all(), p.record.name
        return
    got = _compute(node, inputs, attrs, None)
    got = got if isinstance(got, tuple) else (got,)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        assert np.array_equal(g.astype(np.float64), w.astype(np.float64), equal_nan=True), (g, w)
