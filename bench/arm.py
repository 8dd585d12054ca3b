"""Arm bench: bulk disassembly against capstone, measured in the same run.

10^6 random words drawn evenly from the rows of ``intdot.arm.FORMS`` (every
free field bit random, so every word is a legal instruction) are disassembled
by intdot's bulk path.  capstone (pip package ``capstone``) disassembles the
NEON/SVE words of the same set (capstone 5 has no SME2); intdot's rate on
exactly those words is printed next to it, with the ratio.  Then: the
decision-table decoder against a scan over the rows (scalar), ``intdot
disasm`` text against ``--json`` on 20,000 words, the import time of
``intdot.arm``, and the executor's SME2 vgx4 rate at SVL=2048
(``bench/arm_exec.py``).

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
    from intdot.arm.bulk import printer

    words, row = random_words(n)
    names = [f.name for f in arm.FORMS]
    run, what = capstone_disassembler()
    # capstone 5 stops at the first word it cannot decode: compare on the rows it knows
    known = [i for i, f in enumerate(arm.FORMS) if run is not None and run(np.array([f.layout.match]))]
    neon_sve = np.isin(row, known)
    subset = words[neon_sve]
    print(f"words: {n} drawn evenly from the {len(names)} rows of intdot.arm.FORMS")
    if run is not None:
        print(f"capstone decodes {len(known)} of the rows: {', '.join(names[i] for i in known)}")
    t0 = time.perf_counter()
    for f in arm.FORMS:
        printer().tables(f)  # string tables are built once per process; the rates below are the steady state
    print(f"intdot string tables, built once per process: {(time.perf_counter() - t0) * 1e3:.1f} ms")

    t_all, texts = best_of(repeat, lambda: arm.disassemble(words))
    print(f"intdot bulk, all forms:    {n / t_all:14,.0f} words/s  ({t_all * 1e3:.1f} ms)")
    t_sub, sub_texts = best_of(repeat, lambda: arm.disassemble(subset))
    print(f"intdot bulk, capstone's rows: {subset.size / t_sub:11,.0f} words/s  ({subset.size} words)")
    t_scalar, _ = best_of(1, lambda: [arm.disassemble(int(w)) for w in words[:20000]])
    print(f"intdot scalar (per word):  {20000 / t_scalar:14,.0f} words/s  (20000 words, for scale)")

    if run is None:
        print(f"capstone: not measured: {what}")
        return
    t_cs, cs_texts = best_of(max(1, repeat - 1), lambda: run(subset))
    print(f"{what}")
    print(f"capstone, same words:      {subset.size / t_cs:14,.0f} words/s  ({len(cs_texts)} decoded)")
    print(f"ratio intdot/capstone on the same words: {t_cs / t_sub:.1f}x")
    same = sum(a == b for a, b in zip(sub_texts.tolist(), cs_texts))
    print(f"texts identical to capstone's: {same} of {subset.size}")
    if (~neon_sve).any():
        print(f"capstone does not decode e.g. {int(words[~neon_sve][0]):#010x} = {texts[~neon_sve][0]!r}")


def bench_decoder(n: int = 50_000) -> None:
    """The decision table against the obvious scan over the rows, one word at a time."""
    import intdot.arm as arm
    from intdot.arm.codec import match_form

    words = random_words(n, seed=1)[0].tolist()
    rows = [(f.layout.mask, f.layout.match, f) for f in arm.FORMS]

    def scan(w):
        for mask, match, f in rows:
            if w & mask == match:
                return f
        return None

    t_table, got = best_of(3, lambda: [match_form(w) for w in words])
    t_scan, want = best_of(3, lambda: [scan(w) for w in words])
    assert got == want
    print(
        f"row lookup, decision table: {n / t_table:12,.0f} words/s; scan over {len(rows)} rows: "
        f"{n / t_scan:12,.0f} words/s; ratio {t_scan / t_table:.1f}x"
    )
    t_decode, _ = best_of(3, lambda: [arm.decode(w) for w in words[:20000]])
    print(f"arm.decode (Insn with operands): {20000 / t_decode:12,.0f} words/s")
    texts = arm.disassemble(np.array(words[:5000], dtype=np.uint32)).tolist()
    t_asm, back = best_of(3, lambda: [arm.assemble(t) for t in texts])
    assert back == words[:5000]
    print(f"arm.assemble (canonical text of random words of every row): {5000 / t_asm:12,.0f} lines/s")


def bench_cli_text_vs_json(n: int = 20_000) -> None:
    """``intdot disasm`` of n words as text and as --json, in this process (stdout discarded)."""
    import contextlib
    import io
    import os
    import tempfile

    from intdot.cli import main as cli

    words = random_words(n, seed=2)[0]
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as fh:
        fh.write("\n".join(f"{w:#010x}" for w in words.tolist()))
    try:

        def run(*extra):
            with contextlib.redirect_stdout(io.StringIO()):
                return cli(["disasm", "-f", fh.name, *extra])

        t_text, _ = best_of(3, run)
        t_json, _ = best_of(3, lambda: run("--json"))
    finally:
        os.unlink(fh.name)
    print(
        f"intdot disasm -f ({n} words): text {n / t_text:10,.0f} words/s, --json {n / t_json:10,.0f} words/s "
        f"(json/text time {t_json / t_text:.2f}x)"
    )


def bench_import(runs: int = 7) -> None:
    """Cumulative import time of intdot.arm and of intdot (its base), from python -X importtime, median."""
    import re
    import statistics
    import subprocess
    import sys

    def one(module):
        err = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", f"import {module}"], capture_output=True, text=True, check=True
        ).stderr
        line = [x for x in err.splitlines() if re.search(rf"\|\s*{re.escape(module)}$", x)][-1]
        return int(line.split("|")[1]) / 1e3

    arm_ms = statistics.median(one("intdot.arm") for _ in range(runs))
    base_ms = statistics.median(one("intdot") for _ in range(runs))
    print(
        f"import intdot.arm: {arm_ms:.0f} ms (median of {runs}; of which import intdot, numpy included, "
        f"{base_ms:.0f} ms)"
    )


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
    bench_decoder()
    bench_cli_text_vs_json()
    bench_import()
    bench_sme2_execute()


if __name__ == "__main__":
    main()
