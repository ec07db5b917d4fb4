/* func_kernels.c: the functional check's two innermost loops for float
 * sums of generated inputs, eight elements at a time -- the reference's
 * run of one output's elements, and one iteration of every thread's
 * accumulators.
 * Each element is a hash of its index (ls_input_hash, value.h) and nothing
 * is read from memory but the register offsets, so the loops are pure
 * arithmetic: written with GCC's vector extensions, built for the host's
 * widest vectors where the compiler can choose at run time (target_clones:
 * AVX-512, AVX2, or the baseline), and otherwise for the baseline.  The
 * results are the scalar definitions' exactly (integers, and floats of
 * 8-bit integers over 64); tests/test_sim.c (sum_kernels_match_scalar)
 * compares them with ls_input_hash and ls_input_float. */
#include <string.h>

#include "func_kernels.h"
#include "lanescope/value.h"

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && \
    !defined(LS_NO_CLONES)
#define LS_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define LS_CLONES
#endif

typedef uint64_t u64x8 __attribute__((vector_size(64)));
typedef int64_t i64x8 __attribute__((vector_size(64)));
typedef int32_t i32x8 __attribute__((vector_size(32)));
typedef float f32x8 __attribute__((vector_size(32)));

/* ls_input_hash of eight indices, the low byte: h mod 256.  A macro, not a
 * function: a vector passed by value draws ABI notes from GCC. */
#define LS_HASH_BYTE(seed_hash, idx)                                                               \
    (((((idx) ^ (seed_hash)) * UINT64_C(0x9e3779b97f4a7c15)) ^                                   \
      ((((idx) ^ (seed_hash)) * UINT64_C(0x9e3779b97f4a7c15)) >> 29)) &                          \
     255)

LS_CLONES
void ls_fk_sum_run(uint64_t seed_hash, int64_t at, int64_t n, int64_t stride, uint64_t *sum,
                   uint64_t *mag)
{
    u64x8 vs = {0}, vm = {0};
    u64x8 idx = {0, 1, 2, 3, 4, 5, 6, 7};
    idx = idx * (uint64_t)stride + (uint64_t)at;
    uint64_t step = 8 * (uint64_t)stride;
    int64_t c = 0;
    for (; c + 8 <= n; c += 8, idx += step) {
        u64x8 v = LS_HASH_BYTE(seed_hash, idx);
        i64x8 d = (i64x8)v - 128, sign = d >> 63;
        vs += v;
        vm += (u64x8)((d ^ sign) - sign);
    }
    uint64_t s = 0, m = 0;
    for (int j = 0; j < 8; j++) {
        s += vs[j];
        m += vm[j];
    }
    for (uint64_t i = (uint64_t)at + (uint64_t)c * (uint64_t)stride; c < n;
         c++, i += (uint64_t)stride) {
        int64_t v = (int64_t)(ls_input_hash(seed_hash, i) & 255) - 128;
        s += (uint64_t)(v + 128);
        m += (uint64_t)(v < 0 ? -v : v);
    }
    *sum += s;
    *mag += m;
}

LS_CLONES
void ls_fk_sum_accumulate(uint64_t seed_hash, int64_t base, const int64_t *rel,
                          const int32_t *inside, const int64_t *acc_slot, int64_t regs,
                          int64_t threads, float fid, float *facc)
{
    for (int64_t r = 0; r < regs; r++) {
        const int64_t *rr = rel + r * threads;
        const int32_t *in = inside + r * threads;
        float *fa = facc + acc_slot[r] * threads;
        int64_t t = 0;
        for (; t + 8 <= threads; t += 8) {
            u64x8 idx;
            i32x8 mask;
            f32x8 acc;
            memcpy(&idx, rr + t, sizeof idx);
            memcpy(&mask, in + t, sizeof mask);
            memcpy(&acc, fa + t, sizeof acc);
            idx += (uint64_t)base;
            i64x8 v = (i64x8)LS_HASH_BYTE(seed_hash, idx) - 128;
            f32x8 f = __builtin_convertvector(__builtin_convertvector(v, i32x8), f32x8) * 0.015625f;
            f32x8 id = {fid, fid, fid, fid, fid, fid, fid, fid};
            f = (f32x8)(((i32x8)f & mask) | ((i32x8)id & ~mask));
            acc += f;
            memcpy(fa + t, &acc, sizeof acc);
        }
        for (; t < threads; t++) {
            uint64_t h = ls_input_hash(seed_hash, (uint64_t)(base + rr[t]));
            fa[t] += in[t] ? (float)((int)(h & 255) - 128) * 0.015625f : fid;
        }
    }
}
