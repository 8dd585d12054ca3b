"""A megabyte of input in any place a command reads text (an argument, an option's value, a line of an
input file) gives an error line of normal length, where the echoed input is cut as
``intdot.core.errors.quote`` cuts it: ``'xxx...'... (1000000 characters)``.

tests/test_bounded_messages.py bounds the length with random tokens; this file pins the form for each
command, the AMD GPU and x86 paths included, and the one helper (intdot.cli.messages) that applies it
last, to messages the library built with a bare repr."""

from __future__ import annotations

import re

import pytest

from intdot.cli.messages import LINE_LIMIT, bounded, error_text
from intdot.core.errors import AsmSyntaxError

MB = 1_000_000
DOT = "sdot v0.4s, v1.16b, v2.16b"
AMD = ["--isa", "amdgpu", "--mcpu", "gfx942"]
AMD_DOT = "v_dot2_i32_i16 v0, v1, v2, v3"

# "@" is the megabyte, "@file" a file whose one line is the megabyte.
COMMANDS = [
    ["@"],
    ["eval", "@"],
    ["eval", "sdot4(@, 1, 2, false)"],
    ["eval", "sdot4(1, 2, 3, false)", "--target", "@"],
    ["eval", "-f", "@file"],
    ["eval", "--isa", "x86", "@"],
    ["eval", "--isa", "x86", "_mm_dpbusd_epi32(@, [0]*16, [0]*16)"],
    ["eval", "--isa", "x86", "_mm_dpbusd_epi32(a, [0]*16, [0]*16)", "--set", "a=@"],
    ["eval", "--isa", "x86", "_mm_dpbusd_epi32([0]*4, [0]*16, [0]*16)", "--target", "@"],
    ["table", "--format", "@"],
    ["asm", "@"],
    ["asm", "sdot @"],
    ["asm", "-f", "@file"],
    ["asm", *AMD, "@"],
    ["asm", *AMD, "-f", "@file"],
    ["asm", "--isa", "amdgpu", "--mcpu", "@", AMD_DOT],
    ["disasm", "@"],
    ["disasm", "-f", "@file"],
    ["disasm", "-f", "@"],
    ["disasm", *AMD, "@"],
    ["disasm", "--isa", "@", "0x0"],
    ["exec", "@"],
    ["exec", "-e", "@"],
    ["exec", "-f", "@file"],
    ["exec", "--isa", "arm", "@"],
    ["exec", "--set", "@", DOT],
    ["exec", "--set", "z1.b=@", DOT],
    ["exec", "--show", "@", DOT],
    ["exec", *AMD, "@"],
    ["exec", *AMD, AMD_DOT, "--set", "@"],
    ["exec", *AMD, AMD_DOT, "--set", "v1=@"],
    ["exec", "--isa", "amdgpu", "--mcpu", "@", AMD_DOT],
    ["list", "@"],
    ["list", "--isa", "@"],
    ["list", "--target", "@"],
    ["list", "--equivalent", "@"],
    ["available", "@", "gfx942"],
    ["available", "sdot4", "@"],
    ["available", "vdotq_s32", "armv8.2-a+@"],
    ["demo", "--seed", "@"],
    ["run", "@", "--op", "sdot4"],
]


def check_cut(err: str) -> None:
    """stderr is short, and every long run of the input in its message ends where quote() cut it."""
    assert len(err) < 3000, err[:300]
    lines = err.splitlines()
    assert all(len(line) <= LINE_LIMIT + 100 for line in lines), max(map(len, lines))
    message = next(line for line in lines if ": error: " in line)
    # The token is 'x' repeated: 40 or more in a row in the message are an echo, which must end with the cut
    # and the input's length, as quote() writes it (the lines a syntax error adds are caret_window's).
    echoes = list(re.finditer(r"x{40,}", message))
    for m in echoes:
        assert len(m[0]) <= 60, message[:300]
        assert re.match(r"'?\.\.\. \(\d{7} characters\)", message[m.end() :]), message[m.start() : m.end() + 40]


@pytest.mark.parametrize("argv", COMMANDS, ids=[" ".join(a if len(a) < 30 else "..." for a in c) for c in COMMANDS])
def test_a_megabyte_is_cut_in_every_error(cli, tmp_path, argv):
    token = "x" * MB
    path = tmp_path / "in.txt"
    path.write_text(token + "\n")
    words = [str(path) if a == "@file" else a.replace("@", token) for a in argv]
    rc, _, err = cli(*words)
    assert rc in (1, 2), err[-300:]
    check_cut(err)


def test_a_bare_repr_from_the_library_is_cut_like_quote():
    message = f"mnemonic={'a b ' * 100_000!r} is not an AMD GPU integer dot instruction; expected one of v_dot2"
    assert bounded(message) == (
        "mnemonic='a b a b a b a b a b a b a b a b a b a b a b a b a b a b a b '... (400000 characters) is not an "
        "AMD GPU integer dot instruction; expected one of v_dot2"
    )


@pytest.mark.parametrize(
    "message",
    [
        # Apostrophes of prose are not quotes: nothing between them is cut, however long the line.
        "mnemonic 'q' is not in intdot's Arm table (it has: sdot, sudot, udot, usdot); "
        + "see the ISA's own list, " * 6
        + "or 'intdot list --isa arm'",
        "--file 'k.o': No such file or directory",
        "target='gfx1250' is not known in the reference profile; use --profile llvm",
    ],
)
def test_ordinary_messages_are_left_as_they_are(message):
    assert bounded(message) == message


def test_words_without_blanks_and_overlong_lines_are_cut():
    assert bounded("WORD " + "y" * 500 + " is not hex") == "WORD " + "y" * 60 + "... (500 characters) is not hex"
    line = "a b " * 1000  # no value to cut, yet too long: an echo some other way, cut as a whole
    assert bounded(line) == line[:LINE_LIMIT] + f"... ({len(line)} characters)"


def test_a_caret_is_not_moved():
    exc = AsmSyntaxError("unexpected token " + repr("z" * 5000), "sdot " + "z" * 5000, 6)
    first, *rest = error_text(exc).split("\n")
    assert first == "unexpected token " + repr("z" * 60) + "... (5000 characters) (column 6)"
    assert rest == str(exc).split("\n")[1:] and len(rest) == 2


BLANKS = " " * 4000
LONG_BLANK_OPERANDS = [
    f"sdot za.s[w8, {BLANKS}0{BLANKS}, vgx2]x, {{ z0.b, z1.b }}, z2.b",
    f"sdot v0.4s, v1.16b, v2.4b[{BLANKS}1{BLANKS}]{BLANKS}x",
    f"sdot v0.4s, v1.16b, v2.4b[1]{BLANKS * 30}x",
]


@pytest.mark.parametrize("line", LONG_BLANK_OPERANDS, ids=["za", "lane", "tail"])
def test_long_runs_of_blanks_in_an_operand_end_in_an_error(line):
    """Runs of blanks around an operand's index once made its pattern backtrack for minutes (each of these lines
    took over 100 s): the answer is the operand error, given at once. A thread, so that a hang fails the test
    instead of stalling the suite."""
    import threading

    from intdot.arm.asm import assemble

    result = []

    def parse():
        try:
            assemble(line)
        except AsmSyntaxError as exc:
            result.append(str(exc))

    worker = threading.Thread(target=parse, daemon=True)
    worker.start()
    worker.join(timeout=60)
    assert not worker.is_alive(), "the parser is still backtracking after 60 s"
    assert result and "cannot read operand" in result[0], result
