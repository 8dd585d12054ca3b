"""llvm-objdump-19 as the oracle of ``intdot disasm`` on binaries: building AArch64 objects with
clang-19, and objdump's listing read back as records (file, section, address, symbol, word, text)."""

from __future__ import annotations

import json
import re
import subprocess

from tests.oracles import find_tool, missing

DOT = re.compile(r"^(sdot|udot|usdot|sudot)\s")


def tool(name: str) -> str:
    path = find_tool(f"INTDOT_{name.upper().replace('-', '_').replace('+', 'X')}", name)
    if path is None:
        missing(name, "install LLVM 19 (clang-19, lld-19, llvm-19), e.g. with scripts/install-oracles.sh")
    return path


def objdump_records(path, *flags: str) -> list[dict]:
    """``llvm-objdump-19 -d`` of ``path`` as records; ``file`` is set for an archive's members."""
    listing = subprocess.run(
        [tool("llvm-objdump-19"), "-d", *flags, str(path)], check=True, capture_output=True, text=True
    ).stdout
    out, file, section, symbol = [], None, None, None
    for line in listing.splitlines():
        m = re.match(r"^(.+\(.+\)):\s+file format ", line)
        if m:
            file = m[1]
            continue
        m = re.match(r"^Disassembly of section (\S+):$", line)
        if m:
            section, symbol = m[1], None
            continue
        m = re.match(r"^[0-9a-f]+ <(.+)>:$", line)
        if m:
            symbol = m[1]
            continue
        m = re.match(r"^\s*([0-9a-f]+):\s+([0-9a-f]{8}|(?:[0-9a-f]{2} ){3}[0-9a-f]{2})\s+(.*)$", line)
        if m:
            enc = m[2]
            word = int(enc, 16) if " " not in enc else int.from_bytes(bytes.fromhex(enc.replace(" ", "")), "little")
            out.append(
                {
                    "file": file,
                    "section": section,
                    "address": int(m[1], 16),
                    "symbol": symbol,
                    "word": word,
                    "text": " ".join(m[3].replace("\t", " ").split()),
                }
            )
    return out


def intdot_records(cli, *argv) -> list[dict]:
    """``intdot disasm ... --json`` as the same records."""
    rc, out, err = cli("disasm", *argv, "--json")
    assert rc == 0, err
    return [
        {
            "file": r.get("file"),
            "section": r["section"],
            "address": int(r["address"], 16),
            "symbol": r["symbol"],
            "word": int(r["word"], 16),
            "text": r["text"],
        }
        for r in json.loads(out)
    ]


def assert_same_listing(mine: list[dict], theirs: list[dict]) -> None:
    """Every word at objdump's address, under objdump's file, section and symbol; a word intdot
    decodes has LLVM's text, and data is data in both."""
    key = ("file", "section", "address", "symbol", "word")
    assert [tuple(r[k] for k in key) for r in mine] == [tuple(r[k] for k in key) for r in theirs]
    for m, t in zip(mine, theirs):
        if not m["text"].startswith("."):
            assert DOT.match(t["text"]) and m["text"] == t["text"], (m, t)
        assert m["text"].startswith(".word") == t["text"].startswith(".word"), (m, t)


def build(source: str, out, *flags: str, suffix: str = ".c") -> None:
    """Compile or assemble ``source`` for aarch64-linux-gnu with clang-19."""
    src = out.with_suffix(suffix)
    src.write_text(source)
    subprocess.run([tool("clang-19"), "--target=aarch64-linux-gnu", *flags, str(src), "-o", str(out)], check=True)


def json_listing(cli, *argv) -> list:
    rc, out, err = cli("disasm", *argv, "--json")
    assert rc == 0, err
    return json.loads(out)
