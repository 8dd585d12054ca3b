"""Suite-wide options and summary.

Volume runs (every encoding, 10^4 states per form) are marked ``slow`` and run only with ``--slow``, so the default
suite fits CI's budget.  The summary ends with the QEMU comparison counts (tests/arm/test_qemu.py), so that every
run, ``-q`` and CI included, says how many states per form and length were compared; under pytest-xdist
(``make test`` runs a worker a core) each worker hands its counts to the controller, which prints them all."""

import importlib
import sys

import pytest

QEMU_TESTS = "tests.arm.test_qemu"


def pytest_addoption(parser):
    parser.addoption(
        "--slow",
        action="store_true",
        default=False,
        help="also run the volume tests marked 'slow' (every encoding, many states per form)",
    )


def pytest_collection_modifyitems(config, items):
    if config.getoption("--slow"):
        return
    skip = pytest.mark.skip(reason="volume test: run with --slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


def pytest_sessionfinish(session):
    # An xdist worker: its QEMU counts go to the controller with the worker's output (pytest_testnodedown).
    output = getattr(session.config, "workeroutput", None)
    module = sys.modules.get(QEMU_TESTS)
    if output is not None and module is not None:
        output["qemu_counts"] = [[*key, states] for key, states in module.COUNTS.items()]


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    # The xdist controller, as each worker ends: its QEMU counts added to the controller's.
    rows = getattr(node, "workeroutput", {}).get("qemu_counts")
    if rows is not None:
        counts = importlib.import_module(QEMU_TESTS).COUNTS
        for form, kind, bits, states in rows:
            counts[(form, kind, bits)] += states


def pytest_terminal_summary(terminalreporter, config):
    module = sys.modules.get(QEMU_TESTS)
    if module is None or hasattr(config, "workerinput"):  # not collected by any process; or an xdist worker
        return
    module.save_counts()
    lines = module.summary_lines() or [
        "no QEMU states compared: the QEMU tests were skipped (see the reasons), failed before comparing, "
        "or were deselected"
    ]
    terminalreporter.section("QEMU oracle", sep="-")
    for line in lines:
        terminalreporter.write_line(line)
