"""Availability in both profiles, with the expected tables typed in from the issue/reference text."""

from __future__ import annotations

import pytest

from intdot import amd

FAMILIES = ["CDNA", "CDNA2", "CDNA3", "CDNA4", "RDNA2", "RDNA3", "RDNA3.5", "RDNA4"]

# The reference's "Architecture availability" table.
REFERENCE = {
    "udot4": "Yes Yes Yes Yes Yes Yes Yes Yes",
    "udot8": "Yes Yes Yes Yes Yes Yes Yes Yes",
    "sdot4": "Yes Yes Yes Yes No No No No",
    "sdot8": "Yes Yes Yes Yes No No No No",
    "sdot2": "Yes Yes Yes Yes No No No No",
    "udot2": "Yes Yes Yes Yes No No No No",
    "sudot4": "No No No No Yes Yes Yes Yes",
    "sudot8": "No No No No Yes Yes Yes Yes",
}

# The issue: processor -> family.
FAMILY_OF = {
    "gfx908": "CDNA",
    "gfx90a": "CDNA2",
    "gfx940": "CDNA3",
    "gfx941": "CDNA3",
    "gfx942": "CDNA3",
    "gfx950": "CDNA4",
    **{f"gfx{n}": "RDNA2" for n in range(1030, 1037)},
    **{f"gfx{n}": "RDNA3" for n in range(1100, 1104)},
    **{f"gfx{n}": "RDNA3.5" for n in range(1150, 1154)},
    "gfx1200": "RDNA4",
    "gfx1201": "RDNA4",
}

# The issue: builtin -> feature, processor -> features (llvm profile).
FEATURE = {
    "sdot4": "dot1",
    "sdot8": "dot1",
    "sdot2": "dot2",
    "udot2": "dot2",
    "udot4": "dot7",
    "udot8": "dot7",
    "sudot4": "dot8",
    "sudot8": "dot8",
}
_A = "gfx906 gfx908 gfx90a gfx940 gfx941 gfx942 gfx950 gfx1011 gfx1012 gfx10-3-generic " + " ".join(
    f"gfx{n}" for n in range(1030, 1037)
)
_B = "gfx11-generic gfx12-generic " + " ".join(
    f"gfx{n}" for n in [*range(1100, 1104), *range(1150, 1154), 1200, 1201, 1250, 1251]
)
# clang-19's processors without dot features (tests/amd/test_clang_oracle.py asks clang for every row).
_NONE = "gfx900 gfx902 gfx904 gfx909 gfx90c gfx9-generic gfx1010 gfx1013 gfx10-1-generic"
FEATURES_OF = {
    **{p: {"dot1", "dot2", "dot7"} for p in _A.split()},
    **{p: {"dot7", "dot8"} for p in _B.split()},
    **{p: set() for p in _NONE.split()},
}


def test_reference_by_family():
    for name, row in REFERENCE.items():
        for fam, yes in zip(FAMILIES, row.split()):
            assert amd.available(name, fam) is (yes == "Yes"), (name, fam)
            assert amd.available("__builtin_amdgcn_" + name, fam.lower()) is (yes == "Yes")


def test_reference_by_processor_follows_family():
    for proc, fam in FAMILY_OF.items():
        t = amd.target(proc)
        assert t.family == fam and not t.is_family
        for name, row in REFERENCE.items():
            yes = row.split()[FAMILIES.index(fam)] == "Yes"
            assert amd.available(name, proc) is yes and t.available(name) is yes


def test_processor_lists():
    assert set(amd.processors("reference")) == set(FAMILY_OF)
    assert set(amd.processors("llvm")) == set(FEATURES_OF)
    assert amd.FAMILIES == tuple(FAMILIES)
    for fam in FAMILIES:
        assert set(amd.target(fam).processors) == {p for p, f in FAMILY_OF.items() if f == fam}


def test_llvm_by_processor():
    for proc, feats in FEATURES_OF.items():
        t = amd.target(proc, profile="llvm")
        assert set(t.features) == {f + "-insts" for f in feats}
        for name, feat in FEATURE.items():
            assert amd.available(name, proc, profile="llvm") is (feat in feats), (name, proc)
            assert t.available(name) is (feat in feats)


def test_llvm_family_means_every_processor():
    for fam in FAMILIES:
        procs = [p for p, f in FAMILY_OF.items() if f == fam]
        for name, feat in FEATURE.items():
            want = all(feat in FEATURES_OF[p] for p in procs)
            assert amd.available(name, fam, profile="llvm") is want, (name, fam)


def test_rdna2_is_the_reverse():
    # The issue: on RDNA2 clang has sdot4 but not sudot4, the reverse of the reference table.
    assert amd.available("sdot4", "RDNA2", profile="llvm") and not amd.available("sdot4", "RDNA2")
    assert not amd.available("sudot4", "RDNA2", profile="llvm") and amd.available("sudot4", "RDNA2")


def test_target_objects():
    t = amd.target("gfx942")
    assert (t.name, t.profile, t.family, t.processors) == ("gfx942", "reference", "CDNA3", ("gfx942",))
    assert t.builtins == ("udot4", "udot8", "sdot4", "sdot8", "sdot2", "udot2")
    assert t.sdot4(0x01020304, 0x05060708, 10, False) == 80
    assert t.__builtin_amdgcn_udot4(0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, False) == 260099
    assert "sdot4" in dir(t) and "sudot4" not in t.builtins
    assert amd.target("Cdna3") == amd.target("CDNA3") != amd.target("CDNA3", profile="llvm")
    assert repr(amd.target("rdna3.5", profile="llvm")) == "Target('RDNA3.5', profile='llvm')"
    r = amd.target("RDNA3", profile="llvm")
    assert r.sudot4(True, 0xFFFFFFFF, False, 0xFFFFFFFF, 0, True) == -1020  # last argument: clamp
    assert r.builtin("__builtin_amdgcn_udot8") is amd.builtin("udot8", profile="llvm")
    assert len({amd.target(p, profile="llvm") for p in ["gfx942", "GFX942", " gfx942 "]}) == 1


def test_where_available_and_matrix():
    assert amd.where_available("sudot8") == ("RDNA2", "RDNA3", "RDNA3.5", "RDNA4")
    assert amd.where_available("sudot8", "llvm") == ("RDNA3", "RDNA3.5", "RDNA4")
    m = amd.availability("llvm", processors=True)
    assert list(m) == list(REFERENCE) and m["udot4"]["gfx1250"] and not m["udot4"]["gfx1013"]


@pytest.mark.parametrize("name", list(REFERENCE))
def test_rows_match_the_reference_signatures(name):
    row = amd.lookup(name)
    assert row.full_name == "__builtin_amdgcn_" + name
    sig = row.c_signature()
    assert sig.endswith("src2, bool neg)")
    assert row.c_signature("llvm").endswith("src2, bool clamp)")


# The signatures as the reference document writes them.
SIGNATURES = {
    "udot4": "unsigned int __builtin_amdgcn_udot4(unsigned int src0, unsigned int src1, unsigned int src2, bool neg)",
    "udot8": "unsigned int __builtin_amdgcn_udot8(unsigned int src0, unsigned int src1, unsigned int src2, bool neg)",
    "sdot4": "int __builtin_amdgcn_sdot4(int src0, int src1, int src2, bool neg)",
    "sdot8": "int __builtin_amdgcn_sdot8(int src0, int src1, int src2, bool neg)",
    "sdot2": "int __builtin_amdgcn_sdot2(short2 src0, short2 src1, int src2, bool neg)",
    "udot2": "unsigned int __builtin_amdgcn_udot2(ushort2 src0, ushort2 src1, unsigned int src2, bool neg)",
    "sudot4": "int __builtin_amdgcn_sudot4(bool src0_neg, int src0, bool src1_neg, int src1, int src2, bool neg)",
    "sudot8": "int __builtin_amdgcn_sudot8(bool src0_neg, int src0, bool src1_neg, int src1, int src2, bool neg)",
}


@pytest.mark.parametrize("name", list(SIGNATURES))
def test_signatures_as_in_the_reference(name):
    assert amd.lookup(name).c_signature() == SIGNATURES[name]
    import inspect

    params = list(inspect.signature(getattr(amd, name)).parameters)
    c_params = [p.split()[-1] for p in SIGNATURES[name].split("(")[1].rstrip(")").split(", ")]
    assert params == c_params + ["clamp"]
    assert list(inspect.signature(amd.builtin(name, profile="llvm")).parameters) == c_params[:-1] + ["clamp"]


def test_rows_are_validated_when_built():
    from intdot.amd.builtins import Builtin

    good = amd.lookup("sdot4")
    for change in [
        dict(width=16),
        dict(src0="flag"),
        dict(src0="x"),
        dict(families=("RDNA9",)),
        dict(feature="dot9-insts"),
        dict(layout="sudot"),
        dict(result="unsigned int"),
    ]:
        fields = {**good.__dict__, **change}
        with pytest.raises(ValueError, match="bad builtin row"):
            Builtin(**fields)
