"""The public conversions: text <-> word <-> :class:`~intdot.arm.records.Insn`
for every row of ``FORMS``, one instruction or a whole array of words.

>>> hex(assemble("sudot z0.s, z1.b, z2.b[3]"))
'0x44ba1c20'
>>> disassemble(0xC13F77FF)
'sudot za.s[w11, 7, vgx4], { z31.b, z0.b, z1.b, z2.b }, z15.b'
>>> decode(0x4F22F83F).ops["index"]
3
"""

from __future__ import annotations

import numbers

import numpy as np

from ..core.values import check_choice
from .bulk import disassemble_array
from .codec import check_word, decode, encode, match_form
from .syntax import format_insn, parse


def assemble(text: str) -> int:
    """The 32-bit word of one instruction written in LLVM's or the reference's syntax.

    >>> hex(assemble("sudot za.s[w8, 0], {z0.b-z3.b}, z0.b[0]"))
    '0xc1509038'
    >>> hex(assemble("SDOT ZA.D[W9, 5, VGX2], {Z2.H, Z3.H}, Z15.H[1]"))
    '0xc1df244d'
    """
    return encode(parse(text))


def disassemble(words, /, *, errors: str = "raise"):
    """LLVM's text for a word, or for each word of an array (bulk, vectorised).

    Parameters
    ----------
    words : int or array_like of int
        One 32-bit word (returns a ``str``) or any array of them (returns a
        NumPy object array of ``str`` of the same shape).  Words are in
        ``[0, 0xffffffff]``; an int32 array (or element of one) is read as bit
        patterns, so ``-1`` there is ``0xffffffff``.  Text is not a word:
        for ``"0x44ba1c20"`` pass ``int("0x44ba1c20", 16)``.
    errors : {"raise", "mark"}
        For arrays: ``"raise"`` raises :class:`UndefinedEncoding` naming the
        first unsupported word and its index; ``"mark"`` puts ``.inst 0x........``
        (which assemblers accept as raw data) in its place.  A single word
        always raises.

    >>> disassemble([0x4F22F83F, 0x44BA1C20]).tolist()
    ['sudot v31.4s, v1.16b, v2.4b[3]', 'sudot z0.s, z1.b, z2.b[3]']
    """
    check_choice(errors, "errors", ("raise", "mark"))
    if isinstance(words, (numbers.Integral, str)) and not isinstance(words, bool):
        return format_insn(decode(check_word(words, "words")), check=False)
    if isinstance(words, np.generic) or not isinstance(words, (list, tuple, range)) and not hasattr(words, "__array__"):
        check_word(words, "words")  # one value of the wrong type (1.0, True, None): say so as for a word
    return disassemble_array(words, errors=errors)


__all__ = ["assemble", "decode", "disassemble", "encode", "format_insn", "match_form", "parse"]
