"""Feature expressions: the one evaluator every ISA's availability goes through.

An instruction names what a target must have as an expression over feature
names: ``dot7-insts``, ``i8mm+(sve|sme)``, ``sme2+sme-i16i64``, ``avx512vnni``.
``+`` means all of, ``|`` any of, and ``+`` binds tighter than ``|``
(``a+b|c`` is ``(a+b)|c``), as *and* binds tighter than *or*.  Names are
letters, digits, ``-``, ``_`` and ``.``, compared case-insensitively (LLVM
spells them in lower case; a user may paste ``I8MM``).

>>> from intdot.core.features import evaluate, missing, parse
>>> evaluate("i8mm+(sve|sme)", {"i8mm", "sme"})
True
>>> str(missing("i8mm+(sve|sme)", {"sve"}))
'i8mm'
>>> str(missing("sme2+sme-i16i64", set()))
'sme2+sme-i16i64'
>>> sorted(parse("sve2p1 | sme2").names)
['sme2', 'sve2p1']
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from .errors import IntdotError, caret_window, quote

__all__ = ["FeatureExpr", "FeatureExpressionError", "evaluate", "missing", "normalize", "parse"]


class FeatureExpressionError(IntdotError, ValueError):
    """A feature expression that does not parse; ``column`` is 1-based."""

    def __init__(self, reason: str, text: str, column: int):
        self.reason, self.text, self.column = reason, text, column
        shown, at = caret_window(text, column)
        super().__init__(f"feature expression {quote(text)}: {reason} (column {column})\n  {shown}\n  {' ' * at}^")


@dataclass(frozen=True)
class FeatureExpr:
    """A parsed expression: ``op`` is ``"name"`` (``value`` a name), ``"all"`` or ``"any"``
    (``value`` a tuple of sub-expressions)."""

    op: str
    value: str | tuple[FeatureExpr, ...]

    @property
    def names(self) -> frozenset:
        """Every feature name the expression mentions."""
        if self.op == "name":
            return frozenset((self.value,))
        return frozenset().union(*(c.names for c in self.value))

    def evaluate(self, features) -> bool:
        """Whether a target with ``features`` (a set of normalized names) satisfies it."""
        if self.op == "name":
            return self.value in features
        test = all if self.op == "all" else any
        return test(c.evaluate(features) for c in self.value)

    def missing(self, features) -> FeatureExpr | None:
        """What a target with ``features`` lacks, as an expression (``None``: nothing).

        Of an unmet *all of*, only the unmet parts remain; an unmet *any of*
        stays whole, since any one of its parts would do.
        """
        if self.evaluate(features):
            return None
        if self.op != "all":
            return self
        parts = tuple(m for c in self.value if (m := c.missing(features)) is not None)
        return parts[0] if len(parts) == 1 else FeatureExpr("all", parts)

    def __str__(self) -> str:
        if self.op == "name":
            return self.value
        if self.op == "any":
            return "|".join(str(c) for c in self.value)
        return "+".join(f"({c})" if c.op == "any" else str(c) for c in self.value)


_TOKEN = re.compile(r"\s*(?:(?P<name>[A-Za-z0-9][A-Za-z0-9_.\-]*)|(?P<op>[+|()])|(?P<bad>\S))")


def _tokens(text: str) -> list[tuple[str, str, int]]:
    """(kind, text, 1-based column); kind is "name", "op" or "end"."""
    out, pos = [], 0
    while True:
        m = _TOKEN.match(text, pos)
        if m is None:  # only whitespace is left
            out.append(("end", "", len(text) + 1))
            return out
        kind = m.lastgroup
        if kind == "bad":
            raise FeatureExpressionError(
                f"unexpected character {m.group(kind)!r}; expected a feature name, '+', '|' or parentheses",
                text,
                m.start(kind) + 1,
            )
        out.append((kind, m.group(kind), m.start(kind) + 1))
        pos = m.end()


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.toks = _tokens(text)
        self.i = 0

    def _peek(self):
        return self.toks[self.i]

    def _fail(self, reason: str):
        kind, tok, col = self._peek()
        found = "the end" if kind == "end" else quote(tok)
        raise FeatureExpressionError(f"{reason}, found {found}", self.text, col)

    def parse(self) -> FeatureExpr:
        expr = self._any()
        if self._peek()[0] != "end":
            self._fail("expected '+', '|' or the end")
        return expr

    def _chain(self, sep: str, op: str, part) -> FeatureExpr:
        items = [part()]
        while self._peek()[1] == sep and self._peek()[0] == "op":
            self.i += 1
            items.append(part())
        if len(items) == 1:
            return items[0]
        # a+(b+c) is a+b+c: one flat node per operator keeps str() and missing() simple.
        flat = [c for item in items for c in (item.value if item.op == op else (item,))]
        return FeatureExpr(op, tuple(flat))

    def _any(self) -> FeatureExpr:
        return self._chain("|", "any", self._all)

    def _all(self) -> FeatureExpr:
        return self._chain("+", "all", self._atom)

    def _atom(self) -> FeatureExpr:
        kind, tok, _ = self._peek()
        if kind == "name":
            self.i += 1
            return FeatureExpr("name", tok.lower())
        if tok == "(" and kind == "op":
            self.i += 1
            inner = self._any()
            if self._peek()[1] != ")" or self._peek()[0] != "op":
                self._fail("expected ')' to close the parenthesis")
            self.i += 1
            return inner
        self._fail("expected a feature name or '('")
        raise AssertionError  # _fail always raises


@lru_cache(maxsize=1024)
def _parse_text(text: str) -> FeatureExpr:
    return _Parser(text).parse()


def parse(expr) -> FeatureExpr:
    """The :class:`FeatureExpr` of ``expr`` (a string, parsed once and cached, or a parsed expression)."""
    if isinstance(expr, FeatureExpr):
        return expr
    if not isinstance(expr, str):
        from .values import describe  # imports NumPy: only for the error (a raw repr of 10**5000 raises)

        raise FeatureExpressionError(
            f"expected a string such as 'i8mm+(sve|sme)', got {type(expr).__name__}", describe(expr), 1
        )
    return _parse_text(expr)


def normalize(features: Iterable[str] | str) -> frozenset:
    """A feature set as the evaluator compares it: lower-case names.

    A single string is one name or several joined by ``+`` or ``,``.
    """
    if isinstance(features, str):
        features = re.split(r"[+,\s]+", features)
    return frozenset(f.strip().lower() for f in features if f and f.strip())


def evaluate(expr, features) -> bool:
    """Whether ``features`` satisfy ``expr``."""
    return parse(expr).evaluate(normalize(features))


def missing(expr, features) -> FeatureExpr | None:
    """What ``features`` lack to satisfy ``expr`` (``None`` when satisfied)."""
    return parse(expr).missing(normalize(features))
