"""The examples in the core's and the package's docstrings run and give what they show."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["intdot", "intdot.core.dot", "intdot.core.lanes", "intdot.core.values", "intdot.core.errors",
           "intdot.core.spec"]


@pytest.mark.parametrize("name", MODULES)
def test_module_doctests(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
    assert name == "intdot.core.errors" or result.attempted > 0
