"""The contract between the Arm form table and everything that reads it.

``Form`` is one row of the instruction-form table (``intdot.arm.forms``);
``Insn`` is one decoded instruction: a form plus its operand values.  The
encoder, decoder, printer, parser and executor all work on these.

Operand names in ``Insn.ops`` are architectural values, already unscaled
(``zn`` is the register number, not the encoded Zn field divided by 2):

=====================  ===================================================
semantics (Form.kind)  ops
=====================  ===================================================
``neon_dot_elem``      ``vd, vn, vm, index, q`` (q: 0 = 64-bit, 1 = 128-bit)
``sve_dot_indexed``    ``zda, zn, zm, index``
``sme2_dot_indexed``   ``wv`` (8..11), ``off`` (0..7), ``zn`` (first of the list), ``zm``, ``index``
``sme2_dot_single``    ``wv``, ``off``, ``zn`` (first of the list, wraps mod 32), ``zm``
=====================  ===================================================

SME2 forms also carry ``Form.nvec`` (2 or 4 vectors).  ``Form.a_signed`` and
``Form.b_signed`` give the lane signedness of the first and second source
(SUDOT: signed x unsigned), so SDOT/UDOT/USDOT are further rows, not code.
"""

from dataclasses import dataclass, field
from typing import Any, Mapping

SEMANTIC_KINDS = ("neon_dot_elem", "sve_dot_indexed", "sme2_dot_indexed", "sme2_dot_single")


@dataclass(frozen=True)
class Form:
    """One row of the form table: what the executor needs to know.

    ``intdot.arm.forms`` builds these and adds the encoding/syntax details in
    ``layout`` (fixed bits, fields, template), which the encoder, decoder,
    printer and parser read; the executor uses it only to refuse operands
    the row cannot encode (a hand-made Form without a layout skips that check).
    """

    name: str  # unique row name
    mnemonic: str  # "sudot"
    kind: str  # one of SEMANTIC_KINDS
    a_signed: bool  # lanes of the first source (Vn / Zn)
    b_signed: bool  # lanes of the second source (Vm / Zm)
    nvec: int = 1  # SME2: number of vectors in the group (2 or 4)
    # architectural features as LLVM's tests write them ("+" all of, "|" any of):
    # "i8mm", "i8mm+(sve|sme)", "sme2"
    feature: str = ""
    layout: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Insn:
    """One instruction: a form and its operand values (see the table above)."""

    form: Form
    ops: Mapping[str, int]

    def __getitem__(self, key: str) -> int:
        return self.ops[key]

    @property
    def word(self) -> int:
        """The 32-bit encoding (``intdot.arm.asm.encode``)."""
        from .asm import encode

        return encode(self)

    @property
    def text(self) -> str:
        """LLVM's canonical assembly text (``intdot.arm.asm.format_insn``)."""
        from .asm import format_insn

        return format_insn(self)

    def __str__(self) -> str:
        return self.text
