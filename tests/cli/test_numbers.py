"""The one reader of ``--set`` integers (intdot.cli.numbers), used by ``exec`` for Arm and for AMD GPUs:
the same leading-zero rule, digit cap and wording; each ISA its own prefixes and widths."""

from __future__ import annotations

import pytest

from intdot.cli.numbers import MAX_DIGITS, parse_int
from intdot.core.errors import OperandError

AMD = ("0x", "0b", "0o")


@pytest.mark.parametrize(
    "text, prefixes, value",
    [
        ("10", ("0x",), 10),
        ("010", ("0x",), 10),  # a leading 0 is decimal: 0..15 is a range, not octal
        ("-010", AMD, -10),
        ("0x1F", ("0x",), 31),
        ("0X1f", AMD, 31),
        ("-0x10", ("0x",), -16),
        ("0b101", AMD, 5),
        ("0o17", AMD, 15),
        (" 7 ", ("0x",), 7),
        ("0" * (MAX_DIGITS - 1) + "1", ("0x",), 1),  # leading zeros count, up to the cap
    ],
)
def test_spellings(text, prefixes, value):
    assert parse_int(text, "--set v1", prefixes=prefixes) == value


@pytest.mark.parametrize("text", ["abc", "0b1", "0o7", "1_000", "+5", "0x", "1.5", "", "0x-1", "--1"])
def test_arm_refuses_what_is_not_decimal_or_hex(text):
    with pytest.raises(OperandError) as info:
        parse_int(text, "--set z1.b", also="a range A..B")
    assert str(info.value) == (
        f"--set z1.b: {text.strip()!r} is not an integer; expected decimal or 0x hex, or a range A..B"
    )


def test_amd_names_its_prefixes():
    with pytest.raises(OperandError, match=r"^--set v1: '0b2' is not an integer; expected decimal, 0x hex, "):
        parse_int("0b2", "--set v1", prefixes=AMD, bits=32)


@pytest.mark.parametrize("text", ["-1", "0xffffffff", "-2147483648", "4294967295"])
def test_a_word_in_either_spelling(text):
    assert parse_int(text, "--set v1", prefixes=AMD, bits=32) == int(text, 0)


@pytest.mark.parametrize("text", ["4294967296", "-2147483649", "0x1ffffffff", "0b" + "1" * 33])
def test_wider_than_the_register_is_refused_not_masked(text):
    with pytest.raises(OperandError) as info:
        parse_int(text, "--set v1", prefixes=AMD, bits=32)
    assert str(info.value) == (
        f"--set v1: {text!r} does not fit 32 bits; expected an integer in [-2147483648, 4294967295] "
        "(signed or unsigned spelling)"
    )


@pytest.mark.parametrize("bits", [None, 32])
@pytest.mark.parametrize("spelling", ["9" * 5000, "0x" + "f" * 5000, "-" + "1" * (MAX_DIGITS + 1)])
def test_the_digit_cap_comes_before_the_conversion(spelling, bits):
    # 5000 decimal digits is past Python's own limit (4300): its ValueError must not be what the user sees.
    with pytest.raises(OperandError) as info:
        parse_int(spelling, "--set w8", bits=bits)
    message = str(info.value)
    digits = len(spelling.lstrip("-").removeprefix("0x"))
    assert message.startswith("--set w8: ") and f"has {digits} digits" in message
    assert ("does not fit 32 bits" in message) if bits else ("no element is wider than 64 bits" in message)
    assert len(message) < 300  # the value is quoted, cut, never echoed whole
