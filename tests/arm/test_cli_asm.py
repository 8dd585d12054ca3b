"""``intdot asm`` and ``intdot disasm`` through ``intdot.cli.main``.

Expected words/texts are LLVM's (tests/data/arm_llvm_mc.tsv)."""

from __future__ import annotations

import io
import json

import pytest

from intdot.cli import main

NEON = ("sudot v31.4s, v1.16b, v2.4b[3]", 0x4F22F83F)
WRAP = ("sudot za.s[w11, 7, vgx4], { z31.b, z0.b, z1.b, z2.b }, z15.b", 0xC13F77FF)


def test_asm_one(capsys):
    assert main(["asm", "sudot v31.4s, v1.16b,  v2.4b[3]"]) == 0
    assert capsys.readouterr().out == f"0x4f22f83f  {NEON[0]}\n"


def test_asm_several_and_shell_split(capsys):
    argv = [
        "asm",
        "sudot",
        "za.s[w11,",
        "7],",
        "{z31.b",
        "-",
        "z2.b},",
        "z15.b",
        "SUDOT z0.s, z1.b, z2.b[3]",
        "sudot v31.4s, v1.16b, v2.4b[3]; sudot z0.s, z1.b, z2.b[0]",
    ]
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        f"0xc13f77ff  {WRAP[0]}",
        "0x44ba1c20  sudot z0.s, z1.b, z2.b[3]",
        f"0x4f22f83f  {NEON[0]}",
        "0x44a21c20  sudot z0.s, z1.b, z2.b[0]",
    ]


def test_asm_fields(capsys):
    assert main(["asm", "--fields", NEON[0]]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"0x4f22f83f  {NEON[0]}"
    header, names, values = (line.split() for line in out[1:4])
    assert header == ["31", "30", "29", "28:24", "23", "22", "21", "20", "19:16", "15:12", "11", "10", "9:5", "4:0"]
    assert names == ["0", "1", "0", "01111", "0", "0", "L", "M", "Rm", "1111", "H", "0", "Rn", "Rd"]
    assert values == ["0", "1", "0", "01111", "0", "0", "1", "0", "0010", "1111", "1", "0", "00001", "11111"]
    assert "vm=2 (M:Rm)" in out[4] and "index=3 (H:L)" in out[4] and "q=1 (fixed)" in out[4]


def test_asm_json(capsys):
    assert main(["asm", "--json", "sudot za.s[w8, 0], {z0.b-z1.b}, z0.b[0]"]) == 0
    (record,) = json.loads(capsys.readouterr().out)
    assert record["word"] == "0xc1501038"
    assert record["text"] == "sudot za.s[w8, 0, vgx2], { z0.b, z1.b }, z0.b[0]"
    assert record["input"] == "sudot za.s[w8, 0], {z0.b-z1.b}, z0.b[0]"
    assert record["form"] == "sudot_sme2_indexed_vgx2"
    assert record["ops"] == {"wv": 8, "off": 0, "zn": 0, "zm": 0, "index": 0}
    assert {"name": "Zn", "bits": [9, 6], "value": 0} in record["fields"]


def test_asm_error(capsys):
    assert main(["asm", "sudot za.s[w12, 0, vgx2], {z0.b-z1.b}, z0.b[0]"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("intdot asm: error: operand must be a register in range [w8, w11] (column 12)")


def test_disasm_args(capsys):
    assert main(["disasm", "0x4f22f83f", "C13F77FF"]) == 0
    assert capsys.readouterr().out == f"0x4f22f83f  {NEON[0]}\n0xc13f77ff  {WRAP[0]}\n"


def test_disasm_stdin_and_file(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr("sys.stdin", io.StringIO("4f22f83f\n  c13f77ff,44ba1c20\n"))
    assert main(["disasm", "--file", "-"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 3
    f = tmp_path / "words.txt"
    f.write_text("0x44ba1c20\n")
    assert main(["disasm", "-f", str(f), "4f22f83f"]) == 0
    assert capsys.readouterr().out.splitlines() == [f"0x4f22f83f  {NEON[0]}", "0x44ba1c20  sudot z0.s, z1.b, z2.b[3]"]


def test_disasm_json_and_fields(capsys):
    assert main(["disasm", "--json", "c13f77ff"]) == 0
    (record,) = json.loads(capsys.readouterr().out)
    assert record == {"word": "0xc13f77ff", "text": WRAP[0]}
    assert main(["disasm", "--json", "--fields", "c13f77ff"]) == 0
    (record,) = json.loads(capsys.readouterr().out)
    assert record["text"] == WRAP[0] and record["ops"]["zn"] == 31
    assert main(["disasm", "--fields", "c13f77ff"]) == 0
    assert "zn=31 (Zn)" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["disasm", "0"], "0x00000000 is not a supported encoding"),
        (["disasm", "xyz"], "'xyz' is not a 32-bit hex word"),
        (["disasm", "123456789"], "is not a 32-bit hex word"),
        (["disasm"], "no words given"),
        (["disasm", "--file", "/nonexistent/words"], "--file '/nonexistent/words'"),
        (["disasm", "--json", "0"], "not a supported encoding"),
        (["asm", "smmla v0.4s, v1.16b, v2.16b"], "'smmla' is not in intdot's Arm table"),
        (["asm", ""], "no instruction given"),
        (["asm", " ; // nothing"], "no instruction given"),
    ],
)
def test_cli_errors(capsys, argv, message):
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"intdot {argv[0]}: error: ") and message in err


def test_disasm_mark(capsys):
    assert main(["disasm", "--mark", "0", "44ba1c20"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "0x00000000  .inst 0x00000000",
        "0x44ba1c20  sudot z0.s, z1.b, z2.b[3]",
    ]
    assert main(["disasm", "--mark", "--json", "0"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["text"] == ".inst 0x00000000"


def test_asm_stdin(capsys, monkeypatch):
    monkeypatch.setattr(
        "sys.stdin",
        io.StringIO("// SME2\nSUDOT ZA.S[W8, 0, VGx2], { Z0.B-Z1.B }, Z0.B[0]\n\nsudot z0.s, z1.b, z2.b[3]  // SVE\n"),
    )
    assert main(["asm", "-"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "0xc1501038  sudot za.s[w8, 0, vgx2], { z0.b, z1.b }, z0.b[0]",
        "0x44ba1c20  sudot z0.s, z1.b, z2.b[3]",
    ]


def test_asm_comment_may_hold_a_semicolon(capsys):
    """'// a; b' is one comment: the ';' in it does not start an instruction."""
    assert main(["asm", "sudot z0.s, z1.b, z2.b[3] // SVE; indexed"]) == 0
    assert capsys.readouterr().out == "0x44ba1c20  sudot z0.s, z1.b, z2.b[3]\n"


def test_disasm_file_comments_and_binary_files(capsys, tmp_path):
    words = tmp_path / "words.txt"
    words.write_text("44ba1c20 // sudot z0.s, z1.b, z2.b[3]\n// a line of comment, 0 1 2\n0x4f22f83f\n")
    assert main(["disasm", "-f", str(words)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "0x44ba1c20  sudot z0.s, z1.b, z2.b[3]",
        "0x4f22f83f  sudot v31.4s, v1.16b, v2.4b[3]",
    ]
    binary = tmp_path / "words.bin"
    binary.write_bytes(bytes([0x3F, 0xF8, 0x22, 0x4F, 0xFF, 0xFE]))
    assert main(["disasm", "-f", str(binary)]) == 1
    assert "not a text file" in capsys.readouterr().err


def test_disasm_arguments_may_be_comma_separated(capsys):
    assert main(["disasm", "44ba1c20,0x4f22f83f", "c13f77ff"]) == 0
    assert [line.split()[0] for line in capsys.readouterr().out.splitlines()] == [
        "0x44ba1c20",
        "0x4f22f83f",
        "0xc13f77ff",
    ]


def test_lines_starting_with_hash_are_comments_as_in_llvm_mc(tmp_path, capsys):
    """cpp output ('# 1 "k.s"') and '#' comment lines: llvm-mc skips them, intdot asm -f
    stopped at them ('expected an instruction mnemonic')."""
    from tests.oracles import llvm_mc, missing

    if llvm_mc.tool() is None:
        missing("llvm-mc (llvm-19)", "install Debian's llvm-19 package")
    lines = ['# 1 "k.s"', "  # a comment", "sdot z0.s, z1.b, z2.b", "sdot za.s[w8, #1], {z0.b-z1.b}, z2.b"]
    path = tmp_path / "k.s"
    path.write_text("\n".join(lines) + "\n")
    assert main(["asm", "-f", str(path)]) == 0
    words = [int(line.split()[0], 16) for line in capsys.readouterr().out.splitlines()]
    assert words == [word for _, word in llvm_mc.assemble(lines[2:])]
