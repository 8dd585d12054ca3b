"""intdot against llvm-mc itself: random operands for every form, assembled
and disassembled by both in one llvm-mc run per batch; and a sample of
illegal operands that both must reject."""

from __future__ import annotations

import os
import random

import numpy as np
import pytest

import intdot.arm as arm
from intdot.errors import AsmSyntaxError, IntdotError
from tests.oracles import llvm_mc, missing

from .test_asm_reference import SPEC_FORMS, words_of

pytestmark = pytest.mark.oracle

SEED = int(os.environ.get("INTDOT_SEED", "20261130"))
PER_FORM = 60


@pytest.fixture(scope="module", autouse=True)
def _need_llvm_mc():
    if llvm_mc.tool() is None:
        missing("llvm-mc (llvm-19)", "install Debian's llvm-19 package (apt-get install llvm-19)")


def _zlist(first, n, rng):
    regs = [(first + k) % 32 for k in range(n)]
    style = rng.randrange(3)
    if style == 0:
        return "{ " + ", ".join(f"z{r}.b" for r in regs) + " }"
    if style == 1:
        return f"{{z{regs[0]}.b-z{regs[-1]}.b}}"
    return "{" + ",".join(f"z{r}.b" for r in regs) + "}"


def random_line(form: str, rng: random.Random) -> str:
    """One random legal instruction of ``form`` in a random accepted spelling."""
    r = rng.randrange
    if form.startswith("neon"):
        t = ("4s", "16b") if form == "neon128" else ("2s", "8b")
        line = f"sudot v{r(32)}.{t[0]}, v{r(32)}.{t[1]}, v{r(32)}.4b[{r(4)}]"
    elif form == "sve":
        line = f"sudot z{r(32)}.s, z{r(32)}.b, z{r(8)}.b[{r(4)}]"
    else:
        n = 2 if form.endswith("vgx2") else 4
        indexed = "indexed" in form
        zn = n * r(32 // n) if indexed else r(32)
        vgx = f", vgx{n}" if r(2) else ""
        tail = f"z{r(16)}.b" + (f"[{r(4)}]" if indexed else "")
        line = f"sudot za.s[w{8 + r(4)}, {r(8)}{vgx}], {_zlist(zn, n, rng)}, {tail}"
    return line.upper() if r(5) == 0 else line


def test_assembler_agrees_with_llvm_mc():
    rng = random.Random(SEED)
    lines = [random_line(f, rng) for f in sorted(SPEC_FORMS) for _ in range(PER_FORM)]
    expected = llvm_mc.assemble(lines)
    for line, (text, word) in zip(lines, expected):
        got = arm.assemble(line)
        assert got == word, (line, hex(got), hex(word))
        assert arm.disassemble(got) == text, line


def test_disassembler_agrees_with_llvm_mc():
    rng = np.random.default_rng(SEED)
    words = np.concatenate([words_of(fixed, free, PER_FORM, rng) for fixed, free in SPEC_FORMS.values()])
    expected = llvm_mc.disassemble(words.tolist())
    assert arm.disassemble(words).tolist() == expected


def all_words(fixed: int, free: int) -> np.ndarray:
    """Every word with the fixed bits ``fixed`` and any value of the ``free`` bits."""
    positions = [b for b in range(32) if free >> b & 1]
    k = np.arange(1 << len(positions), dtype=np.uint64)
    words = np.full(k.shape, fixed, dtype=np.uint64)
    for i, b in enumerate(positions):
        words |= ((k >> np.uint64(i)) & np.uint64(1)) << np.uint64(b)
    return words.astype(np.uint32)


@pytest.mark.parametrize("form", sorted(SPEC_FORMS))
def test_every_encoding_disassembles_like_llvm_mc(form):
    """The whole encoding space of each form (376,832 words in all), one llvm-mc run per form."""
    words = all_words(*SPEC_FORMS[form])
    assert arm.disassemble(words).tolist() == llvm_mc.disassemble(words.tolist())


def illegal_lines(rng: random.Random) -> list[tuple[str, str]]:
    """(line, what is wrong) pairs, each breaking one operand of a legal form."""
    r = rng.randrange
    out = []
    for _ in range(8):
        zn = 2 * r(16)
        out += [
            (f"sudot v{r(32)}.4s, v{r(32)}.16b, v{r(32)}.4b[{4 + r(60)}]", "lane"),
            (f"sudot v{r(32)}.2s, v{r(32)}.16b, v{r(32)}.4b[{r(4)}]", "arrangement"),
            (f"sudot v{r(32)}.4s, v{r(32)}.8b, v{r(32)}.4b[{r(4)}]", "arrangement"),
            (f"sudot z{r(32)}.s, z{r(32)}.b, z{8 + r(24)}.b[{r(4)}]", "zm"),
            (f"sudot z{r(32)}.s, z{r(32)}.b, z{r(8)}.b[{4 + r(10)}]", "lane"),
            (f"sudot z{r(32)}.s, z{r(32)}.{'hsd'[r(3)]}, z{r(8)}.b[{r(4)}]", "width"),
            (f"sudot za.s[w{rng.choice([*range(8), *range(12, 31)])}, {r(8)}, vgx2], "
             f"{{z0.b-z1.b}}, z{r(16)}.b", "wv"),
            (f"sudot za.s[w{8 + r(4)}, {8 + r(20)}], {{z{r(32)}.b-z{r(32)}.b}}, z{r(16)}.b", "off or list"),
            (f"sudot za.s[w{8 + r(4)}, {8 + r(20)}], {{z{zn}.b, z{zn + 1}.b}}, z{r(16)}.b[{r(4)}]", "off"),
            (f"sudot za.s[w{8 + r(4)}, {r(8)}], {{z{4 * r(8)}.b-z{4 * r(8) + 3}.b}}, z{16 + r(16)}.b[{r(4)}]",
             "zm"),
            (f"sudot za.s[w{8 + r(4)}, {r(8)}, vgx2], {{z{2 * r(16) + 1}.b, z{(2 * r(16) + 2) % 32}.b}}, "
             f"z{r(16)}.b[{r(4)}]", "list"),
            (f"sudot za.s[w{8 + r(4)}, {r(8)}, vgx4], {{z{4 * r(8) + 1 + r(3)}.b-z{r(32)}.b}}, "
             f"z{r(16)}.b[{r(4)}]", "list"),
            (f"sudot za.s[w{8 + r(4)}, {r(8)}, vgx4], {{z{r(32)}.b, z{r(32)}.b}}, z{r(16)}.b", "list"),
        ]
    return out


def test_both_reject_illegal_operands():
    lines = illegal_lines(random.Random(SEED))
    llvm = llvm_mc.rejections([line for line, _ in lines])
    for k, (line, what) in enumerate(lines):
        with pytest.raises(AsmSyntaxError) as info:
            arm.assemble(line)
        assert k in llvm, f"llvm-mc accepted {line!r} ({what}), intdot said {info.value.reason!r}"
        # LLVM reports a misaligned list at another operand, as "invalid operand for instruction".
        if what not in ("list", "off or list"):
            column, message = llvm[k][0]
            assert info.value.reason.startswith(message), (line, info.value.reason, message)
            assert info.value.column == column, (line, info.value.column, column)


def mutate(line: str, rng: random.Random) -> str:
    """``line`` with one or two characters deleted, inserted or replaced."""
    alphabet = "zvwZ0123456789.,[]{}- #bshx"
    for _ in range(rng.randrange(1, 3)):
        i = rng.randrange(len(line))
        op = rng.randrange(3)
        if op == 0:
            line = line[:i] + line[i + 1:]
        elif op == 1:
            line = line[:i] + rng.choice(alphabet) + line[i:]
        else:
            line = line[:i] + rng.choice(alphabet) + line[i + 1:]
    return line


def test_what_intdot_accepts_llvm_mc_accepts():
    """Mangled spellings: intdot never fails with anything but its own errors,
    and each line it accepts llvm-mc accepts too, with the same word."""
    rng = random.Random(SEED)
    accepted = []
    for _ in range(4000):
        line = mutate(random_line(rng.choice(sorted(SPEC_FORMS)), rng), rng)
        try:
            accepted.append((line, arm.assemble(line)))
        except IntdotError:
            pass
    assert len(accepted) > 50
    rejected = llvm_mc.rejections([line for line, _ in accepted])
    assert not rejected, [(accepted[k][0], v) for k, v in list(rejected.items())[:5]]
    for (line, word), (_, llvm_word) in zip(accepted, llvm_mc.assemble([line for line, _ in accepted])):
        assert word == llvm_word, line
