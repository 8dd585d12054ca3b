"""Text <-> operands: assembly text -> :class:`~intdot.arm.records.Insn` and
back, driven by the templates of ``FORMS``.

Printing follows LLVM's canonical text.  Parsing: the line is read into
generic operands (a vector register with an element suffix and optional
``[index]``, a ZA slice group ``za.s[wv, off{, vgxN}]``, a register list
``{ ... }``), then matched against the template of every row with that
mnemonic, choosing among failures as LLVM's matcher does.  Diagnostics follow LLVM's wording and point at the
offending column (1-based, in the original text).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..core.errors import AsmSyntaxError, OperandConstraintError, OperandTypeError, UnknownInstruction, quote
from ..core.values import a_or_an, describe, small_decimal
from .forms import FORMS, MNEMONICS
from .immediates import read_integer
from .records import Form, Insn, Operand

_BY_MNEMONIC: dict[str, list[Form]] = {}
for _f in FORMS:
    _BY_MNEMONIC.setdefault(_f.mnemonic, []).append(_f)


def _shape(kind: str, prefix: str, suffix: str | None, indexed: bool, n: int) -> tuple:
    """What tells the templates of one mnemonic apart, values aside (a ZA group's vgx may be left out)."""
    if kind == "za":
        return ("za", suffix)
    if kind == "zlist":
        return ("zlist", suffix, n)
    return ("vreg", prefix, suffix, indexed)


# (mnemonic, operand shapes) -> the rows with exactly that template: the one to try first.
_BY_SHAPE: dict[tuple, list[Form]] = {}
for _f in FORMS:
    _key = (_f.mnemonic, *(_shape(t.kind, t.prefix, t.suffix, t.indexed, t.n) for t in _f.layout.operands))
    _BY_SHAPE.setdefault(_key, []).append(_f)

_NUM = r"(0|[1-9][0-9]*)"  # register numbers: no leading zeros (LLVM rejects z05)
# No two quantifiers may share characters (a lane index or an offset is read with its blanks and stripped after):
# otherwise a long line of blanks makes the match backtrack for minutes.
_VREG = re.compile(r"([vz])" + _NUM + r"(?:\.([0-9a-z]+))?\s*(?:(\[)(.*)\])?$", re.I)
_ZA = re.compile(r"za(?:\.([a-z0-9]+))?\s*\[\s*(\w+)\s*,([^,\]]*)(?:,\s*(\w+)\s*)?\]$", re.I)
_LIST = re.compile(r"\{(.*)\}$", re.S)
_LIST_REG = re.compile(r"\s*(z)" + _NUM + r"(?:\.([0-9a-z]+))?\s*$", re.I)


def _lead(text: str) -> int:
    return len(text) - len(text.lstrip())


INVALID = "invalid operand for instruction"
LANE = "vector lane must be an integer in range [{lo}, {hi}]."
IMM = "immediate must be an integer in range [{lo}, {hi}]."
WREG = "operand must be a register in range [w{lo}, w{hi}]"
RESTRICTED = "Invalid restricted vector register, expected z{lo}.{t}..z{hi}.{t}"
LIST_ALIGN = (
    "Invalid vector list, expected list with {n} consecutive SVE vectors, where the first "
    "vector is a multiple of {n} and with matching element types"
)


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
    slot: int = 0  # LLVM's operand number of the first operand this one makes


class _Reader:
    def __init__(self, line: str):
        self.line = line

    def error(self, message: str, col: int, cls=AsmSyntaxError):
        return cls(message, self.line, col)

    def integer(self, text: str, col: int, what: str, allow_hash: bool = False) -> int:
        t = text.strip()
        if allow_hash and t.startswith("#"):
            t = t[1:].strip()
        value = read_integer(t)
        if value is None:
            raise self.error(f"expected an integer {what}, got {quote(text.strip())}", col)
        return value

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
                    raise self.error(f"expected vgx2 or vgx4, got {quote(m.group(4))}", col + m.start(4))
                vgx = int(g[3])
            off_col = col + m.start(3) + _lead(m.group(3))
            return Parsed(
                "za",
                col,
                body,
                suffix=(m.group(1) or "").lower() or None,
                wreg=m.group(2).lower(),
                wreg_col=col + m.start(2),
                off=self.integer(m.group(3), off_col, "offset", allow_hash=True),
                off_col=off_col,
                vgx=vgx,
            )
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
                index = self.integer(m.group(5), col + m.start(5) + _lead(m.group(5)), "lane index")
            return Parsed(
                "vreg",
                col,
                body,
                prefix=m.group(1).lower(),
                num=num,
                num_col=col,
                suffix=(m.group(3) or "").lower() or None,
                index=index,
                index_col=col + m.start(4) if m.group(4) else 0,
            )
        raise self.error(f"{INVALID}: cannot read operand {quote(body)}", col)

    def reglist(self, inner: str, col: int, inner_col: int, body: str) -> Parsed:
        # A range "zA.T - zB.T" (wrapping mod 32) or an explicit list "zA.T, zB.T, ...".
        if "," in inner:
            pieces, pos = [], 0
            for part in inner.split(","):
                pieces.append((part, inner_col + pos))
                pos += len(part) + 1
            regs = [self.listreg(p, c) for p, c in pieces]
            for (p, c), r in zip(pieces[1:], regs[1:]):
                self.same_suffix(regs[0], r, c + len(p) - len(p.lstrip()))
            for k in range(1, len(regs)):
                if regs[k][0] != (regs[k - 1][0] + 1) % 32:
                    raise self.error(
                        f"{INVALID}: registers of a list must be consecutive (mod 32), "
                        f"z{regs[k - 1][0]} is followed by z{regs[k][0]}",
                        col,
                    )
            start, count = regs[0][0], len(regs)
            if count > 4:
                raise self.error("invalid number of vectors", col)
        elif "-" in inner:
            a, _, b = inner.partition("-")
            ra = self.listreg(a, inner_col)
            b_col = inner_col + len(a) + 1
            regs = [ra, self.listreg(b, b_col)]
            self.same_suffix(ra, regs[1], b_col + len(b) - len(b.lstrip()))
            start, count = ra[0], (regs[1][0] - ra[0]) % 32 + 1
            # AArch64 lists hold at most four registers; a range must step at least once
            # ({z0.b-z0.b} is an error in LLVM, not a one-register list)
            if count > 4 or count == 1:
                raise self.error("invalid number of vectors", b_col + len(b) - len(b.lstrip()))
        else:
            regs = [self.listreg(inner, inner_col)]
            start, count = regs[0][0], 1
        return Parsed("zlist", col, body, prefix="z", num=start, num_col=col, suffix=regs[0][1], count=count)

    def same_suffix(self, first: tuple, reg: tuple, col: int) -> None:
        # LLVM compares the suffixes as written (.h and .H differ), before the numbers,
        # and reports the register that differs
        if reg[2] != first[2]:
            raise self.error("mismatched register size suffix", col)

    def listreg(self, text: str, col: int) -> tuple[int, str | None]:
        m = _LIST_REG.match(text)
        lead = len(text) - len(text.lstrip())
        if not m or small_decimal(m.group(2)) > 31:
            raise self.error(
                f"{INVALID}: expected a Z register (z0-z31) in the list, got {quote(text.strip())}", col + lead
            )
        return int(m.group(2)), (m.group(3) or "").lower() or None, m.group(3)


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


@dataclass
class _Failure:
    """Why one form does not fit the parsed operands, as LLVM's matcher records it:
    the operand slot it failed at (LLVM numbers a lane index, and each part of a
    ZA group, as operands of their own), and whether the diagnostic is specific
    to that operand class or the generic "invalid operand for instruction"."""

    slot: int
    message: str
    col: int
    cls: type = AsmSyntaxError
    specific: bool = False
    list_align: bool = False


def _generic(slot: int, why: str, col: int) -> _Failure:
    return _Failure(slot, f"{INVALID}: {why}", col)


def _specific(slot: int, message: str, col: int, **kw) -> _Failure:
    return _Failure(slot, message, col, OperandConstraintError, True, **kw)


def _fit(form: Form, t: Operand, p: Parsed, ops: dict[str, int], after: tuple[int, int]) -> _Failure | None:
    """Fill ``ops`` from parsed operand ``p`` for template operand ``t``, or say why it does not fit.
    ``after`` is the (slot, column) of whatever follows ``p`` (where a missing index is missed)."""
    lay = form.layout
    if t.kind != p.kind or (t.kind == "vreg" and t.prefix != p.prefix):
        want = {
            "vreg": f"{a_or_an(t.prefix)} register" + (" with a lane index" if t.indexed else ""),
            "za": f"a ZA array group za.{t.suffix}[wv, offset, vgx{t.n}]",
            "zlist": f"a list of {t.n} Z registers",
        }[t.kind]
        return _generic(p.slot, f"expected {want}", p.col)
    if t.kind == "vreg":
        return _fit_vreg(lay, t, p, ops, after)
    if t.kind == "za":
        if p.suffix != t.suffix:
            return _specific(p.slot, f"invalid matrix operand, expected suffix .{t.suffix}", p.col)
        wfld, ofld = lay.fields[t.ops[0]], lay.fields[t.ops[1]]
        m = re.fullmatch(r"w" + _NUM, p.wreg)
        if not m or small_decimal(m.group(1)) not in wfld.values:
            return _specific(p.slot + 1, WREG.format(lo=wfld.values[0], hi=wfld.values[-1]), p.wreg_col)
        if p.off not in ofld.values:
            return _specific(p.slot + 2, IMM.format(lo=ofld.values[0], hi=ofld.values[-1]), p.off_col)
        if p.vgx is not None and p.vgx != t.n:
            return _generic(p.slot + 3, f"vgx{p.vgx} does not fit this form", p.col)
        ops[t.ops[0]], ops[t.ops[1]] = int(m.group(1)), p.off
        return None
    if p.count != t.n:
        return _generic(p.slot, f"expected a list of {t.n} registers, got {p.count}", p.col)
    if p.suffix != t.suffix:
        return _generic(p.slot, f"expected element type .{t.suffix} in the list, got .{p.suffix or '(none)'}", p.col)
    fld = lay.fields[t.ops[0]]
    if p.num not in fld.values:
        return _specific(
            p.slot, f"{LIST_ALIGN.format(n=fld.scale)} (got a list starting at z{p.num})", p.col, list_align=True
        )
    ops[t.ops[0]] = p.num
    return None


def _fit_vreg(lay, t: Operand, p: Parsed, ops: dict[str, int], after: tuple[int, int]) -> _Failure | None:
    fld = lay.fields[t.ops[0]]
    restricted = RESTRICTED.format(lo=fld.values[0], hi=fld.values[-1], t=t.suffix)
    if p.suffix != t.suffix:
        if t.prefix == "v":
            return _generic(p.slot, f"expected arrangement .{t.suffix}, got .{p.suffix or '(none)'}", p.col)
        if len(fld.values) < 32:
            return _specific(p.slot, restricted, p.num_col)
        return _specific(p.slot, "invalid element width", p.num_col)
    if p.num not in fld.values:
        return _specific(p.slot, restricted, p.num_col)
    ops[t.ops[0]] = p.num
    if t.indexed and p.index is None:
        if t.prefix == "v":  # LLVM's by-element NEON operand is the register and its index together
            return _generic(p.slot, "expected a lane index", p.col)
        return _generic(after[0], "expected a lane index", after[1])
    if not t.indexed and p.index is not None:
        return _generic(p.slot + 1, "this form takes no lane index", p.index_col)
    if t.indexed:
        ifld = lay.fields[t.ops[1]]
        if p.index not in ifld.values:
            return _specific(p.slot + 1, LANE.format(lo=ifld.values[0], hi=ifld.values[-1]), p.index_col)
        ops[t.ops[1]] = p.index
    return None


def _slots(p: Parsed) -> int:
    """How many operands LLVM's parser makes of ``p``."""
    if p.kind == "vreg":
        return 1 + (p.index is not None)
    if p.kind == "za":
        return 3 + (p.vgx is not None)
    return 1


def _match(form: Form, parsed: list[Parsed], total: int, mnemonic_col: int) -> Insn | _Failure:
    tmpl = form.layout.operands
    ops: dict[str, int] = dict(form.layout.consts)
    for i, t in enumerate(tmpl):
        if i >= len(parsed):
            return _Failure(total, "too few operands for instruction", mnemonic_col)
        nxt = parsed[i + 1] if i + 1 < len(parsed) else None
        failure = _fit(form, t, parsed[i], ops, (nxt.slot, nxt.col) if nxt else (total, mnemonic_col))
        if failure is not None:
            if failure.slot >= total:  # LLVM: an operand the text does not have
                return _Failure(total, "too few operands for instruction", mnemonic_col)
            return failure
    if len(parsed) > len(tmpl):
        extra = parsed[len(tmpl)]
        return _generic(extra.slot, "too many operands", extra.col)
    return Insn(form, {k: ops[k] for k in _op_order(form)})


def _pick(failures: list[_Failure]) -> _Failure:
    """LLVM's choice among the forms' failures: the one that got furthest; at the
    same operand a specific diagnostic beats the generic one (the last specific
    wins).  intdot's one departure: a misaligned register list is named even
    where another form got further (LLVM then blames a later operand)."""
    last = max(f.slot for f in failures)
    at_last = [f for f in failures if f.slot == last]
    specific = [f for f in at_last if f.specific]
    best = specific[-1] if specific else at_last[0]
    if not best.specific:
        aligned = [f for f in failures if f.list_align]
        if aligned:
            return aligned[0]
    return best


def parse(text: str) -> Insn:
    """Read one instruction in LLVM's or the reference's spelling.

    Case, spacing, ``{z0.b-z1.b}`` / ``{ z0.b, z1.b }`` lists and a missing
    ``vgxN`` (taken from the list length) are all accepted.

    >>> insn = parse("SUDOT za.s[w9, 3], {z4.b-z7.b}, z2.b[1]")
    >>> insn.form.name, dict(insn.ops)
    ('sudot_sme2_indexed_vgx4', {'wv': 9, 'off': 3, 'zn': 4, 'zm': 2, 'index': 1})
    """
    if not isinstance(text, str):
        raise OperandTypeError(f"text={describe(text)} has type {type(text).__name__}; expected a str")
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
    mnemonic, mnemonic_col, raw_ops = split_line(line, reader)
    forms = _BY_MNEMONIC.get(mnemonic.lower())
    if not forms:
        raise UnknownInstruction(
            f"mnemonic {quote(mnemonic)} is not in intdot's Arm table (it has: {', '.join(MNEMONICS)})"
        )
    parsed = [reader.operand(t, c) for t, c in raw_ops]
    slot = 1  # LLVM's operand 0 is the mnemonic
    for p in parsed:
        p.slot = slot
        slot += _slots(p)
    shape = (mnemonic.lower(), *(_shape(p.kind, p.prefix, p.suffix, p.index is not None, p.count) for p in parsed))
    for form in _BY_SHAPE.get(shape, ()):  # the likely row first; the others only to explain a failure
        got = _match(form, parsed, slot, mnemonic_col)
        if isinstance(got, Insn):
            return got
    failures = []
    for form in forms:
        got = _match(form, parsed, slot, mnemonic_col)
        if isinstance(got, Insn):
            return got
        failures.append(got)
    best = _pick(failures)
    raise reader.error(best.message, best.col, best.cls)


def _op_order(form: Form) -> list[str]:
    order = [op for t in form.layout.operands for op in t.ops]
    return order + [k for k in form.layout.consts if k not in order]


def format_insn(insn: Insn, *, check: bool = True) -> str:
    """LLVM's canonical text of an instruction (its operands checked through
    :func:`~intdot.arm.records.checked_ops` unless ``check=False``, for instructions the decoder made)."""
    if check:
        return insn.text
    return insn.form.mnemonic + " " + ", ".join(t.format(insn.ops) for t in insn.form.layout.operands)


__all__ = ["format_insn", "parse", "split_line"]
