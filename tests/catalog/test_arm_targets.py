"""Arm targets: feature sets of architectures and named cores, checked against clang-19.

Two oracles: clang-19's ``--print-enabled-extensions`` (LLVM 19's own
processor and architecture tables), and clang-19's assembler, which accepts
an instruction for ``-mcpu=CORE`` exactly when the core has its features.
A few facts are also typed in from Arm's and LLVM's documentation.
"""

from __future__ import annotations

import re
import subprocess

import pytest

from intdot import catalog
from intdot.arm import targets
from intdot.core.errors import UnknownTarget
from tests.oracles import find_tool, missing

# clang's FEAT_ names for the extensions that gate a dot form (and what they need).
FEAT = {
    "FEAT_FP": "fp",
    "FEAT_FP16": "fp16",
    "FEAT_BF16": "bf16",
    "FEAT_AdvSIMD": "simd",
    "FEAT_DotProd": "dotprod",
    "FEAT_I8MM": "i8mm",
    "FEAT_SVE": "sve",
    "FEAT_SVE2": "sve2",
    "FEAT_SVE2p1": "sve2p1",
    "FEAT_SME": "sme",
    "FEAT_SME2": "sme2",
    "FEAT_SME2p1": "sme2p1",
    "FEAT_SME_I16I64": "sme-i16i64",
}
TRACKED = frozenset(FEAT.values())


def dot(t) -> set:
    return set(targets.target(t).features & TRACKED)


# --- facts typed in from Arm's architecture documentation and LLVM's processor table ---------------------------


@pytest.mark.parametrize(
    "arch, has, lacks",
    [
        ("armv8-a", {"simd"}, {"dotprod", "i8mm", "sve"}),
        ("armv8.2-a", {"simd"}, {"dotprod"}),  # dotprod is optional in v8.2-A ...
        ("armv8.4-a", {"dotprod"}, {"i8mm"}),  # ... and mandatory from v8.4-A
        ("armv8.6-a", {"dotprod", "i8mm", "bf16"}, {"sve"}),  # i8mm mandatory from v8.6-A
        ("armv9-a", {"sve", "sve2", "dotprod"}, {"i8mm", "sme"}),  # v9.0-A is v8.5-A plus SVE2
        ("armv9.1-a", {"sve2", "i8mm"}, {"sme"}),  # v9.1-A includes v8.6-A
        ("armv9.2-a", {"sve2", "i8mm"}, {"sme", "sve2p1"}),  # SME stays optional
        ("armv9.5-a", {"sve2", "i8mm"}, {"sme", "sve2p1"}),
    ],
)
def test_architecture_versions(arch, has, lacks):
    assert has <= dot(arch) and not lacks & dot(arch)


@pytest.mark.parametrize(
    "core, has, lacks",
    [
        ("neoverse-v2", {"dotprod", "i8mm", "sve", "sve2"}, {"sme", "sve2p1"}),
        ("neoverse-n2", {"dotprod", "i8mm", "sve2"}, {"sme"}),
        ("neoverse-v1", {"dotprod", "i8mm", "sve"}, {"sve2", "sme"}),
        ("neoverse-n1", {"dotprod"}, {"i8mm", "sve"}),
        ("cortex-x925", {"dotprod", "i8mm", "sve2"}, {"sme"}),
        ("cortex-a78", {"dotprod"}, {"i8mm", "sve"}),
        ("cortex-a510", {"dotprod", "i8mm", "sve2"}, {"sme"}),
        ("cortex-a53", {"simd"}, {"dotprod"}),
        ("apple-m1", {"dotprod"}, {"i8mm", "sve", "sme"}),
        ("apple-m2", {"dotprod", "i8mm"}, {"sve", "sme"}),
        ("apple-m4", {"dotprod", "i8mm", "sme", "sme2", "sme-i16i64"}, {"sve"}),  # SME without SVE
        ("grace", {"sve2", "i8mm"}, {"sme"}),
    ],
)
def test_named_cores(core, has, lacks):
    assert has <= dot(core) and not lacks & dot(core)


def test_extensions_apply_left_to_right_with_dependencies():
    assert {"sme", "sme2", "sme-i16i64"} <= dot("armv9.2-a+sme2+sme-i16i64")
    assert {"sve", "sve2", "sve2p1"} <= dot("armv8.2-a+sve2p1")
    assert not {"sve", "sve2"} & dot("armv9-a+nosve")  # removing sve removes what depends on it
    assert "sve" in dot("armv9-a+nosve2") and "sve2" not in dot("armv9-a+nosve2")
    assert "dotprod" not in dot("armv8.4-a+nosimd") and "dotprod" in dot("armv8.4-a+nosimd+dotprod")
    assert "sme" not in dot("apple-m4+nosme") and "sme2" not in dot("apple-m4+nosme")
    assert "sme2" in dot("neoverse-v2+sme2")
    assert targets.target("ARMv9.2-A+SME2").features == targets.target("armv9.2-a+sme2").features
    assert targets.target("v8.2a+dotprod").base == "armv8.2-a"
    assert targets.target("apple-m1").core == "apple-a14"


@pytest.mark.parametrize(
    "text, words",
    [
        ("armv9.7-a", "did you mean"),
        ("neoverse-v9", "did you mean neoverse-v3"),
        ("armv8.2-a+dotprd", "'dotprd' is not a known Arm extension (did you mean dotprod"),
        ("armv8.2-a++i8mm", "empty part"),
        ("", "expected a string"),
        (None, "expected a string"),
    ],
)
def test_unknown_targets(text, words):
    with pytest.raises(UnknownTarget, match=re.escape(words)):
        targets.target(text)


# --- clang-19 as the oracle ---------------------------------------------------------------------------------------


def clang19() -> str:
    cc = find_tool("INTDOT_CLANG", "clang-19", "clang")
    if cc is None:
        missing("clang-19")
    out = subprocess.run([cc, "--version"], capture_output=True, text=True).stdout
    if "version 19." not in out:
        missing("clang-19", f"{cc} is not clang 19 ({out.splitlines()[0] if out else 'no version'})")
    return cc


def clang_features(flag: str) -> set:
    r = subprocess.run(
        [clang19(), "--target=aarch64-linux-gnu", flag, "--print-enabled-extensions"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    names = {w.rstrip(",") for line in r.stdout.splitlines() for w in line.split()[:3]}
    return {FEAT[n] for n in names if n in FEAT}


ARCH_STRINGS = [
    *targets.ARCHS,
    "armv9.2-a+sme2",
    "armv9.2-a+sme2+sme-i16i64",
    "armv8.2-a+sve2p1",
    "armv9-a+nosve",
    "armv9-a+nosve2",
    "armv8.4-a+nosimd",
    "armv8.4-a+nosimd+dotprod",
    "armv8-a+sme2p1",
    "armv8-a+sme-i16i64+nosme",
    "armv8.6-a+noi8mm",
    "armv9.4-a+sme2+nosve",
    "armv8-a+nofp+i8mm",
    "armv8-a+sve2-bitperm",
    "armv8-a+sme-fa64",
    "armv8-a+f64mm+nofp16",
]


@pytest.mark.parametrize("arch", ARCH_STRINGS)
def test_architecture_features_match_clang(arch):
    assert dot(arch) == clang_features(f"-march={arch}")


@pytest.mark.parametrize("core", targets.core_names())
def test_core_features_match_clang(core):
    assert dot(core) == clang_features(f"-mcpu={core}")


def example_text(rec) -> str:
    """A legal instance of the record's assembly template (register 0, first legal W, index 0)."""
    text = rec.syntax.replace("w<wv>", "w8")
    text = re.sub(r"<\w+\+(\d)>", r"\1", text)  # the last register of a list starting at 0
    return re.sub(r"<\w+>", "0", text)


def assemble_errors(flag: str, lines: list[str]) -> dict[int, str]:
    """Line number (1-based) -> clang's error, for each line it refuses."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        src = f"{tmp}/t.s"
        with open(src, "w") as f:
            f.write("\n".join(lines) + "\n")
        r = subprocess.run(
            [clang19(), "--target=aarch64-linux-gnu", flag, "-c", src, "-o", f"{tmp}/t.o"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    return {int(m[1]): m[2] for m in re.finditer(r"t\.s:(\d+):\d+: error: (.*)", r.stderr)}


ARM = [r for r in catalog.records("arm")]


def test_example_lines_assemble_with_every_feature():
    errors = assemble_errors("-march=armv9.4-a+sve2p1+sme2+sme-i16i64", [example_text(r) for r in ARM])
    assert errors == {}, {ARM[k - 1].name: v for k, v in errors.items()}


@pytest.mark.parametrize("target", [f"-mcpu={c}" for c in targets.core_names()] + [f"-march={a}" for a in ARCH_STRINGS])
def test_availability_matches_clangs_assembler(target):
    """clang assembles a form for -mcpu=CORE exactly when intdot says the core has it."""
    errors = assemble_errors(target, [example_text(r) for r in ARM])
    for i, rec in enumerate(ARM, 1):
        ours = catalog.available(rec, target.split("=", 1)[1])
        assert ours == (i not in errors), f"{rec.name} on {target}: intdot {ours}, clang {errors.get(i, 'accepts')}"
        if i in errors:
            assert "instruction requires" in errors[i]
