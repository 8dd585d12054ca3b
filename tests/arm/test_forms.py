"""The form table: its rows are the contract's (ids, kinds, specs, features,
operands), the families are strict, and the load-time validation catches
broken rows.  Encodings and texts are checked against independent oracles in
test_asm_reference.py, test_llvm_vectors.py and test_llvm_mc.py."""

from __future__ import annotations

import random
import re

import pytest

from intdot.arm import FORMS, SEMANTIC_KINDS, Form, Insn, codec, families, form_named, forms
from intdot.arm.syntax import format_insn, parse
from intdot.errors import UnknownInstruction
from intdot.isa.codec import Dispatch
from intdot.isa.encoding import TableError

from .arm_forms import ORIGINAL_IDS

SIGNS = {"sdot": (True, True), "udot": (False, False), "usdot": (False, True), "sudot": (True, False)}
ID = re.compile(
    r"(sdot|udot|usdot|sudot)_(neon_vec|neon_elem|sve_vec|sve_indexed|sme2_single|sme2_multi|"
    r"sme2_indexed)(_d|_hs)?(_64|_128|_vgx2|_vgx4)?$"
)


def expected(name: str) -> dict:
    """What the contract says a row with this id is."""
    mnemonic, family, elem, size = ID.match(name).groups()
    isa, how = family.split("_", 1)
    kind = {"neon": f"neon_dot_{how}", "sve": f"sve_dot_{how}", "sme2": f"sme2_dot_{how}"}[isa]
    shape = {None: (8, 4, 32), "_d": (16, 4, 64), "_hs": (16, 2, 32)}[elem]
    mixed = mnemonic in ("usdot", "sudot")
    features = {
        "neon": "i8mm" if mixed else "dotprod",
        "sve": "i8mm+(sve|sme)" if mixed else "sve2p1|sme2" if elem == "_hs" else "sve|sme",
        "sme2": "sme2+sme-i16i64" if elem == "_d" else "sme2",
    }[isa]
    return dict(
        mnemonic=mnemonic,
        kind=kind,
        shape=shape,
        features=features,
        nvec=int(size[-1]) if size and "vgx" in size else 1,
        signs=SIGNS[mnemonic],
    )


def test_the_contract_list_of_forms():
    names = [f.name for f in FORMS]
    assert len(names) == len(set(names)) == 75
    assert set(ORIGINAL_IDS) <= set(names)
    counts = {}
    for name in names:
        isa = name.split("_")[1]
        counts[isa] = counts.get(isa, 0) + 1
    assert counts == {"neon": 14, "sve": 15, "sme2": 46}


@pytest.mark.parametrize("form", FORMS, ids=lambda f: f.name)
def test_row_is_what_its_id_says(form):
    want = expected(form.name)
    assert isinstance(form, Form) and form_named(form.name) is form
    assert form.mnemonic == want["mnemonic"] and form.kind == want["kind"] and form.kind in SEMANTIC_KINDS
    s = form.spec
    assert (s.a_width, s.lanes, s.acc_bits) == want["shape"] and s.b_width == s.a_width
    assert (s.a_signed, s.b_signed) == (form.a_signed, form.b_signed) == want["signs"]
    assert s.acc_signed == (form.mnemonic != "udot")
    assert form.features == want["features"]
    assert form.nvec == want["nvec"]


def test_executor_contract_ops():
    want = {
        "neon_dot_vec": {"vd", "vn", "vm", "q"},
        "neon_dot_elem": {"vd", "vn", "vm", "index", "q"},
        "sve_dot_vec": {"zda", "zn", "zm"},
        "sve_dot_indexed": {"zda", "zn", "zm", "index"},
        "sme2_dot_single": {"wv", "off", "zn", "zm"},
        "sme2_dot_multi": {"wv", "off", "zn", "zm"},
        "sme2_dot_indexed": {"wv", "off", "zn", "zm", "index"},
    }
    for f in FORMS:
        assert set(f.layout.fields) | set(f.layout.consts) == want[f.kind], f.name
        if "neon" in f.name:
            assert f.layout.consts == {"q": int(f.name.endswith("_128"))}


def test_operand_values():
    lay = form_named("sudot_sme2_indexed_vgx4").layout
    assert list(lay.fields["zn"].values) == list(range(0, 32, 4))
    assert list(lay.fields["wv"].values) == [8, 9, 10, 11]
    assert lay.fields["wv"].mapping == "offset register" and lay.fields["zn"].mapping == "scaled register"
    neon = form_named("sudot_neon_elem_128").layout
    assert neon.fields["vm"].spec == "M:Rm" and list(neon.fields["vm"].values) == list(range(32))
    assert neon.fields["index"].extract(1 << 11) == 2  # H is the high bit of H:L
    assert neon.fields["index"].extract(1 << 21) == 1
    multi = form_named("udot_sme2_multi_d_vgx4").layout
    assert list(multi.fields["zm"].values) == list(range(0, 32, 4))
    assert list(form_named("sdot_sve_indexed_d").layout.fields["zm"].values) == list(range(16))
    assert list(form_named("sdot_sve_indexed_hs").layout.fields["zm"].values) == list(range(8))


# Field positions of the SUDOT rows as the reference (shared/spec/arm-sudot.txt) draws them.
SPEC_FIELDS = {
    "sudot_neon_elem_64": {"Rd": (4, 0), "Rn": (9, 5), "Rm": (19, 16), "M": (20, 20), "L": (21, 21), "H": (11, 11)},
    "sudot_sve_indexed": {"Zda": (4, 0), "Zn": (9, 5), "Zm": (18, 16), "i": (20, 19)},
    "sudot_sme2_indexed_vgx2": {"off3": (2, 0), "Zn": (9, 6), "i": (11, 10), "Rv": (14, 13), "Zm": (19, 16)},
    "sudot_sme2_indexed_vgx4": {"off3": (2, 0), "Zn": (9, 7), "i": (11, 10), "Rv": (14, 13), "Zm": (19, 16)},
    "sudot_sme2_single_vgx2": {"off3": (2, 0), "Zn": (9, 5), "Rv": (14, 13), "Zm": (19, 16)},
}


@pytest.mark.parametrize("name", sorted(SPEC_FIELDS))
def test_field_positions(name):
    assert {s.name: (s.hi, s.lo) for s in form_named(name).layout.slices} == SPEC_FIELDS[name]


@pytest.mark.parametrize("form", FORMS, ids=lambda f: f.name)
def test_print_parse_round_trip(form):
    """Every row's template reads back what it prints: at the fields' corners and at random."""
    rng = random.Random(form.name)
    lay = form.layout
    for k in range(12):
        pick = {0: lambda v: v[0], 1: lambda v: v[-1]}.get(k, rng.choice)
        insn = Insn(form, {**{op: pick(f.values) for op, f in lay.fields.items()}, **lay.consts})
        assert parse(format_insn(insn)) == insn
        assert codec.decode(codec.encode(insn)) == insn


# -- the families: strict instances, one line per row --------------------------------


def test_an_instance_is_one_line():
    extra = forms.SVE_INDEXED("xdot_demo", "sdot", op="000010")  # a made-up opcode of the family
    families.validate(FORMS + (extra,))
    insn = Insn(extra, {"zda": 0, "zn": 1, "zm": 7, "index": 3})
    assert codec.encode(insn) == 0x44BF0820
    assert format_insn(insn, check=False) == "sdot z0.s, z1.b, z7.b[3]"
    assert extra.spec == form_named("sdot_sve_indexed").spec and extra.features == "sve|sme"


@pytest.mark.parametrize(
    "args, kwargs, message",
    [
        (("x", "sdot"), dict(op="000000", size=1), r"unknown \['size'\]"),
        (("x", "sdot"), dict(), r"missing \['op'\]"),
        (("x", "fdot"), dict(op="000000"), "mnemonic 'fdot' is not one of"),
        (("x", "sdot"), dict(op="0000"), "covers 30 bits"),
        (("x", "sdot"), dict(op="00000x"), "bad token"),
    ],
)
def test_instances_are_strict(args, kwargs, message):
    with pytest.raises(TableError, match=message):
        forms.SVE_INDEXED(*args, **kwargs)


def test_derived_parameters_are_checked():
    with pytest.raises(TableError, match="Q=2 is not one of"):
        forms.NEON_VEC("x", "sdot", Q=2, U=0, op="0010")


def _family(**change):
    base = dict(
        name="t",
        kind="sve_dot_indexed",
        shape=(8, 4, 32),
        features="sve",
        bits="01000100 1 0 1 i:2 Zm:3 $op Zn:5 Zda:5",
        fields={"zda": "Zda", "zn": "Zn", "zm": "Zm", "index": "i"},
        syntax="z{zda}.s, z{zn}.b, z{zm}.b[{index}]",
    )
    base.update(change)
    return families.Family(**base)("t_row", "sdot", op="000000")


@pytest.mark.parametrize(
    "change, message",
    [
        (dict(bits="01000100 1 0 1 i:2 Zm:3 $op Zn:5 Zda:4"), "covers 31 bits"),
        (dict(bits="01000100 1 0 1 i:2 Zm:3 $op Zn:5 Zda:5 1"), "more than 32 bits"),
        (dict(fields={"zda": "Zda", "zn": "Zn", "zm": "Zm", "index": "i3"}), "unknown slice"),
        (dict(fields={"zda": "Zda", "zn": "Zn", "zm": "Zm"}), "every slice must belong"),
        (dict(fields={"zda": "Zda", "zn": "Zn", "zm": "Zm", "index": "i", "x": "i"}), "every slice must belong"),
        (dict(syntax="z{zda}.s, z{zn}.b, z{zm}.b"), "template shows"),
        (dict(syntax="z{zda}.s, z{zn}.b, q{zm}.b[{index}]"), "cannot read template"),
        (dict(kind="sve_dot_sideways"), "unknown kind"),
    ],
)
def test_validation_rejects_broken_rows(change, message):
    with pytest.raises(TableError, match=message):
        families.validate((_family(**change),))


def test_validation_rejects_overlapping_rows():
    wider = families.Family(
        "wide",
        kind="sve_dot_indexed",
        shape=(8, 4, 32),
        features="sve",
        bits="01000100 1 0 1 i:2 Zm:3 00011 1 Zn:5 Zx:5",  # SUDOT's fixed bits, another template
        fields={"zda": "Zx", "zn": "Zn", "zm": "Zm", "index": "i"},
        syntax="z{zda}.s, z{zm}.b, z{zn}.b[{index}]",
    )("wide_row", "sudot")
    with pytest.raises(TableError, match="overlap"):
        families.validate(FORMS + (wider,))
    families.validate(FORMS + (wider,), aliases=frozenset({frozenset({"wide_row", "sudot_sve_indexed"})}))
    with pytest.raises(TableError, match="duplicate"):
        families.validate(FORMS + (FORMS[0],))


# -- the decoder's decision table ------------------------------------------------------


def test_decoding_dispatches_on_key_bits():
    table = codec.dispatch()
    width = sum(w for _, w, _ in table.runs)
    assert width <= 16 and len(table.table) == 1 << width
    # every row owns at least one key, and each key names at most one row (by construction)
    assert set(table.table.tolist()) - {-1} == set(range(len(FORMS)))
    for f in FORMS:
        assert table.row_of(f.layout.match) is f


def test_a_table_the_key_bits_cannot_split_is_refused():
    twin = forms.SVE_INDEXED("twin", "sdot", op="000000")
    with pytest.raises(TableError, match="cannot be told apart"):
        Dispatch((form_named("sdot_sve_indexed"), twin))


@pytest.mark.parametrize("name", ["sudot_sve_idx", "nope", 3, None])
def test_an_unknown_row_id_is_named(name):
    """Was a bare KeyError('sudot_sve_idx')."""
    with pytest.raises(UnknownInstruction, match=rf"name={name!r} is not the id of a row"):
        form_named(name)


def test_a_near_miss_row_id_gets_suggestions():
    with pytest.raises(UnknownInstruction, match="did you mean sudot_sve_indexed"):
        form_named("sudot_sve_idx")


def test_the_catalogs_spelling_of_a_row_id():
    assert form_named("arm.sudot_sve_indexed") is form_named("sudot_sve_indexed")
