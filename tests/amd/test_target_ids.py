"""clang target IDs (``gfx90a:sramecc+:xnack-``) and clang-19's processor list, against clang-19 itself.

What clang accepts as ``-mcpu`` (the same parser reads ``--offload-arch``) is asked of its driver
(``clang -###``, which parses the target ID and prints the ``-target-cpu`` / ``-target-feature`` it
hands on) for every processor intdot lists, with every sign of every target ID feature and a set of
malformed IDs; intdot must accept exactly those, name the same processor and features, and refuse the
rest with :class:`~intdot.errors.UnknownTarget`.  Expected answers come from clang at test time.
"""

from __future__ import annotations

import functools
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest

from intdot import amd, amdgpu, catalog
from intdot.amdgpu.targets import check_mcpu
from intdot.errors import IntdotError, UnknownTarget
from tests.oracles import find_tool, missing

pytestmark = pytest.mark.oracle

_FEATURE = re.compile(r'"-target-feature" "([+-])(sramecc|xnack)"')
_CPU = re.compile(r'"-target-cpu" "([^"]+)"')


@pytest.fixture(scope="module")
def clang():
    tool = find_tool("INTDOT_CLANG", "clang-19", "clang")
    if tool is None:
        missing("clang-19 (with the AMDGPU target)", "install clang-19 (Debian package clang-19)")
    return tool


@functools.cache
def _driver(tool: str, mcpu: str):
    """What clang's driver makes of ``-mcpu=mcpu``: (processor, features sorted) or None where it refuses."""
    cmd = [tool, "-###", "-c", "-x", "c", "/dev/null", "-nogpulib", "--target=amdgcn-amd-amdhsa", f"-mcpu={mcpu}"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=60).stderr
    if "error:" in out:
        assert "invalid target ID" in out, out
        return None
    cpu = _CPU.search(out)
    return cpu.group(1), tuple(sorted((f, s) for s, f in _FEATURE.findall(out)))


def _clang_known(tool: str) -> list[str]:
    return [p for p in amd.processors("llvm") if _driver(tool, p) is not None]


def _mine(text: str):
    try:
        return amd.targets.parse_target_id(text, "llvm")
    except UnknownTarget:
        return None


def _variants(proc: str) -> list[str]:
    feats = [f"{f}{s}" for f in ("sramecc", "xnack") for s in "+-"]
    out = [f"{proc}:{f}" for f in feats]
    out += [f"{proc}:sramecc+:xnack-", f"{proc}:xnack-:sramecc+", f"{proc}:xnack+:xnack-", f"{proc}:xnack+:xnack+"]
    out += [f"{proc}:foo+", f"{proc}:xnack", f"{proc}::xnack+", f"{proc}:", f"{proc}:xnack+:", f"{proc}:xnack*"]
    return out


def test_target_ids_are_what_clang_takes(clang):
    known = _clang_known(clang)
    assert "gfx90a" in known and "gfx11-generic" in known
    texts = [v for p in known for v in _variants(p)]
    with ThreadPoolExecutor(2) as pool:
        theirs = dict(zip(texts, pool.map(lambda t: _driver(clang, t), texts)))
    for text, answer in theirs.items():
        assert _mine(text) == answer, (text, answer)
        if answer is None:  # refused on every path that names a target
            for call, args in (
                (amd.target, (text, "llvm")),
                (check_mcpu, (text,)),
                (catalog.available, ("sdot4", text)),
            ):
                with pytest.raises(UnknownTarget, match=re.escape(text)):
                    call(*args)
        else:
            assert amd.target(text, profile="llvm").name == answer[0]
            assert check_mcpu(text) == answer[0]


def test_every_gfx9_and_later_processor_of_clang_is_known(clang):
    """clang-19's own list (``-print-supported-cpus``): every GCN5 (gfx9), CDNA and RDNA processor and
    every generic target is one of intdot's llvm-profile processors, with the features clang gives it
    (tests/amd/test_clang_oracle.py compiles the builtins for each)."""
    cmd = [clang, "-print-supported-cpus", "--target=amdgcn-amd-amdhsa", "-nogpulib"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    listed = set(re.findall(r"^\s+(gfx\S+)\s*$", out.stdout + out.stderr, re.M))
    assert "gfx900" in listed, out.stdout + out.stderr
    later = {p for p in listed if p.startswith(("gfx9", "gfx1"))}
    assert later <= set(amd.processors("llvm")), sorted(later - set(amd.processors("llvm")))
    assert later <= set(amdgpu.PROCESSORS)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("gfx90a:foo+", "'foo\\+' is not a target ID feature of gfx90a; gfx90a takes sramecc\\+ or sramecc-"),
        ("gfx90a:xnack+:xnack-", "feature 'xnack' is given twice"),
        ("gfx1100:xnack+", "gfx1100 takes no target ID features"),
        ("CDNA3:xnack+", "follow a processor, not a family"),
        ("gfx9-generic:sramecc-", "gfx9-generic takes xnack\\+ or xnack-"),
    ],
)
def test_malformed_target_ids_say_what_is_allowed(text, words):
    for call, args in ((amd.target, (text, "llvm")), (amd.available, ("sdot4", text, "llvm"))):
        with pytest.raises(UnknownTarget, match=f"target='{re.escape(text)}'.*{words}"):
            call(*args)
    if not text.startswith("CDNA"):
        with pytest.raises(UnknownTarget, match=f"mcpu='{re.escape(text)}'.*{words}"):
            check_mcpu(text)


def test_target_ids_change_no_availability():
    for proc in amd.processors("llvm"):
        for feats in amd.TARGET_ID_FEATURES[proc]:
            text = f"{proc}:{feats}-"
            t = amd.target(text, profile="llvm")
            assert t.builtins == amd.target(proc, profile="llvm").builtins and t.target_id == text
    t = amd.target("GFX90A:XNACK-:SRAMECC+")
    assert (t.name, t.family, t.target_id) == ("gfx90a", "CDNA2", "gfx90a:sramecc+:xnack-")
    assert repr(t) == "Target('gfx90a:sramecc+:xnack-', profile='reference')" and t != amd.target("gfx90a")
    assert amd.target_id("gfx942:xnack+:sramecc-", "llvm") == "gfx942:sramecc-:xnack+"
    assert amdgpu.assemble("v_dot4_i32_i8 v0, v1, v2, v3", "gfx90a:xnack+") == amdgpu.assemble(
        "v_dot4_i32_i8 v0, v1, v2, v3", "gfx90a"
    )
    assert catalog.available("v_dot2c_i32_i16", "gfx908:sramecc+:xnack-")


def test_reference_profile_keeps_its_families():
    """The reference decides only processors of its families; the processors added for clang are not among
    them, and a target ID names its processor's family."""
    for proc in ("gfx902", "gfx904", "gfx909", "gfx90c", "gfx9-generic", "gfx10-3-generic", "gfx11-generic"):
        with pytest.raises(UnknownTarget, match="belongs to none of the reference's families.*profile='llvm'"):
            amd.target(proc)
        with pytest.raises(IntdotError, match="none of the reference's families"):
            amd.available("udot4", f"{proc}")
    assert amd.available("sudot4", "gfx1030:") and amd.target("gfx942:xnack-").family == "CDNA3"
