"""Assembly text <-> bytes of the AMD GPU integer dot instructions, as llvm-mc 19 writes them.

>>> assemble("v_dot4_i32_i8 v0, v1, v2, v3", "gfx942").hex(",")
'00,40,a8,d3,01,05,0e,1c'
>>> disassemble(bytes.fromhex("004016cc01050e3c"), "gfx1100")
'v_dot4_i32_iu8 v0, v1, v2, v3 neg_lo:[1,0,0]'
>>> print(disassemble(assemble("v_dot4c_i32_i8 v0, 0x1234, v2", "gfx1030") * 2, "gfx1030"))
v_dot4c_i32_i8 v0, 0x1234, v2
v_dot4c_i32_i8 v0, 0x1234, v2
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from ..core.errors import (
    AsmSyntaxError,
    OperandError,
    OperandTypeError,
    UndefinedEncoding,
    UnknownInstruction,
    UnsupportedOnTarget,
    quote,
)
from ..core.values import check_choice, describe
from ..isa.codec import Dispatch
from ..isa.encoding import Row
from . import dpp, syntax
from . import operands as opnd
from .encodings import ROWS, SYNTAX, mnemonic_of, rows_for
from .instructions import ROWS as INSTRUCTIONS
from .targets import FEATURES, GENERATION, check_mcpu

_MODS = ("op_sel", "op_sel_hi", "neg_lo", "neg_hi")
_ANY = {"gfx9": "gfx908", "gfx10": "gfx1030", "gfx11": "gfx1100", "gfx12": "gfx1200"}  # one processor per generation
_DEFAULT = {"op_sel": 0, "op_sel_hi": 7, "neg_lo": 0, "neg_hi": 0}


@dataclass(frozen=True)
class Insn:
    """One decoded instruction: its row, its field values and its literal (None where it has none)."""

    row: Row
    fields: dict
    literal: int | None = None
    mcpu: str | None = None  # the processor it was read for: DPP controls print differently on gfx908 and gfx90a

    @property
    def mnemonic(self) -> str:
        return mnemonic_of(self.row)

    @property
    def generation(self) -> str:
        return self.row.name.split(".")[0]

    @property
    def size(self) -> int:
        return self.row.layout.word_bits // 8 + (4 if self.literal is not None else 0)

    @property
    def sources(self) -> tuple[str, ...]:
        return tuple(k for k in SYNTAX[self.row.layout.family] if k != "vdst")

    def to_bytes(self) -> bytes:
        data = self.row.layout.encode(self.fields).to_bytes(self.row.layout.word_bits // 8, "little")
        return data + (self.literal.to_bytes(4, "little") if self.literal is not None else b"")

    def canonical_bytes(self) -> bytes:
        """What assembling :attr:`text` gives: the bits llvm-mc drops (``z...`` fields: ``op_sel`` of the gfx9
        VOP3 form, DPP's reserved bit and gfx9's ``fi``) cleared, and a literal whose value is an inline
        constant written as that constant."""
        fields = {k: 0 if k.startswith("z") else v for k, v in self.fields.items()}
        literal = self.literal
        inline = opnd.inline_of(literal) if literal is not None else None
        if inline is not None:
            fields = {k: inline if k.startswith("src") and v == opnd.LITERAL else v for k, v in fields.items()}
            literal = None
        return Insn(self.row, fields, literal, self.mcpu).to_bytes()

    @property
    def text(self) -> str:
        return _print(self)


def _literal_ok(row: Row) -> bool:
    """Whether a source of the row may be a literal: VOP2 always, VOP3P from gfx10 on, gfx9 VOP3 never."""
    return row.layout.family in ("vop2", "vop3p_gfx10")


def _print(insn: Insn) -> str:
    row, f, g = insn.row, insn.fields, insn.generation
    ops = []
    for kind in SYNTAX[row.layout.family]:
        v = f[kind]
        if kind in ("vdst", "vsrc0", "vsrc1"):
            ops.append(f"v{v}")
        elif v == opnd.LITERAL:
            inline = opnd.inline_of(insn.literal)  # llvm-mc prints such a literal as the inline constant
            ops.append(f"{insn.literal:#x}" if inline is None else opnd.name(inline, g))
        else:
            ops.append(opnd.name(v, g))
    name = row.name.split(".")[1]
    if row.layout.family == "vop2" and g != "gfx9":
        name = name.removesuffix("_e32")
    if row.layout.family.startswith("dpp8"):  # both DPP8 rows print as _dpp
        name = mnemonic_of(row) + "_dpp"
    text = f"{name} {', '.join(ops)}"
    if row.layout.family.startswith("dpp16"):
        text += f" {dpp.ctrl_text(f['dpp_ctrl'], insn.mcpu or _ANY[g])}"
        text += f" row_mask:{f['row_mask']:#x} bank_mask:{f['bank_mask']:#x}"
        text += " bound_ctrl:1" * f["bound_ctrl"] + " fi:1" * f.get("fi", 0)
    elif row.layout.family.startswith("dpp8"):
        text += " " + dpp.dpp8_text(f["sels"]) + " fi:1" * row.name.endswith("fi")
    if row.layout.family.startswith("vop3p"):
        for mod in _MODS:
            if f[mod] != _DEFAULT[mod]:
                text += f" {mod}:[{','.join(str(f[mod] >> i & 1) for i in range(3))}]"
    if f.get("clamp"):
        text += " clamp"
    return text


def dispatches(rows) -> tuple[Dispatch, Dispatch]:
    """The decision tables of the 32-bit and of the 64-bit rows among ``rows``."""
    return tuple(Dispatch([r for r in rows if r.layout.word_bits == n], n) for n in (32, 64))


@cache
def _decoders(generation: str) -> tuple[Dispatch, Dispatch]:
    return dispatches(rows_for(generation))


def _source_ok(insn_fields: dict, row: Row, generation: str) -> bool:
    for kind in SYNTAX[row.layout.family]:
        if kind.startswith("src"):
            v = insn_fields[kind]
            if v == opnd.LITERAL:
                if not _literal_ok(row):
                    return False
            elif opnd.name(v, generation) is None:
                return False
    return True


def decode_one(data: bytes, offset: int, mcpu: str) -> Insn | None:
    """The instruction at ``data[offset:]``, or None where these instructions do not decode it."""
    g = GENERATION[mcpu]
    d32, d64 = _decoders(g)
    if len(data) - offset < 4:
        return None
    w = int.from_bytes(data[offset : offset + 4], "little")
    row = d32.row_of(w)
    f = row.layout.decode(w) if row is not None else None
    if row is None or not _source_ok(f, row, g):  # src0 250, 233, 234: a DPP form, 64 bits
        if len(data) - offset < 8:
            return None
        w = int.from_bytes(data[offset : offset + 8], "little")
        row = d64.row_of(w)
        if row is None:
            return None
        f = row.layout.decode(w)
    if not _source_ok(f, row, g) or not _available(mnemonic_of(row), mcpu):
        return None
    lit = None
    if any(f[k] == opnd.LITERAL for k in SYNTAX[row.layout.family] if k.startswith("src")):
        end = offset + row.layout.word_bits // 8
        if len(data) - end < 4:
            return None
        lit = int.from_bytes(data[end : end + 4], "little")
    return Insn(row, f, lit, mcpu)


def _available(mnemonic: str, mcpu: str) -> bool:
    ins = INSTRUCTIONS[mnemonic]
    return ins.feature in FEATURES[mcpu] and GENERATION[mcpu] in ins.opcodes


def _as_bytes(data) -> bytes:
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data)
    if isinstance(data, str):
        raise OperandTypeError(
            f"data={quote(data)} is a str; expected bytes: pass bytes.fromhex(...) for hex text, "
            "or use the command line: intdot disasm --isa amdgpu"
        )
    arr = np.asarray(data)
    if arr.dtype.kind not in "iu" or (arr.size and (arr.min() < 0 or arr.max() > 255)):
        raise OperandTypeError(f"data has dtype {arr.dtype}; expected bytes or an array of byte values 0..255")
    return arr.astype(np.uint8).tobytes()


def disassemble(data, mcpu: str, *, errors: str = "raise") -> str:
    """The text of the instructions in ``data`` (bytes as in memory), one line each.

    ``errors="raise"`` raises :class:`~intdot.errors.UndefinedEncoding` at the first dword that is none of
    these instructions on ``mcpu``; ``errors="mark"`` writes ``.long 0x........`` for it and goes on.
    """
    check_choice(errors, "errors", ("raise", "mark"))
    mcpu = check_mcpu(mcpu, encodings=True)
    data = _as_bytes(data)
    if len(data) % 4:
        raise OperandError(f"data has {len(data)} bytes; AMD GPU instructions are whole dwords (a multiple of 4)")
    out, at = [], 0
    while at < len(data):
        insn = decode_one(data, at, mcpu)
        if insn is None:
            word = int.from_bytes(data[at : at + 4], "little")
            if errors == "raise":
                raise UndefinedEncoding(
                    f"bytes {at}..{at + 3} ({word:#010x}) are not an integer dot instruction on {mcpu}; "
                    "pass errors='mark' to get '.long 0x...' for them"
                )
            out.append(f".long {word:#010x}")
            at += 4
            continue
        out.append(insn.text)
        at += insn.size
    return "\n".join(out)


# ---------------------------------------------------------------- assembly


def _candidates(mnemonic: str, generation: str) -> list[Row]:
    base = mnemonic.removesuffix("_e32").removesuffix("_e64").removesuffix("_dpp")
    if base not in INSTRUCTIONS:
        import difflib

        close = difflib.get_close_matches(base, INSTRUCTIONS, n=2, cutoff=0.75)
        hint = f" (did you mean {' or '.join(close)}?)" if close else ""
        raise UnknownInstruction(
            f"mnemonic={quote(mnemonic)} is not an AMD GPU integer dot instruction{hint}; "
            f"expected one of {', '.join(INSTRUCTIONS)}"
        )
    if INSTRUCTIONS[base].kind == "vop3p":
        return [ROWS[generation, base]] if (generation, base) in ROWS and mnemonic == base else []
    suffixes = {base: ("_e32", "_e64"), base + "_e32": ("_e32",), base + "_e64": ("_e64",), base + "_dpp": ("_dpp",)}
    suffixes = suffixes.get(mnemonic, ())
    return [ROWS[generation, base + s] for s in suffixes if (generation, base + s) in ROWS]


# What llvm-mc 19's assembler refuses beyond the encoding (its diagnostics, checked in tests/amdgpu):
_CDNA3 = frozenset({"gfx940", "gfx941", "gfx942", "gfx950"})  # VOP3P dots take no op_sel there


def _refused(v: int, mcpu: str, generation: str) -> str | None:
    late = generation in ("gfx11", "gfx12")
    if v == 254 and (late or mcpu in _CDNA3 or mcpu == "gfx90a"):
        return "lds_direct is not supported on this GPU"
    if v in (251, 252) and late:
        return "execz and vccz are not supported on this GPU"
    if v == 239 and late:
        return "register not available on this GPU"
    return None


def _constant_bus(values: list, cols: list[int], generation: str, st: syntax.Statement) -> None:
    null = 124 if generation in ("gfx11", "gfx12") else 125
    scalars: set = set()
    lits: set = set()
    limit = 1 if generation == "gfx9" else 2
    for v, col in zip(values, cols):
        if isinstance(v, tuple):
            lits.add(v[1])
            if len(lits) > 1:
                raise st.error("only one unique literal operand is allowed", col)
        elif opnd.is_scalar(v) and v != null:
            scalars.add(v)
        else:
            continue
        if len(scalars) + len(lits) > limit:
            raise st.error(
                f"invalid operand (violates constant bus restrictions): at most {limit} scalar value(s) on "
                f"{generation}, SGPRs and literals together",
                col,
            )


def _source(op: syntax.Operand, generation: str, st: syntax.Statement, *, gpr_only: bool = False):
    """The 9-bit source value of an operand, or ``(255, literal)``."""
    if op.kind == "reg":
        try:
            return opnd.register_value(op.value, generation)
        except AsmSyntaxError as exc:
            raise st.error(f"invalid operand for instruction: {exc.reason}", op.col) from None
    if gpr_only:
        raise st.error(f"invalid operand for instruction: {quote(op.text, marks=False)} is not a VGPR", op.col)
    if op.kind == "int" and not -(1 << 31) <= op.value < 1 << 32:
        raise st.error(
            f"invalid operand for instruction: {quote(op.text, marks=False)} is {op.value}, which does not fit 32 bits "
            "(-2147483648 .. 4294967295)",
            op.col,
        )
    bits = op.value & 0xFFFFFFFF
    inline = opnd.inline_of(bits)
    return inline if inline is not None else (opnd.LITERAL, bits)


def _encode(row: Row, st: syntax.Statement, mcpu: str) -> Insn:
    generation = GENERATION[mcpu]
    kinds = SYNTAX[row.layout.family]
    ops = st.operands
    if len(ops) > len(kinds):
        raise st.error(f"invalid operand for instruction: {row.name.split('.')[1]} takes {len(kinds)} operands; "
                       f"got {len(ops)}", ops[len(kinds)].col)  # fmt: skip
    if len(ops) < len(kinds):
        raise st.error(f"too few operands for instruction: {row.name.split('.')[1]} takes {len(kinds)} operands; "
                       f"got {len(ops)}")  # fmt: skip
    allowed = (
        set(_MODS) | {"clamp"}
        if row.layout.family.startswith("vop3p")
        else ({"clamp"} if "vop3" in row.layout.family else set())
    )
    for name, (_, col) in st.mods.items():
        if name not in allowed:
            raise st.error(f"invalid operand for instruction: {name} is not allowed here", col)
    mods = {k: v for k, (v, _) in st.mods.items()}
    fields = {k: 0 for k in row.layout.fields}
    fields.update({k: _DEFAULT[k] for k in _MODS if k in row.layout.fields})
    fields.update({k: v & 7 for k, v in mods.items()})
    values, cols = [], []
    for kind, o in zip(kinds, ops):
        if kind in ("vdst", "vsrc1"):
            v = _source(o, generation, st, gpr_only=True)
            if v < 256:
                raise st.error(
                    f"invalid operand for instruction: {quote(o.text, marks=False)}: {kind} must be a VGPR", o.col
                )
            fields[kind] = v - 256
            continue
        v = _source(o, generation, st)
        refused = isinstance(v, int) and _refused(v, mcpu, generation)
        if refused:
            raise st.error(f"{quote(o.text, marks=False)}: {refused}", o.col)
        if v == 254 and kind != "src0":
            raise st.error(f"{quote(o.text, marks=False)}: lds_direct may be used as src0 only", o.col)
        if isinstance(v, tuple) and not _literal_ok(row):
            raise st.error(
                f"literal operands are not supported: {quote(o.text, marks=False)} is no inline constant", o.col
            )
        values.append(v)
        cols.append(o.col)
        fields[kind] = v[0] if isinstance(v, tuple) else v
    if row.layout.family != "vop2":
        _constant_bus(values, cols, generation, st)
    if row.layout.family.startswith("vop3p") and mcpu in _CDNA3 and (mods.get("op_sel") or "op_sel_hi" in mods):
        col = st.mods["op_sel" if mods.get("op_sel") else "op_sel_hi"][1]
        raise st.error(f"invalid op_sel operand: {mcpu} takes no op_sel or op_sel_hi on dot instructions", col)
    lits = [v[1] for v in values if isinstance(v, tuple)]
    return Insn(row, fields, lits[0] if lits else None)


def _in_range(st: syntax.Statement, name: str, value: int, col: int, *, top: int) -> int:
    if not 0 <= value <= top:
        raise st.error(f"invalid {name} value: {value} (expected 0 to {top})", col)
    return value


def _encode_dpp(base: str, st: syntax.Statement, mcpu: str) -> Insn:
    """A DPP form: ``ctrl [row_mask:N] [bank_mask:N] [bound_ctrl:B] [fi:B]`` or ``dpp8:[...] [fi:B]``, in that order."""
    g = GENERATION[mcpu]
    if st.mods or st.mnemonic.endswith(("_e32", "_e64")):
        col = min([c for _, c in st.mods.values()] or [st.col])
        raise st.error("invalid operand for instruction: a DPP form takes no other modifier or suffix", col)
    if len(st.operands) != 3:
        col = st.operands[3].col if len(st.operands) > 3 else st.col
        raise st.error(f"{st.mnemonic} takes 3 operands; got {len(st.operands)}", col)
    vgprs = []
    for o in st.operands:
        v = _source(o, g, st, gpr_only=True)
        if v < 256:
            raise st.error("invalid operand for instruction: the operands of a DPP form are VGPRs", o.col)
        vgprs.append(v - 256)
    vdst, vsrc0, vsrc1 = vgprs
    (head, value, col), *rest = st.dpp
    names = [n for n, _, _ in rest]
    fields: dict = {"vdst": vdst, "vsrc0": vsrc0, "vsrc1": vsrc1}
    if head == "dpp8":
        if g == "gfx9" or names not in ([], ["fi"]):
            raise st.error(f"not a valid operand: dpp8 {'with ' + ', '.join(names) if names else 'on gfx9'}",
                           rest[0][2] if rest and g != "gfx9" else col)  # fmt: skip
        for k, v in enumerate(value):
            if not 0 <= v <= 7:
                raise st.error(f"expected a 3-bit value: dpp8 lane {k} selects lane {v}", col)
        fi = int(rest[0][1] != 0) if rest else 0  # llvm-mc picks the fi form for any value but 0
        row = ROWS[g, f"{base}_dpp8{'fi' if fi else ''}"]
        fields["sels"] = sum(v << (3 * i) for i, v in enumerate(value))
        return Insn(row, fields, None, mcpu)
    allowed = ["row_mask", "bank_mask", "bound_ctrl"] + (["fi"] if g != "gfx9" else [])
    for k, (n, _, c) in enumerate(rest):
        if n not in allowed or n in names[:k] or any(allowed.index(m) > allowed.index(n) for m in names[:k]):
            raise st.error(f"not a valid operand: {n} (write {', '.join(allowed)} after the control, in that "
                           "order, each once)", c)  # fmt: skip
    if head in syntax.DPP_LISTS:
        ctrl = f"{head}:[{','.join(str(v) for v in value)}]"
    else:
        ctrl = head if value is None else f"{head}:{value}"
    try:
        dpp_ctrl = dpp.parse_ctrl(ctrl, mcpu)
    except AsmSyntaxError as exc:
        raise st.error(f"not a valid operand: {exc.reason}", col) from None
    values = {n: (v, c) for n, v, c in rest}
    row = ROWS[g, f"{base}_dpp"]
    fields.update({k: 0 for k in row.layout.fields if k.startswith(("x", "z"))})
    fields["dpp_ctrl"] = dpp_ctrl
    # llvm-mc 19 keeps the low 4 bits of any row_mask/bank_mask value (row_mask:16 is 0) and the low bit of fi
    fields["row_mask"] = values.get("row_mask", (15, col))[0] & 15
    fields["bank_mask"] = values.get("bank_mask", (15, col))[0] & 15
    _in_range(st, "bound_ctrl", *values.get("bound_ctrl", (0, col)), top=1)
    fields["bound_ctrl"] = int("bound_ctrl" in values)  # llvm-mc sets the bit for bound_ctrl:0 as for bound_ctrl:1
    if g != "gfx9":
        fields["fi"] = values.get("fi", (0, col))[0] & 1
    return Insn(row, fields, None, mcpu)


def _parse_statement(st: syntax.Statement, mcpu: str) -> Insn:
    g = GENERATION[mcpu]
    mnemonic = st.mnemonic
    base = mnemonic.removesuffix("_e32").removesuffix("_e64").removesuffix("_dpp")
    rows = _candidates(mnemonic, g)
    if not rows or not _available(base, mcpu):
        ins = INSTRUCTIONS[base]
        has = ", ".join(sorted(FEATURES[mcpu])) or "no dot features"
        raise UnsupportedOnTarget(
            f"{mnemonic} is not available on {mcpu}: it needs target feature {ins.feature} and one of the "
            f"encodings of {', '.join(ins.opcodes)}; {mcpu} is {g} with {has}"
        )
    if st.dpp:
        return _encode_dpp(base, st, mcpu)
    if mnemonic.endswith("_dpp"):  # llvm-mc's words: a DPP form needs its control (quad_perm:[...], dpp8:[...])
        raise st.error("too few operands for instruction: a _dpp form needs a DPP control")
    error: Exception | None = None
    for row in rows:
        try:
            return _encode(row, st, mcpu)
        except AsmSyntaxError as exc:
            error = error or exc
    raise error  # type: ignore[misc]


def _statements(text, mcpu: str):
    """(line number, raw line, Insn) of each statement of ``text``; an error names its line where there are
    several."""
    if not isinstance(text, str):
        raise OperandTypeError(f"text={describe(text)} has type {type(text).__name__}; expected assembly text")
    mcpu = check_mcpu(mcpu, encodings=True)
    several = "\n" in text.rstrip("\n")
    try:
        lines = syntax.strip_comments(text)
    except AsmSyntaxError as exc:
        raise _where(exc, exc.text, several, getattr(exc, "line", None)) from None
    for n, raw, line in lines:
        if not line.strip():
            continue
        try:
            yield n, raw, _parse_statement(syntax.read(line), mcpu)
        except (AsmSyntaxError, UnsupportedOnTarget, UnknownInstruction) as exc:
            raise _where(exc, raw, several, n) from None


def _where(exc: Exception, raw: str, several: bool, n: int | None = None) -> Exception:
    """``exc`` with the input's own line (comments and all) under its caret, and its line number if there are
    several lines."""
    prefix = f"line {n}: " if several and n is not None else ""
    if isinstance(exc, AsmSyntaxError):
        if exc.column is not None and n is not None:
            return type(exc)(prefix + exc.reason, raw, exc.column)
        return type(exc)(prefix + exc.reason, exc.text, exc.column)
    return type(exc)(prefix + str(exc))


def parse(text, mcpu: str) -> Insn:
    """The instruction one line of assembly spells on ``mcpu`` (comments as llvm-mc reads them: ``;`` and
    ``//`` to the end of the line, ``/* ... */``)."""
    if not isinstance(text, str):
        raise OperandTypeError(f"text={describe(text)} has type {type(text).__name__}; expected a line of assembly")
    found = list(_statements(text, mcpu))
    if not found:
        raise AsmSyntaxError("empty line: expected an instruction", text, 1)
    if len(found) > 1:
        raise AsmSyntaxError(
            f"{len(found)} instructions (lines {', '.join(str(n) for n, _, _ in found)}); parse reads one: "
            "use assemble for several",
            found[1][1],
            1,
        )
    return found[0][2]


def parse_lines(text, mcpu: str) -> list[tuple[int, Insn]]:
    """(line number, instruction) of each statement in ``text``: one a line, as llvm-mc reads them (blank
    lines and comments left out)."""
    return [(n, insn) for n, _, insn in _statements(text, mcpu)]


def assemble(text, mcpu: str) -> bytes:
    """The bytes (as in memory) of one or more lines of assembly, one instruction a line.

    As llvm-mc reads AMDGPU assembly, ``;`` starts a comment (so ``intdot asm``'s and llvm-mc's own
    ``... ; encoding: [...]`` lines read back), as do ``//`` and, at the start of a line, ``#``.
    """
    return b"".join(insn.to_bytes() for _, insn in parse_lines(text, mcpu))


__all__ = ["Insn", "assemble", "decode_one", "disassemble", "parse", "parse_lines"]
