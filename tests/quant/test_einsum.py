"""ONNX's Einsum of two float32 operands that is one (batched) matrix product, against ONNX Runtime's CPU kernel,
bit for bit, through ``run``: attention's and linear layers' forms, contracted letters in either order, outputs
transposed, one-row and one-column products, a dot product to a scalar, an outer product; the forms left to
``onnx.reference`` are named."""

import numpy as np
import pytest
from onnx import TensorProto

from intdot import quant
from intdot.quant.einsum import einsum

from . import ort
from .test_layer_norm import _same

F32 = np.float32
CASES = [
    ("bhqd,bhkd->bhqk", (2, 3, 5, 300), (2, 3, 7, 300)),
    ("bhqk,bhkd->bhqd", (2, 3, 5, 7), (2, 3, 7, 64)),
    ("bsd,de->bse", (4, 5, 300), (300, 64)),
    ("ij,jk->ik", (1, 200), (200, 30)),
    ("ij,jk->ik", (20, 200), (200, 1)),
    ("ij,jk->ki", (20, 200), (200, 13)),
    ("abcd,cde->abe", (2, 3, 20, 7), (20, 7, 6)),
    ("abcd,dce->abe", (2, 3, 20, 7), (7, 20, 6)),
    ("ki,kj->ij", (300, 5), (300, 6)),
    ("bqhd,bkhd->bhqk", (2, 5, 3, 64), (2, 7, 3, 64)),
    ("i,i->", (300,), (300,)),
    ("i,j->ij", (5,), (6,)),
    ("xyk,kz->zyx", (3, 4, 130), (130, 5)),
    ("ij,jk", (6, 40), (40, 5)),
]


@pytest.mark.parametrize("equation,a_shape,b_shape", CASES)
def test_einsum_as_onnx_runtime(equation, a_shape, b_shape):
    ort.need()
    rng = np.random.default_rng(len(equation) + sum(a_shape))
    a, b = rng.standard_normal(a_shape).astype(F32), rng.standard_normal(b_shape).astype(F32)
    model = ort.node_model("Einsum", [a, b], {"equation": equation}, TensorProto.FLOAT, opset=17)
    want = ort.session(model, neon=True).run(None, {"in0": a, "in1": b})[0]
    _same(quant.run(model, {"in0": a, "in1": b}, op="sdot4", platform=ort.platform())["y"], want, equation)


@pytest.mark.parametrize("equation", ["ij,jk,kl->il", "ii,ij->j", "ij,kj->i", "...ij,...jk->...ik", "ij->ji"])
def test_other_forms_are_left_to_onnx_reference(equation):
    """Three operands, a diagonal, a letter summed inside one operand, broadcasting, one operand: not this form."""
    a = np.ones((3, 3), F32)
    operands = (a, a, a) if equation.count(",") == 2 else (a,) if "," not in equation else (a, a)
    assert len(operands) != 2 or einsum(equation, *operands) is None
