"""A new-user audit of the command line: each test is one defect it reproduced.

Expected values come from the instructions' definitions, the single-form answers of the same command, or what
docs/cli.md and docs/catalog.md promise; never from the code under test."""

from __future__ import annotations

import json

import pytest

from intdot import catalog

AMD = ["exec", "--isa", "amdgpu", "--mcpu", "gfx942"]
DOT2 = "v_dot2_i32_i16 v0, v1, v2, v3"


# ---------------------------------------------------------------- 1, 2: available MNEMONIC --mode / --json


@pytest.mark.parametrize(
    "target, mode",
    [("neoverse-v2", "streaming"), ("neoverse-v2", "normal"), ("apple-m4", "normal"), ("apple-m4", "streaming")],
)
def test_available_mnemonic_applies_mode_to_every_form(cli, target, mode):
    # The count must be the number of forms whose own (single-form) answer is yes in that mode.
    forms = catalog.find_all("sdot")
    want = [r.name for r in forms if catalog.available(r, target, streaming=mode == "streaming")]
    rc, out, err = cli("available", "sdot", target, "--mode", mode)
    if not want:
        assert rc == 1 and out == "" and "none of the 28 instructions 'sdot' names" in err
        assert "in streaming mode" in err
        return
    assert rc == 0, err
    assert out.startswith(f"sdot: {len(want)} of the 28 instructions it names are available on {target} ")
    assert ("in streaming mode" if mode == "streaming" else "outside streaming mode") in out


def test_available_mnemonic_streaming_on_a_core_without_sme_fails_like_one_form(cli):
    rc, _, err = cli("available", "svdot_s32", "neoverse-v2", "--mode", "streaming")
    assert rc == 1 and "lacks sme" in err
    rc, _, err = cli("available", "sdot", "neoverse-v2", "--mode", "streaming")
    assert rc == 1 and "neoverse-v2" in err


def test_apple_m4_has_no_sme2_form_outside_streaming_mode(cli):
    # SME2's ZA forms run only in streaming mode, so 'normal' cannot report all 28.
    rc, out, _ = cli("available", "sdot", "apple-m4", "--mode", "normal")
    assert rc == 0 and "28 of the 28" not in out and "za" not in out


def test_available_mnemonic_json(cli):
    rc, out, err = cli("available", "sdot", "neoverse-n1", "--json")
    assert rc == 0, err
    data = json.loads(out)
    assert data["name"] == "sdot" and data["target"] == "neoverse-n1" and data["available"] is True
    assert data["of"] == 28 and len(data["forms"]) == 28
    # neoverse-n1 is Armv8.2 with dotprod and no SVE: the four NEON forms only
    assert sorted(f["name"] for f in data["forms"] if f["available"]) == sorted(
        r.name for r in catalog.find_all("sdot") if "neon" in r.name
    )
    assert data["count"] == 4
    rc, out, _ = cli("available", "sdot", "armv8-a", "--json")
    assert rc == 1 and json.loads(out)["available"] is False


# ---------------------------------------------------------------- 3, 4, 5: amdgpu exec --set


@pytest.mark.parametrize(
    "item, words",
    [
        ("v1=0..999999999", "at most 64 values"),
        ("v1=0..0xffffffff", "at most 64 values"),
        ("v1=5..3", "must run upwards"),
        ("v256=1", "VGPR v256 does not exist; expected v0..v255"),
        ("s200=1", "SGPR s200 does not exist; expected s0..s101"),
        ("v1[64]=1", "wave64 lane 64 does not exist; expected 0..63"),
        ("v1=0x1ffffffff", "does not fit 32 bits"),
        ("v1=-5000000000", "does not fit 32 bits"),
        ("s2=0x1ffffffff", "does not fit 32 bits"),
        ("exec=0x1ffffffffffffffff", "does not fit 64 bits"),
        ("v1[3]=4294967296", "does not fit 32 bits"),
        ("v1=" + "9" * 5000, "does not fit 32 bits"),
    ],
)
def test_amdgpu_set_is_checked_before_it_is_written(cli, item, words):
    rc, out, err = cli(*AMD, DOT2, "--set", item)
    assert rc == 1 and out == "", err
    assert err.startswith("intdot exec: error: --set ") and words in err
    assert len(err) < 400  # the 5000-digit value is quoted, not echoed


def test_amdgpu_set_accepts_both_spellings_of_a_word(cli):
    # -1 and 0xffffffff are one 32-bit word (docs/DESIGN.md, Values); v_dot2_i32_i16 of (-1, -1) . (1, 1) + 0 = -2
    for spelling in ("-1", "0xffffffff"):
        rc, out, err = cli(*AMD, DOT2, "--set", f"v1={spelling}", "--set", "v2=0x00010001")
        assert rc == 0, err
        assert out.splitlines()[1].split("]")[1].split()[0] == "-2"


def test_amdgpu_exec_mask_of_a_wave32(cli):
    rc, _, err = cli("exec", "--isa", "amdgpu", "--mcpu", "gfx1100", DOT2, "--set", "exec=0x1ffffffff")
    assert rc == 1 and "does not fit 32 bits" in err


def test_amdgpu_range_fills_lanes_from_zero(cli):
    # lane k of v1 = k (as a 16-bit low half), v2 = 1 in its low half: v0 lane k = k; lanes 0..7 shown first
    rc, out, err = cli(*AMD, DOT2, "--set", "v1=0..63", "--set", "v2=1")
    assert rc == 0, err
    rows = out.splitlines()[1:]
    assert len(rows) == 8
    assert [int(v) for v in rows[0].split("]")[1].split()] == list(range(8))
    assert rows[7].split("[")[1].startswith("56]")


# ---------------------------------------------------------------- 13: a hex instruction for amdgpu exec


def test_amdgpu_exec_reads_the_instruction_as_dwords_or_bytes(cli):
    # llvm-mc-19 -mcpu=gfx942: v_dot2_i32_i16 v0, v1, v2, v3 = [0x00,0x40,0xa6,0xd3,0x01,0x05,0x0e,0x1c]
    sets = ["--set", "v1=0x00020003", "--set", "v2=0x00040005", "--set", "v3=1"]
    outs = []
    for insn in (DOT2, "0xd3a64000 0x1c0e0501", "[0x00,0x40,0xa6,0xd3,0x01,0x05,0x0e,0x1c]"):
        rc, out, err = cli(*AMD, insn, *sets)
        assert rc == 0, err
        outs.append(out)
    assert outs[0] == outs[1] == outs[2]
    assert outs[0].splitlines()[1].split("]")[1].split()[0] == str(3 * 5 + 2 * 4 + 1)
    rc, _, err = cli(*AMD, "0xd3a64000")
    assert rc == 1 and "give every dword" in err


# ---------------------------------------------------------------- 3, 9, 11, 7: x86 eval's call syntax


def _x86(cli, call, *more):
    return cli("eval", "--isa", "x86", call, *more)


@pytest.mark.parametrize("count", ["1000000000", "99999999999", "17"])
def test_x86_repeat_is_refused_before_the_list_is_built(cli, count):
    # A __m128i holds 16 bytes: no list of more lanes is a register (this took 127 s and 15 GB, or MemoryError).
    call = f"_mm_dpbusd_epi32([0]*{count}, [1]*16, [1]*16)"
    rc, out, err = _x86(cli, call)
    assert rc == 1 and out == ""
    assert f"makes {count} lanes; a register holds at most 16 (column 18)" in err


@pytest.mark.parametrize(
    "call, column, words",
    [
        ("_mm_dpbusd_epi32([0]*4, [1]*16, [1]*16", 39, "found the end of the text"),  # the missing ')'
        ("_mm_dpbusd_epi32((0,0,0,0), [1]*16, [1]*16)", 18, "a parenthesised value is not an argument"),
        ("_mm_dpbusd_epi32([0]*4, [1]*16 [1]*16)", 32, "expected ',' or ')'"),
        ("_mm_dpbusd_epi32([0]*4, [1.5]*16, [1]*16)", 27, "expected ',' or ']'"),
        ("_mm_dpbusd_epi32([0]*4, [1]*16, [1]*16) + 1", 41, "found '+'"),
    ],
)
def test_x86_syntax_errors_name_the_column(cli, call, column, words):
    rc, _, err = _x86(cli, call)
    assert rc == 1 and words in err and f"(column {column})" in err
    text, caret = err.splitlines()[1:3]
    assert caret.index("^") - 2 == column - 1 and text.strip() == call


def test_x86_unused_set_is_an_error(cli):
    rc, _, err = _x86(cli, "_mm_dpbusd_epi32(src, [1]*16, [1]*16)", "--set", "src=[0]*4", "--set", "unused=[1]*4")
    assert rc == 1 and "--set unused: the call does not use 'unused'" in err


def test_x86_long_input_is_not_echoed_whole(cli):
    rc, _, err = _x86(cli, "_mm_dpbusd_epi32([0]*4, [" + "1, " * 3000 + "], [1]*16)")
    assert rc == 1 and len(err) < 400
    rc, _, err = _x86(cli, "_mm_dpbusd_epi32(src, [1]*16, [1]*16)", "--set", "src=" + "x" * 5000)
    assert rc == 1 and len(err) < 600


# ---------------------------------------------------------------- 7: options that would be silently ignored


@pytest.mark.parametrize(
    "argv, words",
    [
        (["list", "--targets", "--target", "gfx942"], "--targets lists the targets, which --target gfx942"),
        (["list", "--targets", "--syntax"], "which --syntax does not apply"),
        (["list", "sdot4", "--equivalent", "vpdpbusd"], "which NAME 'sdot4' does not apply"),
        (["list", "--equivalent", "vpdpbusd", "--target", "gfx942"], "which --target gfx942 does not apply"),
        (["available", "sdot4", "CDNA3", "--mode", "streaming"], "--mode streaming applies to an ISA with a streaming"),
        (["disasm", "--stats", "--fields", "44ba1c20"], "--stats prints counts per function"),
        (["table", "--plot", "out.png", "--format", "csv"], "which --format csv does not apply"),
        (["table", "--plot", "out.png", "--diff", "--processors"], "which --processors and --diff do not apply"),
    ],
)
def test_options_that_would_be_ignored_are_errors(cli, argv, words, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rc, out, err = cli(*argv)
    assert rc == 1 and out == "" and words in err, err
    assert list(tmp_path.iterdir()) == []  # the plot was not drawn


def test_streaming_and_no_streaming_together_is_an_error(cli):
    """Options a command line cannot honour together are status 1, as docs/cli.md says (one option given twice
    with two values is the same conflict)."""
    rc, _, err = cli("exec", "--streaming", "--no-streaming", "sdot z0.s, z1.b, z2.b")
    assert rc == 1 and "--no-streaming after --streaming: the two options set one thing" in err
    rc, _, err = cli("exec", "--vl", "128", "--vl", "256", "sdot z0.s, z1.b, z2.b")
    assert rc == 1 and "--vl 256 after --vl 128: an option that holds one value is given twice" in err
    rc, out, _ = cli("exec", "--vl", "0x100", "--vl", "256", "sdot z0.s, z1.b, z2.b")  # one value, spelt twice
    assert rc == 0 and out.startswith("# VL=256")
    rc, out, _ = cli("exec", "--vl", "0x100", "sdot z0.s, z1.b, z2.b")
    assert rc == 0 and out.startswith("# VL=256")


def test_equivalent_still_reads_isa(cli):
    rc, out, _ = cli("list", "--equivalent", "vpdpbusd", "--isa", "arm")
    assert rc == 0 and "arm." in out and "amd." not in out


def test_run_inputs_and_seed_conflict(cli, tmp_path):
    rc, _, err = cli("run", str(tmp_path / "m.onnx"), "--op", "sdot4", "--inputs", "x.npz", "--seed", "3")
    assert rc == 1 and "which --seed does not apply" in err


# ---------------------------------------------------------------- 8: start-up


def test_building_the_parser_imports_no_front_end():
    import subprocess
    import sys

    code = (
        "import sys; from intdot.cli import build_parser; build_parser(); "
        "print(sorted(m for m in sys.modules if m.endswith('.isa') and m.startswith('intdot.') and m != 'intdot.isa'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_list_help_still_names_targets_and_where_to_find_them(cli):
    rc, out, _ = cli("list", "--help")
    assert rc == 0
    flat = " ".join(out.split())
    # tests/cli/test_help_imports.py checks that the examples cover every ISA
    assert "only what target T has: a processor, family, core or architecture of any ISA" in flat
    assert "gfx942" in flat and "neoverse-v2" in flat and "--targets lists every one" in flat


# ---------------------------------------------------------------- 10: messages name the option and the value


@pytest.mark.parametrize(
    "argv, words",
    [
        (["disasm", "--isa", "amdgpu", "--mcpu", "gfx942", "xyz"], "WORD 'xyz' is neither a byte"),
        (["disasm", "--isa", "amdgpu", "--mcpu", "gfx942", "0x00,0x40"], "the input holds 2 bytes"),
        (["eval", "sdot4(1, 2, 3, false)", "--target", "gfx1250"], "use --profile llvm"),
    ],
)
def test_messages_name_the_command_lines_words(cli, argv, words):
    rc, _, err = cli(*argv)
    assert rc == 1 and words in err and "profile='llvm'" not in err


def test_a_non_amdgpu_elf_names_the_file_and_the_machine_needed(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # a minimal ELF64 header for EM_X86_64 (62): the message must name the file and EM_AMDGPU's 224
    header = bytearray(64)
    header[:4], header[4], header[5], header[6] = b"\x7fELF", 2, 1, 1
    header[16:18], header[18:20], header[20:24] = (1).to_bytes(2, "little"), (62).to_bytes(2, "little"), b"\1\0\0\0"
    header[52:54], header[58:60] = (64).to_bytes(2, "little"), (64).to_bytes(2, "little")
    path = "x86.o"
    (tmp_path / path).write_bytes(bytes(header))
    rc, _, err = cli("disasm", "--isa", "amdgpu", "-f", path)
    assert rc == 1 and f"--file '{path}'" in err and "e_machine 62" in err and "e_machine 224" in err


def test_run_file_errors_name_the_option(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    onnx = pytest.importorskip("onnx", reason="intdot run needs the 'onnx' extra")
    from onnx import TensorProto, helper

    vi = helper.make_tensor_value_info
    graph = helper.make_graph(
        [helper.make_node("MatMulInteger", ["A", "B"], ["Y"])],
        "g",
        [vi("A", TensorProto.UINT8, [2, 4]), vi("B", TensorProto.UINT8, [4, 3])],
        [vi("Y", TensorProto.INT32, None)],
    )
    model = tmp_path / "mm.onnx"
    onnx.save(helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", 21)]), model)
    (tmp_path / "hello.txt").write_text("hello\n")
    for flag, path, words in (
        ("--inputs", "hello.txt", "not a NumPy .npz file"),
        ("--inputs", "none.npz", "No such file or directory"),
        ("--save", "none/y.npz", "cannot write it: No such file or directory"),
    ):
        rc, _, err = cli("run", model, "--op", "sdot4", flag, path)
        assert rc == 1 and f"{flag} '{path}'" in err and words in err and "allow_pickle" not in err, err


# ---------------------------------------------------------------- 12, 13, 15: help, --stats, help on a full disk


def test_help_is_current():
    import subprocess
    import sys

    code = "from intdot.cli import main; main(['--help'])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout
    flat = " ".join(out.split())
    assert "exec run Arm (or, --isa amdgpu, AMD GPU) dot instructions" in flat  # not "Arm instructions" only
    assert "asm assemble AArch64 (or, --isa amdgpu, AMD GPU)" in flat


@pytest.mark.parametrize("command", ["eval", "table", "list", "available"])
def test_descriptions_are_wrapped(cli, command):
    rc, out, _ = cli(command, "--help")
    assert rc == 0
    described = out.split("\n\n")[1]  # usage, then the description
    assert max(len(line) for line in described.splitlines()) <= 100


@pytest.mark.skipif(not __import__("os").path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("argv", [["--version"], ["asm", "--help"], ["--help"]])
def test_help_and_version_on_a_full_disk_fail(argv):
    import subprocess
    import sys

    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "intdot", *argv], stdout=full, stderr=subprocess.PIPE, text=True)
    assert proc.returncode == 1 and "No space left on device" in proc.stderr
