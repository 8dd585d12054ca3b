"""Arm executor bench: SME2 ``vgx4`` SUDOT executions per second at SVL = 2048.

One execution updates 4 ZA rows of 64 int32 lanes (256 dot products of 4
byte pairs).  Printed next to it, measured in the same run: the core's
``dot_arrays`` on the same 256 words alone (the floor the executor's word
selection sits on), and the same instruction given as text and as a word
(parsed/decoded every time).

``bench/arm.py`` can call :func:`sme2_vgx4_rate` (its hook) or
:func:`report`; run alone: ``.venv/bin/python bench/arm_exec.py``.
"""

from __future__ import annotations

import time

import numpy as np

INDEXED = "sudot za.s[w9, 3, vgx4], { z4.b - z7.b }, z8.b[2]"
SINGLE = "sudot za.s[w9, 3, vgx4], { z30.b, z31.b, z0.b, z1.b }, z8.b"


def _rate(fn, min_time: float = 0.5) -> float:
    """Calls per second of fn(), best of three timed batches."""
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


def _state(svl: int):
    from intdot.arm import State

    rng = np.random.default_rng(0)
    s = State(128, svl, streaming=True)
    s.z[:] = rng.integers(0, 256, s.z.shape, dtype=np.uint8)
    s.za[:] = rng.integers(0, 256, s.za.shape, dtype=np.uint8)
    s.w[9] = 12345
    return s


def sme2_vgx4_rate(svl: int = 2048, text: str = INDEXED, min_time: float = 0.5) -> float:
    """Executions per second of one decoded SME2 vgx4 SUDOT on a streaming State."""
    from intdot.arm import asm
    from intdot.arm.executor import execute

    s, insn = _state(svl), asm.parse(text)
    return _rate(lambda: execute(s, insn), min_time)


def report(svl: int = 2048) -> None:
    from intdot.arm import asm
    from intdot.arm.executor import execute, spec_for
    from intdot.core import dot_arrays

    s = _state(svl)
    rows = svl // 8 // 4 * np.arange(4)
    a = s.z[4:8].view("<u4").copy()
    b = s.z[8].view("<u4").reshape(-1, 4)[:, 2:3].repeat(4, axis=1).reshape(1, -1)
    acc = s.za[rows].view("<u4").copy()
    spec = spec_for(True, False)
    core = _rate(lambda: dot_arrays(spec, a, b, acc, neg=False, clamp=False))
    print(f"SME2 vgx4 SUDOT at SVL={svl} ({4 * svl // 32} dot products per execution):")
    print(f"  core dot_arrays on the same words alone: {core:12,.0f} calls/s  (baseline)")
    for label, text in (("indexed", INDEXED), ("single", SINGLE)):
        insn = asm.parse(text)
        word = asm.assemble(text)
        r_insn = _rate(lambda: execute(s, insn))
        r_word = _rate(lambda: execute(s, word))
        r_text = _rate(lambda: execute(s, text))
        print(f"  {label:8s} decoded Insn: {r_insn:12,.0f} exec/s  ({r_insn / core:.2f}x the baseline)"
              f"   from word: {r_word:10,.0f}/s   from text: {r_text:10,.0f}/s")


if __name__ == "__main__":
    report()
