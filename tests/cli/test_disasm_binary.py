"""``intdot disasm`` on compiled AArch64 code: ELF objects, shared libraries and
executables that clang-19 builds here from C with ACLE intrinsics, their
``objdump -d`` listings, raw section bytes and llvm-mc output.

Oracles: the C source says which dot instructions each function holds;
llvm-objdump-19 gives every word's address, symbol and, for the dot
instructions, LLVM's text."""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from intdot.errors import IntdotError
from tests.cli.disasm_oracle import DOT, objdump_records, tool

MARCH = "-march=armv9.2-a+sme2+i8mm+sme-i16i64"
SOURCE = r"""
#include <arm_neon.h>
#include <arm_sve.h>
#include <arm_sme.h>
int32x4_t nsu(int32x4_t a, int8x16_t b, uint8x16_t c) { return vsudotq_laneq_s32(a, b, c, 2); }
int32x2_t nsu64(int32x2_t a, int8x8_t b, uint8x16_t c) { return vsudot_laneq_s32(a, b, c, 1); }
svint32_t ssu(svint32_t a, svint8_t b, svuint8_t c) { return svsudot_lane_s32(a, b, c, 3); }
void za(uint32_t slice, svint8x2_t zn, svuint8_t zm) __arm_streaming __arm_inout("za") {
  svsudot_lane_za32_s8_vg1x2(slice, zn, zm, 1);
  svsudot_single_za32_s8_vg1x4(slice, svcreate4(svget2(zn, 0), svget2(zn, 1), svget2(zn, 0), svget2(zn, 1)), zm);
}
int32x4_t nsd(int32x4_t a, int8x16_t b, int8x16_t c) { return vdotq_s32(a, b, c); }
uint32x2_t nud(uint32x2_t a, uint8x8_t b, uint8x8_t c) { return vdot_lane_u32(a, b, c, 1); }
int32x4_t nus(int32x4_t a, uint8x16_t b, int8x16_t c) { return vusdotq_s32(a, b, c); }
svint64_t ssd64(svint64_t a, svint16_t b, svint16_t c) { return svdot_s64(a, b, c); }
svint32_t sus(svint32_t a, svuint8_t b, svint8_t c) { return svusdot_s32(a, b, c); }
void zsd(uint32_t slice, svint8x2_t zn, svint8x2_t zm) __arm_streaming __arm_inout("za") {
  svdot_za32_s8_vg1x2(slice, zn, zm);
}
void zud64(uint32_t slice, svuint16x4_t zn, svuint16_t zm) __arm_streaming __arm_inout("za") {
  svdot_single_za64_u16_vg1x4(slice, zn, zm);
}
static int helper(int x) { return x * 3 + 1; }
int plain(int x) { return helper(x) ^ 5; }
"""
# What the source asks for, per function: the mnemonic and register kind of each dot instruction.
KNOWN = {
    "nsu": ["sudot v"],
    "nsu64": ["sudot v"],
    "ssu": ["sudot z"],
    "za": ["sudot za", "sudot za"],
    "nsd": ["sdot v"],
    "nud": ["udot v"],
    "nus": ["usdot v"],
    "ssd64": ["sdot z"],
    "sus": ["usdot z"],
    "zsd": ["sdot za"],
    "zud64": ["udot za"],
    "plain": [],
}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    clang, lld = tool("clang-19"), tool("ld.lld-19")
    del lld  # clang finds it through -fuse-ld=lld
    d = tmp_path_factory.mktemp("elf")
    (d / "k.c").write_text(SOURCE)
    base = [clang, "--target=aarch64-linux-gnu", MARCH, "-O2"]
    out = {"object": d / "k.o", "shared": d / "libk.so", "executable": d / "k.exe"}
    subprocess.run(base + ["-c", d / "k.c", "-o", out["object"]], check=True)
    subprocess.run(base + ["-fuse-ld=lld", "-nostdlib", "-shared", "-fPIC", d / "k.c", "-o", out["shared"]], check=True)
    subprocess.run(
        base + ["-fuse-ld=lld", "-nostdlib", "-static", "-Wl,-e,nsu", d / "k.c", "-o", out["executable"]], check=True
    )
    return out


def objdump(path) -> list[dict]:
    """llvm-objdump-19 -d as records: address, symbol, word, text (LLVM's, tabs made spaces)."""
    return objdump_records(path)


def ours(cli, *argv, stdin=None) -> list[dict]:
    rc, out, err = cli("disasm", *argv, "--json", stdin=stdin)
    assert rc == 0, err
    return json.loads(out)


@pytest.mark.parametrize("kind", ["object", "shared", "executable"])
def test_elf_matches_llvm_objdump(cli, built, kind):
    theirs = objdump(built[kind])
    mine = ours(cli, "-f", built[kind])
    assert [int(r["address"], 16) for r in mine] == [r["address"] for r in theirs]
    assert [r["symbol"] for r in mine] == [r["symbol"] for r in theirs]
    assert [int(r["word"], 16) for r in mine] == [r["word"] for r in theirs]
    for m, t in zip(mine, theirs):
        if not m["text"].startswith("."):  # intdot decoded it: LLVM's text, exactly
            assert DOT.match(t["text"]) and m["text"] == t["text"], (m, t)
        elif DOT.match(t["text"]):  # a dot instruction intdot did not decode: only if its table lacks the form
            from intdot.arm import assemble

            with pytest.raises(IntdotError):
                assemble(t["text"])


@pytest.mark.parametrize("kind", ["object", "shared", "executable"])
def test_dot_instructions_are_those_of_the_source(cli, built, kind):
    mine = ours(cli, "-f", built[kind], "--only-dot")
    found: dict = {}
    for r in mine:
        m = re.match(r"(\w+) (za|v|z)(?=[\d.])", r["text"])
        found.setdefault(r["symbol"], []).append(f"{m[1]} {m[2]}")
    assert found == {fn: v for fn, v in KNOWN.items() if v}


def test_stats_per_function(cli, built):
    rc, out, _ = cli("disasm", "-f", built["object"], "--stats", "--json")
    stats = json.loads(out)
    assert rc == 0 and stats["dot"] == 12
    assert {fn: sum(forms.values()) for fn, forms in stats["functions"].items()} == {
        fn: len(v) for fn, v in KNOWN.items() if v
    }
    assert len(stats["functions"]["za"]) == 2  # two forms: indexed vgx2 and single vgx4
    rc, out, _ = cli("disasm", "-f", built["shared"], "--stats")
    assert out.splitlines()[0].startswith("12 dot instruction(s) in ")
    assert re.search(r"^za +\S+ +1$", out, re.M)


def test_text_listing_looks_like_objdump(cli, built):
    rc, out, _ = cli("disasm", "-f", built["object"])
    theirs = objdump(built["object"])
    assert rc == 0 and "Disassembly of section .text:" in out
    assert "\n0000000000000000 <nsu>:\n" in out
    shown = [t for t in theirs if DOT.match(t["text"]) and f"  {t['text']}\n" in out]
    assert len(shown) == 12  # every dot instruction of the source, on objdump's line: address, word, LLVM's text
    for t in shown:
        assert f"{t['address']:>8x}: {t['word']:08x}  {t['text']}\n" in out


def test_objdump_listing_as_input(cli, built, tmp_path):
    listing = subprocess.run(
        [tool("llvm-objdump-19"), "-d", built["shared"]], check=True, capture_output=True, text=True
    ).stdout
    from_listing = ours(cli, "-f", "-", stdin=listing)
    from_elf = ours(cli, "-f", built["shared"])
    assert from_listing == from_elf


def test_data_in_code_is_not_decoded(cli, tmp_path):
    clang = tool("clang-19")
    src = tmp_path / "d.s"
    src.write_text(
        ".text\n.globl f\n.type f,%function\nf:\n  sudot z0.s, z1.b, z2.b[3]\n  ret\n"
        "  .word 0x44ba1c20\ng:\n  sudot z0.s, z1.b, z2.b[1]\n"
    )
    obj = tmp_path / "d.o"
    subprocess.run([clang, "--target=aarch64-linux-gnu", MARCH, "-c", src, "-o", obj], check=True)
    mine = ours(cli, "-f", obj)
    assert [(r["address"], r["symbol"], r["text"]) for r in mine] == [
        ("0x0", "f", "sudot z0.s, z1.b, z2.b[3]"),
        ("0x4", "f", ".inst 0xd65f03c0"),
        ("0x8", "f", ".word 0x44ba1c20"),
        ("0xc", "g", "sudot z0.s, z1.b, z2.b[1]"),
    ]
    listing = subprocess.run([tool("llvm-objdump-19"), "-d", obj], check=True, capture_output=True, text=True).stdout
    assert [r["text"] for r in ours(cli, "-f", "-", stdin=listing)] == [r["text"] for r in mine]


def test_raw_section_bytes(cli, built, tmp_path):
    raw = tmp_path / "text.bin"
    subprocess.run([tool("llvm-objcopy-19"), "-O", "binary", "--only-section=.text", built["object"], raw], check=True)
    from_elf = ours(cli, "-f", built["object"])
    from_raw = ours(cli, "-f", raw, "--raw")
    assert [(r["address"], r["word"], r["text"]) for r in from_raw] == [
        (r["address"], r["word"], r["text"]) for r in from_elf
    ]
    data = raw.read_bytes()
    swapped = tmp_path / "be.bin"
    swapped.write_bytes(b"\xaa\xbb" + b"".join(data[i : i + 4][::-1] for i in range(0, len(data), 4)))
    from_be = ours(cli, "-f", swapped, "--raw", "--endian", "big", "--offset", "2")
    assert [r["text"] for r in from_be] == [r["text"] for r in from_raw]
    assert from_be[0]["address"] == "0x2"


def test_llvm_mc_output_as_input(cli):
    mc = tool("llvm-mc-19")
    text = "sudot z0.s, z1.b, z2.b[3]\nsudot v31.4s, v1.16b, v2.4b[3]\n"
    shown = subprocess.run(
        [mc, "-triple=aarch64", "-mattr=+sme2,+i8mm", "-show-encoding"],
        input=text,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert "encoding: [" in shown
    rc, out, _ = cli("disasm", "-f", "-", stdin=shown)
    assert rc == 0 and out.splitlines() == [
        "0x44ba1c20  sudot z0.s, z1.b, z2.b[3]",
        "0x4f22f83f  sudot v31.4s, v1.16b, v2.4b[3]",
    ]
    rc, out, _ = cli("disasm", "[0x20,0x1c,0xba,0x44]")
    assert rc == 0 and out == "0x44ba1c20  sudot z0.s, z1.b, z2.b[3]\n"


def test_llvm_mc_output_with_fixups(cli, tmp_path):
    """llvm-mc shows the bytes of an instruction with a fixup as 'A', 0x90'A' or 0b100101AA;
    such lines were dropped silently.  They give the word the object file holds."""
    mc = tool("llvm-mc-19")
    text = "sdot z0.s, z1.b, z2.b\nbl g\nadrp x0, sym\nldr x1, [x0, :lo12:sym]\nudot z0.s, z1.b, z2.b\n"
    base = [mc, "-triple=aarch64", "-mattr=+sve"]
    shown = subprocess.run([*base, "-show-encoding"], input=text, check=True, capture_output=True, text=True).stdout
    assert "encoding: [A," in shown and "'A'" in shown
    obj = tmp_path / "f.o"
    subprocess.run([*base, "-filetype=obj", "-o", obj], input=text, check=True, text=True)
    rc, out, err = cli("disasm", "-f", "-", "--mark", stdin=shown)
    assert rc == 0, err
    assert [line.split()[0] for line in out.splitlines()] == [f"0x{t['word']:08x}" for t in objdump(obj)]
    assert out.splitlines()[-1] == "0x44820420  udot z0.s, z1.b, z2.b"


def test_other_machines_and_broken_files(cli, built, tmp_path):
    rc, _, err = cli("disasm", "-f", "/bin/true")
    assert rc == 1 and "is an ELF file for EM_X86_64" in err
    cut = tmp_path / "cut.o"
    cut.write_bytes(built["object"].read_bytes()[:200])
    rc, _, err = cli("disasm", "-f", cut)
    assert rc == 1 and "is not a readable ELF file" in err and err.count("\n") == 1


def test_big_endian_elf_code_is_little_endian(cli, tmp_path):
    """In aarch64_be files instructions stay little-endian (A64 fetches them so); data follows the file."""
    clang = tool("clang-19")
    src = tmp_path / "be.s"
    src.write_text(".text\n.globl f\nf:\n  sdot v0.4s, v1.16b, v2.16b\n  ret\n  .word 0x11223344\n")
    obj = tmp_path / "be.o"
    subprocess.run(
        [clang, "--target=aarch64_be-linux-gnu", "-march=armv8.2-a+dotprod", "-c", src, "-o", obj], check=True
    )
    theirs = subprocess.run([tool("llvm-objdump-19"), "-d", obj], check=True, capture_output=True, text=True).stdout
    assert re.search(r"^\s+0: 4e829420 ", theirs, re.M) and ".word\t0x11223344" in theirs
    mine = ours(cli, "-f", obj)
    assert [(r["word"], r["text"]) for r in mine] == [
        ("0x4e829420", "sdot v0.4s, v1.16b, v2.16b"),
        ("0xd65f03c0", ".inst 0xd65f03c0"),
        ("0x11223344", ".word 0x11223344"),
    ]
    # llvm-objdump shows that data as bytes in file order ("11 22 33 44"): big-endian here.
    from_listing = ours(cli, "-f", "-", stdin=theirs)
    assert [(r["word"], r["text"]) for r in from_listing] == [(r["word"], r["text"]) for r in mine]


def test_listing_without_encodings_is_refused(cli, built):
    """A listing made with --no-show-raw-insn has no words: intdot must not drop its lines silently."""
    listing = subprocess.run(
        [tool("llvm-objdump-19"), "-d", "--no-show-raw-insn", built["object"]],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    first = next(n for n, line in enumerate(listing.splitlines(), 1) if re.match(r"^\s*0:", line))
    rc, out, err = cli("disasm", "-f", "-", stdin=listing)
    assert rc == 1 and out == ""
    assert err.startswith(f"intdot disasm: error: stdin, line {first}: '0: sudot v0.4s, v1.16b, v2.4b[2]'")
    assert "--no-show-raw-insn" in err and err.count("\n") == 1


def test_relocations_in_a_listing_are_not_words(cli, tmp_path):
    """objdump -dr interleaves relocation lines ("  4: R_AARCH64_JUMP26 g"), which hold no word."""
    (tmp_path / "r.c").write_text(
        "#include <arm_neon.h>\nint32x4_t g(int32x4_t);\n"
        "int32x4_t f(int32x4_t a, int8x16_t b, int8x16_t c) { return g(vdotq_s32(a, b, c)); }\n"
    )
    obj = tmp_path / "r.o"
    subprocess.run(
        [tool("clang-19"), "--target=aarch64-linux-gnu", MARCH, "-O2", "-c", tmp_path / "r.c", "-o", obj], check=True
    )
    objdump_tool = tool("llvm-objdump-19")
    plain = subprocess.run([objdump_tool, "-d", obj], check=True, capture_output=True, text=True).stdout
    with_relocs = subprocess.run([objdump_tool, "-dr", obj], check=True, capture_output=True, text=True).stdout
    assert "R_AARCH64_JUMP26" in with_relocs  # a tail call
    mine = ours(cli, "-f", "-", stdin=with_relocs)
    assert mine == ours(cli, "-f", "-", stdin=plain) == ours(cli, "-f", obj)
    assert [r["text"] for r in mine if not r["text"].startswith(".")] == ["sdot v0.4s, v1.16b, v2.16b"]


def test_aliases_are_named_as_llvm_objdump_names_them(cli, tmp_path):
    """Several symbols at one address (glibc's nl_langinfo_l and __nl_langinfo_l): intdot
    picked a function over a label, then the first name; llvm-objdump-19 shows the greatest."""
    src = tmp_path / "a.s"
    src.write_text(
        ".text\n.globl zz_f\n.type zz_f,%function\n.globl aa_f\n.type aa_f,%function\n"
        ".weak mm_f\n.type mm_f,%function\nzz_f:\naa_f:\nmm_f:\n  sdot v0.4s, v1.16b, v2.16b\n  ret\n"
        ".globl g\n.type g,%function\ng:\nlbl:\nzlbl:\n  udot v0.4s, v1.16b, v2.16b\n"
    )
    obj = tmp_path / "a.o"
    subprocess.run([tool("clang-19"), "--target=aarch64-linux-gnu", MARCH, "-c", src, "-o", obj], check=True)
    theirs = objdump(obj)
    assert [t["symbol"] for t in theirs] == ["zz_f", "zz_f", "zlbl"]
    assert [r["symbol"] for r in ours(cli, "-f", obj)] == [t["symbol"] for t in theirs]


def test_ifunc_symbols_name_their_code(cli, tmp_path):
    """glibc's memcpy, strlen, ... are STT_GNU_IFUNC symbols; objdump names their code after
    them (intdot counted it in the function before)."""
    src = tmp_path / "i.s"
    src.write_text(
        ".text\n.globl f\n.type f,%function\nf:\n  sdot v0.4s, v1.16b, v2.16b\n  ret\n"
        ".globl fast\n.type fast,%gnu_indirect_function\nfast:\n  udot v0.4s, v1.16b, v2.16b\n  ret\n"
    )
    obj = tmp_path / "i.o"
    subprocess.run([tool("clang-19"), "--target=aarch64-linux-gnu", MARCH, "-c", src, "-o", obj], check=True)
    theirs = objdump(obj)
    assert [t["symbol"] for t in theirs] == ["f", "f", "fast", "fast"]
    assert [r["symbol"] for r in ours(cli, "-f", obj)] == [t["symbol"] for t in theirs]
    rc, out, _ = cli("disasm", "-f", obj, "--stats")
    assert re.search(r"^fast +udot_neon_vec_128 +1$", out, re.M), out


@pytest.mark.parametrize("triple", ["arm64-apple-macos14", "aarch64-pc-windows-msvc"])
def test_mach_o_and_coff_objects_point_to_their_listing(cli, tmp_path, triple):
    """Apple and Windows objects were 'not UTF-8 text; for a raw binary add --raw'."""
    (tmp_path / "m.c").write_text('void f(void) { __asm__ volatile("sdot v0.4s, v1.16b, v2.16b"); }\n')
    obj = tmp_path / "m.o"
    subprocess.run(
        [tool("clang-19"), f"--target={triple}", "-march=armv8.4-a", "-O2", "-c", tmp_path / "m.c", "-o", obj],
        check=True,
    )
    rc, out, err = cli("disasm", "-f", obj)
    kind = "Mach-O file" if "apple" in triple else "COFF object"
    assert rc == 1 and f"is a {kind}" in err and f"llvm-objdump -d {obj} | intdot disasm -f -" in err
    listing = subprocess.run([tool("llvm-objdump-19"), "-d", obj], check=True, capture_output=True, text=True).stdout
    assert "sdot v0.4s, v1.16b, v2.16b" in [r["text"] for r in ours(cli, "-f", "-", stdin=listing)]


def test_a_file_given_as_a_word_gets_a_hint(cli, built, monkeypatch):
    monkeypatch.chdir(built["object"].parent)
    rc, _, err = cli("disasm", built["object"].name)
    assert rc == 1 and f"it names a file: read it with -f {built['object'].name}" in err


def test_sections_per_function_and_files_without_code(cli, tmp_path):
    clang = tool("clang-19")
    (tmp_path / "k.c").write_text(SOURCE)
    obj = tmp_path / "fs.o"
    subprocess.run(
        [clang, "--target=aarch64-linux-gnu", MARCH, "-O2", "-ffunction-sections", "-c", tmp_path / "k.c", "-o", obj],
        check=True,
    )
    theirs = objdump(obj)
    mine = ours(cli, "-f", obj)
    assert [(int(r["address"], 16), r["symbol"], int(r["word"], 16)) for r in mine] == [
        (t["address"], t["symbol"], t["word"]) for t in theirs
    ]
    assert {r["section"] for r in mine if r["symbol"] == "ssu"} == {".text.ssu"}
    (tmp_path / "d.c").write_text("int x = 5;\n")
    data = tmp_path / "d.o"
    subprocess.run([clang, "--target=aarch64-linux-gnu", "-c", tmp_path / "d.c", "-o", data], check=True)
    rc, _, err = cli("disasm", "-f", data)
    assert rc == 1 and "without code" in err


GNU_LISTING = """
k.o:     file format elf64-littleaarch64


Disassembly of section .text:

0000000000000000 <nsu>:
   0:\t4f22f83f \tsudot\tv31.4s, v1.16b, v2.4b[3]
   4:\td65f03c0 \tret

0000000000000008 <ssu>:
   8:\t44ba1c20 \tsudot\tz0.s, z1.b, z2.b[3]
   c:\td65f03c0 \tret
  10:\t11223344 \t.word\t0x11223344
"""


def test_gnu_objdump_listing(cli):
    """GNU objdump prints the word, a tab and the text (the words and texts are LLVM's, tests/data)."""
    mine = ours(cli, "-f", "-", stdin=GNU_LISTING)
    assert [(r["address"], r["symbol"], r["text"]) for r in mine] == [
        ("0x0", "nsu", "sudot v31.4s, v1.16b, v2.4b[3]"),
        ("0x4", "nsu", ".inst 0xd65f03c0"),
        ("0x8", "ssu", "sudot z0.s, z1.b, z2.b[3]"),
        ("0xc", "ssu", ".inst 0xd65f03c0"),
        ("0x10", "ssu", ".word 0x11223344"),
    ]
