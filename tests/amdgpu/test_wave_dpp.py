"""intdot.amdgpu.Wave on the DPP forms of the VOP2 dots against tests/amdgpu/reference_dpp.py (the lane moves, from
the manuals' text) and tests/amdgpu/reference_amdgpu.py (the dot of each lane): random register states, EXEC
masks, controls, row/bank masks, bound_ctrl and fi, every lane, both wave sizes where the processor has them;
the instruction given as text and as llvm-mc's bytes. What the manuals leave undefined is refused."""

from __future__ import annotations

import random

import numpy as np
import pytest

from intdot.amdgpu import Wave, assemble
from intdot.errors import UndefinedEncoding
from tests.amdgpu.reference_amdgpu import dot_lane
from tests.amdgpu.reference_dpp import dpp8_src0, dpp16_src0

GFX9_CONTROLS = ["quad_perm", "row_shl", "row_shr", "row_ror", "wave_shl:1", "wave_rol:1", "wave_shr:1", "wave_ror:1",
                 "row_mirror", "row_half_mirror", "row_bcast:15", "row_bcast:31"]  # fmt: skip
GFX10_CONTROLS = ["quad_perm", "row_shl", "row_shr", "row_ror", "row_mirror", "row_half_mirror", "row_share",
                  "row_xmask", "dpp8"]  # fmt: skip
PROCESSORS = {  # processor -> (mnemonics with DPP forms, controls, wave sizes)
    "gfx908": (["v_dot2c_i32_i16", "v_dot4c_i32_i8", "v_dot8c_i32_i4"], GFX9_CONTROLS, [64]),
    "gfx90a": (["v_dot2c_i32_i16", "v_dot4c_i32_i8", "v_dot8c_i32_i4"], [*GFX9_CONTROLS, "row_newbcast"], [64]),
    "gfx942": (["v_dot4c_i32_i8", "v_dot8c_i32_i4"], [*GFX9_CONTROLS, "row_newbcast"], [64]),
    "gfx1030": (["v_dot4c_i32_i8"], GFX10_CONTROLS, [32, 64]),
    "gfx1011": (["v_dot4c_i32_i8"], GFX10_CONTROLS, [32, 64]),
}
_CTRL_VALUE = {"row_shl": 0x100, "row_shr": 0x110, "row_ror": 0x120, "row_share": 0x150, "row_newbcast": 0x150,
               "row_xmask": 0x160, "wave_shl:1": 0x130, "wave_rol:1": 0x134, "wave_shr:1": 0x138,
               "wave_ror:1": 0x13C, "row_mirror": 0x140, "row_half_mirror": 0x141, "row_bcast:15": 0x142,
               "row_bcast:31": 0x143}  # fmt: skip
STRESS = [0, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0x80808080, 0x7F7F7F7F, 0x88888888, 0x80008000]


def _control(rng, name):
    """(text, dpp_ctrl value) of one random DPP16 control of kind ``name``."""
    if name == "quad_perm":
        sel = [rng.randrange(4) for _ in range(4)]
        return f"quad_perm:[{','.join(map(str, sel))}]", sum(s << (2 * i) for i, s in enumerate(sel))
    if name in ("row_shl", "row_shr", "row_ror"):
        k = rng.randint(1, 15)
        return f"{name}:{k}", _CTRL_VALUE[name] + k
    if name in ("row_share", "row_xmask", "row_newbcast"):
        k = rng.randint(0, 15)
        return f"{name}:{k}", _CTRL_VALUE[name] + k
    return name, _CTRL_VALUE[name]


def _random_exec(rng, size):
    r = rng.random()
    if r < 0.25:
        return (1 << size) - 1
    if r < 0.4:  # whole rows or quads off
        mask = (1 << size) - 1
        for _ in range(rng.randint(1, 4)):
            lo = rng.randrange(0, size, 4)
            mask &= ~(((1 << rng.choice([4, 8, 16])) - 1) << lo)
        return mask & ((1 << size) - 1)
    return rng.getrandbits(size)


def _fill(w: Wave, rng):
    g = np.random.default_rng(rng.getrandbits(32))
    v = g.integers(0, 1 << 32, size=w.v.shape, dtype=np.uint64).astype(np.uint32)
    stress = g.random(w.v.shape) < 0.3
    v[stress] = g.choice(np.array(STRESS, dtype=np.uint32), size=int(stress.sum()))
    w.v[:] = v


def _case(rng, mcpu, w: Wave):
    """(text, per-lane (src0, written) from the reference or LookupError) of a random DPP instruction."""
    mnemonics, controls, _ = PROCESSORS[_ALIKE.get(mcpu, mcpu)]
    mnemonic = rng.choice(mnemonics) + rng.choice(["", "_dpp"])
    vdst, vsrc0, vsrc1 = (rng.randrange(256) for _ in range(3))
    if rng.random() < 0.15:
        vsrc0 = vdst  # the source is read before the destination is written
    head = f"{mnemonic} v{vdst}, v{vsrc0}, v{vsrc1}"
    exec_ = w.exec
    data = [int(x) for x in w.v[vsrc0]]
    name = rng.choice(controls)
    if name == "dpp8":
        sels = [rng.randrange(8) for _ in range(8)]
        fi = rng.randrange(2)
        text = f"{head} dpp8:[{','.join(map(str, sels))}]" + (" fi:1" if fi else rng.choice(["", " fi:0"]))
        return text, vdst, vsrc1, lambda: dpp8_src0(data, sels, fi, exec_)
    ctrl_text, ctrl = _control(rng, name)
    row_mask = 0xF if rng.random() < 0.4 else rng.randrange(16)
    bank_mask = 0xF if rng.random() < 0.4 else rng.randrange(16)
    if name.startswith("row_bcast") and rng.random() < 0.65:  # mostly the rows the manuals define
        row_mask &= 0xE if name.endswith("15") else 0xC
    bound_ctrl = rng.randrange(2)
    fi = rng.randrange(2) if not mcpu.startswith("gfx9") else 0
    text = f"{head} {ctrl_text}"
    text += f" row_mask:{row_mask:#x}" if row_mask != 0xF or rng.random() < 0.5 else ""
    text += f" bank_mask:{bank_mask:#x}" if bank_mask != 0xF or rng.random() < 0.5 else ""
    text += rng.choice([" bound_ctrl:1", " bound_ctrl:0"]) if bound_ctrl else ""  # llvm-mc sets BC for both
    text += " fi:1" if fi else ""
    return text, vdst, vsrc1, lambda: dpp16_src0(data, ctrl, row_mask, bank_mask, bound_ctrl, fi, exec_)


# --slow: every other processor with DPP dots too, ten times the instructions
_ALIKE = {
    "gfx940": "gfx942",
    "gfx941": "gfx942",
    "gfx1012": "gfx1011",
    **{f"gfx{n}": "gfx1030" for n in range(1031, 1037)},
}
CASES = [pytest.param(p, n, 150, id=f"{p}-{n}") for p, (_, _, sizes) in PROCESSORS.items() for n in sizes]
CASES += [
    pytest.param(p, n, 1500, id=f"{p}-{n}-volume", marks=pytest.mark.slow)
    for p in [*PROCESSORS, *_ALIKE]
    for n in PROCESSORS[_ALIKE.get(p, p)][2]
]


@pytest.mark.parametrize("mcpu, wave_size, count", CASES)
def test_dpp_forms_match_the_reference(mcpu, wave_size, count):
    rng = random.Random(f"dpp-{mcpu}-{wave_size}-{count}")
    w = Wave(mcpu, wave_size=wave_size)
    undefined = 0
    for _ in range(count):
        _fill(w, rng)
        w.exec = _random_exec(rng, wave_size)
        text, vdst, vsrc1, reference = _case(rng, mcpu, w)
        mnemonic = text.split()[0].removesuffix("_dpp")
        before = w.v.copy()
        instruction = text if rng.random() < 0.5 else assemble(text, mcpu)
        try:
            lanes = reference()
        except LookupError:
            with pytest.raises(UndefinedEncoding, match="row_bcast"):
                w.run(instruction)
            assert np.array_equal(w.v, before), text
            undefined += 1
            continue
        w.run(instruction)
        expected = before.copy()
        for lane, (a, written) in enumerate(lanes):
            if written:
                b, c = int(before[vsrc1, lane]), int(before[vdst, lane])
                expected[vdst, lane] = dot_lane(mnemonic, a, b, c)
        assert np.array_equal(w.v, expected), (mcpu, text, hex(w.exec))
    if any(c.startswith("row_bcast") for c in PROCESSORS[_ALIKE.get(mcpu, mcpu)][1]):
        assert undefined > 0  # the refusal was exercised


def test_row_shr_scan_step_by_hand():
    # lanes 0..3 of a row with row_shr:1 bound_ctrl:0 (llvm-mc sets BC): lane 0 reads 0, lane k reads lane k-1
    w = Wave("gfx908")
    w.v[1] = np.arange(64, dtype=np.uint32) * 0x01010101
    w.v[2] = 0x01010101
    w.run("v_dot4c_i32_i8 v0, v1, v2 row_shr:1 bound_ctrl:0")
    assert w.v[0, :4].tolist() == [0, 0, 4, 8] and w.v[0, 16] == 0 and w.v[0, 17] == 64
    w.v[0] = 7
    w.run("v_dot4c_i32_i8 v0, v1, v2 row_shr:1")  # no bound_ctrl: lanes 0, 16, 32, 48 keep their value
    assert w.v[0, :3].tolist() == [7, 7, 11] and w.v[0, 16] == 7


def test_undefined_controls_are_refused():
    w = Wave("gfx908")
    with pytest.raises(UndefinedEncoding, match=r"row_bcast:15 gives row\(s\) \[0\]"):
        w.run("v_dot4c_i32_i8 v0, v1, v2 row_bcast:15")
    w.run("v_dot4c_i32_i8 v0, v1, v2 row_bcast:15 row_mask:0xa")  # LLVM's own scan writes rows 1 and 3 only
    w.exec = 0xFFFF_FFFF_0000_0000
    w.run("v_dot4c_i32_i8 v0, v1, v2 row_bcast:31")  # rows 0 and 1 are off in exec: nothing undefined is written
    # dpp_ctrl 0x100 (reserved), and the reserved bit of the DPP word, from bytes llvm-mc decodes
    reserved = bytearray(assemble("v_dot4c_i32_i8_dpp v0, v1, v2 row_shl:1", "gfx908"))
    reserved[5] &= 0xF0
    with pytest.raises(UndefinedEncoding, match="reserved"):
        Wave("gfx908").run(bytes(reserved))
    bit = bytearray(assemble("v_dot4c_i32_i8_dpp v0, v1, v2 row_shl:1", "gfx1030"))
    bit[6] |= 0x02
    with pytest.raises(UndefinedEncoding, match="reserved bit"):
        Wave("gfx1030").run(bytes(bit))
    from intdot.amdgpu import parse

    newbcast = parse("v_dot4c_i32_i8 v0, v1, v2 row_newbcast:3", "gfx90a")  # gfx90a's; gfx908 has no 0x153
    with pytest.raises(UndefinedEncoding, match="reserved on gfx908"):
        Wave("gfx908").run(newbcast)


def test_exec_command_runs_dpp_forms(capsys):
    from intdot.cli import main

    argv = ["exec", "--isa", "amdgpu", "--mcpu", "gfx1030", "--set", "wave_size=64", "--set", "v1=0..63"]
    argv += ["--set", "v2=1", "--set", "exec=0xFFFFFFFFFFFFFFFE", "v_dot4c_i32_i8 v0, v1, v2 row_shr:1 bound_ctrl:1"]
    assert main(argv) == 0
    # the lanes in rows of 8, each row headed by its first lane's number in brackets
    lanes = [int(x) for line in capsys.readouterr().out.splitlines()[1:] for x in line.split("]")[1].split()]
    # lane k reads lane k-1's low byte; lane 1 reads lane 0 (disabled, fi:0: 0); lane 0 is off; row starts read 0
    assert len(lanes) == 64 and lanes[:4] == [0, 0, 1, 2] and lanes[16] == 0 and lanes[17] == 16
    assert main(["exec", "--isa", "amdgpu", "--mcpu", "gfx908", "v_dot4c_i32_i8 v0, v1, v2 row_bcast:31"]) == 1
    assert "row_bcast:31" in capsys.readouterr().err
