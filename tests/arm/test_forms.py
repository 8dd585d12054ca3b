"""The form table: its rows agree with the reference's "Instruction Forms"
table, and the load-time validation catches broken rows."""

from __future__ import annotations

import pytest

from intdot.arm import FORMS, Form
from intdot.arm import forms as F
from intdot.arm.insn import SEMANTIC_KINDS

# Opcode column of the reference's table (shared/spec/arm-sudot.txt); the NEON
# opcode has Q=0, the 128-bit form sets bit 30.
SPEC_OPCODES = {
    "sudot_neon_elem_64": 0x0F00F000,
    "sudot_neon_elem_128": 0x0F00F000 | 1 << 30,
    "sudot_sve_indexed": 0x44A01C00,
    "sudot_sme2_indexed_vgx2": 0xC1501038,
    "sudot_sme2_indexed_vgx4": 0xC1509038,
    "sudot_sme2_single_vgx2": 0xC1201418,
    "sudot_sme2_single_vgx4": 0xC1301418,
}

# Field widths and bit positions as the reference draws them (lsb of each slice).
SPEC_FIELDS = {
    "sudot_neon_elem_64": {"Rd": (4, 0), "Rn": (9, 5), "Rm": (19, 16), "M": (20, 20), "L": (21, 21), "H": (11, 11)},
    "sudot_sve_indexed": {"Zda": (4, 0), "Zn": (9, 5), "Zm": (18, 16), "i2": (20, 19)},
    "sudot_sme2_indexed_vgx2": {"off3": (2, 0), "Zn": (9, 6), "i2": (11, 10), "Rv": (14, 13), "Zm": (19, 16)},
    "sudot_sme2_indexed_vgx4": {"off3": (2, 0), "Zn": (9, 7), "i2": (11, 10), "Rv": (14, 13), "Zm": (19, 16)},
    "sudot_sme2_single_vgx2": {"off3": (2, 0), "Zn": (9, 5), "Rv": (14, 13), "Zm": (19, 16)},
}


def test_rows_are_the_reference_forms():
    assert {f.name for f in FORMS} == set(SPEC_OPCODES)
    for f in FORMS:
        assert isinstance(f, Form)
        assert f.layout.match == SPEC_OPCODES[f.name], f.name
        assert f.mnemonic == "sudot" and f.a_signed is True and f.b_signed is False
        assert f.kind in SEMANTIC_KINDS
        assert f.nvec == (2 if "vgx2" in f.name else 4 if "vgx4" in f.name else 1)


@pytest.mark.parametrize("name", sorted(SPEC_FIELDS))
def test_field_positions(name):
    slices = {s.name: (s.hi, s.lo) for s in F.form_named(name).layout.slices}
    assert slices == SPEC_FIELDS[name]


def test_operand_mappings():
    lay = F.form_named("sudot_sme2_indexed_vgx4").layout
    assert list(lay.fields["zn"].values) == list(range(0, 32, 4))
    assert list(lay.fields["wv"].values) == [8, 9, 10, 11]
    assert lay.fields["wv"].mapping == "offset register" and lay.fields["zn"].mapping == "scaled register"
    neon = F.form_named("sudot_neon_elem_128").layout
    assert neon.fields["vm"].spec == "M:Rm" and list(neon.fields["vm"].values) == list(range(32))
    assert neon.fields["index"].extract(1 << 11) == 2  # H is the high bit of H:L
    assert neon.fields["index"].extract(1 << 21) == 1
    assert neon.consts == {"q": 1}


def test_executor_contract_ops():
    """The ops names the executor reads (documented in intdot.arm.insn)."""
    want = {
        "neon_dot_elem": {"vd", "vn", "vm", "index", "q"},
        "sve_dot_indexed": {"zda", "zn", "zm", "index"},
        "sme2_dot_indexed": {"wv", "off", "zn", "zm", "index"},
        "sme2_dot_single": {"wv", "off", "zn", "zm"},
    }
    for f in FORMS:
        assert set(f.layout.fields) | set(f.layout.consts) == want[f.kind]


def _row(**change):
    row = dict(F._ROWS[2])
    row.update(change)
    return row


@pytest.mark.parametrize("change, message", [
    (dict(bits="01000100 1 0 1 i2:2 Zm:3 00011 1 Zn:5 Zda:4"), "covers 31 bits"),
    (dict(bits="01000100 1 0 1 i2:2 Zm:3 00011 1 Zn:5 Zda:5 1"), "more than 32 bits"),
    (dict(bits="01000100 1 0 1 i2:2 Zm:3 0001x 1 Zn:5 Zda:5"), "bad token"),
    (dict(fields={"zda": "Zda", "zn": "Zn", "zm": "Zm", "index": "i3"}), "unknown slice"),
    (dict(fields={"zda": "Zda", "zn": "Zn", "zm": "Zm"}), "every slice must belong"),
    (dict(fields={"zda": "Zda", "zn": "Zn", "zm": "Zm", "index": "i2", "x": "i2"}), "every slice must belong"),
    (dict(syntax="sudot z{zda}.s, z{zn}.b, z{zm}.b"), "template shows"),
    (dict(syntax="sudot z{zda}.s, z{zn}.b, q{zm}.b[{index}]"), "cannot read template"),
])
def test_validation_rejects_broken_rows(change, message):
    with pytest.raises(F.FormTableError, match=message):
        F.validate((F._build(_row(**change)),))


def test_validation_rejects_overlapping_rows():
    wider = F._build(_row(name="other", bits="01000100 1 0 1 i2:2 Zm:3 00011 Zx:1 Zn:5 Zda:5",
                          fields={"zda": "Zda", "zn": "Zn", "zm": "Zm", "index": "i2", "x": "Zx"},
                          syntax="sudot z{zda}.s, z{zn}.b, z{zm}.b[{index}], z{x}.b"))
    with pytest.raises(F.FormTableError, match="overlap"):
        F.validate(FORMS + (wider,))
    with pytest.raises(F.FormTableError, match="duplicate"):
        F.validate(FORMS + (FORMS[0],))


def test_a_new_row_is_all_it_takes():
    """An SVE SDOT-like row with other fixed bits decodes and prints through the same code."""
    from intdot.arm import asm

    sdot = F._build(_row(name="sdot_sve_indexed", mnemonic="sdot", a_signed=True, b_signed=True,
                         bits="01000100 1 0 1 i2:2 Zm:3 00000 0 Zn:5 Zda:5",
                         syntax="sdot z{zda}.s, z{zn}.b, z{zm}.b[{index}]"))
    F.validate(FORMS + (sdot,))
    insn = asm.Insn(sdot, {"zda": 0, "zn": 1, "zm": 7, "index": 3})
    assert asm.encode(insn) == 0x44BF0020  # arm_llvm_mc.tsv: sdot z0.s, z1.b, z7.b[3]
    assert asm.format_insn(insn) == "sdot z0.s, z1.b, z7.b[3]"


def test_a_za_d_row_reads_its_suffix_from_the_template():
    """The ZA operand's element suffix comes from the template (``za.d`` for the 16-bit SDOT
    into 64-bit lanes), not from a ``.s`` written into the reader."""
    from intdot.arm import asm

    row = F._build(dict(
        name="sdot_sme2_za64_indexed_vgx2", mnemonic="sdot", kind="sme2_dot_indexed", nvec=2,
        a_signed=True, b_signed=True, feature="sme2+sme-i16i64",
        bits="110000011101 Zm:4 0 Rv:2 0 0 i1:1 Zn:4 0 0 1 off3:3",
        fields={"wv": "Rv+8", "off": "off3", "zn": "Zn*2", "zm": "Zm", "index": "i1"},
        syntax="sdot za.d[w{wv}, {off}, vgx2], { z{zn}.h x2 }, z{zm}.h[{index}]"))
    F.validate(FORMS + (row,))
    assert row.layout.operands[0].suffix == "d"
    insn = asm.Insn(row, {"wv": 9, "off": 5, "zn": 2, "zm": 15, "index": 1})
    # llvm-mc-19 -mattr=+sme2,+sme-i16i64: sdot za.d[w9, 5, vgx2], { z2.h, z3.h }, z15.h[1] -> [0x4d,0x24,0xdf,0xc1]
    assert asm.encode(insn) == 0xC1DF244D
    assert asm.format_insn(insn) == "sdot za.d[w9, 5, vgx2], { z2.h, z3.h }, z15.h[1]"
