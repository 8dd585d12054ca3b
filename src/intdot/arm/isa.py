"""The AArch64 dot forms as the ISA layer sees them: catalog records, targets, availability.

One record per row of :data:`intdot.arm.FORMS`, spelt by its id, its mnemonic, its
assembly template as LLVM prints it and the ACLE intrinsics that compile to it.
Targets are ``-march``/``-mcpu`` strings (:mod:`intdot.arm.targets`).
"""

from __future__ import annotations

import re
from functools import cache

from ..core.features import FeatureExpr, evaluate, missing, parse
from ..isa.record import Instruction, k_step
from ..isa.registry import Availability, FrontEnd
from ..isa.targets import Target
from .forms import FORMS, MNEMONICS
from .targets import CORES, MODEL


def _template(form) -> str:
    """The row's syntax template as LLVM prints the instruction, ``<operand>`` standing for each operand.

    The row writes a register list as ``{ z{zn}.b x2 }``; LLVM prints ``{ z0.b, z1.b }`` and ``{ z0.b - z3.b }``.
    """

    def reglist(m: re.Match) -> str:
        reg, op, suffix, n = m[1], m[2], m[3], int(m[4])
        sep = ", " if n == 2 else " - "
        return f"{{ {reg}<{op}>.{suffix}{sep}{reg}<{op}+{n - 1}>.{suffix} }}"

    text = re.sub(r"\{ (\w)\{(\w+)\}\.(\w+) x(\d) \}", reglist, form.layout.syntax)
    return re.sub(r"\{(\w+)\}", r"<\1>", text)


def records() -> list[Instruction]:
    from .acle import BY_FORM, INTRINSICS  # form id -> the ACLE intrinsics that compile to it

    out = []
    for form in FORMS:
        template = _template(form)
        acle = BY_FORM.get(form.name, ())
        names = (form.name, form.mnemonic, template, *acle)
        out.append(
            Instruction(
                isa="arm",
                name=f"arm.{form.name}",
                mnemonic=form.mnemonic,
                spellings=tuple(dict.fromkeys(names)),
                spec=form.spec,
                k_step=k_step(form.spec),
                neg=False,
                clamp=False,
                sign_args=False,
                features=form.features,
                syntax=template,
                summary=f"{form.mnemonic.upper()} ({form.kind.replace('_', ' ')})",
                swapped=frozenset(n.lower() for n in acle if INTRINSICS[n].swap),
                row=form,
            )
        )
    return out


def target(text, profile: str = "reference") -> Target:
    return MODEL.target(text)  # Arm availability is the same in both profiles


@cache
def _cores_with(features: str) -> tuple[str, ...]:
    return tuple(c for c in CORES if evaluate(features, MODEL.target(c).features))


def _pick(expr: FeatureExpr, streaming: bool) -> FeatureExpr:
    """The alternative of each *any of* that holds in one mode: SVE's ``sve|sme`` is ``sve`` outside
    streaming mode and ``sme`` in it (``sve2p1|sme2`` likewise)."""
    if expr.op == "name":
        return expr
    parts = [_pick(c, streaming) for c in expr.value]
    if expr.op == "any":
        sme = [c for c in parts if any(n.startswith("sme") for n in c.names)]
        other = [c for c in parts if c not in sme]
        chosen = (sme if streaming else other) or parts
        return chosen[0] if len(chosen) == 1 else FeatureExpr("any", tuple(chosen))
    return FeatureExpr("all", tuple(parts))


@cache
def modes(form) -> tuple[str | None, str | None]:
    """(features outside streaming mode, features in streaming mode) of a form; None where the mode never runs
    it.  NEON runs in streaming mode only with ``sme-fa64``; SVE's alternatives split by mode; SME2 is
    streaming only (the architecture's rules; tests check them against clang-19's diagnostics)."""
    expr = parse(form.features)
    if form.kind.startswith("sme2"):
        return None, str(expr)
    if form.kind.startswith("neon"):
        return str(expr), f"{expr}+sme-fa64"
    return str(_pick(expr, False)), str(_pick(expr, True))


def status(rec: Instruction, t: Target, profile: str, streaming: bool | None = None) -> Availability:
    normal, stream = modes(rec.row)
    in_normal = normal is not None and missing(normal, t.features) is None
    in_stream = stream is not None and missing(stream, t.features) is None
    mode = {(True, True): "both", (True, False): "normal", (False, True): "streaming"}.get(
        (in_normal, in_stream), "none"
    )
    ok = {None: in_normal or in_stream, True: in_stream, False: in_normal}[streaming]
    note = ""
    if mode == "streaming" and streaming is None:
        needs = "" if stream == str(parse(rec.features)) else f"; needs {stream}"
        note = f"in streaming mode only (an __arm_streaming function{needs})"
    elif mode == "normal" and streaming is None and stream is not None and "sme" in t.features:
        # Only a target with SME has a streaming mode for this to matter in.
        note = f"outside streaming mode only (in streaming mode it needs {stream})"
    if ok:
        return Availability(True, "", note, mode)
    want = {None: rec.features, True: stream, False: normal}[streaming]
    where = {None: "", True: " in streaming mode", False: " outside streaming mode"}[streaming]
    if want is None:
        never = "outside" if streaming is False else "in"
        return Availability(False, f"{rec.name} ({rec.syntax}) never runs {never} streaming mode", note, mode)
    lack = missing(want, t.features)
    cores = _cores_with(want)
    shown = ", ".join(cores[:8]) + (f" and {len(cores) - 8} more" if len(cores) > 8 else "") if cores else "none"
    return Availability(
        False,
        f"{rec.name} ({rec.syntax}) is not available on {t.name}{where}: it requires {want}, and "
        f"{t.name} lacks {lack}; cores that have it: {shown}",
        note,
        mode,
    )


def where(rec: Instruction, profile: str) -> tuple[str, ...]:
    return _cores_with(rec.features)


def targets(profile: str = "reference") -> list[Target]:
    return [MODEL.target(n) for n in MODEL.names()]


def parse_text(text: str) -> str | None:
    """The record name of an assembly line (``sdot z0.d, z1.h, z2.h``); None if it is not an Arm dot line.

    A syntax error in a line of a known mnemonic is the user's answer: it is raised.
    """
    words = text.replace(",", " ").split()
    if len(words) < 2 or words[0].lower() not in MNEMONICS:
        return None
    from .asm import parse

    return f"arm.{parse(text).form.name}"


FRONT_END = FrontEnd(
    isa="arm",
    title="Arm",
    target_help="an Arm architecture or core (armv9.2-a+sme2, neoverse-v2)",
    records=records,
    target=target,
    status=status,
    where=where,
    targets=targets,
    listed_features=("simd", "dotprod", "i8mm", "sve", "sve2", "sve2p1", "sme", "sme2", "sme2p1", "sme-i16i64"),
    parse_text=parse_text,
    verbs=frozenset({"asm", "disasm", "exec"}),
    modes=True,
)
