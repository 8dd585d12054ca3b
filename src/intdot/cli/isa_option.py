"""``--isa`` on the verbs that only some ISAs have (``asm``, ``disasm``, ``exec``, ``eval``, ``table``).

Which ISA has which verb is the front ends' data (``FrontEnd.verbs``); an ISA's handler for a
verb is the function ``run`` of the module ``intdot.cli.<isa>_<verb>``, except for the ISA whose
module registered the verb (it handles its own).  An ISA without the verb is a one-line error
naming the ISAs that have it.

The options of a verb that only some of its ISAs read are listed in :data:`ONLY`; such an option
given with another ISA is a one-line error naming the ISAs that read it, never silently ignored.
"""

from __future__ import annotations

import importlib

from ..core.errors import IntdotError
from ..isa.registry import ISAS, front_end, front_ends


class NoSuchVerb(IntdotError):
    """An ISA that has no such command-line verb."""


class NotForISA(IntdotError):
    """An option given to a verb with an ISA whose handler does not read it."""


class OptionConflict(IntdotError):
    """Two options (or an option and an argument) of one command line that cannot both be honoured."""


def conflict(option: str, does: str, others: list[str]) -> None:
    """Refuse ``others`` (options given together with ``option``, which ``does`` something they do not apply to)."""
    if others:
        named = " and ".join(others)
        raise OptionConflict(
            f"{option} {does}, which {named} {'does' if len(others) == 1 else 'do'} not apply to: leave {named} out"
        )


# verb -> option -> the ISAs whose handler of that verb reads it.  An option a verb's parser has and this
# table does not list is read by every ISA that has the verb (tests/cli/test_isa_option.py checks that each listed
# option exists and that its ISAs have the verb).
ONLY: dict[str, dict[str, tuple[str, ...]]] = {
    "asm": {"--mcpu": ("amdgpu",), "--fields": ("arm",), "--json": ("arm",)},
    "disasm": {
        "--mcpu": ("amdgpu",),
        "--endian": ("arm",),
        "--fields": ("arm",),
        "--demangle": ("arm",),
        "--json": ("arm",),
    },
    "exec": {
        "--mcpu": ("amdgpu",),
        "-e": ("arm",),
        "--file": ("arm",),
        "--vl": ("arm",),
        "--svl": ("arm",),
        "--streaming": ("arm",),
        "--no-streaming": ("arm",),
        "--state": ("arm",),
        "--show": ("arm",),
        "--save": ("arm",),
        "--json": ("arm",),
    },
    "eval": {
        "--file": ("amd",),
        "--profile": ("amd",),
        "--clamp": ("amd",),
        "--fail-fast": ("amd",),
        "--set": ("x86",),
    },
}


def add(parser, verb: str, default: str) -> None:
    """Add ``--isa`` (default ``default``) to a verb's parser; call it after the verb's other options."""
    # The front ends are not imported to build --help: the error for an ISA without the verb names those with it.
    parser.add_argument(
        "--isa",
        choices=ISAS,
        default=default,
        help=f"the instruction set (default: {default}); an ISA without '{verb}' is an error naming those with it",
    )
    if verb != "eval":
        parser.add_argument(
            "--mcpu",
            metavar="PROCESSOR",
            help="--isa amdgpu: the processor, whose generation fixes the encodings (gfx906, gfx942, gfx1100, "
            "gfx1201, ...)",
        )
    # Each restricted option's destination and default, found once here so that a check needs no parser.
    only = {}
    for action in parser._actions:
        for flag in action.option_strings:
            if flag in ONLY.get(verb, {}):
                only[flag] = (action.dest, action.default, ONLY[verb][flag], "/".join(action.option_strings))
    parser.set_defaults(isa_default=default, isa_only=only)


def given(args, flag: str) -> bool:
    """Whether option ``flag`` (one of :data:`ONLY`'s) was given: its value is not the parser's default.

    An option given with its default value (``--profile reference``) reads as not given: it asks for nothing.
    ``--streaming`` and ``--no-streaming`` share one destination; each counts only for the value it stores.
    """
    dest, default, _, _ = args.isa_only[flag]
    value = getattr(args, dest, default)
    if flag == "--streaming":
        return value is True
    if flag == "--no-streaming":
        return value is False
    return value != default and value is not None


def check(args, verb: str, isa: str, *, because: str = "") -> None:
    """Refuse each option of :data:`ONLY` given with an ISA that does not read it (``because``: why that is
    the ISA, where the input chose it)."""
    for flag, (_, _, isas, shown) in getattr(args, "isa_only", {}).items():
        if isa not in isas and given(args, flag):
            default = (
                f" ({because})" if because else " (the default)" if isa == getattr(args, "isa_default", None) else ""
            )
            needs = " or ".join(f"--isa {i}" for i in isas)
            raise NotForISA(
                f"{shown} applies to {needs} only; '{verb}' with --isa {isa}{default} does not read it: "
                f"add {needs.split(' or ')[0]}, or leave {shown} out"
            )


def dispatch(args, verb: str, own: str, handler):
    """Run ``handler(args)`` for the verb's own ISA, or the other ISA's handler; or say who has the verb."""
    isa = getattr(args, "isa", own) or own
    if isa != own and verb not in front_end(isa).verbs:
        have = [fe.isa for fe in front_ends() if verb in fe.verbs]
        raise NoSuchVerb(
            f"--isa {isa}: intdot has no '{verb}' for {front_end(isa).title}; the ISAs that have it: {', '.join(have)}"
        )
    check(args, verb, isa)
    if isa == own:
        return handler(args)
    return importlib.import_module(f".{isa}_{verb}", __package__).run(args)
