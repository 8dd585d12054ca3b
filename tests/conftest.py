"""Suite-wide options: volume runs (every encoding, 10^4 states per form) are marked
``slow`` and run only with ``--slow``, so the default suite fits CI's budget."""

import pytest


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
