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


class UnsupportedOnTarget(IntdotError):
    """The instruction or builtin does not exist on the chosen target."""


class UnknownTarget(IntdotError, ValueError):
    """A target (GPU family, processor, profile) name that intdot does not know."""


class UnknownInstruction(IntdotError, ValueError):
    """An instruction or builtin name that intdot does not know."""


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
            message = f"{message} (column {column})\n  {text}\n  {' ' * (column - 1)}^"
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
    "UnsupportedOnTarget",
    "UnknownTarget",
    "UnknownInstruction",
    "AsmSyntaxError",
    "OperandConstraintError",
    "UndefinedEncoding",
    "StateError",
]
