"""``intdot eval`` and ``intdot table``: the AMD GPU dot builtins on the command line."""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys

from ..core.errors import IntdotError, OperandError, quote
from . import isa_option
from .inputs import at_line, read_text, source_name
from .messages import error_text

EVAL_EPILOG = r"""examples:
  intdot eval 'sdot4(0x01020304, 0x05060708, 10, false)'
  intdot eval '__builtin_amdgcn_sudot4(true, 0x80FF7F01, false, 0x01020304, 100, false)' --explain
  intdot eval 'sdot2((short2){-3, 7}, (short2){2, 5}, 0, false)'
  intdot eval 'sdot4(0x80808080, 0x80808080, 0x7fffffff, true)' --profile llvm --target gfx942
  printf 'sdot4(1, 2, 3, false)\nudot4(-1, -1, 0, false)\n' | intdot eval -f - --json
  intdot eval --isa x86 '_mm_dpbusd_epi32(src, a, b)' --set 'src=[0]*4' \
      --set 'a=[255]*16' --set 'b=[-1]*16' --target sapphirerapids --explain

With -f, each line is one expression ('//' starts a comment; blank lines are
skipped).  Text output has one line per expression, in order: the result, or
'error' (the message, naming the line, goes to stderr).  --json prints one JSON
object per expression and line (JSON Lines).  A bad line does not stop the
batch unless --fail-fast; the exit status is 1 if any line failed.

In the reference profile the last argument is neg; in the llvm profile it is
clang's clamp (use --clamp for the reference profile's saturation).

--isa x86 evaluates one x86 intrinsic call: a register argument is a list of
lanes, lane 0 first ([1, 2, ...]; its length fixes the lane width; [0]*4
repeats one) or the whole register in hex (0x and every digit, most
significant byte first); a mask is an integer; --set NAME=VALUE names a value.
-f, --profile, --clamp and --fail-fast are the AMD builtins' only (an error
with --isa x86), --set is x86's only.
"""

TABLE_EPILOG = """\
examples:
  intdot table
  intdot table --profile llvm --processors --format markdown
  intdot table --diff
"""


def _wrap(text: str) -> str:
    import textwrap

    return textwrap.fill(text, 80)


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "eval",
        help="evaluate AMD dot builtin calls written in C (one, or a file of them), or an x86 intrinsic call",
        # The formatter keeps line breaks (for the epilog's examples), so the description is wrapped here.
        description=_wrap(
            "Evaluate one AMD GPU dot builtin call, written as in kernel source, bit for bit. "
            "Prints the result in decimal and hex.  --isa x86: one x86 dot intrinsic call on register values."
        ),
        epilog=EVAL_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("expr", metavar="EXPR", nargs="?", help="the call, e.g. 'sdot4(-1, 0x7f7f7f7f, 5, false)'")
    p.add_argument("-f", "--file", metavar="FILE", help="evaluate each line of FILE ('-' for stdin)")
    p.add_argument(
        "--target",
        metavar="T",
        help="fail if the call does not exist on T, as 'intdot available' answers: an AMD family (CDNA3) or "
        "processor (gfx942); --isa x86: a level or processor (x86-64-v4, sapphirerapids, alderlake+avx512vnni)",
    )
    p.add_argument(
        "--profile",
        choices=("reference", "llvm"),
        default="reference",
        help="reference (default; last argument neg) or llvm (clang: last argument clamp)",
    )
    p.add_argument(
        "--clamp",
        action="store_true",
        help="reference profile: saturate instead of wrapping (the hardware's clamp bit)",
    )
    p.add_argument(
        "--explain",
        action="store_true",
        help="show each lane, the products, the dot product, the accumulation and the clamp step "
        "(with --json: the lanes)",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print a JSON object per expression: value, hex, builtin, target, profile, ...",
    )
    p.add_argument("--fail-fast", action="store_true", help="with -f: stop at the first line that fails")
    p.add_argument(
        "--set",
        dest="sets",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="--isa x86: give a name used in the call a value (a vector literal [..], a hex register or a mask)",
    )
    isa_option.add(p, "eval", "amd")
    p.set_defaults(func=lambda args: isa_option.dispatch(args, "eval", "amd", _eval))

    t = subparsers.add_parser(
        "table",
        help="where each AMD dot builtin is available",
        description=_wrap(
            "The availability matrix of the AMD GPU dot builtins: builtins x families "
            "(or x processors), in the reference or the llvm profile."
        ),
        epilog=TABLE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    t.add_argument(
        "--profile",
        choices=("reference", "llvm"),
        default="reference",
        help="reference (default: the reference's table by family) or llvm (clang's target features)",
    )
    t.add_argument("--processors", action="store_true", help="one column per processor instead of per family")
    t.add_argument(
        "--diff", action="store_true", help="list where the reference and llvm profiles disagree (ignores --profile)"
    )
    t.add_argument(
        "--format",
        choices=("text", "markdown", "csv", "json"),
        default="text",
        dest="fmt",
        help="output format (default: text)",
    )
    t.add_argument(
        "--plot",
        metavar="FILE",
        help="instead: draw which instructions of every ISA compute the same dot step (the catalog's "
        "equivalence matrix) to FILE (.png, .svg or .pdf; needs matplotlib)",
    )
    t.set_defaults(func=_table)


def _eval(args) -> int:
    from ..amd.evaluate import explain, result_line

    if args.file is None:
        if args.expr is None:
            raise OperandError("no expression given; pass EXPR, or -f FILE ('-' for stdin) for one a line")
        if args.fail_fast:
            raise isa_option.OptionConflict(
                "--fail-fast stops a -f batch at its first failing line; one EXPR is no batch: leave --fail-fast "
                "out, or give the expressions with -f FILE"
            )
        ev = _evaluate(args.expr, args)
        if args.json:
            print(json.dumps(_record(ev, args.explain)))
            return 0
        if args.explain:
            for line in explain(ev):
                print(line)
            for line in _lowering(ev):
                print(line)
        print(result_line(ev))
        return 0
    if args.expr is not None:
        raise OperandError(f"EXPR {quote(args.expr)} and --file {quote(args.file)} both given; use one")
    return _batch(args)


def _evaluate(text: str, args):
    """``evaluate`` with the command line's options; a message naming the library's keyword names the option."""
    from ..amd.evaluate import evaluate

    try:
        return evaluate(text, profile=args.profile, target=args.target, clamp=args.clamp)
    except IntdotError as exc:
        exc.args = tuple(str(a).replace("profile='llvm'", "--profile llvm") for a in exc.args)
        raise


def _lowering(ev) -> list[str]:
    """With a processor as the target: the instruction clang-19 emits for the call (intdot.amdgpu.lowering)."""
    if not ev.target or not ev.target.lower().startswith("gfx"):
        return []
    from ..amdgpu import lowering
    from ..core.errors import IntdotError

    flags = {"src0_signed": ev.src0_signed, "src1_signed": ev.src1_signed} if ev.row.layout == "sudot" else {}
    try:
        low = lowering(ev.row.name, ev.target, clamp=ev.clamp, **flags)
    except IntdotError as exc:
        return [f"  instruction: none: {exc}"]
    return [f"  instruction (clang-19 on {ev.target}): {low.text}"]


def _batch(args) -> int:
    """One expression a line; a failing line is reported and the batch goes on."""
    from ..amd.evaluate import explain, result_line

    source = source_name(args.file)
    failed = seen = 0
    for n, raw in enumerate(read_text(args.file, "--file").splitlines(), 1):
        text = raw.split("//")[0].rstrip()  # leading blanks kept: columns stay the file's
        if not text.strip():
            continue
        seen += 1
        try:
            ev = _evaluate(text, args)
        except IntdotError as exc:
            failed += 1
            err = at_line(exc, source, n)
            if args.json:
                print(json.dumps({"line": n, "expr": text.strip(), "error": error_text(err).splitlines()[0]}))
            else:
                print("error")
            sys.stdout.flush()  # so that a terminal or 2>&1 shows the message after its line's output
            print(f"intdot eval: error: {error_text(err)}", file=sys.stderr)
            if args.fail_fast:
                break
            continue
        if args.json:
            print(json.dumps({"line": n, **_record(ev, args.explain)}))
            continue
        if args.explain:
            for line in explain(ev):
                print(line)
        print(result_line(ev))
    sys.stdout.flush()
    if not seen:  # as asm -f and exec -f: an empty batch is more likely a wrong file than a finished job
        raise OperandError(f"--file {quote(args.file)} holds no expression")
    return 1 if failed else 0


def _record(ev, lanes: bool) -> dict:
    from ..amd.evaluate import hex32

    out = {
        "expr": ev.text,
        "value": ev.result,
        "hex": hex32(ev.result),
        "builtin": ev.row.full_name,
        "target": ev.target,
        "profile": ev.profile,
        "neg": ev.neg,
        "clamp": ev.clamp,
    }
    if lanes:
        from ..core import trace

        spec = ev.row.spec(ev.src0_signed, ev.src1_signed)
        t = trace(spec, ev.words["src0"], ev.words["src1"], ev.words["src2"], neg=ev.neg, clamp=ev.clamp)
        out.update(
            {
                "src0": hex32(ev.words["src0"]),
                "src1": hex32(ev.words["src1"]),
                "src2": hex32(ev.words["src2"]),
                "lanes": [
                    {"lane": k, "src0": x, "src1": y, "product": p}
                    for k, (x, y, p) in enumerate(zip(t.a_lanes, t.b_lanes, t.products))
                ],
                "dot": t.dot,
                "acc": t.acc,
                "exact": t.exact,
            }
        )
    return out


def _yes(x: bool) -> str:
    return "yes" if x else "no"


def _render(title: str, header: list[str], rows: list[list[str]], fmt: str, data) -> str:
    if fmt == "json":
        return json.dumps(data, indent=2)
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
        return buf.getvalue().rstrip("\n")
    if fmt == "markdown":
        lines = [f"**{title}**", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join([f"`{r[0]}`"] + r[1:]) + " |" for r in rows]
        return "\n".join(lines)
    widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]
    lines = [title, "  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip()]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    return "\n".join(lines)


def _table(args) -> int:
    from ..amd import BUILTINS, availability, processors

    if args.plot is not None:
        from .equivalence import check_plot_path, plot

        # The plot is the catalog's equivalence matrix, not this table: the table's options do not shape it.
        given = [f"--format {args.fmt}"] * (args.fmt != "text") + ["--processors"] * args.processors
        given += ["--diff"] * args.diff + [f"--profile {args.profile}"] * (args.profile != "reference")
        isa_option.conflict(f"--plot {args.plot}", "draws the equivalence matrix instead of the table", given)

        check_plot_path(args.plot)
        print(f"plot written to {plot(args.plot)}")
        return 0

    by = "processor" if args.processors else "family"
    if not args.diff:
        matrix = availability(args.profile, processors=args.processors)
        cols = list(next(iter(matrix.values())))
        header = ["builtin"] + cols
        rows = [[name] + [_yes(v) for v in avail.values()] for name, avail in matrix.items()]
        data = {"profile": args.profile, "by": by, "columns": cols, "availability": matrix}
        title = f"AMD dot builtins by {by} ({args.profile} profile)"
        print(_render(title, header, rows, args.fmt, data))
        return 0
    ref = availability("reference", processors=args.processors)
    llvm = availability("llvm", processors=args.processors)
    cols = list(ref[BUILTINS[0].name])  # the reference profile's columns: the llvm one has more processors
    diffs = []
    for row in BUILTINS:
        for c in cols:
            if ref[row.name][c] != llvm[row.name][c]:
                diffs.append(
                    {
                        "builtin": row.name,
                        "target": c,
                        "reference": ref[row.name][c],
                        "llvm": llvm[row.name][c],
                        "feature": row.feature,
                    }
                )
    header = ["builtin", by, "reference", "llvm", "llvm feature"]
    rows = [[d["builtin"], d["target"], _yes(d["reference"]), _yes(d["llvm"]), d["feature"]] for d in diffs]
    title = f"Where the reference and llvm profiles disagree, by {by} ({len(diffs)} cells)"
    only_llvm = [p for p in processors("llvm") if p not in processors("reference")]
    data = {"by": by, "differences": diffs}
    if args.processors:
        data["llvm_only_processors"] = only_llvm
    text = _render(title, header, rows, args.fmt, data)
    if args.processors and args.fmt in ("text", "markdown"):
        text += f"\n\nProcessors known only in the llvm profile (no family in the reference): {', '.join(only_llvm)}"
    print(text)
    return 0
