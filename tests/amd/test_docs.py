"""The documentation's console sessions (``$ intdot ...`` through ``main(argv)``) and the differences page's
tables against the rows; the pages' ``>>>`` examples run in tests/test_docs.py."""

from __future__ import annotations

import doctest
import pathlib
import re
import shlex

import pytest

from intdot.cli import main

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs"
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def test_generated_function_docstrings():
    from intdot import amd

    for profile in ("reference", "llvm"):
        for row in amd.BUILTINS:
            fn = amd.builtin(row.name, profile=profile)
            parser = doctest.DocTestParser()
            test = parser.get_doctest(fn.__doc__, {}, row.name, None, 0)
            runner = doctest.DocTestRunner(optionflags=FLAGS)
            runner.run(test)
            assert runner.failures == 0 and test.examples, (row.name, profile)


def sessions(text: str):
    """(argv, expected output) for each ``$ intdot ...`` line of the console blocks."""
    for block in re.findall(r"```console\n(.*?)```", text, re.S):
        cmd, out = None, []
        for line in block.splitlines():
            if line.startswith("$ "):
                if cmd:
                    yield cmd, out
                cmd, out = shlex.split(line[2:])[1:], []
            else:
                out.append(line)
        if cmd:
            yield cmd, out


@pytest.mark.parametrize("argv,expected", list(sessions((DOCS / "amd.md").read_text())))
def test_console_examples(capsys, argv, expected):
    rc = main(argv)
    out, err = capsys.readouterr()
    assert (out + err).splitlines() == expected
    assert rc == (1 if err else 0)


def test_differences_page_tables_match_the_rows():
    """The hand-written tables of docs/differences.md say what the table rows say."""
    from intdot import amd

    text = (DOCS / "differences.md").read_text()
    checked = 0
    for m in re.finditer(r"^\| (`\w+`(?:, `\w+`)*) \| (RDNA2) \| (yes|no) \| (yes|no)", text, re.M):
        for name in re.findall(r"`(\w+)`", m.group(1)):
            assert amd.available(name, m.group(2)) is (m.group(3) == "yes")
            assert amd.available(name, m.group(2), profile="llvm") is (m.group(4) == "yes")
            checked += 1
    assert checked == 6
    for m in re.finditer(r"^\| (`\w+`(?:, `\w+`)*) \| (yes|no) \| (yes|no) \|$", text, re.M):
        for name in re.findall(r"`(\w+)`", m.group(1)):
            assert all(amd.available(name, f) is (m.group(2) == "yes") for f in amd.FAMILIES[:4])
            assert all(amd.available(name, f) is (m.group(3) == "yes") for f in amd.FAMILIES[4:])
            checked += 1
    assert checked == 14
