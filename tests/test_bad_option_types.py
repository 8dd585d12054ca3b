"""Option arguments of the wrong type are intdot's errors, naming the argument.

A check such as ``errors not in ("raise", "mark")``, ``wave_size not in sizes`` or ``if swap:`` given a NumPy
array raised NumPy's "truth value of an array is ambiguous" ValueError; a list where a str belongs raised
"unhashable type"; ``str()`` of a 5000-digit int raised Python's limit on printing ints.  Each must be an
:class:`~intdot.errors.OperandTypeError` (or another IntdotError) whose message names the argument.
"""

from __future__ import annotations

import numpy as np
import pytest

import intdot
from intdot import amd, amdgpu, arm, catalog, gemm, nvidia
from intdot.amdgpu.objects import CodeObject
from intdot.arm import bulk as arm_bulk
from intdot.errors import IntdotError, OperandError, OperandTypeError
from intdot.nvidia import isa as nvidia_isa

ARRAYS = {
    "int array": np.array([1, 2]),
    "bool array": np.array([True, False]),
    "str array": np.array(["raise", "mark"]),
    "one-element array": np.array([32]),
}
WRONG = {**ARRAYS, "list": [1], "float": 32.0, "object": object(), "bytes": b"raise"}

# (what, the argument the message must name, call with the bad value)
CASES = [
    ("amdgpu.disassemble", "errors", lambda v: amdgpu.disassemble(b"", "gfx1100", errors=v)),
    ("amdgpu.disassemble_array", "errors", lambda v: amdgpu.disassemble_array([0], "gfx1100", errors=v)),
    ("arm.disassemble", "errors", lambda v: arm.disassemble([0], errors=v)),
    ("arm.bulk.disassemble_array", "errors", lambda v: arm_bulk.disassemble_array(np.zeros(1, np.uint32), errors=v)),
    ("amdgpu.Wave", "wave_size", lambda v: amdgpu.Wave("gfx1100", wave_size=v)),
    ("catalog.equivalents", "swap", lambda v: catalog.equivalents("sdot4", swap=v)),
    ("catalog.require_any", "among", lambda v: catalog.require_any("sdot4", "gfx942", among=v)),
    ("gemm.resolve", "a_bits", lambda v: gemm.resolve("sdot", a_bits=v)),
    ("nvidia.overload", "spelling", lambda v: nvidia.overload(v)),
    ("nvidia isa.find", "name", lambda v: nvidia_isa.find(v)),
    ("amd Builtin.c_signature", "profile", lambda v: amd.lookup("sdot4").c_signature(v)),
    ("amd Builtin.spec", "src0_signed", lambda v: amd.lookup("sudot4").spec(v, True)),
    ("amdgpu CodeObject.listing", "only_dot", lambda v: CodeObject("gfx1100", ()).listing(only_dot=v)),
]


@pytest.mark.parametrize("value", WRONG, ids=list(WRONG))
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_wrong_types_are_intdot_errors_naming_the_argument(case, value):
    _, name, call = case
    if name == "among" and value == "list":
        pytest.skip("a list is what among takes (its element is checked below)")
    with pytest.raises(IntdotError) as info:
        call(WRONG[value])
    assert name in str(info.value), str(info.value)
    assert isinstance(info.value, (OperandTypeError, OperandError)) or "profile" in name, type(info.value)


@pytest.mark.parametrize("value", ARRAYS, ids=list(ARRAYS))
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_arrays_are_type_errors(case, value):
    """An array is never a str, an int or a bool: a TypeError, so that no caller mistakes it for a bad value."""
    _, name, call = case
    with pytest.raises(IntdotError) as info:
        call(ARRAYS[value])
    if name != "profile":  # a profile's error is UnknownTarget, as for any other profile that is not known
        assert isinstance(info.value, TypeError), type(info.value)
    assert "truth value" not in str(info.value)


def test_huge_int_names_are_short_errors():
    with pytest.raises(OperandTypeError, match="^name=<an integer of 16610 bits>"):
        nvidia_isa.find(10**5000)
    with pytest.raises(OperandTypeError, match="^spelling=<an integer of 16610 bits>"):
        nvidia.overload(10**5000)


def test_among_must_hold_records_or_names():
    with pytest.raises(OperandTypeError, match="^among holds 1, an int"):
        catalog.require_any("sdot4", "gfx942", among=[1])
    with pytest.raises(OperandError, match="^among=.* is empty"):
        catalog.require_any("sdot4", "gfx942", among=())
    with pytest.raises(OperandTypeError, match="^among=5 is an int"):
        catalog.require_any("sdot4", "gfx942", among=5)
    recs = catalog.find_all("sdot")
    assert catalog.require_any("sdot", "armv8.6-a+sve", among=list(recs[:3]))


def test_good_values_still_pass():
    """NumPy scalars of the right kind stay accepted, as elsewhere."""
    assert amdgpu.Wave("gfx1100", wave_size=np.int64(64)).wave_size == 64
    assert type(amdgpu.Wave("gfx1100", wave_size=np.int64(64)).wave_size) is int
    assert gemm.resolve("sdot", a_bits=np.int16(8)).name == gemm.resolve("sdot", a_bits=8).name
    assert catalog.equivalents("sdot4", swap=np.bool_(False)) == catalog.equivalents("sdot4", swap=False)
    assert amd.lookup("sudot4").spec(np.bool_(True), False) == amd.lookup("sudot4").spec(True, False)
    assert nvidia_isa.find(np.str_("dp4a.u32.s32")).name == "nvidia.dp4a.u32.s32"
    assert arm.disassemble([0], errors="mark").tolist() == [".inst 0x00000000"]
    assert intdot.amdgpu.disassemble(b"", "gfx1100", errors="mark") == ""
