"""Every module's docstring examples run and print what they show: a walk over the whole package, so a new
module's examples are checked without anyone listing it."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import intdot


def _modules() -> list[str]:
    found = (m.name for m in pkgutil.walk_packages(intdot.__path__, "intdot.") if not m.name.endswith("__main__"))
    return ["intdot", *sorted(found)]


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples(name):
    try:
        module = importlib.import_module(name)
    except ImportError as exc:  # an optional extra (numba, torch, triton) that this machine lacks
        pytest.skip(f"{name} needs an optional dependency: {exc}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
