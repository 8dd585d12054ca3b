"""intdot.nvidia's functions against tests/nvidia/reference.py; overloads, errors, targets, catalog spellings."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from intdot import catalog, nvidia
from intdot.errors import AmbiguousInstruction, OperandError, OperandTypeError, UnknownTarget

from . import reference as ref

EDGE_WORDS = [0, 1, 0x7F7F7F7F, 0x80808080, 0xFFFFFFFF, 0x01FF7F80, 0x8000_7FFF, 0xFFFF_0001, 0x12345678]
TYPES = ["s32", "u32"]


@pytest.mark.parametrize(("at", "bt"), list(itertools.product(TYPES, TYPES)))
def test_dp4a_and_dp2a_scalars(at, bt):
    sa, sb = at == "s32", bt == "s32"
    rng = np.random.default_rng(1)
    words = EDGE_WORDS + rng.integers(0, 2**32, 40).tolist()
    for a, b in itertools.product(words, EDGE_WORDS):
        c = (a * 7 + b) % 2**32
        c_arg = c - 2**32 if (sa or sb) and c >= 2**31 else c
        assert nvidia.dp4a(a, b, c_arg, a_type=at, b_type=bt) == ref.dp4a(a, b, c_arg, sa, sb)
        for part in ("lo", "hi"):
            got = nvidia.dp2a(a, b, c_arg, part=part, a_type=at, b_type=bt)
            assert got == ref.dp2a(a, b, c_arg, part == "hi", sa, sb)


def test_arrays_and_result_types():
    a = np.array([0xFFFFFFFF, 0x01020304], np.uint32)
    out = nvidia.dp4a(a, a, 0, a_type="u32", b_type="u32")
    assert out.dtype == np.uint32 and out.tolist() == [ref.dp4a(int(x), int(x), 0, False, False) for x in a]
    out = nvidia.dp2a(a, a, 0, part="hi", a_type="u32", b_type="s32")
    assert out.dtype == np.int32 and out.tolist() == [ref.dp2a(int(x), int(x), 0, True, False, True) for x in a]


def test_cuda_overloads_follow_the_argument_types():
    w = 0xFF80017F
    assert nvidia.__dp4a(w, w, 0) == ref.dp4a(w, w, 0, True, True)
    assert nvidia.__dp4a(np.uint32(w), np.uint32(w), np.uint32(0)) == ref.dp4a(w, w, 0, False, False)
    lanes = np.array([0x7F, 0x01, 0x80, 0xFF], np.uint8)
    assert nvidia.__dp4a(lanes, lanes, 5) == ref.dp4a(w, w, 5, False, False)
    assert nvidia.__dp4a(lanes.view(np.int8), lanes.view(np.int8), 5) == ref.dp4a(w, w, 5, True, True)
    halves = np.array([0x017F, 0xFF80], np.uint16)
    for name, hi in (("__dp2a_lo", False), ("__dp2a_hi", True)):
        fn = getattr(nvidia, name)
        assert fn(halves, lanes, 0) == ref.dp2a(w, w, 0, hi, False, False)
        assert fn(halves.view(np.int16), lanes.view(np.int8), 0) == ref.dp2a(w, w, 0, hi, True, True)
        assert fn(w, w, -1) == ref.dp2a(w, w, -1, hi, True, True)
    f = nvidia.overload("__dp2a_hi(ushort2, uchar4, unsigned int)")
    assert f([0x17F, 0xFF80], [0x7F, 1, 0x80, 0xFF], 0) == ref.dp2a(w, w, 0, True, False, False)


def test_cuda_overload_errors():
    with pytest.raises(OperandTypeError, match="ambiguous"):
        nvidia.__dp4a(np.uint32(1), np.int32(1), 0)
    # A Python int is an int, as a C++ literal: beside an unsigned operand no overload is better (it used to
    # pick the unsigned one).
    for a, b in ((np.uint32(0xFFFFFFFF), 1), (1, np.uint32(0xFFFFFFFF)), (np.uint32(1), [1, 2])):
        with pytest.raises(OperandTypeError, match="ambiguous"):
            nvidia.__dp4a(a, b, 0)
        with pytest.raises(OperandTypeError, match="ambiguous"):
            nvidia.__dp2a_hi(a, b, 0)
    with pytest.raises(OperandTypeError, match="no overload"):
        nvidia.__dp4a(np.zeros(4, np.int8), 5, 0)
    with pytest.raises(OperandTypeError, match="no overload"):
        nvidia.__dp2a_lo(np.zeros(2, np.int16), np.zeros(4, np.uint8), 0)
    with pytest.raises(OperandTypeError, match="char4"):
        nvidia.__dp4a(np.zeros(3, np.int8), np.zeros(3, np.int8), 0)
    with pytest.raises(OperandError, match="not a CUDA overload"):
        nvidia.overload("__dp4a(long, long, long)")


def test_ptx_errors():
    with pytest.raises(OperandError, match="a_type='s8'"):
        nvidia.dp4a(1, 1, 1, a_type="s8")
    with pytest.raises(OperandError, match="part='mid' is not a dp2a part"):
        nvidia.dp2a(1, 1, 1, part="mid")
    with pytest.raises(OperandError, match="part=array.* is not a dp2a part"):
        nvidia.dp2a(1, 1, 1, part=np.array(["lo", "hi"]))
    assert nvidia.dp2a(1, 0x100, 0, part="HI") == nvidia.dp2a(1, 0x100, 0, part="hi")  # as a_type="S32" is
    with pytest.raises(OperandError, match="a=4294967296 is out of range"):
        nvidia.dp4a(2**32, 1, 1)
    with pytest.raises(OperandError, match="c=-2147483649"):
        nvidia.dp2a(1, 1, -(2**31) - 1)


@pytest.mark.parametrize(("at", "bt"), [("s8", "s8"), ("u8", "s8"), ("s4", "u4"), ("u4", "u4")])
@pytest.mark.parametrize("sat", [False, True])
def test_mma_tile(at, bt, sat):
    rng = np.random.default_rng(3)
    width = int(at[1:])
    k = 256 // width

    def elems(t, shape):
        lo, hi = (-(1 << (width - 1)), (1 << (width - 1))) if t[0] == "s" else (0, 1 << width)
        x = rng.integers(lo, hi, shape)
        x[0] = lo if t[0] == "s" else hi - 1  # one row or column at the edge
        return x

    a, b = elems(at, (16, k)), elems(bt, (k, 8)).T.copy().T
    c = rng.integers(-(2**31), 2**31, (16, 8))
    c[:4] = 2**31 - 1 - rng.integers(0, 2**18, (4, 8))
    c[4:8] = -(2**31) + rng.integers(0, 2**18, (4, 8))
    got = nvidia.mma(a, b, c, a_type=at, b_type=bt, satfinite=sat)
    assert got.tolist() == ref.mma(a.tolist(), b.tolist(), c.tolist(), sat)


def test_mma_batches_and_errors():
    a = np.ones((3, 16, 32), np.int8)
    b = np.ones((32, 8), np.int8)
    assert nvidia.mma(a, b, np.zeros((16, 8), np.int32)).shape == (3, 16, 8)
    with pytest.raises(OperandError, match="shape"):
        nvidia.mma(np.ones((16, 64), np.int8), b, np.zeros((16, 8)))
    with pytest.raises(OperandError, match=r"holds 8, out of range; every element must be an element of .s4"):
        nvidia.mma(np.full((16, 64), 8), np.ones((64, 8)), np.zeros((16, 8)), a_type="s4", b_type="s4")
    with pytest.raises(OperandError, match="two 8-bit or two 4-bit"):
        nvidia.mma(a, b, 0, a_type="s8", b_type="u4")
    with pytest.raises(OperandTypeError, match="dtype float"):
        nvidia.mma(np.ones((16, 32)), b, np.zeros((16, 8)))
    # Ragged lists, bools and values past int64 are refused by name, as for dp4a and gemm.
    with pytest.raises(OperandTypeError, match=r"a=\[\[1\], \[1, 2\]\] is not an integer array"):
        nvidia.mma([[1], [1, 2]], b, np.zeros((16, 8), np.int32))
    with pytest.raises(OperandTypeError, match=r"a\[0, 0\]=True has type bool"):
        nvidia.mma([[True] + [1] * 31] * 16, b, np.zeros((16, 8), np.int32))
    with pytest.raises(OperandError, match=r"a\[0, 0\]=18446744073709551616 is out of range"):
        nvidia.mma([[2**64] * 32] * 16, b, np.zeros((16, 8), np.int32))
    assert nvidia.mma(np.ones((16, 32), object), b, np.zeros((16, 8), np.int32))[0, 0] == 32
    # Batches that do not broadcast: named by the shapes the caller passed.
    with pytest.raises(OperandError, match=r"a's tiles have batch shape \(2,\).*b's \(3,\)"):
        nvidia.mma(np.ones((2, 16, 32), np.int8), np.ones((3, 32, 8), np.int8), np.zeros((16, 8), np.int32))
    with pytest.raises(OperandError, match=r"a's char4 vectors have batch shape \(2,\), b's \(3,\)"):
        nvidia.__dp4a(np.zeros((2, 4), np.int8), np.zeros((3, 4), np.int8), 0)
    with pytest.raises(OperandTypeError, match="is not an integer array"):
        nvidia.overload("__dp4a(char4, char4, int)")([1, [2]], [1] * 4, 0)


def test_targets_and_availability():
    # Bare mnemonics name several instructions: an error listing them, as catalog.find gives.
    for bare, n in (("dp4a", 4), ("mma", 16)):
        with pytest.raises(AmbiguousInstruction, match=f"names {n} NVIDIA instructions"):
            nvidia.available(bare, "sm_61")
    # Every target nvcc 13.0 takes, the family ("f") targets among them.
    for t in ("sm_88", "sm_100f", "sm_103f", "sm_110a", "sm_120f", "sm_121a"):
        assert nvidia.available("mma.s8.s8", t) and nvidia.available("__dp4a", t)
    assert nvidia.available("__dp4a", "sm_61") and not nvidia.available("__dp4a", "p100")
    assert nvidia.available("mma.s4.u4.satfinite", "a100") and not nvidia.available("mma.s8.s8", "t4")
    assert catalog.available("dp2a.hi.s32.u32", "h200") and not catalog.available("dp4a.u32.u32", "sm_90+nodp4a")
    assert catalog.require("mma.s8.s8", "compute_90").name == "nvidia.mma.m16n8k32.s8.s8"
    assert "h200" in catalog.where_available("mma.u8.u8") and "t4" not in catalog.where_available("mma.u8.u8")
    assert "sm_80 or later" in catalog.status("mma.s8.s8", "sm_75").why
    with pytest.raises(UnknownTarget, match="did you mean h200"):
        catalog.available("mma.s8.s8", "h2000")


def test_catalog_spellings():
    assert catalog.find("__dp4a").name == "nvidia.dp4a.s32.s32"
    assert catalog.find("__dp4a(uchar4, uchar4, unsigned int)").name == "nvidia.dp4a.u32.u32"
    assert catalog.find("__dp2a_hi").spec.b_first == 2
    assert catalog.find("dp2a.lo.u32.s32 %r1, %r2, %r3, %r4;").name == "nvidia.dp2a.lo.u32.s32"
    rec = catalog.find("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.s8.s32")
    assert (rec.name, rec.clamp, rec.k_step, rec.features) == (
        "nvidia.mma.m16n8k32.u8.s8.satfinite",
        True,
        (32, 32),
        "mma-i8",
    )
    assert catalog.find("mma.s4.s4").k_step == (32, 32) and catalog.find("mma.s4.s4").clamp is False
    assert "amd.sdot4" in {r.name for r in catalog.equivalents("__dp4a")}
