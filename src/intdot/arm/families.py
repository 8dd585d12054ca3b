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

from ..isa.encoding import Format, TableError, check_layout, check_overlaps, fill, split_template
from .records import SEMANTIC_KINDS, Form, Operand, make_spec

# Lane signedness of (first source, second source) and the accumulator's, per mnemonic.
SIGNS = {
    "sdot": (True, True, True),
    "udot": (False, False, False),
    "usdot": (False, True, True),
    "sudot": (True, False, True),
}
_MIXED = ("usdot", "sudot")

# Arm's operand grammar: a vector register with an element suffix and an optional index, a ZA slice
# group, a register list.
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
    The encoding part is an :class:`intdot.isa.encoding.Format`.
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
    def format(self) -> Format:
        return Format(self.name, self.bits, self.fields, self.syntax, self.consts, self.derive)

    @property
    def params(self) -> frozenset:
        """The parameters an instance must give: every ``$p`` of the templates that ``derive`` does not supply."""
        return self.format.params_with(str(self.nvec))

    def __call__(self, name: str, mnemonic: str, **params) -> Form:
        if mnemonic not in SIGNS:
            raise TableError(f"{name}: mnemonic {mnemonic!r} is not one of {sorted(SIGNS)}")
        fmt = self.format
        values = fmt.values(name, params, str(self.nvec))
        layout = fmt.layout(name, values, mnemonic, read_operands)
        nvec = int(fill(name, str(self.nvec), values))
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


def read_operands(name: str, syntax: str) -> tuple[Operand, ...]:
    """Arm's operand grammar, for :func:`intdot.isa.encoding.build_layout`."""
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
            raise TableError(f"{name}: cannot read template operand {text!r}")
    return tuple(operands)


def validate(forms: tuple[Form, ...], aliases: frozenset = frozenset()) -> None:
    """Check a table: each row's layout (:func:`intdot.isa.encoding.check_layout`), its kind and mnemonic,
    and no two rows decoding the same word unless the pair is a declared alias (``frozenset({id1, id2})``
    in ``aliases``)."""
    check_overlaps(forms, aliases)
    for f in forms:
        if f.kind not in SEMANTIC_KINDS:
            raise TableError(f"{f.name}: unknown kind {f.kind!r}")
        if split_template(f.layout.syntax)[0] != f.mnemonic:
            raise TableError(f"{f.name}: template mnemonic differs from {f.mnemonic!r}")
        check_layout(f.name, f.layout)


__all__ = ["SIGNS", "Family", "read_operands", "validate"]
