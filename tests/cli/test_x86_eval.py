"""intdot eval --isa x86: intrinsic calls on register literals, against tests/x86/reference_x86.py (the SDM's
pseudocode, no intdot code)."""

from __future__ import annotations

import json
import random
import subprocess

import pytest

from intdot.cli import main
from tests.x86 import reference_x86 as ref


def _literal(data: bytes) -> str:
    return "[" + ", ".join(str(b) for b in data) + "]"


@pytest.mark.parametrize("mnemonic", ["vpdpbusd", "vpdpbusds", "vpdpwssd", "vpdpwssds", "vpdpbuuds", "vpdpwsuds"])
def test_eval_matches_the_sdm(capsys, mnemonic):
    rnd = random.Random(mnemonic)
    src, a, b = (bytes(rnd.choice([0, 1, 127, 128, 255, rnd.randrange(256)]) for _ in range(32)) for _ in range(3))
    op = mnemonic[2:]
    call = f"_mm256_{op}_epi32({_literal(src)}, {_literal(a)}, {_literal(b)})"
    assert main(["eval", "--isa", "x86", call, "--json"]) == 0
    got = json.loads(capsys.readouterr().out)["result"]
    assert got == ref.vnni(mnemonic, src, a, b)


def test_names_hex_registers_and_explain(capsys):
    a = "0x" + "ff" * 16  # a whole register, most significant byte first
    argv = ["eval", "--isa", "x86", "--set", "src=[2147483647, 0, 1, 2]", "--set", f"a={a}", "--explain"]
    call = "_mm_dpbusds_epi32(src, a, [127]*4 + [1]*4)"
    assert main([*argv, call]) == 1  # '+' is not part of the syntax: the error points at it
    assert f"found '+' (column {call.index('+') + 1})" in capsys.readouterr().err
    assert main([*argv, "_mm_dpbusds_epi32(src, a, [127,127,127,127,1,1,1,1,0,0,0,0,-1,-1,-1,-1])"]) == 0
    out = capsys.readouterr().out.splitlines()
    want = ref.vnni(
        "vpdpbusds",
        (2**31 - 1).to_bytes(4, "little") + bytes(4) + (1).to_bytes(4, "little") + (2).to_bytes(4, "little"),
        b"\xff" * 16,
        bytes([127] * 4 + [1] * 4 + [0] * 4 + [255] * 4),
    )
    assert out[0].startswith(f"_mm_dpbusds_epi32 = [{', '.join(map(str, want))}]")
    assert "acc 2147483647 -> 2147613187 -> 2147483647" in out[1]


def test_pair_saturation_is_shown(capsys):
    assert main(["eval", "--isa", "x86", "_mm_maddubs_epi16([255]*16, [-128]*16)", "--explain"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("_mm_maddubs_epi16 = [" + ", ".join(map(str, ref.pmaddubsw(b"\xff" * 16, b"\x80" * 16))))
    assert "products [-32640, -32640]; acc 0 -> -65280 -> -32768" in out[1]


def test_unknown_intrinsic(capsys):
    assert main(["eval", "--isa", "x86", "_mm_dpbusd_epi64([0], [0], [0])"]) == 1
    assert "did you mean _mm_dpbusd_epi32" in capsys.readouterr().err


# --target: clang-19 is the oracle of whether an intrinsic exists on a -march target.
TARGET_CASES = [
    ("_mm_dpbusd_epi32", "x86-64-v3"),  # AVX2 only: neither AVX-VNNI nor AVX-512 VNNI
    ("_mm_dpbusd_epi32", "alderlake"),  # AVX-VNNI has the unmasked 128-bit form
    ("_mm_mask_dpbusd_epi32", "alderlake"),  # the masked form needs AVX-512 VNNI + VL
    ("_mm_mask_dpbusd_epi32", "sapphirerapids"),
    ("_mm_maddubs_epi16", "x86-64"),  # SSSE3 is not in the baseline
    ("_mm_maddubs_epi16", "x86-64-v2"),
]


def _clang_compiles(name: str, march: str, tmp_path) -> bool:
    from tests.oracles import find_tool, missing

    clang = find_tool("INTDOT_CLANG", "clang-19", "/usr/lib/llvm-19/bin/clang")
    if clang is None:
        missing("clang-19")
    call = {
        "_mm_dpbusd_epi32": "_mm_dpbusd_epi32(x, x, x)",
        "_mm_mask_dpbusd_epi32": "_mm_mask_dpbusd_epi32(x, 5, x, x)",
        "_mm_maddubs_epi16": "_mm_maddubs_epi16(x, x)",
    }[name]
    src = tmp_path / "call.c"
    src.write_text(f"#include <immintrin.h>\n__m128i f(__m128i x) {{ return {call}; }}\n")
    done = subprocess.run(
        [clang, f"-march={march}", "-c", str(src), "-o", str(tmp_path / "call.o")], capture_output=True, text=True
    )
    assert done.returncode == 0 or "target feature" in done.stderr, done.stderr
    return done.returncode == 0


@pytest.mark.oracle
@pytest.mark.parametrize(("name", "march"), TARGET_CASES)
def test_target_is_checked_as_clang_does(cli, tmp_path, name, march):
    ok = _clang_compiles(name, march, tmp_path)
    src, a, b = bytes(range(16)), bytes([255, 1, 128, 7] * 4), bytes([3, 254, 127, 128] * 4)
    args = [_literal(a), _literal(b)] if "maddubs" in name else [_literal(src), _literal(a), _literal(b)]
    if "mask" in name:
        args.insert(1, "5")
    rc, out, err = cli("eval", "--isa", "x86", f"{name}({', '.join(args)})", "--target", march, "--json")
    if not ok:
        assert rc == 1 and err.count("\n") == 1, err
        assert f"not available on {march}" in err and "lacks" in err
        return
    assert rc == 0, err
    got = json.loads(out)["result"]
    if "maddubs" in name:
        assert got == ref.pmaddubsw(a, b)
        return
    want = ref.vnni("vpdpbusd", src, a, b)
    if "mask" in name:  # mask 0b0101: lanes 1 and 3 keep src
        want = [
            w if k in (0, 2) else int.from_bytes(src[4 * k : 4 * k + 4], "little", signed=True)
            for k, w in enumerate(want)
        ]
    assert got == want


def test_unavailable_target_raises_what_amd_eval_raises():
    from intdot.amd.evaluate import evaluate
    from intdot.cli.x86_eval import _check_target
    from intdot.core.errors import UnsupportedOnTarget
    from intdot.x86.intrinsics import INTRINSICS

    with pytest.raises(UnsupportedOnTarget):
        evaluate("sdot4(1, 2, 3, false)", target="RDNA3")
    with pytest.raises(UnsupportedOnTarget, match="x86-64-v3"):
        _check_target("_mm_dpbusd_epi32", INTRINSICS["_mm_dpbusd_epi32"], "x86-64-v3")


@pytest.mark.parametrize(
    ("target", "words"),
    [
        ("nonsense", ["target='nonsense'", "x86-64-v4", "sapphirerapids"]),
        ("gfx942", ["target='gfx942'", "x86-64-v4"]),  # another ISA's target
        ("x86-64-v3+avx512vnn", ["avx512vnn"]),
    ],
)
def test_unknown_target_names_it_and_what_is_allowed(cli, target, words):
    rc, out, err = cli("eval", "--isa", "x86", "_mm_dpbusd_epi32([0]*4, [1]*4, [2]*4)", "--target", target)
    assert rc == 1 and not out and err.count("\n") == 1 and err.startswith("intdot eval: error: ")
    for w in words:
        assert w in err


@pytest.mark.parametrize(
    ("text", "words"),
    [
        # An integer where a register goes: the message says what a register argument looks like.
        ("0x0", ["argument 1 (src), from --set s", "'0x0' is a hex string of 1 digit", "list of lanes", "32 digits"]),
        ("7", ["'7' is an integer", "16 bytes, 8 words or 4 dwords", "0x and 32 digits"]),
        ("0x" + "ab" * 15, ["hex string of 30 digits", "0x and 32 digits"]),
    ],
)
def test_register_values_say_what_is_accepted(cli, text, words):
    rc, _, err = cli("eval", "--isa", "x86", "_mm_dpbusd_epi32(s, [1]*4, [2]*4)", "--set", f"s={text}")
    assert rc == 1 and err.count("\n") == 1
    for w in words:
        assert w in err


def test_a_full_width_hex_register_is_most_significant_byte_first(cli):
    src = bytes(range(1, 17))
    rc, out, err = cli("eval", "--isa", "x86", f"_mm_dpbusd_epi32(0x{src[::-1].hex()}, [1]*16, [1]*16)", "--json")
    assert rc == 0, err
    assert json.loads(out)["result"] == ref.vnni("vpdpbusd", src, b"\x01" * 16, b"\x01" * 16)


def test_wrong_argument_count(cli):
    rc, _, err = cli("eval", "--isa", "x86", "_mm_dpbusd_epi32([0]*4)")
    assert rc == 1 and "takes 3 arguments, got 1" in err and "__m128i src, __m128i a, __m128i b" in err


def test_the_help_example_runs(cli):
    import shlex

    from intdot.cli.amd import EVAL_EPILOG

    text = EVAL_EPILOG.replace("\\\n", " ")
    line = next(ln for ln in text.splitlines() if "--isa x86" in ln and ln.strip().startswith("intdot eval"))
    argv = shlex.split(line)[1:]
    rc, out, err = cli(*argv)
    assert rc == 0, err
    want = ref.vnni("vpdpbusd", bytes(16), b"\xff" * 16, b"\xff" * 16)  # a = 255 (unsigned), b = -1 (signed)
    assert out.startswith(f"_mm_dpbusd_epi32 = [{', '.join(map(str, want))}]")
