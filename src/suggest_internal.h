/* suggest_internal.h: what suggest.c, suggest_populate.c and
 * suggest_tilefuse.c share.  Not installed. */
#ifndef LANESCOPE_SUGGEST_INTERNAL_H
#define LANESCOPE_SUGGEST_INTERNAL_H

#include <string.h>

#include "lanescope/plan.h"
#include "lanescope/suggest.h"

typedef enum {
    LS_TF_NOT_OUTER, /* not an outer reduction: the reduction heuristic goes on */
    LS_TF_DECLINES,  /* an outer reduction TileAndFuse declines (no parallel loop) */
    LS_TF_UNSIZED,   /* TileAndFuse takes it; an element type cannot be sized */
    LS_TF_CONFIG     /* TileAndFuse takes it with the config below */
} ls_tf_outcome;

typedef struct {
    int input;            /* the input indexed by a permutation whose first dim is reduced */
    int dim;              /* that first dim */
    const char *bad;      /* LS_TF_UNSIZED: the operand whose type cannot be sized */
    int64_t wg_size;
    char translation[200], config[400]; /* IREE's attributes, printed */
    int rank;                           /* and as lists, for the simulation */
    int64_t workgroup[LS_MAX_RANK], thread[LS_MAX_RANK], reduction[LS_MAX_RANK];
} ls_tf_answer;

/* IREE's setRootConfig rule for outer reductions (LLVMGPU/KernelConfig.cpp)
 * and the TileAndFuse config it computes (setTileAndFuseLoweringConfig),
 * for subgroup size sg. */
/* The op that produces a value, -1 if none. */
int ls_suggest_producer_of(const ls_dispatch *d, const char *value);

/* gcd on 64-bit values, as IREE's std::gcd (0 with 0: 0). */
static inline int64_t ls_suggest_gcd(int64_t a, int64_t b)
{
    uint64_t x = (uint64_t)a, y = (uint64_t)b;
    while (y) {
        uint64_t t = x % y;
        x = y;
        y = t;
    }
    return (int64_t)x;
}

/* llvm::PowerOf2Ceil for 1 <= v <= 2^62 (1 for v <= 1). */
static inline int64_t ls_suggest_pow2_ceil(int64_t v)
{
    int64_t p = 1;
    while (p < v)
        p <<= 1;
    return p;
}

static inline bool is_power_of_two(int64_t v)
{
    return v > 0 && (v & (v - 1)) == 0;
}

/* TargetAttr::getPreferredSubgroupSize: the smallest choice.  At most
 * 1024 (LS_MAX_SUBGROUP_SIZE: the target's parse bounds every choice), so
 * the heuristics' products of it stay small: 2 x sg threads, pow2
 * ceilings of sg, 128 x sg vector candidates. */
static inline int64_t ls_suggest_preferred_subgroup(const ls_target *t)
{
    int64_t m = t->subgroup_choices[0];
    for (int i = 1; i < t->n_subgroup_choices; i++)
        if (t->subgroup_choices[i] < m)
            m = t->subgroup_choices[i];
    return m;
}

static inline bool ls_suggest_is_argcmp(const ls_dop *o)
{
    return strcmp(o->kind, "iree_linalg_ext.arg_compare") == 0;
}

/* kVectorDistributeReductionSizeToTargetIfDynamic: the size the heuristic
 * sizes a dynamic reduction for. */
#define LS_SUGGEST_DYN_TARGET (INT64_C(1) << 31)

static inline bool ls_suggest_has_reduction(const ls_dop *op)
{
    for (int i = 0; i < op->rank; i++)
        if (op->is_reduction[i])
            return true;
    return false;
}

/* The innermost reduction (parallel) loop of op, -1 if none. */
static inline int ls_suggest_last_reduction_dim(const ls_dop *op)
{
    for (int i = op->rank; i-- > 0;)
        if (op->is_reduction[i])
            return i;
    return -1;
}

static inline int ls_suggest_last_parallel_dim(const ls_dop *op)
{
    for (int i = op->rank; i-- > 0;)
        if (!op->is_reduction[i])
            return i;
    return -1;
}

static inline bool ls_suggest_is_amd(const ls_target *t)
{
    return ls_plan_target_from_arch(t->arch).amd;
}

/* populateConfigInfo (ReductionConfigUtils.cpp): a config for every
 * compute op of the dispatch (compute[0 .. n_compute), is_compute by op)
 * whose loops its consumers and the shared dims do not cover, each from
 * the heuristic's workgroup size wg, subgroup size sg and thread loads tl,
 * and the workgroup tiles they share (suggest_populate.c). */
void ls_suggest_populate(const ls_dispatch *d, const ls_target *t, const int *compute,
                         int n_compute, const bool *is_compute, int64_t wg, int64_t sg, int64_t tl,
                         ls_suggestion *s);

/* Write one of the heuristic's decisions down, for `suggest` to show
 * (at most LS_SUGGEST_MAX_STEPS; later ones are dropped). */
void ls_suggest_step(ls_suggestion *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* suggest_attention.c: IREE's config for an attention root (op `root`):
 * setAttentionReductionConfig where the MMA schedule bails out, else
 * LS_ERR_INVALID naming that schedule. */
ls_status ls_suggest_attention(const ls_dispatch *d, int root, const ls_target *t,
                               ls_suggestion *s, ls_diag *diag);

/* suggest_argcmp.c: setArgCompareConfig's TileAndFuse config for an
 * arg_compare root that setReductionConfig refused (diag holds why);
 * returns LS_ERR_INVALID naming the pipeline and the config. */
ls_status ls_suggest_argcmp_fallback(const ls_dispatch *d, const ls_dop *root,
                                     const ls_target *t, ls_suggestion *s, ls_diag *diag);

ls_tf_outcome ls_suggest_outer_reduction(const ls_dispatch *d, const ls_dop *root, int64_t sg,
                                         ls_tf_answer *a);
/* setTileAndFuseLoweringConfig for any linalg root: where setRootConfig
 * sends a reduction the reduction heuristic refuses (KernelConfig.cpp).
 * Never LS_TF_NOT_OUTER. */
ls_tf_outcome ls_suggest_tile_and_fuse(const ls_dispatch *d, const ls_dop *root, int64_t sg,
                                       ls_tf_answer *a);

#endif
