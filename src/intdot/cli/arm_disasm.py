"""``intdot disasm`` for Arm: 32-bit AArch64 words, listings, binaries and archives to LLVM's text.

Every input becomes chunks of words (see :mod:`.binary`), which are read,
classified and written a block of words at a time (see :mod:`.listing`):
a binary is never held in memory whole, and the listing of a 300 MB library
needs no more memory than that of a 3 MB one.  One pass of the decoder's
decision table finds the dot instructions of a block; only those are
disassembled, and only ``--fields`` and ``--stats`` decode words one at a
time, once per distinct word.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys

import numpy as np

from ..core.errors import OperandError, UndefinedEncoding, quote
from . import archive, binary, isa_option, listing
from .inputs import check_path, file_error, read_bytes, source_name

# Words per block: large enough that NumPy's per-call costs vanish, small enough that a block's
# listing (about 40 bytes a word) stays a few megabytes.
BLOCK = 1 << 16


def gather(args, stack: contextlib.ExitStack) -> tuple[list, bool, list]:
    """The chunks to disassemble; whether they are code (binaries, listings), where words that
    are not dot instructions are expected; and for each ELF file which symbol table names its code."""
    chunks: list = []
    code = False
    notes: list = []
    if (args.raw or args.offset or args.endian != "little") and not args.file:
        raise OperandError("--raw, --offset and --endian describe a binary file; give it with -f FILE")
    if args.words:
        chunks.append(binary.words_from_text(list(args.words), "WORD", unit="argument"))
    if args.file is not None:
        name = source_name(args.file)
        stream, size = _open(args.file, stack)
        head = stream.read(64)
        stream.seek(0)
        if args.raw:
            section, left = binary.raw_section(stream, name, size, offset=args.offset, endian=args.endian)
            kind = _binary_kind(head)
            if kind:
                print(
                    f"intdot disasm: note: {name} is {kind}; --raw reads every byte from --offset on as a code word, "
                    "its headers and data included: leave out --raw to disassemble its code as objdump -d does",
                    file=sys.stderr,
                )
            if left:
                print(
                    f"intdot disasm: note: the last {left} byte(s) of {name} do not fill a word; not shown",
                    file=sys.stderr,
                )
            chunks.append(section)
            code = True
        else:
            if args.offset or args.endian != "little":
                raise OperandError("--offset and --endian apply to raw binaries; add --raw")
            if head.startswith(binary.ELF_MAGIC):
                from .elf import open_elf

                found, which = binary.elf_sections(open_elf(stream, name, 0, size))
                if not any(c.count for c in found):
                    raise OperandError(
                        f"{name} is an AArch64 ELF file without code (no executable section holds a word)"
                    )
                chunks += found
                notes.append((name, which))
                code = True
            elif archive.is_archive(head):
                found, member_notes = _archive(stream, name, args.file, stack)
                chunks += found
                notes += member_notes
                code = True
            else:
                text = _text(stream.read(), name)
                if binary.is_objdump_listing(text):
                    chunks += binary.words_from_objdump(text, name)
                    code = True
                else:
                    chunks.append(binary.words_from_text(text, name))
    if not any(c.count for c in chunks):
        if chunks and args.file is not None:
            raise OperandError(f"--file {quote(source_name(args.file))} holds no words")
        raise OperandError("no words given; pass hex words as arguments or --file F ('-' for stdin)")
    return chunks, code, notes


def _open(path: str, stack: contextlib.ExitStack):
    """A binary stream of ``path`` ('-': stdin, read whole) and its size."""
    check_path(path, "--file")
    if path == "-":
        data = read_bytes("-")
        return io.BytesIO(data), len(data)
    try:
        fh = stack.enter_context(open(path, "rb"))
    except OSError as exc:
        raise file_error("--file", path, exc) from None
    return fh, os.fstat(fh.fileno()).st_size


def _binary_kind(head: bytes) -> str | None:
    """What a binary file's first bytes say it is, for the note that --raw reads it all as code."""
    if head.startswith(binary.ELF_MAGIC):
        from .elf import describe

        return describe(head)
    if head.startswith(archive.THIN_MAGIC):
        return "a thin 'ar' archive (its members are other files)"
    if head.startswith(archive.MAGIC):
        return "an 'ar' archive (a static library: object files one after another, each behind a header)"
    return binary.other_format(head)


def _archive(stream, name: str, path: str, stack: contextlib.ExitStack) -> tuple[list, list]:
    """The code sections of every AArch64 ELF member of an archive, each named 'archive(member)'."""
    from .elf import open_elf

    chunks, notes = [], []
    try:
        members = list(archive.members(stream, path))
    except archive.BadArchive as exc:
        raise OperandError(f"{name} is not a readable ar archive ({exc})") from None
    for m in members:
        label = f"{name}({m.name})"
        if m.path is not None:  # a thin archive's member is a file of its own
            try:
                member = stack.enter_context(open(m.path, "rb"))
            except OSError as exc:
                raise file_error(f"{label}: member file", m.path, exc) from None
            start, size = 0, os.fstat(member.fileno()).st_size
        else:
            member, start, size = stream, m.offset, m.size
        member.seek(start)
        if size < 4 or member.read(4) != binary.ELF_MAGIC:
            continue  # as llvm-objdump: a member that is not an object file is passed over
        elf = open_elf(member, label, start, size)
        found, which = binary.elf_sections(elf, file=label)
        chunks += found
        notes.append((label, which))
    if not any(c.count for c in chunks):
        raise OperandError(f"{name} is an ar archive without AArch64 code (no member is an ELF object holding code)")
    return chunks, notes


def _text(data: bytes, name: str) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        kind = binary.other_format(data)
        if kind:
            raise OperandError(
                f"{name} is {kind}; intdot reads AArch64 ELF files itself, and other objects through "
                f"their listing: llvm-objdump -d {name} | intdot disasm -f -"
            ) from None
        raise OperandError(
            f"--file {quote(name)} is not a text file of hex words and not an ELF file (it is not "
            "UTF-8 text); for a raw binary add --raw"
        ) from None
    return text[1:] if text.startswith("\ufeff") else text


def _classify(words: np.ndarray, data) -> np.ndarray:
    """Which words are dot instructions (one pass of the decoder's decision table); data is not."""
    from ..arm.codec import dispatch

    dot = dispatch().classify(words) >= 0
    return dot if data is None else dot & ~data


def _refuse_unknown(chunks) -> None:
    """Word lists without --mark: the first word that is not a dot instruction is an error,
    named by where it was written."""
    is_dot = [_classify(c.words, c.data) for c in chunks]
    bad_total = sum(int((~d).sum()) for d in is_dot)
    total = sum(c.count for c in chunks)
    for c, d in zip(chunks, is_dot):
        bad = np.flatnonzero(~d)
        if bad.size:
            k = int(bad[0])
            where = ""
            if c.where is not None:
                line, col = c.where[k]
                unit = "argument" if c.name == "WORD" else "line"
                where = f"{c.name}, {unit} {line}, column {col}: "
            raise UndefinedEncoding(
                f"{where}{int(c.words[k]):#010x} is not a supported encoding ({bad_total} of {total} words are "
                "not); pass --mark to print '.inst 0x...' for them"
            )


def _demangle_symbols(chunks) -> None:
    from .demangle import demangle

    names = demangle({n for c in chunks for _, n in c.symbols})
    if names:
        for c in chunks:
            c.symbols = [(k, names.get(n, n)) for k, n in c.symbols]


def _amdgpu_object(path) -> bool:
    """Whether ``path`` is an AMDGPU ELF code object (e_machine 224): its processor is in its header."""
    if not path or path == "-":
        return False
    try:
        with open(path, "rb") as fh:
            head = fh.read(20)
    except (OSError, ValueError):  # a missing file, a name with a NUL byte: the Arm reader reports it
        return False
    return head[:4] == b"\x7fELF" and len(head) == 20 and int.from_bytes(head[18:20], "little") == 224


def run(args) -> int:
    from ..arm import disassemble

    if not args.raw and _amdgpu_object(getattr(args, "file", None)):
        from . import amdgpu_disasm

        # Its options are --isa amdgpu's, though the ISA came from the file, not from --isa.
        isa_option.check(args, "disasm", "amdgpu", because=f"{args.file} is an AMDGPU code object")
        return amdgpu_disasm.run(args)
    with contextlib.ExitStack() as stack:
        chunks, code, notes = gather(args, stack)
        if not (code or args.mark or args.only_dot or args.stats):
            _refuse_unknown(chunks)
        if args.demangle:
            _demangle_symbols(chunks)
        if args.stats:
            writers = [listing.Stats(args, notes)] * 2
        elif args.json:
            writers = [listing.Json(args)] * 2
        else:  # bare word lists, and listings and binaries (which have addresses)
            writers = [listing.Plain(args), listing.Listing(args)]
        for c in chunks:
            writer = writers[c.addresses is not None]
            for lo in range(0, c.count, BLOCK):
                hi = min(c.count, lo + BLOCK)
                words, data = c.read(lo, hi), c.data_block(lo, hi)
                dot = _classify(words, data)
                texts = disassemble(words[dot], errors="mark").tolist() if dot.any() else []
                writer.block(c, lo, words, dot, texts, data)
        for w in dict.fromkeys(writers):
            w.finish()
    return 0
