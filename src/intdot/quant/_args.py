"""Checking the operators' inputs once, with messages that name the input, its value and what ONNX allows."""

from __future__ import annotations

import numpy as np

from ..core.errors import OperandError, OperandTypeError
from ..core.values import a_or_an, check_choice, describe, is_int_scalar

# The domain of the nodes intdot's own graph rewrites write (quant.dynamic_arm, quant.nchwc, quant.float_conv).
INTDOT_DOMAIN = "ai.intdot"
EIGHT_BIT = (np.dtype(np.int8), np.dtype(np.uint8))
FLOATS = (np.dtype(np.float32), np.dtype(np.float16))


def _example(x, dtype: np.dtype) -> str:
    """How to give ``x`` as a typed value: ``np.float32(0.5)`` for a number, ``np.asarray(values, np.int8)``
    for anything else."""
    if isinstance(x, (int, float)) and not isinstance(x, bool) and len(repr(x)) <= 30:
        return f"np.{dtype.name}({x!r})"
    return f"np.asarray(values, np.{dtype.name})"


def native(arr: np.ndarray) -> np.ndarray:
    """``arr`` in the machine's byte order: a big-endian ``>i4`` holds the same int32 values."""
    if not arr.dtype.isnative:
        return arr.astype(arr.dtype.newbyteorder("="))
    return arr


def tensor(x, name: str, allowed, what: str) -> np.ndarray:
    """``x`` as an array whose dtype is one of ``allowed``; ONNX tensors are typed, so a list is not guessed at."""
    if isinstance(x, (bool, np.bool_)) or x is None:
        raise OperandTypeError(f"{name}={describe(x)}: expected a NumPy array of {what}")
    arr = native(np.asarray(x)) if isinstance(x, (np.ndarray, np.generic)) else None
    if arr is None:
        raise OperandTypeError(
            f"{name} is {a_or_an(type(x).__name__)}; expected a NumPy array of {what} (ONNX tensors are typed: "
            f"give the dtype, e.g. {_example(x, np.dtype(allowed[0]))})"
        )
    if arr.dtype not in allowed:
        raise OperandTypeError(f"{name} has dtype {arr.dtype}; expected {what}")
    return arr


def operand8(x, name: str) -> np.ndarray:
    """An int8 or uint8 operand (ONNX's T1/T2 of the integer operators)."""
    return tensor(x, name, EIGHT_BIT, "int8 or uint8")


def zero_point(z, name: str, dtype: np.dtype) -> np.ndarray:
    """A zero point of ``dtype`` (None is 0): a NumPy array of that dtype or a Python int in its range."""
    if z is None:
        return np.zeros((), dtype)
    if is_int_scalar(z) and not isinstance(z, np.generic):
        info = np.iinfo(dtype)
        if not info.min <= z <= info.max:
            raise OperandError(f"{name}={z} does not fit {dtype}; expected an integer in [{info.min}, {info.max}]")
        return np.asarray(z, dtype)
    arr = tensor(z, name, (np.dtype(dtype),), f"{dtype} (the type of the tensor it belongs to)")
    return arr


def scale(s, name: str) -> np.ndarray:
    """A scale: float32/float16 array or a Python float, as float32 (float16 converts exactly).

    Zero and negative scales are computed as ONNX Runtime computes them (IEEE float32: a zero ``y_scale``
    sends a nonzero value to a saturated code and 0/0 to the lowest); a NaN or infinite scale has no defined
    result, so it is an error, as is a Python float past float32's range (it would become one)."""
    if isinstance(s, float):
        if not np.isfinite(s) or abs(s) > float(np.finfo(np.float32).max):
            raise OperandError(f"{name}={s!r}: expected a finite scale that fits float32 (|scale| < 3.4e38)")
        s = np.float32(s)
    arr = tensor(s, name, FLOATS, "float32 or float16 (or a Python float)")
    finite(arr, name, "scale")
    return arr.astype(np.float32)


def float32_operand(v, name: str) -> np.ndarray:
    """``v`` as an array, which must be float32: the float kernels intdot models are ONNX Runtime's float32 ones."""
    v = np.asarray(v)
    if v.dtype != np.float32:
        raise OperandTypeError(f"{name} has dtype {v.dtype}; only float32 is modelled (ONNX Runtime's float32 kernel)")
    return v


def finite(arr: np.ndarray, name: str, what: str) -> None:
    """Raise naming the first NaN or infinity of ``arr``: ONNX's formulas are real arithmetic, and ONNX Runtime's
    answer for such a value is an accident of its kernels' min/max instructions."""
    bad = ~np.isfinite(arr)
    if not bad.any():
        return
    if arr.ndim == 0:
        raise OperandError(f"{name}={arr.item()!r}: expected a finite {what}; zero and negative ones are allowed")
    at = tuple(int(i) for i in np.argwhere(bad)[0])
    where = at[0] if len(at) == 1 else at
    raise OperandError(
        f"{name} holds {arr[at].item()!r} at index {where}; expected finite {what}s; zero and negative ones are allowed"
    )


def per_tensor(x: np.ndarray, name: str) -> np.ndarray:
    """A scalar or one-element tensor, as a 0-d array."""
    if x.size != 1 or x.ndim > 1:
        raise OperandError(f"{name} has shape {x.shape}; expected a scalar or a 1-element 1-D tensor (per tensor)")
    return x.reshape(())


def per_tensor_params(s, z, name: str, dtype) -> tuple[np.float32, int]:
    """``{name}_scale`` and ``{name}_zero_point`` per tensor, as a float32 and an int (the zero point of
    ``dtype``; None is 0)."""
    sv = per_tensor(scale(s, f"{name}_scale"), f"{name}_scale")
    zv = per_tensor(zero_point(z, f"{name}_zero_point", dtype), f"{name}_zero_point")
    return np.float32(sv), int(zv)


def axis_of(axis, ndim: int, tensor: str) -> int:
    """``axis`` as an index into the ``ndim`` dimensions of ``tensor`` (negative counts from the end)."""
    if not is_int_scalar(axis) or not -ndim <= axis < ndim:
        raise OperandError(f"axis={describe(axis)}: expected an axis of {tensor}, in [{-ndim}, {ndim - 1}]")
    return int(axis) % ndim


def along(x: np.ndarray, name: str, ndim: int, axis: int, length: int, what: str) -> np.ndarray:
    """A per-tensor value (scalar or 1 element) or a 1-D one of ``length`` elements laid along ``axis`` of an
    ``ndim``-dimensional result, so that it broadcasts; anything else is an error naming ``what`` it may be."""
    if x.size == 1 and x.ndim <= 1:
        return x.reshape(())
    if x.ndim == 1 and x.shape[0] == length:
        shape = [1] * ndim
        shape[axis] = length
        return x.reshape(shape)
    raise OperandError(f"{name} has shape {x.shape}; expected a scalar, a 1-element tensor or {what}")


def ints(value, name: str, n: int, default: int, lo: int) -> tuple[int, ...]:
    """An attribute list of ``n`` integers >= ``lo`` (None gives ``default`` each)."""
    if value is None:
        return (default,) * n
    try:
        out = tuple(value)
    except TypeError:
        raise OperandTypeError(f"{name}={describe(value)}: expected a list of {n} integers") from None
    if len(out) != n or not all(is_int_scalar(v) and v >= lo for v in out):
        raise OperandError(f"{name}={describe(value)}: expected {n} integers, each at least {lo}")
    return tuple(int(v) for v in out)


def text(value, default: str) -> str:
    """A string attribute as onnx.reference hands it over (bytes, str, or None or empty where the node has none)."""
    if value is None or len(value) == 0:
        return default
    return value.decode() if isinstance(value, bytes) else value


def flag(value, name: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise OperandTypeError(f"{name}={describe(value)} is not a bool; expected True or False")
    return bool(value)


def wrap32(x: np.ndarray) -> np.ndarray:
    """int64 values modulo 2**32 as uint32 words (the cast keeps the low 32 bits)."""
    return np.asarray(x).astype(np.int64).astype(np.uint32)


# The CPU whose ONNX Runtime kernels a function computes: their bits differ where MLAS has kernels of its own for
# each (docs/differences.md, ONNX Runtime's table). x86 is the default everywhere: a CPU with AVX-512F. One without
# it (AVX2 and FMA3 only) runs the same integer kernels but other float ones (quant.float_kernels); so does an Arm
# CPU with SVE (of 128, 256 or 512 bits: its Softmax). An Arm CPU with SME runs the same NEON kernels but for
# quantize_dynamic's int8 products (quant.dynamic_arm).
PLATFORMS = ("x86", "x86-avx2", "arm", "arm-sve128", "arm-sve256", "arm-sve512", "arm-sme")


def platform_of(platform) -> str:
    """``platform`` checked (one of :data:`PLATFORMS`), as the family whose kernels the integer operators compute:
    ``"x86"`` for both x86 values, ``"arm"`` for every Arm value."""
    p = check_choice(platform, "platform", PLATFORMS)
    return "arm" if p.startswith("arm") else "x86"


def float_platform(platform) -> str:
    """``platform`` checked, as the kernels ONNX Runtime's float operators run on it (:mod:`.float_kernels`):
    ``"x86"`` (AVX-512F), ``"x86-avx2"``, ``"arm"`` (NEON) or ``"arm-sveN"`` (SVE of N bits)."""
    p = check_choice(platform, "platform", PLATFORMS)
    return "arm" if p == "arm-sme" else p


def to_int32(v: np.ndarray, platform: str) -> np.ndarray:
    """float -> int32, rounded half to even, as each platform's conversion gives it (int64 values): x86's
    ``cvtps2dq`` gives INT32_MIN for NaN and anything past int32; AArch64's ``fcvtns`` (or ``nearbyintf`` then
    ``fcvtzs``) saturates, and gives 0 for NaN."""
    with np.errstate(invalid="ignore"):
        if platform == "arm":
            nan = np.isnan(v)
            # float64 first: float32 has no 2**31 - 1, and the bound would round up past int32.
            return np.clip(np.rint(np.where(nan, 0, v)).astype(np.float64), -(2**31), 2**31 - 1).astype(np.int64)
        ok = np.isfinite(v) & (v >= -(2.0**31)) & (v < 2.0**31)
        return np.where(ok, np.rint(np.where(ok, v, 0)), -(2**31)).astype(np.int64)


def to_codes(v: np.ndarray, dtype, platform: str = "x86") -> np.ndarray:
    """:func:`to_int32`, then saturated to the 8-bit ``dtype`` (the packs that follow the conversion)."""
    info = np.iinfo(dtype)
    return np.clip(to_int32(v, platform), info.min, info.max).astype(dtype)
