"""intdot asm/disasm/exec --isa amdgpu: the command line over intdot.amdgpu, its text and bytes as llvm-mc-19
prints them (the library itself is checked against llvm-mc in tests/amdgpu)."""

from __future__ import annotations

import re

import pytest

from intdot.cli import main
from tests.oracles import llvm_mc_amdgpu as mc
from tests.oracles import missing

LINES = {
    "gfx906": ["v_dot4_i32_i8 v0, v1, v2, v3", "v_dot2_u32_u16 v5, v6, v7, v8 clamp"],
    "gfx942": ["v_dot4_i32_i8 v0, v1, v2, v3", "v_dot8_u32_u4 v1, v2, v3, v4"],
    "gfx1030": ["v_dot4_i32_i8 v0, v1, v2, v3", "v_dot2_i32_i16 v0, v1, v2, v3 op_sel:[1,0,0]"],
    "gfx1100": ["v_dot4_i32_iu8 v0, v1, v2, v3 neg_lo:[1,0,0]", "v_dot4_u32_u8 v0, v1, v2, v3 clamp"],
    "gfx1201": ["v_dot8_i32_iu4 v9, v1, v2, v3 neg_lo:[0,1,0]", "v_dot4_u32_u8 v0, v1, v2, v3"],
}


def _mc():
    if mc.tool() is None:
        missing("llvm-mc-19 (the AMDGPU assembler oracle)")


@pytest.mark.oracle
@pytest.mark.parametrize("mcpu", list(LINES))
def test_asm_prints_llvm_mc_text_and_bytes(capsys, mcpu):
    _mc()
    assert main(["asm", "--isa", "amdgpu", "--mcpu", mcpu, *LINES[mcpu]]) == 0
    out = capsys.readouterr().out.splitlines()
    for line, (text, data) in zip(out, mc.assemble(LINES[mcpu], mcpu)):
        mine, enc = re.match(r"(.*?)\s*; encoding: \[(.*)\]$", line).groups()
        assert mine == text and bytes(int(b, 16) for b in enc.split(",")) == data


@pytest.mark.oracle
@pytest.mark.parametrize("mcpu", list(LINES))
def test_disasm_reads_llvm_mc_byte_lists(capsys, mcpu):
    _mc()
    for text, data in mc.assemble(LINES[mcpu], mcpu):
        assert main(["disasm", "--isa", "amdgpu", "--mcpu", mcpu, ",".join(f"0x{b:02x}" for b in data)]) == 0
        assert capsys.readouterr().out == text + "\n"


def test_exec_runs_a_wave(capsys):
    argv = ["exec", "--isa", "amdgpu", "--mcpu", "gfx1100", "--set", "v1=0x01020304", "--set", "v2=0xffffffff"]
    argv += ["--set", "v3=10", "--set", "exec=1", "v_dot4_i32_iu8 v0, v1, v2, v3 neg_lo:[1,1,0]"]
    assert main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    # wave32 (gfx11's default) in rows of 8 lanes, each headed by its first lane's number
    assert [line.split("]")[0].split("[")[1].strip() for line in out[1:]] == ["0", "8", "16", "24"]
    lanes = [v for line in out[1:] for v in line.split("]")[1].split()]
    assert lanes[0] == str(10 - (1 + 2 + 3 + 4)) and set(lanes[1:]) == {"0"} and len(lanes) == 32  # exec=1


def test_amdgpu_needs_a_processor(capsys):
    assert main(["asm", "--isa", "amdgpu", "v_dot4_i32_i8 v0, v1, v2, v3"]) == 1
    assert "needs --mcpu" in capsys.readouterr().err


@pytest.mark.parametrize(
    "call, target, clamp, instruction",
    [
        ("sdot4(1, 2, 3, false)", "gfx942", False, "v_dot4c_i32_i8 vdst(=src2), src0, src1"),
        ("sdot4(1, 2, 3, false)", "gfx942", True, "v_dot4_i32_i8 vdst, src0, src1, src2 clamp"),
        (
            "sudot4(true, 1, false, 2, 3, false)",
            "gfx1100",
            False,
            "v_dot4_i32_iu8 vdst, src0, src1, src2 neg_lo:[1,0,0]",
        ),
    ],
)
def test_eval_explain_names_the_instruction(capsys, call, target, clamp, instruction):
    # issue 13 item 5; the lowering itself is checked against clang-19 -S in tests/amdgpu/test_clang.py
    argv = ["eval", call, "--explain", "--target", target, "--profile", "llvm"] + (["--clamp"] if clamp else [])
    if clamp:
        argv = ["eval", call.replace("false)", "true)"), "--explain", "--target", target, "--profile", "llvm"]
    assert main(argv) == 0
    assert f"instruction (clang-19 on {target}): {instruction}" in capsys.readouterr().out


@pytest.mark.oracle
def test_disasm_reads_an_amdgpu_code_object_as_llvm_objdump_does(tmp_path, capsys):
    # issue 13 item 3: the processor comes from the ELF header; no --isa needed
    import subprocess

    from tests.oracles import find_tool

    clang, objdump = find_tool("INTDOT_CLANG", "clang-19"), find_tool("INTDOT_OBJDUMP", "llvm-objdump-19")
    if clang is None or objdump is None:
        missing("clang-19 and llvm-objdump-19 (the AMDGPU code-object oracle)")
    src = tmp_path / "k.cl"
    src.write_text(
        "__kernel void k(__global int *o, __global const int *a, __global const int *b) {\n"
        "  int i = get_global_id(0);\n"
        "  o[i] = __builtin_amdgcn_udot4(a[i], b[i], o[i], false)\n"
        "       + __builtin_amdgcn_sudot4(true, a[i], false, b[i], 0, true);\n"
        "}\n"
    )
    obj = tmp_path / "k.o"
    subprocess.run(
        [clang, "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx1100", "-nogpulib", "-O2", "-c", src, "-o", obj], check=True
    )
    want = subprocess.run([objdump, "-d", "--mcpu=gfx1100", obj], capture_output=True, text=True, check=True).stdout
    assert main(["disasm", "-f", str(obj)]) == 0
    got = capsys.readouterr().out.splitlines()
    want = want.splitlines()
    assert got[:5] == want[:5]  # header and the first symbol, as llvm-objdump lays them out
    dots = [ln for ln in want if "v_dot" in ln]
    assert dots and [ln for ln in got if "v_dot" in ln] == dots


# A raw binary, the --mark hint and missing files (a user review): llvm-mc-19 gives the bytes and their text.
RAW_LINES = ["v_dot2_i32_i16 v0, v1, v2, v3", "v_dot4_i32_i8 v4, v5, v6, v7 clamp"]


@pytest.fixture(scope="module")
def raw_file(tmp_path_factory):
    _mc()
    pairs = mc.assemble(RAW_LINES, "gfx942")
    path = tmp_path_factory.mktemp("raw") / "amd.bin"
    path.write_bytes(b"".join(data for _, data in pairs))
    return path, pairs


@pytest.mark.oracle
def test_disasm_reads_a_raw_binary_with_raw(cli, raw_file):
    path, pairs = raw_file
    rc, out, err = cli("disasm", "-f", path, "--isa", "amdgpu", "--mcpu", "gfx942", "--raw")
    assert rc == 0 and err == "", err
    assert out.splitlines() == [text for text, _ in pairs]
    first = len(pairs[0][1])
    rc, out, err = cli("disasm", "-f", path, "--isa", "amdgpu", "--mcpu", "gfx942", "--raw", "--offset", first)
    assert rc == 0 and out.splitlines() == [pairs[1][0]], err


@pytest.mark.oracle
def test_a_raw_binary_without_raw_says_to_add_it(cli, raw_file):
    path, _ = raw_file
    rc, out, err = cli("disasm", "-f", path, "--isa", "amdgpu", "--mcpu", "gfx942")
    assert rc == 1 and not out and err.count("\n") == 1
    assert "is not text" in err and "add --raw" in err and "no bytes given" not in err


@pytest.mark.oracle
def test_raw_options_are_never_ignored(cli, raw_file):
    path, pairs = raw_file
    rc, _, err = cli("disasm", "--isa", "amdgpu", "--mcpu", "gfx942", "--raw", "0x00,0x40,0xa6,0xd3")
    assert rc == 1 and "give it with -f FILE" in err
    rc, _, err = cli("disasm", "-f", path, "--isa", "amdgpu", "--mcpu", "gfx942", "--raw", "--offset", 4096)
    assert rc == 1 and "--offset 4096 is past the end" in err


def test_a_word_that_is_no_dot_instruction_names_the_cli_flag(cli):
    # 0xbf800000 is s_nop 0 on every generation (tests/oracles/llvm_mc_amdgpu.py marks batches with it)
    rc, out, err = cli("disasm", "--isa", "amdgpu", "--mcpu", "gfx942", "0x00,0x00,0x80,0xbf")
    assert rc == 1 and not out and err.count("\n") == 1
    assert "pass --mark" in err and "errors=" not in err and "0xbf800000" in err
    rc, out, err = cli("disasm", "--isa", "amdgpu", "--mcpu", "gfx942", "0x00,0x00,0x80,0xbf", "--mark")
    assert rc == 0 and out == ".long 0xbf800000\n"


@pytest.mark.oracle
def test_only_dot_on_bytes_drops_the_other_words(cli, raw_file):
    _, pairs = raw_file
    listed = ",".join(f"0x{b:02x}" for b in b"\x00\x00\x80\xbf" + pairs[0][1])
    rc, out, err = cli("disasm", "--isa", "amdgpu", "--mcpu", "gfx942", listed, "--only-dot")
    assert rc == 0 and out.splitlines() == [pairs[0][0]], err


@pytest.mark.parametrize(
    "argv",
    [
        ["disasm", "--isa", "amdgpu", "--mcpu", "gfx942", "-f", "{}"],
        ["asm", "--isa", "amdgpu", "--mcpu", "gfx942", "-f", "{}"],
        ["disasm", "-f", "{}"],
        ["asm", "-f", "{}"],
        ["eval", "-f", "{}"],
        ["exec", "-f", "{}"],
        ["exec", "--state", "{}", "sdot v0.4s, v1.16b, v2.16b"],
    ],
)
def test_a_missing_file_is_worded_alike_everywhere(cli, tmp_path, monkeypatch, argv):
    monkeypatch.chdir(tmp_path)  # a short name: messages cut long ones
    path = "no such file"
    rc, out, err = cli(*[a.replace("{}", path) for a in argv])
    option = argv[argv.index("{}") - 1].replace("-f", "--file")
    assert rc == 1 and not out
    assert err == f"intdot {argv[0]}: error: {option} '{path}': No such file or directory\n"


@pytest.mark.oracle
def test_a_code_object_refuses_another_processor_and_arm_options(cli, tmp_path):
    import subprocess

    from tests.oracles import find_tool

    clang = find_tool("INTDOT_CLANG", "clang-19")
    if clang is None:
        missing("clang-19 (the AMDGPU code-object oracle)")
    src, obj = tmp_path / "k.cl", tmp_path / "k.o"
    src.write_text("__kernel void k(__global int *o) { o[0] = __builtin_amdgcn_sdot4(o[1], o[2], o[3], false); }\n")
    subprocess.run(
        [clang, "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx942", "-nogpulib", "-c", src, "-o", obj], check=True
    )
    rc, out, err = cli("disasm", "-f", obj, "--isa", "amdgpu", "--mcpu", "gfx942", "--only-dot")
    assert rc == 0 and "v_dot4" in out, err
    rc, out, err = cli("disasm", "-f", obj, "--isa", "amdgpu", "--mcpu", "gfx1100")
    assert rc == 1 and not out and "--mcpu gfx1100" in err and "for gfx942" in err
    rc, out, err = cli("disasm", "-f", obj, "--json")  # the ISA comes from the file: --json is Arm's
    assert rc == 1 and not out and err.count("\n") == 1
    assert "--json applies to --isa arm only" in err and "is an AMDGPU code object" in err


@pytest.mark.parametrize("verb", ["asm", "exec"])
def test_no_instruction_is_an_error(cli, verb):
    rc, out, err = cli(verb, "--isa", "amdgpu", "--mcpu", "gfx942")
    assert rc == 1 and not out and "no instruction given" in err


@pytest.mark.oracle
def test_disasm_reads_llvm_mc_listings_by_their_encodings(capsys, tmp_path):
    """A file of llvm-mc -show-encoding output: its hex operands (a literal, row_mask:0xf) are not code."""
    _mc()
    lines = ["v_dot4c_i32_i8 v0, 0x1a080702, v2", "v_dot4c_i32_i8 v5, v1, v2 row_shl:1"]
    got = mc.assemble(lines, "gfx1030")
    listing = "".join(f"\t{t} ; encoding: [{','.join(f'0x{b:02x}' for b in d)}]\n" for t, d in got)
    (tmp_path / "k.s").write_text("\t.text\n" + listing)
    assert main(["disasm", "--isa", "amdgpu", "--mcpu", "gfx1030", "-f", str(tmp_path / "k.s")]) == 0
    assert capsys.readouterr().out.splitlines() == [t for t, _ in got]


def test_a_code_object_without_symbols_labels_its_section(tmp_path, capsys):
    """llvm-objdump labels the start of .text with the section's name where no symbol does (an object assembled
    from bare instructions): the listing's label lines are its."""
    import re
    import subprocess

    from tests.oracles import find_tool

    mc, objdump = find_tool("INTDOT_LLVM_MC", "llvm-mc-19"), find_tool("INTDOT_OBJDUMP", "llvm-objdump-19")
    if mc is None or objdump is None:
        missing("llvm-mc-19 and llvm-objdump-19 (the AMDGPU code-object oracle)")
    src, obj = tmp_path / "k.s", tmp_path / "k.o"
    src.write_text("v_dot4_i32_iu8 v0, v1, v2, v3\nv_dot2_f32_f16 v0, v1, v2, v3\ns_endpgm\n")
    subprocess.run([mc, "-triple=amdgcn", "-mcpu=gfx1100", "-filetype=obj", src, "-o", obj], check=True)
    want = subprocess.run([objdump, "-d", obj], capture_output=True, text=True, check=True).stdout
    assert main(["disasm", "-f", str(obj)]) == 0
    got = capsys.readouterr().out

    def labels(text):
        return re.findall(r"^[0-9a-f]{16} <[^>]+>:$", text, re.M)

    assert labels(want) and labels(got) == labels(want)
