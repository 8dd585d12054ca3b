"""The indefinite article of words that messages put after 'a'/'an' (a user review found "is not a Arm target",
"each is a 8-bit lane", "expected a int8 value").  The expected articles are English, written out here."""

from __future__ import annotations

import numpy as np
import pytest

from intdot.core.values import a_or_an

SPOKEN = {
    # ISA and vendor names, acronyms spelt letter by letter
    "Arm": "an",
    "AMD": "an",
    "x86": "an",
    "NVIDIA": "an",
    "SME2": "an",
    "CPU": "a",
    "GPU": "a",
    # C and NumPy type names
    "int8": "an",
    "int8_t": "an",
    "int16": "an",
    "uint8": "a",
    "uint8_t": "a",
    "ushort2": "a",
    "short2": "a",
    "char4": "a",
    "unsigned": "an",
    "ndarray": "an",
    "float": "a",
    "list": "a",
    "bool": "a",
    # widths: eight, eleven, eighteen, eighty, eight hundred; sixteen, one hundred twenty-eight
    "8-bit": "an",
    "11-bit": "an",
    "18-bit": "an",
    "80-bit": "an",
    "800-bit": "an",
    "16-bit": "a",
    "32-bit": "a",
    "64-bit": "a",
    "128-bit": "a",
    "1-D": "a",
    "8-D": "an",
    # plain words
    "architecture": "an",
    "processor": "a",
    "element": "an",
    "unit": "a",
}


@pytest.mark.parametrize(("word", "article"), SPOKEN.items())
def test_a_or_an(word, article):
    assert a_or_an(word) == f"{article} {word}"


def test_messages_use_the_right_article(capsys):
    from intdot.arm import acle
    from intdot.cli import main

    assert main(["available", "vdotq_s32", " "]) == 1
    assert "is not an Arm target" in capsys.readouterr().err
    assert main(["eval", "--isa", "x86", "_mm_dpbusd_epi32([0]*4, [300]*16, [1]*16)"]) == 1
    assert "each is an 8-bit lane" in capsys.readouterr().err
    with pytest.raises(ValueError, match="expected an int8 value"):
        acle.svdot_n_s32(np.zeros(4, np.int32), np.zeros(16, np.int8), 300)
