"""The AMD tables on the ISA layer's encoding machinery (the machinery itself: tests/isa/test_encoding.py):
each generation's rows pass the table checks, and every row's lowest and highest field values come back
through the decision tables of its word width."""

from __future__ import annotations

import pytest

from intdot.amdgpu.asm import dispatches
from intdot.amdgpu.encodings import LAYOUTS, ROWS, rows_for
from intdot.isa.codec import corners
from intdot.isa.encoding import check_layout, check_overlaps

GENERATIONS = ("gfx9", "gfx10", "gfx11", "gfx12")


@pytest.mark.parametrize("generation", GENERATIONS)
def test_amd_tables(generation):
    rows = rows_for(generation)
    check_overlaps(rows)
    for r in rows:
        check_layout(r.name, r.layout)
    for dec in dispatches(rows):
        dec.self_check(corners)
        assert all(dec.row_of(r.layout.match) is r for r in dec.rows)
    assert len(LAYOUTS) == sum(len(rows_for(g)) for g in GENERATIONS)


def test_vop3p_op_sel_hi_is_split_high_part_first():
    # gfx10+ VOP3P: op_sel_hi bits 0-1 are bits 60-59 of the word, bit 2 is bit 14 (the AMD ISA manuals)
    lay = ROWS["gfx10", "v_dot4_i32_i8"].layout
    assert lay.encode({**dict.fromkeys(lay.fields, 0), "op_sel_hi": 0b100}) == lay.match | (1 << 14)
    assert lay.encode({**dict.fromkeys(lay.fields, 0), "op_sel_hi": 0b011}) == lay.match | (0b11 << 59)
