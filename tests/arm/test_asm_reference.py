"""intdot's decoder and printer against a slow reference written from the spec's
"Instruction Forms" table (``shared/spec/arm-sudot.txt``) and LLVM's printing rules.

The reference below reads the bits one field at a time, exactly as the table
lays them out; it shares no code or table with ``intdot.arm``.
"""

from __future__ import annotations

import numpy as np
import pytest

import intdot.arm as arm
from intdot.errors import UndefinedEncoding


def bits(word: int, hi: int, lo: int) -> int:
    return (word >> lo) & ((1 << (hi - lo + 1)) - 1)


def zlist(first: int, n: int) -> str:
    regs = [(first + k) % 32 for k in range(n)]
    if n == 4 and first <= 28:  # LLVM prints a run of four as a range unless it wraps
        return f"{{ z{regs[0]}.b - z{regs[3]}.b }}"
    return "{ " + ", ".join(f"z{r}.b" for r in regs) + " }"


def ref_text(w: int) -> str | None:
    """LLVM's text of word ``w`` if it is a SUDOT of the spec's table, else None."""
    # 0 | Q | 0 | 01111 | 0 | 0 | L | M | Rm | 1111 | H | 0 | Rn | Rd
    if (bits(w, 31, 31) == 0 and bits(w, 29, 29) == 0 and bits(w, 28, 24) == 0b01111 and bits(w, 23, 23) == 0
            and bits(w, 22, 22) == 0 and bits(w, 15, 12) == 0b1111 and bits(w, 10, 10) == 0):
        q, L, M, rm, H = bits(w, 30, 30), bits(w, 21, 21), bits(w, 20, 20), bits(w, 19, 16), bits(w, 11, 11)
        rn, rd = bits(w, 9, 5), bits(w, 4, 0)
        ta, tb = ("4s", "16b") if q else ("2s", "8b")
        return f"sudot v{rd}.{ta}, v{rn}.{tb}, v{M * 16 + rm}.4b[{H * 2 + L}]"
    # 01000100 | 1 | 0 | 1 | i2 | Zm | 00011 | 1 | Zn | Zda
    if (bits(w, 31, 24) == 0b01000100 and bits(w, 23, 23) == 1 and bits(w, 22, 22) == 0 and bits(w, 21, 21) == 1
            and bits(w, 15, 11) == 0b00011 and bits(w, 10, 10) == 1):
        return f"sudot z{bits(w, 4, 0)}.s, z{bits(w, 9, 5)}.b, z{bits(w, 18, 16)}.b[{bits(w, 20, 19)}]"
    # 110000010101 | Zm | 0/1 | Rv | 1 | i2 | Zn | ... | 1 | 1 | 1 | off3
    if bits(w, 31, 20) == 0b110000010101 and bits(w, 12, 12) == 1 and bits(w, 5, 3) == 0b111:
        zm, wv, i2, off = bits(w, 19, 16), 8 + bits(w, 14, 13), bits(w, 11, 10), bits(w, 2, 0)
        if bits(w, 15, 15) == 0:
            return f"sudot za.s[w{wv}, {off}, vgx2], {zlist(2 * bits(w, 9, 6), 2)}, z{zm}.b[{i2}]"
        if bits(w, 6, 6) == 0:
            return f"sudot za.s[w{wv}, {off}, vgx4], {zlist(4 * bits(w, 9, 7), 4)}, z{zm}.b[{i2}]"
        return None
    # 11 | 000001001x | Zm | 0 | Rv | 101 | Zn | 1 | 1 | off3
    if (bits(w, 31, 30) == 0b11 and bits(w, 29, 21) == 0b000001001 and bits(w, 15, 15) == 0
            and bits(w, 12, 10) == 0b101 and bits(w, 4, 3) == 0b11):
        n = 4 if bits(w, 20, 20) else 2
        zm, wv, zn, off = bits(w, 19, 16), 8 + bits(w, 14, 13), bits(w, 9, 5), bits(w, 2, 0)
        return f"sudot za.s[w{wv}, {off}, vgx{n}], {zlist(zn, n)}, z{zm}.b"
    return None


# (fixed bits, free-bit mask) of each form from the spec table, to draw words of one form.
SPEC_FORMS = {
    "neon64": (0x0F00F000, 0x003F0BFF),
    "neon128": (0x4F00F000, 0x003F0BFF),
    "sve": (0x44A01C00, 0x001F03FF),
    "sme2_indexed_vgx2": (0xC1501038, 0x000F6FC7),
    "sme2_indexed_vgx4": (0xC1509038, 0x000F6F87),
    "sme2_single_vgx2": (0xC1201418, 0x000F63E7),
    "sme2_single_vgx4": (0xC1301418, 0x000F63E7),
}


def words_of(fixed: int, free: int, count: int, rng) -> np.ndarray:
    r = rng.integers(0, 2**32, count, dtype=np.uint64).astype(np.uint32)
    return (r & np.uint32(free)) | np.uint32(fixed)


@pytest.mark.parametrize("name", sorted(SPEC_FORMS))
def test_bulk_and_scalar_match_reference(name):
    fixed, free = SPEC_FORMS[name]
    rng = np.random.default_rng(sum(map(ord, name)))
    words = words_of(fixed, free, 3000, rng)
    words[0], words[1] = fixed, fixed | free  # all field bits 0 and all 1
    bulk = arm.disassemble(words)
    assert bulk.shape == words.shape
    for w, text in zip(words.tolist(), bulk.tolist()):
        expected = ref_text(w)
        assert expected is not None, hex(w)
        assert text == expected, hex(w)
    for w in words[:300].tolist():
        assert arm.disassemble(w) == ref_text(w)
        assert arm.encode(arm.decode(w)) == w


def test_no_wrong_instruction_for_other_words():
    """Random words, and every one-bit change of a word of each form: intdot
    decodes exactly the words the reference decodes, to the same text."""
    rng = np.random.default_rng(7)
    words = list(rng.integers(0, 2**32, 20000, dtype=np.uint64).tolist())
    for fixed, free in SPEC_FORMS.values():
        base = int(words_of(fixed, free, 1, rng)[0])
        words += [base ^ (1 << b) for b in range(32)]
    marked = arm.disassemble(np.array(words, dtype=np.uint64), errors="mark")
    for w, text in zip(words, marked.tolist()):
        expected = ref_text(w)
        if expected is None:
            assert text == f".inst {w:#010x}"
            with pytest.raises(UndefinedEncoding, match="not a supported encoding"):
                arm.decode(w)
        else:
            assert text == expected
            assert arm.disassemble(w) == expected
