"""Command-line bench: ``intdot disasm`` text output against ``--json``, in one run.

20,000 words (by default) drawn evenly from the dot-product forms of the Arm
table, every free bit random, are written as a hex word file; then
``intdot.cli.main`` disassembles it with text output, with ``--json`` and with
``--json --fields`` (which decodes each distinct word for its form, operands and
bit fields).  Each is timed in-process (best of --repeat) and as a whole new
process (startup included); last, the start-up of ``intdot --version`` and of a
one-word ``disasm`` against Python importing NumPy.  The issue's goal: JSON at least as fast per word
as text, so the ratio json/text of the rates is printed; >= ~1 is the goal.

Run: ``.venv/bin/python bench/cli.py [--n 20000] [--repeat 5]``
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import subprocess
import sys
import tempfile
import time

import numpy as np


def dot_words(n: int, seed: int = 0) -> np.ndarray:
    """n random words, each a legal encoding of one of the table's forms."""
    from intdot.arm import FORMS, disassemble

    rng = np.random.default_rng(seed)
    masks = [f.layout.mask for f in FORMS]
    matches = [f.layout.match for f in FORMS]
    row = rng.integers(0, len(masks), n)
    noise = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    words = (noise & ~np.array(masks, dtype=np.uint32)[row]) | np.array(matches, dtype=np.uint32)[row]
    # Keep only words the table decodes (a field value may be reserved); top up from those.
    ok = words[~np.char.startswith(disassemble(words, errors="mark").astype(str), ".inst")]
    return np.resize(ok, n)


def in_process(argv: list[str], repeat: int) -> float:
    from intdot.cli import main

    best = float("inf")
    for _ in range(repeat):
        sink = io.StringIO()
        t0 = time.perf_counter()
        with contextlib.redirect_stdout(sink):
            rc = main(argv)
        best = min(best, time.perf_counter() - t0)
        assert rc == 0, rc
    return best


def new_process(argv: list[str], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "intdot", *argv], check=True, stdout=subprocess.DEVNULL)
        best = min(best, time.perf_counter() - t0)
    return best


def startup(repeat: int) -> None:
    """`intdot --version` and one small command as new processes, against Python alone and
    Python importing NumPy (which every intdot command loads through the core)."""
    runs = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "python -c 'import numpy'": [sys.executable, "-c", "import numpy"],
        "intdot --version": [sys.executable, "-m", "intdot", "--version"],
        "intdot disasm 44ba1c20": [sys.executable, "-m", "intdot", "disasm", "44ba1c20"],
    }
    best = {}
    for name, cmd in runs.items():
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
            times.append(time.perf_counter() - t0)
        best[name] = min(times)
    numpy_time = best["python -c 'import numpy'"]
    print(f"start-up (best of {repeat} new processes)")
    for name, t in best.items():
        print(f"{name:28s} {t:7.3f}s  {t / numpy_time:5.2f}x python importing NumPy")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    words = dot_words(args.n)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "words.txt")
        with open(path, "w") as fh:
            fh.write("\n".join(f"{w:08x}" for w in words.tolist()) + "\n")
        modes = {"text": [], "--json": ["--json"], "--json --fields": ["--json", "--fields"]}
        print(f"intdot disasm of {args.n} dot-product words (best of {args.repeat})")
        print(f"{'output':18s} {'in-process':>12s} {'words/s':>12s} {'new process':>12s} {'words/s':>12s}")
        rates = {}
        for name, extra in modes.items():
            argv = ["disasm", "-f", path, *extra]
            t_in = in_process(argv, args.repeat)
            t_new = new_process(argv, max(1, args.repeat // 2))
            rates[name] = (args.n / t_in, args.n / t_new)
            print(f"{name:18s} {t_in:11.3f}s {args.n / t_in:12,.0f} {t_new:11.3f}s {args.n / t_new:12,.0f}")
        for name in ("--json", "--json --fields"):
            print(
                f"ratio {name} / text rate: in-process {rates[name][0] / rates['text'][0]:.2f}x, "
                f"new process {rates[name][1] / rates['text'][1]:.2f}x"
            )
    startup(args.repeat)


if __name__ == "__main__":
    main()
