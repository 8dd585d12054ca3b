"""A parser for one builtin call as written in kernel source, e.g.
``__builtin_amdgcn_sudot4(true, 0x80FF7F01, false, 0x01020304, 100, false)``.

A tokenizer and a small recursive-descent parser; the text is never evaluated
as Python.  Grammar::

    call     := NAME "(" [ arg { "," arg } ] ")" [ ";" ]
    arg      := sign* ( INTEGER | "true" | "false" | "(" arg ")" | cast ) | vector
    cast     := "(" ("int" | "unsigned" | "unsigned int" | "uint" | ...) ")" arg
    vector   := "(" ("short2" | "ushort2") ")" "{" arg "," arg "}"
    sign     := "+" | "-"      (two written together, "--" or "++", are C's decrement or increment
                                operator: an error, as in C; "- -1" and "-(-1)" are two signs)
    INTEGER  := decimal, 0x hexadecimal, 0b binary or 0 octal, with an optional
                C suffix: u/U, l/L/ll/LL, in either order

Integer values are read as mathematical integers (``-1`` is -1,
``0xFFFFFFFF`` is 4294967295); whether they fit a parameter is checked by the
caller, with a clear error rather than C's silent conversion.  An explicit
cast such as ``(int)0x80000000`` converts as C does (modulo 2**32).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..core.errors import AsmSyntaxError, quote
from ..core.values import a_or_an


class ExprSyntaxError(AsmSyntaxError):
    """``intdot eval``'s expression cannot be parsed; ``column`` is 1-based."""


@dataclass(frozen=True)
class Token:
    kind: str  # "name", "int", "punct", "end"
    text: str
    column: int  # 1-based
    value: int | None = None


@dataclass(frozen=True)
class Arg:
    """One argument: an integer, a bool, or a 2-element vector literal."""

    kind: str  # "int", "bool", "vector"
    value: object  # int, bool, or a tuple of two int Args
    column: int
    text: str  # the argument as written
    type_name: str | None = None  # "short2"/"ushort2" for vectors


@dataclass(frozen=True)
class Call:
    name: str
    column: int
    args: tuple[Arg, ...]
    close_column: int  # the column of ")"; where a missing argument would go


VECTOR_TYPES = ("short2", "ushort2")
# Casts to 32-bit integer types: spelling -> signed?
_CASTS = {
    "int": True,
    "signed": True,
    "signed int": True,
    "int32_t": True,
    "unsigned": False,
    "unsigned int": False,
    "uint": False,
    "uint32_t": False,
}
_CAST_WORDS = {"int", "signed", "unsigned", "uint", "int32_t", "uint32_t"}
_PUNCT = "(){},;+-"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER = re.compile(r"[0-9][0-9A-Za-z_]*")  # a maximal preprocessing number, checked afterwards
_LITERAL_MAX = (1 << 64) - 1  # unsigned long long
MAX_DEPTH = 100  # nested parentheses and casts in one argument
_SUFFIX = re.compile(r"(?:[uU](?:ll|LL|l|L)?|(?:ll|LL|l|L)[uU]?)?")


def _integer(text: str, column: int, line: str) -> int:
    lower = text.lower()
    if lower.startswith("0x"):
        digits, base, prefix = text[2:], 16, 2
        m = re.match(r"[0-9a-fA-F]*", digits)
    elif lower.startswith("0b"):
        digits, base, prefix = text[2:], 2, 2
        m = re.match(r"[01]*", digits)
    elif text.startswith("0"):
        digits, base, prefix = text, 8, 0
        m = re.match(r"[0-7]*", digits)
    else:
        digits, base, prefix = text, 10, 0
        m = re.match(r"[0-9]*", digits)
    body, rest = m.group(0), digits[m.end() :]
    shown = quote(text)
    if base in (16, 2) and not body:
        raise ExprSyntaxError(f"integer literal {shown} has no digits after {text[:2]!r}", line, column)
    if base == 8 and rest[:1].isdigit():
        raise ExprSyntaxError(f"invalid digit {rest[0]!r} in octal literal {shown}", line, column + prefix + len(body))
    if _SUFFIX.fullmatch(rest) is None:
        raise ExprSyntaxError(
            f"invalid suffix {rest[:20]!r} on integer literal {shown}; C suffixes are u, U, l, L, ll, LL",
            line,
            column + prefix + len(body),
        )
    # No C integer type holds more than 64 bits; checking the digit count first also keeps
    # int() away from Python's limit on long decimal strings.
    significant = body.lstrip("0")
    if len(significant) > 64 or (significant and int(significant, base) > _LITERAL_MAX):
        raise ExprSyntaxError(
            f"integer literal {shown} is too large for any C integer type (at most 2**64 - 1)", line, column
        )
    return int(body, base)


def tokenize(line: str) -> list[Token]:
    tokens, i = [], 0
    while i < len(line):
        c = line[i]
        if c.isspace():
            i += 1
            continue
        col = i + 1
        if c in "+-" and line[i + 1 : i + 2] == c:
            # C reads '--' and '++' as one token, the decrement or increment operator, which a literal rejects.
            raise ExprSyntaxError(
                f"'{c}{c}' is C's {'decrement' if c == '-' else 'increment'} operator, not two signs; "
                f"separate them ('{c} {c}1') or use parentheses ('{c}({c}1)')",
                line,
                col,
            )
        if c in _PUNCT:
            tokens.append(Token("punct", c, col))
            i += 1
            continue
        m = _NAME.match(line, i)
        if m:
            tokens.append(Token("name", m.group(0), col))
            i = m.end()
            continue
        m = _NUMBER.match(line, i)
        if m and line[m.end() : m.end() + 1] == ".":
            raise ExprSyntaxError("floating-point literals are not accepted; the builtins take integers", line, col)
        if m:
            tokens.append(Token("int", m.group(0), col, _integer(m.group(0), col, line)))
            i = m.end()
            continue
        raise ExprSyntaxError(f"unexpected character {c!r}", line, col)
    tokens.append(Token("end", "", len(line) + 1))
    return tokens


class _Parser:
    def __init__(self, line: str):
        self.line = line
        self.tokens = tokenize(line)
        self.i = 0
        self.depth = 0

    @property
    def tok(self) -> Token:
        return self.tokens[self.i]

    def error(self, message: str, tok: Token | None = None):
        tok = tok or self.tok
        found = "the end of the expression" if tok.kind == "end" else quote(tok.text)
        raise ExprSyntaxError(f"{message}, found {found}", self.line, tok.column)

    def expect(self, text: str, what: str | None = None) -> Token:
        if self.tok.text != text or self.tok.kind == "end":
            self.error(f"expected {what or repr(text)}")
        tok = self.tok
        self.i += 1
        return tok

    def call(self) -> Call:
        if self.tok.kind != "name":
            self.error("expected a builtin name such as __builtin_amdgcn_sdot4")
        name = self.tok
        self.i += 1
        self.expect("(", "'(' after the builtin name")
        args = []
        if self.tok.text != ")":
            args.append(self.arg())
            while self.tok.text == ",":
                self.i += 1
                args.append(self.arg())
        close = self.expect(")", "',' or ')'")
        if self.tok.text == ";":
            self.i += 1
        if self.tok.kind != "end":
            self.error("expected the end of the expression after ')'")
        return Call(name.text, name.column, tuple(args), close.column)

    def _text(self, start: Token) -> str:
        end = self.tokens[self.i - 1]
        return self.line[start.column - 1 : end.column - 1 + len(end.text)]

    def arg(self) -> Arg:
        # Each level of parentheses or casts recurses: bound the depth so deep nesting is a syntax error,
        # not a RecursionError.
        self.depth += 1
        if self.depth > MAX_DEPTH:
            self.error(f"the argument is nested more than {MAX_DEPTH} levels deep")
        try:
            return self._arg()
        finally:
            self.depth -= 1

    def _arg(self) -> Arg:
        start = self.tok
        sign = 1
        while self.tok.text in ("+", "-") and self.tok.kind == "punct":
            if self.tok.text == "-":
                sign = -sign
            self.i += 1
        tok = self.tok
        if tok.kind == "int":
            self.i += 1
            return Arg("int", sign * tok.value, start.column, self._text(start))
        if tok.kind == "name" and tok.text in ("true", "false"):
            if tok is not start:
                self.error("a sign cannot apply to true/false", start)
            self.i += 1
            return Arg("bool", tok.text == "true", start.column, tok.text)
        if tok.text == "(":
            nxt = self.tokens[self.i + 1]
            if nxt.kind == "name" and nxt.text in _CAST_WORDS:
                return self.cast(start, sign)
            if nxt.kind == "name" and nxt.text not in ("true", "false"):
                if tok is not start:
                    self.error("a sign cannot apply to a vector literal", start)
                return self.vector()
            self.i += 1
            inner = self.arg()
            self.expect(")", "')'")
            if inner.kind != "int" and sign != 1:
                self.error("a sign applies only to integers", start)
            value = sign * inner.value if inner.kind == "int" else inner.value
            return Arg(inner.kind, value, start.column, self._text(start), inner.type_name)
        self.error("expected an argument (an integer, true, false, or (short2){a, b})")

    def cast(self, start: Token, sign: int) -> Arg:
        open_tok = self.expect("(")
        words = []
        while self.tok.kind == "name" and self.tok.text in _CAST_WORDS:
            words.append(self.tok.text)
            self.i += 1
        name = " ".join(words)
        if name not in _CASTS:
            raise ExprSyntaxError(
                f"{quote(f'({name})')} is not a cast intdot reads; expected one of "
                f"{', '.join(f'({c})' for c in _CASTS)}",
                self.line,
                open_tok.column + 1,
            )
        self.expect(")", "')' after the type name")
        inner = self.arg()
        if inner.kind != "int":
            raise ExprSyntaxError(f"a ({name}) cast needs an integer, not {quote(inner.text)}", self.line, inner.column)
        # C's conversion to a 32-bit type: modulo 2**32, read as two's complement for the signed ones.
        value = inner.value % (1 << 32)
        if _CASTS[name] and value >= 1 << 31:
            value -= 1 << 32
        return Arg("int", sign * value, start.column, self._text(start))

    def vector(self) -> Arg:
        start = self.expect("(")
        type_tok = self.tok
        if type_tok.text not in VECTOR_TYPES:
            self.error(
                f"expected a type: {' or '.join(VECTOR_TYPES)} for a vector literal, or a 32-bit integer "
                f"type ({', '.join(_CASTS)}) for a cast"
            )
        self.i += 1
        self.expect(")", "')' after the type name")
        self.expect("{", "'{' to open the vector literal")
        elems = [self.arg()]
        while self.tok.text == ",":
            self.i += 1
            if self.tok.text == "}":  # C allows a trailing comma
                break
            elems.append(self.arg())
        self.expect("}", "',' or '}'")
        for e in elems:
            if e.kind != "int":
                raise ExprSyntaxError(
                    f"{a_or_an(type_tok.text)} element must be an integer, not {quote(e.text)}", self.line, e.column
                )
        if len(elems) != 2:
            raise ExprSyntaxError(
                f"{a_or_an(type_tok.text)} literal needs exactly 2 elements, got {len(elems)}", self.line, start.column
            )
        lo, hi = (-(1 << 15), (1 << 15) - 1) if type_tok.text == "short2" else (0, (1 << 16) - 1)
        for e in elems:
            if not lo <= e.value <= hi:
                raise ExprSyntaxError(
                    f"{type_tok.text} element {e.value} is out of range [{lo}, {hi}]", self.line, e.column
                )
        return Arg("vector", tuple(elems), start.column, self._text(start), type_tok.text)


def parse_call(line: str) -> Call:
    """Parse one builtin call; :class:`ExprSyntaxError` (with the column) if it is not one.

    >>> c = parse_call("sdot4(-1, 0x7f7f7f7fU, 5, false)")
    >>> c.name, [a.value for a in c.args]
    ('sdot4', [-1, 2139062143, 5, False])
    >>> [e.value for e in parse_call("sdot2((short2){-3, 7}, (short2){2, 5}, 0, false)").args[0].value]
    [-3, 7]
    """
    if not isinstance(line, str):
        raise ExprSyntaxError(f"expected the text of a call, got {type(line).__name__}")
    return _Parser(line).call()
