"""docs/catalog.md: its console sessions run and its tables say what the code says (its ``>>>`` examples and
the catalog modules' docstrings run in tests/test_docs.py)."""

from __future__ import annotations

import doctest
import pathlib
import re

import pytest

from intdot.cli import main

from ..amd.test_docs import sessions  # the console blocks' ($ command, output) pairs

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "catalog.md"
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
DOT = ("dotprod", "i8mm", "sve", "sve2", "sve2p1", "sme", "sme2", "sme-i16i64")


@pytest.mark.parametrize("argv, expected", list(sessions(DOC.read_text())))
def test_console_examples(capsys, argv, expected):
    rc = main(argv)
    out, err = capsys.readouterr()
    assert (out + err).splitlines() == expected
    assert rc == (1 if err else 0)


def table(heading: str) -> list[tuple[str, str]]:
    """The (first cell, second cell) rows of the two-column table under ``heading``, header excluded."""
    section = DOC.read_text().split(heading, 1)[1].split("\n#")[0]
    rows = re.findall(r"^\| ([^|]+) \| ([^|]+) \|$", section, re.M)
    return [(a.strip(), b.strip()) for a, b in rows[1:]]


def features(t) -> str:
    from intdot.arm.targets import target

    return " ".join(f for f in DOT if f in target(t).features) or "-"


def test_architecture_table_matches_the_code():
    from intdot.arm.targets import ARCHS

    seen = []
    for archs, feats in table("### Arm architecture versions"):
        for arch in archs.split(", "):
            assert features(arch) == feats, arch
            seen.append(arch)
    assert sorted(seen) == sorted(ARCHS)


def test_core_table_matches_the_code():
    from intdot.arm.targets import CORES

    seen = []
    for feats, cores in table("### Named Arm cores"):
        for core in cores.split(", "):
            assert features(core) == feats, core
            seen.append(core)
    assert sorted(seen) == sorted(CORES)
