"""C++ (and Rust, D) symbol names made readable for ``intdot disasm --demangle``, as ``llvm-objdump -C`` shows them.

The demangling itself is LLVM's, run as ``llvm-cxxfilt`` (or GNU ``c++filt``
where no LLVM one is installed; ``INTDOT_CXXFILT`` names another): writing
an Itanium demangler again would be a second, less tested copy of one.
llvm-objdump demangles a whole symbol name or leaves it as it is, so names
holding characters no mangled name can hold (``realloc@plt``,
``memcpy@@GLIBC_2.17``) are left alone, as objdump leaves them; a name with
one leading underscore too many (``__Z3fooi``, a Mach-O habit) is tried
without it, as objdump tries it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess

from ..core.errors import OperandError, quote

ENV = "INTDOT_CXXFILT"
TOOLS = ("llvm-cxxfilt", *(f"llvm-cxxfilt-{v}" for v in range(22, 13, -1)), "c++filt")
# Characters of Itanium, Rust and D mangled names: llvm-cxxfilt would split a line anywhere else.
_MANGLED = re.compile(r"[A-Za-z0-9_.$]+")


def tool() -> str:
    """The demangler to run, or an :class:`OperandError` that says how to get one."""
    env = os.environ.get(ENV)
    if env:
        found = shutil.which(env)
        if found is None:
            raise OperandError(f"{ENV}={quote(env)} is not an executable; expected llvm-cxxfilt or c++filt")
        return found
    for name in TOOLS:
        found = shutil.which(name)
        if found:
            return found
    raise OperandError(
        "--demangle needs a C++ demangler: install LLVM's llvm-cxxfilt (the one llvm-objdump -C uses; "
        f"e.g. apt install llvm) or GNU c++filt (binutils), or name one with {ENV}=PATH"
    )


def demangle(names) -> dict[str, str]:
    """Each name that demangles -> its demangled form (names that do not are left out)."""
    candidates = sorted({n for n in names if n.startswith("_") and _MANGLED.fullmatch(n)})
    if not candidates:
        return {}
    # objdump's demangler tries the name, then the name without its first underscore.
    queries = candidates + [n[1:] for n in candidates if n.startswith("__")]
    try:
        done = subprocess.run(
            [tool()], input="\n".join(queries) + "\n", capture_output=True, text=True, check=True
        ).stdout.split("\n")
    except (OSError, subprocess.CalledProcessError) as exc:
        raise OperandError(f"--demangle: the demangler failed ({exc})") from None
    answers = dict(zip(queries, done))
    out = {}
    for n in candidates:
        for q in (n, n[1:]) if n.startswith("__") else (n,):
            if answers.get(q, q) != q:
                out[n] = answers[q]
                break
    return out
