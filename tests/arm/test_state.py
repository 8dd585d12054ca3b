"""The register-file model: shapes, views, named access, streaming mode, copy/diff, JSON."""

from __future__ import annotations

import json

import numpy as np
import pytest

from intdot.arm import State
from intdot.errors import OperandError, OperandTypeError, StateError

LENGTHS = (128, 256, 512, 1024, 2048)


@pytest.mark.parametrize("vl", LENGTHS)
@pytest.mark.parametrize("svl", LENGTHS)
def test_shapes(vl, svl):
    s = State(vl, svl)
    assert s.z.shape == (32, vl // 8) and s.z.dtype == np.uint8
    assert s.v.shape == (32, 16)
    assert s.za.shape == (svl // 8, svl // 8)
    assert s.x.shape == (31,) and s.x.dtype == np.uint64
    s.smstart()
    assert s.z.shape == (32, svl // 8) and s.zlen == svl


@pytest.mark.parametrize("bad", [0, 64, 192, 384, 4096, -128])
def test_illegal_lengths(bad):
    with pytest.raises(StateError, match="vl"):
        State(vl=bad)
    with pytest.raises(StateError, match="svl"):
        State(svl=bad)


def test_length_types():
    with pytest.raises(OperandTypeError):
        State(vl=128.0)
    with pytest.raises(OperandTypeError):
        State(streaming=1)


def test_v_is_the_low_128_bits_of_z():
    s = State(vl=256)
    s.v[3][:] = np.arange(16)
    assert s.z[3][:16].tolist() == list(range(16)) and not s.z[3][16:].any()
    s.z[4][:] = 9
    assert s.get("v4").tolist() == [9] * 16


def test_named_access_round_trip():
    s = State(vl=256, svl=512)
    s.set("z1.s", list(range(-4, 4)))
    assert s.get("z1.s").tolist() == list(range(-4, 4))
    assert s.get("z1.s", unsigned=True)[0] == 2**32 - 4
    s.set("z2.h", 0xFFFF)
    assert s.get("z2.h").tolist() == [-1] * 16
    s.set("z3.d", [2**63, -1, 0, 5])
    assert s.get("z3.d", unsigned=True).tolist() == [2**63, 2**64 - 1, 0, 5]
    s.set("V5.B", -1)  # case-insensitive
    assert s.z[5].tolist() == [255] * 16 + [0] * 16
    s.set("za.s[3]", 7)
    assert s.get("za[3]").view("<i4").tolist() == [7] * 16
    s.set("z6", "00" * 31 + "ff")
    assert s.z[6][-1] == 255


def test_w_and_x():
    s = State()
    s.x[8] = 2**64 - 1
    assert s.w[8] == 0xFFFFFFFF
    s.w[8] = -2
    assert int(s.x[8]) == 0xFFFFFFFE  # a W write zero-extends
    s.set("x9", -1)
    assert s.get("x9") == 2**64 - 1 and s.get("w9") == 2**32 - 1
    with pytest.raises(OperandError):
        s.w[31] = 0
    with pytest.raises(OperandError, match="32 bits"):
        s.w[8] = 2**32


@pytest.mark.parametrize(
    "name, value, err",
    [
        ("z32", 0, OperandError),
        ("q1", 0, OperandError),
        ("z1.b", 256, OperandError),
        ("z1.b", -129, OperandError),
        ("z1.s", [1, 2, 3], OperandError),
        ("z1.b", 1.0, OperandTypeError),
        ("za[16]", 0, OperandError),
        ("x31", 0, OperandError),
        ("w1.s", 0, OperandError),
        ("z1", "xyz", OperandError),
        ("z1", "00", OperandError),
        (5, 0, OperandTypeError),
    ],
)
def test_named_access_errors(name, value, err):
    with pytest.raises(err):
        State().set(name, value)


def test_streaming_mode_switch_zeroes_z_and_keeps_za():
    s = State(vl=256, svl=512)
    s.z[:] = 1
    s.za[:] = 2
    s.smstart()
    assert s.streaming and s.z.shape == (32, 64) and not s.z.any()
    assert (s.za == 2).all()
    s.z[:] = 3
    s.smstart()  # already streaming: no change
    assert (s.z == 3).all()
    s.smstop()
    assert not s.streaming and s.z.shape == (32, 32) and not s.z.any()


def test_copy_equality_and_diff():
    s = State(vl=256, svl=256, streaming=True)
    t = s.copy()
    assert s == t and s.diff(t) == []
    t.z[7][0] = 1
    t.za[9][3] = 1
    t.w[10] = 1
    assert t.diff(s) == ["z7", "za[9]", "x10"]
    assert s.z[7][0] == 0  # independent
    assert State(vl=128).diff(State(vl=256))[0] == "vl"
    with pytest.raises(OperandTypeError):
        s.diff(3)


def test_json_round_trip():
    s = State(vl=512, svl=256, streaming=True)
    rng = np.random.default_rng(0)
    s.z[3][:] = rng.integers(0, 256, 32, dtype=np.uint8)
    s.za[17][:] = 5
    s.x[11] = 2**64 - 3
    d = json.loads(json.dumps(s.to_dict()))
    assert d["vl"] == 512 and set(d["regs"]) == {"z3", "za[17]", "x11"}
    assert State.from_dict(d) == s


def test_from_dict_hand_written_and_errors():
    s = State.from_dict({"vl": 256, "regs": {"z1.s": [1, 2, 3, 4, 5, 6, 7, 8], "w8": 3}})
    assert s.get("z1.s")[7] == 8 and s.w[8] == 3
    with pytest.raises(OperandError, match="unknown key"):
        State.from_dict({"vl": 128, "registers": {}})
    with pytest.raises(OperandTypeError):
        State.from_dict([1])
    with pytest.raises(StateError):
        State.from_dict({"vl": 100})


def test_repr():
    assert "vl=128" in repr(State())


@pytest.mark.parametrize("name", ["z\u0663", "v\uff11", "za[\u0661]", "w\u0668"])
def test_register_numbers_are_ascii_digits(name):
    """Unicode digits (Arabic-Indic 3, fullwidth 1) are not register numbers."""
    with pytest.raises(OperandError, match="not known"):
        State().set(name, 1)


def test_get_unsigned_must_be_a_flag():
    with pytest.raises(OperandTypeError, match="unsigned"):
        State().get("z0.s", unsigned="yes")


def test_w_registers_iterate():
    s = State()
    s.w[3] = -1
    s.x[4] = 2**64 - 1
    w = list(s.w)
    assert len(w) == 31 and w[3] == 0xFFFFFFFF and w[4] == 0xFFFFFFFF and w[5] == 0


@pytest.mark.parametrize(
    "value, err",
    [
        ([[1, 2], [3]], OperandError),  # ragged: was NumPy's ValueError from np.ndim
        ((v for v in range(4)), OperandTypeError),
    ],
)
def test_set_refuses_ragged_and_unsized_values(value, err):
    with pytest.raises(err):
        State().set("v0.s", value)


def test_a_0d_array_is_one_value():
    """As NumPy and intdot.amd read it: np.array(3) is 3 (it was refused as 'not an integer')."""
    s = State()
    s.set("v0.s", np.array(3))
    s.set("x1", np.array(2**64 - 1, dtype=np.uint64))
    s.set("w2", np.array(-1))
    assert s.get("v0.s").tolist() == [3] * 4 and s.get("x1") == 2**64 - 1 and s.get("x2") == 2**32 - 1
    with pytest.raises(OperandTypeError, match="expected an integer"):
        s.set("v0.s", np.array(1.5))
    with pytest.raises(OperandTypeError):
        s.set("x1", np.array(True))


def test_bytes_are_raw_bytes_like_hex_strings():
    s = State()
    s.set("z1", bytes(range(16)))
    assert s.get("z1").tolist() == list(range(16))
    s.set("v2.s", bytearray(b"\xff" * 16))
    assert s.get("v2.s").tolist() == [-1] * 4
    with pytest.raises(OperandError, match="takes 16 bytes, got 3"):
        s.set("z1", b"abc")


def test_a_w_register_number_of_the_wrong_type_is_a_type_error():
    """Was 'register w'1' does not exist'."""
    with pytest.raises(OperandTypeError, match="register number '1' of w"):
        State().w["1"]
    with pytest.raises(OperandTypeError):
        State().w[1.0] = 5


def test_set_reads_nested_lists_and_ranges_like_arrays():
    s = State(svl=256)
    s.set("za.s", [[r] * 8 for r in range(32)])  # (SVL/8, SVL/32), C order
    assert s.get("za.s[31]").tolist() == [31] * 8
    s.set("za.s", np.arange(256).reshape(32, 8))
    assert s.get("za.s[1]").tolist() == list(range(8, 16))
    s.set("v0.b", range(16))
    assert s.get("v0.b").tolist() == list(range(16))
    s.set("z1.d", [2**64 - 1, -1])  # beyond int64, as Python ints
    assert s.get("z1.d", unsigned=True).tolist() == [2**64 - 1, 2**64 - 1]


@pytest.mark.parametrize("name", ["z" + "9" * 5000, "za[" + "9" * 5000 + "]", "w" + "9" * 5000])
def test_register_numbers_of_thousands_of_digits(name):
    with pytest.raises(OperandError):
        State().set(name, 1)


# -- issue 8, defect 3: every spelling the command line and assembly use --------------------------


@pytest.mark.parametrize(
    "name, same",
    [
        ("v1.16b", "v1.b"),
        ("v1.8h", "v1.h"),
        ("v1.4s", "v1.s"),
        ("v1.2d", "v1.d"),
        ("V1.4S", "v1.s"),
    ],
)
def test_128_bit_arrangements_are_the_whole_v_register(name, same):
    s = State(vl=256)
    s.set(name, 1)
    assert s.get(name).tolist() == s.get(same).tolist()
    assert s.z[1][16:].tolist() == [0] * 16


@pytest.mark.parametrize("name, count, esize", [("v2.8b", 8, 1), ("v2.4h", 4, 2), ("v2.2s", 2, 4), ("v2.1d", 1, 8)])
def test_64_bit_arrangements_are_the_low_half(name, count, esize):
    s = State()
    s.set("v2.b", 0x55)
    s.set(name, list(range(1, count + 1)))
    assert s.get(name).tolist() == list(range(1, count + 1))
    # Little-endian elements in the low 8 bytes, the high 8 bytes kept.
    want = [b for k in range(1, count + 1) for b in k.to_bytes(esize, "little")] + [0x55] * 8
    assert s.get("v2").tolist() == want


@pytest.mark.parametrize("name", ["v1.3s", "v1.16s", "z1.4s", "za.4s", "w1.4s", "v1.4b"])
def test_arrangements_that_do_not_exist(name):
    with pytest.raises(OperandError, match="not known"):
        State().set(name, 1)


@pytest.mark.parametrize("elem, dtype", [("b", np.int8), ("h", np.int16), ("s", np.int32), ("d", np.int64)])
def test_za_as_a_whole_is_rows_by_elements(elem, dtype):
    s = State(svl=256)
    values = (np.arange(32 * 32 // dtype().itemsize) % 100).reshape(32, -1)
    s.set(f"za.{elem}", values)
    got = s.get(f"za.{elem}")
    assert got.shape == (32, 32 // dtype().itemsize) and got.dtype == dtype
    assert got.tolist() == values.astype(dtype).tolist()
    assert s.get(f"za.{elem}[5]").tolist() == values[5].astype(dtype).tolist()
