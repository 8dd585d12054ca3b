"""``intdot disasm`` reads binaries a block of words at a time (issue 15 item 1): its memory must
not grow with the file, and its output must not depend on where the blocks end.

Before, a 28 MB library took 1.08 GB (``--only-dot``) and 2.07 GB (the listing); the memory
tests run ``intdot`` in a new process on objects clang-19 builds and compare the peak
resident memory (``ru_maxrss``) for a small and a large one.  The block tests list the
same objects with blocks of 1, 2, 3, 5 and 7 words, so that every symbol, every dot
instruction and every data word falls on a block boundary somewhere, and compare with
the listing in one block and with llvm-objdump-19.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from intdot.cli import arm_disasm
from tests.cli.disasm_oracle import assert_same_listing, build, intdot_records, objdump_records, tool

MARCH = "-march=armv9.2-a+sme2+i8mm+sme-i16i64"
BLOCK_CODE = """\
add x0, x1, x2
ldr x3, [x4, #8]
sdot v0.4s, v1.16b, v2.16b
str x8, [sp, #16]
eor w9, w10, w11
udot z0.s, z1.b, z2.b
madd x1, x2, x3, x4
usdot v3.4s, v4.16b, v5.4b[1]
"""


def big_object(tmp_path, mb: int, function_kb: int = 16):
    """An object of ``mb`` MB of code (a function every ``function_kb`` KB): one block of code, assembled by
    clang-19, included again and again; the mapping symbols that would call it data are stripped."""
    block = tmp_path / "block.o"
    build(BLOCK_CODE, block, MARCH, "-c", suffix=".s")
    raw = tmp_path / "block.bin"
    subprocess.run([tool("llvm-objcopy-19"), "-O", "binary", "--only-section=.text", block, raw], check=True)
    code = raw.read_bytes()
    size = function_kb << 10
    (tmp_path / "code.bin").write_bytes((code * (size // len(code) + 1))[:size])
    lines = [".text"]
    for i in range((mb << 20) // size):
        lines += [f".globl fn{i}", f".type fn{i},%function", f"fn{i}:", '.incbin "code.bin"']
    src = tmp_path / f"big{mb}.s"
    src.write_text("\n".join(lines) + "\n")
    obj, out = tmp_path / f"big{mb}-raw.o", tmp_path / f"big{mb}.o"
    subprocess.run([tool("clang-19"), "--target=aarch64-linux-gnu", "-c", src, "-o", obj], cwd=tmp_path, check=True)
    subprocess.run(
        [tool("llvm-objcopy-19"), "--wildcard", "--strip-symbol=$d*", "--strip-symbol=$x*", obj, out], check=True
    )
    return out


# Runs `python -m intdot ARGS` and reports the process's own peak resident memory (VmHWM) on stderr at exit.
# (ru_maxrss from wait4 would not do: Linux starts a child's count from its parent's size at the fork, and
# pytest's process may be larger than the child measured.)
_PEAK_CHILD = """
import atexit, runpy, sys
def peak():
    with open("/proc/self/status") as f:
        sys.stderr.write(next(line for line in f if line.startswith("VmHWM:")))
atexit.register(peak)
sys.argv = ["intdot", *sys.argv[1:]]
runpy.run_module("intdot", run_name="__main__")
"""


def peak_mb(*argv) -> float:
    """The peak resident memory (MB) of ``intdot disasm ARGV`` in a new process, its output thrown away."""
    if not os.path.exists("/proc/self/status"):
        pytest.skip("peak memory is read from /proc/self/status (Linux)")
    done = subprocess.run(
        [sys.executable, "-c", _PEAK_CHILD, "disasm", *map(str, argv)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=True,
    )
    return int(done.stderr.split("VmHWM:")[1].split()[0]) / 1024


def _memory_does_not_grow(tmp_path, small_mb: int, big_mb: int, *flags: str):
    small, big = big_object(tmp_path, small_mb), big_object(tmp_path, big_mb)
    grown = peak_mb("-f", big, *flags) - peak_mb("-f", small, *flags)
    file_grown = (os.path.getsize(big) - os.path.getsize(small)) / 2**20
    # Before: about 40 MB more for each MB of file (--only-dot), 75 MB for the listing.
    assert grown < file_grown / 4, (flags, grown, file_grown)


def test_memory_does_not_grow_with_the_file(tmp_path):
    _memory_does_not_grow(tmp_path, 1, 16, "--only-dot")


@pytest.mark.slow
@pytest.mark.parametrize("flags", [(), ("--json",), ("--stats",)])
def test_memory_does_not_grow_with_the_file_whatever_the_output(tmp_path, flags):
    _memory_does_not_grow(tmp_path, 2, 64, *flags)


SOURCE = r"""
.text
  sdot v0.4s, v1.16b, v2.16b
.globl f
.type f,%function
f:
  sudot z0.s, z1.b, z2.b[3]
  ret
  .word 0x44ba1c20
  .word 0x11223344
g:
  sdot v0.4s, v1.16b, v2.16b
  udot z0.s, z1.b, z2.b
.globl h
.type h,%function
h:
  nop
  usdot v3.4s, v4.16b, v5.4b[1]
  .word 0x4e829420
  sudot za.s[w8, 0, vgx2], {z0.b, z1.b}, z2.b[1]
  ret
.section .text.two,"ax",%progbits
.globl k
.type k,%function
k:
  udot v0.4s, v1.16b, v2.16b
  nop
.globl k2
.type k2,%function
k2:
  sdot z4.d, z5.h, z6.h[1]
"""


@pytest.fixture(scope="module")
def small_object(tmp_path_factory):
    obj = tmp_path_factory.mktemp("blocks") / "s.o"
    build(SOURCE, obj, MARCH, "-c", suffix=".s")
    return obj


OUTPUTS = [
    (),
    ("--only-dot",),
    ("--json",),
    ("--only-dot", "--json"),
    ("--stats",),
    ("--fields",),
    ("--json", "--fields"),
    ("--only-dot", "--fields"),
]


@pytest.mark.parametrize("flags", OUTPUTS, ids=lambda f: " ".join(f) or "listing")
def test_output_does_not_depend_on_the_blocks(cli, small_object, monkeypatch, flags):
    whole = cli("disasm", "-f", small_object, *flags)
    assert whole[0] == 0 and whole[1]
    for block in (1, 2, 3, 5, 7):
        monkeypatch.setattr(arm_disasm, "BLOCK", block)
        assert cli("disasm", "-f", small_object, *flags) == whole, block


@pytest.mark.parametrize("block", [1, 3, 7])
def test_small_blocks_list_what_objdump_lists(cli, small_object, monkeypatch, block):
    monkeypatch.setattr(arm_disasm, "BLOCK", block)
    theirs = objdump_records(small_object)
    assert [r["symbol"] for r in theirs][:3] == [".text", "f", "f"]  # the section's start, then f
    assert_same_listing(intdot_records(cli, "-f", small_object), theirs)


def test_a_file_of_many_blocks_lists_what_objdump_lists(cli, tmp_path):
    """Four blocks of the default size, and symbols that do not start on a block's first word."""
    obj = big_object(tmp_path, 1, function_kb=12)
    theirs = objdump_records(obj)
    assert len(theirs) > 3 * arm_disasm.BLOCK
    assert_same_listing(intdot_records(cli, "-f", obj), theirs)
    rc, out, _ = cli("disasm", "-f", obj, "--only-dot")
    assert rc == 0 and out.count(":\n") == 1 + (1 << 20) // (12 << 10)  # the section, each function
