"""The C call parser of ``intdot eval``: literals, vectors, and errors with columns."""

from __future__ import annotations

import pytest

from intdot.amd.cexpr import ExprSyntaxError, parse_call, tokenize
from intdot.errors import AsmSyntaxError, IntdotError


@pytest.mark.parametrize(
    "text,value",
    [
        ("0", 0),
        ("42", 42),
        ("-42", -42),
        ("+7", 7),
        ("0x7f", 127),
        ("0X7F", 127),
        ("0xFFFFFFFF", 2**32 - 1),
        ("017", 15),
        ("0b101", 5),
        ("10u", 10),
        ("10U", 10),
        ("10l", 10),
        ("10LL", 10),
        ("0x10ul", 16),
        ("0x10LLU", 16),
        ("- -5", 5),  # two signs; "--5" is C's decrement operator: tests/cli/test_eval_syntax.py
        ("-(3)", -3),
        ("(0x10)", 16),
        ("- 0x80000000", -(2**31)),
        # casts convert as C does: modulo 2**32, two's complement for the signed types
        ("(int)0x80000000", -(2**31)),
        ("(int)0xFFFFFFFF", -1),
        ("(unsigned)-1", 2**32 - 1),
        ("(uint)(int)-2", 2**32 - 2),
        ("(unsigned int)0x100000005", 5),
        ("-(int)1", -1),
        ("(int32_t)4294967295u", -1),
        ("(signed int)7", 7),
    ],
)
def test_integer_literals(text, value):
    (arg,) = parse_call(f"f({text})").args
    assert arg.kind == "int" and arg.value == value


def test_bools_vectors_and_spelling():
    c = parse_call("  __builtin_amdgcn_sudot4( true,0x80FF7F01 , false, 01, -100, false ) ; ")
    assert c.name == "__builtin_amdgcn_sudot4" and c.column == 3
    assert [a.value for a in c.args] == [True, 0x80FF7F01, False, 1, -100, False]
    assert [a.text for a in c.args] == ["true", "0x80FF7F01", "false", "01", "-100", "false"]
    v = parse_call("sdot2((short2){-3, 7}, (ushort2){ 65535, 0x8000, }, 0, false)").args
    assert v[0].kind == "vector" and v[0].type_name == "short2" and [e.value for e in v[0].value] == [-3, 7]
    assert v[1].type_name == "ushort2" and [e.value for e in v[1].value] == [65535, 0x8000]
    assert parse_call("f()").args == ()


@pytest.mark.parametrize(
    "text,column,message",
    [
        ("", 1, "expected a builtin name"),
        ("sdot4", 6, "expected '(' after the builtin name"),
        ("sdot4(1, 2", 11, "expected ',' or ')'"),
        ("sdot4(1 2)", 9, "expected ',' or ')'"),
        ("sdot4(1,)", 9, "expected an argument"),
        ("sdot4(1) x", 10, "expected the end of the expression"),
        ("sdot4(08)", 8, "invalid digit '8' in octal literal"),
        ("sdot4(0x)", 7, "has no digits after '0x'"),
        ("sdot4(12abc)", 9, "invalid suffix 'abc'"),
        ("sdot4(1uu)", 8, "invalid suffix 'uu'"),
        ("sdot4(1.5)", 7, "floating-point literals are not accepted"),
        ("sdot4(1 + 2)", 9, "expected ',' or ')'"),
        ("sdot4(a)", 7, "expected an argument"),
        ("sdot4(-true)", 7, "a sign cannot apply to true/false"),
        ("sdot4((int2){1, 2})", 8, "expected a type: short2 or ushort2 for a vector literal"),
        ("sdot4((long)1)", 8, "or a 32-bit integer type (int, signed"),
        ("sdot4((signed char)1)", 15, "expected ')' after the type name"),
        ("sdot4((int)true)", 12, "a (int) cast needs an integer, not 'true'"),
        ("sdot4((int)(short2){1, 2})", 12, "a (int) cast needs an integer"),
        ("sdot4((int unsigned)1)", 8, "'(int unsigned)' is not a cast intdot reads"),
        ("sdot4((short2){1, 2, 3})", 7, "needs exactly 2 elements, got 3"),
        ("sdot4((short2){1})", 7, "needs exactly 2 elements, got 1"),
        ("sdot4((short2){1, true})", 19, "element must be an integer"),
        ("sdot4((short2){32768, 0})", 16, "short2 element 32768 is out of range [-32768, 32767]"),
        ("sdot4((ushort2){-1, 0})", 17, "ushort2 element -1 is out of range [0, 65535]"),
        ('sdot4("1")', 7, "unexpected character '\"'"),
        ("sdot4(__import__('os'))", 18, "unexpected character"),
        ("sdot4(1);;", 10, "expected the end of the expression"),
    ],
)
def test_syntax_errors_have_columns(text, column, message):
    with pytest.raises(ExprSyntaxError) as info:
        parse_call(text)
    e = info.value
    assert isinstance(e, AsmSyntaxError) and isinstance(e, IntdotError) and isinstance(e, ValueError)
    assert e.column == column, (e.column, str(e))
    assert message in e.reason
    assert e.text == text


def test_never_python():
    # Python syntax that means something else in C is rejected by the tokenizer, not evaluated.
    for text in ["sdot4(1_000, 2, 3, False)", "sdot4(2**3, 0, 0, false)", "sdot4(0o17, 0, 0, false)"]:
        with pytest.raises(ExprSyntaxError):
            parse_call(text)
    with pytest.raises(ExprSyntaxError):
        parse_call(None)
    assert [t.kind for t in tokenize("a(1)")] == ["name", "punct", "int", "punct", "end"]


@pytest.mark.parametrize(
    "text,message",
    [
        ("sdot4(" + "(" * 5000 + "1" + ")" * 5000 + ")", "nested more than 100 levels"),
        ("sdot4(" + "(int)" * 5000 + "1)", "nested more than 100 levels"),
        ("sdot4(" + "9" * 5000 + ")", "too large for any C integer type"),
        ("sdot4(0x" + "f" * 50000 + ")", "too large for any C integer type"),
        ("sdot4(0x1" + "0" * 16 + ")", "too large for any C integer type"),  # 2**64
    ],
)
def test_hostile_input_is_a_syntax_error(text, message):
    with pytest.raises(ExprSyntaxError, match=message) as info:
        parse_call(text)
    # A long line is shown as a window around the column, with the caret under it.
    shown, caret = str(info.value).splitlines()[1:]
    assert len(shown) < 140 and caret.endswith("^")


def test_long_literals_within_64_bits():
    assert parse_call("f(0x" + "0" * 5000 + "1)").args[0].value == 1
    assert parse_call("f(18446744073709551615u)").args[0].value == 2**64 - 1
    assert parse_call("f((unsigned)0xFFFFFFFFFFFFFFFF)").args[0].value == 2**32 - 1
    assert parse_call("f(" + "(" * 99 + "1" + ")" * 99 + ")").args[0].value == 1


def test_caret_stays_under_the_column_with_tabs_and_newlines():
    with pytest.raises(ExprSyntaxError) as info:
        parse_call("sdot4(1,\n\t2, x, false)")
    assert info.value.column == 14
    _, shown, caret = str(info.value).splitlines()
    assert shown == "  sdot4(1,  2, x, false)" and caret.index("^") == shown.index("x")
