"""intdot.amdgpu.Wave against the reference written from the ISA manuals (tests/amdgpu/reference_amdgpu.py):
random register states and random instructions (operands, op_sel on 16-bit sources, clamp, the iu
signedness bits), every lane, both wave sizes; and the modifier bits no manual defines are refused."""

from __future__ import annotations

import random

import numpy as np
import pytest

from intdot.amdgpu import Wave, assemble
from intdot.amdgpu.wave import check_modifiers
from intdot.errors import UndefinedEncoding
from tests.amdgpu.reference_amdgpu import SHAPES, dot_lane

PROCESSORS = {"gfx906": ["v_dot2_i32_i16", "v_dot2_u32_u16", "v_dot4_i32_i8", "v_dot4_u32_u8", "v_dot8_i32_i4",
                         "v_dot8_u32_u4"],
              "gfx908": ["v_dot2c_i32_i16", "v_dot4c_i32_i8", "v_dot8c_i32_i4", "v_dot4_i32_i8"],
              "gfx1030": ["v_dot4c_i32_i8", "v_dot2_i32_i16", "v_dot8_u32_u4"],
              "gfx1100": ["v_dot4_i32_iu8", "v_dot8_i32_iu4", "v_dot4_u32_u8", "v_dot8_u32_u4"],
              "gfx1200": ["v_dot4_i32_iu8", "v_dot8_i32_iu4"]}  # fmt: skip
STRESS = [0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0x80808080, 0x7F7F7F7F, 0x88888888, 0x77777777, 0x80008000]


def _word(rng):
    return rng.choice(STRESS) if rng.random() < 0.3 else rng.getrandbits(32)


def _state(w: Wave, rng):
    g = np.random.default_rng(rng.getrandbits(32))
    v = g.integers(0, 1 << 32, size=w.v.shape, dtype=np.uint64).astype(np.uint32)
    stress = g.random(w.v.shape) < 0.3
    v[stress] = g.choice(np.array(STRESS, dtype=np.uint32), size=int(stress.sum()))
    w.v[:] = v
    w.s[:] = [_word(rng) for _ in range(len(w.s))]
    w.m0 = _word(rng)
    w.vcc = rng.getrandbits(w.wave_size)
    w.exec = rng.getrandbits(w.wave_size) | 1


def _source(rng, w: Wave, vgpr_only=False):
    """(text, per-lane values) of a random source the reference can read."""
    r = rng.random()
    if vgpr_only or r < 0.6:
        n = rng.randrange(256)
        return f"v{n}", [int(x) for x in w.v[n]]
    if r < 0.75:
        n = rng.randrange(100)
        return f"s{n}", [int(w.s[n])] * w.wave_size
    if r < 0.8:
        return "m0", [w.m0] * w.wave_size
    if r < 0.85:
        return "vcc_lo", [w.vcc % (1 << 32)] * w.wave_size
    k = rng.randint(-16, 64)
    return str(k), [k % (1 << 32)] * w.wave_size


def _instruction(rng, mnemonic, w: Wave, literal_ok: bool):
    width, sign0, _, _, vop2 = SHAPES[mnemonic]
    vdst = rng.randrange(256)
    if vop2:
        (t0, a), (t1, b) = _source(rng, w), _source(rng, w, vgpr_only=True)
        c = [int(x) for x in w.v[vdst]]
        return f"{mnemonic} v{vdst}, {t0}, {t1}", a, b, c, {}
    srcs = [_source(rng, w, vgpr_only=i > 0 or rng.random() < 0.5) for i in range(3)]
    if literal_ok and rng.random() < 0.2:
        lit = rng.getrandbits(32) | 0x100
        srcs[0] = (hex(lit), [lit] * w.wave_size)
    mods, kw = [], {}
    if width == 16 and rng.random() < 0.6:
        kw["op_sel"] = (rng.randrange(2), rng.randrange(2), 0)
        kw["op_sel_hi"] = (rng.randrange(2), rng.randrange(2), 1)
        mods += [f"op_sel:[{','.join(map(str, kw['op_sel']))}]", f"op_sel_hi:[{','.join(map(str, kw['op_sel_hi']))}]"]
    if sign0 is None:
        kw["neg_lo"] = (rng.randrange(2), rng.randrange(2), 0)
        mods.append(f"neg_lo:[{','.join(map(str, kw['neg_lo']))}]")
    if rng.random() < 0.5:
        kw["clamp"] = True
        mods.append("clamp")
    text = f"{mnemonic} v{vdst}, {', '.join(t for t, _ in srcs)}" + "".join(" " + m for m in mods)
    return text, srcs[0][1], srcs[1][1], srcs[2][1], kw


@pytest.mark.parametrize("mcpu", list(PROCESSORS))
@pytest.mark.parametrize("wave_size", [32, 64])
def test_wave_matches_the_reference(mcpu, wave_size):
    if mcpu.startswith("gfx9") and wave_size == 32:
        pytest.skip("gfx9 runs wave64 only")
    rng = random.Random(f"{mcpu}-{wave_size}")
    w = Wave(mcpu, wave_size=wave_size)
    for _ in range(60):
        _state(w, rng)
        mnemonic = rng.choice(PROCESSORS[mcpu])
        text, a, b, c, kw = _instruction(rng, mnemonic, w, literal_ok=not mcpu.startswith("gfx9"))
        if mnemonic in ("v_dot2c_i32_i16", "v_dot4c_i32_i8", "v_dot8c_i32_i4") and rng.random() < 0.3:
            text = text.replace(mnemonic, mnemonic + "_e64") + " clamp" if mcpu.startswith("gfx9") else text
            kw = {"clamp": True} if text.endswith("clamp") else kw
        before = w.v.copy()
        vdst = int(text.split()[1].strip("v,"))
        w.run(text if rng.random() < 0.5 else assemble(text, mcpu))
        expected = before.copy()
        for lane in range(wave_size):
            if (w.exec >> lane) & 1:
                expected[vdst, lane] = dot_lane(mnemonic, a[lane], b[lane], c[lane], **kw)
        assert np.array_equal(w.v, expected), (mcpu, text)


@pytest.mark.parametrize(
    "mcpu, text",
    [
        ("gfx906", "v_dot4_i32_i8 v0, v1, v2, v3 neg_lo:[1,0,0]"),
        ("gfx906", "v_dot2_i32_i16 v0, v1, v2, v3 neg_hi:[0,1,0]"),
        ("gfx906", "v_dot4_i32_i8 v0, v1, v2, v3 op_sel:[1,0,0]"),
        ("gfx906", "v_dot2_i32_i16 v0, v1, v2, v3 op_sel:[0,0,1]"),
        ("gfx1100", "v_dot4_i32_iu8 v0, v1, v2, v3 neg_lo:[1,1,1]"),
        ("gfx1100", "v_dot8_u32_u4 v0, v1, v2, v3 op_sel_hi:[0,1,1]"),
        ("gfx908", "v_dot4_i32_i8 v0, src_shared_base, v2, v3"),
    ],
)
def test_undefined_modifiers_are_refused(mcpu, text):
    with pytest.raises(UndefinedEncoding, match="not"):
        Wave(mcpu).run(text)


def test_exec_mask_leaves_disabled_lanes():
    w = Wave("gfx1100")
    w.v[0] = 7
    w.v[1], w.v[2], w.v[3] = 0x01010101, 0x01010101, 0
    w.exec = 0b101
    w.run("v_dot4_u32_u8 v0, v1, v2, v3")
    assert w.v[0, :4].tolist() == [4, 7, 4, 7]


def test_decoded_abs_bits_are_refused():
    # llvm-mc decodes the gfx9 VOP3 form with abs bits set and prints nothing of them
    insn = Wave("gfx908").decode(bytes.fromhex("a6013ad129bd0200"))
    assert insn.text == "v_dot8c_i32_i4_e64 v166, v41, v94"
    with pytest.raises(UndefinedEncoding):
        check_modifiers(insn)


def test_an_instruction_of_another_processor_is_refused():
    from intdot.amdgpu import parse
    from intdot.errors import OperandError, OperandTypeError, UnsupportedOnTarget

    with pytest.raises(UnsupportedOnTarget, match="gfx906"):
        Wave("gfx906").run(parse("v_dot4c_i32_i8 v0, v1, v2", "gfx908"))
    with pytest.raises(UnsupportedOnTarget, match="gfx10"):
        Wave("gfx1030").run(parse("v_dot4_i32_i8 v0, v1, v2, v3", "gfx906"))
    with pytest.raises(OperandError, match="wave_size"):
        Wave("gfx942", wave_size=32)
    with pytest.raises(OperandTypeError, match="instruction"):
        Wave("gfx942").run(3)
