"""``intdot demo``: quantized inference on the handwritten digits, in ONNX Runtime and through every fitting
instruction."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from .numbers import integer

EPILOG = """\
examples:
  intdot demo
  intdot demo --json > demo.json
  intdot demo --plot demo.png
  intdot demo --subset 600 --seed 1

Trains a 64-64-10 MLP and a small CNN in NumPy on the digits that scikit-learn
ships (no downloads), quantizes both with onnxruntime.quantization (static,
QDQ, int8, per-channel weights), runs them in ONNX Runtime and through
intdot.quant.run on every catalog instruction whose lanes take 8-bit operands
(each on a target that has it), and reports bit-identity against ONNX Runtime,
accuracy, and where instructions or runtimes differ and why.
"""

PLOT_DEFAULT = "png"


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "demo",
        help="quantized digits models in ONNX Runtime and through every fitting dot instruction",
        # The formatter keeps the epilog's line breaks, so the description is broken by hand too.
        description="Train an MLP and a CNN on scikit-learn's digits, quantize them with ONNX Runtime,\n"
        "and run them in ONNX Runtime and through intdot on every instruction that fits\n"
        "(needs the 'demo' and 'onnx' extras).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--json", action="store_true", help="print the results as one JSON object")
    p.add_argument(
        "--plot",
        metavar="FILE",
        help="also draw accuracy per instruction and a confusion matrix into FILE (.png, .pdf, .svg, ...; "
        "no extension: .png is added)",
    )
    p.add_argument(
        "--seed", type=integer, default=0, help="seed of the split and the training, a non-negative integer (default 0)"
    )
    p.add_argument(
        "--subset", type=integer, default=None, metavar="N", help="use N of the 1797 images, 50 to 1797 (default all)"
    )
    p.add_argument("--hidden", type=integer, default=64, metavar="H", help="MLP hidden units, 4 to 1024 (default 64)")
    p.add_argument("--epochs", type=integer, default=60, help="MLP training epochs, 1 to 1000 (default 60)")
    p.add_argument(
        "--cnn-epochs", type=integer, default=12, metavar="E", help="CNN training epochs, 1 to 200 (default 12)"
    )
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
        self.stream.write(f"\r[{'#' * done}{'.' * (width - done)}] {i}/{total} {label[:40]:<40}")
        if i >= total:
            self.stream.write("\r" + " " * (width + 52) + "\r")
        self.stream.flush()


def _check_args(args):
    from ..core.errors import OperandError
    from ..core.values import describe as quote  # ints of any size, as one short word

    if args.seed < 0:
        # NumPy's generators take any non-negative int and raise a bare ValueError for the rest.
        raise OperandError(f"--seed {quote(args.seed)}: expected a non-negative integer")
    if args.subset is not None and not 50 <= args.subset <= 1797:
        raise OperandError(f"--subset {quote(args.subset)}: expected a number of images in [50, 1797]")
    if not 4 <= args.hidden <= 1024:
        raise OperandError(f"--hidden {quote(args.hidden)}: expected a number of hidden units in [4, 1024]")
    if not 1 <= args.epochs <= 1000:
        raise OperandError(f"--epochs {quote(args.epochs)}: expected a number of epochs in [1, 1000]")
    if not 1 <= args.cnn_epochs <= 200:
        raise OperandError(f"--cnn-epochs {quote(args.cnn_epochs)}: expected a number of epochs in [1, 200]")


def plot_path(path: str) -> tuple[str, str]:
    """(the file that --plot writes, its format), checked before any work: matplotlib names the formats it
    writes; a name without an extension gets ``.png``, as matplotlib itself would add."""
    from ..core.errors import IntdotError

    try:
        import matplotlib

        matplotlib.use("Agg")
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise IntdotError("--plot needs matplotlib (the 'demo' extra): pip install 'intdot[demo]'") from None
    from .inputs import check_output

    formats = sorted(FigureCanvasAgg(Figure()).get_supported_filetypes())
    check_output(path, "--plot", "demo.png", formats)
    ext = os.path.splitext(path)[1][1:].lower()
    if not ext:
        return path + "." + PLOT_DEFAULT, PLOT_DEFAULT
    if ext not in formats:
        raise IntdotError(
            f"--plot {path}: matplotlib cannot write .{ext} files; expected a name ending in one of "
            f"{', '.join('.' + f for f in formats)} (or no extension, for .png)"
        )
    return path, ext


def run(args) -> int:
    _check_args(args)
    plot = plot_path(args.plot) if args.plot is not None else None  # before any work: a bad name costs nothing
    from ..demo import load_digits_split, train, train_cnn
    from ..demo.export import cnn_onnx, mlp_onnx
    from ..demo.quant import _threads, run_all

    progress = _Progress()
    progress(0, 1, "training the float models")
    t0 = time.perf_counter()
    x_tr, y_tr, x_te, y_te = load_digits_split(args.seed, subset=args.subset)
    with _threads(1):
        mlp = train(x_tr, y_tr, hidden=args.hidden, epochs=args.epochs, seed=args.seed)
        cnn = train_cnn(x_tr, y_tr, epochs=args.cnn_epochs, seed=args.seed)
    t_train = time.perf_counter() - t0
    models = {"mlp": (mlp_onnx(mlp), mlp.logits(x_te)), "cnn": (cnn_onnx(cnn), cnn.logits(x_te))}
    result = run_all(models, x_tr[:256], x_te, y_te, progress=progress)
    progress(1, 1, "done")
    import onnxruntime

    result.update(
        seed=args.seed,
        parameters={
            "subset": args.subset,
            "hidden": args.hidden,
            "epochs": args.epochs,
            "cnn_epochs": args.cnn_epochs,
            "calibration_images": int(min(256, len(x_tr))),
            "quantization": "onnxruntime.quantization.quantize_static: QDQ, int8 activations and weights, "
            "per-channel weights",
        },
        onnxruntime=onnxruntime.__version__,
        train_s=t_train,
        n_train=int(len(y_tr)),
        n_test=int(len(y_te)),
    )
    if plot:
        _plot(result, *plot)
    if args.json:
        json.dump(result, sys.stdout)
        sys.stdout.write("\n")
    else:
        _table(result)
        if plot:
            print(f"plot written to {plot[0]}")
    return 0


def _table(result):
    print(
        f"digits: {result['n_train']} training and {result['n_test']} test images (seed {result['seed']}); "
        f"models trained in {result['train_s']:.1f} s; quantized by onnxruntime {result['onnxruntime']} "
        f"(static, QDQ, int8, per-channel weights)"
    )
    head = ("dot step", "forms", "e.g.", "targets", "operands", "= ORT int8", "ORT as set up", "accuracy", "ms")
    for m in result["models"]:
        ort = m["ort"]
        print()
        print(
            f"{m['name']}: float {m['float_accuracy']:.2%}; integer nodes {', '.join(m['integer_nodes'])}; "
            f"ONNX Runtime {ort['int8_kernels']['accuracy']:.2%} with its int8 kernels, "
            f"{ort['default']['accuracy']:.2%} as it sets itself up here"
        )
        rows = []
        for r in m["rows"]:
            rows.append(
                (
                    r["step"],
                    str(len(r["instructions"])),
                    r["example"],
                    str(len(r["targets"])),
                    r["handling"],
                    "identical" if r["identical_to_ort_int8"] and r["identical_within_step"] else "DIFFER",
                    f"{r['differ_from_ort_default']} of {m['outputs']} differ"
                    if r["differ_from_ort_default"]
                    else "identical",
                    f"{r['accuracy']:.2%}",
                    f"{r['time_ms']:.0f}",
                )
            )
        widths = [max(len(h), *(len(x[i]) for x in rows)) for i, h in enumerate(head)]
        print("  " + "  ".join(h.ljust(w) for h, w in zip(head, widths)))
        for x in rows:
            print("  " + "  ".join(v.ljust(w) for v, w in zip(x, widths)))
        if m["not_fitting"]:
            names = ", ".join(n["instruction"] for n in m["not_fitting"])
            print(f"  does not fit: {names} (4-bit lanes hold no 8-bit operand; intdot.quant.run says so per node)")
    print()
    print(
        "forms: catalog instructions computing that dot step (each run; all gave the same bits); targets: where\n"
        "they exist (the target decides availability only); operands: as they are (direct), or shifted into the\n"
        "lanes with the zero point moved by as much, x - z == (x + 128) - (z + 128) (compensated): the same sums;\n"
        "= ORT int8: the logits, bit for bit, against ONNX Runtime with its int8 x int8 kernels kept\n"
        "(session.qdqisint8allowed)."
    )
    if result["ort_saturates_u8s8"]:
        print(
            "ORT as set up: on x86 ONNX Runtime turns int8 activations into uint8 for its uint8 x int8 kernel; on\n"
            "this CPU (no VNNI) that kernel is the AVX2 idiom vpmaddubsw + vpmaddwd + vpaddd, which saturates each\n"
            "pair sum a0*b0 + a1*b1 to int16: the catalog's record of that idiom (the 'pairs saturate' row) gives\n"
            "ONNX Runtime's bits exactly, and every exact instruction gives its int8 kernels' (docs/differences.md)."
        )
    else:
        print("ORT as set up: ONNX Runtime's uint8 x int8 kernel is exact on this CPU, so both ORT runs agree.")
    print(
        "'saturating' rows (x86 vpdpbusds, PTX mma .satfinite) saturate at the int32 limits, which these sums never\n"
        "reach; 'pairs saturate' rows part from ONNX's definition wherever a pair sum passes 32,767."
    )


def _plot(result, path, fmt):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    models = result["models"]
    fig, axes = plt.subplots(1, len(models) + 1, figsize=(5 * len(models) + 4, 5))
    colours = {"direct": "#3b75af", "compensated": "#ef8636"}
    for ax, m in zip(axes, models):
        rows = m["rows"]
        ax.bar(range(len(rows)), [100 * r["accuracy"] for r in rows], color=[colours[r["handling"]] for r in rows])
        ax.axhline(100 * m["float_accuracy"], color="k", ls="--", lw=1, label="float model")
        ax.axhline(100 * m["ort"]["default"]["accuracy"], color="#c03d3e", ls=":", lw=1, label="ORT as set up")
        ax.set_xticks(range(len(rows)), [r["step"].replace(" -> ", "\n-> ") for r in rows], fontsize=6, rotation=60)
        lo = min([100 * r["accuracy"] for r in rows] + [100 * m["float_accuracy"]])
        ax.set_ylim(max(0, lo - 5), 100)
        ax.set_ylabel("test accuracy (%)")
        ax.set_title(f"{m['name']}: integer inference per dot step")
        ax.legend(
            handles=[plt.Rectangle((0, 0), 1, 1, color=c, label=k) for k, c in colours.items()]
            + ax.get_legend_handles_labels()[0],
            fontsize=7,
            loc="lower right",
        )
    conf = models[0]["confusion"]
    ax = axes[-1]
    ax.imshow(conf, cmap="Blues")
    for i in range(10):
        for j in range(10):
            if conf[i][j]:
                ax.text(j, i, conf[i][j], ha="center", va="center", fontsize=7)
    ax.set_xticks(range(10))
    ax.set_yticks(range(10))
    ax.set_xlabel("predicted")
    ax.set_ylabel("true digit")
    ax.set_title(f"confusion: {models[0]['name']}, integer")
    fig.tight_layout()
    from .inputs import save_figure

    save_figure(fig, path, fmt)
