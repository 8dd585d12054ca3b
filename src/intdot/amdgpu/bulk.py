"""Disassembling arrays of instructions at NumPy speed.

Each element of ``words`` is one instruction's first 64 bits as a little-endian uint64 (the first
dword in the low half: ``np.frombuffer(data, "<u8")`` for 8-byte instructions).  A VOP2 instruction
is the low dword; its literal, where it has one, is the high dword (the dword that follows it in
memory).  A VOP3P literal (the third dword) comes from ``literals``.  One pass classifies every
word through the decision tables; the text is put together by the ISA layer's
:class:`~intdot.isa.bulk.Printer` from per-row string tables of the printed pieces (registers, sources,
modifiers, DPP controls), built with the scalar printer's own helpers.  A word with a literal source is
printed by the scalar printer itself (its text depends on a value outside the fields).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from ..core.errors import OperandError, OperandTypeError, UndefinedEncoding
from ..core.values import as_word_array, check_choice
from ..isa.bulk import Printer
from ..isa.codec import Dispatch
from . import dpp
from . import operands as opnd
from .asm import _DEFAULT, _MODS, Insn, _available, _literal_ok, dispatches
from .encodings import SYNTAX, mnemonic_of, rows_for
from .targets import GENERATION, check_mcpu


@cache
def _decoders(mcpu: str) -> tuple[Dispatch, Dispatch]:
    rows = [r for r in rows_for(GENERATION[mcpu]) if _available(mnemonic_of(r), mcpu)]
    return dispatches(rows)


@cache
def _src_ok(generation: str) -> np.ndarray:
    """Which source field values name an operand (the literal's 255 included)."""
    return np.array([v == opnd.LITERAL or opnd.name(v, generation) is not None for v in range(512)])


@dataclass(frozen=True)
class _Piece:
    """One printed piece of a row: ``kind`` says how, ``ops`` the fields it reads, ``lead`` the text before it."""

    kind: str
    ops: tuple[str, ...]
    lead: str = ""


_PIECES: dict[str, tuple[_Piece, ...]] = {}


def _pieces(row) -> tuple[_Piece, ...]:
    """The printed pieces of a row, in order (built once per row)."""
    cached = _PIECES.get(row.name)
    if cached is None:
        cached = _PIECES[row.name] = _build_pieces(row)
    return cached


def _build_pieces(row) -> tuple[_Piece, ...]:
    fam = row.layout.family
    out = [
        _Piece("reg" if kind in ("vdst", "vsrc0", "vsrc1") else "src", (kind,), ", " if i else "")
        for i, kind in enumerate(SYNTAX[fam])
    ]
    if fam.startswith("dpp16"):
        out += [_Piece("dpp_ctrl", ("dpp_ctrl",)), _Piece("masks", ("row_mask", "bank_mask"))]
        out += [_Piece("flag", ("bound_ctrl",), " bound_ctrl:1")]
        out += [_Piece("flag", ("fi",), " fi:1")] if "fi" in row.layout.fields else []
    elif fam.startswith("dpp8"):
        out += [_Piece("sels", ("sels",))] + ([_Piece("text", (), " fi:1")] if row.name.endswith("fi") else [])
    if fam.startswith("vop3p"):
        out += [_Piece("mod", (m,)) for m in _MODS]
    if "clamp" in row.layout.fields:
        out.append(_Piece("flag", ("clamp",), " clamp"))
    return tuple(out)


def _name(row, generation: str) -> str:
    name = row.name.split(".")[1]
    if row.layout.family == "vop2" and generation != "gfx9":
        name = name.removesuffix("_e32")
    if row.layout.family.startswith("dpp8"):  # both DPP8 rows print as _dpp
        name = mnemonic_of(row) + "_dpp"
    return name + " "


def _piece_text(piece: _Piece, values: dict, generation: str, mcpu: str) -> str:
    kind = piece.kind
    if kind == "reg":
        return f"{piece.lead}v{values[piece.ops[0]]}"
    if kind == "src":  # a literal's text needs the literal: such words are printed by the scalar printer
        v = values[piece.ops[0]]
        return piece.lead + ("" if v == opnd.LITERAL else opnd.name(v, generation) or "")
    if kind == "flag":
        return piece.lead if values[piece.ops[0]] else ""
    if kind == "text":
        return piece.lead
    if kind == "mod":
        m = piece.ops[0]
        v = values[m]
        return f" {m}:[{','.join(str(v >> i & 1) for i in range(3))}]" if v != _DEFAULT[m] else ""
    if kind == "dpp_ctrl":
        return " " + dpp.ctrl_text(values["dpp_ctrl"], mcpu)
    if kind == "masks":
        return f" row_mask:{values['row_mask']:#x} bank_mask:{values['bank_mask']:#x}"
    if kind == "sels":
        return " " + dpp.dpp8_text(values["sels"])
    raise ValueError(f"no printed piece {kind!r}")


@cache
def _printers(mcpu: str) -> tuple[Printer, Printer]:
    g = GENERATION[mcpu]
    return tuple(
        Printer(
            d,
            lambda piece, values: _piece_text(piece, values, g, mcpu),
            lambda row: _name(row, g),
            operands=_pieces,
            sep="",
        )
        for d in _decoders(mcpu)
    )


def _as_words(words, name: str) -> np.ndarray:
    arr = np.asarray(words)
    if arr.dtype.kind not in "iu":
        if arr.size == 0:
            return arr.astype(np.uint64)
        raise OperandTypeError(f"{name} has dtype {arr.dtype}; expected an integer array of 64-bit words")
    if arr.dtype.kind == "i" and arr.dtype.itemsize == 8:
        return arr.view(np.uint64)
    if arr.dtype.kind == "i" and arr.size and arr.min() < 0:
        raise OperandError(f"{name} holds negative values; expected unsigned words (or an int64 array of bit patterns)")
    return arr.astype(np.uint64)


def disassemble_array(words, mcpu: str, /, *, literals=None, errors: str = "raise") -> np.ndarray:
    """Text of every instruction of an array of 64-bit words (object array of ``str``, same shape).

    ``literals``: uint32 array of the same shape, the dword after a VOP3P instruction (read only where a
    source is a literal).  ``errors="raise"`` raises :class:`~intdot.errors.UndefinedEncoding` for the
    first word that is none of these instructions on ``mcpu``; ``errors="mark"`` writes ``.quad 0x...``.

    >>> import numpy as np
    >>> words = np.frombuffer(bytes.fromhex("004016cc01050e3c" "00c017cc01050e1c"), "<u8")
    >>> disassemble_array(words, "gfx1100").tolist()
    ['v_dot4_i32_iu8 v0, v1, v2, v3 neg_lo:[1,0,0]', 'v_dot4_u32_u8 v0, v1, v2, v3 clamp']
    """
    check_choice(errors, "errors", ("raise", "mark"))
    mcpu = check_mcpu(mcpu, encodings=True)
    g = GENERATION[mcpu]
    arr = _as_words(words, "words")
    flat = arr.ravel()
    lits = None
    if literals is not None:
        lits = as_word_array(literals, "literals", 32).astype(np.uint64).ravel()  # dwords: 32 bits, either spelling
        if lits.shape != flat.shape:
            raise OperandError(f"literals has {lits.size} elements; expected one per word ({flat.size})")
    d32, d64 = _decoders(mcpu)
    low = flat & np.uint64(0xFFFFFFFF)
    i32 = d32.classify(low)
    src_ok = _src_ok(g)
    # a VOP2 word whose src0 names no operand (250, 233, 234) is the first half of a DPP form
    vop2_src0 = (low & np.uint64(0x1FF)).astype(np.intp)
    i32 = np.where((i32 >= 0) & ~src_ok[vop2_src0] & (vop2_src0 != opnd.LITERAL), -1, i32)
    i64 = np.where(i32 >= 0, -1, d64.classify(flat))
    out = np.empty(flat.shape, dtype=object)
    done = np.zeros(flat.shape, dtype=bool)
    for dec, idx, words, printer in ((d32, i32, low, _printers(mcpu)[0]), (d64, i64, flat, _printers(mcpu)[1])):
        literal_words = []  # (row, positions) of the words that read a literal
        for k, sel in dec.groups(idx):
            row = dec.rows[k]
            w = flat[sel]
            good = np.ones(sel.shape, dtype=bool)
            lit = np.zeros(sel.shape, dtype=bool)
            for kind in SYNTAX[row.layout.family]:
                if kind.startswith("src"):
                    v = row.layout.fields[kind].extract_array(w).astype(np.intp)
                    good &= src_ok[v]
                    lit |= v == opnd.LITERAL
            if lit.any() and not _literal_ok(row):
                good &= ~lit
            elif lit.any() and row.layout.word_bits == 64 and lits is None:
                raise OperandError(
                    f"{int(lit.sum())} VOP3P words read a literal; pass literals=... (the dword that follows each)"
                )
            idx[sel[~good]] = -1
            if (lit & good).any():
                literal_words.append((row, sel[lit & good]))
        text, _ = printer.texts(words, idx)
        chosen = idx >= 0
        out[chosen] = text[chosen]
        done |= chosen
        for row, where in literal_words:
            for i in where.tolist():
                word = int(words[i])
                literal = (int(flat[i]) >> 32) if row.layout.word_bits == 32 else int(lits[i])
                out[i] = Insn(row, row.layout.decode(word), literal, mcpu).text
    if not done.all():
        bad = np.flatnonzero(~done)
        if errors == "raise":
            first = int(bad[0])
            raise UndefinedEncoding(
                f"words[{first}]={int(flat[first]):#018x} is not an integer dot instruction on {mcpu} "
                f"({bad.size} of {flat.size} words are not); pass errors='mark' to get '.quad 0x...' for them"
            )
        out[bad] = [f".quad {int(x):#018x}" for x in flat[bad]]
    return out.reshape(arr.shape)


__all__ = ["disassemble_array"]
