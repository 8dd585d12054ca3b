"""``intdot run``: a quantized ONNX model with every integer node computed through one instruction."""

from __future__ import annotations

import argparse
import hashlib
import json
import sys

from .numbers import integer

EPILOG = """\
examples:
  intdot run model.onnx --op usdot --target neoverse-v2
  intdot run model.onnx --op sdot4 --target gfx942 --inputs x.npz --json
  intdot run model.onnx --op vusdotq_s32 --inputs x.npz --save y.npz

The integer nodes (MatMulInteger, QLinearMatMul, ConvInteger, QLinearConv;
QDQ patterns DequantizeLinear -> MatMul/Conv -> QuantizeLinear are rewritten
into these first, as ONNX Runtime does) run through intdot.quant on the
instruction; every other node runs in onnx.reference. --inputs is an .npz
file keyed by the model's input names (a single array may be unnamed, or
given as an .npy file for a model with one input), each
array of the element type and shape the model declares (nothing is
converted); without it, inputs are random values of the declared types
(seeded, unknown dimensions taken as 1). A model with no integer nodes runs
with a warning on stderr.
"""


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "run",
        help="run a quantized ONNX model with its integer nodes on one instruction",
        description="Run a quantized ONNX model (QOperator or QDQ) with every integer node computed\n"
        "through one dot instruction, the float operators ONNX Runtime's kernels round in their own way\n"
        "(Softmax, LayerNormalization, MatMul, ...) as those kernels compute them, and the rest through\n"
        "onnx.reference (the 'onnx' extra; docs/differences.md lists what is modelled).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("model", metavar="MODEL", help="the .onnx file")
    p.add_argument("--op", required=True, help="the instruction: any catalog spelling (usdot, sdot4, vdotq_s32, ...)")
    p.add_argument("--target", help="checked for the instruction's availability (neoverse-v2, gfx942, RDNA3, ...)")
    p.add_argument("--inputs", metavar="FILE.npz", help="the model's inputs (default: seeded random values)")
    p.add_argument(
        "--seed",
        type=integer,
        default=None,
        help="seed of the random inputs, a non-negative integer (default 0); not with --inputs",
    )
    p.add_argument(
        "--requant",
        default="float32",
        choices=("float32", "float64", "fixed_point"),
        help="requantization of QLinear nodes: float32 as ONNX Runtime (default), float64 as onnx.reference, "
        "fixed_point as TFLite/gemmlowp",
    )
    p.add_argument(
        "--platform",
        default="x86",
        choices=("x86", "x86-avx2", "arm", "arm-sve128", "arm-sve256", "arm-sve512", "arm-sme"),
        help="whose ONNX Runtime kernels the nodes compute where they differ (QLinearAdd, pooling, Softmax, "
        "...): x86 (default: a CPU with AVX-512F), x86-avx2 (one without: its float kernels differ), arm "
        "(AArch64, NEON), arm-sve128/256/512 (an Arm CPU with SVE of that many bits: its Softmax differs), or "
        "arm-sme (an Arm CPU with SME: quantize_dynamic's int8 products through KleidiAI)",
    )
    p.add_argument(
        "--qdq-int8-allowed",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="rewrite int8-activation QDQ groups into int8 x int8 integer nodes (session.qdqisint8allowed=1), or "
        "(--no-qdq-int8-allowed) first move int8 activations to uint8; default: ONNX Runtime's on --platform "
        "(on for Arm, off for x86)",
    )
    p.add_argument(
        "--l2-cache-size",
        type=int,
        default=None,
        metavar="BYTES",
        help="L2 cache size of the CPU whose ONNX Runtime is modelled, in bytes: GroupQueryAttention's flash kernel "
        "blocks a long prompt by it (default: this machine's, as ONNX Runtime reads it)",
    )
    p.add_argument(
        "--threads",
        type=int,
        default=1,
        metavar="N",
        help="the ONNX Runtime session's intra_op_num_threads (its default: the machine's cores): MLAS cuts a float "
        "MatMul or Gemm into parts by it, with bits of their own (default 1)",
    )
    p.add_argument("--save", metavar="FILE.npz", help="write the outputs to an .npz file, at exactly that name")
    p.add_argument("--json", action="store_true", help="print one JSON object with the outputs' values")
    p.set_defaults(func=run)


def _inputs(model, path, seed):
    """The feed, and where it came from."""
    import numpy as np

    from ..core.errors import OperandError, quote

    names = [i for i in model.graph.input if i.name not in {t.name for t in model.graph.initializer}]
    if path:
        from .inputs import check_path, file_error

        check_path(path, "--inputs")
        try:
            loaded = np.load(path, allow_pickle=False)
            if isinstance(loaded, np.ndarray):  # an .npy: one array, for a model with one input
                data = {"": loaded}
            else:
                with loaded as z:
                    data = {k: z[k] for k in z.files}
        except OSError as exc:
            raise file_error("--inputs", path, exc) from None
        except (ValueError, EOFError):  # NumPy's words for a file that is not an .npz are about pickles
            raise OperandError(
                f"--inputs {quote(path)}: not a NumPy .npz file of arrays (as numpy.savez writes); a pickled "
                "object array is refused too"
            ) from None
        if list(data) == [""]:
            if len(names) != 1:
                raise OperandError(
                    f"--inputs {quote(path)}: a .npy file holds one array, and the model has {len(names)} "
                    f"inputs ({', '.join(quote(i.name) for i in names)}): expected an .npz file with one array a "
                    "name (numpy.savez(path, name=array, ...))"
                )
            data = {names[0].name: data[""]}
        if len(names) == 1 and list(data) == ["arr_0"]:
            data = {names[0].name: data["arr_0"]}
        return data, f"from {path}"
    from onnx import helper

    rng = np.random.default_rng(seed)
    feed = {}
    for i in names:
        t = i.type.tensor_type
        dtype = np.dtype(helper.tensor_dtype_to_np_dtype(t.elem_type))
        shape = tuple(d.dim_value if d.HasField("dim_value") else 1 for d in t.shape.dim)
        if dtype.kind == "f":
            feed[i.name] = rng.standard_normal(shape).astype(dtype)
        elif dtype.kind in "iu":
            info = np.iinfo(dtype)
            feed[i.name] = rng.integers(max(info.min, -128), min(info.max, 255) + 1, shape).astype(dtype)
        else:
            raise OperandError(f"input {quote(i.name)} has type {dtype}; pass its values with --inputs")
    return feed, f"random (seed {seed})"


def _digest(a) -> str:
    import numpy as np

    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()[:16]


def run(args) -> int:
    import numpy as np

    from .. import catalog
    from ..quant import plan
    from ..quant.model import INTEGER, integer_nodes, load, prepare
    from ..quant.model import run as run_model

    if args.inputs is not None and args.seed is not None:
        from .isa_option import conflict

        conflict(f"--inputs {args.inputs}", "gives the inputs, so none are drawn at random", ["--seed"])
    if args.seed is None:
        args.seed = 0
    if args.save is not None:  # before the model runs: a bad name should not cost the whole run
        from .inputs import check_output

        check_output(args.save, "--save", "y.npz", ("npz",))
    if args.seed < 0:
        from ..core.errors import OperandError
        from ..core.values import describe

        # NumPy's generators take any non-negative int and raise a bare ValueError for the rest.
        raise OperandError(f"--seed {describe(args.seed)}: expected a non-negative integer")
    model = load(args.model)
    feed, source = _inputs(model, args.inputs, args.seed)
    # Its QDQ groups rewritten once, for the run and the report; without the flag, the platform's default.
    model = prepare(model, qdq_int8_allowed=args.qdq_int8_allowed, platform=args.platform)
    int8 = model.qdq_int8_allowed
    settings = {"qdq_int8_allowed": int8, "platform": args.platform}
    outputs = run_model(model, feed, op=args.op, target=args.target, requant=args.requant,
                        l2_cache_size=args.l2_cache_size, threads=args.threads, **settings)  # fmt: skip
    try:
        rec = catalog.find(args.op)
    except catalog.AmbiguousInstruction:  # (sdot: 8- and 16-bit forms) the one 8-bit operands use
        rec = plan(args.op, np.int8, np.int8).record
    nodes = integer_nodes(model, **settings)
    nbits = sum(n.op_type == "MatMulNBits" for n in model.model.graph.node)
    if not nodes and nbits:
        # Weight-only quantization: its products are float32 ones (ONNX Runtime's kernels), not the instruction's.
        print(
            f"intdot run: note: {args.model} has {nbits} MatMulNBits node{'s' * (nbits != 1)} (weights of 2, 4 or 8 "
            f"bits, products in float32 as ONNX Runtime computes them) and no integer nodes: nothing ran through "
            f"{rec.name}",
            file=sys.stderr,
        )
    elif not nodes:
        # Legal (the instruction computed nothing), but most likely the float model rather than its quantized one.
        print(
            f"intdot run: warning: {args.model} has no integer nodes ({', '.join(INTEGER)}, or QDQ patterns that "
            f"become them): nothing ran through {rec.name}; is it the quantized model?",
            file=sys.stderr,
        )
    if args.save:
        from .inputs import file_error

        try:
            with open(args.save, "wb") as fh:  # numpy.savez would add .npz to a name without it
                np.savez(fh, **outputs)
        except OSError as exc:
            raise file_error("--save", args.save, exc, writing=True) from None
    if args.json:
        json.dump(
            {
                "model": args.model,
                "op": args.op,
                "instruction": rec.name,
                "target": args.target,
                "requant": args.requant,
                "qdq_int8_allowed": int8,
                "platform": args.platform,
                "integer_nodes": [{"name": n, "type": t} for n, t in nodes],
                "inputs": {
                    k: {"dtype": str(v.dtype), "shape": list(v.shape), "source": source} for k, v in feed.items()
                },
                "outputs": {
                    k: {"dtype": str(v.dtype), "shape": list(v.shape), "sha256_16": _digest(v), "values": v.tolist()}
                    for k, v in outputs.items()
                },
            },
            sys.stdout,
        )
        sys.stdout.write("\n")
        return 0
    where = f" on {args.target}" if args.target else ""
    print(f"{args.model}: {len(nodes)} integer node{'s' if len(nodes) != 1 else ''} through {rec.name}{where}")
    for n, t in nodes:
        print(f"  {n or '(unnamed)'} ({t})")
    for k, v in feed.items():
        print(f"input {k}: {v.dtype} {list(v.shape)}, {source}")
    for k, v in outputs.items():
        flat = np.ravel(v)
        shown = ", ".join(str(x) for x in flat[:8].tolist()) + (", ..." if flat.size > 8 else "")
        print(f"output {k}: {v.dtype} {list(v.shape)} sha256 {_digest(v)}: [{shown}]")
    if args.save:
        print(f"outputs written to {args.save}")
    return 0
