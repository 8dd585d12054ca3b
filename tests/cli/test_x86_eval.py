"""intdot eval --isa x86: intrinsic calls on register literals, against tests/x86/reference_x86.py (the SDM's
pseudocode, no intdot code)."""

from __future__ import annotations

import json
import random

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
    assert main([*argv, "_mm_dpbusds_epi32(src, a, [127]*4 + [1]*4)"]) == 1  # '+' is not part of the syntax
    assert "argument 3" in capsys.readouterr().err
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
