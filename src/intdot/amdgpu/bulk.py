"""Disassembling arrays of instructions at NumPy speed.

Each element of ``words`` is one instruction's first 64 bits as a little-endian uint64 (the first
dword in the low half: ``np.frombuffer(data, "<u8")`` for 8-byte instructions).  A VOP2 instruction
is the low dword; its literal, where it has one, is the high dword (the dword that follows it in
memory).  A VOP3P literal (the third dword) comes from ``literals``.  One pass classifies every
word through the decision tables; the text is put together per row from string tables built with the
scalar printer's own pieces, so bulk and scalar text cannot differ.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from ..core.errors import OperandError, OperandTypeError, UndefinedEncoding
from ..isa.codec import Dispatch
from . import dpp
from . import operands as opnd
from .asm import _DEFAULT, _MODS, _available, _literal_ok, dispatches
from .encodings import SYNTAX, mnemonic_of, rows_for
from .targets import GENERATION, check_mcpu


@cache
def _decoders(mcpu: str) -> tuple[Dispatch, Dispatch]:
    rows = [r for r in rows_for(GENERATION[mcpu]) if _available(mnemonic_of(r), mcpu)]
    return dispatches(rows)


@cache
def _src_table(generation: str) -> tuple[np.ndarray, np.ndarray]:
    names = [opnd.name(v, generation) if v != opnd.LITERAL else "" for v in range(512)]
    table = np.empty(512, dtype=object)
    table[:] = [n or "" for n in names]
    ok = np.array([n is not None for n in names])
    return table, ok


@cache
def _vgpr_table() -> np.ndarray:
    t = np.empty(256, dtype=object)
    t[:] = [f"v{n}" for n in range(256)]
    return t


@cache
def _mods_table() -> np.ndarray:
    """Text of the VOP3P modifiers for key op_sel | op_sel_hi << 3 | neg_lo << 6 | neg_hi << 9 | clamp << 12."""
    out = np.empty(1 << 13, dtype=object)
    for key in range(1 << 13):
        values = {m: (key >> (3 * i)) & 7 for i, m in enumerate(_MODS)}
        text = "".join(
            f" {m}:[{','.join(str(v >> i & 1) for i in range(3))}]" for m, v in values.items() if v != _DEFAULT[m]
        )
        out[key] = text + (" clamp" if key >> 12 else "")
    return out


@cache
def _ctrl_table(mcpu: str) -> np.ndarray:
    out = np.empty(512, dtype=object)
    out[:] = [" " + dpp.ctrl_text(c, mcpu) for c in range(512)]
    return out


@cache
def _masks_table() -> np.ndarray:
    out = np.empty(256, dtype=object)
    out[:] = [f" row_mask:{k >> 4:#x} bank_mask:{k & 15:#x}" for k in range(256)]
    return out


def _literal_text(bits: int, generation: str) -> str:
    inline = opnd.inline_of(bits)  # llvm-mc prints such a literal as the inline constant
    return f"{bits:#x}" if inline is None else opnd.name(inline, generation)


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
    if errors not in ("raise", "mark"):
        raise OperandError(f"errors={errors!r}; expected 'raise' or 'mark'")
    mcpu = check_mcpu(mcpu, encodings=True)
    g = GENERATION[mcpu]
    arr = _as_words(words, "words")
    flat = arr.ravel()
    lits = None
    if literals is not None:
        lits = _as_words(literals, "literals").ravel()
        if lits.shape != flat.shape:
            raise OperandError(f"literals has {lits.size} elements; expected one per word ({flat.size})")
    d32, d64 = _decoders(mcpu)
    low = flat & np.uint64(0xFFFFFFFF)
    i32 = d32.classify(low)
    src_names, src_ok = _src_table(g)
    # a VOP2 word whose src0 names no operand (250, 233, 234) is the first half of a DPP form
    vop2_src0 = (low & np.uint64(0x1FF)).astype(np.intp)
    i32 = np.where((i32 >= 0) & ~src_ok[vop2_src0] & (vop2_src0 != opnd.LITERAL), -1, i32)
    i64 = np.where(i32 >= 0, -1, d64.classify(flat))
    out = np.empty(flat.shape, dtype=object)
    done = np.zeros(flat.shape, dtype=bool)
    vgprs = _vgpr_table()
    for dec, idx in ((d32, i32), (d64, i64)):
        for k, sel in dec.groups(idx):
            row = dec.rows[k]
            w = flat[sel]
            good = np.ones(sel.shape, dtype=bool)
            pieces = []
            literal = None
            for kind in SYNTAX[row.layout.family]:
                v = row.layout.fields[kind].extract_array(w).astype(np.intp)
                if kind in ("vdst", "vsrc0", "vsrc1"):
                    pieces.append(vgprs[v])
                    continue
                good &= src_ok[v]
                is_lit = v == opnd.LITERAL
                text = src_names[v]
                if is_lit.any():
                    if not _literal_ok(row):
                        good &= ~is_lit
                    else:
                        if row.layout.word_bits == 32:
                            literal = (w >> np.uint64(32)).astype(np.uint64)
                        elif lits is None:
                            raise OperandError(
                                f"{int(is_lit.sum())} VOP3P words read a literal; pass literals=... "
                                "(the dword that follows each)"
                            )
                        else:
                            literal = lits[sel]
                        text = text.copy()
                        text[is_lit] = [_literal_text(int(x), g) for x in literal[is_lit]]
                pieces.append(text)
            name = row.name.split(".")[1]
            if row.layout.family == "vop2" and g != "gfx9":
                name = name.removesuffix("_e32")
            if row.layout.family.startswith("dpp8"):
                name = mnemonic_of(row) + "_dpp"
            # Columns of strings (arrays, or one string for every word), joined once per word at the end:
            # a join per word costs about what one elementwise concatenation of object arrays does.
            cols: list = [name + " ", pieces[0]]
            for p in pieces[1:]:
                cols += [", ", p]
            if row.layout.family.startswith("vop3p"):
                key = np.zeros(sel.shape, dtype=np.intp)
                for i, m in enumerate(_MODS):
                    key |= row.layout.fields[m].extract_array(w).astype(np.intp) << (3 * i)
                key |= row.layout.fields["clamp"].extract_array(w).astype(np.intp) << 12
                cols.append(_mods_table()[key])
            elif "clamp" in row.layout.fields:
                cols.append(np.where(row.layout.fields["clamp"].extract_array(w) != 0, " clamp", ""))
            elif row.layout.family.startswith("dpp16"):
                cols.append(_ctrl_table(mcpu)[row.layout.fields["dpp_ctrl"].extract_array(w).astype(np.intp)])
                masks = (row.layout.fields["row_mask"].extract_array(w) << np.uint64(4)) | row.layout.fields[
                    "bank_mask"
                ].extract_array(w)
                cols.append(_masks_table()[masks.astype(np.intp)])
                cols.append(np.where(row.layout.fields["bound_ctrl"].extract_array(w) != 0, " bound_ctrl:1", ""))
                if "fi" in row.layout.fields:
                    cols.append(np.where(row.layout.fields["fi"].extract_array(w) != 0, " fi:1", ""))
            elif row.layout.family.startswith("dpp8"):
                cols.append([" " + dpp.dpp8_text(int(x)) for x in row.layout.fields["sels"].extract_array(w)])
                if row.name.endswith("fi"):
                    cols.append(" fi:1")
            columns = [c.tolist() if isinstance(c, np.ndarray) else c for c in cols]
            columns = [c if isinstance(c, list) else [c] * len(sel) for c in columns]
            text = np.empty(len(sel), dtype=object)
            text[:] = ["".join(parts) for parts in zip(*columns)]
            out[sel[good]] = text[good]
            done[sel[good]] = True
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
