"""The executor: run one decoded instruction on a :class:`~intdot.arm.state.State`.

Each semantic kind of the form table (``Form.kind``) has one small function
here.  They only *select* registers and words (the Zn list, the ZA vectors
of a group, the indexed element) and hand them to the word kernels of
:mod:`intdot.arm.semantics`, which call the core; none multiplies lanes.
Element sizes come from the row's ``spec`` (8-bit lanes into .s, 16-bit
into .d, 2-way 16-bit into .s), so one function serves SDOT, UDOT, USDOT
and SUDOT of every size.
"""

from __future__ import annotations

import numpy as np

from ..core import DotSpec
from ..core.errors import OperandError, OperandTypeError, StateError, UnknownInstruction
from ..core.values import describe, is_int_scalar
from . import semantics as sem
from .records import Form, Insn
from .semantics import za_group  # noqa: F401  (re-exported: callers used it from here)
from .state import State


def form_spec(form: Form) -> DotSpec:
    """The row's spec, checked to be one the word kernels can run (a hand-made Form may hold anything)."""
    spec = form.spec
    if not isinstance(spec, DotSpec):
        raise OperandTypeError(f"{form.name}: spec={describe(spec)} is not an intdot.core.DotSpec")
    if spec.a_width != spec.b_width or spec.a_bits != spec.acc_bits or spec.b_bits != spec.acc_bits:
        raise OperandError(
            f"{form.name}: {spec} is not an Arm dot shape; expected equal lane widths whose "
            f"groups fill the accumulator element (4 x 8 -> 32, 4 x 16 -> 64 or 2 x 16 -> 32 bits)"
        )
    return spec


# -- the per-kind execute functions ----------------------------------------------


def _op(insn: Insn, name: str, lo: int, hi: int) -> int:
    """Operand ``name``, within what the semantics can address (``lo..hi``).

    The row's narrower encoding ranges (Zm z0-z7, Wv w8-w11, ...) are checked
    before, by :func:`~intdot.arm.records.checked_ops`; this guards a hand-made
    :class:`~intdot.arm.records.Form` without a layout.
    """
    try:
        v = insn.ops[name]
    except (KeyError, TypeError):
        raise OperandError(f"{insn.form.name}: operand {name!r} is missing from {describe(insn.ops)}") from None
    if not is_int_scalar(v) or not lo <= v <= hi:
        raise OperandError(f"{insn.form.name}: operand {name}={describe(v)} is out of range; expected {lo}..{hi}")
    return int(v)


def _neon(state: State, insn: Insn, spec: DotSpec, indexed: bool) -> None:
    vd, vn, vm = _op(insn, "vd", 0, 31), _op(insn, "vn", 0, 31), _op(insn, "vm", 0, 31)
    q = _op(insn, "q", 0, 1)
    nbytes = 16 if q else 8
    z = state.z
    acc, a = sem.words(z[vd, :nbytes], spec), sem.words(z[vn, :nbytes], spec)
    if indexed:
        # Vm is read whole (128 bits) whatever the arrangement: the index reaches its upper half.
        b = sem.words(z[vm, :16], spec)
        index = _op(insn, "index", 0, b.shape[-1] - 1)
        res = sem.by_element(spec, acc, a, b, index)
    else:
        res = sem.elementwise(spec, acc, a, sem.words(z[vm, :nbytes], spec))
    # V[d] = result: the bits above the written width, up to the Z length, become zero.
    z[vd, :] = 0
    z[vd, :nbytes] = res.view(np.uint8)


def _exec_neon_vec(state: State, insn: Insn, spec: DotSpec) -> None:
    _neon(state, insn, spec, False)


def _exec_neon_elem(state: State, insn: Insn, spec: DotSpec) -> None:
    _neon(state, insn, spec, True)


def _exec_sve_vec(state: State, insn: Insn, spec: DotSpec) -> None:
    zda, zn, zm = _op(insn, "zda", 0, 31), _op(insn, "zn", 0, 31), _op(insn, "zm", 0, 31)
    z = state.z
    res = sem.elementwise(spec, sem.words(z[zda], spec), sem.words(z[zn], spec), sem.words(z[zm], spec))
    z[zda] = res.view(np.uint8)


def _exec_sve_indexed(state: State, insn: Insn, spec: DotSpec) -> None:
    zda, zn = _op(insn, "zda", 0, 31), _op(insn, "zn", 0, 31)
    zm, index = _op(insn, "zm", 0, 31), _op(insn, "index", 0, sem.per_segment(spec) - 1)
    z = state.z
    res = sem.by_segment(spec, sem.words(z[zda], spec), sem.words(z[zn], spec), sem.words(z[zm], spec), index)
    z[zda] = res.view(np.uint8)


def _sme2_prologue(state: State, insn: Insn):
    form = insn.form
    if not state.streaming:
        raise StateError(
            f"{form.mnemonic} ({form.name}) is an SME2 instruction and runs only in streaming "
            "mode (hardware traps it as UNDEFINED otherwise); create the state with "
            "State(..., streaming=True) or call state.smstart() before setting the Z registers"
        )
    nvec = form.nvec
    if nvec not in (2, 4):
        raise OperandError(f"{form.name}: nvec={nvec!r}; expected 2 or 4")
    wv, off = _op(insn, "wv", 0, 30), _op(insn, "off", 0, 0xFFFFFFFF)
    return nvec, za_group(state.za, nvec, state.w[wv] + off)


def _exec_sme2_indexed(state: State, insn: Insn, spec: DotSpec) -> None:
    nvec, group = _sme2_prologue(state, insn)
    zn, zm = _op(insn, "zn", 0, 31), _op(insn, "zm", 0, 31)
    index = _op(insn, "index", 0, sem.per_segment(spec) - 1)
    z = state.z
    res = sem.by_segment(
        spec, sem.words(group, spec), sem.words(sem.members(z, zn, nvec), spec), sem.words(z[zm], spec), index
    )
    group[...] = res.view(np.uint8)


def _exec_sme2_single(state: State, insn: Insn, spec: DotSpec) -> None:
    nvec, group = _sme2_prologue(state, insn)
    zn, zm = _op(insn, "zn", 0, 31), _op(insn, "zm", 0, 31)
    z = state.z
    res = sem.elementwise(
        spec, sem.words(group, spec), sem.words(sem.members(z, zn, nvec), spec), sem.words(z[zm], spec)[None, :]
    )
    group[...] = res.view(np.uint8)


def _exec_sme2_multi(state: State, insn: Insn, spec: DotSpec) -> None:
    nvec, group = _sme2_prologue(state, insn)
    zn, zm = _op(insn, "zn", 0, 31), _op(insn, "zm", 0, 31)
    z = state.z
    res = sem.elementwise(
        spec,
        sem.words(group, spec),
        sem.words(sem.members(z, zn, nvec), spec),
        sem.words(sem.members(z, zm, nvec), spec),
    )
    group[...] = res.view(np.uint8)


EXECUTE = {
    "neon_dot_vec": _exec_neon_vec,
    "neon_dot_elem": _exec_neon_elem,
    "sve_dot_vec": _exec_sve_vec,
    "sve_dot_indexed": _exec_sve_indexed,
    "sme2_dot_single": _exec_sme2_single,
    "sme2_dot_multi": _exec_sme2_multi,
    "sme2_dot_indexed": _exec_sme2_indexed,
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
    raise OperandTypeError(
        f"insn={describe(insn)} has type {type(insn).__name__}; expected assembly text, "
        "a 32-bit instruction word or an intdot.arm.Insn"
    )


def execute(state: State, insn) -> State:
    """Execute one instruction on ``state`` in place and return ``state``.

    Parameters
    ----------
    state : State
        The register file; modified in place.
    insn : str, int or Insn
        Assembly text (``"sudot v0.4s, v1.16b, v2.4b[3]"``), a 32-bit word,
        or a decoded :class:`~intdot.arm.records.Insn`.

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
        raise UnknownInstruction(
            f"{form.name}: the executor has no semantics for kind {form.kind!r}; known kinds: {sorted(EXECUTE)}"
        )
    spec = form_spec(form)
    if form.layout is not None:  # a row of the table: its operands must be encodable
        from .records import checked_ops

        insn = Insn(form, checked_ops(insn))
    fn(state, insn, spec)
    return state
