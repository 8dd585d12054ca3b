"""The AArch64 register file that the executor reads and writes.

See :class:`State`.  Registers are NumPy byte arrays, lane 0 (the least
significant byte) first, so any element type is one ``.view`` away.
"""

from __future__ import annotations

import re

import numpy as np

from ..core.errors import OperandError, OperandTypeError, StateError
from ..core.values import check_flag, describe, describe_all, is_int_scalar, small_decimal

#: The vector lengths (bits) a State accepts for VL and SVL.
LENGTHS = (128, 256, 512, 1024, 2048)

# Element-size suffix -> (signed dtype, unsigned dtype).
_ELEM = {
    "b": (np.int8, np.uint8),
    "h": (np.int16, np.uint16),
    "s": (np.int32, np.uint32),
    "d": (np.int64, np.uint64),
}

_NAME = re.compile(
    r"^\s*(?:(?P<vec>[zv])(?P<vn>\d+)|(?P<za>za)|(?P<gpr>[xw])(?P<gn>\d+))"
    r"(?:\.(?P<lanes>\d{1,2})?(?P<elem>[bhsd]))?(?:\[(?P<row>\d+)\])?\s*$",
    re.IGNORECASE | re.ASCII,  # \d is 0-9 only: "z\u0663" (an Arabic-Indic 3) is not z3
)
# NEON arrangements as assembly writes them (v1.16b); the 64-bit ones name the low 8 bytes.
_ARRANGEMENTS = ("8b", "16b", "4h", "8h", "2s", "4s", "1d", "2d")
_NAMES_HELP = (
    "z0-z31 or v0-v31 (optionally .b/.h/.s/.d), v0-v31 with an arrangement (.16b .8b .8h .4h "
    ".4s .2s .2d .1d), za or za.b/.h/.s/.d (all rows), za[ROW] or za.s[ROW], x0-x30 or w0-w30"
)


def _check_length(value, name: str) -> int:
    if not is_int_scalar(value):
        raise OperandTypeError(f"{name}={describe(value)} is not an integer; expected one of {LENGTHS} (bits)")
    value = int(value)
    if value not in LENGTHS:
        raise StateError(f"{name}={describe(value)} is not a legal vector length; expected one of {LENGTHS} (bits)")
    return value


class _WRegs:
    """``state.w[n]``: the low 32 bits of Xn; writing zero-extends into Xn."""

    __slots__ = ("_x",)

    def __init__(self, x: np.ndarray):
        self._x = x

    def __getitem__(self, n) -> int:
        return int(self._x[_gpr_number(n, "w")]) & 0xFFFFFFFF

    def __setitem__(self, n, value) -> None:
        # The value is checked first (as ever), under a name that does not print a huge or foreign index whole.
        name = f"w{n}" if is_int_scalar(n) and 0 <= n <= 30 else f"w[{describe(n)}]"
        self._x[_gpr_number(n, "w")] = _check_scalar(value, 32, name)

    def __len__(self) -> int:
        return 31

    def __iter__(self):
        # Without this, iteration would run __getitem__ up to w31, whose error is not an IndexError.
        return (int(v) & 0xFFFFFFFF for v in self._x)

    def __repr__(self) -> str:
        return "W[" + ", ".join(f"{int(v) & 0xFFFFFFFF:#x}" for v in self._x) + "]"


def _gpr_number(n, letter: str) -> int:
    if not is_int_scalar(n):
        raise OperandTypeError(f"register number {describe(n)} of {letter}[...] is not an integer; expected 0-30")
    if not 0 <= int(n) <= 30:
        raise OperandError(f"register {letter}{describe(int(n))} does not exist; expected {letter}0-{letter}30")
    return int(n)


def _check_scalar(value, bits: int, name: str) -> int:
    """A value of ``bits`` bits in its signed or unsigned spelling -> unsigned."""
    value = _unwrap_0d(value)
    if not is_int_scalar(value):
        raise OperandTypeError(
            f"{name}={describe(value)} is not an integer; expected an integer in "
            f"[{-(1 << (bits - 1))}, {(1 << bits) - 1}]"
        )
    value = int(value)
    if not -(1 << (bits - 1)) <= value < (1 << bits):
        raise OperandError(
            f"{name}={describe(value)} does not fit {bits} bits; expected an integer in "
            f"[{-(1 << (bits - 1))}, {(1 << bits) - 1}] (signed or unsigned spelling)"
        )
    return value & ((1 << bits) - 1)


def _unwrap_0d(value):
    # A 0-d array is one value, as NumPy and the rest of intdot read it (np.array(5) like np.int64(5)).
    return value[()] if isinstance(value, np.ndarray) and value.ndim == 0 else value


class State:
    """The register file of one AArch64 PE: Z0-Z31, ZA, X0-X30.

    Parameters
    ----------
    vl : {128, 256, 512, 1024, 2048}
        The SVE vector length in bits (Z registers outside streaming mode).
    svl : {128, 256, 512, 1024, 2048}
        The streaming vector length in bits: the Z length in streaming mode and
        the size of ZA (``svl/8`` rows of ``svl/8`` bytes).
    streaming : bool, keyword-only
        Start in streaming mode (``PSTATE.SM = 1``).

    Attributes
    ----------
    z : numpy.ndarray
        ``(32, L/8)`` uint8, one row per Z register, byte 0 first; ``L`` is
        ``svl`` in streaming mode and ``vl`` otherwise.  ``state.z[3]`` is a
        writable view of Z3; ``state.z[3].view(np.int32)`` its .S elements.
    v : numpy.ndarray
        ``(32, 16)`` uint8 view of the low 128 bits of each Z register (the
        V registers, as in the architecture).
    za : numpy.ndarray
        ``(svl/8, svl/8)`` uint8: ``state.za[i]`` is ZA array vector i
        (horizontal row i), the rows the SME2 ``za.s[wv, off]`` forms address.
    x : numpy.ndarray
        ``(31,)`` uint64, X0-X30.
    w
        ``state.w[8]`` reads the low 32 bits of X8 as an unsigned int;
        ``state.w[8] = -1`` writes 0xFFFFFFFF and zeroes the upper half of X8.

    Notes
    -----
    **Streaming mode** is modelled as on hardware: the state is either in
    streaming mode (Z registers are SVL long) or not (Z registers are VL long).
    :meth:`smstart` / :meth:`smstop` switch it and, as ``SMSTART SM`` /
    ``SMSTOP SM`` do, set every Z register to zero when the mode changes
    (so load registers after switching).  ZA is modelled as always enabled
    (``PSTATE.ZA = 1``) and is kept across mode changes.  An SME2 instruction
    executed outside streaming mode raises :class:`~intdot.errors.StateError`
    (hardware traps it as UNDEFINED); NEON and SVE instructions run in either
    mode (as with FEAT_SME_FA64, which QEMU's ``max`` CPU has), on Z
    registers of the current length.  A NEON write of Vd zeroes the rest of
    Zd, whatever its length.

    Examples
    --------
    >>> import numpy as np
    >>> s = State(vl=256, svl=512)
    >>> s.z.shape, s.za.shape
    ((32, 32), (64, 64))
    >>> s.set("z1.s", [1, 2, 3, 4, 5, 6, 7, -1])
    >>> s.get("z1.s")[-2:]
    array([ 7, -1], dtype=int32)
    >>> s.w[8] = 5
    >>> s.smstart(); s.z.shape
    (32, 64)
    """

    __slots__ = ("_vl", "_svl", "_streaming", "_z", "_za", "_x", "_w")

    def __init__(self, vl: int = 128, svl: int = 128, *, streaming: bool = False):
        self._vl = _check_length(vl, "vl")
        self._svl = _check_length(svl, "svl")
        self._streaming = check_flag(streaming, "streaming")
        self._z = np.zeros((32, self.zlen // 8), dtype=np.uint8)
        self._za = np.zeros((self._svl // 8, self._svl // 8), dtype=np.uint8)
        self._x = np.zeros(31, dtype=np.uint64)
        self._w = _WRegs(self._x)

    # -- shape ---------------------------------------------------------------
    @property
    def vl(self) -> int:
        """The SVE vector length in bits."""
        return self._vl

    @property
    def svl(self) -> int:
        """The streaming vector length in bits."""
        return self._svl

    @property
    def streaming(self) -> bool:
        """Whether the PE is in streaming mode (``PSTATE.SM``)."""
        return self._streaming

    @property
    def zlen(self) -> int:
        """The current length of the Z registers in bits (SVL when streaming, else VL)."""
        return self._svl if self._streaming else self._vl

    # -- registers -----------------------------------------------------------
    @property
    def z(self) -> np.ndarray:
        return self._z

    @property
    def v(self) -> np.ndarray:
        return self._z[:, :16]

    @property
    def za(self) -> np.ndarray:
        return self._za

    @property
    def x(self) -> np.ndarray:
        return self._x

    @property
    def w(self) -> _WRegs:
        return self._w

    # -- streaming mode ------------------------------------------------------
    def smstart(self) -> None:
        """Enter streaming mode (``SMSTART SM``): Z becomes SVL long and zero.

        Does nothing if already streaming, as on hardware.  ``state.z`` is a
        new array afterwards (views taken before the switch are stale).
        """
        if not self._streaming:
            self._streaming = True
            self._z = np.zeros((32, self._svl // 8), dtype=np.uint8)

    def smstop(self) -> None:
        """Leave streaming mode (``SMSTOP SM``): Z becomes VL long and zero."""
        if self._streaming:
            self._streaming = False
            self._z = np.zeros((32, self._vl // 8), dtype=np.uint8)

    # -- named access ----------------------------------------------------------
    def _locate(self, name: str):
        """(kind, region view, element suffix) for a register name."""
        if not isinstance(name, str):
            raise OperandTypeError(f"register name {describe(name)} is not a string; expected {_NAMES_HELP}")
        m = _NAME.match(name)
        if not m:
            raise OperandError(f"register name {describe(name)} is not known; expected {_NAMES_HELP}")
        elem = (m["elem"] or "").lower() or None
        lanes = m["lanes"]
        if lanes is not None and (m["vec"] or "").lower() != "v":
            raise OperandError(
                f"register name {describe(name)} is not known; an arrangement such as .16b "
                f"belongs to a V register (z and za take .b/.h/.s/.d); expected {_NAMES_HELP}"
            )
        if m["vec"]:
            n = small_decimal(m["vn"])
            if n > 31 or m["row"] is not None:
                raise OperandError(f"register name {describe(name)} is not known; expected {_NAMES_HELP}")
            if m["vec"].lower() == "z":
                return "vec", self._z[n], elem
            size = 16
            if lanes is not None:
                if f"{int(lanes)}{elem}" not in _ARRANGEMENTS:
                    raise OperandError(
                        f"register name {describe(name)} is not known: .{lanes}{elem} is not an "
                        f"arrangement; expected one of {', '.join(_ARRANGEMENTS)}"
                    )
                size = int(lanes) * np.dtype(_ELEM[elem][1]).itemsize
            return "vec", self._z[n, :size], elem
        if m["za"]:
            if m["row"] is None:
                return "vec", self._za, elem
            row = small_decimal(m["row"])
            if row >= self._za.shape[0]:
                raise OperandError(
                    f"ZA row {m['row'][:12]} in {describe(name)} does not exist; SVL={self._svl} "
                    "gives rows "
                    f"0-{self._za.shape[0] - 1}"
                )
            return "vec", self._za[row], elem
        n = small_decimal(m["gn"])
        if n > 30 or elem or m["row"] is not None:
            raise OperandError(f"register name {describe(name)} is not known; expected {_NAMES_HELP}")
        return m["gpr"].lower(), n, None

    def get(self, name: str, *, unsigned: bool = False):
        """The value of a register, by its assembly name.

        ``z3``/``v3``/``za``/``za[5]`` without an element suffix give a uint8
        array (a copy); with ``.b/.h/.s/.d`` an int8..int64 array (uint with
        ``unsigned=True``); ``x8``/``w8`` a Python int (unsigned).  A V
        register may be named with its arrangement as assembly writes it
        (``v1.4s`` is ``v1.s``; ``v1.8b`` is the low 8 bytes).  ZA as a whole
        (``za``, ``za.s``) comes as ``(SVL/8 rows, elements per row)``.

        >>> s = State(); s.set("v0.b", 255); s.get("v0.s")[0]
        np.int32(-1)
        """
        unsigned = check_flag(unsigned, "unsigned")
        kind, where, elem = self._locate(name)
        if kind == "x":
            return int(self._x[where])
        if kind == "w":
            return int(self._x[where]) & 0xFFFFFFFF
        if elem is None:
            return where.copy()
        dtype = _ELEM[elem][1 if unsigned else 0]
        out = where.reshape(-1).view(np.dtype(dtype).newbyteorder("<")).astype(dtype)
        # ZA as a whole keeps its rows: (SVL/8 rows, elements of a row), as set() accepts it.
        return out.reshape(where.shape[0], -1) if where.ndim == 2 else out

    def set(self, name: str, value) -> None:
        """Write a register by its assembly name.

        ``value`` is one integer (broadcast to every element) or exactly one
        value per element, as a sequence or array of any shape read in C order
        (``za.s`` takes an ``(SVL/8, SVL/32)`` array or nested list); elements
        are bytes without a suffix.  ``v1.8b``, ``v1.2s`` and the other
        64-bit arrangements write the low 8 bytes and keep the rest.  Values may be
        given in their signed or unsigned spelling (``-1`` or ``255`` for .b).
        A string sets raw bytes from hex, byte 0 first (``"01ff..."``), as ``bytes`` do.
        Writing ``wN`` zero-extends into ``xN``.  This is a plain register
        write (it does not zero the upper part of Z as a NEON instruction would).
        """
        kind, where, elem = self._locate(name)
        if kind in ("x", "w"):
            bits = 64 if kind == "x" else 32
            self._x[where] = _check_scalar(value, bits, name)
            return
        target = where.reshape(-1)
        value = _unwrap_0d(value)
        if isinstance(value, (str, bytes, bytearray, memoryview)):
            if isinstance(value, str):
                try:
                    raw = bytes.fromhex(value.replace("_", ""))
                except ValueError:
                    raise OperandError(f"{name}={describe(value)} is not a hex byte string") from None
            else:
                raw = bytes(value)
            if len(raw) != target.size:
                given = "the hex string has" if isinstance(value, str) else "got"
                raise OperandError(f"{name} takes {target.size} bytes, {given} {len(raw)}")
            target[:] = np.frombuffer(raw, dtype=np.uint8)
            return
        esize = np.dtype(_ELEM[elem or "b"][1]).itemsize
        bits, count = 8 * esize, target.size // esize
        if is_int_scalar(value):
            values = [_check_scalar(value, bits, name)] * count
        elif not isinstance(value, (list, tuple, range, np.ndarray)) or getattr(value, "ndim", 1) == 0:
            raise OperandTypeError(
                f"{name}={describe(value)} has type {type(value).__name__}; expected an "
                "integer, a sequence of integers, bytes or a hex byte string"
            )
        else:
            try:  # nested lists read like arrays: C order, any shape with one value per element
                seq = (
                    np.asarray(value, dtype=object if isinstance(value, (list, tuple)) else None).reshape(-1).tolist()
                )  # (a ragged list raises ValueError)
            except (TypeError, ValueError):
                raise OperandTypeError(f"{name}={describe(value)} is not an integer or a sequence of them") from None
            if len(seq) != count:
                raise OperandError(
                    f"{name} has {count} elements of {bits} bits; got {len(seq)} values "
                    "(give one value to fill them all, or exactly one per element)"
                )
            values = [_check_scalar(v, bits, f"{name}[{i}]") for i, v in enumerate(seq)]
        udt = np.dtype(_ELEM[elem or "b"][1]).newbyteorder("<")
        target[:] = np.array(values, dtype=np.uint64).astype(udt).view(np.uint8)

    # -- comparison and copying ------------------------------------------------
    def copy(self) -> State:
        """An independent copy."""
        new = State.__new__(State)
        new._vl, new._svl, new._streaming = self._vl, self._svl, self._streaming
        new._z, new._za, new._x = self._z.copy(), self._za.copy(), self._x.copy()
        new._w = _WRegs(new._x)
        return new

    def diff(self, other: State) -> list[str]:
        """Names of the registers that differ from ``other`` (``z3``, ``za[5]``, ``x8``, ...).

        Lengths or modes that differ are listed as ``vl``, ``svl``, ``streaming``;
        Z registers of different lengths all count as changed.
        """
        if not isinstance(other, State):
            raise OperandTypeError(f"other={describe(other)} is not a State")
        out = [k for k in ("vl", "svl", "streaming") if getattr(self, k) != getattr(other, k)]
        if self._z.shape != other._z.shape:
            out += [f"z{i}" for i in range(32)]
        else:
            out += [f"z{i}" for i in np.flatnonzero((self._z != other._z).any(axis=1))]
        if self._za.shape != other._za.shape:
            out.append("za")
        else:
            out += [f"za[{i}]" for i in np.flatnonzero((self._za != other._za).any(axis=1))]
        out += [f"x{i}" for i in np.flatnonzero(self._x != other._x)]
        return out

    def __eq__(self, other) -> bool:
        if not isinstance(other, State):
            return NotImplemented
        return not self.diff(other)

    __hash__ = None  # mutable

    def __repr__(self) -> str:
        nz = sum(1 for i in range(32) if self._z[i].any()) + int(self._za.any()) + int(np.count_nonzero(self._x))
        return f"State(vl={self._vl}, svl={self._svl}, streaming={self._streaming}) <{nz} non-zero register(s)>"

    # -- JSON ------------------------------------------------------------------
    def to_dict(self) -> dict:
        """A JSON-ready dict: lengths, mode and every non-zero register.

        Z registers and ZA rows are hex byte strings, byte 0 first; X registers
        are ints.  :meth:`from_dict` reads it back.
        """
        regs: dict = {}
        for i in range(32):
            if self._z[i].any():
                regs[f"z{i}"] = self._z[i].tobytes().hex()
        for i in np.flatnonzero(self._za.any(axis=1)):
            regs[f"za[{i}]"] = self._za[i].tobytes().hex()
        for i in np.flatnonzero(self._x):
            regs[f"x{i}"] = int(self._x[i])
        return {"vl": self._vl, "svl": self._svl, "streaming": self._streaming, "regs": regs}

    @classmethod
    def from_dict(cls, data) -> State:
        """A State from :meth:`to_dict`'s layout.

        ``regs`` maps any name :meth:`set` accepts to a value it accepts, so a
        hand-written file may say ``{"vl": 256, "regs": {"z1.s": [1, 2, 3, 4, 5, 6, 7, 8], "w8": 3}}``.
        Missing lengths default to 128, ``streaming`` to false.
        """
        if not isinstance(data, dict):
            raise OperandTypeError(f"state data {describe(data)} is not a JSON object")
        unknown = set(data) - {"vl", "svl", "streaming", "regs"}
        if unknown:
            raise OperandError(
                f"state data has unknown key(s) [{describe_all(sorted(unknown, key=describe))}]; expected vl, svl, "
                "streaming, regs"
            )
        state = cls(data.get("vl", 128), data.get("svl", 128), streaming=data.get("streaming", False))
        regs = data.get("regs", {})
        if not isinstance(regs, dict):
            raise OperandTypeError("state data 'regs' must be an object mapping register names to values")
        for name, value in regs.items():
            state.set(name, value)
        return state
