"""How the command line shows an error: every value it echoes cut by ``intdot.core.errors.quote``.

A message that quotes what the user typed quotes it through ``quote`` (its first 60 characters, an
ellipsis and the total length), whichever command, option or input file it came from.  The places that
build messages do so themselves; :func:`error_text` is the last step before stderr, applied once where
``main`` (or a batch) prints an error, so that a message built elsewhere with a bare ``repr`` (or an
argparse message, which echoes a bad choice whole) is cut the same way rather than printed a megabyte long.
"""

from __future__ import annotations

import ast
import re

from ..core.errors import QUOTE_LIMIT, quote

# A line longer than this after its values are cut holds input echoed some other way (words between blanks):
# it is cut as a whole.  The longest deliberate messages (a list of every target of an ISA) are about 550.
LINE_LIMIT = 1000

# A Python repr of a string: it opens where a word cannot go on (intdot's is prose, not a quote), escapes
# its own quote character, and holds no line break.
_QUOTED = re.compile(r"(?<![\w'\"])(?:'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\")(?!\w)")


def bounded(message: str) -> str:
    """``message`` (one line) with each long quoted value (a Python repr) and each long run without blanks
    cut as ``quote`` cuts them; then the whole line, if it is still longer than :data:`LINE_LIMIT`."""

    def quoted(m: re.Match) -> str:
        if len(m[0]) <= 2 * QUOTE_LIMIT:
            return m[0]
        try:
            value = ast.literal_eval(m[0])
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            value = m[0][1:-1]
        return quote(value)

    message = _QUOTED.sub(quoted, message)
    message = re.sub(rf"\S{{{2 * QUOTE_LIMIT + 1},}}", lambda m: quote(m[0], marks=False), message)
    return message if len(message) <= LINE_LIMIT else quote(message, limit=LINE_LIMIT, marks=False)


def error_text(exc: BaseException) -> str:
    """The text of an error as stderr shows it: its first line bounded; the lines a syntax error adds
    (its input and a caret under the column) as they are, since ``caret_window`` already cut them and
    cutting them again would move the caret."""
    first, *rest = str(exc).split("\n") or [""]
    return "\n".join([bounded(first), *rest])
