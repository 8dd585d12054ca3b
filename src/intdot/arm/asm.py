"""Text <-> word <-> :class:`~intdot.arm.insn.Insn` for the rows of ``FORMS``.

>>> hex(assemble("sudot z0.s, z1.b, z2.b[3]"))
'0x44ba1c20'
>>> disassemble(0xC13F77FF)
'sudot za.s[w11, 7, vgx4], { z31.b, z0.b, z1.b, z2.b }, z15.b'
>>> decode(0x4F22F83F).ops["index"]
3
"""

from __future__ import annotations

import numbers

from ..core.errors import OperandError, OperandTypeError, UndefinedEncoding
from .forms import FORMS, Operand, checked_ops
from .insn import Form, Insn
from .syntax import parse

_ROWS = tuple((f.layout.mask, f.layout.match, f) for f in FORMS)
_SUPPORTED = "intdot decodes: " + ", ".join(f.name for f in FORMS)


def _word(word, name: str = "word") -> int:
    if isinstance(word, bool) or not isinstance(word, numbers.Integral):
        raise OperandTypeError(f"{name}={word!r} has type {type(word).__name__}; expected an int in [0, 0xffffffff]")
    w = int(word)
    if not 0 <= w <= 0xFFFFFFFF:
        raise OperandError(f"{name}={w:#x} is out of range; expected an instruction word in [0, 0xffffffff]")
    return w


def match_form(word: int) -> Form | None:
    """The row whose fixed bits ``word`` has, or None."""
    for mask, match, form in _ROWS:
        if word & mask == match:
            return form
    return None


def decode(word) -> Insn:
    """The instruction encoded by a 32-bit word.

    Raises
    ------
    UndefinedEncoding
        If the word is not one of the supported encodings.

    >>> insn = decode(0xC1501038)
    >>> insn.form.name, dict(insn.ops)
    ('sudot_sme2_indexed_vgx2', {'wv': 8, 'off': 0, 'zn': 0, 'zm': 0, 'index': 0})
    """
    w = _word(word)
    form = match_form(w)
    if form is None:
        raise UndefinedEncoding(f"{w:#010x} is not a supported encoding ({_SUPPORTED})")
    lay = form.layout
    ops = {}
    for t in lay.operands:
        for op in t.ops:
            ops[op] = lay.fields[op].extract(w)
    ops.update(lay.consts)
    return Insn(form, ops)


def encode(insn: Insn) -> int:
    """The 32-bit word of an instruction.

    >>> hex(encode(parse("sudot v0.2s, v1.8b, v2.4b[3]")))
    '0xf22f820'
    """
    ops = checked_ops(insn)
    word = insn.form.layout.match
    for op, fld in insn.form.layout.fields.items():
        word |= fld.insert(ops[op])
    return word


def _zlist(first: int, n: int, suffix: str) -> str:
    regs = [(first + k) % 32 for k in range(n)]
    if n > 2 and regs[-1] > regs[0]:
        return f"{{ z{regs[0]}.{suffix} - z{regs[-1]}.{suffix} }}"
    return "{ " + ", ".join(f"z{r}.{suffix}" for r in regs) + " }"


def format_operand(t: Operand, ops) -> str:
    """One operand of the template, as LLVM prints it."""
    if t.kind == "vreg":
        s = f"{t.prefix}{ops[t.ops[0]]}.{t.suffix}"
        return f"{s}[{ops[t.ops[1]]}]" if t.indexed else s
    if t.kind == "za":
        return f"za.{t.suffix}[w{ops[t.ops[0]]}, {ops[t.ops[1]]}, vgx{t.n}]"
    return _zlist(ops[t.ops[0]], t.n, t.suffix)


def format_insn(insn: Insn, *, check: bool = True) -> str:
    """LLVM's canonical text of an instruction (its operands checked through
    :func:`encode` unless ``check=False``, for instructions :func:`decode` made)."""
    if check:
        encode(insn)
    return insn.form.mnemonic + " " + ", ".join(format_operand(t, insn.ops) for t in insn.form.layout.operands)


def assemble(text: str) -> int:
    """The 32-bit word of one instruction written in LLVM's or the reference's syntax.

    >>> hex(assemble("sudot za.s[w8, 0], {z0.b-z3.b}, z0.b[0]"))
    '0xc1509038'
    """
    return encode(parse(text))


def disassemble(words, /, *, errors: str = "raise"):
    """LLVM's text for a word, or for each word of an array (bulk, vectorised).

    Parameters
    ----------
    words : int or array_like of int
        One 32-bit word (returns a ``str``) or any array of them (returns a
        NumPy object array of ``str`` of the same shape).
    errors : {"raise", "mark"}
        For arrays: ``"raise"`` raises :class:`UndefinedEncoding` naming the
        first unsupported word and its index; ``"mark"`` puts ``.inst 0x........``
        (which assemblers accept as raw data) in its place.  A single word
        always raises.

    >>> disassemble([0x4F22F83F, 0x44BA1C20]).tolist()
    ['sudot v31.4s, v1.16b, v2.4b[3]', 'sudot z0.s, z1.b, z2.b[3]']
    """
    if errors not in ("raise", "mark"):
        raise OperandError(f"errors={errors!r}; expected 'raise' or 'mark'")
    if isinstance(words, numbers.Integral) and not isinstance(words, bool):
        return format_insn(decode(words), check=False)
    from .bulk import disassemble_array

    return disassemble_array(words, errors=errors)


def _self_check() -> None:
    """Each row, with every field at its lowest and at its highest value, survives
    encode -> decode and print -> parse (the table's own consistency, at import)."""
    from .forms import FormTableError

    for form in FORMS:
        lay = form.layout
        for pick in (0, -1):
            insn = Insn(form, {**{op: f.values[pick] for op, f in lay.fields.items()}, **lay.consts})
            word = encode(insn)
            if decode(word) != insn or parse(format_insn(insn)) != insn:
                raise FormTableError(f"{form.name}: {format_insn(insn)!r} ({word:#010x}) does not round-trip")


_self_check()

__all__ = ["assemble", "decode", "disassemble", "encode", "format_insn", "match_form", "parse"]
