"""intdot eval reads builtin calls as C does: '--' and '++' are one token (C's decrement and increment
operators), which a literal cannot take, so 'sdot4(--1, ...)' is a syntax error at its column, as clang-19
says; '- -1' and '-(-1)' are two signs.  clang-19 is the oracle of what C accepts."""

from __future__ import annotations

import subprocess

import pytest

from tests.oracles import find_tool, missing


def _clang_accepts(arg: str, tmp_path) -> bool:
    clang = find_tool("INTDOT_CLANG", "clang-19", "/usr/lib/llvm-19/bin/clang")
    if clang is None:
        missing("clang-19")
    src = tmp_path / "e.c"
    src.write_text(f"int f(void) {{ return {arg}; }}\n")
    done = subprocess.run([clang, "-fsyntax-only", str(src)], capture_output=True, text=True)
    return done.returncode == 0


@pytest.mark.oracle
@pytest.mark.parametrize(
    ("arg", "column"), [("--1", 7), ("- -1", None), ("-(-1)", None), ("++1", 7), ("+-1", None), ("-+-1", None)]
)
def test_signs_read_as_c_reads_them(cli, tmp_path, arg, column):
    accepted = _clang_accepts(arg, tmp_path)
    assert accepted == (column is None)
    rc, out, err = cli("eval", f"sdot4({arg}, 1, 0, false)")
    if accepted:
        # The value C gives the argument: sdot4 of src0 with 1 (lane 0 = 1) is src0's lane 0, sign-extended.
        want = eval(arg, {})  # noqa: S307 - one of the literals above: Python reads these signs as C does
        assert rc == 0 and out.split()[0] == str(want), err
        return
    lines = err.splitlines()
    op = arg[:2]
    assert rc == 1 and not out and len(lines) == 3  # the message, the text, the caret
    assert f"'{op}' is C's" in lines[0] and f"(column {column})" in lines[0]
    assert lines[2].index("^") - 2 == column - 1  # under the operator (the text is indented by two)
