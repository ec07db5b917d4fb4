/* attention_internal.h: what the values run of an attention shares
 * between the lowered execution (attention_lanes.c) and the driver with
 * its reference and checks (attention_values.c).  Not installed. */
#ifndef LANESCOPE_ATTENTION_INTERNAL_H
#define LANESCOPE_ATTENTION_INTERNAL_H

#include <float.h>
#include <string.h>

#include "functional_internal.h"
#include "lanescope/attention.h"

/* math.h's LOG2E and LN2 are not ISO C */
#define LOG2E 1.44269504088896340736
#define LN2 0.69314718055994530942

typedef enum { R_CHAIN, R_ADD, R_MAX } rkind;

typedef struct actx actx;
/* A reduction's element at local tile point x: the value (R_ADD, R_MAX) or
 * the FMA chain's lhs with its rhs in *rhs (R_CHAIN). */
typedef float (*elem_fn)(actx *c, const int64_t *x, float *rhs);

struct actx {
    const ls_attention *a;
    const ls_dop *o;
    ls_plan_target t;
    uint64_t seed;
    ls_elem_type type[5];    /* Q, K, V, scale, mask */
    bool is_float[5];
    uint64_t opmix[5];       /* each operand's generator seed, hashed (ls_mix64) */
    /* a key or value a gather makes (NULL: loaded): its source's values
     * (opmix, shared by gathers of one source) at the rows its indices
     * name (ls_input_row over rowmix) */
    const ls_module_gather *gather[3];
    uint64_t rowmix[3];
    /* a mask a linalg.generic computes from linalg.index and constants
     * (NULL: loaded): its body, and its loop of each mask dim */
    const ls_body *mask_body;
    int mask_loop[LS_MAX_RANK];
    ls_elem_type out_type[3];
    /* the type S, P, max, sum and acc are computed in: the acc's
     * (DecomposeAttention), f32 for an attention (its conversion's fills) */
    ls_elem_type et;
    unsigned bmask, mmask, k1mask, k2mask, nmask;
    int64_t ext[LS_MAX_RANK];    /* per op dim: its extent in one workgroup / K2 tile */
    int64_t origin[LS_MAX_RANK]; /* the tile's origin: workgroup, then iteration */
    float sprime;                /* scale * log2e in the scale's type */
    /* per workgroup, f32 as the kernel holds them */
    float *S, *P;                /* over B|M|K2 */
    float *pmax, *psum, *pacc;   /* partial: per slot, B|M|K2 and B|M|K2|N */
    float *mx, *sm, *acc;        /* B|M and B|M|N */
    float *w;                    /* merge weights, B|M|K2 */
    float *red;                  /* a reduction's results */
    float *qs, *kt, *vt;         /* the tile's Q' (B|M|K1), K (B|K2|K1), V (B|K2|N) */
    float *part;                 /* per thread partials */
    uint64_t *lanes, *tmp;
    /* the op's inits (acc, max, sum), and over the tile */
    float init[3];
    float *init_acc, *init_max, *init_sum;
    /* sizes: B|M|K2, B|M, B|M|N, B|M|K2|N, N boxes */
    int64_t ns, nr, na, nsa, nn;
};

static inline float v2f(ls_value v)
{
    uint32_t b = (uint32_t)v;
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

static inline ls_value f2v(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

/* f rounded to type t (an f16 Q' or P, a bf16 ...), back in f32 */
static inline float round_to(float f, ls_elem_type t)
{
    return t == LS_ET_F32 ? f : (float)ls_value_to_double(ls_value_from_double(f, t), t);
}

/* maximumf's finite identity in the work type (useOnlyFiniteValue) */
static inline float lowest_e(const actx *c)
{
    return c->et == LS_ET_F16 ? -65504.0f : c->et == LS_ET_BF16 ? -0x1.fep127f : -FLT_MAX;
}

static inline unsigned mask_of(const int *dims, int n)
{
    unsigned m = 0;
    for (int i = 0; i < n; i++)
        m |= 1u << dims[i];
    return m;
}

/* Row-major index of local point x over the op dims in mask. */
static inline int64_t box(const actx *c, unsigned mask, const int64_t *x)
{
    int64_t i = 0;
    for (int d = 0; d < c->a->rank; d++)
        if (mask >> d & 1)
            i = i * c->ext[d] + x[d];
    return i;
}

static inline int64_t box_size(const actx *c, unsigned mask)
{
    int64_t n = 1;
    for (int d = 0; d < c->a->rank; d++)
        if (mask >> d & 1)
            n *= c->ext[d];
    return n;
}

static inline void global_of(const actx *c, const int64_t *x, int64_t *g)
{
    for (int d = 0; d < c->a->rank; d++)
        g[d] = c->origin[d] + x[d];
}

/* Iterate the local points of the op dims in mask: x counts up row-major;
 * false after the last. */
static inline bool next_point(const actx *c, unsigned mask, int64_t *x)
{
    for (int d = c->a->rank; d-- > 0;) {
        if (!(mask >> d & 1))
            continue;
        if (++x[d] < c->ext[d])
            return true;
        x[d] = 0;
    }
    return false;
}

/* attention_run.c: the context of a run (its arrays, the op's inits);
 * workgroup w's start (its origin, Q' tile, the carried values' inits); K2
 * step iv; after the loop (the merge of a partial one); the arrays freed. */
void ls_att_ctx_init(actx *c, const ls_module *m, const ls_module_attention *ma,
                     const ls_attention *a, ls_plan_target t, uint64_t seed, bool *inits_assumed);
void ls_att_ctx_start(actx *c, int64_t w);
void ls_att_ctx_step(actx *c, int64_t iv);
void ls_att_ctx_finish(actx *c);
void ls_att_ctx_free(actx *c);

/* attention_lanes.c: operand k (Q, K, V, mask) at global op point x, as
 * the generator gives it */
double ls_att_operand_at(const actx *c, int k, const int64_t *x);
/* The tile of input k over op dims `mask` at c->origin, as f32 (Q' rounded
 * in Q's type). */
void ls_att_load_tile(actx *c, int k, unsigned mask, float *out);
/* One K2 step at c->origin: a partial_reduction tile's (every slot on its
 * own) or a reduction tile's (reduced over K2). */
/* math.exp2 of x in c's work type as IREE compiles it for c's target
 * (NVIDIA: exp(x * ln 2) by MLIR's polynomial, bit for bit; ROCm: the
 * correctly rounded value). */
float ls_att_exp2(const actx *c, float x);
void ls_att_step_partial(actx *c);
void ls_att_step_serial(actx *c);
/* After a partial loop: mergeReductions with the op's inits. */
void ls_att_merge(actx *c, const float *init_acc, const float *init_max, const float *init_sum);

#endif
