"""intdot's executor against QEMU running the real instructions, byte for byte.

For every form and every vector length (VL for NEON/SVE, SVL for SME2, 128 to
2048 bits) a few random instructions (plus edge cases: aliased registers,
index 3, offset 7, Zn lists that wrap past z31, Zm a member of a wrapping list)
each run on many random states
in one QEMU launch.  States mix uniform bytes with the extreme bytes
0x00/0x7f/0x80/0xff, accumulators near the int32 limits (so the sums wrap)
and full 64-bit random X8-X11 (the SME2 forms must use only W).  Half of the
states go through ``execute(state, text)``, half through the word LLVM's
assembler would give.  The number of states compared per form and length is
printed at the end of the module and written to
``.oracle-cache/qemu-state-counts.json``.
"""

from __future__ import annotations

import json
import random
import zlib
from collections import Counter

import numpy as np
import pytest

from intdot.arm import State, asm, execute
from tests.oracles import missing
from tests.oracles import qemu as oracle

pytestmark = pytest.mark.oracle

LENGTHS = (128, 256, 512, 1024, 2048)
INSNS_PER_FORM = 12
STATES_PER_RUN = 96
EXTREME_BYTES = np.array([0x00, 0x7F, 0x80, 0xFF], dtype=np.uint8)
COUNTS: Counter = Counter()


def _zlist(n: int, count: int, aligned_range: bool) -> str:
    regs = [(n + r) % 32 for r in range(count)]
    if aligned_range and count == 4 and regs[-1] > regs[0]:
        return f"{{ z{regs[0]}.b - z{regs[-1]}.b }}"
    return "{ " + ", ".join(f"z{r}.b" for r in regs) + " }"


def _neon(rng, q, edge):
    d, n, m, i = (rng.randrange(32), rng.randrange(32), rng.randrange(32), rng.randrange(4)) if not edge \
        else (7, 7, 7, 3)
    return f"sudot v{d}.{'4s' if q else '2s'}, v{n}.{'16b' if q else '8b'}, v{m}.4b[{i}]"


def _sve(rng, edge):
    d, n, m, i = (rng.randrange(32), rng.randrange(32), rng.randrange(8), rng.randrange(4)) if not edge \
        else (5, 5, 5, 3)
    return f"sudot z{d}.s, z{n}.b, z{m}.b[{i}]"


def _sme2(rng, nvec, indexed, edge):
    v, off, m = rng.randrange(8, 12), rng.randrange(8), rng.randrange(16)
    if indexed:
        n = rng.randrange(0, 32, nvec) if not edge else 32 - nvec
        zl = _zlist(n, nvec, aligned_range=True)
        return f"sudot za.s[w{v}, {off}, vgx{nvec}], {zl}, z{m}.b[{rng.randrange(4) if not edge else 3}]"
    n = rng.randrange(32) if not edge else 31 - (nvec == 4)
    off = 7 if edge else off
    return f"sudot za.s[w{v}, {off}, vgx{nvec}], {_zlist(n, nvec, aligned_range=True)}, z{m}.b"


# form name -> (streaming program?, maker(rng, edge) -> text)
FORMS = {
    "sudot_neon_elem_64": (False, lambda rng, e: _neon(rng, 0, e)),
    "sudot_neon_elem_128": (False, lambda rng, e: _neon(rng, 1, e)),
    "sudot_sve_indexed": (False, _sve),
    "sudot_sme2_indexed_vgx2": (True, lambda rng, e: _sme2(rng, 2, True, e)),
    "sudot_sme2_indexed_vgx4": (True, lambda rng, e: _sme2(rng, 4, True, e)),
    "sudot_sme2_single_vgx2": (True, lambda rng, e: _sme2(rng, 2, False, e)),
    "sudot_sme2_single_vgx4": (True, lambda rng, e: _sme2(rng, 4, False, e)),
}


# The last instruction of these forms: Zm is a member of a list that wraps past z31 (the
# executor gathers such a list into a copy; Zm must still be read as the register).
ALIASED = {
    "sudot_sme2_single_vgx2": "sudot za.s[w9, 6, vgx2], { z31.b, z0.b }, z0.b",
    "sudot_sme2_single_vgx4": "sudot za.s[w10, 7, vgx4], { z30.b, z31.b, z0.b, z1.b }, z1.b",
}


def instructions(form: str, count: int = INSNS_PER_FORM) -> list[str]:
    """Fixed-seed random instruction texts (the same every run, so programs stay cached)."""
    rng = random.Random(f"qemu-{form}")
    maker = FORMS[form][1]
    texts = [maker(rng, k == 0) for k in range(count)]
    if form in ALIASED and count == INSNS_PER_FORM:
        texts[-1] = ALIASED[form]
    return texts


def _near_limits(rng: np.random.Generator, shape) -> np.ndarray:
    """32-bit words within a dot product's reach of the int32 limits (and of 0 / -1)."""
    base = rng.choice(np.array([0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0], dtype=np.int64), size=shape)
    return ((base + rng.integers(-131072, 131072, size=shape)) & 0xFFFFFFFF).astype("<u4")


def random_states(rng: np.random.Generator, count: int, vl: int, svl: int, streaming: bool, acc_regs) -> list[State]:
    states = []
    for k in range(count):
        s = State(vl, svl, streaming=streaming)
        flavour = k % 4
        for region in (s.z, s.za) if streaming else (s.z,):
            u = rng.integers(0, 256, size=region.shape, dtype=np.uint8)
            if flavour == 1:  # only extreme bytes
                u = rng.choice(EXTREME_BYTES, size=region.shape)
            elif flavour == 2:  # a third of the bytes extreme
                mask = rng.random(region.shape) < 0.33
                u[mask] = rng.choice(EXTREME_BYTES, size=int(mask.sum()))
            region[:] = u
        if flavour in (0, 1, 2) and k % 2 == 0:  # accumulators near the limits, so the sums wrap
            if streaming:
                s.za.view("<u4")[:] = _near_limits(rng, s.za.view("<u4").shape)
            for r in acc_regs:
                s.z[r].view("<u4")[:] = _near_limits(rng, s.z[r].view("<u4").shape)
        s.x[8:12] = rng.integers(0, 2**64, size=4, dtype=np.uint64)
        if k % 5 == 0:  # Wv + offset crossing 2**32
            s.x[8:12] = (s.x[8:12] & np.uint64(0xFFFFFFFF00000000)) | np.uint64(0xFFFFFFFD)
        states.append(s)
    return states


def blob(s: State) -> bytes:
    return s.z.tobytes() + (s.za.tobytes() if s.streaming else b"") + s.x[8:12].astype("<u8").tobytes()


def first_difference(text: str, s: State, want: bytes) -> str:
    """Where intdot's state differs from QEMU's blob, said in register terms."""
    z = np.frombuffer(want[:s.z.size], np.uint8).reshape(s.z.shape)
    for r in range(32):
        if not np.array_equal(z[r], s.z[r]):
            return (f"z{r}: qemu {z[r].view('<i4').tolist()} intdot {s.z[r].view('<i4').tolist()}")
    if s.streaming:
        za = np.frombuffer(want[s.z.size:s.z.size + s.za.size], np.uint8).reshape(s.za.shape)
        for r in range(za.shape[0]):
            if not np.array_equal(za[r], s.za[r]):
                return f"za[{r}]: qemu {za[r].view('<i4').tolist()} intdot {s.za[r].view('<i4').tolist()}"
    return "x8-x11 differ"


def _tools(streaming: bool):
    if oracle.clang() is None:
        missing("clang-19 (to build the AArch64 test programs)")
    if oracle.qemu(streaming) is None:
        missing("qemu-aarch64 with SME2 (QEMU 9 or newer)" if streaming else "qemu-aarch64 (qemu-user)")


def compare(text: str, *, vl: int, svl: int, streaming: bool, nstates: int, acc_regs, label: str, seed) -> None:
    try:
        exe = oracle.build(text, streaming=streaming)
    except oracle.LinkerMissing as exc:
        missing(f"lld-19 (clang's linker for the test programs): {exc}")
    rng = np.random.default_rng(list(seed))
    states = random_states(rng, nstates, vl, svl, streaming, acc_regs)
    outs = oracle.run(exe, [blob(s) for s in states], vl=vl, svl=svl, streaming=streaming)
    by_text, by_word = asm.parse(text), asm.decode(asm.assemble(text))
    for k, (s, want) in enumerate(zip(states, outs)):
        execute(s, by_text if k % 2 == 0 else by_word)
        if blob(s) != want:
            pytest.fail(f"{text!r} at VL={vl} SVL={svl} streaming={streaming}, state {k}: "
                        + first_difference(text, s, want))
    COUNTS[(label, "SVL" if streaming else "VL", vl if not streaming else svl)] += nstates


def _acc_regs(text: str) -> list[int]:
    first = text.split()[1].rstrip(",")
    return [] if first.startswith("za") else [int(first[1:].split(".")[0])]


@pytest.fixture(scope="module", autouse=True)
def save_counts():
    """Write the counts when the module is done; tests/arm/conftest.py prints them in the summary."""
    yield
    if not COUNTS:
        return
    path = oracle.ROOT / ".oracle-cache" / "qemu-state-counts.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = [{"form": f, "length": kind, "bits": n, "states": c} for (f, kind, n), c in sorted(COUNTS.items())]
    path.write_text(json.dumps(rows, indent=1) + "\n")


def summary_lines() -> list[str]:
    """The table of QEMU states compared per form and vector length, for the terminal summary."""
    if not COUNTS:
        return []
    lines = ["QEMU states compared per form and vector length in bits (VL for NEON/SVE, SVL in streaming "
             "mode; also in .oracle-cache/qemu-state-counts.json):",
             f"  {'form':40s} {'length':6s}" + "".join(f"{n:>7d}" for n in LENGTHS)]
    for f, kind in sorted({(f, kind) for f, kind, _ in COUNTS}):
        cells = "".join(f"{COUNTS.get((f, kind, n), '-'):>7}" for n in LENGTHS)
        lines.append(f"  {f:40s} {kind:6s}{cells}")
    lines.append(f"  total: {sum(COUNTS.values())} states, each compared byte for byte (Z0-Z31, ZA, X8-X11)")
    return lines


@pytest.mark.parametrize("length", LENGTHS)
@pytest.mark.parametrize("form", list(FORMS))
def test_form_matches_qemu(form, length):
    streaming, _ = FORMS[form]
    _tools(streaming)
    for j, text in enumerate(instructions(form)):
        compare(text, vl=length, svl=length, streaming=streaming, nstates=STATES_PER_RUN,
                acc_regs=_acc_regs(text), label=form, seed=(zlib.crc32(form.encode()), length, j))


@pytest.mark.parametrize("length", LENGTHS)
@pytest.mark.parametrize("form", ["sudot_neon_elem_64", "sudot_neon_elem_128", "sudot_sve_indexed"])
def test_neon_sve_in_streaming_mode_match_qemu(form, length):
    """NEON/SVE forms in streaming mode (QEMU's max CPU has FEAT_SME_FA64): Z is SVL long,
    and a NEON write zeroes Zd up to SVL."""
    _tools(True)
    for j, text in enumerate(instructions(form, 2)):
        compare(text, vl=128 if length != 128 else 256, svl=length, streaming=True, nstates=16,
                acc_regs=_acc_regs(text), label=form + " (streaming)", seed=(7, length, j))



def test_every_sudot_form_of_the_table_is_covered():
    from intdot.arm import FORMS as TABLE

    assert {f.name for f in TABLE if f.mnemonic == "sudot"} == set(FORMS)
