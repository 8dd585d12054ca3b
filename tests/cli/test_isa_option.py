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
