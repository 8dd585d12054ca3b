"""Assembly text -> :class:`~intdot.arm.insn.Insn`, driven by the templates of ``FORMS``.

The line is read into generic operands (a vector register with an element
suffix and optional ``[index]``, a ZA slice group ``za.s[wv, off{, vgxN}]``,
a register list ``{ ... }``), then matched against the template of every row
with that mnemonic.  Diagnostics follow LLVM's wording and point at the
offending column (1-based, in the original text).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..core.errors import AsmSyntaxError, OperandConstraintError, OperandTypeError, UnknownInstruction
from ..core.values import small_decimal
from .forms import FORMS, MNEMONICS, Operand
from .insn import Form, Insn

_BY_MNEMONIC: dict[str, list[Form]] = {}
for _f in FORMS:
    _BY_MNEMONIC.setdefault(_f.mnemonic, []).append(_f)

# Integers as LLVM's assembler reads them: 0x hex, 0b binary, a leading 0 octal.
_INT = re.compile(r"([+-]?)\s*(?:0x([0-9a-f]+)|0b([01]+)|(0[0-7]*)|([1-9][0-9]*))", re.I)
_NUM = r"(0|[1-9][0-9]*)"  # register numbers: no leading zeros (LLVM rejects z05)
_VREG = re.compile(r"([vz])" + _NUM + r"(?:\.([0-9a-z]+))?\s*(?:(\[)\s*(.*?)\s*\])?$", re.I)
_ZA = re.compile(r"za(?:\.([a-z0-9]+))?\s*\[\s*(\w+)\s*,\s*(#?[^,\]]*?)\s*(?:,\s*(\w+)\s*)?\]$", re.I)
_LIST = re.compile(r"\{(.*)\}$", re.S)
_LIST_REG = re.compile(r"\s*(z)" + _NUM + r"(?:\.([0-9a-z]+))?\s*$", re.I)

INVALID = "invalid operand for instruction"
LANE = "vector lane must be an integer in range [{lo}, {hi}]."
IMM = "immediate must be an integer in range [{lo}, {hi}]."
WREG = "operand must be a register in range [w{lo}, w{hi}]"
RESTRICTED = "Invalid restricted vector register, expected z{lo}.{t}..z{hi}.{t}"
LIST_ALIGN = ("Invalid vector list, expected list with {n} consecutive SVE vectors, where the first "
              "vector is a multiple of {n} and with matching element types")


@dataclass
class Parsed:
    """A generic operand as read from the text (columns are 1-based)."""

    kind: str  # "vreg", "za", "zlist"
    col: int
    text: str
    prefix: str = ""
    num: int = 0
    num_col: int = 0
    suffix: str | None = None
    index: int | None = None
    index_col: int = 0
    wreg: str = ""
    wreg_col: int = 0
    off: int = 0
    off_col: int = 0
    vgx: int | None = None
    count: int = 0


class _Reader:
    def __init__(self, line: str):
        self.line = line

    def error(self, message: str, col: int, cls=AsmSyntaxError):
        return cls(message, self.line, col)

    def integer(self, text: str, col: int, what: str, allow_hash: bool = False) -> int:
        t = text.strip()
        if allow_hash and t.startswith("#"):
            t = t[1:].strip()
        m = _INT.fullmatch(t)
        if not m:
            raise self.error(f"expected an integer {what}, got {text.strip()!r}", col)
        sign, hexa, binary, octal, decimal = m.groups()
        value = (int(hexa, 16) if hexa else int(binary, 2) if binary else int(octal, 8) if octal
                 else small_decimal(decimal))
        return -value if sign == "-" else value

    def operand(self, text: str, col: int) -> Parsed:
        lead = len(text) - len(text.lstrip())
        body = text.strip()
        col += lead
        if not body:
            raise self.error("expected an operand", col)
        m = _ZA.match(body)
        if m:
            vgx = None
            if m.group(4) is not None:
                g = m.group(4).lower()
                if not re.fullmatch(r"vgx[24]", g):
                    raise self.error(f"expected vgx2 or vgx4, got {m.group(4)!r}", col + m.start(4))
                vgx = int(g[3])
            off_col = col + m.start(3)
            return Parsed("za", col, body, suffix=(m.group(1) or "").lower() or None,
                          wreg=m.group(2).lower(), wreg_col=col + m.start(2),
                          off=self.integer(m.group(3), off_col, "offset", allow_hash=True),
                          off_col=off_col, vgx=vgx)
        m = _LIST.match(body)
        if m:
            return self.reglist(m.group(1), col, col + 1, body)
        m = _VREG.match(body)
        if m:
            num = small_decimal(m.group(2))
            if num > 31:
                digits = m.group(2) if len(m.group(2)) <= 12 else m.group(2)[:12] + "..."
                raise self.error(f"{INVALID}: no register {m.group(1)}{digits} (registers are 0-31)", col)
            index = None
            if m.group(4):
                index = self.integer(m.group(5), col + m.start(5), "lane index")
            return Parsed("vreg", col, body, prefix=m.group(1).lower(), num=num, num_col=col,
                          suffix=(m.group(3) or "").lower() or None, index=index,
                          index_col=col + m.start(4) if m.group(4) else 0)
        raise self.error(f"{INVALID}: cannot read operand {body!r}", col)

    def reglist(self, inner: str, col: int, inner_col: int, body: str) -> Parsed:
        # A range "zA.T - zB.T" (wrapping mod 32) or an explicit list "zA.T, zB.T, ...".
        if "," in inner:
            pieces, pos = [], 0
            for part in inner.split(","):
                pieces.append((part, inner_col + pos))
                pos += len(part) + 1
            regs = [self.listreg(p, c) for p, c in pieces]
            for k in range(1, len(regs)):
                if regs[k][0] != (regs[k - 1][0] + 1) % 32:
                    raise self.error(f"{INVALID}: registers of a list must be consecutive (mod 32), "
                                     f"z{regs[k - 1][0]} is followed by z{regs[k][0]}", col)
            start, count = regs[0][0], len(regs)
            if count > 4:
                raise self.error("invalid number of vectors", col)
        elif "-" in inner:
            a, _, b = inner.partition("-")
            ra = self.listreg(a, inner_col)
            b_col = inner_col + len(a) + 1
            regs = [ra, self.listreg(b, b_col)]
            start, count = ra[0], (regs[1][0] - ra[0]) % 32 + 1
            # AArch64 lists hold at most four registers; a range must step at least once
            # ({z0.b-z0.b} is an error in LLVM, not a one-register list)
            if count > 4 or count == 1:
                raise self.error("invalid number of vectors", b_col + len(b) - len(b.lstrip()))
        else:
            regs = [self.listreg(inner, inner_col)]
            start, count = regs[0][0], 1
        suffixes = {r[1] for r in regs}
        if len(suffixes) != 1:
            raise self.error(f"{INVALID}: mismatched element types in register list", col)
        return Parsed("zlist", col, body, prefix="z", num=start, num_col=col,
                      suffix=suffixes.pop(), count=count)

    def listreg(self, text: str, col: int) -> tuple[int, str | None]:
        m = _LIST_REG.match(text)
        lead = len(text) - len(text.lstrip())
        if not m or small_decimal(m.group(2)) > 31:
            raise self.error(f"{INVALID}: expected a Z register (z0-z31) in the list, got {text.strip()!r}",
                             col + lead)
        return int(m.group(2)), (m.group(3) or "").lower() or None


def split_line(line: str, reader: _Reader | None = None) -> tuple[str, int, list[tuple[str, int]]]:
    """Mnemonic, its column, and (operand text, column) pairs split at top-level commas."""
    reader = reader or _Reader(line)
    m = re.match(r"\s*([A-Za-z][A-Za-z0-9.]*)", line)
    if not m:
        raise reader.error("expected an instruction mnemonic", len(line) - len(line.lstrip()) + 1)
    rest_start = m.end()
    ops, depth, cur, cur_col = [], 0, "", rest_start + 1
    for i in range(rest_start, len(line)):
        ch = line[i]
        if ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
            if depth < 0:
                raise reader.error(f"unexpected {ch!r}", i + 1)
        if ch == "," and depth == 0:
            ops.append((cur, cur_col))
            cur, cur_col = "", i + 2
        else:
            cur += ch
    if depth:
        raise reader.error("unbalanced brackets", len(line))
    if cur.strip() or ops:
        ops.append((cur, cur_col))
    return m.group(1), m.start(1) + 1, ops


def _shape_error(t: Operand, p: Parsed) -> str | None:
    """Why parsed operand ``p`` cannot be template operand ``t`` (None: it can, values aside)."""
    if t.kind != p.kind or (t.kind == "vreg" and (t.prefix != p.prefix or t.indexed != (p.index is not None))):
        want = {"vreg": f"a {t.prefix} register" + (" with a lane index" if t.indexed else ""),
                "za": "a ZA array group za.s[wv, offset, vgxN]",
                "zlist": f"a list of {t.n} Z registers"}[t.kind]
        return f"{INVALID}: expected {want}"
    if t.kind == "vreg" and p.suffix != t.suffix:
        if t.prefix == "v":
            return f"{INVALID}: expected arrangement .{t.suffix}, got .{p.suffix or '(none)'}"
        return None  # a Z register's wrong width is reported with its value check, as LLVM does
    if t.kind == "za":
        if p.vgx is not None and p.vgx != t.n:
            return f"{INVALID}: vgx{p.vgx} does not fit this form"
    if t.kind == "zlist":
        if p.count != t.n:
            return f"{INVALID}: expected a list of {t.n} registers, got {p.count}"
        if p.suffix != t.suffix:
            return f"{INVALID}: expected element type .{t.suffix} in the list, got .{p.suffix or '(none)'}"
    return None


def _check_values(reader: _Reader, form: Form, t: Operand, p: Parsed, ops: dict[str, int]) -> None:
    lay = form.layout
    bad = OperandConstraintError
    if t.kind == "vreg":
        fld = lay.fields[t.ops[0]]
        restricted = len(fld.values) < 32
        if t.prefix == "z" and p.suffix != t.suffix:
            if restricted:
                raise reader.error(RESTRICTED.format(lo=fld.values[0], hi=fld.values[-1], t=t.suffix),
                                   p.num_col, bad)
            raise reader.error("invalid element width", p.num_col, bad)
        if p.num not in fld.values:
            raise reader.error(RESTRICTED.format(lo=fld.values[0], hi=fld.values[-1], t=t.suffix),
                               p.num_col, bad)
        ops[t.ops[0]] = p.num
        if t.indexed:
            ifld = lay.fields[t.ops[1]]
            if p.index not in ifld.values:
                raise reader.error(LANE.format(lo=ifld.values[0], hi=ifld.values[-1]), p.index_col, bad)
            ops[t.ops[1]] = p.index
    elif t.kind == "za":
        if p.suffix != t.suffix:
            raise reader.error(f"invalid matrix operand, expected suffix .{t.suffix}", p.col, bad)
        wfld, ofld = lay.fields[t.ops[0]], lay.fields[t.ops[1]]
        m = re.fullmatch(r"w" + _NUM, p.wreg)
        if not m or small_decimal(m.group(1)) not in wfld.values:
            raise reader.error(WREG.format(lo=wfld.values[0], hi=wfld.values[-1]), p.wreg_col, bad)
        if p.off not in ofld.values:
            raise reader.error(IMM.format(lo=ofld.values[0], hi=ofld.values[-1]), p.off_col, bad)
        ops[t.ops[0]], ops[t.ops[1]] = int(m.group(1)), p.off
    else:
        fld = lay.fields[t.ops[0]]
        if p.num not in fld.values:
            raise reader.error(f"{LIST_ALIGN.format(n=fld.scale)} (got a list starting at z{p.num})",
                               p.col, bad)
        ops[t.ops[0]] = p.num


def parse(text: str) -> Insn:
    """Read one instruction in LLVM's or the reference's spelling.

    Case, spacing, ``{z0.b-z1.b}`` / ``{ z0.b, z1.b }`` lists and a missing
    ``vgxN`` (taken from the list length) are all accepted.

    >>> insn = parse("SUDOT za.s[w9, 3], {z4.b-z7.b}, z2.b[1]")
    >>> insn.form.name, dict(insn.ops)
    ('sudot_sme2_indexed_vgx4', {'wv': 9, 'off': 3, 'zn': 4, 'zm': 2, 'index': 1})
    """
    if not isinstance(text, str):
        raise OperandTypeError(f"text={text!r} has type {type(text).__name__}; expected a str")
    # Comments end at their line: "a // x\nb" holds two instructions, "// x\na" one.
    rows = [(row, row.split("//")[0]) for row in text.split("\n")]
    filled = [(row, code) for row, code in rows if code.strip()]
    if len(filled) > 1 or any(";" in code for _, code in filled):
        raise AsmSyntaxError("expected one instruction per call", text.split("\n")[0], None)
    row, line = filled[0] if filled else rows[0]
    line = line.rstrip()
    reader = _Reader(row.rstrip("\r"))  # errors show the line as given, comment included
    for i, ch in enumerate(line):
        if ord(ch) > 127:  # LLVM reads ASCII only: no-break spaces, fullwidth letters or digits
            raise reader.error(f"unexpected character {ch!r} (U+{ord(ch):04X}); instructions are ASCII text", i + 1)
    mnemonic, _, raw_ops = split_line(line, reader)
    forms = _BY_MNEMONIC.get(mnemonic.lower())
    if not forms:
        raise UnknownInstruction(
            f"mnemonic {mnemonic!r} is not in intdot's Arm table (it has: {', '.join(MNEMONICS)}; "
            "sdot/udot/usdot are planned)")
    parsed = [reader.operand(t, c) for t, c in raw_ops]
    best = None  # (score, error message, column) of the closest failing form
    for form in forms:
        tmpl = form.layout.operands
        score, failure = 0, None
        for i, t in enumerate(tmpl):
            if i >= len(parsed):
                failure = ("too few operands for instruction", 1)
                break
            why = _shape_error(t, parsed[i])
            if why:
                failure = (why, parsed[i].col)
                break
            score += 1
        if failure is None and len(parsed) > len(tmpl):
            failure = (f"{INVALID}: too many operands", parsed[len(tmpl)].col)
        if failure is None:
            ops: dict[str, int] = dict(form.layout.consts)
            for t, p in zip(tmpl, parsed):
                _check_values(reader, form, t, p, ops)
            return Insn(form, {k: ops[k] for k in _op_order(form)})
        if best is None or score > best[0]:
            best = (score, *failure)
    raise reader.error(best[1], best[2])


def _op_order(form: Form) -> list[str]:
    order = [op for t in form.layout.operands for op in t.ops]
    return order + [k for k in form.layout.consts if k not in order]


__all__ = ["parse", "split_line"]
