"""Where ``intdot disasm`` finds its words: hex text, llvm-mc byte lists, ``objdump -d``
listings, raw binaries, AArch64 ELF files (objects, shared libraries,
executables) and ``ar`` archives of them.

Each input becomes a list of chunks: the words of one section (or of one
text input) with their addresses, the symbols that start inside it, and
where each word came from, so an error can name a line and column.  Text
inputs are held in memory (:class:`Chunk`); binaries are read a block at a
time from their file (:class:`Section`), so a library of any size is listed
in a fixed amount of memory.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

import numpy as np

from ..core.errors import OperandError, quote

ELF_MAGIC = b"\x7fELF"
# Object formats intdot does not read itself, by their first bytes; llvm-objdump reads them all.
_OTHER_FORMATS = (
    ((b"\xcf\xfa\xed\xfe", b"\xce\xfa\xed\xfe", b"\xca\xfe\xba\xbe"), "a Mach-O file (Apple)"),
    ((b"MZ",), "a PE file (Windows)"),
    ((b"\x64\xaa",), "a COFF object (Windows on Arm)"),
)


def other_format(data: bytes) -> str | None:
    """What kind of non-ELF object file ``data`` is, if its first bytes say so."""
    for magics, kind in _OTHER_FORMATS:
        if data.startswith(magics):
            return kind
    return None


@dataclass
class Chunk:
    """The words of one text input or listing section, in order, in memory."""

    name: str  # section name (".text") or source ("stdin", a file name, "WORD")
    words: np.ndarray  # uint32
    addresses: np.ndarray | None = None  # uint64 per word; None for bare word lists
    symbols: list = field(default_factory=list)  # [(index of the first word, name)], ascending
    data: np.ndarray | None = None  # bool per word: inside a '$d' (data) mapping region
    where: list | None = None  # per word (line, column) in the text it came from (indexable)
    file: str | None = None  # the object file it belongs to, where the input holds several (an archive)
    file_format: str = ""  # that file's format as objdump names it ("elf64-littleaarch64")

    @property
    def count(self) -> int:
        return len(self.words)

    def read(self, lo: int, hi: int) -> np.ndarray:
        return self.words[lo:hi]

    def address_block(self, lo: int, hi: int) -> np.ndarray | None:
        return None if self.addresses is None else self.addresses[lo:hi]

    def data_block(self, lo: int, hi: int) -> np.ndarray | None:
        return None if self.data is None else self.data[lo:hi]


class Section:
    """The words of one section of a binary, read from its file a block at a time.

    ``read_bytes(offset, count)`` reads from the section's first byte;
    ``regions`` are the mapping symbols as (word index, is data), ascending.
    """

    def __init__(
        self,
        name: str,
        count: int,
        base: int,
        read_bytes,
        *,
        symbols: list | None = None,
        regions: list | None = None,
        order: str = "<",
        data_order: str = "<",
        file: str | None = None,
        file_format: str = "",
    ):
        self.name, self.count, self.base, self._read = name, count, base, read_bytes
        self.symbols = symbols or []
        self.file, self.file_format = file, file_format
        self.where = None
        self.addresses = True  # listings and JSON show addresses
        self._dtype = np.dtype(order + "u4")
        self._swap_data = data_order != order
        if regions:
            self._starts = np.array([k for k, _ in regions], dtype=np.int64)
            self._flags = np.array([d for _, d in regions], dtype=bool)
        else:
            self._starts = self._flags = None

    def data_block(self, lo: int, hi: int) -> np.ndarray | None:
        if self._starts is None:
            return None
        k = np.searchsorted(self._starts, np.arange(lo, hi), side="right") - 1
        return np.where(k >= 0, self._flags[np.maximum(k, 0)], False)

    def read(self, lo: int, hi: int) -> np.ndarray:
        words = np.frombuffer(self._read(4 * lo, 4 * (hi - lo)), self._dtype).astype(np.uint32)
        if self._swap_data:
            # A64 instructions are little-endian even in a big-endian (aarch64_be) file; only data is not.
            data = self.data_block(lo, hi)
            if data is not None and data.any():
                words[data] = words[data].byteswap()
        return words

    def address_block(self, lo: int, hi: int) -> np.ndarray:
        return np.arange(self.base + 4 * lo, self.base + 4 * hi, 4, dtype=np.uint64)


# -- text ----------------------------------------------------------------------------------------

_HEX_WORD = re.compile(r"(?:0x)?[0-9a-f]{1,8}", re.IGNORECASE)
_TOKEN = re.compile(r"[^\s,]+")
# llvm-mc -show-encoding: "// encoding: [0x20,0x1c,0xba,0x44]"; also a bare list.
# A byte of an instruction with a fixup (a branch or load to a symbol) is 'A' (all of it
# the fixup), 0x90'A' (0x90 with fixup bits) or 0b100101AA (fixup bits as letters); the
# fixup bits read as 0, the word an object file holds before relocation.
_BYTE = r"(?:0x[0-9a-f]{1,2}(?:'[A-Z]')?|0b[01A-Z]{8}|[A-Z])"
_BYTE_LIST = re.compile(rf"\[\s*({_BYTE}(?:\s*,\s*{_BYTE})*)\s*\]", re.IGNORECASE)
# objdump -d: "  10:	44ba1c20 	sudot ..." (GNU and LLVM) or "  10: 20 1c ba 44  ..." (bytes).
_OBJDUMP_INSN = re.compile(
    r"^\s*([0-9a-f]+):\s+((?:[0-9a-f]{8})|(?:[0-9a-f]{2} ){3}[0-9a-f]{2})(?=\s|$)", re.IGNORECASE
)
_OBJDUMP_SYMBOL = re.compile(r"^([0-9a-f]+) <(.+)>:\s*$", re.IGNORECASE)
_OBJDUMP_SECTION = re.compile(r"^Disassembly of section (\S+?):?\s*$")
# Address lines that hold no word and are not instructions: relocations (-r), GNU
# objdump's note on a partial word, and data shorter than a word ('.short', '.byte').
_OBJDUMP_OTHER = re.compile(
    r"^\s*[0-9a-f]+:\s+(?:R_|Address |(?:[0-9a-f]{2}(?: [0-9a-f]{2})*|[0-9a-f]{4})\s+\.)", re.IGNORECASE
)
_OBJDUMP_ADDRESS = re.compile(r"^\s*[0-9a-f]+:\s+\S", re.IGNORECASE)
# llvm-objdump shows data bytes in file order, which is big-endian in an aarch64_be file.
_OBJDUMP_BIG = re.compile(r"file format \S*big", re.IGNORECASE)


def _hex_word(token: str, source: str, line: int, column: int, unit: str = "line") -> int:
    if not _HEX_WORD.fullmatch(token):
        hint = ""
        if unit == "argument" and os.path.isfile(token):
            hint = f"; it names a file: read it with -f {token}"
        raise OperandError(
            f"{source}, {unit} {line}, column {column}: {quote(token)} is not a 32-bit hex word "
            f"(expected up to 8 hex digits, optionally prefixed by 0x){hint}"
        )
    return int(token, 16)


_LOOSE_LIST = re.compile(r"\[([^\[\]]*)\]")
_ONE_BYTE = re.compile(_BYTE, re.IGNORECASE)


def _check_loose_list(code: str, source: str, line: int, unit: str) -> None:
    """A bracketed list that is not a byte list: the first element that is not a byte is the error (read as words,
    the list's first piece would be blamed)."""
    for m in _LOOSE_LIST.finditer(code):
        at = m.start(1)
        for piece in m[1].split(","):
            item = piece.strip()
            if not _ONE_BYTE.fullmatch(item):
                column = at + len(piece) - len(piece.lstrip()) + 1
                raise OperandError(
                    f"{source}, {unit} {line}, column {column}: {quote(item)} in the byte list {quote(m[0])} is not "
                    "a byte (expected 0x00-0xff, 0b and eight bits, or a fixup letter, as llvm-mc -show-encoding "
                    "writes them)"
                )
            at += len(piece) + 1


def _byte_value(token: str) -> int:
    if token[:2].lower() == "0b":
        return int(re.sub("[^01]", "0", token[2:]), 2)
    if token[:2].lower() == "0x":
        return int(token[2:].split("'")[0], 16)
    return 0  # a whole byte of fixup bits


def _byte_list(m: re.Match, source: str, line: int, unit: str = "line") -> int:
    values = [_byte_value(b.strip()) for b in m[1].split(",")]
    if len(values) != 4:
        raise OperandError(
            f"{source}, {unit} {line}, column {m.start() + 1}: the byte list {quote(m[0])} has "
            f"{len(values)} bytes; an AArch64 instruction is 4 (little-endian, as llvm-mc prints)"
        )
    return int.from_bytes(bytes(values), "little")


def is_objdump_listing(text: str) -> bool:
    """Whether ``text`` looks like ``objdump -d`` output (a section or symbol header, or an address line)."""
    return any(
        _OBJDUMP_SECTION.match(ln) or _OBJDUMP_SYMBOL.match(ln) or _OBJDUMP_INSN.match(ln)
        for ln in text.splitlines()[:200]
    )


_PLAIN_WORDS = re.compile(r"[\s,]*(?:(?:0x)?[0-9a-f]{1,8}(?:[\s,]+|\Z))*", re.IGNORECASE)


class _Positions:
    """(line, column) of the k-th word of a plain word file, found only when an error needs it."""

    def __init__(self, text: str):
        self.text = text

    def __getitem__(self, k: int) -> tuple[int, int]:
        for i, m in enumerate(_TOKEN.finditer(self.text)):
            if i == k:
                line_start = self.text.rfind("\n", 0, m.start()) + 1
                return self.text.count("\n", 0, m.start()) + 1, m.start() - line_start + 1
        raise IndexError(k)


def words_from_text(text: str | list, source: str, *, unit: str = "line") -> Chunk:
    """Hex words separated by whitespace or commas ('//' starts a comment), and
    llvm-mc encodings (``[0x20,0x1c,0xba,0x44]``) anywhere on a line.  ``text``
    may be a list of lines (command-line arguments, ``unit="argument"``)."""
    if isinstance(text, str) and "[" not in text and "/" not in text and _PLAIN_WORDS.fullmatch(text):
        # A file of hex words only (the common case): one regex check, no per-line work.
        words = np.array([int(t, 16) for t in _TOKEN.findall(text)], dtype=np.uint32)
        return Chunk(source, words, where=_Positions(text))
    words, where = [], []
    lines = text.splitlines() if isinstance(text, str) else text
    # llvm-mc -show-encoding output: only the encodings are words (not '.text', not the assembly).
    llvm_mc = any("encoding: [" in line for line in lines)
    for n, line in enumerate(lines, 1):
        found = list(_BYTE_LIST.finditer(line))
        if found or llvm_mc:  # an llvm-mc line: its text and comment are not words
            for m in found:
                words.append(_byte_list(m, source, n, unit))
                where.append((n, m.start() + 1))
            continue
        code = line.split("//")[0]
        _check_loose_list(code, source, n, unit)
        for m in _TOKEN.finditer(code):
            words.append(_hex_word(m[0], source, n, m.start() + 1, unit))
            where.append((n, m.start() + 1))
    return Chunk(source, np.array(words, dtype=np.uint32), where=where)


def words_from_objdump(text: str, source: str) -> list[Chunk]:
    """An ``objdump -d`` (GNU or LLVM) listing: sections, symbols, addresses and words."""
    chunks: list[Chunk] = []
    section, words, addrs, symbols, where, data = source, [], [], [], [], []
    byte_order = "big" if _OBJDUMP_BIG.search(text[:4096]) else "little"

    def flush():
        if words:
            chunks.append(
                Chunk(
                    section,
                    np.array(words, dtype=np.uint32),
                    np.array(addrs, dtype=np.uint64),
                    list(symbols),
                    np.array(data, dtype=bool),
                    where=list(where),
                )
            )

    for n, line in enumerate(text.splitlines(), 1):
        m = _OBJDUMP_SECTION.match(line)
        if m:
            flush()
            section, words, addrs, symbols, where, data = m[1], [], [], [], [], []
            continue
        m = _OBJDUMP_SYMBOL.match(line)
        if m:
            symbols.append((len(words), m[2]))
            continue
        m = _OBJDUMP_INSN.match(line)
        if not m and _OBJDUMP_ADDRESS.match(line) and not _OBJDUMP_OTHER.match(line):
            # Skipping it would drop an instruction silently and shift the symbols' addresses.
            raise OperandError(
                f"{source}, line {n}: {quote(' '.join(line.split()))} shows no encoding; intdot needs the words "
                "(make the listing without --no-show-raw-insn)"
            )
        if m:
            enc = m[2]
            if " " in enc:
                word = int.from_bytes(bytes.fromhex(enc.replace(" ", "")), byte_order)
            else:
                word = int(enc, 16)
            words.append(word)
            addrs.append(int(m[1], 16))
            where.append((n, m.start(2) + 1))
            # objdump shows data inside code ('$d' regions) as .word/.byte: not instructions.
            data.append(line[m.end() :].split(None, 1)[:1] in ([".word"], [".byte"], [".short"], [".hword"]))
    flush()
    if not chunks:
        raise OperandError(
            f"{source}: no instruction lines found in this objdump listing "
            "(expected lines such as '  10:  44ba1c20   sudot ...')"
        )
    return chunks


# -- binaries ------------------------------------------------------------------------------------


def raw_section(stream, source: str, size: int, *, offset: int = 0, endian: str = "little") -> tuple[Section, int]:
    """The words of a raw binary from byte ``offset``; also the count of trailing bytes left over."""
    if offset < 0 or offset > size:
        raise OperandError(f"--offset {offset}: out of range; {source} has {size} bytes")
    n = (size - offset) // 4

    def read(at: int, count: int) -> bytes:
        stream.seek(offset + at)
        return stream.read(count)

    order = "<" if endian == "little" else ">"
    return Section(source, n, offset, read, order=order, data_order=order), size - offset - 4 * n


def elf_sections(elf, *, file: str | None = None) -> tuple[list[Section], str]:
    """Every executable section of an AArch64 ELF image, with the symbols llvm-objdump-19 shows
    in it; also which symbol table named them ('static', 'dynamic' or 'none')."""
    from .elf import NotReadable

    try:
        which, per = elf.symbols()
        plt = elf.plt_entries()
    except NotReadable as exc:
        raise OperandError(f"{elf.source} is not a readable ELF file ({exc})") from None
    out = []
    for sec in elf.code_sections():
        n = sec.size // 4
        if sec.offset + sec.size > elf.size:
            raise OperandError(
                f"{elf.source} is not a readable ELF file (section {sec.name} lies beyond the end of the file)"
            )
        shown, starts, mapping = per.get(sec.index, ([], set(), []))
        shown = list(shown)
        if sec.name == ".plt":
            shown += [(at - sec.addr, name) for at, name in plt if sec.addr <= at < sec.addr + sec.size]
            starts = starts | {at - sec.addr for at, _ in shown}
        if 0 not in starts:  # as llvm-objdump: a section no symbol starts is headed by its name
            shown.append((0, sec.name))
        named = {}
        for offset, name in sorted(shown, key=lambda t: (t[0], t[1].encode())):
            if offset % 4 == 0 and 0 <= offset // 4 < n:
                # Several symbols at one address (aliases: memcpy and __memcpy): llvm-objdump-19 heads the
                # code with the greatest name, whatever the symbols' types and bindings.
                named[offset // 4] = name
        regions = sorted((offset // 4, name.startswith("$d")) for offset, name in mapping if 0 <= offset < 4 * n + 4)

        def read(at: int, count: int, sec=sec) -> bytes:
            return elf.read(sec.offset + at, count)

        out.append(
            Section(
                sec.name,
                n,
                sec.addr,
                read,
                symbols=sorted(named.items()),
                regions=regions,
                data_order="<" if elf.little else ">",
                file=file,
                file_format=f"elf{64 if elf.wide else 32}-{'little' if elf.little else 'big'}aarch64",
            )
        )
    return out, which
