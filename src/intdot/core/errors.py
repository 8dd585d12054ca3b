"""The one exception hierarchy of intdot.

Every error the library raises for bad input is an :class:`IntdotError`.  The
subclasses that describe bad *values* or *types* also derive from
:class:`ValueError` / :class:`TypeError`, so ordinary Python code that catches
those keeps working.  Messages name the argument, the value, and what would
have been accepted.
"""

from __future__ import annotations

# How much of a user's text a message quotes: enough to recognise it, never all of a 200,000-character token.
QUOTE_LIMIT = 60
_ONE_COLUMN = {ord(c): " " for c in "\t\n\r\v\f"}


def quote(text, *, limit: int = QUOTE_LIMIT, marks: bool = True) -> str:
    """User text as a message quotes it: ``repr(text)``, or for longer text its
    first ``limit`` characters, an ellipsis and the total length.  Every
    message that echoes input (library and command line) goes through this,
    so none grows with its input.  ``marks=False`` leaves out the quotes
    (a file name, a line already shown as text).

    >>> quote("sdot4")
    "'sdot4'"
    >>> quote("x" * 200_000, limit=8)
    "'xxxxxxxx'... (200000 characters)"
    >>> quote("a/b/" * 30, limit=8, marks=False)
    'a/b/a/b/... (120 characters)'
    """
    if not isinstance(text, str):
        text = str(text)
    if len(text) <= limit:
        return repr(text) if marks else text
    head = text[:limit]
    return f"{head!r}... ({len(text)} characters)" if marks else f"{head}... ({len(text)} characters)"


def caret_window(text: str, column: int, *, width: int = QUOTE_LIMIT) -> tuple[str, int]:
    """The part of a line a caret message shows: at most ``width`` characters
    either side of ``column`` (1-based), with '...' where cut; also the caret's
    0-based offset in it.  Tabs and line breaks become spaces, which would
    move the caret off its column.

    >>> caret_window("a" * 200 + "!" + "b" * 200, 201, width=4)
    ('...aaaa!bbb...', 7)
    """
    shown, at = text, column - 1
    if len(text) > 2 * width:
        start = max(0, at - width)
        end = min(len(text), at + width)
        head = "..." if start > 0 else ""
        shown = head + text[start:end] + ("..." if end < len(text) else "")
        at = at - start + len(head)
    return shown.translate(_ONE_COLUMN), at


class IntdotError(Exception):
    """Base class of every error intdot raises on purpose."""


class OperandError(IntdotError, ValueError):
    """An operand has the right type but a value outside what is accepted."""


class OperandTypeError(IntdotError, TypeError):
    """An operand has a type that is not accepted (a float, a string, ...)."""


class ConfigError(IntdotError, ValueError):
    """A setting intdot reads from the environment (``INTDOT_BACKEND``) has a value it does not know."""


class UnsupportedOnTarget(IntdotError):
    """The instruction or builtin does not exist on the chosen target."""


class UnknownTarget(IntdotError, ValueError):
    """A target (GPU family, processor, profile) name that intdot does not know."""


class UnknownInstruction(IntdotError, ValueError):
    """An instruction or builtin name that intdot does not know."""


class AmbiguousInstruction(IntdotError, LookupError, ValueError):
    """A spelling shared by instructions that compute different things; ``candidates`` holds their records."""

    def __init__(self, message: str, candidates: tuple = ()):
        super().__init__(message)
        self.candidates = candidates


class AsmSyntaxError(IntdotError, ValueError):
    """Assembly text that cannot be parsed.

    ``column`` is the 1-based column of the offending character (or ``None``),
    ``text`` the whole line.
    """

    def __init__(self, message: str, text: str | None = None, column: int | None = None):
        self.text = text
        self.column = column
        self.reason = message
        if text is not None and column is not None:
            # A long line is shown as a window around the column, so the caret stays readable.
            shown, at = caret_window(text, column)
            message = f"{message} (column {column})\n  {shown}\n  {' ' * at}^"
        super().__init__(message)


class OperandConstraintError(AsmSyntaxError):
    """A well-formed operand that breaks a constraint of the instruction form
    (e.g. ``Zm`` above z7, an index out of range, a misaligned register list)."""


class UndefinedEncoding(IntdotError, ValueError):
    """A 32-bit word that is not one of the encodings intdot supports
    (unallocated, or an instruction outside intdot's table)."""


class StateError(IntdotError, ValueError):
    """An architectural state that cannot run the instruction (e.g. an SME2
    instruction outside streaming mode, a vector length that is not legal)."""


__all__ = [
    "IntdotError",
    "OperandError",
    "OperandTypeError",
    "ConfigError",
    "UnsupportedOnTarget",
    "UnknownTarget",
    "UnknownInstruction",
    "AmbiguousInstruction",
    "AsmSyntaxError",
    "OperandConstraintError",
    "UndefinedEncoding",
    "StateError",
]
