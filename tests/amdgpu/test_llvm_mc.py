"""intdot.amdgpu against llvm-mc 19 (``-arch=amdgcn -mcpu=gfxN``): availability, text -> bytes,
bytes -> text, and rejected text, on random operands and modifiers and on random words near the
encodings.  The default run covers one processor per generation and feature set; ``--slow`` every
processor llvm-mc 19 knows, with more lines each."""

from __future__ import annotations

import collections
import json
import os
import pathlib
import random

import pytest

from intdot import amdgpu
from intdot.amdgpu.targets import FEATURES, GENERATION, LLVM_MC_KNOWS, PROCESSORS
from intdot.errors import IntdotError
from tests.oracles import llvm_mc_amdgpu as mc
from tests.oracles import missing

# The integer v_dot mnemonics llvm-mc 19 has (strings of its AMDGPU tables, as of LLVM 19.1).
MNEMONICS3 = ("v_dot2_i32_i16", "v_dot2_u32_u16", "v_dot4_i32_i8", "v_dot4_u32_u8", "v_dot8_i32_i4", "v_dot8_u32_u4",
              "v_dot4_i32_iu8", "v_dot8_i32_iu4")  # fmt: skip
MNEMONICS2 = ("v_dot2c_i32_i16", "v_dot4c_i32_i8", "v_dot8c_i32_i4")
KNOWN = [p for p in PROCESSORS if p in LLVM_MC_KNOWS]
DEFAULT = ["gfx906", "gfx908", "gfx940", "gfx1011", "gfx1030", "gfx1100", "gfx1151", "gfx1200"]


# Comparisons made, by (mnemonic, generation, what): written to $INTDOT_AMDGPU_TALLY (JSON) when it is set.
TALLY: collections.Counter = collections.Counter()


@pytest.fixture(scope="module", autouse=True)
def _oracle():
    if mc.tool() is None:
        missing("llvm-mc-19 (AMDGPU)", "install the llvm-19 package")
    yield
    if os.environ.get("INTDOT_AMDGPU_TALLY"):
        rows = [[m, g, what, n] for (m, g, what), n in sorted(TALLY.items())]
        pathlib.Path(os.environ["INTDOT_AMDGPU_TALLY"]).write_text(json.dumps(rows, indent=0))


def _count(text: str, mcpu: str, what: str) -> None:
    name = text if text.startswith("(") else text.split()[0].lower()
    for suffix in ("_e32", "_e64", "_dpp"):
        name = name.removesuffix(suffix)
    TALLY[name, GENERATION[mcpu], what] += 1


def _ok(text: str, mcpu: str):
    try:
        return amdgpu.assemble(text, mcpu)
    except IntdotError as exc:
        return exc


def test_every_processor_llvm_mc_knows_is_in_the_table():
    listed = [p for p in PROCESSORS if p not in LLVM_MC_KNOWS]
    assert listed == ["gfx950", "gfx1153", "gfx1250", "gfx1251"]


@pytest.mark.parametrize("mcpu", KNOWN)
def test_availability_is_what_llvm_mc_assembles(mcpu):
    lines = [f"{m} v0, v1, v2, v3" for m in MNEMONICS3]
    lines += [f"{m}{s} v0, v1, v2" for m in MNEMONICS2 for s in ("", "_e32", "_e64")]
    theirs = mc.assemble(lines, mcpu)
    for line, answer in zip(lines, theirs):
        mine = _ok(line, mcpu)
        assert isinstance(mine, bytes) == isinstance(answer, tuple), (mcpu, line, answer, mine)
        if isinstance(mine, bytes):
            assert mine == answer[1], (mcpu, line)
    from intdot import catalog

    for m in MNEMONICS3 + MNEMONICS2:
        assert catalog.available(m, mcpu) == any(
            isinstance(a, tuple) for ln, a in zip(lines, theirs) if ln.split()[0].startswith(m)
        ), (m, mcpu)


# ---------------------------------------------------------------- random text


def _sgpr_names(g):
    top = 102 if g == "gfx9" else 106
    names = [f"s{n}" for n in range(top)] + ["vcc_lo", "vcc_hi", "m0", "exec_lo", "exec_hi"]
    names += [f"ttmp{n}" for n in range(16)]
    if g == "gfx9":
        names += ["flat_scratch_lo", "flat_scratch_hi", "xnack_mask_lo", "xnack_mask_hi"]
    else:
        names += ["null"]
    return names


_SPECIAL = ["src_shared_base", "src_shared_limit", "src_private_base", "src_private_limit",
            "src_pops_exiting_wave_id", "src_vccz", "src_execz", "src_scc", "src_lds_direct"]  # fmt: skip
_FLOATS = ["0.5", "-0.5", "1.0", "-1.0", "2.0", "-2.0", "4.0", "-4.0", "0.15915494"]


def _operand(rng: random.Random, g: str, *, vgpr_only=False) -> str:
    r = rng.random()
    if vgpr_only or r < 0.45:
        return f"v{rng.randrange(256)}"
    if r < 0.65:
        return rng.choice(_sgpr_names(g))
    if r < 0.75:
        return str(rng.randint(-16, 64))
    if r < 0.8:
        return rng.choice(_FLOATS)
    if r < 0.85:
        return rng.choice(_SPECIAL)
    if r < 0.95:
        return hex(rng.choice([rng.getrandbits(32), rng.randrange(65, 1000), 0x3F800000]))
    return str(rng.randint(-(2**31), -17))


def _mods(rng: random.Random, vop3p: bool) -> str:
    out = []
    if vop3p:
        for mod in ("op_sel", "op_sel_hi", "neg_lo", "neg_hi"):
            if rng.random() < 0.3:
                n = rng.choice([3, 3, 3, 1, 2, 4])
                out.append(f"{mod}:[{','.join(str(rng.randrange(2)) for _ in range(n))}]")
        rng.shuffle(out)
    if rng.random() < 0.3:
        out.append("clamp")
    return (" " + " ".join(out)) if out else ""


_CTRLS = ["row_mirror", "row_half_mirror", "row_bcast:15", "row_bcast:31", "wave_shl:1", "wave_rol:1", "wave_shr:1",
          "wave_ror:1"]  # fmt: skip


def _dpp(rng: random.Random) -> str:
    """Random DPP controls, legal or not on a given processor (llvm-mc says which)."""
    r = rng.random()
    if r < 0.15:
        out = [f"dpp8:[{','.join(str(rng.randrange(8)) for _ in range(8))}]"]
    elif r < 0.35:
        out = [f"quad_perm:[{','.join(str(rng.randrange(4)) for _ in range(4))}]"]
    elif r < 0.7:
        name = rng.choice(["row_shl", "row_shr", "row_ror", "row_share", "row_xmask", "row_newbcast"])
        out = [f"{name}:{rng.randrange(16)}"]
    else:
        out = [rng.choice(_CTRLS)]
    for mod, top in (("row_mask", 15), ("bank_mask", 15), ("bound_ctrl", 1), ("fi", 1)):
        if rng.random() < 0.25:
            out.append(f"{mod}:{rng.choice([hex, str])(rng.randint(0, top))}")
    if rng.random() < 0.05:
        rng.shuffle(out)
    return " ".join(out)


def _lines(mcpu: str, n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    g = GENERATION[mcpu]
    out = []
    for _ in range(n):
        m = rng.choice(MNEMONICS3 + MNEMONICS2)
        if m in MNEMONICS3:
            ops = [f"v{rng.randrange(256)}"] + [_operand(rng, g) for _ in range(3)]
            out.append(f"{m} {', '.join(ops)}{_mods(rng, True)}")
        elif rng.random() < 0.3:
            src0 = _operand(rng, g, vgpr_only=rng.random() < 0.9)
            src1 = _operand(rng, g, vgpr_only=rng.random() < 0.95)
            out.append(f"{m}{rng.choice(['', '_dpp'])} v{rng.randrange(256)}, {src0}, {src1} {_dpp(rng)}")
        else:
            suffix = rng.choice(["", "_e32", "_e64"])
            ops = [f"v{rng.randrange(256)}", _operand(rng, g), _operand(rng, g, vgpr_only=rng.random() < 0.7)]
            out.append(f"{m}{suffix} {', '.join(ops)}{_mods(rng, False) if rng.random() < 0.3 else ''}")
        if rng.random() < 0.03:
            out[-1] = out[-1].upper() if rng.random() < 0.5 else out[-1].replace(m, m.upper())
    return out


def _compare_text(mcpu: str, n: int, seed: int) -> int:
    lines = _lines(mcpu, n, seed)
    theirs = mc.assemble(lines, mcpu)
    accepted = [a for a in theirs if isinstance(a, tuple)]
    back = mc.assemble([a[0] for a in accepted], mcpu)  # llvm-mc's own text, assembled again
    mismatches = []
    for line, answer in zip(lines, theirs):
        mine = _ok(line, mcpu)
        _count(line, mcpu, "text accepted" if isinstance(answer, tuple) else "text rejected")
        if isinstance(answer, str):
            if isinstance(mine, bytes):
                mismatches.append((line, f"llvm-mc rejects: {answer}", mine.hex()))
        elif not isinstance(mine, bytes) or mine != answer[1]:
            mismatches.append((line, answer[1].hex(), mine))
        else:
            text = amdgpu.disassemble(answer[1], mcpu)
            if text != answer[0]:
                mismatches.append((line, answer[0], text))
    for (text, data), again in zip(accepted, back):
        if again != (text, data) or _ok(text, mcpu) != data:
            mismatches.append((text, data.hex(), again))
    assert not mismatches, f"{len(mismatches)} of {len(lines)} differ on {mcpu}: {mismatches[:12]}"
    return len(lines) + len(accepted)


@pytest.mark.parametrize("mcpu", DEFAULT)
def test_random_text_matches_llvm_mc(mcpu):
    _compare_text(mcpu, 300, seed=hash(mcpu) % 1000)


@pytest.mark.slow
@pytest.mark.parametrize("mcpu", KNOWN)
def test_random_text_matches_llvm_mc_volume(mcpu):
    _compare_text(mcpu, 4000, seed=1 + PROCESSORS.index(mcpu))


# ---------------------------------------------------------------- random words


def _words(mcpu: str, n: int, seed: int) -> list[bytes]:
    """Valid encodings (from llvm-mc) with random bits flipped, and random fields under fixed opcode bits."""
    rng = random.Random(seed)
    # a processor without dot instructions is probed with the encodings of one of its generation that has them
    like = {"gfx9": "gfx906", "gfx10": "gfx1030"}[GENERATION[mcpu]] if not FEATURES[mcpu] else mcpu
    seeds = [a[1] for a in mc.assemble(_lines(like, 200, seed), like) if isinstance(a, tuple) and a[1] is not None]
    out = []
    for _ in range(n):
        base = bytearray(rng.choice(seeds)[:8].ljust(8, b"\0"))
        word = int.from_bytes(base, "little")
        if len(rng.choice(seeds)) >= 4 and rng.random() < 0.5:
            for _ in range(rng.randint(1, 4)):
                word ^= 1 << rng.randrange(64)
        else:
            word ^= rng.getrandbits(64) & rng.choice([0xFFFFFFFF00000000, 0x0000FFFF, 0x1FF, 0xFFFFFFFFFFFF00FF])
        out.append(word.to_bytes(8, "little") + rng.getrandbits(32).to_bytes(4, "little"))
    return out


def _compare_words(mcpu: str, n: int, seed: int) -> int:
    words = _words(mcpu, n, seed)
    theirs = mc.disassemble(words, mcpu)
    mismatches = []
    crashes = 0
    for w, answer in zip(words, theirs):
        if answer == mc.CRASH:
            crashes += 1
            continue
        mine = amdgpu.asm.decode_one(w, 0, mcpu)
        name = answer[0].split()[0] if answer is not None else ""
        is_dot = name.removesuffix("_e32").removesuffix("_e64").removesuffix("_dpp") in MNEMONICS3 + MNEMONICS2
        _count(name if is_dot else "(not one of these)", mcpu, "word")
        if not is_dot:
            if mine is not None:
                mismatches.append((w.hex(), answer, mine.text))
        elif (
            mine is None
            or (mine.text, mine.to_bytes()) != (answer[0], w[: mine.size])
            or mine.canonical_bytes() != answer[1]  # llvm-mc's encoding: the bits it ignores cleared
        ):
            mismatches.append((w.hex(), answer, mine and mine.text))
    assert not mismatches, f"{len(mismatches)} of {len(words)} differ on {mcpu}: {mismatches[:12]}"
    assert crashes < len(words) // 20
    return len(words) - crashes


@pytest.mark.parametrize("mcpu", DEFAULT)
def test_random_words_decode_as_llvm_mc(mcpu):
    _compare_words(mcpu, 400, seed=7 + PROCESSORS.index(mcpu))


@pytest.mark.slow
@pytest.mark.parametrize("mcpu", KNOWN)
def test_random_words_decode_as_llvm_mc_volume(mcpu):
    _compare_words(mcpu, 6000, seed=100 + PROCESSORS.index(mcpu))


@pytest.mark.parametrize("line", ["v_dot4c_i32_i8_dpp v0, v1, v2", "v_dot4c_i32_i8_dpp v0, s1, v2"])
def test_a_dpp_mnemonic_without_its_control_is_refused_as_llvm_mc_refuses_it(line):
    # It used to go to the plain encoder: src0 kept its 9-bit source number (v257), an SGPR became a VGPR.
    for mcpu in ("gfx908", "gfx1030"):
        assert isinstance(mc.assemble([line], mcpu)[0], str)  # llvm-mc's error text
        with pytest.raises(IntdotError, match="too few operands"):
            amdgpu.parse(line, mcpu)


def test_a_tab_after_the_mnemonic_reads_as_a_space():
    line = "v_dot4_i32_i8 v0, v1, v2, v3"
    text, data = mc.assemble([line.replace(" ", "\t", 1)], "gfx1030")[0]
    assert amdgpu.parse(line.replace(" ", "\t", 1), "gfx1030").to_bytes() == data
    assert amdgpu.parse(line.replace(" ", "\t", 1), "gfx1030").text == text
