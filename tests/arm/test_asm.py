"""The assembler's accepted spellings, its diagnostics, the API's argument
checks, and random round trips per form.

Expected words and texts of the spellings and the messages/columns of the
errors were taken from llvm-mc 19 (``-triple=aarch64 -mattr=+sve,+i8mm,+sme2``).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import intdot.arm as arm
from intdot.arm.asm import parse
from intdot.errors import (
    AsmSyntaxError,
    OperandConstraintError,
    OperandError,
    OperandTypeError,
    UndefinedEncoding,
    UnknownInstruction,
)

from .test_asm_reference import ref_text

# (input spelling, llvm-mc's word, llvm-mc's text)
SPELLINGS = [
    ("SUDOT V0.4S, V1.16B, V2.4B[1]", 0x4F22F020, "sudot v0.4s, v1.16b, v2.4b[1]"),
    ("  sudot   v0.2s ,v1.8b,  v31.4b[ 2 ]", 0x0F1FF820, "sudot v0.2s, v1.8b, v31.4b[2]"),
    ("sudot z0.s,z1.b,z7.b[0x3]", 0x44BF1C20, "sudot z0.s, z1.b, z7.b[3]"),
    ("sudot za.s[w8, 0], {z0.b-z1.b}, z0.b[0]", 0xC1501038, "sudot za.s[w8, 0, vgx2], { z0.b, z1.b }, z0.b[0]"),
    (
        "sudot ZA.S[W9, 7, VGx2], { Z2.B - Z3.B }, Z15.B[3]",
        0xC15F3C7F,
        "sudot za.s[w9, 7, vgx2], { z2.b, z3.b }, z15.b[3]",
    ),
    (
        "sudot za.s[w10,#3,vgx4],{z4.b,z5.b,z6.b,z7.b},z1.b[2]",
        0xC151D8BB,
        "sudot za.s[w10, 3, vgx4], { z4.b - z7.b }, z1.b[2]",
    ),
    ("sudot za.s[w11, 2], {z31.b-z0.b}, z3.b", 0xC12377FA, "sudot za.s[w11, 2, vgx2], { z31.b, z0.b }, z3.b"),
    ("sudot za.s[w11, 2], {z31.b, z0.b}, z3.b", 0xC12377FA, "sudot za.s[w11, 2, vgx2], { z31.b, z0.b }, z3.b"),
    (
        "sudot za.s[w8, 1], {z30.b-z1.b}, z3.b",
        0xC13317D9,
        "sudot za.s[w8, 1, vgx4], { z30.b, z31.b, z0.b, z1.b }, z3.b",
    ),
    (
        "sudot za.s[w8, 1, vgx4], {z29.b, z30.b, z31.b, z0.b}, z3.b",
        0xC13317B9,
        "sudot za.s[w8, 1, vgx4], { z29.b, z30.b, z31.b, z0.b }, z3.b",
    ),
    (
        "sudot za.s[w8, 1, vgx4], { z28.b - z31.b }, z3.b",
        0xC1331799,
        "sudot za.s[w8, 1, vgx4], { z28.b - z31.b }, z3.b",
    ),
    ("sudot za.s[w8, 1, VGX4], {z3.b-z6.b}, z3.b", 0xC1331479, "sudot za.s[w8, 1, vgx4], { z3.b - z6.b }, z3.b"),
    ("sudot za.s[w8, 0x7], {z3.b-z6.b}, z3.b", 0xC133147F, "sudot za.s[w8, 7, vgx4], { z3.b - z6.b }, z3.b"),
    ("sudot v0.4s, v1.16b, v2.4b[0b11]", 0x4F22F820, "sudot v0.4s, v1.16b, v2.4b[3]"),
    ("sudot za.s[w8, 07], {z0.b-z1.b}, z0.b", 0xC120141F, "sudot za.s[w8, 7, vgx2], { z0.b, z1.b }, z0.b"),
    # the reference's own spelling (shared/spec/arm-sudot.txt), word from arm_llvm_mc.tsv
    ("SUDOT ZA.S[W8, 0, VGx2], { Z0.B-Z1.B }, Z0.B[0]", 0xC1501038, "sudot za.s[w8, 0, vgx2], { z0.b, z1.b }, z0.b[0]"),
    ("sudot v0.4s, v1.16b, v2.4b[+1]", 0x4F22F020, "sudot v0.4s, v1.16b, v2.4b[1]"),
    ("sudot v0.4s, v1.16b, v2.4b[1]  // a comment", 0x4F22F020, "sudot v0.4s, v1.16b, v2.4b[1]"),
    # the other mnemonics and forms (llvm-mc-19 -mattr=+dotprod,+i8mm,+sve,+sve2p1,+sme2,+sme-i16i64)
    ("SDOT V0.2S, V1.8B, V2.8B", 0x0E829420, "sdot v0.2s, v1.8b, v2.8b"),
    ("udot v31.4s,v30.16b,v29.16b", 0x6E9D97DF, "udot v31.4s, v30.16b, v29.16b"),
    ("usdot v3.4s, v15.16b, v30.4b[3]", 0x4FBEF9E3, "usdot v3.4s, v15.16b, v30.4b[3]"),
    ("sdot z0.d, z1.h, z15.h[0x1]", 0x44FF0020, "sdot z0.d, z1.h, z15.h[1]"),
    ("udot z31.s, z30.h, z7.h[3]", 0x449FCFDF, "udot z31.s, z30.h, z7.h[3]"),
    ("usdot z0.s, z1.b, z31.b", 0x449F7820, "usdot z0.s, z1.b, z31.b"),
    (
        "sdot za.s[w8, 7], {z30.b, z31.b}, {z2.b-z3.b}",
        0xC1A217C7,
        "sdot za.s[w8, 7, vgx2], { z30.b, z31.b }, { z2.b, z3.b }",
    ),
    (
        "udot za.d[w11, #0, VGX4], {z28.h-z31.h}, {z0.h - z3.h}",
        0xC1E17790,
        "udot za.d[w11, 0, vgx4], { z28.h - z31.h }, { z0.h - z3.h }",
    ),
    (
        "usdot za.s[w9, 1+1], {z31.b-z2.b}, z15.b",
        0xC13F37EA,
        "usdot za.s[w9, 2, vgx4], { z31.b, z0.b, z1.b, z2.b }, z15.b",
    ),
    ("sdot za.s[w10, 3, vgx2], {z6.h, z7.h}, z7.h[3]", 0xC1575CC3, "sdot za.s[w10, 3, vgx2], { z6.h, z7.h }, z7.h[3]"),
    ("udot za.d[w8, 0], {z4.h-z7.h}, z9.h[1]", 0xC1D98498, "udot za.d[w8, 0, vgx4], { z4.h - z7.h }, z9.h[1]"),
    (
        "sdot za.s[w8, 0, vgx4], { z12.h - z15.h }, { z16.h - z19.h }",
        0xC1F11588,
        "sdot za.s[w8, 0, vgx4], { z12.h - z15.h }, { z16.h - z19.h }",
    ),
]


@pytest.mark.parametrize("text, word, canonical", SPELLINGS)
def test_spellings(text, word, canonical):
    assert arm.assemble(text) == word
    assert arm.disassemble(word) == canonical
    insn = parse(text)
    assert insn.word == word and insn.text == canonical and str(insn) == canonical


# (text, error class, message (LLVM's, intdot may add ': detail'), column (LLVM's where it has one))
ERRORS = [
    ("sudot v31.2s, v1.8b, v2.4b[4]", OperandConstraintError, "vector lane must be an integer in range [0, 3].", 27),
    ("sudot v0.2s, v1.8b, v2.4b[-1]", OperandConstraintError, "vector lane must be an integer in range [0, 3].", 26),
    ("sudot v31.4s, v1.8b, v2.4b[0]", AsmSyntaxError, "invalid operand for instruction", 15),
    ("sudot v0.4s, v1.16b, v2.b[1]", AsmSyntaxError, "invalid operand for instruction", 22),
    ("sudot v0.4s, v1.16b, v2.4b", AsmSyntaxError, "invalid operand for instruction", 22),
    ("sudot z0.s, z1.h, z2.b[0]", OperandConstraintError, "invalid element width", 13),
    ("sudot z0.d, z1.b, z2.b[1]", OperandConstraintError, "invalid element width", 7),
    (
        "sudot z0.s, z1.b, z9.b[0]",
        OperandConstraintError,
        "Invalid restricted vector register, expected z0.b..z7.b",
        19,
    ),
    ("sudot z0.s, z1.b, z2.b[4]", OperandConstraintError, "vector lane must be an integer in range [0, 3].", 23),
    ("sudot z0.s, z1.b", AsmSyntaxError, "too few operands for instruction", 1),
    (
        "sudot za.s[w7, 0, vgx4], {z0.b-z3.b}, z0.b[0]",
        OperandConstraintError,
        "operand must be a register in range [w8, w11]",
        12,
    ),
    (
        "sudot za.s[x8, 0, vgx4], {z0.b-z3.b}, z1.b",
        OperandConstraintError,
        "operand must be a register in range [w8, w11]",
        12,
    ),
    (
        "sudot za.s[w8, 8], {z0.b-z1.b}, z0.b[0]",
        OperandConstraintError,
        "immediate must be an integer in range [0, 7].",
        16,
    ),
    (
        "sudot za.s[w8, 0], {z0.b-z3.b}, z0.b[-1]",
        OperandConstraintError,
        "vector lane must be an integer in range [0, 3].",
        37,
    ),
    (
        "sudot za.s[w8, 5], {z0.b-z1.b}, z16.b[0]",
        OperandConstraintError,
        "Invalid restricted vector register, expected z0.b..z15.b",
        33,
    ),
    (
        "sudot za.s[w8, 0, vgx2], {z0.b-z1.b}, z16.b",
        OperandConstraintError,
        "Invalid restricted vector register, expected z0.b..z15.b",
        39,
    ),
    (
        "sudot za.s[w8, 0, vgx4], {z0.b-z3.b}, z1.h[0]",
        OperandConstraintError,
        "Invalid restricted vector register, expected z0.b..z15.b",
        39,
    ),
    (
        "sudot za.d[w8, 0, vgx4], {z0.b-z3.b}, z1.b[0]",
        OperandConstraintError,
        "invalid matrix operand, expected suffix .s",
        7,
    ),
    ("sudot za.s[w8, 0, vgx4], {z0.b-z1.b}, z0.b[0]", AsmSyntaxError, "invalid operand for instruction", 26),
    ("sudot za.s[w8, 0, vgx2], {z0.b-z3.b}, z1.b", AsmSyntaxError, "invalid operand for instruction", 26),
    ("sudot za.s[w8, 0, vgx2], {z0.b, z2.b}, z0.b", AsmSyntaxError, "invalid operand for instruction", 26),
    ("sudot za.s[w8, 0, vgx2], {z0.h-z1.h}, z1.b", AsmSyntaxError, "invalid operand for instruction", 26),
    # LLVM rejects these too but reports them at the lane index; intdot names the list.
    ("sudot za.s[w8, 0, vgx2], {z1.b-z2.b}, z0.b[0]", OperandConstraintError, "Invalid vector list", 26),
    ("sudot za.s[w8, 0, vgx4], {z2.b-z5.b}, z0.b[0]", OperandConstraintError, "Invalid vector list", 26),
    ("sudot za.s[w8, 0, vgx4], {z30.b-z1.b}, z0.b[0]", OperandConstraintError, "Invalid vector list", 26),
    ("sudot za.s[w9, 1], {z16.b-z31.b}, z26.b[1]", AsmSyntaxError, "invalid number of vectors", 27),
    # llvm-mc-19: a range that does not step (z0 to z0) is "invalid number of vectors" at its end
    ("sudot za.s[w8, 0], {z0.b-z0.b}, z0.b", AsmSyntaxError, "invalid number of vectors", 26),
    ("sudot za.s[w9, 1], {z16.b,z17.b,z18.b,z19.b,z20.b}, z2.b[1]", AsmSyntaxError, "invalid number of vectors", 20),
    ("sudot za.s[w9, 1], {z16.b}, z2.b[1]", AsmSyntaxError, "invalid operand for instruction", 20),
    (
        "sudot za.s[w8, 010], {z0.b-z1.b}, z0.b",
        OperandConstraintError,
        "immediate must be an integer in range [0, 7].",
        16,
    ),  # octal, as LLVM reads it
    ("sudot v0.4s, v1.16b, v2.4b[08]", AsmSyntaxError, "expected an integer lane index", 28),
    ("sudot z3.s, z05.b, z2.b[1]", AsmSyntaxError, "invalid operand for instruction", 13),
    (
        "sudot za.s[w09, 5], {z16.b-z19.b}, z1.b[0]",
        OperandConstraintError,
        "operand must be a register in range [w8, w11]",
        12,
    ),
    ("sudot v32.4s, v1.16b, v2.4b[0]", AsmSyntaxError, "invalid operand for instruction", 7),
    ("sudot za.s[w8, 0, vgx3], {z0.b-z1.b}, z0.b", AsmSyntaxError, "expected vgx2 or vgx4", 19),
    ("sudot za.s[w8, x], {z0.b-z1.b}, z0.b", AsmSyntaxError, "expected an integer", 16),
    ("sudot v0.4s, v1.16b, v2.4b[1], v3.4s", AsmSyntaxError, "invalid operand for instruction", 32),
    ("sudot v0.4s, v1.16b, v2.4b[1", AsmSyntaxError, "unbalanced brackets", None),
    ("   ", AsmSyntaxError, "expected an instruction mnemonic", None),
    # other mnemonics: LLVM's message and column, chosen among several forms as its matcher does
    ("sdot za.d[w8, 0, vgx2], {z0.b-z1.b}, z0.b[0]", AsmSyntaxError, "invalid operand for instruction", 25),
    ("sdot z0.d, z1.h, z16.h[1]", AsmSyntaxError, "invalid operand for instruction", 23),
    ("sdot z0.s, z1.h, z8.h[1]", AsmSyntaxError, "invalid operand for instruction", 22),
    ("sdot z0.s, z1.h, z2.h[4]", OperandConstraintError, "vector lane must be an integer in range [0, 3].", 22),
    ("udot v0.2s, v1.8b, v2.16b", AsmSyntaxError, "invalid operand for instruction", 20),
    ("sudot z0.s, z1.b, z2.b", AsmSyntaxError, "too few operands for instruction", 1),
    (
        "sdot za.d[w8, 0, vgx2], {z0.h-z1.h}, z0.h[2]",
        OperandConstraintError,
        "vector lane must be an integer in range [0, 1].",
        42,
    ),
    ("usdot za.s[w8, 0, vgx2], {z0.b, z1.h}, z0.b", AsmSyntaxError, "mismatched register size suffix", 33),
    ("usdot za.s[w8, 0, vgx4], {z0.b-z3.b}, {z2.b-z5.b}", OperandConstraintError, "Invalid vector list", 39),
    ("sdot z0.s, z1.b, z2.b[1+]", AsmSyntaxError, "expected an integer lane index", 23),
]


@pytest.mark.parametrize("text, cls, message, column", ERRORS)
def test_errors(text, cls, message, column):
    with pytest.raises(cls) as info:
        arm.assemble(text)
    err = info.value
    assert err.reason == message or err.reason.startswith(message), err.reason
    if column is not None:
        assert err.column == column
    assert err.text == text
    if column is not None:
        assert "^" in str(err)  # the caret line under the text


def test_list_alignment_message_names_the_rule():
    with pytest.raises(OperandConstraintError, match="first vector is a multiple of 4") as info:
        arm.assemble("sudot za.s[w8, 0, vgx4], {z2.b-z5.b}, z0.b[0]")
    assert "z2" in info.value.reason


def test_unknown_mnemonic():
    with pytest.raises(UnknownInstruction, match="'fdot' is not in intdot's Arm table"):
        arm.assemble("fdot v0.4s, v1.16b, v2.4b[1]")


def test_one_instruction_per_call():
    with pytest.raises(AsmSyntaxError, match="one instruction"):
        arm.assemble("sudot z0.s, z1.b, z2.b[0]\nsudot z0.s, z1.b, z2.b[0]")
    # a comment ends at its line: the second instruction was silently dropped
    with pytest.raises(AsmSyntaxError, match="one instruction"):
        arm.assemble("sudot v0.4s, v1.16b, v2.4b[3] // first\nsudot z0.s, z1.b, z2.b[3]")
    # a ';' inside a comment is part of it (as in llvm-mc)
    assert arm.assemble("sudot z0.s, z1.b, z2.b[3] // a; b") == 0x44BA1C20
    assert arm.assemble("// SVE\nsudot z0.s, z1.b, z2.b[3]\n") == 0x44BA1C20


@pytest.mark.parametrize(
    "text, column",
    [
        ("sudot\u00a0v0.4s, v1.16b, v2.4b[3]", 6),  # no-break space
        ("sudot v0.4s, v1.16b, v2.4b[\uff13]", 28),  # fullwidth 3
        ("\uff53udot v0.4s, v1.16b, v2.4b[3]", 1),  # fullwidth s
    ],
)
def test_non_ascii_text_is_rejected_at_its_column(text, column):
    """llvm-mc reads ASCII only; intdot must not accept what llvm-mc rejects."""
    with pytest.raises(AsmSyntaxError, match="unexpected character") as info:
        arm.assemble(text)
    assert info.value.column == column
    assert arm.assemble("sudot v0.4s, v1.16b, v2.4b[3] // comments may say anything: \u00e9") == 0x4F22F820


@pytest.mark.parametrize("bad, cls", [(123, OperandTypeError), (None, OperandTypeError), (b"sudot", OperandTypeError)])
def test_assemble_argument_type(bad, cls):
    with pytest.raises(cls, match="expected a str"):
        arm.assemble(bad)


@pytest.mark.parametrize(
    "bad, cls",
    [
        (-1, OperandError),
        (2**32, OperandError),
        (1.0, OperandTypeError),
        (True, OperandTypeError),
        ("0x4f22f020", OperandTypeError),
    ],
)
def test_decode_argument(bad, cls):
    with pytest.raises(cls):
        arm.decode(bad)


def test_decode_accepts_numpy_ints():
    assert arm.decode(np.uint32(0x4F22F020)).text == "sudot v0.4s, v1.16b, v2.4b[1]"
    assert arm.disassemble(np.uint32(0x4F22F020)) == "sudot v0.4s, v1.16b, v2.4b[1]"


def test_undefined_word_message():
    with pytest.raises(UndefinedEncoding, match=r"0x00000000 is not a supported encoding \(intdot decodes the 75 "):
        arm.decode(0)


def test_encode_checks_operands():
    insn = parse("sudot z0.s, z1.b, z2.b[3]")
    for ops, match in [
        ({**insn.ops, "zm": 8}, r"insn.ops\['zm'\]=8 is out of range.*expected 0..7"),
        ({**insn.ops, "index": -1}, "out of range"),
        ({k: v for k, v in insn.ops.items() if k != "zn"}, "lacks operand 'zn'"),
        ({**insn.ops, "q": 1}, "does not have"),
    ]:
        with pytest.raises(OperandError, match=match):
            arm.encode(arm.Insn(insn.form, ops))
    vgx4 = parse("sudot za.s[w8, 0], {z0.b-z3.b}, z0.b[0]")
    with pytest.raises(OperandError, match="expected 0..28 in steps of 4"):
        arm.encode(arm.Insn(vgx4.form, {**vgx4.ops, "zn": 2}))
    neon = parse("sudot v0.2s, v1.8b, v2.4b[3]")
    with pytest.raises(OperandError, match="which has q=0"):
        arm.encode(arm.Insn(neon.form, {**neon.ops, "q": 1}))
    with pytest.raises(OperandTypeError):
        arm.encode("sudot z0.s, z1.b, z2.b[3]")


# issue 8 item 6: a wrong type is a type error, not a value "out of range"
@pytest.mark.parametrize("value", ["2", 2.0, True, None, [2]])
def test_encode_names_a_wrong_type(value):
    insn = parse("sudot v0.4s, v1.16b, v2.4b[3]")
    with pytest.raises(OperandTypeError, match=r"insn.ops\['vm'\]=.* has type .*; expected an int \(0..31\)") as info:
        arm.encode(arm.Insn(insn.form, {**insn.ops, "vm": value}))
    assert "out of range" not in str(info.value)


def test_words_given_as_text_say_how_to_pass_them():
    with pytest.raises(OperandTypeError, match=r"words holds text .*int\(s, 16\).*intdot disasm"):
        arm.disassemble(["0x44ba1c20", "0x4f22f83f"])


@pytest.mark.parametrize("call", [arm.disassemble, arm.decode])
def test_a_word_given_as_text_says_how_to_pass_it(call):
    with pytest.raises(OperandTypeError, match=r"is a str; .*int\('0x44ba1c20', 16\).*intdot disasm 0x44ba1c20"):
        call("0x44ba1c20")


def test_int32_words_are_bit_patterns():
    """np.fromfile(..., np.int32) or a torch int32 tensor holds SME words (0xC1...) as negative
    numbers; they were refused as out of range.  Other signed dtypes still are."""
    words = np.array([0xC13F77FF, 0x44BA1C20], dtype=np.uint32)  # LLVM's test words (tests/data)
    texts = ["sudot za.s[w11, 7, vgx4], { z31.b, z0.b, z1.b, z2.b }, z15.b", "sudot z0.s, z1.b, z2.b[3]"]
    assert arm.disassemble(words.view(np.int32)).tolist() == texts
    assert arm.disassemble(words.view(np.int32).astype(">i4")[::-1]).tolist() == texts[::-1]
    assert arm.disassemble(words.view(np.int32)[0]) == texts[0]
    assert arm.decode(np.int32(-0x3EC08801)).text == texts[0]
    with pytest.raises(OperandError, match=r"words\[1, 0\]=-1 is out of range"):
        arm.disassemble(np.array([[0x44BA1C20], [-1]], dtype=np.int64))
    with pytest.raises(OperandError):
        arm.decode(-0x3EC08801)  # a plain negative int is still a mistake


@pytest.mark.parametrize("bad", [1.0, None, np.float32(1), np.bool_(True)])
def test_one_value_of_the_wrong_type_is_named(bad):
    with pytest.raises(OperandTypeError, match=r"words=.* has type"):
        arm.disassemble(bad)


def test_bulk_arguments():
    assert arm.disassemble(np.array([], dtype=np.uint32)).shape == (0,)
    two_d = arm.disassemble(np.array([[0x44BA1C20], [0x4F22F020]], dtype=np.int64))
    assert two_d.shape == (2, 1) and two_d[1, 0] == "sudot v0.4s, v1.16b, v2.4b[1]"
    with pytest.raises(OperandTypeError):
        arm.disassemble(np.array([1.0]))
    with pytest.raises(OperandError, match=r"words\[1\]=-1 is out of range"):
        arm.disassemble(np.array([0x44BA1C20, -1]))
    with pytest.raises(OperandError, match="errors="):
        arm.disassemble([0x44BA1C20], errors="ignore")
    with pytest.raises(OperandError, match="errors="):  # a single word too, not only arrays
        arm.disassemble(0x44BA1C20, errors="ignore")
    with pytest.raises(UndefinedEncoding, match=r"words\[2\]=0x00000001 .*2 of 4 words"):
        arm.disassemble([0x44BA1C20, 0x4F22F020, 1, 2])
    assert arm.disassemble([5], errors="mark").tolist() == [".inst 0x00000005"]


# ---- random round trips: operands from the ranges the reference states -----


def _list(first, n, spelling):
    regs = [(first + k) % 32 for k in range(n)]
    if spelling == 0:
        return "{ " + ", ".join(f"z{r}.b" for r in regs) + " }"
    return f"{{z{regs[0]}.b-z{regs[-1]}.b}}"


FORMS = {
    "neon64": lambda d: (f"sudot v{d(32)}.2s, v{d(32)}.8b, v{d(32)}.4b[{d(4)}]", None),
    "neon128": lambda d: (f"sudot v{d(32)}.4s, v{d(32)}.16b, v{d(32)}.4b[{d(4)}]", None),
    "sve": lambda d: (f"sudot z{d(32)}.s, z{d(32)}.b, z{d(8)}.b[{d(4)}]", None),
    "sme2_indexed_vgx2": lambda d: ("ix", 2, 2 * d(16), d(16), d(4)),
    "sme2_indexed_vgx4": lambda d: ("ix", 4, 4 * d(8), d(16), d(4)),
    "sme2_single_vgx2": lambda d: ("sg", 2, d(32), d(16), None),
    "sme2_single_vgx4": lambda d: ("sg", 4, d(32), d(16), None),
}


@pytest.mark.parametrize("form", sorted(FORMS))
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_random_round_trip(form, data):
    def d(n):
        return data.draw(st.integers(0, n - 1))

    drawn = FORMS[form](d)
    if drawn[1] is None:
        text = variant = drawn[0]
        variant = text.upper().replace(", ", ",")
    else:
        _, n, zn, zm, index = drawn
        wv, off = 8 + d(4), d(8)
        tail = f", z{zm}.b" + (f"[{index}]" if index is not None else "")
        text = f"sudot za.s[w{wv}, {off}, vgx{n}], {_list(zn, n, 0)}{tail}"
        variant = f"sudot za.s[w{wv}, {off}], {_list(zn, n, d(2))}{tail}"
    word = arm.assemble(text)
    assert arm.assemble(variant) == word
    expected = ref_text(word)  # the reference's reading of the word
    assert expected is not None
    assert arm.disassemble(word) == expected
    assert arm.decode(word) == parse(text)
    assert arm.encode(arm.decode(word)) == word


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="sudotSUDOT vzwaVZWA0123456789.,[]{}-#bhsx+\t", max_size=60))
def test_any_text_gives_a_word_or_an_intdot_error(text):
    from intdot.errors import IntdotError

    try:
        word = arm.assemble(text)
    except IntdotError:
        return
    assert arm.decode(word).word == word


@pytest.mark.parametrize(
    "text",
    [
        "sudot z0.s, z1.b, z2.b[" + "9" * 5000 + "]",
        "sudot za.s[w8, " + "9" * 5000 + "], {z0.b-z1.b}, z0.b",
        "sudot z" + "9" * 5000 + ".s, z1.b, z2.b[1]",
        "sudot za.s[w" + "9" * 5000 + ", 0], {z0.b-z1.b}, z0.b",
        "sudot za.s[w8, 0], {z" + "9" * 5000 + ".b-z1.b}, z0.b",
    ],
)
def test_numbers_of_thousands_of_digits_are_range_errors(text):
    """Python refuses to convert more than 4300 decimal digits (ValueError); intdot reports the range."""
    with pytest.raises(AsmSyntaxError):
        arm.assemble(text)
