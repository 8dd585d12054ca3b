"""The console script's entry point: Ctrl-C means status 130 from the moment this module runs.

The command line's own handling (intdot.cli.main) starts once intdot.cli is imported, and that import brings in
NumPy, which turns an interrupt during its import into an ImportError.  Until then this handler answers for it,
the way main() does later: one line on stderr and status 130.  ``import intdot`` imports nothing, so this runs
before NumPy does.
"""

import _signal  # the signal module's C half: the Python half imports enum, time an interrupt could land in
import os
import sys


def _interrupted(signum, frame):
    try:
        sys.stderr.write("intdot: interrupted\n")
        sys.stderr.flush()
    finally:
        os._exit(130)  # not sys.exit: the import being interrupted could catch SystemExit too


def main() -> int:
    before = _signal.getsignal(_signal.SIGINT)
    if before is _signal.default_int_handler:  # not where a parent made us ignore it (a shell's background job)
        _signal.signal(_signal.SIGINT, _interrupted)
    from .cli import main as cli_main

    _signal.signal(_signal.SIGINT, before)
    return cli_main()
