"""The NVIDIA integer dot instructions as rows: PTX ``dp4a``/``dp2a`` with their CUDA spellings, and the integer
``mma.sync`` forms.  Everything else in :mod:`intdot.nvidia` is derived from these rows.

The facts are the PTX ISA's (``dp4a``, ``dp2a``, ``mma``) and CUDA's ``sm_61_intrinsics.h`` overloads; where
saturation happens in ``.satfinite`` was measured on an H200 (``scripts/gpu/nvidia_vectors.py``): once, on
the exact sum ``C + A B`` of the whole instruction.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.spec import DotSpec

TYPES = ("u32", "s32")  # dp4a/dp2a operand types
MMA_TYPES = ("s8", "u8", "s4", "u4")


@dataclass(frozen=True)
class DpRow:
    """One PTX ``dp4a``/``dp2a`` variant and the CUDA overloads that compile to it."""

    ptx: str  # "dp4a.u32.s32", "dp2a.hi.s32.s32"
    a_type: str
    b_type: str
    part: str | None  # dp2a: "lo" (bytes 0-1 of b) or "hi" (bytes 2-3); dp4a: None
    cuda: tuple[str, ...] = ()  # CUDA spellings: the bare name first where this is its int overload

    @property
    def kind(self) -> str:
        return "dp4a" if self.part is None else "dp2a"

    @property
    def acc_type(self) -> str:
        """PTX: d and c are .u32 when both sources are .u32, else .s32."""
        return "u32" if self.a_type == self.b_type == "u32" else "s32"

    @property
    def spec(self) -> DotSpec:
        sa, sb, acc = self.a_type == "s32", self.b_type == "s32", self.acc_type == "s32"
        if self.part is None:
            return DotSpec.packed32(8, sa, sb, acc_signed=acc)
        return DotSpec(16, 8, 2, sa, sb, acc_signed=acc, b_first=0 if self.part == "lo" else 2, b_word=32)

    @property
    def features(self) -> str:
        return "dp4a"


@dataclass(frozen=True)
class MmaRow:
    """One integer ``mma.sync.aligned`` form: m16n8k32 on 8-bit or m16n8k64 on 4-bit elements, row.col."""

    a_type: str
    b_type: str
    satfinite: bool

    @property
    def width(self) -> int:
        return int(self.a_type[1:])

    @property
    def shape(self) -> str:
        return "m16n8k32" if self.width == 8 else "m16n8k64"

    @property
    def k(self) -> int:
        return 256 // self.width

    @property
    def ptx(self) -> str:
        sat = ".satfinite" if self.satfinite else ""
        return f"mma.sync.aligned.{self.shape}.row.col{sat}.s32.{self.a_type}.{self.b_type}.s32"

    @property
    def short(self) -> str:
        return f"mma.{self.a_type}.{self.b_type}" + (".satfinite" if self.satfinite else "")

    @property
    def spec(self) -> DotSpec:
        """One 64-bit piece of a row of A times a column of B (the core's widest word); an instruction chains
        ``k / lanes`` of them exactly and then wraps or saturates once (``k_step`` is the whole K)."""
        w = self.width
        return DotSpec(w, w, 64 // w, self.a_type[0] == "s", self.b_type[0] == "s", 32, True)

    @property
    def features(self) -> str:
        return "mma-i8" if self.width == 8 else "mma-i4"


def _cuda(kind: str, a_type: str, b_type: str) -> tuple[str, ...]:
    """The CUDA overloads of ``kind`` (``__dp4a``, ``__dp2a_lo``, ``__dp2a_hi``) that are this PTX variant."""
    vec_a = "char4" if kind == "__dp4a" else "short2"
    if a_type == b_type == "s32":
        return (kind, f"{kind}(int, int, int)", f"{kind}({vec_a}, char4, int)")
    if a_type == b_type == "u32":
        return (f"{kind}(unsigned int, unsigned int, unsigned int)", f"{kind}(u{vec_a}, uchar4, unsigned int)")
    return ()


DP_ROWS: tuple[DpRow, ...] = (
    *(DpRow(f"dp4a.{a}.{b}", a, b, None, _cuda("__dp4a", a, b)) for a in TYPES for b in TYPES),
    *(
        DpRow(f"dp2a.{part}.{a}.{b}", a, b, part, _cuda(f"__dp2a_{part}", a, b))
        for part in ("lo", "hi")
        for a in TYPES
        for b in TYPES
    ),
)

MMA_ROWS: tuple[MmaRow, ...] = tuple(
    MmaRow(a, b, sat) for pair in (("s8", "u8"), ("s4", "u4")) for a in pair for b in pair for sat in (False, True)
)

__all__ = ["DP_ROWS", "MMA_ROWS", "MMA_TYPES", "TYPES", "DpRow", "MmaRow"]
