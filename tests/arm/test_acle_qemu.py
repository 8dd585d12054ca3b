"""Every ACLE intrinsic as clang-19 compiles it, run under QEMU, against intdot's function.

For each intrinsic of :data:`intdot.arm.acle.INTRINSICS` the test writes a C
kernel from the intrinsic's prototype (load the arguments from a blob, call
the intrinsic, store the result or let ZA be stored), compiles it with clang
for AArch64 and runs it under QEMU on random and extreme blobs at every
vector length (NEON: 128 bits).  The same bytes, read as the C types, go
through intdot's function; the blobs must agree byte for byte.  Lane/index
arguments are constants in C: the default run takes one index per intrinsic
(fixed seed), ``--slow`` every index.
"""

from __future__ import annotations

import random
import re

import numpy as np
import pytest

from intdot.arm import acle

pytestmark = pytest.mark.oracle

LENGTHS = (128, 256, 512, 1024, 2048)
BLOBS = 12
EXTREMES = np.array([0x00, 0x7F, 0x80, 0xFF], np.uint8)


def _tools(streaming: bool, new: bool = False):
    from tests.oracles import qemu as oracle

    oracle.require(streaming, new)
    return oracle


def _build(oracle, c_source, **kw):
    from tests.oracles import missing

    try:
        return oracle.build_acle(c_source, **kw)
    except oracle.LinkerMissing as exc:
        missing(f"lld-19 (clang's linker for the test programs): {exc}")


def _types(proto: str) -> tuple[str, list[str]]:
    m = re.fullmatch(r"(\w+) \w+\((.*)\)", proto)
    return m[1], [a.rsplit(" ", 1)[0] for a in m[2].split(", ")]


def _elem(ctype: str) -> tuple[str, int]:
    """int8x16_t / svuint16_t / svint8x2_t / uint8_t -> ("s" or "u", element bits)."""
    m = re.fullmatch(r"(?:sv)?(u?)int(\d+)(?:x\d+)?_t", ctype)
    return ("u" if m[1] else "s"), int(m[2])


def _indices(name: str, proto: str) -> list:
    if "lane" not in proto and "imm_index" not in proto:
        return [None]
    rec = acle.INTRINSICS[name]
    if name.startswith("v"):
        count = 4 if "_laneq_" in name else 2
    else:
        count = 2 if rec.form.endswith("_d") or "_d_vgx" in rec.form else 4
    return list(range(count))


def cases(every_index: bool) -> list[tuple[str, object]]:
    out = []
    for name in sorted(acle.INTRINSICS):
        idx = _indices(name, acle.INTRINSICS[name].prototype)
        if not every_index and len(idx) > 1:
            idx = [random.Random(name).choice(idx)]
        out += [(name, i) for i in idx]
    return out


def _bytes(rng, n: int) -> np.ndarray:
    b = rng.integers(0, 256, n, dtype=np.uint8)
    mask = rng.random(n) < 0.3
    b[mask] = rng.choice(EXTREMES, int(mask.sum()))
    return b


def _acc_bytes(rng, n: int, k: int) -> np.ndarray:
    """Accumulator bytes: random, or 32-/64-bit words near their limits (so the sums wrap)."""
    if k % 3 == 0:
        return _bytes(rng, n)
    if k % 3 == 1:
        base = rng.choice(np.array([0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0], np.int64), n // 4)
        return ((base + rng.integers(-140000, 140000, n // 4)) & 0xFFFFFFFF).astype("<u4").view(np.uint8)
    base = rng.choice(np.array([2**63 - 1, 2**63, 2**64 - 1, 0], np.uint64), n // 8)
    return (base + rng.integers(-(2**34), 2**34, n // 8).astype(np.uint64)).astype("<u8").view(np.uint8)


def _np(ctype: str) -> np.dtype:
    s, bits = _elem(ctype)
    return np.dtype(f"<{'u' if s == 'u' else 'i'}{bits // 8}")


# -- NEON -------------------------------------------------------------------------------------------


def _neon_load(ctype: str, at: int) -> str:
    s, bits = _elem(ctype)
    n = int(re.search(r"x(\d+)_t", ctype)[1])
    q = "q" if n * bits == 128 else ""
    return f"vld1{q}_{s}{bits}((const {'u' if s == 'u' else ''}int{bits}_t *)(p + {at}))"


def _neon(name: str, idx) -> None:
    oracle = _tools(False)
    rt, args = _types(acle.INTRINSICS[name].prototype)
    s, bits = _elem(rt)
    n = int(re.search(r"x(\d+)_t", rt)[1])
    q = "q" if n * bits == 128 else ""
    call = f"{name}({_neon_load(args[0], 0)}, {_neon_load(args[1], 16)}, {_neon_load(args[2], 32)}" + (
        f", {idx})" if idx is not None else ")"
    )
    src = (
        f"#include <arm_neon.h>\nvoid entry(unsigned char *p) {{\n"
        f"  vst1{q}_{s}{bits}(({'u' if s == 'u' else ''}int{bits}_t *)p, {call});\n}}\n"
    )
    exe = _build(oracle, src, streaming=False, per_zlen=0, fixed=48)
    rng = np.random.default_rng(sum(map(ord, name)) + 7 * (idx or 0))
    blobs = [np.concatenate([_acc_bytes(rng, 16, k), _bytes(rng, 32)]) for k in range(BLOBS)]
    outs = oracle.run(exe, [b.tobytes() for b in blobs], vl=128, svl=128, streaming=False, size=48)
    f = getattr(acle, name)
    sizes = [int(re.search(r"x(\d+)_t", t)[1]) * _elem(t)[1] // 8 for t in args[:3]]
    for b, out in zip(blobs, outs):
        vals = [b[16 * k : 16 * k + sizes[k]].view(_np(args[k])) for k in range(3)]
        res = f(*vals, *(() if idx is None else (idx,)))
        want = b.copy()
        want[: sizes[0]] = res.view(np.uint8)
        assert out == want.tobytes(), f"{name} lane {idx}"


# -- SVE --------------------------------------------------------------------------------------------


def _sve_load(ctype: str, k: int) -> str:
    s, bits = _elem(ctype)
    cty = f"{'u' if s == 'u' else ''}int{bits}_t"
    if not ctype.startswith("sv"):  # the _n forms' scalar
        return f"*(const {cty} *)(p + 3 * svcntb())"
    return f"svld1_{s}{bits}(svptrue_b{bits}(), (const {cty} *)(p + {k} * svcntb()))"


def _sve(name: str, idx) -> None:
    new = acle.INTRINSICS[name].form.endswith("_hs")  # SVE2.1: QEMU 11
    oracle = _tools(False, new)
    rt, args = _types(acle.INTRINSICS[name].prototype)
    s, bits = _elem(rt)
    cty = f"{'u' if s == 'u' else ''}int{bits}_t"
    call = f"{name}({', '.join(_sve_load(t, k) for k, t in enumerate(args[:3]))}" + (
        f", {idx})" if idx is not None else ")"
    )
    src = (
        f"#include <arm_sve.h>\nvoid entry(unsigned char *p) {{\n"
        f"  svst1_{s}{bits}(svptrue_b{bits}(), ({cty} *)p, {call});\n}}\n"
    )
    exe = _build(oracle, src, streaming=False, per_zlen=3, fixed=16)
    f = getattr(acle, name)
    rng = np.random.default_rng(sum(map(ord, name)) + 7 * (idx or 0))
    for vl in LENGTHS:
        n = vl // 8
        blobs = [np.concatenate([_acc_bytes(rng, n, k), _bytes(rng, 2 * n + 16)]) for k in range(BLOBS)]
        outs = oracle.run(exe, [b.tobytes() for b in blobs], vl=vl, svl=128, streaming=False, size=3 * n + 16, new=new)
        for b, out in zip(blobs, outs):
            vals = [b[k * n : (k + 1) * n].view(_np(args[k])) for k in range(3)]
            if not args[2].startswith("sv"):
                vals[2] = int(b[3 * n : 3 * n + _elem(args[2])[1] // 8].view(_np(args[2]))[0])
            want = b.copy()
            want[:n] = f(*vals, *(() if idx is None else (idx,))).view(np.uint8)
            assert out == want.tobytes(), f"{name} VL={vl} imm={idx}"


# -- SME2 -------------------------------------------------------------------------------------------


def _sme2(name: str, idx) -> None:
    oracle = _tools(True)
    _, args = _types(acle.INTRINSICS[name].prototype)
    nvec = int(name[-1])
    multi = "x" in args[2]
    nzm = nvec if multi else 1

    def vec(ctype: str, k: int) -> str:
        s, bits = _elem(ctype)
        return f"svld1_{s}{bits}(svptrue_b8(), (const {'u' if s == 'u' else ''}int{bits}_t *)(p + {k} * sz))"

    def tup(ctype: str, first: int, count: int) -> str:
        s, bits = _elem(ctype)
        return f"svcreate{count}_{s}{bits}({', '.join(vec(ctype, first + j) for j in range(count))})"

    zm = tup(args[2], nvec, nvec) if multi else vec(args[2], nvec)
    src = (
        "#include <arm_sme.h>\n"
        'void entry(unsigned char *p) __arm_streaming __arm_inout("za") {\n'
        "  uint64_t sz = svcntb();\n"
        f"  uint32_t slice = *(const uint32_t *)(p + {nvec + nzm} * sz);\n"
        f"  {name}(slice, {tup(args[1], 0, nvec)}, {zm}" + (f", {idx});\n" if idx is not None else ");\n") + "}\n"
    )
    exe = _build(oracle, src, streaming=True, per_zlen=nvec + nzm, fixed=16)
    f = getattr(acle, name)
    rng = np.random.default_rng(sum(map(ord, name)) + 7 * (idx or 0))
    for svl in LENGTHS:
        s = svl // 8
        size = (nvec + nzm) * s + 16 + s * s
        blobs = []
        for k in range(BLOBS):
            slice_ = int(rng.integers(0, 2**32)) if k % 3 else 2**32 - int(rng.integers(1, 8))
            blobs.append(
                np.concatenate(
                    [
                        _bytes(rng, (nvec + nzm) * s),
                        np.array([slice_], "<u4").view(np.uint8),
                        np.zeros(12, np.uint8),
                        _acc_bytes(rng, s * s, k),
                    ]
                )
            )
        outs = oracle.run(exe, [b.tobytes() for b in blobs], vl=128, svl=svl, streaming=True, size=size)
        for b, out in zip(blobs, outs):
            want = b.copy()
            za = want[size - s * s :].reshape(s, s)
            zn = tuple(b[j * s : (j + 1) * s].view(_np(args[1])) for j in range(nvec))
            zms = tuple(b[(nvec + j) * s : (nvec + j + 1) * s].view(_np(args[2])) for j in range(nzm))
            slice_ = int(b[(nvec + nzm) * s : (nvec + nzm) * s + 4].view("<u4")[0])
            f(slice_, zn, zms if multi else zms[0], *(() if idx is None else (idx,)), za=za)
            assert out == want.tobytes(), f"{name} SVL={svl} imm={idx} slice={slice_:#x}"


def _run(name: str, idx) -> None:
    if name.startswith("v"):
        _neon(name, idx)
    elif "_za" in name:
        _sme2(name, idx)
    else:
        _sve(name, idx)


@pytest.mark.parametrize("name, idx", cases(False))
def test_intrinsic_matches_clang_under_qemu(name, idx):
    _run(name, idx)


@pytest.mark.slow
@pytest.mark.parametrize("name, idx", [c for c in cases(True) if c not in cases(False)])
def test_every_index_matches_clang_under_qemu(name, idx):
    _run(name, idx)
