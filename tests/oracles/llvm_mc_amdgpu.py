"""Driving llvm-mc as the AMDGPU oracle (``-arch=amdgcn -mcpu=gfxN``), in batches.

Every input line (assembly text, or the bytes of one instruction) is followed by an
``s_nop 0`` marker, so one llvm-mc process answers a whole batch and each answer is
known to belong to its line: text and bytes for what llvm-mc accepts, its message for
what it rejects.  ``tool()`` is None when llvm-mc is absent; the tests then call
``tests.oracles.missing``.
"""

from __future__ import annotations

import re
import subprocess

from . import find_tool

_LINE = re.compile(r"^\s+(\S.*?)\s*; encoding: \[([^\]]*)\]\s*$")
_DIAG = re.compile(r"^<stdin>:(\d+):(\d+): (error|warning): (.*)$")
_MARK = "s_nop 0"
_MARK_BYTES = bytes([0x00, 0x00, 0x80, 0xBF])


def tool() -> str | None:
    return find_tool("INTDOT_LLVM_MC", "llvm-mc-19", "llvm-mc")


def _run(mcpu: str, args: list[str], stdin: str) -> subprocess.CompletedProcess:
    exe = tool()
    if exe is None:
        raise FileNotFoundError("llvm-mc")
    return subprocess.run(
        [exe, "-arch=amdgcn", f"-mcpu={mcpu}", "-show-encoding", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _bytes(listed: str) -> bytes | None:
    """An encoding list's bytes; None where llvm-mc leaves some to a fixup (printed ``A``: a symbol's relocation),
    so that no test compares bytes llvm-mc has not decided."""
    tokens = [t.strip() for t in listed.split(",")] if listed else []
    if any(not t.lower().startswith("0x") for t in tokens):
        return None
    return bytes(int(t, 16) for t in tokens)


def _split(proc: subprocess.CompletedProcess, n: int) -> tuple[list[list[tuple[str, bytes]]], dict[int, str]]:
    """Per input line: the instructions llvm-mc printed for it; and input index -> its first diagnostic."""
    groups: list[list[tuple[str, bytes]]] = []
    cur: list[tuple[str, bytes]] = []
    for line in proc.stdout.splitlines():
        m = _LINE.match(line)
        if not m:
            continue
        data = _bytes(m.group(2))
        if m.group(1) == _MARK and data == _MARK_BYTES:
            groups.append(cur)
            cur = []
        else:
            cur.append((" ".join(m.group(1).split()), data))
    diags: dict[int, str] = {}
    for line in proc.stderr.splitlines():
        m = _DIAG.match(line)
        if m:
            diags.setdefault((int(m.group(1)) - 1) // 2, m.group(4))
    if len(groups) != n:
        raise AssertionError(f"llvm-mc gave {len(groups)} answers for {n} lines:\n{proc.stderr[:2000]}")
    return groups, diags


def assemble(lines: list[str], mcpu: str) -> list[tuple[str, bytes] | str]:
    """For each line: (llvm-mc's text, its bytes), or llvm-mc's error message where it rejects the line; the bytes
    are None where llvm-mc leaves some of them to a relocation (a symbol)."""
    proc = _run(mcpu, [], "".join(f"{line}\n{_MARK}\n" for line in lines))
    groups, diags = _split(proc, len(lines))
    out: list[tuple[str, bytes] | str] = []
    for i, g in enumerate(groups):
        if i in diags and diags[i]:
            out.append(diags[i])
        elif len(g) != 1:
            raise AssertionError(f"llvm-mc made {len(g)} instructions of {lines[i]!r}")
        else:
            out.append(g[0])
    return out


def _marks(i: int) -> bytes:
    # Six ``s_movk_i32 s0, i``: an instruction that runs past the end of input i (MIMG and literals: up to 20 bytes
    # from its last dword) eats at most four of them, so at least one marks the end of input i in the listing.
    return (0xB0000000 | (i & 0xFFFF)).to_bytes(4, "little") * 6


CRASH = ("<llvm-mc crashed>", b"")


def disassemble(words: list[bytes], mcpu: str) -> list[tuple[str, bytes] | None]:
    """For each byte string: (text, encoding) of the instruction llvm-mc decodes at its start, or None where
    llvm-mc finds no valid instruction there.  The encoding is llvm-mc's own of what it decoded: as long as
    the instruction, but with the bits it ignores cleared.  :data:`CRASH` for an input llvm-mc 19 crashes on
    (it does on a few words of other instructions); the inputs after it are asked again."""
    if len(words) > 0x10000:
        raise ValueError("at most 65536 inputs per batch")
    listing = "".join(
        " ".join(f"0x{b:02x}" for b in w) + "\n" + " ".join(f"0x{b:02x}" for b in _marks(i)) + "\n"
        for i, w in enumerate(words)
    )
    proc = _run(mcpu, ["--disassemble"], listing)
    first: list[tuple[str, bytes] | None] = [None] * len(words)
    cur = 0
    for line in proc.stdout.splitlines():
        m = _LINE.match(line)
        if not m or cur >= len(words):
            continue
        data = bytes(int(b, 16) for b in m.group(2).split(",")) if m.group(2) else b""
        if m.group(1).startswith("s_movk_i32 s0, ") and len(data) == 4:
            idx = int.from_bytes(data, "little") & 0xFFFF
            if idx == cur & 0xFFFF:
                cur += 1
                continue
            if idx == (cur - 1) & 0xFFFF:  # another marker of the input just ended
                continue
        if first[cur] is None:
            first[cur] = (" ".join(m.group(1).split()), data)
    for line in proc.stderr.splitlines():
        m = _DIAG.match(line)
        if m and int(m.group(2)) == 1 and int(m.group(1)) % 2 == 1:
            first[(int(m.group(1)) - 1) // 2] = None  # no valid instruction at the start of that input
    if proc.returncode != 0 and "Stack dump" in proc.stderr and cur < len(words):
        first[cur] = CRASH
        first[cur + 1 :] = disassemble(words[cur + 1 :], mcpu)
    return first
