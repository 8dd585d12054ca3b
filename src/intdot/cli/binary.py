"""Where ``intdot disasm`` finds its words: hex text, llvm-mc byte lists, ``objdump -d``
listings, raw binaries and AArch64 ELF files (objects, shared libraries, executables).

Each input becomes a list of :class:`Chunk`: the words of one section (or of
one text input) with their addresses, the symbols that start inside it, and
where each word came from, so an error can name a line and column.
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
    """The words of one section or text input, in order."""

    name: str  # section name (".text") or source ("stdin", a file name, "WORD")
    words: np.ndarray  # uint32
    addresses: np.ndarray | None = None  # uint64 per word; None for bare word lists
    symbols: list = field(default_factory=list)  # [(index of the first word, name)], ascending
    data: np.ndarray | None = None  # bool per word: inside a '$d' (data) mapping region
    where: list | None = None  # per word (line, column) in the text it came from (indexable)


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


def words_from_raw(data: bytes, source: str, *, offset: int = 0, endian: str = "little") -> tuple[Chunk, int]:
    """The words of a raw binary from byte ``offset``; also the count of trailing bytes left over."""
    if offset < 0 or offset > len(data):
        raise OperandError(f"--offset {offset}: out of range; {source} has {len(data)} bytes")
    body = data[offset:]
    n = len(body) // 4
    words = np.frombuffer(body, dtype="<u4" if endian == "little" else ">u4", count=n).astype(np.uint32)
    addrs = np.arange(offset, offset + 4 * n, 4, dtype=np.uint64)
    return Chunk(source, words, addrs), len(body) - 4 * n


def words_from_elf(data: bytes, source: str) -> list[Chunk]:
    """Every executable section of an AArch64 ELF file, with its symbols (as ``objdump -d`` shows them)."""
    import io

    try:
        from elftools.common.exceptions import ELFError
        from elftools.elf.elffile import ELFFile
    except ImportError:
        raise OperandError(
            f"{source} is an ELF file; reading it needs pyelftools (pip install 'intdot[elf]')"
        ) from None
    try:
        elf = ELFFile(io.BytesIO(data))
        machine = elf["e_machine"]
        if machine != "EM_AARCH64":
            raise OperandError(f"{source} is an ELF file for {machine}; intdot disassembles AArch64 (EM_AARCH64) only")
        sections = [
            (i, s) for i, s in enumerate(elf.iter_sections()) if s["sh_flags"] & 0x4 and s["sh_type"] != "SHT_NOBITS"
        ]  # SHF_EXECINSTR
        syms = _symbols(elf)
        chunks = []
        for index, sec in sections:
            raw = sec.data()
            n = len(raw) // 4
            # A64 instructions are little-endian even in a big-endian (aarch64_be) file; only data is not.
            words = np.frombuffer(raw, dtype="<u4", count=n).astype(np.uint32)
            base = int(sec["sh_addr"])
            addrs = base + 4 * np.arange(n, dtype=np.uint64)
            named, mapping = {}, []
            for value, name, kind in syms.get(index, []):
                # In a relocatable object a symbol's value is an offset into its section.
                k = value - base if elf["e_type"] != "ET_REL" else value
                if not 0 <= k < 4 * n + 4:
                    continue
                if kind == "map":
                    mapping.append((k // 4, name))
                elif k % 4 == 0 and k // 4 < n:
                    named[k // 4] = name  # sorted by name: the last at an address wins, as in llvm-objdump
            data_mask = np.zeros(n, dtype=bool)
            mapping.sort()
            for j, (start, name) in enumerate(mapping):
                end = mapping[j + 1][0] if j + 1 < len(mapping) else n
                data_mask[start:end] = name.startswith("$d")
            if not elf.little_endian and data_mask.any():
                words[data_mask] = words[data_mask].byteswap()
            chunks.append(Chunk(sec.name, words, addrs, sorted(named.items()), data_mask))
        return chunks
    except ELFError as exc:
        raise OperandError(f"{source} is not a readable ELF file ({exc})") from None
    except (ValueError, KeyError, AttributeError, TypeError, IndexError) as exc:
        # pyelftools raises plain exceptions on truncated or corrupt files.
        raise OperandError(f"{source} is not a readable ELF file ({type(exc).__name__}: {exc})") from None


# STT_GNU_IFUNC (pyelftools calls type 10 STT_LOOS): glibc's memcpy, strlen, ... are such
# resolvers; without them their code would be counted in the function before.
_FUNCTION_TYPES = ("STT_FUNC", "STT_GNU_IFUNC", "STT_LOOS")


def _symbols(elf) -> dict:
    """Section index -> [(value, name, 'func'|'map')]: functions and labels, and the
    AArch64 mapping symbols ($x code, $d data) that tell objdump where data sits in code."""
    from elftools.elf.sections import SymbolTableSection

    table = elf.get_section_by_name(".symtab") or elf.get_section_by_name(".dynsym")
    out: dict = {}
    if not isinstance(table, SymbolTableSection):
        return out
    for sym in table.iter_symbols():
        shndx = sym["st_shndx"]
        if not isinstance(shndx, int) or not sym.name:
            continue
        kind = sym["st_info"]["type"]
        if sym.name.startswith(("$x", "$d")):
            out.setdefault(shndx, []).append((int(sym["st_value"]), sym.name, "map"))
        elif kind in _FUNCTION_TYPES or kind == "STT_NOTYPE":
            out.setdefault(shndx, []).append(
                (int(sym["st_value"]), sym.name, "func" if kind in _FUNCTION_TYPES else "label")
            )
    for v in out.values():
        # Where several symbols share an address (aliases: memcpy and __memcpy), llvm-objdump-19
        # heads the code with the greatest name, whatever the symbols' types and bindings.
        v.sort(key=lambda t: (t[0], t[1]))
    return out
