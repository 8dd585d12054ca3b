"""The x86 integer dot instructions: one row each, with the core spec of one 32-bit lane's step.

Semantics from Intel's SDM pseudocode (Vol. 2, VPDPBUSD ... TDPBUUD).  A row's spec is
what one 32-bit lane (one element of an AMX C tile, per K/4 group) computes: the first
source's lanes are ``a``, the second's ``b``.  ``clamp`` is the instruction's fixed rule:
the ``...S`` forms saturate once, on the exact sum of the accumulator and every product
(``SIGNED_DWORD_SATURATE``; ``UNSIGNED_DWORD_SATURATE`` for ``VPDPBUUDS``/``VPDPWUUDS``),
the others wrap modulo 2**32.  ``kind`` says how the instruction is reached: ``vector``
(VNNI forms, one step per dword lane), ``tile`` (AMX, :mod:`intdot.x86.amx`) or ``idiom``
(the AVX2 three-instruction sequence ``vpmaddubsw`` + ``vpmaddwd`` + ``vpaddd``, whose
pair sums saturate to int16 in ``vpmaddubsw``).

>>> from intdot.x86.instructions import ROWS, row
>>> r = row("vpdpbusds")
>>> r.spec.a_signed, r.spec.b_signed, r.clamp, r.features
(False, True, True, 'avx512vnni|avxvnni')
>>> row("vpmaddubsw").spec.pair_sat, row("vpmaddubsw").kind
(16, 'idiom')
"""

from __future__ import annotations

from typing import NamedTuple

from ..core.spec import DotSpec


class Row(NamedTuple):
    """One instruction: mnemonic, its dword lane's spec and rule, what a target needs, its extension."""

    mnemonic: str
    spec: DotSpec
    clamp: bool
    features: str
    extension: str  # as Intel names the CPUID feature: "AVX512-VNNI / AVX-VNNI", "AMX-INT8"
    kind: str  # "vector", "tile" or "idiom"
    syntax: str  # Intel syntax, as the SDM's opcode table writes the widest form
    spellings: tuple[str, ...] = ()  # other names that mean this row (assembler spellings, the idiom's parts)


def _b(a_signed: bool, b_signed: bool, acc_signed: bool = True) -> DotSpec:
    return DotSpec(8, 8, 4, a_signed, b_signed, acc_signed=acc_signed)


def _w(a_signed: bool, b_signed: bool, acc_signed: bool = True) -> DotSpec:
    return DotSpec(16, 16, 2, a_signed, b_signed, acc_signed=acc_signed)


_VNNI = "avx512vnni|avxvnni"
_VNNI_EXT = "AVX512-VNNI / AVX-VNNI"
_V = "vector"


def _vec(mn: str, spec: DotSpec, clamp: bool, features: str, ext: str) -> Row:
    return Row(mn, spec, clamp, features, ext, _V, f"{mn} zmm1{{k1}}{{z}}, zmm2, zmm3/m512", (f"{{vex}} {mn}",))


def _vex(mn: str, spec: DotSpec, clamp: bool, features: str, ext: str) -> Row:
    return Row(mn, spec, clamp, features, ext, _V, f"{mn} ymm1, ymm2, ymm3/m256")


def _tile(mn: str, spec: DotSpec) -> Row:
    return Row(mn, spec, False, "amx-int8", "AMX-INT8", "tile", f"{mn} tmm1, tmm2, tmm3")


# fmt: off
ROWS: tuple[Row, ...] = (
    _vec("vpdpbusd", _b(False, True), False, _VNNI, _VNNI_EXT),
    _vec("vpdpbusds", _b(False, True), True, _VNNI, _VNNI_EXT),
    _vec("vpdpwssd", _w(True, True), False, _VNNI, _VNNI_EXT),
    _vec("vpdpwssds", _w(True, True), True, _VNNI, _VNNI_EXT),
    _vex("vpdpbssd", _b(True, True), False, "avxvnniint8", "AVX-VNNI-INT8"),
    _vex("vpdpbssds", _b(True, True), True, "avxvnniint8", "AVX-VNNI-INT8"),
    _vex("vpdpbsud", _b(True, False), False, "avxvnniint8", "AVX-VNNI-INT8"),
    _vex("vpdpbsuds", _b(True, False), True, "avxvnniint8", "AVX-VNNI-INT8"),
    _vex("vpdpbuud", _b(False, False, False), False, "avxvnniint8", "AVX-VNNI-INT8"),
    _vex("vpdpbuuds", _b(False, False, False), True, "avxvnniint8", "AVX-VNNI-INT8"),
    _vex("vpdpwsud", _w(True, False), False, "avxvnniint16", "AVX-VNNI-INT16"),
    _vex("vpdpwsuds", _w(True, False), True, "avxvnniint16", "AVX-VNNI-INT16"),
    _vex("vpdpwusd", _w(False, True), False, "avxvnniint16", "AVX-VNNI-INT16"),
    _vex("vpdpwusds", _w(False, True), True, "avxvnniint16", "AVX-VNNI-INT16"),
    _vex("vpdpwuud", _w(False, False, False), False, "avxvnniint16", "AVX-VNNI-INT16"),
    _vex("vpdpwuuds", _w(False, False, False), True, "avxvnniint16", "AVX-VNNI-INT16"),
    _tile("tdpbssd", _b(True, True)),
    _tile("tdpbsud", _b(True, False)),
    _tile("tdpbusd", _b(False, True)),
    _tile("tdpbuud", _b(False, False, False)),
    # The AVX2 dot step of int8 libraries without VNNI: vpmaddubsw (u8 x s8, adjacent pairs summed and
    # saturated to int16), vpmaddwd with ones (the two int16 of each dword summed), vpaddd (wrapping).
    Row("vpmaddubsw", DotSpec(8, 8, 4, False, True, pair_sat=16), False, "ssse3", "SSSE3 / AVX2 / AVX512BW", "idiom",
        "vpmaddubsw ymm1, ymm2, ymm3; vpmaddwd ymm1, ymm1, ones; vpaddd ymm0, ymm0, ymm1",
        ("pmaddubsw", "vpmaddubsw+vpmaddwd+vpaddd", "pmaddubsw+pmaddwd+paddd")),
)
# fmt: on

# The two AVX2 instructions alone (their intrinsics are in intdot.x86.intrinsics; they are not dword dot
# steps, so not catalog records): vpmaddubsw is a 16-bit step whose sum saturates; vpmaddwd wraps.
PMADDUBSW = DotSpec(8, 8, 2, False, True, acc_bits=16)
PMADDWD = DotSpec(16, 16, 2, True, True)

_BY_NAME = {r.mnemonic: r for r in ROWS}


def row(mnemonic: str) -> Row:
    """The row of ``mnemonic`` (a table lookup; KeyError for a name outside the table)."""
    return _BY_NAME[mnemonic]


__all__ = ["PMADDUBSW", "PMADDWD", "ROWS", "Row", "row"]
