"""How the tests (and bench/x86.py) call one of intdot's x86 intrinsics by name, whatever its argument order."""

from __future__ import annotations

from intdot.x86 import intrinsics as X


def intrinsic(name: str, src, a, b, k=None):
    """``name`` on registers src, a, b (and mask k for the masked forms), in the C intrinsic's argument order:
    ``pmaddubsw``/``pmaddwd`` take no accumulator; ``_mask_`` forms take (src, k, a, b), ``_maskz_`` (k, src, a, b)."""
    row, f = X.INTRINSICS[name], getattr(X, name)
    if row.mnemonic.startswith("pmadd"):
        return f(a, b)
    if row.mask == "merge":
        return f(src, k, a, b)
    if row.mask == "zero":
        return f(k, src, a, b)
    return f(src, a, b)
