"""``intdot eval`` and ``intdot table`` through ``intdot.cli.main(argv)``."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest

from intdot import amd
from intdot.cli import main
from tests.amd.spec import ref
from tests.reference import lanes


def run(capsys, *argv):
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def result_of(out: str) -> tuple[int, str]:
    m = re.fullmatch(r"(-?\d+) \((0x[0-9a-f]{8})\)", out.strip().splitlines()[-1])
    assert m, out
    return int(m.group(1)), m.group(2)


# The cases, written as C calls.
EVAL_CASES = [
    ("sdot4(0x01020304, 0x05060708, 10, false)", [], 80),
    ("__builtin_amdgcn_sdot4(0x80808080, 0x80808080, 0x7fffffff, false)", [], -2147418113),
    ("sdot4(0x80808080, 0x80808080, 0x7fffffff, false)", ["--clamp"], 2147483647),
    ("sdot4(0x80808080, 0x80808080, 0x7fffffff, true)", ["--profile", "llvm"], 2147483647),
    ("udot4(0xffffffff, 0xffffffff, 0xffffffff, false)", [], 260099),
    ("udot4(0xffffffffu, 0xffffffffU, 0xffffffff, true)", ["--profile", "llvm"], 4294967295),
    ("sdot8(0x88888888, 0x77777777, 0, false)", [], -448),
    ("__builtin_amdgcn_sudot4(true, 0xffffffff, false, 0xffffffff, 0, false)", [], -1020),
    ("sudot8(false, 0xffffffff, true, 0x88888888, 0x7fffffff, false)", ["--clamp"], 2147482687),
    ("sudot8(false, 0xffffffff, true, 0x88888888, 0x7fffffff, true)", ["--profile", "llvm"], 2147482687),
    (
        "__builtin_amdgcn_sudot4(true, 0x80FF7F01, false, 0x01020304, 100, false)",
        [],
        ref("sudot4", 0x80FF7F01, 0x01020304, 100, src0_neg=True, src1_neg=False),
    ),
    ("sdot4(-1, 0x7f7f7f7f, 5, false)", [], ref("sdot4", -1, 0x7F7F7F7F, 5)),
    ("sdot4((int)0x80808080, (unsigned)-1, 5, false)", [], ref("sdot4", 0x80808080, 0xFFFFFFFF, 5)),
    ("sdot2((short2){-3, 7}, (short2){2, 5}, 0, false)", [], 29),
    ("sdot2((short2){-32768, -32768}, (short2){-32768, -32768}, 0, 0)", ["--clamp"], 2**31 - 1),
    (
        "udot2((ushort2){65535, 1}, 0x00020003, 4294967295U, 1)",
        [],
        ref("udot2", 0x0001FFFF, 0x00020003, 2**32 - 1, neg=True),
    ),
    ("sdot4(0x01020304, 0x05060708, 10, false);", ["--target", "gfx942"], 80),
    (
        "udot8(0x12345678, 017, -1, false)",
        ["--target", "rdna3.5", "--profile", "llvm"],
        ref("udot8", 0x12345678, 0o17, -1),
    ),
]


@pytest.mark.parametrize("expr,opts,want", EVAL_CASES)
def test_eval(capsys, expr, opts, want):
    rc, out, err = run(capsys, "eval", expr, *opts)
    assert rc == 0 and err == ""
    value, hexa = result_of(out)
    assert value == want and hexa == f"0x{want & 0xFFFFFFFF:08x}"
    assert len(out.strip().splitlines()) == 1


@pytest.mark.parametrize("expr,opts,want", EVAL_CASES)
def test_explain(capsys, expr, opts, want):
    rc, out, _ = run(capsys, "eval", expr, *opts, "--explain")
    assert rc == 0 and result_of(out)[0] == want
    lines = out.splitlines()
    table = [ln.split() for ln in lines if re.fullmatch(r"\s+\d+\s+-?\d+\s+-?\d+\s+-?\d+", ln)]
    assert table, out
    src0 = int(re.search(r"src0 = (0x[0-9a-f]{8}):", out).group(1), 16)
    src1 = int(re.search(r"src1 = (0x[0-9a-f]{8}):", out).group(1), 16)
    width = 32 // len(table)
    s0 = f"src0 = 0x{src0:08x}: {len(table)} signed" in out
    s1 = f"src1 = 0x{src1:08x}: {len(table)} signed" in out
    # Each lane as the reference reads it, and its product.
    for k, (x, y) in enumerate(zip(lanes(src0, width, s0), lanes(src1, width, s1))):
        assert table[k] == [str(k), str(x), str(y), str(x * y)]
    dot = sum(int(r[3]) for r in table)
    assert f"= {dot}\n" in out  # the dot product line
    assert "accumulate: src2" in out and "(exact)" in out
    clamped = "--clamp" in opts or ("--profile" in opts and expr.rstrip(";) ").endswith("true"))
    assert ("clamp to" in out) is clamped
    if not clamped:
        assert "no clamp" in out


def test_explain_mentions_neg_and_saturation(capsys):
    _, out, _ = run(capsys, "eval", "udot4(0x01010101, 0x01010101, 0, true)", "--explain", "--clamp")
    assert "src2 - dot = 0 - 4 = -4" in out and "below the range: saturated -> 0" in out
    _, out, _ = run(capsys, "eval", "sdot4(0x80808080, 0x80808080, 0x7fffffff, false)", "--explain")
    assert "wrap modulo 2**32" in out and "2147549183 -> -2147418113" in out


@pytest.mark.parametrize(
    "argv,message",
    [
        (["eval", "sdot4(1, 2, 3)"], "takes 4 arguments (src0, src1, src2, neg) in the reference profile, got 3"),
        (["eval", "sdot4(1, 2, 3, 4, 5)"], "takes 4 arguments"),
        (["eval", "sdot4(1, 2, 3, false, false)", "--profile", "llvm"], "(src0, src1, src2, clamp) in the llvm"),
        (["eval", "sdot4(1, 2, 3, 2)"], "neg is a bool parameter; expected true, false, 0 or 1, got 2"),
        (["eval", "sudot4(1, 2, 3, 4, 5, false)"], "src1_neg is a bool parameter"),
        (["eval", "sdot4(true, 2, 3, false)"], "src0 is int; expected an integer, got true"),
        (["eval", "sdot4((short2){1, 2}, 2, 3, false)"], "src0 is int; expected an integer"),
        (["eval", "sdot2(true, 2, 3, false)"], "src0 is short2; expected (short2){a, b}"),
        (["eval", "sdot4(1, 2, 0x100000000, false)"], "src2=4294967296 does not fit int"),
        (["eval", "sdot4(-0x80000001, 2, 3, false)"], "src0=-2147483649 does not fit int"),
        (["eval", "vdot4(1, 2, 3, false)"], "is not an AMD dot builtin"),
        (["eval", "sdot4(1, 2, 3, false"], "expected ',' or ')'"),
        (["eval", "sdot4(1.0, 2, 3, false)"], "floating-point literals are not accepted"),
        (["eval", "sdot4(1, 2, 3, false)", "--target", "RDNA3"], "sdot4 is not available on RDNA3"),
        (
            ["eval", "sudot4(true, 2, true, 3, 0, false)", "--target", "gfx1030", "--profile", "llvm"],
            "lacks target feature dot8-insts",
        ),
        (["eval", "sdot4(1, 2, 3, false)", "--target", "gfx906"], "use --profile llvm (known there)"),
        (["eval", "sdot4(1, 2, 3, false)", "--target", "gfx2000", "--profile", "llvm"], "is not known"),
        (["eval", "sdot4(1, 2, 3, false)", "--profile", "llvm", "--clamp"], "drop --clamp"),
    ],
)
def test_eval_errors(capsys, argv, message):
    rc, out, err = run(capsys, *argv)
    assert rc == 1 and out == ""
    assert err.startswith(f"intdot {argv[0]}: error: ") and message in err.splitlines()[0]
    assert "Traceback" not in err


def test_syntax_error_shows_caret(capsys):
    rc, _, err = run(capsys, "eval", "sdot4(1 2)")
    lines = err.splitlines()
    assert rc == 1 and lines[0].endswith("(column 9)")
    assert lines[1] == "  sdot4(1 2)" and lines[2] == "  " + " " * 8 + "^"


REFERENCE_TABLE = """\
builtin  CDNA  CDNA2  CDNA3  CDNA4  RDNA2  RDNA3  RDNA3.5  RDNA4
udot4    yes   yes    yes    yes    yes    yes    yes      yes
udot8    yes   yes    yes    yes    yes    yes    yes      yes
sdot4    yes   yes    yes    yes    no     no     no       no
sdot8    yes   yes    yes    yes    no     no     no       no
sdot2    yes   yes    yes    yes    no     no     no       no
udot2    yes   yes    yes    yes    no     no     no       no
sudot4   no    no     no     no     yes    yes    yes      yes
sudot8   no    no     no     no     yes    yes    yes      yes"""


def test_table_text(capsys):
    rc, out, _ = run(capsys, "table")
    assert rc == 0 and out.splitlines()[0] == "AMD dot builtins by family (reference profile)"
    assert "\n".join(out.splitlines()[1:]) == REFERENCE_TABLE


def test_table_llvm_csv_and_json(capsys):
    _, out, _ = run(capsys, "table", "--profile", "llvm", "--format", "csv")
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["builtin", "CDNA", "CDNA2", "CDNA3", "CDNA4", "RDNA2", "RDNA3", "RDNA3.5", "RDNA4"]
    assert rows[3] == ["sdot4", "yes", "yes", "yes", "yes", "yes", "no", "no", "no"]
    assert rows[7] == ["sudot4", "no", "no", "no", "no", "no", "yes", "yes", "yes"]
    _, out, _ = run(capsys, "table", "--profile", "llvm", "--processors", "--format", "json")
    data = json.loads(out)
    assert data["profile"] == "llvm" and data["by"] == "processor"
    assert data["availability"]["udot4"]["gfx900"] is False and data["availability"]["sudot8"]["gfx1251"] is True
    assert len(data["columns"]) == len(amd.processors("llvm"))


def test_table_markdown_processors(capsys):
    _, out, _ = run(capsys, "table", "--processors", "--format", "markdown")
    lines = out.splitlines()
    header = [c.strip() for c in lines[2].strip("|").split("|")]
    assert header[0] == "builtin" and header[1:4] == ["gfx908", "gfx90a", "gfx940"] and len(header) == 1 + 23
    assert lines[3].count("---") == 24
    assert lines[4].startswith("| `udot4` | yes")


def test_table_diff(capsys):
    _, out, _ = run(capsys, "table", "--diff", "--format", "json")
    diffs = json.loads(out)["differences"]
    cells = {(d["builtin"], d["target"]): (d["reference"], d["llvm"]) for d in diffs}
    assert cells == {
        **{(b, "RDNA2"): (False, True) for b in ["sdot4", "sdot8", "sdot2", "udot2"]},
        **{(b, "RDNA2"): (True, False) for b in ["sudot4", "sudot8"]},
    }
    _, out, _ = run(capsys, "table", "--diff", "--processors")
    assert "(42 cells)" in out and "sudot4   gfx1036    yes        no    dot8-insts" in out
    assert "only in the llvm profile" in out and "gfx1250" in out


@pytest.mark.parametrize("argv", [["--help"], ["eval", "--help"], ["table", "--help"]])
def test_help(capsys, argv):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert "usage: intdot" in out


def test_help_lists_commands(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "eval" in out and "table" in out


def test_bad_choice_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as info:
        main(["table", "--format", "xml"])
    assert info.value.code == 2
