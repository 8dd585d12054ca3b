"""docs/cli.md's examples, run as a user would run them: each ```console block in a
fresh directory, by bash, with ``intdot`` this checkout's command; every output
line must be what the page shows.  Blocks that call clang-19 or other LLVM tools
need those oracles (tests.oracles.missing otherwise)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.oracles import find_tool, missing

DOC = Path(__file__).resolve().parents[2] / "docs" / "cli.md"
TOOLS = ("clang-19", "llvm-objdump-19", "llvm-objcopy-19", "llvm-mc-19")
MARK = "@@intdot-docs-command@@"
# argparse wraps usage and help to $COLUMNS, and to 80 where there is no terminal (a pipe, a file): the
# width a reader sees when they run the page's commands, whatever the terminal of whoever runs the tests.
HELP_COLUMNS = 80


def blocks() -> list[tuple[int, list[tuple[str, list[str]]]]]:
    """(line number, [(command, expected output lines)]) for each console block."""
    out, lines = [], DOC.read_text().splitlines()
    i = 0
    while i < len(lines):
        if lines[i].strip() != "```console":
            i += 1
            continue
        start, i, cmds = i + 1, i + 1, []
        while lines[i].strip() != "```":
            line = lines[i]
            assert line.startswith("$ "), f"docs/cli.md:{i + 1}: output before any command"
            cmd = [line[2:]]
            heredoc = re.search(r"<<'?(\w+)'?", line)
            i += 1
            while cmd[-1].endswith("\\") or heredoc:
                cmd.append(lines[i])
                i += 1
                if heredoc and cmd[-1] == heredoc[1]:
                    heredoc = None
            expected = []
            while not lines[i].startswith("$ ") and lines[i].strip() != "```":
                expected.append(lines[i])
                i += 1
            cmds.append(("\n".join(cmd), expected))
        out.append((start, cmds))
        i += 1
    return out


def run_block(cmds, cwd) -> list[list[str]]:
    script = ["exec 2>&1", f'intdot() {{ "{sys.executable}" -m intdot "$@"; }}']
    for k, (cmd, _) in enumerate(cmds):
        # Print a marker between commands, keeping $? for an 'echo $?' that follows.
        script += [f'__s=$?; echo "{MARK} {k}"; (exit $__s)', cmd]
    env = {**os.environ, "COLUMNS": str(HELP_COLUMNS)}
    src = str(Path(__file__).resolve().parents[2] / "src")
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    res = subprocess.run(
        ["bash", "-c", "\n".join(script)], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )
    parts = re.split(rf"^{MARK} \d+\n", res.stdout, flags=re.M)[1:]
    return [p.splitlines() for p in parts]


BLOCKS = blocks()


def test_every_command_has_an_example():
    text = DOC.read_text()
    for command in ("eval", "table", "asm", "disasm", "exec"):
        assert re.search(rf"^\$ .*intdot {command}\b", text, re.M), command


@pytest.mark.parametrize("start, cmds", BLOCKS, ids=[f"line{b[0]}" for b in BLOCKS])
def test_documented_examples(start, cmds, tmp_path):
    body = "\n".join(c for c, _ in cmds)
    for tool in TOOLS:
        if tool in body and find_tool("INTDOT_" + tool.upper().replace("-", "_"), tool) is None:
            missing(tool, "install LLVM 19 (clang-19, lld-19, llvm-19), e.g. with scripts/install-oracles.sh")
    got = run_block(cmds, tmp_path)
    assert len(got) == len(cmds)
    for (cmd, want), lines in zip(cmds, got):
        if os.environ.get("INTDOT_DOCS_SHOW"):
            print(f"$ {cmd}\n" + "\n".join(lines))
        assert [ln.rstrip() for ln in lines] == [ln.rstrip() for ln in want], f"docs/cli.md:{start}: {cmd}"


def test_usage_shown_is_the_help_of_its_command():
    """Each ``usage: intdot CMD`` on the page is, line for line, what ``intdot CMD --help`` starts with."""
    text = DOC.read_text().splitlines()
    starts = [i for i, line in enumerate(text) if line.startswith("usage: intdot ")]
    assert starts, "docs/cli.md shows no usage"
    env = {**os.environ, "COLUMNS": str(HELP_COLUMNS)}
    env["PYTHONPATH"] = str(DOC.parents[1] / "src") + os.pathsep + env.get("PYTHONPATH", "")
    for i in starts:
        shown = [text[i]]
        while text[i + len(shown)].startswith(" "):  # usage's continuation lines are indented
            shown.append(text[i + len(shown)])
        command = text[i].split()[2]
        out = subprocess.run(
            [sys.executable, "-m", "intdot", command, "--help"], env=env, capture_output=True, text=True, check=True
        ).stdout.splitlines()
        assert shown == out[: len(shown)] and not out[len(shown)].startswith(" "), f"docs/cli.md:{i + 1}"
