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
