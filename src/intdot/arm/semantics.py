"""The word kernels of the Arm dot products, shared by the executor and the ACLE intrinsics.

Every Arm integer dot form adds, to each accumulator element, the dot
product of one *group* of the first source (``spec.lanes`` lanes of
``spec.a_width`` bits) with one group of the second source.  A group is
always exactly as wide as the accumulator element (4 x 8 -> 32, 4 x 16 ->
64, 2 x 16 -> 32 bits), so a register is viewed once as little-endian
words of ``spec.acc_bits`` and the forms differ only in *which* word of the
second source meets each accumulator word:

- :func:`elementwise`: the same element (NEON/SVE by vector, SME2 single
  and multi-vector);
- :func:`by_element`: one element for all (NEON by element);
- :func:`by_segment`: element ``index`` of the 128-bit segment that holds
  the accumulator element (SVE and SME2 indexed).

The products and the accumulation are the core's (:func:`intdot.core.dot_arrays`);
nothing here multiplies lanes.
"""

from __future__ import annotations

import numpy as np

from ..core import DotSpec, dot_arrays


def word_dtype(spec: DotSpec) -> np.dtype:
    """Little-endian unsigned words of one accumulator element (= one source group)."""
    return np.dtype("<u8") if spec.acc_bits == 64 else np.dtype("<u4")


def per_segment(spec: DotSpec) -> int:
    """Accumulator elements per 128-bit segment: the range of an SVE/SME2 index."""
    return 128 // spec.acc_bits


def words(region: np.ndarray, spec: DotSpec) -> np.ndarray:
    """A uint8 register region (last axis bytes) as the spec's words (a view)."""
    return region.view(word_dtype(spec))


# -- the kernels: word arrays in (last axis = elements), result-type array out -------------------


def _dot(spec: DotSpec, acc: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The core on operands brought to one shape first: the core's equal-shape path is its fastest,
    and the copies are small (one register group)."""
    if not a.shape == b.shape == acc.shape:
        shape = np.broadcast_shapes(acc.shape, a.shape, b.shape)
        acc, a, b = (x if x.shape == shape else np.ascontiguousarray(np.broadcast_to(x, shape)) for x in (acc, a, b))
    return dot_arrays(spec, a, b, acc, neg=False, clamp=False)


def elementwise(spec: DotSpec, acc: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """acc[..., e] + dot(a[..., e], b[..., e]) (NumPy broadcasting)."""
    return _dot(spec, acc, a, b)


def by_element(spec: DotSpec, acc: np.ndarray, a: np.ndarray, b: np.ndarray, index: int) -> np.ndarray:
    """acc[..., e] + dot(a[..., e], b[..., index]): one element of the second source for all."""
    return _dot(spec, acc, a, b[..., index : index + 1])


def by_segment(spec: DotSpec, acc: np.ndarray, a: np.ndarray, b: np.ndarray, index: int) -> np.ndarray:
    """acc[..., e] + dot(a[..., e], b[..., per*(e//per) + index]), per = 128 / element bits.

    The SVE/SME2 "indexed" rule: each 128-bit segment of the result uses
    element ``index`` of the same segment of ``b``.
    """
    per = per_segment(spec)
    selected = b.reshape(b.shape[:-1] + (-1, per))[..., index]
    return _dot(spec, acc, a, np.repeat(selected, per, axis=-1))


def za_group(za: np.ndarray, nvec: int, slice_value: int) -> np.ndarray:
    """The ZA array vectors a group of ``nvec`` touches for ``slice_value`` = Wv + offset, as a view.

    vstride = SVL_bytes / nvec (the same for za.s and za.d); the first vector
    is slice mod vstride and member r is that one + r * vstride: a strided
    view of ``nvec`` rows, an ``(nvec, SVL_bytes)`` uint8 array.

    >>> za = np.zeros((16, 16), np.uint8)
    >>> za_group(za, 4, 2**32 - 1).__array_interface__["data"][0] - za.ctypes.data, za_group(za, 4, 7).shape
    (48, (4, 16))
    """
    vstride = za.shape[0] // nvec
    return za[slice_value % vstride :: vstride]


def members(z: np.ndarray, first: int, nvec: int) -> np.ndarray:
    """Z registers first, first+1, ... (mod 32) as a (nvec, bytes) array (a view unless the list wraps)."""
    return z[first : first + nvec] if first + nvec <= 32 else z[(first + np.arange(nvec)) % 32]
