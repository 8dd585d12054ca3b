"""``intdot eval``: evaluate one builtin call written in C, and explain it.

The call is parsed by :mod:`.cexpr`, its arguments are bound to the
builtin's parameters in the chosen profile, and the result comes from the
generated function (hence from the core).  The explanation shows the lanes as
the builtin reads them; it is a view of the computation, not a second one.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core import pack_scalar, trace
from ..core.errors import OperandConstraintError, OperandError
from ..core.values import MASK32, WORD_END, WORD_MIN, check_flag
from .builtins import Builtin, lookup
from .cexpr import Arg, Call, ExprSyntaxError, parse_call
from .functions import make
from .target import target as make_target
from .targets import check_profile


@dataclass(frozen=True)
class Evaluation:
    """A bound, evaluated call."""

    text: str
    call: Call
    row: Builtin
    profile: str
    values: dict  # parameter name -> Python value (bool, int, or (int, int) for vector literals)
    words: dict  # "src0"/"src1"/"src2" -> the 32-bit pattern (unsigned int)
    neg: bool
    clamp: bool
    src0_signed: bool
    src1_signed: bool
    result: int
    target: str | None = None


def _bool(arg: Arg, param: str, line: str) -> bool:
    if arg.kind == "bool":
        return arg.value
    if arg.kind == "int" and arg.value in (0, 1):
        return bool(arg.value)
    raise OperandConstraintError(
        f"{param} is a bool parameter; expected true, false, 0 or 1, got {arg.text}", line, arg.column
    )


def _word(arg: Arg, param: str, ctype: str, line: str) -> int:
    if arg.kind != "int":
        raise OperandConstraintError(f"{param} is {ctype}; expected an integer, got {arg.text}", line, arg.column)
    if not WORD_MIN <= arg.value < WORD_END:
        raise OperandConstraintError(
            f"{param}={arg.value} does not fit {ctype}; expected a 32-bit value in [-2**31, 2**32) "
            f"(signed or unsigned spelling)",
            line,
            arg.column,
        )
    return arg.value


def _vector(arg: Arg, param: str, ctype: str, line: str):
    if arg.kind == "vector":
        return tuple(e.value for e in arg.value)
    if arg.kind == "int":  # a packed 32-bit word: an intdot convenience, C would need a vector
        return _word(arg, param, ctype, line)
    raise OperandConstraintError(
        f"{param} is {ctype}; expected ({ctype}){{a, b}} or a packed 32-bit integer, got {arg.text}", line, arg.column
    )


def _packed_word(value, param: str) -> int:
    """The 32-bit pattern of an operand: a word, or a 16-bit pair packed by the core (lane order lives there)."""
    if isinstance(value, tuple):
        return pack_scalar(list(value), 16, param)
    return value & MASK32


def evaluate(text: str, *, profile: str = "reference", target: str | None = None, clamp: bool = False) -> Evaluation:
    """Parse and evaluate ``text``, a call of one builtin.

    ``clamp`` is the reference profile's keyword (the llvm profile's clamp is
    the call's last argument).  With ``target``, a builtin the target lacks
    raises :class:`~intdot.errors.UnsupportedOnTarget`.

    >>> evaluate("sdot4(0x01020304, 0x05060708, 10, false)").result
    80
    """
    profile = check_profile(profile)
    clamp = check_flag(clamp, "clamp")
    call = parse_call(text)
    try:
        row = lookup(call.name)
    except ValueError as exc:
        raise ExprSyntaxError(str(exc), text, call.column) from None
    params = row.params(profile)
    if len(call.args) != len(params):
        col = call.args[len(params)].column if len(call.args) > len(params) else call.close_column
        raise ExprSyntaxError(
            f"{row.full_name} takes {len(params)} arguments ({', '.join(params)}) in the "
            f"{profile} profile, got {len(call.args)}",
            text,
            col,
        )
    values = {}
    for param, arg in zip(params, call.args):
        if param in ("src0_neg", "src1_neg", "neg", "clamp"):
            values[param] = _bool(arg, param, text)
        elif param == "src2":
            values[param] = _word(arg, param, row.result, text)
        elif row.layout == "short2":
            values[param] = _vector(arg, param, row.operand_type, text)
        else:
            values[param] = _word(arg, param, row.operand_type, text)
    if profile == "llvm":
        if clamp:
            raise OperandError(
                "clamp=True: in the llvm profile clamp is the call's last argument, not an option; drop --clamp"
            )
        neg, clamp = False, values["clamp"]
    else:
        neg = values["neg"]
    if target is not None:
        t = make_target(target, profile)
        fn, target = t.builtin(row), t.name  # the canonical spelling, for --explain
    else:
        fn = make(row, profile)
    # A (short2){a, b} literal is packed here: the builtins read every other int or sequence as words.
    args = [_packed_word(values[p], p) if isinstance(values[p], tuple) else values[p] for p in params[:-1]]
    result = fn(*args, clamp) if profile == "llvm" else fn(*args, neg, clamp=clamp)
    if row.layout == "sudot":
        s0, s1 = values["src0_neg"], values["src1_neg"]
    else:
        s0, s1 = row.src0 == "s", row.src1 == "s"
    words = {p: _packed_word(values[p], p) for p in ("src0", "src1", "src2")}
    return Evaluation(text, call, row, profile, values, words, neg, clamp, s0, s1, result, target)


def hex32(value: int) -> str:
    return f"0x{value & MASK32:08x}"


def explain(ev: Evaluation) -> list[str]:
    """The lines ``intdot eval --explain`` prints: lanes, products, dot product, accumulation, clamp."""
    row = ev.row
    sign = {True: "signed", False: "unsigned"}
    out = [f"{row.c_signature(ev.profile)}   [{ev.profile} profile" + (f", target {ev.target}]" if ev.target else "]")]
    out.append("  arguments: " + ", ".join(f"{p} = {a.text}" for p, a in zip(row.params(ev.profile), ev.call.args)))
    for name, signed in (("src0", ev.src0_signed), ("src1", ev.src1_signed)):
        out.append(
            f"  {name} = {hex32(ev.words[name])}: {row.lanes} {sign[signed]} {row.width}-bit lanes, "
            f"lane 0 in the low bits"
        )
    spec = row.spec(ev.src0_signed, ev.src1_signed)
    steps = trace(spec, ev.words["src0"], ev.words["src1"], ev.words["src2"], neg=ev.neg, clamp=ev.clamp)
    out.append(f"  {'lane':>4}  {'src0':>7}  {'src1':>7}  {'product':>12}")
    for k, (x, y, p) in enumerate(zip(steps.a_lanes, steps.b_lanes, steps.products)):
        out.append(f"  {k:>4}  {x:>7}  {y:>7}  {p:>12}")
    dot, acc, exact = steps.dot, steps.acc, steps.exact
    out.append(f"  dot product = {' + '.join(f'({p})' if p < 0 else str(p) for p in steps.products)} = {dot}")
    out.append(f"  src2 as {row.result} = {acc}")
    op = "-" if ev.neg else "+"
    note = "   [neg: the dot product is subtracted]" if ev.neg else ""
    out.append(f"  accumulate: src2 {op} dot = {acc} {op} {dot if dot >= 0 else f'({dot})'} = {exact} (exact){note}")
    lo, hi = spec.result_range
    if ev.clamp:
        state = (
            "below the range: saturated"
            if exact < lo
            else "above the range: saturated"
            if exact > hi
            else "in range: unchanged"
        )
        out.append(f"  clamp to {row.result} [{lo}, {hi}]: {exact} is {state} -> {ev.result}")
    elif lo <= exact <= hi:
        out.append(f"  no clamp: {exact} fits {row.result}, no wrap-around -> {ev.result}")
    else:
        out.append(f"  no clamp: wrap modulo 2**32 to {row.result}: {exact} -> {ev.result}")
    return out


def result_line(ev: Evaluation) -> str:
    return f"{ev.result} ({hex32(ev.result)})"
