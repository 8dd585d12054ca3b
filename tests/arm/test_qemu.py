"""intdot's executor against QEMU running the real instructions, byte for byte.

For every form of the contract (all 75 sdot/udot/usdot/sudot forms: NEON,
SVE, SVE2.1, SME2 za.s and za.d) and every vector length (VL for NEON/SVE,
SVL for SME2, 128 to 2048 bits) a few instructions (an edge case: aliased
registers, the last index, offset 7, Zn lists that end at or wrap past z31,
Zm a member of a wrapping list; and random ones) each run on many random
states in one QEMU launch (Debian's QEMU for NEON/SVE, the oracle
installer's QEMU 11 for SVE2.1 and streaming programs).  States mix uniform
bytes with the extreme bytes 0x00/0x7f/0x80/0xff, accumulators near the
32- and 64-bit limits (so the sums wrap) and full 64-bit random X8-X11 (the
SME2 forms must use only W).  Instruction texts are written by the test
(tests/arm/arm_forms.py) and assembled by clang for QEMU; intdot reads the
same text and the word its assembler gives, alternating between states.
The number of states compared per form and length is
printed in the run's summary and written to
``.oracle-cache/qemu-state-counts.json`` (tests/conftest.py).
"""

from __future__ import annotations

import json
import random
import zlib
from collections import Counter

import numpy as np
import pytest

from intdot.arm import Insn, State, execute
from tests.oracles import missing
from tests.oracles import qemu as oracle

from . import arm_forms as forms

pytestmark = pytest.mark.oracle

LENGTHS = (128, 256, 512, 1024, 2048)
INSNS_PER_FORM = 2  # the edge instruction and a random one; --slow: SLOW_INSNS_PER_FORM
SLOW_INSNS_PER_FORM = 12
STATES_PER_RUN = 32
EXTREME_BYTES = np.array([0x00, 0x7F, 0x80, 0xFF], dtype=np.uint8)
COUNTS: Counter = Counter()

# form id -> streaming program?  Every form of the contract (tests/arm/arm_forms.py).
FORMS = {f: forms.streaming_only(f) for f in forms.ALL_IDS}

# The last instruction of these forms: Zm is a member of a list that wraps past z31 (the
# executor gathers such a list into a copy; Zm must still be read as the register).
ALIASED = {
    "sudot_sme2_single_vgx2": dict(wv=9, off=6, zn=31, zm=0),
    "sudot_sme2_single_vgx4": dict(wv=10, off=7, zn=30, zm=1),
    "sdot_sme2_single_d_vgx4": dict(wv=11, off=5, zn=29, zm=0),
    "udot_sme2_single_hs_vgx2": dict(wv=8, off=1, zn=31, zm=0),
}


def instructions(form: str, count: int = INSNS_PER_FORM) -> list[tuple[str, dict]]:
    """Fixed-seed random (text, ops) pairs (the same every run, so programs stay cached)."""
    rng = random.Random(f"qemu-{form}")
    ops = [forms.random_ops(form, rng, edge=k == 0) for k in range(count)]
    if form in ALIASED:
        ops[-1] = ALIASED[form]
    return [(forms.text(form, o), o) for o in ops]


def _near_limits(rng: np.random.Generator, shape) -> np.ndarray:
    """32-bit words within a dot product's reach of the int32 limits (and of 0 / -1)."""
    base = rng.choice(np.array([0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0], dtype=np.int64), size=shape)
    return ((base + rng.integers(-131072, 131072, size=shape)) & 0xFFFFFFFF).astype("<u4")


def _near_limits64(rng: np.random.Generator, shape) -> np.ndarray:
    """64-bit words within reach (2**34) of the int64/uint64 limits: the .d forms' sums wrap there."""
    base = rng.choice(np.array([2**63 - 1, 2**63, 2**64 - 1, 0], dtype=np.uint64), size=shape)
    return (base + rng.integers(-(2**34), 2**34, size=shape).astype(np.uint64)).astype("<u8")


def _fill_near_limits(rng, region: np.ndarray, k: int) -> None:
    """Half the time near the 32-bit limits, half near the 64-bit ones (so both sizes of accumulator wrap)."""
    if k % 4 == 2:
        region.view("<u8")[:] = _near_limits64(rng, region.view("<u8").shape)
    else:
        region.view("<u4")[:] = _near_limits(rng, region.view("<u4").shape)


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
                _fill_near_limits(rng, s.za, k)
            for r in acc_regs:
                _fill_near_limits(rng, s.z[r], k)
        s.x[8:12] = rng.integers(0, 2**64, size=4, dtype=np.uint64)
        if k % 5 == 0:  # Wv + offset crossing 2**32
            s.x[8:12] = (s.x[8:12] & np.uint64(0xFFFFFFFF00000000)) | np.uint64(0xFFFFFFFD)
        states.append(s)
    return states


def blob(s: State) -> bytes:
    return s.z.tobytes() + (s.za.tobytes() if s.streaming else b"") + s.x[8:12].astype("<u8").tobytes()


def first_difference(text: str, s: State, want: bytes) -> str:
    """Where intdot's state differs from QEMU's blob, said in register terms."""
    z = np.frombuffer(want[: s.z.size], np.uint8).reshape(s.z.shape)
    for r in range(32):
        if not np.array_equal(z[r], s.z[r]):
            return f"z{r}: qemu {z[r].view('<i4').tolist()} intdot {s.z[r].view('<i4').tolist()}"
    if s.streaming:
        za = np.frombuffer(want[s.z.size : s.z.size + s.za.size], np.uint8).reshape(s.za.shape)
        for r in range(za.shape[0]):
            if not np.array_equal(za[r], s.za[r]):
                return f"za[{r}]: qemu {za[r].view('<i4').tolist()} intdot {s.za[r].view('<i4').tolist()}"
    return "x8-x11 differ"


def _insns(form_id: str, text: str, ops: dict) -> list:
    """The instruction as intdot reads it: parsed text and decoded word when the table has the
    form (the word from LLVM's assembler would be the same; test_llvm_mc checks that), else an
    Insn of a hand-made form."""
    row = forms.table_form(form_id)
    if row is not None:
        try:
            from intdot.arm import asm
        except ImportError:  # the text module is being rebuilt: run the row itself
            return [Insn(row, ops)]
        return [asm.parse(text), asm.decode(asm.assemble(text))]
    hand = forms.hand_made_form(form_id)
    if hand is None:
        pytest.skip(f"{form_id}: not in the table and this intdot's Form has no spec")
    return [Insn(hand, ops)]


def compare(
    form_id: str, text: str, ops: dict, *, vl: int, svl: int, streaming: bool, nstates: int, acc_regs, label: str, seed
) -> None:
    new = forms.needs_new_qemu(form_id)
    try:
        exe = oracle.build(text, streaming=streaming)
    except oracle.LinkerMissing as exc:
        missing(f"lld-19 (clang's linker for the test programs): {exc}")
    rng = np.random.default_rng(list(seed))
    states = random_states(rng, nstates, vl, svl, streaming, acc_regs)
    outs = oracle.run(exe, [blob(s) for s in states], vl=vl, svl=svl, streaming=streaming, new=new)
    insns = _insns(form_id, text, ops)
    for k, (s, want) in enumerate(zip(states, outs)):
        execute(s, insns[k % len(insns)])
        if blob(s) != want:
            pytest.fail(
                f"{text!r} at VL={vl} SVL={svl} streaming={streaming}, state {k}: " + first_difference(text, s, want)
            )
    COUNTS[(label, "SVL" if streaming else "VL", vl if not streaming else svl)] += nstates


def _acc_regs(text: str) -> list[int]:
    first = text.split()[1].rstrip(",")
    return [] if first.startswith("za") else [int(first[1:].split(".")[0])]


def save_counts() -> None:
    """Write the counts of the whole run (tests/conftest.py calls this as it prints them in the summary)."""
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
    lines = [
        "QEMU states compared per form and vector length in bits (VL for NEON/SVE, SVL in streaming "
        "mode; also in .oracle-cache/qemu-state-counts.json):",
        f"  {'form':40s} {'length':6s}" + "".join(f"{n:>7d}" for n in LENGTHS),
    ]
    for f, kind in sorted({(f, kind) for f, kind, _ in COUNTS}):
        cells = "".join(f"{COUNTS.get((f, kind, n), '-'):>7}" for n in LENGTHS)
        lines.append(f"  {f:40s} {kind:6s}{cells}")
    lines.append(f"  total: {sum(COUNTS.values())} states, each compared byte for byte (Z0-Z31, ZA, X8-X11)")
    return lines


def _run_form(form: str, length: int, count: int, nstates: int) -> None:
    streaming = FORMS[form]
    oracle.require(streaming, forms.needs_new_qemu(form))
    for j, (text, ops) in enumerate(instructions(form, count)):
        compare(
            form,
            text,
            ops,
            vl=length,
            svl=length,
            streaming=streaming,
            nstates=nstates,
            acc_regs=_acc_regs(text),
            label=form,
            seed=(zlib.crc32(form.encode()), length, j),
        )


@pytest.mark.parametrize("length", LENGTHS)
@pytest.mark.parametrize("form", list(FORMS))
def test_form_matches_qemu(form, length):
    _run_form(form, length, INSNS_PER_FORM, STATES_PER_RUN)


@pytest.mark.slow
@pytest.mark.parametrize("length", LENGTHS)
@pytest.mark.parametrize("form", list(FORMS))
def test_form_matches_qemu_volume(form, length):
    _run_form(form, length, SLOW_INSNS_PER_FORM, 4 * STATES_PER_RUN)


NEON_SVE_STREAMING = [f for f in FORMS if not FORMS[f]]


@pytest.mark.parametrize("length", LENGTHS)
@pytest.mark.parametrize("form", NEON_SVE_STREAMING)
def test_neon_sve_in_streaming_mode_match_qemu(form, length):
    """NEON/SVE/SVE2.1 forms in streaming mode (QEMU's max CPU has FEAT_SME_FA64): Z is SVL long,
    and a NEON write zeroes Zd up to SVL."""
    oracle.require(True)
    for j, (text, ops) in enumerate(instructions(form, 1)):
        compare(
            form,
            text,
            ops,
            vl=128 if length != 128 else 256,
            svl=length,
            streaming=True,
            nstates=8,
            acc_regs=_acc_regs(text),
            label=form + " (streaming)",
            seed=(7, length, j),
        )


def test_every_form_of_the_table_is_covered():
    from intdot.arm import FORMS as TABLE

    assert {f.name for f in TABLE} <= set(FORMS)
