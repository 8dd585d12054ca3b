"""Arm executor and ACLE bench: executions per second, as ratios to the core alone.

For one form of each semantic kind and element size (NEON by vector and by
element; SVE .s, .d and 2-way .h -> .s; SME2 za.s and za.d single, multi and
indexed, vgx4) at VL = SVL = 2048, it measures ``execute(state, insn)`` on a
decoded instruction and, in the same run, the core's ``dot_arrays`` on the
same number of words alone (the floor the executor's register selection sits
on), printing both and their ratio.  Then the same for a few ACLE intrinsics,
and the SME2 vgx4 SUDOT executed from text and from its word.

``bench/arm.py`` calls :func:`report` (its hook); run alone:
``.venv/bin/python bench/arm_exec.py``.
"""

from __future__ import annotations

import time

import numpy as np

INDEXED = "sudot za.s[w9, 3, vgx4], { z4.b - z7.b }, z8.b[2]"
SINGLE = "sudot za.s[w9, 3, vgx4], { z30.b, z31.b, z0.b, z1.b }, z8.b"

FORMS = [  # (label, instruction text)
    ("NEON sdot by vector .4s", "sdot v0.4s, v1.16b, v2.16b"),
    ("NEON usdot by element .4s", "usdot v0.4s, v1.16b, v2.4b[3]"),
    ("SVE sdot .s", "sdot z0.s, z1.b, z2.b"),
    ("SVE udot .d indexed", "udot z0.d, z1.h, z15.h[1]"),
    ("SVE2.1 sdot 2-way .s", "sdot z0.s, z1.h, z2.h"),
    ("SME2 sudot za.s indexed vgx4", INDEXED),
    ("SME2 usdot za.s multi vgx4", "usdot za.s[w8, 0, vgx4], { z0.b - z3.b }, { z4.b - z7.b }"),
    ("SME2 sdot za.d single vgx4", "sdot za.d[w10, 1, vgx4], { z0.h - z3.h }, z9.h"),
]


def _rate(fn, min_time: float = 0.3) -> float:
    """Calls per second of fn(), best of three timed batches (after 100 warm-up calls: the core
    compiles its kernel for a spec once it is hot, which must not land in a timed batch)."""
    for _ in range(100):
        fn()
    n, best = 1, 0.0
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        dt = time.perf_counter() - t0
        if dt >= min_time / 5:
            best = max(best, n / dt)
            break
        n *= 4
    for _ in range(2):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = max(best, n / (time.perf_counter() - t0))
    return best


def _state(svl: int, streaming: bool = True):
    from intdot.arm import State

    rng = np.random.default_rng(0)
    s = State(svl, svl, streaming=streaming)
    s.z[:] = rng.integers(0, 256, s.z.shape, dtype=np.uint8)
    s.za[:] = rng.integers(0, 256, s.za.shape, dtype=np.uint8)
    s.w[8], s.w[9], s.w[10] = 5, 12345, 77
    return s


def sme2_vgx4_rate(svl: int = 2048, text: str = INDEXED, min_time: float = 0.5) -> float:
    """Executions per second of one decoded SME2 vgx4 instruction on a streaming State."""
    from intdot.arm import asm
    from intdot.arm.executor import execute

    s, insn = _state(svl), asm.parse(text)
    return _rate(lambda: execute(s, insn), min_time)


def _core_rate(spec, nwords: int) -> float:
    """The core alone on ``nwords`` accumulator words of ``spec`` (same shapes as one execution)."""
    from intdot.arm import semantics as sem
    from intdot.core import dot_arrays

    rng = np.random.default_rng(1)
    dt = sem.word_dtype(spec)
    a, b, acc = (rng.integers(0, 2**63, nwords, dtype=np.uint64).astype(dt) for _ in range(3))
    return _rate(lambda: dot_arrays(spec, a, b, acc, neg=False, clamp=False))


def report(svl: int = 2048) -> None:
    from intdot.arm import acle, asm
    from intdot.arm.executor import execute, form_spec

    print(f"Arm executor at VL = SVL = {svl} (decoded Insn; core = dot_arrays on the same words alone):")
    for label, text in FORMS:
        insn = asm.parse(text)
        spec = form_spec(insn.form)
        s = _state(svl)  # streaming: NEON/SVE run on SVL-long Z registers, as SME2 does
        zbits = 128 if insn.form.kind.startswith("neon") else svl
        nwords = zbits // spec.acc_bits * insn.form.nvec
        core = _core_rate(spec, nwords)
        r = _rate(lambda s=s, insn=insn: execute(s, insn))
        print(f"  {label:30s} {nwords:4d} words  {r:10,.0f} exec/s   core {core:10,.0f}/s   ({r / core:.2f}x)")
    rng = np.random.default_rng(2)
    n8 = svl // 8
    acc4, a16 = np.zeros(4, np.int32), rng.integers(-128, 128, 16).astype(np.int8)
    accv, av = np.zeros(svl // 32, np.int32), rng.integers(-128, 128, n8).astype(np.int8)
    zn4 = tuple(rng.integers(-(2**15), 2**15, svl // 16).astype(np.int16) for _ in range(4))
    h, za = zn4[0], np.zeros((n8, n8), np.uint8)
    calls = [
        ("vdotq_laneq_s32", lambda: acle.vdotq_laneq_s32(acc4, a16, a16, 1), 4),
        ("svdot_s32 (VL)", lambda: acle.svdot_s32(accv, av, av), svl // 32),
        ("svdot_lane_za64_s16_vg1x4", lambda: acle.svdot_lane_za64_s16_vg1x4(3, zn4, h, 1, za=za), 4 * svl // 64),
    ]
    print("ACLE intrinsics (NumPy arrays in and out, each argument checked):")
    for label, fn, nwords in calls:
        r = _rate(fn)
        print(f"  {label:30s} {nwords:4d} words  {r:10,.0f} calls/s")
    s = _state(svl)
    word = asm.assemble(INDEXED)
    r_word = _rate(lambda: execute(s, word))
    r_text = _rate(lambda: execute(s, INDEXED))
    print(
        f"SME2 vgx4 SUDOT indexed, decoded every call from its word: {r_word:,.0f}/s; "
        f"parsed every call from text: {r_text:,.0f}/s"
    )


if __name__ == "__main__":
    report()
