"""intdot's decoder and printer against a slow reference written here from the
Arm ARM's encoding diagrams (SDOT/UDOT/USDOT/SUDOT, AdvSIMD, SVE, SVE2.1,
SME2) and LLVM's printing rules.

The reference reads each diagram one field at a time, as the Arm ARM draws it
(bit 31 first), and prints with its own per-class rules; it shares no code or
table with ``intdot.arm``.  ``REF_FORMS`` also gives each form's fixed bits
and free bits, from which the oracle tests draw words.
"""

from __future__ import annotations

import numpy as np
import pytest

import intdot.arm as arm
from intdot.errors import UndefinedEncoding

SIGNS = {"sdot": "ss", "udot": "uu", "usdot": "us", "sudot": "su"}

# form id -> (diagram, printing class).  Diagram tokens: bits, or NAME:width fields.
_NEON_V = "0 {Q} {U} 01110 10 0 Rm:5 1 {op} 1 Rn:5 Rd:5"
_NEON_E = "0 {Q} {U} 01111 {sz} 0 L:1 M:1 Rm:4 {op} H:1 0 Rn:5 Rd:5"
_SME_SINGLE = "11000001 0 {h} 1 {v} Zm:4 0 Rv:2 101 Zn:5 {op} off:3"
_SME_MULTI2 = "11000001 1 {h} 1 Zm:4 0 0 Rv:2 101 Zn:4 0 {op} off:3"
_SME_MULTI4 = "11000001 1 {h} 1 Zm:3 0 1 0 Rv:2 101 Zn:3 0 0 {op} off:3"
_SME_IDX2 = "110000010101 Zm:4 0 Rv:2 1 i:2 Zn:4 {op} off:3"
_SME_IDX4 = "110000010101 Zm:4 1 Rv:2 1 i:2 Zn:3 0 {op} off:3"
_SME_IDXD2 = "110000011101 Zm:4 0 Rv:2 0 0 i:1 Zn:4 0 {U} 1 off:3"
_SME_IDXD4 = "110000011101 Zm:4 1 Rv:2 0 0 i:1 Zn:3 0 0 {U} 1 off:3"


def _ref_forms() -> dict[str, tuple[str, str]]:
    r: dict[str, tuple[str, str]] = {}
    for q, size in ((0, "64"), (1, "128")):
        for mn, u, op in (("sdot", 0, "0010"), ("udot", 1, "0010"), ("usdot", 0, "0011")):
            r[f"{mn}_neon_vec_{size}"] = (_NEON_V.format(Q=q, U=u, op=op), "neon_vec")
        for mn, u, sz, op in (
            ("sdot", 0, 1, "1110"),
            ("udot", 1, 1, "1110"),
            ("usdot", 0, 1, "1111"),
            ("sudot", 0, 0, "1111"),
        ):
            r[f"{mn}_neon_elem_{size}"] = (_NEON_E.format(Q=q, U=u, sz=sz, op=op), "neon_elem")
    for mn, op in (("sdot", "000000"), ("udot", "000001"), ("usdot", "011110")):
        r[f"{mn}_sve_vec"] = (f"01000100 10 0 Zm:5 {op} Zn:5 Zda:5", "sve_bs")
    for mn, op in (("sdot", "000000"), ("udot", "000001"), ("usdot", "000110"), ("sudot", "000111")):
        r[f"{mn}_sve_indexed"] = (f"01000100 10 1 i:2 Zm:3 {op} Zn:5 Zda:5", "sve_bs_idx")
    for mn, u in (("sdot", 0), ("udot", 1)):
        r[f"{mn}_sve_vec_d"] = (f"01000100 11 0 Zm:5 00000 {u} Zn:5 Zda:5", "sve_hd")
        r[f"{mn}_sve_indexed_d"] = (f"01000100 11 1 i:1 Zm:4 00000 {u} Zn:5 Zda:5", "sve_hd_idx")
        r[f"{mn}_sve_vec_hs"] = (f"01000100 00 0 Zm:5 11001 {u} Zn:5 Zda:5", "sve_hs")
        r[f"{mn}_sve_indexed_hs"] = (f"01000100 10 0 i:2 Zm:3 11001 {u} Zn:5 Zda:5", "sve_hs_idx")
    for n, v in ((2, 0), (4, 1)):
        multi = _SME_MULTI2 if n == 2 else _SME_MULTI4
        idx = _SME_IDX2 if n == 2 else _SME_IDX4
        idxd = _SME_IDXD2 if n == 2 else _SME_IDXD4
        for mn, op in (("sdot", "00"), ("udot", "10"), ("usdot", "01"), ("sudot", "11")):
            r[f"{mn}_sme2_single_vgx{n}"] = (_SME_SINGLE.format(h=0, v=v, op=op), f"za_s_b_single{n}")
            if mn != "sudot":
                r[f"{mn}_sme2_multi_vgx{n}"] = (multi.format(h=0, op=op), f"za_s_b_multi{n}")
        for mn, op in (("sdot", "100"), ("udot", "110"), ("usdot", "101"), ("sudot", "111")):
            r[f"{mn}_sme2_indexed_vgx{n}"] = (idx.format(op=op), f"za_s_b_indexed{n}")
        for mn, op in (("sdot", "01"), ("udot", "11")):
            r[f"{mn}_sme2_single_hs_vgx{n}"] = (_SME_SINGLE.format(h=1, v=v, op=op), f"za_s_h_single{n}")
            r[f"{mn}_sme2_multi_hs_vgx{n}"] = (multi.format(h=1, op=op), f"za_s_h_multi{n}")
        for mn, op in (("sdot", "000"), ("udot", "010")):
            r[f"{mn}_sme2_indexed_hs_vgx{n}"] = (idx.format(op=op), f"za_s_h_indexed{n}")
        for mn, op in (("sdot", "00"), ("udot", "10")):
            r[f"{mn}_sme2_single_d_vgx{n}"] = (_SME_SINGLE.format(h=1, v=v, op=op), f"za_d_h_single{n}")
            r[f"{mn}_sme2_multi_d_vgx{n}"] = (multi.format(h=1, op=op), f"za_d_h_multi{n}")
        for mn, u in (("sdot", 0), ("udot", 1)):
            r[f"{mn}_sme2_indexed_d_vgx{n}"] = (idxd.format(U=u), f"za_d_h_indexed{n}")
    return r


REF = _ref_forms()


def _diagram(text: str) -> tuple[int, int, dict[str, tuple[int, int]]]:
    """(fixed bits, their mask, {field: (hi, lo)}) of a diagram."""
    pos, fixed, mask, fields = 32, 0, 0, {}
    for tok in text.split():
        if ":" in tok:
            name, width = tok.split(":")
            pos -= int(width)
            fields[name] = (pos + int(width) - 1, pos)
        else:
            pos -= len(tok)
            fixed |= int(tok, 2) << pos
            mask |= ((1 << len(tok)) - 1) << pos
    assert pos == 0, text
    return fixed, mask, fields


DIAGRAMS = {name: _diagram(d) for name, (d, _) in REF.items()}
# (fixed bits, free-bit mask) of each form, to draw words of one form.
SPEC_FORMS = {name: (fixed, ~mask & 0xFFFFFFFF) for name, (fixed, mask, _) in DIAGRAMS.items()}


def bits(word: int, hi: int, lo: int) -> int:
    return (word >> lo) & ((1 << (hi - lo + 1)) - 1)


def zlist(first: int, n: int, t: str) -> str:
    regs = [(first + k) % 32 for k in range(n)]
    if n == 4 and first <= 28:  # LLVM prints a run of four as a range unless it wraps
        return f"{{ z{regs[0]}.{t} - z{regs[3]}.{t} }}"
    return "{ " + ", ".join(f"z{r}.{t}" for r in regs) + " }"


def _print(name: str, cls: str, f: dict[str, int]) -> str:
    mn = name.split("_")[0]
    if cls.startswith("neon"):
        ta, tb = ("4s", "16b") if "_128" in name else ("2s", "8b")
        if cls == "neon_vec":
            return f"{mn} v{f['Rd']}.{ta}, v{f['Rn']}.{tb}, v{f['Rm']}.{tb}"
        return f"{mn} v{f['Rd']}.{ta}, v{f['Rn']}.{tb}, v{f['M'] * 16 + f['Rm']}.4b[{f['H'] * 2 + f['L']}]"
    if cls.startswith("sve"):
        _, t, *idx = cls.split("_")
        ta, tb = {"bs": ("s", "b"), "hd": ("d", "h"), "hs": ("s", "h")}[t]
        text = f"{mn} z{f['Zda']}.{ta}, z{f['Zn']}.{tb}, z{f['Zm']}.{tb}"
        return text + (f"[{f['i']}]" if idx else "")
    _, acc, t, rest = cls.split("_")
    kind, n = rest[:-1], int(rest[-1])
    head = f"{mn} za.{acc}[w{8 + f['Rv']}, {f['off']}, vgx{n}], "
    if kind == "single":
        return head + f"{zlist(f['Zn'], n, t)}, z{f['Zm']}.{t}"
    zn = f["Zn"] * n
    if kind == "multi":
        return head + f"{zlist(zn, n, t)}, {zlist(f['Zm'] * n, n, t)}"
    return head + f"{zlist(zn, n, t)}, z{f['Zm']}.{t}[{f['i']}]"


def ref_text(w: int) -> str | None:
    """LLVM's text of word ``w`` if it is one of the forms above, else None."""
    found = [name for name, (fixed, mask, _) in DIAGRAMS.items() if w & mask == fixed]
    if not found:
        return None
    assert len(found) == 1, found
    name = found[0]
    fields = {k: bits(w, hi, lo) for k, (hi, lo) in DIAGRAMS[name][2].items()}
    return _print(name, REF[name][1], fields)


def ref_form(w: int) -> str | None:
    found = [name for name, (fixed, mask, _) in DIAGRAMS.items() if w & mask == fixed]
    return found[0] if found else None


def words_of(fixed: int, free: int, count: int, rng) -> np.ndarray:
    r = rng.integers(0, 2**32, count, dtype=np.uint64).astype(np.uint32)
    return (r & np.uint32(free)) | np.uint32(fixed)


def test_reference_names_every_row():
    assert set(REF) == {f.name for f in arm.FORMS}
    assert len(REF) == 75


@pytest.mark.parametrize("name", sorted(SPEC_FORMS))
def test_bulk_and_scalar_match_reference(name):
    fixed, free = SPEC_FORMS[name]
    rng = np.random.default_rng(sum(map(ord, name)))
    words = words_of(fixed, free, 1000, rng)
    words[0], words[1] = fixed, fixed | free  # all field bits 0 and all 1
    bulk = arm.disassemble(words)
    assert bulk.shape == words.shape
    for w, text in zip(words.tolist(), bulk.tolist()):
        assert text == ref_text(w), hex(w)
    for w in words[:100].tolist():
        assert arm.disassemble(w) == ref_text(w)
        assert arm.assemble(ref_text(w)) == w  # and back: the reference's text assembles to the word
        insn = arm.decode(w)
        assert insn.form.name == name
        assert arm.encode(insn) == w


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
