"""ONNX Runtime's float32 Einsum of two operands that is one (batched) matrix product, bit for bit: the forms
exporters write for attention and linear layers (``bhqd,bhkd->bhqk``, ``bhqk,bhkd->bhqd``, ``bsd,de->bse``, ...).

Each letter of such an equation is a batch letter (in both operands and the output), a contracted one (in both
operands, not the output), or belongs to one operand and the output.  ONNX Runtime lays the first operand out as
(batch, its own letters, contracted) and the second as (batch, contracted, its own letters), each group in the order
of the first operand's letters (the second's own letters in their order), and multiplies each batch's matrices with
MLAS's SGEMM (:func:`.sgemm.gemm2d`); the output is the product's axes put in the equation's order.  Equations with
a letter in one operand alone (summed before the product), a repeated letter (a diagonal), broadcasting (``...``),
or one operand or three are left to ``onnx.reference``, whose einsum rounds apart (docs/differences.md).  Checked
against ONNX Runtime 1.32 in ``tests/quant/test_einsum.py``.
"""

from __future__ import annotations

import numpy as np

from .sgemm import gemm2d

F32 = np.float32


def _parse(equation: str, ndims):
    """(first's letters, second's letters, output letters), or None where the equation is not a two-operand
    product this module models."""
    text = equation.replace(" ", "")
    if "." in text or text.count(",") != 1:
        return None
    lhs, arrow, out = text.partition("->")
    left, right = lhs.split(",")
    if not arrow:  # implicit output: the letters seen once, in alphabetical order
        counts = {c: (left + right).count(c) for c in left + right}
        out = "".join(sorted(c for c, n in counts.items() if n == 1))
    if (len(left), len(right)) != tuple(ndims) or any(len(set(s)) != len(s) for s in (left, right, out)):
        return None
    if not all(c.isalpha() for c in left + right + out) or set(out) - set(left + right):
        return None
    if (set(left) ^ set(right)) - set(out):  # a letter summed inside one operand
        return None
    return left, right, out


def einsum(equation: str, a, b, platform: str = "x86"):
    """The float32 Einsum of ``a`` and ``b`` as ONNX Runtime computes it (module docstring), or None where the
    equation is not a form modelled here."""
    a, b = np.asarray(a, F32), np.asarray(b, F32)
    parsed = _parse(equation, (a.ndim, b.ndim))
    if parsed is None:
        return None
    left, right, out = parsed
    sizes = {}
    for letters, arr in ((left, a), (right, b)):
        for c, n in zip(letters, arr.shape):
            if sizes.setdefault(c, n) != n:
                return None  # broadcast dimensions: not this form
    batch = [c for c in left if c in right and c in out]
    summed = [c for c in left if c in right and c not in out]
    own_a = [c for c in left if c not in right]
    own_b = [c for c in right if c not in left]
    a3 = a.transpose([left.index(c) for c in batch + own_a + summed])
    b3 = b.transpose([right.index(c) for c in batch + summed + own_b])
    nb = int(np.prod([sizes[c] for c in batch], dtype=np.int64))
    m = int(np.prod([sizes[c] for c in own_a], dtype=np.int64))
    k = int(np.prod([sizes[c] for c in summed], dtype=np.int64))
    n = int(np.prod([sizes[c] for c in own_b], dtype=np.int64))
    a3 = np.ascontiguousarray(a3).reshape(nb, m, k)
    b3 = np.ascontiguousarray(b3).reshape(nb, k, n)
    with np.errstate(over="ignore", invalid="ignore"):
        product = np.stack([gemm2d(x, y, platform=platform) for x, y in zip(a3, b3)]) if nb * m * n else \
            np.zeros((nb, m, n), F32)  # fmt: skip
    order = batch + own_a + own_b
    product = product.reshape([sizes[c] for c in order])
    return product.transpose([order.index(c) for c in out]).astype(F32)  # a copy, laid out in the output's order
