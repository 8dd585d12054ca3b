"""``intdot disasm --isa amdgpu --mcpu gfxN BYTES...`` (llvm-mc's ``0x..,0x..`` byte lists, or dwords) and
``intdot disasm --isa amdgpu -f kernel.o`` (an AMDGPU code object: the processor from its ELF header)."""

from __future__ import annotations

import re

from ..core.errors import OperandError


def _bytes(tokens: list[str]) -> bytes:
    """Byte lists as llvm-mc reads them (``[0x00,0x40,...]``), or 32-bit words (``0xd3a84000``), little-endian."""
    out = bytearray()
    for tok in re.findall(r"0x[0-9a-fA-F]+|[0-9a-fA-F]{8}", " ".join(tokens)):
        digits = tok[2:] if tok.lower().startswith("0x") else tok
        value = int(digits, 16)
        if len(digits) <= 2:
            out.append(value)
        elif len(digits) <= 8:
            out += value.to_bytes(4, "little")
        else:
            raise OperandError(f"{tok!r} is neither a byte (0x00-0xff) nor a 32-bit word")
    return bytes(out)


def run(args) -> int:
    from ..amdgpu import disassemble, read_object

    errors = "mark" if getattr(args, "mark", False) else "raise"
    if getattr(args, "file", None):
        with open(args.file, "rb") as fh:
            data = fh.read()
        if data[:4] == b"\x7fELF":
            obj = read_object(data)
            if getattr(args, "stats", False):
                for name, n in obj.stats().items():
                    print(f"{n:8d}  {name}")
                return 0
            # As llvm-objdump-19 -d --mcpu=gfxN lays it out (the processor is the header's: obj.mcpu).
            print(f"\n{args.file}:\tfile format elf64-amdgpu\n")
            print("Disassembly of section .text:\n")
            print(obj.listing(only_dot=getattr(args, "only_dot", False)))
            if obj.unsized:
                import sys

                print(
                    f"intdot disasm: note: {len(obj.unsized)} dword(s) of an encoding class intdot cannot size on "
                    f"{obj.mcpu} are shown as .long (the first at {obj.unsized[0].address:#x}); the walk went on "
                    "with the next dword, as llvm-objdump does with a word it cannot decode",
                    file=sys.stderr,
                )
            return 0
        tokens = data.decode("utf-8", "replace").split()
    else:
        tokens = list(args.words)
    from .amdgpu_asm import mcpu_of

    data = _bytes(tokens)
    if not data:
        raise OperandError("no bytes given: pass llvm-mc's byte list ('0x00,0x40,0xa8,0xd3,...') or 32-bit words")
    print(disassemble(data, mcpu_of(args), errors=errors))
    return 0
