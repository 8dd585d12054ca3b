"""Families of instruction forms as parametrised formats, the way LLVM's
TableGen multiclasses write them.

A :class:`Family` is written once: a bit template from bit 31 down to bit 0
(runs of ``0``/``1`` are fixed bits, ``Name:width`` a field slice, ``$p`` a
parameter an instance fills in with bits), the operands' fields (split fields
such as ``M:Rm`` and ``H:L``, scaled ``Zn*2``, offset ``Rv+8``), an assembly
template as LLVM prints it (``$p`` parameters again), its semantic kind, the
lane shape of its dot step and its features.  Calling the family with an id,
a mnemonic and the parameter values gives one :class:`~intdot.arm.records.Form`;
a missing or unknown parameter is an error.

>>> fam = Family("demo", kind="sve_dot_vec", shape=(8, 4, 32), features="sve|sme",
...              bits="01000100 1 0 0 Zm:5 00000 $U Zn:5 Zda:5",
...              fields={"zda": "Zda", "zn": "Zn", "zm": "Zm"}, syntax="z{zda}.s, z{zn}.b, z{zm}.b")
>>> form = fam("sdot_demo", "sdot", U="0")
>>> hex(form.layout.match), form.features, form.spec.lanes
('0x44800000', 'sve|sme', 4)
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from .records import SEMANTIC_KINDS, Field, Form, FormTableError, Layout, Operand, Slice, make_spec

# Lane signedness of (first source, second source) and the accumulator's, per mnemonic.
SIGNS = {
    "sdot": (True, True, True),
    "udot": (False, False, False),
    "usdot": (False, True, True),
    "sudot": (True, False, True),
}
_MIXED = ("usdot", "sudot")

_SLICE = re.compile(r"([A-Za-z][A-Za-z0-9]*):(\d+)$")
_FIELD = re.compile(r"([A-Za-z0-9:]+?)(?:\*(\d+)|\+(\d+))?$")
_PARAM = re.compile(r"\$(\w+)")
_OPERAND_PATTERNS = (
    ("vreg", re.compile(r"([vz])\{(\w+)\}\.(\w+)(?:\[\{(\w+)\}\])?$")),
    ("za", re.compile(r"za\.(\w+)\[w\{(\w+)\}, \{(\w+)\}, vgx(\d)\]$")),
    ("zlist", re.compile(r"\{ z\{(\w+)\}\.(\w+) x(\d) \}$")),
)


@dataclass(frozen=True)
class Family:
    """One parametrised format; calling it makes one row (see the module docstring).

    ``shape`` is ``(lane width, lanes per group, accumulator bits)``;
    ``features`` apply to sdot/udot, ``mixed_features`` (default: the same)
    to usdot/sudot.  ``derive`` maps the instance's parameters to further
    template parameters (a NEON ``Q`` bit to the ``.4s``/``.16b`` arrangement).
    ``consts`` are operands fixed by the row (``q`` of NEON), ``$p`` allowed.
    """

    name: str
    kind: str
    bits: str
    fields: Mapping[str, str]
    syntax: str  # operands only: the mnemonic comes from the instance
    shape: tuple[int, int, int]
    features: str
    mixed_features: str = ""
    nvec: int | str = 1  # or "$N": the instance's parameter N
    consts: Mapping[str, str] = field(default_factory=dict)
    derive: Mapping[str, Mapping[str, Mapping[str, str]]] = field(default_factory=dict)

    @property
    def params(self) -> frozenset:
        """The parameters an instance must give: every ``$p`` of the templates that
        ``derive`` does not supply."""
        named = set(
            _PARAM.findall(
                " ".join(
                    [self.bits, self.syntax, str(self.nvec), *self.fields.values(), *map(str, self.consts.values())]
                )
            )
        )
        derived = {k for table in self.derive.values() for entry in table.values() for k in entry}
        return frozenset((named - derived) | set(self.derive))

    def __call__(self, name: str, mnemonic: str, **params) -> Form:
        if mnemonic not in SIGNS:
            raise FormTableError(f"{name}: mnemonic {mnemonic!r} is not one of {sorted(SIGNS)}")
        unknown = set(params) - self.params
        lacking = self.params - set(params)
        if unknown or lacking:
            raise FormTableError(
                f"{name}: family {self.name} takes parameters {sorted(self.params)}; "
                f"unknown {sorted(unknown)}, missing {sorted(lacking)}"
            )
        values = {k: str(v) for k, v in params.items()}
        for param, table in self.derive.items():
            if values[param] not in table:
                raise FormTableError(f"{name}: {param}={values[param]} is not one of {sorted(table)}")
            values.update(table[values[param]])
        bits = _fill(name, self.bits, values)
        syntax = f"{mnemonic} " + _fill(name, self.syntax, values)
        consts = {op: int(_fill(name, str(v), values), 2) if "$" in str(v) else int(v) for op, v in self.consts.items()}
        fields = {op: _fill(name, spec, values) for op, spec in self.fields.items()}
        layout = build_layout(name, bits, fields, consts, syntax, self.name)
        nvec = int(_fill(name, str(self.nvec), values))
        width, lanes, acc = self.shape
        a_signed, b_signed, acc_signed = SIGNS[mnemonic]
        features = (self.mixed_features or self.features) if mnemonic in _MIXED else self.features
        return Form(
            name=name,
            mnemonic=mnemonic,
            kind=self.kind,
            spec=make_spec(width, width, lanes, a_signed, b_signed, acc, acc_signed),
            nvec=nvec,
            features=features,
            layout=layout,
        )


def _fill(name: str, template: str, values: Mapping[str, str]) -> str:
    def one(m):
        if m.group(1) not in values:
            raise FormTableError(f"{name}: template parameter ${m.group(1)} has no value")
        return values[m.group(1)]

    return _PARAM.sub(one, template)


def parse_bits(name: str, bits: str) -> tuple[int, int, dict[str, Slice]]:
    """(mask of fixed bits, their values, slices) of a filled-in bit pattern."""
    pos = 32
    mask = match = 0
    slices: dict[str, Slice] = {}
    for token in bits.split():
        m = _SLICE.match(token)
        if pos - (int(m.group(2)) if m else len(token)) < 0:
            raise FormTableError(f"{name}: bit pattern covers more than 32 bits")
        if m:
            width = int(m.group(2))
            pos -= width
            if m.group(1) in slices:
                raise FormTableError(f"{name}: slice {m.group(1)} appears twice")
            slices[m.group(1)] = Slice(m.group(1), pos + width - 1, pos)
        elif set(token) <= {"0", "1"}:
            pos -= len(token)
            mask |= ((1 << len(token)) - 1) << pos
            match |= int(token, 2) << pos
        else:
            raise FormTableError(f"{name}: bad token {token!r} in bit pattern")
    if pos != 0:
        raise FormTableError(f"{name}: bit pattern covers {32 - pos} bits, not 32")
    return mask, match, slices


def _parse_field(name: str, op: str, spec: str, slices: Mapping[str, Slice]) -> Field:
    m = _FIELD.match(spec)
    if not m:
        raise FormTableError(f"{name}: bad field spec {spec!r}")
    try:
        parts = tuple(slices[p] for p in m.group(1).split(":"))
    except KeyError as exc:
        raise FormTableError(f"{name}: field {spec!r} names unknown slice {exc}") from None
    return Field(op, spec, parts, scale=int(m.group(2) or 1), base=int(m.group(3) or 0))


def split_template(syntax: str) -> tuple[str, list[str]]:
    """Mnemonic and operand templates of an assembly template, split at top-level commas."""
    mnemonic, _, rest = syntax.partition(" ")
    parts, depth, cur = [], 0, ""
    for ch in rest:
        if ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    parts.append(cur.strip())
    return mnemonic, parts


def _parse_syntax(name: str, syntax: str) -> tuple[Operand, ...]:
    operands = []
    for text in split_template(syntax)[1]:
        for kind, pattern in _OPERAND_PATTERNS:
            m = pattern.match(text)
            if not m:
                continue
            if kind == "vreg":
                prefix, op, suffix, index = m.groups()
                ops = (op, index) if index else (op,)
                operands.append(Operand("vreg", ops, prefix, suffix, indexed=bool(index)))
            elif kind == "za":
                operands.append(Operand("za", (m.group(2), m.group(3)), suffix=m.group(1), n=int(m.group(4))))
            else:
                operands.append(Operand("zlist", (m.group(1),), "z", m.group(2), n=int(m.group(3))))
            break
        else:
            raise FormTableError(f"{name}: cannot read template operand {text!r}")
    return tuple(operands)


def build_layout(
    name: str, bits: str, fields: Mapping[str, str], consts: Mapping[str, int], syntax: str, family: str = ""
) -> Layout:
    """The :class:`Layout` of one row from its filled-in bit pattern, fields and template."""
    mask, match, slices = parse_bits(name, bits)
    parsed = {op: _parse_field(name, op, spec, slices) for op, spec in fields.items()}
    return Layout(
        bits=bits,
        mask=mask,
        match=match,
        slices=tuple(slices.values()),
        fields=parsed,
        consts=dict(consts),
        syntax=syntax,
        operands=_parse_syntax(name, syntax),
        family=family,
    )


def validate(forms: tuple[Form, ...], aliases: frozenset = frozenset()) -> None:
    """Check a table: every row covers all 32 bits exactly once, every slice
    belongs to one field, every template operand has a field, fields round-trip
    (``extract(insert(v)) == v``), and no two rows decode the same word unless
    the pair is a declared alias (``frozenset({id1, id2})`` in ``aliases``)."""
    names = set()
    for f in forms:
        lay = f.layout
        if f.name in names:
            raise FormTableError(f"duplicate row name {f.name}")
        names.add(f.name)
        if f.kind not in SEMANTIC_KINDS:
            raise FormTableError(f"{f.name}: unknown kind {f.kind!r}")
        if split_template(lay.syntax)[0] != f.mnemonic:
            raise FormTableError(f"{f.name}: template mnemonic differs from {f.mnemonic!r}")
        covered = lay.mask
        for s in lay.slices:
            smask = ((1 << s.width) - 1) << s.lo
            if covered & smask:
                raise FormTableError(f"{f.name}: slice {s.name} overlaps other bits")
            covered |= smask
        if covered != 0xFFFFFFFF:
            raise FormTableError(f"{f.name}: bits {~covered & 0xFFFFFFFF:#010x} are not covered")
        used = [s.name for fld in lay.fields.values() for s in fld.slices]
        if sorted(used) != sorted(s.name for s in lay.slices):
            raise FormTableError(f"{f.name}: every slice must belong to exactly one field")
        shown = {op for o in lay.operands for op in o.ops}
        if shown != set(lay.fields):
            raise FormTableError(f"{f.name}: template shows {sorted(shown)}, fields are {sorted(lay.fields)}")
        for fld in lay.fields.values():
            # insert/extract move each raw bit on its own, so every value round-trips if the
            # lowest, the highest and each one-bit raw value do
            raws = {0, (1 << fld.width) - 1, *(1 << k for k in range(fld.width))}
            for v in sorted(fld.values[r] for r in raws):
                w = fld.insert(v)
                if w & ~fld.mask or fld.extract(w | lay.match) != v:
                    raise FormTableError(f"{f.name}: field {fld.spec} does not round-trip {v}")
    for i, a in enumerate(forms):
        for b in forms[i + 1 :]:
            common = a.layout.mask & b.layout.mask
            if (a.layout.match ^ b.layout.match) & common == 0 and frozenset((a.name, b.name)) not in aliases:
                raise FormTableError(f"rows {a.name} and {b.name} overlap: some word matches both")


__all__ = ["SIGNS", "Family", "build_layout", "parse_bits", "split_template", "validate"]
