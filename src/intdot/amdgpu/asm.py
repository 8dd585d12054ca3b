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

import re
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
)
from ..isa.codec import Dispatch
from ..isa.encoding import Row
from . import dpp
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
            f"data={data!r} is a str; expected bytes: pass bytes.fromhex(...) for hex text, "
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
    if errors not in ("raise", "mark"):
        raise OperandError(f"errors={errors!r}; expected 'raise' or 'mark'")
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

_DPP_TOKEN = re.compile(
    r"\s+(dpp8:\[[^\]]*\]|quad_perm:\[[^\]]*\]|row_\w+(?::\w+)?|wave_\w+:\w+|bank_mask:\w+|bound_ctrl:\w+|fi:\w+)"
)
_MOD_RE = re.compile(r"\s+(op_sel_hi|op_sel|neg_lo|neg_hi):\[([^\]]*)\]|\s+(clamp)\b", re.IGNORECASE)


def _split(text: str) -> tuple[str, list[str], dict, list[str]]:
    line = text.strip()
    if not line:
        raise AsmSyntaxError("empty line: expected an instruction", text, 1)
    mnemonic, *tail = line.split(None, 1)  # any blank after the mnemonic, a tab too, as llvm-mc reads it
    rest = tail[0] if tail else ""
    mods: dict = {}
    order = (*_MODS, "clamp")
    for m in _MOD_RE.finditer(" " + rest):
        key = (m.group(1) or m.group(3)).lower()
        if key in mods or any(order.index(k) > order.index(key) for k in mods):
            # llvm-mc 19 reads the modifiers in one order only: op_sel, op_sel_hi, neg_lo, neg_hi, clamp
            raise AsmSyntaxError(f"not a valid operand: {key} (write {', '.join(order)} in that order)", text, None)
        if key == "clamp":
            mods[key] = 1
            continue
        # llvm-mc takes 1 to 4 bits: those not written are 0 (op_sel_hi's too); a fourth has no field (but
        # gfx940 refuses op_sel:[0,0,0,1] as any other non-zero op_sel)
        bits = [b.strip() for b in m.group(2).split(",")]
        if not 1 <= len(bits) <= 4 or any(b not in ("0", "1") for b in bits):
            raise AsmSyntaxError(f"{key}:[{m.group(2)}]: expected 1 to 4 bits, as {key}:[1,0,0]", text, None)
        mods[key] = sum(int(b) << i for i, b in enumerate(bits))  # bit 3 is dropped when encoding
    rest = _MOD_RE.sub("", " " + rest).strip()
    dpp_tokens = _DPP_TOKEN.findall(" " + rest)
    rest = _DPP_TOKEN.sub("", " " + rest).strip()
    ops = [o.strip() for o in rest.split(",")] if rest else []
    return mnemonic.lower(), ops, mods, dpp_tokens


def _candidates(mnemonic: str, generation: str) -> list[Row]:
    base = mnemonic.removesuffix("_e32").removesuffix("_e64").removesuffix("_dpp")
    if base not in INSTRUCTIONS:
        import difflib

        close = difflib.get_close_matches(base, INSTRUCTIONS, n=2, cutoff=0.75)
        hint = f" (did you mean {' or '.join(close)}?)" if close else ""
        raise UnknownInstruction(
            f"mnemonic={mnemonic!r} is not an AMD GPU integer dot instruction{hint}; "
            f"expected one of {', '.join(INSTRUCTIONS)}"
        )
    if INSTRUCTIONS[base].kind == "vop3p":
        return [ROWS[generation, base]] if (generation, base) in ROWS and mnemonic == base else []
    suffixes = {base: ("_e32", "_e64"), base + "_e32": ("_e32",), base + "_e64": ("_e64",), base + "_dpp": ("_dpp",)}
    suffixes = suffixes.get(mnemonic, ())
    return [ROWS[generation, base + s] for s in suffixes if (generation, base + s) in ROWS]


def _constant_bus(values: list, generation: str, text: str) -> None:
    null = 124 if generation in ("gfx11", "gfx12") else 125
    scalars = {v for v in values if isinstance(v, int) and opnd.is_scalar(v) and v != null}
    lits = {v[1] for v in values if isinstance(v, tuple)}
    if len(lits) > 1:
        raise AsmSyntaxError("only one unique literal operand is allowed", text, None)
    limit = 1 if generation == "gfx9" else 2
    if len(scalars) + len(lits) > limit:
        raise AsmSyntaxError(
            f"invalid operand (violates constant bus restrictions): at most {limit} scalar value(s) on "
            f"{generation}, SGPRs and literals together",
            text,
            None,
        )


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


def _encode(row: Row, ops: list[str], mods: dict, mcpu: str, text: str) -> Insn:
    generation = GENERATION[mcpu]
    kinds = SYNTAX[row.layout.family]
    if len(ops) != len(kinds):
        raise AsmSyntaxError(f"{row.name.split('.')[1]} takes {len(kinds)} operands; got {len(ops)}", text, None)
    allowed = (
        set(_MODS) | {"clamp"}
        if row.layout.family.startswith("vop3p")
        else ({"clamp"} if "vop3" in row.layout.family else set())
    )
    if set(mods) - allowed:
        raise AsmSyntaxError(f"{', '.join(sorted(set(mods) - allowed))} is not allowed here", text, None)
    fields = {k: 0 for k in row.layout.fields}
    fields.update({k: _DEFAULT[k] for k in _MODS if k in row.layout.fields})
    fields.update({k: v & 7 for k, v in mods.items()})
    values = []
    for kind, o in zip(kinds, ops):
        if kind in ("vdst", "vsrc1"):
            v = opnd.value_of(o, generation, gpr_only=True)
            if v < 256:
                raise AsmSyntaxError(f"{o!r}: {kind} must be a VGPR", text, None)
            fields[kind] = v - 256
            continue
        v = opnd.value_of(o, generation)
        refused = isinstance(v, int) and _refused(v, mcpu, generation)
        if refused:
            raise AsmSyntaxError(f"{o!r}: {refused}", text, None)
        if v == 254 and kind != "src0":
            raise AsmSyntaxError(f"{o!r}: lds_direct may be used as src0 only", text, None)
        values.append(v)
        if isinstance(v, tuple) and not _literal_ok(row):
            raise AsmSyntaxError(f"{o!r}: literal operands are not supported here", text, None)
        fields[kind] = v[0] if isinstance(v, tuple) else v
    if row.layout.family != "vop2":
        _constant_bus(values, generation, text)
    if row.layout.family.startswith("vop3p") and mcpu in _CDNA3 and (mods.get("op_sel") or "op_sel_hi" in mods):
        raise AsmSyntaxError(f"invalid op_sel operand: {mcpu} takes no op_sel or op_sel_hi on dot instructions", text)
    lits = [v[1] for v in values if isinstance(v, tuple)]
    return Insn(row, fields, lits[0] if lits else None)


def _number(text: str, token: str, top: int, line: str) -> int:
    try:
        n = int(text, 0)
    except ValueError:
        n = -1
    if not 0 <= n <= top:
        raise AsmSyntaxError(f"{token}: expected a value from 0 to {top}", line, None)
    return n


def _encode_dpp(base: str, mnemonic: str, ops: list[str], tokens: list[str], mods: dict, mcpu: str, text: str) -> Insn:
    """A DPP form: ``ctrl [row_mask:N] [bank_mask:N] [bound_ctrl:B] [fi:B]`` or ``dpp8:[...] [fi:B]``, in that order."""
    g = GENERATION[mcpu]
    if mods or mnemonic.endswith(("_e32", "_e64")):
        raise AsmSyntaxError("invalid operand for instruction: a DPP form takes no other modifier or suffix", text)
    if len(ops) != 3:
        raise AsmSyntaxError(f"{mnemonic} takes 3 operands; got {len(ops)}", text)
    vgprs = [opnd.value_of(o, g, gpr_only=True) for o in ops]
    if any(v < 256 for v in vgprs):
        raise AsmSyntaxError("invalid operand for instruction: the operands of a DPP form are VGPRs", text)
    vdst, vsrc0, vsrc1 = (v - 256 for v in vgprs)
    head, *rest = tokens
    names = [t.split(":")[0] for t in rest]
    fields: dict = {"vdst": vdst, "vsrc0": vsrc0, "vsrc1": vsrc1}
    if head.startswith("dpp8:"):
        sels = [x.strip() for x in head[6:-1].split(",")]
        if (
            g == "gfx9"
            or len(sels) != 8
            or any(x not in "01234567" or not x for x in sels)
            or names not in ([], ["fi"])
        ):
            raise AsmSyntaxError(f"not a valid operand: {head} {' '.join(rest)}", text)
        fi = _number(rest[0].split(":")[1], rest[0], 1, text) if rest else 0
        row = ROWS[g, f"{base}_dpp8{'fi' if fi else ''}"]
        fields["sels"] = sum(int(x) << (3 * i) for i, x in enumerate(sels))
        return Insn(row, fields, None, mcpu)
    allowed = ["row_mask", "bank_mask", "bound_ctrl"] + (["fi"] if g != "gfx9" else [])
    if (
        len(set(names)) != len(names)
        or any(n not in allowed for n in names)
        or names != sorted(names, key=allowed.index)
    ):
        raise AsmSyntaxError(f"not a valid operand: {' '.join(rest)} (write {', '.join(allowed)} in that order)", text)
    values = {n: t.split(":", 1)[1] for n, t in zip(names, rest)}
    row = ROWS[g, f"{base}_dpp"]
    fields.update({k: 0 for k in row.layout.fields if k.startswith(("x", "z"))})
    fields["dpp_ctrl"] = dpp.parse_ctrl(head, mcpu)
    fields["row_mask"] = _number(values.get("row_mask", "15"), "row_mask", 15, text)
    fields["bank_mask"] = _number(values.get("bank_mask", "15"), "bank_mask", 15, text)
    _number(values.get("bound_ctrl", "0"), "bound_ctrl", 1, text)
    fields["bound_ctrl"] = int("bound_ctrl" in values)  # llvm-mc sets the bit for bound_ctrl:0 as for bound_ctrl:1
    if g != "gfx9":
        fields["fi"] = _number(values.get("fi", "0"), "fi", 1, text)
    return Insn(row, fields, None, mcpu)


def parse(text, mcpu: str) -> Insn:
    """The instruction one line of assembly spells on ``mcpu``."""
    if not isinstance(text, str):
        raise OperandTypeError(f"text={text!r} has type {type(text).__name__}; expected a line of assembly")
    mcpu = check_mcpu(mcpu, encodings=True)
    g = GENERATION[mcpu]
    mnemonic, ops, mods, dpp_tokens = _split(text)
    base = mnemonic.removesuffix("_e32").removesuffix("_e64").removesuffix("_dpp")
    rows = _candidates(mnemonic, g)
    if not rows or not _available(base, mcpu):
        ins = INSTRUCTIONS[base]
        has = ", ".join(sorted(FEATURES[mcpu])) or "no dot features"
        raise UnsupportedOnTarget(
            f"{mnemonic} is not available on {mcpu}: it needs target feature {ins.feature} and one of the "
            f"encodings of {', '.join(ins.opcodes)}; {mcpu} is {g} with {has}"
        )
    if dpp_tokens:
        return _encode_dpp(base, mnemonic, ops, dpp_tokens, mods, mcpu, text)
    if mnemonic.endswith("_dpp"):  # llvm-mc's words: a DPP form needs its control (quad_perm:[...], dpp8:[...])
        raise AsmSyntaxError("too few operands for instruction: a _dpp form needs a DPP control", text, None)
    error: Exception | None = None
    for row in rows:
        try:
            return _encode(row, ops, mods, mcpu, text)
        except AsmSyntaxError as exc:
            error = error or exc
    raise error  # type: ignore[misc]


def assemble(text, mcpu: str) -> bytes:
    """The bytes (as in memory) of one or more lines of assembly (separated by newlines or ``;``)."""
    if not isinstance(text, str):
        raise OperandTypeError(f"text={text!r} has type {type(text).__name__}; expected assembly text")
    lines = [ln for part in text.splitlines() for ln in part.split(";") if ln.strip()]
    return b"".join(parse(ln, mcpu).to_bytes() for ln in lines)


__all__ = ["Insn", "assemble", "decode_one", "disassemble", "parse"]
