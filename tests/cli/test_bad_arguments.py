"""Issue 8, defect 1: no command ends in a traceback.

Every subcommand runs over a corpus of bad or odd arguments; each must end
with a documented exit status (0, 1 bad input, 2 usage), and an error must be
one ``intdot COMMAND: error: ...`` line (a syntax error may add its text and a
caret), or argparse's usage of that command."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from intdot.cli import EXIT_STATUS_HELP, build_parser, subcommand_parser

# Arguments no command should choke on.
GENERIC = [
    ["--bogus"],
    [""],
    [" "],
    ["\x00"],
    ["-"],
    ["--", "x"],
    ["\ufeff"],
    ["\U0001f4a5"],
    ["9" * 5000],
    ["0x"],
    ["[0x1,0x2]"],
    ["{"],
    ["--json", "\udcff"],
    ["-1"],
    ["a" * 100000],
]

ELF_X86 = "/bin/true"  # an ELF file of another machine

CASES = {
    "eval": [
        ["sdot4(1,2,3,false)", "--bogus"],
        ["sdot4(1,2,3,false)", "extra"],
        [],
        ["-f", ""],
        ["-f", "/nonexistent/exprs"],
        ["sdot4(1,2,3,false)", "-f", "-"],
        ["-f", "-", "--json", "--explain"],
        ["sdot4(\U0001f4a5)"],
        ["sdot4(" + "1" * 5000 + ", 2, 3, false)"],
        ["--json", "sdot4(1, 2)"],
        ["--target", "", "sdot4(1,2,3,false)"],
        ["--target", "\x00", "sdot4(1,2,3,false)"],
        ["-f", ELF_X86],
        ["-f", "nul\x00byte"],
    ],
    "table": [["extra"], ["--format", "xml"], ["--processors", "--diff", "--format", "json"]],
    "asm": [
        ["-"],
        ["sudot"],
        ["sudot z0.s"],
        ["sudot z0.s, z1.b, z2.b[99999999999999999999]"],
        ["za.s[w8, 0]"],
        ["sudot v0.4s, v1.16b, v2.4b[\u0663]"],
        ["sudot z0.s, z1.b, z2.b[3]", "--fields", "--json"],
        ["sudot z0.s, z1.b, z2.b[3]; ;;; // x"],
        ["\t\r\n"],
        ["-f", "nul\x00byte"],
    ],
    "disasm": [
        [],
        ["zz"],
        ["0"],
        ["--mark", "0", "--fields"],
        ["--json", "--fields", "0"],
        ["-f", ""],
        ["-f", "/nonexistent"],
        ["-f", "/"],
        ["--raw"],
        ["--offset", "-1", "-f", "-"],
        ["--offset", "x"],
        ["--endian", "middle"],
        ["-f", ELF_X86],
        ["-f", ELF_X86, "--raw", "--offset", "99999999999"],
        # offsets Python cannot print or read (more than 4300 digits): 'internal error' before
        ["-f", ELF_X86, "--raw", "--offset", "0x1" + "0" * 5000],
        ["-f", ELF_X86, "--raw", "--offset", "1" * 4400],
        ["-f", ELF_X86, "--raw", "--isa", "amdgpu", "--mcpu", "gfx1030", "--offset", "0x1" + "0" * 5000],
        ["[0x1,0x2,0x3]"],
        ["[0x1,0x2,0x3,0x4,0x5]"],
        ["--stats"],
        ["--stats", "zz"],
        ["--only-dot", "0"],
        ["-f", "-", "--raw", "--endian", "big"],
        ["--offset", "4", "44ba1c20"],
        ["-f", "nul\x00byte"],
        ["-f", "nul\x00byte", "--raw"],
    ],
    "exec": [
        ["sudot z0.s, z1.b, z2.b[0]", "--show", "za"],
        ["sudot z0.s, z1.b, z2.b[0]", "--show", "za.d"],
        ["sudot z0.s, z1.b, z2.b[0]", "--show", "za.s[99]"],
        ["sudot z0.s, z1.b, z2.b[0]", "--show", ""],
        ["sudot z0.s, z1.b, z2.b[0]", "--save", ""],
        ["sudot z0.s, z1.b, z2.b[0]", "--state", ""],
        ["-f", ""],
        ["-f", "/nonexistent"],
        ["-f", "-"],
        ["--vl", "abc", "44ba1c20"],
        ["--svl", "0", "44ba1c20"],
        ["--set", "za.s=1", "44ba1c20"],
        ["--set", "v1.3s=1", "44ba1c20"],
        ["--set", "=", "44ba1c20"],
        ["--set", "v1.b=1..", "44ba1c20"],
        ["44ba1c2"],
        ["0"],
        ["ffffffff"],
        ["0x"],
        ["-e", ""],
        ["--state", ELF_X86, "44ba1c20"],
        ["--state", "/", "44ba1c20"],
        ["44ba1c20", "--json", "--show", "x30"],
        ["-f", "nul\x00byte"],
        ["44ba1c20", "--state", "nul\x00byte"],
        ["44ba1c20", "--save", "nul\x00byte"],
    ],
}


def _commands():
    parser = build_parser()
    return sorted(subcommand_parser(parser, None)._subparsers._group_actions[0].choices)


def _corpus():
    for command in _commands():
        for argv in CASES.get(command, []) + (GENERIC if command in CASES else [["--bogus"], ["--json", "--x"]]):
            yield pytest.param(command, argv, id=f"{command}-{argv!r}"[:80])


def check(command, rc, out, err):
    assert "Traceback" not in err and "Traceback" not in out
    assert "internal error" not in err, err
    assert rc in (0, 1, 2), (rc, err)
    if rc == 1:
        first = err.splitlines()[0]
        assert first.startswith(f"intdot {command}: error: "), err
        rest = err.splitlines()[1:]
        # Only a syntax error adds lines: the text, then a caret.
        assert not rest or (len(rest) == 2 and rest[1].strip() == "^"), err
    if rc == 2:
        assert f"usage: intdot {command}" in err, err
        assert err.splitlines()[-1].startswith(f"intdot {command}: error: "), err


@pytest.mark.parametrize("command, argv", list(_corpus()))
def test_bad_arguments_end_in_a_documented_status(cli, command, argv):
    rc, out, err = cli(command, *argv, stdin="garbage \x00 line\n")
    check(command, rc, out, err)


@pytest.mark.parametrize("command", _commands())
def test_every_help_states_the_exit_statuses(cli, command):
    rc, out, _ = cli(command, "--help")
    assert rc == 0
    flat = " ".join(out.split())
    assert " ".join(EXIT_STATUS_HELP.split()) in flat


def test_top_level_help_states_the_exit_statuses(cli):
    rc, out, _ = cli("--help")
    assert rc == 0 and " ".join(EXIT_STATUS_HELP.split()) in " ".join(out.split())


@pytest.mark.parametrize(
    "argv, command",
    [
        (["eval", "sdot4(1,2,3,false)", "--bogus"], "eval"),
        (["table", "extra"], "table"),
        (["disasm", "44ba1c20", "--bogus"], "disasm"),
        (["exec", "44ba1c20", "--nope"], "exec"),
    ],
)
def test_usage_errors_print_the_subcommands_usage(cli, argv, command):
    """Defect 4: was the top-level 'usage: intdot [-h] [--version] COMMAND ...'."""
    rc, _, err = cli(*argv)
    assert rc == 2
    assert err.startswith(f"usage: intdot {command} ")
    assert err.splitlines()[-1].startswith(f"intdot {command}: error: unrecognized arguments")


def test_an_unexpected_exception_is_one_line_with_status_3(cli, monkeypatch):
    """The safety net: a bug still gives one line, not a traceback."""
    import intdot.cli.amd as amd

    def boom(args):
        raise ZeroDivisionError("deep inside")

    monkeypatch.setattr(amd, "_table", boom)
    rc, out, err = cli("table")
    assert rc == 3 and out == ""
    assert err.startswith("intdot table: internal error: ZeroDivisionError: deep inside") and err.count("\n") == 1


@pytest.mark.parametrize(
    "argv",
    [
        ["asm", "sdot z0.s, z1.b, z2.b"],
        ["disasm", "44ba1c20"],
        ["table"],
        ["exec", "44ba1c20"],
        ["eval", "sdot4(1, 2, 3, false)"],
    ],
)
def test_a_bad_backend_is_reported_by_every_command(cli, monkeypatch, argv):
    """Issue 8, defect 9 (the core checks the value; the command line asks it to at start-up)."""
    monkeypatch.setenv("INTDOT_BACKEND", "bogus")
    rc, out, err = cli(*argv)
    assert rc == 1 and out == ""
    assert err.startswith(f"intdot {argv[0]}: error: ") and "INTDOT_BACKEND='bogus'" in err


def _run_with_stdout(stdout) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # buffered, as for most users
    return subprocess.run(
        [sys.executable, "-m", "intdot", "disasm", "44ba1c20"],
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
def test_a_full_disk_is_one_error_line():
    """Was Python's 'Exception ignored ... OSError' at exit and status 120."""
    with open("/dev/full", "w") as full:
        proc = _run_with_stdout(full)
    assert proc.returncode == 1
    assert proc.stderr == "intdot disasm: error: No space left on device\n"


def test_a_closed_stdout_is_one_error_line():
    """intdot ... >&- : was 'internal error: AttributeError: 'NoneType' object has no attribute 'write'' (status 3)."""
    proc = subprocess.run(
        ["sh", "-c", 'exec "$0" -m intdot disasm 44ba1c20 >&-', sys.executable], stderr=subprocess.PIPE, text=True
    )
    assert proc.returncode == 1 and proc.stderr == "intdot disasm: error: standard output is closed\n"
