/* simd.h — a small SIMD abstraction for the float32 kernels (src/cpu/vec_impl.h).
 *
 * One vector type per instruction set, with the same operations everywhere:
 *   AVX2+FMA  (x86; only in files that define WK_SIMD_AVX2 and compile under target("avx2,fma"): vec_avx2.c)
 *   AVX-512F  (x86; WK_SIMD_AVX512 under target("avx512f"): vec_avx512.c — the exp-based kernels only)
 *   wasm simd128 (clang -msimd128), NEON (aarch64), and a portable scalar fallback (one lane).
 *
 *   wk_vf   WK_VL float lanes           wk_vi   WK_VL int32 lanes          wk_vm   a lane mask (from comparisons)
 *   vf_loadu / vf_storeu / vf_set1 / vf_zero
 *   vf_stream(p, v): a store that bypasses the caches (p aligned to the vector; x86 only, else vf_storeu), made
 *   visible by vf_stream_done() (WK_VF_STREAM says whether the ISA has it)
 *   vf_add vf_sub vf_mul vf_div         vf_fma(a, b, c) = a * b + c (fused where the ISA has it: WK_VF_FUSED)
 *   vf_max / vf_min: IEEE-free (which operand a NaN gives is unspecified: callers handle NaN themselves)
 *   vf_lt vf_le vf_gt vf_ge vf_isnan -> wk_vm;  vm_or vm_and;  vf_select(m, a, b) = m ? a : b (per lane);
 *   vm_any(m), vm_all(m)
 *   vf_ldexp(y, n) = y * 2^n, n an integral float in [-126, 127] (one rounding)
 *   vf_round (to nearest, ties to even), vf_to_vi (of an integral float), vi_add / vi_set1 / vi_shl23 / vi_srai1
 *   vf_from_bits (the int lanes as float bits), vf_bits (the float lanes' bits as ints)
 *   vf_load_even(p) = p[0], p[2], ..., p[2 * (WK_VL - 1)]; it reads p[0 .. 2 * WK_VL) (one float past the last)
 * Everything is static inline; the caller's target attributes decide the instructions. */
#ifndef WK_SIMD_H
#define WK_SIMD_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(WK_SIMD_AVX2)
#include <immintrin.h>
#define WK_SIMD_NAME "avx2"
#define WK_VL 8
#define WK_VF_FUSED 1
typedef __m256 wk_vf;
typedef __m256i wk_vi;
typedef __m256 wk_vm;
static inline wk_vf vf_loadu(const float *p) { return _mm256_loadu_ps(p); }
static inline void vf_storeu(float *p, wk_vf v) { _mm256_storeu_ps(p, v); }
#define WK_VF_STREAM 1
static inline void vf_stream(float *p, wk_vf v) { _mm256_stream_ps(p, v); }
static inline void vf_stream_done(void) { _mm_sfence(); }
static inline wk_vf vf_set1(float x) { return _mm256_set1_ps(x); }
static inline wk_vf vf_zero(void) { return _mm256_setzero_ps(); }
static inline wk_vf vf_add(wk_vf a, wk_vf b) { return _mm256_add_ps(a, b); }
static inline wk_vf vf_sub(wk_vf a, wk_vf b) { return _mm256_sub_ps(a, b); }
static inline wk_vf vf_mul(wk_vf a, wk_vf b) { return _mm256_mul_ps(a, b); }
static inline wk_vf vf_div(wk_vf a, wk_vf b) { return _mm256_div_ps(a, b); }
static inline wk_vf vf_fma(wk_vf a, wk_vf b, wk_vf c) { return _mm256_fmadd_ps(a, b, c); }
static inline wk_vf vf_max(wk_vf a, wk_vf b) { return _mm256_max_ps(a, b); }
static inline wk_vf vf_min(wk_vf a, wk_vf b) { return _mm256_min_ps(a, b); }
static inline wk_vm vf_lt(wk_vf a, wk_vf b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
static inline wk_vm vf_le(wk_vf a, wk_vf b) { return _mm256_cmp_ps(a, b, _CMP_LE_OQ); }
static inline wk_vm vf_gt(wk_vf a, wk_vf b) { return _mm256_cmp_ps(a, b, _CMP_GT_OQ); }
static inline wk_vm vf_ge(wk_vf a, wk_vf b) { return _mm256_cmp_ps(a, b, _CMP_GE_OQ); }
static inline wk_vm vm_and(wk_vm a, wk_vm b) { return _mm256_and_ps(a, b); }
static inline int vm_all(wk_vm m) { return _mm256_movemask_ps(m) == 0xff; }
static inline wk_vf vf_ldexp(wk_vf y, wk_vf n) {
    return _mm256_mul_ps(y, _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23)));
}
static inline wk_vm vf_isnan(wk_vf a) { return _mm256_cmp_ps(a, a, _CMP_UNORD_Q); }
static inline wk_vm vm_or(wk_vm a, wk_vm b) { return _mm256_or_ps(a, b); }
static inline int vm_any(wk_vm m) { return _mm256_movemask_ps(m) != 0; }
static inline wk_vf vf_select(wk_vm m, wk_vf a, wk_vf b) { return _mm256_blendv_ps(b, a, m); }
static inline wk_vf vf_round(wk_vf a) { return _mm256_round_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
static inline wk_vi vf_to_vi(wk_vf a) { return _mm256_cvtps_epi32(a); }
static inline wk_vi vi_set1(int32_t x) { return _mm256_set1_epi32(x); }
static inline wk_vi vi_add(wk_vi a, wk_vi b) { return _mm256_add_epi32(a, b); }
static inline wk_vi vi_sub(wk_vi a, wk_vi b) { return _mm256_sub_epi32(a, b); }
static inline wk_vi vi_shl23(wk_vi a) { return _mm256_slli_epi32(a, 23); }
static inline wk_vi vi_srai1(wk_vi a) { return _mm256_srai_epi32(a, 1); }
static inline wk_vf vf_from_bits(wk_vi a) { return _mm256_castsi256_ps(a); }
static inline wk_vi vf_bits(wk_vf a) { return _mm256_castps_si256(a); }
static inline wk_vf vf_load_even(const float *p) {
    __m256 a = _mm256_loadu_ps(p), b = _mm256_loadu_ps(p + 8), e = _mm256_shuffle_ps(a, b, 0x88); /* a0 a2 b0 b2 | a4 a6 b4 b6 */
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(e), 0xD8));
}

#elif defined(WK_SIMD_AVX512)
#include <immintrin.h>
#define WK_SIMD_NAME "avx512"
#define WK_VL 16
#define WK_VF_FUSED 1
typedef __m512 wk_vf;
typedef __m512i wk_vi;
typedef __mmask16 wk_vm;
static inline wk_vf vf_loadu(const float *p) { return _mm512_loadu_ps(p); }
static inline void vf_storeu(float *p, wk_vf v) { _mm512_storeu_ps(p, v); }
#define WK_VF_STREAM 1
static inline void vf_stream(float *p, wk_vf v) { _mm512_stream_ps(p, v); }
static inline void vf_stream_done(void) { _mm_sfence(); }
static inline wk_vf vf_set1(float x) { return _mm512_set1_ps(x); }
static inline wk_vf vf_zero(void) { return _mm512_setzero_ps(); }
static inline wk_vf vf_add(wk_vf a, wk_vf b) { return _mm512_add_ps(a, b); }
static inline wk_vf vf_sub(wk_vf a, wk_vf b) { return _mm512_sub_ps(a, b); }
static inline wk_vf vf_mul(wk_vf a, wk_vf b) { return _mm512_mul_ps(a, b); }
static inline wk_vf vf_div(wk_vf a, wk_vf b) { return _mm512_div_ps(a, b); }
static inline wk_vf vf_fma(wk_vf a, wk_vf b, wk_vf c) { return _mm512_fmadd_ps(a, b, c); }
static inline wk_vf vf_max(wk_vf a, wk_vf b) { return _mm512_max_ps(a, b); }
static inline wk_vf vf_min(wk_vf a, wk_vf b) { return _mm512_min_ps(a, b); }
static inline wk_vm vf_lt(wk_vf a, wk_vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ); }
static inline wk_vm vf_le(wk_vf a, wk_vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_LE_OQ); }
static inline wk_vm vf_gt(wk_vf a, wk_vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ); }
static inline wk_vm vf_ge(wk_vf a, wk_vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_GE_OQ); }
static inline wk_vm vm_and(wk_vm a, wk_vm b) { return (wk_vm)(a & b); }
static inline int vm_all(wk_vm m) { return m == 0xffff; }
static inline wk_vf vf_ldexp(wk_vf y, wk_vf n) { return _mm512_scalef_ps(y, n); }
static inline wk_vm vf_isnan(wk_vf a) { return _mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q); }
static inline wk_vm vm_or(wk_vm a, wk_vm b) { return (wk_vm)(a | b); }
static inline int vm_any(wk_vm m) { return m != 0; }
static inline wk_vf vf_select(wk_vm m, wk_vf a, wk_vf b) { return _mm512_mask_blend_ps(m, b, a); }
static inline wk_vf vf_round(wk_vf a) { return _mm512_roundscale_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
static inline wk_vi vf_to_vi(wk_vf a) { return _mm512_cvtps_epi32(a); }
static inline wk_vi vi_set1(int32_t x) { return _mm512_set1_epi32(x); }
static inline wk_vi vi_add(wk_vi a, wk_vi b) { return _mm512_add_epi32(a, b); }
static inline wk_vi vi_sub(wk_vi a, wk_vi b) { return _mm512_sub_epi32(a, b); }
static inline wk_vi vi_shl23(wk_vi a) { return _mm512_slli_epi32(a, 23); }
static inline wk_vi vi_srai1(wk_vi a) { return _mm512_srai_epi32(a, 1); }
static inline wk_vf vf_from_bits(wk_vi a) { return _mm512_castsi512_ps(a); }
static inline wk_vi vf_bits(wk_vf a) { return _mm512_castps_si512(a); }
static inline wk_vf vf_load_even(const float *p) {
    const __m512i idx = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    return _mm512_permutex2var_ps(_mm512_loadu_ps(p), idx, _mm512_loadu_ps(p + 16));
}

#elif defined(__wasm_simd128__)
#include <wasm_simd128.h>
#define WK_SIMD_NAME "wasm-simd128"
#define WK_VL 4
#define WK_VF_FUSED 0
typedef v128_t wk_vf;
typedef v128_t wk_vi;
typedef v128_t wk_vm;
static inline wk_vf vf_loadu(const float *p) { return wasm_v128_load(p); }
static inline void vf_storeu(float *p, wk_vf v) { wasm_v128_store(p, v); }
#define WK_VF_STREAM 0
static inline void vf_stream(float *p, wk_vf v) { wasm_v128_store(p, v); }
static inline void vf_stream_done(void) {}
static inline wk_vf vf_set1(float x) { return wasm_f32x4_splat(x); }
static inline wk_vf vf_zero(void) { return wasm_f32x4_splat(0.0f); }
static inline wk_vf vf_add(wk_vf a, wk_vf b) { return wasm_f32x4_add(a, b); }
static inline wk_vf vf_sub(wk_vf a, wk_vf b) { return wasm_f32x4_sub(a, b); }
static inline wk_vf vf_mul(wk_vf a, wk_vf b) { return wasm_f32x4_mul(a, b); }
static inline wk_vf vf_div(wk_vf a, wk_vf b) { return wasm_f32x4_div(a, b); }
static inline wk_vf vf_fma(wk_vf a, wk_vf b, wk_vf c) { return wasm_f32x4_add(wasm_f32x4_mul(a, b), c); }
static inline wk_vf vf_max(wk_vf a, wk_vf b) { return wasm_f32x4_pmax(a, b); }
static inline wk_vf vf_min(wk_vf a, wk_vf b) { return wasm_f32x4_pmin(a, b); }
static inline wk_vm vf_lt(wk_vf a, wk_vf b) { return wasm_f32x4_lt(a, b); }
static inline wk_vm vf_le(wk_vf a, wk_vf b) { return wasm_f32x4_le(a, b); }
static inline wk_vm vf_gt(wk_vf a, wk_vf b) { return wasm_f32x4_gt(a, b); }
static inline wk_vm vf_ge(wk_vf a, wk_vf b) { return wasm_f32x4_ge(a, b); }
static inline wk_vm vm_and(wk_vm a, wk_vm b) { return wasm_v128_and(a, b); }
static inline int vm_all(wk_vm m) { return wasm_i32x4_all_true(m); }
static inline wk_vf vf_ldexp(wk_vf y, wk_vf n) {
    return wasm_f32x4_mul(y, wasm_i32x4_shl(wasm_i32x4_add(wasm_i32x4_trunc_sat_f32x4(n), wasm_i32x4_splat(127)), 23));
}
static inline wk_vm vf_isnan(wk_vf a) { return wasm_f32x4_ne(a, a); }
static inline wk_vm vm_or(wk_vm a, wk_vm b) { return wasm_v128_or(a, b); }
static inline int vm_any(wk_vm m) { return wasm_v128_any_true(m); }
static inline wk_vf vf_select(wk_vm m, wk_vf a, wk_vf b) { return wasm_v128_bitselect(a, b, m); }
static inline wk_vf vf_round(wk_vf a) { return wasm_f32x4_nearest(a); }
static inline wk_vi vf_to_vi(wk_vf a) { return wasm_i32x4_trunc_sat_f32x4(a); }
static inline wk_vi vi_set1(int32_t x) { return wasm_i32x4_splat(x); }
static inline wk_vi vi_add(wk_vi a, wk_vi b) { return wasm_i32x4_add(a, b); }
static inline wk_vi vi_sub(wk_vi a, wk_vi b) { return wasm_i32x4_sub(a, b); }
static inline wk_vi vi_shl23(wk_vi a) { return wasm_i32x4_shl(a, 23); }
static inline wk_vi vi_srai1(wk_vi a) { return wasm_i32x4_shr(a, 1); }
static inline wk_vf vf_from_bits(wk_vi a) { return a; }
static inline wk_vi vf_bits(wk_vf a) { return a; }
static inline wk_vf vf_load_even(const float *p) { return wasm_i32x4_shuffle(wasm_v128_load(p), wasm_v128_load(p + 4), 0, 2, 4, 6); }

#elif defined(__ARM_NEON) && defined(__aarch64__)
#include <arm_neon.h>
#define WK_SIMD_NAME "neon"
#define WK_VL 4
#define WK_VF_FUSED 1
typedef float32x4_t wk_vf;
typedef int32x4_t wk_vi;
typedef uint32x4_t wk_vm;
static inline wk_vf vf_loadu(const float *p) { return vld1q_f32(p); }
static inline void vf_storeu(float *p, wk_vf v) { vst1q_f32(p, v); }
#define WK_VF_STREAM 0
static inline void vf_stream(float *p, wk_vf v) { vst1q_f32(p, v); }
static inline void vf_stream_done(void) {}
static inline wk_vf vf_set1(float x) { return vdupq_n_f32(x); }
static inline wk_vf vf_zero(void) { return vdupq_n_f32(0.0f); }
static inline wk_vf vf_add(wk_vf a, wk_vf b) { return vaddq_f32(a, b); }
static inline wk_vf vf_sub(wk_vf a, wk_vf b) { return vsubq_f32(a, b); }
static inline wk_vf vf_mul(wk_vf a, wk_vf b) { return vmulq_f32(a, b); }
static inline wk_vf vf_div(wk_vf a, wk_vf b) { return vdivq_f32(a, b); }
static inline wk_vf vf_fma(wk_vf a, wk_vf b, wk_vf c) { return vfmaq_f32(c, a, b); }
static inline wk_vf vf_max(wk_vf a, wk_vf b) { return vmaxq_f32(a, b); }
static inline wk_vf vf_min(wk_vf a, wk_vf b) { return vminq_f32(a, b); }
static inline wk_vm vf_lt(wk_vf a, wk_vf b) { return vcltq_f32(a, b); }
static inline wk_vm vf_le(wk_vf a, wk_vf b) { return vcleq_f32(a, b); }
static inline wk_vm vf_gt(wk_vf a, wk_vf b) { return vcgtq_f32(a, b); }
static inline wk_vm vf_ge(wk_vf a, wk_vf b) { return vcgeq_f32(a, b); }
static inline wk_vm vm_and(wk_vm a, wk_vm b) { return vandq_u32(a, b); }
static inline int vm_all(wk_vm m) { return vminvq_u32(m) != 0; }
static inline wk_vf vf_ldexp(wk_vf y, wk_vf n) {
    return vmulq_f32(y, vreinterpretq_f32_s32(vshlq_n_s32(vaddq_s32(vcvtnq_s32_f32(n), vdupq_n_s32(127)), 23)));
}
static inline wk_vm vf_isnan(wk_vf a) { return vmvnq_u32(vceqq_f32(a, a)); }
static inline wk_vm vm_or(wk_vm a, wk_vm b) { return vorrq_u32(a, b); }
static inline int vm_any(wk_vm m) { return vmaxvq_u32(m) != 0; }
static inline wk_vf vf_select(wk_vm m, wk_vf a, wk_vf b) { return vbslq_f32(m, a, b); }
static inline wk_vf vf_round(wk_vf a) { return vrndnq_f32(a); }
static inline wk_vi vf_to_vi(wk_vf a) { return vcvtnq_s32_f32(a); }
static inline wk_vi vi_set1(int32_t x) { return vdupq_n_s32(x); }
static inline wk_vi vi_add(wk_vi a, wk_vi b) { return vaddq_s32(a, b); }
static inline wk_vi vi_sub(wk_vi a, wk_vi b) { return vsubq_s32(a, b); }
static inline wk_vi vi_shl23(wk_vi a) { return vshlq_n_s32(a, 23); }
static inline wk_vi vi_srai1(wk_vi a) { return vshrq_n_s32(a, 1); }
static inline wk_vf vf_from_bits(wk_vi a) { return vreinterpretq_f32_s32(a); }
static inline wk_vi vf_bits(wk_vf a) { return vreinterpretq_s32_f32(a); }
static inline wk_vf vf_load_even(const float *p) { return vld2q_f32(p).val[0]; }

#else /* portable scalar fallback: one lane */
#define WK_SIMD_NAME "scalar"
#define WK_VL 1
#define WK_VF_FUSED 0
typedef float wk_vf;
typedef int32_t wk_vi;
typedef int wk_vm;
static inline wk_vf vf_loadu(const float *p) { return *p; }
static inline void vf_storeu(float *p, wk_vf v) { *p = v; }
#define WK_VF_STREAM 0
static inline void vf_stream(float *p, wk_vf v) { *p = v; }
static inline void vf_stream_done(void) {}
static inline wk_vf vf_set1(float x) { return x; }
static inline wk_vf vf_zero(void) { return 0.0f; }
static inline wk_vf vf_add(wk_vf a, wk_vf b) { return a + b; }
static inline wk_vf vf_sub(wk_vf a, wk_vf b) { return a - b; }
static inline wk_vf vf_mul(wk_vf a, wk_vf b) { return a * b; }
static inline wk_vf vf_div(wk_vf a, wk_vf b) { return a / b; }
static inline wk_vf vf_fma(wk_vf a, wk_vf b, wk_vf c) { return a * b + c; } /* -ffp-contract=off: not fused */
static inline wk_vf vf_max(wk_vf a, wk_vf b) { return a > b ? a : b; }
static inline wk_vf vf_min(wk_vf a, wk_vf b) { return a < b ? a : b; }
static inline wk_vm vf_lt(wk_vf a, wk_vf b) { return a < b; }
static inline wk_vm vf_le(wk_vf a, wk_vf b) { return a <= b; }
static inline wk_vm vf_gt(wk_vf a, wk_vf b) { return a > b; }
static inline wk_vm vf_ge(wk_vf a, wk_vf b) { return a >= b; }
static inline wk_vm vm_and(wk_vm a, wk_vm b) { return a & b; }
static inline int vm_all(wk_vm m) { return m != 0; }
static inline wk_vf vf_ldexp(wk_vf y, wk_vf n) { return y * ldexpf(1.0f, (int)n); }
static inline wk_vm vf_isnan(wk_vf a) { return a != a; }
static inline wk_vm vm_or(wk_vm a, wk_vm b) { return a | b; }
static inline int vm_any(wk_vm m) { return m != 0; }
static inline wk_vf vf_select(wk_vm m, wk_vf a, wk_vf b) { return m ? a : b; }
static inline wk_vf vf_round(wk_vf a) { return rintf(a); }
static inline wk_vi vf_to_vi(wk_vf a) { return (int32_t)a; }
static inline wk_vi vi_set1(int32_t x) { return x; }
static inline wk_vi vi_add(wk_vi a, wk_vi b) { return a + b; }
static inline wk_vi vi_sub(wk_vi a, wk_vi b) { return a - b; }
static inline wk_vi vi_shl23(wk_vi a) { return (int32_t)((uint32_t)a << 23); }
static inline wk_vi vi_srai1(wk_vi a) { return a >> 1; }
static inline wk_vf vf_from_bits(wk_vi a) {
    float f;
    memcpy(&f, &a, sizeof f);
    return f;
}
static inline wk_vi vf_bits(wk_vf a) {
    int32_t i;
    memcpy(&i, &a, sizeof i);
    return i;
}
static inline wk_vf vf_load_even(const float *p) { return *p; }
#endif

#endif
