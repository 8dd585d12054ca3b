"""The generic encoding machinery (intdot.amdgpu.encoding): families, table validation, the decision-table
decoder (one word and arrays), on toy tables and on the AMD tables themselves."""

from __future__ import annotations

import numpy as np
import pytest

from intdot.amdgpu.encoding import Decoder, EncodingTableError, Family, validate
from intdot.amdgpu.encodings import LAYOUTS, rows_for

TOY = Family("toy", 32, "1010 $op:4 Hi:2 B:6 A:16", fields={"ab": "Hi:A", "b": "B"})


def test_family_fields_split_and_round_trip():
    row = TOY("toy.x", op=6)
    word = row.insert({"ab": 0x3FFFF, "b": 5})
    assert word == 0xA6000000 | (3 << 22) | (5 << 16) | 0xFFFF
    assert row.extract(word) == {"ab": 0x3FFFF, "b": 5}
    assert row.extract_array(np.array([word], dtype=np.uint64), "ab").tolist() == [0x3FFFF]


@pytest.mark.parametrize(
    "bits, fields, params, message",
    [
        ("1010 $op:4 B:8 A:15", {}, {"op": 1}, "covers 31 bits"),
        ("1010 $op:4 B:8 A:16 1", {}, {"op": 1}, "more than 32"),
        ("1010 $op:4 B:8 B:16", {}, {"op": 1}, "appears twice"),
        ("1010 $op:4 B:8 A:16", {"x": "C"}, {"op": 1}, "unknown slice"),
        ("1010 $op:4 B:8 A:16", {}, {"op": 16}, "needs a width"),
        ("1010 $op:4 B:8 A:16", {}, {}, "takes"),
        ("10x0 $op:4 B:8 A:16", {}, {"op": 1}, "bad token"),
    ],
)
def test_bad_rows_are_refused(bits, fields, params, message):
    with pytest.raises(EncodingTableError, match=message):
        Family("bad", 32, bits, fields)("bad.row", **params)


def test_validate_finds_overlapping_rows_unless_aliased():
    a, b = TOY("toy.a", op=1), Family("other", 32, "1010 0001 C:24")("toy.b")
    with pytest.raises(EncodingTableError, match="decode the same words"):
        validate([a, b])
    validate([a, b], aliases=frozenset({frozenset({"toy.a", "toy.b"})}))
    with pytest.raises(EncodingTableError, match="duplicate"):
        validate([a, TOY("toy.a", op=1)])


def test_decoder_on_toy_rows():
    rows = [TOY(f"toy.{k}", op=k) for k in range(16)]
    dec = Decoder(rows, 32)
    words = np.array([r.insert({"ab": 7, "b": 1}) for r in rows] + [0], dtype=np.uint64)
    assert dec.classify(words).tolist() == list(range(16)) + [-1]
    assert dec.row_of(int(words[3])) is rows[3] and dec.row_of(0) is None
    with pytest.raises(EncodingTableError, match="rows of that width"):
        Decoder(rows, 64)


@pytest.mark.parametrize("generation", ["gfx9", "gfx10", "gfx11", "gfx12"])
def test_amd_tables(generation):
    rows = rows_for(generation)
    validate(rows)
    for width in (32, 64):
        part = [r for r in rows if r.width == width]
        dec = Decoder(part, width)
        for r in part:
            for pick in (0, 1):
                values = {f: (1 << r.field_width(f)) - 1 if pick else 0 for f in r.fields}
                assert dec.row_of(r.insert(values)) is r
    assert len(LAYOUTS) == sum(len(rows_for(g)) for g in ("gfx9", "gfx10", "gfx11", "gfx12"))
