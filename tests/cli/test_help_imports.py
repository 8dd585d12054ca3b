"""``intdot COMMAND --help`` is start-up time only: it builds one parser and imports no ISA front end
nor NumPy.  Each case runs in a fresh interpreter, since this process has long imported everything."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from intdot.cli import COMMANDS

HELPS = [[], *([c] for c in COMMANDS)]
FRONT_ENDS = ("intdot.amd.isa", "intdot.arm.isa", "intdot.x86.isa", "intdot.nvidia.isa", "intdot.amdgpu.isa")


def imported_by_help(argv: list[str]) -> set[str]:
    code = (
        "import json, sys\n"
        "from intdot.cli import main\n"
        "try:\n"
        f"    main({[*argv, '--help']!r})\n"
        "except SystemExit as exc:\n"
        "    assert exc.code == 0, exc.code\n"
        "print(json.dumps(sorted(sys.modules)), file=sys.stderr)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(json.loads(proc.stderr.strip().splitlines()[-1]))


@pytest.mark.parametrize("argv", HELPS, ids=[" ".join(a) or "intdot" for a in HELPS])
def test_help_imports_no_front_end(argv):
    modules = imported_by_help(argv)
    front = sorted(m for m in modules if m.startswith(FRONT_ENDS))
    assert front == [], front
    # Nor the disassembler's readers of binaries, listings and archives.
    assert not {"intdot.cli.arm_disasm", "intdot.cli.binary", "intdot.cli.listing"} & modules


@pytest.mark.parametrize("argv", HELPS, ids=[" ".join(a) or "intdot" for a in HELPS])
def test_help_imports_no_numpy(argv):
    assert "numpy" not in imported_by_help(argv)


def test_list_help_has_a_target_of_every_isa():
    """--target's help names targets by example (reading each front end's own words imports all five): each
    example must be a target, and every ISA must have one."""
    from intdot import catalog
    from intdot.cli.catalog import PROFILES, TARGET_EXAMPLES
    from intdot.core.errors import UnknownTarget
    from intdot.isa.registry import front_ends

    assert PROFILES == catalog.PROFILES
    covered = set()
    for name in TARGET_EXAMPLES:
        isas = set()
        for fe in front_ends():
            try:
                fe.target(name, "reference")
            except UnknownTarget:
                continue
            isas.add(fe.isa)
        assert isas, f"{name} is no ISA's target"
        covered |= isas
    assert covered == {fe.isa for fe in front_ends()}
