"""Slow, obviously-correct x86 dot instructions, written from the pseudocode of Intel's SDM (Vol. 2:
VPDPBUSD, VPDPBUSDS, VPDPWSSD, VPDPWSSDS, VPDPB[SU,UU,SS]D[S], VPDPW[SU,US,UU]D[S], PMADDUBSW, PMADDWD,
TDPB[SS,SU,US,UU]D).  Shares no code with intdot: registers are ``bytes`` objects, lanes Python ints.
"""

from __future__ import annotations

# mnemonic: (source lane bytes, first source signed, second source signed, rule)
# rule: "wrap" (DEST + products, modulo 2**32), "sat" (SIGNED_DWORD_SATURATE of the exact sum),
#       "usat" (UNSIGNED_DWORD_SATURATE, the accumulator read as unsigned).
VNNI = {
    "vpdpbusd": (1, False, True, "wrap"),
    "vpdpbusds": (1, False, True, "sat"),
    "vpdpwssd": (2, True, True, "wrap"),
    "vpdpwssds": (2, True, True, "sat"),
    "vpdpbssd": (1, True, True, "wrap"),
    "vpdpbssds": (1, True, True, "sat"),
    "vpdpbsud": (1, True, False, "wrap"),
    "vpdpbsuds": (1, True, False, "sat"),
    "vpdpbuud": (1, False, False, "wrap"),
    "vpdpbuuds": (1, False, False, "usat"),
    "vpdpwsud": (2, True, False, "wrap"),
    "vpdpwsuds": (2, True, False, "sat"),
    "vpdpwusd": (2, False, True, "wrap"),
    "vpdpwusds": (2, False, True, "sat"),
    "vpdpwuud": (2, False, False, "wrap"),
    "vpdpwuuds": (2, False, False, "usat"),
}


def element(reg: bytes, i: int, size: int, signed: bool) -> int:
    return int.from_bytes(reg[i * size : (i + 1) * size], "little", signed=signed)


def vnni(mnemonic: str, src: bytes, a: bytes, b: bytes) -> list[int]:
    """The dwords of DEST after ``mnemonic dest(=src), a, b``: signed ints, or unsigned for the uu forms."""
    size, sa, sb, rule = VNNI[mnemonic]
    unsigned = "uu" in mnemonic
    out = []
    for i in range(len(src) // 4):
        total = element(src, i, 4, not unsigned)
        per = 4 // size
        for j in range(per):
            total += element(a, i * per + j, size, sa) * element(b, i * per + j, size, sb)
        if rule == "sat":
            total = max(-(2**31), min(2**31 - 1, total))
        elif rule == "usat":
            total = max(0, min(2**32 - 1, total))
        else:
            total %= 2**32
            if not unsigned and total >= 2**31:
                total -= 2**32
        out.append(total)
    return out


def masked(results: list[int], src: bytes, k: int, zero: bool) -> list[int]:
    """AVX-512 write masking: lane i keeps its result where bit i of k is set, else src's lane (or 0)."""
    return [r if k >> i & 1 else (0 if zero else element(src, i, 4, True)) for i, r in enumerate(results)]


def pmaddubsw(a: bytes, b: bytes) -> list[int]:
    """SaturateToSignedWord(a[2i+1] * b[2i+1] + a[2i] * b[2i]), a unsigned bytes, b signed bytes."""
    out = []
    for i in range(len(a) // 2):
        s = a[2 * i + 1] * element(b, 2 * i + 1, 1, True) + a[2 * i] * element(b, 2 * i, 1, True)
        out.append(max(-32768, min(32767, s)))
    return out


def pmaddwd(a: bytes, b: bytes) -> list[int]:
    """a[2i+1] * b[2i+1] + a[2i] * b[2i] as a dword (the one overflow, 2 x 2**30, reads 0x80000000)."""
    out = []
    for i in range(len(a) // 4):
        s = element(a, 2 * i, 2, True) * element(b, 2 * i, 2, True)
        s += element(a, 2 * i + 1, 2, True) * element(b, 2 * i + 1, 2, True)
        s %= 2**32
        out.append(s - 2**32 if s >= 2**31 else s)
    return out


AMX = {"tdpbssd": (True, True), "tdpbsud": (True, False), "tdpbusd": (False, True), "tdpbuud": (False, False)}


def tile(mnemonic: str, c: list[list[int]], a: list[list[int]], b: list[list[int]]) -> list[list[int]]:
    """C (M x N dwords, as ints) after ``mnemonic`` with A (M x K bytes) and B (K/4 x 4N bytes), byte values
    0..255.  SDM: for each row m, for k < K/4, for n < N: C[m][n] = DPBD(C[m][n], A[m].dword[k], B[k].dword[n])."""
    sa, sb = AMX[mnemonic]
    unsigned = mnemonic == "tdpbuud"

    def byte(v, signed):
        return v - 256 if signed and v >= 128 else v

    out = []
    for m, row in enumerate(c):
        acc = [v % 2**32 for v in row]
        for k in range(len(a[m]) // 4):
            for n in range(len(row)):
                d = sum(byte(a[m][4 * k + j], sa) * byte(b[k][4 * n + j], sb) for j in range(4))
                acc[n] = (acc[n] + d) % 2**32
        out.append([v if unsigned or v < 2**31 else v - 2**32 for v in acc])
    return out
