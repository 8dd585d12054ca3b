"""intdot.amdgpu.lowering against clang-19: every builtin of intdot.amd, with clamp set and unset (and
each pair of sudot flags), compiled for a processor; the v_dot instruction clang emits must be the one
lowering() names, with the same modifiers, and clang must refuse exactly the builtins lowering() refuses.
The default run covers one processor per feature set; ``--slow`` every processor clang-19 knows."""

from __future__ import annotations

import itertools
import re

import pytest

from intdot.amd.builtins import BUILTINS
from intdot.amdgpu.lowering import lowering
from intdot.amdgpu.targets import LLVM_MC_KNOWS, PROCESSORS
from intdot.errors import UnsupportedOnTarget
from tests.oracles import clang_amdgpu as clang
from tests.oracles import missing

KNOWN = [p for p in PROCESSORS if p in LLVM_MC_KNOWS]  # clang-19 and llvm-mc-19 know the same processors
DEFAULT = ["gfx906", "gfx942", "gfx1030", "gfx1100"]


@pytest.fixture(scope="module", autouse=True)
def _oracle():
    if clang.tool() is None:
        missing("clang-19 (AMDGPU)", "install the clang-19 package")


def _calls(row):
    """(function name, C function, lowering kwargs) for each flag combination of one builtin."""
    t = {"short2": "short2", "ushort2": "ushort2", "int": "int", "unsigned int": "unsigned"}
    ret, op = t[row.result], t[row.operand_type]
    for clamp in (0, 1):
        if row.layout == "sudot":
            for s0, s1 in itertools.product((0, 1), repeat=2):
                name = f"f_{row.name}_{clamp}_{s0}{s1}"
                body = (
                    f"{ret} {name}({op} a, {op} b, {ret} c) {{ return {row.full_name}({s0}, a, {s1}, b, c, {clamp}); }}"
                )
                yield name, body, {"clamp": bool(clamp), "src0_signed": bool(s0), "src1_signed": bool(s1)}
        else:
            name = f"f_{row.name}_{clamp}"
            body = f"{ret} {name}({op} a, {op} b, {ret} c) {{ return {row.full_name}(a, b, c, {clamp}); }}"
            yield name, body, {"clamp": bool(clamp)}


_DOT = re.compile(r"^(v_dot\w+) ([^,\s]+), ([^,\s]+), ([^,\s]+)(?:, ([^,\s]+))?((?: \w+(?::\[[01,]+\])?)*)$")


def _check(mcpu: str) -> int:
    wanted, refused = [], []
    for row in BUILTINS:
        try:
            lowering(row.name, mcpu, **({"src0_signed": True, "src1_signed": True} if row.layout == "sudot" else {}))
        except UnsupportedOnTarget:
            refused.append(row)
            continue
        wanted.extend(_calls(row))
    compared = 0
    if wanted:
        proc = clang.compile_c("\n".join(body for _, body, _ in wanted), mcpu)
        assert proc.returncode == 0, proc.stderr[:2000]
        funcs = clang.functions(proc.stdout)
        for name, _, kwargs in wanted:
            dots = [i for i in funcs[name] if i.startswith("v_dot")]
            assert len(dots) == 1, (mcpu, name, funcs[name])
            m = _DOT.match(dots[0])
            assert m, dots[0]
            mods = m.group(6).split()
            mine = lowering(name.split("_")[1], mcpu, **kwargs)
            neg_lo = next(
                (tuple(int(x) for x in md[8:-1].split(",")) for md in mods if md.startswith("neg_lo:")), (0, 0, 0)
            )
            theirs = (m.group(1).removesuffix("_e32"), "clamp" in mods, neg_lo)
            assert theirs == (mine.mnemonic, mine.clamp, mine.neg_lo), (mcpu, name, dots[0], mine)
            if m.group(5) is None:  # a VOP2 form: the accumulator is the destination
                assert mine.text.startswith(f"{mine.mnemonic} vdst(=src2)")
            compared += 1
    for row in refused:
        body = "\n".join(b for _, b, _ in _calls(row))
        proc = clang.compile_c(body, mcpu)
        assert proc.returncode != 0 and f"'{row.full_name}' needs target feature {row.feature}" in proc.stderr, (
            mcpu,
            row.name,
            proc.stderr[:500],
        )
        compared += 1
    return compared


@pytest.mark.parametrize("mcpu", DEFAULT)
def test_lowering_is_what_clang_emits(mcpu):
    _check(mcpu)


@pytest.mark.slow
@pytest.mark.parametrize("mcpu", [p for p in KNOWN if p not in DEFAULT])
def test_lowering_is_what_clang_emits_everywhere(mcpu):
    _check(mcpu)
