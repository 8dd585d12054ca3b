"""Launching a compiled Triton kernel again without Triton's per-call argument binding.

Triton binds every argument of every launch in Python: about 30 us of host time a launch, and with two tensor
descriptors about 100, more than the kernels themselves for decode shapes and up to a few hundred rows.  A call
whose arguments agree with an earlier one in everything Triton specialises a kernel on (and more: every integer's
value, every tensor's dtype, device and 16-byte alignment, every descriptor's dtype, shape, strides and block
shape, every constexpr and launch option) runs the kernel that call compiled, so it can be launched as it is with
new pointers (:class:`Direct`); a remembered plan (gpu_split.fast) fixes even more and keeps its own.  The launch
then costs what Triton's launcher itself does (for descriptors, encoding the tensor maps).

This relies on the launcher's calling convention (``run(grid..., stream, function, packed_metadata,
launch_metadata, enter_hook, exit_hook, *args)``, every argument of the kernel in order, constexprs included), as
Triton 3.6's own launch calls it (the split-K plan's launch has run on the H200 so; the GPU tests check
:class:`Direct` on a GPU); a launch that returns no compiled kernel with ``run`` (Triton's interpreter) is never
repeated this way.  Signatures are kept until LIMIT per kernel (every integer by value: a process that sees many
shapes goes through Triton's launch past that, compiling nothing new).
"""

from __future__ import annotations

import os

# Signatures kept per kernel; past this, calls go through Triton's own launch (its cache still compiles once).
# INTDOT_GEMM_DIRECT=0 (read at import) sends every launch through Triton's, the split-K plan's too.
LIMIT = 4096 if os.environ.get("INTDOT_GEMM_DIRECT", "1") != "0" else 0


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


_TRITON: list = []  # triton.knobs, imported on first use (an import statement costs a launch 0.6 us)


def _knobs():
    """Triton's settings module; not imported with this module (the interpreter tests import Triton first)."""
    if not _TRITON:
        from triton import knobs

        _TRITON.append(knobs)
    return _TRITON[0]


def _idle(hook) -> bool:
    return hook is None or (type(getattr(hook, "calls", None)) is list and not hook.calls)


def no_hooks(enter, leave) -> bool:
    """Whether neither of Triton's launch hooks is set (None, or a hook chain with no calls)."""
    return _idle(enter) and _idle(leave)


def launch(ck, grid, stream, args) -> None:
    """Launch the compiled kernel ``ck`` on ``grid`` (three ints) and ``stream`` with ``args``, every argument
    of the kernel in order (constexprs included), as Triton's own launch passes them; launch hooks, where any
    is set, get their metadata as they would there."""
    runtime = _knobs().runtime
    enter, leave = runtime.launch_enter_hook, runtime.launch_exit_hook
    if no_hooks(enter, leave):  # Triton's empty hook chains: no metadata to build, nothing to call
        ck.run(*grid, stream, ck.function, ck.packed_metadata, None, None, None, *args)
    else:
        meta = ck.launch_metadata(grid, stream, *args)
        ck.run(*grid, stream, ck.function, ck.packed_metadata, meta, enter, leave, *args)


def unwrapped(ck):
    """(launch, metas) of a compiled kernel with tensor-descriptor arguments: the launcher's own C function and the
    metadata with which Triton's Python wrapper expands each descriptor into its tensor map, shape and strides
    before calling it (Triton 3.6's ``CudaLauncher.launch``, a closure over both); None where ``ck`` has no such
    wrapper or allocates scratch memory per launch.  A plan that encodes the tensor maps itself (``tensor_map``)
    skips the wrapper's loop over every argument."""
    run = getattr(ck, "run", None)
    inner = getattr(run, "launch", None)
    code, cells = getattr(inner, "__code__", None), getattr(inner, "__closure__", None)
    if code is None or not cells or not _bare(run):
        return None
    free = dict(zip(code.co_freevars, (c.cell_contents for c in cells)))
    launch, metas = free.get("launcher"), free.get("tensordesc_meta")
    if not callable(launch) or not metas or any(not isinstance(m, dict) for m in metas):
        return None
    return launch, list(metas)


class _Region:
    """What Triton's launcher reads of a host tensor descriptor to encode its tensor map."""

    __slots__ = ("base", "shape", "strides", "padding")

    def __init__(self, base, shape, strides):
        self.base, self.shape, self.strides, self.padding = base, shape, strides, "zero"


def tensor_map(meta):
    """A function (tensor, shape, strides) -> the launcher's arguments for a descriptor over that tensor with
    ``meta`` (one entry of ``unwrapped``'s metas): its tensor map encoded for the tensor's address, then the shape
    and strides, as Triton's own launch expands a descriptor."""
    from triton.backends.nvidia.driver import make_tensordesc_arg

    def encode(base, shape, strides):
        return make_tensordesc_arg(_Region(base, shape, strides), meta)

    return encode


class Raw:
    """A compiled kernel launched by a remembered plan: Triton's launcher function (``unwrapped``) with the leading
    arguments Triton 3.6 passes it, on the current stream of the plan's device.  ``stale()``: whether a call must go
    back through the general path instead (a launch hook set, direct launches off, or a Triton setting changed
    since the plan was made), which honours them."""

    __slots__ = ("launcher", "head", "current", "index", "settings", "runtime")

    def __init__(self, ck, launcher, torch, device):
        run = ck.run
        self.launcher = launcher
        self.head = (ck.function, run.launch_cooperative_grid, run.launch_pdl, None, None, ck.packed_metadata)
        self.head += (None, None, None)
        self.current, self.index = raw_stream(torch), device_index(torch, device)
        self.settings, self.runtime = _settings(), _knobs().runtime

    def stale(self) -> bool:
        rt = self.runtime
        return not no_hooks(rt.launch_enter_hook, rt.launch_exit_hook) or not LIMIT or _settings() != self.settings

    def stream(self):
        return self.current(self.index)

    def __call__(self, grid, stream, *args):
        self.launcher(*grid, stream, *self.head, *args)


class MapCache:
    """A plan's tensor maps for one operand (``tensor_map``'s function, over the plan's fixed shape and strides),
    encoded again only when the operand's address changes: a decode step's weights, and often its activations'
    buffer, come back at the same address, and an encoding costs a driver call.  The last one only: a map holds
    nothing but the address beside what the plan fixes."""

    __slots__ = ("encode", "shape", "strides", "last")

    def __init__(self, encode, shape, strides):
        self.encode, self.shape, self.strides, self.last = encode, shape, strides, (None, None)

    def __call__(self, t):
        address = t.data_ptr()
        last = self.last  # one tuple, replaced whole: threads never read one call's address with another's map
        if last[0] != address:
            last = self.last = address, self.encode(t, self.shape, self.strides)
        return last[1]


def tensor_maps(ck, torch, device, *operands):
    """(Raw launch, a MapCache for each operand) of a compiled kernel whose tensor-descriptor arguments (as many as
    ``operands``) a plan encodes itself; each operand as (this call's tensor, the plan's shape, its strides).
    None where that cannot be: direct launches off, no such launcher (``unwrapped``), or Triton's encoding spelled
    otherwise by this Triton (tried here on this call's operands, so that it is never an error in a later call)."""
    raw = unwrapped(ck) if LIMIT else None
    if raw is None or len(raw[1]) != len(operands):
        return None
    launcher, metas = raw
    maps = tuple(MapCache(tensor_map(meta), op[1], op[2]) for meta, op in zip(metas, operands))
    try:
        for cache, op in zip(maps, operands):
            cache(op[0])
    except Exception:
        return None
    return Raw(ck, launcher, torch, device), maps


def plain(ck, torch, device):
    """The Raw launch of a compiled kernel without tensor-descriptor arguments (the launcher's C function is the
    launch itself), for a plan that launches it beside one of ``tensor_maps``; None where that cannot be (direct
    launches off, scratch memory per launch, or the launcher spelled otherwise by this Triton)."""
    run = getattr(ck, "run", None)
    launch = getattr(run, "launch", None)
    if not LIMIT or launch is None or hasattr(launch, "__code__") or not _bare(run):  # __code__: a Python wrapper
        return None
    return Raw(ck, launch, torch, device)


def _bare(run) -> bool:
    """Whether a compiled kernel's launcher (``ck.run``) can be called as Raw calls it: no scratch memory allocated
    per launch, and the leading arguments this module passes (Triton 3.6's)."""
    if getattr(run, "global_scratch_size", 1) or getattr(run, "profile_scratch_size", 1):
        return False
    return all(hasattr(run, name) for name in ("launch_cooperative_grid", "launch_pdl"))


def _settings():
    """What Triton's launch adds to a kernel's options from its settings (JITFunction.run: debug mode and
    instrumentation), read on every launch as Triton reads them."""
    knobs = _knobs()
    return knobs.runtime.debug, knobs.compilation.instrumentation_mode


def pointer(t) -> int:
    """What the launcher is given for a tensor: its address (a tensor object costs the launcher a driver query)."""
    return t.data_ptr()


# Arguments a signature takes by value, with their type (True == 1, and Triton tells them apart).
_SCALARS = frozenset((int, bool, float, str, type(None)))


def _arg_key(x):
    """What a launch's argument contributes to the signature, other than a scalar: a tensor's dtype, device and
    alignment (ints: dtypes are singletons, and hashing ints costs a launch less than hashing torch's objects);
    all of a tensor descriptor but its address; None for anything else (not repeated)."""
    if hasattr(x, "data_ptr"):
        return "tensor", id(x.dtype), x.get_device(), x.data_ptr() % 16 == 0
    base = getattr(x, "base", None)
    if hasattr(x, "block_shape") and hasattr(base, "data_ptr"):
        shape, strides, block = tuple(x.shape), tuple(x.strides), tuple(x.block_shape)
        aligned = base.data_ptr() % 16 == 0
        # A Gluon descriptor's shared-memory layout too (hashable; Triton's descriptors have none).
        layout = getattr(x, "layout", None)
        return "descriptor", id(base.dtype), base.get_device(), aligned, shape, strides, block, x.padding, layout
    return None


class Direct:
    """A Triton kernel (``@triton.jit``) launched as ``kernel[grid](*args, **kwargs)``: through Triton on the
    first call of each signature, directly on later ones.  Constexprs and launch options go by keyword, every
    argument after the positional ones named (else the call is not repeated directly)."""

    def __init__(self, fn):
        self.fn = fn
        self.arg_names = list(fn.arg_names)
        self._cache: dict = {}
        self._named: dict = {}  # number of positional arguments -> the names the keywords must give

    def __getitem__(self, grid):
        def launcher(*args, **kwargs):
            return self.launch(grid, args, kwargs)

        return launcher

    def _compiled(self, handle):
        return compiled(handle)

    def _signature(self, grid, args, kwargs):
        """(the call's signature, whether a tensor is on a CUDA device), or None for a call never repeated.
        Host time of a decode step: scalars, the most arguments, take the short way."""
        named = self._named.get(len(args))
        if named is None:
            named = self._named[len(args)] = frozenset(self.arg_names[len(args) :])
        if callable(grid) or not named <= kwargs.keys():
            return None
        parts = [tuple(grid), tuple(kwargs)]
        cuda = False
        for x in (*args, *kwargs.values()):
            t = type(x)
            if t in _SCALARS:  # flat: a type object, then its value (no value is a type or a tuple)
                parts += t, x
                continue
            key = _arg_key(x)
            if key is None:
                return None
            cuda = cuda or key[2] >= 0  # get_device(): -1 on the CPU
            parts.append(key)
        return tuple(parts), cuda

    def compiled_for(self, grid, args, kwargs):
        """(compiled kernel, every argument in the kernel's order) of a launch whose signature an earlier call
        compiled, for a plan that launches it again itself (``launch``, tensors by address); None otherwise."""
        import torch

        sig = self._signature(grid, args, kwargs)
        if sig is None:
            return None
        hit = self._cache.get((sig[0], torch.cuda.current_device() if sig[1] else None, _settings()))
        return None if hit is None else (hit[0], (*args, *(kwargs[name] for name in self.arg_names[len(args) :])))

    def launch(self, grid, args, kwargs):
        import torch

        sig = self._signature(grid, args, kwargs)
        key = hit = None
        if sig is not None:
            # The compiled kernel is loaded in the context of the device that was current: part of the key; so are
            # the two settings Triton adds to every launch's options.
            device = torch.cuda.current_device() if sig[1] else None
            key = sig[0], device, _settings()
            hit = self._cache.get(key)
        full = (*args, *(kwargs[name] for name in self.arg_names[len(args) :])) if sig is not None else ()
        if hit is None:
            handle = self.fn[grid](*args, **kwargs)
            ck = self._compiled(handle)
            if key is not None and ck is not None and len(self._cache) < LIMIT:
                # Where the tensors are among the arguments: the same for every call of this signature.
                self._cache[key] = ck, tuple(i for i, x in enumerate(full) if hasattr(x, "data_ptr"))
            return handle
        ck, tensors = hit
        full = list(full)
        for i in tensors:
            full[i] = pointer(full[i])
        # Triton launches on the current device's current stream; so does this.
        stream = raw_stream(torch)(device) if device is not None else 0
        launch(ck, (*grid, 1, 1, 1)[:3], stream, tuple(full))
        return ck


_DIRECT: dict = {}


def direct(fn) -> Direct:
    """The one :class:`Direct` of a kernel (its cache shared by every caller)."""
    d = _DIRECT.get(fn)
    if d is None:
        d = _DIRECT[fn] = Direct(fn)
    return d
