"""A slow, obviously-correct model of the SUDOT forms, from the spec pseudocode.

Nothing here imports intdot.  Registers are Python lists of byte values
(element 0 first); 32-bit elements are put together and taken apart byte by
byte, and every product uses Python's unbounded ints.  Sources:
``shared/spec/arm-sudot.txt`` (the NEON pseudocode: operand2 is the full
128-bit Vm, element ``4*index + b``; ``V[d, datasize] = result``) and the
issue's ZA rule: vstride = SVL_bytes / N, first row (Wv + off) mod vstride,
member r at row + r * vstride; SVE and SME2 "indexed" pick element ``index``
of the 128-bit segment that holds the destination element.
"""

from __future__ import annotations


def sint8(byte: int) -> int:
    return byte - 256 if byte >= 128 else byte


def elem32(reg: list[int], e: int) -> int:
    """Element e of a byte list read as a signed 32-bit little-endian value."""
    v = reg[4 * e] + 256 * reg[4 * e + 1] + 65536 * reg[4 * e + 2] + 16777216 * reg[4 * e + 3]
    return v - 2**32 if v >= 2**31 else v


def put32(reg: list[int], e: int, value: int) -> None:
    value %= 2**32
    for k in range(4):
        reg[4 * e + k] = (value >> (8 * k)) % 256


def dot_group(acc: int, a: list[int], a_at: int, b: list[int], b_at: int, a_signed=True, b_signed=False) -> int:
    """acc + sum over 4 bytes of a[a_at + i] * b[b_at + i] (exact; caller wraps)."""
    total = acc
    for i in range(4):
        x = sint8(a[a_at + i]) if a_signed else a[a_at + i]
        y = sint8(b[b_at + i]) if b_signed else b[b_at + i]
        total += x * y
    return total


class RefState:
    """z: 32 byte lists of the current Z length; za: rows of bytes; x: 31 ints."""

    def __init__(self, zbytes: int, svl_bytes: int):
        self.z = [[0] * zbytes for _ in range(32)]
        self.za = [[0] * svl_bytes for _ in range(svl_bytes)]
        self.x = [0] * 31


def neon_elem(st: RefState, vd, vn, vm, index, q, a_signed=True, b_signed=False) -> None:
    elements = 4 if q else 2
    op1, op2, op3 = list(st.z[vn]), list(st.z[vm][:16]), list(st.z[vd])
    result = [0] * len(st.z[vd])  # V[d, datasize] = result zero-extends to the whole Z register
    for e in range(elements):
        res = dot_group(elem32(op3, e), op1, 4 * e, op2, 4 * index, a_signed, b_signed)
        put32(result, e, res)
    st.z[vd] = result


def sve_indexed(st: RefState, zda, zn, zm, index, a_signed=True, b_signed=False) -> None:
    op1, op2, op3 = list(st.z[zn]), list(st.z[zm]), list(st.z[zda])
    result = list(op3)
    for e in range(len(op3) // 4):
        segmentbase = e - e % 4
        s = segmentbase + index
        put32(result, e, dot_group(elem32(op3, e), op1, 4 * e, op2, 4 * s, a_signed, b_signed))
    st.z[zda] = result


def sme2(st: RefState, nvec, wv, off, zn, zm, index=None, a_signed=True, b_signed=False) -> None:
    """index=None: the single form (Zm element-wise); else the indexed form."""
    svl_bytes = len(st.za)
    vstride = svl_bytes // nvec
    vec = ((st.x[wv] % 2**32) + off) % vstride
    for r in range(nvec):
        op1, op2, op3 = list(st.z[(zn + r) % 32]), list(st.z[zm]), list(st.za[vec])
        result = list(op3)
        for e in range(svl_bytes // 4):
            s = e if index is None else e - e % 4 + index
            put32(result, e, dot_group(elem32(op3, e), op1, 4 * e, op2, 4 * s, a_signed, b_signed))
        st.za[vec] = result
        vec += vstride


def run(st: RefState, kind: str, ops: dict, nvec: int = 1) -> None:
    """Execute one instruction given as (Form.kind, Insn.ops, Form.nvec)."""
    if kind == "neon_dot_elem":
        neon_elem(st, ops["vd"], ops["vn"], ops["vm"], ops["index"], ops["q"])
    elif kind == "sve_dot_indexed":
        sve_indexed(st, ops["zda"], ops["zn"], ops["zm"], ops["index"])
    elif kind == "sme2_dot_indexed":
        sme2(st, nvec, ops["wv"], ops["off"], ops["zn"], ops["zm"], ops["index"])
    elif kind == "sme2_dot_single":
        sme2(st, nvec, ops["wv"], ops["off"], ops["zn"], ops["zm"], None)
    else:
        raise ValueError(kind)
