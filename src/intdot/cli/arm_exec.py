"""``intdot exec``: run Arm instructions on a register state and show what changed."""

from __future__ import annotations

import argparse
import json
import re
import sys

from ..core.errors import IntdotError, OperandError, StateError, UndefinedEncoding, quote
from . import isa_option
from .inputs import at_line, check_path, file_error, pieces, read_text, source_name
from .numbers import integer, parse_int, pattern

_HELP = """\
Run AArch64 instructions on a register state and print the registers each one
changed, lane by lane, in the element type the instruction writes (.s int32, .d int64).

The state starts at zero (or from --state FILE.json), with the vector lengths
--vl (Z registers) and --svl (streaming: Z registers and ZA).  If any
instruction is an SME2 one the state is in streaming mode (Z is SVL long)
unless --no-streaming says otherwise.  --set writes a register before the
instructions run:

  --set z1.b=1,2,3,...     one value per element (.b .h .s .d), signed or unsigned
  --set z1.b=-1            one value fills every element
  --set z1.s=0..7          a range A..B (inclusive) expands to A, A+1, ..., B
  --set v2.16b=...         V registers are the low 128 bits of Z (.b/.16b/.4s/...);
                           .8b/.4h/.2s/.1d write the low 64 bits and keep the rest
  --set za.s[3]=5          ZA row 3 (za[3] alone: bytes); za.s=... all of ZA, row 0 first
  --set z4=hex:00ff...     raw bytes, byte 0 first
  --set w8=5  --set x9=-1  general registers (a W write zero-extends into X)

Instructions are positional arguments, -e options or the lines of -f FILE
('-' for stdin), as text or 32-bit hex words (up to 8 hex digits, 0x optional,
as intdot disasm reads them); ';' or a newline separates several in one
argument, and '//' starts a comment.  They run in that order on one state.

--show names any register as --set does (z0.s, v1.4s, za.s, za.d[3], w8); ZA
as a whole is shown row by row.

examples:
  intdot exec --set v1.b=-1 --set v2.b=0..15 'sudot v0.4s, v1.16b, v2.4b[3]'
  intdot exec --svl 512 --set w8=3 --set z0.b=1 --set z1.b=2 --set z4.b=0..63 \\
      'sudot za.s[w8, 1, vgx2], { z0.b, z1.b }, z4.b[2]' --json
  printf '44ba1c20\\nsudot z0.s, z1.b, z2.b[1]\\n' | intdot exec -f - --set z1.b=1 --set z2.b=2

--isa amdgpu runs the AMD GPU dot instructions on one wave instead (--mcpu names
the processor; every VGPR lane is a 32-bit word):

  --set v1=5 / v1=1,2,3,... / v1=0..63 / v1[3]=5   every lane, lanes 0, 1, ..., one lane
  --set s2=7  --set exec=0xff  --set wave_size=64  an SGPR, the EXEC mask, wave64

  intdot exec --isa amdgpu --mcpu gfx1030 --set v1=1..8 --set v2=0x01010101 \\
      'v_dot4c_i32_i8 v0, v1, v2 dpp8:[7,6,5,4,3,2,1,0]'"""

_PER_LINE = 8


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "exec",
        help="run Arm (or, --isa amdgpu, AMD GPU) dot instructions on a register state",
        description=_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("insns", nargs="*", metavar="INSN", help="instruction text or a hex word")
    p.set_defaults(late_positionals="insns")
    p.add_argument(
        "-e",
        dest="more",
        action="append",
        default=[],
        metavar="INSN",
        help="another instruction (may repeat; runs after the positional ones)",
    )
    p.add_argument(
        "-f",
        "--file",
        metavar="FILE",
        help="instructions from FILE, one a line ('-' for stdin); they run after the others",
    )
    p.add_argument(
        "--vl", type=integer, default=None, help="SVE vector length in bits: 128 (default), 256, 512, 1024 or 2048"
    )
    p.add_argument(
        "--svl", type=integer, default=None, help="streaming vector length (Z when streaming, and ZA): as --vl"
    )
    # One or the other: both given is an error (status 1), as every option given twice is (intdot.cli._Once).
    p.add_argument(
        "--streaming",
        dest="streaming",
        action="store_true",
        default=None,
        help="start in streaming mode (default: when an SME2 instruction is given)",
    )
    p.add_argument(
        "--no-streaming",
        dest="streaming",
        action="store_false",
        help="start outside streaming mode (SME2 instructions then fail, as on hardware)",
    )
    p.add_argument("--state", metavar="FILE", help="start from a JSON state (as written by --save)")
    p.add_argument(
        "--set",
        dest="sets",
        action="append",
        default=[],
        metavar="REG=VALUES",
        help="write a register before running (may repeat; see above)",
    )
    p.add_argument(
        "--show",
        action="append",
        default=[],
        metavar="REG",
        help="also print this register at the end (e.g. z0.s, za.s[4], w8)",
    )
    p.add_argument("--save", metavar="FILE", help="write the final state as JSON")
    p.add_argument(
        "--json", action="store_true", help="print JSON: vl, svl, streaming, steps (insn, word, changed), show, state"
    )
    isa_option.add(p, "exec", "arm")
    p.set_defaults(func=lambda args: isa_option.dispatch(args, "exec", "arm", run_exec))


_PREFIXES = ("0x",)  # as the help and docs/cli.md say: decimal or 0x hex


def _expand(token: str, where: str) -> list[int]:
    token = token.strip()
    number = pattern(_PREFIXES)
    m = re.fullmatch(rf"({number})\.\.({number})", token, re.IGNORECASE)
    if m:
        lo, hi = parse_int(m[1], where, prefixes=_PREFIXES), parse_int(m[2], where, prefixes=_PREFIXES)
        if hi < lo or hi - lo > 4096:
            raise OperandError(f"{where}: range {quote(token)} must run upwards over at most 4097 values")
        return list(range(lo, hi + 1))
    # The element width comes with the register: State.set checks the value against it.
    return [parse_int(token, where, prefixes=_PREFIXES, also="a range A..B")]


def apply_set(state, text: str) -> None:
    """Apply one ``--set REG=VALUES`` to ``state``; REG is any name ``State.set`` accepts."""
    if "=" not in text:
        raise OperandError(f"--set {quote(text)}: expected REG=VALUES, e.g. z1.b=1,2,3 or w8=5")
    name, values = (s.strip() for s in text.split("=", 1))
    if values.lower().startswith("hex:"):
        state.set(name, values[4:])
        return
    if not values:
        raise OperandError(f"--set {quote(text)}: no value after '='")
    items = [v for tok in values.split(",") for v in _expand(tok, f"--set {name}")]
    one = len(items) == 1 and ".." not in values
    state.set(name, items[0] if one else items)


_WORD = re.compile(r"(?:0x)?[0-9a-f]{1,8}", re.IGNORECASE)


def _word_insn(token: str):
    from ..arm.executor import as_insn

    try:
        return as_insn(int(token, 16))
    except UndefinedEncoding as exc:
        if token[:2].lower() != "0x" and not token.isdigit():
            # 'add' or 'fadd' typed as a mnemonic reads as a word; say how it was read.
            raise UndefinedEncoding(f"{quote(token)} was read as the hex word {int(token, 16):#010x}: {exc}") from None
        raise


def _as_insns(text: str, where: str | None = None) -> list:
    """The instructions of one argument: text or a hex word (up to 8 hex digits, 0x
    optional, as ``intdot disasm`` reads words), several separated by ';' or newlines;
    '//' starts a comment.  ``where`` names the file of a line read with -f."""
    from ..arm.executor import as_insn

    out = []
    for line in text.split("\n"):
        for offset, t in pieces(line):
            try:
                # No instruction is a lone run of hex digits: such a token is a word.
                out.append(_word_insn(t) if _WORD.fullmatch(t) else as_insn(t))
            except IntdotError as exc:
                if where is None:
                    raise
                raise at_line(exc, *where, text=line, offset=offset) from None
    if not out and where is None:
        raise OperandError(f"INSN {quote(text)} holds no instruction")
    return out


def _destination(insn) -> tuple[str, str]:
    """(register letter v/z/za, element suffix s/d) of what ``insn`` writes: its row's first operand."""
    first = insn.form.layout.operands[0]
    return ("za" if first.kind == "za" else first.prefix), first.suffix[-1]


def _is_sme(insn) -> bool:
    return _destination(insn)[0] == "za"


def _reg_label(state, name: str, dest: tuple[str, str]) -> str:
    """A changed register's name as the instruction writes it: ``z3`` -> ``z3.s``, or
    ``v3.s`` for a NEON write while Z is 128 bits; ``za[5]`` -> ``za.s[5]``."""
    letter, elem = dest
    if name.startswith("za["):
        return f"za.{elem}" + name[2:]
    if name.startswith("z"):
        return ("v" if letter == "v" and state.zlen == 128 else "z") + name[1:] + f".{elem}"
    return name


def _rows(label: str, values) -> list:
    """(label, values) rows of one register; ZA as a whole gives one row per ZA row."""
    if isinstance(values, int):
        return [(label, values)]
    if values and isinstance(values[0], list):
        base, _, rest = label.partition("[")
        return [(f"{base}[{r}]", row) for r, row in enumerate(values)]
    return [(label, values)]


def _grid(rows: list) -> tuple[int, int, int]:
    """Label, element-index and value widths that fit every row."""
    lw = max([10] + [len(r[0]) for r in rows])
    vectors = [v for _, v in rows if not isinstance(v, int)]
    width = max((len(str(int(x))) for v in vectors for x in v), default=1)
    count = max((len(v) for v in vectors), default=0)
    return lw, max(2, len(str(max(count - 1, 0)))), width


def _block(rows: list, grid: tuple[int, int, int]) -> list[str]:
    """Lines for several registers on one column grid, so that labels, element indices
    and values line up across every row of the output."""
    lw, iw, width = grid
    out = []
    for label, values in rows:
        if isinstance(values, int):
            out.append(f"  {label:{lw}s} {values:#x} ({values})")
            continue
        vals = [int(v) for v in values]
        for s in range(0, len(vals), _PER_LINE):
            head = label if s == 0 else ""
            cells = " ".join(f"{v:>{width}d}" for v in vals[s : s + _PER_LINE])
            out.append(f"  {head:{lw}s} [{s:>{iw}d}] {cells}")
    return out


def _value(state, name: str):
    v = state.get(name)
    return v if isinstance(v, int) else v.tolist()


def _load_state(args):
    from ..arm.state import State

    try:
        with open(args.state, encoding="utf-8-sig") as fh:
            data = json.load(fh)
    except OSError as exc:
        raise file_error("--state", args.state, exc) from None
    except json.JSONDecodeError as exc:
        raise OperandError(
            f"--state {args.state}: not JSON ({exc.msg}, line {exc.lineno}, column {exc.colno})"
        ) from None
    except UnicodeDecodeError:
        raise OperandError(f"--state {args.state}: not JSON (not UTF-8 text)") from None
    except ValueError as exc:  # e.g. an integer of more digits than Python converts
        raise OperandError(f"--state {args.state}: not a state file ({exc})") from None
    except RecursionError:  # arrays nested thousands deep: no state file is
        raise OperandError(f"--state {args.state}: not a state file (its JSON nests too deep)") from None
    if isinstance(data, dict) and "streaming" in data and not isinstance(data["streaming"], bool):
        raise OperandError(  # in JSON's words: the library's message says True or False
            f'--state {args.state}: "streaming": {json.dumps(data["streaming"])[:40]} is not a JSON boolean; '
            "expected true or false"
        )
    try:
        state = State.from_dict(data)
    except IntdotError as exc:  # name the file: the message alone does not say where 'z1.q' came from
        raise type(exc)(f"--state {args.state}: {exc}") from None
    if args.streaming is not None and args.streaming != state.streaming:
        # Switching modes would zero the Z registers the file sets; say so rather than do it.
        raise OperandError(
            f"--state {args.state} has streaming={str(state.streaming).lower()}; "
            "change it in the file instead of with --streaming/--no-streaming"
        )
    return state


def run_exec(args) -> int:
    from ..arm.executor import execute
    from ..arm.state import LENGTHS, State

    for option, path in (("--save", args.save), ("--state", args.state), ("--file", args.file)):
        if path == "" and option == "--file":
            raise OperandError("--file '': the file name is empty; give a path or '-' for stdin")
        if path is not None:
            check_path(path, option)
    texts = list(args.insns) + list(args.more)
    insns = [insn for t in texts for insn in _as_insns(t)]
    if args.file is not None:
        src = source_name(args.file)
        for n, line in enumerate(read_text(args.file, "--file").splitlines(), 1):
            insns += _as_insns(line, (src, n))
        if not insns:
            raise OperandError(f"--file {quote(src)} holds no instruction")
    if not insns:
        raise OperandError(
            "no instruction given; pass instruction text (or a hex word) as an argument, with -e, or in -f FILE"
        )
    if args.state:
        if args.vl is not None or args.svl is not None:
            raise OperandError("--state FILE fixes the vector lengths; leave out --vl/--svl")
        state = _load_state(args)
    else:
        for option, bits in (("--vl", args.vl), ("--svl", args.svl)):
            if bits is not None and bits not in LENGTHS:
                raise OperandError(
                    f"{option} {bits}: not a vector length; expected one of {', '.join(map(str, LENGTHS))}"
                )
        streaming = args.streaming
        if streaming is None:
            streaming = any(_is_sme(i) for i in insns)
        state = State(
            args.vl if args.vl is not None else 128, args.svl if args.svl is not None else 128, streaming=streaming
        )
    for item in args.sets:
        apply_set(state, item)
    for name in args.show:  # a bad name fails before anything runs
        state.get(name)

    steps = []
    for insn in insns:
        before = state.copy()
        if _is_sme(insn) and not state.streaming:
            # The library's message speaks of State/smstart; here the remedy is a flag.
            remedy = (
                f'set "streaming": true in {args.state}'
                if args.state
                else "drop --no-streaming (SME2 instructions then start the state in streaming mode)"
            )
            raise StateError(
                f"{insn.text} is an SME2 instruction and runs only in streaming mode "
                f"(hardware traps it as UNDEFINED otherwise); {remedy}"
            )
        execute(state, insn)
        dest = _destination(insn)
        changed = state.diff(before)
        labels = [_reg_label(state, n, dest) for n in changed]
        steps.append(
            {
                "insn": insn.text,
                "word": f"{insn.word:#010x}",
                "changed": {
                    label: _value(state, label if not n.startswith("x") else n) for n, label in zip(changed, labels)
                },
            }
        )
    shown = {name: _value(state, name) for name in args.show}
    if args.save:
        try:
            with open(args.save, "w", encoding="utf-8") as fh:
                json.dump(state.to_dict(), fh, indent=1)
                fh.write("\n")
        except OSError as exc:
            raise file_error("--save", args.save, exc, writing=True) from None

    if args.json:
        json.dump(
            {
                "vl": state.vl,
                "svl": state.svl,
                "streaming": state.streaming,
                "steps": steps,
                "show": shown,
                "state": state.to_dict(),
            },
            sys.stdout,
            indent=1,
        )
        sys.stdout.write("\n")
        return 0
    mode = "streaming, Z = SVL" if state.streaming else "not streaming, Z = VL"
    print(f"# VL={state.vl} SVL={state.svl} ({mode})")
    blocks = [[r for label, values in step["changed"].items() for r in _rows(label, values)] for step in steps]
    tail = [r for name, values in shown.items() for r in _rows(name.strip(), values)]
    grid = _grid([r for b in blocks for r in b] + tail)
    for step, rows in zip(steps, blocks):
        print(f"{step['insn']}    // {step['word']}")
        if not step["changed"]:
            print("  (no register changed)")
        for line in _block(rows, grid):
            print(line)
    for line in _block(tail, grid):
        print(line)
    return 0
