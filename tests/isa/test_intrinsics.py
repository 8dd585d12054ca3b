"""The ISA layer's intrinsic generator on a toy table: signatures, docstrings, converters, keywords, errors."""

from __future__ import annotations

import inspect

import pytest

from intdot.core.errors import OperandError, OperandTypeError
from intdot.isa.intrinsics import Intrinsics, parse_prototype


def _positive(v, name, func):
    if not isinstance(v, int) or v < 0:
        raise OperandError(f"{func}: {name}={v!r}; expected a non-negative int")
    return v * 10


def test_prototypes():
    assert parse_prototype("unsigned int g(const int a, uint64_t b)") == (
        "unsigned int",
        "g",
        (("const int", "a"), ("uint64_t", "b")),
    )
    assert parse_prototype("int h()") == ("int", "h", ())
    with pytest.raises(ValueError):
        parse_prototype("not a prototype")
    with pytest.raises(ValueError):
        parse_prototype("int f(int)")


def test_define_makes_a_checked_function():
    table = Intrinsics("toy.module", converters={"nat": _positive})
    f = table.define(
        "nat toy(nat x, int y)", lambda x, y, *, z=None: (x, y, z), summary="Toy.", keywords=(("z", None),)
    )
    assert str(inspect.signature(f)) == "(x, y, *, z=None)"
    assert f.__name__ == "toy" and f.__module__ == "toy.module" and f.prototype == "nat toy(nat x, int y)"
    assert f.__doc__ == "``nat toy(nat x, int y)``\n\nToy.\n"
    assert f(1, "y") == (10, "y", None) and f(y=2, x=3, z=4) == (30, 2, 4)
    with pytest.raises(OperandError, match="toy: x=-1"):
        f(-1, 0)
    with pytest.raises(OperandTypeError, match=r"unexpected keyword argument 'w'; expected nat toy\(nat x, int y\)"):
        f(1, 2, w=3)
    with pytest.raises(OperandTypeError, match="too many positional arguments"):
        f(1, 2, 3)
    assert list(table) == ["toy"] and len(table) == 1 and table.functions["toy"] is f
    with pytest.raises(ValueError, match="defined twice"):
        table.define("int toy(int a)", lambda a: a)


def test_row_label_in_the_docstring():
    class Row:
        label = "vpdpbusd, merge-masked"

    f = Intrinsics("m").define("int g(int a)", lambda a: a, row=Row(), note="Requires: x.")
    assert f.__doc__.splitlines()[0] == "``int g(int a)`` (vpdpbusd, merge-masked)"
    assert f.__doc__.rstrip().endswith("Requires: x.")
