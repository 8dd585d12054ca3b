"""Output file names that name no file (a user review: ``intdot table --plot ''`` wrote a hidden '.png' in the
current folder): refused before any work, in one line naming the option, and nothing is written."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    ("command", "path", "words"),
    [
        ("table", "", "--plot '': the file name is empty"),
        ("table", ".png", "--plot '.png' names no file"),
        ("table", "sub/.svg", "--plot 'sub/.svg' names no file"),
        ("table", "sub/", "--plot 'sub/' is a directory"),
        ("table", "sub/nothing/", "--plot 'sub/nothing/' names no file"),
        ("table", "x.gif", "--plot 'x.gif': the extension .gif is not an image format"),
        ("demo", "", "--plot '': the file name is empty"),
        ("demo", ".png", "--plot '.png' names no file"),
    ],
)
def test_plot_to_no_file_is_refused(cli, tmp_path, monkeypatch, command, path, words):
    pytest.importorskip("matplotlib")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    rc, out, err = cli(command, "--plot", path)
    assert rc == 1 and not out and err.count("\n") == 1
    assert err.startswith(f"intdot {command}: error: {words}")
    assert [p.name for p in tmp_path.rglob("*")] == ["sub"]


def test_an_unwritable_plot_is_worded_as_every_file_error(cli, tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    monkeypatch.chdir(tmp_path)
    rc, out, err = cli("table", "--plot", "missing/x.png")
    assert rc == 1 and not out
    assert err == "intdot table: error: --plot 'missing/x.png': cannot write it: No such file or directory\n"
