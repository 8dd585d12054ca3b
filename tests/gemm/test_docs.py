"""docs/gemm.md and docs/demo.md: their Python examples run and print what they show."""

import doctest
import pathlib

import pytest

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs"


@pytest.mark.parametrize("doc", ["gemm.md", "demo.md"])
def test_markdown_examples(doc):
    text = (DOCS / doc).read_text()
    if ">>>" not in text:
        pytest.skip(f"docs/{doc} has no Python examples")
    # A closing fence right after an example's output would be read as part of that output.
    text = text.replace("\n```", "\n\n```")
    test = doctest.DocTestParser().get_doctest(text, {}, doc, doc, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    result = runner.run(test)
    assert result.attempted > 0 and result.failed == 0
