"""Slow, obviously-correct GEMM: pack each step's lanes into a word, run the scalar instruction, chain along K.

Written from the specs (AMD dot builtins reference; Arm SDOT/UDOT/USDOT/SUDOT pseudocode), sharing no code
with intdot.  One instruction step reads ``lanes`` lanes of ``width`` bits from each packed word (lane 0 in
the low bits), multiplies pairwise, sums exactly, adds to (or subtracts from) the accumulator, and then wraps
to the accumulator's width or, with clamp, saturates once to its range.
"""

# name: (a_width, a_signed, b_width, b_signed, lanes, acc_bits, acc_signed, has_clamp_neg[, pair_sat])
# pair_sat: x86's vpmaddubsw + vpmaddwd idiom sums adjacent products in pairs, each pair saturated to a
# signed integer of that many bits (SDM: SaturateToSignedWord(a[2i+1]*b[2i+1] + a[2i]*b[2i])).
OPS = {
    "udot4": (8, False, 8, False, 4, 32, False, True),
    "sdot4": (8, True, 8, True, 4, 32, True, True),
    "udot8": (4, False, 4, False, 8, 32, False, True),
    "sdot8": (4, True, 4, True, 8, 32, True, True),
    "sdot2": (16, True, 16, True, 2, 32, True, True),
    "udot2": (16, False, 16, False, 2, 32, False, True),
    "sdot": (8, True, 8, True, 4, 32, True, False),
    "udot": (8, False, 8, False, 4, 32, False, False),
    "usdot": (8, False, 8, True, 4, 32, True, False),
    "sudot": (8, True, 8, False, 4, 32, True, False),
    "svdot_s64": (16, True, 16, True, 4, 64, True, False),
    "svdot_u64": (16, False, 16, False, 4, 64, False, False),
}


def sudot_row(name, a_signed, b_signed):
    """AMD sudot4/sudot8: the signedness of each operand is a flag; the result is int."""
    w = 8 if name == "sudot4" else 4
    return (w, a_signed, w, b_signed, 32 // w, 32, True, True)


def pack(values, width):
    word = 0
    for i, v in enumerate(values):
        word |= (v & ((1 << width) - 1)) << (width * i)
    return word


def lane(word, i, width, signed):
    v = (word >> (width * i)) & ((1 << width) - 1)
    return v - (1 << width) if signed and v >> (width - 1) else v


def instruction(row, src0, src1, acc, neg=False, clamp=False):
    """One scalar instruction on packed words; acc in the accumulator type's spelling."""
    aw, asg, bw, bsg, lanes, bits, acc_signed = row[:7]
    pair_sat = row[8] if len(row) > 8 else None
    products = [lane(src0, i, aw, asg) * lane(src1, i, bw, bsg) for i in range(lanes)]
    if pair_sat is None:
        d = sum(products)
    else:
        top = 1 << (pair_sat - 1)
        d = sum(min(max(products[i] + products[i + 1], -top), top - 1) for i in range(0, lanes, 2))
    r = acc - d if neg else acc + d
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if acc_signed else (0, (1 << bits) - 1)
    if clamp:
        return min(max(r, lo), hi)
    r %= 1 << bits
    return r - (1 << bits) if acc_signed and r > hi else r


def gemm(row, a, b, c=None, neg=False, clamp=False):
    """a: list of M rows of K ints; b: K rows of N ints; c: M rows of N ints or None.  Lists of ints out."""
    aw, _, bw, _, lanes = row[:5]
    m, k, n = len(a), len(b), len(b[0]) if b else 0
    out = []
    for i in range(m):
        orow = []
        for j in range(n):
            acc = 0 if c is None else c[i][j]
            for t in range(0, k, lanes):
                # The kernel's zero padding of the last step.
                xa = [a[i][kk] if kk < k else 0 for kk in range(t, t + lanes)]
                xb = [b[kk][j] if kk < k else 0 for kk in range(t, t + lanes)]
                acc = instruction(row, pack(xa, aw), pack(xb, bw), acc, neg, clamp)
            orow.append(acc)
        out.append(orow)
    return out
