"""--isa on asm, disasm, exec and eval: the verb's own ISA by default; an ISA without the verb is one line
naming the ISAs that have it (read from the front ends' verbs, not listed here)."""

import pytest

from intdot.cli import main
from intdot.isa.registry import front_ends


@pytest.mark.parametrize(
    "verb, arg",
    [
        ("asm", "sdot v0.4s, v1.16b, v2.16b"),
        ("disasm", "0x4e829420"),
        ("exec", "sdot v0.4s, v1.16b, v2.16b"),
        ("eval", "sdot4(1, 2, 3, false)"),
    ],
)
def test_isa_without_the_verb(capsys, verb, arg):
    have = [fe.isa for fe in front_ends() if verb in fe.verbs]
    lacking = [fe.isa for fe in front_ends() if verb not in fe.verbs]
    assert have and lacking
    for isa in lacking:
        assert main([verb, "--isa", isa, arg]) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"the ISAs that have it: {', '.join(have)}" in err
    assert main([verb, "--isa", have[0], arg]) == 0
    assert capsys.readouterr().out


def test_an_unknown_isa_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as info:
        main(["asm", "--isa", "mips", "nop"])
    assert info.value.code == 2 and "invalid choice: 'mips'" in capsys.readouterr().err


# Options only some ISAs read: given with another ISA, one line naming the ISA that reads them (never ignored).
# Each case: the command line that works, and the option that the chosen ISA does not read.
ARM_SDOT = "sdot v0.4s, v1.16b, v2.16b"
NOT_READ = [
    (["asm", ARM_SDOT], ["--mcpu", "gfx942"], "--mcpu applies to --isa amdgpu only", "--isa arm (the default)"),
    (["disasm", "44ba1c20"], ["--mcpu", "gfx942"], "--mcpu applies to --isa amdgpu only", "--isa arm (the default)"),
    (["exec", ARM_SDOT], ["--mcpu", "gfx942"], "--mcpu applies to --isa amdgpu only", "--isa arm (the default)"),
    (["eval", "sdot4(1,2,3,false)"], ["--set", "x=1"], "--set applies to --isa x86 only", "--isa amd (the default)"),
    (
        ["asm", "--isa", "amdgpu", "--mcpu", "gfx942", "v_dot2_i32_i16 v0, v1, v2, v3"],
        ["--fields"],
        "--fields applies to --isa arm only",
        "--isa amdgpu does not",
    ),
    (
        ["disasm", "--isa", "amdgpu", "--mcpu", "gfx942", "0x00,0x40,0xa8,0xd3,0x01,0x05,0x0e,0x04"],
        ["--json"],
        "--json applies to --isa arm only",
        "--isa amdgpu does not",
    ),
    (
        ["exec", "--isa", "amdgpu", "--mcpu", "gfx942", "v_dot2_i32_i16 v0, v1, v2, v3"],
        ["--vl", "256"],
        "--vl applies to --isa arm only",
        "--isa amdgpu does not",
    ),
    (
        ["exec", "--isa", "amdgpu", "--mcpu", "gfx942", "v_dot2_i32_i16 v0, v1, v2, v3"],
        ["--no-streaming"],
        "--no-streaming applies to --isa arm only",
        "--isa amdgpu does not",
    ),
    (["eval", "--isa", "x86", "_mm_dpbusd_epi32([0]*4, [1]*4, [2]*4)"], ["--clamp"], "--clamp applies", "amd"),
    (
        ["eval", "--isa", "x86", "_mm_dpbusd_epi32([0]*4, [1]*4, [2]*4)"],
        ["--profile", "llvm"],
        "--profile applies to --isa amd only",
        "--isa x86 does not",
    ),
    (["eval", "--isa", "x86", "_mm_dpbusd_epi32([0]*4, [1]*4, [2]*4)"], ["--fail-fast"], "--fail-fast applies", "amd"),
]


@pytest.mark.parametrize(
    ("works", "extra", "says", "isa"), NOT_READ, ids=lambda x: " ".join(x) if isinstance(x, list) else None
)
def test_an_option_the_isa_does_not_read_is_an_error(cli, works, extra, says, isa):
    rc, out, err = cli(*works)
    assert rc == 0 and out, err
    rc, out, err = cli(*works, *extra)
    assert rc == 1 and not out and err.count("\n") == 1, err
    assert err.startswith(f"intdot {works[0]}: error: {says}") and isa in err


def test_the_option_table_names_real_options_and_isas():
    from intdot.cli import build_parser, subcommand_parser
    from intdot.cli.isa_option import ONLY

    parser = build_parser()
    for verb, options in ONLY.items():
        flags = {f for a in subcommand_parser(parser, verb)._actions for f in a.option_strings}
        have = {fe.isa for fe in front_ends() if verb in fe.verbs}
        for flag, isas in options.items():
            assert flag in flags, (verb, flag)
            assert set(isas) <= have, (verb, flag, isas)
