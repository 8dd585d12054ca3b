"""What Gluon in Triton 3.6 cannot spell for the Hopper kernel's clusters, added to its PTX as it compiles.

gpu_gluon.mm_ws with CLUSTER = C > 1 runs as clusters of C programs on C vertically adjacent tiles that share B's
tile: each program copies 1/C of that tile, and the copy engine delivers it to all C programs' shared memory at
once (TMA multicast), so that each B tile is read from L2 once for C tiles instead of C times.  Triton 3.6 lowers
neither multicast copies nor barriers across programs on Hopper, so the kernel is written as if each program
copied its part for itself alone, and :func:`clustered` rewrites its PTX:

- ``.reqnctapercluster C, 1, 1``: the launch makes clusters of C consecutive programs (no launch attribute needed);
- each copy of a part of B (those that read B's tensor map) becomes ``.multicast::cluster`` to all C programs;
- each arrival on a stage's ``empty`` barrier is made on that barrier in all C programs (``mapa``), since a stage
  may be refilled only once every program's consumers have read it (the kernel counts C times the arrivals); the
  arrivals keep their default semantics (release, CTA scope), as CUTLASS's cluster barriers and Triton's own
  remote arrivals (on Blackwell) spell them;
- all threads of the cluster meet (``barrier.cluster``) where all threads of a program first meet, after the
  barriers are initialised (no copy or arrival may reach a program before), and where they meet last, before
  exiting (none may reach a program that has exited).

The rewrite checks the shape of what it rewrites and raises where Triton emitted something else: a Triton upgrade
fails loudly here instead of launching a kernel that deadlocks.  ``install`` puts it into Triton's compiler for
kernels named ``mm_ws``; TAG, a hash of this file, is one of mm_ws's constexprs so that Triton's cache (keyed by
source and constexprs, not by hooks) never serves a kernel compiled by another version of this rewrite.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

TAG = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]
KERNEL = "mm_ws"

_COPY = re.compile(
    r"(?P<pred>@%p\d+ )?cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.mbarrier::complete_tx::bytes "
    r"(?P<ops>\[%r\d+\], \[(?P<map>%rd\d+), \{%r\d+, %r\d+\}\], \[%r\d+\]);"
)
_ARRIVE = re.compile(r"(?P<pred>@%p\d+ )?mbarrier\.arrive\.shared::cta\.b64 _, \[(?P<bar>%r\d+)\];")
# Triton's warp specialisation: the default warps store the partitions' states, then all threads meet (once to
# start, once to exit); the other warps meet there before reading their state and branching to it (brx.idx).
_DEFAULT_MEETS = re.compile(r"(st\.shared\.v\d\.b32 \t\[global_smem\+\d+\], \{[^}]*\};\n\tbarrier\.sync \t1;\n)")
_SYNC = "barrier.sync \t1;\n"
_MEET = "\tbarrier.cluster.arrive;\n\tbarrier.cluster.wait;\n"


def checked(version: str) -> bool:
    """Whether the rewrite was written for this Triton (its version): it reads PTX as Triton 3.6 emits it, and only
    there has it run; elsewhere the kernel runs without clusters."""
    return version.split(".")[:2] == ["3", "6"]


class RewriteError(RuntimeError):
    """The PTX is not what the rewrite was written for (a Triton other than 3.6, or a changed kernel)."""


def _map_register(ptx: str, entry: str, which: int) -> str:
    """The register that holds the generic address of the kernel's ``which``-th tensor-map parameter."""
    params = re.findall(rf"\.param \.align 64 \.b8 ({entry}_param_\d+)\[128\]", ptx)
    if len(params) <= which:
        raise RewriteError(f"{entry}: {len(params)} tensor-map parameters, wanted the one numbered {which}")
    moved = re.search(rf"mov\.b64 \t(%rd\d+), {params[which]};", ptx)
    generic = moved and re.search(rf"cvta\.param\.u64 \t(%rd\d+), {re.escape(moved.group(1))};", ptx)
    if not generic:
        raise RewriteError(f"{entry}: the address of {params[which]} not found")
    return generic.group(1)


def clustered(ptx: str) -> str:
    """mm_ws's PTX as it runs in clusters (the module's docstring): unchanged where its loader copies B's tile
    whole (CLUSTER 1); else with C copies of parts of B, clusters of C."""
    entry = re.search(r"\.entry (\w+)\(", ptx)
    if not entry or entry.group(1) != KERNEL:
        return ptx
    b_map = _map_register(ptx, KERNEL, 1)
    parts = [m for m in _COPY.finditer(ptx) if m.group("map") == b_map]
    c = len(parts)
    if c <= 1:
        return ptx
    if c & (c - 1) or c > 8:
        raise RewriteError(f"{KERNEL}: {c} copies of parts of B; a cluster of 2, 4 or 8 programs copies as many")

    def multicast(m):
        return (
            f"{{\n\t.reg .b16 %mcast;\n\tmov.b16 %mcast, {(1 << c) - 1};\n\t{m.group('pred') or ''}"
            f"cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
            f"{m.group('ops')}, %mcast;\n\t}}"
        )

    out = _COPY.sub(lambda m: multicast(m) if m.group("map") == b_map else m.group(0), ptx)

    def everywhere(m):
        lines = [f"{{\n\t.reg .b32 %remote<{c}>;"]
        for rank in range(c):
            lines.append(f"\tmapa.shared::cluster.u32 %remote{rank}, {m.group('bar')}, {rank};")
            lines.append(f"\t{m.group('pred') or ''}mbarrier.arrive.shared::cluster.b64 _, [%remote{rank}];")
        return "\n".join(lines) + "\n\t}"

    out, arrivals = _ARRIVE.subn(everywhere, out)
    if not arrivals:
        raise RewriteError(f"{KERNEL}: no arrivals on the empty barriers found")
    out, starts = _DEFAULT_MEETS.subn(lambda m: m.group(1) + _MEET, out)
    dispatch = out.find("brx.idx")
    worker = out.rfind(_SYNC, 0, dispatch)
    if starts != 2 or out.count("brx.idx") != 1 or worker < 0:
        raise RewriteError(
            f"{KERNEL}: the threads' meeting points not as in Triton 3.6 ({starts} for the default warps)"
        )
    worker += len(_SYNC)
    out = out[:worker] + _MEET + out[worker:]
    # The barriers' initialisation made visible to the cluster before the first meeting.
    first = out.index(_MEET)
    out = out[:first] + "\tfence.mbarrier_init.release.cluster;\n" + out[first:]
    out, n = re.subn(r"(\.reqntid \d+)\n", rf"\1\n.reqnctapercluster {c}, 1, 1\n", out, count=1)
    if n != 1:
        raise RewriteError(f"{KERNEL}: no .reqntid directive")
    return out


def _hook(backend, stages, options, language, capability):
    make_ptx = stages["ptx"]
    stages["ptx"] = lambda src, metadata: clustered(make_ptx(src, metadata))


def install():
    """Put :func:`clustered` into Triton's compiler, after any stage hook already there (idempotent)."""
    from triton import knobs

    previous = knobs.runtime.add_stages_inspection_hook
    if getattr(previous, "_intdot_clustered", False):
        return

    def hook(backend, stages, options, language, capability):
        if previous is not None:
            previous(backend, stages, options, language, capability)
        _hook(backend, stages, options, language, capability)

    hook._intdot_clustered = True
    knobs.runtime.add_stages_inspection_hook = hook
