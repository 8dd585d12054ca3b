"""The ACLE intrinsics: their names and types against clang's headers, their values against the
slow reference model, argument checking.  (Against clang + QEMU: test_acle_qemu.py.)"""

from __future__ import annotations

import re
import subprocess

import numpy as np
import pytest

from intdot import arm
from intdot.arm import State, acle
from intdot.errors import OperandError, OperandTypeError, StateError

from . import arm_forms as forms
from . import reference_arm as ref

CTYPE_RANGE = {
    "int8": (-128, 127),
    "uint8": (0, 255),
    "int16": (-(2**15), 2**15 - 1),
    "uint16": (0, 2**16 - 1),
    "int32": (-(2**31), 2**31 - 1),
    "uint32": (0, 2**32 - 1),
    "int64": (-(2**63), 2**63 - 1),
    "uint64": (0, 2**64 - 1),
}
ALL = sorted(acle.INTRINSICS)


def bytes_of(values) -> list[int]:
    return [int(v) % 256 for v in values]


# -- what the name says, parsed here (not from intdot) --------------------------------------------


def expected(name: str) -> dict:
    """Family, mnemonic, form id and argument swap that the ACLE name implies."""
    m = re.fullmatch(r"v(us|su)?dot(q?)(?:_(lane|laneq))?_(s32|u32)", name)
    if m:
        mn = {"us": "usdot", "su": "sudot"}.get(m[1]) or ("udot" if m[4] == "u32" else "sdot")
        shape = "elem" if m[3] else "vec"
        return dict(
            family="neon",
            mn=mn,
            q=int(m[2] == "q"),
            laneq=m[3] == "laneq",
            form=f"{mn}_neon_{shape}_{128 if m[2] else 64}",
            swap=False,
            mode=m[3] or "vec",
        )
    m = re.fullmatch(r"sv(us|su)?dot(?:_(n|lane))?_([su])(32|64)(?:_([su])16)?", name)
    if m:
        mn = {"us": "usdot", "su": "sudot"}.get(m[1]) or ("udot" if m[3] == "u" else "sdot")
        tail = "_d" if m[4] == "64" else "_hs" if m[5] else ""
        swap = mn == "sudot" and m[2] != "lane"  # svsudot(_n)_s32: USDOT, sources exchanged
        form_mn = "usdot" if swap else mn
        return dict(
            family="sve",
            mn=mn,
            mode=m[2] or "vec",
            swap=swap,
            form=f"{form_mn}_sve_{'indexed' if m[2] == 'lane' else 'vec'}{tail}",
        )
    m = re.fullmatch(r"sv(us|su)?dot(?:_(single|lane))?_za(32|64)_([su])(8|16)_vg1x([24])", name)
    assert m, name
    mn = {"us": "usdot", "su": "sudot"}.get(m[1]) or ("udot" if m[4] == "u" else "sdot")
    mode = m[2] or "multi"
    tail = "_d" if m[3] == "64" else "_hs" if m[5] == "16" else ""
    swap = mn == "sudot" and mode == "multi"
    form_mn = "usdot" if swap else mn
    return dict(
        family="sme2",
        mn=mn,
        mode=mode,
        swap=swap,
        nvec=int(m[6]),
        form=f"{form_mn}_sme2_{'indexed' if mode == 'lane' else mode}{tail}_vg{'x' + m[6]}",
    )


def test_every_intrinsic_maps_to_the_form_its_name_says():
    for name, rec in acle.INTRINSICS.items():
        e = expected(name)
        assert (rec.form, rec.swap) == (e["form"], e["swap"]), name
        assert name in acle.BY_FORM[rec.form]


def test_the_table_has_every_form_the_intrinsics_use():
    from intdot.arm import FORMS

    table = {f.name: f for f in FORMS}
    missing = sorted({r.form for r in acle.INTRINSICS.values()} - set(table))
    if missing:
        pytest.skip(f"the form table lacks {len(missing)} rows yet: {missing[:4]}...")
    for rec in acle.INTRINSICS.values():
        assert table[rec.form].spec == forms.dot_spec(rec.form)


# -- clang's headers as the oracle for names and types ----------------------------------------------


def _headers() -> dict[str, str]:
    from tests.oracles import missing
    from tests.oracles import qemu as oracle

    cc = oracle.clang()
    if cc is None:
        missing("clang-19 (its arm_neon.h, arm_sve.h and arm_sme.h list the intrinsics)")
    inc = subprocess.run([cc, "-print-resource-dir"], capture_output=True, text=True, check=True).stdout.strip()
    out = {}
    for h in ("arm_neon.h", "arm_sve.h", "arm_sme.h"):
        with open(f"{inc}/include/{h}") as fh:
            out[h] = fh.read()
    return out


def clang_prototypes() -> dict[str, tuple[str, ...]]:
    """name -> (result type, argument types...) of every integer dot intrinsic clang-19 declares."""
    protos: dict[str, tuple[str, ...]] = {}
    heads = _headers()
    dot = r"(?:v|sv)(?:us|su)?dotq?_[a-z0-9_]*"
    # "__ai" declares a full name; "__aio" an overloaded short spelling (svdot, svdot_lane), not listed here
    for m in re.finditer(rf"^__ai .*\n(\w+) ({dot})\(([^)]*)\)", heads["arm_sve.h"] + heads["arm_sme.h"], re.M):
        protos[m[2]] = (m[1],) + tuple(a.strip().split()[0] for a in m[3].split(","))
    for m in re.finditer(rf"^__ai [^\n]*?(\w+) ({dot})\(([^)]*)\)", heads["arm_neon.h"], re.M):
        protos[m[2]] = (m[1],) + tuple(a.strip().split()[0] for a in m[3].split(","))
    # the _lane forms are macros: "#define vdot_lane_s32(...) __extension__ ({ \ int32x2_t __ret; \ T __s0 = __p0;"
    macro = rf"^#define ({dot})\(([^)]*)\) __extension__ \(\{{ \\\n  (\w+) __ret\w*; \\\n"
    for m in re.finditer(macro + r"((?:  \w+ __s\d\w* = __p\d\w*; \\\n)+)", heads["arm_neon.h"], re.M):
        args = tuple(line.split()[0] for line in m[4].strip().split("\n"))
        protos[m[1]] = (m[3],) + args + ("int",)
    # only the integer forms: no floating point, bf16, f16, or the __noswap_ helpers
    return {n: p for n, p in protos.items() if not re.search(r"f16|f32|f64|bf16", n)}


def _our_types(proto: str) -> tuple[str, ...]:
    m = re.fullmatch(r"(\w+) \w+\((.*)\)", proto)
    args = tuple("int" if a.startswith("const int") else a.split()[0] for a in m[2].split(", "))
    return (m[1],) + args


@pytest.mark.oracle
def test_names_and_types_are_clangs():
    theirs = clang_prototypes()
    assert set(theirs) == set(acle.INTRINSICS), (
        sorted(set(theirs) - set(acle.INTRINSICS)),
        sorted(set(acle.INTRINSICS) - set(theirs)),
    )
    for name, rec in acle.INTRINSICS.items():
        assert _our_types(rec.prototype) == theirs[name], name


# -- values against the reference model -----------------------------------------------------------


def _ctypes(proto: str) -> tuple[str, ...]:
    """C element types of result and arguments: int32x4_t -> int32, svuint8x2_t -> uint8, uint8_t -> uint8."""
    return tuple(re.sub(r"^(?:sv)?(u?int\d+).*$", r"\1", t) for t in _our_types(proto))


def _values(rng, ctype: str, n: int) -> np.ndarray:
    lo, hi = CTYPE_RANGE[ctype]
    v = np.array([int(x) for x in rng.integers(0, 2**62, n)], dtype=object) % (hi - lo + 1) + lo
    edge = rng.random(n) < 0.3
    picks = [lo, hi, lo + 1, hi - 1, 0] if lo < 0 else [lo, hi, hi // 2, hi // 2 + 1]
    v[edge] = [picks[k] for k in rng.integers(0, len(picks), int(edge.sum()))]
    return np.array(v.tolist(), dtype=np.dtype(ctype))


def _indices(rec) -> range | list:
    m = re.search(r"const int lane|uint64_t imm_index", rec.prototype)
    if not m:
        return [None]
    if rec.prototype.startswith(("int32x", "uint32x")):
        return range(4 if "_laneq_" in rec.prototype else 2)
    return range(128 // ref.describe(rec.form)[1].esize)


@pytest.mark.parametrize("name", ALL)
def test_intrinsic_matches_reference(name):
    rec, e = acle.INTRINSICS[name], expected(name)
    f = getattr(acle, name)
    kind, sem, nvec, q = ref.describe(rec.form)
    types = _ctypes(rec.prototype)
    rng = np.random.default_rng(len(name) * 7 + sum(map(ord, name)))
    lengths = [128] if e["family"] == "neon" else [128, 256, 384, 512, 1024, 2048]
    if e["family"] == "sme2":
        lengths = [128, 256, 512, 1024, 2048]
    for bits in lengths:
        for idx in _indices(rec):
            nb = 16 if e["family"] == "neon" and q else 8 if e["family"] == "neon" else bits // 8
            st = ref.RefState(max(nb, 16), nb)
            if e["family"] == "sme2":
                _check_sme2(f, rec, e, types, rng, nb, idx, nvec, sem)
                continue
            acc = _values(rng, types[1], nb * 8 // sem.esize)
            x = _values(rng, types[2], nb * 8 // sem.lane_bits)
            if e["family"] == "neon":
                ybytes = 16 if e["laneq"] or (e["mode"] == "vec" and q) else 8
                y = _values(rng, types[3], ybytes * 8 // sem.lane_bits)
            elif e["mode"] == "n":
                y = _values(rng, types[3], 1)
            else:
                y = _values(rng, types[3], nb * 8 // sem.lane_bits)
            args = (acc, x, y[0] if e.get("mode") == "n" else y) + (() if idx is None else (idx,))
            got = f(*args)
            yfull = np.resize(y, x.shape) if e.get("mode") == "n" else y
            first, second = (yfull, x) if rec.swap else (x, yfull)
            st.z[0][:nb] = bytes_of(acc.view(np.uint8))
            st.z[1][:nb] = bytes_of(first.view(np.uint8))
            st.z[2][: len(second.view(np.uint8))] = bytes_of(second.view(np.uint8))
            if e["family"] == "neon":
                ref.neon(st, 0, 1, 2, q, idx, sem)
            else:
                ref.sve(st, 0, 1, 2, idx, sem)
            assert got.dtype == np.dtype(types[0]), name
            assert got.view(np.uint8).tolist() == st.z[0][:nb], (name, bits, idx)


def _check_sme2(f, rec, e, types, rng, nb, idx, nvec, sem) -> None:
    za = rng.integers(0, 256, (nb, nb), dtype=np.uint8)
    if rng.random() < 0.5:
        za.view("<u4")[:] = rng.choice(np.array([0x7FFFFFF8, 0x80000004, 0xFFFFFFFE], np.uint32), (nb, nb // 4))
    zn = tuple(_values(rng, types[2], nb * 8 // sem.lane_bits) for _ in range(nvec))
    count = nvec if e["mode"] == "multi" else 1
    zm_list = tuple(_values(rng, types[3], nb * 8 // sem.lane_bits) for _ in range(count))
    zm = zm_list if e["mode"] == "multi" else zm_list[0]
    slice_ = int(rng.integers(0, 2**32))
    r = ref.RefState(nb, nb)
    r.za = [row.tolist() for row in za]
    first, second = (zm_list, zn) if rec.swap else (zn, zm_list)
    for k, v in enumerate(first):
        r.z[k] = bytes_of(v.view(np.uint8))
    for k, v in enumerate(second):
        r.z[4 + k] = bytes_of(v.view(np.uint8))
    r.x[8] = slice_
    kind = rec.form.split("_sme2_")[1].split("_")[0]
    ref.sme2_za(r, nvec, 8, 0, 0, 4, kind, idx, sem)
    args = (slice_, zn, zm) + (() if idx is None else (idx,))
    out = f(*args, za=za)
    assert out is za and za.tolist() == r.za, (rec.prototype, nb, idx)
    # the same through a streaming State
    s = State(svl=nb * 8, streaming=True)
    s.za[:] = np.array(r.za, np.uint8)
    assert f(*args, state=s) is s.za
    ref.sme2_za(r, nvec, 8, 0, 0, 4, kind, idx, sem)
    assert s.za.tolist() == r.za


def test_neon_batch_broadcasts():
    rng = np.random.default_rng(5)
    r = rng.integers(-(2**31), 2**31, (3, 5, 4)).astype(np.int32)
    a = rng.integers(-128, 128, (3, 5, 16)).astype(np.int8)
    b = rng.integers(0, 256, (5, 16)).astype(np.uint8)
    got = arm.vsudotq_laneq_s32(r, a, b, 2)
    assert got.shape == (3, 5, 4)
    for i in range(3):
        for j in range(5):
            assert got[i, j].tolist() == arm.vsudotq_laneq_s32(r[i, j], a[i, j], b[j], 2).tolist()


def test_sve_batch_broadcasts():
    rng = np.random.default_rng(6)
    op1 = rng.integers(-(2**63), 2**63, (3, 4), dtype=np.int64)
    op2 = rng.integers(-(2**15), 2**15, (3, 16)).astype(np.int16)
    op3 = rng.integers(-(2**15), 2**15, 16).astype(np.int16)
    got = acle.svdot_lane_s64(op1, op2, op3, 1)
    assert got.shape == (3, 4) and got.dtype == np.int64
    for i in range(3):
        assert got[i].tolist() == acle.svdot_lane_s64(op1[i], op2[i], op3, 1).tolist()


def test_known_values():
    # 4 x (-32768)^2 = 2**32: beyond 32 bits, exact in the 64-bit accumulator
    assert acle.svdot_s64([1, 2], [-32768] * 8, [-32768] * 8).tolist() == [2**32 + 1, 2**32 + 2]
    # UDOT .d wraps modulo 2**64
    assert acle.svdot_u64([2**64 - 1] * 2, [65535] * 8, [1] * 8).tolist() == [4 * 65535 - 1] * 2
    # 2-way: 2 x (-32768)^2 = 2**31 wraps to the int32 minimum
    assert acle.svdot_s32_s16([0] * 4, [-32768] * 8, [-32768] * 8).tolist() == [-(2**31)] * 4
    # svsudot_s32 is USDOT with the sources exchanged: op2 signed, op3 unsigned
    assert acle.svsudot_s32([0] * 4, [-1] * 16, [255] * 16).tolist() == [-1020] * 4
    assert acle.svsudot_n_s32([0] * 4, [-1] * 16, 255).tolist() == [-1020] * 4
    assert acle.vdot_u32([2**32 - 1, 0], [255] * 8, [255] * 8).tolist() == [4 * 65025 - 1, 4 * 65025]


# -- argument checking ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, err, msg",
    [
        (lambda: arm.vsudot_lane_s32([0, 0], [0] * 8, [0] * 8, 2), OperandError, "lane"),
        (lambda: arm.vsudot_laneq_s32([0, 0], [0] * 8, [0] * 16, 4), OperandError, "lane"),
        (lambda: arm.vsudot_lane_s32([0, 0], [0] * 8, [0] * 16, 0), OperandError, "b has 16 elements"),
        (lambda: arm.vsudot_lane_s32([0, 0], [200] * 8, [0] * 8, 0), OperandError, "int8"),
        (lambda: arm.vsudot_lane_s32([0, 0], [0] * 8, [-1] * 8, 0), OperandError, "uint8"),
        (lambda: arm.vsudot_lane_s32([0, 0], [0.5] * 8, [0] * 8, 0), OperandTypeError, "dtype"),
        (lambda: arm.vsudot_lane_s32([0, 0], [0] * 8, [0] * 8, 1.0), OperandTypeError, "lane"),
        (lambda: arm.vsudot_lane_s32([2**32, 0], [0] * 8, [0] * 8, 0), OperandError, "r holds"),
        # issue 8 item 6: int32 operands are checked as int32, as the int8 ones are as int8
        (
            lambda: arm.vsudotq_lane_s32([2**31] * 4, [0] * 16, [0] * 8, 0),
            OperandError,
            r"r holds 2147483648; every element must be int32, in \[-2147483648, 2147483647\]",
        ),
        (lambda: acle.vdot_u32([-1, 0], [0] * 8, [0] * 8), OperandError, r"uint32, in \[0, 4294967295\]"),
        (lambda: acle.svdot_s64([2**63, 0], [0] * 8, [0] * 8), OperandError, "int64"),
        (lambda: acle.svdot_u64([2**64, 0], [0] * 8, [0] * 8), OperandError, r"uint64, in \[0, 18446744073709551615\]"),
        (lambda: acle.svdot_s32_s16([0] * 4, [2**15] * 8, [0] * 8), OperandError, "int16"),
        (lambda: acle.svdot_n_s32([0] * 4, [0] * 16, 128), OperandError, "op3"),
        (lambda: acle.svdot_n_s32([0] * 4, [0] * 16, "1"), OperandTypeError, "op3"),
        (lambda: acle.svdot_lane_s64([0] * 2, [0] * 8, [0] * 8, 2), OperandError, r"imm_index.*\[0, 1\]"),
        (lambda: acle.svdot_lane_s32_s16([0] * 4, [0] * 8, [0] * 8, 4), OperandError, "imm_index"),
        (lambda: acle.vdot_s32([0, 0], [0] * 8), OperandTypeError, "vdot_s32"),
        (lambda: arm.svsudot_lane_s32([0] * 3, [0] * 12, [0] * 12, 0), OperandError, "multiple of 16"),
        (lambda: arm.svsudot_lane_s32([[0] * 4, [0] * 3], [0] * 16, [0] * 16, 0), OperandTypeError, "op1"),  # ragged
        (lambda: arm.vsudotq_laneq_s32([[0] * 4, [0]], [0] * 16, [0] * 16, 0), OperandTypeError, "r="),
        # batch axes that do not broadcast: an intdot error naming them, not NumPy's
        (
            lambda: arm.vsudotq_laneq_s32(np.zeros((2, 4), np.int32), np.zeros((3, 16), np.int8), [0] * 16, 0),
            OperandError,
            r"r \(2,\), a \(3,\)",
        ),
        (
            lambda: arm.svsudot_lane_s32(np.zeros((2, 4), np.int32), [0] * 16, np.zeros((3, 16), np.uint8), 0),
            OperandError,
            "do not broadcast",
        ),
        (lambda: arm.svsudot_lane_s32([0] * 4, [0] * 16, [0] * 16, 4), OperandError, "imm_index"),
        (lambda: arm.svsudot_single_za32_s8_vg1x2(0, ([0] * 16,) * 2, [0] * 16), OperandError, "exactly one"),
        (
            lambda: arm.svsudot_single_za32_s8_vg1x2(0, ([0] * 16,) * 3, [0] * 16, za=np.zeros((16, 16), np.uint8)),
            OperandError,
            "tuple of 2",
        ),
        (
            lambda: arm.svsudot_single_za32_s8_vg1x4(0, ([0] * 32,) * 4, [0] * 32, za=np.zeros((16, 16), np.uint8)),
            OperandError,
            "zn\\[0\\] has 32",
        ),
        (
            lambda: arm.svsudot_single_za32_s8_vg1x2(0, ([0] * 16,) * 2, [0] * 16, za=np.zeros((16, 16), np.int8)),
            OperandError,
            "uint8",
        ),
        (
            lambda: arm.svsudot_single_za32_s8_vg1x2(0, ([0] * 16,) * 2, [0] * 16, state=State(svl=128)),
            StateError,
            "streaming",
        ),
        (
            lambda: arm.svsudot_lane_za32_s8_vg1x2(
                -(2**31) - 1, ([0] * 16,) * 2, [0] * 16, 0, za=np.zeros((16, 16), np.uint8)
            ),
            OperandError,
            "slice",
        ),
        (
            lambda: acle.svdot_za64_s16_vg1x2(0, ([0] * 8,) * 2, [0] * 8, za=np.zeros((16, 16), np.uint8)),
            OperandError,
            "tuple of 2",
        ),
        (
            lambda: acle.svdot_lane_za64_u16_vg1x4(0, ([0] * 8,) * 4, [0] * 8, 2, za=np.zeros((16, 16), np.uint8)),
            OperandError,
            "imm_index",
        ),
    ],
)
def test_argument_errors(call, err, msg):
    with pytest.raises(err, match=msg):
        call()


def test_int32_operands_take_the_bits_of_uint32_through_a_view():
    u = np.array([0xFFFFFFFF, 0], np.uint32)
    with pytest.raises(OperandError, match=r"view\(np.int32\)"):
        arm.vsudot_lane_s32(u, [1] * 8, [1] * 8, 0)
    assert arm.vsudot_lane_s32(u.view(np.int32), [1] * 8, [1] * 8, 0).tolist() == [3, 4]


def test_functions_carry_their_prototype_and_signature():
    import inspect

    assert str(inspect.signature(acle.svdot_lane_s64)) == "(op1, op2, op3, imm_index)"
    assert str(inspect.signature(acle.svdot_za32_s8_vg1x2)) == "(slice, zn, zm, *, za=None, state=None)"
    assert acle.vdotq_laneq_u32.__doc__.startswith(
        "``uint32x4_t vdotq_laneq_u32(uint32x4_t r, uint8x16_t a, uint8x16_t b, const int lane)``"
    )
    assert acle.__all__[:3] == ["INTRINSICS", "BY_FORM", "Intrinsic"] and set(acle.__all__[3:]) == set(ALL)


def test_the_type_stub_is_current():
    """src/intdot/arm/acle.pyi spells out the generated functions for type checkers; it must match them."""
    import ast
    from pathlib import Path

    path = Path(acle.__file__).with_suffix(".pyi")
    text = path.read_text()
    assert text == acle.stub_text(), "refresh it: see acle.stub_text's docstring"
    defs = {n.name for n in ast.parse(text).body if isinstance(n, ast.FunctionDef)}
    assert defs == set(acle.INTRINSICS) | {"stub_text"}
