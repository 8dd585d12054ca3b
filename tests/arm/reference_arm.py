"""A slow, obviously-correct model of the AArch64 integer dot products, from Arm's pseudocode.

Nothing here imports intdot.  Registers are Python lists of byte values
(element 0 first); elements are put together and taken apart byte by byte,
and every product uses Python's unbounded ints.  The semantics of a form
come from its *id* (``sdot_sve_indexed_d``...), read here independently of
intdot's table:

- mnemonic: ``sdot`` signed x signed, ``udot`` unsigned x unsigned,
  ``usdot`` unsigned (first source) x signed, ``sudot`` signed x unsigned;
- element sizes: the plain forms add 4 products of 8-bit elements into a
  32-bit element; ``_d`` 4 products of 16-bit elements into 64 bits; ``_hs``
  (the SVE2.1/SME2 "2-way" forms) 2 products of 16-bit elements into 32 bits.

The loops follow the Arm ARM's Operation sections (SDOT/UDOT/USDOT/SUDOT,
vector, by element / indexed, single, multiple and indexed SME2 forms)::

    for e = 0 to elements-1
        res = Elem[operand3, e, esize]
        for i = 0 to lanes-1
            res = res + Int(Elem[operand1, lanes*e + i, esize/lanes]) *
                        Int(Elem[operand2, lanes*s + i, esize/lanes])
        Elem[result, e, esize] = res

where ``s`` is ``e`` (vector/single/multi), ``index`` (NEON by element:
the 32-bit element of the full 128-bit Vm) or ``e - e MOD (128/esize) +
index`` (SVE/SME2 indexed: the element of the same 128-bit segment).  NEON
writes ``V[d, datasize]``, which zeroes the rest of Zd.  SME2: vstride =
SVL_bytes / nvec, first ZA vector (W[v] + offset) mod vstride, member r at
that vector + r * vstride; Zn members are zn + r mod 32 (and Zm + r for the
multi-vector forms).
"""

from __future__ import annotations

SIGNS = {"sdot": (True, True), "udot": (False, False), "usdot": (False, True), "sudot": (True, False)}


def elem(reg: list[int], e: int, bits: int, signed: bool) -> int:
    """Element e of ``bits`` bits of a byte list, little-endian."""
    nbytes = bits // 8
    v = 0
    for k in range(nbytes):
        v += reg[nbytes * e + k] * 256**k
    if signed and v >= 2 ** (bits - 1):
        v -= 2**bits
    return v


def put(reg: list[int], e: int, bits: int, value: int) -> None:
    """Elem[reg, e, bits] = value (mod 2**bits)."""
    nbytes = bits // 8
    value %= 2**bits
    for k in range(nbytes):
        reg[nbytes * e + k] = (value >> (8 * k)) % 256


class Sem:
    """What one form computes: accumulator element size, lanes per element, source signedness."""

    def __init__(self, esize: int = 32, lanes: int = 4, a_signed: bool = True, b_signed: bool = False):
        self.esize, self.lanes, self.a_signed, self.b_signed = esize, lanes, a_signed, b_signed

    @property
    def lane_bits(self) -> int:
        return self.esize // self.lanes


SUDOT = Sem()


def describe(form_id: str) -> tuple[str, Sem, int, int]:
    """(semantic kind, Sem, nvec, q) of a form id such as ``udot_sme2_multi_d_vgx4``."""
    parts = form_id.split("_")
    mnemonic, unit, shape = parts[0], parts[1], parts[2]
    a_signed, b_signed = SIGNS[mnemonic]
    rest = parts[3:]
    nvec, q = 1, 0
    if rest and rest[-1] in ("vgx2", "vgx4"):
        nvec = int(rest.pop()[-1])
    if rest and rest[-1] in ("64", "128"):
        q = int(rest.pop() == "128")
    size = rest[0] if rest else ""
    esize, lanes = {"": (32, 4), "d": (64, 4), "hs": (32, 2)}[size]
    kinds = {
        ("neon", "vec"): "neon_dot_vec",
        ("neon", "elem"): "neon_dot_elem",
        ("sve", "vec"): "sve_dot_vec",
        ("sve", "indexed"): "sve_dot_indexed",
        ("sme2", "single"): "sme2_dot_single",
        ("sme2", "multi"): "sme2_dot_multi",
        ("sme2", "indexed"): "sme2_dot_indexed",
    }
    return kinds[(unit, shape)], Sem(esize, lanes, a_signed, b_signed), nvec, q


def dot_element(res: int, op1: list[int], e: int, op2: list[int], s: int, sem: Sem) -> int:
    """res + sum over the lanes of element e of op1 times element s of op2 (exact; caller wraps)."""
    for i in range(sem.lanes):
        x = elem(op1, sem.lanes * e + i, sem.lane_bits, sem.a_signed)
        y = elem(op2, sem.lanes * s + i, sem.lane_bits, sem.b_signed)
        res += x * y
    return res


def dot_group(acc: int, a: list[int], a_at: int, b: list[int], b_at: int, a_signed=True, b_signed=False) -> int:
    """acc + sum over 4 bytes of a[a_at + i] * b[b_at + i] (exact; caller wraps)."""
    sem = Sem(32, 4, a_signed, b_signed)
    return dot_element(acc, a[a_at : a_at + 4], 0, b[b_at : b_at + 4], 0, sem)


class RefState:
    """z: 32 byte lists of the current Z length; za: rows of bytes; x: 31 ints."""

    def __init__(self, zbytes: int, svl_bytes: int):
        self.z = [[0] * zbytes for _ in range(32)]
        self.za = [[0] * svl_bytes for _ in range(svl_bytes)]
        self.x = [0] * 31


def _accumulate(op3: list[int], op1: list[int], op2: list[int], sem: Sem, select) -> list[int]:
    """A new element list: element e of op3 plus the dot of op1's element e with op2's element select(e)."""
    result = list(op3)
    for e in range(len(op3) * 8 // sem.esize):
        res = elem(op3, e, sem.esize, signed=False)
        put(result, e, sem.esize, dot_element(res, op1, e, op2, select(e), sem))
    return result


def segment_select(sem: Sem, index: int):
    per = 128 // sem.esize
    return lambda e: e - e % per + index


def neon(st: RefState, vd, vn, vm, q, index=None, sem: Sem = SUDOT) -> None:
    """By vector (index None) or by element: V[d, datasize] = result zeroes the rest of Zd."""
    datasize = 16 if q else 8
    op1, op3 = st.z[vn][:datasize], st.z[vd][:datasize]
    op2 = st.z[vm][:datasize] if index is None else st.z[vm][:16]
    res = _accumulate(op3, op1, op2, sem, (lambda e: e) if index is None else (lambda e: index))
    st.z[vd] = res + [0] * (len(st.z[vd]) - datasize)


def neon_elem(st: RefState, vd, vn, vm, index, q, a_signed=True, b_signed=False) -> None:
    neon(st, vd, vn, vm, q, index, Sem(32, 4, a_signed, b_signed))


def sve(st: RefState, zda, zn, zm, index=None, sem: Sem = SUDOT) -> None:
    select = (lambda e: e) if index is None else segment_select(sem, index)
    st.z[zda] = _accumulate(list(st.z[zda]), list(st.z[zn]), list(st.z[zm]), sem, select)


def sve_indexed(st: RefState, zda, zn, zm, index, a_signed=True, b_signed=False) -> None:
    sve(st, zda, zn, zm, index, Sem(32, 4, a_signed, b_signed))


def sme2_za(st: RefState, nvec, wv, off, zn, zm, mode: str, index=None, sem: Sem = SUDOT) -> None:
    """mode: "single" (one Zm), "multi" (Zm + r), "indexed" (one Zm, an element per segment)."""
    svl_bytes = len(st.za)
    vstride = svl_bytes // nvec
    vec = ((st.x[wv] % 2**32) + off) % vstride
    select = segment_select(sem, index) if mode == "indexed" else (lambda e: e)
    for r in range(nvec):
        op1 = list(st.z[(zn + r) % 32])
        op2 = list(st.z[(zm + r) % 32] if mode == "multi" else st.z[zm])
        st.za[vec] = _accumulate(list(st.za[vec]), op1, op2, sem, select)
        vec += vstride


def sme2(st: RefState, nvec, wv, off, zn, zm, index=None, a_signed=True, b_signed=False) -> None:
    """The 8-bit za.s forms: index None is the single form, else the indexed form."""
    sme2_za(st, nvec, wv, off, zn, zm, "single" if index is None else "indexed", index, Sem(32, 4, a_signed, b_signed))


def run_form(st: RefState, form_id: str, ops: dict) -> None:
    """Execute the form named ``form_id`` with operands ``ops`` (Insn.ops spelling)."""
    kind, sem, nvec, q = describe(form_id)
    if kind in ("neon_dot_vec", "neon_dot_elem"):
        neon(st, ops["vd"], ops["vn"], ops["vm"], q, ops.get("index") if kind == "neon_dot_elem" else None, sem)
    elif kind in ("sve_dot_vec", "sve_dot_indexed"):
        sve(st, ops["zda"], ops["zn"], ops["zm"], ops.get("index") if kind == "sve_dot_indexed" else None, sem)
    else:
        mode = kind.split("_")[-1]
        sme2_za(st, nvec, ops["wv"], ops["off"], ops["zn"], ops["zm"], mode, ops.get("index"), sem)


def run(st: RefState, kind: str, ops: dict, nvec: int = 1) -> None:
    """The SUDOT forms given as (Form.kind, Insn.ops, Form.nvec)."""
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
