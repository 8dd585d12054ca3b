"""``intdot asm`` and ``intdot disasm``: the Arm assembler and disassembler on the command line."""

from __future__ import annotations

import argparse
import json
import re

from ..core.errors import IntdotError, OperandError
from . import isa_option
from .fields import field_record, field_text
from .inputs import at_line, pieces, read_text, source_name

_ASM_HELP = """\
Assemble AArch64 instructions (LLVM's or the reference's spelling) and print
each word with LLVM's canonical text.  Quote each instruction, or separate
instructions with ';' or newlines; an unquoted instruction split by the shell
is joined back (a new instruction starts at each mnemonic).  TEXT '-' (or
-f -) reads instructions from stdin, -f FILE from a file, one a line; an error
there names the line and column.  '//' starts a comment that runs to the end
of its line; in a file, a line that starts with '#' is a comment too.

example:  intdot asm 'sudot za.s[w8, 0], {z0.b-z3.b}, z0.b[0]' --fields"""


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "asm",
        help="assemble AArch64 (or, --isa amdgpu, AMD GPU) dot instructions to words",
        description=_ASM_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("text", nargs="*", metavar="TEXT", help="instruction text ('-' alone: read stdin)")
    p.set_defaults(late_positionals="text")
    p.add_argument("-f", "--file", metavar="FILE", help="instructions from FILE, one a line ('-' for stdin)")
    p.add_argument("--fields", action="store_true", help="show a bit-field diagram of each word")
    p.add_argument("--json", action="store_true", help="print JSON (a list of objects)")
    isa_option.add(p, "asm", "arm")
    p.set_defaults(func=lambda args: isa_option.dispatch(args, "asm", "arm", run_asm))


def split_instructions(args: list[str]) -> list[str]:
    """Instruction lines from command-line arguments (see ``intdot asm --help``)."""
    from ..arm.forms import MNEMONICS

    lines: list[str] = []
    for arg in args:
        # A '//' comment runs to the end of its line, ';' inside it included.
        arg = "\n".join(line.split("//")[0] for line in arg.split("\n"))
        for k, piece in enumerate(re.split(r"[;\n]", arg)):
            if not piece.strip():
                continue
            first = piece.split(None, 1)[0].lower()
            starts = (
                k > 0
                or not lines
                or first in MNEMONICS
                or re.fullmatch(r"[a-z][a-z0-9]*", first)
                and not re.match(r"[vzw]\d|za|\{", first)
            )
            if starts:
                lines.append(piece.strip())
            else:
                lines[-1] += " " + piece.strip()
    return lines


def run_asm(args) -> int:
    from ..arm.asm import encode, parse

    insns = []
    texts = list(args.text)
    path = args.file
    if texts == ["-"]:  # only alone: '-' is also the range dash of a list the shell split up
        texts, path = [], path or "-"
    elif not texts and path is None:
        raise OperandError("no instruction given; pass TEXT, '-' for stdin, or -f FILE")
    for line in split_instructions(texts):
        insn = parse(line)
        insns.append((encode(insn), insn, line))
    if path is not None:
        # One instruction a line (or several split by ';'), so that an error names its line and column.
        source = source_name(path)
        for n, line in enumerate(read_text(path, "--file").splitlines(), 1):
            for offset, piece in pieces(line):
                try:
                    insn = parse(piece)
                    insns.append((encode(insn), insn, piece))
                except IntdotError as exc:
                    raise at_line(exc, source, n, text=line, offset=offset) from None
    if not insns:
        raise OperandError("no instruction given (only blank text or comments)")
    if args.json:
        records = [
            {"input": line, "word": f"{word:#010x}", "text": insn.text, **field_record(word, insn)}
            for word, insn, line in insns
        ]
        # As intdot disasm --json writes it: a list, one object a line.
        print("[\n" + ",\n".join(" " + json.dumps(r) for r in records) + "\n]")
        return 0
    for word, insn, _ in insns:
        print(f"{word:#010x}  {insn.text}")
        if args.fields:
            print(field_text(word, insn), end="")
    return 0
