"""What one instruction contributes to a GEMM: operand lanes, accumulator, K step.

``resolve(op)`` turns any spelling into a :class:`GemmOp`.  It reads
``intdot.catalog`` when that module exists; until then (the catalog is being
built in parallel) a small private table below answers for the AMD builtins and
the Arm 8-bit dot family.  The one function that knows the catalog record's
shape is :func:`_from_catalog`, so a change there is one edit.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.errors import OperandTypeError, UnknownInstruction, UnsupportedOnTarget
from ..core.values import describe


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
    clamp_arg: bool  # whether the instruction can saturate (AMD's clamp bit)
    neg_arg: bool  # whether it can negate the product before accumulating (the reference's neg)
    features: str = ""  # the feature expression of the Arm form (private table only)

    @property
    def acc_range(self) -> tuple[int, int]:
        n = self.acc_bits
        return (-(1 << (n - 1)), (1 << (n - 1)) - 1) if self.acc_signed else (0, (1 << n) - 1)

    @property
    def result_dtype(self):
        import numpy as np

        return {(32, True): np.int32, (32, False): np.uint32, (64, True): np.int64, (64, False): np.uint64}[
            self.acc_bits, self.acc_signed]

    def lane_range(self, which: str) -> tuple[int, int]:
        w, s = (self.a_width, self.a_signed) if which == "a" else (self.b_width, self.b_signed)
        return (-(1 << (w - 1)), (1 << (w - 1)) - 1) if s else (0, (1 << w) - 1)


# ---- private table, until intdot.catalog lands -------------------------------------------------------------
# Arm: (a_signed, b_signed, lane width, acc bits, features); a is Zn/Vn (the first source), b is Zm/Vm.
_ARM = {
    "sdot": (True, True, 8, 32, "dotprod|sve|sme"),
    "udot": (False, False, 8, 32, "dotprod|sve|sme"),
    "usdot": (False, True, 8, 32, "i8mm"),
    "sudot": (True, False, 8, 32, "i8mm"),
    "sdot.d": (True, True, 16, 64, "sve|sme"),  # sdot z0.d, z1.h, z2.h
    "udot.d": (False, False, 16, 64, "sve|sme"),
}
_ARM_SPELLINGS = {
    "vdot_s32": "sdot", "vdotq_s32": "sdot", "vdot_lane_s32": "sdot", "vdotq_laneq_s32": "sdot",
    "vdot_u32": "udot", "vdotq_u32": "udot", "vdot_lane_u32": "udot", "vdotq_laneq_u32": "udot",
    "vusdot_s32": "usdot", "vusdotq_s32": "usdot", "vsudot_lane_s32": "sudot", "vsudotq_lane_s32": "sudot",
    "svdot_s32": "sdot", "svdot_u32": "udot", "svusdot_s32": "usdot", "svsudot_s32": "sudot",
    "svdot_s64": "sdot.d", "svdot_u64": "udot.d",
}


def _private(op: str, a_signed, b_signed) -> GemmOp:
    from .. import amd

    key = op.strip()
    if key.lower() in _ARM or key.lower() in _ARM_SPELLINGS:
        name = _ARM_SPELLINGS.get(key.lower(), key.lower())
        sa, sb, w, acc, feats = _ARM[name]
        _no_flags(name, a_signed, b_signed)
        return GemmOp(name, "arm", w, w, sa, sb, acc, name.startswith("s") or name == "usdot",
                      64 // w if acc == 64 else 32 // w, False, False, feats)
    try:
        row = amd.lookup(key)
    except UnknownInstruction:
        raise UnknownInstruction(
            f"op={describe(op)} is not a dot instruction gemm knows; expected an AMD builtin "
            f"({', '.join(r.name for r in amd.BUILTINS)}, optionally __builtin_amdgcn_-prefixed) or an Arm "
            f"mnemonic or ACLE name ({', '.join(sorted(_ARM))}, {', '.join(sorted(_ARM_SPELLINGS))})") from None
    if row.layout != "sudot":
        _no_flags(row.name, a_signed, b_signed)
    elif a_signed is None or b_signed is None:
        raise OperandTypeError(f"a_signed={a_signed!r}, b_signed={b_signed!r}: {row.name} reads each operand's "
                               f"signedness from a flag; pass a_signed=True/False and b_signed=True/False")
    # The row's own columns, not row.spec(): they hold while the core's DotSpec changes shape.
    sa = a_signed if row.src0 == "flag" else row.src0 == "s"
    sb = b_signed if row.src1 == "flag" else row.src1 == "s"
    return GemmOp(row.name, "amd", row.width, row.width, sa, sb, 32, row.result == "int", 32 // row.width,
                  True, True)


def _no_flags(name, a_signed, b_signed):
    if a_signed is not None or b_signed is not None:
        raise OperandTypeError(f"a_signed={a_signed!r}, b_signed={b_signed!r}: {name} has fixed operand "
                               f"signedness; leave both as None")


def _from_core(name, isa, spec, *, clamp_arg, neg_arg, k_step=None, features="") -> GemmOp:
    """Adapter from the core's DotSpec, old (width, a_signed, b_signed, result_signed) or new
    (a_width, b_width, lanes, a_signed, b_signed, acc_bits, acc_signed): the one place that knows both."""
    if hasattr(spec, "a_width"):
        aw, bw, lanes = spec.a_width, spec.b_width, spec.lanes
        acc_bits, acc_signed = spec.acc_bits, spec.acc_signed
    else:
        aw = bw = spec.width
        lanes = 32 // spec.width
        acc_bits, acc_signed = 32, spec.result_signed
    return GemmOp(name, isa, aw, bw, bool(spec.a_signed), bool(spec.b_signed), acc_bits, bool(acc_signed),
                  int(k_step or lanes), clamp_arg, neg_arg, features)


def _from_catalog(insn, a_signed, b_signed) -> GemmOp:
    """A catalog ``Instruction`` as a GemmOp (the catalog's contract: spec, k_step, neg, clamp, sign_args)."""
    spec = insn.spec
    if getattr(insn, "sign_args", False):
        if a_signed is None or b_signed is None:
            raise OperandTypeError(f"a_signed={a_signed!r}, b_signed={b_signed!r}: {insn.name} reads each "
                                   f"operand's signedness from a flag; pass a_signed= and b_signed=")
        from dataclasses import replace

        spec = replace(spec, a_signed=bool(a_signed), b_signed=bool(b_signed))
    else:
        _no_flags(insn.name, a_signed, b_signed)
    # neg/clamp: "arg" where the instruction takes them as arguments, else a fixed False.
    return _from_core(insn.name, insn.isa, spec, clamp_arg=insn.clamp == "arg", neg_arg=insn.neg == "arg",
                      k_step=getattr(insn, "k_step", None))


def resolve(op, a_signed=None, b_signed=None) -> GemmOp:
    """The GemmOp of ``op``: any catalog name or spelling."""
    if isinstance(op, GemmOp):
        return op
    if not isinstance(op, str):
        raise OperandTypeError(f"op={describe(op)} is not an instruction name; expected a string such as "
                               f"'sdot4', '__builtin_amdgcn_sudot4', 'usdot' or 'vusdotq_s32'")
    for flag, v in (("a_signed", a_signed), ("b_signed", b_signed)):
        if v is not None and not isinstance(v, bool):
            raise OperandTypeError(f"{flag}={describe(v)} is not a bool; expected True, False or None")
    return _private(op, a_signed, b_signed)


def check_target(op: GemmOp, target) -> None:
    """Raise :class:`UnsupportedOnTarget` unless ``op`` exists on ``target``."""
    if target is None:
        return
    if op.isa == "amd":
        from .. import amd

        if not amd.available(op.name, target):
            where = ", ".join(amd.where_available(op.name))
            raise UnsupportedOnTarget(f"target={target!r}: {op.name} does not exist there; it exists on {where}")
        return
    feats = _arm_features(target)
    if not any(f in feats for f in op.features.split("|")):
        raise UnsupportedOnTarget(f"target={target!r}: {op.name} needs {op.features.replace('|', ' or ')}; "
                                  f"the target has {', '.join(sorted(feats)) or 'no dot features'}")


# Until the catalog's processor table lands: architecture versions whose baseline includes a feature.
_ARCH_FEATURES = {"armv8.2-a": set(), "armv8.4-a": {"dotprod"}, "armv8.6-a": {"dotprod", "i8mm"},
                  "armv9-a": {"dotprod", "sve"}, "armv9.2-a": {"dotprod", "i8mm", "sve"}}
_CORES = {"neoverse-v2": {"dotprod", "i8mm", "sve"}, "neoverse-n1": {"dotprod"}, "cortex-a76": {"dotprod"},
          "cortex-x925": {"dotprod", "i8mm", "sve"}, "apple-m4": {"dotprod", "i8mm", "sme"}}


def _arm_features(target) -> set[str]:
    if not isinstance(target, str):
        raise OperandTypeError(f"target={describe(target)} is not a target name; expected a string")
    name, *extra = target.strip().lower().split("+")
    if name in _CORES:
        base = set(_CORES[name])
    elif name in _ARCH_FEATURES:
        base = set(_ARCH_FEATURES[name])
    else:
        from ..core.errors import UnknownTarget

        raise UnknownTarget(f"target={target!r} is not a known Arm target; expected an architecture "
                            f"({', '.join(_ARCH_FEATURES)}) with +features, or a core ({', '.join(_CORES)})")
    return base | {e for e in extra if e}
