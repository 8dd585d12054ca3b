"""``intdot disasm``: 32-bit AArch64 words, listings and binaries to LLVM's text.

Every input becomes chunks of words (see :mod:`.binary`); one bulk call of
``intdot.arm.disassemble`` gives the text of all of them, so text and JSON
output cost about the same per word.  Only ``--fields`` and ``--stats`` decode
words one at a time, and only the dot-product ones, once per distinct word.
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from ..core.errors import OperandError, UndefinedEncoding
from . import binary, isa_option
from .fields import field_record, field_text
from .inputs import read_bytes, source_name

_HELP = """\
Disassemble AArch64 words into LLVM's text for the dot-product instructions
intdot models; every other word is '.inst 0x...' (or left out with --only-dot).

Input (any mix):
  WORD ...          hex words (up to 8 digits, 0x optional), or llvm-mc byte
                    lists such as '[0x20,0x1c,0xba,0x44]' (little-endian)
  -f FILE           a text file ('-' for stdin) of hex words ('//' starts a
                    comment), llvm-mc output ('encoding: [...]' lines; fixup
                    bits such as 'A' read as 0), or an 'objdump -d' listing
                    with its encodings (addresses and symbols kept); an
                    AArch64 ELF file (object, shared library, executable) is
                    recognised by its header: every executable section is shown
                    with addresses and symbols, as objdump -d shows them
  -f FILE --raw     a raw binary: words from byte --offset, in --endian order

examples:
  intdot disasm 0x4f22f83f c13f77ff
  intdot disasm '[0x20,0x1c,0xba,0x44]'
  intdot disasm -f kernel.o --only-dot
  intdot disasm -f libkernels.so --stats
  llvm-objdump -d kernel.o | intdot disasm -f - --only-dot
  intdot disasm -f firmware.bin --raw --offset 0x100 --json"""


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "disasm",
        help="disassemble AArch64 words, listings and ELF binaries",
        description=_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("words", nargs="*", metavar="WORD", help="hex word or llvm-mc byte list")
    p.set_defaults(late_positionals="words")
    p.add_argument("--file", "-f", metavar="FILE", help="read words, a listing or a binary from FILE ('-': stdin)")
    p.add_argument("--raw", action="store_true", help="FILE is a raw binary (not text, not ELF)")
    p.add_argument(
        "--offset", type=_offset, default=0, metavar="N", help="--raw: start at byte N (decimal or 0x hex; default 0)"
    )
    p.add_argument(
        "--endian",
        choices=("little", "big"),
        default="little",
        help="--raw: byte order of the words (default little, as AArch64 code is)",
    )
    p.add_argument(
        "--mark",
        action="store_true",
        help="word lists: print '.inst 0x...' for words that are not dot instructions instead of "
        "failing (listings and binaries always do)",
    )
    p.add_argument("--only-dot", action="store_true", help="show only the dot-product instructions")
    p.add_argument(
        "--stats",
        action="store_true",
        help="print how many dot instructions of each form each function holds, not the listing",
    )
    p.add_argument(
        "--fields",
        action="store_true",
        help="show a bit-field diagram of each dot word (with --json: form, feature, ops, fields)",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print JSON: a list, one object a line (word, text; for listings and binaries also section, "
        "address, symbol); with --stats one object",
    )
    isa_option.add(p, "disasm", "arm")
    p.set_defaults(func=lambda args: isa_option.dispatch(args, "disasm", "arm", run_disasm))


def _offset(text: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a byte offset (decimal or 0x hex)") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is negative; expected a byte offset >= 0")
    return value


def gather(args) -> tuple[list[binary.Chunk], bool]:
    """The chunks to disassemble, and whether they are code (binaries, listings) where
    words that are not dot instructions are expected."""
    chunks: list[binary.Chunk] = []
    code = False
    if (args.raw or args.offset or args.endian != "little") and not args.file:
        raise OperandError("--raw, --offset and --endian describe a binary file; give it with -f FILE")
    if args.words:
        chunks.append(binary.words_from_text(list(args.words), "WORD", unit="argument"))
    if args.file is not None:
        name = source_name(args.file)
        if args.raw:
            chunk, left = binary.words_from_raw(
                read_bytes(args.file, "--file"), name, offset=args.offset, endian=args.endian
            )
            if left:
                print(
                    f"intdot disasm: note: the last {left} byte(s) of {name} do not fill a word; not shown",
                    file=sys.stderr,
                )
            chunks.append(chunk)
            code = True
        else:
            if args.offset or args.endian != "little":
                raise OperandError("--offset and --endian apply to raw binaries; add --raw")
            data = read_bytes(args.file, "--file")
            if data.startswith(binary.ELF_MAGIC):
                found = binary.words_from_elf(data, name)
                if not any(len(c.words) for c in found):
                    raise OperandError(
                        f"{name} is an AArch64 ELF file without code (no executable section holds a word)"
                    )
                chunks += found
                code = True
            else:
                text = _text(data, name)
                if binary.is_objdump_listing(text):
                    chunks += binary.words_from_objdump(text, name)
                    code = True
                else:
                    chunks.append(binary.words_from_text(text, name))
    if not any(len(c.words) for c in chunks):
        if chunks and args.file is not None:
            raise OperandError(f"--file {source_name(args.file)!r} holds no words")
        raise OperandError("no words given; pass hex words as arguments or --file F ('-' for stdin)")
    return chunks, code


def _text(data: bytes, name: str) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        kind = binary.other_format(data)
        if kind:
            raise OperandError(
                f"{name} is {kind}; intdot reads AArch64 ELF files itself, and other objects through "
                f"their listing: llvm-objdump -d {name} | intdot disasm -f -"
            ) from None
        raise OperandError(
            f"--file {name!r} is not a text file of hex words and not an ELF file (it is not "
            "UTF-8 text); for a raw binary add --raw"
        ) from None
    return text[1:] if text.startswith("\ufeff") else text


def _texts(chunks) -> list[np.ndarray]:
    """One bulk disassembly of every word; '.word' for data inside code ($d regions)."""
    from ..arm import disassemble

    allw = np.concatenate([c.words for c in chunks]) if len(chunks) > 1 else chunks[0].words
    texts = disassemble(allw, errors="mark") if allw.size else np.empty(0, dtype=object)
    out, at = [], 0
    for c in chunks:
        t = texts[at : at + len(c.words)]
        at += len(c.words)
        if c.data is not None and c.data.any():
            t = t.copy()
            t[c.data] = [f".word {int(w):#010x}" for w in c.words[c.data]]
        out.append(t)
    return out


def _is_dot(texts: np.ndarray) -> np.ndarray:
    return np.array([not t.startswith(".") for t in texts.tolist()], dtype=bool)


def _refuse_unknown(chunks, texts, is_dot) -> None:
    """Word lists without --mark: the first word that is not a dot instruction is an error,
    named by where it was written."""
    bad_total = sum(int((~d).sum()) for d in is_dot)
    total = sum(len(c.words) for c in chunks)
    for c, d in zip(chunks, is_dot):
        bad = np.flatnonzero(~d)
        if bad.size:
            k = int(bad[0])
            where = ""
            if c.where is not None:
                line, col = c.where[k]
                unit = "argument" if c.name == "WORD" else "line"
                where = f"{c.name}, {unit} {line}, column {col}: "
            raise UndefinedEncoding(
                f"{where}{int(c.words[k]):#010x} is not a supported encoding ({bad_total} of {total} words are "
                "not); pass --mark to print '.inst 0x...' for them"
            )


def run_disasm(args) -> int:
    chunks, code = gather(args)
    texts = _texts(chunks)
    is_dot = [_is_dot(t) for t in texts]
    for c, d in zip(chunks, is_dot):
        if c.data is not None:
            d &= ~c.data
    if not (code or args.mark or args.only_dot or args.stats):
        _refuse_unknown(chunks, texts, is_dot)
    if args.stats:
        return _stats(chunks, is_dot, args)
    if args.json:
        return _json(chunks, texts, is_dot, args)
    out = sys.stdout
    for c, t, d in zip(chunks, texts, is_dot):
        if c.addresses is None:
            _plain(c, t, d, args, out)
        else:
            _listing(c, t, d, args, out)
    return 0


# -- text ----------------------------------------------------------------------------------------


def _plain(c, t, d, args, out) -> None:
    idx = np.flatnonzero(d) if args.only_dot else range(len(c.words))
    words = c.words.tolist()
    if not args.fields:
        out.write("".join(f"{words[i]:#010x}  {t[i]}\n" for i in idx))
        return
    for i in idx:
        out.write(f"{words[i]:#010x}  {t[i]}\n")
        if d[i]:
            _diagram(words[i], out)


def _diagram(word: int, out) -> None:
    from ..arm import decode

    out.write(field_text(word, decode(word)))


def _listing(c, t, d, args, out) -> None:
    """objdump -d's layout: the section, a header per symbol, then 'address: word  text'."""
    idx = np.flatnonzero(d) if args.only_dot else np.arange(len(c.words))
    if args.only_dot and not idx.size:
        return
    out.write(f"\nDisassembly of section {c.name}:\n")
    owner = _owner_index(c)
    addrs, words = c.addresses.tolist(), c.words.tolist()
    width = max(8, len(f"{addrs[-1]:x}")) if addrs else 8
    last = None
    lines = []
    for i in idx.tolist():
        sym = owner[i]
        if sym != last and sym is not None:
            s0 = c.symbols[sym][0]
            lines.append(f"\n{addrs[s0]:016x} <{c.symbols[sym][1]}>:\n")
            last = sym
        lines.append(f"{addrs[i]:>{width}x}: {words[i]:08x}  {t[i]}\n")
        if args.fields and d[i]:
            out.write("".join(lines))
            lines = []
            _diagram(words[i], out)
    out.write("".join(lines))


def _owner_index(c) -> list:
    """For each word, the index into ``c.symbols`` of the symbol it lies in (None before the first)."""
    owner: list = [None] * len(c.words)
    for k, (start, _) in enumerate(c.symbols):
        end = c.symbols[k + 1][0] if k + 1 < len(c.symbols) else len(c.words)
        owner[start:end] = [k] * (end - start)
    return owner


# -- JSON ----------------------------------------------------------------------------------------


def _details(words: list) -> dict:
    """Word -> its form, feature, ops and fields, decoded once per distinct word."""
    from ..arm import decode

    return {w: field_record(w, decode(w)) for w in set(words)}


def _json(chunks, texts, is_dot, args) -> int:
    if not args.fields:
        return _json_fast(chunks, texts, is_dot, args)
    parts = []
    for c, t, d in zip(chunks, texts, is_dot):
        idx = np.flatnonzero(d) if args.only_dot else np.arange(len(c.words))
        words = c.words[idx].tolist()
        recs = _records(c, idx, t)
        dot = d[idx].tolist()
        details = _details([w for w, k in zip(words, dot) if k])
        for r, w, k in zip(recs, words, dot):
            r.update(details[w] if k else {"form": None})
        parts.extend(recs)
    dumps = json.JSONEncoder(separators=(", ", ": ")).encode
    # One object a line: valid JSON, readable, and much faster to write than indent=2.
    _write_list([" " + dumps(r) for r in parts])
    return 0


def _records(c, idx, t) -> list[dict]:
    words = c.words[idx].tolist()
    tt = t[idx].tolist()
    if c.addresses is None:
        return [{"word": f"0x{w:08x}", "text": s} for w, s in zip(words, tt)]
    owner = _owner_index(c)
    names = [c.symbols[o][1] if o is not None else None for o in owner]
    return [
        {"section": c.name, "address": f"0x{a:x}", "symbol": names[i], "word": f"0x{w:08x}", "text": s}
        for i, a, w, s in zip(idx.tolist(), c.addresses[idx].tolist(), words, tt)
    ]


def _json_fast(chunks, texts, is_dot, args) -> int:
    """The records written as text, as the text output is: the disassembler's strings
    need no JSON escaping (checked once per chunk), so no per-record encoder runs."""
    lines = []
    enc = json.JSONEncoder().encode
    for c, t, d in zip(chunks, texts, is_dot):
        idx = np.flatnonzero(d) if args.only_dot else np.arange(len(c.words))
        tt = t[idx].tolist()
        if _needs_escape("".join(tt)):
            lines += [" " + enc(r) for r in _records(c, idx, t)]
            continue
        words = c.words[idx].tolist()
        if c.addresses is None:
            lines += [f' {{"word": "0x{w:08x}", "text": "{s}"}}' for w, s in zip(words, tt)]
            continue
        owner = _owner_index(c)
        names = [enc(c.symbols[o][1]) if o is not None else "null" for o in owner]
        sec = enc(c.name)
        lines += [
            f' {{"section": {sec}, "address": "0x{a:x}", "symbol": {names[i]}, "word": "0x{w:08x}", "text": "{s}"}}'
            for i, a, w, s in zip(idx.tolist(), c.addresses[idx].tolist(), words, tt)
        ]
    _write_list(lines)
    return 0


def _needs_escape(text: str) -> bool:
    """Whether JSON would escape anything in ``text`` (string methods: 6x faster than a regex)."""
    return not (text.isascii() and text.isprintable()) or '"' in text or "\\" in text


def _write_list(lines: list[str]) -> None:
    sys.stdout.write("[\n" + ",\n".join(lines) + ("\n]\n" if lines else "]\n"))


# -- --stats -------------------------------------------------------------------------------------


def _form_names(words: list) -> dict:
    from ..arm import decode

    return {w: decode(w).form.name for w in set(words)}


def _stats(chunks, is_dot, args) -> int:
    per_fn: dict = {}
    totals: dict = {}
    dot_words = [w for c, d in zip(chunks, is_dot) for w in c.words[d].tolist()]
    names = _form_names(dot_words)
    for c, d in zip(chunks, is_dot):
        owner = _owner_index(c)
        for i in np.flatnonzero(d).tolist():
            fn = c.symbols[owner[i]][1] if owner[i] is not None else f"({c.name})"
            form = names[int(c.words[i])]
            per_fn.setdefault(fn, {}).setdefault(form, 0)
            per_fn[fn][form] += 1
            totals[form] = totals.get(form, 0) + 1
    words = sum(len(c.words) for c in chunks)
    if args.json:
        json.dump(
            {"words": words, "dot": sum(totals.values()), "functions": per_fn, "total": totals}, sys.stdout, indent=1
        )
        sys.stdout.write("\n")
        return 0
    rows = [(fn, form, str(n)) for fn, forms in per_fn.items() for form, n in sorted(forms.items())]
    rows += [("(total)", form, str(n)) for form, n in sorted(totals.items())]
    header = ("function", "form", "count")
    widths = [max(len(r[k]) for r in rows + [header]) for k in range(3)]
    print(f"{sum(totals.values())} dot instruction(s) in {words} word(s)")
    if rows:
        print("  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip())
        for r in rows:
            print(f"{r[0].ljust(widths[0])}  {r[1].ljust(widths[1])}  {r[2].rjust(widths[2])}")
    return 0
