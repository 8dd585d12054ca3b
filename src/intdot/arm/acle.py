"""ACLE SUDOT intrinsics on NumPy arrays, with their official names and argument order.

The vector types of C become 1-D arrays of their element values, element 0
first (``int8x16_t`` -> 16 values in [-128, 127], ``svuint8_t`` -> SVL/8 or
VL/8 values in [0, 255]); leading axes are allowed and broadcast, so one call
can run a batch.  The lane/index argument is a plain int, checked against the
range the compiler would enforce.  Results are int32 arrays (``int32x4_t``,
``svint32_t``).  The SME2 forms update a ZA array in place.
"""

from __future__ import annotations

import numpy as np

from ..core.errors import OperandError, OperandTypeError, StateError
from ..core.values import check_int, check_word, describe
from .executor import dot_by_element, dot_by_segment, dot_elementwise, spec_for, za_group
from .state import LENGTHS, State

# Lane signedness (first source, second source) of the intrinsics here; SDOT/UDOT/USDOT intrinsics are
# the same wrappers with (True, True), (False, False), (False, True).
SUDOT = (True, False)
# kind -> (lowest, highest accepted value, C element type); int32 also takes its unsigned spelling.
_RANGES = {"s8": (-128, 127, "int8"), "u8": (0, 255, "uint8"), "s32": (-(1 << 31), (1 << 32) - 1, "int32")}


def _vector(x, name: str, kind: str, length: int | None, func: str) -> np.ndarray:
    """Validate an array of ``kind`` elements whose last axis has ``length``; return its words view.

    Returns little-endian uint32 words (4 bytes per word for 8-bit kinds).
    """
    lo, hi, cname = _RANGES[kind]
    if not isinstance(x, np.ndarray):
        try:
            x = np.asarray(x)
        except (TypeError, ValueError) as exc:
            raise OperandTypeError(f"{func}: {name}={describe(x)} is not an integer array: {exc}") from None
    if x.dtype.kind not in "iu":
        raise OperandTypeError(f"{func}: {name} has dtype {x.dtype}; expected {cname} values (an integer array)")
    if x.ndim == 0:
        raise OperandError(f"{func}: {name} is a scalar; expected a vector of {cname}"
                           + (f" with {length} elements" if length else ""))
    if length is not None and x.shape[-1] != length:
        raise OperandError(f"{func}: {name} has {x.shape[-1]} elements; expected {length} ({cname})")
    if x.size and x.dtype != np.dtype(cname) and not (kind == "s32" and x.dtype == np.uint32):
        mn, mx = int(x.min()), int(x.max())
        if mn < lo or mx > hi:
            bad = mn if mn < lo else mx
            hint = " (view unsigned bytes as signed with .view(np.int8))" if kind == "s8" else \
                " (view signed bytes as unsigned with .view(np.uint8))" if kind == "u8" else ""
            raise OperandError(f"{func}: {name} holds {bad}; every element must be {cname}, in [{lo}, {hi}]{hint}")
    if kind == "s32":
        return (np.asarray(x, dtype=np.int64) & 0xFFFFFFFF).astype("<u4")
    return np.ascontiguousarray(x.astype(np.dtype(cname).newbyteorder("<"), copy=False)).view("<u4")


def _lane(lane, name: str, hi: int, func: str) -> int:
    return check_int(lane, f"{func}: {name}", 0, hi, f"an integer in [0, {hi}] (a constant in ACLE)")


def _batch(func: str, **words: np.ndarray) -> None:
    """Check that the leading (batch) axes of the arguments broadcast together."""
    try:
        np.broadcast_shapes(*(w.shape[:-1] for w in words.values()))
    except ValueError:
        shapes = ", ".join(f"{k} {w.shape[:-1]}" for k, w in words.items())
        raise OperandError(f"{func}: the batch axes (all but the last) do not broadcast: {shapes}") from None


def _kinds(signs: tuple[bool, bool]) -> tuple[str, str]:
    return tuple("s8" if signed else "u8" for signed in signs)


def _neon(func: str, r, a, b, lane, nres: int, nb: int, signs: tuple[bool, bool] = SUDOT) -> np.ndarray:
    ka, kb = _kinds(signs)
    acc = _vector(r, "r", "s32", nres, func)
    wa = _vector(a, "a", ka, 4 * nres, func)
    wb = _vector(b, "b", kb, nb, func)
    lane = _lane(lane, "lane", nb // 4 - 1, func)
    _batch(func, r=acc, a=wa, b=wb)
    res = dot_by_element(spec_for(*signs), acc, wa, np.asarray(wb[..., lane]))
    return res.view(np.int32)


def vsudot_lane_s32(r, a, b, lane: int) -> np.ndarray:
    """``int32x2_t vsudot_lane_s32(int32x2_t r, int8x8_t a, uint8x8_t b, const int lane)``.

    ``r[i] + sum_j a[4i+j] * b[4*lane+j]``, wrapping mod 2**32; lane in 0..1.

    >>> vsudot_lane_s32([1, 2], [-1] * 8, [0, 0, 0, 0, 3, 3, 3, 3], 1)
    array([-11, -10], dtype=int32)
    """
    return _neon("vsudot_lane_s32", r, a, b, lane, 2, 8)


def vsudotq_lane_s32(r, a, b, lane: int) -> np.ndarray:
    """``int32x4_t vsudotq_lane_s32(int32x4_t r, int8x16_t a, uint8x8_t b, const int lane)``; lane in 0..1.

    >>> vsudotq_lane_s32([0] * 4, [1] * 16, [1, 2, 3, 4, 5, 6, 7, 8], 0)
    array([10, 10, 10, 10], dtype=int32)
    """
    return _neon("vsudotq_lane_s32", r, a, b, lane, 4, 8)


def vsudot_laneq_s32(r, a, b, lane: int) -> np.ndarray:
    """``int32x2_t vsudot_laneq_s32(int32x2_t r, int8x8_t a, uint8x16_t b, const int lane)``; lane in 0..3.

    >>> vsudot_laneq_s32([0, 0], [1] * 8, list(range(16)), 3)
    array([54, 54], dtype=int32)
    """
    return _neon("vsudot_laneq_s32", r, a, b, lane, 2, 16)


def vsudotq_laneq_s32(r, a, b, lane: int) -> np.ndarray:
    """``int32x4_t vsudotq_laneq_s32(int32x4_t r, int8x16_t a, uint8x16_t b, const int lane)``; lane in 0..3.

    >>> vsudotq_laneq_s32([2**31 - 1] * 4, [1] * 16, [255] * 16, 0)
    array([-2147482629, -2147482629, -2147482629, -2147482629], dtype=int32)
    """
    return _neon("vsudotq_laneq_s32", r, a, b, lane, 4, 16)


def _sve_bytes(n: int, name: str, func: str) -> None:
    if n == 0 or n % 16 or n > 256:
        raise OperandError(f"{func}: {name} has {n} bytes; an SVE vector is a multiple of 16 bytes "
                           "(128 bits), at most 256 (2048 bits)")


def svsudot_lane_s32(op1, op2, op3, imm_index: int) -> np.ndarray:
    """``svint32_t svsudot_lane_s32(svint32_t op1, svint8_t op2, svuint8_t op3, uint64_t imm_index)``.

    The vector length is what the arrays imply (``op1`` has VL/32 elements,
    ``op2``/``op3`` VL/8).  Element i of the result adds the dot product of
    the 4 bytes of ``op2`` at 4i and the bytes of 32-bit element
    ``imm_index`` of ``op3``'s 128-bit segment that holds element i.

    >>> svsudot_lane_s32([0] * 8, [1] * 32, list(range(32)), 1)
    array([22, 22, 22, 22, 86, 86, 86, 86], dtype=int32)
    """
    return _sve("svsudot_lane_s32", op1, op2, op3, imm_index, SUDOT)


def _sve(func: str, op1, op2, op3, imm_index, signs: tuple[bool, bool]) -> np.ndarray:
    ka, kb = _kinds(signs)
    if not isinstance(op1, np.ndarray):
        try:
            op1 = np.asarray(op1)
        except (TypeError, ValueError) as exc:  # e.g. a ragged list
            raise OperandTypeError(f"{func}: op1={describe(op1)} is not an integer array: {exc}") from None
    n = op1.shape[-1] if op1.ndim else 0
    _sve_bytes(4 * n, "op1", func)
    acc = _vector(op1, "op1", "s32", n, func)
    a = _vector(op2, "op2", ka, 4 * n, func)
    b = _vector(op3, "op3", kb, 4 * n, func)
    idx = _lane(imm_index, "imm_index", 3, func)
    _batch(func, op1=acc, op2=a, op3=b)
    return dot_by_segment(spec_for(*signs), acc, a, b, idx).view(np.int32)


def _za_target(za, state, func: str) -> np.ndarray:
    if (za is None) == (state is None):
        raise OperandError(f"{func}: pass exactly one of za= (an (SVL/8, SVL/8) uint8 array) or state= (a State)")
    if state is not None:
        if not isinstance(state, State):
            raise OperandTypeError(f"{func}: state={describe(state)} is not an intdot.arm.State")
        if not state.streaming:
            raise StateError(f"{func} is an SME2 intrinsic (__arm_streaming); the state is not in streaming mode: "
                             "call state.smstart() or create State(..., streaming=True)")
        return state.za
    if not isinstance(za, np.ndarray) or za.dtype != np.uint8 or za.ndim != 2 or za.shape[0] != za.shape[1] \
            or 8 * za.shape[0] not in LENGTHS:
        raise OperandError(f"{func}: za={describe(za)}; expected a square uint8 NumPy array of SVL/8 rows of "
                           f"SVL/8 bytes, SVL in {LENGTHS}")
    if not za.flags.c_contiguous or not za.flags.writeable:
        raise OperandError(f"{func}: za must be a writeable C-contiguous array (it is updated in place)")
    return za


def _sme2(func: str, slice_, zn, zm, nvec: int, index: int | None, za, state,
          signs: tuple[bool, bool] = SUDOT) -> np.ndarray:
    ka, kb = _kinds(signs)
    target = _za_target(za, state, func)
    svl_bytes = target.shape[0]
    base = check_word(slice_, f"{func}: slice")
    if not isinstance(zn, (tuple, list)) or len(zn) != nvec:
        raise OperandError(f"{func}: zn={describe(zn)}; expected a tuple of {nvec} int8 vectors (svint8x{nvec}_t)")
    a = np.stack([_vector(v, f"zn[{i}]", ka, svl_bytes, func) for i, v in enumerate(zn)])
    if a.ndim != 2:
        raise OperandError(f"{func}: the members of zn must be 1-D vectors of {svl_bytes} int8 (SVL/8)")
    b = _vector(zm, "zm", kb, svl_bytes, func)
    if b.ndim != 1:
        raise OperandError(f"{func}: zm must be a 1-D vector of {svl_bytes} uint8 (SVL/8)")
    group = za_group(target, nvec, base)
    acc = group.view("<u4")
    if index is None:
        res = dot_elementwise(spec_for(*signs), acc, a, b[None, :])
    else:
        res = dot_by_segment(spec_for(*signs), acc, a, b, index)
    group[...] = res.view(np.uint8)
    return target


def svsudot_lane_za32_s8_vg1x2(slice, zn, zm, imm_index: int, *, za=None, state=None) -> np.ndarray:  # noqa: A002
    """``void svsudot_lane_za32_s8_vg1x2(uint32_t slice, svint8x2_t zn, svuint8_t zm, uint64_t imm_index)``.

    ZA array vectors ``(slice mod vstride) + r * vstride`` (vstride = SVL/16
    rows, r = 0, 1) accumulate the dot products of ``zn[r]`` with element
    ``imm_index`` of each 128-bit segment of ``zm``.  ``za`` (an
    ``(SVL/8, SVL/8)`` uint8 array) or ``state`` (a streaming
    :class:`~intdot.arm.State`) is updated in place and returned (ZA).

    >>> import numpy as np
    >>> za = np.zeros((16, 16), np.uint8)
    >>> _ = svsudot_lane_za32_s8_vg1x2(9, (np.ones(16, np.int8), -np.ones(16, np.int8)),
    ...                                np.arange(16, dtype=np.uint8), 0, za=za)
    >>> za[1].view(np.int32), za[9].view(np.int32)
    (array([6, 6, 6, 6], dtype=int32), array([-6, -6, -6, -6], dtype=int32))
    """
    return _sme2("svsudot_lane_za32_s8_vg1x2", slice, zn, zm, 2,
                 _lane(imm_index, "imm_index", 3, "svsudot_lane_za32_s8_vg1x2"), za, state)


def svsudot_lane_za32_s8_vg1x4(slice, zn, zm, imm_index: int, *, za=None, state=None) -> np.ndarray:  # noqa: A002
    """``void svsudot_lane_za32_s8_vg1x4(uint32_t slice, svint8x4_t zn, svuint8_t zm, uint64_t imm_index)``.

    As :func:`svsudot_lane_za32_s8_vg1x2` with four vectors (vstride = SVL/32 rows).
    """
    return _sme2("svsudot_lane_za32_s8_vg1x4", slice, zn, zm, 4,
                 _lane(imm_index, "imm_index", 3, "svsudot_lane_za32_s8_vg1x4"), za, state)


def svsudot_single_za32_s8_vg1x2(slice, zn, zm, *, za=None, state=None) -> np.ndarray:  # noqa: A002
    """``void svsudot_single_za32_s8_vg1x2(uint32_t slice, svint8x2_t zn, svuint8_t zm)``.

    ZA array vectors ``(slice mod vstride) + r * vstride`` accumulate the
    element-wise dot products of ``zn[r]`` with ``zm``.

    >>> import numpy as np
    >>> za = np.zeros((16, 16), np.uint8)
    >>> _ = svsudot_single_za32_s8_vg1x2(0, (np.ones(16, np.int8),) * 2, np.arange(16, dtype=np.uint8), za=za)
    >>> za[8].view(np.int32)
    array([ 6, 22, 38, 54], dtype=int32)
    """
    return _sme2("svsudot_single_za32_s8_vg1x2", slice, zn, zm, 2, None, za, state)


def svsudot_single_za32_s8_vg1x4(slice, zn, zm, *, za=None, state=None) -> np.ndarray:  # noqa: A002
    """``void svsudot_single_za32_s8_vg1x4(uint32_t slice, svint8x4_t zn, svuint8_t zm)``."""
    return _sme2("svsudot_single_za32_s8_vg1x4", slice, zn, zm, 4, None, za, state)


__all__ = [
    "vsudot_lane_s32", "vsudotq_lane_s32", "vsudot_laneq_s32", "vsudotq_laneq_s32",
    "svsudot_lane_s32",
    "svsudot_lane_za32_s8_vg1x2", "svsudot_lane_za32_s8_vg1x4",
    "svsudot_single_za32_s8_vg1x2", "svsudot_single_za32_s8_vg1x4",
]
