"""CUDA's ``__dp4a``/``__dp2a_lo``/``__dp2a_hi`` overload choice against a real C++ compiler's.

intdot picks an overload from the NumPy types of the arguments; clang (the AMDGPU oracle, which CI installs)
is given the four overloads of each function as ``sm_61_intrinsics.h`` declares them and judges, for every
combination of argument types, whether the call is ambiguous and which overload it takes: one
``static_assert`` a combination, stating what intdot did.
"""

from __future__ import annotations

import itertools
import subprocess

import numpy as np
import pytest

from intdot import nvidia
from intdot.errors import OperandTypeError

from ..oracles import find_tool, missing

# The C type each NumPy scalar type is on an LP64 machine; a Python int is an int.
C_TYPES = {
    np.int8: "signed char",
    np.uint8: "unsigned char",
    np.int16: "short",
    np.uint16: "unsigned short",
    np.int32: "int",
    np.uint32: "unsigned int",
    np.int64: "long",
    np.uint64: "unsigned long",
    int: "int",
}
NAMES = {"__dp4a": ("char4", "uchar4"), "__dp2a_lo": ("short2", "ushort2"), "__dp2a_hi": ("short2", "ushort2")}

PRELUDE = """
struct char4 { signed char x, y, z, w; };  struct uchar4 { unsigned char x, y, z, w; };
struct short2 { short x, y; };  struct ushort2 { unsigned short x, y; };
template <class T, class U> constexpr bool same = false;
template <class T> constexpr bool same<T, T> = true;
"""


def _declarations(name: str, vec: str, uvec: str) -> str:
    return (
        f"int {name}(int, int, int); unsigned int {name}(unsigned int, unsigned int, unsigned int);\n"
        f"int {name}({vec}, char4, int); unsigned int {name}({uvec}, uchar4, unsigned int);\n"
        # 0: ambiguous (or no overload), 1: the int overload, 2: the unsigned one.
        f"template <class A, class B, class C> constexpr int pick_{name}() {{\n"
        f"  if constexpr (requires {{ {name}(A{{}}, B{{}}, C{{}}); }})\n"
        f"    return same<decltype({name}(A{{}}, B{{}}, C{{}})), int> ? 1 : 2;\n"
        f"  else return 0;\n}}\n"
    )


def _all_ones(t):
    # A value whose low byte (and half) is all ones: the int overload reads lane 0 as -1, the unsigned one as
    # 255 (65535), so the result says which overload ran.
    if t is int:
        return -1
    return t(-1) if np.dtype(t).kind == "i" else t(min(np.iinfo(t).max, 0xFFFFFFFF))


def _intdot_pick(name: str, a, b, c) -> int:
    try:
        out = int(getattr(nvidia, name)(a, b, c))
    except OperandTypeError as exc:
        assert "ambiguous" in str(exc)
        return 0
    return 1 if out < 256 else 2


def test_overloads_as_clang_resolves_them(tmp_path):
    clang = find_tool("INTDOT_CLANG", "clang-19", "clang")
    if clang is None:
        missing("clang (clang-19)")
    lines = [PRELUDE]
    for name, (vec, uvec) in NAMES.items():
        lines.append(_declarations(name, vec, uvec))
        for ta, tb, tc in itertools.product(C_TYPES, repeat=3):
            want = _intdot_pick(name, _all_ones(ta), _all_ones(tb), tc(0))
            args = ", ".join(C_TYPES[t] for t in (ta, tb, tc))
            what = ", ".join(getattr(t, "__name__", str(t)) for t in (ta, tb, tc))
            lines.append(f'static_assert(pick_{name}<{args}>() == {want}, "{name}({what}): intdot says {want}");')
    src = tmp_path / "overloads.cpp"
    src.write_text("\n".join(lines) + "\n")
    run = subprocess.run(
        [clang, "-x", "c++", "-std=c++20", "-fsyntax-only", "-ferror-limit=20", str(src)],
        capture_output=True,
        text=True,
    )
    failed = [line for line in run.stderr.splitlines() if "intdot says" in line]
    assert run.returncode == 0, "\n".join(failed) or run.stderr[-3000:]


@pytest.mark.parametrize("name", list(NAMES))
def test_vectors_take_the_vector_overloads(name):
    # A char4 (an int8 array of 4 lanes) converts to nothing else: only the vector overload of its sign fits,
    # whatever c is; a 0-d int8 value is a signed char, promoted to int.
    a_dtype = np.int8 if name == "__dp4a" else np.int16
    n = 4 if name == "__dp4a" else 2
    f = getattr(nvidia, name)
    a, b = np.full(n, -1, a_dtype), np.full(4, -1, np.int8)
    for c in (0, np.uint32(0), np.int64(0)):
        assert int(f(a, b, c)) == (4 if name == "__dp4a" else 2)
        assert int(f(a.view(a_dtype.__name__.replace("int", "uint")), b.view(np.uint8), c)) > 255
    # 0-d: words -1 (0xFFFFFFFF) through the int overload, not a char4 of the wrong length.
    assert int(f(a_dtype(-1), np.int8(-1), 0)) == (4 if name == "__dp4a" else 2)
