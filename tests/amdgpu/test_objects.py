"""intdot.amdgpu.read_object against llvm-objdump-19 on kernels clang-19 compiles at test time (OpenCL, with the
dot builtins): the same processor from the ELF header, the same instruction boundaries and words at the same
addresses, the same symbols, and llvm-objdump's text for every dot instruction."""

from __future__ import annotations

import re
import subprocess

import pytest

from intdot.amdgpu.objects import read_object
from tests.oracles import clang_amdgpu as clang
from tests.oracles import find_tool, missing

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
}
PROCESSORS = {
    **{p: "signed" for p in ("gfx906", "gfx908", "gfx90a", "gfx942", "gfx1011", "gfx1030")},
    **{p: "mixed" for p in ("gfx1100", "gfx1151", "gfx1200", "gfx1201")},
}
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


DEFAULT = ["gfx908", "gfx1030", "gfx1100", "gfx1200"]


@pytest.mark.parametrize("mcpu", [p if p in DEFAULT else pytest.param(p, marks=pytest.mark.slow) for p in PROCESSORS])
def test_code_object_reads_as_llvm_objdump_shows_it(mcpu, tmp_path):
    if clang.tool() is None:
        missing("clang-19 (AMDGPU)", "install the clang-19 package")
    src = tmp_path / "k.cl"
    src.write_text(KERNELS[PROCESSORS[mcpu]])
    obj = tmp_path / "k.o"
    args = [clang.tool(), "-O2", "-nogpulib", "-target", "amdgcn-amd-amdhsa", f"-mcpu={mcpu}", "-x", "cl", str(src)]
    subprocess.run([*args, "-c", "-o", str(obj)], check=True, capture_output=True)
    theirs, symbols = _objdump(obj, mcpu)
    mine = read_object(obj)
    assert mine.mcpu == mcpu
    assert [(ln.address, ln.words) for ln in mine.lines] == [(a, w) for a, w, _ in theirs]
    assert {ln.address: ln.symbol for ln in mine.lines if ln.symbol} == symbols
    dots = 0
    for ln, (_, _, text) in zip(mine.lines, theirs):
        if text.startswith("v_dot"):
            assert ln.text == text
            dots += 1
        else:
            assert ln.text is None
    assert dots >= 2 and sum(v for k, v in mine.stats().items() if k != "(other)") == dots
    assert mine.listing(only_dot=True).count("\n") == dots - 1
