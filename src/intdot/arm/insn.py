"""The contract between the Arm form table and everything that reads it:
``Form`` (one row), ``Insn`` (a form plus its operand values) and the
semantic kinds with their operand names.  They live in
:mod:`intdot.arm.records`, the bottom of the package; this module is their
public name.
"""

from .records import SEMANTIC_KINDS, Form, Insn

__all__ = ["SEMANTIC_KINDS", "Form", "Insn"]
