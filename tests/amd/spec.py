"""The builtins' parameters for the slow reference, read off the reference document
(shared/spec/amd-dot-builtins.txt), independently of intdot's own table.

``ref(name, ...)`` calls ``tests.reference.ref_dot`` with them:

- udot4: four unsigned bytes,           "unsigned int" result
- udot8: eight unsigned nibbles,        "unsigned int" result
- sdot4: four signed bytes,             "int" result
- sdot8: eight signed nibbles,          "int" result
- sdot2: two signed 16-bit (short2),    "int" result
- udot2: two unsigned 16-bit (ushort2), "unsigned int" result
- sudot4 / sudot8: bytes / nibbles, each operand signed when its flag
  (src0_neg, src1_neg) is true, "int" result
"""

from __future__ import annotations

from tests.reference import ref_dot

# name: (lane width, src0 signed, src1 signed, result signed); None = chosen by the flag
SPEC = {
    "udot4": (8, False, False, False),
    "udot8": (4, False, False, False),
    "sdot4": (8, True, True, True),
    "sdot8": (4, True, True, True),
    "sdot2": (16, True, True, True),
    "udot2": (16, False, False, False),
    "sudot4": (8, None, None, True),
    "sudot8": (4, None, None, True),
}
NAMES = tuple(SPEC)
PLAIN = ("udot4", "udot8", "sdot4", "sdot8", "sdot2", "udot2")
SUDOT = ("sudot4", "sudot8")


def params(name, src0_neg=None, src1_neg=None) -> dict:
    width, a, b, r = SPEC[name]
    if a is None:
        a, b = src0_neg, src1_neg
    return dict(width=width, a_signed=a, b_signed=b, result_signed=r)


def ref(name, src0, src1, src2, *, neg=False, clamp=False, src0_neg=None, src1_neg=None) -> int:
    """The reference result of one builtin call (operands as 32-bit words)."""
    return ref_dot(src0, src1, src2, neg=neg, clamp=clamp, **params(name, src0_neg, src1_neg))


def call(fn, name, src0, src1, src2, *, neg=False, clamp=False, src0_neg=None, src1_neg=None):
    """Call intdot's reference-profile function for ``name`` with the same arguments."""
    if name in SUDOT:
        return fn(src0_neg, src0, src1_neg, src1, src2, neg, clamp=clamp)
    return fn(src0, src1, src2, neg, clamp=clamp)
