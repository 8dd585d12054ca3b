"""How one instruction computes ``(A - za) @ (B - zb)`` for 8-bit operands: which operand goes to which source,
and which operand is shifted into the instruction's lanes with the shift folded into its zero point.

A mixed-sign instruction (Arm ``usdot``, AMD ``sudot4`` with its sign flags) takes uint8 activations and int8
weights as they are.  A signed-only one (``sdot4``, Arm ``sdot``) gets ``x - 128`` for a uint8 operand, an
unsigned-only one (``udot4``, Arm ``udot``) ``x + 128`` for an int8 operand, and the zero point moves by the
same amount: ``x - z == (x - 128) - (z - 128)``.  The corrections are exact modulo 2**32, so every way gives
the same bits.  Instructions are read only from :mod:`intdot.catalog`, so new ISAs are planned for as they
appear there.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..core.errors import OperandError, OperandTypeError
from ..core.values import describe


@dataclass(frozen=True)
class Plan:
    """One instruction's way of computing an 8-bit integer product."""

    record: object  # the intdot.catalog.Instruction
    a_signed: bool | None  # the sign flags of an instruction that takes them (AMD sudot4), else None
    b_signed: bool | None
    swap: bool  # the instruction's first source reads B^T (and its second A^T): the product is transposed
    shift_first: int  # subtracted from the operand read by the first source (0, 128 or -128)
    shift_second: int

    @property
    def flags(self) -> dict:
        return {} if self.a_signed is None else {"a_signed": self.a_signed, "b_signed": self.b_signed}

    @property
    def handling(self) -> str:
        """``direct``, or ``compensated`` where an operand is shifted into the lanes and its zero point moved."""
        return "compensated" if self.shift_first or self.shift_second else "direct"

    def describe(self) -> str:
        parts = []
        for which, shift in (("first", self.shift_first), ("second", self.shift_second)):
            if shift:
                parts.append(f"{'uint8 - 128' if shift > 0 else 'int8 + 128'} into the {which} source")
        order = "B^T as the first source (transposed product)" if self.swap else "A as the first source"
        return f"{order}; " + ("; ".join(parts) + ", zero point moved" if parts else "operands as they are")


def _lane(spec, which: str) -> tuple[int, bool]:
    return getattr(spec, f"{which}_width"), bool(getattr(spec, f"{which}_signed"))


def shift_into(dtype: np.dtype, width: int, signed: bool) -> int | None:
    """The ``s`` with ``x - s`` in the lane's range for every ``x`` of ``dtype``, 0 if none is needed, None if
    no shift brings the type into the lane (8-bit values into 4-bit lanes)."""
    info = np.iinfo(dtype)
    lo, hi = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if signed else (0, (1 << width) - 1)
    if info.min >= lo and info.max <= hi:
        return 0
    s = info.min - lo
    return s if info.max - s <= hi else None


def _options(rec, da: np.dtype, db: np.dtype):
    """Every (cost, Plan) of ``rec`` for operands of dtypes ``da`` x ``db``."""
    out = []
    for swap in (False, True):
        first, second = (db, da) if swap else (da, db)
        if rec.sign_args:
            # The flags follow the operands; each flag choice is its own spec (its widths are the record's).
            fs, ss = first == np.int8, second == np.int8
            spec = rec.spec_for(fs, ss)
            flags = (fs, ss)
        else:
            spec, flags = rec.spec, (None, None)
        s1 = shift_into(first, *_lane(spec, "a"))
        s2 = shift_into(second, *_lane(spec, "b"))
        if s1 is None or s2 is None:
            continue
        cost = (spec.a_width != 8 or spec.b_width != 8, bool(s1) + bool(s2), swap)
        out.append((cost, Plan(rec, flags[0], flags[1], swap, s1, s2)))
    return out


def _step(rec) -> tuple:
    """What a record computes: its spec (every field, so a rule such as ``pair_sat`` keeps steps apart), its sign
    flags, and whether it always saturates."""
    return (rec.spec, rec.sign_args, rec.clamp is True)


def records(op):
    """The catalog records ``op`` names (several where a spelling is shared by forms that differ)."""
    from .. import catalog

    if isinstance(op, catalog.Instruction):
        return (op,)
    if not isinstance(op, str):
        raise OperandTypeError(
            f"op={describe(op)} is not an instruction name; expected a catalog spelling such as 'usdot', 'sdot4', "
            f"'vusdotq_s32', '__builtin_amdgcn_sudot4', or a record of intdot.catalog.records()"
        )
    try:
        return (catalog.find(op),)
    except catalog.AmbiguousInstruction as exc:
        return exc.candidates


@lru_cache(maxsize=512)
def _plan_cached(op, da: np.dtype, db: np.dtype) -> Plan:
    from .. import catalog

    recs = records(op)
    options = [o for r in recs for o in _options(r, da, db)]
    if not options:
        r = recs[0]
        shown = repr(op) if isinstance(op, str) else r.name
        raise OperandError(
            f"op={shown} ({r.name}, {r.lanes} -> {r.acc}) cannot compute {da} x {db} operands: its lanes "
            f"hold neither operand, and no zero-point shift brings 8-bit values into them; 'intdot list' shows the "
            f"instructions, intdot.quant.fitting() those that fit"
        )
    best = min(cost for cost, _ in options)
    chosen = [p for cost, p in options if cost == best]
    if len({_step(p.record) for p in chosen}) > 1:
        listing = "; ".join(dict.fromkeys(f"{p.record.name} ({p.record.lanes} -> {p.record.acc})" for p in chosen))
        raise catalog.AmbiguousInstruction(
            f"op={op!r} names instructions that compute {da} x {db} products in different ways: {listing}; "
            f"pass one of these names",
            tuple(p.record for p in chosen),
        )
    return chosen[0]


def plan(op, a_dtype, b_dtype) -> Plan:
    """The cheapest way ``op`` computes ``a_dtype`` x ``b_dtype`` operands: 8-bit lanes before 16-bit ones
    (Arm ``sdot`` is its 8-bit form for 8-bit data), no shift before one, A as the first source before B^T.

    >>> from intdot.quant.plan import plan
    >>> import numpy as np
    >>> plan("usdot", np.uint8, np.int8).handling, plan("sdot4", np.uint8, np.int8).describe()
    ('direct', 'A as the first source; uint8 - 128 into the first source, zero point moved')
    >>> plan("sudot", np.uint8, np.int8).swap      # Arm SUDOT: signed first source, so B^T goes first
    True
    """
    return _plan_cached(op, _int_dtype(a_dtype, "a_dtype"), _int_dtype(b_dtype, "b_dtype"))


def _int_dtype(d, name: str) -> np.dtype:
    """An operand's dtype: an integer one (the plan shifts int8/uint8; a wider type is refused by the op)."""
    try:
        dt = np.dtype(d)
    except TypeError:
        dt = None
    if d is None or dt is None or dt.kind not in "iu":
        shown = dt if dt is not None and d is not None else describe(d)
        raise OperandTypeError(f"{name}={shown} is not an integer dtype; expected int8 or uint8 (np.int8, np.uint8)")
    return dt


def exact(rec) -> bool:
    """Whether ``rec`` accumulates exact sums modulo 2**acc_bits, as ONNX defines its integer operators: not an
    instruction that always saturates (x86 ``vpdpbusds``, PTX ``mma ... .satfinite``), nor one whose pair sums
    saturate first (the AVX2 idiom ``vpmaddubsw`` + ``vpmaddwd``: ``pair_sat``)."""
    return rec.clamp is not True and not getattr(rec.spec, "pair_sat", None)


def fitting(a_dtype=np.uint8, b_dtype=np.int8, *, distinct: bool = False, exact_only: bool = True) -> tuple[Plan, ...]:
    """The plan of every catalog instruction that computes ``a_dtype`` x ``b_dtype`` products exactly as ONNX
    defines them (the sum modulo 2**32): those whose lanes hold the operands, shifted or not, and that
    accumulate exactly (:func:`exact`; ``exact_only=False`` lists the others too, whose bits part from ONNX's
    where a sum or a pair sum saturates).

    ``distinct`` keeps one instruction per kind of step (the catalog has 12 forms of Arm ``usdot``).

    >>> from intdot.quant import fitting
    >>> sorted({p.record.name for p in fitting(distinct=True)})[:4]
    ['amd.sdot2', 'amd.sdot4', 'amd.sudot4', 'amd.udot2']
    """
    from .. import catalog
    from ._args import flag

    da, db = _int_dtype(a_dtype, "a_dtype"), _int_dtype(b_dtype, "b_dtype")
    flag(distinct, "distinct")
    flag(exact_only, "exact_only")
    out, seen = [], set()
    for rec in catalog.records():
        if exact_only and not exact(rec):
            continue
        options = _options(rec, da, db)
        if not options:
            continue
        key = _step(rec)
        if distinct and key in seen:
            continue
        seen.add(key)
        out.append(min(options, key=lambda o: o[0])[1])
    return tuple(out)
