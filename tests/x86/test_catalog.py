"""The x86 records: one per instruction row, each spelling names exactly its record, the rules and specs read
back from the SDM reference's table (tests/x86/reference_x86.py), and the import stays lazy."""

from __future__ import annotations

import subprocess
import sys

import pytest

from intdot import catalog
from intdot.x86 import ROWS
from intdot.x86 import intrinsics as X
from tests.x86 import reference_x86 as ref


def test_one_record_per_row():
    recs = catalog.records("x86")
    assert [r.mnemonic for r in recs] == [r.mnemonic for r in ROWS]
    assert len(recs) == 21  # 4 VNNI + 6 VNNI-INT8 + 6 VNNI-INT16 + 4 AMX + the AVX2 idiom


def test_every_spelling_names_its_record_alone():
    for rec in catalog.records("x86"):
        for s in (rec.name, *rec.spellings):
            assert catalog.find_all(s) == (rec,), s


def test_every_vnni_intrinsic_is_a_spelling_of_its_instruction():
    for name, row in X.INTRINSICS.items():
        if row.mnemonic.startswith("pmadd"):  # the idiom's parts are not dword steps
            assert not any(name in r.spellings for r in catalog.records())
        else:
            assert catalog.find(name).mnemonic == row.mnemonic


def test_specs_and_rules_agree_with_the_sdm_table():
    for mn, (size, sa, sb, rule) in ref.VNNI.items():
        rec = catalog.find(mn)
        s = rec.spec
        assert (s.a_width, s.b_width, s.lanes) == (8 * size, 8 * size, 4 // size), mn
        assert (s.a_signed, s.b_signed, s.acc_signed) == (sa, sb, rule != "usat" and "uu" not in mn), mn
        assert rec.clamp == (rule != "wrap") and s.pair_sat is None, mn
    for mn, (sa, sb) in ref.AMX.items():
        rec = catalog.find(mn)
        assert (rec.spec.a_signed, rec.spec.b_signed, rec.clamp, rec.spec.lanes) == (sa, sb, False, 4)
    idiom = catalog.find("vpmaddubsw")
    assert (idiom.spec.pair_sat, idiom.clamp, idiom.rule) == (16, False, "pairs->s16 wrap")


def test_import_is_lazy():
    code = "import sys, intdot; print(any(m.startswith('intdot.x86') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize(
    ("name", "target", "ok"),
    [
        ("{vex} vpdpbusd", "cascadelake", False),  # SDM: VEX.128/256.66.0F38.W0 50 is CPUID AVX-VNNI's alone
        ("{vex} vpdpbusd", "alderlake", True),
        ("vpdpbusd", "cascadelake", True),
        ("{vex} vpdpwssds", "znver4", False),
        ("vpmaddubsw", "core2", False),  # VEX needs AVX; the legacy pmaddubsw needs SSSE3
        ("pmaddubsw", "core2", True),
        ("_tile_dpbusd", "sapphirerapids", True),
        ("_tile_dpbusd", "icelake-server", False),
    ],
)
def test_a_spelling_needs_what_its_encoding_needs(name, target, ok):
    assert catalog.available(name, target) is ok


def test_tile_op_takes_amx_mnemonics_only():
    from intdot.errors import UnknownInstruction
    from intdot.x86 import amx

    for bad in ("tdpfoo", "vpdpbusd"):
        with pytest.raises(UnknownInstruction, match="not an AMX-INT8 tile instruction"):
            amx.tile_op(bad, [[0]], [[0, 0, 0, 0]], [[0, 0, 0, 0]])
