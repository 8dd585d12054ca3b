"""Words <-> :class:`~intdot.arm.records.Insn`: the encoder, and a decoder that
dispatches on fixed bits through the ISA layer's decision table
(:class:`intdot.isa.codec.Dispatch`, built from ``FORMS`` on first use).

>>> decode(0x4F22F83F).form.name
'sudot_neon_elem_128'
>>> hex(encode(decode(0xC1D08018)))
'0xc1d08018'
"""

from __future__ import annotations

import numbers

from ..core.errors import OperandError, OperandTypeError, UndefinedEncoding, quote
from ..core.values import describe
from ..isa.codec import Dispatch, corners
from .forms import FORMS
from .records import Insn, checked_ops

_DISPATCH: Dispatch | None = None


def dispatch() -> Dispatch:
    """The decision table of ``FORMS`` (built on first use: importing the package stays cheap)."""
    global _DISPATCH
    if _DISPATCH is None:
        table = Dispatch(FORMS)
        table.self_check(corners)
        _DISPATCH = table
    return _DISPATCH


_SUPPORTED = f"intdot decodes the {len(FORMS)} sdot/udot/usdot/sudot forms of intdot.arm.FORMS"


def check_word(word, name: str = "word") -> int:
    """One 32-bit instruction word as an int, or a typed error that says how to pass one."""
    if isinstance(word, str):
        raise OperandTypeError(
            f"{name}={quote(word)} is a str; expected an int in [0, 0xffffffff]: pass int({quote(word)}, 16) "
            "for hex text, or use the command line: intdot disasm " + quote(word.strip(), marks=False)
        )
    if isinstance(word, bool) or not isinstance(word, numbers.Integral):
        raise OperandTypeError(
            f"{name}={describe(word)} has type {type(word).__name__}; expected an int in [0, 0xffffffff]"
        )
    w = int(word)
    if w < 0 and getattr(word, "dtype", None) is not None and word.dtype.kind == "i" and word.dtype.itemsize == 4:
        w &= 0xFFFFFFFF  # an element of an int32 array of words: its bit pattern, as the bulk path reads it
    if not 0 <= w <= 0xFFFFFFFF:
        shown = f"{w:#x}" if w.bit_length() <= 128 else describe(w)  # hex, unless too long to read
        raise OperandError(f"{name}={shown} is out of range; expected an instruction word in [0, 0xffffffff]")
    return w


def match_form(word: int):
    """The row whose fixed bits ``word`` has, or None."""
    return dispatch().row_of(word)


def decode(word) -> Insn:
    """The instruction encoded by a 32-bit word.

    Raises
    ------
    UndefinedEncoding
        If the word is not one of the supported encodings.
    OperandTypeError
        If ``word`` is not an int (a hex string included: pass ``int(s, 16)``).

    >>> insn = decode(0xC1501038)
    >>> insn.form.name, dict(insn.ops)
    ('sudot_sme2_indexed_vgx2', {'wv': 8, 'off': 0, 'zn': 0, 'zm': 0, 'index': 0})
    """
    w = check_word(word)
    form = dispatch().row_of(w)
    if form is None:
        raise UndefinedEncoding(f"{w:#010x} is not a supported encoding ({_SUPPORTED})")
    return Insn(form, form.layout.decode(w))


def encode(insn: Insn) -> int:
    """The 32-bit word of an instruction (operands checked by :func:`~intdot.arm.records.checked_ops`).

    >>> from intdot.arm.forms import form_named
    >>> hex(encode(Insn(form_named("sdot_sve_vec_d"), {"zda": 0, "zn": 1, "zm": 31})))
    '0x44df0020'
    """
    ops = checked_ops(insn)  # first: it says what is wrong with something that is not an Insn
    return insn.form.layout.encode(ops)


__all__ = ["check_word", "decode", "dispatch", "encode", "match_form"]
