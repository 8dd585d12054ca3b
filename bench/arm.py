"""Arm bench: bulk disassembly against capstone, measured in the same run.

10^6 random words drawn evenly from the rows of ``intdot.arm.FORMS`` (every
free field bit random, so every word is a legal instruction) are disassembled
by intdot's bulk path.  capstone (pip package ``capstone``) disassembles the
NEON/SVE words of the same set (capstone 5 has no SME2); intdot's rate on
exactly those words is printed next to it, with the ratio.  Then the
executor's SME2 vgx4 rate at SVL=2048 (``bench/arm_exec.py``).

Run: ``.venv/bin/python bench/arm.py [--n 1000000] [--repeat 3]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def random_words(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """n words drawn evenly from the form rows, and the row index of each."""
    from intdot.arm import FORMS

    rng = np.random.default_rng(seed)
    row = rng.integers(0, len(FORMS), n)
    mask = np.array([f.layout.mask for f in FORMS], dtype=np.uint32)[row]
    match = np.array([f.layout.match for f in FORMS], dtype=np.uint32)[row]
    noise = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    return (noise & ~mask) | match, row


def best_of(repeat: int, fn):
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return min(times), result


def capstone_disassembler():
    """(callable words -> list of str, description) or (None, reason)."""
    try:
        import capstone
    except ImportError:
        return None, "capstone is not installed (pip install capstone)"
    arch = getattr(capstone, "CS_ARCH_AARCH64", None)  # capstone 6 renamed ARM64
    if arch is None:
        arch = capstone.CS_ARCH_ARM64
    md = capstone.Cs(arch, capstone.CS_MODE_ARM)

    def run(words: np.ndarray) -> list[str]:
        code = words.astype("<u4").tobytes()
        return [f"{mnemonic} {ops}" for _, _, mnemonic, ops in md.disasm_lite(code, 0)]

    return run, f"capstone {capstone.__version__} (disasm_lite, text joined as 'mnemonic operands')"


def bench_disassembly(n: int, repeat: int) -> None:
    import intdot.arm as arm
    from intdot.arm.bulk import _tables

    words, row = random_words(n)
    names = [f.name for f in arm.FORMS]
    neon_sve = np.isin(row, [i for i, f in enumerate(arm.FORMS) if f.kind in ("neon_dot_elem", "sve_dot_indexed")])
    subset = words[neon_sve]
    print(f"words: {n} drawn evenly from {len(names)} rows ({', '.join(names)})")
    t0 = time.perf_counter()
    for f in arm.FORMS:
        _tables(f)  # string tables are built once per process; the rates below are the steady state
    print(f"intdot string tables, built once per process: {(time.perf_counter() - t0) * 1e3:.1f} ms")

    t_all, texts = best_of(repeat, lambda: arm.disassemble(words))
    print(f"intdot bulk, all forms:    {n / t_all:14,.0f} words/s  ({t_all * 1e3:.1f} ms)")
    t_sub, sub_texts = best_of(repeat, lambda: arm.disassemble(subset))
    print(f"intdot bulk, NEON/SVE:     {subset.size / t_sub:14,.0f} words/s  ({subset.size} words)")
    t_scalar, _ = best_of(1, lambda: [arm.disassemble(int(w)) for w in words[:20000]])
    print(f"intdot scalar (per word):  {20000 / t_scalar:14,.0f} words/s  (20000 words, for scale)")

    run, what = capstone_disassembler()
    if run is None:
        print(f"capstone: not measured: {what}")
        return
    t_cs, cs_texts = best_of(max(1, repeat - 1), lambda: run(subset))
    print(f"{what}")
    print(f"capstone, NEON/SVE:        {subset.size / t_cs:14,.0f} words/s  ({len(cs_texts)} decoded)")
    print(f"ratio intdot/capstone on the same NEON/SVE words: {t_cs / t_sub:.1f}x")
    same = sum(a == b for a, b in zip(sub_texts.tolist(), cs_texts))
    print(f"texts identical to capstone's: {same} of {subset.size}")
    sme2 = words[~neon_sve][:1000]
    decoded = len(run(sme2[:1]))
    print(f"capstone decodes SME2 sudot: {'yes' if decoded else 'no'} "
          f"(e.g. {int(sme2[0]):#010x} = {texts[~neon_sve][0]!r})")


# --- HOOK: SME2 vgx4 executions per second at SVL = 2048 (bench/arm_exec.py, the executor's bench) ---
def bench_sme2_execute(svl: int = 2048) -> None:
    try:
        from intdot.arm import State, execute  # noqa: F401
    except (ImportError, AttributeError) as exc:
        print(f"SME2 vgx4 execution: executor not available ({exc})")
        return
    import os
    import sys

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    try:
        import arm_exec
    except ImportError as exc:
        print(f"SME2 vgx4 execution: not measured (bench/arm_exec.py: {exc})")
        return
    arm_exec.report(svl)


# --- end of hook ---------------------------------------------------------------------------


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000, help="number of words (default 10^6)")
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs")
    args = parser.parse_args(argv)
    bench_disassembly(args.n, args.repeat)
    bench_sme2_execute()


if __name__ == "__main__":
    main()
