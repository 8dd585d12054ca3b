"""``intdot demo``: quantized inference on the handwritten digits, run in integers through intdot.gemm."""

from __future__ import annotations

import argparse
import json
import sys
import time

EPILOG = """\
examples:
  intdot demo
  intdot demo --json > demo.json
  intdot demo --plot demo.png
  intdot demo --subset 600 --seed 1

Trains a 64-64-10 MLP in NumPy on the digits that scikit-learn ships (no
downloads), quantizes it (per-channel int8 and int4 weights, uint8/uint4
activations) and runs it through intdot.gemm with each dot instruction on a
target that has it (checked), printing accuracy, bit-identity of the integer
logits within each weight/activation group, clamp effects and time.
"""


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "demo",
        help="quantized MLP inference on the digits through every fitting dot instruction",
        # The formatter keeps the epilog's line breaks, so the description is broken by hand too.
        description="Train a small MLP on scikit-learn's digits, quantize it, and run integer inference\n"
        "through intdot.gemm with AMD and Arm dot instructions (needs the 'demo' extra:\n"
        "scikit-learn, matplotlib).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--json", action="store_true", help="print the results as one JSON object")
    p.add_argument(
        "--plot", metavar="FILE", help="write a PNG: accuracy per instruction and bit width, and a confusion matrix"
    )
    p.add_argument(
        "--seed", type=int, default=0, help="seed of the split and the training, a non-negative integer (default 0)"
    )
    p.add_argument(
        "--subset", type=int, default=None, metavar="N", help="use N of the 1797 images, 50 to 1797 (default all)"
    )
    p.add_argument("--hidden", type=int, default=64, metavar="H", help="hidden units, 4 to 1024 (default 64)")
    p.add_argument("--epochs", type=int, default=60, help="training epochs, 1 to 1000 (default 60)")
    p.set_defaults(func=run)


class _Progress:
    """A one-line bar on stderr, drawn only when stderr is a terminal."""

    def __init__(self, stream=None):
        self.stream = stream or sys.stderr
        self.on = hasattr(self.stream, "isatty") and self.stream.isatty()

    def __call__(self, i, total, label):
        if not self.on:
            return
        width = 24
        done = int(width * i / max(total, 1))
        self.stream.write(f"\r[{'#' * done}{'.' * (width - done)}] {i}/{total} {label:<28}")
        if i >= total:
            self.stream.write("\r" + " " * (width + 40) + "\r")
        self.stream.flush()


def _check_args(args):
    from ..core.errors import OperandError

    if args.seed < 0:
        # NumPy's generators take any non-negative int and raise a bare ValueError for the rest.
        raise OperandError(f"--seed {args.seed}: expected a non-negative integer")
    if args.subset is not None and not 50 <= args.subset <= 1797:
        raise OperandError(f"--subset {args.subset}: expected a number of images in [50, 1797]")
    if not 4 <= args.hidden <= 1024:
        raise OperandError(f"--hidden {args.hidden}: expected a number of hidden units in [4, 1024]")
    if not 1 <= args.epochs <= 1000:
        raise OperandError(f"--epochs {args.epochs}: expected a number of epochs in [1, 1000]")


def run(args) -> int:
    from ..demo import load_digits_split, run_all, train

    _check_args(args)
    progress = _Progress()
    progress(0, 1, "training the float model")
    t0 = time.perf_counter()
    x_tr, y_tr, x_te, y_te = load_digits_split(args.seed, subset=args.subset)
    model = train(x_tr, y_tr, hidden=args.hidden, epochs=args.epochs, seed=args.seed)
    t_train = time.perf_counter() - t0
    result = run_all(model, x_tr, x_te, y_te, progress=progress)
    result["train_s"] = t_train
    result["n_train"] = int(len(y_tr))
    if args.plot:
        _plot(result, args.plot)
    if args.json:
        json.dump(result, sys.stdout)
        sys.stdout.write("\n")
    else:
        _table(result)
        if args.plot:
            print(f"plot written to {args.plot}")
    return 0


def _table(result):
    f = result["float"]["accuracy"]
    print(
        f"digits: {result['n_train']} training and {result['n_test']} test images; float model trained in "
        f"{result['train_s']:.1f} s, test accuracy {f:.2%}"
    )
    head = ("instruction", "target", "W/A", "activations", "clamp", "accuracy", "= float", "logits", "clamp Δ", "ms")
    rows = []
    for r in result["rows"]:
        delta = "" if r["clamp_changed_outputs"] is None else str(r["clamp_changed_outputs"])
        rows.append(
            (
                r["instruction"],
                r["target"],
                r["group"],
                r["handling"],
                "on" if r["clamp"] else "off",
                f"{r['accuracy']:.2%}",
                f"{r['agrees_with_float']:.1%}",
                "identical" if r["identical_in_group"] else "DIFFER",
                delta,
                f"{r['time_ms']:.0f}",
            )
        )
    widths = [max(len(h), *(len(x[i]) for x in rows)) for i, h in enumerate(head)]
    print("  ".join(h.ljust(w) for h, w in zip(head, widths)))
    for x in rows:
        print("  ".join(v.ljust(w) for v, w in zip(x, widths)))
    print(
        "accuracy: on the test images; = float: predictions equal to the float model's; logits: the integer "
        "logits against the first row of the same W/A group, bit for bit; clamp Δ: outputs that saturating "
        "accumulation changed against the same instruction without clamp"
    )


def _plot(result, path):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        from ..core.errors import IntdotError

        raise IntdotError("--plot needs matplotlib (the 'demo' extra): pip install 'intdot[demo]'") from None
    rows = result["rows"]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 5), gridspec_kw={"width_ratios": [1.6, 1]})
    labels = [f"{r['instruction']}\n{r['target']}\n{r['group']}{' clamp' if r['clamp'] else ''}" for r in rows]
    colours = {"W8A8": "#3b75af", "W4A8": "#ef8636", "W4A4": "#519e3e"}
    ax1.bar(range(len(rows)), [100 * r["accuracy"] for r in rows], color=[colours[r["group"]] for r in rows])
    ax1.axhline(100 * result["float"]["accuracy"], color="k", ls="--", lw=1, label="float model")
    ax1.set_xticks(range(len(rows)), labels, fontsize=6)
    lo = min(100 * r["accuracy"] for r in rows)
    ax1.set_ylim(max(0, lo - 5), 100)
    ax1.set_ylabel("test accuracy (%)")
    ax1.set_title("integer inference per instruction and bit width")
    ax1.legend(
        handles=[plt.Rectangle((0, 0), 1, 1, color=c, label=g) for g, c in colours.items()]
        + ax1.get_legend_handles_labels()[0],
        fontsize=8,
        loc="lower right",
    )
    conf = rows[0]["confusion"]
    ax2.imshow(conf, cmap="Blues")
    for i in range(10):
        for j in range(10):
            if conf[i][j]:
                ax2.text(j, i, conf[i][j], ha="center", va="center", fontsize=7)
    ax2.set_xticks(range(10))
    ax2.set_yticks(range(10))
    ax2.set_xlabel("predicted")
    ax2.set_ylabel("true digit")
    ax2.set_title(f"confusion: {rows[0]['instruction']} {rows[0]['group']}")
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=110)
    except OSError as exc:
        from ..core.errors import IntdotError

        raise IntdotError(f"--plot {path}: cannot write the file: {exc.strerror}") from None
    finally:
        plt.close(fig)
