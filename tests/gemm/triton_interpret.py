"""The CUDA backend's Triton kernels run by Triton's interpreter, on CPU tensors, where no GPU is lent.

The interpreter executes each kernel's Python body with NumPy, program by program: the same indexing, masks,
centring, split-K accumulation and epilogues that the GPU compiles, so a test on it checks the kernels' logic
(not the tensor cores, and not speed: test_gpu*.py do that on a GPU).  Two things differ from a GPU run, and
``interpreted()`` adapts them here rather than in intdot:

- an autotuned kernel cannot time its configurations without a GPU: each is pinned to one configuration (the
  tests go through all of them);
- a persistent kernel asks CUDA for the multiprocessor count: a small count stands in.
"""

from __future__ import annotations

import contextlib
import os
import sys

import numpy as np
import pytest

from ..oracles import missing

# The Triton release the Makefile installs for these tests (the one on the lent H200).
TRITON = "triton==3.6.0"


class Pinned:
    """An autotuned kernel launched with one of its configurations, as the autotuner would after choosing it."""

    def __init__(self, tuned, config):
        self.tuned, self.config = tuned, config

    def __getitem__(self, grid):
        def launch(*args, **kwargs):
            cfg = self.config
            meta = {**kwargs, **cfg.kwargs}
            if cfg.pre_hook is not None:  # the TMA configurations set their descriptors' block shapes
                cfg.pre_hook({**dict(zip(self.tuned.arg_names, args)), **meta})
            where = grid(meta) if callable(grid) else grid
            return self.tuned.fn[where](*args, **meta, num_warps=cfg.num_warps, num_stages=cfg.num_stages)

        return launch


def _index_patch(interpreter):
    """Triton 3.6's interpreter turns a scalar argument used as a loop bound into an int with ``int()`` of a
    one-element array, which NumPy 2.4 refuses; read the element instead (the same value)."""
    try:
        int(np.zeros(1))
        return None
    except TypeError:
        pass
    original = interpreter._patch_lang_tensor

    def patched(tensor, scope):
        original(tensor, scope)
        scope.set_attr(tensor, "__index__", lambda self: int(np.asarray(self.handle.data).reshape(-1)[0]))

    return original, patched


def _load_interpreter():
    """Triton, imported in interpreter mode: TRITON_INTERPRET must be set before Triton is first imported (its own
    library of jit functions, ``tl.zeros`` among them, is decorated at that import), so it is set for the rest
    of this process.  Only done where no GPU is visible: nothing here could run compiled kernels anyway."""
    if "triton" not in sys.modules:
        os.environ["TRITON_INTERPRET"] = "1"
    try:
        import triton
        from triton.runtime import interpreter
    except ImportError:
        missing("Triton (its interpreter runs the GPU kernels on the CPU)", f"pip install '{TRITON}'")
    if triton.__version__ != TRITON.split("==")[1]:
        # Interpreters differ between releases (3.9's refuses the chain kernel's scalar masks, which compiled
        # Triton takes): these tests are checked with one.
        missing(
            f"Triton {TRITON.split('==')[1]}'s interpreter (found Triton {triton.__version__})",
            f"pip install '{TRITON}'",
        )
    if not isinstance(triton.language.standard.zeros, interpreter.InterpretedFunction):
        pytest.fail("Triton was imported before TRITON_INTERPRET was set; run these tests in a process of their own")
    return interpreter


@contextlib.contextmanager
def interpreted(sms: int = 3, config: int = 0):
    """The kernels of intdot.gemm.gpu loaded under Triton's interpreter, autotuned ones pinned to configuration
    number ``config``."""
    pytest.importorskip("torch", reason="PyTorch is not installed (the CUDA backend's tensors are torch's)")
    interpreter = _load_interpreter()
    from intdot.gemm import gpu

    mp = pytest.MonkeyPatch()
    try:
        mp.setattr(gpu, "_KERNELS", {})
        mp.setattr(gpu, "_sm_count", lambda device: sms)
        patch = _index_patch(interpreter)
        if patch is not None:
            mp.setattr(interpreter, "_patch_lang_tensor", patch[1])
        kernels = gpu._triton()
        for key in ("mm", "mm_tma", "mm_persist"):
            if key in kernels:
                configs = kernels[key].configs
                kernels[key] = Pinned(kernels[key], configs[config % len(configs)])
        yield kernels
    finally:
        mp.undo()
