"""``intdot disasm``: its command line.  What it runs for Arm input is :mod:`.arm_disasm`, imported only when
it runs, so that ``intdot disasm --help`` imports neither NumPy nor the readers of binaries and listings."""

from __future__ import annotations

import argparse

from ..core.errors import quote
from . import isa_option

_HELP = """\
Disassemble AArch64 words into LLVM's text for the dot-product instructions
intdot models; every other word is '.inst 0x...' (or left out with --only-dot).

Input (any mix):
  WORD ...          hex words (up to 8 digits, 0x optional), or llvm-mc byte
                    lists such as '[0x20,0x1c,0xba,0x44]' (little-endian)
  -f FILE           a text file ('-' for stdin) of hex words ('//' starts a
                    comment), llvm-mc output ('encoding: [...]' lines; fixup
                    bits such as 'A' read as 0), or an 'objdump -d' listing
                    with its encodings (addresses and symbols kept); an
                    AArch64 ELF file (object, shared library, executable) is
                    recognised by its header: every executable section is shown
                    with addresses and symbols, as objdump -d shows them; an
                    'ar' archive (libfoo.a) is read member by member, each
                    named 'libfoo.a(member.o)' as objdump names it
  -f FILE --raw     a raw binary: words from byte --offset, in --endian order
                    (every byte is read as code: an ELF file's headers too)

examples:
  intdot disasm 0x4f22f83f c13f77ff
  intdot disasm '[0x20,0x1c,0xba,0x44]'
  intdot disasm -f kernel.o --only-dot
  intdot disasm -f libkernels.so --stats
  intdot disasm -f libkernels.a --only-dot --demangle
  llvm-objdump -d kernel.o | intdot disasm -f - --only-dot
  intdot disasm -f firmware.bin --raw --offset 0x100 --json"""


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "disasm",
        help="disassemble AArch64 or AMD GPU words, listings, ELF binaries and archives",
        description=_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("words", nargs="*", metavar="WORD", help="hex word or llvm-mc byte list")
    p.set_defaults(late_positionals="words")
    p.add_argument("--file", "-f", metavar="FILE", help="read words, a listing or a binary from FILE ('-': stdin)")
    p.add_argument("--raw", action="store_true", help="FILE is a raw binary (not text, not ELF)")
    p.add_argument(
        "--offset", type=_offset, default=0, metavar="N", help="--raw: start at byte N (decimal or 0x hex; default 0)"
    )
    p.add_argument(
        "--endian",
        choices=("little", "big"),
        default="little",
        help="--raw: byte order of the words (default little, as AArch64 code is)",
    )
    p.add_argument(
        "--mark",
        action="store_true",
        help="word lists: print '.inst 0x...' for words that are not dot instructions instead of "
        "failing (listings and binaries always do)",
    )
    p.add_argument("--only-dot", action="store_true", help="show only the dot-product instructions")
    p.add_argument(
        "--stats",
        action="store_true",
        help="print how many dot instructions of each form each function holds, not the listing",
    )
    p.add_argument(
        "--fields",
        action="store_true",
        help="show a bit-field diagram of each dot word (with --json: form, feature, ops, fields)",
    )
    p.add_argument(
        "--demangle",
        "-C",
        action="store_true",
        help="show C++ symbol names demangled, as objdump -C does (runs llvm-cxxfilt, or c++filt)",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print JSON: a list, one object a line (word, text; for listings and binaries also section, "
        "address, symbol); with --stats one object",
    )
    isa_option.add(p, "disasm", "arm")
    p.set_defaults(func=_dispatch)


def _dispatch(args) -> int:
    # --stats prints counts instead of the listing: the diagrams --fields adds to the listing would be dropped.
    if args.stats and args.fields:
        isa_option.conflict("--stats", "prints counts per function instead of the listing", ["--fields"])
    if args.only_dot and args.mark:  # --mark shows the other words as .inst; --only-dot leaves them out
        isa_option.conflict("--only-dot", "leaves out every word that is not a dot instruction", ["--mark"])
    if args.demangle and getattr(args, "file", None) is None:
        raise isa_option.OptionConflict(
            "--demangle demangles the C++ symbols of a file or listing (-f FILE); words on the command line have "
            "none: leave --demangle out"
        )
    return isa_option.dispatch(args, "disasm", "arm", _run_arm)


def _run_arm(args) -> int:
    from . import arm_disasm

    return arm_disasm.run(args)


_MAX_OFFSET = 1 << 64  # no file is longer; an offset this long would print as thousands of digits


def _offset(text: str) -> int:
    body = text.strip().replace("_", "")
    if body.lstrip("+-").isdigit() and len(body.lstrip("+-").lstrip("0")) > 40:
        value = -_MAX_OFFSET if body.startswith("-") else _MAX_OFFSET  # Python reads at most 4300 decimal digits
    else:
        try:
            value = int(text, 0)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{quote(text)} is not a byte offset (decimal or 0x hex)") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{quote(text)} is negative; expected a byte offset >= 0")
    if value >= _MAX_OFFSET:
        raise argparse.ArgumentTypeError(f"{quote(text)} is past the end of any file; expected a byte offset < 2**64")
    return value
