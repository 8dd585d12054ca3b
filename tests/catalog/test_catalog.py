"""The catalog: records derived from the front ends' tables, lookup by every spelling, equivalents,
and availability that agrees with the AMD front end for every builtin, target and profile."""

from __future__ import annotations

import re

import pytest

from intdot import amd, arm, catalog
from intdot.amd.builtins import BUILTINS, PREFIX
from intdot.amd.targets import FAMILIES, processors
from intdot.core.errors import IntdotError, UnknownInstruction, UnknownTarget, UnsupportedOnTarget

FORMS = {f.name: f for f in arm.FORMS}


def spec_tuple(s):
    return (s.a_width, s.b_width, s.lanes, s.a_signed, s.b_signed, s.acc_bits, s.acc_signed)


def needs_form(*names):
    absent = [n for n in names if n not in FORMS]
    return pytest.mark.skipif(bool(absent), reason=f"Arm table has no {absent} yet")


# --- derivation: one record per row, nothing kept by hand ---------------------------------------------------------


def test_one_record_per_builtin_and_per_form():
    assert [r.name for r in catalog.records("amd")] == [f"amd.{b.name}" for b in BUILTINS]
    assert [r.name for r in catalog.records("arm")] == [f"arm.{f.name}" for f in arm.FORMS]
    assert catalog.records() == tuple(r for isa in catalog.ISAS for r in catalog.records(isa))


# Typed in from the reference document: (a width, b width, lanes, a signed, b signed, acc bits, acc signed).
AMD_SPECS = {
    "udot4": (8, 8, 4, False, False, 32, False),
    "udot8": (4, 4, 8, False, False, 32, False),
    "sdot4": (8, 8, 4, True, True, 32, True),
    "sdot8": (4, 4, 8, True, True, 32, True),
    "sdot2": (16, 16, 2, True, True, 32, True),
    "udot2": (16, 16, 2, False, False, 32, False),
    "sudot4": (8, 8, 4, True, True, 32, True),
    "sudot8": (4, 4, 8, True, True, 32, True),
}
AMD_FEATURES = {
    "udot4": "dot7-insts",
    "udot8": "dot7-insts",
    "sdot4": "dot1-insts",
    "sdot8": "dot1-insts",
    "sdot2": "dot2-insts",
    "udot2": "dot2-insts",
    "sudot4": "dot8-insts",
    "sudot8": "dot8-insts",
}


@pytest.mark.parametrize("name", list(AMD_SPECS))
def test_amd_records(name):
    r = catalog.find(name)
    assert (r.isa, r.name, r.mnemonic) == ("amd", f"amd.{name}", name)
    assert r.spellings == (name, PREFIX + name)
    assert spec_tuple(r.spec) == AMD_SPECS[name]
    assert r.k_step == (4, 4)  # every AMD dot builtin reads one 32-bit word per operand per step
    assert (r.neg, r.clamp) == (None, None)  # both are arguments of the builtins
    assert r.sign_args == name.startswith("sudot")
    assert r.features == AMD_FEATURES[name]
    assert r.syntax.startswith(("int ", "unsigned int ")) and PREFIX + name in r.syntax


def test_sign_args_specs():
    r = catalog.find("sudot4")
    assert spec_tuple(r.spec_for(False, True)) == (8, 8, 4, False, True, 32, True)
    assert r.lanes == "4 x ?8 . 4 x ?8"
    with pytest.raises(IntdotError, match="True or False"):
        r.spec_for(None, True)
    with pytest.raises(IntdotError, match="fixes its operands"):
        catalog.find("sdot4").spec_for(True, True)


@pytest.mark.parametrize("form", list(FORMS))
def test_arm_records_follow_their_forms(form):
    f, r = FORMS[form], catalog.find(f"arm.{form}")
    assert r.isa == "arm" and r.mnemonic == f.mnemonic and r.row is f
    assert r.features == f.features
    assert (r.neg, r.clamp, r.sign_args) == (False, False, False)
    assert r.spec.a_signed == f.a_signed and r.spec.b_signed == f.b_signed
    assert form in r.spellings and f.mnemonic in r.spellings
    # Bytes per step: a group of the sources is 32 bits (.b->.s, 2-way .h->.s) or 64 (.h->.d, ids ending _d).
    group = 8 if re.search(r"_(vec|indexed)_d$|_d_vgx[24]$", form) else 4
    assert r.k_step == (group, group)
    assert r.spec.acc_bits == (64 if group == 8 else 32)
    assert r.spec.acc_signed == (f.mnemonic != "udot")


# Arm's instruction descriptions: mnemonic -> (Vn/Zn lanes signed, Vm/Zm lanes signed).
SIGNS = {"sdot": (True, True), "udot": (False, False), "usdot": (False, True), "sudot": (True, False)}


@pytest.mark.parametrize("form", list(FORMS))
def test_arm_signedness_is_the_mnemonics(form):
    r = catalog.find(f"arm.{form}")
    assert (r.spec.a_signed, r.spec.b_signed) == SIGNS[r.mnemonic]


def test_acle_names_are_spellings_of_their_form():
    from intdot.arm import acle

    assert len(acle.INTRINSICS) > 0
    for name, rec in acle.INTRINSICS.items():
        assert name in catalog.find(f"arm.{rec.form}").spellings
        assert catalog.find(name).name == f"arm.{rec.form}"


def test_every_spelling_finds_its_record():
    for r in catalog.records():
        for s in (r.name, *r.spellings):
            assert r in catalog.find_all(s), (r.name, s)
            try:
                found = catalog.find(s)
            except catalog.AmbiguousInstruction as exc:
                assert r in exc.candidates
            else:
                assert spec_tuple(found.spec) == spec_tuple(r.spec)


# --- find: every kind of spelling ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spelling, name",
    [
        ("sdot4", "amd.sdot4"),
        ("__builtin_amdgcn_sdot4", "amd.sdot4"),
        ("  __builtin_amdgcn_sudot8 ", "amd.sudot8"),
        ("SDOT4", "amd.sdot4"),  # case as users write it, when nothing matches exactly
        ("amd.udot2", "amd.udot2"),
        ("arm.sudot_sve_indexed", "arm.sudot_sve_indexed"),
        ("sudot_sve_indexed", "arm.sudot_sve_indexed"),
        ("vsudotq_lane_s32", "arm.sudot_neon_elem_128"),
        ("svsudot_lane_s32", "arm.sudot_sve_indexed"),
        ("sudot", "arm.sudot_neon_elem_64"),  # every SUDOT form computes the same step: the first is canonical
        ("SUDOT", "arm.sudot_neon_elem_64"),
    ],
)
def test_find_spellings(spelling, name):
    assert catalog.find(spelling).name == name


@needs_form("usdot_neon_vec_64", "usdot_sve_vec", "usdot_neon_vec_128")
def test_find_usdot_across_neon_sve_sme():
    assert catalog.find("usdot").name == "arm.usdot_neon_vec_64"
    assert catalog.find("vusdotq_s32").name == "arm.usdot_neon_vec_128"
    assert len(catalog.find_all("usdot")) >= 3


@needs_form("sdot_sve_vec_d", "sdot_sve_vec", "sdot_neon_vec_128")
def test_find_acle_and_form_names():
    assert catalog.find("svdot_s64").name == "arm.sdot_sve_vec_d"
    assert catalog.find("vdotq_s32").name == "arm.sdot_neon_vec_128"
    assert catalog.find("arm.sdot_sve_vec_d").spec.acc_bits == 64


@pytest.mark.parametrize(
    "line, name",
    [
        ("sudot z0.s, z1.b, z2.b[0]", "arm.sudot_sve_indexed"),
        ("SUDOT V0.4S, V1.16B, V2.4B[3]", "arm.sudot_neon_elem_128"),
        ("sudot za.s[w8, 0, vgx2], {z0.b-z1.b}, z2.b[1]", "arm.sudot_sme2_indexed_vgx2"),
        ("sdot z0.d, z1.h, z2.h", "arm.sdot_sve_vec_d"),
        ("sdot z0.s, z1.h, z2.h", "arm.sdot_sve_vec_hs"),
        ("usdot za.s[w8, 0, vgx4], {z0.b-z3.b}, z4.b", "arm.usdot_sme2_single_vgx4"),
    ],
)
def test_find_assembly_lines(line, name):
    if name.removeprefix("arm.") not in FORMS:
        pytest.skip(f"Arm table has no {name} yet")
    try:
        assert catalog.find(line).name == name
    except ImportError as exc:  # the Arm text layer mid-rewrite: not the catalog's failure
        pytest.skip(f"intdot.arm.parse unavailable: {exc}")


def test_assembly_line_with_a_bad_operand_reports_the_parser_error():
    from intdot.core.errors import AsmSyntaxError

    try:
        with pytest.raises(AsmSyntaxError):
            catalog.find("sudot v0.4s, v1.16b, v2.4b[7]")
    except ImportError as exc:
        pytest.skip(f"intdot.arm.parse unavailable: {exc}")


@needs_form("sdot_neon_vec_64", "sdot_sve_vec_d")
def test_ambiguous_spelling_lists_candidates():
    with pytest.raises(catalog.AmbiguousInstruction) as info:
        catalog.find("sdot")
    err = info.value
    assert isinstance(err, IntdotError) and isinstance(err, LookupError) and isinstance(err, ValueError)
    names = {r.name for r in err.candidates}
    assert {"arm.sdot_neon_vec_64", "arm.sdot_sve_vec_d"} <= names
    # Grouped by what they compute (a few names each, the message stays one readable line), the hint first.
    assert "4 x s16 . 4 x s16 -> s64: arm.sdot_sve_vec_d," in str(err)
    assert "pass one of their names" in str(err) and len(str(err)) < 600
    assert catalog.find_all("sdot") == err.candidates


@pytest.mark.parametrize(
    "wrong, suggestion",
    [
        ("sdot5", "sdot4"),
        ("__builtin_amdgcn_sdot5", "__builtin_amdgcn_sdot4"),
        ("vsudotq_lane_s33", "vsudotq_lane_s32"),
        ("arm.sudot_sve_indexd", "arm.sudot_sve_indexed"),
    ],
)
def test_unknown_names_suggest(wrong, suggestion):
    with pytest.raises(catalog.NotInCatalog) as info:
        catalog.find(wrong)
    assert suggestion in info.value.suggestions and "did you mean" in str(info.value)
    assert suggestion in str(info.value)
    assert isinstance(info.value, UnknownInstruction) and isinstance(info.value, LookupError)


@pytest.mark.parametrize("bad", [None, 4, b"sdot4", "", "   ", "xyzzy"])
def test_unknown_or_wrong_type_names(bad):
    for ask in (catalog.find, catalog.swapped):
        with pytest.raises(catalog.NotInCatalog, match="expected") as info:
            ask(bad)
        # A name of the wrong type is a TypeError as well (and still a NotInCatalog).
        assert isinstance(info.value, TypeError) == (not isinstance(bad, str))


def test_records_isa_filter():
    assert {r.isa for r in catalog.records("arm")} == {"arm"}
    with pytest.raises(IntdotError, match="isa='mips' is not known"):
        catalog.records("mips")


# --- equivalents ---------------------------------------------------------------------------------------------------


def test_equivalents_cross_isa():
    eq = {r.name for r in catalog.equivalents("sdot4")}
    arm_sdot_b = {
        f"arm.{n}"
        for n, f in FORMS.items()
        if f.mnemonic == "sdot" and spec_tuple(catalog.find(f"arm.{n}").spec) == (8, 8, 4, True, True, 32, True)
    }
    assert {n for n in eq if n.startswith(("amd.", "arm."))} == arm_sdot_b | {"amd.sudot4"}  # sudot4 (s, s) is sdot4
    assert {"nvidia.dp4a.s32.s32", "amdgpu.v_dot4_i32_i8"} <= eq
    assert {"x86.vpdpbssd", "x86.tdpbssd"} <= eq
    # sudot4's flags choose any signedness: Arm SDOT/USDOT/SUDOT (.b -> .s) all match, UDOT's unsigned acc does not.
    eq = {r.name for r in catalog.equivalents("__builtin_amdgcn_sudot4") if r.isa in ("amd", "arm")}
    assert "arm.sudot_sve_indexed" in eq and "amd.sdot4" in eq and "amd.udot4" not in eq
    assert not any(n.startswith("arm.udot") for n in eq)
    # SUDOT by element equals AMD sudot4 with (signed, unsigned) flags.
    assert "amd.sudot4" in {r.name for r in catalog.equivalents("vsudotq_lane_s32")}


@needs_form("sdot_sve_vec_hs")
def test_equivalents_of_16_bit_two_way():
    eq = {r.name for r in catalog.equivalents("arm.sdot_sve_vec_hs")}
    assert "amd.sdot2" in eq


# --- availability: AMD agrees with intdot.amd everywhere ------------------------------------------------------------


@pytest.mark.parametrize("profile", ["reference", "llvm"])
def test_amd_availability_agrees_with_the_amd_front_end(profile):
    names = list(FAMILIES) + list(processors(profile))
    checked = 0
    for b in BUILTINS:
        for spelling in (b.name, PREFIX + b.name):
            for t in names:
                expected = amd.available(b.name, t, profile=profile)
                assert catalog.available(spelling, t, profile=profile) == expected, (spelling, t, profile)
                if expected:
                    assert catalog.require(spelling, t, profile=profile).name == f"amd.{b.name}"
                else:
                    with pytest.raises(UnsupportedOnTarget):
                        catalog.require(spelling, t, profile=profile)
                checked += 1
    assert checked == 2 * len(BUILTINS) * len(names)


def test_amd_unavailable_message_names_the_feature():
    with pytest.raises(UnsupportedOnTarget, match="dot1-insts"):
        catalog.require("sdot4", "RDNA3", profile="llvm")
    with pytest.raises(UnsupportedOnTarget, match="the reference lists it for CDNA"):
        catalog.require("sdot4", "gfx1100")


def test_amd_where_available():
    assert catalog.where_available("sudot8", profile="llvm") == ("RDNA3", "RDNA3.5", "RDNA4")


@pytest.mark.parametrize(
    "name, target, ok",
    [
        ("arm.sudot_neon_elem_128", "armv8.2-a+i8mm", True),
        ("arm.sudot_neon_elem_128", "armv8.2-a+dotprod", False),
        ("arm.sudot_sve_indexed", "neoverse-v1", True),
        ("arm.sudot_sve_indexed", "neoverse-n1", False),
        ("arm.sudot_sve_indexed", "apple-m4", True),  # SVE instructions run in streaming mode on SME
        ("arm.sudot_sme2_single_vgx2", "armv9.2-a+sme2", True),
        ("arm.sudot_sme2_single_vgx2", "neoverse-v2", False),
    ],
)
def test_arm_availability(name, target, ok):
    assert catalog.available(name, target) is ok
    assert catalog.available(name, target, profile="llvm") is ok  # one source of truth for Arm


@needs_form("sdot_sme2_single_d_vgx2")
def test_arm_unavailable_names_missing_features():
    with pytest.raises(UnsupportedOnTarget) as info:
        catalog.require("arm.sdot_sme2_single_d_vgx2", "armv9.2-a+sme2")
    assert "lacks sme-i16i64" in str(info.value) and "apple-m4" in str(info.value)
    assert catalog.require("arm.sdot_sme2_single_d_vgx2", "apple-m4").name == "arm.sdot_sme2_single_d_vgx2"


def test_target_of_the_wrong_isa():
    with pytest.raises(UnknownTarget, match="is an AMD builtin"):
        catalog.available("sdot4", "neoverse-v2")
    with pytest.raises(UnknownTarget, match="is an Arm instruction"):
        catalog.available("arm.sudot_sve_indexed", "gfx942")
    with pytest.raises(UnknownTarget, match="profile='clang' is not known"):
        catalog.available("sdot4", "gfx942", profile="clang")


def test_where_available_arm_lists_cores():
    cores = catalog.where_available("arm.sudot_sve_indexed")
    assert "neoverse-v2" in cores and "neoverse-n1" not in cores and "apple-m4" in cores


def test_import_is_cheap():
    import subprocess
    import sys

    code = "import sys, intdot.catalog; print(sorted(m for m in sys.modules if m.startswith('intdot.')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    # Building the records (and importing the front ends) waits for the first lookup.
    assert "intdot.arm.acle" not in out and "intdot.amd.builtins" not in out


def test_swapped_names_the_acle_spellings_with_exchanged_sources():
    assert catalog.find("svsudot_s32").spec.a_signed is False  # the USDOT record: uint8 first
    assert catalog.swapped("svsudot_s32") and catalog.swapped("SVSUDOT_ZA32_S8_VG1X2")
    assert not any(
        catalog.swapped(n) for n in ("svusdot_s32", "svsudot_lane_s32", "sudot", "sdot4", catalog.find("sdot4"))
    )


def test_require_any_gives_the_forms_a_spelling_names_that_the_target_has():
    """A shared mnemonic is available where one of its forms is (Arm ``sdot``: NEON and SVE forms on an SVE core,
    none of the SME2 ones); a target with none of them says so and why the first form is missing; a spelling of
    one record fails as ``require`` does."""
    import pytest

    from intdot import catalog
    from intdot.errors import UnsupportedOnTarget

    got = catalog.require_any("sdot", "armv8.6-a+sve")
    assert got and all(catalog.available(r, "armv8.6-a+sve") for r in got)
    assert {r.name.split("_")[1] for r in got} == {"neon", "sve"}
    rest = [r for r in catalog.find_all("sdot") if r not in got]
    assert rest and not any(catalog.available(r, "armv8.6-a+sve") for r in rest)
    with pytest.raises(UnsupportedOnTarget, match=r"none of the 12 instructions 'usdot' names is available on "):
        catalog.require_any("usdot", "cortex-a78")
    with pytest.raises(UnsupportedOnTarget) as one:
        catalog.require_any("sdot4", "RDNA2")
    with pytest.raises(UnsupportedOnTarget) as same:
        catalog.require("sdot4", "RDNA2")
    assert str(one.value) == str(same.value)


@pytest.mark.parametrize("target", ["apple-m4", "armv8-a+sme2", "neoverse-n1", "neoverse-v2", "armv9.2-a+sme2+i8mm"])
@pytest.mark.parametrize("streaming", [None, True, False])
@pytest.mark.parametrize("name", ["usdot", "sudot"])
def test_a_shared_mnemonic_is_available_where_any_of_its_forms_is(name, streaming, target):
    """usdot names NEON, SVE and SME2 forms that compute one dot step: the mnemonic is available where one of them
    is, in that mode (it used to answer for its first form, a NEON one, alone)."""
    forms = catalog.find_all(name)
    assert len(forms) > 1
    want = any(catalog.available(r, target, streaming=streaming) for r in forms)
    assert catalog.available(name, target, streaming=streaming) is want
    if want:
        assert catalog.require(name, target, streaming=streaming) in forms
    if name == "usdot" and target == "apple-m4" and streaming is None:
        assert catalog.status(name, target).mode == "both"


def test_sme_lutv2_implies_nothing():
    """clang-19: +sme-lutv2 enables FEAT_SME_LUTv2 alone; an SME2 dot form still needs +sme2."""
    assert not catalog.available("sdot za.s[w8, 0, vgx2], {z0.b-z1.b}, z2.b", "armv9-a+sme-lutv2")
    assert catalog.available("sdot za.s[w8, 0, vgx2], {z0.b-z1.b}, z2.b", "armv9-a+sme2")
