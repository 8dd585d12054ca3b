# ruff: noqa: E501  (LLVM IR declarations are long lines)
"""Kernels for tests/amdgpu/test_objects.py: OpenCL C compute kernels (atomics, LDS, barriers, 64-bit and
half math, scratch, DPP/DPP8/SDWA, permlane, MFMA/WMMA, s_setreg, the dot builtins through ``DOT``) and LLVM IR
graphics shaders (image, buffer, typed-buffer and export instructions; interpolation, LDS parameter loads),
compiled by clang-19 at test time so that the code-object walk meets every encoding class clang emits.

``DOT(x, y, z)`` is defined per processor by the test (a dot builtin the processor has, or plain arithmetic).
"""

ATOMICS = r"""
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
kernel void big(global long *out, global const int *a, global double *d, global atomic_int *flags, int n,
                local int *lds, local long *lds64, float f, ulong mask) {
  int i = get_global_id(0), l = get_local_id(0);
  lds[l] = a[i]; lds64[l] = (long)a[i] * 0x123456789L;
  barrier(CLK_LOCAL_MEM_FENCE);
  long acc = out[i];
  for (int k = 0; k < n; k++) {
    acc += (long)lds[(l + k) & 255] * lds64[(l ^ k) & 255];
    acc ^= (acc >> 13) * 0x9E3779B97F4A7C15L;
    acc += DOT(a[k], lds[k & 63], (int)acc);
    d[i] = d[i] * 1.000001 + sqrt((double)k) / (double)(acc | 1);
    atomic_fetch_add_explicit(&flags[k & 7], 1, memory_order_relaxed, memory_scope_device);
    atom_add(&out[k & 15], acc);
    atomic_max((volatile local int *)&lds[k & 31], (int)acc);
  }
  acc += __builtin_popcountl(mask) + __builtin_clzl(mask | 1) + (long)(f / (float)n);
  acc += sub_group_reduce_add((int)acc);
  out[i] = acc / (n + 3) + acc % 7;
  work_group_barrier(CLK_GLOBAL_MEM_FENCE);
  if (i == 0) out[0] = atomic_xchg((volatile global int *)a, 5);
}
"""

MISC = r"""
typedef struct { float x, y, z; } P;
kernel void misc(global float *o, global const P *p, global half *h, global ulong *u, int n, global int *w) {
  size_t i = get_global_id(0);
  float s = 0;
  for (int k = 0; k < n; k++) { P q = p[k]; s += native_sin(q.x) * rsqrt(q.y + 1.0f) + fma(q.z, s, 1.0f); }
  o[i] = s + (float)vload_half(i, h);
  vstore_half(s, i, h);
  u[i] = mul_hi(u[i], (ulong)i) + rotate(u[i], (ulong)n) + (u[i] / (ulong)(n | 1));
  if (s > 3.0f) { atomic_inc(&w[0]); mem_fence(CLK_GLOBAL_MEM_FENCE); }
  w[i] = DOT(w[i], w[i + 1], w[i + 2]) + sub_group_broadcast((int)i, 3) + get_sub_group_local_id();
}
"""

CROSS_LANE = r"""
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef int v4i __attribute__((ext_vector_type(4)));
typedef int v8i __attribute__((ext_vector_type(8)));
typedef int v2i __attribute__((ext_vector_type(2)));
kernel void k4(global int *o, global const char4 *c, global half2 *h, global const int *a, int n, int sel) {
  int i = get_global_id(0);
  int priv[40];
  for (int k = 0; k < 40; k++) priv[k] = a[k * n + i];
  int x = priv[sel % 40] + priv[(sel * 7) % 40];
  char4 q = c[i] + c[i + 1] * (char4)(3);
  x += q.x * q.w + (q.y >> 1);
  half2 hv = h[i] * h[i + 1] + (half2)(1.5h, -2.0h);
  h[i] = hv;
  x += __builtin_amdgcn_update_dpp(0, x, 0x111, 0xf, 0xf, false);
  x += __builtin_amdgcn_mov_dpp(x * 3, 0x1b, 0xf, 0xf, true);
  x = __builtin_amdgcn_update_dpp(x, x + a[0] * i, 0x141, 0xa, 0x5, true) * (x | 7);
  x += __builtin_amdgcn_ds_swizzle(x, 0x401f);
  x += __builtin_amdgcn_ds_bpermute(i * 4, x);
  x += __builtin_amdgcn_readfirstlane(x) + __builtin_amdgcn_readlane(x, 5);
#if defined(__gfx1030__) || defined(__gfx1100__) || defined(__gfx1200__) || defined(__gfx1010__) || defined(__gfx1151__)
  x += __builtin_amdgcn_mov_dpp8(x, 0x53977);
  x += __builtin_amdgcn_permlane16(x, x, 0x12345678, 0x9abcdef0, false, false);
  x += __builtin_amdgcn_permlanex16(x, x, 0x12345678, 0x9abcdef0, true, false);
#endif
#if defined(__gfx908__) || defined(__gfx90a__) || defined(__gfx942__)
  v4i acc = {x, x + 1, x + 2, x + 3};
  acc = __builtin_amdgcn_mfma_i32_4x4x4i8(a[i], a[i + 1], acc, 0, 0, 0);
  x += acc.x + acc.w;
#endif
#if defined(__gfx1100__) || defined(__gfx1151__)
  v4i A = {a[i], a[i+1], a[i+2], a[i+3]};
  v8i C = {x, x, x, x, x, x, x, x};
  C = __builtin_amdgcn_wmma_i32_16x16x16_iu8_w32(true, A, true, A, C, false);
  x += C.s0 + C.s7;
#endif
#if defined(__gfx1200__)
  v2i A = {a[i], a[i+1]};
  v8i C = {x, x, x, x, x, x, x, x};
  C = __builtin_amdgcn_wmma_i32_16x16x16_iu8_w32_gfx12(true, A, true, A, C, false);
  x += C.s0 + C.s7;
#endif
  __builtin_amdgcn_s_setreg(0x1801, sel);
  __builtin_amdgcn_s_sleep(2);
  __builtin_amdgcn_s_barrier();
  x += DOT(x, a[i], x);
  o[i] = x + __builtin_amdgcn_s_getreg(0x1801);
}
"""

IMAGES = r"""
target triple = "amdgcn-amd-amdpal"
declare <4 x float> @llvm.amdgcn.image.load.2d.v4f32.i32(i32, i32, i32, <8 x i32>, i32, i32)
declare void @llvm.amdgcn.image.store.2d.v4f32.i32(<4 x float>, i32, i32, i32, <8 x i32>, i32, i32)
declare <4 x float> @llvm.amdgcn.image.sample.2d.v4f32.f32(i32, float, float, <8 x i32>, <4 x i32>, i1, i32, i32)
declare <4 x float> @llvm.amdgcn.image.sample.d.3d.v4f32.f32.f32(i32, float, float, float, float, float, float, float, float, float, <8 x i32>, <4 x i32>, i1, i32, i32)
declare float @llvm.amdgcn.raw.buffer.load.f32(<4 x i32>, i32, i32, i32)
declare void @llvm.amdgcn.raw.tbuffer.store.f32(float, <4 x i32>, i32, i32, i32, i32)
declare void @llvm.amdgcn.exp.f32(i32, i32, float, float, float, float, i1, i1)
declare float @llvm.amdgcn.interp.p1(float, i32, i32, i32)
declare i32 @llvm.amdgcn.image.atomic.add.2d.i32.i32(i32, i32, i32, <8 x i32>, i32, i32)
define amdgpu_ps <4 x float> @img(<8 x i32> inreg %rsrc, <4 x i32> inreg %samp, <4 x i32> inreg %buf, i32 %x, i32 %y, float %s, float %t, float %u) {
  %a = call <4 x float> @llvm.amdgcn.image.load.2d.v4f32.i32(i32 15, i32 %x, i32 %y, <8 x i32> %rsrc, i32 0, i32 0)
  %b = call <4 x float> @llvm.amdgcn.image.sample.2d.v4f32.f32(i32 15, float %s, float %t, <8 x i32> %rsrc, <4 x i32> %samp, i1 false, i32 0, i32 0)
  %c = call <4 x float> @llvm.amdgcn.image.sample.d.3d.v4f32.f32.f32(i32 15, float %s, float %t, float %u, float %t, float %s, float %u, float %s, float %t, float %u, <8 x i32> %rsrc, <4 x i32> %samp, i1 false, i32 0, i32 0)
  %ab = fadd <4 x float> %a, %b
  %abc = fadd <4 x float> %ab, %c
  call void @llvm.amdgcn.image.store.2d.v4f32.i32(<4 x float> %abc, i32 15, i32 %y, i32 %x, <8 x i32> %rsrc, i32 0, i32 0)
  %l = call float @llvm.amdgcn.raw.buffer.load.f32(<4 x i32> %buf, i32 %x, i32 0, i32 0)
  call void @llvm.amdgcn.raw.tbuffer.store.f32(float %l, <4 x i32> %buf, i32 %y, i32 0, i32 20, i32 0)
  %q = call i32 @llvm.amdgcn.image.atomic.add.2d.i32.i32(i32 %x, i32 %x, i32 %y, <8 x i32> %rsrc, i32 0, i32 0)
  %qf = bitcast i32 %q to float
  %r = insertelement <4 x float> %abc, float %qf, i32 0
  call void @llvm.amdgcn.exp.f32(i32 0, i32 15, float %s, float %t, float %u, float %qf, i1 true, i1 true)
  ret <4 x float> %r
}
"""

INTERP = r"""
target triple = "amdgcn-amd-amdpal"
declare float @llvm.amdgcn.interp.p1(float, i32, i32, i32)
declare float @llvm.amdgcn.interp.p2(float, float, i32, i32, i32)
declare float @llvm.amdgcn.lds.param.load(i32, i32, i32)
declare float @llvm.amdgcn.interp.inreg.p10(float, float, float)
declare float @llvm.amdgcn.interp.inreg.p2(float, float, float)
declare void @llvm.amdgcn.exp.f32(i32, i32, float, float, float, float, i1, i1)
define amdgpu_ps void @ps(i32 inreg %prim, float %i, float %j) {
  %p1 = call float @llvm.amdgcn.interp.p1(float %i, i32 0, i32 0, i32 %prim)
  %p2 = call float @llvm.amdgcn.interp.p2(float %p1, float %j, i32 0, i32 0, i32 %prim)
  call void @llvm.amdgcn.exp.f32(i32 0, i32 15, float %p2, float %p1, float %i, float %j, i1 true, i1 true)
  ret void
}
"""

LDS_PARAM = r"""
target triple = "amdgcn-amd-amdpal"
declare float @llvm.amdgcn.lds.param.load(i32, i32, i32)
declare float @llvm.amdgcn.interp.inreg.p10(float, float, float)
declare float @llvm.amdgcn.interp.inreg.p2(float, float, float)
declare void @llvm.amdgcn.exp.f32(i32, i32, float, float, float, float, i1, i1)
define amdgpu_ps void @ps(i32 inreg %prim, float %i, float %j) {
  %p0 = call float @llvm.amdgcn.lds.param.load(i32 0, i32 0, i32 %prim)
  %a = call float @llvm.amdgcn.interp.inreg.p10(float %p0, float %i, float %p0)
  %b = call float @llvm.amdgcn.interp.inreg.p2(float %p0, float %j, float %a)
  call void @llvm.amdgcn.exp.f32(i32 0, i32 15, float %b, float %a, float %i, float %j, i1 true, i1 true)
  ret void
}
"""


# Lines llvm-mc-19 assembles into objects: at least one instruction of every encoding class and of every rule that
# lengthens one (literals, K constants, SDWA, DPP16/DPP8, VOP3 DPP, VOPD, MIMG NSA, setreg_imm32), per generation.
ASM_GFX9 = """
s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 0x12345678
s_add_u32 s0, s1, 0x12345678
s_cmp_eq_u32 s0, 0x12345678
s_mov_b32 s0, 0x12345678
s_movk_i32 s0, 0x1234
s_nop 0
v_add_f32 v0, 0x12345678, v1
v_mov_b32 v0, 0x12345678
v_cmp_eq_u32 vcc, 0x12345678, v1
v_madmk_f32 v0, v1, 0x12345678, v2
v_madak_f32 v0, v1, v2, 0x12345678
v_madmk_f16 v0, v1, 0x1234, v2
v_add_f32_sdwa v0, v1, v2 dst_sel:WORD_1 src0_sel:BYTE_0
v_mov_b32_dpp v0, v1 quad_perm:[1,0,3,2]
v_cmp_eq_u32_sdwa vcc, v1, v2 src0_sel:WORD_1
v_mad_f32 v0, v1, v2, v3
v_pk_add_f16 v0, v1, v2
v_interp_p1_f32 v0, v1, attr0.x
v_interp_mov_f32 v0, p10, attr0.x
s_load_dword s0, s[0:1], 0x10
ds_add_u32 v0, v1 offset:16
flat_load_dword v0, v[0:1]
global_load_dword v0, v[0:1], off
buffer_load_dword v0, off, s[0:3], 0
tbuffer_load_format_x v0, off, s[0:3], dfmt:4, nfmt:7, 0
image_load v[0:3], v0, s[0:7] dmask:0xf
exp mrt0 v0, v0, v0, v0 done
s_endpgm
"""

ASM_GFX908 = """
v_mfma_f32_32x32x1f32 a[0:31], v0, v1, a[0:31]
v_accvgpr_write_b32 a0, v0
v_dot4c_i32_i8_dpp v5, v1, v2 row_shl:1
v_pk_fmac_f16 v0, v1, v2
v_fmac_f32 v0, 0x12345678, v1
s_endpgm
"""

ASM_GFX90A = """
v_mfma_f64_16x16x4f64 v[0:7], v[0:1], v[2:3], v[0:7]
v_pk_fma_f32 v[0:1], v[2:3], v[4:5], v[6:7]
v_mov_b32_dpp v0, v1 row_newbcast:1
buffer_atomic_add_f64 v[0:1], off, s[0:3], 0
scratch_load_dword v0, off, s0
s_endpgm
"""

_GFX10 = """
s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 0x12345678
s_version 0x1234
s_add_u32 s0, 0x12345678, s1
v_add_f32 v0, 0x12345678, v1
v_fmamk_f32 v0, v1, 0x12345678, v2
v_fmaak_f32 v0, v1, v2, 0x12345678
v_fmamk_f16 v0, v1, 0x1234, v2
v_add_f32_sdwa v0, v1, v2 dst_sel:WORD_1 src0_sel:BYTE_0
v_mov_b32_dpp v0, v1 quad_perm:[1,0,3,2] fi:1
v_mov_b32 v0, v1 dpp8:[7,6,5,4,3,2,1,0]
v_mov_b32 v0, v1 dpp8:[7,6,5,4,3,2,1,0] fi:1
v_cmp_eq_u32_sdwa vcc_lo, v1, v2 src0_sel:WORD_1
v_add_co_u32 v0, s0, 0x12345678, v1
v_fma_f32 v0, 0x12345678, v1, v2
v_pk_fma_f16 v0, 0x12345678, v1, v2
v_interp_p1_f32 v0, v1, attr0.x
s_load_dword s0, s[0:1], 0x10
s_load_dword s0, s[0:1], s2 offset:0x10
ds_add_u32 v0, v1 offset:16
global_load_dword v0, v[0:1], off
buffer_load_dword v0, off, s[0:3], 0
tbuffer_load_format_x v0, off, s[0:3], format:22, 0
image_load v[0:3], v0, s[0:7] dmask:0xf dim:SQ_RSRC_IMG_1D
image_load v[0:3], [v0, v2, v4], s[0:7] dmask:0xf dim:SQ_RSRC_IMG_3D
image_load v[0:3], [v0, v2, v4, v6], s[0:7] dmask:0xf dim:SQ_RSRC_IMG_2D_MSAA_ARRAY
"""

ASM_GFX1010 = (
    _GFX10
    + """\
exp mrt0 v0, v0, v0, v0 done
s_endpgm
"""
)

# gfx1030 adds the ray-tracing image instruction (MIMG NSA with 11 addresses) to gfx1010's set.
ASM_GFX1030 = (
    _GFX10
    + """\
image_bvh_intersect_ray v[0:3], [v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10], s[0:3]
exp mrt0 v0, v0, v0, v0 done
s_endpgm
"""
)

ASM_GFX11 = """
s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 0x12345678
s_version 0x1234
s_add_u32 s0, 0x12345678, s1
s_delay_alu instid0(VALU_DEP_1)
v_add_f32 v0, 0x12345678, v1
v_fmamk_f32 v0, v1, 0x12345678, v2
v_fmaak_f32 v0, v1, v2, 0x12345678
v_mov_b32_dpp v0, v1 quad_perm:[1,0,3,2] fi:1
v_mov_b32 v0, v1 dpp8:[7,6,5,4,3,2,1,0]
v_add_co_u32 v0, s0, 0x12345678, v1
v_fma_f32 v0, 0x12345678, v1, v2
v_fma_f32_e64_dpp v0, v1, v2, v3 quad_perm:[0,1,2,3]
v_fma_f32_e64_dpp v0, v1, v2, v3 dpp8:[7,6,5,4,3,2,1,0]
v_cmp_eq_u32_e64_dpp s0, v1, v2 quad_perm:[0,1,2,3]
v_cmp_eq_u32 vcc_lo, 0x12345678, v1
v_pk_fma_f16 v0, 0x12345678, v1, v2
v_dual_mov_b32 v0, v1 :: v_dual_mov_b32 v1, v2
v_dual_fmamk_f32 v0, v1, 0x12345678, v2 :: v_dual_mov_b32 v1, v3
v_dual_mov_b32 v0, 0x12345678 :: v_dual_mov_b32 v1, v2
v_wmma_f32_16x16x16_f16 v[0:7], v[8:15], v[16:23], v[0:7]
v_interp_p10_f32 v0, v1, v2, v3
lds_param_load v0, attr0.x
s_load_b32 s0, s[0:1], 0x10
ds_add_u32 v0, v1 offset:16
global_load_b32 v0, v[0:1], off
buffer_load_b32 v0, off, s[0:3], 0
tbuffer_load_format_x v0, off, s[0:3], format:22, 0
image_load v[0:3], v0, s[0:7] dmask:0xf dim:SQ_RSRC_IMG_1D
image_load v[0:3], [v0, v2, v4], s[0:7] dmask:0xf dim:SQ_RSRC_IMG_3D
image_bvh_intersect_ray v[0:3], [v0, v1, v[2:4], v[5:7], v[8:10]], s[0:3]
exp mrt0 v0, v0, v0, v0 done
s_endpgm
"""

ASM_GFX12 = """
s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 0x12345678
s_add_co_u32 s0, 0x12345678, s1
s_fmamk_f32 s0, s1, 0x12345678, s2
s_fmaak_f32 s0, s1, s2, 0x12345678
v_add_f32 v0, 0x12345678, v1
v_fmamk_f32 v0, v1, 0x12345678, v2
v_mov_b32_dpp v0, v1 quad_perm:[1,0,3,2] fi:1
v_mov_b32 v0, v1 dpp8:[7,6,5,4,3,2,1,0]
v_fma_f32 v0, 0x12345678, v1, v2
v_fma_f32_e64_dpp v0, v1, v2, v3 quad_perm:[0,1,2,3]
v_pk_fma_f16 v0, 0x12345678, v1, v2
v_dual_mov_b32 v0, v1 :: v_dual_mov_b32 v1, v2
v_dual_fmamk_f32 v0, v1, 0x12345678, v2 :: v_dual_mov_b32 v1, v3
v_wmma_f32_16x16x16_f16 v[0:7], v[8:11], v[12:15], v[0:7]
v_interp_p10_f32 v0, v1, v2, v3
ds_param_load v0, attr0.x
s_load_b32 s0, s[0:1], 0x10
ds_add_u32 v0, v1 offset:16
global_load_b32 v0, v[0:1], off
scratch_load_b32 v0, off, s0
buffer_load_b32 v0, off, s[0:3], null
tbuffer_load_format_x v0, off, s[0:3], null format:[BUF_FMT_32_FLOAT]
image_load v[0:3], v0, s[0:7] dmask:0xf dim:SQ_RSRC_IMG_1D
image_sample v[0:3], [v0, v1], s[0:7], s[8:11] dmask:0xf dim:SQ_RSRC_IMG_2D
export mrt0 v0, v0, v0, v0 done
s_endpgm
"""
