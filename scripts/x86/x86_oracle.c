/* The x86 CPU as an oracle: every VNNI / AVX-VNNI intrinsic, the AVX2 idiom's two parts and the AMX-INT8
 * instructions, run over arrays of registers (or tiles) and written back, for tests/oracles/x86.py and
 * scripts/x86/record_vectors.py.  Each function carries its own target attribute, so the file compiles with
 * plain `gcc -O1 -shared -fPIC` (gcc 12 or later) on any x86-64 machine; a function runs only where the CPU
 * has its features (the callers check /proc/cpuinfo first).  Function o<intrinsic> computes
 * out[i] = <intrinsic>(src[i], a[i], b[i]) (masked forms also read k[i]; the idiom's parts read a and b). */
#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#define L512(p) _mm512_loadu_si512((const void *)(p))
#define L256(p) _mm256_loadu_si256((const __m256i *)(p))
#define L128(p) _mm_loadu_si128((const __m128i *)(p))
#define S512(p, v) _mm512_storeu_si512((void *)(p), v)
#define S256(p, v) _mm256_storeu_si256((__m256i *)(p), v)
#define S128(p, v) _mm_storeu_si128((__m128i *)(p), v)

/* NAME: the exported function; FEAT: gcc target features; W: register bits; EXPR: the intrinsic call on
 * S (src), A, B and K (the mask, as uint16). */
#define REG(NAME, FEAT, W, EXPR)                                                                          \
    __attribute__((target(FEAT))) void NAME(const uint8_t *s, const uint8_t *a, const uint8_t *b,           \
                                             const uint16_t *k, uint8_t *o, size_t n) {                     \
        for (size_t i = 0; i < n; i++) {                                                                    \
            __m##W##i S = L##W(s + (W / 8) * i), A = L##W(a + (W / 8) * i), B = L##W(b + (W / 8) * i);     \
            unsigned K = k ? k[i] : 0;                                                                      \
            (void)K;                                                                                        \
            (void)S;                                                                                        \
            S##W(o + (W / 8) * i, (EXPR));                                                                  \
        }                                                                                                   \
    }

REG(o_mm512_dpbusd_epi32, "avx512f,avx512vnni", 512, _mm512_dpbusd_epi32(S, A, B))
REG(o_mm512_mask_dpbusd_epi32, "avx512f,avx512vnni", 512, _mm512_mask_dpbusd_epi32(S, (__mmask16)K, A, B))
REG(o_mm512_maskz_dpbusd_epi32, "avx512f,avx512vnni", 512, _mm512_maskz_dpbusd_epi32((__mmask16)K, S, A, B))
REG(o_mm256_dpbusd_epi32, "avx512vnni,avx512vl", 256, _mm256_dpbusd_epi32(S, A, B))
REG(o_mm256_mask_dpbusd_epi32, "avx512vnni,avx512vl", 256, _mm256_mask_dpbusd_epi32(S, (__mmask8)K, A, B))
REG(o_mm256_maskz_dpbusd_epi32, "avx512vnni,avx512vl", 256, _mm256_maskz_dpbusd_epi32((__mmask8)K, S, A, B))
REG(o_mm256_dpbusd_avx_epi32, "avxvnni", 256, _mm256_dpbusd_avx_epi32(S, A, B))
REG(o_mm_dpbusd_epi32, "avx512vnni,avx512vl", 128, _mm_dpbusd_epi32(S, A, B))
REG(o_mm_mask_dpbusd_epi32, "avx512vnni,avx512vl", 128, _mm_mask_dpbusd_epi32(S, (__mmask8)K, A, B))
REG(o_mm_maskz_dpbusd_epi32, "avx512vnni,avx512vl", 128, _mm_maskz_dpbusd_epi32((__mmask8)K, S, A, B))
REG(o_mm_dpbusd_avx_epi32, "avxvnni", 128, _mm_dpbusd_avx_epi32(S, A, B))
REG(o_mm512_dpbusds_epi32, "avx512f,avx512vnni", 512, _mm512_dpbusds_epi32(S, A, B))
REG(o_mm512_mask_dpbusds_epi32, "avx512f,avx512vnni", 512, _mm512_mask_dpbusds_epi32(S, (__mmask16)K, A, B))
REG(o_mm512_maskz_dpbusds_epi32, "avx512f,avx512vnni", 512, _mm512_maskz_dpbusds_epi32((__mmask16)K, S, A, B))
REG(o_mm256_dpbusds_epi32, "avx512vnni,avx512vl", 256, _mm256_dpbusds_epi32(S, A, B))
REG(o_mm256_mask_dpbusds_epi32, "avx512vnni,avx512vl", 256, _mm256_mask_dpbusds_epi32(S, (__mmask8)K, A, B))
REG(o_mm256_maskz_dpbusds_epi32, "avx512vnni,avx512vl", 256, _mm256_maskz_dpbusds_epi32((__mmask8)K, S, A, B))
REG(o_mm256_dpbusds_avx_epi32, "avxvnni", 256, _mm256_dpbusds_avx_epi32(S, A, B))
REG(o_mm_dpbusds_epi32, "avx512vnni,avx512vl", 128, _mm_dpbusds_epi32(S, A, B))
REG(o_mm_mask_dpbusds_epi32, "avx512vnni,avx512vl", 128, _mm_mask_dpbusds_epi32(S, (__mmask8)K, A, B))
REG(o_mm_maskz_dpbusds_epi32, "avx512vnni,avx512vl", 128, _mm_maskz_dpbusds_epi32((__mmask8)K, S, A, B))
REG(o_mm_dpbusds_avx_epi32, "avxvnni", 128, _mm_dpbusds_avx_epi32(S, A, B))
REG(o_mm512_dpwssd_epi32, "avx512f,avx512vnni", 512, _mm512_dpwssd_epi32(S, A, B))
REG(o_mm512_mask_dpwssd_epi32, "avx512f,avx512vnni", 512, _mm512_mask_dpwssd_epi32(S, (__mmask16)K, A, B))
REG(o_mm512_maskz_dpwssd_epi32, "avx512f,avx512vnni", 512, _mm512_maskz_dpwssd_epi32((__mmask16)K, S, A, B))
REG(o_mm256_dpwssd_epi32, "avx512vnni,avx512vl", 256, _mm256_dpwssd_epi32(S, A, B))
REG(o_mm256_mask_dpwssd_epi32, "avx512vnni,avx512vl", 256, _mm256_mask_dpwssd_epi32(S, (__mmask8)K, A, B))
REG(o_mm256_maskz_dpwssd_epi32, "avx512vnni,avx512vl", 256, _mm256_maskz_dpwssd_epi32((__mmask8)K, S, A, B))
REG(o_mm256_dpwssd_avx_epi32, "avxvnni", 256, _mm256_dpwssd_avx_epi32(S, A, B))
REG(o_mm_dpwssd_epi32, "avx512vnni,avx512vl", 128, _mm_dpwssd_epi32(S, A, B))
REG(o_mm_mask_dpwssd_epi32, "avx512vnni,avx512vl", 128, _mm_mask_dpwssd_epi32(S, (__mmask8)K, A, B))
REG(o_mm_maskz_dpwssd_epi32, "avx512vnni,avx512vl", 128, _mm_maskz_dpwssd_epi32((__mmask8)K, S, A, B))
REG(o_mm_dpwssd_avx_epi32, "avxvnni", 128, _mm_dpwssd_avx_epi32(S, A, B))
REG(o_mm512_dpwssds_epi32, "avx512f,avx512vnni", 512, _mm512_dpwssds_epi32(S, A, B))
REG(o_mm512_mask_dpwssds_epi32, "avx512f,avx512vnni", 512, _mm512_mask_dpwssds_epi32(S, (__mmask16)K, A, B))
REG(o_mm512_maskz_dpwssds_epi32, "avx512f,avx512vnni", 512, _mm512_maskz_dpwssds_epi32((__mmask16)K, S, A, B))
REG(o_mm256_dpwssds_epi32, "avx512vnni,avx512vl", 256, _mm256_dpwssds_epi32(S, A, B))
REG(o_mm256_mask_dpwssds_epi32, "avx512vnni,avx512vl", 256, _mm256_mask_dpwssds_epi32(S, (__mmask8)K, A, B))
REG(o_mm256_maskz_dpwssds_epi32, "avx512vnni,avx512vl", 256, _mm256_maskz_dpwssds_epi32((__mmask8)K, S, A, B))
REG(o_mm256_dpwssds_avx_epi32, "avxvnni", 256, _mm256_dpwssds_avx_epi32(S, A, B))
REG(o_mm_dpwssds_epi32, "avx512vnni,avx512vl", 128, _mm_dpwssds_epi32(S, A, B))
REG(o_mm_mask_dpwssds_epi32, "avx512vnni,avx512vl", 128, _mm_mask_dpwssds_epi32(S, (__mmask8)K, A, B))
REG(o_mm_maskz_dpwssds_epi32, "avx512vnni,avx512vl", 128, _mm_maskz_dpwssds_epi32((__mmask8)K, S, A, B))
REG(o_mm_dpwssds_avx_epi32, "avxvnni", 128, _mm_dpwssds_avx_epi32(S, A, B))
REG(o_mm_maddubs_epi16, "ssse3", 128, _mm_maddubs_epi16(A, B))
REG(o_mm_madd_epi16, "sse2", 128, _mm_madd_epi16(A, B))
REG(o_mm256_maddubs_epi16, "avx2", 256, _mm256_maddubs_epi16(A, B))
REG(o_mm256_madd_epi16, "avx2", 256, _mm256_madd_epi16(A, B))
REG(o_mm512_maddubs_epi16, "avx512f,avx512bw", 512, _mm512_maddubs_epi16(A, B))
REG(o_mm512_madd_epi16, "avx512f,avx512bw", 512, _mm512_madd_epi16(A, B))

/* AMX: the kernel hands out the tile data state only on request (Linux 5.16+). 0 on success. */
int amx_request(void) { return (int)syscall(SYS_arch_prctl, 0x1023 /* ARCH_REQ_XCOMP_PERM */, 18 /* XTILEDATA */); }

struct tilecfg {
    uint8_t palette, start_row, reserved[14];
    uint16_t colsb[16];
    uint8_t rows[16];
};

/* n tile operations: C (m x nn dwords), A (m x kk bytes), B (kk/4 x 4nn bytes), each array one after another. */
#define TILE(NAME, INSN)                                                                                   \
    __attribute__((target("amx-tile,amx-int8"))) void NAME(const int32_t *c, const uint8_t *a,            \
                                                             const uint8_t *b, int32_t *o, size_t n, int m, \
                                                             int nn, int kk) {                              \
        struct tilecfg cfg = {0};                                                                           \
        cfg.palette = 1;                                                                                    \
        cfg.rows[0] = m, cfg.colsb[0] = 4 * nn;                                                             \
        cfg.rows[1] = m, cfg.colsb[1] = kk;                                                                 \
        cfg.rows[2] = kk / 4, cfg.colsb[2] = 4 * nn;                                                        \
        _tile_loadconfig(&cfg);                                                                             \
        for (size_t i = 0; i < n; i++) {                                                                    \
            _tile_loadd(0, c + i * m * nn, 4 * nn);                                                         \
            _tile_loadd(1, a + i * m * kk, kk);                                                             \
            _tile_loadd(2, b + i * kk * nn, 4 * nn);                                                        \
            INSN(0, 1, 2);                                                                                  \
            _tile_stored(0, o + i * m * nn, 4 * nn);                                                        \
        }                                                                                                   \
        _tile_release();                                                                                    \
    }

TILE(o_tdpbssd, _tile_dpbssd)
TILE(o_tdpbsud, _tile_dpbsud)
TILE(o_tdpbusd, _tile_dpbusd)
TILE(o_tdpbuud, _tile_dpbuud)
