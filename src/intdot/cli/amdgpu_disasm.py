"""``intdot disasm --isa amdgpu --mcpu gfxN BYTES...`` (llvm-mc's ``0x..,0x..`` byte lists, or dwords),
``-f FILE`` (a text file of them, or an AMDGPU code object: the processor from its ELF header) and
``-f FILE --raw`` (a raw binary: its bytes from ``--offset`` on, as in memory)."""

from __future__ import annotations

import re
import sys

from ..core.errors import OperandError, UndefinedEncoding, quote
from .inputs import read_bytes, source_name

MAGIC = b"\x7fELF"


_TOKEN = re.compile(r"0x[0-9a-f]+|[0-9a-f]{8}", re.I)


def _arguments(words: list[str]) -> list[str]:
    """The byte and word tokens of WORD arguments; anything else in them is an error naming it (a text file
    is searched for its tokens instead, as it holds llvm-mc's instruction text around them)."""
    tokens = []
    for word in words:
        for tok in re.split(r"[\s,\[\]]+", word):
            if tok and not _TOKEN.fullmatch(tok):
                raise OperandError(
                    f"WORD {quote(tok)} is neither a byte (0x00-0xff) nor a 32-bit word (0x and up to 8 hex "
                    "digits, or 8 digits); --isa amdgpu reads llvm-mc's byte lists and dwords"
                )
            tokens += [tok] if tok else []
    return tokens


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
            raise OperandError(f"{quote(tok)} is neither a byte (0x00-0xff) nor a 32-bit word")
    return bytes(out)


def _text_bytes(data: bytes, name: str) -> bytes:
    """The bytes a text file spells (byte lists or dwords; of llvm-mc's -show-encoding output, its encoding lists
    alone); a file that is not text asks for --raw."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise OperandError(
            f"--file {quote(name)} is not text (byte lists or dwords) and not an ELF code object; for a raw "
            "binary add --raw"
        ) from None
    # llvm-mc -show-encoding output: the bytes are its encoding lists, and the assembly beside them holds hex
    # operands (literals, row_mask:0xf) that are not code.
    lists = re.findall(r"encoding:\s*\[([^\]]*)\]", text)
    found = _bytes(lists if lists else text.split())
    if not found:
        raise OperandError(
            f"--file {quote(name)} holds no byte list ('0x00,0x40,...') or 32-bit words; for a raw binary add --raw"
        )
    return found


def _code_object(args, data: bytes) -> int:
    """An AMDGPU code object, listed as llvm-objdump-19 -d lays it out (the processor is the header's)."""
    from ..amdgpu import read_object
    from ..amdgpu.targets import check_mcpu

    try:
        obj = read_object(data)
    except OperandError as exc:  # the library says 'data'; the command line has the file's name
        raise OperandError(f"--file {quote(source_name(args.file))} {str(exc).removeprefix('data ')}") from None
    if getattr(args, "mcpu", None) and check_mcpu(args.mcpu) != obj.mcpu:
        raise OperandError(
            f"--mcpu {args.mcpu}, but {args.file} is a code object for {obj.mcpu} (its ELF header says so); "
            "leave --mcpu out, or add --raw to read its bytes as code for another processor"
        )
    if args.stats:
        # As Arm's --stats: a summary line, then a table with its header; the dot mnemonics first.
        counts = obj.stats()
        shown = {"(other)": "(not a dot)", "(unsized)": "(unsized: shown as .long)"}
        rows = sorted(counts.items(), key=lambda kv: (kv[0].startswith("("), kv[0]))
        rows = [(shown.get(name, name), n) for name, n in rows]
        dots = sum(n for name, n in rows if not name.startswith("("))
        print(f"{dots} dot instruction(s) in {sum(counts.values())} instruction(s) ({obj.mcpu})")
        width = max([len("instruction")] + [len(name) for name, _ in rows])
        print(f"{'instruction':{width}s}  count")
        for name, n in rows:
            print(f"{name:{width}s}  {n:5d}")
        return 0
    print(f"\n{args.file}:\tfile format elf64-amdgpu\n")
    print("Disassembly of section .text:\n")
    print(obj.listing(only_dot=args.only_dot))
    if obj.unsized:
        print(
            f"intdot disasm: note: {len(obj.unsized)} dword(s) of an encoding class intdot cannot size on "
            f"{obj.mcpu} are shown as .long (the first at {obj.unsized[0].address:#x}); the walk went on "
            "with the next dword, as llvm-objdump does with a word it cannot decode",
            file=sys.stderr,
        )
    return 0


def _raw(args, data: bytes) -> bytes:
    name = source_name(args.file)
    if args.offset > len(data):
        raise OperandError(f"--offset {args.offset} is past the end of {name} ({len(data)} bytes)")
    data = data[args.offset :]
    left = len(data) % 4
    if left:
        print(f"intdot disasm: note: the last {left} byte(s) of {name} do not fill a dword; not shown", file=sys.stderr)
    return data[: len(data) - left]


def run(args) -> int:
    from ..amdgpu import disassemble
    from .amdgpu_asm import mcpu_of

    if (args.raw or args.offset) and args.file is None:
        raise OperandError("--raw and --offset describe a binary file; give it with -f FILE")
    if args.offset and not args.raw:
        raise OperandError("--offset applies to raw binaries; add --raw")
    data = _bytes(_arguments(list(args.words)))
    if args.file is not None:
        content = read_bytes(args.file, "--file")
        if content.startswith(MAGIC) and not args.raw:
            if args.words:
                raise OperandError("an AMDGPU code object (-f) is listed alone; give WORDs in another call")
            return _code_object(args, content)
        data += _raw(args, content) if args.raw else _text_bytes(content, source_name(args.file))
    if args.stats:
        raise OperandError("--stats counts the instructions of a code object's functions: give one with -f FILE")
    if not data:
        raise OperandError(
            "no bytes given: pass llvm-mc's byte list ('0x00,0x40,0xa8,0xd3,...') or 32-bit words, -f FILE "
            "(such text, or a code object), or -f FILE --raw (a raw binary)"
        )
    mcpu = mcpu_of(args)
    if len(data) % 4:  # the library's message says 'data', which the command line does not have
        raise OperandError(
            f"the input holds {len(data)} bytes; AMD GPU instructions are whole dwords (a multiple of 4)"
        )
    try:
        text = disassemble(data, mcpu, errors="mark" if args.mark or args.only_dot else "raise")
    except UndefinedEncoding as exc:  # the library names its keyword (errors='mark'); the command line has --mark
        where = str(exc).split("; pass errors=")[0]
        if args.raw and args.offset:
            where += f" (bytes counted from --offset {args.offset})"
        raise UndefinedEncoding(f"{where}; pass --mark to print '.long 0x...' for them") from None
    lines = text.splitlines()
    if args.only_dot:
        lines = [ln for ln in lines if not ln.startswith(".long ")]
    if lines:
        print("\n".join(lines))
    return 0
