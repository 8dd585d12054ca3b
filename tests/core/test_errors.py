"""Bad input to the core is a typed error whose message names the argument."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from intdot.core import DotSpec, dot, dot_function, pack, unpack
from intdot.errors import IntdotError, OperandError, OperandTypeError

f = dot_function(DotSpec.packed32(8, True, True, True), ("src0", "src1", "src2"))


@pytest.mark.parametrize("bad,name", [(2**32, "src0"), (-(2**31) - 1, "src0")])
def test_out_of_range(bad, name):
    with pytest.raises(OperandError, match=rf"{name}={bad}.*\[-2\*\*31, 2\*\*32\)"):
        f(bad, 0, 0)


@pytest.mark.parametrize("bad", [1.0, "1", None, b"\x01", 1j])
def test_wrong_type(bad):
    with pytest.raises(OperandTypeError, match="src1"):
        f(0, bad, 0)


def test_errors_are_value_and_type_errors():
    with pytest.raises(ValueError):
        f(0, 0, 2**40)
    with pytest.raises(TypeError):
        f(0, 0, 0.5)
    with pytest.raises(IntdotError):
        f(0, 0, 0, "yes")


@pytest.mark.parametrize("flag", ["neg", "clamp"])
@pytest.mark.parametrize("bad", [1, 0, "true", None, np.array(True)])
def test_flags_must_be_bool(flag, bad):
    kwargs = {"neg": False, "clamp": False, flag: bad}
    with pytest.raises(OperandTypeError, match=flag):
        f(0, 0, 0, kwargs["neg"], kwargs["clamp"])


def test_numpy_bool_flag_is_accepted():
    assert f(0x01010101, 0x01010101, 0, np.bool_(True)) == -4


def test_array_errors():
    with pytest.raises(OperandTypeError, match="src0 has dtype float64"):
        f(np.zeros(3), 0, 0)
    with pytest.raises(OperandTypeError, match="src2 has dtype bool"):
        f(0, np.zeros(3, int), np.zeros(3, bool))
    with pytest.raises(OperandError, match="src1 holds 4294967296"):
        f(0, np.array([1, 2**32]), 0)
    with pytest.raises(OperandError, match="src0"):
        f([0, 2**70], 0, 0)
    with pytest.raises(ValueError):
        f(np.zeros(3, np.int32), np.zeros(4, np.int32), 0)


def test_numpy_scalars_are_scalars():
    r = f(np.int64(0x01010101), np.uint32(0x01010101), np.int8(-1))
    assert type(r) is int and r == 3


def test_bad_spec():
    with pytest.raises(OperandError, match="width=5"):
        dot(0, 0, 0, width=5)
    with pytest.raises(OperandTypeError, match="a_signed"):
        dot(0, 0, 0, a_signed=1)


def test_pack_errors():
    with pytest.raises(OperandError, match="last axis must hold 4 lanes"):
        pack([1, 2, 3], 8)
    with pytest.raises(OperandError, match="256"):
        pack([1, 2, 3, 256], 8)
    with pytest.raises(OperandTypeError):
        unpack(1.5, 8)


def test_core_names_load_lazily_and_stay_what_they_are():
    """intdot.core loads its modules on first use (the command line imports core.errors without NumPy); every
    public name is still there, and `dot` stays the function once every submodule is loaded."""
    code = (
        "import sys, importlib, pkgutil, intdot.core as c\n"
        "assert 'numpy' not in sys.modules\n"
        "c.OperandError\n"
        "assert 'numpy' not in sys.modules\n"
        "for m in pkgutil.iter_modules(c.__path__):\n"
        "    importlib.import_module('intdot.core.' + m.name)\n"
        "import intdot\n"
        "assert callable(c.dot) and c.dot is intdot.dot, c.dot\n"
        "for name in c.__all__:\n"
        "    getattr(c, name)\n"
        "from intdot.core import dot, OperandError\n"
        "assert dot(0x01010101, 0x01010101, 0, a_width=8, b_width=8) == 4\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
