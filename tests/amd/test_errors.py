"""Every documented error of the Python API: type, message naming argument and value."""

from __future__ import annotations

import numpy as np
import pytest

from intdot import amd
from intdot.errors import (
    IntdotError,
    OperandError,
    OperandTypeError,
    UnknownInstruction,
    UnknownTarget,
    UnsupportedOnTarget,
)


@pytest.mark.parametrize("name", ["sdot4", "udot4", "sdot8", "udot8", "sdot2", "udot2"])
@pytest.mark.parametrize("pos,argname", [(0, "src0"), (1, "src1"), (2, "src2")])
@pytest.mark.parametrize(
    "bad,exc,what",
    [
        (2**32, OperandError, "src=4294967296 is out of range"),
        (-(2**31) - 1, OperandError, "src=-2147483649 is out of range"),
        (1.0, OperandTypeError, "src=1.0 has type float"),
        ("7", OperandTypeError, "src='7' has type str"),
        (None, OperandTypeError, "src=None"),
        (np.array([1.5]), OperandTypeError, "dtype float64"),
        (np.array([1, 2, 2**32], dtype=np.int64), OperandError, "holds 4294967296"),
        (np.array([True]), OperandTypeError, "dtype bool"),
    ],
)
def test_bad_operand(name, pos, argname, bad, exc, what):
    args = [1, 1, 1]
    args[pos] = bad
    with pytest.raises(exc) as info:
        getattr(amd, name)(*args, False)
    msg = str(info.value)
    assert argname in msg
    if what.startswith("src="):
        assert what.replace("src=", f"{argname}=") in msg
    else:
        assert what in msg
    assert "expected" in msg or "every element" in msg
    assert isinstance(info.value, IntdotError)


@pytest.mark.parametrize("kw", [{"neg": 1}, {"neg": None}, {"clamp": 1}, {"clamp": "yes"}])
def test_bad_flags(kw):
    flag = next(iter(kw))
    with pytest.raises(OperandTypeError, match=f"{flag}=.* is not a bool; expected True or False"):
        amd.sdot4(1, 2, 3, **kw)


@pytest.mark.parametrize("name", ["sudot4", "sudot8"])
@pytest.mark.parametrize(
    "s0,s1,bad", [(1, False, "src0_neg"), (True, 0, "src1_neg"), ("t", True, "src0_neg"), (None, True, "src0_neg")]
)
def test_bad_sign_flags(name, s0, s1, bad):
    for fn in (getattr(amd, name), amd.builtin(name, profile="llvm")):
        with pytest.raises(OperandTypeError, match=f"{bad}=.* is not a bool"):
            fn(s0, 1, s1, 1, 0, False)


def test_numpy_bools_are_flags():
    assert amd.sudot4(np.True_, 0xFFFFFFFF, np.False_, 0xFFFFFFFF, 0, np.False_) == -1020
    assert amd.sdot4(1, 1, 0, np.bool_(True)) == -1


def test_llvm_clamp_flag_checked():
    with pytest.raises(OperandTypeError, match="clamp=2 is not a bool"):
        amd.builtin("sdot4", profile="llvm")(1, 2, 3, 2)


def test_error_classes_are_builtin_exceptions_too():
    with pytest.raises(ValueError):
        amd.sdot4(2**40, 0, 0)
    with pytest.raises(TypeError):
        amd.sdot4(0.5, 0, 0)
    with pytest.raises(ValueError):
        amd.builtin("vdot4")
    with pytest.raises(ValueError):
        amd.target("gfx0")


@pytest.mark.parametrize("name", ["dot4", "__builtin_amdgcn_dot4", "", None, 4, "__builtin_amdgcn_"])
def test_unknown_builtin(name):
    # (a near miss adds "did you mean ...?" before the list)
    hint = r"( \(did you mean [^)]*\))?"
    expected = rf"is not an AMD dot builtin{hint}; expected one of udot4, udot8, sdot4"
    with pytest.raises(UnknownInstruction, match=expected):
        amd.builtin(name)
    with pytest.raises(UnknownInstruction):
        amd.available(name, "CDNA3")


def test_unknown_module_attribute():
    with pytest.raises(AttributeError):
        amd.sdot16  # noqa: B018
    assert "sdot4" in dir(amd) and "__builtin_amdgcn_sudot8" in dir(amd)


@pytest.mark.parametrize(
    "name,profile,match",
    [
        ("gfx9999", "reference", "gfx908"),
        ("gfx9999", "llvm", "gfx1250"),
        ("RDNA5", "llvm", "RDNA3.5"),
        ("gfx906", "reference", "profile='llvm'"),
        ("gfx1250", "reference", "none of the reference's families"),
        (942, "reference", "not a target name"),
    ],
)
def test_unknown_target(name, profile, match):
    with pytest.raises(UnknownTarget, match=match):
        amd.target(name, profile=profile)
    with pytest.raises(UnknownTarget):
        amd.available("sdot4", name, profile=profile)


@pytest.mark.parametrize("profile", ["gcc", "LLVM", None, ""])
def test_unknown_profile(profile):
    with pytest.raises(UnknownTarget, match="profile=.* is not known; expected one of reference, llvm"):
        amd.builtin("sdot4", profile=profile)
    with pytest.raises(UnknownTarget):
        amd.target("CDNA3", profile=profile)


def test_unsupported_on_target_messages():
    with pytest.raises(UnsupportedOnTarget, match="sdot4 is not available on RDNA2 .* CDNA, CDNA2, CDNA3, CDNA4"):
        amd.target("RDNA2").sdot4(1, 2, 3, False)
    with pytest.raises(UnsupportedOnTarget, match=r"gfx1100 .*dot1-insts"):
        _ = amd.target("gfx1100", profile="llvm").__builtin_amdgcn_sdot4
    with pytest.raises(UnsupportedOnTarget, match="lacks target feature dot8-insts.*gfx1100-gfx1103"):
        amd.target("gfx1030", profile="llvm").builtin("sudot4")
    with pytest.raises(UnsupportedOnTarget, match="RDNA2 .*none of its processors has target feature dot8-insts"):
        amd.target("RDNA2", profile="llvm").sudot8(True, 1, True, 1, 0)
    t = amd.target("gfx900", profile="llvm")
    with pytest.raises(UnsupportedOnTarget, match="it has no dot features"):
        t.udot4  # noqa: B018
    assert not hasattr(t, "udot4") and getattr(t, "udot4", None) is None
    with pytest.raises(AttributeError):
        t.no_such_thing  # noqa: B018
