"""The amdgpu front end as the ISA layer and the catalog see it: records, targets, availability messages,
and its tables' agreement with the builtins' (intdot.amd)."""

from __future__ import annotations

import pytest

from intdot import catalog
from intdot.amd.targets import PROCESSOR_FEATURES
from intdot.amdgpu.encodings import LAYOUTS, ROWS
from intdot.amdgpu.instructions import INSTRUCTIONS
from intdot.amdgpu.targets import FEATURES, GENERATION, PROCESSORS, check_mcpu
from intdot.errors import UnknownTarget
from intdot.isa.registry import front_end


def test_processors_and_features_agree_with_the_builtins_table():
    assert PROCESSORS == tuple(PROCESSOR_FEATURES)
    shared = {"dot1-insts", "dot2-insts", "dot7-insts", "dot8-insts"}
    for p in PROCESSORS:
        assert FEATURES[p] & shared == PROCESSOR_FEATURES[p], p


def test_records():
    recs = catalog.records("amdgpu")
    assert [r.mnemonic for r in recs] == [row.mnemonic for row in INSTRUCTIONS]
    rec = catalog.find("v_dot4c_i32_i8_e64")
    assert rec.name == "amdgpu.v_dot4c_i32_i8" and rec.clamp is None and rec.neg is False
    iu = catalog.find("v_dot8_i32_iu4")
    assert iu.sign_args and iu.spec_for(True, False).a_signed and not iu.spec_for(True, False).b_signed
    assert catalog.find("v_dot4_i32_iu8 v0, v1, v2, v3 neg_lo:[1,1,0]").name == "amdgpu.v_dot4_i32_iu8"


@pytest.mark.parametrize(
    "name, target, ok",
    [
        ("v_dot4_i32_iu8", "gfx1100", True),
        ("v_dot4_i32_i8", "gfx1100", False),  # gfx11 has no dot1-insts
        ("v_dot4c_i32_i8", "gfx1030", True),
        ("v_dot2c_i32_i16", "gfx1030", False),
        ("v_dot8c_i32_i4", "gfx942", True),
        ("v_dot2_i32_i16", "gfx900", False),
        ("v_dot8_u32_u4", "gfx1251", True),
    ],
)
def test_availability(name, target, ok):
    assert catalog.available(name, target) is ok
    answer = catalog.status(name, target)
    assert answer.ok is ok
    if not ok:
        assert name in answer.why and target in answer.why and "processors that have it" in answer.why


def test_where_and_unknown_targets():
    assert front_end("amdgpu").where(catalog.find("v_dot2c_i32_i16"), "reference") == (
        "gfx908",
        "gfx90a",
        "gfx940",
        "gfx941",
        "gfx942",
        "gfx950",
    )
    with pytest.raises(UnknownTarget, match="gfx1030"):
        check_mcpu("gfx103")
    with pytest.raises(UnknownTarget, match="llvm-mc 19 does not know"):
        check_mcpu("gfx950", encodings=True)


def test_every_instruction_has_a_row_in_each_generation_it_lists():
    for ins in INSTRUCTIONS:
        for g in ins.opcodes:
            assert (g, ins.mnemonic) in ROWS
    assert len({r.name for r in LAYOUTS}) == len(LAYOUTS)
    assert set(GENERATION.values()) == {"gfx9", "gfx10", "gfx11", "gfx12"}
