"""The ACLE intrinsics against the slow reference model, plus argument checking."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from intdot import arm
from intdot.arm import State
from intdot.errors import OperandError, OperandTypeError, StateError

from . import reference_arm as ref

NEON = {  # name -> (result elements, b bytes)
    "vsudot_lane_s32": (2, 8), "vsudotq_lane_s32": (4, 8),
    "vsudot_laneq_s32": (2, 16), "vsudotq_laneq_s32": (4, 16),
}


def wrap32(x: int) -> int:
    return (x + 2**31) % 2**32 - 2**31


def bytes_of(values) -> list[int]:
    return [int(v) % 256 for v in values]


def ints(n: int, kind: str):
    lo, hi = {"s8": (-128, 127), "u8": (0, 255), "s32": (-(2**31), 2**31 - 1)}[kind]
    edge = {"s8": [-128, 127, -1, 0], "u8": [0, 255, 128, 127], "s32": [-(2**31), 2**31 - 1, 2**31 - 60000]}[kind]
    return st.lists(st.one_of(st.integers(lo, hi), st.sampled_from(edge)), min_size=n, max_size=n)


@pytest.mark.parametrize("name", list(NEON))
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_neon_intrinsics_match_reference(name, data):
    nres, nb = NEON[name]
    r, a, b = data.draw(ints(nres, "s32")), data.draw(ints(4 * nres, "s8")), data.draw(ints(nb, "u8"))
    lane = data.draw(st.integers(0, nb // 4 - 1))
    want = [wrap32(ref.dot_group(r[i], bytes_of(a), 4 * i, bytes_of(b), 4 * lane)) for i in range(nres)]
    got = getattr(arm, name)(np.array(r, np.int32), np.array(a, np.int8), np.array(b, np.uint8), lane)
    assert got.dtype == np.int32 and got.tolist() == want


def test_neon_batch_broadcasts():
    rng = np.random.default_rng(5)
    r = rng.integers(-(2**31), 2**31, (3, 5, 4)).astype(np.int32)
    a = rng.integers(-128, 128, (3, 5, 16)).astype(np.int8)
    b = rng.integers(0, 256, (5, 16)).astype(np.uint8)
    got = arm.vsudotq_laneq_s32(r, a, b, 2)
    assert got.shape == (3, 5, 4)
    for i in range(3):
        for j in range(5):
            assert got[i, j].tolist() == arm.vsudotq_laneq_s32(r[i, j], a[i, j], b[j], 2).tolist()


@pytest.mark.parametrize("vbits", [128, 256, 384, 512, 1024, 2048])
def test_sve_intrinsic_matches_reference(vbits):
    rng = np.random.default_rng(vbits)
    n = vbits // 32
    op1 = rng.integers(-(2**31), 2**31, n).astype(np.int32)
    op2 = rng.integers(-128, 128, 4 * n).astype(np.int8)
    op3 = rng.integers(0, 256, 4 * n).astype(np.uint8)
    for idx in range(4):
        st_ = ref.RefState(4 * n, 16)
        st_.z[0] = bytes_of(op1.view(np.uint8))
        st_.z[1], st_.z[2] = bytes_of(op2), bytes_of(op3)
        ref.sve_indexed(st_, 0, 1, 2, idx)
        got = arm.svsudot_lane_s32(op1, op2, op3, idx)
        assert got.view(np.uint8).tolist() == st_.z[0]


SME2 = {  # name -> (nvec, indexed)
    "svsudot_lane_za32_s8_vg1x2": (2, True), "svsudot_lane_za32_s8_vg1x4": (4, True),
    "svsudot_single_za32_s8_vg1x2": (2, False), "svsudot_single_za32_s8_vg1x4": (4, False),
}


@pytest.mark.parametrize("name", list(SME2))
@pytest.mark.parametrize("svl", [128, 256, 512, 1024, 2048])
def test_sme2_intrinsics_match_reference(name, svl):
    nvec, indexed = SME2[name]
    rng = np.random.default_rng(svl + nvec)
    nb = svl // 8
    za = rng.integers(0, 256, (nb, nb), dtype=np.uint8)
    zn = tuple(rng.integers(-128, 128, nb).astype(np.int8) for _ in range(nvec))
    zm = rng.integers(0, 256, nb).astype(np.uint8)
    slice_ = int(rng.integers(0, 2**32))
    idx = 3 if indexed else None
    r = ref.RefState(nb, nb)
    r.za = [row.tolist() for row in za]
    for k in range(nvec):
        r.z[k] = bytes_of(zn[k])
    r.z[nvec] = zm.tolist()
    r.x[8] = slice_  # wv = w8, offset 0: slice = W8
    ref.sme2(r, nvec, 8, 0, 0, nvec, idx)
    f = getattr(arm, name)
    args = (slice_, zn, zm) + ((idx,) if indexed else ())
    out = f(*args, za=za)
    assert out is za and za.tolist() == r.za
    # The same through a streaming State.
    s = State(svl=svl, streaming=True)
    s.za[:] = np.array(r.za, np.uint8)
    f(*args, state=s)
    ref.sme2(r, nvec, 8, 0, 0, nvec, idx)
    assert s.za.tolist() == r.za


@pytest.mark.parametrize("call, err, msg", [
    (lambda: arm.vsudot_lane_s32([0, 0], [0] * 8, [0] * 8, 2), OperandError, "lane"),
    (lambda: arm.vsudot_laneq_s32([0, 0], [0] * 8, [0] * 16, 4), OperandError, "lane"),
    (lambda: arm.vsudot_lane_s32([0, 0], [0] * 8, [0] * 16, 0), OperandError, "b has 16 elements"),
    (lambda: arm.vsudot_lane_s32([0, 0], [200] * 8, [0] * 8, 0), OperandError, "int8"),
    (lambda: arm.vsudot_lane_s32([0, 0], [0] * 8, [-1] * 8, 0), OperandError, "uint8"),
    (lambda: arm.vsudot_lane_s32([0, 0], [0.5] * 8, [0] * 8, 0), OperandTypeError, "dtype"),
    (lambda: arm.vsudot_lane_s32([0, 0], [0] * 8, [0] * 8, 1.0), OperandTypeError, "lane"),
    (lambda: arm.vsudot_lane_s32([2**32, 0], [0] * 8, [0] * 8, 0), OperandError, "r holds"),
    (lambda: arm.svsudot_lane_s32([0] * 3, [0] * 12, [0] * 12, 0), OperandError, "multiple of 16"),
    (lambda: arm.svsudot_lane_s32([[0] * 4, [0] * 3], [0] * 16, [0] * 16, 0), OperandTypeError, "op1"),  # ragged
    (lambda: arm.vsudotq_laneq_s32([[0] * 4, [0]], [0] * 16, [0] * 16, 0), OperandTypeError, "r="),
    # batch axes that do not broadcast: an intdot error naming them, not NumPy's
    (lambda: arm.vsudotq_laneq_s32(np.zeros((2, 4), np.int32), np.zeros((3, 16), np.int8), [0] * 16, 0),
     OperandError, r"r \(2,\), a \(3,\)"),
    (lambda: arm.svsudot_lane_s32(np.zeros((2, 4), np.int32), [0] * 16, np.zeros((3, 16), np.uint8), 0),
     OperandError, "do not broadcast"),
    (lambda: arm.svsudot_lane_s32([0] * 4, [0] * 16, [0] * 16, 4), OperandError, "imm_index"),
    (lambda: arm.svsudot_single_za32_s8_vg1x2(0, ([0] * 16,) * 2, [0] * 16), OperandError, "exactly one"),
    (lambda: arm.svsudot_single_za32_s8_vg1x2(0, ([0] * 16,) * 3, [0] * 16, za=np.zeros((16, 16), np.uint8)),
     OperandError, "tuple of 2"),
    (lambda: arm.svsudot_single_za32_s8_vg1x4(0, ([0] * 32,) * 4, [0] * 32, za=np.zeros((16, 16), np.uint8)),
     OperandError, "zn\\[0\\] has 32"),
    (lambda: arm.svsudot_single_za32_s8_vg1x2(0, ([0] * 16,) * 2, [0] * 16, za=np.zeros((16, 16), np.int8)),
     OperandError, "uint8"),
    (lambda: arm.svsudot_single_za32_s8_vg1x2(0, ([0] * 16,) * 2, [0] * 16, state=State(svl=128)),
     StateError, "streaming"),
    (lambda: arm.svsudot_lane_za32_s8_vg1x2(-2**31 - 1, ([0] * 16,) * 2, [0] * 16, 0,
                                            za=np.zeros((16, 16), np.uint8)), OperandError, "slice"),
])
def test_argument_errors(call, err, msg):
    with pytest.raises(err, match=msg):
        call()


def test_int32_accumulator_accepts_the_unsigned_spelling():
    got = arm.vsudot_lane_s32(np.array([0xFFFFFFFF, 0], np.uint32), [1] * 8, [1] * 8, 0)
    assert got.tolist() == [3, 4]


# -- the intrinsics as clang compiles them, run under QEMU ---------------------------------------

def _qemu_tools(streaming: bool):
    from tests.oracles import missing
    from tests.oracles import qemu as oracle

    if oracle.clang() is None:
        missing("clang-19 (to build the AArch64 test programs)")
    if oracle.qemu(streaming) is None:
        missing("qemu-aarch64 with SME2 (QEMU 9 or newer)" if streaming else "qemu-aarch64 (qemu-user)")
    return oracle


def _build(oracle, c_source, **kw):
    from tests.oracles import missing

    try:
        return oracle.build_acle(c_source, **kw)
    except oracle.LinkerMissing as exc:
        missing(f"lld-19 (clang's linker for the test programs): {exc}")


def _random_bytes(rng, n, extremes=True):
    b = rng.integers(0, 256, n, dtype=np.uint8)
    if extremes:
        mask = rng.random(n) < 0.3
        b[mask] = rng.choice(np.array([0, 0x7F, 0x80, 0xFF], np.uint8), int(mask.sum()))
    return b


def _near_limit_words(rng, n):
    base = rng.choice(np.array([0x7FFFFFFF, 0x80000000, 0], np.int64), n)
    return ((base + rng.integers(-140000, 140000, n)) & 0xFFFFFFFF).astype("<u4").view(np.uint8)


NEON_C = """#include <arm_neon.h>
void entry(unsigned char *p) {{
  {rt} r = vld1{q}_s32((const int32_t *)p);
  {at} a = vld1{q}_s8((const signed char *)(p + 16));
  {bt} b = vld1{bq}_u8(p + 32);
  vst1{q}_s32((int32_t *)p, {name}(r, a, b, {lane}));
}}
"""


@pytest.mark.oracle
@pytest.mark.parametrize("name", list(NEON))
def test_neon_intrinsics_match_clang_under_qemu(name):
    oracle = _qemu_tools(False)
    nres, nb = NEON[name]
    q = "q" if nres == 4 else ""
    rng = np.random.default_rng(len(name))
    for lane in range(nb // 4):
        src = NEON_C.format(rt=f"int32x{nres}_t", at=f"int8x{4 * nres}_t", bt=f"uint8x{nb}_t", q=q,
                            bq="q" if nb == 16 else "", name=name, lane=lane)
        exe = _build(oracle, src, streaming=False, per_zlen=0, fixed=48)
        blobs = [np.concatenate([_near_limit_words(rng, 4) if k % 2 else _random_bytes(rng, 16),
                                 _random_bytes(rng, 16), _random_bytes(rng, 16)]) for k in range(32)]
        outs = oracle.run(exe, [b.tobytes() for b in blobs], vl=128, svl=128, streaming=False, size=48)
        for b, out in zip(blobs, outs):
            want = b.copy()
            res = getattr(arm, name)(b[:4 * nres].view("<i4"), b[16:16 + 4 * nres].view(np.int8),
                                     b[32:32 + nb], lane)
            want[:4 * nres] = res.view(np.uint8)
            assert out == want.tobytes(), f"{name} lane {lane}"


SVE_C = """#include <arm_sve.h>
void entry(unsigned char *p) {{
  svbool_t pb = svptrue_b8(), pw = svptrue_b32();
  svint32_t acc = svld1_s32(pw, (const int32_t *)p);
  svint8_t a = svld1_s8(pb, (const signed char *)(p + svcntb()));
  svuint8_t b = svld1_u8(pb, p + 2 * svcntb());
  svst1_s32(pw, (int32_t *)p, svsudot_lane_s32(acc, a, b, {imm}));
}}
"""


@pytest.mark.oracle
@pytest.mark.parametrize("imm", range(4))
def test_sve_intrinsic_matches_clang_under_qemu(imm):
    oracle = _qemu_tools(False)
    exe = _build(oracle, SVE_C.format(imm=imm), streaming=False, per_zlen=3, fixed=0)
    rng = np.random.default_rng(imm)
    for vl in (128, 256, 512, 1024, 2048):
        n = vl // 8
        blobs = [np.concatenate([_near_limit_words(rng, n // 4), _random_bytes(rng, n), _random_bytes(rng, n)])
                 for _ in range(16)]
        outs = oracle.run(exe, [b.tobytes() for b in blobs], vl=vl, svl=128, streaming=False, size=3 * n)
        for b, out in zip(blobs, outs):
            want = b.copy()
            want[:n] = arm.svsudot_lane_s32(b[:n].view("<i4"), b[n:2 * n].view(np.int8), b[2 * n:], imm).view(np.uint8)
            assert out == want.tobytes(), f"VL={vl} imm={imm}"


SME2_C = """#include <arm_sme.h>
void entry(unsigned char *p) __arm_streaming __arm_inout("za") {{
  uint64_t s = svcntb();
  svbool_t pb = svptrue_b8();
  sv{tuple} zn = svcreate{n}_s8({loads});
  svuint8_t zm = svld1_u8(pb, p + {n} * s);
  uint32_t slice = *(const uint32_t *)(p + {n1} * s);
  {name}(slice, zn, zm{imm});
}}
"""


@pytest.mark.oracle
@pytest.mark.parametrize("name, imm", [(n, i) for n, (_, idx) in SME2.items() for i in (range(4) if idx else [None])])
def test_sme2_intrinsics_match_clang_under_qemu(name, imm):
    oracle = _qemu_tools(True)
    nvec, indexed = SME2[name]
    loads = ", ".join(f"svld1_s8(pb, (const signed char *)(p + {k} * s))" for k in range(nvec))
    src = SME2_C.format(tuple=f"int8x{nvec}_t", n=nvec, n1=nvec + 1, loads=loads, name=name,
                        imm="" if imm is None else f", {imm}")
    exe = _build(oracle, src, streaming=True, per_zlen=nvec + 1, fixed=16)
    rng = np.random.default_rng(nvec * 10 + (imm or 0))
    for svl in (128, 256, 512, 1024, 2048):
        s = svl // 8
        blobs = []
        for k in range(12):
            slice_ = int(rng.integers(0, 2**32)) if k % 3 else 2**32 - int(rng.integers(1, 8))
            za = _near_limit_words(rng, s * s // 4) if k % 2 else _random_bytes(rng, s * s)
            blobs.append(np.concatenate([_random_bytes(rng, (nvec + 1) * s),
                                         np.array([slice_], "<u4").view(np.uint8), np.zeros(12, np.uint8), za]))
        size = (nvec + 1) * s + 16 + s * s
        outs = oracle.run(exe, [b.tobytes() for b in blobs], vl=128, svl=svl, streaming=True, size=size)
        for b, out in zip(blobs, outs):
            want = b.copy()
            za = want[size - s * s:].reshape(s, s)
            zn = tuple(b[k * s:(k + 1) * s].view(np.int8) for k in range(nvec))
            zm = b[nvec * s:(nvec + 1) * s]
            slice_ = int(b[(nvec + 1) * s:(nvec + 1) * s + 4].view("<u4")[0])
            args = (slice_, zn, zm) + (() if imm is None else (imm,))
            getattr(arm, name)(*args, za=za)
            assert out == want.tobytes(), f"{name} SVL={svl} imm={imm} slice={slice_:#x}"


@pytest.mark.parametrize("signs", [(True, True), (False, False), (False, True)])
def test_the_wrappers_take_the_lane_signedness(signs):
    """SDOT/UDOT/USDOT intrinsics are the same wrappers with other signs (against the reference)."""
    from intdot.arm import acle

    rng = np.random.default_rng(sum(signs) + 3 * signs[0])
    ka = (-128, 128) if signs[0] else (0, 256)
    kb = (-128, 128) if signs[1] else (0, 256)
    r = rng.integers(-(2**31), 2**31, 4)
    a, b = rng.integers(*ka, 16), rng.integers(*kb, 16)
    st_ = ref.RefState(16, 16)
    st_.z[0], st_.z[1], st_.z[2] = bytes_of(r.astype(np.int32).view(np.uint8)), bytes_of(a), bytes_of(b)
    ref.neon_elem(st_, 0, 1, 2, 3, 1, *signs)
    got = acle._neon("vdotq_laneq_s32", r, a, b, 3, 4, 16, signs)
    assert got.view(np.uint8).tolist() == st_.z[0]
    sve = ref.RefState(16, 16)
    sve.z[0], sve.z[1], sve.z[2] = st_.z[0], bytes_of(a), bytes_of(b)
    ref.sve_indexed(sve, 0, 1, 2, 1, *signs)
    assert acle._sve("svdot_lane_s32", got, a, b, 1, signs).view(np.uint8).tolist() == sve.z[0]
