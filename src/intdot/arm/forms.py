"""The table of AArch64 integer dot-product forms: ``FORMS``.

Each family below is written once (bit template, fields, syntax, kind, lane
shape, features; see :mod:`intdot.arm.families`), and each row is one line:
its stable id, its mnemonic and the bits that tell it from its siblings.
Adding one more instance of an existing family is adding one line.  The rows
are validated when this module loads: 32 bits covered, fields round-trip, no
two rows decode the same word.

The set is every integer dot form llvm-mc 19 assembles for sdot/udot/usdot/
sudot with ``+dotprod,+i8mm,+sve,+sve2p1,+sme2,+sme-i16i64`` (LLVM's
``AArch64InstrFormats.td``, ``SVEInstrFormats.td``, ``SMEInstrFormats.td``).

>>> from intdot.arm.forms import FORMS, form_named
>>> len(FORMS), [f.name for f in FORMS][:2]
(75, ['sdot_neon_vec_64', 'sdot_neon_vec_128'])
>>> f = form_named("sudot_sve_indexed")
>>> hex(f.layout.match), f.features, f.spec.a_signed, f.spec.b_signed
('0x44a01c00', 'i8mm+(sve|sme)', True, False)
"""

from __future__ import annotations

from collections.abc import Mapping

from ..core.errors import UnknownInstruction
from ..core.values import describe
from .families import Family, validate
from .records import Form

# -- NEON (AdvSIMD) -----------------------------------------------------------

_ARRANGEMENT = {"Q": {"0": {"ta": "2s", "tb": "8b"}, "1": {"ta": "4s", "tb": "16b"}}}

NEON_VEC = Family(
    "neon_vec",
    kind="neon_dot_vec",
    shape=(8, 4, 32),
    features="dotprod",
    mixed_features="i8mm",
    bits="0 $Q $U 01110 10 0 Rm:5 1 $op 1 Rn:5 Rd:5",
    fields={"vd": "Rd", "vn": "Rn", "vm": "Rm"},
    consts={"q": "$Q"},
    derive=_ARRANGEMENT,
    syntax="v{vd}.$ta, v{vn}.$tb, v{vm}.$tb",
)

NEON_ELEM = Family(
    "neon_elem",
    kind="neon_dot_elem",
    shape=(8, 4, 32),
    features="dotprod",
    mixed_features="i8mm",
    bits="0 $Q $U 01111 $size 0 L:1 M:1 Rm:4 $op H:1 0 Rn:5 Rd:5",
    fields={"vd": "Rd", "vn": "Rn", "vm": "M:Rm", "index": "H:L"},
    consts={"q": "$Q"},
    derive=_ARRANGEMENT,
    syntax="v{vd}.$ta, v{vn}.$tb, v{vm}.4b[{index}]",
)

# -- SVE: .b -> .s and .h -> .d (4-way); SVE2.1/SME2 .h -> .s (2-way) --------------

_SVE3 = {"zda": "Zda", "zn": "Zn", "zm": "Zm"}
_SVE4 = {"zda": "Zda", "zn": "Zn", "zm": "Zm", "index": "i"}
_SVE = "sve|sme"

SVE_VEC = Family(
    "sve_vec",
    kind="sve_dot_vec",
    shape=(8, 4, 32),
    features=_SVE,
    mixed_features="i8mm+(sve|sme)",
    bits="01000100 1 0 0 Zm:5 $op Zn:5 Zda:5",
    fields=_SVE3,
    syntax="z{zda}.s, z{zn}.b, z{zm}.b",
)
SVE_VEC_D = Family(
    "sve_vec_d",
    kind="sve_dot_vec",
    shape=(16, 4, 64),
    features=_SVE,
    bits="01000100 1 1 0 Zm:5 00000 $U Zn:5 Zda:5",
    fields=_SVE3,
    syntax="z{zda}.d, z{zn}.h, z{zm}.h",
)
SVE_VEC_HS = Family(
    "sve_vec_hs",
    kind="sve_dot_vec",
    shape=(16, 2, 32),
    features="sve2p1|sme2",
    bits="01000100 0 0 0 Zm:5 11001 $U Zn:5 Zda:5",
    fields=_SVE3,
    syntax="z{zda}.s, z{zn}.h, z{zm}.h",
)
SVE_INDEXED = Family(
    "sve_indexed",
    kind="sve_dot_indexed",
    shape=(8, 4, 32),
    features=_SVE,
    mixed_features="i8mm+(sve|sme)",
    bits="01000100 1 0 1 i:2 Zm:3 $op Zn:5 Zda:5",
    fields=_SVE4,
    syntax="z{zda}.s, z{zn}.b, z{zm}.b[{index}]",
)
SVE_INDEXED_D = Family(
    "sve_indexed_d",
    kind="sve_dot_indexed",
    shape=(16, 4, 64),
    features=_SVE,
    bits="01000100 1 1 1 i:1 Zm:4 00000 $U Zn:5 Zda:5",
    fields=_SVE4,
    syntax="z{zda}.d, z{zn}.h, z{zm}.h[{index}]",
)
SVE_INDEXED_HS = Family(
    "sve_indexed_hs",
    kind="sve_dot_indexed",
    shape=(16, 2, 32),
    features="sve2p1|sme2",
    bits="01000100 1 0 0 i:2 Zm:3 11001 $U Zn:5 Zda:5",
    fields=_SVE4,
    syntax="z{zda}.s, z{zn}.h, z{zm}.h[{index}]",
)

# -- SME2: into ZA, vgx2/vgx4 (parameter N) ------------------------------------------
# Three element variants share each format: za.s from .b (4-way), za.s from .h
# (2-way) and za.d from .h (4-way, sme-i16i64).  ``$h`` is bit 22 of the
# single/multi formats: 0 for .b sources, 1 for .h.

_ZA = "za.{za}[w{{wv}}, {{off}}, vgx$N], {{ z{{zn}}.{t} x$N }}"
_SME2_VARIANTS = {
    "": dict(za="s", t="b", h="0", shape=(8, 4, 32), features="sme2"),
    "_hs": dict(za="s", t="h", h="1", shape=(16, 2, 32), features="sme2"),
    "_d": dict(za="d", t="h", h="1", shape=(16, 4, 64), features="sme2+sme-i16i64"),
}
_GROUP = {"N": {"2": {"V": "0", "ZN": "Zn:4", "ZM": "Zm:4 0"}, "4": {"V": "1", "ZN": "Zn:3 0", "ZM": "Zm:3 0 1"}}}
_ZA_OPS = {"wv": "Rv+8", "off": "off3"}


def _sme2(kind: str, variant: str, bits: str, fields: Mapping[str, str], tail: str) -> Family:
    v = _SME2_VARIANTS[variant]
    return Family(
        f"sme2_{kind}{variant}",
        kind=f"sme2_dot_{kind}",
        shape=v["shape"],
        features=v["features"],
        bits=bits.replace("$h", v["h"]),
        fields={**_ZA_OPS, **fields},
        nvec="$N",
        derive=_GROUP,
        syntax=(_ZA + ", " + tail).format(za=v["za"], t=v["t"]),
    )


def _single(variant: str) -> Family:
    return _sme2(
        "single", variant, "11000001 0 $h 1 $V Zm:4 0 Rv:2 101 Zn:5 $op off3:3", {"zn": "Zn", "zm": "Zm"}, "z{{zm}}.{t}"
    )


def _multi(variant: str) -> Family:
    # vgx2: Zm:4 at 20:17 then 0; vgx4: Zm:3 at 20:18 then 01 (the $ZM of _GROUP)
    return _sme2(
        "multi",
        variant,
        "11000001 1 $h 1 $ZM 0 Rv:2 101 $ZN 0 $op off3:3",
        {"zn": "Zn*$N", "zm": "Zm*$N"},
        "{{ z{{zm}}.{t} x$N }}",
    )


SME2_SINGLE, SME2_SINGLE_HS, SME2_SINGLE_D = _single(""), _single("_hs"), _single("_d")
SME2_MULTI, SME2_MULTI_HS, SME2_MULTI_D = _multi(""), _multi("_hs"), _multi("_d")
SME2_INDEXED = _sme2(
    "indexed",
    "",
    "110000010101 Zm:4 $V Rv:2 1 i:2 $ZN $op off3:3",
    {"zn": "Zn*$N", "zm": "Zm", "index": "i"},
    "z{{zm}}.{t}[{{index}}]",
)
SME2_INDEXED_HS = _sme2(
    "indexed",
    "_hs",
    "110000010101 Zm:4 $V Rv:2 1 i:2 $ZN 0 $U 0 off3:3",
    {"zn": "Zn*$N", "zm": "Zm", "index": "i"},
    "z{{zm}}.{t}[{{index}}]",
)
SME2_INDEXED_D = _sme2(
    "indexed",
    "_d",
    "110000011101 Zm:4 $V Rv:2 0 0 i:1 $ZN 0 $U 1 off3:3",
    {"zn": "Zn*$N", "zm": "Zm", "index": "i"},
    "z{{zm}}.{t}[{{index}}]",
)

# -- The rows: one line each ---------------------------------------------------------

FORMS: tuple[Form, ...] = (
    NEON_VEC("sdot_neon_vec_64", "sdot", Q=0, U=0, op="0010"),
    NEON_VEC("sdot_neon_vec_128", "sdot", Q=1, U=0, op="0010"),
    NEON_VEC("udot_neon_vec_64", "udot", Q=0, U=1, op="0010"),
    NEON_VEC("udot_neon_vec_128", "udot", Q=1, U=1, op="0010"),
    NEON_VEC("usdot_neon_vec_64", "usdot", Q=0, U=0, op="0011"),
    NEON_VEC("usdot_neon_vec_128", "usdot", Q=1, U=0, op="0011"),
    NEON_ELEM("sdot_neon_elem_64", "sdot", Q=0, U=0, size=1, op="1110"),
    NEON_ELEM("sdot_neon_elem_128", "sdot", Q=1, U=0, size=1, op="1110"),
    NEON_ELEM("udot_neon_elem_64", "udot", Q=0, U=1, size=1, op="1110"),
    NEON_ELEM("udot_neon_elem_128", "udot", Q=1, U=1, size=1, op="1110"),
    NEON_ELEM("usdot_neon_elem_64", "usdot", Q=0, U=0, size=1, op="1111"),
    NEON_ELEM("usdot_neon_elem_128", "usdot", Q=1, U=0, size=1, op="1111"),
    NEON_ELEM("sudot_neon_elem_64", "sudot", Q=0, U=0, size=0, op="1111"),
    NEON_ELEM("sudot_neon_elem_128", "sudot", Q=1, U=0, size=0, op="1111"),
    SVE_VEC("sdot_sve_vec", "sdot", op="000000"),
    SVE_VEC("udot_sve_vec", "udot", op="000001"),
    SVE_VEC("usdot_sve_vec", "usdot", op="011110"),
    SVE_VEC_D("sdot_sve_vec_d", "sdot", U=0),
    SVE_VEC_D("udot_sve_vec_d", "udot", U=1),
    SVE_VEC_HS("sdot_sve_vec_hs", "sdot", U=0),
    SVE_VEC_HS("udot_sve_vec_hs", "udot", U=1),
    SVE_INDEXED("sdot_sve_indexed", "sdot", op="000000"),
    SVE_INDEXED("udot_sve_indexed", "udot", op="000001"),
    SVE_INDEXED("usdot_sve_indexed", "usdot", op="000110"),
    SVE_INDEXED("sudot_sve_indexed", "sudot", op="000111"),
    SVE_INDEXED_D("sdot_sve_indexed_d", "sdot", U=0),
    SVE_INDEXED_D("udot_sve_indexed_d", "udot", U=1),
    SVE_INDEXED_HS("sdot_sve_indexed_hs", "sdot", U=0),
    SVE_INDEXED_HS("udot_sve_indexed_hs", "udot", U=1),
    SME2_SINGLE("sdot_sme2_single_vgx2", "sdot", N=2, op="00"),
    SME2_SINGLE("sdot_sme2_single_vgx4", "sdot", N=4, op="00"),
    SME2_SINGLE("udot_sme2_single_vgx2", "udot", N=2, op="10"),
    SME2_SINGLE("udot_sme2_single_vgx4", "udot", N=4, op="10"),
    SME2_SINGLE("usdot_sme2_single_vgx2", "usdot", N=2, op="01"),
    SME2_SINGLE("usdot_sme2_single_vgx4", "usdot", N=4, op="01"),
    SME2_SINGLE("sudot_sme2_single_vgx2", "sudot", N=2, op="11"),
    SME2_SINGLE("sudot_sme2_single_vgx4", "sudot", N=4, op="11"),
    SME2_MULTI("sdot_sme2_multi_vgx2", "sdot", N=2, op="00"),
    SME2_MULTI("sdot_sme2_multi_vgx4", "sdot", N=4, op="00"),
    SME2_MULTI("udot_sme2_multi_vgx2", "udot", N=2, op="10"),
    SME2_MULTI("udot_sme2_multi_vgx4", "udot", N=4, op="10"),
    SME2_MULTI("usdot_sme2_multi_vgx2", "usdot", N=2, op="01"),
    SME2_MULTI("usdot_sme2_multi_vgx4", "usdot", N=4, op="01"),
    SME2_INDEXED("sdot_sme2_indexed_vgx2", "sdot", N=2, op="100"),
    SME2_INDEXED("sdot_sme2_indexed_vgx4", "sdot", N=4, op="100"),
    SME2_INDEXED("udot_sme2_indexed_vgx2", "udot", N=2, op="110"),
    SME2_INDEXED("udot_sme2_indexed_vgx4", "udot", N=4, op="110"),
    SME2_INDEXED("usdot_sme2_indexed_vgx2", "usdot", N=2, op="101"),
    SME2_INDEXED("usdot_sme2_indexed_vgx4", "usdot", N=4, op="101"),
    SME2_INDEXED("sudot_sme2_indexed_vgx2", "sudot", N=2, op="111"),
    SME2_INDEXED("sudot_sme2_indexed_vgx4", "sudot", N=4, op="111"),
    SME2_SINGLE_HS("sdot_sme2_single_hs_vgx2", "sdot", N=2, op="01"),
    SME2_SINGLE_HS("sdot_sme2_single_hs_vgx4", "sdot", N=4, op="01"),
    SME2_SINGLE_HS("udot_sme2_single_hs_vgx2", "udot", N=2, op="11"),
    SME2_SINGLE_HS("udot_sme2_single_hs_vgx4", "udot", N=4, op="11"),
    SME2_MULTI_HS("sdot_sme2_multi_hs_vgx2", "sdot", N=2, op="01"),
    SME2_MULTI_HS("sdot_sme2_multi_hs_vgx4", "sdot", N=4, op="01"),
    SME2_MULTI_HS("udot_sme2_multi_hs_vgx2", "udot", N=2, op="11"),
    SME2_MULTI_HS("udot_sme2_multi_hs_vgx4", "udot", N=4, op="11"),
    SME2_INDEXED_HS("sdot_sme2_indexed_hs_vgx2", "sdot", N=2, U=0),
    SME2_INDEXED_HS("sdot_sme2_indexed_hs_vgx4", "sdot", N=4, U=0),
    SME2_INDEXED_HS("udot_sme2_indexed_hs_vgx2", "udot", N=2, U=1),
    SME2_INDEXED_HS("udot_sme2_indexed_hs_vgx4", "udot", N=4, U=1),
    SME2_SINGLE_D("sdot_sme2_single_d_vgx2", "sdot", N=2, op="00"),
    SME2_SINGLE_D("sdot_sme2_single_d_vgx4", "sdot", N=4, op="00"),
    SME2_SINGLE_D("udot_sme2_single_d_vgx2", "udot", N=2, op="10"),
    SME2_SINGLE_D("udot_sme2_single_d_vgx4", "udot", N=4, op="10"),
    SME2_MULTI_D("sdot_sme2_multi_d_vgx2", "sdot", N=2, op="00"),
    SME2_MULTI_D("sdot_sme2_multi_d_vgx4", "sdot", N=4, op="00"),
    SME2_MULTI_D("udot_sme2_multi_d_vgx2", "udot", N=2, op="10"),
    SME2_MULTI_D("udot_sme2_multi_d_vgx4", "udot", N=4, op="10"),
    SME2_INDEXED_D("sdot_sme2_indexed_d_vgx2", "sdot", N=2, U=0),
    SME2_INDEXED_D("sdot_sme2_indexed_d_vgx4", "sdot", N=4, U=0),
    SME2_INDEXED_D("udot_sme2_indexed_d_vgx2", "udot", N=2, U=1),
    SME2_INDEXED_D("udot_sme2_indexed_d_vgx4", "udot", N=4, U=1),
)
validate(FORMS)

_BY_NAME = {f.name: f for f in FORMS}
MNEMONICS = tuple(sorted({f.mnemonic for f in FORMS}))


def form_named(name: str) -> Form:
    """The row with id ``name`` (``arm.`` in front, as the catalog writes it, is allowed);
    :class:`~intdot.errors.UnknownInstruction` if there is none.

    >>> form_named("sudot_sve_indexed").features
    'i8mm+(sve|sme)'
    """
    # The catalog's spelling (`intdot list`) is the id with the ISA in front: arm.sdot_sve_vec.
    form = _BY_NAME.get(name.removeprefix("arm.")) if isinstance(name, str) else None
    if form is None:
        import difflib

        # Only a short string can be a near miss (and str() of a 5000-digit int raises).
        close = (
            difflib.get_close_matches(name, list(_BY_NAME), n=3) if isinstance(name, str) and len(name) <= 100 else []
        )
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise UnknownInstruction(
            f"name={describe(name)} is not the id of a row of intdot.arm.FORMS{hint} "
            "(`intdot list --isa arm` lists them)"
        )
    return form


__all__ = ["FORMS", "MNEMONICS", "Form", "form_named"]
