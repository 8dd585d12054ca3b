"""docs/arm.md outside its execution section (whose sessions tests/arm/test_execute.py runs): every
``$ intdot asm`` / ``$ intdot disasm`` session, and the table of forms against ``FORMS``. The page's ``>>>``
examples run in tests/test_docs.py."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from intdot.arm import FORMS
from intdot.cli import main

DOC = Path(__file__).resolve().parents[2] / "docs" / "arm.md"
EXECUTION = "## Register-file model and execution"


def _text() -> str:
    """The page without the execution section (that one is tested by its owner's test)."""
    text = DOC.read_text()
    return re.sub(rf"^{re.escape(EXECUTION)}\n.*?(?=^## |\Z)", "", text, flags=re.M | re.S)


def _sessions() -> list[tuple[str, str]]:
    """(command line, expected stdout) of each ``$ intdot asm|disasm`` line in a fenced block."""
    blocks = re.findall(r"^```(\w*)\n(.*?)^```$", _text(), re.M | re.S)
    out = []
    for lang, block in blocks:
        if lang:
            continue
        for chunk in re.split(r"^(?=\$ )", block, flags=re.M):
            if chunk.startswith("$ intdot asm") or chunk.startswith("$ intdot disasm"):
                command, _, expected = chunk.partition("\n")
                out.append((command[2:], expected))
    return out


SESSIONS = _sessions()


def test_sessions_found():
    assert len(SESSIONS) >= 4


@pytest.mark.parametrize("command, expected", SESSIONS, ids=[c for c, _ in SESSIONS])
def test_shell_session(command, expected, capsys):
    assert main(shlex.split(command)[1:]) == 0
    assert capsys.readouterr().out == expected


def test_forms_table():
    """Each row of the page's table of forms names a row of FORMS with its constant, canonical text and features."""
    rows = re.findall(
        r"^\| `((?:s|u|us|su)dot_\w+)` \| `([^`]+)` \| `(0x[0-9A-F]{8})` \| `([^`]+)` \|$", DOC.read_text(), re.M
    )
    assert [name for name, _, _, _ in rows] == [f.name for f in FORMS]
    import intdot.arm as arm

    for name, text, constant, features in rows:
        form = next(f for f in FORMS if f.name == name)
        assert form.layout.match == int(constant, 16), name
        assert form.features == features, name
        insn = arm.asm.parse(text)
        assert insn.form is form and insn.text == text, name
