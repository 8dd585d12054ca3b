"""The runnable examples in the docstrings of the assembler modules."""

import doctest
import importlib

import pytest

MODULES = ["intdot.arm.forms", "intdot.arm.asm", "intdot.arm.syntax", "intdot.arm.bulk"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
