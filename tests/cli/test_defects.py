"""Issue 8, defects 1-5, each as the issue reported it.

Expected values are worked out by hand from the instruction's definition
(SUDOT: signed bytes of the first source times unsigned bytes of the second,
four to a 32-bit lane); words and texts are LLVM's (tests/data/arm_llvm_mc.tsv)."""

from __future__ import annotations

import json
import re

import pytest

SVE = "sudot z0.s, z1.b, z2.b[0]"


def test_show_za_prints_rows_instead_of_a_traceback(cli):
    """Defect 1: TypeError: int() argument must be ... not 'list'."""
    rc, out, err = cli("exec", SVE, "--show", "za")
    assert rc == 0 and err == ""
    rows = [ln for ln in out.splitlines() if re.match(r"\s+za\[\d+\]", ln)]
    assert [ln.split()[0] for ln in rows] == [f"za[{r}]" for r in range(16)]  # SVL=128: 16 rows of 16 bytes


def test_save_to_an_empty_name_is_an_error(cli, tmp_path, monkeypatch):
    """Defect 2: exited 0 and saved nothing."""
    monkeypatch.chdir(tmp_path)
    rc, out, err = cli("exec", SVE, "--save", "")
    assert rc == 1 and out == ""
    assert err.startswith("intdot exec: error: --save '': the file name is empty")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("spelling", ["v1.4s", "v1.s", "z1.s", "V1.4S"])
def test_set_and_show_accept_the_same_spellings(cli, spelling):
    """Defect 3: --set v1.4s worked, --show v1.4s said the name is unknown."""
    rc, out, err = cli("exec", "--set", f"{spelling}=1,2,3,-4", "--show", spelling, "--json", SVE)
    assert rc == 0, err
    assert json.loads(out)["show"][spelling] == [1, 2, 3, -4]


def test_show_a_64_bit_arrangement(cli):
    rc, out, _ = cli("exec", "--set", "v1.16b=0..15", "--show", "v1.8b", "--show", "v1.2s", "--json", SVE)
    shown = json.loads(out)["show"]
    assert shown["v1.8b"] == list(range(8))
    assert shown["v1.2s"] == [0x03020100, 0x07060504]


def test_sve_result_at_vl_128_is_labelled_z(cli):
    """Defect 3: an SVE result at VL=128 was labelled v0."""
    rc, out, _ = cli("exec", "--set", "z1.b=1", "--set", "z2.b=2", SVE)
    assert rc == 0
    assert re.search(r"^  z0\.s +\[ 0\] 8 8 8 8$", out, re.M), out  # 4 lanes x (1 * 2)
    assert "v0" not in out


def test_neon_result_at_vl_128_is_labelled_v(cli):
    rc, out, _ = cli("exec", "--set", "v1.b=1", "--set", "v2.b=3", "sudot v0.4s, v1.16b, v2.4b[1]")
    assert re.search(r"^  v0\.s +\[ 0\] 12 12 12 12$", out, re.M), out


@pytest.mark.parametrize("elem, per_row", [("s", 4), ("d", 2), ("b", 16), ("h", 8)])
def test_show_za_with_an_element_size_is_rows_by_elements(cli, elem, per_row):
    """Defect 3: --show za.s printed flat element indices [0], [8], ... over all of ZA."""
    rc, out, _ = cli("exec", "--set", f"za.{elem}[3]=7", "--show", f"za.{elem}", SVE)
    assert rc == 0
    rows = [ln.split() for ln in out.splitlines() if re.match(rf"\s+za\.{elem}\[\d+\]", ln)]
    assert [r[0] for r in rows] == [f"za.{elem}[{r}]" for r in range(16)]
    for r, row in enumerate(rows):
        values = [int(v) for v in row[row.index("0]") + 1 :]][:8]
        assert values == ([7] if r == 3 else [0]) * min(per_row, 8)


def test_exec_columns_line_up(cli):
    """Defect 3: widths were per register, so rows of one step did not line up."""
    rc, out, _ = cli(
        "exec",
        "--svl",
        "256",
        "--set",
        "z0.b=-100",
        "--set",
        "z1.b=1",
        "--set",
        "z4.b=0..31",
        "sudot za.s[w8, 0, vgx2], { z0.b, z1.b }, z4.b[2]",
        "--show",
        "v1.4s",
        "--show",
        "w8",
    )
    assert rc == 0
    rows = [ln for ln in out.splitlines() if "[ 0]" in ln]
    assert len(rows) == 3
    # The element-index column and every value column end at the same offsets in every row.
    ends = [[m.end() for m in re.finditer(r"\S+", ln)][1:] for ln in rows]
    assert ends[0] == ends[1] and ends[2] == ends[0][: len(ends[2])], out
    # Hand check: row 0 = z0 (-100) x z4 bytes 8..11 (index 2 of 128-bit segment 0): -100 * (8+9+10+11)
    assert rows[0].split()[3] == str(-100 * (8 + 9 + 10 + 11)) and rows[1].split()[3] == str(8 + 9 + 10 + 11)


def test_bare_hex_word_is_read_as_disasm_reads_it(cli):
    """Defect 5: 'intdot exec 44ba1c2' was an assembly syntax error."""
    rc, out, _ = cli("disasm", "44ba1c2")
    assert rc == 1  # not a dot instruction: both commands must agree on the word, not on the text
    rc1, out1, err1 = cli("exec", "44ba1c2")
    assert rc1 == 1 and "0x044ba1c2" in err1 and "syntax" not in err1
    rc2, out2, _ = cli("exec", "44ba1c20", "--json")
    assert rc2 == 0 and json.loads(out2)["steps"][0]["insn"] == "sudot z0.s, z1.b, z2.b[3]"


def test_asm_stdin_error_names_the_line(cli):
    """Defect 5: only the column was named."""
    rc, _, err = cli("asm", "-", stdin="sudot z0.s, z1.b, z2.b[0]\n\nsudot z0.s, z1.b, z9.b[0]\n")
    assert rc == 1
    first = err.splitlines()[0]
    assert first.startswith("intdot asm: error: stdin, line 3: ") and first.endswith("(column 19)")
    assert err.splitlines()[2] == "  " + " " * 18 + "^"


def test_disasm_file_error_names_line_and_column(cli, tmp_path):
    """Defect 5: a 0-based word index was named."""
    f = tmp_path / "w.txt"
    f.write_text("44ba1c20\n  4f22f83f, 0\n")
    rc, _, err = cli("disasm", "-f", f)
    assert rc == 1
    assert f"{f}, line 2, column 13: 0x00000000 is not a supported encoding" in err
    f.write_text("44ba1c20\n  4f22f83f zz\n")
    rc, _, err = cli("disasm", "-f", f)
    assert rc == 1 and f"{f}, line 2, column 12: 'zz' is not a 32-bit hex word" in err


def test_exec_file_error_names_the_line(cli, tmp_path):
    f = tmp_path / "prog.s"
    f.write_text("// setup\n44ba1c20\nsudot z0.s, z1.b, z9.b[0]\n")
    rc, _, err = cli("exec", "-f", f)
    assert rc == 1 and err.startswith(f"intdot exec: error: {f}, line 3: ") and "(column 19)" in err


BOM = "\ufeff"


def test_byte_order_mark_is_accepted_everywhere(cli, tmp_path):
    """Defect 5: a UTF-8 BOM made the first word or line an error."""
    words = tmp_path / "w.txt"
    words.write_text(BOM + "44ba1c20\n", encoding="utf-8")
    assert cli("disasm", "-f", words)[1] == "0x44ba1c20  sudot z0.s, z1.b, z2.b[3]\n"
    assert cli("asm", "-", stdin=BOM + "sudot z0.s, z1.b, z2.b[3]\n")[1] == "0x44ba1c20  sudot z0.s, z1.b, z2.b[3]\n"
    assert cli("eval", "-f", "-", stdin=BOM + "sdot4(1, 2, 3, false)\n")[1] == "5 (0x00000005)\n"
    prog = tmp_path / "p.s"
    prog.write_text(BOM + "44ba1c20\n", encoding="utf-8")
    rc, out, _ = cli("exec", "-f", prog, "--json")
    assert rc == 0 and json.loads(out)["steps"][0]["insn"] == "sudot z0.s, z1.b, z2.b[3]"
    state = tmp_path / "s.json"
    state.write_text(BOM + json.dumps({"regs": {"w8": 3}}), encoding="utf-8")
    rc, out, _ = cli("exec", "--state", state, "--show", "w8", "--json", SVE)
    assert rc == 0 and json.loads(out)["show"]["w8"] == 3


@pytest.mark.parametrize("command", ["asm", "exec"])
def test_file_errors_count_columns_in_the_whole_line(cli, tmp_path, command):
    """The second instruction of a line, after blanks and a ';': the column is the line's."""
    f = tmp_path / "prog.s"
    line = "  sudot z0.s, z1.b, z2.b[0] ;  sudot z0.s, z1.b, z9.b[1] // x"
    f.write_text("// first line\n" + line + "\n")
    rc, _, err = cli(command, "-f", f)
    lines = err.splitlines()
    col = line.index("z9") + 1
    assert rc == 1 and lines[0].startswith(f"intdot {command}: error: {f}, line 2: ")
    assert lines[0].endswith(f"(column {col})") and lines[1] == "  " + line and lines[2] == "  " + " " * (col - 1) + "^"
