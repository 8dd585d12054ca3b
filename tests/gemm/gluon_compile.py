"""Run in a process of its own by test_gpu_gluon.py (Triton compiled, not interpreted): compiles the Hopper
kernel (intdot.gemm.gpu_gluon) for sm_90a in each configuration gpu.py launches, down to ptxas, and checks what
the remembered plan (gpu._tma_plan) and the H200 rely on; then gpu._tma_setup's choice between them."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from types import SimpleNamespace

import triton
from triton.backends.compiler import GPUTarget
from triton.experimental.gluon import language as gl
from triton.experimental.gluon._runtime import GluonASTSource

from intdot.gemm import gpu, gpu_gluon, gpu_gluon_rowb, gpu_ptx

SHARED_MAX = 232448  # bytes of shared memory a block may have on sm_90


def _serialised(ptx: str) -> bool:
    """Whether ptxas (Triton's, for sm_90a) serialises the kernel's warpgroup MMAs, which it notes (C7515) where
    something other than an MMA may write an in-flight MMA's registers."""
    from triton.backends.nvidia.compiler import get_ptxas

    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "k.ptx")
        with open(src, "w") as f:
            f.write(ptx)
        cmd = [get_ptxas(90).path, "-v", "--gpu-name=sm_90a", src, "-o", os.path.join(tmp, "k.cubin")]
        log = subprocess.run(cmd, capture_output=True, text=True, check=True).stderr
    return "C7515" in log


def _signature(bm: int, bn: int, bk: int, out_block=None) -> dict:
    """mm_ws's argument kinds on (bm, bk) blocks of A and (bn, bk) of B; out_block: the output's, where the tiles
    are stored by TMA."""
    kinds = dict.fromkeys(gpu_gluon.mm_ws.arg_names, "i32")
    for name in ("c_ptr", "out_ptr", "ra_ptr", "cb_ptr"):
        kinds[name] = "*i32"
    for i in gpu_gluon.mm_ws.constexprs:
        kinds[gpu_gluon.mm_ws.arg_names[i]] = "constexpr"
    kinds["out_desc"] = "constexpr"  # None, unless out_block (below)
    kinds["flags_ptr"] = "*i32"
    blocks = [("a_desc", [bm, bk], gl.int8), ("b_desc", [bn, bk], gl.int8)]
    blocks += [("out_desc", list(out_block), gl.int32)] if out_block else []
    for name, block, dtype in blocks:
        layout = gl.NVMMASharedLayout.get_default_for(block, dtype)
        kinds[name] = f"tensordesc<{'i8' if dtype == gl.int8 else 'i32'}[{block[0]}, {block[1]}],{layout!r}>"
    return kinds


def _consts(cfg: dict, **flags) -> dict:
    """The constexprs gpu.py launches mm_ws with in configuration ``cfg`` (its tiles stored from registers unless
    ``flags`` say EPI_BUFS), with ``flags`` (HAS_C, CENTRED...)."""
    # The kernel's own defaults for the constexprs a launch may leave out (EPI_BUFS, PARTS, TAIL...), then the
    # configuration's own; how its tiles are stored, shared and cut come from ``flags``.
    consts = {p.name: p.default for p in gpu_gluon.mm_ws.params if p.is_constexpr and p.has_default}
    consts.update({name: cfg[name] for name in ("GROUP", "NUM", "PING", "CLUSTER", "PTX", "SNAKE") if name in cfg})
    consts.update(flags)
    consts = consts if consts["TAIL"] else dict(consts, split=1, flags_ptr=None)
    return consts if consts["EPI_BUFS"] else dict(consts, out_desc=None)


def compile_all() -> None:
    # gpu.py launches PING, WIDE one program a tile row (its default) and in clusters (multicast asked for), WIDE's
    # tiles stored by TMA (where N allows) or from registers, THIRDS where M fills its tiles; WIDE and THIRDS with
    # the last round's tiles cut along K (TAIL).
    wide = gpu_gluon.WIDE
    configs = [gpu_gluon.PING, wide, dict(wide, CLUSTER=1), dict(wide, EPI_COLS=0, EPI_BUFS=0), gpu_gluon.THIRDS]
    configs += [dict(wide, CLUSTER=1, TAIL=True), dict(wide, CLUSTER=1, EPI_COLS=0, EPI_BUFS=0, TAIL=True)]
    configs += [dict(gpu_gluon.THIRDS, TAIL=True)]
    for cfg in configs:
        c, cols, parts, tail = cfg["CLUSTER"], cfg.get("EPI_COLS", 0), cfg.get("PARTS", 2), cfg.get("TAIL", False)
        out_block = (cfg["BM"] // parts, cols) if cols else None
        for has_c, centred in ((False, False), (True, True)):
            flags = dict(HAS_C=has_c, CENTRED=centred, EPI_BUFS=cfg.get("EPI_BUFS", 0), PARTS=parts, TAIL=tail)
            consts = _consts(cfg, **flags)
            kinds = _signature(gpu_gluon.a_rows(cfg), cfg["BN"] // c, cfg["BK"], out_block)
            src = GluonASTSource(gpu_gluon.mm_ws, kinds, consts)
            k = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": cfg["num_warps"]})
            ptx, what = k.asm["ptx"], (cfg, has_c, centred)
            if cols:  # each consumer's tile in chunks of EPI_COLS columns, each written to shared memory and copied
                chunks = parts * cfg["BN"] // cols
                assert ptx.count("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group") == chunks, what
                assert tail or "st.global" not in ptx, what  # a tail tile's first part is stored from registers
            if tail:  # a tail tile's parts meet through flags: released once stored, acquired before adding
                assert ptx.count("atom.global.gpu.release.add") == parts == ptx.count("ld.global.gpu.acquire"), what
            # Each consumer two MMAs a K step (two of M = 64, or two of N = 128), asynchronous warpgroup ones.
            consumers = 2 if cfg["PING"] else parts
            assert ptx.count("wgmma.mma_async") == consumers * 2 * cfg["BK"] // 32, what
            # Each consumer hands a stage back twice a tile (in its K loop with one MMA still in flight, and after
            # it); ping-pong's turns are arrivals too.
            if c == 1:
                hand_backs = consumers * 2 + 2 * cfg["PING"]
                assert ptx.count("mbarrier.arrive.shared::cta.b64") == hand_backs, what
                assert "wgmma.wait_group.sync.aligned 1;" in ptx, what
            # Each consumer synchronises its own warp group only (no barrier of 256 threads, one barrier apiece; and
            # THIRDS' loader of four warps one).
            named = set(re.findall(r"bar\.sync\s+(\d+), (\d+);", ptx))
            assert {n for _, n in named} == {"128"} and len(named) == consumers + (parts == 3), (what, named)
            assert "setmaxnreg" in ptx, what  # the partitions' registers rebalanced: warp specialisation happened
            assert not _serialised(ptx), what
            assert k.metadata.shared <= SHARED_MAX, (what, k.metadata.shared)
            # The plan calls the launcher itself and passes no scratch memory.
            assert not k.metadata.global_scratch_size and not k.metadata.profile_scratch_size, what
            _clusters_as_written(ptx, c, what)


def _clusters_as_written(ptx: str, c: int, what) -> None:
    """The rewrite (gpu_ptx.clustered) made clusters of c programs, or left the kernel alone for c = 1: c copies
    of parts of B, multicast to all c; each consumer's two arrivals (in and after its K loop) made in all c
    programs; three meeting points of the whole cluster, the first after the barriers' initialisation."""
    if c == 1:
        assert "cluster" not in ptx.replace("shared::cluster", ""), what
        return
    assert f".reqnctapercluster {c}, 1, 1" in ptx, what
    multicast = re.findall(r"\.multicast::cluster \[[^;]*\], (%\w+);", ptx)
    assert len(multicast) == c and re.search(rf"mov\.b16 {multicast[0]}, {(1 << c) - 1};", ptx), what
    assert ptx.count("mbarrier.arrive.shared::cluster.b64") == 4 * c == ptx.count("mapa.shared::cluster"), what
    assert "mbarrier.arrive.shared::cta" not in ptx, what
    meets = [i.start() for i in re.finditer("barrier.cluster.arrive;", ptx)]
    assert len(meets) == 3 == ptx.count("barrier.cluster.wait;"), what
    assert ptx.rfind("mbarrier.init") < ptx.find("fence.mbarrier_init.release.cluster") < meets[0], what


def snake_reaches_the_loader() -> None:
    """THIRDS' SNAKE (K walked backwards every other tile) changes the kernel: the constexpr reaches the loader
    (its results are checked on the H200: test_gpu_rounds_walk_k_both_ways)."""
    cfg = gpu_gluon.THIRDS
    out_block = (cfg["BM"] // cfg["PARTS"], cfg["EPI_COLS"])
    kinds = _signature(gpu_gluon.a_rows(cfg), cfg["BN"], cfg["BK"], out_block)
    ptx = {}
    for snake in (False, True):
        flags = dict(HAS_C=False, CENTRED=False, EPI_BUFS=cfg["EPI_BUFS"], PARTS=cfg["PARTS"], TAIL=True)
        src = GluonASTSource(gpu_gluon.mm_ws, kinds, _consts(dict(cfg, SNAKE=snake), **flags))
        ptx[snake] = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4}).asm["ptx"]
    assert cfg["SNAKE"] and ptx[False] != ptx[True]


def rewrite_refuses_other_shapes() -> None:
    """The rewrite fails loudly on PTX not shaped as Triton 3.6 emits it, rather than emit a kernel that hangs."""
    cfg = gpu_gluon.WIDE
    # Another PTX tag: Triton's cache keeps this kernel apart from the rewritten one of the same source.
    consts = _consts(cfg, HAS_C=False, CENTRED=False, PTX="not rewritten")
    src = GluonASTSource(gpu_gluon.mm_ws, _signature(cfg["BM"], cfg["BN"] // 2, cfg["BK"]), consts)
    from triton import knobs

    hook, knobs.runtime.add_stages_inspection_hook = knobs.runtime.add_stages_inspection_hook, None
    try:
        ptx = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4}).asm["ptx"]
    finally:
        knobs.runtime.add_stages_inspection_hook = hook
    assert ".reqnctapercluster" not in ptx and gpu_ptx.clustered(ptx) != ptx
    for broken in (ptx.replace("brx.idx", "brx.other"), ptx.replace(".reqntid", ".maxntid")):
        try:
            gpu_ptx.clustered(broken)
        except gpu_ptx.RewriteError:
            continue
        raise AssertionError("a broken kernel rewritten")


def rowb_compiles() -> None:
    """The kernel for few rows and a row-major B (gpu_gluon_rowb), for each padded row count it takes and each way
    its K chunks meet: two programs fit a multiprocessor, no scratch memory (its plan launches it itself), B's
    tile loaded in 32-bit words straight into the MMA's register operand, and no MMA serialised."""
    rb = gpu_gluon_rowb
    rows = range(rb.ROWS[0], rb.ROWS[1] + 1)
    # (padded rows 8, 16, 32, 64; stages), B short and long, rows past 64 in blocks of 64
    kinds_of_call = sorted({(rb.padded_rows(m), rb.stages(m, n, n)) for m in rows for n in (4096, 16384)})
    assert {(32, rb.NUM_LONG), (64, rb.NUM), (64, rb.NUM_BLOCKS)} <= set(kinds_of_call), kinds_of_call
    for mp, num in kinds_of_call:
        for neg, reduce, filled in ((True, rb.ATOMIC, True), (False, rb.ATOMIC, False), (False, rb.STORE, False)):
            kinds = dict.fromkeys(rb.mm_rowb.arg_names, "i32")
            kinds.update(out_ptr="*i32", NUM="constexpr", NEG="constexpr", REDUCE="constexpr", AFTER_FILL="constexpr")
            for name, block in zip(("a_desc", "b_desc"), rb._blocks(mp)):
                layout = gl.NVMMASharedLayout.get_default_for(block, gl.int8)
                kinds[name] = f"tensordesc<i8[{block[0]}, {block[1]}],{layout!r}>"
            src = GluonASTSource(rb.mm_rowb, kinds, dict(NUM=num, NEG=neg, REDUCE=reduce, AFTER_FILL=filled))
            options = {"num_warps": rb.WARPS, "launch_pdl": filled}
            k = triton.compile(src, target=GPUTarget("cuda", 90, 32), options=options)
            ptx, what = k.asm["ptx"], (mp, num, neg, reduce, filled)
            # After the zero fill, the wait for it comes after the K loop's last MMA, before the first atomic add.
            waits = ptx.find("griddepcontrol.wait")
            assert (waits >= 0) == filled and k.metadata.launch_pdl == filled, what
            if filled:
                assert ptx.rfind("wgmma.mma_async") < waits < ptx.find("atom.global"), what
            # A multiprocessor's 228 KB hold PER_SM programs, each with 1 KB the hardware reserves.
            assert rb.PER_SM * (k.metadata.shared + 1024) <= 228 * 1024, (what, k.metadata.shared)
            assert not k.metadata.global_scratch_size and not k.metadata.profile_scratch_size, what
            # B's tile goes from shared memory into registers in 32-bit loads (four copies of a K step: the first,
            # a pair and the last) and from there into the MMA as its first operand, no data moved between lanes
            # or through shared memory on the way; the MMAs overlap (ptxas serialises none).
            first, last = ptx.find("wgmma.mma_async"), ptx.rfind("wgmma.mma_async")
            assert re.search(r"wgmma\.mma_async[^;]*\}, \{%r", ptx) and "shfl" not in ptx, what
            assert "st.shared" not in ptx[first:last], what
            assert ptx.count("ld.shared.b32") == 4 * rb.BN * rb.BK // 4 // 128, what
            assert not _serialised(ptx), what
            assert ("atom.global" in ptx) == (reduce == rb.ATOMIC), what


def fill_compiles() -> None:
    """The zero fill before split K chunks meet (gpu_kernels.zeros) lets the kernel after it start first thing, and
    gpu_split's kernel, meeting in its output (FILLED), waits for the fill only after its K loop, before its first
    atomic add."""
    from triton.compiler.compiler import ASTSource

    from intdot.gemm import gpu_kernels, gpu_split

    target = GPUTarget("cuda", 90, 32)
    src = ASTSource(gpu_kernels.zeros, {"out_ptr": "*i32", "n": "i32", "BLOCK": "constexpr"}, {"BLOCK": 8192})
    ptx = triton.compile(src, target=target, options={"num_warps": 4}).asm["ptx"]
    assert -1 < ptx.find("griddepcontrol.launch_dependents") < ptx.find("st.global"), ptx[:2000]
    cfg = gpu_split.WIDE
    kinds = dict.fromkeys(gpu_kernels.split.arg_names, "i32")
    kinds.update(a_ptr="*i8", b_ptr="*i8", out_ptr="*i32", ws_ptr="*i32", cnt_ptr="*i32")
    consts = dict(REDUCE=gpu_split.FILLED, A_U8=False, B_U8=False, BM=64, BN=cfg["BN"], BK=cfg["BK"], SWAP=False)
    kinds.update(dict.fromkeys(consts, "constexpr"))
    options = {"num_warps": cfg["num_warps"], "num_stages": cfg["num_stages"], "launch_pdl": True}
    k = triton.compile(ASTSource(gpu_kernels.split, kinds, consts), target=target, options=options)
    ptx = k.asm["ptx"]
    last_mma = max(ptx.rfind("mma.sync"), ptx.rfind("wgmma.mma_async"))
    assert k.metadata.launch_pdl and -1 < last_mma < ptx.find("griddepcontrol.wait") < ptx.find("atom.global")


def _at(bases, index):
    """The coordinates that a linear layout's basis bits in ``index`` select: the bases xor-ed."""
    x = y = 0
    for i, base in enumerate(bases):
        if index >> i & 1:
            x, y = x ^ base[0], y ^ base[1]
    return x, y


def _mma_row(n: int) -> int:
    """gpu_gluon_rowb's MMA row of B's tile column n: its bits from the lowest r3, r6, r0, r1, r2, r4, r5."""
    bit = [(n >> i) & 1 for i in range(7)]
    return bit[2] | bit[3] << 1 | bit[4] << 2 | bit[0] << 3 | bit[5] << 4 | bit[6] << 5 | bit[1] << 6


def rowb_registers_are_the_mma_operand() -> None:
    """gpu_gluon_rowb's register layout of B's tile (``_regs``), its columns relabelled as MMA rows, against the
    register fragment of the warpgroup MMA's first operand for 8-bit integers (PTX ISA, wgmma .m64nNk32: lane
    4 g + t of warp w holds rows 16 w + g and + 8, K bytes 4 t .. 4 t + 3 and 16 more of each 32, and the rows 64
    on): each lane holds exactly its fragment's cells, so the operand needs no data moved between lanes; and each
    32-bit load of a warp (one register word, 32 lanes) reaches at least 16 banks of the 128-byte swizzle (a
    16-byte chunk's index xor the row's low three bits)."""
    rb = gpu_gluon_rowb
    lay = rb._regs.fn() if hasattr(rb._regs, "fn") else rb._regs()
    assert sorted(_mma_row(n) for n in range(rb.BN)) == list(range(rb.BN))
    regs = 1 << len(lay.reg_bases)
    for warp in range(4):
        wk, wn = _at(lay.warp_bases, warp)
        for lane in range(32):
            lk, ln = _at(lay.lane_bases, lane)
            cells = set()
            for reg in range(regs):
                k, n = _at(lay.reg_bases, reg)
                cells.add((_mma_row(n ^ ln ^ wn), k ^ lk ^ wk))
            g, t = lane // 4, lane % 4
            want = {
                (16 * warp + g + 8 * i + 64 * j, 32 * q + 16 * h + 4 * t + byte)
                for i in (0, 1)
                for j in (0, 1)
                for q in range(rb.BK // 32)
                for h in (0, 1)
                for byte in range(4)
            }
            assert cells == want, (warp, lane)

    def bank(row, col):  # the bank of the 32-bit word at byte col of a 128-byte row, after the swizzle
        return ((col // 16) ^ (row % 8)) * 4 + col % 16 // 4

    # The word's own 4 N bytes are register bits 0 and 1; the bits above pick one load each.
    assert [_at(lay.reg_bases, 1 << i) for i in (0, 1)] == [(0, 1), (0, 2)]
    for high in range(regs >> 2):
        for warp in range(4):
            k, n = _at(lay.reg_bases, high << 2)
            wk, wn = _at(lay.warp_bases, warp)
            banks = {bank(k ^ wk ^ lk, n ^ wn ^ ln) for lk, ln in (_at(lay.lane_bases, lane) for lane in range(32))}
            assert len(banks) >= 16, (high, warp, banks)


def rowb_epilogue_covers_whole_lines() -> None:
    """gpu_gluon_rowb's epilogue layout (``_out``): for every register and warp, the 32 lanes hold one output row's
    32 adjacent columns of B, 128 contiguous bytes, and the layout covers each (column, row) of the tile once."""
    rb = gpu_gluon_rowb
    for mp in (8, 16, 32, 64):
        lay = rb._out.fn(mp) if hasattr(rb._out, "fn") else rb._out(mp)
        seen = set()
        for reg in range(1 << len(lay.reg_bases)):
            for warp in range(4):
                r0, m0 = _at(lay.reg_bases, reg)
                rw, mw = _at(lay.warp_bases, warp)
                cells = [(r0 ^ rw ^ rl, m0 ^ mw ^ ml) for rl, ml in (_at(lay.lane_bases, i) for i in range(32))]
                columns, rows = sorted(c for c, _ in cells), {m for _, m in cells}
                assert len(rows) == 1 and columns == list(range(columns[0], columns[0] + 32)), (mp, reg, warp)
                assert columns[0] % 32 == 0, (mp, reg, warp)
                seen.update(cells)
        assert len(seen) == rb.BN * mp, mp


def rowb_choice() -> None:
    """Two programs a multiprocessor: K split in two at N = K = 16384 (128 column tiles), in eight at 4096; past
    64 rows, blocks of 64 a program each, K split less."""
    rb = gpu_gluon_rowb
    assert rb.grid(48, 16384, 16384, 132) == ((1, 128, 2), 8192)
    assert rb.grid(48, 4096, 4096, 132) == ((1, 32, 8), 512)
    assert rb.grid(17, 200, 100, 132) == ((1, 2, 1), 128)  # one K step: no empty chunk
    assert rb.grid(128, 4096, 4096, 132) == ((2, 32, 4), 1024)
    assert rb.grid(100, 16384, 16384, 132) == ((2, 128, 1), 16384)
    assert [rb.padded_rows(m) for m in (1, 9, 17, 32, 33, 64, 65, 128)] == [8, 16, 32, 32, 64, 64, 64, 64]
    import torch

    def takes(m, k, n):
        return rb.fits(torch.empty((m, k), dtype=torch.int8), torch.empty((k, n), dtype=torch.int8))

    # Up to ROWS[1] rows; 16 or fewer only where B is long (N K >= 2**26), where gpu_split's kernel was slower.
    top = rb.ROWS[1]
    assert takes(17, 64, 64) and takes(top, 4096, 4096) and not takes(top + 1, 4096, 4096)
    assert takes(1, 8192, 8192) and takes(16, 16384, 4096) and not takes(16, 4096, 4096)


def _refused(why: str, warps: int, **consts) -> None:
    """The Hopper kernel with ``consts`` on 128x256 tiles and ``warps`` warps a consumer refused when compiled, its
    static assertion's message (somewhere in Triton's chain of errors) containing ``why``."""
    consts = dict(
        _consts(dict(GROUP=16, NUM=4, PING=False, CLUSTER=1, PTX=gpu_ptx.TAG), HAS_C=False, CENTRED=False), **consts
    )
    src = GluonASTSource(gpu_gluon.mm_ws, _signature(128, 256, 128), consts)
    try:
        triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": warps})
    except Exception as exc:  # Triton's CompilationError, caused by the static assertion's
        chain = []
        while exc is not None:
            chain.append(str(exc))
            exc = exc.__cause__ or exc.__context__
        assert any(why in text for text in chain), chain
    else:
        raise AssertionError(f"compiled: {consts}, {warps} warps")


def misconfigurations_refused() -> None:
    """A ring of one stage would deadlock (a stage goes back a K step late); a row half of 64 rows cannot be spread
    over two warp groups (16 rows a warp); ping-pong consumers in clusters would hand their turns to both programs
    (gpu_ptx rewrites every arrival): all refused when compiled."""
    _refused("deadlock", 4, NUM=1)
    _refused("a multiple of 16 a warp", 8)
    _refused("take turns across programs", 4, PING=True, CLUSTER=2)


def choice() -> None:
    """Wide tiles only once there are WIDE_PER_SM of them a multiprocessor; the grid one program a
    multiprocessor at most; Triton's own kernel wherever the device is not a Hopper GPU (or WS is off)."""
    sms = 132
    gpu._sm_count = lambda device: sms
    gpu._ws = lambda device: True
    hopper = SimpleNamespace(type="cuda", index=0)
    assert not gpu.MULTICAST  # the default: clusters lose with the stores by TMA
    gpu.MULTICAST = True
    kernel, grid, _, blocks, cfg = gpu._tma_setup(8192, 8192, hopper)
    assert kernel.fn is gpu_gluon.mm_ws and blocks == ([128, 128], [128, 128]) and grid == sms and not cfg["PING"]
    assert cfg["CLUSTER"] == 2
    # A grid of whole clusters of two: an odd multiprocessor count rounded down.
    gpu._sm_count = lambda device: 131
    assert gpu._tma_setup(8192, 8192, hopper)[1] == 130
    gpu._sm_count = lambda device: sms
    gpu.MULTICAST = False
    # 8192 rows fill 192-row tiles but for 64 rows: THIRDS, 43 x 32 tiles, the last round's 56 in two parts each.
    _, grid, _, blocks, cfg = gpu._tma_setup(8192, 8192, hopper, 8192)
    assert blocks == ([64, 128], [256, 128]) and grid == sms and cfg["CLUSTER"] == 1 and cfg["PARTS"] == 3
    assert cfg["TAIL"] and cfg["split"] == 2 and cfg["EPI_ROWS"] == 64
    assert cfg["SNAKE"]  # every other round walks K backwards (A's slices still in L2)
    # 4352 rows fill 192-row tiles but for 64: THIRDS, 23 x 32 tiles, 5 rounds and 76: the last kept whole.
    _, grid, _, blocks, cfg = gpu._tma_setup(4352, 8192, hopper, 8192)
    assert blocks == ([64, 128], [256, 128]) and not cfg["TAIL"]
    # 4480 rows would leave 128 of 4608 empty: WIDE, 35 x 32 tiles, 8 rounds and 64, each cut in two; at most one
    # K step a part; the last round kept whole where the depth is not given.
    _, grid, _, blocks, cfg = gpu._tma_setup(4480, 8192, hopper, 8192)
    assert blocks == ([128, 128], [256, 128]) and cfg["PARTS"] == 2 and cfg["split"] == 2 and cfg["EPI_ROWS"] == 64
    assert not cfg["SNAKE"]  # the wide tiles walk K forwards: the same speed (scripts/gpu/tail_ab.py)
    assert not gpu._tma_setup(4480, 8192, hopper, 128)[4]["TAIL"]
    assert not gpu._tma_setup(4480, 8192, hopper)[4]["TAIL"]
    assert gpu._tma_setup(4480, 7936, hopper, 8192)[4]["split"] == 4  # 35 x 31: 8 rounds and 29
    assert gpu._tma_setup(4480, 7936, hopper, 384)[4]["split"] == 3
    gpu.TAIL = False
    assert not gpu._tma_setup(4480, 8192, hopper, 8192)[4]["TAIL"]
    gpu.TAIL = True
    gpu.THIRDS = False
    assert gpu._tma_setup(8192, 8192, hopper, 8192)[3] == ([128, 128], [256, 128])
    gpu.THIRDS = True
    gpu.MULTICAST = True
    kernel, grid, _, blocks, cfg = gpu._tma_setup(1024, 4096, hopper)
    assert blocks == ([128, 128], [128, 128]) and cfg["PING"] and grid == sms
    kernel, grid, _, blocks, cfg = gpu._tma_setup(200, 300, hopper)
    assert cfg["PING"] and grid == 2 * 3
    gpu._ws = lambda device: False
    kernel, grid, _, blocks, cfg = gpu._tma_setup(8192, 8192, hopper)
    assert kernel.fn.__name__ == "mm_tma" and grid == 64 * 64


if __name__ == "__main__":
    compile_all()
    snake_reaches_the_loader()
    rewrite_refuses_other_shapes()
    misconfigurations_refused()
    choice()
    rowb_compiles()
    fill_compiles()
    rowb_registers_are_the_mma_operand()
    rowb_epilogue_covers_whole_lines()
    rowb_choice()
    print("ok", file=sys.stderr)
