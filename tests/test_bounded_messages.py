"""No message grows with its input (issue 15 item 6).

A 200,000-character token gave a 200 KB error line, and ``catalog.find`` and
``arm.assemble`` echoed 10,000 characters.  Every entry point that reads text
(library functions and each command's arguments, options and input files)
is fed huge tokens, alone and inside otherwise plausible input; whatever it
raises or prints must stay short.
"""

from __future__ import annotations

import contextlib
import io

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import intdot
from intdot import amd, arm, catalog
from intdot.cli import main
from intdot.core import features

# Generous: the longest legitimate messages list what was allowed (every AMD target, ~400 characters),
# and a usage error prints the command's usage first.
MAX_MESSAGE = 1200
MAX_STDERR = 2400

# Tokens of 1,000 to 200,000 characters, built by repeating a short piece (quotes, brackets, commas,
# hex digits, non-ASCII and control characters included), so that hypothesis need not draw them one by one.
_PIECES = st.lists(
    st.sampled_from(list("xZ09aF_.,+-[]{}()'\"\\ \t\né€") + ["0x", "sdot", "z1.b", "0b1"]), min_size=1, max_size=6
).map("".join)
# Shrinking a 200,000-character failure takes minutes and tells nothing more than the first one.
NO_SHRINK = (Phase.explicit, Phase.reuse, Phase.generate)
HUGE = st.builds(lambda piece, n: (piece * (n // len(piece) + 1))[:n], _PIECES, st.integers(1_000, 200_000))

LIBRARY = {
    "catalog.find": lambda t: catalog.find(t),
    "catalog.find_all": lambda t: catalog.find_all(t),
    "catalog.equivalents": lambda t: catalog.equivalents(t),
    "catalog.available name": lambda t: catalog.available(t, "gfx942"),
    "catalog.available target": lambda t: catalog.available("sdot4", t),
    "catalog.available arm target": lambda t: catalog.available("vdotq_s32", "armv8.2-a+" + t),
    "catalog.records": lambda t: catalog.records(t),
    "arm.assemble": lambda t: arm.assemble(t),
    "arm.assemble operand": lambda t: arm.assemble("sdot z0.s, z1.b, " + t),
    "arm.assemble index": lambda t: arm.assemble("sdot z0.s, z1.b, z2.b[" + t + "]"),
    "arm.assemble register": lambda t: arm.assemble("sdot v0.4s, v1.16b, v" + t),
    "arm.parse": lambda t: arm.parse(t),
    "arm.form_named": lambda t: arm.form_named(t),
    "arm.decode": lambda t: arm.decode(t),
    "amd.builtin": lambda t: amd.builtin(t),
    "amd.lookup": lambda t: amd.lookup(t),
    "amd.target": lambda t: amd.target(t),
    "amd.available target": lambda t: amd.available("sdot4", t),
    "amd.available profile": lambda t: amd.available("sdot4", "gfx942", profile=t),
    "amd.sdot4 operand": lambda t: amd.sdot4(t, 1, 2, False),
    "features.parse": lambda t: features.parse(t),
    "features.parse inside": lambda t: features.parse("sve2 & (" + t),
    "intdot.dot": lambda t: intdot.dot(t, 1, 2),
    "intdot attribute": lambda t: getattr(intdot, t),
    "intdot.arm attribute": lambda t: getattr(arm, t),
    "intdot.amd attribute": lambda t: getattr(amd, t),
}


@pytest.mark.parametrize("entry", LIBRARY)
@settings(max_examples=8, deadline=None, phases=NO_SHRINK)
@given(token=HUGE)
def test_library_messages_stay_short(entry, token):
    try:
        LIBRARY[entry](token)
    except Exception as exc:  # noqa: BLE001 - any message, typed or not, must be short
        message = str(exc)
        assert len(message) <= MAX_MESSAGE, (entry, len(message), message[:300])
        assert all(len(line) <= MAX_MESSAGE // 2 for line in message.splitlines()), (entry, message[:300])


# Each command, with the huge token in each place that reads text: an argument, an option's value, an input
# file's line.  "@" stands for the token, "@file" for a file that holds it.
COMMANDS = [
    ["@"],
    ["eval", "@"],
    ["eval", "sdot4(@, 1, 2, false)"],
    ["eval", "sdot4(1, 2, 3, false)", "--target", "@"],
    ["eval", "sdot4(1, 2, 3, false)", "--profile", "@"],
    ["eval", "-f", "@file"],
    ["eval", "-f", "@"],
    ["table", "@"],
    ["table", "--format", "@"],
    ["asm", "@"],
    ["asm", "sdot @"],
    ["asm", "sdot z0.s, z1.b, z2.b[@]"],
    ["asm", "-f", "@file"],
    ["asm", "sdot v0.4s, v1.16b, v2.16b", "--target", "@"],
    ["disasm", "@"],
    ["disasm", "[@]"],
    ["disasm", "-f", "@"],
    ["disasm", "-f", "@file"],
    ["disasm", "-f", "@file", "--raw", "--offset", "@"],
    ["exec", "@"],
    ["exec", "--set", "@", "sdot v0.4s, v1.16b, v2.16b"],
    ["exec", "--set", "z1.b=@", "sdot v0.4s, v1.16b, v2.16b"],
    ["exec", "--show", "@", "sdot v0.4s, v1.16b, v2.16b"],
    ["exec", "--vl", "@", "sdot v0.4s, v1.16b, v2.16b"],
    ["exec", "-f", "@file"],
    ["exec", "--state", "@file", "sdot v0.4s, v1.16b, v2.16b"],
    ["list", "@"],
    ["list", "--isa", "@"],
    ["list", "--target", "@"],
    ["available", "@", "gfx942"],
    ["available", "sdot4", "@"],
    ["available", "vdotq_s32", "armv8.2-a+@"],
    ["demo", "--seed", "@"],
    ["demo", "--subset", "@"],
]


@pytest.mark.parametrize("argv", COMMANDS, ids=[" ".join(c) for c in COMMANDS])
@settings(max_examples=4, deadline=None, phases=NO_SHRINK, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(token=HUGE)
def test_command_line_errors_stay_short(argv, token, tmp_path, monkeypatch):
    path = tmp_path / "input.txt"
    path.write_text(token, encoding="utf-8", errors="surrogatepass")
    words = [str(path) if a == "@file" else a.replace("@", token) for a in argv]
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(token.encode("utf-8", "surrogatepass"))))
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(words)
        except SystemExit as exc:
            status = exc.code
    message = err.getvalue()
    assert status != 3, message[:500]  # no internal error either
    lines = 1 + token.count("\n") if "@file" in argv else 1  # a batch reports each bad line of its file
    assert len(message) <= MAX_STDERR * lines, (argv, status, len(message), message[-400:])
    assert all(len(line) <= MAX_MESSAGE for line in message.splitlines()), (argv, message[-400:])
