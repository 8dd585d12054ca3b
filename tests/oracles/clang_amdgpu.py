"""Driving clang-19 as the AMDGPU compiler oracle: C functions that call the dot builtins, compiled with
``-S -O2 -nogpulib -target amdgcn-amd-amdhsa -mcpu=gfxN``; the assembly (or clang's errors) comes back."""

from __future__ import annotations

import re
import subprocess

from . import find_tool

PRELUDE = (
    "typedef short short2 __attribute__((ext_vector_type(2)));\n"
    "typedef unsigned short ushort2 __attribute__((ext_vector_type(2)));\n"
)


def tool() -> str | None:
    return find_tool("INTDOT_CLANG", "clang-19", "clang")


def compile_c(source: str, mcpu: str) -> subprocess.CompletedProcess:
    exe = tool()
    if exe is None:
        raise FileNotFoundError("clang")
    args = [exe, "-S", "-O2", "-nogpulib", "-target", "amdgcn-amd-amdhsa", f"-mcpu={mcpu}", "-x", "c", "-", "-o", "-"]
    if mcpu.endswith("-generic"):  # clang-19 compiles for generic targets only into version 6 code objects
        args.insert(1, "-mcode-object-version=6")
    return subprocess.run(args, input=PRELUDE + source, capture_output=True, text=True, timeout=300)


def functions(asm: str) -> dict[str, list[str]]:
    """Function name -> its instructions (text before any ``;`` comment), from clang's assembly."""
    out: dict[str, list[str]] = {}
    cur = None
    for line in asm.splitlines():
        m = re.match(r"^([A-Za-z_]\w*):", line)
        if m:
            cur = m.group(1)
            out[cur] = []
            continue
        text = line.split(";")[0].strip()
        if cur and text and not text.startswith(".") and not text.endswith(":"):
            out[cur].append(" ".join(text.split()))
    return out
