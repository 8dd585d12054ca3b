"""Stripped libraries and C++ names (issue 15 item 3).

A library with only dynamic symbols had every dot instruction counted in one exported
function, without a word of warning.  The code of a stripped library is named as
llvm-objdump-19 names it: its dynamic symbols, its PLT entries (``realloc@plt``) and the
starts of its sections (``<.plt>``); ``--stats`` says that the file has no static symbols
and what its per-function figures then mean; ``--demangle`` / ``-C`` shows C++ names as
``llvm-objdump-19 -C`` does.  The libraries are built by clang-19 and ld.lld-19 and
stripped by llvm-objcopy-19; objdump is the oracle of every name."""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from tests.cli.disasm_oracle import assert_same_listing, build, intdot_records, objdump_records, tool

MARCH = "-march=armv8.6-a+sve+i8mm"
CPP = r"""
#include <arm_neon.h>
namespace ns {
template <typename T> struct K {
  static int32x4_t run(int32x4_t a, int8x16_t b, int8x16_t c) { return vdotq_s32(a, b, c); }
};
}
extern "C" void *realloc(void *, unsigned long);
// Not exported: in a stripped library its code has no name of its own.
__attribute__((visibility("hidden"), noinline)) uint32x4_t hidden_dot(uint32x4_t a, uint8x16_t b, uint8x16_t c) {
  return vdotq_u32(a, b, c);
}
int32x4_t use(int32x4_t a, int8x16_t b, int8x16_t c) { return ns::K<int>::run(a, b, c); }
uint32x4_t exported(uint32x4_t a, uint8x16_t b, uint8x16_t c) { return hidden_dot(a, b, c); }
void *grow(void *p) { return realloc(p, 100); }
int32x4_t (*keep)(int32x4_t, int8x16_t, int8x16_t) = &ns::K<long>::run;
"""


@pytest.fixture(scope="module")
def libs(tmp_path_factory):
    d = tmp_path_factory.mktemp("stripped")
    obj, lib, stripped = d / "c.o", d / "libc.so", d / "libc-stripped.so"
    build(CPP, obj, MARCH, "-O2", "-fno-inline", "-c", suffix=".cpp")
    build(CPP, lib, MARCH, "-O2", "-fno-inline", "-fPIC", "-shared", "-nostdlib", "-fuse-ld=lld", suffix=".cpp")
    subprocess.run([tool("llvm-objcopy-19"), "--strip-all", lib, stripped], check=True)
    return {"object": obj, "shared": lib, "stripped": stripped}


@pytest.mark.parametrize("kind", ["shared", "stripped"])
def test_plt_entries_and_section_starts_are_named_as_objdump_names_them(cli, libs, kind):
    theirs = objdump_records(libs[kind])
    names = {r["symbol"] for r in theirs}
    assert {"realloc@plt", ".plt"} <= names  # what the test is about: objdump names them so
    assert_same_listing(intdot_records(cli, "-f", libs[kind]), theirs)


def test_stats_of_a_stripped_library_say_what_the_counts_mean(cli, libs):
    rc, out, err = cli("disasm", "-f", libs["stripped"], "--stats")
    assert rc == 0
    assert err.startswith(f"intdot disasm: note: {libs['stripped']} has no static symbols")
    assert "a function it does not export is counted under the exported one before it" in err
    assert err.count("\n") == 1
    rc, out, err = cli("disasm", "-f", libs["stripped"], "--stats", "--json")
    stats = json.loads(out)
    assert stats["symbols"] == {str(libs["stripped"]): "dynamic"}
    # hidden_dot's udot is counted under the exported symbol before it, as objdump's listing places it.
    theirs = objdump_records(libs["stripped"])
    udot = next(r for r in theirs if r["text"].startswith("udot"))
    assert udot["symbol"] != "hidden_dot" and stats["functions"][udot["symbol"]] == {"udot_neon_vec_128": 1}
    rc, out, err = cli("disasm", "-f", libs["shared"], "--stats", "--json")
    assert json.loads(out)["symbols"] == {str(libs["shared"]): "static"} and err == ""
    assert json.loads(out)["functions"]["_Z10hidden_dot12__Uint32x4_t12__Uint8x16_tS0_"] == {"udot_neon_vec_128": 1}


@pytest.mark.parametrize("kind", ["object", "shared", "stripped"])
def test_demangle_matches_objdump_c(cli, libs, kind):
    theirs = objdump_records(libs[kind], "-C")
    assert "ns::K<int>::run(__Int32x4_t, __Int8x16_t, __Int8x16_t)" in {r["symbol"] for r in theirs}
    for flag in ("--demangle", "-C"):
        assert_same_listing(intdot_records(cli, "-f", libs[kind], flag), theirs)


def test_demangled_names_in_the_listing_and_stats(cli, libs):
    rc, out, _ = cli("disasm", "-f", libs["object"], "--only-dot", "-C")
    assert rc == 0 and "<ns::K<int>::run(__Int32x4_t, __Int8x16_t, __Int8x16_t)>:\n" in out
    rc, out, _ = cli("disasm", "-f", libs["object"], "--stats", "-C")
    assert re.search(r"^hidden_dot\(__Uint32x4_t, __Uint8x16_t, __Uint8x16_t\) +udot_neon_vec_128 +1$", out, re.M)


def test_a_missing_demangler_is_a_one_line_error(cli, libs, monkeypatch, tmp_path):
    monkeypatch.delenv("INTDOT_CXXFILT", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    rc, out, err = cli("disasm", "-f", libs["object"], "--demangle")
    assert rc == 1 and out == "" and err.count("\n") == 1
    assert "--demangle needs a C++ demangler" in err and "llvm-cxxfilt" in err
    monkeypatch.setenv("INTDOT_CXXFILT", "no-such-demangler")
    rc, _, err = cli("disasm", "-f", libs["object"], "-C")
    assert rc == 1 and "INTDOT_CXXFILT='no-such-demangler' is not an executable" in err
