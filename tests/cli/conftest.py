"""Helpers shared by the command-line tests: run ``intdot.cli.main`` in-process and
capture its exit status (argparse's SystemExit included), stdout and stderr."""

from __future__ import annotations

import io

import pytest

from intdot.cli import main


@pytest.fixture
def cli(capsys, monkeypatch):
    def run(*argv, stdin: str | bytes | None = None):
        if stdin is not None:
            raw = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
            stream = io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8", errors="strict")
            monkeypatch.setattr("sys.stdin", stream)
        try:
            rc = main([str(a) for a in argv])
        except SystemExit as exc:
            rc = exc.code
        out, err = capsys.readouterr()
        return rc, out, err

    return run
