"""The cross-ISA equivalence of the catalog, as text (``intdot list --equivalent``) and as a matrix
drawn to an image (``intdot table --plot``).  Everything comes from :func:`intdot.catalog.equivalents`."""

from __future__ import annotations

import os

from ..core.errors import OperandError, quote

FORMATS = ("png", "svg", "pdf")


def check_plot_path(path: str) -> str:
    """The format of ``path`` from its extension (``png`` when it has none), checked before any work."""
    from .inputs import check_output

    check_output(path, "--plot", "equivalence.png", FORMATS)  # '' would write a hidden '.png' here
    ext = os.path.splitext(path)[1].lower().lstrip(".")
    if not ext:
        return "png"
    if ext not in FORMATS:
        raise OperandError(
            f"--plot {quote(path)}: the extension .{ext} is not an image format; expected one of {', '.join(FORMATS)}"
        )
    return ext


def groups():
    """Records grouped by ISA, mnemonic, step and rule (Arm's 13 sdot forms of one step are one row)."""
    from .. import catalog
    from ..isa.record import spec_fields

    out: dict = {}
    for r in catalog.records():
        key = (r.isa, r.mnemonic, spec_fields(r.spec), r.sign_args, r.clamp)
        out.setdefault(key, []).append(r)
    return list(out.values())


def _label(recs) -> str:
    r = recs[0]
    more = f" x{len(recs)}" if len(recs) > 1 else ""
    return f"{r.isa} {r.mnemonic} ({r.lanes} -> {r.acc}, {r.rule}){more}"


def matrix():
    """(labels, cells): cells[i][j] is 0 (different steps), 1 (the same step) or 2 (with the sources exchanged)."""
    from .. import catalog

    gs = groups()
    where = {r.name: i for i, g in enumerate(gs) for r in g}
    cells = [[0] * len(gs) for _ in gs]
    for i, g in enumerate(gs):
        cells[i][i] = 1
        for e in catalog.equivalents(g[0]):
            j = where[e.name]
            cells[i][j] = 1 if not e.swap or cells[i][j] == 1 else 2
    return [_label(g) for g in gs], cells


def plot(path: str) -> str:
    """Draw the matrix to ``path``; returns the name of the file written."""
    fmt = check_plot_path(path)
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.colors import ListedColormap
    except ImportError:
        raise OperandError("--plot needs matplotlib (pip install 'intdot[demo]')") from None
    labels, cells = matrix()
    n = len(labels)
    fig, ax = plt.subplots(figsize=(4 + 0.28 * n, 3 + 0.28 * n))
    ax.imshow(cells, cmap=ListedColormap(["#f4f4f4", "#1f77b4", "#ff7f0e"]), vmin=0, vmax=2)
    ax.set_xticks(range(n), labels, rotation=90, fontsize=7)
    ax.set_yticks(range(n), labels, fontsize=7)
    ax.set_title(
        "Which instructions compute the same dot step\n(blue: as they are; orange: with the sources exchanged)",
        fontsize=9,
    )
    fig.tight_layout()
    from .inputs import save_figure

    return save_figure(fig, path if os.path.splitext(path)[1] else f"{path}.{fmt}", fmt)
