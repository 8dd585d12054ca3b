"""ACLE dot-product intrinsics on NumPy arrays, with their official names and argument order.

Every intrinsic of ``arm_neon.h``, ``arm_sve.h`` and ``arm_sme.h`` that
compiles to an integer SDOT/UDOT/USDOT/SUDOT is here (92 of them), generated
from the rows of the form table (:data:`intdot.arm.FORMS`) by the ISA layer's
generator (:mod:`intdot.isa.intrinsics`): each form's ACLE names follow from its
mnemonic, kind, spec and vector count, and each function computes its form's
spec.  :data:`INTRINSICS` maps each name to its form id, C prototype and whether
the ACLE swaps the two sources (``svsudot_s32`` and ``svsudot_za32_s8_vg1x2`` are
USDOT with the sources exchanged).

The vector types of C become 1-D arrays of their element values, element 0
first (``int8x16_t`` -> 16 values in [-128, 127], ``svuint16_t`` -> VL/16
values in [0, 65535]); every element is checked against its C type, whatever
the array's dtype (pass ``x.view(np.int8)`` to read bytes as signed).  NEON
and SVE intrinsics accept leading (batch) axes, which broadcast; the SVE
vector length is what the arrays imply.  The lane/index argument is a plain
int in the range the compiler enforces.  Results are arrays of the C result
type (``int32x4_t`` -> int32, ``svuint64_t`` -> uint64).  The SME2 forms
update ZA in place: pass ``za=`` (an ``(SVL/8, SVL/8)`` uint8 array) or
``state=`` (a streaming :class:`~intdot.arm.State`); they return ZA.

>>> from intdot.arm import acle
>>> acle.vdotq_laneq_u32([1, 2, 3, 4], [1] * 16, list(range(16)), 3)
array([55, 56, 57, 58], dtype=uint32)
>>> acle.svdot_s64([0] * 2, [-32768] * 8, [-32768] * 8)
array([4294967296, 4294967296])
>>> acle.INTRINSICS["svsudot_s32"].form, acle.INTRINSICS["svsudot_s32"].swap
('usdot_sve_vec', True)
>>> acle.INTRINSICS["svsudot_s32"].prototype
'svint32_t svsudot_s32(svint32_t op1, svint8_t op2, svuint8_t op3)'
>>> len(acle.INTRINSICS), acle.BY_FORM["sdot_sve_indexed_d"]
(92, ('svdot_lane_s64',))
"""

from __future__ import annotations

import inspect
from typing import NamedTuple

import numpy as np

from ..core.errors import OperandError, OperandTypeError, StateError
from ..core.values import a_or_an, asarray_exact, check_int, check_word, describe, is_int_scalar
from ..isa.intrinsics import Intrinsics
from . import semantics as sem
from .forms import FORMS
from .state import LENGTHS, State


class Intrinsic(NamedTuple):
    """One ACLE intrinsic: the form it compiles to, its C prototype, and whether it exchanges the sources."""

    form: str
    prototype: str
    swap: bool = False


#: name -> Intrinsic, for every intrinsic defined here.
INTRINSICS: dict[str, Intrinsic] = {}

_CTYPES = {  # C element type -> (lowest, highest)
    "int8": (-(1 << 7), (1 << 7) - 1),
    "uint8": (0, (1 << 8) - 1),
    "int16": (-(1 << 15), (1 << 15) - 1),
    "uint16": (0, (1 << 16) - 1),
    "int32": (-(1 << 31), (1 << 31) - 1),
    "uint32": (0, (1 << 32) - 1),
    "int64": (-(1 << 63), (1 << 63) - 1),
    "uint64": (0, (1 << 64) - 1),
}


def _ctype(signed: bool, bits: int) -> str:
    return f"{'' if signed else 'u'}int{bits}"


# -- argument checking -------------------------------------------------------------------------------


def _vector(x, name: str, ctype: str, length: int | None, func: str) -> np.ndarray:
    """An array of ``ctype`` values whose last axis has ``length`` elements, as that C type (contiguous)."""
    lo, hi = _CTYPES[ctype]
    if not isinstance(x, np.ndarray):
        try:
            x = asarray_exact(x)
        except (TypeError, ValueError) as exc:  # e.g. a ragged list
            raise OperandTypeError(f"{func}: {name}={describe(x)} is not an integer array: {exc}") from None
    if x.dtype.kind == "O" and x.size and all(is_int_scalar(v) for v in x.flat):
        values = [int(v) for v in x.flat]  # Python ints beyond 64 bits: judge them as numbers
        mn, mx = min(values), max(values)
    elif x.dtype.kind not in "iu":
        raise OperandTypeError(f"{func}: {name} has dtype {x.dtype}; expected {ctype} values (an integer array)")
    else:
        mn = mx = None
    if x.ndim == 0:
        raise OperandError(
            f"{func}: {name} is a scalar; expected a vector of {ctype}" + (f" with {length} elements" if length else "")
        )
    if length is not None and x.shape[-1] != length:
        raise OperandError(f"{func}: {name} has {x.shape[-1]} elements; expected {length} ({ctype})")
    if x.size and x.dtype != np.dtype(ctype):
        if mn is None:
            mn, mx = int(x.min()), int(x.max())
        if mn < lo or mx > hi:
            bad = mn if mn < lo else mx
            other = ctype[1:] if ctype.startswith("u") else "u" + ctype
            hint = f" (to read the bits of {other} values as {ctype}, pass x.view(np.{ctype}))"
            raise OperandError(f"{func}: {name} holds {bad}; every element must be {ctype}, in [{lo}, {hi}]{hint}")
    return np.ascontiguousarray(x.astype(np.dtype(ctype).newbyteorder("<"), copy=False))


def _scalar(x, name: str, ctype: str, func: str) -> int:
    lo, hi = _CTYPES[ctype]
    return check_int(x, f"{func}: {name}", lo, hi, f"{a_or_an(ctype)} value in [{lo}, {hi}]")


def _index(x, name: str, hi: int, func: str) -> int:
    return check_int(x, f"{func}: {name}", 0, hi, f"an integer in [0, {hi}] (a constant in ACLE)")


def _batch(func: str, **arrays: np.ndarray) -> None:
    """Check that the leading (batch) axes of the arguments broadcast together."""
    try:
        np.broadcast_shapes(*(w.shape[:-1] for w in arrays.values()))
    except ValueError:
        shapes = ", ".join(f"{k} {w.shape[:-1]}" for k, w in arrays.items())
        raise OperandError(f"{func}: the batch axes (all but the last) do not broadcast: {shapes}") from None


def _words(x: np.ndarray, spec) -> np.ndarray:
    return sem.words(x.view(np.uint8), spec)


class _Types:
    """The C element types of one intrinsic, read from its form's spec: accumulator, first and second argument."""

    def __init__(self, form, swap: bool):
        spec = form.spec
        self.spec = spec
        self.acc = _ctype(spec.acc_signed, spec.acc_bits)
        first, second = _ctype(spec.a_signed, spec.a_width), _ctype(spec.b_signed, spec.b_width)
        # The C arguments in order; with swap the second C argument is the instruction's first source.
        self.x, self.y = (second, first) if swap else (first, second)
        self.width, self.bits, self.swap = spec.a_width, spec.acc_bits, swap


# -- NEON ----------------------------------------------------------------------------------------------


def _neon_impl(func: str, t: _Types, nbytes: int, b_bytes: int, lane: bool):
    nres = nbytes * 8 // t.bits
    nx, ny = nbytes * 8 // t.width, b_bytes * 8 // t.width

    def f(r, a, b, *rest):
        acc = _vector(r, "r", t.acc, nres, func)
        wa = _vector(a, "a", t.x, nx, func)
        wb = _vector(b, "b", t.y, ny, func)
        _batch(func, r=acc, a=wa, b=wb)
        ua, ub, uc = _words(wa, t.spec), _words(wb, t.spec), _words(acc, t.spec)
        if lane:
            k = _index(rest[0], "lane", ub.shape[-1] - 1, func)
            res = sem.by_element(t.spec, uc, ua, ub, k)
        else:
            res = sem.elementwise(t.spec, uc, ua, ub)
        return res.view(t.acc)

    return f


def _neon_form(form) -> None:
    """A NEON form's intrinsics: ``vdot{q}_s32`` (by vector) or ``vdot{q}_lane{q}_s32`` (by element)."""
    prefix = "vdot" if form.mnemonic in ("sdot", "udot") else f"v{form.mnemonic}"
    t = _Types(form, False)
    suffix = f"_{'u' if t.acc.startswith('u') else 's'}32"
    q = form.layout.consts["q"]
    nbytes = 16 if q else 8
    rtype, atype = f"{t.acc}x{nbytes // 4}_t", f"{t.x}x{nbytes}_t"
    if form.kind == "neon_dot_vec":
        name = f"{prefix}{'q' if q else ''}{suffix}"
        _define(
            _neon_impl(name, t, nbytes, nbytes, False),
            Intrinsic(form.name, f"{rtype} {name}({rtype} r, {atype} a, {t.y}x{nbytes}_t b)"),
            f"r[i] + the dot product of the 4 {t.x} of a at 4i and the 4 {t.y} of b at 4i (wrapping mod 2**32).",
        )
        return
    for laneq in (0, 1):
        b_bytes = 16 if laneq else 8
        name = f"{prefix}{'q' if q else ''}_lane{'q' if laneq else ''}{suffix}"
        _define(
            _neon_impl(name, t, nbytes, b_bytes, True),
            Intrinsic(form.name, f"{rtype} {name}({rtype} r, {atype} a, {t.y}x{b_bytes}_t b, const int lane)"),
            f"r[i] + the dot product of the 4 {t.x} of a at 4i and the 4 {t.y} of b at 4*lane "
            f"(lane in 0..{b_bytes // 4 - 1}; wrapping mod 2**32).",
        )


# -- SVE -----------------------------------------------------------------------------------------------


def _sve_length(n: int, bits: int, func: str) -> None:
    nbytes = n * bits // 8
    if nbytes == 0 or nbytes % 16 or nbytes > 256:
        raise OperandError(
            f"{func}: op1 has {n} elements ({nbytes} bytes); an SVE vector is a multiple of "
            "16 bytes (128 bits), at most 256 (2048 bits)"
        )


def _sve_impl(func: str, t: _Types, mode: str):
    """mode: "vec" (op3 a vector), "n" (op3 a scalar, broadcast), "lane" (op3 indexed per segment)."""

    def f(op1, op2, op3, *rest):
        if not isinstance(op1, np.ndarray):
            try:
                op1 = asarray_exact(op1)
            except (TypeError, ValueError) as exc:  # e.g. a ragged list
                raise OperandTypeError(f"{func}: op1={describe(op1)} is not an integer array: {exc}") from None
        n = op1.shape[-1] if op1.ndim else 0
        _sve_length(n, t.bits, func)
        nsrc = n * t.bits // t.width
        acc = _vector(op1, "op1", t.acc, n, func)
        x = _vector(op2, "op2", t.x, nsrc, func)
        if mode == "n":
            y = np.full(nsrc, _scalar(op3, "op3", t.y, func), np.dtype(t.y).newbyteorder("<"))
        else:
            y = _vector(op3, "op3", t.y, nsrc, func)
        _batch(func, op1=acc, op2=x, op3=y)
        a, b = (y, x) if t.swap else (x, y)
        ua, ub, uc = _words(a, t.spec), _words(b, t.spec), _words(acc, t.spec)
        if mode == "lane":
            k = _index(rest[0], "imm_index", sem.per_segment(t.spec) - 1, func)
            res = sem.by_segment(t.spec, uc, ua, ub, k)
        else:
            res = sem.elementwise(t.spec, uc, ua, ub)
        return res.view(t.acc)

    return f


def _sv(ctype: str) -> str:
    return f"sv{ctype}_t"


def _sve_intrinsic(name: str, form, mode: str, swap: bool = False) -> None:
    t = _Types(form, swap)
    op3 = f"{t.y}_t op3" if mode == "n" else f"{_sv(t.y)} op3"
    proto = f"{_sv(t.acc)} {name}({_sv(t.acc)} op1, {_sv(t.x)} op2, {op3}" + (
        ", uint64_t imm_index)" if mode == "lane" else ")"
    )
    what = {
        "vec": "the same element of op3",
        "n": "op3 (a scalar, in every lane)",
        "lane": f"element imm_index (0..{128 // t.bits - 1}) of the 128-bit segment of op3 that holds it",
    }[mode]
    _define(
        _sve_impl(name, t, mode),
        Intrinsic(form.name, proto, swap),
        f"Element i of op1 plus the dot product of the {t.spec.lanes} {t.x} of op2 in element i with those of "
        f"{what}"
        + (" (op2 is the instruction's second source: USDOT with the sources exchanged)" if swap else "")
        + f"; wrapping mod 2**{t.bits}.",
    )


def _sve_form(form) -> None:
    """An SVE form's intrinsics: ``svdot[_n|_lane]_s32`` ...; SVE2.1's 2-way forms have no ``_n``; ``svsudot_s32``
    and ``svsudot_n_s32`` are USDOT with the sources exchanged (there is no SUDOT by vector)."""
    spec, mn = form.spec, form.mnemonic
    modes = ("lane",) if form.kind == "sve_dot_indexed" else ("vec", "n")
    if mn in ("sdot", "udot"):
        s = "s" if spec.a_signed else "u"
        two_way = spec.lanes == 2
        suffix = f"_{s}{spec.acc_bits}" + (f"_{s}{spec.a_width}" if two_way else "")
        modes = tuple(m for m in modes if not (two_way and m == "n"))
        prefix = "svdot"
    else:
        suffix, prefix = "_s32", f"sv{mn}"
    for mode in modes:
        _sve_intrinsic(f"{prefix}{'' if mode == 'vec' else '_' + mode}{suffix}", form, mode)
    if mn == "usdot" and form.kind == "sve_dot_vec":
        for mode in modes:
            _sve_intrinsic(f"svsudot{'' if mode == 'vec' else '_' + mode}{suffix}", form, mode, swap=True)


# -- SME2 ----------------------------------------------------------------------------------------------


def _za_target(za, state, func: str) -> np.ndarray:
    if (za is None) == (state is None):
        raise OperandError(f"{func}: pass exactly one of za= (an (SVL/8, SVL/8) uint8 array) or state= (a State)")
    if state is not None:
        if not isinstance(state, State):
            raise OperandTypeError(f"{func}: state={describe(state)} is not an intdot.arm.State")
        if not state.streaming:
            raise StateError(
                f"{func} is an SME2 intrinsic (__arm_streaming); the state is not in streaming mode: "
                "call state.smstart() or create State(..., streaming=True)"
            )
        return state.za
    if (
        not isinstance(za, np.ndarray)
        or za.dtype != np.uint8
        or za.ndim != 2
        or za.shape[0] != za.shape[1]
        or 8 * za.shape[0] not in LENGTHS
    ):
        raise OperandError(
            f"{func}: za={describe(za)}; expected a square uint8 NumPy array of SVL/8 rows of "
            f"SVL/8 bytes, SVL in {LENGTHS}"
        )
    if not za.flags.c_contiguous or not za.flags.writeable:
        raise OperandError(f"{func}: za must be a writeable C-contiguous array (it is updated in place)")
    return za


def _tuple(x, name: str, ctype: str, nvec: int, n: int, func: str) -> np.ndarray:
    if not isinstance(x, (tuple, list)) or len(x) != nvec:
        raise OperandError(
            f"{func}: {name}={describe(x)}; expected a tuple of {nvec} {ctype} vectors (sv{ctype}x{nvec}_t)"
        )
    out = np.stack([_vector(v, f"{name}[{i}]", ctype, n, func) for i, v in enumerate(x)])
    if out.ndim != 2:
        raise OperandError(f"{func}: the members of {name} must be 1-D vectors of {n} {ctype}")
    return out


def _sme2_impl(func: str, t: _Types, mode: str, nvec: int):
    """mode: "single" (one zm for all), "multi" (zm a tuple too), "lane" (zm indexed per segment)."""

    def f(slice, zn, zm, *rest, za=None, state=None):  # noqa: A002 - ACLE's own argument name
        target = _za_target(za, state, func)
        svl_bytes = target.shape[0]
        n = svl_bytes * 8 // t.width
        base = check_word(slice, f"{func}: slice")
        x = _tuple(zn, "zn", t.x, nvec, n, func)
        if mode == "multi":
            y = _tuple(zm, "zm", t.y, nvec, n, func)
        else:
            y = _vector(zm, "zm", t.y, n, func)
            if y.ndim != 1:
                raise OperandError(f"{func}: zm must be a 1-D vector of {n} {t.y} (SVL/{t.width})")
        k = _index(rest[0], "imm_index", sem.per_segment(t.spec) - 1, func) if mode == "lane" else None
        a, b = (y, x) if t.swap else (x, y)
        group = sem.za_group(target, nvec, base)
        acc = sem.words(group, t.spec)
        ua, ub = _words(a, t.spec), _words(b, t.spec)
        if mode == "lane":
            res = sem.by_segment(t.spec, acc, ua, ub, k)
        else:
            res = sem.elementwise(t.spec, acc, ua, ub if mode == "multi" else ub[None, :])
        group[...] = res.view(np.uint8)
        return target

    return f


def _sme2_intrinsic(form, prefix: str, swap: bool) -> None:
    t = _Types(form, swap)
    mode = {"sme2_dot_single": "single", "sme2_dot_multi": "multi", "sme2_dot_indexed": "lane"}[form.kind]
    infix = {"single": "_single", "multi": "", "lane": "_lane"}[mode]
    nvec, bits = form.nvec, t.bits
    name = f"{prefix}{infix}_za{bits}_{'u' if t.x.startswith('u') else 's'}{t.width}_vg1x{nvec}"
    zm = f"sv{t.y}x{nvec}_t zm" if mode == "multi" else f"sv{t.y}_t zm"
    proto = f"void {name}(uint32_t slice, sv{t.x}x{nvec}_t zn, {zm}" + (
        ", uint64_t imm_index)" if mode == "lane" else ")"
    )
    what = {
        "single": "zm",
        "multi": "zm[r]",
        "lane": f"element imm_index (0..{128 // bits - 1}) of each 128-bit segment of zm",
    }[mode]
    _define(
        _sme2_impl(name, t, mode, nvec),
        Intrinsic(form.name, proto, swap),
        f"ZA array vectors (slice mod vstride) + r * vstride (vstride = SVL/8/{nvec} rows, "
        f"r < {nvec}) accumulate, as {bits}-bit elements, the dot products of zn[r] with {what}"
        + (" (USDOT with zn and zm exchanged)" if swap else "")
        + ". ``za`` or ``state`` (keyword) is updated in place and ZA returned.",
        sme2=True,
    )


def _sme2_form(form) -> None:
    """An SME2 form's intrinsics: ``svdot[_single|_lane]_za32_s8_vg1x2`` ...; ``svsudot_za32_s8_vg1x2`` (there is
    no SUDOT multi-vector instruction) is USDOT with zn and zm exchanged."""
    prefix = "svdot" if form.mnemonic in ("sdot", "udot") else f"sv{form.mnemonic}"
    _sme2_intrinsic(form, prefix, False)
    if form.mnemonic == "usdot" and form.kind == "sme2_dot_multi":
        _sme2_intrinsic(form, "svsudot", True)


# -- generation ----------------------------------------------------------------------------------------


_TABLE = Intrinsics(__name__)


def _define(impl, record: Intrinsic, summary: str, sme2: bool = False) -> None:
    """Publish ``impl`` as the intrinsic of ``record.prototype``, through the ISA layer's generator."""
    keywords = (("za", None), ("state", None)) if sme2 else ()
    fn = _TABLE.define(record.prototype, impl, summary=summary, row=record, keywords=keywords)
    globals()[fn.__name__] = fn
    INTRINSICS[fn.__name__] = record


_BY_FAMILY = {"neon": _neon_form, "sve": _sve_form, "sme2": _sme2_form}
for _form in FORMS:
    _BY_FAMILY[_form.kind.split("_")[0]](_form)
del _form

#: form id -> the names of its intrinsics.
BY_FORM: dict[str, tuple[str, ...]] = {}
for _name, _rec in INTRINSICS.items():
    BY_FORM[_rec.form] = BY_FORM.get(_rec.form, ()) + (_name,)
del _name, _rec

__all__ = ["INTRINSICS", "BY_FORM", "Intrinsic", *INTRINSICS]


def stub_text() -> str:
    """The text of ``acle.pyi``: the generated functions, spelled out for type checkers and IDEs.

    ``tests/arm/test_acle.py`` checks that the file in the package is this text;
    to refresh it: ``python -c "from intdot.arm import acle; print(acle.stub_text(), end='')" > acle.pyi``.
    """
    lines = [
        '"""Type stubs of intdot.arm.acle (generated by acle.stub_text(); do not edit)."""',
        "",
        "from typing import NamedTuple",
        "",
        "import numpy as np",
        "from numpy.typing import ArrayLike",
        "",
        "from .state import State",
        "",
        "Vector = ArrayLike",
        "Vectors = tuple[ArrayLike, ...]",
        "",
        "class Intrinsic(NamedTuple):",
        "    form: str",
        "    prototype: str",
        "    swap: bool = ...",
        "",
        "INTRINSICS: dict[str, Intrinsic]",
        "BY_FORM: dict[str, tuple[str, ...]]",
        "",
        "def stub_text() -> str: ...",
        "",
    ]
    for name in sorted(INTRINSICS):
        multi = "_sme2_multi" in INTRINSICS[name].form
        args = []
        for p in inspect.signature(globals()[name]).parameters.values():
            if p.kind is p.KEYWORD_ONLY:
                continue
            kind = (
                "int"
                if p.name in ("lane", "imm_index", "slice")
                else "Vectors"
                if p.name == "zn" or (p.name == "zm" and multi)
                else "Vector"
            )
            args.append(f"{p.name}: {kind}")
        if "_za" in name:
            lines.append(f"def {name}({', '.join(args)}, *,")
            lines.append("    za: np.ndarray | None = None, state: State | None = None) -> np.ndarray: ...")
        else:
            lines.append(f"def {name}({', '.join(args)}) -> np.ndarray: ...")
    return "\n".join(lines) + "\n"
