"""Streaming-mode availability on Arm (issue 15 item 4), against clang-19.

Every ACLE intrinsic is compiled by clang-19 in a normal function and in an ``__arm_streaming`` one
(``__arm_inout("za")`` for the ZA forms), for targets with SVE only, SME only (SME without SVE, as
apple-m4), both, and neither; an intrinsic is available in a mode where it compiles with no error and
no warning that the call's streaming attributes mismatch (clang-19 only warns for NEON in streaming
mode, which the architecture forbids without FEAT_SME_FA64).  intdot's answer, per mode, must agree.
"""

from __future__ import annotations

import re
import subprocess

import pytest

from intdot import catalog
from intdot.arm.acle import INTRINSICS
from tests.oracles import find_tool, missing

# (flag, target as intdot reads it): -mcpu for named cores, -march for architectures.
TARGETS = [
    ("-march=armv8.2-a+dotprod", "armv8.2-a+dotprod"),
    ("-march=armv8.6-a", "armv8.6-a"),
    ("-mcpu=neoverse-v2", "neoverse-v2"),
    ("-march=armv9.4-a+sve2p1", "armv9.4-a+sve2p1"),
    ("-march=armv9-a+sme", "armv9-a+sme"),
    ("-march=armv9.2-a+sme2", "armv9.2-a+sme2"),
    ("-march=armv9.2-a+sme2+nosve", "armv9.2-a+sme2+nosve"),
    ("-march=armv9.2-a+sme2+sme-i16i64+sme-fa64", "armv9.2-a+sme2+sme-i16i64+sme-fa64"),
    ("-mcpu=apple-m4", "apple-m4"),
]


def _function(name: str, streaming: bool) -> str:
    proto = INTRINSICS[name].prototype
    ret, rest = proto.split(" ", 1)
    params = re.search(r"\((.*)\)", rest).group(1).split(", ")
    args = [
        "0" if ("int " in p and "const" in p) or p.startswith(("uint64_t imm", "uint32_t slice")) else p.split()[-1]
        for p in params
    ]
    attrs = (" __arm_streaming" if streaming else "") + (' __arm_inout("za")' if ret == "void" else "")
    body = f"{name}({', '.join(args)});" if ret == "void" else f"return {name}({', '.join(args)});"
    return f"{ret} f_{name}({', '.join(params)}){attrs} {{ {body} }}"


def _bad_lines(clang: str, flag: str, lines: list[str], phase: str) -> set[int]:
    """Line numbers clang-19 refuses: an error, or the warning that streaming attributes mismatch."""
    mode = ["-fsyntax-only"] if phase == "sema" else ["-O1", "-S", "-o", "/dev/null"]
    out = subprocess.run(
        [clang, "--target=aarch64-linux-gnu", flag, "-ferror-limit=0", *mode, "-x", "c", "-"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
    ).stderr
    return {
        int(m[1])
        for m in re.finditer(r"^<stdin>:(\d+):\d+: (error|warning): (.*)$", out, re.M)
        if m[2] == "error" or "streaming attributes" in m[3]
    }


def _refused(flag: str, streaming: bool) -> dict[str, bool]:
    """Per intrinsic: does clang-19 refuse it?  Sema first (types, streaming rules), then code generation
    (target features of the always-inline NEON/SVE wrappers) over what Sema let through: clang generates no
    code for a file with errors."""
    clang = find_tool("INTDOT_CLANG", "clang-19")
    if clang is None:
        missing("clang-19 (the ACLE oracle)")
    head = ["#include <arm_neon.h>", "#include <arm_sve.h>", "#include <arm_sme.h>"]
    names = list(INTRINSICS)
    lines = head + [_function(n, streaming) for n in names]
    refused = {names[i - len(head) - 1] for i in _bad_lines(clang, flag, lines, "sema") if i > len(head)}
    # Code generation stops at its first error: drop the refused function and go again until clean.
    while True:
        todo = [n for n in names if n not in refused]
        bad = _bad_lines(clang, flag, head + [_function(n, streaming) for n in todo], "codegen")
        bad = {todo[i - len(head) - 1] for i in bad if i > len(head)}
        if not bad:
            return {n: n in refused for n in names}
        refused |= bad


# The default run: SME without SVE (apple-m4), SVE without SME, both; --slow runs every target above.
DEFAULT = ("apple-m4", "neoverse-v2", "armv9.2-a+sme2")


@pytest.mark.oracle
@pytest.mark.parametrize(
    "flag, target",
    [pytest.param(f, t, marks=() if t in DEFAULT else pytest.mark.slow) for f, t in TARGETS],
    ids=[t for _, t in TARGETS],
)
def test_availability_per_mode_matches_clang(flag, target):
    wrong = []
    fa64 = "sme-fa64" in target
    for streaming in (False, True):
        refused = _refused(flag, streaming)
        for name, no in refused.items():
            if streaming and fa64 and name.startswith("v"):
                # clang-19 warns about every NEON call in a streaming function, FEAT_SME_FA64 or not; the
                # architecture runs them with FA64 (docs/differences.md): intdot follows the architecture.
                assert no and catalog.available(name, target, streaming=True)
                continue
            if catalog.available(name, target, streaming=streaming) == no:
                wrong.append(f"{name} streaming={streaming}: clang {'refuses' if no else 'accepts'}")
    assert not wrong, wrong[:10]


def test_three_answers():
    assert catalog.status("svdot_s32_s16", "armv9.2-a+sme2").mode == "streaming"
    assert catalog.status("svdot_s32", "apple-m4").mode == "streaming"
    assert catalog.status("svdot_s32", "neoverse-v2").mode == "normal"
    assert catalog.status("svdot_s32", "armv9.2-a+sme2").mode == "both"
    assert catalog.status("svdot_za32_s8_vg1x2", "neoverse-v2").mode == "none"
    with pytest.raises(catalog.OperandError if hasattr(catalog, "OperandError") else Exception, match="streaming"):
        catalog.available("sdot4", "gfx942", streaming=True)
