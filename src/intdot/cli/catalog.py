"""``intdot list`` and ``intdot available``: the instruction catalog on the command line."""

from __future__ import annotations

import argparse
import json

from ..core.errors import UnknownTarget, UnsupportedOnTarget, quote
from ..isa.registry import ISAS
from .isa_option import NotForISA, conflict

# intdot.catalog.PROFILES, written out: importing the catalog (and NumPy with it) to build --help is what
# these parsers avoid; tests/cli/test_help_imports.py checks that the two agree.
PROFILES = ("reference", "llvm")
# One or more targets of each ISA, for --target's help (tests/cli/test_help_imports.py checks them).
TARGET_EXAMPLES = ("gfx942", "CDNA3", "neoverse-v2", "armv9.2-a+sme2", "sapphirerapids", "x86-64-v3+avxvnni", "sm_90")

LIST_EPILOG = """\
examples:
  intdot list
  intdot list --isa arm --target neoverse-v2
  intdot list sdot --json
  intdot list --target gfx1100 --profile llvm
  intdot list --targets --isa arm
  intdot list --equivalent vpdpbusd

Columns: the catalog name, the lanes of each operand per step (count x
signedness and width; ? = chosen by an argument), the accumulator, the
features the instruction needs ('+' all of, '|' any of) and the spellings
intdot accepts for it (builtins, ACLE intrinsics, mnemonics).
"""

AVAILABLE_EPILOG = """\
examples:
  intdot available vusdotq_s32 cortex-a78
  intdot available 'sdot za.d[w8, 0, vgx2], { z0.h, z1.h }, z2.h' armv9.2-a+sme2+sme-i16i64
  intdot available sudot4 gfx1100 --profile llvm

Exit status 0 means the target has the instruction; 1 means it does not (the
one-line message names the missing features) or the input is bad.  A name that
spells several instructions (a mnemonic such as sdot) is available where any of
them is, and the line says which.
"""


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "list",
        help="the catalog of every dot instruction, with its spellings and features",
        # The formatter keeps the epilog's line breaks, so the description is broken by hand too.
        description="List the integer dot instructions intdot models (AMD builtins and GPU\n"
        "instructions, Arm, x86, NVIDIA), one per line, or only those a target has, or\n"
        "those a name spells.",
        epilog=LIST_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "names",
        nargs="*",
        metavar="NAME",
        help="only the instructions these names spell (builtin, ACLE intrinsic, mnemonic, assembly line)",
    )
    p.add_argument("--isa", choices=ISAS, help="only this ISA")
    # Named by example, not by each front end's words for its targets: importing the five front ends to print
    # this line tripled the time of 'list --help' (tests/cli/test_help_imports.py holds every ISA to an example).
    p.add_argument(
        "--target",
        metavar="T",
        help=f"only what target T has: a processor, family, core or architecture of any ISA, with +feature and "
        f"+nofeature where the ISA reads them ({', '.join(TARGET_EXAMPLES)}); --targets lists every one",
    )
    p.add_argument(
        "--profile",
        choices=PROFILES,
        default="reference",
        help="availability per the reference specs (default) or per clang/LLVM 19, where they differ (AMD; "
        "every other ISA answers the same in both)",
    )
    p.add_argument("--syntax", action="store_true", help="add a column with the C signature or assembly template")
    p.add_argument("--targets", action="store_true", help="list the known targets and their dot features instead")
    p.add_argument(
        "--equivalent",
        metavar="NAME",
        help="instead: the instructions of every ISA that compute the same step as NAME, and how to call them",
    )
    p.add_argument("--json", action="store_true", help="machine-readable output: a JSON array")
    p.set_defaults(func=_list)

    a = subparsers.add_parser(
        "available",
        help="whether a target has an instruction (and if not, which features it lacks)",
        description="Say whether TARGET has the instruction NAME (any spelling); exit 1 naming the\n"
        "missing features if it does not.",
        epilog=AVAILABLE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    a.add_argument(
        "name", metavar="NAME", help="any spelling: sdot4, vusdotq_s32, arm.sdot_sve_vec_d, an assembly line"
    )
    a.add_argument("target", metavar="TARGET", help="gfx942, CDNA3, neoverse-v2, armv8.2-a+dotprod, ...")
    a.add_argument(
        "--profile",
        choices=PROFILES,
        default="reference",
        help="availability per the reference specs (default) or per clang/LLVM 19, where they differ (AMD; "
        "every other ISA answers the same in both)",
    )
    a.add_argument("--json", action="store_true", help="machine-readable output: a JSON object")
    a.add_argument(
        "--mode",
        choices=("any", "normal", "streaming"),
        default="any",
        help="Arm: available in either mode (default; the line says if in one only), outside streaming "
        "mode, or in a streaming (__arm_streaming) function",
    )
    a.set_defaults(func=_available)


def _a_or_an(word: str) -> str:
    from ..core.values import a_or_an

    return a_or_an(word)


def _front_ends():
    from ..isa.registry import front_ends

    return front_ends()


def _target_isa(target: str, profile: str, isa: str | None) -> str:
    """Which ISA a target name belongs to: the first front end (registry order) that reads it."""
    import difflib

    from ..isa.registry import front_end

    for fe in [front_end(isa)] if isa else _front_ends():
        try:
            fe.target(target, profile)
            return fe.isa
        except UnknownTarget:
            if isa:
                raise
    # Each ISA's own message lists all its names: together they would be pages.  Say it once, with the close ones.
    names = [t.name for fe in _front_ends() for t in fe.targets(profile)]
    close = difflib.get_close_matches(target.lower(), names, n=3, cutoff=0.75) if len(target) <= 100 else []
    hint = f" (did you mean {' or '.join(close)}?)" if close else ""
    kinds = "; ".join(f"{fe.title}: {fe.target_help}" for fe in _front_ends())
    raise UnknownTarget(
        f"target={quote(target)} is not a target of any ISA intdot knows{hint}; expected {kinds}; "
        "'intdot list --targets' lists them"
    )


def _title(isa: str) -> str:
    from ..isa.registry import front_end

    return front_end(isa).title


def _instructions(n: int) -> str:
    return f"{n} instruction{'' if n == 1 else 's'}"


def _rows(args):
    from .. import catalog

    if args.names:
        recs = []
        for n in args.names:
            recs.extend(r for r in catalog.find_all(n) if r not in recs)
        if args.isa:
            recs = [r for r in recs if r.isa == args.isa]
    else:
        recs = list(catalog.records(args.isa))
    title = _instructions(len(recs))
    if args.target is not None:
        isa = _target_isa(args.target, args.profile, args.isa)
        total = [r for r in recs if r.isa == isa]
        if args.names and not total:
            # "0 of 0 AMD instructions" would hide that the names and the target belong to different ISAs.
            others = " and ".join(sorted({_title(r.isa) for r in recs})) or "no"
            raise UnsupportedOnTarget(
                f"{quote(' '.join(args.names))} names only {others} instructions, and --target {args.target} is "
                f"{_a_or_an(_title(isa))} target; expected a target of the names' ISA, or {_title(isa)} names"
            )
        recs = [r for r in total if catalog.available(r, args.target, profile=args.profile)]
        where = f"{args.target} ({args.profile} profile)" if _profiled(isa) else args.target
        title = f"{len(recs)} of {_instructions(len(total))} ({_title(isa)}) are available on {where}"
    return recs, title


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in [header] + rows]


def _list_conflicts(args) -> None:
    """--targets and --equivalent each list something else than instructions: the options that filter or widen
    the instruction listing would be silently dropped with them, so they are an error."""
    given = {
        f"NAME {quote(' '.join(args.names))}": bool(args.names),
        f"--target {quote(args.target or '', marks=False)}": args.target is not None,
        "--syntax": args.syntax,
    }
    if args.targets:
        given["--equivalent"] = args.equivalent is not None
        conflict("--targets", "lists the targets", [o for o, on in given.items() if on])
    elif args.equivalent is not None:
        # --isa is read: it narrows the equivalents to one ISA.
        conflict(
            f"--equivalent {args.equivalent}",
            "lists the calls that compute its step",
            [o for o, on in given.items() if on],
        )


def _list(args) -> int:
    _list_conflicts(args)
    if args.targets:
        return _list_targets(args)
    if args.equivalent is not None:
        return _list_equivalent(args)
    recs, title = _rows(args)
    if args.json:
        print(json.dumps([r.as_dict() for r in recs], indent=2))
        return 0
    header = ["name", "lanes (a . b)", "acc", "rule", "features", "spellings"] + (["syntax"] if args.syntax else [])
    rows = []
    for r in recs:
        shown = [s for s in r.spellings if s != r.syntax and f"{r.isa}.{s}" != r.name]
        rows.append(
            [r.name, r.lanes, r.acc, r.rule, r.features, ", ".join(shown)] + ([r.syntax] if args.syntax else [])
        )
    print(title)
    if rows:
        print("\n".join(_table(header, rows)))
    return 0


def _list_equivalent(args) -> int:
    from .. import catalog

    me = catalog.find(args.equivalent)
    found = [e for e in catalog.equivalents(me) if args.isa in (None, e.isa)]
    if catalog.swapped(args.equivalent):
        print(f"({args.equivalent} is {me.name} with its sources exchanged: exchange them in the calls below too)")
    if args.json:
        rows = [
            {
                "name": e.name,
                "isa": e.isa,
                "swap": e.swap,
                "a_signed": e.a_signed,
                "b_signed": e.b_signed,
                "clamp": e.clamp,
                "given": dict(e.given),
            }
            for e in found
        ]
        print(
            json.dumps(
                {"name": me.name, "lanes": me.lanes, "acc": me.acc, "rule": me.rule, "equivalents": rows}, indent=2
            )
        )
        return 0
    print(
        f"{me.name} ({me.lanes} -> {me.acc}, {me.rule}): {len(found)} equivalent call{'' if len(found) == 1 else 's'}"
    )
    for e in found:
        print(f"  {e.describe()}")
    return 0


def _profiled(isa: str) -> bool:
    """Whether the ISA's availability depends on the profile (AMD's reference table and clang differ)."""
    from ..isa.registry import front_end

    return len(front_end(isa).profiles) > 1


def _listed_features(fe) -> tuple[str, ...]:
    from .. import catalog
    from ..core.features import parse

    if fe.listed_features:
        return fe.listed_features
    names = [n for r in catalog.records(fe.isa) for n in sorted(parse(r.features).names)]
    return tuple(dict.fromkeys(names))


def _list_targets(args) -> int:
    out = []
    for fe in _front_ends():
        if args.isa not in (None, fe.isa):
            continue
        listed = _listed_features(fe)
        for t in fe.targets(args.profile):
            feats = [f for f in listed if f in t.features]
            base = t.base if t.kind == "processor" and t.base != t.name else ""
            out.append({"isa": fe.isa, "name": t.name, "kind": t.kind, "base": base, "features": feats})
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    header = ["isa", "target", "kind", "architecture", "dot features"]
    note = "(the toolchain features of each ISA that gate one of its dot instructions)"
    print(f"{len(out)} targets {note}")
    print(
        "\n".join(
            _table(header, [[t["isa"], t["name"], t["kind"], t["base"], " ".join(t["features"]) or "-"] for t in out])
        )
    )
    return 0


def _mode(args, isa: str):
    """``--mode`` as ``catalog.status``'s ``streaming``; an ISA without a streaming mode refuses any but ``any``."""
    from ..isa.registry import front_end

    if args.mode == "any":
        return None
    if not front_end(isa).modes:
        raise NotForISA(
            f"--mode {args.mode} applies to an ISA with a streaming mode (Arm) only; {quote(args.name)} is "
            f"{_a_or_an(_title(isa))} name, which has one mode: leave --mode out"
        )
    return args.mode == "streaming"


def _available(args) -> int:
    from .. import catalog
    from ..isa.registry import front_end

    recs = catalog.find_all(args.name)
    streaming = _mode(args, recs[0].isa)
    if len(recs) > 1:
        return _available_any(args, recs, streaming)
    rec = catalog.find(args.name)
    # The name, not the record: a spelling may need more than its instruction (an x86 intrinsic's own features).
    answer = catalog.status(args.name, args.target, profile=args.profile, streaming=streaming)
    fe = front_end(rec.isa)
    t = fe.target(args.target, args.profile)
    if args.json:
        data = {"name": rec.name, "target": t.name, "profile": args.profile, "available": answer.ok}
        data.update({"why": answer.why, "note": answer.note, "mode": answer.mode})
        print(json.dumps(data, indent=2))
        return 0 if answer.ok else 1
    if not answer.ok:
        catalog.require(args.name, args.target, profile=args.profile, streaming=streaming)  # the one-line answer
    if _profiled(rec.isa):
        # The reference profile's table is by family; features are the llvm profile's rule.
        why = f" ({args.profile} profile" + (f"; needs {rec.features})" if args.profile == "llvm" else ")")
    else:
        own = fe.spelling(args.name) if fe.spelling is not None else None
        why = (
            f" (needs {rec.features}"
            + (f"; {args.name} needs {own[0]}" if own and own[0] != rec.features else "")
            + ")"
        )
    note = f"; {answer.note}" if answer.note else ""
    print(f"{rec.name} is available on {t.name}{why}{note}")
    return 0


def _available_any(args, recs, streaming) -> int:
    """A name that spells several instructions (``sdot``: 28 forms) is available where any of them is,
    in the mode ``--mode`` asks for (``streaming``: as :func:`intdot.catalog.status` takes it)."""
    from .. import catalog
    from ..isa.registry import front_end

    answers = [(r, catalog.status(r, args.target, profile=args.profile, streaming=streaming)) for r in recs]
    ok = [r.name for r, a in answers if a.ok]
    t = front_end(recs[0].isa).target(args.target, args.profile)
    mode = "" if streaming is None else " in streaming mode" if streaming else " outside streaming mode"
    if args.json:
        forms = [{"name": r.name, "available": a.ok, "why": a.why, "note": a.note, "mode": a.mode} for r, a in answers]
        data = {"name": args.name, "target": t.name, "profile": args.profile, "mode": args.mode}
        data.update({"available": bool(ok), "count": len(ok), "of": len(recs), "forms": forms})
        print(json.dumps(data, indent=2))
        return 0 if ok else 1
    if not ok:
        other = ""
        if streaming is not None:  # say whether the other mode would do, which the first form's reason may not
            n = sum(catalog.available(r, args.target, profile=args.profile, streaming=not streaming) for r in recs)
            other = f" ({n} of them {'are' if n != 1 else 'is'} available {'outside' if streaming else 'in'} it)"
        raise UnsupportedOnTarget(
            f"none of the {len(recs)} instructions {quote(args.name)} names is available on {t.name}{mode}{other}; "
            f"the first: {answers[0][1].why}"
        )
    shown = ", ".join(ok[:6]) + (f" and {len(ok) - 6} more" if len(ok) > 6 else "")
    print(f"{args.name}: {len(ok)} of the {len(recs)} instructions it names are available on {t.name}{mode}: {shown}")
    return 0
