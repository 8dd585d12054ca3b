"""The x86 dot-product intrinsics of ``immintrin.h``, generated from one row each.

Every intrinsic that compiles to a VNNI, AVX-VNNI, AVX-VNNI-INT8 or AVX-VNNI-INT16
instruction, with its masked ``_mask_`` (lanes whose mask bit is clear keep ``src``) and
``_maskz_`` (they become 0) forms, and the AVX2 idiom's two parts ``_mm*_maddubs_epi16``
and ``_mm*_madd_epi16``, at 128, 256 and 512 bits.  The names and argument names are
Intel's (the Intrinsics Guide); register arguments are arrays of the register's contents
(:mod:`intdot.x86.vectors`), ``__mmask8``/``__mmask16`` are ints.  Results are arrays of the
dword lanes (int32, or uint32 for the ``uu`` forms; int16 for ``maddubs``), with the batch
axes of the arguments in front.  :data:`INTRINSICS` maps each name to its :class:`Row`:
the instruction it compiles to (a catalog record's mnemonic, whose spec and rule it computes),
the register width, its masking and the target features clang-19 requires for it.

>>> import numpy as np
>>> from intdot.x86 import intrinsics as x
>>> x._mm_dpbusd_epi32([0, 1, 2, 3], [255] * 16, [-1] * 16).tolist()    # 4 x (255 * -1) per lane
[-1020, -1019, -1018, -1017]
>>> x._mm_maskz_dpbusds_epi32(0b0101, [2**31 - 1] * 4, [255] * 16, [127] * 16).tolist()
[2147483647, 0, 2147483647, 0]
>>> x._mm_maddubs_epi16([255] * 16, [-128] * 16).tolist()[:2]     # 2 x (255 * -128) saturates to int16
[-32768, -32768]
>>> x.INTRINSICS["_mm256_dpbusd_epi32"].features
'avx512vnni+avx512vl|avxvnni'
"""

from __future__ import annotations

from typing import NamedTuple

from ..isa.intrinsics import Intrinsics
from .instructions import PMADDUBSW, PMADDWD, row
from .vectors import apply_mask, lane_steps, mask_bits, pair_step, register


class Row(NamedTuple):
    """One intrinsic: its C prototype, the instruction it compiles to, register bits, masking, features."""

    prototype: str
    mnemonic: str  # the instruction (the catalog record's mnemonic), or pmaddubsw / pmaddwd
    bits: int  # register width: 128, 256 or 512
    mask: str  # "", "merge" (``_mask_``) or "zero" (``_maskz_``)
    features: str  # what clang-19 requires to compile it

    @property
    def label(self) -> str:
        return {"": self.mnemonic, "merge": f"{self.mnemonic}, merge-masked", "zero": f"{self.mnemonic}, zero-masked"}[
            self.mask
        ]


_REG = {128: "__m128i", 256: "__m256i", 512: "__m512i"}
_PREFIX = {128: "_mm", 256: "_mm256", 512: "_mm512"}


def _rows() -> list[Row]:
    out = []
    for mn in ("vpdpbusd", "vpdpbusds", "vpdpwssd", "vpdpwssds"):
        op = mn[2:]  # dpbusd
        for bits in (512, 256, 128):
            r, p, m = _REG[bits], _PREFIX[bits], "__mmask16" if bits == 512 else "__mmask8"
            # A 512-bit intrinsic needs evex512 as well (clang-19: absent under avx10.1-256 alone).
            evex = "avx512vnni+evex512" if bits == 512 else "avx512vnni+avx512vl"
            # clang defines the unmasked 128/256-bit names for AVX-VNNI too (a macro on the same builtin).
            plain = evex if bits == 512 else f"{evex}|avxvnni"
            out.append(Row(f"{r} {p}_{op}_epi32({r} src, {r} a, {r} b)", mn, bits, "", plain))
            out.append(Row(f"{r} {p}_mask_{op}_epi32({r} src, {m} k, {r} a, {r} b)", mn, bits, "merge", evex))
            out.append(Row(f"{r} {p}_maskz_{op}_epi32({m} k, {r} src, {r} a, {r} b)", mn, bits, "zero", evex))
        for bits in (256, 128):
            r, p = _REG[bits], _PREFIX[bits]
            out.append(Row(f"{r} {p}_{op}_avx_epi32({r} src, {r} a, {r} b)", mn, bits, "", "avxvnni"))
    for mn, feature in (
        *((m, "avxvnniint8") for m in ("vpdpbssd", "vpdpbssds", "vpdpbsud", "vpdpbsuds", "vpdpbuud", "vpdpbuuds")),
        *((m, "avxvnniint16") for m in ("vpdpwsud", "vpdpwsuds", "vpdpwusd", "vpdpwusds", "vpdpwuud", "vpdpwuuds")),
    ):
        for bits in (256, 128):
            r, p = _REG[bits], _PREFIX[bits]
            out.append(Row(f"{r} {p}_{mn[2:]}_epi32({r} W, {r} A, {r} B)", mn, bits, "", feature))
    for bits, maddubs, madd in (
        (128, "ssse3", "sse2"),
        (256, "avx2", "avx2"),
        (512, "avx512bw+evex512", "avx512bw+evex512"),
    ):
        r, p = _REG[bits], _PREFIX[bits]
        out.append(Row(f"{r} {p}_maddubs_epi16({r} a, {r} b)", "pmaddubsw", bits, "", maddubs))
        out.append(Row(f"{r} {p}_madd_epi16({r} a, {r} b)", "pmaddwd", bits, "", madd))
    return out


def _converters() -> dict:
    conv = {}
    for bits, ctype in _REG.items():
        conv[ctype] = lambda v, name, func, n=bits // 8: register(v, name, n, func)
    conv["__mmask8"] = lambda v, name, func: mask_bits(v, name, 8, func)
    conv["__mmask16"] = lambda v, name, func: mask_bits(v, name, 16, func)
    return conv


def _impl(r: Row, func: str):
    if r.mnemonic in ("pmaddubsw", "pmaddwd"):
        spec, clamp = (PMADDUBSW, True) if r.mnemonic == "pmaddubsw" else (PMADDWD, False)
        return lambda a, b: pair_step(spec, clamp, a, b, func)
    ins = row(r.mnemonic)
    spec, clamp = ins.spec, ins.clamp
    if r.mask == "merge":
        return lambda src, k, a, b: apply_mask(lane_steps(spec, clamp, src, a, b, func), src, k, False, func)
    if r.mask == "zero":
        return lambda k, src, a, b: apply_mask(lane_steps(spec, clamp, src, a, b, func), src, k, True, func)
    return lambda src, a, b: lane_steps(spec, clamp, src, a, b, func)


def _summary(r: Row) -> str:
    if r.mnemonic == "pmaddubsw":
        return (
            "Each int16 lane i: a's unsigned bytes 2i, 2i+1 times b's signed bytes, the two products summed and "
            "saturated to int16 (SaturateToSignedWord)."
        )
    if r.mnemonic == "pmaddwd":
        return "Each int32 lane i: a's int16 lanes 2i, 2i+1 times b's, summed (wrapping: 2 x (-32768)**2 gives -2**31)."
    ins = row(r.mnemonic)
    s = ins.spec
    lanes = f"{s.lanes} {'s' if s.a_signed else 'u'}{s.a_width} x {'s' if s.b_signed else 'u'}{s.b_width}"
    rule = f"saturated once, on the exact sum, to {'int32' if s.acc_signed else 'uint32'}" if ins.clamp else "wrapping"
    masked = {
        "": "",
        "merge": " Lanes whose bit of k is clear keep src's value.",
        "zero": " Lanes whose bit of k is clear are 0.",
    }[r.mask]
    return f"Each dword lane: its accumulator plus the dot product of its {lanes} lanes, {rule}.{masked}"


def _build() -> Intrinsics:
    table = Intrinsics(__name__, converters=_converters())
    for r in _rows():
        name = r.prototype.split("(")[0].split()[-1]
        table.define(r.prototype, _impl(r, name), summary=_summary(r), row=r, note=f"Requires: {r.features}.")
    return table


_TABLE = _build()
#: intrinsic name -> its :class:`Row`.
INTRINSICS: dict[str, Row] = dict(_TABLE.rows)
#: instruction mnemonic -> the names of its intrinsics.
BY_INSTRUCTION: dict[str, tuple[str, ...]] = {}
for _name, _row in INTRINSICS.items():
    BY_INSTRUCTION[_row.mnemonic] = BY_INSTRUCTION.get(_row.mnemonic, ()) + (_name,)
globals().update(_TABLE.functions)
del _name, _row

__all__ = ["BY_INSTRUCTION", "INTRINSICS", "Row", *INTRINSICS]
