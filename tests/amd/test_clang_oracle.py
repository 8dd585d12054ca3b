"""The llvm profile against clang itself: compile one OpenCL kernel per processor
that calls all eight builtins and read which ones clang rejects, and for
which missing feature.  Processors this clang does not know are skipped."""

from __future__ import annotations

import functools
import re
import subprocess

import pytest

from intdot import amd
from tests.oracles import find_tool, missing

pytestmark = pytest.mark.oracle

KERNEL = """
kernel void k(global int *o, global unsigned *u, int a, int b, int c, short2 s, short2 t,
              ushort2 us, ushort2 ut) {
  u[0] = __builtin_amdgcn_udot4(a, b, c, false);
  u[1] = __builtin_amdgcn_udot8(a, b, c, false);
  o[2] = __builtin_amdgcn_sdot4(a, b, c, false);
  o[3] = __builtin_amdgcn_sdot8(a, b, c, false);
  o[4] = __builtin_amdgcn_sdot2(s, t, c, false);
  u[5] = __builtin_amdgcn_udot2(us, ut, c, false);
  o[6] = __builtin_amdgcn_sudot4(true, a, false, b, c, false);
  o[7] = __builtin_amdgcn_sudot8(true, a, false, b, c, false);
}
"""
NEEDS = re.compile(r"'__builtin_amdgcn_(\w+)' needs target feature ([\w-]+)")


def clang():
    tool = find_tool("INTDOT_CLANG", "clang-19", "clang-20", "clang-21", "clang")
    if tool is None:
        missing("clang (with the AMDGPU target)", "install clang-19 (Debian package clang-19)")
    return tool


def _clang_cl(tool: str, cpu: str, source: str, tmp: str, *emit: str) -> subprocess.CompletedProcess:
    """clang compiling OpenCL ``source`` for amdgcn processor ``cpu``; ``emit`` picks the output (-S plus its flags)."""
    src = f"{tmp}/k.cl"
    with open(src, "w") as f:
        f.write(source)
    cmd = [tool, "-x", "cl", "-cl-std=CL2.0", "-nogpulib", "-target", "amdgcn-amd-amdhsa", f"-mcpu={cpu}", *emit]
    return subprocess.run([*cmd, "-o", "-", src], capture_output=True, text=True, timeout=60)


@functools.cache
def compile_for(tool: str, cpu: str, source: str, tmp: str):
    proc = _clang_cl(tool, cpu, source, tmp, "-S", "-emit-llvm")
    return proc.returncode, proc.stderr


@pytest.mark.parametrize("cpu", amd.processors("llvm"))
def test_clang_agrees_on_availability(cpu, tmp_path_factory):
    tool = clang()
    rc, err = compile_for(tool, cpu, KERNEL, str(tmp_path_factory.mktemp(cpu)))
    if "invalid target ID" in err or "unknown target CPU" in err:
        pytest.skip(f"{tool} does not know {cpu}")
    rejected = dict(NEEDS.findall(err))
    t = amd.target(cpu, profile="llvm")
    for row in amd.BUILTINS:
        assert (row.name not in rejected) is t.available(row.name), (cpu, row.name, err)
        if row.name in rejected:
            assert rejected[row.name] == row.feature
    assert (rc == 0) is (not rejected), err


def test_clang_wants_constant_flags(tmp_path):
    """docs/differences.md: clang requires the flags to be compile-time constants."""
    tool = clang()
    src = (
        "kernel void k(global int *o, int a, int b, int c, int f) {\n"
        "  o[0] = __builtin_amdgcn_sdot4(a, b, c, f != 0);\n"
        "  o[1] = __builtin_amdgcn_sudot4(f != 0, a, false, b, c, false);\n}\n"
    )
    rc, err = compile_for(tool, "gfx1100", src, str(tmp_path))
    assert rc != 0
    assert err.count("must be a constant integer") == 2, err


def _asm(tool, cpu, body, tmp):
    source = (
        "kernel void k(global int *o, int a, int b, int c, short2 s, short2 t, ushort2 us, ushort2 ut)"
        " {\n" + body + "}\n"
    )
    proc = _clang_cl(tool, cpu, source, tmp, "-O2", "-S")
    assert proc.returncode == 0, proc.stderr
    return [ln.strip() for ln in proc.stdout.splitlines() if ln.strip().startswith("v_dot")]


@pytest.mark.parametrize("row", amd.BUILTINS, ids=lambda r: r.name)
def test_clang_last_argument_is_the_clamp_bit(row, tmp_path):
    """docs/differences.md #1: clang's last argument becomes the instruction's clamp modifier
    (and sudot's flags its neg_lo sign bits), so it is clamp, not the reference's neg."""
    tool = clang()
    cpu = "gfx1100" if row.feature == "dot8-insts" else "gfx942"
    ops = {"plain": "a, b", "short2": "s, t" if row.src0 == "s" else "us, ut"}
    insns = []
    for i, last in enumerate(["false", "true"]):
        if row.layout == "sudot":
            flags = [("true", "false"), ("false", "true")][i]
            args = f"{flags[0]}, a, {flags[1]}, b, c, {last}"
        else:
            args = f"{ops[row.layout]}, c, {last}"
        sub = tmp_path / str(i)
        sub.mkdir()
        (insn,) = _asm(tool, cpu, f"  o[0] = __builtin_amdgcn_{row.name}({args});\n", sub)
        insns.append(insn)
    assert not insns[0].endswith("clamp") and insns[1].endswith("clamp"), insns
    if row.layout == "sudot":
        assert "neg_lo:[1,0,0]" in insns[0] and "neg_lo:[0,1,0]" in insns[1], insns
