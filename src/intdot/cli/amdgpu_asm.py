"""``intdot asm --isa amdgpu --mcpu gfxN TEXT...``: each line's text and bytes as llvm-mc -show-encoding prints them."""

from __future__ import annotations

from ..core.errors import OperandError
from .inputs import read_text


def mcpu_of(args) -> str:
    if not getattr(args, "mcpu", None):
        raise OperandError(
            "--isa amdgpu needs --mcpu PROCESSOR (gfx906, gfx942, gfx1100, gfx1201, ...): "
            "the encodings differ between generations"
        )
    return args.mcpu


def run(args) -> int:
    from ..amdgpu import parse

    mcpu = mcpu_of(args)
    texts = list(args.text)
    path = getattr(args, "file", None)
    if texts == ["-"]:  # as for Arm: '-' alone reads stdin
        texts, path = [], path or "-"
    if path is not None:
        texts += [
            ln
            for ln in read_text(path, "--file").splitlines()
            if ln.strip() and not ln.lstrip().startswith(("//", "#", ";"))
        ]
    if not texts:
        raise OperandError("no instruction given; pass TEXT, '-' for stdin, or -f FILE")
    for text in texts:
        insn = parse(text, mcpu)
        data = insn.to_bytes()
        print(f"{insn.text:<40} ; encoding: [{','.join(f'0x{b:02x}' for b in data)}]")
    return 0
