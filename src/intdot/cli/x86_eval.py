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

from ..core.errors import AsmSyntaxError, OperandError

_CALL = re.compile(r"^\s*(?P<name>\w+)\s*\((?P<args>.*)\)\s*;?\s*$", re.S)


def _split_args(text: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += ch == "["
        depth -= ch == "]"
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def _number(text: str, where: str) -> int:
    try:
        return int(text.replace("_", ""), 0)
    except ValueError:
        raise OperandError(f"{where}: {text!r} is not an integer (decimal, 0x hex or 0b binary)") from None


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


def _argument(text: str, ctype: str, where: str, names: dict, nbytes: int):
    """One argument of the call: a register's bytes (or lane list) for ``__m...i``, an int for a mask."""
    text = text.strip()
    if text in names:
        where = f"{where}, from --set {text}"
        text = names[text].strip()
    elif re.fullmatch(r"[A-Za-z_]\w*", text):
        raise OperandError(f"{where}: {text!r} is not defined; give it with --set {text}=... or write the literal")
    if ctype.startswith("__mmask"):
        if text.startswith("["):
            raise OperandError(f"{where}: {text!r} is a list; a {ctype} is an integer (bit k masks lane k)")
        return _number(text, where)
    rep = re.fullmatch(r"\[(.*)\]\s*\*\s*(\d+)", text, re.S)
    if rep:  # [v]*16, as in Python: the list repeated
        return _lanes(rep[1], where) * int(rep[2])
    if text.startswith("[") and text.endswith("]"):
        return _lanes(text[1:-1], where)
    hexa = re.fullmatch(r"0x([0-9a-fA-F_]+)", text)
    digits = hexa[1].replace("_", "") if hexa else ""
    if hexa and len(digits) == 2 * nbytes:  # a whole register: most significant byte first
        return np.frombuffer(bytes.fromhex(digits)[::-1], dtype=np.uint8).copy()
    got = (
        f"a hex string of {len(digits)} digit{'s' * (len(digits) != 1)}"
        if hexa
        else "an integer"
        if _is_number(text)
        else "not a register"
    )
    raise OperandError(f"{where}: {text!r} is {got}; a {ctype} register is {_register_forms(nbytes)}")


def _is_number(text: str) -> bool:
    try:
        int(text.replace("_", ""), 0)
    except ValueError:
        return False
    return True


def _lanes(text: str, where: str) -> list[int]:
    return [_number(t.strip(), where) for t in text.split(",") if t.strip()]


def _bindings(args) -> dict:
    out = {}
    for item in getattr(args, "sets", None) or []:
        name, eq, value = item.partition("=")
        if not eq or not re.fullmatch(r"[A-Za-z_]\w*", name.strip()):
            raise OperandError(f"--set {item!r}: expected NAME=VALUE (a vector literal, a hex register or an integer)")
        out[name.strip()] = value
    return out


def _explain(row, result: np.ndarray, call_args: list) -> list[dict]:
    """Per result lane: the lanes read, products and accumulation (the core's trace of that lane's step)."""
    from ..core.dot import trace
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
    m = _CALL.match(text)
    if not m:
        raise AsmSyntaxError("expected an intrinsic call such as '_mm_dpbusd_epi32(src, a, b)'", text, 1)
    name = m["name"]
    row = intrinsics.INTRINSICS.get(name)
    if row is None:
        import difflib

        close = difflib.get_close_matches(name, list(intrinsics.INTRINSICS), n=3)
        hint = f" (did you mean {' or '.join(close)}?)" if close else ""
        raise OperandError(
            f"{name!r} is not an x86 dot intrinsic intdot knows{hint}; 'intdot list --isa x86' lists them"
        )
    where = _check_target(name, row, args.target) if args.target is not None else None
    names = _bindings(args)
    params, texts = _params(row), _split_args(m["args"])
    if len(texts) != len(params):
        raise OperandError(
            f"{name} takes {len(params)} argument{'s' * (len(params) != 1)}, got {len(texts)}; expected {row.prototype}"
        )
    values = [
        _argument(t, ctype, f"{name} argument {k + 1} ({pname})", names, row.bits // 8)
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
