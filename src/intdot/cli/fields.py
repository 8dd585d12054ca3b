"""The bit fields of one encoded word, shared by ``intdot asm`` and ``intdot disasm``: the
``--fields`` diagram and the JSON record."""

from __future__ import annotations


def field_diagram(word: int, form) -> list[str]:
    """Three aligned rows (bit ranges, field names, bits of ``word``) and one of operand values."""
    lay = form.layout
    cols, pos = [], 32
    for token in lay.bits.split():
        name, _, width = token.partition(":")
        width = int(width) if width else len(token)
        hi, lo = pos - 1, pos - width
        pos = lo
        bits = format((word >> lo) & ((1 << width) - 1), f"0{width}b")
        cols.append((str(hi) if hi == lo else f"{hi}:{lo}", name, bits))
    widths = [max(len(c) for c in col) for col in cols]
    rows = ["  ".join(c[i].ljust(w) for c, w in zip(cols, widths)).rstrip() for i in range(3)]
    ops = []
    for op, fld in lay.fields.items():
        value = fld.extract(word)
        ops.append(f"{op}={value} ({fld.spec})" if fld.spec != op else f"{op}={value}")
    ops += [f"{op}={v} (fixed)" for op, v in lay.consts.items()]
    return rows + ["  ".join(ops)]


def field_text(word: int, insn) -> str:
    """The ``--fields`` block under a word's line: the diagram, then its form and feature."""
    rows = field_diagram(word, insn.form) + [f"form {insn.form.name}, feature {insn.form.features}"]
    return "".join(f"    {row}\n" for row in rows)


def field_record(word: int, insn) -> dict:
    """Form, feature, operands and bit slices of ``word`` (decoded as ``insn``), as JSON output holds them."""
    return {
        "form": insn.form.name,
        "feature": insn.form.features,
        "ops": dict(insn.ops),
        "fields": [
            {"name": s.name, "bits": [s.hi, s.lo], "value": (word >> s.lo) & ((1 << s.width) - 1)}
            for s in insn.form.layout.slices
        ],
    }
