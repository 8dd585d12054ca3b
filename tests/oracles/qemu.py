"""QEMU as an oracle for AArch64 instructions that read and write the register file.

For one instruction text, :func:`build` makes a tiny static AArch64 program
(no libc: a hand-written ``_start``) that

1. writes a 16-byte header: the Z length in bytes (``rdvl``) and, for a
   streaming program, SVL in bytes (``rdsvl``), so the caller can check that
   the requested vector lengths took effect;
2. loops: reads one state blob from stdin (exits 0 at end of input), loads
   Z0-Z31 (``ldr zN, [x, #N, mul vl]``), the ZA rows (``ldr za[w12, 0]`` in a
   loop, streaming programs only) and X8-X11, runs the instruction, stores
   everything back in the same layout and writes the blob to stdout.

Blob layout: Z0..Z31 (Z length bytes each) | ZA rows (SVL*SVL bytes,
streaming programs only) | X8, X9, X10, X11 (8 bytes each, little-endian).

Streaming programs execute ``smstart`` after every ``read``: Linux (and
qemu-user) leave streaming mode on every system call; ZA survives.
:func:`build_acle` wraps a C kernel that calls an ACLE intrinsic in the
same kind of driver, so the intrinsics are checked as clang compiles them.
Built programs are cached under ``.oracle-cache/qemu/`` keyed by a hash of
the source, so a test run only pays for QEMU itself.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
from pathlib import Path

from . import PREFIX, find_tool

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / ".oracle-cache" / "qemu"
MARCH = "armv9-a+sve+i8mm+sme2+sve2p1+sme-i16i64"
BUF_BYTES = 32 * 256 + 256 * 256 + 32 + 64  # the largest blob: VL = SVL = 2048 bits


def clang() -> str | None:
    return find_tool("INTDOT_CLANG", "clang-19", "clang")


def qemu(streaming: bool, new: bool = False) -> str | None:
    """qemu-aarch64 for the program kind: SME2 needs QEMU 9 or newer, SVE2.1 (``new``) QEMU 11's ``max`` CPU."""
    if streaming or new:
        return find_tool("INTDOT_QEMU_SME2", os.path.join(PREFIX, "qemu-unstable/usr/bin/qemu-aarch64"))
    return find_tool("INTDOT_QEMU", "/usr/bin/qemu-aarch64", "qemu-aarch64")


def require(streaming: bool, new: bool = False) -> None:
    """Skip (or, in CI, fail) the calling test unless clang and the QEMU it needs are both there."""
    from . import missing

    if clang() is None:
        missing("clang-19 (to build the AArch64 test programs)")
    if qemu(streaming, new) is None:
        missing(
            "qemu-aarch64 with SME2/SVE2.1 (QEMU 11 of the oracle installer)"
            if streaming or new
            else "qemu-aarch64 (qemu-user)"
        )


def _syscall(nr: int) -> list[str]:
    return [f"    mov x8, #{nr}", "    svc #0"]


def _prologue(streaming: bool) -> list[str]:
    """Enter streaming mode if asked; x21 = buf, x19 = Z length and x25 = SVL in bytes (0 when not
    streaming), both also written as the 16-byte header."""
    return [
        "    .text",
        "    .global _start",
        "_start:",
        "    smstart" if streaming else "    nop",
        "    adrp x21, buf",
        "    add x21, x21, :lo12:buf",
        "    rdvl x19, #1",  # Z length in bytes (SVL when streaming)
        "    rdsvl x25, #1" if streaming else "    mov x25, #0",
        "    stp x19, x25, [x21]",
    ]


def _write_header() -> list[str]:
    return ["    mov x0, #1", "    mov x1, x21", "    mov x2, #16", *_syscall(64)]


def _read_state() -> list[str]:
    """Read x20 bytes of state into buf (exit 0 at end of input, 3 on a short or failed read)."""
    return [
        "next_state:",
        "    mov x24, #0",
        "read_more:",
        "    mov x0, #0",
        "    add x1, x21, x24",
        "    sub x2, x20, x24",
        *_syscall(63),
        "    cmp x0, #0",
        "    b.lt fail",
        "    b.eq end_of_input",
        "    add x24, x24, x0",
        "    cmp x24, x20",
        "    b.lo read_more",
    ]


def _za_rows(op: str, label: str) -> list[str]:
    """``ldr``/``str`` every ZA row (x25 of them, x25 bytes each) from/to x23 onwards."""
    return [
        "    mov w12, #0",
        f"{label}:",
        f"    {op} za[w12, 0], [x23]",
        "    add x23, x23, x25",
        "    add w12, w12, #1",
        "    cmp x12, x25",
        f"    b.lo {label}",
    ]


def _write_state_and_loop() -> list[str]:
    """Write the x20 bytes of buf back, go read the next state; the exits and the buffer."""
    return [
        "    mov x24, #0",
        "write_more:",
        "    mov x0, #1",
        "    add x1, x21, x24",
        "    sub x2, x20, x24",
        *_syscall(64),
        "    cmp x0, #0",
        "    b.le fail",
        "    add x24, x24, x0",
        "    cmp x24, x20",
        "    b.lo write_more",
        "    b next_state",
        "end_of_input:",
        "    cmp x24, #0",
        "    b.ne fail",
        "    mov x0, #0",
        *_syscall(93),
        "fail:",
        "    mov x0, #3",
        *_syscall(93),
        "    .bss",
        "    .balign 16",
        "buf:",
        f"    .skip {BUF_BYTES}",
        "",
    ]


def source(insn_text: str, *, streaming: bool) -> str:
    """The assembly source of the test program for one instruction."""
    lines = (
        _prologue(streaming)
        + [
            "    lsl x20, x19, #5",  # 32 Z registers
            "    mul x22, x25, x25",  # ZA bytes (0 when not streaming)
            "    add x20, x20, x22",
            "    add x20, x20, #32",  # X8-X11
        ]
        + _write_header()
        + _read_state()
        + ["    smstart" if streaming else "    nop"]
    )
    lines += [f"    ldr z{n}, [x21, #{n}, mul vl]" for n in range(32)]
    lines += ["    add x23, x21, x19, lsl #5"]  # x23 -> ZA rows, then X8-X11
    if streaming:
        lines += _za_rows("ldr", "load_za")
    lines += [
        "    ldp x8, x9, [x23]",
        "    ldp x10, x11, [x23, #16]",
        f"    {insn_text}",
        "    stp x8, x9, [x23]",
        "    stp x10, x11, [x23, #16]",
    ]
    lines += [f"    str z{n}, [x21, #{n}, mul vl]" for n in range(32)]
    if streaming:
        lines += ["    add x23, x21, x19, lsl #5"] + _za_rows("str", "store_za")
    return "\n".join(lines + _write_state_and_loop())


class BuildError(RuntimeError):
    pass


class LinkerMissing(BuildError):
    """clang is there but lld (its -fuse-ld=lld linker) is not."""


def _compile(sources: dict[str, str], what: str) -> Path:
    """Build a static program from {file name: text} (cached by content); BuildError if clang fails."""
    cc = clang()
    blob = "\n".join(f"--- {name}\n{text}" for name, text in sorted(sources.items()))
    key = hashlib.sha256(f"{cc}\n{MARCH}\n{blob}".encode()).hexdigest()[:20]
    exe = CACHE / f"p{key}"
    if exe.exists():
        return exe
    CACHE.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
        files = []
        for name, text in sources.items():
            (Path(tmp) / name).write_text(text)
            files.append(str(Path(tmp) / name))
        out = Path(tmp) / "prog"
        r = subprocess.run(
            [
                cc,
                "--target=aarch64-linux-gnu",
                f"-march={MARCH}",
                "-O1",
                "-ffreestanding",
                "-fno-stack-protector",
                "-fuse-ld=lld",
                "-static",
                "-nostdlib",
                "-o",
                str(out),
                *files,
            ],
            capture_output=True,
            text=True,
        )
        if r.returncode:
            if "linker" in r.stderr and "lld" in r.stderr:
                raise LinkerMissing(r.stderr.strip())
            raise BuildError(f"clang failed on {what}:\n{r.stderr}")
        os.replace(out, exe)  # atomic: parallel test runs never see half a file
    return exe


def build(insn_text: str, *, streaming: bool) -> Path:
    """The (cached) program for one instruction; BuildError if clang rejects it."""
    return _compile({"prog.S": source(insn_text, streaming=streaming)}, repr(insn_text))


def blob_size(zbytes: int, svl_bytes: int, streaming: bool) -> int:
    return 32 * zbytes + (svl_bytes * svl_bytes if streaming else 0) + 32


def run(
    exe: Path,
    blobs: list[bytes],
    *,
    vl: int,
    svl: int,
    streaming: bool,
    size: int | None = None,
    timeout: float = 120,
    new: bool = False,
) -> list[bytes]:
    """Run the program on each state blob; return the blobs it wrote back.

    ``vl`` and ``svl`` are in bits; the header the program writes is checked
    against them, so a QEMU that ignores the vector-length options fails
    loudly instead of testing the wrong length.
    """
    props = f"max,sve-default-vector-length={vl // 8}"
    if streaming:
        props += f",sme-default-vector-length={svl // 8}"
    zbytes = (svl if streaming else vl) // 8
    if size is None:
        size = blob_size(zbytes, svl // 8, streaming)
    for b in blobs:
        if len(b) != size:
            raise ValueError(f"state blob of {len(b)} bytes; expected {size}")
    r = subprocess.run(
        [qemu(streaming, new), "-cpu", props, str(exe)], input=b"".join(blobs), capture_output=True, timeout=timeout
    )
    if r.returncode:
        raise RuntimeError(
            f"{exe.name} under qemu ({props}) exited with {r.returncode}: {r.stderr.decode(errors='replace')[-2000:]}"
        )
    out = r.stdout
    got_z, got_svl = int.from_bytes(out[:8], "little"), int.from_bytes(out[8:16], "little")
    if got_z != zbytes or (streaming and got_svl != svl // 8):
        raise RuntimeError(
            f"qemu ran with Z length {got_z} bytes and SVL {got_svl} bytes; asked for "
            f"{zbytes} and {svl // 8 if streaming else 0} ({props})"
        )
    body = out[16:]
    if len(body) != size * len(blobs):
        raise RuntimeError(f"qemu wrote {len(body)} bytes for {len(blobs)} states of {size} bytes")
    return [body[i * size : (i + 1) * size] for i in range(len(blobs))]


# -- ACLE intrinsics compiled by clang ---------------------------------------------------------


def acle_driver(*, streaming: bool, per_zlen: int, fixed: int) -> str:
    """The ``_start`` that runs a C ``entry(uint8_t *blob)`` on each blob read from stdin.

    Blob: ``per_zlen`` * (Z length in bytes) + ``fixed`` bytes that ``entry``
    reads and writes itself, then (streaming programs) ZA, SVL*SVL bytes,
    loaded before and stored after the call.  ``entry`` of a streaming
    program is an ``__arm_streaming __arm_inout("za")`` function.
    """
    lines = (
        _prologue(streaming)
        + [
            f"    mov x9, #{per_zlen}",
            "    mul x26, x19, x9",
            f"    add x26, x26, #{fixed}",  # ZA offset
            "    mul x22, x25, x25",
            "    add x20, x26, x22",  # blob size
        ]
        + _write_header()
        + _read_state()
    )
    if streaming:
        lines += ["    smstart", "    add x23, x21, x26"] + _za_rows("ldr", "load_za")
    lines += ["    mov x0, x21", "    bl entry"]
    if streaming:
        lines += ["    add x23, x21, x26"] + _za_rows("str", "store_za")
    return "\n".join(lines + _write_state_and_loop())


def build_acle(c_source: str, *, streaming: bool, per_zlen: int, fixed: int) -> Path:
    """A program running C ``entry`` (which calls an ACLE intrinsic) on blobs; see :func:`acle_driver`."""
    return _compile(
        {"driver.S": acle_driver(streaming=streaming, per_zlen=per_zlen, fixed=fixed), "entry.c": c_source},
        "an ACLE test kernel",
    )
