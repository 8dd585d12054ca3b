"""The ISA layer: what every instruction set's front end is built from; it names no ISA.

- :mod:`~intdot.isa.record`: the catalog's instruction record.
- :mod:`~intdot.isa.registry`: the front ends (one line each) and what each exports.
- :mod:`~intdot.isa.targets`: targets as feature sets; architectures and named processors
  with implied features, ``+x`` / ``+nox``.
- :mod:`~intdot.isa.encoding`, :mod:`~intdot.isa.codec`, :mod:`~intdot.isa.bulk`: parametrised
  encoding families of 32- and 64-bit words, decision-table decode, one-pass decode of arrays.
- :mod:`~intdot.isa.intrinsics`: functions generated from rows (ACLE, x86 intrinsics).

A front end is a folder of tables that hands this layer its own signs, operand grammar and printer.
"""
