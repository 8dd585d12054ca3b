"""The top-level command line: positionals after options, unknown options, no command."""

from __future__ import annotations

import pytest

from intdot.cli import main


def test_positionals_may_follow_options(capsys):
    # The words come from LLVM's tests (tests/data/arm_llvm_mc.tsv).
    assert main(["disasm", "0x4f22f83f", "--mark", "0x44ba1c20"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split(None, 1)[1] for line in out] == ["sudot v31.4s, v1.16b, v2.4b[3]", "sudot z0.s, z1.b, z2.b[3]"]


def test_unknown_option_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["disasm", "0x4f22f83f", "--bogus", "0x44ba1c20"])
    assert exc.value.code == 2
    assert "unrecognized arguments: --bogus" in capsys.readouterr().err


def test_extra_positionals_where_none_are_taken(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["table", "extra"])
    assert exc.value.code == 2
    assert "unrecognized arguments: extra" in capsys.readouterr().err


def test_no_command_prints_help(capsys):
    assert main([]) == 2
    assert "COMMAND" in capsys.readouterr().err


def test_each_command_loads_only_its_module():
    """main() builds the parser of the command it runs alone (start-up time); the map it
    uses must name, for every command, the module that registers it."""
    import argparse
    import importlib

    from intdot.cli import COMMAND_MODULES, COMMANDS, build_parser

    registered = {}
    for module in COMMAND_MODULES:
        sub = argparse.ArgumentParser().add_subparsers()
        importlib.import_module(f"intdot.cli.{module}").register(sub)
        registered.update(dict.fromkeys(sub.choices, module))
    assert registered == COMMANDS
    assert list(build_parser()._subparsers._group_actions[0].choices) == list(COMMANDS)


def test_version_needs_no_command_module(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0 and capsys.readouterr().out.startswith("intdot ")


def test_interrupt_is_status_130_wherever_it_lands(capsys, monkeypatch):
    """Issue 15 item 8: Ctrl-C is status 130 with one line, in a command and while its parser is built."""
    import intdot.cli as cli

    def interrupted(args):
        raise KeyboardInterrupt

    real = cli.build_parser

    def parser_with_interrupt(modules):
        parser = real(modules)
        parser._subparsers._group_actions[0].choices["disasm"].set_defaults(func=interrupted)
        return parser

    monkeypatch.setattr(cli, "build_parser", parser_with_interrupt)
    assert main(["disasm", "0x4f22f83f"]) == 130
    assert capsys.readouterr().err == "intdot disasm: interrupted\n"

    def no_parser(modules):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "build_parser", no_parser)
    assert main(["disasm", "0x4f22f83f"]) == 130
    assert capsys.readouterr().err == "intdot disasm: interrupted\n"


def test_sigint_ends_a_real_process_with_130(tmp_path):
    """A real SIGINT, sent while `intdot eval -f -` waits on its input, wherever the process is by then."""
    import os
    import signal
    import subprocess
    import sys
    import time

    proc = subprocess.Popen(
        [sys.executable, "-m", "intdot", "eval", "-f", "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        time.sleep(1.0)
        os.kill(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert err.splitlines()[-1].endswith("interrupted") and "Traceback" not in err


def test_sigint_while_intdot_starts_is_130():
    """The console script's handler runs before NumPy is imported (``import intdot`` imports nothing), so Ctrl-C
    during the imports is one line and 130; an interrupt stand-in: SIGINT sent by the process to itself at the
    moment intdot.cli's import begins."""
    import subprocess
    import sys

    code = (
        "import os, signal, sys, intdot\n"
        "assert 'numpy' not in sys.modules, 'import intdot imported NumPy'\n"
        "import builtins\n"
        "real = builtins.__import__\n"
        "def spy(name, *a, **k):\n"
        "    if name == 'numpy':\n"
        "        os.kill(os.getpid(), signal.SIGINT)\n"
        "    return real(name, *a, **k)\n"
        "builtins.__import__ = spy\n"
        "from intdot._start import main\n"
        "sys.exit(main())\n"
    )
    proc = subprocess.run([sys.executable, "-c", code, "list"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 130, proc.stderr
    # NumPy first loads once the command is parsed (no start-up module imports it), so the line names it
    assert proc.stderr in ("intdot: interrupted\n", "intdot list: interrupted\n"), proc.stderr


def test_console_script_is_the_early_entry():
    from pathlib import Path

    pyproject = (Path(__file__).resolve().parents[1] / "pyproject.toml").read_text()
    assert '\nintdot = "intdot._start:main"\n' in pyproject
