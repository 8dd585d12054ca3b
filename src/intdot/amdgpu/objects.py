"""AMDGPU code objects (ELF, as ``clang -target amdgcn-amd-amdhsa -mcpu=gfxN -c`` writes them): the processor
from the ELF header, the instructions of ``.text`` with their addresses and symbols, the dot instructions as
text and every other instruction as its words, as ``llvm-objdump-19 -d`` lays them out.

Walking ``.text`` needs every instruction's length, not only the dots': :func:`instruction_length` reads it from
the encoding class (the first dword's top bits) and the fields that add a dword (a literal, a DPP or SDWA word,
VOP3 DPP, gfx10/11 MIMG address dwords), per generation.  A dword of a class it does not know is not guessed
at: it becomes a line of its own, shown as ``.long 0x...`` as llvm-objdump shows a word it cannot decode, and the
walk goes on with the next dword (:attr:`CodeObject.unsized` lists them; ``intdot disasm -f`` notes them on
stderr).  ``tests/amdgpu/test_objects.py`` checks the walk against llvm-objdump-19 on kernels clang-19 compiles
for every processor it knows (compute kernels, and graphics shaders with image, buffer and export instructions).
"""

from __future__ import annotations

import collections
import os
from dataclasses import dataclass

from ..core.errors import OperandError, OperandTypeError, UnknownTarget, quote
from ..core.values import check_flag, describe
from .asm import decode_one
from .targets import GENERATION, LLVM_MC_KNOWS

# A path is shown up to this many characters: its end names the file, and a real path is shorter.
PATH_SHOWN = 1000

EM_AMDGPU = 224
# EF_AMDGPU_MACH (e_flags & 0xff) -> processor, for the processors intdot knows
MACH = {
    0x2C: "gfx900", 0x2F: "gfx906", 0x30: "gfx908", 0x3F: "gfx90a", 0x40: "gfx940", 0x4B: "gfx941", 0x4C: "gfx942",
    0x4F: "gfx950", 0x33: "gfx1010", 0x34: "gfx1011", 0x35: "gfx1012", 0x42: "gfx1013", 0x36: "gfx1030",
    0x37: "gfx1031", 0x38: "gfx1032", 0x39: "gfx1033", 0x3E: "gfx1034", 0x3D: "gfx1035", 0x45: "gfx1036",
    0x41: "gfx1100", 0x46: "gfx1101", 0x47: "gfx1102", 0x44: "gfx1103", 0x43: "gfx1150", 0x4A: "gfx1151",
    0x55: "gfx1152", 0x58: "gfx1153", 0x48: "gfx1200", 0x4E: "gfx1201", 0x2D: "gfx902", 0x2E: "gfx904",
    0x31: "gfx909", 0x32: "gfx90c", 0x51: "gfx9-generic", 0x52: "gfx10-1-generic", 0x53: "gfx10-3-generic",
    0x54: "gfx11-generic", 0x59: "gfx12-generic",
}  # fmt: skip

# (mask, match, class) of the first dword, tried in order, per generation
_SOP = [(0xFF800000, 0xBF800000, "sopp"), (0xFF800000, 0xBF000000, "sopc"), (0xFF800000, 0xBE800000, "sop1"),
        (0xF0000000, 0xB0000000, "sopk"), (0xC0000000, 0x80000000, "sop2")]  # fmt: skip
_VOP32 = [(0xFE000000, 0x7E000000, "vop1"), (0xFE000000, 0x7C000000, "vopc"), (0x80000000, 0x00000000, "vop2")]
_CLASSES = {
    "gfx9": _SOP
    + _VOP32
    + [
        (0xFC000000, 0xC0000000, "64"),  # SMEM
        (0xFC000000, 0xD0000000, "vop3"),  # VOP3, VOP3P
        (0xFC000000, 0xD4000000, "32"),  # VINTRP
        (0xFC000000, 0xD8000000, "64"),  # DS
        (0xFC000000, 0xDC000000, "64"),  # FLAT, GLOBAL, SCRATCH
        (0xFC000000, 0xE0000000, "64"),  # MUBUF
        (0xFC000000, 0xE8000000, "64"),  # MTBUF
        (0xFC000000, 0xF0000000, "64"),  # MIMG
        (0xFC000000, 0xC4000000, "64"),  # EXP
    ],
    "gfx10": _SOP
    + _VOP32
    + [
        (0xFC000000, 0xF4000000, "64"),  # SMEM
        (0xFF000000, 0xCC000000, "vop3"),  # VOP3P
        (0xFC000000, 0xD4000000, "vop3"),  # VOP3
        (0xFC000000, 0xC8000000, "32"),  # VINTRP
        (0xFC000000, 0xD8000000, "64"),  # DS
        (0xFC000000, 0xDC000000, "64"),  # FLAT, GLOBAL, SCRATCH
        (0xFC000000, 0xE0000000, "64"),  # MUBUF
        (0xFC000000, 0xE8000000, "64"),  # MTBUF
        (0xFC000000, 0xF0000000, "mimg"),  # MIMG
        (0xFC000000, 0xF8000000, "64"),  # EXP
    ],
    "gfx11": _SOP
    + _VOP32
    + [
        (0xFC000000, 0xF4000000, "64"),  # SMEM
        (0xFF000000, 0xCC000000, "vop3"),  # VOP3P
        (0xFF000000, 0xCD000000, "64"),  # VINTERP
        (0xFF000000, 0xCE000000, "32"),  # LDSDIR
        (0xFC000000, 0xD4000000, "vop3"),  # VOP3
        (0xFC000000, 0xC8000000, "vopd"),  # VOPD
        (0xFC000000, 0xD8000000, "64"),  # DS
        (0xFC000000, 0xDC000000, "64"),  # FLAT, GLOBAL, SCRATCH
        (0xFC000000, 0xE0000000, "64"),  # MUBUF
        (0xFC000000, 0xE8000000, "64"),  # MTBUF
        (0xFC000000, 0xF0000000, "mimg"),  # MIMG
        (0xFC000000, 0xF8000000, "64"),  # EXP
    ],
    "gfx12": _SOP
    + _VOP32
    + [
        (0xFC000000, 0xF4000000, "64"),  # SMEM
        (0xFF000000, 0xCC000000, "vop3"),  # VOP3P
        (0xFF000000, 0xCD000000, "64"),  # VINTERP
        (0xFF000000, 0xCE000000, "32"),  # VDSDIR
        (0xFC000000, 0xD4000000, "vop3"),  # VOP3
        (0xFC000000, 0xC8000000, "vopd"),  # VOPD
        (0xFC000000, 0xD8000000, "64"),  # VDS
        (0xFC000000, 0xEC000000, "96"),  # VFLAT, VGLOBAL, VSCRATCH
        (0xFC000000, 0xC4000000, "96"),  # VBUFFER
        (0xFC000000, 0xD0000000, "96"),  # VIMAGE
        (0xFC000000, 0xE4000000, "96"),  # VSAMPLE
        (0xFC000000, 0xF8000000, "64"),  # VEXPORT
    ],
}
# VOP2 opcodes whose encoding always carries a literal (v_madmk/madak_f32 and _f16 on gfx9 and gfx1010-1013,
# v_fmamk/fmaak_f32 and _f16), SOP2 ones (s_fmaak/fmamk_f32, gfx1150 and gfx12), and s_setreg_imm32_b32 (SOPK)
_VOP2_K = {"gfx9": {0x17, 0x18, 0x24, 0x25}, "gfx10": {0x20, 0x21, 0x2C, 0x2D, 0x37, 0x38}}
_VOP2_K["gfx11"] = _VOP2_K["gfx12"] = {0x2C, 0x2D, 0x37, 0x38}
_SOP2_K = {"gfx9": set(), "gfx10": set(), "gfx11": {0x45, 0x46}, "gfx12": {0x45, 0x46}}
_SETREG_IMM32 = {"gfx9": 0x14, "gfx10": 0x15, "gfx11": 0x13, "gfx12": 0x13}


def _class(word: int, generation: str) -> str | None:
    for mask, match, kind in _CLASSES[generation]:
        if word & mask == match:
            return kind
    return None


def instruction_length(data: bytes, offset: int, generation: str) -> int | None:
    """Bytes of the instruction at ``data[offset:]`` (4 to 20), or None for a dword of a class not known."""
    w = int.from_bytes(data[offset : offset + 4], "little")
    kind = _class(w, generation)
    late = generation != "gfx9"
    if kind == "sop2" and (w >> 23 & 0x7F) in _SOP2_K[generation]:
        return 8
    if kind in ("sop2", "sopc"):
        return 8 if (w & 0xFF) == 255 or (w >> 8 & 0xFF) == 255 else 4
    if kind == "sop1":
        return 8 if (w & 0xFF) == 255 else 4
    if kind == "sopk":
        return 8 if (w >> 23 & 0x1F) == _SETREG_IMM32[generation] else 4
    if kind in ("sopp", "32"):
        return 4
    if kind in ("vop1", "vop2", "vopc"):
        src0 = w & 0x1FF
        if src0 == 250 or src0 == 249 and generation in ("gfx9", "gfx10") or src0 in (233, 234) and late:
            return 8  # DPP16, SDWA (gfx9, gfx10), DPP8
        if src0 == 255 or kind == "vop2" and (w >> 25 & 0x3F) in _VOP2_K[generation]:
            return 8
        return 4
    if kind in ("64", "96"):
        return 8 if kind == "64" else 12
    if kind == "vop3":
        if not late:
            return 8
        w1 = int.from_bytes(data[offset + 4 : offset + 8], "little")
        srcs = (w1 & 0x1FF, w1 >> 9 & 0x1FF, w1 >> 18 & 0x1FF)
        if generation != "gfx10" and srcs[0] in (250, 233, 234):
            return 12  # VOP3 DPP
        return 12 if 255 in srcs else 8
    if kind == "vopd":
        w1 = int.from_bytes(data[offset + 4 : offset + 8], "little")
        opx, opy = w >> 22 & 0xF, w >> 17 & 0x1F
        literal = (w & 0x1FF) == 255 or (w1 & 0x1FF) == 255 or opx in (1, 2) or opy in (1, 2)
        return 12 if literal else 8
    if kind == "mimg":
        if generation == "gfx11":  # NSA (bit 0): one more dword of up to four address VGPRs
            return 12 if w & 1 else 8
        return 8 + 4 * (w >> 1 & 3)  # gfx10: NSA (bits 2:1) extra address dwords
    return None


@dataclass(frozen=True)
class Line:
    """One instruction of ``.text``: its address, the symbol that starts there (or None), its bytes, and its
    text if it is one of the dot instructions (else None)."""

    address: int
    symbol: str | None
    data: bytes
    text: str | None
    sized: bool = True  # False: a dword of an encoding class intdot cannot size, shown as ``.long``

    @property
    def words(self) -> str:
        """The dwords as llvm-objdump prints them: ``CC164005 3C140906``."""
        return " ".join(f"{int.from_bytes(self.data[i : i + 4], 'little'):08X}" for i in range(0, len(self.data), 4))


@dataclass(frozen=True)
class CodeObject:
    mcpu: str
    lines: tuple[Line, ...]

    @property
    def unsized(self) -> tuple[Line, ...]:
        """The dwords of an encoding class intdot cannot size (each a line of its own, shown as ``.long``)."""
        return tuple(ln for ln in self.lines if not ln.sized)

    def stats(self) -> dict[str, int]:
        """How many of each dot instruction (by mnemonic) and of the others (``(unsized)``: see :attr:`unsized`)."""
        counts = collections.Counter(
            ln.text.split()[0] if ln.text else "(other)" if ln.sized else "(unsized)" for ln in self.lines
        )
        return dict(sorted(counts.items()))

    def listing(self, *, only_dot: bool = False) -> str:
        """The instructions as ``llvm-objdump -d`` lays them out (symbols as ``<name>:``); an instruction that is
        not a dot shows only its words."""
        only_dot = check_flag(only_dot, "only_dot")
        out = []
        for k, ln in enumerate(self.lines):
            # llvm-objdump labels a section's start with its name where no symbol does.
            label = ln.symbol if ln.symbol is not None or k else ".text"
            if label is not None and not only_dot:
                out.append(f"\n{ln.address:016x} <{label}>:")
            if only_dot and ln.text is None:
                continue
            text = ln.text or ("" if ln.sized else f".long 0x{ln.words.lower()}")
            out.append(f"\t{text:<58} // {ln.address:012X}: {ln.words}")
        return "\n".join(out).lstrip("\n")


def _text_and_names(elf):
    """(the .text bytes, their address, function names by address), or None without a .text section."""
    text = elf.get_section_by_name(".text")
    if text is None:
        return None
    code, base = text.data(), text["sh_addr"]
    names: dict[int, str] = {}
    symtab = elf.get_section_by_name(".symtab")
    index = elf.get_section_index(".text")
    for sym in symtab.iter_symbols() if symtab is not None else ():
        if sym["st_shndx"] == index and sym["st_info"]["type"] in ("STT_FUNC", "STT_NOTYPE") and sym.name:
            if sym["st_info"]["type"] == "STT_FUNC" or sym["st_info"]["bind"] != "STB_LOCAL":
                names.setdefault(sym["st_value"], sym.name)
    return code, base, names


def read_object(data) -> CodeObject:
    """The processor and the ``.text`` instructions of an AMDGPU ELF code object (bytes or a path: a ``str`` or
    ``os.PathLike``)."""
    import io

    try:
        from elftools.common.exceptions import ELFError
        from elftools.elf.elffile import ELFFile
    except ImportError:  # pragma: no cover - the 'elf' extra
        raise OperandError("reading AMDGPU code objects needs pyelftools (pip install 'intdot[elf]')") from None
    if isinstance(data, (bytes, bytearray, memoryview)):
        pass
    elif isinstance(data, (str, os.PathLike)):
        try:
            with open(data, "rb") as fh:
                data = fh.read()
        except OSError as exc:
            raise OperandError(
                f"data={quote(os.fspath(data), limit=PATH_SHOWN)} cannot be read: {exc.strerror or exc}"
            ) from None
    else:  # an int would be taken by open() as a file descriptor, and closed
        raise OperandTypeError(
            f"data={describe(data)} is a {type(data).__name__}; expected the code object's bytes or a path to it"
        )
    try:
        elf = ELFFile(io.BytesIO(bytes(data)))
        machine = elf.header["e_machine"]
    except ELFError as exc:
        raise OperandError(f"data is not an ELF file: {exc}") from None
    if machine not in ("EM_AMDGPU", EM_AMDGPU):
        # pyelftools names the machine; the number is the header's own (bytes 18-19, in the file's byte order).
        number = int.from_bytes(bytes(data[18:20]), "little" if bytes(data[5:6]) == b"\x01" else "big")
        raise OperandError(
            f"data is an ELF file for {machine} (e_machine {number}), not an AMDGPU code object "
            f"(EM_AMDGPU: e_machine {EM_AMDGPU})"
        )
    mach = elf.header["e_flags"] & 0xFF
    mcpu = MACH.get(mach)
    if mcpu is None or mcpu not in LLVM_MC_KNOWS:
        raise UnknownTarget(f"the code object is for EF_AMDGPU_MACH {mach:#x}, a processor intdot cannot disassemble")
    try:
        found = _text_and_names(elf)
    except Exception as exc:  # noqa: BLE001 - pyelftools' ELFParseError, construct's and struct's errors alike
        raise OperandError(f"data is a damaged ELF file: its sections cannot be read ({exc})") from None
    if found is None:
        return CodeObject(mcpu, ())
    code, base, names = found
    g = GENERATION[mcpu]
    lines, at = [], 0
    while at + 4 <= len(code):
        insn = decode_one(code, at, mcpu)
        size = insn.size if insn is not None else instruction_length(code, at, g)
        if size is None or at + size > len(code):
            lines.append(Line(base + at, names.get(base + at), code[at : at + 4], None, sized=False))
            at += 4
            continue
        lines.append(Line(base + at, names.get(base + at), code[at : at + size], insn.text if insn else None))
        at += size
    return CodeObject(mcpu, tuple(lines))


__all__ = ["MACH", "CodeObject", "Line", "instruction_length", "read_object"]
