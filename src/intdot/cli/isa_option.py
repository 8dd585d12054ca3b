"""``--isa`` on the verbs that only some ISAs have (``asm``, ``disasm``, ``exec``, ``eval``, ``table``).

Which ISA has which verb is the front ends' data (``FrontEnd.verbs``); an ISA's handler for a
verb is the function ``run`` of the module ``intdot.cli.<isa>_<verb>``, except for the ISA whose
module registered the verb (it handles its own).  An ISA without the verb is a one-line error
naming the ISAs that have it.
"""

from __future__ import annotations

import importlib

from ..core.errors import IntdotError
from ..isa.registry import ISAS, front_end, front_ends


class NoSuchVerb(IntdotError):
    """An ISA that has no such command-line verb."""


def add(parser, verb: str, default: str) -> None:
    """Add ``--isa`` (default ``default``) to a verb's parser."""
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
            help="the processor, for ISAs whose encodings differ by generation (--isa amdgpu: gfx906, gfx942, "
            "gfx1100, gfx1201, ...)",
        )


def dispatch(args, verb: str, own: str, handler):
    """Run ``handler(args)`` for the verb's own ISA, or the other ISA's handler; or say who has the verb."""
    isa = getattr(args, "isa", own) or own
    if isa == own:
        return handler(args)
    if verb not in front_end(isa).verbs:
        have = [fe.isa for fe in front_ends() if verb in fe.verbs]
        raise NoSuchVerb(
            f"--isa {isa}: intdot has no '{verb}' for {front_end(isa).title}; the ISAs that have it: {', '.join(have)}"
        )
    return importlib.import_module(f".{isa}_{verb}", __package__).run(args)
