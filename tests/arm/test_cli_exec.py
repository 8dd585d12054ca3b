"""``intdot exec`` through intdot.cli.main(argv).

Expected values are worked out by hand from the spec (small, readable inputs).
"""

from __future__ import annotations

import json

import pytest

from intdot.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_neon_text_output(capsys):
    code, out, err = run(capsys, "exec", "--set", "v1.b=-1", "--set", "v2.b=0..15", "sudot v0.4s, v1.16b, v2.4b[3]")
    assert code == 0 and err == ""
    # word 3 of v2 holds bytes 12..15: -(12+13+14+15) = -54 in every lane
    assert "sudot v0.4s, v1.16b, v2.4b[3]    // 0x4f22f820" in out
    assert "v0.s       [ 0] -54 -54 -54 -54" in out


def test_sme2_json_rows_and_streaming_by_default(capsys):
    code, out, _ = run(
        capsys,
        "exec",
        "--svl",
        "256",
        "--set",
        "w9=0xFFFFFFFF",
        "--set",
        "z30.b=1",
        "--set",
        "z31.b=2",
        "--set",
        "z0.b=3",
        "--set",
        "z5.b=0..31",
        "sudot za.s[w9, 2, vgx4], { z30.b, z31.b, z0.b, z1.b }, z5.b",
        "--json",
    )
    assert code == 0
    d = json.loads(out)
    assert d["streaming"] is True and d["svl"] == 256
    step = d["steps"][0]
    assert step["insn"] == "sudot za.s[w9, 2, vgx4], { z30.b, z31.b, z0.b, z1.b }, z5.b"
    # vstride = 32/4 = 8; (0xFFFFFFFF + 2) mod 8 = 1 -> rows 1, 9, 17 (25 is z1 = 0: unchanged)
    assert sorted(step["changed"]) == ["za.s[17]", "za.s[1]", "za.s[9]"]
    sums = [sum(range(4 * e, 4 * e + 4)) for e in range(8)]
    assert step["changed"]["za.s[1]"] == sums
    assert step["changed"]["za.s[9]"] == [2 * v for v in sums]
    assert step["changed"]["za.s[17]"] == [3 * v for v in sums]


def test_words_and_several_instructions(capsys):
    code, out, _ = run(
        capsys,
        "exec",
        "--vl",
        "256",
        "--set",
        "v1.16b=1",
        "--set",
        "z2.s=1..8",
        "0x44aa1c23",
        "-e",
        "sudot v2.2s, v1.8b, v2.4b[1]",
        "--json",
    )
    d = json.loads(out)
    assert [s["insn"] for s in d["steps"]] == ["sudot z3.s, z1.b, z2.b[1]", "sudot v2.2s, v1.8b, v2.4b[1]"]
    assert d["steps"][0]["changed"] == {"z3.s": [2, 2, 2, 2, 0, 0, 0, 0]}
    # the NEON 64-bit write keeps lanes 0-1 (1+2 and 2+2) and zeroes the rest of z2
    assert d["steps"][1]["changed"] == {"z2.s": [3, 4, 0, 0, 0, 0, 0, 0]}


def test_state_file_save_and_show(tmp_path, capsys):
    f = tmp_path / "s.json"
    f.write_text(json.dumps({"vl": 128, "regs": {"v1.b": [1] * 16, "v2.s": [0, 0, 0, 0x01010101]}}))
    saved = tmp_path / "out.json"
    code, out, _ = run(
        capsys,
        "exec",
        "--state",
        str(f),
        "--save",
        str(saved),
        "--show",
        "w8",
        "sudot v3.4s, v1.16b, v2.4b[3]",
        "sudot v3.4s, v1.16b, v2.4b[3]",
    )
    assert code == 0
    assert out.count("v3.s       [ 0] ") == 2 and "8 8 8 8" in out
    again = json.loads(saved.read_text())
    assert again["regs"]["z3"] == "08000000" * 4


def test_no_change_is_reported(capsys):
    code, out, _ = run(capsys, "exec", "sudot z0.s, z1.b, z2.b[0]")
    assert code == 0 and "(no register changed)" in out


@pytest.mark.parametrize(
    "argv, msg",
    [
        (["exec"], "no instruction"),
        (["exec", "--no-streaming", "sudot za.s[w8, 0, vgx2], { z0.b, z1.b }, z0.b"], "drop --no-streaming"),
        (["exec", "--set", "z1.b=300", "sudot z0.s, z1.b, z2.b[0]"], "z1.b=300"),
        (["exec", "--set", "z1.b", "sudot z0.s, z1.b, z2.b[0]"], "REG=VALUES"),
        (["exec", "--set", "z1.b=abc", "sudot z0.s, z1.b, z2.b[0]"], "not an integer"),
        (["exec", "--set", "q1=1", "sudot z0.s, z1.b, z2.b[0]"], "not known"),
        (["exec", "--vl", "100", "sudot z0.s, z1.b, z2.b[0]"], "--vl 100: not a vector length"),  # was "vl=100"
        (["exec", "--svl", "384", "sudot z0.s, z1.b, z2.b[0]"], "--svl 384: not a vector length; expected one of 128"),
        (["exec", "sudot z0.s, z1.b, z9.b[0]"], "z0.b..z7.b"),
        (["exec", "--state", "/nonexistent/x.json", "sudot z0.s, z1.b, z2.b[0]"], "--state"),
        # the range's own message, not "not an integer"
        (["exec", "--set", "z1.b=0..100000", "sudot z0.s, z1.b, z2.b[0]"], "at most 4097 values"),
        (["exec", "--set", "z1.b=9..1", "sudot z0.s, z1.b, z2.b[0]"], "must run upwards"),
        (["exec", "--save", "/nonexistent/dir/x.json", "sudot z0.s, z1.b, z2.b[0]"], "--save"),
        (["exec", ""], "holds no instruction"),
        (["exec", "--set", "v1.8b=hex:ff", "sudot z0.s, z1.b, z2.b[0]"], "8 bytes"),
        (["exec", "--set", "w8=" + "9" * 5000, "sudot z0.s, z1.b, z2.b[0]"], "5000 digits"),
        (["exec", "--set", "v1." + "9" * 5000 + "b=1", "sudot z0.s, z1.b, z2.b[0]"], "not known"),
    ],
)
def test_errors_are_one_line(capsys, argv, msg):
    code, out, err = run(capsys, *argv)
    assert code == 1 and msg in err and err.startswith("intdot exec: error:")
    assert "Traceback" not in err


def test_64_bit_arrangements_set_the_low_half(capsys):
    code, out, _ = run(
        capsys,
        "exec",
        "--set",
        "v1.16b=5",
        "--set",
        "v1.8b=1..8",
        "--set",
        "v2.2s=0x01010101,7",
        "sudot v0.4s, v1.16b, v2.4b[0]",
        "--show",
        "v1.b",
        "--json",
    )
    d = json.loads(out)
    assert d["show"]["v1.b"] == list(range(1, 9)) + [5] * 8
    # lanes: 1+2+3+4, 5+6+7+8, 4*5, 4*5
    assert d["steps"][0]["changed"] == {"v0.s": [10, 26, 20, 20]}


@pytest.mark.parametrize("content", [b"\xff\xfe{", b'{"regs": {"w8": ' + b"9" * 5000 + b"}}", b"{bad", b"[1, 2]"])
def test_malformed_state_files_are_one_line_errors(tmp_path, capsys, content):
    path = tmp_path / "state.json"
    path.write_bytes(content)
    code, out, err = run(capsys, "exec", "--state", str(path), "sudot z0.s, z1.b, z2.b[0]")
    assert code == 1 and err.startswith("intdot exec: error:") and err.count("\n") == 1


def test_short_hex_words_semicolons_and_comments(capsys):
    code, out, _ = run(
        capsys,
        "exec",
        "--set",
        "v1.b=1",
        "--set",
        "v2.b=2",
        "0x4f22f020; sudot v0.4s, v1.16b, v2.4b[0] // again",
        "--json",
    )
    steps = json.loads(out)["steps"]
    # 0x4f22f020 is sudot v0.4s, v1.16b, v2.4b[1]; each lane adds 4 * 1 * 2
    assert [s["changed"]["v0.s"] for s in steps] == [[8] * 4, [16] * 4]


def test_64_bit_arrangement_hex_sets_the_low_8_bytes(capsys):
    code, out, _ = run(
        capsys,
        "exec",
        "--set",
        "v1.b=5",
        "--set",
        "v1.8b=hex:0102030405060708",
        "--show",
        "v1.b",
        "--json",
        "sudot v0.4s, v1.16b, v2.4b[0]",
    )
    assert json.loads(out)["show"]["v1.b"] == list(range(1, 9)) + [5] * 8


@pytest.mark.parametrize(
    "content, msg",
    [
        ('{"vl": 256, "regs": {"z1.q": 1}}', "register name 'z1.q' is not known"),
        ('{"vl": 257}', "vl=257 is not a legal vector length"),
        ('{"regs": {"z1.s": [1, 2]}}', "z1.s has 4 elements"),
        ("[1]", "is not a JSON object"),
    ],
)
def test_a_bad_state_file_is_named(capsys, tmp_path, content, msg):
    """The error named the register or value but not the file it came from."""
    path = tmp_path / "s.json"
    path.write_text(content)
    rc, _, err = run(capsys, "exec", "--state", str(path), "44ba1c20")
    assert rc == 1 and err.startswith(f"intdot exec: error: --state {path}: ") and msg in err


def test_a_mnemonic_made_of_hex_letters_says_it_was_read_as_a_word(capsys):
    """'add' is a run of hex digits, so exec reads it as the word 0xadd; the error only said
    '0x00000add is not a supported encoding'."""
    rc, _, err = run(capsys, "exec", "add")
    assert rc == 1 and err.startswith("intdot exec: error: 'add' was read as the hex word 0x00000add: ")
    rc, _, err = run(capsys, "exec", "0xd65f03c0")  # written as a word: no hint needed
    assert rc == 1 and err.startswith("intdot exec: error: 0xd65f03c0 is not a supported encoding")
