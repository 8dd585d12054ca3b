"""The ``intdot`` command line.

The library raises typed exceptions; only this module turns them into one line
on stderr and an exit code.  ``main(argv)`` is testable; each front end adds
its subcommands through a ``register(subparsers)`` function in its own module
of this package.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys

from ..core.errors import IntdotError

# Modules of this package that add subcommands, in the order --help lists them.
COMMAND_MODULES = ("amd", "arm", "arm_exec")

EXIT_ERROR = 1  # an IntdotError: bad input, unsupported instruction, ...
EXIT_USAGE = 2  # argparse's own exit status for bad command lines


def build_parser() -> argparse.ArgumentParser:
    from .. import __version__

    parser = argparse.ArgumentParser(
        prog="intdot",
        description="Bit-exact golden model of integer dot-product instructions.",
        epilog="Run 'intdot COMMAND --help' for the options of one command.",
    )
    parser.add_argument("--version", action="version", version=f"intdot {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(f".{name}", __name__).register(sub)
    return parser


def _parse(parser: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace:
    """parse_args, but positionals may follow options (``disasm 0x1 --mark 0x2``).

    argparse fills a ``nargs='*'`` positional once, from the first run of
    positionals; a subcommand that names that list in ``set_defaults(late_positionals=DEST)``
    gets the later ones appended.  Unknown options are still errors.
    """
    args, extras = parser.parse_known_args(argv)
    dest = getattr(args, "late_positionals", None)
    stray = [e for e in extras if e.startswith("-") and not _NEGATIVE.match(e)]
    if extras and (dest is None or stray):
        parser.error(f"unrecognized arguments: {' '.join(stray or extras)}")
    if extras:
        getattr(args, dest).extend(extras)
    return args


_NEGATIVE = re.compile(r"-\d")


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = _parse(parser, argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        return int(args.func(args) or 0)
    except IntdotError as exc:
        # The first line is the message; AsmSyntaxError adds a caret line under the text.
        print(f"intdot {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:
        return 0
