"""Issue 8, item 2: ``intdot eval -f FILE|-`` and ``intdot exec -f FILE|-``.

Expected results come from the reference model in tests/amd/spec.py (written
from the spec, sharing no code with intdot) and, for exec, by hand."""

from __future__ import annotations

import json

import pytest

from tests.amd.spec import ref
from tests.reference import lanes

EXPRS = [
    ("sdot4(0x01020304, 0x05060708, 10, false)", ref("sdot4", 0x01020304, 0x05060708, 10)),
    ("udot4(0xffffffff, 0xffffffff, 0xffffffff, true)", ref("udot4", 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, neg=True)),
    ("sdot8(0x88888888, 0x77777777, 0, false)", ref("sdot8", 0x88888888, 0x77777777, 0)),
    (
        "__builtin_amdgcn_sudot4(true, 0x80FF7F01, false, 0x01020304, 100, false)",
        ref("sudot4", 0x80FF7F01, 0x01020304, 100, src0_neg=True, src1_neg=False),
    ),
]
BAD = "sdot4(1, 2)"


def _file(tmp_path, lines):
    f = tmp_path / "exprs.txt"
    f.write_text("\n".join(lines) + "\n")
    return f


def test_eval_file_text_one_line_per_expression(cli, tmp_path):
    f = _file(tmp_path, ["// a comment", EXPRS[0][0], "", EXPRS[1][0] + "  // trailing", BAD, EXPRS[2][0]])
    rc, out, err = cli("eval", "-f", f)
    assert rc == 1  # one line failed
    want = [EXPRS[0][1], EXPRS[1][1], None, EXPRS[2][1]]
    got = out.splitlines()
    assert len(got) == 4
    for line, value in zip(got, want):
        assert line == ("error" if value is None else f"{value} (0x{value & 0xFFFFFFFF:08x})")
    assert err.startswith(f"intdot eval: error: {f}, line 5: ") and "(column 11)" in err.splitlines()[0]


def test_eval_fail_fast_stops_at_the_first_error(cli):
    rc, out, err = cli("eval", "-f", "-", "--fail-fast", stdin=f"{EXPRS[0][0]}\n{BAD}\n{EXPRS[1][0]}\n")
    assert rc == 1 and out.splitlines() == [f"{EXPRS[0][1]} (0x{EXPRS[0][1] & 0xFFFFFFFF:08x})", "error"]
    assert "stdin, line 2" in err


def test_eval_all_good_exits_0(cli):
    rc, out, err = cli("eval", "-f", "-", stdin="".join(e + "\n" for e, _ in EXPRS))
    assert rc == 0 and err == "" and len(out.splitlines()) == len(EXPRS)


def test_eval_json_one_object_per_expression(cli):
    text = "".join(e + "\n" for e, _ in EXPRS) + BAD + "\n"
    rc, out, _ = cli("eval", "-f", "-", "--json", stdin=text)
    records = [json.loads(line) for line in out.splitlines()]
    assert rc == 1 and len(records) == len(EXPRS) + 1
    for n, (rec, (expr, value)) in enumerate(zip(records, EXPRS), 1):
        assert rec["line"] == n and rec["expr"] == expr
        assert rec["value"] == value and rec["hex"] == f"0x{value & 0xFFFFFFFF:08x}"
        assert rec["builtin"].startswith("__builtin_amdgcn_") and rec["target"] is None
    assert records[-1]["line"] == 5 and "error" in records[-1] and "value" not in records[-1]


def test_eval_json_explain_gives_the_lanes(cli):
    expr = "sdot4(0x80FF7F01, 0x01020304, 100, false) // lane 0 is the low byte"
    rc, out, _ = cli("eval", "-f", "-", "--json", "--explain", "--target", "gfx942", stdin=expr + "\n")
    (rec,) = [json.loads(line) for line in out.splitlines()]
    a, b = lanes(0x80FF7F01, 8, True), lanes(0x01020304, 8, True)
    assert [(k["src0"], k["src1"], k["product"]) for k in rec["lanes"]] == [(x, y, x * y) for x, y in zip(a, b)]
    assert rec["value"] == ref("sdot4", 0x80FF7F01, 0x01020304, 100) and rec["target"] == "gfx942"


def test_eval_single_expression_json(cli):
    rc, out, _ = cli("eval", EXPRS[0][0], "--json")
    assert rc == 0 and json.loads(out)["value"] == EXPRS[0][1]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["eval"], "no expression given"),
        (["eval", "sdot4(1,2,3,false)", "-f", "-"], "both given"),
        (["eval", "-f", "/nonexistent/e.txt"], "--file '/nonexistent/e.txt'"),
    ],
)
def test_eval_batch_errors(cli, argv, message):
    rc, _, err = cli(*argv, stdin="")
    assert rc == 1 and message in err


def test_exec_file_runs_on_one_state(cli, tmp_path):
    prog = tmp_path / "prog.s"
    # 0x44ba1c20 is sudot z0.s, z1.b, z2.b[3] (LLVM); then the same instruction with index 1, twice in one line.
    prog.write_text("44ba1c20   // word\n\nsudot z0.s, z1.b, z2.b[1]; sudot z0.s, z1.b, z2.b[1]\n")
    rc, out, err = cli("exec", "-f", prog, "--set", "z1.b=-1", "--set", "z2.b=0..15", "--json")
    assert rc == 0, err
    steps = json.loads(out)["steps"]
    assert [s["insn"] for s in steps] == ["sudot z0.s, z1.b, z2.b[3]"] + ["sudot z0.s, z1.b, z2.b[1]"] * 2
    # index 3: bytes 12..15 -> -(54); index 1: bytes 4..7 -> -(22), added twice
    assert [s["changed"]["z0.s"] for s in steps] == [[-54] * 4, [-76] * 4, [-98] * 4]


def test_exec_file_after_arguments_and_stdin(cli):
    rc, out, _ = cli(
        "exec",
        "--set",
        "v1.b=1",
        "--set",
        "v2.b=1",
        "sudot v0.4s, v1.16b, v2.4b[0]",
        "-f",
        "-",
        "--json",
        stdin="0x4f22f020\n",
    )
    steps = json.loads(out)["steps"]
    assert rc == 0 and [s["changed"]["v0.s"] for s in steps] == [[4] * 4, [8] * 4]


def test_exec_empty_file(cli, tmp_path):
    f = tmp_path / "empty.s"
    f.write_text("// nothing\n")
    rc, _, err = cli("exec", "-f", f)
    assert rc == 1 and "holds no instruction" in err


def test_eval_empty_file(cli, tmp_path):
    f = tmp_path / "empty.c"
    f.write_text("// nothing\n\n")
    rc, out, err = cli("eval", "-f", f)
    assert rc == 1 and out == "" and "holds no expression" in err
