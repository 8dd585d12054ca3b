"""``intdot eval --isa x86 '_mm512_dpbusds_epi32(src, a, b)'``: one x86 intrinsic call on register literals.

A register argument is a vector literal ``[1, 2, ...]`` (its element count fixes the element width: 64
elements of a ``__m512i`` are bytes, 16 are dwords; each value in its signed or unsigned spelling) or a hex
string of the whole register (every digit: 32 for a ``__m128i``), most significant byte first as debuggers
print it (``0x7f7f...``); a mask is an integer.  A name (``src``) stands for the value ``--set src=...`` gives
it.  ``--target`` is checked as ``intdot available`` checks it.  ``--explain`` shows each result lane: the
lanes read, the products (pair sums where they saturate), the accumulator and the result.
"""

from __future__ import annotations

import json
import re

import numpy as np

from ..core.errors import AsmSyntaxError, OperandError, quote

# The call is read as Python would read it, token by token, so that an error can point at its column: names,
# integers (decimal, 0x, 0b, 0o, '_' between digits), and the punctuation of a call and of list literals.
_TOKEN = re.compile(
    r"\s*(?:(?P<number>0[xX][0-9a-fA-F_]*|0[bB][01_]*|0[oO][0-7_]*|\d[\d_]*)|(?P<name>[A-Za-z_]\w*)"
    r"|(?P<punct>[-+()\[\],*;])|(?P<other>\S))"
)
# No register holds an integer of more digits; Python refuses over 4300 in words of its own.
_MAX_DIGITS = 80


class _Arg:
    """One parsed argument: ``kind`` 'list' (``value``: the lanes), 'int', 'hex' (a 0x literal: a mask, or a
    whole register when it has every digit) or 'name'; ``text`` and ``column`` (1-based) where it was written."""

    def __init__(self, kind, value, text, column, digits=""):
        self.kind, self.value, self.text, self.column, self.digits = kind, value, text, column, digits


class _Parser:
    """The call ``NAME(ARG, ...)``; an ARG is an integer, a name, a list ``[v, ...]`` or a repeated one ``[v]*n``.
    ``lanes`` is the most lanes a register argument may have (its bytes): a repetition beyond it is refused
    before the list is built."""

    def __init__(self, text: str, lanes: int, what: str = ""):
        self.text, self.lanes, self.what = text, lanes, what
        self.tokens = []
        for m in _TOKEN.finditer(text):
            kind = m.lastgroup
            if kind is None:  # trailing blanks
                continue
            self.tokens.append((kind, m[kind], m.start(kind)))
        self.at = 0

    def error(self, message: str, offset: int | None = None):
        where = len(self.text) if offset is None else offset
        raise AsmSyntaxError(f"{self.what}{message}", self.text, where + 1)

    def peek(self):
        return self.tokens[self.at] if self.at < len(self.tokens) else ("end", "", len(self.text.rstrip()))

    def take(self, punct: str, expected: str):
        kind, tok, offset = self.peek()
        if (kind, tok) != ("punct", punct):
            found = "the end of the text" if kind == "end" else quote(tok)
            self.error(f"expected {expected}, found {found}", offset)
        self.at += 1

    def call(self, lanes_of) -> tuple[str, list[_Arg]]:
        """The name and arguments; ``lanes_of(name)`` (which refuses an unknown name) sets :attr:`lanes`."""
        kind, name, offset = self.peek()
        if kind != "name":
            self.error("expected an intrinsic call such as '_mm_dpbusd_epi32(src, a, b)'", offset)
        self.at += 1
        self.lanes = lanes_of(name)
        self.take("(", f"'(' after {name}")
        args = []
        while self.peek()[1] != ")" or self.peek()[0] != "punct":
            args.append(self.argument())
            if self.peek()[:2] == ("punct", ","):
                self.at += 1
            elif self.peek()[:2] != ("punct", ")"):
                self.take(")", "',' or ')' after an argument")
        self.take(")", "')'")
        if self.peek()[:2] == ("punct", ";"):
            self.at += 1
        self.end(f"nothing after the call to {name}")
        return name, args

    def end(self, expected: str):
        kind, tok, offset = self.peek()
        if kind != "end":
            self.error(f"expected {expected}, found {quote(tok)}", offset)

    def argument(self) -> _Arg:
        start = self.peek()[2]
        arg = self.primary()
        if self.peek()[:2] == ("punct", "*"):  # [v]*16 (or 16*[v]), as in Python: the list repeated
            self.at += 1
            other = self.primary()
            lst, count = (arg, other) if arg.kind == "list" else (other, arg)
            if lst.kind != "list" or count.kind not in ("int", "hex"):
                self.error("'*' repeats a list: write [v]*n", other.column - 1)
            total = len(lst.value) * count.value
            if total > self.lanes or count.value < 0:
                self.error(
                    f"{quote(self.text[start : self.peek()[2]].strip())} makes {total} lanes; a register "
                    f"holds at most {self.lanes}",
                    start,
                )
            arg = _Arg("list", lst.value * count.value, self.text[start : self.peek()[2]].strip(), start + 1)
        return arg

    def primary(self) -> _Arg:
        kind, tok, offset = self.peek()
        if kind == "punct" and tok == "[":
            self.at += 1
            values = []
            while self.peek()[:2] != ("punct", "]"):
                values.append(self.integer().value)
                if len(values) > self.lanes:
                    self.error(f"more than {self.lanes} lanes in a list; a register holds at most {self.lanes}", offset)
                if self.peek()[:2] == ("punct", ","):
                    self.at += 1
                elif self.peek()[:2] != ("punct", "]"):
                    self.take("]", "',' or ']' in a list")
            self.take("]", "']'")
            return _Arg("list", values, self.text[offset : self.peek()[2]].strip(), offset + 1)
        if kind == "punct" and tok == "(":
            self.error(
                "a parenthesised value is not an argument: a register is a list [v, ...], a mask an integer", offset
            )
        if kind == "name":
            self.at += 1
            return _Arg("name", tok, tok, offset + 1)
        return self.integer()

    def integer(self) -> _Arg:
        kind, tok, offset = self.peek()
        sign = 1
        if kind == "punct" and tok in "+-":
            self.at += 1
            sign = -1 if tok == "-" else 1
            kind, tok, _ = self.peek()
        if kind != "number":
            found = "the end of the text" if kind == "end" else quote(tok)
            self.error(f"expected an integer (decimal, 0x hex or 0b binary), found {found}", self.peek()[2])
        self.at += 1
        digits = tok.replace("_", "")
        if len(digits) > _MAX_DIGITS:
            self.error(f"{quote(tok)} has {len(digits)} digits: more than any register holds", offset)
        try:
            value = sign * int(digits, 0) if not re.fullmatch(r"0\d+", digits) else sign * int(digits, 10)
        except ValueError:
            self.error(f"{quote(tok)} is not an integer (decimal, 0x hex or 0b binary)", offset)
        hexa = digits[2:] if digits[:2].lower() == "0x" and sign == 1 else ""
        return _Arg(
            "hex" if hexa else "int", value, self.text[offset : offset + len(tok) + (sign == -1)], offset + 1, hexa
        )


_PARAM = re.compile(r"(__m\d+i|__mmask\d+)\s+(\w+)")


def _params(row) -> list[tuple[str, str]]:
    """(C type, name) of each parameter of the intrinsic, from its prototype."""
    return _PARAM.findall(row.prototype.partition("(")[2])


def _register_forms(nbytes: int) -> str:
    return (
        f"a list of lanes, lane 0 first ({nbytes} bytes, {nbytes // 2} words or {nbytes // 4} dwords; "
        f"[0]*{nbytes // 4} repeats one), or a hex string of the whole register: 0x and {2 * nbytes} digits, "
        "most significant byte first"
    )


def _argument(arg: _Arg, ctype: str, where: str, names: dict, nbytes: int):
    """One argument of the call: a register's bytes (or lane list) for ``__m...i``, an int for a mask."""
    if arg.kind == "name":
        name = quote(arg.value, marks=False)  # a name is echoed bare, but cut like any value
        if arg.value not in names:
            raise OperandError(
                f"{where}: {quote(arg.value)} is not defined; give it with --set {name}=... or write the literal"
            )
        where = f"{where}, from --set {name}"
        arg = names[arg.value]
    if ctype.startswith("__mmask"):
        if arg.kind == "list":
            raise OperandError(f"{where}: {quote(arg.text)} is a list; a {ctype} is an integer (bit k masks lane k)")
        return arg.value
    if arg.kind == "list":
        return arg.value
    if arg.kind == "hex" and len(arg.digits) == 2 * nbytes:  # a whole register: most significant byte first
        return np.frombuffer(bytes.fromhex(arg.digits)[::-1], dtype=np.uint8).copy()
    n = len(arg.digits)
    got = {"hex": f"a hex string of {n} digit{'s' * (n != 1)}", "int": "an integer"}.get(arg.kind, "a name")
    raise OperandError(f"{where}: {quote(arg.text)} is {got}; a {ctype} register is {_register_forms(nbytes)}")


def _bindings(args, nbytes: int) -> dict:
    """``--set NAME=VALUE``, each value parsed as an argument is (its errors point into the value)."""
    out = {}
    for item in getattr(args, "sets", None) or []:
        name, eq, value = item.partition("=")
        if not eq or not re.fullmatch(r"[A-Za-z_]\w*", name.strip()):
            raise OperandError(
                f"--set {quote(item)}: expected NAME=VALUE (a vector literal, a hex register or an integer)"
            )
        p = _Parser(value, nbytes, f"--set {name.strip()}: ")
        if not p.tokens:
            raise OperandError(f"--set {quote(item)}: no value after '='")
        arg = p.argument()
        p.end("nothing after the value")
        if name.strip() in out and out[name.strip()].text != arg.text:  # the last would silently win
            raise OperandError(
                f"--set {quote(item)}: {name.strip()} is set twice with different values; give each name once"
            )
        out[name.strip()] = arg
    return out


def _explain(row, result: np.ndarray, call_args: list) -> list[dict]:
    """Per result lane: the lanes read, products and accumulation (the core's trace of that lane's step)."""
    from ..core.dotstep import trace
    from ..x86.instructions import PMADDUBSW, PMADDWD
    from ..x86.instructions import row as instruction
    from ..x86.vectors import register

    nbytes = row.bits // 8
    if row.mnemonic in ("pmaddubsw", "pmaddwd"):
        spec, clamp = (PMADDUBSW, True) if row.mnemonic == "pmaddubsw" else (PMADDWD, False)
        a, b = (register(x, n, nbytes, "eval") for x, n in zip(call_args, "ab"))
        acc = np.zeros(nbytes // (spec.acc_bits // 8), dtype=np.uint32)
    else:
        ins = instruction(row.mnemonic)
        spec, clamp = ins.spec, ins.clamp
        regs = [x for x in call_args if not isinstance(x, int)]
        src, a, b = (register(x, n, nbytes, "eval") for x, n in zip(regs, ("src", "a", "b")))
        acc = src.view(np.uint32)
    step = spec.a_bits // 8
    wa, wb = a.view(np.uint8), b.view(np.uint8)
    lanes = []
    for i in range(len(acc)):
        word_a = int.from_bytes(wa[i * step : (i + 1) * step].tobytes(), "little")
        word_b = int.from_bytes(wb[i * step : (i + 1) * step].tobytes(), "little")
        t = trace(spec, word_a, word_b, int(acc[i]), clamp=clamp)
        lanes.append(
            {
                "lane": i,
                "a": list(t.a_lanes),
                "b": list(t.b_lanes),
                "products": list(t.products),
                "pair_sums": list(t.pair_sums),
                "acc": t.acc,
                "exact": t.exact,
                "result": int(result[i]),
            }
        )
    return lanes


def _check_target(name: str, row, target: str) -> str:
    """The canonical name of ``target`` if it has intrinsic ``name``; else the error ``intdot available`` gives.

    The catalog answers for its intrinsics, as ``intdot available`` does: an unknown target, an instruction the
    target lacks, and the intrinsic's own features, which can ask for more than its instruction (the 128- and
    256-bit EVEX forms need avx512vl, the masked ones AVX-512 where AVX-VNNI has the plain instruction).  The
    AVX2 idiom's parts (``_mm_maddubs_epi16``) are intrinsics outside the catalog: their features are read here.
    """
    from .. import catalog
    from ..core.errors import UnknownTarget, UnsupportedOnTarget
    from ..core.features import missing
    from ..isa.registry import front_end

    fe = front_end("x86")
    try:
        catalog.require(name, target)
        listed = True
    except catalog.NotInCatalog:
        listed = False
    try:
        t = fe.target(target, "reference")
    except UnknownTarget as exc:  # only an intrinsic outside the catalog gets here
        raise UnknownTarget(f"{name} is an x86 intrinsic, so the target is {fe.target_help}: {exc}") from None
    lack = None if listed else missing(row.features, t.features)
    if lack is not None:
        raise UnsupportedOnTarget(
            f"{name} ({row.label}) is not available on {t.name}: it requires {row.features}, and {t.name} lacks {lack}"
        )
    return t.name


def run(args) -> int:
    from ..x86 import intrinsics

    text = args.expr
    if text is None:
        raise OperandError("--isa x86 evaluates one call: give it as EXPR (-f is for AMD builtin calls)")

    def lanes_of(name: str) -> int:
        if name not in intrinsics.INTRINSICS:
            import difflib

            close = difflib.get_close_matches(name, list(intrinsics.INTRINSICS), n=3)
            hint = f" (did you mean {' or '.join(close)}?)" if close else ""
            raise OperandError(
                f"{quote(name)} is not an x86 dot intrinsic intdot knows{hint}; 'intdot list --isa x86' lists them"
            )
        return intrinsics.INTRINSICS[name].bits // 8

    name, texts = _Parser(text, 0).call(lanes_of)
    row = intrinsics.INTRINSICS[name]
    nbytes = row.bits // 8
    where = _check_target(name, row, args.target) if args.target is not None else None
    names = _bindings(args, nbytes)
    params = _params(row)
    if len(texts) != len(params):
        raise OperandError(
            f"{name} takes {len(params)} argument{'s' * (len(params) != 1)}, got {len(texts)}; expected {row.prototype}"
        )
    used = {t.value for t in texts if t.kind == "name"}
    unused = [n for n in names if n not in used]
    if unused:  # a misspelt name would otherwise leave its --set unread and the call's name undefined
        raise OperandError(
            f"--set {unused[0]}: the call does not use {quote(unused[0])}; its names are "
            f"{', '.join(sorted(used)) or 'none'}"
        )
    values = [
        _argument(t, ctype, f"{name} argument {k + 1} ({pname})", names, nbytes)
        for k, (t, (ctype, pname)) in enumerate(zip(texts, params))
    ]
    result = np.asarray(getattr(intrinsics, name)(*values))
    lanes = _explain(row, result, values) if args.explain else None
    if args.json:
        out = {
            "call": text.strip(),
            "intrinsic": name,
            "instruction": row.mnemonic,
            "features": row.features,
            "target": where,
            "result": [int(x) for x in result.ravel()],
            "dtype": str(result.dtype),
        }
        if lanes is not None:
            out["lanes"] = lanes
        print(json.dumps(out, indent=2))
        return 0
    print(f"{name} = [{', '.join(str(int(x)) for x in result.ravel())}]  ({result.dtype} x {result.size})")
    for ln in lanes or ():
        pairs = f"  pair sums (saturated) {ln['pair_sums']}" if ln["pair_sums"] else ""
        print(
            f"  lane {ln['lane']:2d}: a {ln['a']} . b {ln['b']} = products {ln['products']}{pairs}; "
            f"acc {ln['acc']} -> {ln['exact']} -> {ln['result']}"
        )
    return 0
