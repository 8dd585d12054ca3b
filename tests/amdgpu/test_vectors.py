"""intdot.amdgpu on the integer v_dot lines of LLVM's own AMDGPU assembler tests (tests/data/amdgpu_llvm_mc_dot.s):
each input line assembles to the check line's bytes, and the bytes disassemble to LLVM's text where the check
line gives it (and that text assembles back to the same bytes)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from intdot import amdgpu

DATA = Path(__file__).parent.parent / "data" / "amdgpu_llvm_mc_dot.s"
_BYTES = re.compile(r"\[([0-9a-fx,]+)\]")


def _vectors():
    """(processors, input text, expected text or None, bytes) for every instruction line."""
    out, procs, pending_check = [], [], None
    lines = DATA.read_text().splitlines()
    for i, line in enumerate(lines):
        if line.startswith("// FILE "):
            procs = []
        m = re.search(r"-mcpu=(gfx\w+)|-triple=amdgpu(\d+)\.(\d+)", line) if line.startswith("// RUN") else None
        if m:
            procs.append(m.group(1) or f"gfx{m.group(2)}{int(m.group(3)):02d}".replace("gfx1011", "gfx1011"))
        if line.startswith("// CHECK: encoding:"):
            pending_check = bytes(int(b, 16) for b in _BYTES.search(line).group(1).split(","))
        if line.startswith("v_dot"):
            if pending_check is not None:  # dl-insts.s: the check line comes first
                out.append((tuple(procs), line, None, pending_check))
                pending_check = None
                continue
            check = lines[i + 1]
            data = bytes(int(b, 16) for b in _BYTES.findall(check)[-1].split(","))
            text = check.split(": ", 1)[1].split(";")[0].strip() if "; encoding" in check else None
            out.append((tuple(procs), line, " ".join(text.split()) if text else None, data))
    return out


VECTORS = _vectors()


def test_every_line_was_read():
    assert len(VECTORS) == sum(1 for ln in DATA.read_text().splitlines() if ln.startswith("v_dot")) == 107
    assert {p for v in VECTORS for p in v[0]} == {"gfx906", "gfx908", "gfx1011", "gfx1030", "gfx1100"}


@pytest.mark.parametrize("procs, line, text, data", VECTORS, ids=[f"{v[0][0]}:{v[1]}" for v in VECTORS])
def test_llvm_vector(procs, line, text, data):
    for mcpu in procs:
        assert amdgpu.assemble(line, mcpu) == data
        shown = amdgpu.disassemble(data, mcpu)
        if text is not None:
            assert shown == text
        assert amdgpu.assemble(shown, mcpu) == data
