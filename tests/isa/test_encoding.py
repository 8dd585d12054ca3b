"""The ISA layer's encoding machinery on toy tables (no ISA): sized parameters, fields whose parts lie apart,
fields made from unnamed slices, tables without an operand grammar, table checks, and the decision-table
decoder of 32- and 64-bit words (one word and arrays).  Expected words are written out by hand from the bit
templates."""

from __future__ import annotations

import numpy as np
import pytest

from intdot.isa.codec import Dispatch, corners
from intdot.isa.encoding import Format, Row, TableError, check_layout, check_overlaps, fill

TOY = Format("toy", "1010 $op:4 Hi:2 B:6 A:16", {"ab": "Hi:A"}, "", auto_fields=True)


def _row(fmt: Format, name: str, **params) -> Row:
    return Row(name, fmt.layout(name, fmt.values(name, params)), {"params": params})


def test_sized_parameter_and_split_field_round_trip():
    row = _row(TOY, "toy.x", op=6)
    lay = row.layout
    assert (lay.match, lay.mask) == (0xA6000000, 0xFF000000)
    assert lay.params == {"op": "6"} and lay.operands is None and sorted(lay.fields) == ["ab", "b"]
    word = lay.encode({"ab": 0x3FFFF, "b": 5})
    assert word == 0xA6000000 | (3 << 22) | (5 << 16) | 0xFFFF
    assert lay.decode(word) == {"ab": 0x3FFFF, "b": 5}
    assert lay.fields["ab"].extract_array(np.array([word], dtype=np.uint64)).tolist() == [0x3FFFF]
    assert lay.fields["b"].extract_array(np.array([word], dtype=np.uint32)).dtype == np.uint32
    check_layout(row.name, lay)
    assert _row(TOY, "toy.y", op="0110").layout.match == lay.match  # the same opcode as bits


def test_scaled_and_offset_fields_read_arrays_as_words():
    fmt = Format("s", "Z:8 R:8 " + "0" * 16, {"z": "Z*2", "r": "R+8"}, "")
    lay = fmt.layout("s.r", fmt.values("s.r", {}))
    word = lay.encode({"z": 6, "r": 10})
    assert word == (3 << 24) | (2 << 16)
    words = np.array([word], dtype=np.uint32)
    assert [lay.fields[k].extract_array(words).tolist() for k in ("z", "r")] == [[6], [10]]


@pytest.mark.parametrize(
    "bits, fields, params, message",
    [
        ("1010 $op:4 B:8 A:15", {}, {"op": 1}, "covers 31 bits"),
        ("1010 $op:4 B:8 A:16 1", {}, {"op": 1}, "more than 32"),
        ("1010 $op:4 B:8 B:16", {}, {"op": 1}, "appears twice"),
        ("1010 $op:4 B:8 A:16", {"x": "C"}, {"op": 1}, "unknown slice"),
        ("1010 $op:4 B:8 A:16", {}, {"op": 16}, "is not 4 bits"),
        ("1010 $op:4 B:8 A:16", {}, {"op": "011"}, "is not 4 bits"),
        ("1010 $op:4 B:8 A:16", {}, {}, "missing"),
        ("10x0 $op:4 B:8 A:16", {}, {"op": 1}, "bad token"),
        ("1010 $op:4 OpSel:8 A:16", {"op_sel": "A"}, {"op": 1}, "which exists"),
    ],
)
def test_bad_rows_are_refused(bits, fields, params, message):
    fmt = Format("bad", bits, fields, "", auto_fields=True)
    with pytest.raises(TableError, match=message):
        fmt.layout("bad.row", fmt.values("bad.row", params))


def test_without_auto_fields_an_unnamed_slice_is_a_table_error():
    fmt = Format("bad", "1010 $op:4 B:8 A:16", {"a": "A"}, "")
    with pytest.raises(TableError, match="exactly one field"):
        check_layout("bad.row", fmt.layout("bad.row", fmt.values("bad.row", {"op": 1})))


def test_fill_sized_and_plain():
    assert fill("r", "$a:3 $b", {"a": 5, "b": 7}) == "101 7"
    with pytest.raises(TableError, match="has no value"):
        fill("r", "$c", {})


def test_overlaps_unless_aliased_and_only_within_one_width():
    a = _row(TOY, "toy.a", op=1)
    b = _row(Format("other", "1010 0001 C:24", {}, "", auto_fields=True), "toy.b")
    with pytest.raises(TableError, match="overlap"):
        check_overlaps([a, b])
    check_overlaps([a, b], aliases=frozenset({frozenset({"toy.a", "toy.b"})}))
    with pytest.raises(TableError, match="duplicate"):
        check_overlaps([a, _row(TOY, "toy.a", op=1)])
    # a 64-bit row whose low word looks like a 32-bit row's: never in one table, so no overlap
    wide = Format("wide", "C:32 1010 $op:4 D:24", {}, "", word_bits=64, auto_fields=True)
    check_overlaps([a, _row(wide, "wide.a", op=1)])


def test_dispatch_on_toy_rows_32_and_64_bits():
    rows = [_row(TOY, f"toy.{k}", op=k) for k in range(16)]
    dec = Dispatch(rows, 32)
    dec.self_check(corners)
    words = np.array([r.layout.encode({"ab": 7, "b": 1}) for r in rows] + [0], dtype=np.uint64)
    assert dec.classify(words).tolist() == list(range(16)) + [-1]
    assert dec.row_of(int(words[3])) is rows[3] and dec.row_of(0) is None
    with pytest.raises(TableError, match="rows of one width"):
        Dispatch(rows, 64)
    wide = Format("wide", "C:32 | 1010 $op:4 D:24", {}, "", word_bits=64, auto_fields=True)
    wrows = [_row(wide, f"wide.{k}", op=k) for k in (3, 9)]
    wdec = Dispatch(wrows, 64)
    w = wrows[1].layout.encode({"c": 0xFFFFFFFF, "d": 5})
    assert w == 0xFFFFFFFF_A9000005
    assert wdec.row_of(w) is wrows[1] and wdec.classify(np.array([w, 0], dtype=np.uint64)).tolist() == [1, -1]


def test_dispatch_of_no_rows_decodes_nothing():
    dec = Dispatch([], 32)
    assert dec.row_of(0) is None and dec.classify(np.array([0, 5], dtype=np.uint32)).tolist() == [-1, -1]


def test_dispatch_groups_are_the_positions_of_each_row():
    rows = [_row(TOY, f"toy.{k}", op=k) for k in range(16)]
    dec = Dispatch(rows, 32)
    idx = np.random.default_rng(1).integers(-1, 16, 1000).astype(np.int16)
    want = [(k, np.flatnonzero(idx == k).tolist()) for k in range(16) if (idx == k).any()]
    assert [(k, p.tolist()) for k, p in dec.groups(idx)] == want
