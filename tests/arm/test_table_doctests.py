"""The runnable examples in the docstrings of the table's modules that
test_asm_doctest.py does not list (the families, the codec, the immediates,
the package itself); each example's output is written out, so none can pass
by printing whatever the code returns."""

import doctest
import importlib

import pytest

MODULES = ["intdot.arm", "intdot.arm.families", "intdot.arm.codec", "intdot.arm.immediates"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
