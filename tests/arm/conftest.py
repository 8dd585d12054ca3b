"""Prints the QEMU comparison counts (tests/arm/test_qemu.py) in pytest's terminal summary,
so every run, ``-q`` and CI included, says how many states per form and length were compared."""

from __future__ import annotations


def pytest_terminal_summary(terminalreporter):
    import sys

    module = sys.modules.get("tests.arm.test_qemu")
    if module is None:  # not collected
        return
    lines = module.summary_lines() or [
        "no QEMU states compared: the QEMU tests were skipped (see the reasons), failed before comparing, "
        "or were deselected"
    ]
    terminalreporter.section("QEMU oracle", sep="-")
    for line in lines:
        terminalreporter.write_line(line)
