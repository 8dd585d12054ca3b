"""disassemble_array (one pass over an array of words) gives the scalar disassembler's text for every word,
on random words near the encodings of every generation, DPP and literals included."""

from __future__ import annotations

import numpy as np
import pytest

from intdot import amdgpu
from intdot.amdgpu.asm import decode_one
from intdot.amdgpu.targets import LLVM_MC_KNOWS
from intdot.errors import IntdotError, OperandError, UndefinedEncoding

SAMPLES = {
    "gfx908": ["v_dot4_i32_i8 v0, v1, v2, v3 clamp", "v_dot4c_i32_i8 v5, 0x1234, v2", "v_dot8c_i32_i4_e64 v0, s1, v2",
               "v_dot2c_i32_i16 v5, v1, v2 row_shl:3 row_mask:0x3 bound_ctrl:0"],
    "gfx90a": ["v_dot8c_i32_i4 v0, v1, v2 row_newbcast:1", "v_dot2_u32_u16 v1, v2, v3, v4 op_sel:[1,0,0]"],
    "gfx1030": ["v_dot4c_i32_i8 v5, v1, v2 dpp8:[7,6,5,4,3,2,1,0] fi:1", "v_dot2_i32_i16 v0, 0x1234, v1, v2",
                "v_dot4c_i32_i8 v5, v1, v2 row_xmask:3 fi:1"],
    "gfx1100": ["v_dot4_i32_iu8 v0, v1, v2, v3 neg_lo:[1,0,0]", "v_dot8_u32_u4 v0, v1, v2, 0x12345678"],
    "gfx1200": ["v_dot8_i32_iu4 v255, s1, v2, v3 neg_lo:[0,1,0] clamp"],
}  # fmt: skip


_ALL = [p for p in amdgpu.PROCESSORS if p in LLVM_MC_KNOWS]
CASES = [pytest.param(p, p, 3000, id=p) for p in SAMPLES]
CASES += [  # --slow: every processor, with the samples of every generation its encodings take, 20,000 words each
    pytest.param(p, None, 20000, id=f"{p}-volume", marks=pytest.mark.slow) for p in _ALL
]


def _seeds(mcpu, key):
    if key is not None:
        return [amdgpu.assemble(t, mcpu) for t in SAMPLES[key]]
    out = []
    for texts in SAMPLES.values():
        for t in texts:
            try:
                out.append(amdgpu.assemble(t, mcpu))
            except IntdotError:
                pass
    return out


@pytest.mark.parametrize("mcpu, key, count", CASES)
def test_bulk_equals_scalar(mcpu, key, count):
    rng = np.random.default_rng(len(mcpu) + count)
    seeds = _seeds(mcpu, key)
    if not seeds:
        pytest.skip(f"{mcpu} has none of the sample instructions")
    datas = []
    for _ in range(count):
        d = bytearray(seeds[rng.integers(len(seeds))].ljust(12, b"\0"))
        for _ in range(rng.integers(0, 4)):
            bit = int(rng.integers(64))
            d[bit // 8] ^= 1 << (bit % 8)
        d[8:12] = rng.integers(0, 256, 4, dtype=np.uint8).tobytes() if rng.random() < 0.5 else d[8:12]
        datas.append(bytes(d))
    words = np.frombuffer(b"".join(d[:8] for d in datas), "<u8")
    lits = np.frombuffer(b"".join(d[8:12] for d in datas), "<u4")
    bulk = amdgpu.disassemble_array(words, mcpu, literals=lits, errors="mark")
    decoded = 0
    for d, text in zip(datas, bulk):
        insn = decode_one(d, 0, mcpu)
        if insn is None:
            assert text.startswith(".quad"), (d.hex(), text)
        else:
            decoded += 1
            assert text == insn.text, d.hex()
    assert decoded > count // 3


def test_bulk_errors():
    words = np.array([0, 0x1C0E0501CC174000], dtype=np.uint64)
    with pytest.raises(UndefinedEncoding, match=r"words\[0\]"):
        amdgpu.disassemble_array(words, "gfx1100")
    with pytest.raises(OperandError, match="errors="):
        amdgpu.disassemble_array(words, "gfx1100", errors="skip")
    lit = np.array([0x1C0E04FFCC174000], dtype=np.uint64)
    with pytest.raises(OperandError, match="literals="):
        amdgpu.disassemble_array(lit, "gfx1100")
    assert amdgpu.disassemble_array(np.zeros((0,), np.uint64), "gfx1100").shape == (0,)
    shaped = amdgpu.disassemble_array(np.full((2, 3), 0x1C0E0501CC174000, dtype=np.uint64), "gfx1100")
    assert shaped.shape == (2, 3) and shaped[1, 2] == "v_dot4_u32_u8 v0, v1, v2, v3"


def test_literals_are_32_bit_dwords():
    """A literal past 32 bits used to be printed whole (0x10000000000) or cut to its low bits (2**32 + 5 as 5)."""
    from intdot import amdgpu
    from intdot.amdgpu.bulk import disassemble_array
    from intdot.errors import OperandError

    code = amdgpu.assemble("v_dot4_u32_u8 v0, 0x12345678, v2, v3", "gfx1100")
    words, lit = np.frombuffer(code[:8], "<u8"), np.frombuffer(code[8:12], "<u4")
    assert disassemble_array(words, "gfx1100", literals=lit).tolist() == ["v_dot4_u32_u8 v0, 0x12345678, v2, v3"]
    for bad in ([2**40], [2**32 + 5]):
        with pytest.raises(OperandError, match="literals holds"):
            disassemble_array(words, "gfx1100", literals=bad)
