"""intdot.amdgpu.read_object against llvm-objdump-19 on code objects clang-19 compiles at test time (OpenCL compute
kernels with the dot builtins and LLVM IR graphics shaders, tests/amdgpu/kernels_amdgpu.py) and on objects llvm-mc-19
assembles with dwords of encoding classes no generation has: the same processor from the ELF header, the same
instruction boundaries and words at the same addresses, the same symbols, llvm-objdump's text for every dot
instruction, and ``.long 0x...`` (llvm-objdump's text) for the dwords intdot cannot size."""

from __future__ import annotations

import re
import subprocess

import pytest

from intdot.amdgpu.objects import read_object
from intdot.amdgpu.targets import FEATURES, GENERATION, LLVM_MC_KNOWS, PROCESSORS
from tests.amdgpu import kernels_amdgpu as k
from tests.oracles import clang_amdgpu as clang
from tests.oracles import find_tool, missing
from tests.oracles import llvm_mc_amdgpu as mc

KERNELS = {
    "signed": """
kernel void mix(global int *out, global const int *a, global const int *b, int n, float f, local int *lds) {
  int i = get_global_id(0);
  int acc = out[i];
  lds[get_local_id(0)] = a[i];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int k = 0; k < n; k++) {
    acc = __builtin_amdgcn_sdot4(a[i * n + k], lds[(k + 1) & 63], acc, false);
    acc = __builtin_amdgcn_udot8(a[k], 0x12345678u, acc, true);
    acc = __builtin_amdgcn_sdot8(acc, b[k], acc, true);
    acc += (int)(f * 1.2345f * (float)k) ^ 0x7654321;
  }
  out[i] = acc * 1000003 + atomic_add(&out[0], 1);
}""",
    "mixed": """
kernel void iu(global int *out, global const int *a, global const int *b, int n, float f) {
  int i = get_global_id(0);
  int acc = out[i];
  for (int k = 0; k < n; k++) acc = __builtin_amdgcn_sudot4(true, a[i * n + k], false, b[k], acc, false);
  for (int k = 0; k < n; k++) acc = __builtin_amdgcn_sudot8(false, a[k], true, b[k + i], acc, true);
  for (int k = 0; k < n; k++) acc = __builtin_amdgcn_udot4(a[k], b[k], acc, false) + (int)(f * k);
  out[i] = acc;
}""",
    "atomics": k.ATOMICS,
    "misc": k.MISC,
    "cross_lane": k.CROSS_LANE,
    "images": k.IMAGES,
    "interp": k.INTERP,
    "lds_param": k.LDS_PARAM,
}
_NO_GRAPHICS = {"gfx90a", "gfx940", "gfx941", "gfx942"}  # no image or interpolation instructions


def _kernels_for(mcpu: str) -> list[str]:
    g = GENERATION[mcpu]
    names = ["atomics", "misc", "cross_lane"]
    if "dot1-insts" in FEATURES[mcpu] and "dot7-insts" in FEATURES[mcpu]:
        names.append("signed")
    if "dot8-insts" in FEATURES[mcpu]:
        names.append("mixed")
    if mcpu not in _NO_GRAPHICS:
        names += ["images", "lds_param" if g in ("gfx11", "gfx12") else "interp"]
    return names


DEFAULT = ["gfx908", "gfx1030", "gfx1100", "gfx1200"]
CASES = [
    pytest.param(p, name, marks=() if p in DEFAULT else pytest.mark.slow, id=f"{p}-{name}")
    for p in PROCESSORS
    if p in LLVM_MC_KNOWS
    for name in _kernels_for(p)
]
_LINE = re.compile(r"^\t(.*?)\s*// ([0-9A-F]{12}): ((?:[0-9A-F]{8} ?)+)")
_SYMBOL = re.compile(r"^([0-9a-f]{16}) <(.+)>:$")


def _objdump(path, mcpu):
    exe = find_tool("INTDOT_LLVM_OBJDUMP", "llvm-objdump-19", "llvm-objdump")
    if exe is None:
        missing("llvm-objdump-19", "install the llvm-19 package")
    out = subprocess.run([exe, "-d", f"--mcpu={mcpu}", str(path)], capture_output=True, text=True, check=True).stdout
    lines, symbols = [], {}
    for line in out.splitlines():
        m = _SYMBOL.match(line)
        if m:
            symbols[int(m.group(1), 16)] = m.group(2)
        m = _LINE.match(line)
        if m:
            lines.append((int(m.group(2), 16), m.group(3).strip(), " ".join(m.group(1).split())))
    return lines, symbols


def _dot_macro(mcpu: str) -> str:
    f = FEATURES[mcpu]
    if "dot7-insts" in f:
        return "__builtin_amdgcn_udot4((x), (y), (z), false)"
    if "dot1-insts" in f:
        return "__builtin_amdgcn_sdot4((x), (y), (z), false)"
    return "((x) * (y) + (z))"


def _compile(name: str, mcpu: str, tmp_path):
    if clang.tool() is None:
        missing("clang-19 (AMDGPU)", "install the clang-19 package")
    ir = name in ("images", "interp", "lds_param")
    src = tmp_path / ("k.ll" if ir else "k.cl")
    src.write_text(KERNELS[name])
    obj = tmp_path / "k.o"
    args = [clang.tool(), "-O2", "-nogpulib", "-target", "amdgcn-amd-amdpal" if ir else "amdgcn-amd-amdhsa"]
    args += [f"-mcpu={mcpu}", "-x", "ir" if ir else "cl"]
    if mcpu.endswith("-generic"):  # clang-19 writes generic targets only into version 6 code objects
        args += ["-mcode-object-version=6"]
    if not ir:
        args += ["-cl-std=CL2.0", "-Xclang", "-finclude-default-header", f"-DDOT(x,y,z)={_dot_macro(mcpu)}"]
    subprocess.run([*args, str(src), "-c", "-o", str(obj)], check=True, capture_output=True)
    return obj


def _check(obj, mcpu):
    theirs, symbols = _objdump(obj, mcpu)
    mine = read_object(obj)
    assert mine.mcpu == mcpu
    assert [(ln.address, ln.words) for ln in mine.lines] == [(a, w) for a, w, _ in theirs]
    assert {ln.address: ln.symbol for ln in mine.lines if ln.symbol} == symbols
    dots = 0
    listing = mine.listing().splitlines()
    for ln, (_, _, text) in zip(mine.lines, theirs):
        if text.startswith("v_dot"):
            assert ln.text == text
            dots += 1
        else:
            assert ln.text is None
        if text.startswith(".long"):
            assert not ln.sized
    unsized = [" ".join(x.split("//")[0].split()) for x in listing if x.startswith("\t.long")]
    assert unsized == [text for _, _, text in theirs if text.startswith(".long")]
    assert sum(v for key, v in mine.stats().items() if not key.startswith("(")) == dots
    assert mine.listing(only_dot=True).count("\n") == max(dots - 1, 0)
    return mine, dots


@pytest.mark.parametrize("mcpu, name", CASES)
def test_code_object_reads_as_llvm_objdump_shows_it(mcpu, name, tmp_path):
    mine, dots = _check(_compile(name, mcpu, tmp_path), mcpu)
    assert not mine.unsized  # clang's code has only classes intdot sizes
    if name in ("signed", "mixed"):
        assert dots >= 2


ASSEMBLED = {"gfx900": k.ASM_GFX9, "gfx906": k.ASM_GFX9, "gfx908": k.ASM_GFX908, "gfx90a": k.ASM_GFX90A,
             "gfx942": k.ASM_GFX90A, "gfx1010": k.ASM_GFX1010, "gfx1030": k.ASM_GFX1030, "gfx1100": k.ASM_GFX11,
             "gfx1151": k.ASM_GFX11, "gfx1200": k.ASM_GFX12, "gfx1201": k.ASM_GFX12}  # fmt: skip


def _assemble(text: str, mcpu: str, tmp_path):
    exe = mc.tool()
    if exe is None:
        missing("llvm-mc-19 (the AMDGPU assembler oracle)")
    src, obj = tmp_path / "a.s", tmp_path / "a.o"
    src.write_text(".text\n.globl f\nf:\n" + text + "\n")
    subprocess.run([exe, "-triple", "amdgcn-amd-amdhsa", f"-mcpu={mcpu}", "-filetype=obj", str(src), "-o", str(obj)],
                   check=True, capture_output=True)  # fmt: skip
    return obj


@pytest.mark.parametrize("mcpu", list(ASSEMBLED))
def test_every_encoding_class_is_sized_as_llvm_objdump_sizes_it(mcpu, tmp_path):
    mine, _ = _check(_assemble(ASSEMBLED[mcpu], mcpu, tmp_path), mcpu)
    assert not mine.unsized and len(mine.lines) == len(ASSEMBLED[mcpu].strip().splitlines())


# First-dword classes (bits 31:26) that no instruction of the generation has: llvm-objdump shows each as .long
UNKNOWN = {"gfx9": [0xC8, 0xCC, 0xE4, 0xEC, 0xF4, 0xF8, 0xFC], "gfx10": [0xC0, 0xC4, 0xD0, 0xE4, 0xEC, 0xFC],
           "gfx11": [0xC0, 0xC4, 0xD0, 0xE4, 0xEC, 0xFC], "gfx12": [0xC0, 0xDC, 0xE0, 0xE8, 0xF0, 0xFC]}  # fmt: skip


@pytest.mark.parametrize("mcpu", ["gfx906", "gfx942", "gfx1030", "gfx1100", "gfx1151", "gfx1201"])
def test_unknown_classes_become_long_lines_and_the_walk_goes_on(mcpu, tmp_path, capsys):
    dot = {
        "gfx906": "v_dot4_i32_i8 v0, v1, v2, v3",
        "gfx942": "v_dot4c_i32_i8 v5, 0x1234, v2",
        "gfx1030": "v_dot4c_i32_i8_dpp v5, v1, v2 row_shl:1",
        "gfx1100": "v_dot4_i32_iu8 v0, v1, v2, v3 neg_lo:[1,0,0]",
        "gfx1151": "v_dot8_u32_u4 v0, s1, 0x5, v3",
        "gfx1201": "v_dot4_u32_u8 v0, v1, v2, v3 clamp",
    }[mcpu]
    body = []
    for top in UNKNOWN[GENERATION[mcpu]]:
        body += [f".long {(top << 24) | 0x123456:#x}", dot, "s_nop 0", "s_mov_b32 s0, 0x12345678"]
    obj = _assemble("\n".join(body) + "\ns_endpgm", mcpu, tmp_path)
    mine, dots = _check(obj, mcpu)
    assert len(mine.unsized) == len(UNKNOWN[GENERATION[mcpu]]) == mine.stats()["(unsized)"] and dots == len(
        mine.unsized
    )
    from intdot.cli import main

    assert main(["disasm", "--isa", "amdgpu", "-f", str(obj)]) == 0
    out, err = capsys.readouterr()
    assert out.count(".long 0x") == len(mine.unsized) and "cannot size" in err and "0x0" in err


def test_read_object_refuses_what_is_not_bytes_or_a_path(tmp_path):
    """An int is not a file descriptor to open (and close) here; a missing file and a non-ELF say so."""
    pytest.importorskip("elftools")
    from intdot.errors import OperandError, OperandTypeError

    for bad in (True, 0, 5, 1.5, None, ["x"]):
        with pytest.raises(OperandTypeError, match="expected the code object's bytes or a path"):
            read_object(bad)
    missing_file = tmp_path / "nothing.o"
    for path in (missing_file, str(missing_file)):
        with pytest.raises(OperandError, match=r"nothing\.o' cannot be read: No such file"):
            read_object(path)
    (tmp_path / "text.o").write_bytes(b"not an ELF file at all")
    with pytest.raises(OperandError, match="not an ELF file"):
        read_object(tmp_path / "text.o")


def test_a_damaged_code_object_is_an_error_not_a_traceback(tmp_path):
    """Cut short or with bytes changed (past the header, which pyelftools checks first), a real object still gives
    intdot's error: the section reads failed inside pyelftools and escaped as its own exceptions."""
    import random

    from intdot.errors import IntdotError

    data = _compile("signed", "gfx1030", tmp_path).read_bytes()
    rng = random.Random(0)
    for i in range(120):
        d = bytearray(data[: rng.randrange(64, len(data))] if i % 2 else data)
        if i % 2 == 0:
            for _ in range(8):
                d[rng.randrange(64, len(d))] = rng.randrange(256)
        try:
            read_object(bytes(d))
        except IntdotError:
            pass


def test_every_processor_llvm_mc_knows_has_its_mach_number(tmp_path):
    """A code object names its processor by EF_AMDGPU_MACH: the number llvm-mc writes for each processor must read
    back as that processor."""
    from intdot.amdgpu.objects import MACH

    wrong = {}
    for mcpu in sorted(LLVM_MC_KNOWS):
        obj = _assemble("s_nop 0", mcpu, tmp_path)
        data = obj.read_bytes()
        flags = int.from_bytes(data[48:52], "little")  # e_flags of a 64-bit ELF header
        if MACH.get(flags & 0xFF) != mcpu:
            wrong[mcpu] = (flags & 0xFF, MACH.get(flags & 0xFF))
    assert wrong == {}
