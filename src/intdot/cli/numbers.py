"""The one reader of integers typed on the command line (``exec --set`` of Arm and of AMD GPUs).

Both ISAs read a value the same way: an optional ``-``, then decimal or a radix prefix; a leading 0 is
decimal (``0..15`` is a range, not octal); no register element is wider than 64 bits, so a spelling of
more than :data:`MAX_DIGITS` digits is refused before Python converts it (Python itself refuses decimal
strings over 4,300 digits, in its own words).  They differ in which prefixes they take (Arm ``0x``;
AMD GPUs also ``0b`` and ``0o``) and in whether the width is known when the text is read (AMD's
registers are 32 bits, a wave's EXEC its size; Arm's element width comes with the register, which
``State.set`` checks).  Every message names the argument, quotes the value (cut by ``quote``) and says
what was allowed.
"""

from __future__ import annotations

import re

MAX_DIGITS = 80  # a 64-bit value is at most 64 binary digits; room for leading zeros, none for a runaway paste
RADIX = {"0x": (16, "0x hex"), "0b": (2, "0b binary"), "0o": (8, "0o octal")}
_DIGITS = {"0x": "[0-9a-f]", "0b": "[01]", "0o": "[0-7]"}


def pattern(prefixes: tuple[str, ...] = ("0x",)) -> str:
    """The regular expression (case-insensitive, no anchors) of one integer with these prefixes."""
    alternatives = [f"{p}{_DIGITS[p]}+" for p in prefixes]
    return rf"-?(?:{'|'.join(alternatives + ['[0-9]+'])})"


def spellings(prefixes: tuple[str, ...] = ("0x",)) -> str:
    """``decimal or 0x hex``: what the prefixes allow, as a message says it."""
    names = ["decimal"] + [RADIX[p][1] for p in prefixes]
    return ", ".join(names[:-1]) + " or " + names[-1]


def parse_int(
    text: str, name: str, *, prefixes: tuple[str, ...] = ("0x",), bits: int | None = None, also: str = ""
) -> int:
    """The integer ``text`` spells, for the argument ``name`` (``--set v1``).

    ``bits``: the value must fit that many bits in its signed or unsigned spelling (``-1`` and
    ``0xffffffff`` are one 32-bit word), else an error giving the interval; never masked.  ``also``
    adds to the accepted spellings a message lists (``a range A..B``).
    """
    from ..core.errors import OperandError, quote

    text = text.strip()
    if not re.fullmatch(pattern(prefixes), text, re.IGNORECASE):
        extra = f", or {also}" if also else ""
        raise OperandError(f"{name}: {quote(text)} is not an integer; expected {spellings(prefixes)}{extra}")
    negative = text.startswith("-")
    body = text[negative:]
    prefix = body[:2].lower()
    radix = RADIX[prefix][0] if prefix in RADIX else 10  # the pattern let through only the allowed prefixes
    digits = body[2:] if radix != 10 else body
    if len(digits) > MAX_DIGITS:
        shown = f"{quote(text)} has {len(digits)} digits"
        if bits is None:
            raise OperandError(
                f"{name}: {shown}, more than any register holds (no element is wider than 64 bits; at most "
                f"{MAX_DIGITS} digits are read)"
            )
        raise OperandError(f"{name}: {shown}: it does not fit {bits} bits; expected {_interval(bits)}")
    value = int(digits, radix)  # int(_, 10) reads a leading 0 as decimal, where int(_, 0) refuses it
    value = -value if negative else value
    if bits is not None and not -(1 << (bits - 1)) <= value < (1 << bits):
        raise OperandError(f"{name}: {quote(text)} does not fit {bits} bits; expected {_interval(bits)}")
    return value


def _interval(bits: int) -> str:
    return f"an integer in [{-(1 << (bits - 1))}, {(1 << bits) - 1}] (signed or unsigned spelling)"


def integer(text: str) -> int:
    """argparse's ``type`` for an integer option (``--vl``, ``--seed``): decimal or 0x hex, as ``--set`` and
    ``--offset`` read them; anything else is argparse's usage error ("invalid integer value")."""
    try:
        return parse_int(text, "value", prefixes=("0x",))
    except ValueError:
        raise ValueError(text) from None
