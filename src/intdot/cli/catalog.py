"""``intdot list`` and ``intdot available``: the instruction catalog on the command line."""

from __future__ import annotations

import argparse
import json

from ..core.errors import UnknownTarget, UnsupportedOnTarget, quote

LIST_EPILOG = """\
examples:
  intdot list
  intdot list --isa arm --target neoverse-v2
  intdot list sdot --json
  intdot list --target gfx1100 --profile llvm
  intdot list --targets --isa arm

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

# The Arm extensions that gate some dot form, in the order the target listing shows them.
_ARM_DOT_FEATURES = ("simd", "dotprod", "i8mm", "sve", "sve2", "sve2p1", "sme", "sme2", "sme2p1", "sme-i16i64")


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "list",
        help="the catalog of every dot instruction, with its spellings and features",
        # The formatter keeps the epilog's line breaks, so the description is broken by hand too.
        description="List the integer dot instructions intdot models (AMD builtins, Arm forms), one per\n"
        "line, or only those a target has, or those a name spells.",
        epilog=LIST_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "names",
        nargs="*",
        metavar="NAME",
        help="only the instructions these names spell (builtin, ACLE intrinsic, mnemonic, assembly line)",
    )
    p.add_argument("--isa", choices=("amd", "arm"), help="only this ISA")
    p.add_argument(
        "--target",
        metavar="T",
        help="only what target T has: an AMD family or processor (CDNA3, gfx942) or an Arm "
        "architecture or core (armv9.2-a+sme2, neoverse-v2)",
    )
    p.add_argument(
        "--profile",
        choices=("reference", "llvm"),
        default="reference",
        help="AMD availability: the reference's table (default) or clang's target features",
    )
    p.add_argument("--syntax", action="store_true", help="add a column with the C signature or assembly template")
    p.add_argument("--targets", action="store_true", help="list the known targets and their dot features instead")
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
        choices=("reference", "llvm"),
        default="reference",
        help="AMD availability: the reference's table (default) or clang's target features",
    )
    a.set_defaults(func=_available)


def _target_isa(target: str, profile: str, isa: str | None) -> str:
    """Which ISA a target name belongs to (AMD names are tried first: they cannot be Arm names)."""
    from ..amd.targets import canonical_name
    from ..arm.targets import target as arm_target

    if isa in (None, "amd"):
        try:
            canonical_name(target, profile)
            return "amd"
        except UnknownTarget as amd_error:
            if isa == "amd":
                raise
            amd_reason = amd_error
    try:
        arm_target(target)
        return "arm"
    except UnknownTarget as arm_error:
        if isa == "arm":
            raise
        raise UnknownTarget(
            f"target={quote(target)} is neither an AMD target ({amd_reason}) nor an Arm one ({arm_error})"
        ) from None


_ISA = {"amd": "AMD", "arm": "Arm"}


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
            others = " and ".join(sorted({_ISA[r.isa] for r in recs})) or "no"
            raise UnsupportedOnTarget(
                f"{quote(' '.join(args.names))} names only {others} instructions, and --target {args.target} is an "
                f"{_ISA[isa]} target; expected a target of the names' ISA, or {_ISA[isa]} names"
            )
        recs = [r for r in total if catalog.available(r, args.target, profile=args.profile)]
        where = f"{args.target} ({args.profile} profile)" if isa == "amd" else args.target
        title = f"{len(recs)} of {_instructions(len(total))} ({_ISA[isa]}) are available on {where}"
    return recs, title


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in [header] + rows]


def _list(args) -> int:
    if args.targets:
        return _list_targets(args)
    recs, title = _rows(args)
    if args.json:
        print(json.dumps([r.as_dict() for r in recs], indent=2))
        return 0
    header = ["name", "lanes (a . b)", "acc", "features", "spellings"] + (["syntax"] if args.syntax else [])
    rows = []
    for r in recs:
        shown = [s for s in r.spellings if s != r.syntax and f"{r.isa}.{s}" != r.name]
        rows.append([r.name, r.lanes, r.acc, r.features, ", ".join(shown)] + ([r.syntax] if args.syntax else []))
    print(title)
    if rows:
        print("\n".join(_table(header, rows)))
    return 0


def _list_targets(args) -> int:
    from ..amd import FAMILY_PROCESSORS
    from ..amd.targets import PROCESSOR_FEATURES, processors
    from ..arm.targets import ARCHS, CORES, core_names, target

    out = []
    if args.isa in (None, "amd"):
        for name in list(FAMILY_PROCESSORS) + list(processors(args.profile)):
            if name in FAMILY_PROCESSORS:
                from ..amd.targets import family_features

                feats, kind = family_features(name), "family"
            else:
                feats, kind = PROCESSOR_FEATURES[name], "processor"
            out.append({"isa": "amd", "name": name, "kind": kind, "base": "", "features": sorted(feats)})
    if args.isa in (None, "arm"):
        for name in list(ARCHS) + list(core_names()):
            t = target(name)
            kind = "core" if name in CORES or t.core else "architecture"
            feats = [f for f in _ARM_DOT_FEATURES if f in t.features]
            out.append(
                {"isa": "arm", "name": name, "kind": kind, "base": t.base if kind == "core" else "", "features": feats}
            )
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    header = ["isa", "target", "kind", "architecture", "dot features"]
    note = "(AMD features: clang's, as the llvm profile uses them; Arm: LLVM 19's, dot-relevant ones only)"
    print(f"{len(out)} targets {note}")
    print(
        "\n".join(
            _table(header, [[t["isa"], t["name"], t["kind"], t["base"], " ".join(t["features"]) or "-"] for t in out])
        )
    )
    return 0


def _available(args) -> int:
    from .. import catalog

    recs = catalog.find_all(args.name)
    if len(recs) > 1:
        return _available_any(args, recs)
    rec = catalog.require(args.name, args.target, profile=args.profile)
    if rec.isa == "amd":
        from ..amd.targets import canonical_name

        where = f"{canonical_name(args.target, args.profile)} ({args.profile} profile"
        # The reference profile's table is by family; features are the llvm profile's rule.
        why = f"; needs {rec.features})" if args.profile == "llvm" else ")"
    else:
        from ..arm.targets import target

        where, why = target(args.target).name, f" (needs {rec.features})"
    print(f"{rec.name} is available on {where}{why}")
    return 0


def _available_any(args, recs) -> int:
    """A name that spells several instructions (``sdot``: 28 forms) is available where any of them is."""
    from .. import catalog

    ok = [r.name for r in recs if catalog.available(r, args.target, profile=args.profile)]
    if not ok:
        try:
            catalog.require(recs[0], args.target, profile=args.profile)
        except UnsupportedOnTarget as exc:
            raise UnsupportedOnTarget(
                f"none of the {len(recs)} instructions {quote(args.name)} names is available on {args.target}; "
                f"the first: {exc}"
            ) from None
    shown = ", ".join(ok[:6]) + (f" and {len(ok) - 6} more" if len(ok) > 6 else "")
    print(f"{args.name}: {len(ok)} of the {len(recs)} instructions it names are available on {args.target}: {shown}")
    return 0
