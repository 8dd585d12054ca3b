"""Driving llvm-mc (LLVM's assembler/disassembler) as an oracle, in batches.

One llvm-mc process handles a whole batch of lines (or words); results are
read back from its listing.  ``tool()`` is None when llvm-mc is absent; the
tests then call ``tests.oracles.missing``.
"""

from __future__ import annotations

import re
import subprocess

from . import find_tool

TRIPLE = "aarch64"
MATTR = "+dotprod,+i8mm,+sve,+sve2p1,+sme2,+sme-i16i64"
_ENCODED = re.compile(r"^\s+([a-z][a-z0-9.]*)\s+(.*?)\s*// encoding: \[([^\]]*)\]\s*$")
_DIAG = re.compile(r"^<stdin>:(\d+):(\d+): error: (.*)$")


def tool() -> str | None:
    return find_tool("INTDOT_LLVM_MC", "llvm-mc-19", "llvm-mc")


def _run(args: list[str], stdin: str) -> subprocess.CompletedProcess:
    exe = tool()
    if exe is None:
        raise FileNotFoundError("llvm-mc")
    return subprocess.run(
        [exe, f"-triple={TRIPLE}", f"-mattr={MATTR}", *args], input=stdin, capture_output=True, text=True, timeout=120
    )


def _text(mnemonic: str, operands: str) -> str:
    return f"{mnemonic} {operands.strip()}"


def assemble(lines: list[str]) -> list[tuple[str, int]]:
    """(canonical text, word) of every line; raises if llvm-mc rejects any of them."""
    proc = _run(["-show-encoding"], "\n".join(lines) + "\n")
    errors = [m.groups() for m in map(_DIAG.match, proc.stderr.splitlines()) if m]
    if proc.returncode or errors:
        raise AssertionError(f"llvm-mc rejected {len(errors)} line(s): {errors[:3]}\n{proc.stderr[:2000]}")
    out = []
    for line in proc.stdout.splitlines():
        m = _ENCODED.match(line)
        if m:
            data = [int(b, 16) for b in m.group(3).split(",")]
            out.append((_text(m.group(1), m.group(2)), int.from_bytes(bytes(data), "little")))
    if len(out) != len(lines):
        raise AssertionError(f"llvm-mc gave {len(out)} results for {len(lines)} lines:\n{proc.stdout[:2000]}")
    return out


_NOP = 0xD503201F


def assemble_each(lines: list[str]) -> list[tuple[str, int] | None]:
    """(canonical text, word) of every line, or None for a line that holds no
    instruction (a comment, say); raises if llvm-mc rejects any line.  Each line
    is followed by a ``nop``, which tells the lines apart in llvm-mc's listing."""
    proc = _run(["-show-encoding"], "".join(f"{line}\nnop\n" for line in lines))
    errors = [m.groups() for m in map(_DIAG.match, proc.stderr.splitlines()) if m]
    if proc.returncode or errors:
        raise AssertionError(f"llvm-mc rejected {len(errors)} line(s): {errors[:3]}\n{proc.stderr[:2000]}")
    out: list[tuple[str, int] | None] = []
    current: list[tuple[str, int]] = []
    for line in proc.stdout.splitlines():
        m = _ENCODED.match(line)
        if not m:
            continue
        word = int.from_bytes(bytes(int(b, 16) for b in m.group(3).split(",")), "little")
        if word == _NOP and m.group(1) == "nop":
            if len(current) > 1:
                raise AssertionError(f"llvm-mc made {len(current)} instructions of line {len(out)}")
            out.append(current[0] if current else None)
            current = []
        else:
            current.append((_text(m.group(1), m.group(2)), word))
    if len(out) != len(lines):
        raise AssertionError(f"llvm-mc gave {len(out)} results for {len(lines)} lines")
    return out


def rejections(lines: list[str]) -> dict[int, list[tuple[int, str]]]:
    """{0-based line index: [(column, message), ...]} of the lines llvm-mc reports errors for."""
    proc = _run(["-show-encoding"], "\n".join(lines) + "\n")
    found: dict[int, list[tuple[int, str]]] = {}
    for m in map(_DIAG.match, proc.stderr.splitlines()):
        if m:
            found.setdefault(int(m.group(1)) - 1, []).append((int(m.group(2)), m.group(3)))
    return found


def disassemble(words: list[int]) -> list[str]:
    """llvm-mc's text of every word (``<invalid>`` for a word it cannot decode)."""
    stdin = "\n".join(",".join(f"{b:#04x}" for b in w.to_bytes(4, "little")) for w in words) + "\n"
    proc = _run(["--disassemble"], stdin)
    texts = []
    invalid_lines = {
        int(m.group(1))
        for m in (re.match(r"^<stdin>:(\d+):\d+: warning: invalid instruction", s) for s in proc.stderr.splitlines())
        if m
    }
    listing = [s for s in proc.stdout.splitlines() if s.startswith("\t") and not s.startswith("\t.")]
    it = iter(listing)
    for k in range(len(words)):
        if k + 1 in invalid_lines:
            texts.append("<invalid>")
            continue
        line = next(it).strip()
        mnemonic, _, ops = line.partition("\t")
        texts.append(_text(mnemonic, ops))
    return texts
