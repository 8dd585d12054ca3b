"""``intdot asm --isa amdgpu --mcpu gfxN TEXT...``: each line's text and bytes as llvm-mc -show-encoding prints them.

The input is read as llvm-mc reads a file: one instruction a line, ``;`` and ``//`` start a comment (so this
command's own output, ``text ; encoding: [...]``, reads back), ``/* ... */`` is a comment, and a line that starts
with ``#`` is one. A TEXT argument may hold several lines.
"""

from __future__ import annotations

from ..core.errors import IntdotError, OperandError
from .inputs import at_line, read_text, source_name


def mcpu_of(args) -> str:
    if not getattr(args, "mcpu", None):
        raise OperandError(
            "--isa amdgpu needs --mcpu PROCESSOR (gfx906, gfx942, gfx1100, gfx1201, ...): "
            "the encodings differ between generations"
        )
    return args.mcpu


def run(args) -> int:
    from ..amdgpu.asm import parse_lines

    mcpu = mcpu_of(args)
    texts = list(args.text)
    path = getattr(args, "file", None)
    if texts == ["-"]:  # as for Arm: '-' alone reads stdin
        texts, path = [], path or "-"
    insns = [insn for text in texts for _, insn in parse_lines(text, mcpu)]
    if path is not None:
        source = source_name(path)
        text = read_text(path, "--file")
        try:
            insns += [insn for _, insn in parse_lines(text, mcpu)]
        except IntdotError as exc:  # the library says 'line N'; the command line names the file too
            raise type(exc)(f"{source}, {exc}") if str(exc).startswith("line ") else at_line(exc, source, 1) from None
    if not insns:
        raise OperandError("no instruction given; pass TEXT, '-' for stdin, or -f FILE (only blank text or comments)")
    for insn in insns:
        data = insn.to_bytes()
        print(f"{insn.text:<40} ; encoding: [{','.join(f'0x{b:02x}' for b in data)}]")
    return 0
