"""The README's examples run as written, and its two commands exist."""

from __future__ import annotations

import doctest
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_readme_examples():
    text = (ROOT / "README.md").read_text()
    parser = doctest.DocTestParser()
    test = parser.get_doctest(text, {}, "README.md", "README.md", 0)
    assert test.examples, "the README should show runnable examples"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0


def test_readme_commands_are_make_targets():
    readme = (ROOT / "README.md").read_text()
    first_block = re.search(r"```sh\n(.*?)```", readme, re.S).group(1)
    targets = re.findall(r"^make (\w+)", first_block, re.M)
    assert targets == ["demo", "test"]
    makefile = (ROOT / "Makefile").read_text()
    for t in targets:
        assert re.search(rf"^{t}:", makefile, re.M)
    assert "make test" in (ROOT / ".ci" / "run").read_text()
