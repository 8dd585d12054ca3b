"""The examples in gemm's docstrings run and give what they show (values checked by hand: 8 x 16384 = 131072;
2**31 - 70000 + 131072 wraps to -2147422576; with clamp the second step saturates)."""

import doctest
import importlib

import pytest


@pytest.mark.parametrize("name", ["intdot.gemm.api"])
def test_module_doctests(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0 and result.attempted > 0
