"""The members of ``ar`` archives (static libraries, ``libfoo.a``), as ``llvm-objdump -d`` reads them.

GNU/System V archives (``name/``, long names through the ``//`` table) and
BSD/Darwin ones (``#1/LEN`` names stored before the data), regular and thin
(``!<thin>``: the members are files beside the archive).  Symbol tables
(``/``, ``/SYM64/``, ``__.SYMDEF...``) are not members.  Nothing is read but
the headers: each member is an offset and a size in the archive's file.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass

MAGIC = b"!<arch>\n"
THIN_MAGIC = b"!<thin>\n"
_HEADER = 60
_SYMBOL_TABLES = ("/", "/SYM64/", "__.SYMDEF", "__.SYMDEF SORTED", "__.SYMDEF_64", "__.SYMDEF_64 SORTED")


class BadArchive(Exception):
    """The archive's structure is broken (the caller names the file)."""


@dataclass(frozen=True)
class Member:
    name: str  # as llvm-objdump prints it between the parentheses of "libfoo.a(name)"
    offset: int  # of its data in the archive; for a thin archive's member, 0 in the file at ``path``
    size: int
    path: str | None = None  # a thin archive's member: the file that holds it


def is_archive(head: bytes) -> bool:
    return head.startswith((MAGIC, THIN_MAGIC))


def members(stream, archive_path: str) -> Iterator[Member]:
    """The members of the archive open in ``stream`` (at any position), in order."""
    file_end = stream.seek(0, 2)
    stream.seek(0)
    magic = stream.read(8)
    if magic not in (MAGIC, THIN_MAGIC):
        raise BadArchive("no '!<arch>' header")
    thin = magic == THIN_MAGIC
    long_names = b""
    at = 8
    while True:
        stream.seek(at)
        header = stream.read(_HEADER)
        if not header:
            return
        if len(header) < _HEADER or header[58:60] != b"`\n":
            raise BadArchive(f"the member header at byte {at} is cut short or broken")
        raw_name = header[:16].decode("latin-1").rstrip(" ")
        try:
            size = int(header[48:58].decode("ascii").strip() or "0")
        except ValueError:
            raise BadArchive(f"the member header at byte {at} has no decimal size") from None
        data = at + _HEADER
        name, skip = raw_name, 0
        if raw_name.startswith("#1/"):  # BSD: the name's length; the name comes first in the data
            try:
                skip = int(raw_name[3:])
            except ValueError:
                raise BadArchive(f"the member header at byte {at} has a bad BSD name length") from None
            stream.seek(data)
            name = stream.read(skip).rstrip(b"\0").decode("utf-8", "replace")
        elif raw_name == "//":  # GNU: the table of long names, "name/\n" each
            stream.seek(data)
            long_names = stream.read(size)
            name = None
        elif raw_name.startswith("/") and raw_name[1:].isdigit():  # GNU: an offset into that table
            start = int(raw_name[1:])
            end = long_names.find(b"\n", start)
            name = long_names[start : end if end >= 0 else len(long_names)].decode("utf-8", "replace")
            name = name[:-1] if name.endswith("/") else name
        elif raw_name not in _SYMBOL_TABLES and raw_name.endswith("/"):
            name = raw_name[:-1]
        in_file = not thin or name is None or name in _SYMBOL_TABLES
        if in_file and data + size > file_end:
            raise BadArchive(
                f"the member at byte {at} holds {size} bytes, but the file ends at byte {file_end}: the archive is cut "
                "short"
            )
        if name is not None and name not in _SYMBOL_TABLES:
            if thin:
                path = name if os.path.isabs(name) else os.path.join(os.path.dirname(archive_path), name)
                yield Member(name, 0, -1, path)
            else:
                yield Member(name, data + skip, size - skip)
        at = data + (size if in_file else 0)
        at += at & 1  # members start at even offsets
