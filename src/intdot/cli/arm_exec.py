"""``intdot exec``: run Arm instructions on a register state and show what changed."""

from __future__ import annotations

import argparse
import json
import re
import sys

from ..core.errors import OperandError, StateError

_HELP = """\
Run AArch64 instructions on a register state and print the registers each one
changed, lane by lane, in the element type the instruction writes (.s, int32).

The state starts at zero (or from --state FILE.json), with the vector lengths
--vl (Z registers) and --svl (streaming: Z registers and ZA).  If any
instruction is an SME2 one the state is in streaming mode (Z is SVL long)
unless --no-streaming says otherwise.  --set writes a register before the
instructions run:

  --set z1.b=1,2,3,...     one value per element (.b .h .s .d), signed or unsigned
  --set z1.b=-1            one value fills every element
  --set z1.s=0..7          a range A..B (inclusive) expands to A, A+1, ..., B
  --set v2.16b=...         V registers are the low 128 bits of Z (.8b/.16b/.4s/.2s too)
  --set za.s[3]=5          ZA row 3 (za[3] alone: bytes)
  --set z4=hex:00ff...     raw bytes, byte 0 first
  --set w8=5  --set x9=-1  general registers (a W write zero-extends into X)

Instructions are positional arguments or -e options, as text or 32-bit hex words
(0x and up to 8 digits, or exactly 8 digits); ';' or a newline separates several
in one argument, and '//' starts a comment.

examples:
  intdot exec --set v1.b=-1 --set v2.b=0..15 'sudot v0.4s, v1.16b, v2.4b[3]'
  intdot exec --svl 512 --set w8=3 --set z0.b=1 --set z1.b=2 --set z4.b=0..63 \\
      'sudot za.s[w8, 1, vgx2], { z0.b, z1.b }, z4.b[2]' --json"""

_VEC_ARRANGEMENT = {"8b": "b", "16b": "b", "4h": "h", "8h": "h", "2s": "s", "4s": "s", "1d": "d", "2d": "d"}
_ESIZE = {"b": 1, "h": 2, "s": 4, "d": 8}
_PER_LINE = 8


def register(subparsers) -> None:
    p = subparsers.add_parser("exec", help="run Arm instructions on a register state",
                              description=_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("insns", nargs="*", metavar="INSN", help="instruction text or a hex word")
    p.set_defaults(late_positionals="insns")
    p.add_argument("-e", dest="more", action="append", default=[], metavar="INSN",
                   help="another instruction (may repeat; runs after the positional ones)")
    p.add_argument("--vl", type=int, default=None, help="SVE vector length in bits (default 128)")
    p.add_argument("--svl", type=int, default=None, help="streaming vector length in bits (default 128)")
    p.add_argument("--streaming", dest="streaming", action="store_true", default=None,
                   help="start in streaming mode (default: when an SME2 instruction is given)")
    p.add_argument("--no-streaming", dest="streaming", action="store_false",
                   help="start outside streaming mode (SME2 instructions then fail, as on hardware)")
    p.add_argument("--state", metavar="FILE", help="start from a JSON state (as written by --save)")
    p.add_argument("--set", dest="sets", action="append", default=[], metavar="REG=VALUES",
                   help="write a register before running (may repeat; see above)")
    p.add_argument("--show", action="append", default=[], metavar="REG",
                   help="also print this register at the end (e.g. z0.s, za.s[4], w8)")
    p.add_argument("--save", metavar="FILE", help="write the final state as JSON")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(func=run_exec)


def _expand(token: str, where: str) -> list[int]:
    token = token.strip()
    number = r"-?(?:0x[0-9a-f]+|[0-9]+)"
    m = re.fullmatch(rf"({number})\.\.({number})", token, re.IGNORECASE)
    if m:
        lo, hi = _int(m[1]), _int(m[2])
        if hi < lo or hi - lo > 4096:
            raise OperandError(f"{where}: range {token!r} must run upwards over at most 4097 values")
        return list(range(lo, hi + 1))
    if not re.fullmatch(number, token, re.IGNORECASE):
        raise OperandError(f"{where}: {token!r} is not an integer (decimal, 0x hex, or a range A..B)")
    return [_int(token)]


def _int(text: str) -> int:
    """Decimal or 0x hex; a leading 0 is decimal (0..15 is not octal)."""
    neg = text.startswith("-")
    body = text[neg:]
    if body[:2].lower() == "0x":
        value = int(body, 16)
    elif len(body) > 40:  # out of every register's range; Python refuses more than 4300 digits
        raise OperandError(f"{text[:20]}... ({len(body)} digits) is out of range for any register")
    else:
        value = int(body, 10)
    return -value if neg else value


def apply_set(state, text: str) -> None:
    """Apply one ``--set REG=VALUES`` to ``state``."""
    if "=" not in text:
        raise OperandError(f"--set {text!r}: expected REG=VALUES, e.g. z1.b=1,2,3 or w8=5")
    name, values = (s.strip() for s in text.split("=", 1))
    low = None  # an arrangement such as v2.8b: how many elements it names (the low part of V)
    m = re.fullmatch(r"(v[0-9]+)\.([0-9]{1,3})([bhsd])", name, re.IGNORECASE)
    if m:  # v2.16b -> v2.b
        if f"{m[2]}{m[3].lower()}" not in _VEC_ARRANGEMENT:
            raise OperandError(f"--set {text!r}: arrangement .{m[2]}{m[3]} is not known; use one of "
                               f"{sorted(_VEC_ARRANGEMENT)} or .b/.h/.s/.d")
        name, low = f"{m[1]}.{m[3].lower()}", int(m[2])
    if values.lower().startswith("hex:"):
        if low is not None and low * _ESIZE[name[-1]] < 16:
            # A 64-bit arrangement: the hex bytes are the low 8 bytes of V; the rest is kept.
            raw = state.get(name.split(".")[0])
            try:
                data = bytes.fromhex(values[4:].replace("_", ""))
            except ValueError:
                raise OperandError(f"--set {text!r}: {values[4:]!r} is not a hex byte string") from None
            if len(data) != 8:
                raise OperandError(f"--set {text!r}: .{m[2]}{m[3]} is 8 bytes; the hex string has {len(data)}")
            raw[:8] = list(data)
            state.set(name.split(".")[0], raw.tobytes().hex())
            return
        state.set(name, values[4:])
        return
    if not values:
        raise OperandError(f"--set {text!r}: no value after '='")
    items = [v for tok in values.split(",") for v in _expand(tok, f"--set {name}")]
    one = len(items) == 1 and ".." not in values
    if low is not None and low * _ESIZE[name[-1]] < 16:
        # A 64-bit arrangement writes the low 64 bits and keeps the rest of the register.
        current = state.get(name).tolist()
        if not one and len(items) != low:
            raise OperandError(f"--set {text!r}: .{m[2]}{m[3]} has {low} elements; got {len(items)} values")
        current[:low] = items * low if one else items
        state.set(name, current)
        return
    state.set(name, items[0] if one else items)


def _as_insns(text: str) -> list:
    """The instructions of one argument: text or a hex word (``0x`` and 1-8 digits, or
    exactly 8 digits), several separated by ';' or newlines; '//' starts a comment."""
    from ..arm.executor import as_insn

    out = []
    for line in text.split("\n"):
        for piece in line.split("//")[0].split(";"):
            t = piece.strip()
            if not t:
                continue
            if re.fullmatch(r"0x[0-9a-f]{1,8}|[0-9a-f]{8}", t, re.IGNORECASE):
                out.append(as_insn(int(t, 16)))
            else:
                out.append(as_insn(t))
    if not out:
        raise OperandError(f"INSN {text!r} holds no instruction")
    return out


def _element(insn) -> str:
    """The element suffix of what ``insn`` writes (its first template operand: v0.4s, z0.s, za.s -> s)."""
    suffix = insn.form.layout.operands[0].suffix
    return suffix[-1] if suffix and suffix[-1] in _ESIZE else "b"


def _reg_label(state, name: str, elem: str) -> str:
    """``z3`` -> ``v3.s`` when Z is 128 bits long, else ``z3.s``; ``za[5]`` -> ``za.s[5]``."""
    if name.startswith("za["):
        return f"za.{elem}" + name[2:]
    if name.startswith("z"):
        return ("v" if state.zlen == 128 else "z") + name[1:] + f".{elem}"
    return name


def _lines(label: str, values) -> list[str]:
    if isinstance(values, int):
        return [f"  {label:10s} {values:#x} ({values})"]
    vals = [int(v) for v in values]
    width = max(len(str(v)) for v in vals)
    out = []
    for s in range(0, len(vals), _PER_LINE):
        head = label if s == 0 else ""
        cells = " ".join(f"{v:>{width}d}" for v in vals[s:s + _PER_LINE])
        out.append(f"  {head:10s} [{s:>2d}] {cells}")
    return out


def run_exec(args) -> int:
    from ..arm import asm
    from ..arm.executor import execute
    from ..arm.state import State

    texts = list(args.insns) + list(args.more)
    if not texts:
        raise OperandError("no instruction given; pass instruction text (or a hex word) as an argument or with -e")
    insns = [insn for t in texts for insn in _as_insns(t)]
    if args.state:
        if args.vl is not None or args.svl is not None:
            raise OperandError("--state FILE fixes the vector lengths; leave out --vl/--svl")
        try:
            with open(args.state, encoding="utf-8") as fh:
                data = json.load(fh)
        except OSError as exc:
            raise OperandError(f"--state {args.state}: {exc.strerror}") from None
        except json.JSONDecodeError as exc:
            raise OperandError(f"--state {args.state}: not JSON ({exc.msg}, line {exc.lineno})") from None
        except UnicodeDecodeError:
            raise OperandError(f"--state {args.state}: not JSON (not UTF-8 text)") from None
        except ValueError as exc:  # e.g. an integer of more digits than Python converts
            raise OperandError(f"--state {args.state}: not a state file ({exc})") from None
        state = State.from_dict(data)
        if args.streaming is not None and args.streaming != state.streaming:
            # Switching modes would zero the Z registers the file sets; say so rather than do it.
            raise OperandError(f"--state {args.state} has streaming={str(state.streaming).lower()}; "
                               "change it in the file instead of with --streaming/--no-streaming")
    else:
        streaming = args.streaming
        if streaming is None:
            streaming = any(i.form.kind.startswith("sme") for i in insns)
        state = State(args.vl if args.vl is not None else 128, args.svl if args.svl is not None else 128,
                      streaming=streaming)
    for item in args.sets:
        apply_set(state, item)

    steps = []
    for insn in insns:
        before = state.copy()
        if insn.form.kind.startswith("sme") and not state.streaming:
            # The library's message speaks of State/smstart; here the remedy is a flag.
            remedy = (f'set "streaming": true in {args.state}' if args.state
                      else "drop --no-streaming (SME2 instructions then start the state in streaming mode)")
            raise StateError(f"{asm.format_insn(insn)} is an SME2 instruction and runs only in streaming mode "
                             f"(hardware traps it as UNDEFINED otherwise); {remedy}")
        execute(state, insn)
        changed = state.diff(before)
        labels = [_reg_label(state, n, _element(insn)) for n in changed]
        steps.append({
            "insn": asm.format_insn(insn),
            "word": f"{asm.encode(insn):#010x}",
            "changed": {label: state.get(label).tolist() if not n.startswith("x") else state.get(n)
                        for n, label in zip(changed, labels)},
        })
    shown = {name: (state.get(name).tolist() if not re.match(r"\s*[xw]\d", name, re.IGNORECASE)
                    else state.get(name)) for name in args.show}
    if args.save:
        try:
            with open(args.save, "w", encoding="utf-8") as fh:
                json.dump(state.to_dict(), fh, indent=1)
                fh.write("\n")
        except OSError as exc:
            raise OperandError(f"--save {args.save}: {exc.strerror}") from None

    if args.json:
        json.dump({"vl": state.vl, "svl": state.svl, "streaming": state.streaming, "steps": steps,
                   "show": shown, "state": state.to_dict()}, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    mode = "streaming, Z = SVL" if state.streaming else "not streaming, Z = VL"
    print(f"# VL={state.vl} SVL={state.svl} ({mode})")
    for step in steps:
        print(f"{step['insn']}    // {step['word']}")
        if not step["changed"]:
            print("  (no register changed)")
        for label, values in step["changed"].items():
            print("\n".join(_lines(label, values)))
    for name, values in shown.items():
        print("\n".join(_lines(name, values)))
    return 0
