"""``com.microsoft`` MatMulNBits (weights in 2, 4 or 8 bits, a scale and zero point per block of K) against ONNX
Runtime's CPU kernel, bit for bit, on this machine's platform (x86 with AVX-512F, or under INTDOT_ORT=arm ONNX
Runtime for AArch64): MLAS's 4-bit kernels for one row and for several, the dequantize-then-SGEMM path (other bit
widths, a B that is not a constant), float zero points and ``g_idx``, the int8 products of ``accuracy_level=4``
(x86); then models that ``onnxruntime.quantization.matmul_nbits_quantizer`` writes."""

import numpy as np
import pytest
from onnx import TensorProto, helper

from intdot import quant
from intdot.core.errors import OperandError
from intdot.quant.matmul_nbits import matmul_nbits

from ..oracles import missing
from . import ort
from .test_layer_norm import _same

F32 = np.float32
MS = "com.microsoft"


def _inputs(rng, k, n, block, rows=3, bits=4, zero_points="uint8", bias=True, g_idx=False):
    """A, B, scales, zero points, g_idx and bias of a random node (absent ones None)."""
    blocks = -(-k // block)
    b = rng.integers(0, 256, (n, blocks, block * bits // 8), dtype=np.uint8)
    scales = (rng.random(n * blocks) * 0.1 + 0.01).astype(F32) * rng.choice([-1, 1], n * blocks).astype(F32)
    z = None
    if zero_points == "uint8":
        z = rng.integers(0, 256, n * -(-blocks * bits // 8), dtype=np.uint8)
    elif zero_points == "float32":
        z = (rng.random(n * blocks) * 15).astype(F32)
    g = rng.integers(0, blocks, k).astype(np.int32) if g_idx else None
    a = (rng.standard_normal((rows, k)) * rng.choice([0.5, 4])).astype(F32)
    return [a, b, scales, z, g, rng.standard_normal(n).astype(F32) if bias else None]


def _check(inputs, attrs, b_constant=True, what=None):
    """The node run by ONNX Runtime and by intdot's model runner (the weights, scales, zero points, g_idx and bias
    initializers; B too where ``b_constant``), bit for bit; returns ONNX Runtime's output."""
    const = tuple(i for i in range(1 if b_constant else 2, 6) if inputs[i] is not None)
    want = ort.run("MatMulNBits", inputs, attrs, out_type=TensorProto.FLOAT, opset=17, const=const, domain=MS)
    model = ort.node_model("MatMulNBits", inputs, attrs, TensorProto.FLOAT, opset=17, const=const, domain=MS)
    feeds = {f"in{i}": v for i, v in enumerate(inputs) if v is not None and i not in const}
    got = quant.run(model, feeds, op="sdot4", platform=ort.platform())["y"]
    _same(got, want, what or attrs)
    return want


SHAPES = [(256, 64, 32), (300, 37, 32), (1000, 21, 64), (77, 9, 16), (520, 40, 128), (600, 7, 256)]


@pytest.mark.parametrize("k,n,block", SHAPES)
@pytest.mark.parametrize("rows", [1, 3])
@pytest.mark.parametrize("variant", ["zero points and bias", "neither", "B an input"])
def test_four_bits_as_onnx_runtime(k, n, block, rows, variant):
    """4-bit weights: MLAS's kernels (a constant B: one row through its vector kernel, several through SGEMM over
    the whole of K) and the dequantize-then-SGEMM path (B an input); K past the last block's end, N not a multiple
    of 4, every block size MLAS packs."""
    ort.need()
    plain = variant == "neither"
    inputs = _inputs(np.random.default_rng(k + n + rows), k, n, block, rows,
                     zero_points=None if plain else "uint8", bias=not plain)  # fmt: skip
    _check(inputs, {"K": k, "N": n, "bits": 4, "block_size": block}, b_constant=variant != "B an input")


@pytest.mark.parametrize("bits", [2, 8])
@pytest.mark.parametrize("rows", [1, 4])
@pytest.mark.parametrize("zero_points", [None, "uint8"])
def test_other_bit_widths_as_onnx_runtime(bits, rows, zero_points):
    """2 and 8 bits: dequantized (``float(q - zero_point) * scale``), then SGEMM from the bias."""
    ort.need()
    inputs = _inputs(np.random.default_rng(bits * rows), 300, 37, 32, rows, bits, zero_points)
    _check(inputs, {"K": 300, "N": 37, "bits": bits, "block_size": 32})


@pytest.mark.parametrize("kind", ["float zero points", "g_idx", "g_idx and float zero points",
                                  "g_idx and uint8 zero points"])  # fmt: skip
@pytest.mark.parametrize("rows", [1, 3])
def test_float_zero_points_and_g_idx_as_onnx_runtime(kind, rows):
    """ONNX Runtime's other dequantization, ``q * scale + (-scale * zero_point)``, each k in the block ``g_idx``
    names; there it reads uint8 zero points as 8 (the test shows that they change nothing)."""
    ort.need()
    zp = "float32" if "float" in kind else "uint8" if "uint8" in kind else None
    rng = np.random.default_rng(len(kind) + rows)
    inputs = _inputs(rng, 300, 37, 32, rows, zero_points=zp, g_idx="g_idx" in kind)
    want = _check(inputs, {"K": 300, "N": 37, "bits": 4, "block_size": 32})
    if zp == "uint8":
        inputs[3] = None
        _same(_check(inputs, {"K": 300, "N": 37, "bits": 4, "block_size": 32}), want, "uint8 zero points read as 8")


@pytest.mark.parametrize("shape", [(2, 1, 300), (1, 1, 300), (3, 2, 300)])
def test_leading_axes_are_stacked(shape):
    """A's leading axes are stacked into the rows of one product: (2, 1, K) is two rows, not two one-row
    products."""
    ort.need()
    inputs = _inputs(np.random.default_rng(len(shape)), 300, 37, 32)
    inputs[0] = np.random.default_rng(9).standard_normal(shape).astype(F32)
    _check(inputs, {"K": 300, "N": 37, "bits": 4, "block_size": 32})


def test_accuracy_levels_below_four_and_b_inputs_compute_alike():
    """accuracy_level 1 to 3 are level 0's kernels; with 4, a B that is not a constant still goes through the
    dequantize-then-SGEMM path."""
    ort.need()
    inputs = _inputs(np.random.default_rng(2), 300, 37, 32, 1)
    for level in (1, 3):
        _check(inputs, {"K": 300, "N": 37, "bits": 4, "block_size": 32, "accuracy_level": level})
    _check(inputs, {"K": 300, "N": 37, "bits": 4, "block_size": 32, "accuracy_level": 4}, b_constant=False)


@pytest.mark.parametrize("bits", [4, 8])
@pytest.mark.parametrize("block", [16, 32, 64, 128, 256])
@pytest.mark.parametrize("rows", [1, 2, 3, 5])
@pytest.mark.parametrize("variant", ["zero points and bias", "neither"])
def test_int8_products_as_onnx_runtime(bits, block, rows, variant):
    """accuracy_level=4: A quantized to int8 per block, integer products with the 4- or 8-bit codes, MLAS's lanes
    (every block size's kernel, whole groups of blocks and the blocks left, rows in pairs and alone, N % 4 columns).
    On Arm, whose int8 kernels are other ones, intdot says that it does not model them."""
    ort.need()
    plain = variant == "neither"
    k = 7 * block + 5  # blocks left over after the kernels' groups, and a last one cut short
    inputs = _inputs(np.random.default_rng(block + rows), k, 37, block, rows, bits,
                     zero_points=None if plain else "uint8", bias=not plain)  # fmt: skip
    attrs = {"K": k, "N": 37, "bits": bits, "block_size": block, "accuracy_level": 4}
    if ort.on_arm():
        with pytest.raises(OperandError, match="accuracy_level=4 .* modelled for 4 and 8 bits on x86"):
            matmul_nbits(*inputs, k=k, n=37, bits=bits, block_size=block, accuracy_level=4, platform=ort.platform())
        return
    want = _check(inputs, attrs)
    exact = inputs[0].astype(np.float64) @ _dequantized(inputs, k, 37, block, bits).T
    assert np.abs(want - exact).max() > 1e-3 * np.abs(exact).max()  # A's int8 rounding shows: not level 0's path


def _dequantized(inputs, k, n, block, bits=4):
    """(N, K) float64: the weights as ONNX defines them, ``(q - zero_point) * scale`` (zero point 2**(bits - 1) by
    default), for 4 or 8 bits."""
    _, b, scales, z, _, _ = inputs
    blocks = -(-k // block)
    unpack = (lambda x: np.stack([x & 15, x >> 4], -1).reshape(n, -1)) if bits == 4 else (lambda x: x.reshape(n, -1))
    q = unpack(b).reshape(n, blocks, block).astype(np.float64)
    zp = np.full((n, blocks), 2.0 ** (bits - 1)) if z is None else unpack(z)[:, :blocks].astype(np.float64)
    return ((q - zp[:, :, None]) * scales.reshape(n, blocks, 1)).reshape(n, -1)[:, :k]


def test_one_row_kernel_is_not_a_plain_chain():
    """The one-row kernel's lanes give other bits than one multiply-add chain (what several rows get): the tests
    above can tell the two paths apart."""
    ort.need()
    inputs = _inputs(np.random.default_rng(5), 1000, 64, 64, 1)
    want = _check(inputs, {"K": 1000, "N": 64, "bits": 4, "block_size": 64})
    two = [np.concatenate([inputs[0], inputs[0]]), *inputs[1:]]
    chain = matmul_nbits(*two, k=1000, n=64, bits=4, block_size=64, platform=ort.platform())[:1]
    assert not np.array_equal(want, chain)


@pytest.mark.parametrize(
    "change,match",
    [
        ({"accuracy_level": 4, "platform": "arm"}, "accuracy_level=4 .* modelled for 4 and 8 bits on x86"),
        ({"accuracy_level": 4, "bits": 2}, "accuracy_level=4 .* modelled for 4 and 8 bits on x86"),
        ({"k": 299}, r"A has shape \(3, 300\): expected its last axis K=299"),
        ({"bits": 3}, "bits=3: expected 2, 4 or 8"),
        ({"block_size": 24}, "block_size=24: expected a power of 2, at least 16"),
        ({"n": 36}, r"B has shape \(37, 10, 16\) \(5920 values\): expected 5760"),
        ({"scales": np.ones(5, F32)}, r"scales has shape \(5,\) \(5 values\): expected 370"),
        ({"g_idx": np.full(300, 10, np.int32)}, r"g_idx holds 10..10: expected block indices in \[0, 10\)"),
        ({"g_idx": np.zeros(300, np.int32), "bits": 8}, "bits=8 with g_idx"),
    ],
)
def test_bad_input_is_named(change, match):
    a, b, scales, z, g, bias = _inputs(np.random.default_rng(0), 300, 37, 32, bits=change.get("bits", 4))
    kw = {"k": 300, "n": 37, "bits": 4, "block_size": 32, "scales": scales, "g_idx": g} | change
    if "platform" not in change:
        kw["platform"] = "x86"
    with pytest.raises(OperandError, match=match):
        matmul_nbits(a, b, kw.pop("scales"), z, kw.pop("g_idx"), bias, **kw)


def _mlp(rng, k, hidden, n):
    """A float model: MatMul, Relu, MatMul (weights as initializers), input (rows, k)."""
    w1 = (rng.standard_normal((k, hidden)) * 0.1).astype(F32)
    w2 = (rng.standard_normal((hidden, n)) * 0.1).astype(F32)
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["h"]), helper.make_node("Relu", ["h"], ["r"]),
             helper.make_node("MatMul", ["r", "w2"], ["y"])]  # fmt: skip
    graph = helper.make_graph(
        nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["rows", k])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["rows", n])],
        [helper.make_tensor(name, TensorProto.FLOAT, w.shape, w.ravel()) for name, w in (("w1", w1), ("w2", w2))],
    )  # fmt: skip
    return helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize("block,symmetric,level", [(32, False, 0), (128, True, 0), (16, False, 0), (32, False, 4),
                                                   (128, True, 4)])  # fmt: skip
def test_quantizer_models_as_onnx_runtime(block, symmetric, level):
    """A float MLP quantized by ``MatMulNBitsQuantizer`` (4 bits; accuracy level 0, or 4 for int8 products), run by
    ``intdot.quant.run`` and by ONNX Runtime: one row (decoding) and several (a prompt), every output bit for
    bit."""
    ort.need()
    if level == 4 and ort.on_arm():
        pytest.skip("ONNX Runtime's int8 MatMulNBits kernels on Arm are not modelled (test_int8_products: the error)")
    try:
        from onnxruntime.quantization.matmul_nbits_quantizer import DefaultWeightOnlyQuantConfig, MatMulNBitsQuantizer
    except ImportError:  # it imports onnx_ir, which onnxruntime does not require
        missing("onnxruntime's MatMulNBitsQuantizer", "pip install onnx-ir (make test installs it)")

    rng = np.random.default_rng(block + level)
    config = DefaultWeightOnlyQuantConfig(block_size=block, is_symmetric=symmetric, accuracy_level=level or None)
    quantizer = MatMulNBitsQuantizer(_mlp(rng, 200, 96, 50), algo_config=config)
    quantizer.process()
    model = quantizer.model.model
    assert [n.op_type for n in model.graph.node].count("MatMulNBits") == 2
    session = ort.session(model)
    for rows in (1, 5):
        x = rng.standard_normal((rows, 200)).astype(F32)
        want = session.run(None, {"x": x})[0]
        _same(quant.run(model, {"x": x}, op="sdot4", platform=ort.platform())["y"], want, (block, rows))


@pytest.mark.parametrize("k,n,block", [(300, 37, 32), (77, 9, 16), (520, 40, 128)])
def test_x86_avx2_as_onnx_runtime(k, n, block):
    """QEMU's Haswell CPU (no AVX-512): one row through MLAS's AVX2 kernel (8 lanes, its own last outputs' sum),
    several and a B input as on AVX-512."""
    from ..oracles import x86_ort

    x86_ort.require()
    for rows, zero_points, b_constant in ((1, None, True), (1, "uint8", True), (3, "uint8", True), (1, None, False)):
        inputs = _inputs(np.random.default_rng(k + rows), k, n, block, rows, zero_points=zero_points)
        const = tuple(i for i in range(1 if b_constant else 2, 6) if inputs[i] is not None)
        attrs = {"K": k, "N": n, "bits": 4, "block_size": block}
        model = ort.node_model("MatMulNBits", inputs, attrs, TensorProto.FLOAT, opset=17, const=const, domain=MS)
        feeds = {f"in{i}": v for i, v in enumerate(inputs) if v is not None and i not in const}
        want = x86_ort.Session(model.SerializeToString()).run(None, feeds)[0]
        got = matmul_nbits(*inputs, k=k, n=n, bits=4, block_size=block, b_constant=b_constant, platform="x86-avx2")
        _same(got, want, (rows, zero_points, b_constant))


@pytest.mark.parametrize("bits", [4, 8])
@pytest.mark.parametrize("block", [16, 32, 64, 128, 256])
def test_x86_avx2_int8_products_as_onnx_runtime(bits, block):
    """accuracy_level=4 on QEMU's Haswell CPU: MLAS's AVX2 int8 kernels (8 lanes in their vphaddw layout, blocks
    in pairs or fours, the blocks left apart; one row of 4-bit weights, for blocks of 32 and more, through kernels
    that take the zero points into the codes and have no second product; 8-bit weights in blocks of 64 and more
    in their own layout), with and without zero points, 1 to 3 rows."""
    from ..oracles import x86_ort

    x86_ort.require()
    k = 7 * block + 5
    for rows, zero_points in ((1, None), (1, "uint8"), (2, None), (3, "uint8")):
        inputs = _inputs(np.random.default_rng(block + rows), k, 37, block, rows, bits, zero_points=zero_points,
                         bias=zero_points is not None)  # fmt: skip
        const = tuple(i for i in range(1, 6) if inputs[i] is not None)
        attrs = {"K": k, "N": 37, "bits": bits, "block_size": block, "accuracy_level": 4}
        model = ort.node_model("MatMulNBits", inputs, attrs, TensorProto.FLOAT, opset=17, const=const, domain=MS)
        want = x86_ort.Session(model.SerializeToString()).run(None, {"in0": inputs[0]})[0]
        got = matmul_nbits(*inputs, k=k, n=37, bits=bits, block_size=block, accuracy_level=4, platform="x86-avx2")
        _same(got, want, (rows, zero_points))


@pytest.mark.parametrize("level", [0, 4])
@pytest.mark.parametrize("rows,b_constant", [(1, True), (3, True), (1, False)])
def test_float16_as_onnx_runtime(level, rows, b_constant):
    """float16 A, scales and bias: widened to float32, computed as float32 and rounded to float16 (x86); on Arm,
    whose float16 kernels are its own, intdot says it does not model them."""
    ort.need()
    inputs = _inputs(np.random.default_rng(rows + level), 300, 37, 32, rows)
    for i in (0, 2, 5):
        inputs[i] = inputs[i].astype(np.float16)
    attrs = {"K": 300, "N": 37, "bits": 4, "block_size": 32, "accuracy_level": level}
    if ort.on_arm():
        with pytest.raises(OperandError, match="float16 MatMulNBits kernels are not modelled"):
            matmul_nbits(*inputs, k=300, n=37, bits=4, block_size=32, platform=ort.platform())
        return
    const = tuple(i for i in range(1 if b_constant else 2, 6) if inputs[i] is not None)
    want = ort.run("MatMulNBits", inputs, attrs, out_type=TensorProto.FLOAT16, opset=17, const=const, domain=MS)
    model = ort.node_model("MatMulNBits", inputs, attrs, TensorProto.FLOAT16, opset=17, const=const, domain=MS)
    feeds = {f"in{i}": v for i, v in enumerate(inputs) if v is not None and i not in const}
    got = quant.run(model, feeds, op="sdot4", platform=ort.platform())["y"]
    assert got.dtype == np.float16 and np.array_equal(got.view(np.int16), want.view(np.int16))
