"""The ``intdot`` command line.

The library raises typed exceptions; only this module turns them into one line
on stderr and an exit code.  ``main(argv)`` is testable; each front end adds
its subcommands through a ``register(subparsers)`` function in its own module
of this package.
"""

from __future__ import annotations

import argparse
import importlib
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
        try:
            module = importlib.import_module(f".{name}", __name__)
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.endswith(f"cli.{name}"):
                continue  # that front end's commands are not there yet
            raise
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
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
