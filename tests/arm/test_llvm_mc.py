"""intdot against llvm-mc itself, for every form: random words (10^4 per form,
the whole encoding space under ``--slow``) disassembled by both; random legal
text in mixed spellings assembled by both; text with one operand broken, and
mangled text, where both must accept the same lines (with the same word) and
reject the rest with the same message at the same column.

The words and texts are drawn from the reference table of
``test_asm_reference.py``, not from intdot's; llvm-mc gives the expected
answers.
"""

from __future__ import annotations

import os
import random
import re

import numpy as np
import pytest

import intdot.arm as arm
from intdot.errors import AsmSyntaxError, IntdotError
from tests.oracles import llvm_mc, missing

from .test_asm_reference import DIAGRAMS, SPEC_FORMS, ref_text, words_of

pytestmark = pytest.mark.oracle

SEED = int(os.environ.get("INTDOT_SEED", "20261130"))
PER_FORM = 10_000
FORMS = sorted(SPEC_FORMS)


@pytest.fixture(scope="module", autouse=True)
def _need_llvm_mc():
    if llvm_mc.tool() is None:
        missing("llvm-mc (llvm-19)", "install Debian's llvm-19 package (apt-get install llvm-19)")


def all_words(fixed: int, free: int) -> np.ndarray:
    """Every word with the fixed bits ``fixed`` and any value of the ``free`` bits."""
    positions = [b for b in range(32) if free >> b & 1]
    k = np.arange(1 << len(positions), dtype=np.uint64)
    words = np.full(k.shape, fixed, dtype=np.uint64)
    for i, b in enumerate(positions):
        words |= ((k >> np.uint64(i)) & np.uint64(1)) << np.uint64(b)
    return words.astype(np.uint32)


def sample_words(form: str, count: int, rng) -> np.ndarray:
    """``count`` distinct words of ``form`` (all of them if it has fewer), corners first."""
    fixed, free = SPEC_FORMS[form]
    if 1 << bin(free).count("1") <= count:
        return all_words(fixed, free)
    words = np.unique(words_of(fixed, free, count * 2, rng))[:count]
    words[:2] = [fixed, fixed | free]
    return words


def _compare_words(words: np.ndarray) -> None:
    expected = llvm_mc.disassemble(words.tolist())
    got = arm.disassemble(words).tolist()
    bad = [(hex(w), g, e) for w, g, e in zip(words.tolist(), got, expected) if g != e]
    assert not bad, f"{len(bad)} of {len(words)} words differ, e.g. {bad[:3]}"
    for w in words[:: max(1, len(words) // 50)].tolist():  # the scalar path on a sample
        assert arm.disassemble(w) == expected[words.tolist().index(w)]


@pytest.mark.parametrize("form", FORMS)
def test_disassembler_agrees_with_llvm_mc(form):
    _compare_words(sample_words(form, PER_FORM, np.random.default_rng([SEED, FORMS.index(form)])))


@pytest.mark.slow
@pytest.mark.parametrize("form", FORMS)
def test_every_encoding_disassembles_like_llvm_mc(form):
    """The whole encoding space of each form (2,414,592 words in all)."""
    _compare_words(all_words(*SPEC_FORMS[form]))


def test_neighbours_of_every_form_are_decoded_like_llvm_mc():
    """Every one-bit change of words of each form: words llvm-mc reads as another
    sdot/udot/usdot/sudot, intdot reads the same; words it reads as something
    else or nothing, intdot refuses."""
    rng = np.random.default_rng(SEED)
    words = []
    for form in FORMS:
        for base in words_of(*SPEC_FORMS[form], 4, rng).tolist():
            words += [base ^ (1 << b) for b in range(32)]
    expected = llvm_mc.disassemble(words)
    got = arm.disassemble(np.array(words, dtype=np.uint32), errors="mark").tolist()
    ours = {f.mnemonic for f in arm.FORMS}
    for w, g, e in zip(words, got, expected):
        if e.split(" ")[0] in ours:
            assert g == e, hex(w)
        else:
            assert g == f".inst {w:#010x}", (hex(w), g, e)


# -- text ---------------------------------------------------------------------------

_LIST = re.compile(r"\{ ([^}]*) \}")


def respell(text: str, rng: random.Random) -> str:
    """One of the spellings LLVM accepts for canonical ``text``."""

    def lists(m):
        inner = m.group(1)
        if " - " in inner:
            a, b = inner.split(" - ")
            first, t = int(a[1 : a.index(".")]), a[a.index(".") + 1 :]
            n = (int(b[1 : b.index(".")]) - first) % 32 + 1
        else:
            regs = inner.split(", ")
            first, t, n = int(regs[0][1 : regs[0].index(".")]), regs[0].split(".")[1], len(regs)
        regs = [f"z{(first + k) % 32}.{t}" for k in range(n)]
        style = rng.randrange(4)
        if style == 0:
            return "{" + ",".join(regs) + "}"
        if style == 1:
            return f"{{{regs[0]}-{regs[-1]}}}"
        if style == 2:
            return f"{{ {regs[0]} - {regs[-1]} }}"
        return "{ " + ", ".join(regs) + " }"

    out = _LIST.sub(lists, text)
    if rng.randrange(2):
        out = re.sub(r", vgx\d\]", "]", out)
    if rng.randrange(3) == 0:
        out = re.sub(r"(za\.\w\[w\d+, )(\d)", r"\1#\2", out)
    if rng.randrange(3) == 0:
        out = re.sub(r"\[(\d)\]$", lambda m: f"[{hex(int(m.group(1)))}]", out)
    if rng.randrange(3) == 0:
        out = out.replace(", ", ",")
    return out.upper() if rng.randrange(4) == 0 else out


def random_lines(rng: random.Random, per_form: int) -> list[str]:
    nrng = np.random.default_rng(rng.randrange(2**32))
    lines = []
    for form in FORMS:
        for w in words_of(*SPEC_FORMS[form], per_form, nrng).tolist():
            lines.append(respell(ref_text(w), rng))
    return lines


def test_assembler_agrees_with_llvm_mc():
    rng = random.Random(SEED)
    lines = random_lines(rng, 40)
    expected = llvm_mc.assemble(lines)
    for line, (text, word) in zip(lines, expected):
        got = arm.assemble(line)
        assert got == word, (line, hex(got), hex(word))
        assert arm.disassemble(got) == text, line


def _widths(form: str) -> dict[str, int]:
    return {k: hi - lo + 1 for k, (hi, lo) in DIAGRAMS[form][2].items()}


def broken_lines(rng: random.Random) -> list[tuple[str, str]]:
    """(line, what was broken): a legal line of each form with one operand out of its range."""
    nrng = np.random.default_rng(rng.randrange(2**32))
    r = rng.randrange
    out = []
    for form in FORMS:
        w = _widths(form)
        for word in words_of(*SPEC_FORMS[form], 6, nrng).tolist():
            text = ref_text(word)
            if "[" in text and text.endswith("]"):  # a lane index
                top = (1 << (w["i"] if "i" in w else 2)) - 1
                out.append((re.sub(r"\[\d+\]$", f"[{top + 1 + r(6)}]", text), "lane"))
            if "Zm" in w and w["Zm"] < 5 and "multi" not in form:
                top = 1 << w["Zm"]
                zm = top + r(32 - top)
                out.append(
                    (
                        re.sub(r"z\d+(\.\w)(\[\d+\])?$", lambda m, zm=zm: f"z{zm}{m.group(1)}{m.group(2) or ''}", text),
                        "zm",
                    )
                )
            if text.startswith(form.split("_")[0] + " z"):
                out.append(
                    (re.sub(r", z(\d+)\.\w", lambda m: f", z{m.group(1)}.{'bhsd'[r(4)]}", text, count=1), "width")
                )
            if "za." in text:
                out.append((re.sub(r"\[w\d+", f"[w{rng.choice([*range(8), *range(12, 31)])}", text), "wv"))
                out.append((re.sub(r"(\[w\d+, )\d+", lambda m: f"{m.group(1)}{8 + r(30)}", text), "off"))
                out.append((re.sub(r"vgx(\d)", lambda m: "vgx" + "42"[m.group(1) == "4"], text), "vgx"))
            if "neon" in form:
                out.append(
                    (text.replace(".16b", ".8b", 1) if "16b" in text else text.replace(".8b", ".16b", 1), "arrangement")
                )
            if "multi" in form or "indexed" in form and "sme2" in form:
                n = 2 if "vgx2" in form else 4
                step = 1 + r(n - 1)
                out.append(
                    (
                        re.sub(
                            r"\{ z(\d+)", lambda m, step=step: f"{{ z{(int(m.group(1)) + step) % 32}", text, count=1
                        ).replace(" - ", ", ")
                        if n == 2
                        else respell(text, rng).replace("{z0", "{z1"),
                        "list",
                    )
                )
    return out


def _agree(lines: list[tuple[str, str]], compare_messages: bool) -> int:
    """Both accept (same word) or both reject; returns how many lines both rejected."""
    llvm = llvm_mc.rejections([line for line, _ in lines])
    accepted = [k for k in range(len(lines)) if k not in llvm]
    made = llvm_mc.assemble_each([lines[k][0] for k in accepted]) if accepted else []
    # a line llvm-mc reads as no instruction at all (a '#' comment) counts as rejected
    llvm.update({k: [(0, "no instruction")] for k, m in zip(accepted, made) if m is None})
    words = {k: m[1] for k, m in zip(accepted, made) if m is not None}
    rejected = 0
    for k, (line, what) in enumerate(lines):
        try:
            got = arm.assemble(line)
        except AsmSyntaxError as err:
            assert k in llvm, f"llvm-mc accepted {line!r} ({what}), intdot said {err.reason!r}"
            rejected += 1
            if compare_messages and what != "list":
                column, message = llvm[k][0]
                assert err.reason.startswith(message), (line, err.reason, message)
                assert err.column == column, (line, err.column, column)
            continue
        assert k not in llvm, f"intdot accepted {line!r} ({what}), llvm-mc said {llvm[k]}"
        assert got == words[k], (line, hex(got), hex(words[k]))
    return rejected


def test_both_reject_broken_operands_alike():
    lines = broken_lines(random.Random(SEED))
    assert len(lines) > 1000
    assert _agree(lines, compare_messages=True) > 0.8 * len(lines)  # the rest make another legal form


def mutate(line: str, rng: random.Random) -> str:
    """``line`` with one or two characters deleted, inserted or replaced."""
    alphabet = "zvwZ0123456789.,[]{}- #bshdx"
    for _ in range(rng.randrange(1, 3)):
        i = rng.randrange(len(line))
        op = rng.randrange(3)
        if op == 0:
            line = line[:i] + line[i + 1 :]
        elif op == 1:
            line = line[:i] + rng.choice(alphabet) + line[i:]
        else:
            line = line[:i] + rng.choice(alphabet) + line[i + 1 :]
    return line


def test_mangled_text_is_accepted_exactly_where_llvm_mc_accepts_it():
    """Mangled spellings of every form: intdot fails only with its own errors, and
    accepts exactly the lines llvm-mc accepts (as an sdot/udot/usdot/sudot), with the same word."""
    rng = random.Random(SEED + 1)
    lines = [mutate(line, rng) for line in random_lines(rng, 40)]
    ours, others = [], 0
    for line in lines:
        try:
            arm.assemble(line)
        except AsmSyntaxError:
            pass
        except IntdotError:  # an unknown mnemonic (the mnemonic itself was mangled)
            others += 1
            continue
        ours.append((line, "mangled"))
    assert len(ours) > 2000
    _agree(ours, compare_messages=False)


# Immediates beyond + - * / % << >> & | ^ ~: what LLVM's GNU-mode expression parser also folds.
EXPRESSIONS = [
    "1==1", "0-(1==1)", "0-(1<2)", "0-(2<1)", "0-(1<>2)", "0-(1!=2)", "0-(2>=2)", "0-(1>2)", "0-(1<=1)", "0-(2>1)",
    "1+1==2", "1|1==1", "2>1>0", "1<2<3", "2 == 2",
    "1&&2", "0||2", "2||0", "3&&0||1", "1 || 0 && 0", "0 && 1 || 1", "!1||!0",
    "!0", "!5", "~!0", "-!0", "!0+1", "1!0", "1 ! 0", "1<>2",
    "1ul", "1ULL", "1LL", "0x1u", "0b1L", "01L", "1u1", "1lll", "1uu", "08L", "0xul",
    "(-8)>>62", "-8>>62", "(0-8)>>61", "1<<62>>61", "(1<<63)>>62", "-1>>63", "7>>0",
]  # fmt: skip


def test_constant_expressions_fold_as_in_llvm_mc():
    """Comparisons (-1 when true), && || !, C's integer suffixes and the logical >> were
    refused (or, for >>, folded arithmetically); llvm-mc accepts them."""
    lines = []
    for e in EXPRESSIONS:
        lines.append((f"sdot za.s[w8, {e}], {{z0.b-z1.b}}, z2.b", "offset"))
        lines.append((f"sdot z0.s, z1.b, z2.b[{e}]", "index"))
    _agree(lines, compare_messages=False)
