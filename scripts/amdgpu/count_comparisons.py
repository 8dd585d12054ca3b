"""How many llvm-mc-19 comparisons tests/amdgpu/test_llvm_mc.py makes, per instruction and generation, in the
default run and with ``--slow``: lines whose text llvm-mc accepts (bytes and text compared), lines it rejects
(intdot must reject them too), and random words (decoded or not, with llvm-mc's text and length).

    .venv/bin/python scripts/amdgpu/count_comparisons.py            # runs both (about 2.5 minutes on 2 cores)
    .venv/bin/python scripts/amdgpu/count_comparisons.py --default tally.json --slow tally_slow.json

The counts come from the test itself (its ``INTDOT_AMDGPU_TALLY`` JSON), not from a copy of its loops.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
GENERATIONS = ("gfx9", "gfx10", "gfx11", "gfx12")
WHAT = {"text accepted": "acc", "text rejected": "rej", "word": "word"}


def _run(slow: bool) -> list:
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "tally.json"
        env = {**os.environ, "INTDOT_AMDGPU_TALLY": str(out)}
        args = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/amdgpu/test_llvm_mc.py"]
        subprocess.run(args + (["--slow"] if slow else []), cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
        return json.loads(out.read_text())


def _table(rows: list) -> dict:
    counts: dict = collections.defaultdict(collections.Counter)
    for mnemonic, generation, what, n in rows:
        counts[mnemonic][generation, WHAT[what]] += n
    return counts


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--default", type=pathlib.Path, help="a tally JSON of the default run (else run it)")
    ap.add_argument("--slow", type=pathlib.Path, help="a tally JSON of the --slow run (else run it)")
    args = ap.parse_args(argv)
    runs = {
        "default": json.loads(args.default.read_text()) if args.default else _run(False),
        "--slow": json.loads(args.slow.read_text()) if args.slow else _run(True),
    }
    for name, rows in runs.items():
        counts = _table(rows)
        print(f"\n{name}: llvm-mc comparisons per instruction and generation (accepted lines / rejected lines / words)")
        print(f"{'instruction':<20}" + "".join(f"{g:>22}" for g in GENERATIONS) + f"{'total':>10}")
        totals = collections.Counter()
        for mnemonic in sorted(counts, key=lambda m: (m.startswith("("), m)):
            c = counts[mnemonic]
            cells = []
            for g in GENERATIONS:
                cell = "/".join(str(c[g, w]) for w in ("acc", "rej", "word"))
                cells.append(f"{cell if any(c[g, w] for w in ('acc', 'rej', 'word')) else '-':>22}")
            total = sum(c.values())
            totals.update({(g, w): c[g, w] for g in GENERATIONS for w in ("acc", "rej", "word")})
            print(f"{mnemonic:<20}" + "".join(cells) + f"{total:>10}")
        cells = ["/".join(str(totals[g, w]) for w in ("acc", "rej", "word")) for g in GENERATIONS]
        print(f"{'all':<20}" + "".join(f"{c:>22}" for c in cells) + f"{sum(totals.values()):>10}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
