"""Messages and statuses a fuzzing review of the command line found wanting: each names what is wrong (the file
cut short, the byte that is not one, the option that does nothing) and is status 1, never an internal error."""

import json
import struct

import pytest


def _elf64(machine: int, cut: int | None = None) -> bytes:
    """An ELF64 little-endian header with no sections, for ``machine``; ``cut``: only that many bytes."""
    head = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9) + struct.pack("<HHI", 1, machine, 1) + bytes(24)
    head += struct.pack("<IHHHHHH", 0, 64, 0, 0, 64, 0, 0)
    assert len(head) == 64
    return head[:cut] if cut else head


def _archive_cut_short() -> bytes:
    header = b"/".ljust(16) + b"0".ljust(12) + b"0".ljust(6) + b"0".ljust(6) + b"0".ljust(8) + b"182".ljust(10)
    return b"!<arch>\n" + header + b"`\n" + bytes(40)


@pytest.mark.parametrize(
    "name, data, words",
    [
        ("k.o", _elf64(183, cut=58), "is not a readable ELF file (the ELF header is cut short)"),
        ("x.o", _elf64(62), "is an ELF file for EM_X86_64; intdot disassembles AArch64 (EM_AARCH64) and AMD GPU"),
        ("lib.a", _archive_cut_short(), "the member at byte 8 holds 182 bytes, but the file ends at byte 108"),
    ],
)
def test_a_file_that_does_not_read_says_why(cli, tmp_path, name, data, words):
    (tmp_path / name).write_bytes(data)
    rc, _, err = cli("disasm", "-f", tmp_path / name)
    assert rc == 1 and words in err, err


@pytest.mark.parametrize(
    "argv, words",
    [
        (["disasm", "[0x20,0x1c,0xba,0x444]"],
         "column 17: '0x444' in the byte list '[0x20,0x1c,0xba,0x444]' is not a byte"),
        (["eval", "--fail-fast", "sdot4(1, 2, 3, false)"], "--fail-fast stops a -f batch at its first failing line"),
        (["disasm", "44ba1c20", "--demangle"], "--demangle demangles the C++ symbols of a file or listing"),
        (["disasm", "0", "--mark", "--only-dot"], "--only-dot leaves out every word that is not a dot instruction"),
        (["eval", "--isa", "x86", "_mm_dpbusd_epi32(src, a, b)", "--set", "src=[0]*4", "--set", "src=[1]*4",
          "--set", "a=[1]*16", "--set", "b=[1]*16"], "src is set twice with different values"),
    ],
)  # fmt: skip
def test_what_an_argument_cannot_do_is_named(cli, argv, words):
    rc, out, err = cli(*argv)
    assert rc == 1 and words in err and out == "", err
    assert len(err.strip().splitlines()) == 1


def test_a_state_file_is_answered_in_json_words(cli, tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"vl": 128, "svl": 128, "streaming": "yes", "regs": {}}))
    rc, _, err = cli("exec", "--state", path, "sdot z0.s, z1.b, z2.b")
    assert rc == 1 and '"streaming": "yes" is not a JSON boolean; expected true or false' in err, err


@pytest.mark.parametrize("option, value, shown", [("--vl", "0x100", "# VL=256"), ("--svl", "0x200", "SVL=512")])
def test_integer_options_read_hex_as_the_others_do(cli, option, value, shown):
    rc, out, err = cli("exec", option, value, "sdot z0.s, z1.b, z2.b")
    assert rc == 0 and shown in out.splitlines()[0], err
