"""The one exception hierarchy of intdot.

Every error the library raises for bad input is an :class:`IntdotError`.  The
subclasses that describe bad *values* or *types* also derive from
:class:`ValueError` / :class:`TypeError`, so ordinary Python code that catches
those keeps working.  Messages name the argument, the value, and what would
have been accepted.
"""

from __future__ import annotations


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


_ONE_COLUMN = {ord(c): " " for c in "\t\n\r\v\f"}


class AsmSyntaxError(IntdotError, ValueError):
    """Assembly text that cannot be parsed.

    ``column`` is the 1-based column of the offending character (or ``None``),
    ``text`` the whole line.
    """

    # A long line is shown as a window around the column, so the caret stays readable.
    WINDOW = 60

    def __init__(self, message: str, text: str | None = None, column: int | None = None):
        self.text = text
        self.column = column
        self.reason = message
        if text is not None and column is not None:
            shown, at = text, column - 1
            if len(text) > 2 * self.WINDOW:
                start = max(0, at - self.WINDOW)
                end = min(len(text), at + self.WINDOW)
                head = "..." if start > 0 else ""
                shown = head + text[start:end] + ("..." if end < len(text) else "")
                at = at - start + len(head)
            # Tabs and line breaks would move the caret off its column (or onto another line).
            shown = shown.translate(_ONE_COLUMN)
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
    "AsmSyntaxError",
    "OperandConstraintError",
    "UndefinedEncoding",
    "StateError",
]
