"""Immediates as LLVM's assembler reads them: integer literals (decimal, ``0x``
hex, ``0b`` binary, a leading ``0`` for octal, an optional sign, C's ignored
``U``/``L``/``UL``/``LL``/``ULL`` suffixes) and the constant expressions it folds
wherever it wants an immediate (``[1+1]``, ``[(3)]``, ``[0-0]``), with GNU as'
precedence, lowest first: ``||``; ``&&``; ``== != <> < <= > >=``; ``+ -``;
``| & ^ !``; ``* / % << >>``; then unary ``- + ~ !`` and parentheses.  As in
LLVM, a comparison is -1 when true (GNU as), ``&&``, ``||`` and unary ``!`` are
0 or 1, binary ``!`` is "or not", and ``>>`` shifts in zeros (logical, on 64 bits).

>>> read_integer("0x1f"), read_integer("010"), read_integer("-7/2"), read_integer("(1|2)&3")
(31, 8, -3, 3)
>>> read_integer("1==1"), read_integer("3&&0||1"), read_integer("!0+1"), read_integer("(-8)>>62"), read_integer("2UL")
(-1, 1, 2, 3, 2)
>>> read_integer("08") is None, read_integer("1+") is None
(True, True)
"""

from __future__ import annotations

import operator
import re

from ..core.values import small_decimal

_INT = re.compile(r"([+-]?)\s*(?:0x([0-9a-f]+)|0b([01]+)|(0[0-7]*)|([1-9][0-9]*))(?:u?l?l?)", re.I)
_MAX_EXPRESSION = 200  # characters: longer text is not a plausible immediate


def read_integer(text: str) -> int | None:
    """The value of ``text`` (stripped) as an immediate, or None if it is not one."""
    m = _INT.fullmatch(text)
    if m:  # the common case: one literal
        return _literal(m)
    return _expression(text)


def _literal(m: re.Match) -> int:
    sign, hexa, binary, octal, decimal = m.groups()
    value = int(hexa, 16) if hexa else int(binary, 2) if binary else int(octal, 8) if octal else small_decimal(decimal)
    return -value if sign == "-" else value


_TOKEN = re.compile(
    r"\s*(?:((?:0x[0-9a-f]+|0b[01]+|0[0-7]*|[1-9][0-9]*)(?:u?l?l?))|(<<|>>|<=|>=|<>|==|!=|&&|\|\||[-+*/%&|^~()<>!]))",
    re.I,
)
_COMPARISONS = {"==", "!=", "<>", "<", "<=", ">", ">="}
_LEVELS = ({"||"}, {"&&"}, _COMPARISONS, {"+", "-"}, {"|", "&", "^", "!"}, {"*", "/", "%", "<<", ">>"})
_MASK64 = (1 << 64) - 1


def _expression(text: str) -> int | None:
    """The value of a constant expression, or None if ``text`` is not one."""
    if len(text) > _MAX_EXPRESSION:
        return None
    tokens, pos = [], 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            if text[pos:].strip():
                return None
            break
        tokens.append(("n", _literal(_INT.fullmatch(m.group(1)))) if m.group(1) else ("o", m.group(2)))
        pos = m.end()
    try:
        value, rest = _binary(tokens, 0)
    except (IndexError, ValueError, ZeroDivisionError, RecursionError):
        return None
    return value if not rest else None


def _div(a: int, b: int) -> int:
    """C's division, as LLVM folds it: truncated toward zero."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


_OPS = {
    "+": operator.add,
    "-": operator.sub,
    "|": operator.or_,
    "&": operator.and_,
    "^": operator.xor,
    "*": operator.mul,
    "/": _div,
    "%": lambda a, b: a - b * _div(a, b),
    "<<": operator.lshift,
    ">>": lambda a, b: (a & _MASK64) >> b,
    "!": lambda a, b: a | ~b,
    "&&": lambda a, b: int(bool(a) and bool(b)),
    "||": lambda a, b: int(bool(a) or bool(b)),
    "==": operator.eq,
    "!=": operator.ne,
    "<>": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


def _binary(tokens: list, level: int) -> tuple[int, list]:
    if level == len(_LEVELS):
        return _unary(tokens)
    left, tokens = _binary(tokens, level + 1)
    while tokens and tokens[0][0] == "o" and tokens[0][1] in _LEVELS[level]:
        op = tokens[0][1]
        right, tokens = _binary(tokens[1:], level + 1)
        if op in ("/", "%") and right == 0:
            raise ZeroDivisionError
        if op in ("<<", ">>") and not 0 <= right < 64:
            raise ValueError
        left = _OPS[op](left, right)
        if op in _COMPARISONS:
            left = -1 if left else 0  # GNU as: true is all ones
        left = (left + (1 << 63)) % (1 << 64) - (1 << 63)  # LLVM folds in 64-bit two's complement
    return left, tokens


def _unary(tokens: list) -> tuple[int, list]:
    kind, value = tokens[0]
    if kind == "n":
        return value, tokens[1:]
    if value == "(":
        inner, rest = _binary(tokens[1:], 0)
        if not rest or rest[0] != ("o", ")"):
            raise ValueError
        return inner, rest[1:]
    if value in ("-", "+", "~", "!"):
        operand, rest = _unary(tokens[1:])
        return {"-": -operand, "+": operand, "~": ~operand, "!": int(operand == 0)}[value], rest
    raise ValueError


__all__ = ["read_integer"]
