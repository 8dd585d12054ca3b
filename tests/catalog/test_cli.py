"""``intdot list`` and ``intdot available`` through ``intdot.cli.main``."""

from __future__ import annotations

import json

import pytest

from intdot import amd, arm, catalog
from intdot.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_list_shows_every_record(capsys):
    code, out, err = run(capsys, "list")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == f"{len(catalog.records())} instructions"
    assert len(catalog.records()) >= len(amd.BUILTINS) + len(arm.FORMS)
    names = [line.split()[0] for line in lines[2:]]
    assert names == [r.name for r in catalog.records()]
    row = next(line for line in lines if line.startswith("amd.sudot8 "))
    assert "8 x ?4 . 8 x ?4" in row and "s32" in row and "dot8-insts" in row and "__builtin_amdgcn_sudot8" in row
    row = next(line for line in lines if line.startswith("arm.sudot_sve_indexed "))
    assert "4 x s8 . 4 x u8" in row and "i8mm+(sve|sme)" in row


def test_list_arm_shows_features(capsys):
    code, out, _ = run(capsys, "list", "--isa", "arm", "--syntax")
    assert code == 0
    body = out.splitlines()[2:]
    assert len(body) == len(arm.FORMS)
    for line, form in zip(body, arm.FORMS):
        assert line.startswith(f"arm.{form.name} ")
        assert form.features in line
        assert line.rstrip().endswith(catalog.find(f"arm.{form.name}").syntax)


def test_list_json_round_trips(capsys):
    code, out, _ = run(capsys, "list", "--json")
    assert code == 0
    data = json.loads(out)
    assert [d["name"] for d in data] == [r.name for r in catalog.records()]
    sudot4 = next(d for d in data if d["name"] == "amd.sudot4")
    assert sudot4["spec"] == {
        "a_width": 8,
        "b_width": 8,
        "lanes": 4,
        "a_signed": None,
        "b_signed": None,
        "acc_bits": 32,
        "acc_signed": True,
    }
    assert sudot4["sign_args"] is True and sudot4["neg"] is None and sudot4["k_step"] == [4, 4]


@pytest.mark.parametrize(
    "target, profile, isa",
    [
        ("gfx1100", "llvm", "amd"),
        ("RDNA2", "reference", "amd"),
        ("RDNA2", "llvm", "amd"),
        ("neoverse-v2", "reference", "arm"),
        ("armv8.2-a+dotprod", "reference", "arm"),
        ("apple-m4", "llvm", "arm"),
    ],
)
def test_list_target_filters_by_availability(capsys, target, profile, isa):
    code, out, _ = run(capsys, "list", "--target", target, "--profile", profile)
    assert code == 0
    expected = [r.name for r in catalog.records(isa) if catalog.available(r, target, profile=profile)]
    lines = out.splitlines()
    ISA = {"amd": "AMD", "arm": "Arm"}[isa]
    assert lines[0].startswith(f"{len(expected)} of {len(catalog.records(isa))} instructions ({ISA}) are available")
    assert [line.split()[0] for line in lines[2:]] == expected


@pytest.mark.parametrize(
    "argv, words",
    [
        (["sdot", "--target", "gfx942"], "'sdot' names only Arm instructions, and --target gfx942 is an AMD target"),
        (
            ["sdot4", "--target", "neoverse-v2"],
            "'sdot4' names only AMD instructions, and --target neoverse-v2 is an Arm",
        ),
    ],
)
def test_list_names_of_one_isa_with_a_target_of_the_other(capsys, argv, words):
    code, out, err = run(capsys, "list", *argv)
    assert code == 1 and out == "" and words in err and len(err.splitlines()) == 1


def test_list_counts_one_instruction_in_the_singular(capsys):
    assert run(capsys, "list", "svsudot_s32")[1].splitlines()[0] == "1 instruction"
    assert run(capsys, "list", "sdot4", "--target", "gfx942")[1].splitlines()[0].startswith("1 of 1 instruction (AMD)")


def test_list_names(capsys):
    code, out, _ = run(capsys, "list", "sdot4", "__builtin_amdgcn_sdot4", "vsudotq_lane_s32", "--json")
    assert code == 0
    assert [d["name"] for d in json.loads(out)] == ["amd.sdot4", "arm.sudot_neon_elem_128"]


def test_list_targets(capsys):
    code, out, _ = run(capsys, "list", "--targets", "--json")
    assert code == 0
    data = {(t["isa"], t["name"]): t for t in json.loads(out)}
    assert data["arm", "apple-m4"]["features"] == ["simd", "dotprod", "i8mm", "sme", "sme2", "sme-i16i64"]
    assert data["arm", "neoverse-v2"]["base"] == "armv9-a"
    assert data["amd", "gfx942"]["features"] == ["dot1-insts", "dot2-insts", "dot7-insts"]
    code, out, _ = run(capsys, "list", "--targets", "--isa", "arm")
    assert code == 0 and "cortex-x925" in out and "gfx942" not in out


def test_available(capsys):
    code, out, err = run(capsys, "available", "vsudotq_lane_s32", "armv8.6-a")
    assert code == 0 and out.startswith("arm.sudot_neon_elem_128 is available on armv8.6-a") and err == ""
    code, out, err = run(capsys, "available", "vsudotq_lane_s32", "cortex-a78")
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "cortex-a78 lacks i8mm" in err and err.startswith("intdot available: error:")
    code, out, err = run(capsys, "available", "sdot4", "GFX942", "--profile", "llvm")
    assert code == 0 and out == "amd.sdot4 is available on gfx942 (llvm profile; needs dot1-insts)\n"
    code, out, err = run(capsys, "available", "sdot4", "cdna3")
    assert code == 0 and out == "amd.sdot4 is available on CDNA3 (reference profile)\n"
    code, out, err = run(capsys, "available", "sudot4", "gfx1030", "--profile", "llvm")
    assert code == 1 and "dot8-insts" in err
    code, out, err = run(capsys, "available", "sudot z0.s, z1.b, z2.b[0]", "neoverse-v1")
    assert code == 0 and "arm.sudot_sve_indexed" in out


def test_available_for_a_name_of_several_instructions(capsys):
    # 'sdot' names 28 forms (it raised AmbiguousInstruction listing all of them): the NEON ones are on N1.
    code, out, err = run(capsys, "available", "sdot", "neoverse-n1")
    assert code == 0 and err == ""
    assert out == (
        "sdot: 4 of the 28 instructions it names are available on neoverse-n1: arm.sdot_neon_vec_64, "
        "arm.sdot_neon_vec_128, arm.sdot_neon_elem_64, arm.sdot_neon_elem_128\n"
    )
    code, out, err = run(capsys, "available", "usdot", "cortex-a78")
    assert code == 1 and out == "" and err.count("\n") == 1
    assert "none of the 12 instructions 'usdot' names is available on cortex-a78" in err and "lacks i8mm" in err


@pytest.mark.parametrize(
    "argv, words",
    [
        (["list", "--target", "gfx9999"], "neither an AMD target"),
        (["list", "--target", "neoverse-v9", "--isa", "arm"], "did you mean neoverse-v3"),
        (["list", "sdot5"], "did you mean"),
        (["available", "sdot4", "neoverse-v2"], "is an AMD builtin"),
        (["available", "xyzzy", "gfx942"], "not in intdot's catalog"),
    ],
)
def test_errors_are_one_line(capsys, argv, words):
    code, out, err = run(capsys, *argv)
    assert code == 1 and out == "" and words in err
    assert err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize("argv", [["list", "--isa", "mips"], ["available", "sdot4"], ["list", "--bogus"]])
def test_usage_errors(capsys, argv):
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own way out
        code = exc.code
    assert code == 2 and "usage:" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["list", "available"])
def test_help(capsys, command):
    with pytest.raises(SystemExit) as info:
        main([command, "--help"])
    out = capsys.readouterr().out
    assert info.value.code == 0 and "exit status" in out and "examples:" in out


def test_an_answer_that_the_other_profile_contradicts_says_so_on_its_line(capsys):
    # Issue 13 item 6: the reference profile says yes and clang says no (sudot4 on gfx1030), or the reverse.
    code, out, err = run(capsys, "available", "sudot4", "gfx1030")
    assert code == 0 and out.count("\n") == 1 and "clang-19 refuses __builtin_amdgcn_sudot4" in out
    assert "dot8-insts" in out
    code, out, err = run(capsys, "available", "sdot4", "gfx1030")
    assert code == 1 and err.count("\n") == 1 and "clang-19 accepts __builtin_amdgcn_sdot4 there" in err
    code, out, err = run(capsys, "available", "sudot4", "gfx1030", "--json")
    assert code == 0 and json.loads(out)["note"].startswith("clang-19 refuses")


def test_notes_appear_exactly_where_the_profiles_differ():
    from intdot import amd, catalog

    for rec in catalog.records("amd"):
        for t in amd.FAMILIES + amd.processors("reference"):
            ref = catalog.available(rec, t)
            llvm = catalog.available(rec, t, profile="llvm")
            assert bool(catalog.status(rec, t).note) == (ref != llvm), (rec.name, t)


def test_list_equivalent(capsys):
    code, out, err = run(capsys, "list", "--equivalent", "vsudotq_lane_s32")
    assert code == 0 and err == ""
    assert "amd.sudot4 (a_signed=True, b_signed=False; clamp=False)" in out
    assert "arm.usdot_sve_vec (sources exchanged)" in out
    code, out, err = run(capsys, "list", "--equivalent", "sudot4", "--json", "--isa", "arm")
    data = json.loads(out)
    assert code == 0 and data["name"] == "amd.sudot4" and {e["isa"] for e in data["equivalents"]} == {"arm"}


def test_table_plot(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    code, out, err = run(capsys, "table", "--plot", str(tmp_path / "eq"))
    assert code == 0 and out == f"plot written to {tmp_path / 'eq.png'}\n"
    assert (tmp_path / "eq.png").read_bytes()[:4] == b"\x89PNG"
    code, out, err = run(capsys, "table", "--plot", str(tmp_path / "eq.txt"))
    assert code == 1 and ".txt is not an image format" in err and not (tmp_path / "eq.txt").exists()


def test_available_says_streaming_mode_only(capsys):
    # Issue 15 item 4: clang-19 refuses svdot_s32_s16 outside a streaming function on an SME2-only target.
    code, out, err = run(capsys, "available", "svdot_s32_s16", "armv9.2-a+sme2")
    assert code == 0 and out.count("\n") == 1 and "in streaming mode only" in out
    code, out, err = run(capsys, "available", "svdot_s32_s16", "armv9.2-a+sme2", "--mode", "normal")
    assert code == 1 and "outside streaming mode" in err and "lacks sve2p1" in err
    code, out, err = run(capsys, "available", "svdot_s32", "apple-m4", "--json")
    assert code == 0 and json.loads(out)["mode"] == "streaming"
    code, out, err = run(capsys, "available", "vdotq_s32", "cortex-a78")
    assert code == 0 and out == "arm.sdot_neon_vec_128 is available on cortex-a78 (needs dotprod)\n"
