"""The CUDA backend: Triton int8 tensor-core GEMM, a per-step saturating kernel, float64 for 16-bit lanes.

Exactness, not hope:
- 8- and 4-bit lanes: unsigned operands are centred to int8 (``x ^ 0x80`` is ``x - 128``), the int8 x int8
  products accumulate in int32 on the tensor cores, and the centring is corrected in the kernel's epilogue;
  every step is arithmetic modulo 2**32, which is what a 32-bit accumulator keeps, so even sums that pass
  2**31 come out right (tested on the device with worst-case inputs, scripts/gpu/).
- 16-bit lanes and 64-bit accumulators: float64 matmul over K blocks in which no partial sum reaches
  2**53, summed in int64.
- clamp (:mod:`.gpu_clamp`): a Triton kernel walks the K steps in order for the outputs that may saturate,
  saturating at each step; the others are the wrapped product.

Up to ``SPLIT_M`` rows (more where ``splits`` says), the split-K kernel of :mod:`.gpu_split` computes the
product, reading any layout and uint8 as they are (on Hopper, int8 with a row-major B goes to
:mod:`.gpu_gluon_rowb`, which loads B's tiles as the tensor cores want them: from 17 rows, or from 1 where B is
long, up to 256).  Beyond, the tensor-core kernel reads both operands K-contiguous: A row-major and B column-major
(``b.T`` contiguous), the layout on which the H200 is fastest.
Operands given in that layout are used as they are; any other layout costs one pass of the transposing kernel
(``rows_int8``, ``cols_int8``), which is part of every call and of every timing.
"""

from __future__ import annotations

import os

import numpy as np

from . import gpu_launch, gpu_ptx

_KERNELS: dict = {}
# Which tensor-core kernel runs ("tma", "persist", "plain"; "split" for split-K wherever splits() says) and whether the
# TMA kernels may: read once, at import (a call reading the environment would pay 2 us of a decode step's host
# time); the tests and scripts/gpu/ set them to compare the kernels.
KERNEL = os.environ.get("INTDOT_GEMM_KERNEL", "tma")
TMA = os.environ.get("INTDOT_GEMM_TMA", "1") != "0"
# On Hopper (sm_90) with Triton 3.6 the TMA kernel is the warp-specialised Gluon one (gpu_gluon.py);
# INTDOT_GEMM_WS=0 keeps Triton's own (gpu_kernels.mm_tma) there too.
WS = os.environ.get("INTDOT_GEMM_WS", "1") != "0"
# Its wide configuration's consumers store their tiles by TMA through shared memory (gpu_gluon.WIDE's EPI_COLS);
# INTDOT_GEMM_TMA_STORES=0 stores them from registers as before.  INTDOT_GEMM_MULTICAST=1 runs it in clusters of
# two programs sharing each B tile by TMA multicast (gpu_gluon.WIDE's CLUSTER, gpu_ptx): with the stores from
# registers that gained 0.5-0.8%, with the stores by TMA it loses 1% (8192^3 sustained on the H200: one program a
# tile row 1,320 TOPS, clusters 1,309; scripts/gpu/epi_ab.py), so it is off unless asked for.
TMA_STORES = os.environ.get("INTDOT_GEMM_TMA_STORES", "1") != "0"
MULTICAST = os.environ.get("INTDOT_GEMM_MULTICAST", "0") == "1"
# Where M fills 192-row tiles as well as 128-row ones (at most THIRDS_WASTE of them past M), the wide tiles are
# 192x256 (gpu_gluon.THIRDS: three consumers, 22% fewer bytes copied an operation); INTDOT_GEMM_THIRDS=0 keeps
# 128x256.  Where the last round of tiles leaves at least half the programs idle, its tiles are cut along K into
# parts that the idle programs take (gpu_gluon.tail_split); INTDOT_GEMM_TAIL=0 keeps them whole.
THIRDS = os.environ.get("INTDOT_GEMM_THIRDS", "1") != "0"
THIRDS_WASTE = 1 / 64
TAIL = os.environ.get("INTDOT_GEMM_TAIL", "1") != "0"
# The Gluon kernel's wide tiles (gpu_gluon.WIDE) once they number this many a multiprocessor, its ping-pong 128x128
# tiles below that: within 3% of each other on every shape measured (scripts/gpu/sweep.py ws), the wide ones only
# where every multiprocessor walks many, so that the last round's idle multiprocessors weigh little.
WIDE_PER_SM = 8
# One warp group on 128x128 tiles with three 32 KB stages: two programs fit on a multiprocessor, so one's
# epilogue overlaps the other's K loop (scripts/gpu/peak.py on the H200 at 8192^3: 1,279-1,290 TOPS against
# 1,225 for 128x256 tiles with two warp groups and four stages).
TMA_CONFIG = {"BM": 128, "BN": 128, "BK": 128, "G": 16, "num_stages": 3, "num_warps": 4}
# Up to SPLIT_M rows the split-K kernel (gpu_split.py) streams B on every multiprocessor.  Up to SPLIT_M_WIDE rows
# it still beats the TMA kernel where B is not row-major, N K <= SPLIT_NK_WIDE, and the TMA kernel would have at
# most SPLIT_TILES_WIDE tiles, too few to fill the H200's 132 multiprocessors twice over (scripts/gpu/sweep.py
# mid_direct, both kernels launched as a remembered plan launches them, B column-major: at N = K = 8192, M = 256
# split-K 46 against 53 us, M = 384 78 against 57; at N = K = 4096 split-K up to 512 rows; at N = K = 16384 the
# two within 6%, and split-K once 139 against 89 us in bench/gemm.py at M = 128, so the TMA kernel stays there).
SPLIT_M = 64
SPLIT_M_WIDE = 512
SPLIT_NK_WIDE = 1 << 26
SPLIT_TILES_WIDE = 128


def splits(m: int, b) -> bool:
    """Whether the split-K kernel computes a product of ``m`` rows with ``b`` (K, N)."""
    if m <= SPLIT_M:
        return True
    from .gpu_split import row_major

    k, n = b.shape
    return m <= SPLIT_M_WIDE and n * k <= SPLIT_NK_WIDE and _tma_tiles(m, n) <= SPLIT_TILES_WIDE and not row_major(b)


def _tiles(m: int, n: int, bm: int, bn: int) -> int:
    """Output tiles of bm x bn that cover an (m, n) result."""
    return -(-m // bm) * -(-n // bn)


def _tma_tiles(m: int, n: int) -> int:
    """Triton's TMA kernel's output tiles (its grid) for an (m, n) result."""
    return _tiles(m, n, TMA_CONFIG["BM"], TMA_CONFIG["BN"])


def _takes_split(m: int, b) -> bool:
    """Whether the split-K kernel computes this product with the kernel choice in force (KERNEL)."""
    return KERNEL in ("tma", "split") and splits(m, b)


def _triton():
    """The Triton kernels (:mod:`.gpu_kernels`) by name, loaded on first use."""
    if "mm" in _KERNELS:
        return _KERNELS
    import triton

    from . import gpu_kernels as g

    direct = gpu_launch.direct
    # The kernels launched with a fixed grid, repeated directly where a call's signature repeats (gpu_launch).
    kernels = dict(
        mm=g.mm_tuned,
        mm_raw=direct(g.mm),
        chain=direct(g.chain),
        chain_points=direct(g.chain_points),
        rows=direct(g.rows),
        abs_stats=direct(g.abs_stats),
        may_saturate=direct(g.may_saturate),
        transpose=direct(g.transpose),
        triton=triton,
    )
    if g.TensorDescriptor is not None:
        kernels.update(
            mm_tma=g.mm_tma_tuned,
            mm_persist=g.mm_persist_tuned,
            mm_tma_raw=direct(g.mm_tma),
            mm_persist_raw=g.mm_persist,
            TensorDescriptor=g.TensorDescriptor,
        )
    gpu_gluon = None
    # Gluon's warp_specialize takes the list of partitions from Triton 3.6 on (3.5 would import the module and then
    # fail to compile every call); checked on 3.6 only (the H200's Triton, and the one the tests compile with).
    if tuple(int(p) for p in triton.__version__.split(".")[:2] if p.isdigit()) >= (3, 6):
        try:
            from . import gpu_gluon
        except ImportError:  # pragma: no cover - a build of Triton without Gluon's Hopper modules
            pass
    if gpu_gluon is not None:
        from . import gpu_gluon_rowb

        kernels.update(mm_ws_raw=direct(gpu_gluon.mm_ws), gluon=gpu_gluon, rowb=gpu_gluon_rowb)
    _KERNELS.update(kernels)
    return _KERNELS


def _centre(x):
    """int8 view of a uint8/int8 tensor and its zero point (x - 128 is x ^ 0x80 read as int8)."""
    import torch

    if x.dtype == torch.uint8:
        return (x ^ 0x80).view(torch.int8), 128
    return x, 0


def _transpose_launch(b, y, tile: int = 64, cols: int = 256, warps: int = 8):
    """(grid, arguments, keywords) of the transposing kernel writing b (R, C) row-major into y (C, R)."""
    import torch

    r, c = b.shape
    grid = (-(-r // tile), -(-c // cols))
    return grid, (b, y, r, c), dict(FLIP=b.dtype == torch.uint8, BR=tile, BC=cols, num_warps=warps)


def transposed(b, tile: int = 64, cols: int = 256, warps: int = 8):
    """b.T contiguous as int8 (uint8 centred on the way) and b's zero point: one pass over b."""
    import torch

    y = torch.empty((b.shape[1], b.shape[0]), dtype=torch.int8, device=b.device)
    grid, args, kw = _transpose_launch(b.contiguous(), y, tile, cols, warps)
    _triton()["transpose"][grid](*args, **kw)
    return y, 128 if b.dtype == torch.uint8 else 0


def _canonical(x):
    """x with the strides and alignment a tensor descriptor needs (a copy only where they differ)."""
    if x.stride() == (x.shape[1], 1) and x.data_ptr() % 16 == 0:
        return x
    return x.new_empty(x.shape).copy_(x)


def _rows_pass(x, want_sum: bool):
    """x (R, C) rows contiguous: its int8 form (uint8 centred; int8 as it is) and, if asked, its row sums (int32
    of the int8 form), in at most one pass."""
    import torch

    flip = x.dtype == torch.uint8
    if not (flip or want_sum):
        return x, None
    k = _triton()
    r, c = x.shape
    y = torch.empty((r, c), dtype=torch.int8, device=x.device) if flip else x
    sums = torch.empty(r, dtype=torch.int32, device=x.device) if want_sum else y
    k["rows"][(k["triton"].cdiv(r, 16),)](x, y, sums, r, c, FLIP=flip, SUM=want_sum, BR=16, BC=256, num_warps=4)
    return y, sums if want_sum else None


def rows_int8(a, want_sum: bool = False):
    """a (M, K) as a K-contiguous int8 tensor (uint8 centred) and, if asked, its row sums; at most one pass over
    a where it is row-major (a no-op for int8), one pass of the transposing kernel where it is column-major
    (torch's ``a.contiguous()`` of a transposed int8 tensor is ten times slower), plus a summing pass."""
    if not a.is_contiguous() and a.t().is_contiguous():
        y, _ = transposed(a.t())
        return y, (_rows_pass(y, True)[1] if want_sum else None)
    return _rows_pass(_canonical(a.contiguous()), want_sum)


def cols_int8(b, want_sum: bool = False):
    """b (K, N) as its transpose (N, K), K-contiguous int8 (uint8 centred), and, if asked, its column sums.

    Column-major b already is that transpose: int8 needs no pass at all, uint8 one; row-major (and any other
    strided) b takes one pass of the transposing kernel.
    """
    if b.t().is_contiguous():
        return _rows_pass(_canonical(b.t()), want_sum)
    y, _ = transposed(b)
    return y, (_rows_pass(y, True)[1] if want_sum else None)


def use_tma(k: int) -> bool:
    # The tensor-copy engine needs 16-byte aligned rows: K a multiple of 16 int8 values.
    return "mm_tma" in _triton() and k % 16 == 0 and TMA


_DEVICES: dict = {}


def _properties(device):
    """CUDA's properties of ``device``, asked once a device (the TMA kernel's choice and grid read them on every
    call that no plan launches)."""
    props = _DEVICES.get(device.index)
    if props is None:
        import torch

        props = torch.cuda.get_device_properties(device)
        if device.index is not None:  # "cuda" alone means whichever device is current
            _DEVICES[device.index] = props
    return props


def _sm_count(device) -> int:
    """The multiprocessors a persistent kernel spreads over (the tests pin it where Triton's interpreter runs)."""
    return _properties(device).multi_processor_count


def _zz(za: int, zb: int, k: int) -> int:
    """za * zb * K as the int32 that wraps to the same bits."""
    zz = (za * zb * k) % (1 << 32)
    return zz - (1 << 32) if zz >= 1 << 31 else zz


def _operands(a, b, c, neg: bool):
    """(a8, bt, out, args, flags) of one tensor-core call: a as K-contiguous int8 (M, K), b as its K-contiguous
    int8 transpose (N, K) (uint8 centred, and the correction's sums, where a zero point needs them), a new
    output, then the kernels' arguments after the two operands, and their flags."""
    import torch

    m, kk = a.shape
    n = b.shape[1]
    za = 128 if a.dtype == torch.uint8 else 0
    zb = 128 if b.dtype == torch.uint8 else 0
    # Each correction only where its zero point is not 0 (out stands in: multiplied by a zero point of 0).
    a8, ra = rows_int8(a, want_sum=bool(zb))
    bt, cb = cols_int8(b, want_sum=bool(za))
    out = torch.empty((m, n), dtype=torch.int32, device=a.device)
    args = (out if c is None else c, out, out if ra is None else ra, out if cb is None else cb)
    args += (m, n, kk, za, zb, _zz(za, zb, kk), -1 if neg else 1)
    return a8, bt, out, args, dict(HAS_C=c is not None, CENTRED=bool(za or zb))


def _ws(device) -> bool:
    """Whether the TMA kernel on ``device`` is the Gluon one (gpu_gluon): a Hopper GPU (sm_90) and WS."""
    return WS and device.type == "cuda" and "mm_ws_raw" in _triton() and _properties(device).major == 9


def _rowb(a, b) -> bool:
    """Whether the Gluon kernel for few rows and a row-major B (gpu_gluon_rowb) computes a @ b: where the TMA
    kernel is the Gluon one (``_ws``), the kernel choice is the default, and a and b fit it."""
    return KERNEL == "tma" and _ws(a.device) and _triton()["rowb"].fits(a, b)


def _tma_setup(m: int, n: int, device, kk: int = 0):
    """(kernel, grid, descriptor maker, A's and B's block shapes, constexprs and launch options) of the TMA kernel
    for an (m, n) result of depth ``kk`` (0: not known, the last round kept whole) on ``device``: the Gluon kernel
    on Hopper (persistent, one program a multiprocessor at most), Triton's (TMA_CONFIG, a program a tile)
    elsewhere."""
    k = _triton()
    if _ws(device):
        g = k["gluon"]
        cfg = dict(g.PING)
        sms = _sm_count(device)
        if _tiles(m, n, g.WIDE["BM"], g.WIDE["BN"]) >= WIDE_PER_SM * sms:
            cfg = dict(g.WIDE, CLUSTER=g.WIDE["CLUSTER"] if MULTICAST else 1)
            if THIRDS and not MULTICAST and -m % g.THIRDS["BM"] <= m * THIRDS_WASTE:
                cfg = dict(g.THIRDS)
        a_rows = g.a_rows(cfg)
        # Every parameter named, as gpu_launch.Direct launches only such calls directly: the kernel's own defaults
        # for those the configuration leaves out (flags_ptr: _tail_flags; out_desc: _stores).
        cfg = dict(g.DEFAULTS, **cfg)
        bm, bn, bk = cfg.pop("BM"), cfg.pop("BN"), cfg.pop("BK")
        cfg.setdefault("EPI_COLS", 0)  # how its tiles are stored: _stores, once the output is known
        cfg["EPI_ROWS"] = bm // cfg["PARTS"]  # a consumer's rows
        c = cfg["CLUSTER"]
        # A cluster's c programs take c vertically adjacent tiles, each copying 1/c of their B tile for all of
        # them: the grid is whole clusters, at most one program a multiprocessor.
        tiles = _tiles(-(-m // bm), n, c, bn)
        grid = c * min(sms // c, tiles)
        split = g.tail_split(tiles, grid, -(-kk // bk)) if TAIL and kk and c == 1 and not cfg["PING"] else 1
        cfg.update(TAIL=split > 1, split=split)
        return k["mm_ws_raw"], grid, g.descriptor, ([a_rows, bk], [bn // c, bk]), cfg
    cfg = TMA_CONFIG
    bm, bn, bk = cfg["BM"], cfg["BN"], cfg["BK"]
    return k["mm_tma_raw"], _tma_tiles(m, n), k["TensorDescriptor"].from_tensor, ([bm, bk], [bn, bk]), cfg


_FLAGS: dict = {}


def _tail_flags(device, stream: int):
    """The int32 flags through which the parts of the last round's tiles meet (gpu_gluon.mm_ws's TAIL): one
    buffer a device and stream, since each call leaves them at 0 and calls on one stream run one after another."""
    import torch

    key = (device.index, stream)
    flags = _FLAGS.get(key)
    if flags is None:
        # A flag for each consumer (3 at most) of each tile of the last round (fewer than the programs).
        flags = _FLAGS[key] = torch.zeros(_sm_count(device) * 3, dtype=torch.int32, device=device)
    return flags


def _stores(cfg: dict, out) -> dict:
    """The Gluon kernel's constexprs ``cfg`` with how its consumers store their tiles: by TMA through shared memory
    (out_desc: out in blocks of a consumer's rows, EPI_ROWS, by EPI_COLS columns) where the configuration asks
    (EPI_COLS) and out's rows are whole 16-byte units, as TMA needs; from registers elsewhere."""
    cols, rows = cfg.pop("EPI_COLS", 0), cfg.pop("EPI_ROWS")
    stored_by_tma = TMA_STORES and cols and out.shape[1] % 4 == 0 and out.data_ptr() % 16 == 0
    cfg["out_desc"] = _triton()["gluon"].out_descriptor(out, (rows, cols)) if stored_by_tma else None
    cfg["EPI_BUFS"] = cfg.get("EPI_BUFS", 0) if stored_by_tma else 0
    return cfg


def _tma(a8, bt, args, flags):
    """Launch the TMA kernel (``_tma_setup``) on prepared operands (``_operands``); the launch's result."""
    kernel, grid, desc, (block_a, block_b), cfg = _tma_setup(a8.shape[0], bt.shape[0], a8.device, a8.shape[1])
    if "EPI_COLS" in cfg:  # the Gluon kernel
        cfg = _stores(cfg, args[1])
    if cfg.get("TAIL"):  # only the Gluon kernel's configurations name it
        import torch

        cfg["flags_ptr"] = _tail_flags(a8.device, torch.cuda.current_stream(a8.device).cuda_stream)
    if cfg.get("CLUSTER", 1) > 1:
        # Compiled without the rewrite, a cluster kernel would wait forever: the rewrite is put back into Triton's
        # compiler wherever another stage hook (a profiler's) has replaced it since gpu_gluon's import.
        gpu_ptx.install()
    return kernel[(grid,)](desc(a8, block_a), desc(bt, block_b), *args, **flags, **cfg)


def mm_int8(a, b, c=None, *, neg: bool = False):
    """``c ± a @ b`` modulo 2**32 as an int32 CUDA tensor; a: (M, K), b: (K, N), int8 or uint8 tensors.

    ``c`` (int32, (M, N), optional, any strides) is added in the epilogue; the transposed copy of b is made here.
    """
    import torch

    m, kk = a.shape
    n = b.shape[1]
    if c is not None:
        c = c.contiguous()  # the kernels read c at row-major offsets
    if not (m and n and kk):  # nothing to multiply; the tensor-core kernel's descriptors need real strides
        return torch.zeros((m, n), dtype=torch.int32, device=a.device) if c is None else c.clone()
    if _rowb(a, b):  # B's tiles loaded as the tensor cores want them, once for 64 rows (gpu_gluon_rowb.fits)
        return _triton()["rowb"].mm(a, b, c, neg, _sm_count(a.device))
    if _takes_split(m, b):
        from .gpu_split import mm_split

        # Few rows: split K too, so that streaming B keeps every multiprocessor busy; any layout, no pass (and up to
        # 512 rows, where the TMA kernel's tiles would leave the GPU half idle).
        return mm_split(a, b, c, neg)
    k = _triton()
    a8, bt, out, args, flags = _operands(a, b, c, neg)

    def grid_of(meta):
        return k["triton"].cdiv(m, meta["BM"]) * k["triton"].cdiv(n, meta["BN"])

    kind = KERNEL
    if use_tma(kk) and kind == "tma":
        # Fixed configurations (_tma_setup), so no call pays an autotuning sweep or the autotuner's dispatch.
        _tma(a8, bt, args, flags)
    elif use_tma(kk) and kind == "persist":
        # Block shapes are placeholders; each autotune config sets its own (pre_hook).
        desc = k["TensorDescriptor"]
        da, db = desc.from_tensor(a8, [128, 128]), desc.from_tensor(bt, [128, 128])
        sms = _sm_count(a.device)
        k["mm_persist"][lambda meta: (min(sms, grid_of(meta)),)](da, db, *args, **flags, NUM_SMS=sms)
    else:
        k["mm"][lambda meta: (grid_of(meta),)](a8, bt, *args, **flags)
    return out


def fast(a, b, neg: bool):
    """A function (x, y) -> ±(x @ y) as a new int32 tensor for operands with a's and b's dtypes, shapes, strides
    and 16-byte alignment, where the row-major-B kernel computes them (gpu_gluon_rowb.fast), the split-K kernel
    (launched with its workspace already chosen: gpu_split.fast), or the TMA kernel on int8 (``_tma_plan``); and
    this call's result.
    (None, result) elsewhere: there the TMA kernel and the layout passes are launched directly from the second
    call of a signature on anyway (gpu_launch.Direct; the autotuned kernels of K not a multiple of 16 are not)."""
    m, kk = a.shape
    if m and b.shape[1] and kk and _rowb(a, b):
        return _triton()["rowb"].fast(a, b, neg, _sm_count(a.device))
    if m and b.shape[1] and kk and _takes_split(m, b):
        from .gpu_split import fast as split_fast

        return split_fast(a, b, neg)
    return _tma_plan(a, b, neg)


def _tma_plan(a, b, neg: bool):
    """(call, result) where the TMA kernel (``_tma_setup``) computes int8 x int8 with a row-major (K-contiguous,
    16-byte aligned) or column-major, and b column-major or row-major (the transposing passes in the plan);
    (None, result) elsewhere.

    A call's host time through mm_int8 is mostly bookkeeping that the plan's key has already settled (which passes,
    which kernel, the descriptors' shapes, the launch's signature): about 100 us against 15 for torch's on the H200,
    longer than the kernel itself up to a thousand rows.  The plan keeps the compiled kernel and the arguments
    that do not change, and per call only allocates the output, encodes the tensor maps for the operands' addresses
    (and the output's, where the kernel stores by TMA) and calls the launcher.  Under a changed Triton setting, a
    launch hook or direct launches turned off (gpu_launch.LIMIT = 0) it goes through mm_int8.
    """
    import torch

    m, kk = a.shape
    n = b.shape[1]
    a_row, a_col = a.stride() == (kk, 1), a.stride() == (1, m) and m > 1
    b_col, b_row = b.stride() == (1, kk), b.stride() == (n, 1)
    eligible = KERNEL == "tma" and use_tma(kk) and gpu_launch.LIMIT and a.dtype == b.dtype == torch.int8
    eligible = eligible and (a_col or a.data_ptr() % 16 == 0 and a_row) and (b_col or b_row)
    if not (eligible and a.is_cuda and m and n and kk) or (b_col and b.data_ptr() % 16):
        return None, mm_int8(a, b, neg=neg)
    a8, bt, out, args, flags = _operands(a, b, None, neg)
    ck = gpu_launch.compiled(_tma(a8, bt, args, flags))
    kernel, grid, _, _, cfg = _tma_setup(m, n, a.device, kk)
    cfg = dict(flags, **cfg)
    if "EPI_COLS" in cfg:
        cfg = _stores(cfg, out)
    # The output's tensor map too where the kernel stores by TMA: encoded per call, as the output is new each call.
    stores = [(out, (m, n), (n, 1))] if cfg.get("out_desc") is not None else []
    operands = (a8, (m, kk), (kk, 1)), (bt, (n, kk), (kk, 1))
    planned = gpu_launch.tensor_maps(ck, torch, a.device, *operands, *stores)
    if planned is None:
        return None, out
    go, maps = planned
    # The transposing passes (A column-major, B row-major), launched again themselves as well.
    pass_a = _transpose_plan(a.t(), a8) if a_col else ()
    pass_b = _transpose_plan(b, bt) if b_row else ()
    if pass_a is None or pass_b is None:
        return None, out
    names = kernel.arg_names[2 + len(args) :]
    # The arguments before and after out_desc (the Gluon kernel's; Triton's has none): the output's map goes in
    # its place where the kernel stores by TMA, else its own value (None).
    at = names.index("out_desc") if "out_desc" in names else len(names)
    rest = args[4:] + tuple(cfg[name] for name in names[:at])
    after = tuple(cfg[name] for name in names[at + 1 :])
    dev, grid = a.device, (grid, 1, 1)
    own_value = tuple(cfg[name] for name in names[at : at + 1])
    out_map = maps[2] if stores else lambda o: own_value
    # The flags of the call's stream (TAIL) in their place after the output's map.
    at_flags = names.index("flags_ptr") - at - 1 if cfg.get("TAIL") else None

    def placed(s):
        if at_flags is None:
            return after
        return (*after[:at_flags], _tail_flags(dev, s).data_ptr(), *after[at_flags + 1 :])

    def call(x, y):
        if go.stale():
            return mm_int8(x, y, neg=neg)
        s = go.stream()
        # Each operand K-contiguous: its own memory, or its transpose made here (x's and y's addresses are those
        # of x.t() and y as the passes read them).
        xa = _transpose_into(pass_a, x, (m, kk), s) if pass_a else x
        yt = _transpose_into(pass_b, y, (n, kk), s) if pass_b else y
        o = torch.empty(m, n, dtype=torch.int32, device=dev)  # sizes as arguments: parsed faster than a tuple
        p = o.data_ptr()
        go(grid, s, *maps[0](xa), *maps[1](yt), p, p, p, p, *rest, *out_map(o), *placed(s))
        return o

    return call, out


def _transpose_plan(x, y):
    """(compiled pass, grid, the arguments after the two operands) of the transposing kernel from x (R, C)
    row-major into y (C, R), as a plan launches it again (the pass has just run once for this signature); None
    where it cannot be launched so."""
    grid, args, kw = _transpose_launch(x, y)
    found = _triton()["transpose"].compiled_for(grid, args, kw)
    return None if found is None else (found[0], (*grid, 1), found[1][2:])


def _transpose_into(planned, x, shape, stream):
    """A new int8 tensor of ``shape`` holding x's transpose, by the pass ``_transpose_plan`` found."""
    import torch

    ck, grid, rest = planned
    y = torch.empty(*shape, dtype=torch.int8, device=x.device)
    gpu_launch.launch(ck, grid, stream, (x.data_ptr(), y.data_ptr()) + rest)
    return y


def _bits32(x):
    """int64 values of a 32-bit accumulator (signed or unsigned) as the int32 tensor of their bits."""
    import torch

    return torch.where(x > (1 << 31) - 1, x - (1 << 32), x).to(torch.int32)


def _f64_product(a, b):
    """Exact int64 a @ b for 16-bit lanes: float64 over K blocks whose partial sums stay below 2**53."""
    import torch

    p = max(int(a.abs().max()), 1) * max(int(b.abs().max()), 1) if a.numel() and b.numel() else 1
    kb = max(1, (1 << 53) // p)
    s = torch.zeros((a.shape[0], b.shape[1]), dtype=torch.int64, device=a.device)
    for k0 in range(0, a.shape[1], kb):
        s += (a[:, k0 : k0 + kb].double() @ b[k0 : k0 + kb].double()).to(torch.int64)
    return s


def _as_torch(x):
    import torch

    return torch.from_numpy(np.ascontiguousarray(x)).cuda()


def product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Exact int64 a @ b (NumPy in and out) on the GPU."""
    import torch

    ta, tb = _as_torch(a), _as_torch(b)
    if a.dtype.itemsize == 1 and b.dtype.itemsize == 1 and a.shape[1] < (1 << 17):
        # |sum| < 2**31 for K < 2**17, so the int32 result is the exact sum.
        return mm_int8(ta, tb).to(torch.int64).cpu().numpy()
    return _f64_product(ta.to(torch.int64), tb.to(torch.int64)).cpu().numpy()


def wrap_gemm(a, b, acc, o, neg):
    """The wrapping result (NumPy, the instruction's dtype) computed on the GPU."""
    import torch

    if o.acc_bits == 32 and a.dtype.itemsize == 1 and b.dtype.itemsize == 1:
        c = None if acc is None else _as_torch(acc.astype(np.uint32).view(np.int32))
        out = mm_int8(_as_torch(a), _as_torch(b), c, neg=neg).cpu().numpy()
        return out.view(o.result_dtype)
    s = _f64_product(_as_torch(a).to(torch.int64), _as_torch(b).to(torch.int64)).cpu().numpy().view(np.uint64)
    if acc is not None:
        s = acc - s if neg else acc + s
    elif neg:
        s = np.uint64(0) - s
    return s.astype(np.uint32 if o.acc_bits == 32 else np.uint64).view(o.result_dtype)
