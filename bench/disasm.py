"""``intdot disasm -f`` on large AArch64 binaries against llvm-objdump-19 -d: time and peak memory.

Each binary is listed by ``llvm-objdump-19 -d``, by ``intdot disasm -f`` (the
full listing) and by ``intdot disasm -f --only-dot``, interleaved, each in a
fresh process writing to /dev/null; the time is wall-clock, the memory the
process's peak resident set (``ru_maxrss`` from ``wait4``).  Targets (issue
15): intdot's peak memory at most 300 MB and flat in the file's size, the
full listing no slower than llvm-objdump-19, ``--only-dot`` at least twice as
fast.  ``--json`` is measured too, for information.

The generated binaries are shared objects that clang-19 assembles and
ld.lld-19 links: functions of 0.5 to 4 KB of ordinary code (loads, stores,
arithmetic, branches, NEON and SVE) with a dot-product instruction in about
one word of 200, most of them local (in ``.symtab`` only), every eighth
exported.  The code of each function is an ``.incbin`` of one assembled
block, so that building 300 MB takes seconds; the assembler's mapping
symbols (which would call that code data) are stripped.

Real libraries are given with ``--real PATH`` (for instance the aarch64
onnxruntime wheel's ``libonnxruntime.so``: ``pip download --no-deps
--platform manylinux_2_28_aarch64 --python-version 3.12 --only-binary=:all:
onnxruntime`` and unzip it); ``--check`` also compares intdot's listing with
objdump's, word by word.

    python bench/disasm.py                       # generated 30 and 120 MB objects
    python bench/disasm.py --sizes 30,300 --real libonnxruntime.so.1.32.0 --check
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from itertools import zip_longest

TARGET_RSS_MB = 300
BLOCK = """\
add x0, x1, x2
ldr x3, [x4, #8]
str x8, [sp, #16]
eor w9, w10, w11
madd x1, x2, x3, x4
cbz x0, 0x40
ldp x29, x30, [sp], #16
fmla v0.4s, v1.4s, v2.4s
ld1b {{ z0.b }}, p0/z, [x0]
mov x0, #{k}
cmp x1, x2
b.ne 0x20
"""
DOTS = (
    "sdot v0.4s, v1.16b, v2.16b",
    "udot z0.s, z1.b, z2.b",
    "usdot v3.4s, v4.16b, v5.4b[1]",
    "sdot z4.d, z5.h, z6.h[1]",
)


def tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        sys.exit(f"bench/disasm.py needs {name} (LLVM 19)")
    return path


def build(size_mb: int, tmp: str) -> str:
    """A shared object of about ``size_mb`` MB of code; its path."""
    clang = tool("clang-19")
    lines = [".text"]
    for k in range(68):  # 68 x 12 ordinary instructions and 4 dot instructions: 1 word in 205
        lines += BLOCK.format(k=k).splitlines()
        if k % 17 == 16:
            lines.append(DOTS[k // 17])
    src = os.path.join(tmp, "block.s")
    with open(src, "w") as f:
        f.write("\n".join(lines) + "\n")
    obj = os.path.join(tmp, "block.o")
    march = "-march=armv9.2-a+sve2+i8mm"
    subprocess.run([clang, "--target=aarch64-linux-gnu", march, "-c", src, "-o", obj], check=True)
    block = os.path.join(tmp, "block.bin")
    subprocess.run([tool("llvm-objcopy-19"), "-O", "binary", "--only-section=.text", obj, block], check=True)
    with open(block, "rb") as f:
        code = f.read()
    with open(os.path.join(tmp, "code.bin"), "wb") as f:
        f.write((code * (4096 // len(code) + 1))[:4096])
    sizes = (512, 1024, 2048, 4096, 1536, 3072)
    lines, total, i = [".text"], 0, 0
    while total < size_mb << 20:
        n = sizes[i % len(sizes)]
        if i % 8 == 0:
            lines.append(f".globl fn{i}")
        lines += [f".type fn{i},%function", f"fn{i}:", f'.incbin "code.bin", 0, {n}']
        total += n
        i += 1
    big = os.path.join(tmp, f"big{size_mb}.s")
    with open(big, "w") as f:
        f.write("\n".join(lines) + "\n")
    raw, obj = os.path.join(tmp, "big.o"), os.path.join(tmp, "big-code.o")
    subprocess.run([clang, "--target=aarch64-linux-gnu", "-c", big, "-o", raw], cwd=tmp, check=True)
    strip = [tool("llvm-objcopy-19"), "--wildcard", "--strip-symbol=$d*", "--strip-symbol=$x*", raw, obj]
    subprocess.run(strip, check=True)
    lib = os.path.join(tmp, f"libbig{size_mb}.so")
    link = [clang, "--target=aarch64-linux-gnu", "-fuse-ld=lld", "-shared", "-nostdlib", obj, "-o", lib]
    subprocess.run(link, check=True)
    for p in (raw, obj, big):
        os.remove(p)
    return lib


def measure(argv: list[str]) -> tuple[float, float]:
    """Wall seconds and peak resident MB of one run, its output thrown away.  The kernel counts a
    child's peak from its parent's size when it was forked: this process stays small (about 12 MB)."""
    t = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - t
    proc.returncode = status = os.waitstatus_to_exitcode(status)
    if status != 0:
        sys.exit(f"{' '.join(argv)} failed (status {status})")
    return elapsed, usage.ru_maxrss / 1024


def listing_records(lines):
    """(section, address, symbol, word, text) of each word line of a listing, read as it comes."""
    section = symbol = None
    for line in lines:
        if line.startswith("Disassembly of section "):
            section = line.split()[-1].rstrip(":")
            continue
        m = re.match(r"^[0-9a-f]+ <(.+)>:$", line)
        if m:
            symbol = m[1]
            continue
        m = re.match(r"^\s*([0-9a-f]+):\s+([0-9a-f]{8}|(?:[0-9a-f]{2} ){3}[0-9a-f]{2})\s+(.*)$", line)
        if m:
            enc = m[2]
            word = int(enc, 16) if " " not in enc else int.from_bytes(bytes.fromhex(enc.replace(" ", "")), "little")
            yield section, int(m[1], 16), symbol, word, " ".join(m[3].replace("\t", " ").split())


def check(path: str, intdot: list[str]) -> str:
    """Whether intdot's listing has objdump's addresses, symbols and words, and its text for every dot
    instruction: both listings are read as they are written, a line at a time."""
    runs = [
        subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
        for cmd in ([tool("llvm-objdump-19"), "-d", path], [*intdot, path])
    ]
    words = dots = 0
    verdict = None
    sentinel = object()
    for t, m in zip_longest(*(listing_records(r.stdout) for r in runs), fillvalue=sentinel):
        if t is sentinel or m is sentinel:
            verdict = f"DIFFERENT: the listings end at different words (after {words})"
            break
        decoded = not m[4].startswith(".")
        words, dots = words + 1, dots + decoded
        if t[:4] != m[:4] or (decoded and t[4] != m[4]) or (m[4].startswith(".word") != t[4].startswith(".word")):
            verdict = f"DIFFERENT at {m[1]:#x}: objdump {t}, intdot {m}"
            break
    for r in runs:
        r.stdout.close()
        r.kill()
        r.wait()
    return verdict or f"identical: {words} words, {dots} dot instructions with LLVM's text"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="30,120", help="sizes in MB of the generated objects (default 30,120)")
    p.add_argument("--real", action="append", default=[], metavar="PATH", help="a real AArch64 library too")
    p.add_argument("--repeats", type=int, default=1, help="runs of each command; the best is shown (default 1)")
    p.add_argument("--json", action="store_true", help="also time intdot disasm --json")
    p.add_argument("--check", action="store_true", help="also compare intdot's listing with objdump's")
    args = p.parse_args(argv)
    objdump = tool("llvm-objdump-19")
    intdot = [sys.executable, "-m", "intdot", "disasm", "-f"]
    commands = {
        "objdump -d": [objdump, "-d"],
        "intdot": intdot,
        "intdot --only-dot": [*intdot[:-1], "--only-dot", "-f"],
    }
    if args.json:
        commands["intdot --json"] = [*intdot[:-1], "--json", "-f"]
    all_met = True
    with tempfile.TemporaryDirectory() as tmp:
        files = [build(int(s), tmp) for s in args.sizes.split(",") if s] + args.real
        print(f"{'file':34} {'MB':>6} {'command':18} {'seconds':>8} {'peak MB':>8} {'time / objdump':>15}")
        for path in files:
            size = os.path.getsize(path) / 2**20
            best: dict = {}
            for _ in range(args.repeats):
                for name, cmd in commands.items():  # interleaved: each repeat runs every command once
                    t, rss = measure([*cmd, path])
                    old = best.get(name)
                    best[name] = (t, rss) if old is None else (min(old[0], t), min(old[1], rss))
            base = best["objdump -d"][0]
            for name, (t, rss) in best.items():
                goal, met = "", True
                if name == "intdot":
                    met = t <= base and rss <= TARGET_RSS_MB
                    goal = f"(target <= 1, <= {TARGET_RSS_MB} MB) {'yes' if met else 'NO'}"
                elif name == "intdot --only-dot":
                    met = t <= base / 2 and rss <= TARGET_RSS_MB
                    goal = f"(target <= 0.5, <= {TARGET_RSS_MB} MB) {'yes' if met else 'NO'}"
                all_met &= met
                label = os.path.basename(path)[:34]
                print(f"{label:34} {size:6.1f} {name:18} {t:8.2f} {rss:8.1f} {t / base:15.2f} {goal}", flush=True)
        # After every measurement: a child's peak memory as the kernel reports it starts from its parent's.
        if args.check:
            for path in files:
                print(f"  {os.path.basename(path)}: {check(path, intdot)}", flush=True)
    print()
    print("all targets met" if all_met else "some targets NOT met")
    return 0 if all_met else 1


if __name__ == "__main__":
    sys.exit(main())
