"""What ``intdot disasm`` writes, a block of words at a time: the objdump-like
listing, plain word lists, JSON records and the ``--stats`` table.

Each writer is handed every block of every chunk in order (:meth:`block`),
with the words, which of them are dot instructions and their text; nothing
else of the input is kept, so memory does not grow with the input.  The
listing's lines for the words that are not dot instructions (nearly all of
a library) are built as one byte matrix per block with NumPy; only dot
instructions and symbol headers are formatted one at a time.
"""

from __future__ import annotations

import json
import sys

import numpy as np

from .fields import field_record, field_text

_HEX = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
_POWERS_OF_16 = np.array([16**k for k in range(1, 16)], dtype=np.uint64)
_INST = np.frombuffer(b".inst 0x", dtype=np.uint8)
_WORD = np.frombuffer(b".word 0x", dtype=np.uint8)


def _hex_digits(values: np.ndarray, digits: int) -> np.ndarray:
    """(n, digits) ASCII hex digits of ``values``, most significant first."""
    shifts = np.arange(4 * (digits - 1), -1, -4, dtype=np.uint64)
    return _HEX[((values.astype(np.uint64)[:, None] >> shifts) & np.uint64(15)).astype(np.intp)]


def owners(chunk, idx: np.ndarray) -> np.ndarray:
    """For word indices ``idx`` of ``chunk``, the index into ``chunk.symbols`` of the symbol each lies in (-1: none)."""
    starts = _starts(chunk)
    return np.searchsorted(starts, idx, side="right") - 1


def _starts(chunk) -> np.ndarray:
    cached = getattr(chunk, "_symbol_starts", None)
    if cached is None or len(cached) != len(chunk.symbols):
        cached = np.array([k for k, _ in chunk.symbols], dtype=np.int64)
        chunk._symbol_starts = cached
    return cached


def _decode(word: int):
    from ..arm import decode

    return decode(word)


class Writer:
    """The interface: ``block`` for each block of each chunk in order, then ``finish``."""

    def __init__(self, args, out=None):
        self.args = args
        self.out = out or sys.stdout

    def block(self, chunk, lo: int, words: np.ndarray, dot: np.ndarray, texts: list, data) -> None:
        raise NotImplementedError

    def finish(self) -> None:
        pass


def hex_strings(values: np.ndarray, digits: int = 8) -> list[str]:
    """``format(v, f"0{digits}x")`` of each value, built as one array."""
    if not len(values):
        return []
    return _hex_digits(values, digits).view(f"S{digits}").ravel().astype(f"U{digits}").tolist()


def other_texts(words: np.ndarray, data) -> list[str]:
    """'.inst 0x...' for a word no row decodes, '.word 0x...' for data inside code."""
    hx = hex_strings(words)
    if data is None or not data.any():
        return [".inst 0x" + h for h in hx]
    return [(".word 0x" if d else ".inst 0x") + h for h, d in zip(hx, data.tolist())]


class Plain(Writer):
    """Word lists without addresses: '0x44ba1c20  sudot z0.s, z1.b, z2.b[3]'."""

    def block(self, chunk, lo, words, dot, texts, data):
        shown = np.flatnonzero(dot) if self.args.only_dot else np.arange(len(words))
        ws = words.tolist()
        text = dict(zip(np.flatnonzero(dot).tolist(), texts))
        if not self.args.only_dot:
            text.update(zip(np.flatnonzero(~dot).tolist(), other_texts(words[~dot], _sel(data, ~dot))))
        lines = []
        for i in shown.tolist():
            lines.append(f"{ws[i]:#010x}  {text[i]}\n")
            if self.args.fields and dot[i]:
                lines.append(field_text(ws[i], _decode(ws[i])))
        self.out.write("".join(lines))


def _sel(data, mask):
    return None if data is None else data[mask]


class Listing(Writer):
    """objdump -d's layout: the section, a header per symbol, then 'address: word  text'."""

    def __init__(self, args, out=None):
        super().__init__(args, out)
        self.chunk = None
        self.file = None
        self.last_owner = None
        self.opened = False  # the current chunk's section header is written

    def _open(self, chunk, pieces: list) -> None:
        if chunk.file is not None and chunk.file != self.file:
            self.file = chunk.file
            pieces.append(f"\n{chunk.file}:\tfile format {chunk.file_format}\n")
        pieces.append(f"\nDisassembly of section {chunk.name}:\n")
        self.opened = True

    def block(self, chunk, lo, words, dot, texts, data):
        if chunk is not self.chunk:
            self.chunk, self.last_owner, self.opened = chunk, None, False
            last = chunk.address_block(chunk.count - 1, chunk.count) if chunk.count else None
            self.width = max(8, len(f"{int(last[0]):x}")) if last is not None and len(last) else 8
        addrs = chunk.address_block(lo, lo + len(words))
        pieces: list = []
        if self.args.only_dot:
            self._only_dot(chunk, lo, words, dot, texts, addrs, pieces)
        else:
            if not self.opened:
                self._open(chunk, pieces)
            self._every_word(chunk, lo, words, dot, texts, data, addrs, pieces)
        self.out.write("".join(pieces))

    def _header(self, chunk, k: int) -> str:
        """A symbol's header line, after a blank line (as rows joined by newlines)."""
        start, name = chunk.symbols[k]
        return f"\n{int(chunk.address_block(start, start + 1)[0]):016x} <{name}>:"

    def _matrix(self, addrs: np.ndarray, words: np.ndarray, data) -> np.ndarray:
        """Every line as if no word were a dot instruction: "{addr:>W}: {word:08x}  .inst 0x{word:08x}\\n"."""
        n, width = len(words), self.width
        m = np.empty((n, width + 29), dtype=np.uint8)
        digits = _hex_digits(addrs, width)
        blank = (addrs[:, None] >> np.arange(4 * (width - 1), -1, -4, dtype=np.uint64)) == 0
        blank[:, -1] = False
        digits[blank] = ord(" ")
        m[:, :width] = digits
        m[:, width : width + 2] = np.frombuffer(b": ", np.uint8)
        word_hex = _hex_digits(words, 8)
        m[:, width + 2 : width + 10] = word_hex
        m[:, width + 10 : width + 12] = ord(" ")
        m[:, width + 12 : width + 20] = _INST
        if data is not None and data.any():
            m[data, width + 12 : width + 20] = _WORD
        m[:, width + 20 : width + 28] = word_hex
        m[:, -1] = ord("\n")
        return m

    def _dot_row(self, row: str, word: int, text: str) -> str:
        """A dot instruction's line: the row's address and word, then its text (and --fields' diagram)."""
        line = row[: self.width + 12] + text
        return line + "\n" + field_text(word, _decode(word)).rstrip("\n") if self.args.fields else line

    def _only_dot(self, chunk, lo, words, dot, texts, addrs, pieces):
        idx = np.flatnonzero(dot)
        if not idx.size:
            return
        if not self.opened:
            self._open(chunk, pieces)
        rows = self._matrix(addrs[idx], words[idx], None).tobytes().decode("ascii").split("\n")
        lines = []
        for i, (o, w, t) in enumerate(zip(owners(chunk, idx + lo).tolist(), words[idx].tolist(), texts)):
            if o != self.last_owner and o >= 0:
                lines.append(self._header(chunk, o))
                self.last_owner = o
            lines.append(self._dot_row(rows[i], w, t))
        pieces.append("\n".join(lines) + "\n")

    def _every_word(self, chunk, lo, words, dot, texts, data, addrs, pieces):
        text = self._matrix(addrs, words, data).tobytes().decode("ascii")
        starts = _starts(chunk)
        heads = np.flatnonzero((starts >= lo) & (starts < lo + len(words)))
        if not heads.size and not texts:
            pieces.append(text)
            return
        # The dot instructions' own lines, and the symbol headers before their first word.
        rows = text.split("\n")
        for r, w, t in zip(np.flatnonzero(dot).tolist(), words[dot].tolist(), texts):
            rows[r] = self._dot_row(rows[r], w, t)
        for k in heads.tolist():
            r = int(starts[k]) - lo
            rows[r] = self._header(chunk, k) + "\n" + rows[r]
        pieces.append("\n".join(rows))


class Json(Writer):
    """A JSON list, one object a line: word and text; for listings and binaries also (file,) section,
    address and symbol; with --fields the form, feature, ops and fields of each dot instruction."""

    def __init__(self, args, out=None):
        super().__init__(args, out)
        self.started = False
        self.enc = json.JSONEncoder().encode
        self.dumps = json.JSONEncoder(separators=(", ", ": ")).encode
        self.details: dict = {}

    def _write(self, lines: list[str]) -> None:
        if not lines:
            return
        self.out.write(("[\n" if not self.started else ",\n") + ",\n".join(lines))
        self.started = True

    def finish(self):
        self.out.write("\n]\n" if self.started else "[\n]\n")

    def block(self, chunk, lo, words, dot, texts, data):
        if chunk.addresses is not None and not (self.args.fields or self.args.only_dot):
            if not _needs_escape("".join(texts)):
                return self._runs(chunk, lo, words, dot, texts, data)
        idx = np.flatnonzero(dot) if self.args.only_dot else np.arange(len(words))
        if not idx.size:
            return
        text = np.empty(len(words), dtype=object)
        text[dot] = texts
        if not self.args.only_dot and (~dot).any():
            text[~dot] = other_texts(words[~dot], _sel(data, ~dot))
        tt = text[idx].tolist()
        ws = words[idx].tolist()
        if chunk.addresses is None:
            names = addrs = [None] * len(ws)
        else:
            names = [chunk.symbols[o][1] if o >= 0 else None for o in owners(chunk, idx + lo).tolist()]
            addrs = chunk.address_block(lo, lo + len(words))[idx].tolist()
        if self.args.fields or _needs_escape("".join(tt)):
            dots = dot[idx].tolist() if self.args.fields else [None] * len(ws)
            self._write([self._record(chunk, a, n, w, t, d) for a, n, w, t, d in zip(addrs, names, ws, tt, dots)])
        elif chunk.addresses is None:
            self._write([' {"word": "0x' + w + '", "text": "' + t + '"}' for w, t in zip(hex_strings(words[idx]), tt)])
        else:
            self._write([self._record(chunk, a, n, w, t, None) for a, n, w, t in zip(addrs, names, ws, tt)])

    def _runs(self, chunk, lo, words, dot, texts, data) -> None:
        """Every word of a block of a listing or binary, written as text: the records of each run of
        words that are not dot instructions and share a symbol, an address width and a kind (code or
        data) differ only in their digits, so each run is one byte matrix; the disassembler's strings
        need no JSON escaping (checked by the caller), so no encoder runs per record."""
        n, enc = len(words), self.enc
        addrs = chunk.address_block(lo, lo + n)
        own = owners(chunk, np.arange(lo, lo + n))
        ndig = 1 + np.searchsorted(_POWERS_OF_16, addrs, side="right")  # hex digits of each address
        is_data = data if data is not None else np.zeros(n, dtype=bool)
        cut = (own[1:] != own[:-1]) | (ndig[1:] != ndig[:-1]) | (is_data[1:] != is_data[:-1])
        bounds = [0, *(np.flatnonzero(cut) + 1).tolist(), n]
        addr_digits, word_digits = _hex_digits(addrs, 16), _hex_digits(words, 8)
        head = (f'"file": {enc(chunk.file)}, ' if chunk.file is not None else "") + f'"section": {enc(chunk.name)}'
        head = (" {" + head + ', "address": "0x').encode()
        dots = np.flatnonzero(dot)
        dot_text = dict(zip(dots.tolist(), texts))
        pieces = []
        for a, b in zip(bounds[:-1], bounds[1:]):
            o, d = int(own[a]), int(ndig[a])
            mid = ('", "symbol": ' + enc(chunk.symbols[o][1] if o >= 0 else None) + ', "word": "0x').encode()
            kind = b'", "text": ".word 0x' if is_data[a] else b'", "text": ".inst 0x'
            parts = [head, addr_digits[a:b, 16 - d :], mid, word_digits[a:b], kind, word_digits[a:b], b'"},\n']
            m = np.concatenate([_column(p, b - a) if isinstance(p, bytes) else p for p in parts], axis=1)
            text = m.tobytes()[:-2].decode("ascii")
            inside = dots[(dots >= a) & (dots < b)].tolist()
            if inside:  # their records differ only in the text: '.inst 0x12345678"}' is 18 characters
                rows = text.split(",\n")
                for r in inside:
                    rows[r - a] = rows[r - a][:-18] + dot_text[r] + '"}'
                text = ",\n".join(rows)
            pieces.append(text)
        self._write(pieces)

    def _record(self, chunk, addr, name, w: int, t: str, is_dot) -> str:
        r: dict = {}
        if chunk.file is not None:
            r["file"] = chunk.file
        if chunk.addresses is not None:
            r.update(section=chunk.name, address=f"0x{addr:x}", symbol=name)
        r.update(word=f"0x{w:08x}", text=t)
        if is_dot is not None:
            if is_dot and w not in self.details:
                self.details[w] = field_record(w, _decode(w))
            r.update(self.details[w] if is_dot else {"form": None})
        return " " + self.dumps(r)


def _column(text: bytes, rows: int) -> np.ndarray:
    """``text`` as the same columns of ``rows`` rows of a byte matrix."""
    return np.broadcast_to(np.frombuffer(text, np.uint8), (rows, len(text)))


def _needs_escape(text: str) -> bool:
    """Whether JSON would escape anything in ``text`` (string methods: 6x faster than a regex)."""
    return not (text.isascii() and text.isprintable()) or '"' in text or "\\" in text


class Stats(Writer):
    """How many dot instructions of each form each function holds."""

    def __init__(self, args, notes: list, out=None):
        super().__init__(args, out)
        self.notes = notes  # [(file, which symbol table named its code)]
        self.per_fn: dict = {}
        self.totals: dict = {}
        self.forms: dict = {}
        self.words = 0

    def block(self, chunk, lo, words, dot, texts, data):
        self.words += len(words)
        idx = np.flatnonzero(dot)
        if not idx.size:
            return
        ws = words[idx].tolist()
        for w in set(ws) - self.forms.keys():
            self.forms[w] = _decode(w).form.name
        own = owners(chunk, idx + lo).tolist() if chunk.addresses is not None else [-1] * len(ws)
        prefix = f"{chunk.file}:" if chunk.file is not None else ""
        for o, w in zip(own, ws):
            fn = prefix + (chunk.symbols[o][1] if o >= 0 else f"({chunk.name})")
            form = self.forms[w]
            forms = self.per_fn.setdefault(fn, {})
            forms[form] = forms.get(form, 0) + 1
            self.totals[form] = self.totals.get(form, 0) + 1

    def finish(self):
        out, dot = self.out, sum(self.totals.values())
        if self.args.json:
            record = {"words": self.words, "dot": dot, "functions": self.per_fn, "total": self.totals}
            if self.notes:
                record["symbols"] = dict(self.notes)
            json.dump(record, out, indent=1)
            out.write("\n")
        else:
            rows = [(fn, form, str(n)) for fn, forms in self.per_fn.items() for form, n in sorted(forms.items())]
            rows += [("(total)", form, str(n)) for form, n in sorted(self.totals.items())]
            header = ("function", "form", "count")
            widths = [max(len(r[k]) for r in rows + [header]) for k in range(3)]
            lines = [f"{dot} dot instruction(s) in {self.words} word(s)\n"]
            if rows:
                lines.append("  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip() + "\n")
                lines += [f"{r[0].ljust(widths[0])}  {r[1].ljust(widths[1])}  {r[2].rjust(widths[2])}\n" for r in rows]
            out.write("".join(lines))
        for file, which in self.notes:
            if which != "static":
                print(f"intdot disasm: note: {stripped_note(file, which)}", file=sys.stderr)


def stripped_note(file: str, which: str) -> str:
    """What the per-function figures of a file without static symbols mean."""
    if which == "dynamic":
        return (
            f"{file} has no static symbols (no .symtab: it was stripped); its code is named by its dynamic "
            "symbols (the functions it exports), its PLT entries and its section starts only, as objdump does, "
            "so each count is of the code from one such name to the next: a function it does not export is "
            "counted under the exported one before it"
        )
    return (
        f"{file} has no symbols at all (no .symtab, no .dynsym); its code is named by its section starts "
        "(and PLT entries) only, so the counts are per section"
    )
