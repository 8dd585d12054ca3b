"""The executor: run one decoded instruction on a :class:`~intdot.arm.state.State`.

Each semantic kind of the form table (``Form.kind``) has one small function
here.  They only *select* words (the indexed 32-bit element of Vm, the
indexed element of each 128-bit segment of Zm, the ZA rows of a vector
group) and hand them to the core's dot product; none multiplies lanes.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..core.dot import DotSpec, dot_arrays
from ..core.errors import OperandError, OperandTypeError, StateError, UnknownInstruction
from ..core.values import describe, is_int_scalar
from .insn import Form, Insn
from .state import State

_U32 = np.dtype("<u4")


@lru_cache(maxsize=None)
def spec_for(a_signed: bool, b_signed: bool) -> DotSpec:
    """The core's parameters for an 8-bit dot product into 32-bit lanes."""
    return DotSpec(8, a_signed, b_signed, True)


# -- word-level kernels, shared with the ACLE intrinsics ------------------------

def dot_by_element(spec: DotSpec, acc: np.ndarray, a: np.ndarray, bword: np.ndarray) -> np.ndarray:
    """acc[..., e] + dot(a[..., e], bword[...]): one word of the second source for all lanes."""
    return dot_arrays(spec, a, bword[..., None], acc, neg=False, clamp=False)


def dot_by_segment(spec: DotSpec, acc: np.ndarray, a: np.ndarray, b: np.ndarray, index: int) -> np.ndarray:
    """acc[..., e] + dot(a[..., e], b[..., 4*(e//4) + index]): the SVE/SME "indexed" rule.

    The last axis holds 32-bit words; each 128-bit segment (4 words) of the
    result uses word ``index`` of the same segment of ``b``.
    """
    shape = np.broadcast_shapes(acc.shape, a.shape)
    seg = b.reshape(b.shape[:-1] + (-1, 4))[..., index:index + 1]
    out = dot_arrays(spec, a.reshape(a.shape[:-1] + (-1, 4)), seg, acc.reshape(acc.shape[:-1] + (-1, 4)),
                     neg=False, clamp=False)
    return out.reshape(shape)


def dot_elementwise(spec: DotSpec, acc: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """acc + dot(a, b), word by word (broadcasting)."""
    return dot_arrays(spec, a, b, acc, neg=False, clamp=False)


def za_group(za: np.ndarray, nvec: int, slice_value: int) -> np.ndarray:
    """The ZA rows a vector group of ``nvec`` touches for ``slice_value`` = Wv + offset, as a view.

    vstride = SVL_bytes / nvec; the first row is slice mod vstride and member
    r uses that row + r * vstride: a strided view of ``nvec`` rows (no
    gather, no scatter), returned as an ``(nvec, SVL_bytes)`` uint8 array.

    >>> za = np.zeros((16, 16), np.uint8)
    >>> za_group(za, 4, 2**32 - 1).__array_interface__["data"][0] - za.ctypes.data, za_group(za, 4, 7).shape
    (48, (4, 16))
    """
    vstride = za.shape[0] // nvec
    return za[slice_value % vstride::vstride]


# -- the per-kind execute functions ----------------------------------------------

def _words(region: np.ndarray) -> np.ndarray:
    return region.view(_U32)


def _op(insn: Insn, name: str, lo: int, hi: int) -> int:
    """Operand ``name``, within what the semantics can address (``lo..hi``).

    The row's narrower encoding ranges (Zm z0-z7, Wv w8-w11, ...) are checked
    before, by :func:`~intdot.arm.forms.checked_ops`; this guards a hand-made
    :class:`~intdot.arm.insn.Form` without a layout.
    """
    try:
        v = insn.ops[name]
    except (KeyError, TypeError):
        raise OperandError(f"{insn.form.name}: operand {name!r} is missing from {describe(insn.ops)}") from None
    if not is_int_scalar(v) or not lo <= v <= hi:
        raise OperandError(f"{insn.form.name}: operand {name}={describe(v)} is out of range; expected {lo}..{hi}")
    return int(v)


def _exec_neon_elem(state: State, insn: Insn) -> None:
    form = insn.form
    vd, vn, vm = _op(insn, "vd", 0, 31), _op(insn, "vn", 0, 31), _op(insn, "vm", 0, 31)
    index, q = _op(insn, "index", 0, 3), _op(insn, "q", 0, 1)
    nwords = 4 if q else 2
    z = state.z
    a = _words(z[vn, :4 * nwords])
    b = _words(z[vm, :16])[index:index + 1]
    acc = _words(z[vd, :4 * nwords])
    res = dot_by_element(spec_for(form.a_signed, form.b_signed), acc, a, np.asarray(b[0]))
    # V[d] = result: the bits above the written width, up to the Z length, become zero.
    z[vd, :] = 0
    z[vd, :4 * nwords] = res.view(np.uint8)


def _exec_sve_indexed(state: State, insn: Insn) -> None:
    form = insn.form
    zda, zn = _op(insn, "zda", 0, 31), _op(insn, "zn", 0, 31)
    zm, index = _op(insn, "zm", 0, 31), _op(insn, "index", 0, 3)
    z = state.z
    res = dot_by_segment(spec_for(form.a_signed, form.b_signed), _words(z[zda]), _words(z[zn]), _words(z[zm]),
                         index)
    z[zda] = res.view(np.uint8)


def _sme2_prologue(state: State, insn: Insn):
    form = insn.form
    if not state.streaming:
        raise StateError(f"{form.mnemonic} ({form.name}) is an SME2 instruction and runs only in streaming "
                         "mode (hardware traps it as UNDEFINED otherwise); create the state with "
                         "State(..., streaming=True) or call state.smstart() before setting the Z registers")
    nvec = form.nvec
    if nvec not in (2, 4):
        raise OperandError(f"{form.name}: nvec={nvec!r}; expected 2 or 4")
    wv, off = _op(insn, "wv", 0, 30), _op(insn, "off", 0, 0xFFFFFFFF)
    return form, nvec, za_group(state.za, nvec, state.w[wv] + off)


def _members(z: np.ndarray, zn: int, nvec: int) -> np.ndarray:
    """Z registers zn, zn+1, ... (mod 32) as a (nvec, bytes) array (a view unless the list wraps)."""
    return z[zn:zn + nvec] if zn + nvec <= 32 else z[(zn + np.arange(nvec)) % 32]


def _exec_sme2_indexed(state: State, insn: Insn) -> None:
    form, nvec, group = _sme2_prologue(state, insn)
    zn, zm, index = _op(insn, "zn", 0, 31), _op(insn, "zm", 0, 31), _op(insn, "index", 0, 3)
    z = state.z
    res = dot_by_segment(spec_for(form.a_signed, form.b_signed), _words(group), _words(_members(z, zn, nvec)),
                         _words(z[zm]), index)
    group[...] = res.view(np.uint8)


def _exec_sme2_single(state: State, insn: Insn) -> None:
    form, nvec, group = _sme2_prologue(state, insn)
    zn, zm = _op(insn, "zn", 0, 31), _op(insn, "zm", 0, 31)
    z = state.z
    res = dot_elementwise(spec_for(form.a_signed, form.b_signed), _words(group), _words(_members(z, zn, nvec)),
                          _words(z[zm])[None, :])
    group[...] = res.view(np.uint8)


EXECUTE = {
    "neon_dot_elem": _exec_neon_elem,
    "sve_dot_indexed": _exec_sve_indexed,
    "sme2_dot_indexed": _exec_sme2_indexed,
    "sme2_dot_single": _exec_sme2_single,
}


def as_insn(insn) -> Insn:
    """An :class:`Insn` from assembly text, a 32-bit word, or an Insn."""
    if isinstance(insn, Insn):
        return insn
    from . import asm  # the form table; imported late so the executor loads without it

    if isinstance(insn, str):
        return asm.parse(insn)
    if is_int_scalar(insn):
        return asm.decode(int(insn))
    raise OperandTypeError(f"insn={describe(insn)} has type {type(insn).__name__}; expected assembly text, "
                           "a 32-bit instruction word or an intdot.arm.Insn")


def execute(state: State, insn) -> State:
    """Execute one instruction on ``state`` in place and return ``state``.

    Parameters
    ----------
    state : State
        The register file; modified in place.
    insn : str, int or Insn
        Assembly text (``"sudot v0.4s, v1.16b, v2.4b[3]"``), a 32-bit word,
        or a decoded :class:`~intdot.arm.insn.Insn`.

    Raises
    ------
    StateError
        An SME2 instruction outside streaming mode.
    UnknownInstruction, AsmSyntaxError, UndefinedEncoding
        Text or a word that is not a supported instruction.

    Examples
    --------
    >>> from intdot.arm import State, execute
    >>> s = State()
    >>> s.set("v1.b", -1); s.set("v2.b", 2)
    >>> execute(s, "sudot v0.4s, v1.16b, v2.4b[3]").get("v0.s")
    array([-8, -8, -8, -8], dtype=int32)
    """
    if not isinstance(state, State):
        raise OperandTypeError(f"state={describe(state)} is not an intdot.arm.State")
    insn = as_insn(insn)
    form = insn.form
    if not isinstance(form, Form):
        raise OperandTypeError(f"insn.form={describe(form)} is not an intdot.arm.Form")
    fn = EXECUTE.get(form.kind)
    if fn is None:
        raise UnknownInstruction(f"{form.name}: the executor has no semantics for kind "
                                 f"{form.kind!r}; known kinds: {sorted(EXECUTE)}")
    if form.layout is not None:  # a row of the table: its operands must be encodable
        from .forms import checked_ops

        insn = Insn(form, checked_ops(insn))
    fn(state, insn)
    return state
