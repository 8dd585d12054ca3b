"""Launching a compiled Triton kernel again without Triton's per-call argument binding.

A remembered plan (gpu_tensors._PLANS) fixes the dtypes, shapes, strides and 16-byte alignment of the operands,
so every integer argument and every specialisation a later call would bind is the first call's: its compiled
kernel can be launched as it is, with new pointers.  Triton's binding costs about 30 us of host time a call, and
with two tensor descriptors about 100 (more than the kernel itself up to a few hundred rows); this launch costs
what the launcher itself does (for descriptors, encoding the tensor maps).  It relies on the launcher's calling
convention (``run(grid..., stream, function, packed_metadata, launch_metadata, enter_hook, exit_hook, *args)``),
checked by the GPU tests on every Triton the project supports; a handle without ``run`` (Triton's interpreter)
is not launched this way.
"""

from __future__ import annotations

from typing import NamedTuple


class Descriptor(NamedTuple):
    """What the launcher reads of a host tensor descriptor (triton.tools.tensor_descriptor.TensorDescriptor):
    the tensor, its shape and strides; the block shape is compiled into the kernel."""

    base: object
    shape: list
    strides: list
    padding: str = "zero"


def compiled(handle):
    """The compiled kernel behind a launch's return value, or None where it cannot be launched directly."""
    if handle is not None and hasattr(handle, "result"):  # a launch that compiled asynchronously
        handle = handle.result()
    return handle if handle is not None and hasattr(handle, "run") else None


def device_index(torch, device) -> int:
    return device.index if device.index is not None else torch.cuda.current_device()


def raw_stream(torch):
    """index -> the device's current CUDA stream as an int (torch's own accessor, as Triton's launcher uses)."""
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    return raw if raw is not None else lambda index: torch.cuda.current_stream(index).cuda_stream


def no_hooks(*hooks) -> bool:
    """Whether none of Triton's launch hooks is set (None, or a hook chain with no calls)."""
    return all(h is None or getattr(h, "calls", None) == [] for h in hooks)


def launch(ck, grid, stream, args) -> None:
    """Launch the compiled kernel ``ck`` on ``grid`` (three ints) and ``stream`` with ``args``, every argument
    of the kernel in order (constexprs included), as Triton's own launch passes them; launch hooks, where any
    is set, get their metadata as they would there."""
    from triton import knobs

    enter, leave = knobs.runtime.launch_enter_hook, knobs.runtime.launch_exit_hook
    if no_hooks(enter, leave):  # Triton's empty hook chains: no metadata to build, nothing to call
        ck.run(*grid, stream, ck.function, ck.packed_metadata, None, None, None, *args)
    else:
        meta = ck.launch_metadata(grid, stream, *args)
        ck.run(*grid, stream, ck.function, ck.packed_metadata, meta, enter, leave, *args)
