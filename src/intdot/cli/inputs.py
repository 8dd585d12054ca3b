"""Reading the command line's input files, and naming the line and column of what is wrong in them."""

from __future__ import annotations

import os
import sys

from ..core.errors import AsmSyntaxError, IntdotError, OperandError, quote

BOM = "\ufeff"


def source_name(path: str) -> str:
    return "stdin" if path == "-" else path


def read_text(path: str, option: str = "--file") -> str:
    """The text of ``path`` ('-' is stdin), without a leading UTF-8 byte-order mark."""
    if path == "":
        raise OperandError(f"{option} '': the file name is empty; give a path, or '-' for stdin")
    if path == "-":
        data = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read()
    else:
        data = read_bytes(path, option)
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            raise OperandError(f"{option} {quote(source_name(path))} is not UTF-8 text") from None
    return data[1:] if data.startswith(BOM) else data


def check_path(path: str, option: str) -> None:
    """Refuse a file name no file can have, before ``open`` raises a bare ValueError for it."""
    if path == "":
        raise OperandError(f"{option} '': the file name is empty; give a path")
    if "\x00" in path:
        raise OperandError(f"{option} {quote(path)}: a file name cannot hold a NUL byte")


def check_output(path: str, option: str, example: str, extensions=()) -> None:
    """Refuse an output file name that names no file: empty, a folder (``plots/``), or one of ``extensions``
    alone (``.png``: a hidden file); ``example`` is the name to suggest."""
    check_path(path, option)
    name = os.path.basename(path)
    if os.path.isdir(path):
        raise OperandError(
            f"{option} {quote(path)} is a directory; expected a file name such as {os.path.join(path, example)}"
        )
    if not name or name.lower() in {f".{e}" for e in extensions}:
        raise OperandError(
            f"{option} {quote(path)} names no file; expected a file name such as "
            f"{os.path.join(os.path.dirname(path), example)}"
        )


def read_bytes(path: str, option: str = "--file") -> bytes:
    check_path(path, option)
    if path == "-":
        stream = getattr(sys.stdin, "buffer", None)
        return stream.read() if stream is not None else sys.stdin.read().encode("utf-8")
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError as exc:
        raise file_error(option, path, exc) from None


def file_error(option: str, path: str, exc: OSError, *, writing: bool = False) -> OperandError:
    """The one wording of every command for a file the system refused: ``--file '/x': No such file or
    directory`` (``--save '/x': cannot write it: ...`` for an output)."""
    doing = "cannot write it: " if writing else ""
    return OperandError(f"{option} {quote(path)}: {doing}{exc.strerror or exc}")


def save_figure(fig, path: str, fmt: str, option: str = "--plot") -> str:
    """Write a matplotlib figure to ``path`` and close it; a file the system refuses is :func:`file_error`'s."""
    import matplotlib.pyplot as plt

    try:
        fig.savefig(path, format=fmt, dpi=110)
    except OSError as exc:
        raise file_error(option, path, exc, writing=True) from None
    finally:
        plt.close(fig)
    return path


def at_line(
    exc: IntdotError, source: str, line: int, column: int | None = None, *, text: str | None = None, offset: int = 0
) -> IntdotError:
    """``exc`` again, its message starting with where in a multi-line input it happened.

    A syntax error keeps its caret; ``text`` is the whole line and ``offset`` where in it
    the parsed piece started, so that the column is the line's, as an editor counts it.
    """
    where = f"{source}, line {line}"
    if isinstance(exc, AsmSyntaxError) and exc.text is not None and exc.column is not None:
        try:
            return type(exc)(f"{where}: {exc.reason}", text if text is not None else exc.text, exc.column + offset)
        except TypeError:  # a subclass with another constructor: keep its message
            pass
    if column is not None:
        where += f", column {column}"
    try:
        return type(exc)(f"{where}: {exc}")
    except TypeError:
        return OperandError(f"{where}: {exc}")


def pieces(line: str):
    """(offset, text) of each instruction on a line: ';' separates them, '//' starts a comment,
    and a line that starts with '#' is a comment (as llvm-mc reads '# 1 "k.c"' lines of cpp output)."""
    if line.lstrip().startswith("#"):
        return
    code = line.split("//")[0]
    start = 0
    for part in code.split(";"):
        stripped = part.strip()
        if stripped:
            yield start + (len(part) - len(part.lstrip())), stripped
        start += len(part) + 1
