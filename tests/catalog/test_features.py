"""The feature-expression evaluator against a tiny truth-table model written here.

The model builds expressions as trees, renders them as text the way the
grammar says ('+' all of, '|' any of, '+' binding tighter), and evaluates the
trees itself; intdot only ever sees the text.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from intdot.core.errors import IntdotError
from intdot.core.features import FeatureExpressionError, evaluate, missing, normalize, parse

NAMES = ["dotprod", "i8mm", "sve", "sme", "sme2", "sme-i16i64", "dot7-insts", "sve2p1", "avx512vnni", "v8.2a"]


# --- the model: trees are a name, ("all", [...]) or ("any", [...]) -----------------------------------------------


def model_eval(tree, have) -> bool:
    if isinstance(tree, str):
        return tree in have
    op, kids = tree
    results = [model_eval(k, have) for k in kids]
    return all(results) if op == "all" else any(results)


def render(tree, parent=None) -> str:
    if isinstance(tree, str):
        return tree
    op, kids = tree
    text = ("+" if op == "all" else "|").join(render(k, op) for k in kids)
    # '|' inside '+' needs parentheses; anything else is safe to parenthesise too.
    return f"({text})" if parent == "all" and op == "any" else text


def render_spaced_and_bracketed(tree) -> str:
    if isinstance(tree, str):
        return tree.upper() if len(tree) % 2 else tree
    op, kids = tree
    return "( " + f" {'+' if op == 'all' else '|'} ".join(render_spaced_and_bracketed(k) for k in kids) + " )"


trees = st.recursive(
    st.sampled_from(NAMES),
    lambda sub: st.tuples(st.sampled_from(["all", "any"]), st.lists(sub, min_size=2, max_size=3)),
    max_leaves=8,
)
feature_sets = st.sets(st.sampled_from(NAMES))


@given(trees, feature_sets)
@settings(max_examples=400, deadline=None)
def test_evaluate_agrees_with_the_truth_table_model(tree, have):
    assert evaluate(render(tree), have) == model_eval(tree, have)
    # Redundant parentheses, spaces and upper case do not change the meaning.
    assert evaluate(render_spaced_and_bracketed(tree), have) == model_eval(tree, have)


@given(trees, feature_sets)
@settings(max_examples=300, deadline=None)
def test_missing_is_what_the_target_lacks(tree, have):
    text = render(tree)
    lack = missing(text, have)
    if model_eval(tree, have):
        assert lack is None
        return
    assert lack is not None
    # Adding every feature the answer mentions satisfies the expression; no plain name in it is one the target has.
    for part in lack.value if lack.op == "all" else (lack,):
        assert part.op != "name" or part.value not in have
    assert model_eval(tree, set(have) | set(lack.names))
    # The answer is itself an expression the evaluator reads back.
    assert parse(str(lack)) == lack


@given(trees)
@settings(max_examples=200, deadline=None)
def test_text_round_trips(tree):
    e = parse(render(tree))
    assert parse(str(e)) == e
    for have in itertools.islice(itertools.product([0, 1], repeat=len(NAMES)), 0, 1024, 37):
        s = {n for n, bit in zip(NAMES, have) if bit}
        assert e.evaluate(s) == model_eval(tree, s)


def test_precedence_and_examples():
    assert evaluate("a+b|c", {"c"}) is True  # (a+b)|c
    assert evaluate("a+(b|c)", {"c"}) is False
    assert evaluate("i8mm+(sve|sme)", {"i8mm", "sme"}) is True
    assert evaluate("i8mm+(sve|sme)", {"sve", "sme"}) is False
    assert evaluate("sme2+sme-i16i64", {"sme2"}) is False
    assert evaluate("dot7-insts", ["DOT7-INSTS"]) is True
    assert evaluate("sve2p1|sme2", "sme2") is True
    assert str(missing("i8mm+(sve|sme)", {"sve"})) == "i8mm"
    assert str(missing("i8mm+(sve|sme)", {"i8mm"})) == "sve|sme"
    assert str(missing("sme2+sme-i16i64", {"sme"})) == "sme2+sme-i16i64"
    assert missing("dotprod", {"dotprod"}) is None
    assert sorted(parse("a+(b|c)+a").names) == ["a", "b", "c"]
    assert normalize("SVE+sme, i8mm") == frozenset({"sve", "sme", "i8mm"})


def test_parsing_is_cached():
    assert parse("i8mm+(sve|sme)") is parse("i8mm+(sve|sme)")


@pytest.mark.parametrize(
    "text, column, words",
    [
        ("", 1, "expected a feature name"),
        ("   ", 4, "expected a feature name"),
        ("a+", 3, "found the end"),
        ("+a", 1, "found '+'"),
        ("a||b", 3, "found '|'"),
        ("(a|b", 5, "expected ')'"),
        ("a|b)", 4, "expected '+', '|' or the end"),
        ("a b", 3, "found 'b'"),
        ("i8mm+(sve|$sme)", 11, "unexpected character '$'"),
        ("()", 2, "found ')'"),
        ("a,b", 2, "unexpected character ','"),
        ("-sve", 1, "unexpected character '-'"),
    ],
)
def test_syntax_errors_name_the_column(text, column, words):
    with pytest.raises(FeatureExpressionError) as info:
        parse(text)
    err = info.value
    assert err.column == column and words in str(err)
    assert isinstance(err, IntdotError) and isinstance(err, ValueError)
    # The caret sits under the column on the last line of the message.
    *_, shown, caret = str(err).split("\n")
    assert caret.index("^") - 2 == column - 1 and shown[2:] == text


@given(st.text(alphabet="ab+|() $", max_size=12))
@settings(max_examples=300, deadline=None)
def test_any_text_parses_or_fails_cleanly(text):
    try:
        e = parse(text)
    except FeatureExpressionError as err:
        assert 1 <= err.column <= len(text) + 1
    else:
        assert parse(str(e)) == e


def test_non_string_is_a_clear_error():
    with pytest.raises(FeatureExpressionError, match="expected a string"):
        parse(42)
