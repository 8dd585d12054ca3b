"""What one instruction contributes to a GEMM: operand lanes, accumulator, K step.

``resolve(op)`` turns any spelling into a :class:`GemmOp` through
:mod:`intdot.catalog`; :func:`_from_record` is the one function that reads a
catalog record.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from ..core.errors import OperandError, OperandTypeError
from ..core.values import a_or_an, describe, is_int_scalar


@dataclass(frozen=True)
class GemmOp:
    """The facts of one instruction that a GEMM needs."""

    name: str  # canonical name, e.g. "sdot4" or "usdot"
    isa: str  # "amd" or "arm"
    a_width: int  # lane width of the first (M x K) operand, in bits
    b_width: int
    a_signed: bool
    b_signed: bool
    acc_bits: int  # 32 or 64
    acc_signed: bool
    k_step: int  # lanes of K consumed per instruction step
    clamp: bool | None  # the record's rule: True saturates every step, False wraps, None: the caller's clamp=
    neg: bool | None  # likewise for negating each step's dot product (the reference's neg)
    features: str = ""
    pair_sat: int | None = None  # pair sums saturate to this many signed bits first (x86's pmaddubsw idiom)

    def __hash__(self) -> int:
        # Hashed once: a GemmOp heads the key of every remembered GPU plan, looked up on every call of a decode loop.
        h = self.__dict__.get("_hash")
        if h is None:
            h = hash(tuple(getattr(self, f.name) for f in fields(self)))
            object.__setattr__(self, "_hash", h)
        return h

    def __getstate__(self):
        # Strings hash differently in another process: the remembered hash does not travel (Dask pickles ops).
        return {k: v for k, v in self.__dict__.items() if k != "_hash"}

    @property
    def clamp_arg(self) -> bool:
        """Whether the caller chooses to saturate (AMD's clamp bit)."""
        return self.clamp is None

    @property
    def neg_arg(self) -> bool:
        return self.neg is None

    def rule(self, clamp, neg) -> tuple[bool, bool]:
        """(clamp, neg) for one call: the instruction's own where it fixes them (a contradicting value is
        an error), the caller's where it takes them as operands (``None`` there means False)."""
        out = []
        for flag, given, fixed in (("clamp", clamp, self.clamp), ("neg", neg, self.neg)):
            if given is not None and not isinstance(given, (bool, np.bool_)):
                raise OperandTypeError(f"{flag}={describe(given)} is not a bool; expected True, False or None")
            if fixed is None:
                out.append(bool(given))
            elif given is None or bool(given) == fixed:
                out.append(fixed)
            elif flag == "clamp":
                what = "saturates at every step" if fixed else f"wraps modulo 2**{self.acc_bits}"
                raise OperandError(
                    f"clamp={given}: {self.name} {what}, which is not a choice; expected clamp=None (or {fixed})"
                )
            else:
                raise OperandError(f"neg={given}: {self.name} has no negate operand; expected neg=None (or False)")
        return out[0], out[1]

    @property
    def acc_range(self) -> tuple[int, int]:
        n = self.acc_bits
        return (-(1 << (n - 1)), (1 << (n - 1)) - 1) if self.acc_signed else (0, (1 << n) - 1)

    @property
    def result_dtype(self):
        return {(32, True): np.int32, (32, False): np.uint32, (64, True): np.int64, (64, False): np.uint64}[
            self.acc_bits, self.acc_signed
        ]

    def lane_range(self, which: str) -> tuple[int, int]:
        w, s = (self.a_width, self.a_signed) if which == "a" else (self.b_width, self.b_signed)
        return (-(1 << (w - 1)), (1 << (w - 1)) - 1) if s else (0, (1 << w) - 1)


def _no_flags(name, a_signed, b_signed):
    if a_signed is not None or b_signed is not None:
        raise OperandTypeError(
            f"a_signed={a_signed!r}, b_signed={b_signed!r}: {name} has fixed operand signedness; leave both as None"
        )


def _from_record(rec, a_signed, b_signed, swapped=False) -> GemmOp:
    """A catalog :class:`~intdot.catalog.Instruction` as a GemmOp: the one place that reads the record.

    ``swapped``: the spelling gives the sources in the other order (``svsudot_s32(acc, int8, uint8)`` is USDOT
    with its sources exchanged); a and b keep the spelling's order and take each other's lanes."""
    if not rec.sign_args:
        _no_flags(rec.name, a_signed, b_signed)
    elif a_signed is None or b_signed is None:
        raise OperandTypeError(
            f"a_signed={a_signed!r}, b_signed={b_signed!r}: {rec.name} reads each operand's "
            f"signedness from a flag; pass a_signed=True/False and b_signed=True/False"
        )
    spec = rec.spec_for(a_signed, b_signed) if rec.sign_args else rec.spec
    # Lanes of K one instruction consumes: the record's step (a 16x8x32 mma takes 32), not the core's word.
    k_step = rec.k_step[0] * 8 // spec.a_width
    if swapped:
        spec = spec.exchanged()
    # neg/clamp: None where the instruction takes them as arguments, else fixed (False on every Arm form).
    return GemmOp(
        rec.name,
        rec.isa,
        spec.a_width,
        spec.b_width,
        bool(spec.a_signed),
        bool(spec.b_signed),
        spec.acc_bits,
        bool(spec.acc_signed),
        k_step,
        rec.clamp,
        rec.neg,
        rec.features,
        spec.pair_sat,
    )


def _by_width(found, bits):
    """Of records that one spelling names (``sdot``: 8-bit lanes into 32 bits, 16-bit into 64 or 32), those
    whose first operand's lanes match the input's element width, if they all compute the same thing."""
    if bits is None:
        return None
    fit = [r for r in found if r.spec.a_width == bits or (bits == 8 and r.spec.a_width == 4)]
    fields = {
        (
            r.spec.a_width,
            r.spec.b_width,
            r.spec.lanes,
            r.spec.a_signed,
            r.spec.b_signed,
            r.spec.acc_bits,
            r.spec.acc_signed,
        )
        for r in fit
    }
    return fit[0] if len(fields) == 1 else None


def _ambiguous(op, found, bits):
    """The catalog's error, narrowed to one record per distinct step among those whose lanes fit ``a``: the
    catalog lists every form (28 for ``sdot``), where the choice left is between two or three steps."""
    from .. import catalog

    fit = [r for r in found if bits in (r.spec.a_width, 8 if r.spec.a_width == 4 else None)] or list(found)
    one = {}
    for r in fit:
        one.setdefault((r.lanes, r.acc), r)
    listing = "; ".join(f"{r.name} ({lanes} -> {acc})" for (lanes, acc), r in one.items())
    held = f" with {describe(bits)}-bit elements in a" if bits is not None else ""
    return catalog.AmbiguousInstruction(
        f"op={describe(op)}{held} names instructions that compute different things: {listing}; pass one of these names "
        f"(or another spelling of one, as 'intdot list {op}' shows)",
        tuple(fit),
    )


def resolve(op, a_signed=None, b_signed=None, *, a_bits=None) -> GemmOp:
    """The GemmOp of ``op``: any catalog name or spelling, or a record of :func:`intdot.catalog.records`.

    Where a spelling names instructions that differ only in lane width (Arm ``sdot``: ``.b`` into ``.s`` or
    ``.h`` into ``.d``), ``a_bits`` (the element width of ``a``: 8 or 16) picks the one its lanes fit.
    """
    from .. import catalog

    if isinstance(op, GemmOp):
        return op
    if not isinstance(op, (str, catalog.Instruction)):  # a record, as enumerating catalog.records() gives
        raise OperandTypeError(
            f"op={describe(op)} is not an instruction name; expected a string such as "
            f"'sdot4', '__builtin_amdgcn_sudot4', 'usdot' or 'vusdotq_s32', or a catalog record"
        )
    for flag, v in (("a_signed", a_signed), ("b_signed", b_signed)):
        if v is not None and not isinstance(v, (bool, np.bool_)):  # NumPy's bool too, as clamp= takes it
            raise OperandTypeError(f"{flag}={describe(v)} is not a bool; expected True, False or None")
    a_signed, b_signed = (None if v is None else bool(v) for v in (a_signed, b_signed))
    if a_bits is not None:  # before 'if bits' and '==': NumPy refuses the truth value of an array
        if not is_int_scalar(a_bits):
            raise OperandTypeError(
                f"a_bits={describe(a_bits)} is {a_or_an(type(a_bits).__name__)}, not an int; expected the element "
                "width of a in bits (8 or 16), or None"
            )
        a_bits = int(a_bits)
    try:
        rec = catalog.find(op)
    except catalog.AmbiguousInstruction as exc:
        rec = _by_width(exc.candidates, a_bits)
        if rec is None:
            raise _ambiguous(op, exc.candidates, a_bits) from None
    return _from_record(rec, a_signed, b_signed, catalog.swapped(op))


def check_target(op: GemmOp, target, spelling=None) -> None:
    """Raise :class:`UnsupportedOnTarget` unless ``op`` exists on ``target`` (through the catalog), and so does
    ``spelling``, the name the caller gave, where it needs more than its instruction (an x86 intrinsic's own
    features: ``_mm512_dpbusd_epi32`` needs AVX-512 where ``vpdpbusd`` also has a VEX form)."""
    if target is None:
        return
    from .. import catalog

    # A spelling of one record asks for that record and its own needs at once; one shared by several (sdot) for
    # the record it resolved to.
    one = isinstance(spelling, str) and len(catalog.find_all(spelling)) == 1
    catalog.require(spelling if one else op.name, target)
