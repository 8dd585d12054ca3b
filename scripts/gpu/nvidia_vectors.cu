// The NVIDIA integer dot instructions, one kernel per variant, for scripts/gpu/nvidia_vectors.py.
//
// Built at run time with nvcc as a shared library (-arch=sm_90; -DWITH_INT4 adds the m16n8k64 4-bit MMA
// forms when ptxas accepts them) and called through ctypes with host arrays: each entry point copies its
// inputs to the GPU, runs one variant and copies the result back.  Every PTX variant is written as inline
// PTX, so the instruction measured is exactly the one named; the CUDA spellings (__dp4a, __dp2a_lo,
// __dp2a_hi and their char4/short2 overloads) are called as CUDA code, as users write them.
#include <cstdint>
#include <cstring>
#include <cuda_runtime.h>

typedef void (*dp_kernel)(const uint32_t*, const uint32_t*, const uint32_t*, uint32_t*, size_t);
typedef void (*mma_kernel)(const uint32_t*, const uint32_t*, const uint32_t*, uint32_t*, int);

#define GRID_STRIDE for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; \
                         i += (size_t)gridDim.x * blockDim.x)

#define PTX_DP(NAME, INSN)                                                                              \
    __global__ void NAME(const uint32_t* a, const uint32_t* b, const uint32_t* c, uint32_t* d, size_t n) { \
        GRID_STRIDE {                                                                                   \
            uint32_t r;                                                                                 \
            asm volatile(INSN " %0, %1, %2, %3;" : "=r"(r) : "r"(a[i]), "r"(b[i]), "r"(c[i]));          \
            d[i] = r;                                                                                   \
        }                                                                                               \
    }

PTX_DP(k_dp4a_u32_u32, "dp4a.u32.u32")
PTX_DP(k_dp4a_u32_s32, "dp4a.u32.s32")
PTX_DP(k_dp4a_s32_u32, "dp4a.s32.u32")
PTX_DP(k_dp4a_s32_s32, "dp4a.s32.s32")
PTX_DP(k_dp2a_lo_u32_u32, "dp2a.lo.u32.u32")
PTX_DP(k_dp2a_lo_u32_s32, "dp2a.lo.u32.s32")
PTX_DP(k_dp2a_lo_s32_u32, "dp2a.lo.s32.u32")
PTX_DP(k_dp2a_lo_s32_s32, "dp2a.lo.s32.s32")
PTX_DP(k_dp2a_hi_u32_u32, "dp2a.hi.u32.u32")
PTX_DP(k_dp2a_hi_u32_s32, "dp2a.hi.u32.s32")
PTX_DP(k_dp2a_hi_s32_u32, "dp2a.hi.s32.u32")
PTX_DP(k_dp2a_hi_s32_s32, "dp2a.hi.s32.s32")

template <typename T>
__device__ T as(uint32_t w) {
    T v;
    memcpy(&v, &w, sizeof v);
    return v;
}

#define CUDA_DP(NAME, EXPR)                                                                             \
    __global__ void NAME(const uint32_t* a, const uint32_t* b, const uint32_t* c, uint32_t* d, size_t n) { \
        GRID_STRIDE { d[i] = (uint32_t)(EXPR); }                                                        \
    }

CUDA_DP(k_cuda_dp4a_int, __dp4a((int)a[i], (int)b[i], (int)c[i]))
CUDA_DP(k_cuda_dp4a_uint, __dp4a(a[i], b[i], c[i]))
CUDA_DP(k_cuda_dp4a_char4, __dp4a(as<char4>(a[i]), as<char4>(b[i]), (int)c[i]))
CUDA_DP(k_cuda_dp4a_uchar4, __dp4a(as<uchar4>(a[i]), as<uchar4>(b[i]), c[i]))
CUDA_DP(k_cuda_dp2a_lo_int, __dp2a_lo((int)a[i], (int)b[i], (int)c[i]))
CUDA_DP(k_cuda_dp2a_lo_uint, __dp2a_lo(a[i], b[i], c[i]))
CUDA_DP(k_cuda_dp2a_lo_short2, __dp2a_lo(as<short2>(a[i]), as<char4>(b[i]), (int)c[i]))
CUDA_DP(k_cuda_dp2a_lo_ushort2, __dp2a_lo(as<ushort2>(a[i]), as<uchar4>(b[i]), c[i]))
CUDA_DP(k_cuda_dp2a_hi_int, __dp2a_hi((int)a[i], (int)b[i], (int)c[i]))
CUDA_DP(k_cuda_dp2a_hi_uint, __dp2a_hi(a[i], b[i], c[i]))
CUDA_DP(k_cuda_dp2a_hi_short2, __dp2a_hi(as<short2>(a[i]), as<char4>(b[i]), (int)c[i]))
CUDA_DP(k_cuda_dp2a_hi_ushort2, __dp2a_hi(as<ushort2>(a[i]), as<uchar4>(b[i]), c[i]))

// One warp per tile.  A tile is stored as 16 rows of A (8 words: 32 bytes or 64 nibbles, K index 0 in the
// low bits of word 0), 8 columns of B (likewise: B is stored column by column), and C/D as 16 x 8 words,
// row-major.  The fragments follow the PTX ISA's layout for m16n8k32 (.s8/.u8) and m16n8k64 (.s4/.u4):
// with g = lane / 4 and t = lane % 4, a0..a3 hold row g, row g+8, row g, row g+8 at K words t, t, t+4, t+4;
// b0, b1 hold column g at K words t and t+4; c0..c3 hold (g, 2t), (g, 2t+1), (g+8, 2t), (g+8, 2t+1).
#define MMA(NAME, INSN)                                                                                 \
    __global__ void NAME(const uint32_t* A, const uint32_t* B, const uint32_t* C, uint32_t* D, int tiles) { \
        int tile = (int)((blockIdx.x * (size_t)blockDim.x + threadIdx.x) >> 5);                         \
        if (tile >= tiles) return;                                                                      \
        int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;                                       \
        const uint32_t* a = A + (size_t)tile * 128;                                                     \
        const uint32_t* b = B + (size_t)tile * 64;                                                      \
        const uint32_t* c = C + (size_t)tile * 128;                                                     \
        uint32_t* d = D + (size_t)tile * 128;                                                           \
        uint32_t a0 = a[g * 8 + t], a1 = a[(g + 8) * 8 + t], a2 = a[g * 8 + t + 4], a3 = a[(g + 8) * 8 + t + 4]; \
        uint32_t b0 = b[g * 8 + t], b1 = b[g * 8 + t + 4];                                              \
        uint32_t c0 = c[g * 8 + 2 * t], c1 = c[g * 8 + 2 * t + 1];                                      \
        uint32_t c2 = c[(g + 8) * 8 + 2 * t], c3 = c[(g + 8) * 8 + 2 * t + 1];                          \
        uint32_t d0, d1, d2, d3;                                                                        \
        asm volatile(INSN " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"                  \
                     : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3)                                           \
                     : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1),                            \
                       "r"(c0), "r"(c1), "r"(c2), "r"(c3));                                             \
        d[g * 8 + 2 * t] = d0;                                                                          \
        d[g * 8 + 2 * t + 1] = d1;                                                                      \
        d[(g + 8) * 8 + 2 * t] = d2;                                                                    \
        d[(g + 8) * 8 + 2 * t + 1] = d3;                                                                \
    }

#define MMA_PAIR(SHAPE, AT, BT)                                                                         \
    MMA(k_mma_##SHAPE##_##AT##_##BT, "mma.sync.aligned." #SHAPE ".row.col.s32." #AT "." #BT ".s32")     \
    MMA(k_mma_##SHAPE##_##AT##_##BT##_sat, "mma.sync.aligned." #SHAPE ".row.col.satfinite.s32." #AT "." #BT ".s32")

MMA_PAIR(m16n8k32, s8, s8)
MMA_PAIR(m16n8k32, s8, u8)
MMA_PAIR(m16n8k32, u8, s8)
MMA_PAIR(m16n8k32, u8, u8)
#ifdef WITH_INT4
MMA_PAIR(m16n8k64, s4, s4)
MMA_PAIR(m16n8k64, s4, u4)
MMA_PAIR(m16n8k64, u4, s4)
MMA_PAIR(m16n8k64, u4, u4)
#endif

static const char* DP_NAMES[] = {
    "dp4a.u32.u32", "dp4a.u32.s32", "dp4a.s32.u32", "dp4a.s32.s32",
    "dp2a.lo.u32.u32", "dp2a.lo.u32.s32", "dp2a.lo.s32.u32", "dp2a.lo.s32.s32",
    "dp2a.hi.u32.u32", "dp2a.hi.u32.s32", "dp2a.hi.s32.u32", "dp2a.hi.s32.s32",
    "__dp4a(int, int, int)", "__dp4a(unsigned int, unsigned int, unsigned int)",
    "__dp4a(char4, char4, int)", "__dp4a(uchar4, uchar4, unsigned int)",
    "__dp2a_lo(int, int, int)", "__dp2a_lo(unsigned int, unsigned int, unsigned int)",
    "__dp2a_lo(short2, char4, int)", "__dp2a_lo(ushort2, uchar4, unsigned int)",
    "__dp2a_hi(int, int, int)", "__dp2a_hi(unsigned int, unsigned int, unsigned int)",
    "__dp2a_hi(short2, char4, int)", "__dp2a_hi(ushort2, uchar4, unsigned int)",
};
static const dp_kernel DP[] = {
    k_dp4a_u32_u32, k_dp4a_u32_s32, k_dp4a_s32_u32, k_dp4a_s32_s32,
    k_dp2a_lo_u32_u32, k_dp2a_lo_u32_s32, k_dp2a_lo_s32_u32, k_dp2a_lo_s32_s32,
    k_dp2a_hi_u32_u32, k_dp2a_hi_u32_s32, k_dp2a_hi_s32_u32, k_dp2a_hi_s32_s32,
    k_cuda_dp4a_int, k_cuda_dp4a_uint, k_cuda_dp4a_char4, k_cuda_dp4a_uchar4,
    k_cuda_dp2a_lo_int, k_cuda_dp2a_lo_uint, k_cuda_dp2a_lo_short2, k_cuda_dp2a_lo_ushort2,
    k_cuda_dp2a_hi_int, k_cuda_dp2a_hi_uint, k_cuda_dp2a_hi_short2, k_cuda_dp2a_hi_ushort2,
};

#define MMA_NAMES(SHAPE, AT, BT) \
    "mma.sync.aligned." #SHAPE ".row.col.s32." #AT "." #BT ".s32", \
    "mma.sync.aligned." #SHAPE ".row.col.satfinite.s32." #AT "." #BT ".s32",
static const char* MMA_NAMES_[] = {
    MMA_NAMES(m16n8k32, s8, s8) MMA_NAMES(m16n8k32, s8, u8) MMA_NAMES(m16n8k32, u8, s8) MMA_NAMES(m16n8k32, u8, u8)
#ifdef WITH_INT4
    MMA_NAMES(m16n8k64, s4, s4) MMA_NAMES(m16n8k64, s4, u4) MMA_NAMES(m16n8k64, u4, s4) MMA_NAMES(m16n8k64, u4, u4)
#endif
};
#define MMA_KERNELS(SHAPE, AT, BT) k_mma_##SHAPE##_##AT##_##BT, k_mma_##SHAPE##_##AT##_##BT##_sat,
static const mma_kernel MMA_[] = {
    MMA_KERNELS(m16n8k32, s8, s8) MMA_KERNELS(m16n8k32, s8, u8) MMA_KERNELS(m16n8k32, u8, s8)
    MMA_KERNELS(m16n8k32, u8, u8)
#ifdef WITH_INT4
    MMA_KERNELS(m16n8k64, s4, s4) MMA_KERNELS(m16n8k64, s4, u4) MMA_KERNELS(m16n8k64, u4, s4)
    MMA_KERNELS(m16n8k64, u4, u4)
#endif
};

static int copy_in(uint32_t** dev, const uint32_t* host, size_t words) {
    if (cudaMalloc(dev, words * 4) != cudaSuccess) return 1;
    return cudaMemcpy(*dev, host, words * 4, cudaMemcpyHostToDevice) != cudaSuccess;
}

extern "C" {
int dp_count() { return (int)(sizeof DP / sizeof DP[0]); }
int mma_count() { return (int)(sizeof MMA_ / sizeof MMA_[0]); }
const char* dp_name(int v) { return DP_NAMES[v]; }
const char* mma_name(int v) { return MMA_NAMES_[v]; }

// Returns 0 on success, else a CUDA error code (or 1 for a failed allocation).
int run_dp(int v, const uint32_t* a, const uint32_t* b, const uint32_t* c, uint32_t* d, size_t n) {
    uint32_t *da = 0, *db = 0, *dc = 0, *dd = 0;
    int err = copy_in(&da, a, n) || copy_in(&db, b, n) || copy_in(&dc, c, n) || cudaMalloc(&dd, n * 4);
    if (!err) {
        DP[v]<<<1024, 256>>>(da, db, dc, dd, n);
        err = (int)cudaDeviceSynchronize();
        if (!err) err = (int)cudaMemcpy(d, dd, n * 4, cudaMemcpyDeviceToHost);
    }
    cudaFree(da), cudaFree(db), cudaFree(dc), cudaFree(dd);
    return err ? err : (int)cudaGetLastError();
}

int run_mma(int v, const uint32_t* A, const uint32_t* B, const uint32_t* C, uint32_t* D, int tiles) {
    uint32_t *dA = 0, *dB = 0, *dC = 0, *dD = 0;
    size_t t = (size_t)tiles;
    int err = copy_in(&dA, A, t * 128) || copy_in(&dB, B, t * 64) || copy_in(&dC, C, t * 128) ||
              cudaMalloc(&dD, t * 128 * 4);
    if (!err) {
        MMA_[v]<<<(tiles + 3) / 4, 128>>>(dA, dB, dC, dD, tiles);
        err = (int)cudaDeviceSynchronize();
        if (!err) err = (int)cudaMemcpy(D, dD, t * 128 * 4, cudaMemcpyDeviceToHost);
    }
    cudaFree(dA), cudaFree(dB), cudaFree(dC), cudaFree(dD);
    return err ? err : (int)cudaGetLastError();
}
}
