"""Every example in the package's docstrings and in docs/*.md runs and prints what it shows. Both lists are
found by walking (every module of the package, every page of docs/), so a new module or page is checked without
anyone listing it. The console sessions of the pages (``$ intdot ...``) are run by the tests of each part."""

from __future__ import annotations

import doctest
import importlib
import pathlib
import pkgutil

import pytest

import intdot

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
DOCS = pathlib.Path(__file__).resolve().parents[1] / "docs"


def _modules() -> list[str]:
    found = (m.name for m in pkgutil.walk_packages(intdot.__path__, "intdot.") if not m.name.endswith("__main__"))
    return ["intdot", *sorted(found)]


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples(name):
    try:
        module = importlib.import_module(name)
    except ImportError as exc:  # an optional extra (numba, torch, triton) that this machine lacks
        pytest.skip(f"{name} needs an optional dependency: {exc}")
    result = doctest.testmod(module, optionflags=FLAGS, extraglobs={"__name__": name})
    assert result.failed == 0


PAGES = sorted(p.name for p in DOCS.glob("*.md") if ">>>" in p.read_text())


def test_pages_with_examples_are_found():
    assert {"amd.md", "arm.md", "catalog.md", "differences.md", "gemm.md"} <= set(PAGES)


@pytest.mark.parametrize("page", PAGES)
def test_page_examples(page):
    # A closing fence right after an example's output would be read as part of that output.
    text = (DOCS / page).read_text().replace("\n```", "\n\n```")
    test = doctest.DocTestParser().get_doctest(text, {}, page, str(DOCS / page), 0)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    runner.run(test)
    assert test.examples and runner.failures == 0
