"""The NVIDIA instructions as the ISA layer sees them: catalog records, targets, availability.

One record per PTX variant (:data:`intdot.nvidia.tables.DP_ROWS`, :data:`~intdot.nvidia.tables.MMA_ROWS`),
spelt by its PTX name, the CUDA overloads that compile to it and, for MMA, a short name (``mma.s8.u8``,
``mma.s8.s8.satfinite``).  Targets are compute capabilities and named GPUs (:mod:`intdot.nvidia.targets`).
"""

from __future__ import annotations

from functools import cache

from ..core.errors import AmbiguousInstruction, OperandTypeError, UnknownInstruction
from ..core.values import a_or_an, describe
from ..isa.record import Instruction, k_step
from ..isa.registry import model_front_end
from .tables import DP_ROWS, MMA_ROWS
from .targets import MODEL


def _dp(row) -> Instruction:
    mnemonic = row.ptx.rsplit(".", 2)[0]  # dp4a, dp2a.lo, dp2a.hi
    part = f" (bytes {'0-1' if row.part == 'lo' else '2-3'} of b)" if row.part else ""
    return Instruction(
        isa="nvidia",
        name=f"nvidia.{row.ptx}",
        mnemonic=mnemonic,
        spellings=(row.ptx, mnemonic.split(".")[0], *row.cuda),
        spec=row.spec,
        k_step=k_step(row.spec),
        neg=False,
        clamp=False,
        sign_args=False,
        features=row.features,
        syntax=f"{row.ptx} d, a, b, c;",
        summary=f"{row.kind} .{row.a_type} x .{row.b_type} -> .{row.acc_type}{part}, wraps (PTX ISA 5.0)",
        row=row,
    )


def _mma(row) -> Instruction:
    base = f"mma.{row.shape}.{row.a_type}.{row.b_type}" + (".satfinite" if row.satfinite else "")
    rule = "saturates C + A B once" if row.satfinite else "wraps"
    return Instruction(
        isa="nvidia",
        name=f"nvidia.{base}",
        mnemonic="mma",
        spellings=(row.ptx, row.short, base, "mma"),
        spec=row.spec,
        k_step=(32, 32),  # the whole K of one instruction: 32 bytes of A's row and of B's column
        neg=False,
        clamp=row.satfinite,
        sign_args=False,
        features=row.features,
        syntax=f"{row.ptx} {{d0, d1, d2, d3}}, {{a0, a1, a2, a3}}, {{b0, b1}}, {{c0, c1, c2, c3}};",
        summary=f"{row.shape} .{row.a_type} x .{row.b_type} -> .s32, {rule} (PTX ISA 7.0)",
        row=row,
    )


def records() -> list[Instruction]:
    return [*(_dp(r) for r in DP_ROWS), *(_mma(r) for r in MMA_ROWS)]


@cache
def _by_spelling() -> dict[str, str]:
    return {s.lower(): r.name for r in _records() for s in r.spellings if "." in s and "(" not in s}


def find(name: str) -> Instruction:
    """The record of an NVIDIA spelling (``dp4a.u32.s32``, ``__dp4a(int, int, int)``, ``mma.s8.s8``)."""
    if not isinstance(name, str):
        raise OperandTypeError(
            f"name={describe(name)} is {a_or_an(type(name).__name__)}, not an instruction name; expected a PTX or "
            "CUDA spelling (a str) such as 'dp4a.u32.s32', '__dp2a_hi' or 'mma.s8.u8.satfinite'"
        )
    text = " ".join(name.split()).lower()
    hits = [r for r in _records() if text == r.name.lower() or text in (s.lower() for s in r.spellings)]
    if len(hits) > 1:  # a bare mnemonic: dp4a, dp2a, mma
        listing = ", ".join(r.name for r in hits)
        raise AmbiguousInstruction(
            f"name={describe(name)} names {len(hits)} NVIDIA instructions: {listing}; pass one of these names",
            tuple(hits),
        )
    if hits:
        return hits[0]
    hit = parse_text(text)
    if hit is not None:
        return next(r for r in _records() if r.name == hit)
    raise UnknownInstruction(
        f"name={describe(name)} is not an NVIDIA instruction; expected a PTX or CUDA spelling "
        f"such as 'dp4a.u32.s32', '__dp2a_hi' or 'mma.s8.u8.satfinite'"
    )


@cache
def _records() -> tuple[Instruction, ...]:
    return tuple(records())


def parse_text(text: str) -> str | None:
    """The record name of a PTX line (``dp4a.u32.s32 %r1, %r2, %r3, %r4;``); None if it is not one."""
    words = text.strip().split()
    return _by_spelling().get(words[0].lower()) if words else None


FRONT_END = model_front_end(
    MODEL,
    records,
    isa="nvidia",
    title="NVIDIA",
    target_help="an NVIDIA compute capability or GPU (sm_90, h200)",
    parse_text=parse_text,
)
