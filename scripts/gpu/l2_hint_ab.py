"""Whether cache hints on the Hopper kernel's copies spend less energy at the H200's power cap: gemm's 8192^3
kernel (gpu_gluon.THIRDS, the last round cut along K) with its TMA copies of A and B marked to stay in L2
(``evict_last``) and its TMA stores of the output marked to leave first (``evict_first``), so that the 256 MB the
output streams through L2 evicts fewer operand lines that later tiles read again from HBM.  Gluon cannot spell the
hints, so a stage hook after gpu_ptx's adds them to the PTX (``.L2::cache_hint`` with a ``createpolicy`` each)
while a variant compiles; each variant's PTX constexpr differs, so that Triton's caches keep them apart.  Every
variant is checked exact first, then timed alternating (run back to back for 2 s, then by do_bench), the clock and
power sampled.

    python scripts/gpu/l2_hint_ab.py [ROUNDS [NAME ...]]     # on the H200; NAME: VARIANTS' keys

On 2026-12-03 (scripts/gpu/h200-results.txt, fourteenth session), 3 rounds, sustained / do_bench: gemm's kernel
1,369 / 1,393 TOPS (1,360-1,430); stores evict first 1,358 / 1,410; loads evict last 1,365 / 1,413; both 1,361 /
1,404; the bench through gemm with the loads evict last 1,380 (against 1,384-1,404 without, the same session).
No gain beyond the rounds' spread: the hints stayed out of gpu_ptx.
"""

import re
import sys

import torch
from power import compare, launch, rewrite_ptx

from intdot.gemm import gpu_gluon, gpu_ptx

_LOAD = r"cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.mbarrier::complete_tx::bytes"
_STORE = r"cp\.async\.bulk\.tensor\.2d\.global\.shared::cta\.bulk_group"
# name: the L2 policies of (A's and B's loads, the output's stores by TMA); None as Triton emits them.
VARIANTS = {
    "gemm's kernel": (None, None),
    "stores evict first": (None, "evict_first"),
    "loads evict last": ("evict_last", None),
    "loads evict last, stores evict first": ("evict_last", "evict_first"),
}


_HINTS = {"on": (None, None)}


def hinted(ptx: str, op: str, hint: str) -> str:
    """ptx with every copy spelt ``op`` given the L2 policy ``hint``, a policy register of its own each."""

    def one(m):
        return (
            f"{{\n\t.reg .b64 %pol;\n\tcreatepolicy.fractional.L2::{hint}.b64 %pol, 1.0;\n\t"
            f"{m.group('pred') or ''}{m.group('op')}.L2::cache_hint {m.group('args')}, %pol;\n\t}}"
        )

    out, n = re.subn(rf"(?P<pred>@%p\d+ )?(?P<op>{op}) (?P<args>[^;]*);", one, ptx)
    assert n, f"no copy {op} found"
    return out


def hinted_copies(ptx: str) -> str:
    """ptx with the copies hinted as _HINTS says (power.rewrite_ptx runs it as every kernel compiles)."""
    for op, hint in zip((_LOAD, _STORE), _HINTS["on"]):
        ptx = hinted(ptx, op, hint) if hint else ptx
    return ptx


def built(name, a, bt, out):
    """The call of gemm's kernel in variant ``name``, compiled (by its first call) with its hints."""
    hints = VARIANTS[name]
    go = launch(dict(gpu_gluon.THIRDS, PTX=f"{gpu_ptx.TAG} {hints}"), a, bt, out, tail=True)[0]
    _HINTS["on"] = hints
    try:
        go()
        torch.cuda.synchronize()
    finally:
        _HINTS["on"] = (None, None)
    return go


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    names = sys.argv[2:] or list(VARIANTS)
    rewrite_ptx(hinted_copies)
    m = n = k = 8192
    a = torch.randint(-128, 128, (m, k), dtype=torch.int8, device="cuda")
    bt = torch.randint(-128, 128, (n, k), dtype=torch.int8, device="cuda")
    out = torch.empty((m, n), dtype=torch.int32, device="cuda")
    ref = torch._int_mm(a, bt.t())
    runs = {}
    for name in names:
        runs[name] = built(name, a, bt, out)
        for _ in range(3):
            out.fill_(-7)
            runs[name]()
            assert torch.equal(out, ref), f"{name} not exact"
        print(f"exact: {m}x{n}x{k} {name}, 3 calls", flush=True)
    compare(runs, 2 * m * n * k, f"{m}x{n}x{k} ", rounds=rounds, seconds=2.0)
    compare(runs, 2 * m * n * k, f"{m}x{n}x{k} do_bench ", rounds=rounds + 2)


if __name__ == "__main__":
    main()
