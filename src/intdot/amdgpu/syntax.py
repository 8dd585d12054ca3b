"""The text of AMDGPU assembly as llvm-mc 19 reads it: comments, tokens, operands and modifiers.

This is the reading half of :mod:`.asm`: a line becomes a :class:`Statement` (mnemonic, operands, modifiers,
DPP controls), each piece with its column, and :mod:`.asm` then checks it against the instruction's encoding.
What it follows, each point checked against ``llvm-mc-19 -arch=amdgcn`` in tests/amdgpu/test_syntax.py:

- ``;`` and ``//`` start a comment that runs to the end of the line; ``/* ... */`` is a comment that may span
  lines; a line whose first non-blank character is ``#`` is a comment (``# 1 "k.c"`` lines of cpp output), while
  ``#`` elsewhere is an error. Statements are separated by newlines only.
- The mnemonic is read in any case; registers, modifiers and DPP controls in lower case only.
- Commas between operands may be left out (``v_dot4_i32_i8 v0 v1, v2, v3``); one trailing comma is allowed.
- Registers: ``v1``, ``v[1]``, ``v[1:1]``, ``[v1]`` (a list of one register), ``s[2]``, ``ttmp[3]``; the index
  may be an expression (``v[1+1]``). A range of more than one register is a 64-bit operand: refused.
- Integers: decimal, ``0x``, ``0b``, octal ``017``, and constant expressions with LLVM's operators and precedence
  (``1+2``, ``(4*2)``, ``-(1)``, ``~0``, ``1<<4``, comparisons giving -1 or 0), evaluated in 64 bits.
- Floats (``1.0``, ``-0.5``, ``.5``, ``1e10``, ``0x1.8p1``), alone or after one ``-``, are read as doubles and
  rounded to their 32-bit pattern; one that overflows or underflows the 32-bit range is refused.
- Symbols (``x``, ``x+1``) are refused: llvm-mc turns them into a relocation, which intdot does not model.
"""

from __future__ import annotations

import math
import re
import struct
from dataclasses import dataclass, field

from ..core.errors import AsmSyntaxError, quote
from ..core.values import small_decimal

# ---------------------------------------------------------------- comments


def strip_comments(text: str) -> list[tuple[int, str, str]]:
    """``(line number, line, line without comments)`` for each statement of ``text``, comments blanked out so
    that columns stay those of the input. A ``/* */`` comment that spans lines joins them into one statement,
    as llvm-mc reads it (their text joined by a blank where the line breaks were)."""
    out: list[tuple[int, str, str]] = []
    raw: list[str] = []
    line: list[str] = []
    first = physical = 1
    i, n = 0, len(text)
    in_block, block_at = False, (0, 0, "")
    start_of_line = True
    while i < n:
        c = text[i]
        if in_block:
            if text.startswith("*/", i):
                raw.append("*/")
                line.append("  ")
                i += 2
                in_block = False
                continue
            if c == "\n":
                physical += 1
            raw.append(" " if c == "\n" else c)
            line.append("\t" if c == "\t" else " ")
            i += 1
            continue
        if c == "\n":
            out.append((first, "".join(raw), "".join(line)))
            raw, line, start_of_line = [], [], True
            physical += 1
            first = physical
            i += 1
            continue
        if text.startswith("/*", i):
            in_block, block_at = True, (physical, len("".join(line)) + 1, text.split("\n")[physical - 1])
            raw.append("/*")
            line.append("  ")
            i += 2
            continue
        if c == ";" or text.startswith("//", i) or (c == "#" and start_of_line):
            end = text.find("\n", i)
            end = n if end < 0 else end
            raw.append(text[i:end])
            i = end
            continue
        if not c.isspace():
            start_of_line = False
        raw.append(c)
        line.append(c)
        i += 1
    if in_block:
        row, col, shown = block_at
        exc = AsmSyntaxError("unterminated comment: '/*' without '*/'", shown, col if row == first else None)
        exc.line = row
        raise exc
    out.append((first, "".join(raw), "".join(line)))
    return out


# ---------------------------------------------------------------- tokens


@dataclass(frozen=True)
class Tok:
    kind: str  # "ident", "int", "real", "punct", "end"
    text: str
    col: int  # 1-based
    value: object = None


_PUNCT = ("<<", ">>", "<=", ">=", "==", "!=", "<>", "&&", "||") + tuple(",[]():+-*/%&|^~!<>=")
_IDENT = re.compile(r"[A-Za-z_$][\w.$@?]*|\.[A-Za-z_$.][\w.$@?]*|\.(?![0-9])")
_HEXFLOAT = re.compile(r"0[xX]([0-9a-fA-F]*)(\.[0-9a-fA-F]*)?[pP]([+-]?[0-9]+)")
_REAL = re.compile(r"[0-9]*\.[0-9]*(?:[eE][+-]?[0-9]*)?|[0-9]+[eE][+-]?[0-9]*")
_INT = re.compile(r"0[xX][0-9a-fA-F]+|0[bB][01]+|[0-9]+")


def tokens(line: str) -> list[Tok]:
    """The tokens of one comment-free line, ending with an ``end`` token."""
    out, i = [], 0
    while i < len(line):
        c = line[i]
        if c.isspace():
            i += 1
            continue
        col = i + 1
        m = _HEXFLOAT.match(line, i)
        if m and (m.group(1) or (m.group(2) or ".")[1:]):
            mant = (m.group(1) or "0") + (m.group(2) or "")
            out.append(Tok("real", m.group(0), col, float.fromhex(f"0x{mant}p{m.group(3)}")))
            i = m.end()
            continue
        m = _REAL.match(line, i)
        if m and (c.isdigit() or (c == "." and i + 1 < len(line) and line[i + 1].isdigit())):
            t = m.group(0)
            if not re.search(r"[eE][+-]?[0-9]", t):
                t = re.sub(r"[eE][+-]?$", "", t)  # llvm-mc reads '1e' and '1.0e' as 1.0
            out.append(Tok("real", m.group(0), col, float(t.rstrip(".") or "0") if t != "." else 0.0))
            i = m.end()
            if i < len(line) and (line[i].isalnum() or line[i] in "_$."):
                raise AsmSyntaxError(f"not a number: {quote(line[col - 1 : i + 1])}", line, col)
            continue
        if c.isdigit():
            m = _INT.match(line, i)
            t = m.group(0)
            end = m.end()
            if end < len(line) and (line[end].isalnum() or line[end] in "_$."):
                raise AsmSyntaxError(
                    f"not a number: {quote(line[i : end + 1])} (integers are decimal, 0x hex, 0b binary or 0 octal)",
                    line,
                    col,
                )
            if len(t) > 1 and t[0] == "0" and t[1].isdigit():
                if any(d in "89" for d in t):
                    raise AsmSyntaxError(f"not a number: {quote(t)} (a leading 0 makes it octal)", line, col)
                value = int(t, 8)
            elif t[:2].lower() in ("0x", "0b"):
                value = int(t, 0)  # no limit on the digits of a power-of-two base
            else:
                value = small_decimal(t)  # past 40 digits: 10**40, which fails the 64-bit check below
            if value >= 1 << 64:
                raise AsmSyntaxError(f"{quote(t, marks=False)} does not fit 64 bits", line, col)
            out.append(Tok("int", t, col, value))
            i = end
            continue
        m = _IDENT.match(line, i)
        if m and m.group(0) != ".":
            out.append(Tok("ident", m.group(0), col))
            i = m.end()
            continue
        for p in _PUNCT:
            if line.startswith(p, i):
                out.append(Tok("punct", p, col))
                i += len(p)
                break
        else:
            raise AsmSyntaxError(f"unexpected character {c!r}", line, col)
    out.append(Tok("end", "", len(line.rstrip()) + 1))
    return out


# ---------------------------------------------------------------- expressions (llvm-mc's, in 64 bits)

_MASK = (1 << 64) - 1
# LLVM's GNU-flavoured binary operators: precedence, as MCAsmParser ranks them (higher binds tighter)
_BINARY = {
    "||": 1, "&&": 2,
    "==": 3, "!=": 3, "<>": 3, "<": 3, "<=": 3, ">": 3, ">=": 3,
    "+": 4, "-": 4,
    "|": 5, "!": 5, "&": 5, "^": 5,
    "*": 6, "/": 6, "%": 6, "<<": 6, ">>": 6,
}  # fmt: skip


def _s64(v: int) -> int:
    v &= _MASK
    return v - (1 << 64) if v >> 63 else v


def _apply(op: str, a: int, b: int, tok: Tok, line: str) -> int:
    if op in ("/", "%"):
        if b == 0:
            raise AsmSyntaxError(f"division by zero in a constant expression ({op})", line, tok.col)
        q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)  # C's: rounded toward zero
        return _s64(q if op == "/" else a - q * b)
    if op == "<<":
        return _s64(a << (b & 63))  # llvm-mc 19 shifts by the amount's low 6 bits: 1<<64 is 1
    if op == ">>":
        return _s64((a & _MASK) >> (b & 63))  # a logical shift: -1>>1 is 0x7fffffffffffffff
    if op in ("==", "!=", "<>", "<", "<=", ">", ">="):
        true = {"==": a == b, "!=": a != b, "<>": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
        return -1 if true else 0  # as GNU as: true is -1
    ops = {
        "||": lambda: int(bool(a) or bool(b)), "&&": lambda: int(bool(a) and bool(b)),
        "+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
        "|": lambda: a | b, "!": lambda: a | ~b, "&": lambda: a & b, "^": lambda: a ^ b,
    }  # fmt: skip
    return _s64(ops[op]())


class Reader:
    """A cursor over one line's tokens."""

    def __init__(self, line: str):
        self.line = line
        self.toks = tokens(line)
        self.i = 0

    @property
    def tok(self) -> Tok:
        return self.toks[self.i]

    def peek(self, k: int = 1) -> Tok:
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def next(self) -> Tok:
        t = self.toks[self.i]
        self.i = min(self.i + 1, len(self.toks) - 1)
        return t

    def is_(self, text: str) -> bool:
        return self.tok.kind == "punct" and self.tok.text == text

    def error(self, message: str, tok: Tok | None = None) -> AsmSyntaxError:
        return AsmSyntaxError(message, self.line, (tok or self.tok).col)

    def expect(self, text: str, what: str) -> Tok:
        if not self.is_(text):
            raise self.error(f"expected {what}" + (f", found {quote(self.tok.text)}" if self.tok.text else ""))
        return self.next()

    def expr(self, min_prec: int = 1) -> int:
        """A constant expression, as llvm-mc evaluates it (64-bit, wrapping)."""
        lhs = self.unary()
        while self.tok.kind == "punct" and _BINARY.get(self.tok.text, 0) >= min_prec:
            op = self.next()
            rhs = self.expr(_BINARY[op.text] + 1)
            lhs = _apply(op.text, lhs, rhs, op, self.line)
        return lhs

    def unary(self) -> int:
        t = self.tok
        if t.kind == "punct" and t.text in ("-", "+", "~", "!"):
            self.next()
            v = self.unary()
            return {"-": lambda: _s64(-v), "+": lambda: v, "~": lambda: _s64(~v), "!": lambda: int(v == 0)}[t.text]()
        if t.kind == "punct" and t.text == "(":
            self.next()
            v = self.expr()
            self.expect(")", "')' to close the '(' of column " + str(t.col))
            return v
        if t.kind == "int":
            self.next()
            return _s64(t.value)
        if t.kind == "real":  # inside an expression llvm-mc reads a float as its double's 64 bits
            self.next()
            return _s64(struct.unpack("<q", struct.pack("<d", t.value))[0])
        if t.kind == "ident" and (t.text in NAMED or re.fullmatch(r"(v|s|ttmp|a)[0-9]*", t.text)):
            raise self.error(f"not a valid operand: the register {quote(t.text)} cannot be negated or computed with")
        if t.kind == "ident":
            raise self.error(
                f"{quote(t.text)} is a symbol: intdot reads constant expressions only (llvm-mc would emit a relocation)"
            )
        raise self.error(f"expected a number or an expression, found {quote(t.text or 'the end of the line')}")


def f32_bits(x: float) -> int | None:
    """The 32-bit pattern llvm-mc gives the double ``x`` for a 32-bit operand, or None where it refuses it
    (rounding overflows to infinity, or underflows: a result below the normal range that is not exact)."""
    if math.isinf(x) or math.isnan(x):
        return struct.unpack("<I", struct.pack("<f", x))[0]
    try:
        packed = struct.pack("<f", x)
    except OverflowError:
        return None
    r = struct.unpack("<f", packed)[0]
    if r != x and abs(r) < 2.0**-126:
        return None
    return struct.unpack("<I", packed)[0]


# ---------------------------------------------------------------- statements


@dataclass(frozen=True)
class Operand:
    """One source or destination: ``kind`` "reg" (``value`` the register's canonical name), "int" (a 64-bit
    value) or "float" (its 32-bit pattern); ``col`` where it starts, ``text`` as written."""

    kind: str
    value: object
    col: int
    text: str


@dataclass
class Statement:
    line: str
    mnemonic: str
    col: int
    operands: list[Operand] = field(default_factory=list)
    mods: dict = field(default_factory=dict)  # VOP3P modifier -> (bits or 1, column)
    dpp: list = field(default_factory=list)  # (name, value, column): value an int, a list of ints, or None

    def error(self, message: str, col: int | None = None) -> AsmSyntaxError:
        return AsmSyntaxError(message, self.line, col if col is not None else self.col)


MODS = ("op_sel", "op_sel_hi", "neg_lo", "neg_hi")
DPP_LISTS = {"quad_perm": 4, "dpp8": 8}
DPP_VALUES = ("row_shl", "row_shr", "row_ror", "wave_shl", "wave_rol", "wave_shr", "wave_ror", "row_bcast",
              "row_share", "row_xmask", "row_newbcast", "row_mask", "bank_mask", "bound_ctrl", "fi")  # fmt: skip
DPP_BARE = ("row_mirror", "row_half_mirror")
_KEYWORDS = (*MODS, "clamp", *DPP_LISTS, *DPP_VALUES, *DPP_BARE)
_SPECIAL_ALIASES = {
    "shared_base": "src_shared_base", "shared_limit": "src_shared_limit", "private_base": "src_private_base",
    "private_limit": "src_private_limit", "pops_exiting_wave_id": "src_pops_exiting_wave_id",
    "vccz": "src_vccz", "execz": "src_execz", "scc": "src_scc", "lds_direct": "src_lds_direct",
}  # fmt: skip
_REG_FILES = ("v", "s", "ttmp", "a")
# Every named 32-bit register of any generation (which generation has which: operands.register_value)
NAMED = frozenset(
    ("vcc_lo", "vcc_hi", "exec_lo", "exec_hi", "m0", "null", "flat_scratch_lo", "flat_scratch_hi", "xnack_mask_lo",
     "xnack_mask_hi", *_SPECIAL_ALIASES.values())
)  # fmt: skip
_WIDE = ("vcc", "exec", "flat_scratch", "xnack_mask", "tba", "tma")


def _register(r: Reader) -> Operand | None:
    """A register operand at the cursor (``v1``, ``v[1]``, ``v[1:1]``, ``[v1]``, ``vcc_lo``...), or None."""
    t = r.tok
    if t.kind == "punct" and t.text == "[":
        r.next()
        regs = [_register(r)]
        if regs[0] is None:
            raise r.error("expected a register or a list of registers")
        while r.is_(","):
            r.next()
            reg = _register(r)
            if reg is None:
                raise r.error("expected a register or a list of registers")
            regs.append(reg)
        r.expect("]", "a comma or a closing square bracket")
        if len(regs) > 1:
            raise AsmSyntaxError(
                f"invalid operand for instruction: a list of {len(regs)} registers is a {32 * len(regs)}-bit "
                "operand; these instructions read 32-bit registers",
                r.line,
                t.col,
            )
        return Operand("reg", regs[0].value, t.col, r.line[t.col - 1 : r.toks[r.i - 1].col])
    if t.kind != "ident":
        return None
    m = re.fullmatch(r"(v|s|ttmp|a)([0-9]+)", t.text)
    if m:
        r.next()
        return Operand("reg", m.group(1) + (m.group(2).lstrip("0") or "0"), t.col, t.text)  # v01 is v1
    if t.text in _REG_FILES and r.peek().kind == "punct" and r.peek().text == "[":
        r.next()
        r.next()
        at = r.tok
        lo = r.expr()
        hi = lo
        if r.is_(":"):
            r.next()
            hi = r.expr()
        close = r.expect("]", "a closing square bracket")
        if lo < 0 or hi < 0:
            raise AsmSyntaxError("invalid register index: it is negative", r.line, at.col)
        if lo > hi:
            raise AsmSyntaxError("first register index should not exceed second index", r.line, at.col)
        if hi != lo:
            raise AsmSyntaxError(
                f"invalid operand for instruction: {t.text}[{lo}:{hi}] is {hi - lo + 1} registers; these "
                "instructions read one 32-bit register",
                r.line,
                t.col,
            )
        return Operand("reg", f"{t.text}{lo}", t.col, r.line[t.col - 1 : close.col])
    name = _SPECIAL_ALIASES.get(t.text, t.text)
    if name in NAMED:
        r.next()
        return Operand("reg", name, t.col, t.text)
    if t.text in _WIDE:
        raise AsmSyntaxError(
            f"invalid operand for instruction: {t.text} is a 64-bit register pair; these instructions read 32 bits "
            f"({t.text}_lo or {t.text}_hi)",
            r.line,
            t.col,
        )
    return None


def _value(r: Reader) -> Operand:
    """A source that is not a register: a float (alone, or after one '-') or a constant expression."""
    t = r.tok
    neg = t.kind == "punct" and t.text == "-" and r.peek().kind == "real"
    if t.kind == "real" or neg:
        if neg:
            r.next()
        real = r.next()
        bits = f32_bits(-real.value if neg else real.value)
        if bits is None:
            shown = quote(r.line[t.col - 1 : real.col - 1 + len(real.text)], marks=False)
            raise AsmSyntaxError(
                f"invalid operand for instruction: {shown} is out of "
                "the range of a 32-bit float (it overflows, or underflows to a value that is not exact)",
                r.line,
                t.col,
            )
        return Operand("float", bits, t.col, r.line[t.col - 1 : real.col - 1 + len(real.text)])
    v = r.expr()
    end = r.toks[r.i - 1]
    return Operand("int", v, t.col, r.line[t.col - 1 : end.col - 1 + len(end.text)])


def _modifier(r: Reader, st: Statement) -> bool:
    """A VOP3P modifier or DPP control at the cursor, read into ``st``; False where there is none."""
    t = r.tok
    if t.kind != "ident" or t.text not in _KEYWORDS:
        return False
    has_colon = r.peek().kind == "punct" and r.peek().text == ":"
    if t.text == "clamp" or t.text in DPP_BARE:
        if has_colon:
            raise r.error(f"{t.text} takes no value", r.peek())
        r.next()
        if t.text == "clamp":
            _add_mod(r, st, "clamp", 1, t)
        else:
            st.dpp.append((t.text, None, t.col))
        return True
    if not has_colon:
        return False  # a symbol of that name: refused as any symbol
    r.next()
    r.next()
    if t.text in MODS or t.text in DPP_LISTS:
        r.expect("[", "a left square bracket")
        top = 4 if t.text in MODS else DPP_LISTS[t.text]
        values, cols = [r.expr()], [r.toks[r.i - 1].col]
        while r.is_(","):
            r.next()
            if len(values) == top:
                raise r.error(f"expected a closing square bracket: {t.text} takes at most {top} values")
            cols.append(r.tok.col)
            values.append(r.expr())
        r.expect("]", "a comma or a closing square bracket" if len(values) < top else "a closing square bracket")
        if t.text in MODS:
            for v, c in zip(values, cols):
                if v not in (0, 1):
                    raise AsmSyntaxError(f"invalid {t.text} value: {v} (each is 0 or 1)", r.line, c)
            _add_mod(r, st, t.text, sum(v << k for k, v in enumerate(values)), t)
        else:
            if len(values) != top:
                raise AsmSyntaxError(f"{t.text} takes {top} values; got {len(values)}", r.line, t.col)
            st.dpp.append((t.text, values, t.col))
        return True
    st.dpp.append((t.text, r.expr(), t.col))
    return True


def _add_mod(r: Reader, st: Statement, name: str, value: int, tok: Tok) -> None:
    order = (*MODS, "clamp")
    if name in st.mods or any(order.index(k) > order.index(name) for k in st.mods):
        # llvm-mc 19 reads the modifiers once each, in one order: op_sel, op_sel_hi, neg_lo, neg_hi, clamp
        raise AsmSyntaxError(f"not a valid operand: {name} (write {', '.join(order)} in that order, each once)",
                             r.line, tok.col)  # fmt: skip
    st.mods[name] = (value, tok.col)


def read(line: str) -> Statement:
    """The statement of one comment-free, non-blank line."""
    r = Reader(line)
    t = r.tok
    if t.kind != "ident":
        raise r.error("expected an instruction mnemonic")
    r.next()
    st = Statement(line, t.text.lower(), t.col)
    while r.tok.kind != "end":
        start = r.tok
        if _modifier(r, st):
            pass
        elif st.mods or st.dpp:
            raise r.error(_not_valid(start, "after the modifiers"))
        else:
            op = _register(r)
            if op is None:
                if start.kind == "ident":
                    raise r.error(_not_valid(start, "here"))
                op = _value(r)
            st.operands.append(op)
        if r.is_(","):  # llvm-mc reads one comma after an operand, or none
            r.next()
            if r.is_(","):
                raise r.error("expected an operand, found ','")
    return st


def _not_valid(t: Tok, where: str) -> str:
    hint = f" (modifiers are lower case: {t.text.lower()})" if t.text.lower() in _KEYWORDS else ""
    if t.kind == "ident" and not hint:
        if t.text.lower() != t.text and re.fullmatch(r"(v|s|ttmp)[0-9]+", t.text.lower()):
            hint = f" (registers are lower case: {t.text.lower()})"
        else:
            hint = " (a symbol: intdot reads constant expressions only, where llvm-mc would emit a relocation)"
    return f"not a valid operand {where}: {quote(t.text)}{hint}"


__all__ = ["Operand", "Statement", "f32_bits", "read", "strip_comments", "tokens"]
