"""``intdot disasm -f libfoo.a`` (issue 15 item 2): static libraries read as llvm-objdump-19 -d reads
them, member by member, each named ``libfoo.a(member.o)``, with its symbols; and ``--raw`` on an
ELF file or an archive says what the file is and that every byte of it is read as code.

Before, an archive was "not a text file ...; for a raw binary add --raw", and --raw then
decoded its headers as instructions without a word.  The archives are built by llvm-ar-19
(GNU, BSD and thin formats) and GNU ar from objects clang-19 compiles; llvm-objdump-19 is
the oracle of every record."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from tests.cli.disasm_oracle import assert_same_listing, build, intdot_records, objdump_records, tool

MARCH = "-march=armv8.6-a+sve+i8mm"
A = """
#include <arm_neon.h>
int32x4_t fa(int32x4_t a, int8x16_t b, int8x16_t c) { return vdotq_s32(a, b, c); }
static int helper(int x) { return x * 3; }
int ga(int x) { return helper(x) + 1; }
"""
B = """
#include <arm_neon.h>
#include <arm_sve.h>
uint32x4_t fb(uint32x4_t a, uint8x16_t b, uint8x16_t c) { return vdotq_u32(a, b, c); }
svint32_t sb(svint32_t a, svuint8_t b, svint8_t c) { return svusdot_s32(a, b, c); }
"""
LONG = "a_member_name_longer_than_sixteen_characters.o"


@pytest.fixture(scope="module")
def objects(tmp_path_factory):
    d = tmp_path_factory.mktemp("ar")
    build(A, d / "a.o", MARCH, "-O2", "-c")
    build(B, d / "b.o", MARCH, "-O2", "-c")
    (d / "sub").mkdir()
    shutil.copy(d / "b.o", d / "sub" / LONG)
    (d / "notes.txt").write_text("not an object file\n")
    return d


def _archive(objects, name: str, *members: str, ar: str = "llvm-ar-19", flags: tuple = ()):
    path = objects / name
    path.unlink(missing_ok=True)
    subprocess.run([tool(ar), "rc", *flags, path, *members], cwd=objects, check=True)
    return path


KINDS = {
    "gnu": dict(flags=()),
    "bsd": dict(flags=("--format=bsd",)),
    "thin": dict(flags=("--thin",)),
    "binutils": dict(ar="aarch64-linux-gnu-ar"),
}


@pytest.mark.parametrize("kind", KINDS)
def test_archive_matches_llvm_objdump(cli, objects, kind):
    lib = _archive(objects, f"lib{kind}.a", "a.o", f"sub/{LONG}", "b.o", **KINDS[kind])
    theirs = objdump_records(lib)
    members = {r["file"] for r in theirs}
    long_name = f"sub/{LONG}" if kind == "thin" else LONG  # a thin archive keeps the path
    assert members == {f"{lib}(a.o)", f"{lib}(b.o)", f"{lib}({long_name})"}
    mine = intdot_records(cli, "-f", lib)
    assert_same_listing(mine, theirs)
    assert [r["symbol"] for r in mine if not r["text"].startswith(".")] == ["fa", "fb", "sb", "fb", "sb"]


def test_archive_listing_names_each_member(cli, objects):
    lib = _archive(objects, "libab.a", "a.o", "b.o")
    rc, out, _ = cli("disasm", "-f", lib, "--only-dot")
    assert rc == 0
    assert f"\n{lib}(a.o):\tfile format elf64-littleaarch64\n\nDisassembly of section .text:\n" in out
    assert f"\n{lib}(b.o):\tfile format elf64-littleaarch64\n" in out
    assert "\n0000000000000000 <fa>:\n       0: 4e829420  sdot v0.4s, v1.16b, v2.16b\n" in out
    rc, out, _ = cli("disasm", "-f", lib, "--stats", "--json")
    stats = json.loads(out)
    assert rc == 0 and stats["functions"] == {
        f"{lib}(a.o):fa": {"sdot_neon_vec_128": 1},
        f"{lib}(b.o):fb": {"udot_neon_vec_128": 1},
        f"{lib}(b.o):sb": {"usdot_sve_vec": 1},
    }
    assert stats["symbols"] == {f"{lib}(a.o)": "static", f"{lib}(b.o)": "static"}


def test_members_that_are_not_objects_are_passed_over(cli, objects):
    """As llvm-objdump: a text file in an archive is no error, and has no listing."""
    lib = _archive(objects, "libmixed.a", "a.o", "notes.txt")
    theirs = objdump_records(lib)
    assert {r["file"] for r in theirs} == {f"{lib}(a.o)"}
    assert_same_listing(intdot_records(cli, "-f", lib), theirs)
    only_text = _archive(objects, "libtext.a", "notes.txt")
    rc, _, err = cli("disasm", "-f", only_text)
    assert rc == 1 and "is an ar archive without AArch64 code" in err and err.count("\n") == 1


def test_broken_archives_are_one_line_errors(cli, objects, tmp_path):
    lib = _archive(objects, "libcut.a", "a.o", "b.o")
    cut = tmp_path / "cut.a"
    cut.write_bytes(lib.read_bytes()[:100])
    rc, _, err = cli("disasm", "-f", cut)
    assert rc == 1 and err.count("\n") == 1 and "cut.a" in err
    thin = _archive(objects, "libthin-gone.a", "sub/" + LONG, flags=("--thin",))
    moved = tmp_path / "elsewhere.a"
    shutil.copy(thin, moved)  # its member is a path relative to the archive: not there any more
    rc, _, err = cli("disasm", "-f", moved)
    assert rc == 1 and err.count("\n") == 1 and "No such file" in err


@pytest.mark.parametrize(
    "what, kind",
    [
        ("object", "an ELF relocatable object for EM_AARCH64"),
        ("archive", "an 'ar' archive"),
        ("thin", "a thin 'ar' archive"),
    ],
)
def test_raw_says_what_the_file_is(cli, objects, what, kind):
    path = {
        "object": objects / "a.o",
        "archive": _archive(objects, "libraw.a", "a.o"),
        "thin": _archive(objects, "librawthin.a", "a.o", flags=("--thin",)),
    }[what]
    rc, out, err = cli("disasm", "-f", path, "--raw", "--only-dot")
    assert rc == 0
    assert err.startswith(f"intdot disasm: note: {path} is {kind}")
    assert "--raw reads every byte from --offset on as a code word, its headers and data included" in err
    rc, out, err = cli("disasm", "-f", path)
    assert rc == 0 and "note:" not in err
