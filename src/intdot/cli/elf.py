"""AArch64 ELF files read as ``llvm-objdump -d`` reads them, without holding them in memory.

Only the headers, the symbol tables and the small ``.plt`` section are read
whole; the code itself is read a block at a time by :class:`Section` (see
:class:`.binary.Chunk`), so memory does not grow with the size of a library.

The symbols shown follow llvm-objdump-19: the static symbol table
(``.symtab``), or where it holds none (a stripped library) the dynamic one;
PLT entries named ``function@plt`` from ``.rela.plt``; and where no symbol
starts a section, the section's own name.  The mapping symbols ``$x``/``$d``
say which words are data inside code.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

from ..core.errors import OperandError

MAGIC = b"\x7fELF"
EM_AARCH64 = 183
_MACHINES = {
    2: "EM_SPARC",
    3: "EM_386",
    8: "EM_MIPS",
    20: "EM_PPC",
    21: "EM_PPC64",
    22: "EM_S390",
    40: "EM_ARM",
    43: "EM_SPARCV9",
    62: "EM_X86_64",
    183: "EM_AARCH64",
    190: "EM_CUDA",
    224: "EM_AMDGPU",
    243: "EM_RISCV",
    247: "EM_BPF",
    258: "EM_LOONGARCH",
}
_KINDS = {1: "relocatable object", 2: "executable", 3: "shared object", 4: "core file"}
ET_REL = 1
SHT_SYMTAB, SHT_RELA, SHT_NOBITS, SHT_REL, SHT_DYNSYM, SHT_SYMTAB_SHNDX = 2, 4, 8, 9, 11, 18
SHF_EXECINSTR = 0x4
SHN_UNDEF, SHN_LORESERVE, SHN_XINDEX = 0, 0xFF00, 0xFFFF
STT_NOTYPE, STT_FUNC, STT_SECTION, STT_FILE, STT_TLS, STT_GNU_IFUNC = 0, 2, 3, 4, 6, 10
# The symbol types that head code in llvm-objdump-19's listing.  An STT_OBJECT symbol in code makes it dump the
# bytes as data instead of disassembling them: intdot does not reproduce that (docs/cli.md).
_SHOWN_TYPES = (STT_NOTYPE, STT_FUNC, STT_TLS, STT_GNU_IFUNC)


class NotReadable(Exception):
    """The file's structure is broken: the caller says which file and that it is not readable."""


def machine_name(number: int) -> str:
    return _MACHINES.get(number, f"machine {number}")


def describe(head: bytes) -> str:
    """What the first bytes of an ELF file say it is: 'an ELF shared object for EM_AARCH64'."""
    if len(head) < 20 or head[4] not in (1, 2) or head[5] not in (1, 2):
        return "an ELF file"
    order = "<" if head[5] == 1 else ">"
    e_type, e_machine = struct.unpack_from(order + "HH", head, 16)
    return f"an ELF {_KINDS.get(e_type, 'file')} for {machine_name(e_machine)}"


@dataclass(frozen=True)
class SectionHeader:
    index: int
    name: str
    type: int
    flags: int
    addr: int
    offset: int
    size: int
    link: int
    entsize: int


class ElfFile:
    """The headers and symbols of one ELF image: a file, or a member of an archive at ``start``."""

    def __init__(self, stream, source: str, start: int = 0, size: int | None = None):
        self.stream, self.source, self.start = stream, source, start
        if size is None:
            size = stream.seek(0, 2) - start
        self.size = size
        head = self.read(0, min(64, size))
        if len(head) < 52 or head[:4] != MAGIC:
            raise NotReadable("the ELF header is cut short")
        if head[4] not in (1, 2) or head[5] not in (1, 2):
            raise NotReadable(f"unknown ELF class {head[4]} or data encoding {head[5]}")
        self.wide = head[4] == 2
        if len(head) < (64 if self.wide else 52):  # ELF64's header is 64 bytes, ELF32's 52
            raise NotReadable("the ELF header is cut short")
        self.little = head[5] == 1
        self.order = "<" if self.little else ">"
        o = self.order
        self.type, self.machine = struct.unpack_from(o + "HH", head, 16)
        at = (40, 58) if self.wide else (32, 46)  # e_shoff; e_shentsize, e_shnum, e_shstrndx
        (shoff,) = struct.unpack_from(o + ("Q" if self.wide else "I"), head, at[0])
        shentsize, shnum, shstrndx = struct.unpack_from(o + "HHH", head, at[1])
        self.sections = self._section_headers(shoff, shentsize, shnum, shstrndx)

    @property
    def kind(self) -> str:
        return _KINDS.get(self.type, "file")

    def read(self, offset: int, count: int) -> bytes:
        """``count`` bytes at ``offset`` of the image; a short read means a cut or corrupt file."""
        if offset < 0 or count < 0 or offset + count > self.size:
            raise NotReadable(f"bytes {offset:#x}-{offset + count:#x} lie beyond its end ({self.size:#x} bytes)")
        self.stream.seek(self.start + offset)
        data = self.stream.read(count)
        if len(data) != count:
            raise NotReadable(f"the file ends at byte {self.start + offset + len(data):#x}")
        return data

    def _section_headers(self, shoff: int, shentsize: int, shnum: int, shstrndx: int) -> list[SectionHeader]:
        if shoff == 0:
            return []
        dtype = _SHDR64 if self.wide else _SHDR32
        if shentsize != dtype.itemsize:
            raise NotReadable(f"section header entries of {shentsize} bytes (expected {dtype.itemsize})")
        dtype = dtype.newbyteorder(self.order)
        if shnum == 0 or shstrndx == SHN_XINDEX:  # more than 0xff00 sections: the counts sit in section 0
            first = np.frombuffer(self.read(shoff, dtype.itemsize), dtype)[0]
            shnum = shnum or int(first["size"])
            if shstrndx == SHN_XINDEX:
                shstrndx = int(first["link"])
        raw = np.frombuffer(self.read(shoff, shnum * dtype.itemsize), dtype)
        names = b""
        if 0 < shstrndx < shnum:
            s = raw[shstrndx]
            names = self.read(int(s["offset"]), int(s["size"]))
        out = []
        for i, s in enumerate(raw.tolist()):
            name, type_, flags, addr, offset, size, link, _info, _align, entsize = s
            out.append(SectionHeader(i, _string(names, name), type_, flags, addr, offset, size, link, entsize))
        return out

    def section_data(self, sec: SectionHeader) -> bytes:
        return b"" if sec.type == SHT_NOBITS else self.read(sec.offset, sec.size)

    def code_sections(self) -> list[SectionHeader]:
        """The sections ``objdump -d`` disassembles: executable, with contents."""
        return [s for s in self.sections if s.flags & SHF_EXECINSTR and s.type != SHT_NOBITS]

    # -- symbols ---------------------------------------------------------------------------------

    def _table(self, sec: SectionHeader) -> tuple[np.ndarray, bytes, np.ndarray | None]:
        """A symbol table's entries, its string table, and its extended section indices (if any)."""
        dtype = (_SYM64 if self.wide else _SYM32).newbyteorder(self.order)
        if sec.entsize not in (0, dtype.itemsize):
            raise NotReadable(f"symbol table {sec.name} has entries of {sec.entsize} bytes")
        syms = np.frombuffer(self.section_data(sec), dtype, count=sec.size // dtype.itemsize)
        strings = self.section_data(self.sections[sec.link]) if 0 < sec.link < len(self.sections) else b""
        ext = None
        for s in self.sections:
            if s.type == SHT_SYMTAB_SHNDX and s.link == sec.index:
                ext = np.frombuffer(self.section_data(s), self.order + "u4")
        return syms, strings, ext

    def symbols(self) -> tuple[str, dict]:
        """Which table names the code ('static', 'dynamic' or 'none'), and per code section index
        ``(shown, starts, mapping)``: shown symbols [(offset, name)], the offsets where any symbol
        other than a mapping one starts, and the mapping symbols [(offset, name)]."""
        code = {s.index for s in self.code_sections()}
        which, per = "none", {}
        for kind, type_ in (("static", SHT_SYMTAB), ("dynamic", SHT_DYNSYM)):
            table = next((s for s in self.sections if s.type == type_), None)
            if table is None:
                continue
            found = self._collect(table, code, static=kind == "static")
            if found is not None:
                which, per = kind, found
                break
        return which, per

    def _collect(self, table: SectionHeader, code: set, *, static: bool) -> dict | None:
        """The symbols of one table by code section; None if the table has no symbol llvm-objdump would use."""
        syms, strings, ext = self._table(table)
        if len(syms) < 2:
            return None
        syms = syms[1:]  # entry 0 is the null symbol
        shndx = syms["shndx"].astype(np.int64)
        if ext is not None and len(ext) >= len(syms) + 1:
            shndx = np.where(shndx == SHN_XINDEX, ext[1 : len(syms) + 1].astype(np.int64), shndx)
        kind = syms["info"] & 0xF
        usable = (
            (syms["name"] != 0)
            & (shndx != SHN_UNDEF)
            & ((shndx < SHN_LORESERVE) | (ext is not None))
            & (shndx < len(self.sections))
            & (kind != STT_SECTION)
        )
        if static:
            usable &= kind != STT_FILE
        if not usable.any():
            return None  # llvm-objdump then falls back to the dynamic table
        per: dict = {}
        keep = np.flatnonzero(usable & np.isin(shndx, list(code)))
        columns = (shndx[keep], syms["name"][keep], syms["value"][keep], kind[keep])
        for index, name_at, value, type_ in zip(*(c.tolist() for c in columns)):
            sec = self.sections[index]
            name = _string(strings, name_at)
            if not name:
                continue
            offset = value if self.type == ET_REL else value - sec.addr
            shown, starts, mapping = per.setdefault(sec.index, ([], set(), []))
            if static and name.startswith(("$x", "$d")):
                mapping.append((offset, name))
                continue
            starts.add(offset)
            if type_ in _SHOWN_TYPES:
                shown.append((offset, name))
        return per

    def plt_entries(self) -> list[tuple[int, str]]:
        """(address, 'name@plt') of each PLT entry, found as llvm-objdump-19 finds them: an
        ``adrp x16`` / ``ldr x17`` pair (after an optional ``bti c``) whose GOT slot a
        ``.rela.plt`` relocation names."""
        by_name = {s.name: s for s in self.sections}
        plt, rel = by_name.get(".plt"), by_name.get(".rela.plt") or by_name.get(".rel.plt")
        if plt is None or rel is None or plt.type == SHT_NOBITS:
            return []
        code = self.section_data(plt)
        got_to_plt = {}
        for at, slot in _plt_slots(code, plt.addr):
            got_to_plt.setdefault(slot, at)
        if not got_to_plt:
            return []
        rela = rel.type == SHT_RELA
        fields = ("Q", "Q") if self.wide else ("I", "I")
        entry = struct.calcsize(self.order + "".join(fields) + (fields[0] if rela else ""))
        data = self.section_data(rel)
        if not 0 < rel.link < len(self.sections):
            return []
        syms, strings, _ = self._table(self.sections[rel.link])
        out = []
        for k in range(len(data) // entry):
            offset, info = struct.unpack_from(self.order + "".join(fields), data, k * entry)
            at = got_to_plt.get(offset)
            index = info >> 32 if self.wide else info >> 8
            if at is None or index == 0 or index >= len(syms):
                continue
            name = _string(strings, int(syms["name"][index]))
            if name:
                out.append((at, name + "@plt"))
        return out


def _plt_slots(code: bytes, base: int):
    """(address of the entry, GOT slot it jumps through) for each adrp + ldr pair in ``code``."""
    n = len(code)
    byte = 0
    while byte + 7 < n:
        (insn,) = struct.unpack_from("<I", code, byte)
        off = 0
        if insn == 0xD503245F:  # bti c
            off = 4
            if byte + 8 > n:
                break
            (insn,) = struct.unpack_from("<I", code, byte + 4)
        if (insn & 0x9F000000) == 0x90000000 and byte + off + 8 <= n:  # adrp
            page = ((base + byte) >> 12 << 12) + (((insn >> 29) & 3) << 12) + (((insn >> 5) & 0x3FFFF) << 14)
            (ldr,) = struct.unpack_from("<I", code, byte + off + 4)
            if ldr >> 22 == 0x3E5:  # ldr x, [x, #imm]
                yield base + byte, (page + (((ldr >> 10) & 0xFFF) << 3)) & 0xFFFFFFFFFFFFFFFF
                byte += 4
        byte += 4


def _string(table: bytes, offset: int) -> str:
    if not 0 <= offset < len(table):
        return ""
    end = table.find(b"\0", offset)
    return table[offset : end if end >= 0 else len(table)].decode("utf-8", "replace")


_SHDR64 = np.dtype(
    [
        ("name", "u4"),
        ("type", "u4"),
        ("flags", "u8"),
        ("addr", "u8"),
        ("offset", "u8"),
        ("size", "u8"),
        ("link", "u4"),
        ("info", "u4"),
        ("align", "u8"),
        ("entsize", "u8"),
    ]
)
_SHDR32 = np.dtype(
    [
        ("name", "u4"),
        ("type", "u4"),
        ("flags", "u4"),
        ("addr", "u4"),
        ("offset", "u4"),
        ("size", "u4"),
        ("link", "u4"),
        ("info", "u4"),
        ("align", "u4"),
        ("entsize", "u4"),
    ]
)
_SYM64 = np.dtype([("name", "u4"), ("info", "u1"), ("other", "u1"), ("shndx", "u2"), ("value", "u8"), ("size", "u8")])
_SYM32 = np.dtype([("name", "u4"), ("value", "u4"), ("size", "u4"), ("info", "u1"), ("other", "u1"), ("shndx", "u2")])


def open_elf(stream, source: str, start: int = 0, size: int | None = None) -> ElfFile:
    """The ELF image in ``stream``, or an :class:`OperandError` that names ``source``."""
    try:
        elf = ElfFile(stream, source, start, size)
    except (NotReadable, struct.error, ValueError, IndexError, OverflowError) as exc:
        raise OperandError(f"{source} is not a readable ELF file ({exc})") from None
    if elf.machine != EM_AARCH64:
        raise OperandError(
            f"{source} is an ELF file for {machine_name(elf.machine)}; intdot disassembles AArch64 (EM_AARCH64) and "
            "AMD GPU (EM_AMDGPU) code only"
        )
    return elf
