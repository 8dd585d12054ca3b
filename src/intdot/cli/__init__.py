"""The ``intdot`` command line.

The library raises typed exceptions; only this module turns them into one line
on stderr and an exit code.  ``main(argv)`` is testable; each front end adds
its subcommands through a ``register(subparsers)`` function in its own module
of this package.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys

from ..core.errors import QUOTE_LIMIT, IntdotError, quote
from .messages import bounded, error_text

# Modules of this package that add subcommands, in the order --help lists them.
COMMAND_MODULES = ("amd", "arm", "disasm", "arm_exec", "catalog", "demo", "run")
# Which module adds each command, so that a command line loads only the module it runs
# (tests/test_cli_main.py checks this against what the modules register).
COMMANDS = {
    "eval": "amd",
    "table": "amd",
    "asm": "arm",
    "disasm": "disasm",
    "exec": "arm_exec",
    "list": "catalog",
    "available": "catalog",
    "demo": "demo",
    "run": "run",
}

EXIT_ERROR = 1  # an IntdotError: bad input, unsupported instruction, ...
EXIT_USAGE = 2  # argparse's own exit status for bad command lines
EXIT_BUG = 3  # an exception intdot did not mean to raise: a bug, reported in one line
EXIT_INTERRUPTED = 130  # Ctrl-C (SIGINT): 128 + the signal's number, as shells report a process it ended

EXIT_STATUS_HELP = (
    "exit status: 0 success; 1 bad input (one line 'intdot COMMAND: error: ...' on stderr, "
    "plus the text and a caret under the column for a syntax error); 2 usage error (the "
    "command's usage on stderr); 3 internal error (a bug in intdot: please report it; "
    "INTDOT_DEBUG=1 shows the traceback); 130 interrupted (Ctrl-C)"
)


class Parser(argparse.ArgumentParser):
    """argparse's parser, but its errors quote a bounded window of what was typed
    (argparse echoes a bad choice or value whole); subcommands' parsers are of this class too."""

    def error(self, message: str):
        super().error(bounded(message))

    def _print_message(self, message, file=None):
        # argparse drops a write that fails (stdout on a full disk); --help and --version would exit 0 unwritten.
        # (stderr keeps argparse's way: a usage error stays status 2 whether or not its message got out.)
        if message and file is sys.stdout:
            file.write(message)
        else:
            super()._print_message(message, file)


class _Once:
    """An option that holds one value, refused when given again with another value (argparse would keep the last
    silently);
    options that share a destination (``--streaming`` / ``--no-streaming``) count as one.  The refusal is noted
    here and raised when the command starts (:func:`_refuse_repeats`): an error of status 1, as any conflict."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = namespace.__dict__.setdefault("_given_once", {})
        shown = option_string if isinstance(values, (bool, list)) or values is None else f"{option_string} {values}"
        if self.dest in given and given[self.dest] != shown:  # the same words twice lose nothing
            namespace.__dict__.setdefault("_given_twice", []).append((given[self.dest], shown))
        given[self.dest] = shown
        super().__call__(parser, namespace, values, option_string)


def _refuse_repeats(args) -> None:
    twice = getattr(args, "_given_twice", None)
    if twice:
        from .isa_option import OptionConflict

        first, second = twice[0]
        same = first.split()[0] == second.split()[0]
        raise OptionConflict(
            f"{quote(second, marks=False)} after {quote(first, marks=False)}: "
            f"{'an option that holds one value is given twice' if same else 'the two options set one thing'}; "
            "give one"
        )


_SINGLE = (argparse._StoreAction, argparse._StoreConstAction)  # store_true/false are store_const


def _once(parser: argparse.ArgumentParser) -> None:
    for action in parser._actions:
        if type(action) in _SINGLE or type(action) in (argparse._StoreTrueAction, argparse._StoreFalseAction):
            if action.option_strings and action.nargs in (None, 0):
                action.__class__ = type(f"Once{type(action).__name__}", (_Once, type(action)), {})


def build_parser(modules=COMMAND_MODULES) -> argparse.ArgumentParser:
    """The whole parser, or (``modules``) one with only those modules' commands."""
    from .. import __version__

    parser = Parser(
        prog="intdot",
        description="Bit-exact golden model of integer dot-product instructions.",
        epilog="Run 'intdot COMMAND --help' for the options of one command.",
    )
    parser.add_argument("--version", action="version", version=f"intdot {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in modules:
        importlib.import_module(f".{name}", __name__).register(sub)
    parser.epilog += "\n\n" + _wrap(EXIT_STATUS_HELP)
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    for command in sub.choices.values():
        _once(command)
        # Every command's --help ends with the exit statuses; modules need not repeat them.
        if EXIT_STATUS_HELP not in (command.epilog or ""):
            command.epilog = ((command.epilog.rstrip() + "\n\n") if command.epilog else "") + _wrap(EXIT_STATUS_HELP)
            command.formatter_class = _raw_if_needed(command.formatter_class)
    return parser


def _wrap(text: str) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(text, 78))


def _raw_if_needed(formatter):
    # A plain formatter would re-flow a command's example lines together with the statuses.
    return (
        formatter
        if issubclass(formatter, argparse.RawDescriptionHelpFormatter)
        else argparse.RawDescriptionHelpFormatter
    )


def subcommand_parser(parser: argparse.ArgumentParser, name: str | None) -> argparse.ArgumentParser:
    """The parser of subcommand ``name`` (``parser`` itself if there is none)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and name in action.choices:
            return action.choices[name]
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
        # The error belongs to the subcommand: show its usage, not the top-level one.
        subcommand_parser(parser, getattr(args, "command", None)).error(
            f"unrecognized arguments: {' '.join(_shown(e) for e in stray or extras)}"
        )
    if extras:
        getattr(args, dest).extend(extras)
    return args


_NEGATIVE = re.compile(r"-\d")


def _shown(word: str) -> str:
    """An argument as an error lists it: as typed, or quoted (bounded) if long or holding line breaks."""
    return word if len(word) <= 2 * QUOTE_LIMIT and word.isprintable() else quote(word)


def _modules_for(argv) -> tuple:
    """The command modules a command line needs: its command's alone, none for a lone
    ``--version``, every one for anything else (top-level help, an unknown command)."""
    first = argv[0] if argv else None
    if first in COMMANDS:
        return (COMMANDS[first],)
    if list(argv) == ["--version"]:
        return ()
    return COMMAND_MODULES


def main(argv: list[str] | None = None) -> int:
    """Run one command line; returns the exit status (see ``EXIT_STATUS_HELP``)."""
    try:
        return _main(argv)
    except KeyboardInterrupt:  # before the command ran: while its modules were imported or its line parsed
        words = sys.argv[1:] if argv is None else argv
        command = f" {words[0]}" if words and words[0] in COMMANDS else ""
        _say(f"intdot{command}: interrupted")
        return EXIT_INTERRUPTED


def _main(argv: list[str] | None) -> int:
    words = sys.argv[1:] if argv is None else argv
    parser = build_parser(_modules_for(words))
    try:
        args = _parse(parser, argv)
    except SystemExit as exc:
        # --help and --version print and exit 0 from inside argparse: their text is output like any command's,
        # so a write that fails (a full disk) is status 1 here too, not 0 with nothing written.
        try:
            if exc.code in (0, None) and sys.stdout is not None:
                sys.stdout.flush()
        except OSError as err:
            return _output_failed(words, err)
        raise
    except OSError as err:  # Parser._print_message let the failed write through
        return _output_failed(words, err)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    if sys.stdout is None:  # started with stdout closed (intdot ... >&-): Python has no stream to write to
        _say(f"intdot {args.command}: error: standard output is closed")
        return EXIT_ERROR
    try:
        # A misspelt INTDOT_BACKEND is reported by every command, not only by those that reach the array path.
        from ..core import check_environment

        check_environment()
        _refuse_repeats(args)
        status = int(args.func(args) or 0)
        sys.stdout.flush()  # a write error (a full disk) is reported here, not by Python at exit
        return status
    except IntdotError as exc:
        # The first line is the message; AsmSyntaxError adds a caret line under the text.
        _say(f"intdot {args.command}: error: {error_text(exc)}")
        return EXIT_ERROR
    except BrokenPipeError:
        _quiet_stdout()
        return 0
    except OSError as exc:  # the system refused a read or write (a full disk, a closed descriptor): not a bug
        try:
            sys.stdout.flush()
        except OSError:  # stdout itself failed: keep Python's exit-time flush from failing again
            _quiet_stdout()
        # As inputs.file_error words it where the option is known: the file first, then what the system said.
        where = f"{quote(str(exc.filename))}: " if exc.filename else ""
        _say(f"intdot {args.command}: error: {where}{exc.strerror or exc}")
        return EXIT_ERROR
    except KeyboardInterrupt:
        _say(f"intdot {args.command}: interrupted")
        return EXIT_INTERRUPTED
    except Exception as exc:  # noqa: BLE001 - the promise is: no traceback, whatever happened
        if os.environ.get("INTDOT_DEBUG", "") not in ("", "0"):
            raise
        first = bounded((str(exc).splitlines() or [""])[0])  # a bug's message may echo the input too
        _say(
            f"intdot {args.command}: internal error: {type(exc).__name__}: {first} (a bug in intdot; "
            "please report it with the command line; INTDOT_DEBUG=1 shows the traceback)"
        )
        return EXIT_BUG


def _output_failed(words, err: OSError) -> int:
    """Help or version text that could not be written: status 1, as for any command's output (0 for a pipe
    closed early, ``intdot --help | head``, as commands treat it)."""
    _quiet_stdout()
    if isinstance(err, BrokenPipeError):
        return 0
    command = f" {words[0]}" if words and words[0] in COMMANDS else ""
    _say(f"intdot{command}: error: {err.strerror or err}")
    return EXIT_ERROR


def _say(message: str) -> None:
    """Print to stderr whatever the message holds: an argument that was not valid UTF-8
    arrives with surrogate escapes, which a strict stream refuses to write."""
    encoding = getattr(sys.stderr, "encoding", None) or "utf-8"
    print(message.encode(encoding, "backslashreplace").decode(encoding, "replace"), file=sys.stderr)


def _quiet_stdout() -> None:
    """After a closed pipe (``intdot disasm ... | head``), keep Python's exit-time flush from complaining."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
