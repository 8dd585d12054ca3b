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
    lanes = out[1].split("=")[1].split()
    assert lanes[0] == str(10 - (1 + 2 + 3 + 4)) and set(lanes[1:]) == {"0"}  # lane 0 only: exec=1


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
