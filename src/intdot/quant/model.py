"""Whole quantized ONNX models: every integer node through a chosen instruction, the rest through
``onnx.reference``.

The model runs in ONNX's own reference evaluator with its integer operators (``MatMulInteger``,
``QLinearMatMul``, ``ConvInteger``, ``QLinearConv``, and ONNX Runtime's ``QGemm``, ``QLinearAdd``,
``QLinearMul``, ``QLinearGlobalAveragePool``, ``QLinearAveragePool``, ``QLinearConcat``, ``QLinearSigmoid``,
``QLinearLeakyRelu``, ``QLinearSoftmax`` and ``QLinearWhere``) overridden by :mod:`intdot.quant`'s, and its
``QuantizeLinear``/``DequantizeLinear``/``DynamicQuantizeLinear`` by intdot's (which compute as ONNX Runtime
does, see :mod:`intdot.quant.linear`).  A QDQ model (``DequantizeLinear -> MatMul/Conv -> QuantizeLinear``, as
``onnxruntime.quantization`` writes it by default) first has the groups that ONNX Runtime's graph optimizer turns
into integer nodes turned into them, by its rules (:mod:`intdot.quant.qdq`); the rest runs in float, as in ONNX
Runtime.
"""

from __future__ import annotations

import functools
import inspect
import os

import numpy as np

from ..core.errors import IntdotError, OperandError, OperandTypeError, quote
from ..core.values import check_choice, describe, describe_all
from ._args import INTDOT_DOMAIN as _INTDOT_DOMAIN
from .requant import METHODS


def _label(node) -> str:
    """A node as messages name it: names come from the model file, so they are quoted (and cut) like any input."""
    return quote(node.name) if node.name else "(unnamed)"


def _names(names) -> str:
    """Input names as messages list them: each cut, without quotes, eight at most and the count."""
    return describe_all(names, show=lambda n: quote(str(n), marks=False))


# The nodes whose products run through the instruction (the last is intdot's rewrite of quantize_dynamic's chain
# on Arm with SME, quant.dynamic_arm).
INTEGER = (
    "MatMulInteger",
    "QLinearMatMul",
    "ConvInteger",
    "QLinearConv",
    "QGemm",
    "DynamicQuantizeMatMulSME",
    "QAttention",
)
# ONNX Runtime's own operators that run here (what its optimizer makes of QDQ Gemm, Add and Mul groups).
_MS_DOMAIN = "com.microsoft"
_MS_OPS = (
    "QGemm",
    "QLinearAdd",
    "QLinearMul",
    "QLinearGlobalAveragePool",
    "QLinearAveragePool",
    "QLinearConcat",
    "QLinearSigmoid",
    "QLinearLeakyRelu",
    "QLinearSoftmax",
    "QLinearWhere",
    "Gelu",
    "BiasGelu",
    "QuickGelu",
    "SkipLayerNormalization",
    "SkipSimplifiedLayerNormalization",
    "FusedMatMul",
    "FastGelu",
    "EmbedLayerNormalization",
    "MatMulNBits",
    "Attention",
    "QAttention",
    "MultiHeadAttention",
    "GroupQueryAttention",
    "RotaryEmbedding",
    "GatherBlockQuantized",
)


def _onnx():
    try:
        import onnx
        import onnx.reference  # noqa: F401
    except ImportError:
        raise IntdotError("running ONNX models needs the 'onnx' extra: pip install 'intdot[onnx]'") from None
    return onnx


def load(model):
    """An ``onnx.ModelProto`` from a model, a path or the serialized bytes; one without a graph (what an empty
    file or stray bytes parse as) is an error."""
    onnx = _onnx()
    if isinstance(model, onnx.ModelProto):
        return _has_graph(model, "model (an onnx.ModelProto)")
    if isinstance(model, (bytes, bytearray)):
        what = f"model ({len(model)} bytes)"
        try:
            return _has_graph(onnx.load_from_string(bytes(model)), what)
        except IntdotError:
            raise
        except Exception as exc:  # noqa: BLE001 - protobuf's DecodeError and friends
            raise OperandError(f"{what} is not an ONNX model: {_first_line(exc)}") from None
    if isinstance(model, (str, os.PathLike)):
        path = os.fspath(model)
        what = f"model={quote(str(path))}"
        try:
            return _has_graph(onnx.load(path), what)
        except IntdotError:
            raise
        except OSError as exc:  # a missing file, a directory, no permission
            raise OperandError(f"{what}: cannot read it: {exc.strerror or exc}") from None
        except Exception as exc:  # noqa: BLE001 - protobuf's DecodeError and friends: not an ONNX file
            raise OperandError(f"{what} is not an ONNX model: {_first_line(exc)}") from None
    raise OperandTypeError(f"model={describe(model)}: expected an onnx.ModelProto, a path or bytes")


def _first_line(exc: Exception) -> str:
    return (str(exc).splitlines() or [type(exc).__name__])[0] or type(exc).__name__


def _has_graph(m, what: str):
    # Protobuf parses any byte string it can, the empty one included, as a model with nothing set.
    if not m.HasField("graph"):
        raise OperandError(f"{what} is not an ONNX model: it has no graph (an empty file parses as one)")
    if not m.graph.node:
        raise OperandError(f"{what} has a graph with no nodes: nothing to run (expected a quantized model)")
    return m


# ---------------------------------------------------------------------------
# The evaluator's overrides.
# ---------------------------------------------------------------------------


def _attr(node_run, name, default):
    v = getattr(node_run, name, None)
    if v is None:
        return default
    if isinstance(v, bytes):
        return v.decode()
    if isinstance(v, np.ndarray):
        return v.tolist()
    return v


def _conv_attrs(node_run) -> dict:
    return {
        "auto_pad": _attr(node_run, "auto_pad", "NOTSET"),
        "dilations": _attr(node_run, "dilations", None),
        "group": int(_attr(node_run, "group", 1)),
        "kernel_shape": _attr(node_run, "kernel_shape", None),
        "pads": _attr(node_run, "pads", None),
        "strides": _attr(node_run, "strides", None),
    }


def _overrides(op, target, requant, opset, platform, facts, l2_cache_size=None, threads=1):
    """The operators ``run`` computes itself; ``facts``: the :class:`Prepared` model's findings about its graph."""
    nchwc, constants, transposed = facts.nchwc, facts.constants, facts.transposed
    from onnx.reference.op_run import OpRun
    from onnx.reference.ops import (
        op_average_pool,
        op_batch_normalization,
        op_gemm,
        op_reduce_l1,
        op_reduce_l2,
        op_reduce_log_sum,
        op_reduce_log_sum_exp,
        op_reduce_mean,
        op_reduce_prod,
        op_reduce_sum,
        op_reduce_sum_square,
    )
    from onnx.reference.ops.op_conv import Conv as _ReferenceConv
    from onnx.reference.ops.op_einsum import Einsum as _ReferenceEinsum
    from onnx.reference.ops.op_erf import Erf as _ReferenceErf
    from onnx.reference.ops.op_exp import Exp as _ReferenceExp
    from onnx.reference.ops.op_global_average_pool import GlobalAveragePool as _ReferenceGlobalAveragePool
    from onnx.reference.ops.op_global_max_pool import GlobalMaxPool as _ReferenceGlobalMaxPool
    from onnx.reference.ops.op_instance_normalization import InstanceNormalization as _ReferenceInstanceNorm
    from onnx.reference.ops.op_layer_normalization import LayerNormalization as _ReferenceLayerNorm
    from onnx.reference.ops.op_log_softmax import LogSoftmax as _ReferenceLogSoftmax
    from onnx.reference.ops.op_matmul import MatMul as _ReferenceMatMul
    from onnx.reference.ops.op_max_pool import MaxPool as _ReferenceMaxPool
    from onnx.reference.ops.op_pow import Pow as _ReferencePow
    from onnx.reference.ops.op_resize import Resize as _ReferenceResize
    from onnx.reference.ops.op_rms_normalization import RMSNormalization as _ReferenceRMSNorm
    from onnx.reference.ops.op_sigmoid import Sigmoid as _ReferenceSigmoid
    from onnx.reference.ops.op_softmax import Softmax as _ReferenceSoftmax
    from onnx.reference.ops.op_tanh import Tanh as _ReferenceTanh

    from . import (
        attention,
        conv,
        dynamic_arm,
        embed_layer_norm,
        float_conv,
        float_kernels,
        group_query_attention,
        layer_norm,
        libm,
        linear,
        matmul,
        normalization,
        onnx_fixes,
        pooling,
        qlinear_binary,
        qlinear_lookup,
        qlinear_pool,
        quant_gemm,
        reduce,
        resize,
        sgemm,
        skip_layer_norm,
    )
    from ._args import float_platform, text
    from .fma import fma32
    from .matmul_nbits import matmul_nbits  # the package exports the function under the module's name
    from .nchwc import DOMAIN as NCHWC_DOMAIN
    from .nchwc import UPSAMPLE_TRANSFORMS, upsample_scales
    from .nchwc import run_node as nchwc_node
    from .nchwc import upsample as nchwc_upsample
    from .qlinear_concat import qlinear_concat  # the same
    from .qlinear_softmax import qlinear_softmax  # the same

    requantizing = {"op": op, "target": target, "requant": requant, "platform": platform}

    def named(node_run, fn):
        """Bad input to an integer node is reported with the node's name and type."""
        try:
            return fn()
        except IntdotError as exc:
            node = node_run.onnx_node
            raise type(exc)(f"node {_label(node)} ({quote(node.op_type, marks=False)}): {exc}") from None

    class MatMulInteger(OpRun):
        def _run(self, a, b, a_zero_point=None, b_zero_point=None):
            return (named(self, lambda: matmul.matmul_integer(a, b, a_zero_point, b_zero_point, op=op, target=target)),)

    class QLinearMatMul(OpRun):
        def _run(self, *args):
            return (named(self, lambda: matmul.qlinear_matmul(*args, **requantizing)),)

    class ConvInteger(OpRun):
        def _run(self, x, w, x_zero_point=None, w_zero_point=None, **_):
            kw = _conv_attrs(self)
            return (
                named(self, lambda: conv.conv_integer(x, w, x_zero_point, w_zero_point, op=op, target=target, **kw)),
            )

    class QLinearConv(OpRun):
        def _run(self, *args, **_):
            kw = _conv_attrs(self)
            return (named(self, lambda: conv.qlinear_conv(*args, **kw, **requantizing)),)

    class _Microsoft(OpRun):
        op_domain = _MS_DOMAIN  # ONNX Runtime's operators

    class QGemm(_Microsoft):
        def _run(self, *args, **_):
            kw = {k: _attr(self, k, d) for k, d in (("alpha", 1.0), ("transA", 0), ("transB", 0))}
            return (named(self, lambda: quant_gemm.qgemm(*args, **kw, **requantizing)),)

    class QLinearAdd(_Microsoft):
        def _run(self, *args):
            return (named(self, lambda: qlinear_binary.qlinear_add(*args, platform=platform)),)

    class QLinearMul(_Microsoft):
        def _run(self, *args):
            return (named(self, lambda: qlinear_binary.qlinear_mul(*args, platform=platform)),)

    class QLinearGlobalAveragePool(_Microsoft):
        def _run(self, *args, **_):
            last = int(_attr(self, "channels_last", 0))
            kw = {"channels_last": last, "platform": platform}
            return (named(self, lambda: qlinear_pool.qlinear_global_average_pool(*args, **kw)),)

    class QLinearAveragePool(_Microsoft):
        def _run(self, *args, **_):
            kw = {
                k: _attr(self, k, d)
                for k, d in (
                    ("auto_pad", "NOTSET"),
                    ("ceil_mode", 0),
                    ("count_include_pad", 0),
                    ("dilations", None),
                    ("kernel_shape", None),
                    ("pads", None),
                    ("strides", None),
                    ("channels_last", 0),
                )
            }
            return (named(self, lambda: qlinear_pool.qlinear_average_pool(*args, platform=platform, **kw)),)

    class QLinearConcat(_Microsoft):
        def _run(self, *args, **_):
            axis = _attr(self, "axis", None)
            return (named(self, lambda: qlinear_concat(*args, axis=axis)),)

    class QLinearSigmoid(_Microsoft):
        def _run(self, *args, **_):
            return (named(self, lambda: qlinear_lookup.qlinear_sigmoid(*args, platform=platform)),)

    class QLinearLeakyRelu(_Microsoft):
        def _run(self, *args, **_):
            alpha = _attr(self, "alpha", 0.01)
            return (named(self, lambda: qlinear_lookup.qlinear_leaky_relu(*args, alpha=alpha)),)

    class QLinearSoftmax(_Microsoft):
        def _run(self, *args, **_):
            kw = {"axis": _attr(self, "axis", None), "opset": _attr(self, "opset", None)}
            return (named(self, lambda: qlinear_softmax(*args, **kw)),)

    class QLinearWhere(_Microsoft):
        def _run(self, *args):
            return (named(self, lambda: qlinear_lookup.qlinear_where(*args)),)

    class MulAdd(OpRun):
        op_domain = dynamic_arm.DOMAIN  # quantize_dynamic's scale and bias in one rounding, as on Arm

        def _run(self, a, b, c):
            return (fma32(a, b, c),)

    class DynamicQuantizeMatMulSME(OpRun):
        op_domain = dynamic_arm.DOMAIN  # quantize_dynamic's MatMul as KleidiAI computes it on Arm with SME

        def _run(self, x, w, w_scale, bias=None):
            kw = {"op": op, "target": target}
            return (named(self, lambda: dynamic_arm.dynamic_quantize_matmul_sme(x, w, w_scale, bias, **kw)),)

    class QuantizeLinear(OpRun):
        def _run(self, x, y_scale, y_zero_point=None, **_):
            kw = {"axis": int(_attr(self, "axis", 1)), "block_size": int(_attr(self, "block_size", 0) or 0)}
            if getattr(self, "output_dtype", None):
                kw["output_dtype"] = int(self.output_dtype)
            if opset >= 23:  # the division's type: the precision attribute, else y_scale's (float32 before 23)
                kw["precision"] = int(_attr(self, "precision", 0) or 0) or getattr(y_scale, "dtype", None)
            return (named(self, lambda: linear.quantize_linear(x, y_scale, y_zero_point, **kw)),)

    class DequantizeLinear(OpRun):
        def _run(self, x, x_scale, x_zero_point=None, **_):
            kw = {"axis": int(_attr(self, "axis", 1)), "block_size": int(_attr(self, "block_size", 0) or 0)}
            if int(_attr(self, "output_dtype", 0) or 0):  # opset 23+
                kw["output_dtype"] = int(self.output_dtype)
            return (named(self, lambda: linear.dequantize_linear(x, x_scale, x_zero_point, **kw)),)

    class DynamicQuantizeLinear(OpRun):
        def _run(self, x):
            return named(self, lambda: linear.dynamic_quantize_linear(x))

    class Resize(_ReferenceResize):
        """ONNX Runtime's linear Resize, and its nearest one where it reads other elements (:mod:`.resize`)."""

        def _run(self, x, roi=None, scales=None, sizes=None, **kw):
            mode = kw.get("mode") or "nearest"
            transform = kw.get("coordinate_transformation_mode") or "half_pixel"
            scales = None if scales is None or np.size(scales) == 0 else np.asarray(scales, np.float32)
            sizes = None if sizes is None or np.size(sizes) == 0 else np.asarray(sizes)
            options = {k: kw.get(k) for k in ("axes", "antialias", "exclude_outside", "keep_aspect_ratio_policy")}
            if self.onnx_node.output[0] in facts.upsampled and transform in UPSAMPLE_TRANSFORMS and (
                    options["axes"] is None and x.ndim == 4 and x.dtype == np.float32):  # fmt: skip
                whole = upsample_scales(x.shape, scales, sizes)
                if whole is not None:  # x86's NCHWc layout: its Upsample kernel
                    return (nchwc_upsample(x, whole, transform),)
            if not resize.covered(x, mode, transform, scales=scales, sizes=sizes, **options):
                return super()._run(x, roi, scales, sizes, **kw)
            extra = {"extrapolation_value": kw.get("extrapolation_value") or 0.0}
            extra["nearest_mode"] = kw.get("nearest_mode") or "round_prefer_floor"
            return (resize.resize(x, mode, transform, scales=scales, sizes=sizes, roi=roi, platform=family, **extra),)

    family = float_platform(platform)  # the float kernels: x86 with AVX-512F, x86 without it, or Arm

    class Sigmoid(_ReferenceSigmoid):
        """float32 as ONNX Runtime's MLAS kernel computes it (:mod:`.float_kernels`); other types as written."""

        def _run(self, x):
            return (float_kernels.logistic(x, family),) if x.dtype == np.float32 else super()._run(x)

    class HardSigmoid(OpRun):
        """float32 with Arm's fused multiply-add (:func:`.float_kernels.hard_sigmoid`)."""

        def _run(self, x, alpha=None, beta=None):
            alpha, beta = 0.2 if alpha is None else alpha, 0.5 if beta is None else beta
            if x.dtype != np.float32:
                return (np.clip(x * alpha + beta, 0, 1).astype(x.dtype),)
            return (float_kernels.hard_sigmoid(x, alpha, beta, family),)

    class Tanh(_ReferenceTanh):
        def _run(self, x):
            return (float_kernels.tanh(x),) if x.dtype == np.float32 else super()._run(x)

    class Exp(_ReferenceExp):
        def _run(self, x):
            return (float_kernels.exp(x, family),) if x.dtype == np.float32 else super()._run(x)

    _ReferenceBatchNorm = next((getattr(op_batch_normalization, f"BatchNormalization_{v}") for v in (14, 9)
                                if v <= opset), op_batch_normalization.BatchNormalization_6)  # fmt: skip

    class BatchNormalization(_ReferenceBatchNorm):
        """float32 inference as ONNX Runtime's kernel computes it (:func:`.normalization.batch_norm`)."""

        def _run(self, x, scale, bias, mean, var, **kw):
            params = (scale, bias, mean, var)
            if (kw.get("training_mode") or kw.get("spatial") == 0 or x.ndim < 2 or x.dtype != np.float32
                    or any(p.dtype != np.float32 or p.shape != (x.shape[1],) for p in params)):  # fmt: skip
                return super()._run(x, *params, **kw)
            epsilon = 1e-5 if kw.get("epsilon") is None else kw["epsilon"]
            return (normalization.batch_norm(x, *params, epsilon, family),)

    class LayerNormalization(_ReferenceLayerNorm):
        """float32 as ONNX Runtime's kernel computes it (:mod:`.layer_norm`)."""

        def _run(self, X, Scale, B=None, axis=None, epsilon=None, stash_type=None):
            if X.dtype != np.float32:
                return super()._run(X, Scale, B, axis=axis, epsilon=epsilon, stash_type=stash_type)
            return _layer_norm(self, X, Scale, B, axis, epsilon, simplified=False)

    class SimplifiedLayerNormalization(OpRun):
        """ONNX Runtime's RMSNorm, which it registers in ONNX's domain (its fusions write it; onnx has none)."""

        def _run(self, X, Scale, axis=None, epsilon=None, stash_type=None):
            return _layer_norm(self, X, Scale, None, axis, epsilon, simplified=True)

    class RMSNormalization(_ReferenceRMSNorm):
        def _run(self, X, scale, axis=None, epsilon=None, stash_type=None):
            if X.dtype != np.float32:
                return super()._run(X, scale, axis=axis, epsilon=epsilon, stash_type=stash_type)
            return _layer_norm(self, X, scale, None, axis, epsilon, simplified=True)

    def _layer_norm(node_run, x, scale, bias, axis, epsilon, simplified):
        axis, epsilon = -1 if axis is None else axis, 1e-5 if epsilon is None else epsilon
        outputs = len(node_run.onnx_node.output)
        return named(node_run, lambda: layer_norm.layer_norm(x, scale, bias, axis, epsilon, family,
                                                             simplified=simplified, outputs=outputs))  # fmt: skip

    def _skip_layer_norm(node_run, inputs, simplified):
        """ONNX Runtime's SkipLayerNormalization or SkipSimplifiedLayerNormalization (:mod:`.skip_layer_norm`):
        ``(output, mean, inv_std_var, input_skip_bias_sum)``, of which its CPU kernel writes the first and last."""
        names = list(node_run.onnx_node.output)
        if any(names[1:3]):
            raise OperandError(
                f"node {_label(node_run.onnx_node)}: its output {quote(next(n for n in names[1:3] if n))} (mean or "
                "inv_std_var) is one ONNX Runtime's CPU kernel does not write; expected only output and "
                "input_skip_bias_sum"
            )
        epsilon = _attr(node_run, "epsilon", skip_layer_norm.DEFAULT_EPSILON)
        x, skip, gamma, *rest = inputs
        beta, bias = (None, rest[0] if rest else None) if simplified else ((rest + [None, None])[:2])
        y, total = named(node_run, lambda: skip_layer_norm.skip_layer_norm(
            x, skip, gamma, beta, bias, epsilon, family, simplified=simplified))  # fmt: skip
        unwritten = np.zeros(0, np.float32)  # outputs named "" (onnx.reference takes no None for them)
        return (y, unwritten, unwritten, total)[: len(names)]

    class EmbedLayerNormalization(_Microsoft):
        """ONNX Runtime's BERT embeddings node (:mod:`.embed_layer_norm`): output, mask_index, embedding_sum."""

        def _run(self, *inputs, **_):
            names = ("input_ids", "segment_ids", "word", "position", "segment", "gamma", "beta", "mask", "position_ids")
            given = dict(zip(names, list(inputs) + [None] * (len(names) - len(inputs))))
            epsilon = _attr(self, "epsilon", embed_layer_norm.DEFAULT_EPSILON)
            out = named(self, lambda: embed_layer_norm.embed_layer_norm(**given, epsilon=epsilon, platform=family))
            return out[: len(self.onnx_node.output)]

    class SkipLayerNormalization(_Microsoft):
        def _run(self, *inputs, **_):
            return _skip_layer_norm(self, inputs, simplified=False)

    class SkipSimplifiedLayerNormalization(_Microsoft):
        def _run(self, *inputs, **_):
            return _skip_layer_norm(self, inputs, simplified=True)

    def _reduction(module, name, versions):
        """``name`` in float32 as ONNX Runtime's kernel adds (:mod:`.reduce`); the node's version of onnx.reference's
        class (axes an attribute, or from ``versions[0]`` an input) for the rest."""
        base = next(getattr(module, f"{name}_{v}") for v in (*versions, 1) if v <= opset)

        def _run(self, data, axes=None, keepdims=None, noop_with_empty_axes=None):
            options = {"keepdims": keepdims} if noop_with_empty_axes is None else {
                "keepdims": keepdims, "noop_with_empty_axes": noop_with_empty_axes}  # fmt: skip
            covered = reduce.reduced_axes(np.ndim(data), axes, noop_with_empty_axes)
            if covered is None or data.dtype != np.float32 or data.size == 0:
                return base._run(self, data, axes, **options)
            return (reduce.reduce(data, covered, keepdims in (None, 1), name, family),)

        return type(name, (base,), {"_run": _run, "__doc__": _reduction.__doc__})

    reductions = [
        _reduction(module, name, (13,) if name == "ReduceSum" else (18,))
        for module, name in ((op_reduce_sum, "ReduceSum"), (op_reduce_mean, "ReduceMean"),
                             (op_reduce_sum_square, "ReduceSumSquare"), (op_reduce_l2, "ReduceL2"),
                             (op_reduce_l1, "ReduceL1"), (op_reduce_log_sum, "ReduceLogSum"),
                             (op_reduce_prod, "ReduceProd"), (op_reduce_log_sum_exp, "ReduceLogSumExp"))
    ]  # fmt: skip

    class InstanceNormalization(_ReferenceInstanceNorm):
        """float32 as ONNX Runtime's kernel computes it (:func:`.normalization.instance_norm`)."""

        def _run(self, x, s, bias, epsilon=None):
            c = x.shape[1] if x.ndim >= 2 else -1
            if x.ndim < 3 or any(a.dtype != np.float32 or a.shape != (c,) for a in (s, bias)) or x.dtype != np.float32:
                return super()._run(x, s, bias, epsilon)
            return (normalization.instance_norm(x, s, bias, 1e-5 if epsilon is None else epsilon, family),)

    class Pow(_ReferencePow):
        """float32 as ONNX Runtime's kernel computes it: to a one-element exponent of 2 or 3 ``x * x`` and ``(x * x)
        * x`` (not ``powf``'s one rounding); to other float32 exponents glibc's ``powf`` (:func:`.libm.powf`).  Other
        types by onnx.reference."""

        def _run(self, x, y):
            if x.dtype != np.float32:
                return super()._run(x, y)
            if np.size(y) != 1 or np.ndim(y) > 1 or float(np.ravel(y)[0]) not in (2.0, 3.0):
                if np.asarray(y).dtype != np.float32:
                    return super()._run(x, y)
                return (libm.powf(x, y),)
            shape = np.broadcast_shapes(x.shape, np.shape(y))
            square = (x * x).astype(np.float32)
            out = square if float(np.ravel(y)[0]) == 2.0 else (square * x).astype(np.float32)
            return (np.broadcast_to(out, shape).copy(),)

    class Erf(_ReferenceErf):
        def _run(self, x):
            return (float_kernels.erf(x),) if x.dtype == np.float32 else super()._run(x)

    def _gelu(self, x, approximate=None):
        return (float_kernels.gelu(x, approximate or "none", family),)

    class Gelu(OpRun):
        """onnx.reference runs Gelu through its function body; this computes ONNX Runtime's kernel."""

        _run = _gelu

    def _bias_gelu(self, a, b):  # its kernel adds the bias in float32 first: the bits of Add, then Gelu
        return (float_kernels.gelu((a + b).astype(a.dtype), "none", family),)

    def _quick_gelu(self, x, alpha=1.702):  # alpha * x, MLAS's logistic of it, times x
        a = np.float32(alpha)
        return ((x * float_kernels.logistic((a * x).astype(np.float32), family)).astype(np.float32),)

    def _fast_gelu(self, x, bias=None):  # the tanh approximation, of x + bias where there is one
        return (float_kernels.gelu(x if bias is None else (x + bias).astype(x.dtype), "tanh", family),)

    # ONNX Runtime's GeluFusion writes com.microsoft:Gelu before opset 20 and its FastGeluFusion FastGelu
    # (quant.float_fusions), and models it has optimized hold them, BiasGelu and QuickGelu.
    ms_gelu = [type(name, (_Microsoft,), {"_run": fn}) for name, fn in (("Gelu", _gelu), ("BiasGelu", _bias_gelu),
               ("QuickGelu", _quick_gelu), ("FastGelu", _fast_gelu))]  # fmt: skip

    class Softmax(_ReferenceSoftmax):
        """Along the axis the node's version gives it (onnx.reference takes one axis at every version)."""

        def _run(self, x, axis=None):
            # Not self.axis: onnx.reference fills in the latest version's default (-1), where 1 applies up to 12.
            given = {a.name: a.i for a in self.onnx_node.attribute}.get("axis")
            return (float_kernels.softmax(x, given, opset, family),)

    class Conv(_ReferenceConv):
        """float32 as ONNX Runtime's MLAS convolution computes it (:mod:`.float_conv`); the Convs x86's NCHWc
        transformer takes are ``ai.intdot:NchwcConv`` nodes by now (:mod:`.nchwc`)."""

        def _run(self, X, W, B=None, **kw):
            floats = X.dtype == np.float32 and W.dtype == np.float32 and (B is None or B.dtype == np.float32)
            if not floats:
                return super()._run(X, W, B, **kw)
            kw = {k: v for k, v in kw.items() if v is not None}
            kw["auto_pad"] = text(kw.get("auto_pad"), "NOTSET")
            return (named(self, lambda: float_conv.conv(X, W, B, platform=family, **kw)),)

    class ConvAdd(OpRun):
        op_domain = NCHWC_DOMAIN  # a Conv and the Add after it, as ONNX Runtime's ConvAddActivationFusion makes them

        def _run(self, x, w, b, z, **_):
            kw = {k: v for k, v in _conv_attrs(self).items() if v is not None}
            return (named(self, lambda: float_conv.conv(x, w, b, z, platform=family, **kw)),)

    class NchwcConv(OpRun):
        op_domain = NCHWC_DOMAIN  # a Conv, BatchNormalization or Mul in ONNX Runtime's x86 NCHWc kernels

        def _run(self, x, *rest, **_):
            attrs = {a.name: _attr(self, a.name, None) for a in self.onnx_node.attribute}
            kind = text(attrs.pop("kind"), "conv")
            return (named(self, lambda: nchwc_node(kind, x, rest, attrs, family)),)

    class MatMul(_ReferenceMatMul):
        """float32 as ONNX Runtime's MLAS SGEMM adds it (:mod:`.sgemm`)."""

        def _run(self, a, b):
            if a.dtype != np.float32 or b.dtype != np.float32:
                return super()._run(a, b)
            ins = self.onnx_node.input
            flags = {
                "b_constant": ins[1] in constants,
                "trans_a": ins[0] in transposed,
                "trans_b": ins[1] in transposed,
            }
            return (named(self, lambda: sgemm.matmul(a, b, platform=family, threads=threads, **flags)),)

    class FusedMatMul(_Microsoft):
        """ONNX Runtime's MatMul with ``alpha`` and operands read transposed (its MatMulScaleFusion and
        MatmulTransposeFusion write it): float32 through :func:`.sgemm.matmul`."""

        def _run(self, a, b, **_):
            node = self.onnx_node
            if a.dtype != np.float32 or b.dtype != np.float32:
                raise OperandTypeError(f"node {_label(node)}: {a.dtype} x {b.dtype}; only float32 is modelled")
            if any(_attr(self, k, 0) for k in ("transBatchA", "transBatchB")):
                raise OperandError(f"node {_label(node)}: transBatchA and transBatchB are not modelled")
            operands, flags = [], {}
            for x, name, value in ((a, "A", node.input[0]), (b, "B", node.input[1])):
                given = bool(_attr(self, f"trans{name}", 0))
                if given and x.ndim < 2:
                    raise OperandError(f"node {_label(node)}: trans{name}=1 for a {x.ndim}-D {name}")
                operands.append(np.swapaxes(x, -1, -2) if given else x)
                # read transposed: by the node's flag, or where the value is a Transpose MLAS reads through
                flags[f"trans_{name.lower()}"] = given != (value in transposed)
            options = {"b_constant": node.input[1] in constants, "alpha": _attr(self, "alpha", 1.0)}
            return (named(self, lambda: sgemm.matmul(*operands, platform=family, threads=threads, **options, **flags)),)

    class Attention(_Microsoft):
        """ONNX Runtime's multi-head self-attention node (:mod:`.attention`): its output alone."""

        def _run(self, x, weights, bias, mask_index=None, past=None, attention_bias=None, *rest, **_):
            node = self.onnx_node
            if any(v is not None for v in rest) or len(node.output) > 2:
                raise OperandError(f"node {_label(node)}: Attention's past_sequence_length, and outputs past "
                                   "present, are not modelled; expected input, weights, bias, mask_index, past and "
                                   "attention_bias, and outputs output and present")  # fmt: skip
            for name in ("qkv_hidden_sizes", "do_rotary", "past_present_share_buffer"):
                if _attr(self, name, None):
                    raise OperandError(f"node {_label(node)}: Attention's {name} is not modelled")
            options = {k: _attr(self, k, d) for k, d in (("num_heads", None), ("unidirectional", 0), ("scale", 0.0),
                                                         ("mask_filter_value", -10000.0))}  # fmt: skip
            out, present = named(self, lambda: attention.attention(
                x, weights, bias, mask_index, past, attention_bias, **options,
                weights_constant=node.input[1] in constants,
                platform=family, with_present=True))  # fmt: skip
            return (out, present)[: len(node.output)]

    class QAttention(_Microsoft):
        """ONNX Runtime's quantized attention (quantize_dynamic's): the integer products on the instruction."""

        def _run(self, x, weights, bias, input_scale, weight_scale, mask_index=None, izp=None, wzp=None, past=None,
                 *rest, **_):  # fmt: skip
            node = self.onnx_node
            if any(v is not None for v in rest) or len(node.output) > 2:
                raise OperandError(f"node {_label(node)}: QAttention takes nine inputs and writes two outputs "
                                   "(output, present); more are not modelled")  # fmt: skip
            for name in ("do_rotary", "past_present_share_buffer"):
                if _attr(self, name, None):
                    raise OperandError(f"node {_label(node)}: QAttention's {name} is not modelled")
            options = {k: _attr(self, k, d) for k, d in (("num_heads", None), ("unidirectional", 0), ("scale", 0.0),
                                                         ("mask_filter_value", -10000.0))}  # fmt: skip
            out, present = named(self, lambda: attention.qattention(
                x, weights, bias, input_scale, weight_scale, mask_index, izp, wzp, past, **options, op=op,
                target=target, platform=family, with_present=True))  # fmt: skip
            return (out, present)[: len(node.output)]

    class MultiHeadAttention(_Microsoft):
        """ONNX Runtime's attention of projected Q, K and V (:func:`.attention.multihead_attention`)."""

        def _run(self, query, key=None, value=None, bias=None, key_padding_mask=None, attention_bias=None,
                 past_key=None, past_value=None, *rest, **_):  # fmt: skip
            node = self.onnx_node
            if key is None or value is None or any(v is not None for v in rest) or len(node.output) > 3:
                raise OperandError(f"node {_label(node)}: MultiHeadAttention with packed Q, K and V, cross-attention "
                                   "caches or qk output is not modelled; expected query, key, value and optionally "
                                   "bias, key_padding_mask, attention_bias, past_key, past_value, and outputs "
                                   "output, present_key, present_value")  # fmt: skip
            options = {k: _attr(self, k, d) for k, d in (("num_heads", None), ("unidirectional", 0), ("scale", 0.0),
                                                         ("mask_filter_value", -10000.0))}  # fmt: skip
            present = len(node.output) > 1 and any(node.output[1:])
            out = named(self, lambda: attention.multihead_attention(
                query, key, value, bias, key_padding_mask, attention_bias, past_key, past_value, **options,
                with_present=present, platform=family, l2_cache_size=l2_cache_size))  # fmt: skip
            return out[: len(node.output)] if present else (out,)

    class GroupQueryAttention(_Microsoft):
        """ONNX Runtime's attention of language models with a KV cache (:mod:`.group_query_attention`)."""

        def _run(self, query, key=None, value=None, past_key=None, past_value=None, seqlens_k=None,
                 total_sequence_length=None, cos_cache=None, sin_cache=None, position_ids=None, attention_bias=None,
                 head_sink=None, *rest, **_):  # fmt: skip
            node = self.onnx_node
            k_scale, v_scale, *rest = list(rest) + [None, None]
            if any(v is not None for v in rest):
                raise OperandError(f"node {_label(node)}: GroupQueryAttention with query_seqlens is not modelled, and "
                                   "Q/K norms (q_norm_weight, k_norm_weight) ONNX Runtime's CPU kernel refuses too; "
                                   "expected inputs up to v_scale")  # fmt: skip
            defaults = (("num_heads", None), ("kv_num_heads", None), ("scale", 0.0), ("softcap", 0.0),
                        ("local_window_size", -1), ("do_rotary", 0), ("rotary_interleaved", 0),
                        ("smooth_softmax", 0), ("qk_output", 0), ("k_quant_type", "NONE"), ("v_quant_type", "NONE"),
                        ("kv_cache_bit_width", 0))  # fmt: skip
            options = {k: _attr(self, k, d) for k, d in defaults}
            options |= {"k_scale": k_scale, "v_scale": v_scale}
            outs = list(node.output) + [""] * (4 - len(node.output))
            options["with_present"] = bool(outs[1] and outs[2])
            if not outs[3]:
                options["qk_output"] = 0
            results = named(self, lambda: group_query_attention.group_query_attention(
                query, key, value, past_key, past_value, seqlens_k, total_sequence_length, cos_cache, sin_cache,
                attention_bias, head_sink, position_ids, **options, platform=family,
                l2_cache_size=l2_cache_size))  # fmt: skip
            return tuple(results[: len(node.output)])

    class RotaryEmbedding(_Microsoft):
        """ONNX Runtime's ``com.microsoft`` rotary position embedding (:mod:`.rotary`)."""

        def _run(self, x, position_ids, cos_cache, sin_cache, **_):
            from .rotary import rotary_embedding

            for name in ("scale", "is_packed_batching"):
                if _attr(self, name, 0) not in (0, 1.0 if name == "scale" else 0):
                    raise OperandError(f"node {_label(self.onnx_node)}: RotaryEmbedding's {name} is not modelled")
            options = {k: _attr(self, k, 0) for k in ("num_heads", "rotary_embedding_dim", "interleaved")}
            return (named(self, lambda: rotary_embedding(x, position_ids, cos_cache, sin_cache, **options,
                                                         platform=family)),)  # fmt: skip

    def _onnx_rotary(self, x, cos_cache, sin_cache, position_ids=None, **_):
        """ONNX's RotaryEmbedding (opset 23) as ONNX Runtime computes it (:func:`.rotary.onnx_rotary_embedding`)."""
        from .rotary import onnx_rotary_embedding

        options = {k: _attr(self, k, 0) for k in ("num_heads", "rotary_embedding_dim", "interleaved")}
        return (named(self, lambda: onnx_rotary_embedding(x, cos_cache, sin_cache, position_ids, **options,
                                                          platform=family)),)  # fmt: skip

    class Einsum(_ReferenceEinsum):
        """A float32 Einsum that is one (batched) matrix product as ONNX Runtime computes it (:mod:`.einsum`);
        other forms onnx.reference's."""

        def _run(self, *args, equation=None):
            if len(args) == 2 and all(a.dtype == np.float32 for a in args) and isinstance(equation, str):
                from .einsum import einsum

                out = einsum(equation, *args, platform=family)
                if out is not None:
                    return (out,)
            return super()._run(*args, equation=equation)

    class GatherBlockQuantized(_Microsoft):
        """ONNX Runtime's gather of a block-quantized table (:mod:`.gather_block_quantized`)."""

        def _run(self, data, indices, scales, zero_points=None, **_):
            from .gather_block_quantized import gather_block_quantized

            defaults = (("gather_axis", 0), ("quantize_axis", 1), ("block_size", 128), ("bits", 4))
            options = {name: _attr(self, name, d) for name, d in defaults}
            return (named(self, lambda: gather_block_quantized(data, indices, scales, zero_points, **options)),)

    def _onnx_attention(self, q, k, v, attn_mask=None, past_key=None, past_value=None, nonpad_kv_seqlen=None, **_):
        """ONNX's Attention (opset 23, 24) as ONNX Runtime computes it (:mod:`.onnx_attention`)."""
        from .onnx_attention import attention as onnx_attention

        node = self.onnx_node
        if _attr(self, "softmax_precision", 0) not in (0, 1):  # 1: float32, what the float32 kernel computes in
            raise OperandError(f"node {_label(node)}: Attention's softmax_precision other than float32 is not "
                               "modelled")  # fmt: skip
        if _attr(self, "left_window_size", -1) != -1 or _attr(self, "right_window_size", -1) != -1:
            raise OperandError(f"node {_label(node)}: Attention's windows (opset 25) are not modelled")
        defaults = (("is_causal", 0), ("scale", None), ("softcap", 0.0), ("q_num_heads", 0), ("kv_num_heads", 0),
                    ("qk_matmul_output_mode", 0))  # fmt: skip
        options = {name: _attr(self, name, d) for name, d in defaults}
        outs = list(node.output)
        results = named(self, lambda: onnx_attention(
            q, k, v, attn_mask, past_key, past_value, nonpad_kv_seqlen, **options,
            with_qk=len(outs) > 3 and bool(outs[3]), platform=family))  # fmt: skip
        unwritten = np.zeros(0, np.float32)
        return tuple(r if r is not None else unwritten for r in results[: len(outs)])

    OnnxAttention = type("Attention", (OpRun,), {"op_domain": "", "_run": _onnx_attention,
                                                 "__doc__": _onnx_attention.__doc__})  # fmt: skip

    # Named as its operator, beside com.microsoft's class of that name (the evaluator keys on domain and name).
    OnnxRotaryEmbedding = type("RotaryEmbedding", (OpRun,), {"op_domain": "", "_run": _onnx_rotary,
                                                             "__doc__": _onnx_rotary.__doc__})  # fmt: skip

    class MatMulNBits(_Microsoft):
        """ONNX Runtime's MatMul of weights stored in 2, 4 or 8 bits (:mod:`.matmul_nbits`)."""

        def _run(self, a, b, scales, zero_points=None, g_idx=None, bias=None, **_):
            node = self.onnx_node
            defaults = (("K", None), ("N", None), ("bits", 4), ("block_size", None))
            attrs = {name.lower(): _attr(self, name, d) for name, d in defaults}
            options = {"accuracy_level": _attr(self, "accuracy_level", 0), "b_constant": node.input[1] in constants}
            return (named(self, lambda: matmul_nbits(
                a, b, scales, zero_points, g_idx, bias, **attrs, **options, platform=family)),)  # fmt: skip

    _ReferenceGemm = op_gemm.Gemm_7 if opset >= 7 else op_gemm.Gemm_6

    class Gemm(_ReferenceGemm):
        def _run(self, a, b, c=None, alpha=None, beta=None, transA=None, transB=None, **kw):
            if any(v is not None and v.dtype != np.float32 for v in (a, b, c)) or a.ndim != 2 or b.ndim != 2:
                return super()._run(a, b, c, alpha=alpha, beta=beta, transA=transA, transB=transB, **kw)
            options = {"alpha": 1.0 if alpha is None else alpha, "beta": 1.0 if beta is None else beta}
            ins = self.onnx_node.input
            if ins[0] in transposed:  # GemmTransposeFusion: the Transpose's input, read the other way
                a, transA = a.T, not transA
            if ins[1] in transposed:
                b, transB = b.T, not transB
            options |= {"trans_a": bool(transA), "trans_b": bool(transB), "platform": family, "threads": threads}
            constant = ins[1] in constants
            return (named(self, lambda: sgemm.gemm(a, b, c, b_constant=constant, **options)),)

    class LogSoftmax(_ReferenceLogSoftmax):
        def _run(self, x, axis=None):
            given = {a.name: a.i for a in self.onnx_node.attribute}.get("axis")
            return (float_kernels.softmax(x, given, opset, family, log=True),)

    class GlobalAveragePool(_ReferenceGlobalAveragePool):
        """float32 with 1 to 3 spatial axes as ONNX Runtime's MLAS kernels sum (:mod:`.float_kernels`)."""

        def _run(self, x):
            if x.dtype != np.float32 or not 3 <= x.ndim <= 5 or x.size == 0:
                return super()._run(x)
            return (pooling.global_average_pool(x, family, self.onnx_node.input[0] in nchwc),)

    # onnx.reference keeps one class a version of AveragePool; the node's falls back to the model's.
    _ReferenceAveragePool = next(getattr(op_average_pool, f"AveragePool_{v}") for v in (19, 11, 7, 1) if v <= opset)

    class AveragePool(_ReferenceAveragePool):
        """float32 as ONNX Runtime's MLAS kernels sum, where :func:`.pooling.average_pool` covers the node."""

        def _run(self, x, **kw):
            covered = named(self, lambda: pooling.pool_pads(x, kw))
            if covered is None:
                taken = inspect.signature(super()._run).parameters
                return super()._run(x, **{k: v for k, v in kw.items() if k in taken})
            pads, outs = covered
            kernel, strides = kw["kernel_shape"], kw.get("strides") or [1] * len(kw["kernel_shape"])
            include = bool(kw.get("count_include_pad") or 0)
            nchwc_in = self.onnx_node.input[0] in nchwc
            x, begins, ends = pooling.crop(x, pads[: x.ndim - 2], pads[x.ndim - 2 :])
            dilations = kw.get("dilations")
            y = pooling.average_pool(
                x, kernel, begins + ends, strides, outs, include, family, nchwc_in, opset, dilations
            )
            return (y,)

    class MaxPool(_ReferenceMaxPool):
        """ONNX Runtime's windows (:mod:`.pooling`): onnx.reference raises on asymmetric pads, 1-D and 3-D inputs
        and ceil_mode with auto_pad, and lays out others apart; its NaN pad cannot hold integer codes either."""

        def _run(self, x, **kw):
            node = self.onnx_node
            kernel = kw.get("kernel_shape")
            d = x.ndim - 2
            if (len(node.output) > 1 and node.output[1]) or kernel is None or len(kernel) != d or d < 1:
                return super()._run(x, **kw)  # the indices output: onnx.reference's
            strides = [int(v) for v in kw.get("strides") or [1] * d]
            dilations = [int(v) for v in kw.get("dilations") or [1] * d]
            pads = [int(v) for v in kw.get("pads") or [0] * (2 * d)]
            if len(pads) != 2 * d:
                return super()._run(x, **kw)
            args = (x.shape[2:], kernel, strides, dilations, pads, kw.get("auto_pad"), kw.get("ceil_mode"))
            begins, _, outs = named(self, lambda: pooling.geometry(*args))
            return (pooling.max_pool(x, kernel, strides, dilations, begins, outs),)

    class Relu(OpRun):
        def _run(self, x):  # x86's max keeps -0.0 (x where it is not below 0); Arm's NEON max gives +0.0
            zero = x.dtype.type(0)
            return (np.where(x <= 0, zero, x) if family.startswith("arm") else np.where(x < 0, zero, x),)

    class Mean(OpRun):
        def _run(self, *inputs):
            return (onnx_fixes.mean(*inputs),)

    class LpNormalization(OpRun):
        def _run(self, x, axis=-1, p=2):
            return (onnx_fixes.lp_normalization(x, -1 if axis is None else axis, 2 if p is None else p),)

    class GatherElements(OpRun):
        def _run(self, data, indices, axis=0):
            return (named(self, lambda: onnx_fixes.gather_elements(data, indices, axis or 0)),)

    class ConvTranspose(OpRun):
        """onnx.reference raises on groups (or answers wrongly with a bias) and lays SAME out by the spec, where
        ONNX Runtime's output is never wider than the full transposed convolution; float32 as its kernel computes
        it, bit for bit (:mod:`.onnx_fixes`)."""

        def _run(self, x, w, b=None, **kw):
            keys = ("strides", "dilations", "pads", "output_padding", "output_shape", "auto_pad")
            options = {k: kw.get(k) for k in keys} | {"group": kw.get("group") or 1, "platform": family}
            options["w_constant"] = self.onnx_node.input[1] in constants
            return (named(self, lambda: onnx_fixes.conv_transpose(x, w, b, **options)),)

    class GlobalMaxPool(_ReferenceGlobalMaxPool):
        def _run(self, x):  # onnx.reference reduces the last two axes whatever the rank
            return (pooling.global_max_pool(x),)

    return [
        MatMulInteger,
        QLinearMatMul,
        ConvInteger,
        QLinearConv,
        QGemm,
        QLinearAdd,
        QLinearMul,
        QLinearGlobalAveragePool,
        QLinearAveragePool,
        QLinearConcat,
        QLinearSigmoid,
        QLinearLeakyRelu,
        QLinearSoftmax,
        QLinearWhere,
        MulAdd,
        DynamicQuantizeMatMulSME,
        QuantizeLinear,
        DequantizeLinear,
        DynamicQuantizeLinear,
        MaxPool,
        GlobalMaxPool,
        ConvTranspose,
        Relu,
        Mean,
        LpNormalization,
        GatherElements,
        Resize,
        Sigmoid,
        HardSigmoid,
        Tanh,
        Softmax,
        LogSoftmax,
        MatMul,
        Gemm,
        Conv,
        ConvAdd,
        NchwcConv,
        Erf,
        Pow,
        Exp,
        BatchNormalization,
        InstanceNormalization,
        LayerNormalization,
        SimplifiedLayerNormalization,
        RMSNormalization,
        *reductions,
        Gelu,
        GlobalAveragePool,
        AveragePool,
        *ms_gelu,
        SkipLayerNormalization,
        SkipSimplifiedLayerNormalization,
        FusedMatMul,
        EmbedLayerNormalization,
        MatMulNBits,
        Attention,
        QAttention,
        MultiHeadAttention,
        GroupQueryAttention,
        RotaryEmbedding,
        OnnxRotaryEmbedding,
        OnnxAttention,
        GatherBlockQuantized,
        Einsum,
    ]


def _check_domains(model) -> None:
    for n in model.graph.node:
        if n.domain in ("", "ai.onnx", _INTDOT_DOMAIN) or (n.domain == _MS_DOMAIN and n.op_type in _MS_OPS):
            continue
        raise OperandError(
            f"node {_label(n)} is {quote(n.domain + ':' + n.op_type, marks=False)}, an operator outside ONNX that "
            f"onnx.reference does not define (of ONNX Runtime's, intdot runs {', '.join(_MS_OPS)}); quantize so "
            f"that the model has none (onnxruntime.quantization: QDQ format, or QOperator with "
            f"op_types_to_quantize=['MatMul', 'Conv', 'Gemm', 'Add', 'Mul', 'GlobalAveragePool', "
            f"'AveragePool', 'Concat', 'Sigmoid', 'LeakyRelu', 'Softmax', 'Where'])"
        )


def declared(value_info):
    """(dtype or None, shape or None) of a graph input: the dtype its tensor type declares, and its dimensions
    (an int where fixed, a name or None where not); None where the model leaves either out."""
    from onnx import helper

    t = value_info.type
    if not t.HasField("tensor_type"):
        return None, None
    tt = t.tensor_type
    dtype = None
    if tt.elem_type:
        try:
            dtype = np.dtype(helper.tensor_dtype_to_np_dtype(tt.elem_type))
        except (KeyError, TypeError, ValueError):  # an element type this onnx/NumPy cannot map: not checked
            dtype = None
    shape = None
    if tt.HasField("shape"):
        shape = tuple(d.dim_value if d.HasField("dim_value") else (d.dim_param or None) for d in tt.shape.dim)
    return dtype, shape


def _check_input(value_info, arr: np.ndarray) -> None:
    """The feed of one input against the element type and shape the model declares, as ONNX Runtime checks them:
    onnx.reference would otherwise fail deep inside an operator, or run on the wrong type."""
    name = value_info.name
    dtype, shape = declared(value_info)
    if dtype is not None and arr.dtype != dtype and not (dtype.kind == "O" and arr.dtype.kind in "OUS"):
        raise OperandTypeError(f"input {quote(name)} has dtype {arr.dtype}; the model declares {dtype}")
    if shape is None:
        return
    shown = "[" + ", ".join("?" if d is None else str(d) for d in shape) + "]"
    if arr.ndim != len(shape):
        dims = lambda n: f"{n} dimension{'s' if n != 1 else ''}"  # noqa: E731
        raise OperandError(
            f"input {quote(name)} has shape {list(arr.shape)} ({dims(arr.ndim)}); the model declares {shown} "
            f"({dims(len(shape))})"
        )
    for axis, (got, want) in enumerate(zip(arr.shape, shape)):
        if isinstance(want, int) and want > 0 and got != want:
            raise OperandError(
                f"input {quote(name)} has shape {list(arr.shape)}; the model declares {shown} "
                f"(dimension {axis} is {want})"
            )


def _feed(model, inputs) -> dict:
    from ._args import native

    names = [i.name for i in model.graph.input if i.name not in {t.name for t in model.graph.initializer}]
    if isinstance(inputs, np.ndarray):
        if len(names) != 1:
            raise OperandError(f"the model has {len(names)} inputs ({_names(names)}); pass a dict of arrays")
        inputs = {names[0]: inputs}
    if not isinstance(inputs, dict):
        raise OperandTypeError(f"inputs={describe(inputs)}: expected a dict of input name -> array (or one array)")
    missing = [n for n in names if n not in inputs]
    extra = [n for n in inputs if n not in names]
    if missing or extra:
        raise OperandError(
            f"inputs: the model takes {_names(names) or 'no inputs'}"
            + (f"; missing {_names(missing)}" if missing else "")
            + (f"; not inputs of the model: {_names(extra)}" if extra else "")
        )
    # A big-endian array holds the same values: fed in the machine's byte order, as ONNX Runtime takes it.
    feed = {n: native(np.asarray(inputs[n])) for n in names}
    for vi in model.graph.input:
        if vi.name in feed:
            _check_input(vi, feed[vi.name])
    return feed


def _check_instruction(op, target) -> None:
    """``op`` names an instruction and ``target`` has it, checked before the model runs: a model whose integer
    nodes never reach the instruction would otherwise let a misspelt target pass."""
    from .. import catalog
    from .plan import records

    recs = records(op)  # op's own errors first
    if target is not None:  # the forms the run may take (Arm sdot: 8- or 16-bit lanes): one of them is enough here
        catalog.require_any(op, target, among=recs)


class Prepared:
    """A model whose QDQ groups are already rewritten (:func:`prepare`): :func:`run` and :func:`integer_nodes` take
    it in place of the model and do not rewrite it again.  ``nchwc``: the float pooling inputs that run in x86's
    NCHWc layout and ``upsampled``: the linear Resizes it runs as its NCHWc Upsample (their outputs), both
    :func:`.nchwc.rewrite`'s; ``constants``: the values ONNX Runtime holds as constants
    (:func:`_constant_values`), and ``transposed``: the MatMul operands its MatmulTransposeFusion reads transposed
    (:func:`_fused_transposes`), found once here for every run."""

    __slots__ = ("model", "qdq_int8_allowed", "platform", "nchwc", "upsampled", "constants", "transposed")

    def __init__(self, model, qdq_int8_allowed: bool, platform: str, nchwc=frozenset(), upsampled=frozenset()):
        self.model, self.qdq_int8_allowed, self.platform = model, qdq_int8_allowed, platform
        self.nchwc, self.upsampled = nchwc, upsampled
        self.constants = _constant_values(model)
        self.transposed = _fused_transposes(model, self.constants)


def _int8_allowed(qdq_int8_allowed, platform) -> bool:
    """``session.qdqisint8allowed`` as given, or (None) ONNX Runtime's default on ``platform``: 0 on x86, 1 on
    Arm."""
    from ._args import flag, platform_of

    arm = platform_of(platform) == "arm"
    return arm if qdq_int8_allowed is None else flag(qdq_int8_allowed, "qdq_int8_allowed")


def prepare(model, *, qdq_int8_allowed: bool | None = None, platform: str = "x86") -> Prepared:
    """``model`` loaded and its QDQ groups rewritten once, for several calls of :func:`run` and
    :func:`integer_nodes` (the rewrite reads every node and infers every shape); the arguments are
    :func:`run`'s."""
    from ._args import platform_of
    from .conv_folds import fold
    from .cse import drop_noops, merge_common
    from .div_mul_fusion import fuse_div_mul
    from .float_fusions import (
        fuse_bias_gelu,
        fuse_fast_gelu,
        fuse_gelu,
        fuse_matmul_add,
        fuse_matmul_nbits_bias,
        fuse_matmul_scale,
    )
    from .layer_norm_fusion import fuse_layer_norm, fuse_skip_layer_norm
    from .qdq import fuse
    from .qdq_rules import inferred_values

    int8 = _int8_allowed(qdq_int8_allowed, platform)
    family = platform_of(platform)
    loaded = fold(merge_common(fuse_div_mul(drop_noops(load(model)))))
    # the loaded model's shapes, inferred once for the float fusions, and only where one of them looks
    known = functools.cache(lambda: inferred_values(loaded, symbolic=True))
    fused = fuse_matmul_add(fuse(loaded, int8_allowed=int8, platform=family), shapes_of=known)
    fused = fuse_bias_gelu(fuse_layer_norm(fuse_gelu(fused)), shapes_of=known)
    fused = fuse_fast_gelu(fuse_skip_layer_norm(fused, shapes_of=known), shapes_of=known)
    fused = fuse_matmul_nbits_bias(fuse_matmul_scale(fused, shapes_of=known), shapes_of=known)
    if family == "arm":
        from .dynamic_arm import fuse_bias

        fused = fuse_bias(fused, sme=platform == "arm-sme")
    # x86's NCHWc layout transformer, then ConvAddActivationFusion, run last (their shapes found on the graph
    # before them)
    from .float_conv import fuse_conv_add
    from .nchwc import rewrite

    before = fused
    shapes = functools.cache(lambda: inferred_values(before, symbolic=True, first=known))
    pools = upsampled = frozenset()
    if family == "x86":
        fused, pools, upsampled = rewrite(fused, platform, shapes, _constant_values(fused))
    return Prepared(fuse_conv_add(fused, shapes), int8, platform, pools, upsampled)


def _fused(model, qdq_int8_allowed, platform) -> Prepared:
    if not isinstance(model, Prepared):
        return prepare(model, qdq_int8_allowed=qdq_int8_allowed, platform=platform)
    asked = (_int8_allowed(qdq_int8_allowed, platform), platform)
    if asked != (model.qdq_int8_allowed, model.platform):
        raise OperandError(
            f"qdq_int8_allowed={describe(qdq_int8_allowed)} and platform={describe(platform)}, but the model was "
            f"prepared with qdq_int8_allowed={model.qdq_int8_allowed} and platform={model.platform!r}: expected "
            "the same settings (or prepare it again)"
        )
    return model


def integer_nodes(model, *, qdq_int8_allowed: bool | None = None, platform: str = "x86") -> list[tuple[str, str]]:
    """(name, type) of the nodes that run through the instruction, after the QDQ rewrite (as :func:`run`); ``model``
    may be a :class:`Prepared` one."""
    m = _fused(model, qdq_int8_allowed, platform).model
    return [(n.name, n.op_type) for n in m.graph.node if n.op_type in INTEGER]


# Operators that only move a tensor's elements (or Cast one): ONNX Runtime's constant folding makes their outputs
# constants where their inputs are.
_MOVES = ("Transpose", "Reshape", "Squeeze", "Unsqueeze", "Identity", "Flatten", "Cast")


# The nodes MatmulTransposeFusion and GemmTransposeFusion fold a Transpose into: (type, domain).
_MATMULS = (("MatMul", ""), ("MatMul", "ai.onnx"), ("FusedMatMul", _MS_DOMAIN))
_GEMMS = (("Gemm", ""), ("Gemm", "ai.onnx"))


def _fused_transposes(model, constants) -> frozenset:
    """The MatMul and Gemm operands whose Transpose ONNX Runtime folds into the product, of a value that is not a
    constant (one it folds first) and no graph output: its MatmulTransposeFusion folds a Transpose of the last two
    axes (the others kept in place) read by one MatMul alone into a FusedMatMul; its GemmTransposeFusion a 2-D
    Transpose read by Gemms alone (each read by one node at most) into their transA/transB.  Its SGEMM then reads
    the operand transposed (:mod:`.sgemm`)."""
    readers: dict = {}
    for n in model.graph.node:
        for i in n.input:
            readers.setdefault(i, []).append(n)
    outputs = {o.name for o in model.graph.output}
    found = set()
    for n in model.graph.node:
        if n.op_type != "Transpose" or n.domain not in ("", "ai.onnx") or n.input[0] in constants:
            continue
        perm = next((list(a.ints) for a in n.attribute if a.name == "perm"), None)
        out = n.output[0]
        users = readers.get(out, [])
        if perm is None or len(perm) < 2 or perm[:-2] != list(range(len(perm) - 2)) or perm[-2:] != [
                len(perm) - 1, len(perm) - 2]:  # fmt: skip
            continue
        if out in outputs:
            continue
        if len(users) == 1 and (users[0].op_type, users[0].domain) in _MATMULS:
            found.add(out)
        elif perm == [1, 0] and users and all((u.op_type, u.domain) in _GEMMS and len(readers.get(u.output[0], []))
                                              <= 1 and out in u.input[:2] for u in users):  # fmt: skip
            found.add(out)
    return frozenset(found)


def _constant_values(model) -> frozenset:
    """The values ONNX Runtime holds as constants: initializers, Constant nodes' outputs, and the outputs of the
    :data:`_MOVES` operators on constants (its constant folding).  A constant B of a float MatMul or Gemm is one it
    packs, which changes how its SGEMM blocks K (:mod:`.sgemm`)."""
    known = {t.name for t in model.graph.initializer}
    for n in model.graph.node:
        if n.domain in ("", "ai.onnx") and (n.op_type == "Constant" or (
                n.op_type in _MOVES and all(i in known for i in n.input if i))):  # fmt: skip
            known.update(o for o in n.output if o)
    return frozenset(known)


def _opset(model) -> int:
    return max((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), default=1)


def _intdot_cause(exc: BaseException):
    """The intdot error that ``exc`` wraps, if any: onnx.reference re-raises every TypeError of an operator as a
    bare ``TypeError("Issues with types ...")``, ours (an OperandTypeError naming the node) as its cause."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, IntdotError):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


def run(
    model,
    inputs,
    *,
    op,
    target=None,
    requant: str = "float32",
    qdq_int8_allowed: bool | None = None,
    platform: str = "x86",
    l2_cache_size: int | None = None,
    threads: int = 1,
) -> dict:
    """Run a quantized ONNX model with every integer node computed through ``op`` (on ``target``).

    Parameters
    ----------
    model : onnx.ModelProto, path, bytes or Prepared
        QOperator or QDQ format, as ``onnxruntime.quantization`` writes them (a :func:`prepare`'d one is not
        rewritten again).  A file that cannot be read, bytes
        that do not parse, and a model without a graph or without nodes (what an empty file parses as) are
        :class:`~intdot.errors.OperandError`.
    inputs : dict of name -> numpy.ndarray, or one array for a model with one input
        Each must have the element type the model declares for it (an int32 array for a uint8 input is an
        :class:`~intdot.errors.OperandTypeError`, not converted), its rank and its fixed dimensions, as ONNX
        Runtime requires.
    op, target
        The instruction for the integer products, as for :func:`intdot.quant.matmul_integer`; both are checked
        before the model runs (an unknown target is an error even where no node reaches the instruction), and
        a node whose operands the instruction cannot take is an error naming the node.
    requant : {"float32", "float64", "fixed_point"}
        How QLinear nodes requantize (:mod:`intdot.quant.requant`); ``"float32"`` is ONNX Runtime's.
    qdq_int8_allowed : bool, optional
        ONNX Runtime's session option ``session.qdqisint8allowed``, which decides which QDQ groups with int8
        activations become integer nodes (:mod:`intdot.quant.qdq`): False moves int8 activation pairs to uint8
        first and leaves int8 x int8 groups it cannot move in float; True runs them as int8. By default, ONNX
        Runtime's on ``platform``: False on x86, True on Arm.
    platform : {"x86", "x86-avx2", "arm", "arm-sme"}
        The CPU whose ONNX Runtime kernels the nodes compute, where its kernels differ (``docs/differences.md``):
        x86 (a CPU with AVX-512F, the default), x86 without AVX-512F (AVX2 and FMA3: the same integer kernels,
        other float ones, :mod:`intdot.quant.float_kernels`), Arm (AArch64, NEON), or Arm with SME (the same, but
        quantize_dynamic's int8 products through KleidiAI's kernel: :mod:`intdot.quant.dynamic_arm`).
    l2_cache_size : int, optional
        The L2 cache size in bytes of the CPU whose ONNX Runtime is modelled: GroupQueryAttention's flash kernel
        sizes its blocks from it, so a prompt's bits depend on it once it passes ``L2 / (32 head)`` positions
        (:mod:`intdot.quant.group_query_attention`). By default this machine's, as ONNX Runtime reads it.
    threads : int, optional
        The session's ``intra_op_num_threads`` (ONNX Runtime's default is the machine's physical cores): MLAS cuts
        a float MatMul, Gemm or FusedMatMul into parts by it, each an SGEMM of its own, whose bits can differ from
        one thread's (:mod:`intdot.quant.sgemm`). The other kernels are modelled on one thread. Default 1.

    Returns
    -------
    dict of output name -> numpy.ndarray, in the graph's order.

    Examples
    --------
    >>> import numpy as np
    >>> from onnx import helper, numpy_helper
    >>> w = numpy_helper.from_array(np.array([[1, -2], [3, 4]], np.int8), "w")
    >>> node = helper.make_node("MatMulInteger", ["x", "w"], ["y"], name="mm")
    >>> graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", 2, [1, 2])],
    ...                           [helper.make_tensor_value_info("y", 6, [1, 2])], [w])
    >>> model = helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", 21)])
    >>> from intdot.quant import run
    >>> run(model, np.array([[200, 100]], np.uint8), op="usdot", target="neoverse-v2")["y"].tolist()
    [[500, 0]]
    """
    from onnx.reference import ReferenceEvaluator

    check_choice(requant, "requant", METHODS)
    _check_instruction(op, target)
    prepared = _fused(model, qdq_int8_allowed, platform)
    m = prepared.model
    _check_domains(m)
    feed = _feed(m, inputs)
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 1:
        raise OperandError(f"threads={describe(threads)}: expected the session's thread count, an integer >= 1")
    overrides = _overrides(op, target, requant, _opset(m), platform, prepared, l2_cache_size, int(threads))
    ev = ReferenceEvaluator(m, new_ops=overrides)
    try:
        results = ev.run(None, feed)
    except TypeError as exc:
        ours = _intdot_cause(exc)
        if ours is None:
            raise
        raise ours from None
    return {o.name: r for o, r in zip(m.graph.output, results)}
