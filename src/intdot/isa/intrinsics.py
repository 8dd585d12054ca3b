"""Intrinsic functions generated from table rows: signature, docstring and argument checking.

A front end describes each intrinsic by its C prototype, as the vendor's header declares it,
and hands this module an implementation that takes the arguments in the prototype's order.
:func:`define` makes the public function: its :class:`inspect.Signature` has the prototype's
parameter names (so ``help()`` and IDEs show them, and keywords work), its docstring starts
with the prototype, a bad call (a missing or unknown argument) is an
:class:`~intdot.errors.OperandTypeError` that quotes the prototype, and each argument goes
through the converter registered for its C type before the implementation sees it.  The
module names no ISA: the C types and what they mean are the front end's.

>>> import inspect
>>> from intdot.isa.intrinsics import Intrinsics, parse_prototype
>>> parse_prototype("int32x4_t vdotq_lane_s32(int32x4_t r, int8x16_t a, int8x8_t b, const int lane)")
('int32x4_t', 'vdotq_lane_s32', (('int32x4_t', 'r'), ('int8x16_t', 'a'), ('int8x8_t', 'b'), ('const int', 'lane')))
>>> toy = Intrinsics("toy", converters={"int": lambda v, name, func: int(v)})
>>> add = toy.define("int toy_add(int x, int y)", lambda x, y: x + y, summary="x + y.")
>>> add(2, y=3), str(inspect.signature(add)), add.__doc__.splitlines()[0]
(5, '(x, y)', '``int toy_add(int x, int y)``')
>>> add(1)
Traceback (most recent call last):
...
intdot.core.errors.OperandTypeError: toy_add: missing a required argument: 'y'; expected int toy_add(int x, int y)
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ..core.errors import OperandTypeError

__all__ = ["Intrinsics", "parse_prototype"]

_PROTO = re.compile(r"^\s*(?P<ret>[\w\s\*]+?)\s*\b(?P<name>\w+)\s*\((?P<params>.*)\)\s*$")


def parse_prototype(prototype: str) -> tuple[str, str, tuple[tuple[str, str], ...]]:
    """``(result type, name, ((C type, parameter name), ...))`` of a C prototype; a table bug raises."""
    m = _PROTO.match(prototype)
    if m is None:
        raise ValueError(f"not a C prototype: {prototype!r}")  # a table bug, not user input
    params = []
    for part in filter(None, (p.strip() for p in m["params"].split(","))):
        ctype, _, pname = part.rpartition(" ")
        if not ctype or not pname.isidentifier():
            raise ValueError(f"parameter {part!r} of {prototype!r} is not 'type name'")
        params.append((" ".join(ctype.split()), pname))
    return " ".join(m["ret"].split()), m["name"], tuple(params)


@dataclass(eq=False)
class Intrinsics:
    """The generated intrinsics of one front end (one header's worth, say).

    ``module`` is the module the functions claim (their ``__module__``); ``converters`` maps a C
    parameter type to ``f(value, name, func) -> value``, which checks one argument and returns what
    the implementation receives (a type without one passes the value as given).  :attr:`functions`
    and :attr:`rows` hold, by name, each generated function and the row it was made from.
    """

    module: str
    converters: Mapping[str, Callable] = field(default_factory=dict)
    functions: dict = field(default_factory=dict)
    rows: dict = field(default_factory=dict)

    def define(
        self,
        prototype: str,
        impl: Callable,
        *,
        summary: str = "",
        row=None,
        keywords: tuple[tuple[str, object], ...] = (),
        note: str = "",
    ) -> Callable:
        """Generate the function of ``prototype``, which calls ``impl`` with the converted arguments.

        ``keywords`` are extra keyword-only parameters ``(name, default)`` that are not C arguments
        (ACLE's SME2 ``za=`` / ``state=``); they reach ``impl`` as keywords, unconverted.  ``note``
        follows the summary in the docstring.
        """
        _, name, params = parse_prototype(prototype)
        if name in self.functions:
            raise ValueError(f"intrinsic {name} is defined twice")  # a table bug
        P = inspect.Parameter
        signature = inspect.Signature(
            [P(p, P.POSITIONAL_OR_KEYWORD) for _, p in params] + [P(k, P.KEYWORD_ONLY, default=d) for k, d in keywords]
        )
        steps = tuple((p, self.converters.get(ctype)) for ctype, p in params)
        extra = tuple(k for k, _ in keywords)

        def call(*args, **kwargs):
            try:
                bound = signature.bind(*args, **kwargs)
            except TypeError as exc:
                raise OperandTypeError(f"{name}: {exc}; expected {prototype}") from None
            given = bound.arguments
            values = [given[p] if conv is None else conv(given[p], p, name) for p, conv in steps]
            return impl(*values, **{k: given[k] for k in extra if k in given})

        call.__name__ = call.__qualname__ = name
        call.__module__ = self.module
        call.__signature__ = signature
        call.__doc__ = f"``{prototype}``" + (f" ({row_label(row)})" if row_label(row) else "") + "\n\n"
        call.__doc__ += "\n\n".join(t for t in (summary, note) if t) + "\n"
        call.prototype = prototype
        self.functions[name] = call
        self.rows[name] = row
        return call

    def __iter__(self):
        return iter(self.functions)

    def __len__(self) -> int:
        return len(self.functions)


def row_label(row) -> str:
    """What a docstring says the intrinsic compiles to: the row's ``label`` (or ``form``), if it has one."""
    for attr in ("label", "form"):
        value = getattr(row, attr, None)
        if isinstance(value, str):
            return value
    return ""
