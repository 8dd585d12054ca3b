"""The Arm dot forms as the tests know them, independently of intdot's table.

Every form id of the contract (75: NEON, SVE, SVE2.1 and SME2 sdot/udot/usdot/sudot),
random operands within what *every* row's encoding allows, and the
assembly text LLVM accepts for them (written here from the Arm ARM's syntax,
so QEMU's programs never depend on intdot's printer).  Semantics of an id:
``tests/arm/reference_arm.py``.
"""

from __future__ import annotations

import dataclasses
import random

from . import reference_arm as ref


def _ids() -> list[str]:
    ids = []
    for mn in ("sdot", "udot", "usdot", "sudot"):
        if mn != "sudot":
            ids += [f"{mn}_neon_vec_64", f"{mn}_neon_vec_128"]
        ids += [f"{mn}_neon_elem_64", f"{mn}_neon_elem_128"]
    for mn in ("sdot", "udot"):
        for tail in ("", "_d", "_hs"):
            ids += [f"{mn}_sve_vec{tail}", f"{mn}_sve_indexed{tail}"]
    ids += ["usdot_sve_vec", "usdot_sve_indexed", "sudot_sve_indexed"]
    for mn, tails in (("sdot", ("", "_hs", "_d")), ("udot", ("", "_hs", "_d")), ("usdot", ("",)), ("sudot", ("",))):
        for tail in tails:
            for mode in ("single", "multi", "indexed"):
                if mn == "sudot" and mode == "multi":
                    continue  # no such instruction (the ACLE spells it as USDOT)
                ids += [f"{mn}_sme2_{mode}{tail}_vgx2", f"{mn}_sme2_{mode}{tail}_vgx4"]
    return ids


ALL_IDS = _ids()
ORIGINAL_IDS = (
    "sudot_neon_elem_64",
    "sudot_neon_elem_128",
    "sudot_sve_indexed",
    "sudot_sme2_indexed_vgx2",
    "sudot_sme2_indexed_vgx4",
    "sudot_sme2_single_vgx2",
    "sudot_sme2_single_vgx4",
)


def needs_new_qemu(form_id: str) -> bool:
    """SVE2.1 (the 2-way .h -> .s SVE forms) needs the QEMU 11 of the oracle installer."""
    return form_id.endswith("_hs") and "_sve_" in form_id


def streaming_only(form_id: str) -> bool:
    return "_sme2_" in form_id


def dot_spec(form_id: str):
    """The core spec the id implies, built here from the reference's description (not from intdot.arm)."""
    from intdot.core import DotSpec

    _, sem, _, _ = ref.describe(form_id)
    w = sem.lane_bits
    return DotSpec(
        w, w, sem.lanes, sem.a_signed, sem.b_signed, acc_bits=sem.esize, acc_signed=not form_id.startswith("udot_")
    )


def hand_made_form(form_id: str):
    """A Form without a layout (the executor allows it), or None if this intdot's Form has no ``spec``."""
    from intdot.arm import Form

    fields = {f.name for f in dataclasses.fields(Form)}
    if "spec" not in fields:
        return None
    kind, _, nvec, _ = ref.describe(form_id)
    return Form(name=form_id, mnemonic=form_id.split("_")[0], kind=kind, spec=dot_spec(form_id), nvec=nvec)


def table_form(form_id: str):
    """The row of intdot's table, or None while the table lacks it."""
    from intdot.arm import FORMS

    for f in FORMS:
        if f.name == form_id:
            return f
    return None


def random_ops(form_id: str, rng: random.Random, edge: bool = False) -> dict:
    """Operands every encoding of the form accepts; ``edge``: aliased registers, the last index,
    lists that end at z31 or wrap past it."""
    kind, sem, nvec, q = ref.describe(form_id)
    per = 128 // sem.esize
    r32 = lambda: rng.randrange(32)  # noqa: E731
    if kind.startswith("neon"):
        ops = dict(vd=r32(), vn=r32(), vm=r32(), q=q) if not edge else dict(vd=7, vn=7, vm=7, q=q)
        if kind == "neon_dot_elem":
            ops["index"] = 3 if edge else rng.randrange(4)
        return ops
    if kind == "sve_dot_vec":
        return dict(zda=r32(), zn=r32(), zm=r32()) if not edge else dict(zda=5, zn=5, zm=5)
    if kind == "sve_dot_indexed":
        zm_top = 16 if sem.esize == 64 else 8
        if edge:
            return dict(zda=5, zn=5, zm=5, index=per - 1)
        return dict(zda=r32(), zn=r32(), zm=rng.randrange(zm_top), index=rng.randrange(per))
    ops = dict(wv=rng.randrange(8, 12), off=7 if edge else rng.randrange(8))
    aligned = rng.randrange(0, 32, nvec) if not edge else 32 - nvec
    if kind == "sme2_dot_single":
        ops.update(zn=(31 - (nvec == 4)) if edge else r32(), zm=0 if edge else rng.randrange(16))
    elif kind == "sme2_dot_multi":
        ops.update(zn=aligned, zm=rng.randrange(0, 32, nvec) if not edge else aligned)
    else:
        ops.update(zn=aligned, zm=15 if edge else rng.randrange(16), index=per - 1 if edge else rng.randrange(per))
    return ops


def _zlist(first: int, nvec: int, t: str) -> str:
    regs = [(first + r) % 32 for r in range(nvec)]
    if nvec == 4 and regs[-1] > regs[0]:
        return f"{{ z{regs[0]}.{t} - z{regs[-1]}.{t} }}"
    return "{ " + ", ".join(f"z{r}.{t}" for r in regs) + " }"


def text(form_id: str, ops: dict) -> str:
    """The instruction as LLVM writes it."""
    kind, sem, nvec, q = ref.describe(form_id)
    mn = form_id.split("_")[0]
    src = "b" if sem.lane_bits == 8 else "h"
    acc = "s" if sem.esize == 32 else "d"
    if kind.startswith("neon"):
        arr_d, arr_n = ("4s", "16b") if q else ("2s", "8b")
        m = f"v{ops['vm']}.4b[{ops['index']}]" if kind == "neon_dot_elem" else f"v{ops['vm']}.{arr_n}"
        return f"{mn} v{ops['vd']}.{arr_d}, v{ops['vn']}.{arr_n}, {m}"
    if kind.startswith("sve"):
        idx = f"[{ops['index']}]" if kind == "sve_dot_indexed" else ""
        return f"{mn} z{ops['zda']}.{acc}, z{ops['zn']}.{src}, z{ops['zm']}.{src}{idx}"
    za = f"za.{acc}[w{ops['wv']}, {ops['off']}, vgx{nvec}]"
    zn = _zlist(ops["zn"], nvec, src)
    if kind == "sme2_dot_multi":
        zm = _zlist(ops["zm"], nvec, src)
    elif kind == "sme2_dot_indexed":
        zm = f"z{ops['zm']}.{src}[{ops['index']}]"
    else:
        zm = f"z{ops['zm']}.{src}"
    return f"{mn} {za}, {zn}, {zm}"
