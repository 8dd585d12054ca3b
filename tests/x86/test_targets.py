"""x86 targets against clang-19: every level and processor's dot-relevant features as
``clang-19 -march=NAME -dM -E`` defines them, every feature's implications (``-mNAME``) and removals
(``-mno-NAME``), and each intrinsic's features as clang requires them to compile it."""

from __future__ import annotations

import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest

from intdot import catalog
from intdot.core.errors import UnknownTarget, UnsupportedOnTarget
from intdot.core.features import evaluate
from intdot.x86 import intrinsics as X
from intdot.x86.targets import DEPENDS, LEVELS, MODEL, PROCESSORS
from tests.oracles import find_tool, missing

# The features whose macros say what matters for integer dot products.
MACROS = {
    "sse2": "__SSE2__",
    "ssse3": "__SSSE3__",
    "sse4.1": "__SSE4_1__",
    "sse4.2": "__SSE4_2__",
    "avx": "__AVX__",
    "avx2": "__AVX2__",
    "f16c": "__F16C__",
    "fma": "__FMA__",
    "avx512f": "__AVX512F__",
    "avx512bw": "__AVX512BW__",
    "avx512vl": "__AVX512VL__",
    "avx512dq": "__AVX512DQ__",
    "avx512vnni": "__AVX512VNNI__",
    "avx512bf16": "__AVX512BF16__",
    "avxvnni": "__AVXVNNI__",
    "avxvnniint8": "__AVXVNNIINT8__",
    "avxvnniint16": "__AVXVNNIINT16__",
    "amx-tile": "__AMX_TILE__",
    "amx-int8": "__AMX_INT8__",
}


@pytest.fixture(scope="module")
def clang():
    path = find_tool("INTDOT_CLANG", "clang-19", "/usr/lib/llvm-19/bin/clang")
    if path is None:
        missing("clang-19")
    return path


def _defined(clang: str, *flags: str) -> set[str]:
    out = subprocess.run([clang, *flags, "-dM", "-E", "-x", "c", "-"], input="", capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    macros = {line.split()[1] for line in out.stdout.splitlines() if line.startswith("#define")}
    return {f for f, m in MACROS.items() if m in macros}


@pytest.mark.oracle
@pytest.mark.parametrize("name", [*LEVELS, *PROCESSORS])
def test_march_matches_clang(clang, name):
    assert MODEL.target(name).features & set(MACROS) == _defined(clang, f"-march={name}")


@pytest.mark.oracle
def test_feature_implications_match_clang(clang):
    for feature in MACROS:
        mine = MODEL.target(f"x86-64+{feature}").features & set(MACROS)
        assert mine == _defined(clang, "-march=x86-64", f"-m{feature}"), feature
    for feature in ("avx2", "avx512f", "avx512vnni", "avx", "amx-tile", "sse4.2"):
        mine = MODEL.target(f"sapphirerapids+no{feature}").features & set(MACROS)
        assert mine == _defined(clang, "-march=sapphirerapids", f"-mno-{feature}"), feature


def _call(name: str, target: str = "") -> str:
    """A C function that calls intrinsic ``name`` on zero registers (masks 0), compiled for ``target`` features."""
    proto = X.INTRINSICS[name].prototype
    params = [p.split()[0] for p in proto.split("(")[1].rstrip(")").split(", ")]
    decls = "".join(f"{t} x{i} = {{0}}; " for i, t in enumerate(params) if "mask" not in t)
    args = ", ".join("0" if "mask" in t else f"x{i}" for i, t in enumerate(params))
    attr = f'__attribute__((target("{target}"))) ' if target else ""
    fname = f"f{name}_{abs(hash(target))}"
    return f"{attr}void {fname}(void *o) {{ {decls}*({proto.split()[0]} *)o = {name}({args}); }}\n"


@pytest.mark.oracle
def test_intrinsic_features_match_clang(clang, tmp_path):
    """Each alternative of a row's feature expression compiles the intrinsic (a function with that target
    attribute); on x86-64-v3 (AVX2) clang refuses exactly those whose expression AVX2 does not satisfy."""
    pch = tmp_path / "immintrin.pch"
    (tmp_path / "all.h").write_text("#include <immintrin.h>\n")
    base = [clang, "-O1", "-march=x86-64-v3"]
    subprocess.run([*base, "-x", "c-header", str(tmp_path / "all.h"), "-o", str(pch)], check=True)

    def compile_(stem: str, text: str) -> subprocess.CompletedProcess:
        (tmp_path / f"{stem}.c").write_text(text)
        cmd = [*base, "-include-pch", str(pch), "-c", str(tmp_path / f"{stem}.c"), "-o", str(tmp_path / f"{stem}.o")]
        return subprocess.run(cmd, capture_output=True, text=True)

    text = "".join(_call(n, alt.replace("+", ",")) for n, r in X.INTRINSICS.items() for alt in r.features.split("|"))
    done = compile_("every_alternative", text)
    assert done.returncode == 0, done.stderr[-3000:]
    # clang stops at the first refused call in a file: one file per intrinsic.
    with ThreadPoolExecutor(2) as pool:
        runs = dict(zip(X.INTRINSICS, pool.map(lambda n: compile_(n, _call(n)), X.INTRINSICS)))
    refused = {n for n, d in runs.items() if d.returncode != 0 and "target feature" in d.stderr}
    v3 = MODEL.target("x86-64-v3").features
    assert refused == {n for n, r in X.INTRINSICS.items() if not evaluate(r.features, v3)}


def test_depends_is_closed():
    for deps in DEPENDS.values():
        assert set(deps) <= set(DEPENDS)


def test_availability_through_the_catalog():
    assert catalog.available("vpdpbusd", "alderlake") and catalog.available("_mm512_dpbusd_epi32", "cascadelake")
    assert not catalog.available("vpdpbusd", "skylake") and not catalog.available("tdpbusd", "icelake-server")
    assert catalog.available("tdpbusd", "sapphirerapids") and catalog.available("vpdpbssd", "arrowlake")
    assert not catalog.available("vpdpwsud", "arrowlake") and catalog.available("vpdpwsud", "lunarlake")
    assert not catalog.available("vpdpbusd", "znver5+noavx512vnni+noavxvnni")
    assert catalog.available("pmaddubsw", "x86-64-v2") and not catalog.available("pmaddubsw", "x86-64")
    # The VEX-encoded spelling needs AVX (SDM: VEX.128.66.0F38.WIG 04 is CPUID AVX's).
    assert catalog.available("vpmaddubsw", "x86-64-v3") and not catalog.available("vpmaddubsw", "x86-64-v2")
    why = catalog.status("x86.vpdpbssd", "sapphirerapids").why
    assert "lacks avxvnniint8" in why and "arrowlake" in why


@pytest.mark.parametrize(
    ("text", "words"),
    [("x86-64-v5", "did you mean x86-64-v4"), ("sapphirerapids+avx512vnn", "feature"), ("skylake++avx2", "empty")],
)
def test_unknown_targets(text, words):
    with pytest.raises(UnknownTarget, match=words):
        MODEL.target(text)


@pytest.mark.parametrize(
    "target", ["x86-64-v3", "alderlake", "icelake-server", "sapphirerapids", "znver4", "arrowlake"]
)
def test_catalog_availability_of_an_intrinsic_is_its_own(target):
    """An intrinsic is available where its instruction is and its own features (checked against clang-19 in
    test_intrinsic_features_match_clang) are: _mm_mask_dpbusd_epi32 needs AVX-512 VL where AVX-VNNI's vpdpbusd
    is enough for the instruction.  The same answer from available, status, require and where_available."""
    features = MODEL.target(target).features
    for name, row in X.INTRINSICS.items():
        try:
            rec = catalog.find(name)
        except catalog.NotInCatalog:  # the AVX2 idiom's parts are intrinsics, not instructions
            continue
        want = catalog.available(rec, target) and evaluate(row.features, features)
        assert catalog.available(name, target) == want, name
        assert (target in catalog.where_available(name)) == want or target.startswith("x86-64"), name
        if not want:
            with pytest.raises(UnsupportedOnTarget, match=f"not available on {target}"):
                catalog.require(name, target)
    assert not catalog.available("_mm_mask_dpbusd_epi32", "alderlake") and catalog.available("vpdpbusd", "alderlake")


@pytest.mark.oracle
def test_vaes_implies_avx2_as_in_clang(clang):
    """LLVM 19 makes +vaes imply AES and AVX2 (not AVX alone)."""
    mine = MODEL.target("x86-64-v2+vaes").features & set(MACROS)
    assert mine == _defined(clang, "-march=x86-64-v2", "-mvaes")
