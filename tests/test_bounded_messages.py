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


# ---------------------------------------------------------------- huge values of any type
# The tests above feed text; a value of another type (a megabyte of bytes, a 5000-digit int, a large
# array, list or dict) passed where a flag, a name or a mode goes must not be echoed whole either, nor
# break the message (Python refuses to print an int of more than 4300 digits, so a raw repr of one raises
# ValueError in place of intdot's error).  Each case names the argument its message must still name.
MAX_VALUE_MESSAGE = 2000

TEXT = "x" * 10**6
BYTES = b"\0" * 10**6
BIG = 10**5000
LIST = list(range(10**5))
HUGE_VALUES = {"str": TEXT, "bytes": BYTES, "int": BIG, "-int": -BIG, "list": LIST, "list of int": [BIG]}


def _huge_array():
    import numpy as np

    return np.zeros(10**6, np.uint8)


def _arm_form():
    return arm.parse("sdot v0.4s, v1.16b, v2.16b").form


def _state():
    return arm.State(streaming=True)


# (name, what the message must name, call with the huge value, which huge values)
ANY = tuple(HUGE_VALUES)
VALUE_CASES = [
    ("amdgpu.assemble text", "text", lambda v: intdot.amdgpu.assemble(v, "gfx1100"), ("bytes", "list")),
    ("amdgpu.parse text", "text", lambda v: intdot.amdgpu.parse(v, "gfx1100"), ("bytes", "list", "int")),
    ("amdgpu.assemble mcpu", "mcpu", lambda v: intdot.amdgpu.assemble("v_dot2_i32_i16 v0, v1, v2, v3", v), ANY),
    ("amdgpu.assemble mnemonic", "mnemonic", lambda v: intdot.amdgpu.assemble(v, "gfx1100"), ("str",)),
    ("amdgpu.disassemble data", "data", lambda v: intdot.amdgpu.disassemble(v, "gfx1100"), ("str",)),
    ("amdgpu.disassemble errors", "errors", lambda v: intdot.amdgpu.disassemble(b"", "gfx1100", errors=v), ANY),
    (
        "amdgpu.disassemble_array errors",
        "errors",
        lambda v: intdot.amdgpu.disassemble_array([0], "gfx1100", errors=v),
        ("str", "bytes", "int", "list"),
    ),
    ("amdgpu.lowering flags", "src0_signed", lambda v: intdot.amdgpu.lowering("sudot4", "gfx1100", src0_signed=v), ANY),
    ("amdgpu.read_object path", "data", lambda v: intdot.amdgpu.read_object(v), ("str",)),
    ("amdgpu.Wave mcpu", "mcpu", lambda v: intdot.amdgpu.Wave(v), ANY),
    ("amdgpu.Wave wave_size", "wave_size", lambda v: intdot.amdgpu.Wave("gfx1100", wave_size=v), ANY),
    (
        "amdgpu.Wave.run",
        "instruction",
        lambda v: intdot.amdgpu.Wave("gfx1100").run(v),
        ("bytes", "list", "int"),
    ),
    ("arm.disassemble errors", "errors", lambda v: arm.disassemble([0], errors=v), ANY),
    ("arm.decode word", "word", lambda v: arm.decode(v), ("int", "-int")),
    ("arm.State vl", "vl", lambda v: arm.State(vl=v), ("int", "-int")),
    ("arm.State.set value", "x1", lambda v: _state().set("x1", v), ("int", "-int")),
    ("arm.State.w index", "w", lambda v: _state().w.__getitem__(v), ("int", "-int")),
    ("arm.State.w write", "w", lambda v: _state().w.__setitem__(v, 2**40), ("str", "int")),
    ("arm.State.from_dict keys", "unknown key", lambda v: arm.State.from_dict({v: 1}), ("str", "int")),
    (
        "arm.State.from_dict many keys",
        "unknown key",
        lambda v: arm.State.from_dict(dict.fromkeys(range(10**5))),
        ("int",),
    ),
    ("arm.encode ops", "insn.ops", lambda v: arm.encode(arm.Insn(_arm_form(), {v: 1})), ("str", "int")),
    ("catalog.available streaming", "streaming", lambda v: catalog.available("sdot4", "gfx942", streaming=v), ANY),
    ("catalog spec_for", "a_signed", lambda v: catalog.find("amd.sudot4").spec_for(v, True), ANY),
    ("gemm.resolve a_bits", "a_bits", lambda v: intdot.gemm.resolve("sdot", a_bits=v), ("str", "bytes")),
    ("gemm.resolve a_bits int", "op", lambda v: intdot.gemm.resolve("sdot", a_bits=v), ("int",)),
    ("intdot.dot a_width", "a_width", lambda v: intdot.dot(1, 1, 2, a_width=v), ANY),
    ("intdot.dot width and a_width", "a_width", lambda v: intdot.dot(1, 1, 2, width=8, a_width=v), ANY),
    ("arm.form_named", "name", lambda v: arm.form_named(v), ("int", "-int")),
    ("intdot.dot lanes", "lanes", lambda v: intdot.dot(1, 1, 2, lanes=v), ("int", "-int")),
    ("gemm.gemm a", "a[0, 0]", lambda v: intdot.gemm.gemm([[v, 0, 0, 0]], [[0]] * 4, op="amd.sdot4"), ("int", "-int")),
    (
        "gemm.gemm c",
        "c[0, 0]",
        lambda v: intdot.gemm.gemm([[0] * 4], [[0]] * 4, [[v]], op="amd.sdot4"),
        ("int", "-int"),
    ),
    ("features.parse", "expected a string", lambda v: features.parse(v), ("int", "list of int")),
]
# amdgpu assembly whose one token is huge: each message quotes the token, cut.
ASM_CASES = [
    ("hex literal", "v_dot4_u32_u8 v0, v1, v2, 0x" + "f" * 10**5, "fit 64 bits"),
    ("octal literal", "v_dot4_u32_u8 v0, v1, v2, 0" + "9" * 10**5, "octal"),
    ("symbol", "v_dot4_u32_u8 v0, v1, v2, -(" + "x" * 10**5 + ")", "symbol"),
    ("operand", "v_dot4_u32_u8 v0, v1, v2, " + "x" * 10**5, "not a valid operand"),
    ("register number", "v_dot4_u32_u8 v0, v1, v2, v" + "9" * 4000, "not a register"),
    ("closing bracket", "v_dot4_u32_u8 v0, v1, v2, v3 neg_lo:[1 " + "x" * 10**5, "closing square bracket"),
    ("long expression", "v_dot4_u32_u8 v0, v1, v2, 0x100000000" + "+0" * 10**5, "does not fit 32 bits"),
    ("huge real", "v_dot4_u32_u8 v0, v1, v2, 1" + "0" * 45 + "." + "0" * 10**5, "32-bit float"),
]


def _short(message: str) -> None:
    assert len(message) < MAX_VALUE_MESSAGE, (len(message), message[:300])


@pytest.mark.parametrize(
    "entry, value",
    [pytest.param(c, v, id=f"{c[0]} [{v}]") for c in VALUE_CASES for v in c[3]],
)
def test_huge_values_give_short_messages(entry, value):
    _name, names, call, _ = entry
    with pytest.raises(intdot.errors.IntdotError) as info:
        call(HUGE_VALUES[value])
    _short(str(info.value))
    assert names in str(info.value)


def test_huge_array_gives_a_short_message():
    """NumPy summarises a large array's repr itself, so this guards describe's form (shape and dtype) rather
    than a message that grew."""
    big = _huge_array()
    for call, names in [
        (lambda: intdot.amdgpu.Wave(big), "mcpu"),
        (lambda: intdot.amdgpu.parse(big, "gfx1100"), "text"),
        (lambda: intdot.amdgpu.Wave("gfx1100").run(big), "instruction"),
        (lambda: catalog.available("sdot4", "gfx942", streaming=big), "streaming"),
        (lambda: intdot.dot(1, 1, 2, width=8, a_width=big), "a_width"),
        (lambda: intdot.amdgpu.lowering("sudot4", "gfx1100", src0_signed=big), "src0_signed"),
    ]:
        with pytest.raises(intdot.errors.IntdotError) as info:
            call()
        _short(str(info.value))
        assert names in str(info.value)
        assert "shape=(1000000,)" in str(info.value)


@pytest.mark.parametrize("case", ASM_CASES, ids=[c[0] for c in ASM_CASES])
def test_huge_amdgpu_tokens_give_short_messages(case):
    _, text, names = case
    with pytest.raises(intdot.errors.AsmSyntaxError) as info:
        intdot.amdgpu.assemble(text, "gfx1100")
    _short(str(info.value))
    assert names in str(info.value)


def test_huge_environment_values_give_short_messages(monkeypatch):
    from intdot.cli import demangle
    from intdot.core import accel

    monkeypatch.setenv(accel.ENV, TEXT[:100_000])  # an environment of 1 MB is more than exec allows
    with pytest.raises(intdot.errors.ConfigError) as info:
        accel.check_environment()
    _short(str(info.value))
    assert accel.ENV in str(info.value)
    monkeypatch.setenv(demangle.ENV, TEXT[:100_000])
    with pytest.raises(intdot.errors.OperandError) as info:
        demangle.tool()
    _short(str(info.value))
    assert demangle.ENV in str(info.value)


@pytest.mark.parametrize(
    "get",
    [
        lambda: getattr(intdot.x86, TEXT),
        lambda: getattr(intdot.x86, "_mm" + TEXT),
        lambda: getattr(amd.target("gfx942"), TEXT),
    ],
)
def test_huge_attribute_names_give_short_messages(get):
    with pytest.raises(AttributeError) as info:
        get()
    _short(str(info.value))
