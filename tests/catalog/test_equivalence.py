"""catalog.equivalents: every pair it lists computes the same step on random and extreme inputs.

Both sides are computed by tests/reference.py (the specs' pseudocode, no intdot code) from each record's
facts and the way of calling it that the pair names (sources exchanged, flags, clamp), so a wrong pairing
or a wrong exchange fails here whatever the core does.
"""

from __future__ import annotations

import random

import pytest

from intdot import catalog
from tests.reference import ref_spec_step


def _spec(rec, a_signed, b_signed):
    return rec.spec_for(a_signed, b_signed) if rec.sign_args else rec.spec


def _ref(spec, a, b, acc, clamp):
    return ref_spec_step(spec, a, b, acc, clamp=clamp)


def _words(rng, bits, n):
    top = (1 << bits) - 1
    extremes = [0, top, 0x8080808080808080 & top, 0x7F7F7F7F7F7F7F7F & top, 0x8888888888888888 & top]
    return extremes + [rng.getrandbits(bits) for _ in range(n)]


def _pairs():
    """(me, equivalent) for every listed pair, one per distinct pair of calls (many forms share a step)."""
    seen = {}
    for rec in catalog.records():
        for e in catalog.equivalents(rec):
            given = dict(e.given)
            mine = _spec(rec, given.get("a_signed"), given.get("b_signed"))
            theirs = _spec(e.record, e.a_signed, e.b_signed)
            clamp = given.get("clamp", rec.clamp)
            their_clamp = e.clamp if e.record.clamp is None else e.record.clamp
            seen.setdefault((mine, theirs, e.swap, clamp, their_clamp), (rec.name, e.describe()))
    return seen


PAIRS = _pairs()


def test_there_are_cross_isa_pairs():
    isas = {(catalog.find(a).isa, d.split(" ")[0].split(".")[0]) for a, d in PAIRS.values()}
    assert any(x != y for x, y in isas)
    assert "arm.usdot_neon_vec_128" in {e.name for e in catalog.equivalents("sudot4") if e.swap}


@pytest.mark.parametrize("key", list(PAIRS), ids=[f"{a}~{d}" for a, d in PAIRS.values()])
def test_every_listed_pair_computes_the_same(key):
    mine, theirs, swap, clamp, their_clamp = key
    rng = random.Random(str(PAIRS[key]))
    n = 40
    a_words = _words(rng, mine.a_word, n)
    b_words = _words(rng, mine.b_word, n)[::-1]
    accs = _words(rng, mine.acc_bits, n)
    for a, b, acc in zip(a_words, b_words, accs):
        want = _ref(mine, a, b, acc, clamp)
        got = _ref(theirs, b, a, acc, their_clamp) if swap else _ref(theirs, a, b, acc, their_clamp)
        assert got == want, (PAIRS[key], hex(a), hex(b), hex(acc))


def test_the_rule_separates_saturating_from_wrapping():
    # An AMD builtin with clamp as an argument is equivalent to an Arm form only with clamp=False.
    for e in catalog.equivalents("arm.sdot_neon_vec_128"):
        if e.record.clamp is None:
            assert e.clamp is False
