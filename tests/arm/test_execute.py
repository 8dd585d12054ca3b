"""The executor against the slow reference model (tests/arm/reference_arm.py)."""

from __future__ import annotations

import random
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from intdot.arm import FORMS, Insn, State, asm, execute
from intdot.arm.forms import form_named
from intdot.errors import OperandError, OperandTypeError, StateError, UnknownInstruction

from . import arm_forms as forms
from . import reference_arm as ref

LENGTHS = (128, 256, 512, 1024, 2048)
BYTE = st.one_of(st.integers(0, 255), st.sampled_from([0x00, 0x7F, 0x80, 0xFF]))


def ops_for(form, draw) -> dict:
    """Random operands within what every row of the form's id accepts (tests/arm/arm_forms.py)."""
    return forms.random_ops(form.name, random.Random(draw(st.integers(0, 2**32 - 1))), edge=draw(st.booleans()))


def random_state(rng: np.random.Generator, vl: int, svl: int, streaming: bool, near_limits: bool) -> State:
    state = State(vl, svl, streaming=streaming)
    extremes = np.array([0, 0x7F, 0x80, 0xFF], np.uint8)
    for region in (state.z, state.za):
        region[:] = rng.integers(0, 256, region.shape, dtype=np.uint8)
        if rng.random() < 0.5:
            mask = rng.random(region.shape) < 0.5
            region[mask] = rng.choice(extremes, int(mask.sum()))
    if near_limits:  # accumulators near the 32- and 64-bit limits: the sums wrap
        for region in (state.za, state.z):
            words = region.view("<u4")
            words[:] = rng.choice(np.array([0x7FFFFFF0, 0x80000010, 0xFFFFFFF8, 0x8], np.uint32), words.shape)
    state.x[:] = rng.integers(0, 2**64, 31, dtype=np.uint64)
    return state


@st.composite
def cases(draw, forms_=FORMS):
    form = draw(st.sampled_from(forms_))
    streaming = form.kind.startswith("sme2") or draw(st.booleans())
    vl, svl = draw(st.sampled_from(LENGTHS)), draw(st.sampled_from(LENGTHS))
    state = random_state(
        np.random.default_rng(draw(st.integers(0, 2**32 - 1))), vl, svl, streaming, draw(st.booleans())
    )
    for v in range(8, 12):
        state.x[v] = draw(st.integers(0, 2**64 - 1))
    return Insn(form, ops_for(form, draw)), state


def reference_of(state: State) -> ref.RefState:
    r = ref.RefState(state.z.shape[1], state.za.shape[0])
    r.z = [list(row.tolist()) for row in state.z]
    r.za = [list(row.tolist()) for row in state.za]
    r.x = [int(v) for v in state.x]
    return r


def assert_matches(state: State, r: ref.RefState) -> None:
    for i in range(32):
        assert state.z[i].tolist() == r.z[i], f"z{i}"
    assert state.za.tolist() == r.za
    assert [int(v) for v in state.x] == r.x


@settings(max_examples=120, deadline=None)
@given(cases())
def test_executor_matches_reference(case):
    insn, state = case
    r = reference_of(state)
    execute(state, insn)
    ref.run_form(r, insn.form.name, dict(insn.ops))
    assert_matches(state, r)


def _form_or_skip(form_id: str, source: str):
    form = forms.table_form(form_id) if source == "table" else forms.hand_made_form(form_id)
    if form is None:
        pytest.skip(
            f"{form_id}: not in intdot's form table yet"
            if source == "table"
            else "this intdot's Form has no spec field"
        )
    return form


@pytest.mark.parametrize("source", ["table", "hand-made"])
@pytest.mark.parametrize("form_id", forms.ALL_IDS)
def test_every_form_and_length_against_reference(form_id, source):
    """Every form id at every VL/SVL, random and edge operands, accumulators near the limits."""
    form = _form_or_skip(form_id, source)
    for length in LENGTHS:
        rng = np.random.default_rng([length, zlib.crc32(form_id.encode())])
        for k in range(3):
            streaming = forms.streaming_only(form_id) or k == 2
            state = random_state(rng, length, length, streaming, near_limits=k == 1)
            state.x[8:12] = [0xFFFFFFFF, 2**40 + 5, 7, 123456789]
            ops = forms.random_ops(form_id, random.Random(f"{form_id}{length}{k}"), edge=k == 0)
            r = reference_of(state)
            execute(state, Insn(form, ops))
            ref.run_form(r, form_id, ops)
            assert_matches(state, r)


def test_the_table_has_every_form_of_the_contract():
    missing = [f for f in forms.ALL_IDS if forms.table_form(f) is None]
    if missing:
        pytest.skip(f"{len(missing)} of {len(forms.ALL_IDS)} form ids not in the table yet: {missing[:5]}...")
    assert {f.name for f in FORMS} >= set(forms.ALL_IDS)


@pytest.mark.parametrize("form_id", forms.ALL_IDS)
def test_the_rows_spec_is_what_its_id_means(form_id):
    form = _form_or_skip(form_id, "table")
    assert form.spec == forms.dot_spec(form_id)
    kind, _, nvec, _ = ref.describe(form_id)
    assert (form.kind, form.nvec) == (kind, nvec)


def test_text_word_and_insn_give_the_same_result():
    rng = np.random.default_rng(3)
    base = State(512, 256, streaming=True)
    base.z[:] = rng.integers(0, 256, base.z.shape, dtype=np.uint8)
    base.w[10] = 77
    for text in [
        "sudot za.s[w10, 5, vgx4], { z28.b - z31.b }, z9.b[2]",
        "sudot za.s[w10, 1, vgx2], { z31.b, z0.b }, z3.b",
        "sudot z9.s, z1.b, z7.b[1]",
        "sudot v1.4s, v2.16b, v3.4b[2]",
    ]:
        a, b, c = base.copy(), base.copy(), base.copy()
        execute(a, text)
        execute(b, asm.assemble(text))
        execute(c, asm.parse(text))
        assert a == b == c
        assert a != base


def test_neon_64_bit_write_zeroes_the_rest_of_z():
    s = State(vl=512)
    s.z[:] = 0xAB
    execute(s, "sudot v0.2s, v1.8b, v2.4b[0]")
    assert s.z[0][8:].tolist() == [0] * 56
    assert s.z[1].tolist() == [0xAB] * 64


def test_known_values_and_wrap():
    s = State()
    s.set("v0.s", [2**31 - 1, -(2**31), 0, -1])
    s.set("v1.b", [127] * 4 + [-128] * 4 + [-1] * 4 + [1] * 4)
    s.set("v2.b", [0, 0, 0, 0, 255, 255, 255, 255] + [0] * 8)
    execute(s, "sudot v0.4s, v1.16b, v2.4b[1]")
    # 127*255*4 = 129540; -128*255*4 = -130560; -1*255*4 = -1020; 255*4 = 1020
    assert s.get("v0.s").tolist() == [2**31 - 1 + 129540 - 2**32, -(2**31) - 130560 + 2**32, -1020, 1019]


def test_sme2_needs_streaming_mode():
    s = State(svl=256)
    with pytest.raises(StateError, match="smstart"):
        execute(s, "sudot za.s[w8, 0, vgx2], { z0.b, z1.b }, z0.b[0]")
    s.smstart()
    execute(s, "sudot za.s[w8, 0, vgx2], { z0.b, z1.b }, z0.b[0]")


def test_bad_inputs_raise_typed_errors():
    s = State()
    with pytest.raises(OperandTypeError):
        execute(s, 1.5)
    with pytest.raises(OperandTypeError):
        execute("not a state", "sudot z0.s, z1.b, z2.b[0]")
    f = form_named("sudot_sve_indexed")
    with pytest.raises(OperandError, match="zm"):
        execute(s, Insn(f, dict(zda=0, zn=1, zm=9, index=0)))
    with pytest.raises(OperandError, match="index"):
        execute(s, Insn(f, dict(zda=0, zn=1, zm=1)))
    import dataclasses

    with pytest.raises(UnknownInstruction):
        execute(s, Insn(dataclasses.replace(f, name="x", kind="mystery", layout=None), {}))


def test_public_execute_is_the_function():
    import intdot.arm
    import intdot.arm.executor  # noqa: F401

    assert callable(intdot.arm.execute) and intdot.arm.execute.__module__ == "intdot.arm.executor"


@pytest.mark.parametrize(
    "name, ops, match",
    [
        # q=0 on the 128-bit row would run the 64-bit semantics: the row fixes q=1
        ("sudot_neon_elem_128", dict(vd=0, vn=1, vm=2, index=3, q=0), "which has q=1"),
        ("sudot_neon_elem_128", dict(vd=0, vn=1, vm=2, index=3, q=True), "which has q=1"),
        ("sudot_neon_elem_64", dict(vd=0, vn=1, vm=2, index=3, q=0, extra=1), "'extra'"),
        # lists the vgx4 indexed row cannot encode (not a multiple of 4)
        ("sudot_sme2_indexed_vgx4", dict(wv=8, off=0, zn=1, zm=0, index=0), "expected 0..28 in steps of 4"),
        ("sudot_sme2_indexed_vgx4", dict(wv=8, off=0, zn=30, zm=0, index=0), "expected 0..28 in steps of 4"),
        ("sudot_sme2_single_vgx2", dict(wv=12, off=0, zn=0, zm=0), "expected 8..11"),
        ("sudot_sme2_single_vgx2", dict(wv=8, off=8, zn=0, zm=0), "expected 0..7"),
    ],
)
def test_an_insn_its_row_cannot_encode_is_refused_and_the_state_kept(name, ops, match):
    s = State(svl=256, streaming=True)
    s.z[:] = 1
    s.za[:] = 2
    before = s.copy()
    with pytest.raises(OperandError, match=match):
        execute(s, Insn(form_named(name), ops))
    with pytest.raises(OperandError, match=match):
        asm.encode(Insn(form_named(name), ops))
    assert s == before


def test_a_row_constant_may_be_left_out():
    s = State()
    s.set("v1.b", 1)
    s.set("v2.b", 2)
    execute(s, Insn(form_named("sudot_neon_elem_64"), dict(vd=0, vn=1, vm=2, index=0)))
    assert s.get("v0.s").tolist() == [8, 8, 0, 0]


@pytest.mark.parametrize(
    "form, ops, cls",
    [
        (None, {}, OperandTypeError),
        ("sudot_sve_indexed", {}, OperandTypeError),
        (form_named("sudot_sve_indexed"), None, OperandTypeError),
        (form_named("sudot_sve_indexed"), [0, 1, 2, 3], OperandTypeError),
    ],
)
def test_malformed_insn_objects_raise_typed_errors(form, ops, cls):
    with pytest.raises(cls):
        execute(State(), Insn(form, ops))
    with pytest.raises(cls):
        asm.encode(Insn(form, ops))


def test_docs_exec_sessions(capsys):
    """Every ``$ intdot exec`` session of docs/arm.md prints exactly what the page shows."""
    import re
    import shlex
    from pathlib import Path

    from intdot.cli import main

    text = (Path(__file__).resolve().parents[2] / "docs" / "arm.md").read_text()
    sessions = []
    for block in re.findall(r"^```\n(.*?)^```$", text, re.M | re.S):
        for chunk in re.split(r"^(?=\$ )", block, flags=re.M):
            if chunk.startswith("$ intdot exec"):
                chunk = chunk.replace("\\\n", " ")  # shell line continuation
                command, _, expected = chunk.partition("\n")
                sessions.append((command[2:], expected))
    assert len(sessions) >= 2
    for command, expected in sessions:
        assert main(shlex.split(command)[1:]) == 0
        assert capsys.readouterr().out == expected, command


def test_a_hand_made_form_needs_an_arm_dot_spec():
    import dataclasses

    from intdot.core import DotSpec

    s = State()
    base = forms.hand_made_form("sdot_sve_vec")
    ops = dict(zda=0, zn=1, zm=2)
    with pytest.raises(OperandTypeError, match="spec"):
        execute(s, Insn(dataclasses.replace(base, spec=(8, 8, 4)), ops))
    with pytest.raises(OperandError, match="not an Arm dot shape"):
        execute(s, Insn(dataclasses.replace(base, spec=DotSpec(8, 8, 2, True, True)), ops))
    with pytest.raises(OperandError, match="not an Arm dot shape"):
        execute(s, Insn(dataclasses.replace(base, spec=DotSpec(16, 8, 4, True, True, acc_bits=64)), ops))


@pytest.mark.parametrize(
    "form_id, ops, match",
    [
        ("sdot_sve_indexed_d", dict(zda=0, zn=1, zm=2, index=2), r"index=2 is out of range; expected 0\.\.1"),
        ("udot_sme2_indexed_d_vgx2", dict(wv=8, off=0, zn=0, zm=2, index=2), r"expected 0\.\.1"),
        ("sdot_neon_vec_128", dict(vd=0, vn=1, vm=32, q=1), "vm=32"),
        ("usdot_sme2_multi_vgx4", dict(wv=8, off=0, zn=0), "'zm' is missing"),
    ],
)
def test_a_hand_made_forms_operands_are_checked(form_id, ops, match):
    s = State(streaming=True)
    before = s.copy()
    with pytest.raises(OperandError, match=match):
        execute(s, Insn(forms.hand_made_form(form_id), ops))
    assert s == before
