"""Property: ``intdot eval`` of a call written in any accepted spelling gives the
reference's answer, and ``--explain`` ends in that answer."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from intdot.amd.evaluate import evaluate, explain
from tests.amd.spec import NAMES, SUDOT, ref

words = st.one_of(
    st.sampled_from([0, 1, -1, 0x7FFFFFFF, -(2**31), 2**32 - 1, 0x80808080, 0x88888888]),
    st.integers(-(2**31), 2**32 - 1),
)


@st.composite
def literal(draw, v):
    """One C spelling of the 32-bit value v."""
    forms = [str(v), hex(v) if v >= 0 else "-" + hex(-v), f"(int){v % 2**32}u", f"(unsigned)({v})", f"(({v}))"]
    if v >= 0:
        forms += [oct(v).replace("0o", "0") + "U", bin(v) + "ll"]
    return draw(st.sampled_from(forms))


def flag(draw, value):
    return draw(st.sampled_from(["true", "1"] if value else ["false", "0"]))


def short2(w):
    e0, e1 = w & 0xFFFF, (w >> 16) & 0xFFFF
    return f"(short2){{{e0 - (e0 >> 15) * 65536}, {e1 - (e1 >> 15) * 65536}}}"


@settings(max_examples=300, deadline=None)
@given(
    data=st.data(),
    name=st.sampled_from(NAMES),
    a=words,
    b=words,
    c=words,
    last=st.booleans(),
    clamp=st.booleans(),
    llvm=st.booleans(),
    s0=st.booleans(),
    s1=st.booleans(),
)
def test_eval_matches_reference(data, name, a, b, c, last, clamp, llvm, s0, s1):
    lit = lambda v: data.draw(literal(v))  # noqa: E731
    if name in SUDOT:
        text = (
            f"{name}({flag(data.draw, s0)}, {lit(a)}, {flag(data.draw, s1)}, {lit(b)}, {lit(c)}, "
            f"{flag(data.draw, last)})"
        )
    elif name in ("sdot2", "udot2") and data.draw(st.booleans()):
        text = f"__builtin_amdgcn_{name}({short2(a % 2**32)}, {short2(b % 2**32)}, {lit(c)}, {flag(data.draw, last)})"
    else:
        text = f"{name}({lit(a)}, {lit(b)}, {lit(c)}, {flag(data.draw, last)})"
    if llvm:
        ev = evaluate(text, profile="llvm")
        neg, clamp = False, last
    else:
        ev = evaluate(text, clamp=clamp)
        neg = last
    flags = {"src0_neg": s0, "src1_neg": s1} if name in SUDOT else {}
    want = ref(name, a % 2**32, b % 2**32, c % 2**32, neg=neg, clamp=clamp, **flags)
    assert ev.result == want, text
    assert explain(ev)[-1].endswith(f"-> {want}")
