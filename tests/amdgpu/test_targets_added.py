"""The processors added from clang-19's list (gfx902, gfx904, gfx909, gfx90c) and clang-19's generic
targets (gfx9-generic, gfx10-1-generic, gfx10-3-generic, gfx11-generic, gfx12-generic), against clang-19
and llvm-mc-19 at test time: which dot builtins clang compiles and to what, which dot instructions llvm-mc
assembles and decodes, and random text and words on the generic targets that have dot instructions."""

from __future__ import annotations

import subprocess

import pytest

from intdot import amdgpu, catalog
from intdot.amdgpu.targets import LLVM_MC_KNOWS, PROCESSORS, check_mcpu, wave_sizes
from intdot.errors import IntdotError
from tests.amdgpu.test_clang import _check as _clang_check
from tests.amdgpu.test_llvm_mc import MNEMONICS2, MNEMONICS3, _compare_text, _compare_words
from tests.oracles import clang_amdgpu as clang
from tests.oracles import llvm_mc_amdgpu as mc
from tests.oracles import missing

pytestmark = pytest.mark.oracle

ADDED = ["gfx902", "gfx904", "gfx909", "gfx90c", "gfx9-generic", "gfx10-1-generic", "gfx10-3-generic",
         "gfx11-generic", "gfx12-generic"]  # fmt: skip
# A processor of the same generation whose dot encodings seed the words a processor without them is shown.
_SEED = {"gfx9": "gfx908", "gfx10": "gfx1030", "gfx11": "gfx1100", "gfx12": "gfx1200"}


@pytest.fixture(scope="module")
def llvm_mc():
    if mc.tool() is None:
        missing("llvm-mc-19 (AMDGPU)", "install the llvm-19 package")


@pytest.fixture(scope="module")
def clang19():
    if clang.tool() is None:
        missing("clang-19 (AMDGPU)", "install the clang-19 package")


def test_the_added_targets_are_listed():
    assert set(ADDED) <= set(PROCESSORS) and set(ADDED) <= LLVM_MC_KNOWS
    for p in ADDED:
        assert wave_sizes(p) == ((64,) if p.startswith("gfx9") else (32, 64))


def _compile_v6(source: str, mcpu: str) -> subprocess.CompletedProcess:
    """clang's compile of the oracle, for code object version 6: clang-19's backend emits the generic
    targets only there ("gfx11-generic is only available on code object version 6 or better")."""
    args = [clang.tool(), "-S", "-O2", "-nogpulib", "-target", "amdgcn-amd-amdhsa", f"-mcpu={mcpu}"]
    args += ["-mcode-object-version=6", "-x", "c", "-", "-o", "-"]
    return subprocess.run(args, input=clang.PRELUDE + source, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("mcpu", ADDED)
def test_builtins_lower_as_clang_compiles_them(clang19, mcpu, monkeypatch):
    """clang-19 compiles each builtin the table gives the target (to the instruction intdot says) and refuses
    the others for the feature intdot names."""
    monkeypatch.setattr(clang, "compile_c", _compile_v6)
    assert _clang_check(mcpu) > 0


def _ok(text: str, mcpu: str):
    try:
        return amdgpu.assemble(text, mcpu)
    except IntdotError as exc:
        return exc


@pytest.mark.parametrize("mcpu", ADDED)
def test_instructions_are_what_llvm_mc_assembles(llvm_mc, mcpu):
    lines = [f"{m} v0, v1, v2, v3" for m in MNEMONICS3] + [f"{m} v0, v1, v2" for m in MNEMONICS2]
    theirs = mc.assemble(lines, mcpu)
    for line, answer in zip(lines, theirs):
        mine = _ok(line, mcpu)
        assert isinstance(mine, bytes) == isinstance(answer, tuple), (mcpu, line, answer, mine)
        if isinstance(mine, bytes):
            assert mine == answer[1], (mcpu, line)
        assert catalog.available(line.split()[0], mcpu) == isinstance(answer, tuple), (mcpu, line)


@pytest.mark.parametrize("mcpu", [p for p in ADDED if amdgpu.targets.FEATURES[p]])
def test_random_text_and_words_match_llvm_mc(llvm_mc, mcpu):
    assert _compare_text(mcpu, 300, seed=ADDED.index(mcpu)) > 0
    assert _compare_words(mcpu, 400, seed=50 + ADDED.index(mcpu)) > 0


@pytest.mark.parametrize("mcpu", [p for p in ADDED if not amdgpu.targets.FEATURES[p]])
def test_dot_encodings_of_the_generation_decode_as_llvm_mc_decodes_them(llvm_mc, mcpu):
    """A processor without dot features decodes none of its generation's dot words, as llvm-mc."""
    like = _SEED[amdgpu.GENERATION[mcpu]]
    lines = [f"{m} v0, v1, v2, v3" for m in MNEMONICS3] + [f"{m} v0, v1, v2" for m in MNEMONICS2]
    words = [a[1] for a in mc.assemble(lines, like) if isinstance(a, tuple)]
    assert words
    for w, answer in zip(words, mc.disassemble(words, mcpu)):
        theirs = answer is not None and answer != mc.CRASH and answer[0].startswith("v_dot")
        mine = amdgpu.asm.decode_one(w.ljust(8, b"\0"), 0, mcpu)
        assert (mine is not None) == theirs, (mcpu, w.hex(), answer, mine)


def test_a_target_id_names_its_processor_for_the_instructions():
    assert check_mcpu("gfx9-generic:xnack+") == "gfx9-generic"
    assert amdgpu.assemble("v_dot4_i32_iu8 v0, v1, v2, v3", "gfx11-generic") == amdgpu.assemble(
        "v_dot4_i32_iu8 v0, v1, v2, v3", "gfx1100"
    )


def _llvm_mc_processors() -> list[str]:
    """The processor names llvm-mc-19 lists for amdgcn (``-mcpu=help``), aliases among them."""
    out = subprocess.run([mc.tool(), "--triple=amdgcn", "-mcpu=help"], capture_output=True, text=True, timeout=60)
    listing = (out.stdout + out.stderr).split("Available CPUs for this target:")[1].split("Available features")[0]
    return [line.split()[0] for line in listing.splitlines() if " - Select the " in line]


def test_every_llvm_mc_processor_is_modelled_or_refused_as_before_gfx9(llvm_mc):
    """Each processor llvm-mc knows is one of intdot's, or one before gfx9 that llvm-mc gives no dot instruction,
    which intdot refuses with that reason (not "did you mean gfx1103?")."""
    from intdot.amdgpu.targets import BEFORE_GFX9

    names = _llvm_mc_processors()
    assert len(names) > 40 and "gfx906" in names
    older = [p for p in names if p not in PROCESSORS and p not in ("generic", "generic-hsa")]  # no hardware
    assert sorted(older) == sorted(BEFORE_GFX9)
    lines = [f"{m} v0, v1, v2, v3" for m in MNEMONICS3] + [f"{m} v0, v1, v2" for m in MNEMONICS2]
    for mcpu in older:
        assert not [line for line, answer in zip(lines, mc.assemble(lines, mcpu)) if isinstance(answer, tuple)], mcpu
        with pytest.raises(IntdotError, match=f"mcpu='{mcpu}' is a processor before gfx9, which has no dot"):
            check_mcpu(mcpu)


def test_clang_compiles_no_dot_builtin_before_gfx9(clang19):
    """The builtins' side of the same refusal: clang-19 compiles none of the dot builtins for a processor before
    gfx9, and intdot.amd names that reason in both profiles."""
    from intdot.amd.builtins import BUILTINS
    from intdot.amd.targets import BEFORE_GFX9, canonical_name
    from tests.amdgpu.test_clang import _calls

    for mcpu in ("gfx600", "gfx705", "gfx803", "gfx810", "fiji"):
        for row in BUILTINS:  # one a compile: clang stops at the first builtin it refuses
            proc = clang.compile_c(next(iter(_calls(row)))[1], mcpu)
            assert proc.returncode != 0 and "needs target feature" in proc.stderr, (mcpu, row.name, proc.stderr[:500])
    for mcpu in sorted(BEFORE_GFX9):
        for profile in ("reference", "llvm"):
            with pytest.raises(IntdotError, match=f"target='{mcpu}' is a processor before gfx9, which has no dot"):
                canonical_name(mcpu, profile)
