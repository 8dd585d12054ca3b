"""``intdot asm --isa amdgpu --mcpu gfxN TEXT...``: each line's text and bytes as llvm-mc -show-encoding prints them."""

from __future__ import annotations

from ..core.errors import OperandError


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
    if getattr(args, "file", None):
        with open(args.file, encoding="utf-8-sig") as fh:
            texts += [
                ln for ln in fh.read().splitlines() if ln.strip() and not ln.lstrip().startswith(("//", "#", ";"))
            ]
    for text in texts:
        insn = parse(text, mcpu)
        data = insn.to_bytes()
        print(f"{insn.text:<40} ; encoding: [{','.join(f'0x{b:02x}' for b in data)}]")
    return 0
