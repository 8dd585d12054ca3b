"""Every x86 intrinsic against the SDM reference (tests/x86/reference_x86.py): random and extreme registers,
masks, every accepted spelling of a register, and the errors."""

from __future__ import annotations

import numpy as np
import pytest

from intdot.core.errors import OperandError, OperandTypeError
from intdot.x86 import intrinsics as X
from tests.oracles import x86 as oracle
from tests.x86 import reference_x86 as ref
from tests.x86.calls import intrinsic

N = 64  # registers per intrinsic (the reference is pure Python); the CPU tests run 10^5 and more


def _expected(name: str, src, a, b, k):
    row = X.INTRINSICS[name]
    out = []
    for i in range(len(a)):
        s, x, y = bytes(src[i]), bytes(a[i]), bytes(b[i])
        if row.mnemonic == "pmaddubsw":
            out.append(ref.pmaddubsw(x, y))
        elif row.mnemonic == "pmaddwd":
            out.append(ref.pmaddwd(x, y))
        else:
            r = ref.vnni(row.mnemonic, s, x, y)
            out.append(ref.masked(r, s, int(k[i]), row.mask == "zero") if row.mask else r)
    return out


@pytest.mark.parametrize("name", sorted(X.INTRINSICS))
def test_against_sdm_reference(name):
    row = X.INTRINSICS[name]
    lane = 1 if row.mnemonic in ("pmaddubsw",) or row.mnemonic.startswith("vpdpb") else 2
    src, a, b, k = oracle.registers(oracle.seed_of(name) + 1, N, row.bits // 8, lane)
    k = k & (0xFFFF if row.bits == 512 else 0xFF)
    got = intrinsic(name, src, a, b, k)
    want = _expected(name, src, a, b, k)
    dtype = np.int16 if row.mnemonic == "pmaddubsw" else np.uint32 if "uu" in row.mnemonic else np.int32
    assert got.dtype == dtype and got.shape == (N, len(want[0]))
    assert got.tolist() == want


def test_count_and_names():
    # 4 VNNI instructions x (3 widths x 3 maskings + 2 VEX spellings), 12 VNNI-INT8/16 x 2 widths, 2 x 3 AVX2 idiom
    assert len(X.INTRINSICS) == 4 * 11 + 12 * 2 + 6
    assert X.BY_INSTRUCTION["vpdpbusd"][:3] == (
        "_mm512_dpbusd_epi32",
        "_mm512_mask_dpbusd_epi32",
        "_mm512_maskz_dpbusd_epi32",
    )
    assert X._mm512_maskz_dpbusd_epi32.prototype == (
        "__m512i _mm512_maskz_dpbusd_epi32(__mmask16 k, __m512i src, __m512i a, __m512i b)"
    )


def test_saturation_is_once_on_the_exact_sum():
    # src = INT_MAX - 1; products +255*127*4 and then nothing: saturates; with b = -1 the sum comes back down.
    big = [2**31 - 2] * 4
    assert X._mm_dpbusds_epi32(big, [255] * 16, [127] * 16).tolist() == [2**31 - 1] * 4
    assert X._mm_dpbusds_epi32(big, [255] * 16, [-1] * 16).tolist() == [2**31 - 2 - 1020] * 4
    # vpdpwssds: 2 x (-32768)^2 = 2^31 from 0 saturates; from -1 it is exactly INT_MAX.
    assert X._mm_dpwssds_epi32([0, -1, 0, 0], [-32768] * 8, [-32768] * 8).tolist() == [2**31 - 1] * 2 + [2**31 - 1] * 2
    assert (
        X._mm_dpwssd_epi32([0, -1, 0, 0], [-32768] * 8, [-32768] * 8).tolist() == [-(2**31), 2**31 - 1] + [-(2**31)] * 2
    )
    # vpdpbuuds saturates unsigned: 0xFFFFFFF0 + 4 x 255 x 255 -> 0xFFFFFFFF; the accumulator reads unsigned.
    assert X._mm_dpbuuds_epi32([-16] * 4, [255] * 16, [255] * 16).tolist() == [2**32 - 1] * 4
    assert X._mm_dpbuud_epi32([-16] * 4, [255] * 16, [255] * 16).tolist() == [(2**32 - 16 + 4 * 255 * 255) % 2**32] * 4


def test_vnni_int_identities():
    """The forms no CPU here has, tied to each other and to the ones it has, lane for lane."""
    src, a, b, _ = oracle.registers(7, 2000, 32, 1)
    assert np.array_equal(X._mm256_dpbusd_epi32(src, a, b), X._mm256_dpbsud_epi32(src, b, a))
    assert np.array_equal(X._mm256_dpbusds_epi32(src, a, b), X._mm256_dpbsuds_epi32(src, b, a))
    small = a & 0x7F  # bytes that read the same signed or unsigned
    assert np.array_equal(X._mm256_dpbssd_epi32(src, small, b), X._mm256_dpbusd_epi32(src, small, b))
    assert np.array_equal(X._mm256_dpbuud_epi32(src, a, small).view(np.int32), X._mm256_dpbusd_epi32(src, a, small))
    src, a, b, _ = oracle.registers(8, 2000, 32, 2)
    assert np.array_equal(X._mm256_dpwusd_epi32(src, a, b), X._mm256_dpwsud_epi32(src, b, a))
    assert np.array_equal(X._mm256_dpwusds_epi32(src, a, b), X._mm256_dpwsuds_epi32(src, b, a))
    small = a.view("<u2") & 0x7FFF
    assert np.array_equal(X._mm256_dpwsud_epi32(src, small, small), X._mm256_dpwssd_epi32(src, small, small))
    # The VEX spelling computes what the EVEX one does.
    assert np.array_equal(X._mm256_dpwssds_avx_epi32(src, a, b), X._mm256_dpwssds_epi32(src, a, b))


def test_register_spellings_and_batch():
    a8 = np.arange(64, dtype=np.uint8)
    as32 = a8.view(np.int32)
    one = X._mm512_dpbusd_epi32(np.zeros(16, np.int64).view(np.int32)[:16], a8, np.ones(64, np.int8))
    assert np.array_equal(X._mm512_dpbusd_epi32([0] * 16, as32, [1] * 64), one)
    assert np.array_equal(X._mm512_dpbusd_epi32([0] * 8, a8.view(np.int64), a8.view(">u2").byteswap() * 0 + 257), one)
    # A batch of registers broadcasts against one register.
    batch = np.stack([a8] * 5)
    assert X._mm512_dpbusd_epi32(np.zeros(16, np.int32), batch, np.ones(64, np.int8)).shape == (5, 16)
    assert X._mm512_mask_dpbusd_epi32(np.zeros((5, 16), np.int32), np.arange(5), batch, [1] * 64)[:, 0].tolist() == [
        0,
        6,
        0,
        6,
        0,
    ]


@pytest.mark.parametrize(
    ("call", "error", "text"),
    [
        (lambda: X._mm_dpbusd_epi32([0] * 4, [0] * 15, [0] * 16), OperandError, "a has 15 elements"),
        (lambda: X._mm_dpbusd_epi32([0] * 4, [256] * 16, [0] * 16), OperandError, "a holds 256"),
        (lambda: X._mm_dpbusd_epi32([0] * 4, [0] * 16, np.zeros(8, np.int8)), OperandError, "b holds 8 int8"),
        (lambda: X._mm_dpbusd_epi32([0] * 4, [0] * 16, np.zeros(16, np.float32)), OperandTypeError, "float32"),
        (lambda: X._mm_dpbusd_epi32([0] * 4, [0] * 16), OperandTypeError, "missing a required argument: 'b'"),
        (lambda: X._mm_mask_dpbusd_epi32([0] * 4, 256, [0] * 16, [0] * 16), OperandError, "__mmask8 value in [0, 255]"),
        (lambda: X._mm512_maskz_dpbusd_epi32(-1, [0] * 16, [0] * 64, [0] * 64), OperandError, "__mmask16"),
        (
            lambda: X._mm_dpbusd_epi32(np.zeros((2, 4), np.int32), np.zeros((3, 16), np.uint8), [0] * 16),
            OperandError,
            "broadcast",
        ),
        (lambda: X._mm_madd_epi16(5, [0] * 8), OperandTypeError, "128-bit register"),
    ],
)
def test_errors(call, error, text):
    with pytest.raises(error) as info:
        call()
    assert text in str(info.value)


def test_signature_and_doc():
    import inspect

    f = X._mm256_dpbssd_epi32
    assert list(inspect.signature(f).parameters) == ["W", "A", "B"]
    assert f.__doc__.startswith("``__m256i _mm256_dpbssd_epi32(__m256i W, __m256i A, __m256i B)`` (vpdpbssd)")
    assert f(W=[0] * 8, A=[-1] * 32, B=[-1] * 32).tolist() == [4] * 8
