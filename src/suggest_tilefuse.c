/* suggest_tilefuse.c: IREE's TileAndFuse config for outer reductions, which
 * setRootConfig tries before the reduction heuristic (see suggest.h); the
 * caller (suggest.c) reports the outcome. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "suggest_internal.h"

/* ---------------------------------------- outer reductions: TileAndFuse */

/* IREE's setRootConfig (compiler/src/iree/compiler/Codegen/LLVMGPU/
 * KernelConfig.cpp @ b48a5955575c), behind the flag
 * iree-codegen-llvmgpu-enable-outer-reduction-tile-and-fuse (on by default),
 * tries setTileAndFuseLoweringConfig (Codegen/Dialect/GPU/TargetUtils/
 * ConfigUtils.cpp) on an outer reduction after the matmul and contraction
 * configs and before setReductionConfig.  That config only declines when the
 * op has no parallel loop to distribute (a full reduction), so every other
 * outer reduction never reaches the reduction heuristic.  It is worked out
 * here rule by rule, as IREE does for ops without pack/unpack producers or
 * consumers and without reshapes in the dispatch; lanescope imports neither,
 * so it assumes both absent (workgroup tile multiples of 1, vectorization
 * allowed). */

/* Each map result a distinct loop dim (AffineMap::isProjectedPermutation);
 * a shaped operand without a known map is not. */
static bool map_is_projected_perm(const ls_dop_operand *od)
{
    bool used[LS_MAX_RANK] = {false};
    if (od->map_n == 0 && od->rank > 0)
        return false;
    for (int j = 0; j < od->map_n; j++) {
        if (od->map[j] < 0 || used[od->map[j]])
            return false;
        used[od->map[j]] = true;
    }
    return true;
}

static bool map_is_perm(const ls_dop *o, const ls_dop_operand *od)
{
    return od->map_n == o->rank && map_is_projected_perm(od);
}

/* isOuterReduction: some input indexed by a permutation whose first result
 * is a reduction dim.  Returns that input, -1 when there is none.  Note a
 * full reduction (tensor<8192xf32> -> f32) qualifies too; TileAndFuse then
 * declines it for want of a parallel loop. */
static int outer_reduced_input(const ls_dop *o)
{
    for (int k = 0; k < o->n_inputs; k++) {
        const ls_dop_operand *od = &o->operand[k];
        if (od->map_n > 0 && map_is_perm(o, od) && o->is_reduction[od->map[0]])
            return k;
    }
    return -1;
}

/* getSupportedPartitionableLoops: the parallel loops, less those missing
 * from an input whose producing linalg op is also stored by the dispatch. */
static int partitionable_loops(const ls_dispatch *d, const ls_dop *o, int *loops)
{
    int n = 0;
    for (int l = 0; l < o->rank; l++) {
        if (o->is_reduction[l])
            continue;
        bool ok = true;
        for (int k = 0; k < o->n_inputs && ok; k++) {
            const ls_dop_operand *od = &o->operand[k];
            bool stored = false;
            for (int i = 0; i < d->n_stores && od->producer >= 0; i++)
                stored |= ls_suggest_producer_of(d, d->stored[i]) == od->producer;
            if (!stored)
                continue;
            bool has = false;
            for (int j = 0; j < od->map_n; j++)
                has |= od->map[j] == l;
            ok = has;
        }
        if (ok)
            loops[n++] = l;
    }
    return n;
}

typedef struct {
    int rank, n_part;
    int part[LS_MAX_RANK];      /* partitionable loops, outermost first */
    int64_t bound[LS_MAX_RANK]; /* LS_DYN when dynamic */
    int64_t sg, scale, rep_bits;
    bool vectorizable; /* IREE clears it as it goes, for later retries too */
    int64_t wg_size;   /* flatWorkgroupSize */
    int64_t workgroup[LS_MAX_RANK], thread[LS_MAX_RANK], reduction[LS_MAX_RANK];
} tf_state;

static int64_t pow2_floor(int64_t v)
{
    int64_t p = 1;
    while (p * 2 <= v)
        p <<= 1;
    return p;
}

/* One candidate workgroup tile of loop `dim` inside distributeToThreads;
 * loss 0 stands for IREE's std::nullopt.  True when it is taken. */
static bool tf_try(tf_state *st, int dim, int64_t cand, int wg_dim, int64_t loss, int64_t nve,
                   int64_t *threads, int64_t *cand_wg)
{
    int64_t bound = st->bound[dim], scaled = cand * st->scale;
    if (bound % scaled != 0) {
        if (!loss || cand - bound % scaled > cand / loss)
            return false;
    }
    /* Keep at least three workgroups when there is a single parallel loop.
     * (ceil without bound + scaled - 1: a bound may be near int64's limit;
     * scaled itself is small: cand <= 128 x 1024 lanes, scale <= 8) */
    if (st->n_part == 1 && cand > st->sg && bound / scaled + (bound % scaled != 0) <= 2)
        return false;
    if (st->vectorizable && wg_dim == 0 && !loss && cand % nve == 0) {
        /* Size-1 vectors when a single loop would leave subgroup lanes idle. */
        int64_t vs = st->n_part == 1 && cand <= st->sg ? 1 : nve;
        st->thread[dim] = vs * st->scale;
        *cand_wg = cand / vs;
        *threads /= cand / vs;
    } else {
        int64_t wg = cand;
        if (*threads % cand != 0) {
            wg = pow2_floor(cand) < *threads ? pow2_floor(cand) : *threads;
            int64_t idle = cand % wg;
            if (idle != 0 && (!loss || idle > cand / loss))
                return false;
        }
        if (wg_dim == 0)
            st->vectorizable = false;
        st->thread[dim] = st->scale;
        *cand_wg = wg;
        *threads /= wg;
    }
    st->workgroup[dim] = scaled;
    return true;
}

/* distributeToThreads: fills workgroup/thread tiles and wg_size, innermost
 * partitionable loop first; returns the threads left undistributed. */
static int64_t tf_distribute(tf_state *st, int64_t threads, int64_t loss)
{
    st->wg_size = 1;
    bool all_dyn = true;
    for (int i = 0; i < st->n_part; i++) {
        st->workgroup[st->part[i]] = 1;
        st->thread[st->part[i]] = 1;
        all_dyn &= st->bound[st->part[i]] == LS_DYN;
    }
    if (!loss && all_dyn) {
        /* Masking the last workgroup beats too little parallelism. */
        st->workgroup[st->part[st->n_part - 1]] *= threads;
        st->wg_size *= threads;
        return 1;
    }
    int wg_dim = 0;
    for (int i = st->n_part; i-- > 0;) {
        int dim = st->part[i];
        int64_t bound = st->bound[dim];
        if (bound == LS_DYN)
            continue;
        int64_t nve = 128 / st->rep_bits > 4 ? 128 / st->rep_bits : 4;
        int64_t vcand = nve * threads;
        while (st->vectorizable && vcand > bound && nve > 4) {
            nve /= 2;
            vcand = nve * threads;
        }
        int64_t cands[72];
        int n = 0;
        if (st->vectorizable && wg_dim == 0 && !loss)
            cands[n++] = vcand;
        for (int64_t c = ls_suggest_pow2_ceil(threads); c >= 1; c >>= 1)
            cands[n++] = c;
        int64_t cand_wg = 1;
        for (int k = 0; k < n; k++)
            if (tf_try(st, dim, cands[k], wg_dim, loss, nve, &threads, &cand_wg))
                break;
        st->wg_size *= cand_wg;
        if (threads == 1)
            break;
        wg_dim++;
    }
    return threads;
}

/* getReductionTilingFactor; IREE's dynamic size (INT64_MIN) is a multiple of 4. */
static int64_t reduction_tiling_factor(int64_t size)
{
    static const int primes[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47};
    if (size == LS_DYN || size % 4 == 0)
        return 4;
    for (size_t i = 0; i < sizeof primes / sizeof primes[0]; i++)
        if (size % primes[i] == 0)
            return primes[i];
    return 1;
}

/* collectOpDistributionInfo's widths: the smallest element, the widest input
 * read through a permutation (else the widest init, else 32), and whether
 * every operand is a power-of-two int/float read through a projected
 * permutation.  False, naming the operand, for an element type lanescope
 * cannot size as IREE does (index, complex...). */
static bool tf_widths(const ls_dop *o, tf_state *st, const char **bad)
{
    int64_t min_bits = INT64_MAX, perm_bits = 0, init_bits = 0;
    bool proj = true, pow2 = true;
    for (int k = 0; k < o->n_inputs + o->n_inits; k++) {
        const ls_dop_operand *od = &o->operand[k];
        if (od->elem_bits <= 0 || od->is_index) {
            *bad = od->value;
            return false;
        }
        int64_t b = od->elem_bits;
        min_bits = b < min_bits ? b : min_bits;
        proj &= map_is_projected_perm(od);
        pow2 &= is_power_of_two(b);
        if (k < o->n_inputs && map_is_perm(o, od) && b > perm_bits)
            perm_bits = b;
        if (k >= o->n_inputs && b > init_bits)
            init_bits = b;
    }
    st->rep_bits = perm_bits ? perm_bits : init_bits ? init_bits : 32;
    st->scale = 8 / min_bits > 1 ? 8 / min_bits : 1;
    st->vectorizable = proj && pow2;
    return true;
}

/* setTileAndFuseLoweringConfig's common linalg case.  TF_DECLINES: no
 * partitionable loop (IREE fails and goes on); TF_UNSIZED: IREE takes the op
 * but an element width is unknown here (*bad names the operand). */
typedef enum { TF_OK, TF_DECLINES, TF_UNSIZED } tf_result;

static tf_result tile_and_fuse_config(const ls_dispatch *d, const ls_dop *o, int64_t sg,
                                      tf_state *st, const char **bad)
{
    memset(st, 0, sizeof *st);
    st->rank = o->rank;
    st->sg = sg;
    for (int l = 0; l < o->rank; l++)
        st->bound[l] = o->size[l];
    st->n_part = partitionable_loops(d, o, st->part);
    if (st->n_part == 0)
        return TF_DECLINES;
    if (!tf_widths(o, st, bad))
        return TF_UNSIZED;
    /* First without loss on one subgroup, then with up to 1/32 .. all of
     * max(subgroup, 32) threads idle; the last attempt stands. */
    if (tf_distribute(st, sg, 0) != 1)
        for (int64_t loss = 32; loss >= 1; loss >>= 1)
            if (tf_distribute(st, sg > 32 ? sg : 32, loss) == 1)
                break;
    /* Reductions (and undistributed loops) tiled by small factors, innermost
     * first, while the product stays within 32. */
    int64_t vec = 1;
    for (int l = o->rank; l-- > 0;) {
        if (!o->is_reduction[l] && st->workgroup[l] != 0)
            continue;
        int64_t f = reduction_tiling_factor(st->bound[l]);
        if (vec * f > 32)
            f = 1;
        vec *= f;
        st->reduction[l] = f;
    }
    return TF_OK;
}

/* IREE's printed syntax, keys sorted.  No promote_operands: a contraction
 * with an input indexed by a permutation has no M or no N dim, so it is
 * never isNonMatvecContraction. */
static void tf_format(const tf_state *st, char *ti, size_t ti_size, char *lc, size_t lc_size)
{
    bool any_red = false;
    for (int l = 0; l < st->rank; l++)
        any_red |= st->reduction[l] != 0;
    snprintf(ti, ti_size,
             "#iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> "
             "workgroup_size = [%lld, 1, 1] subgroup_size = %lld>",
             (long long)st->wg_size, (long long)st->sg);
    const char *keys[] = {"reduction", "thread", "workgroup"};
    const int64_t *lists[] = {st->reduction, st->thread, st->workgroup};
    size_t u = (size_t)snprintf(lc, lc_size, "#iree_gpu.lowering_config<{");
    for (int i = any_red ? 0 : 1; i < 3; i++) {
        u += (size_t)snprintf(lc + (u < lc_size ? u : lc_size), u < lc_size ? lc_size - u : 0,
                              "%s%s = ", i > (any_red ? 0 : 1) ? ", " : "", keys[i]);
        u += ls_format_list(lc + (u < lc_size ? u : lc_size), u < lc_size ? lc_size - u : 0,
                            lists[i], st->rank);
    }
    snprintf(lc + (u < lc_size ? u : lc_size), u < lc_size ? lc_size - u : 0, "}>");
}

/* The outer-reduction rule for the root op: LS_OK when it does not apply
 * (or TileAndFuse declines) and the reduction heuristic goes on; otherwise
 * LS_ERR_INVALID naming the pipeline and, when lanescope can size every
 * operand, IREE's TileAndFuse config in its printed syntax. */

ls_tf_outcome ls_suggest_outer_reduction(const ls_dispatch *d, const ls_dop *root, int64_t sg,
                                         ls_tf_answer *a)
{
    memset(a, 0, sizeof *a);
    a->input = outer_reduced_input(root);
    if (a->input < 0)
        return LS_TF_NOT_OUTER;
    int input = a->input, dim = root->operand[a->input].map[0];
    ls_tf_outcome r = ls_suggest_tile_and_fuse(d, root, sg, a);
    a->input = input;
    a->dim = dim;
    return r;
}

ls_tf_outcome ls_suggest_tile_and_fuse(const ls_dispatch *d, const ls_dop *root, int64_t sg,
                                       ls_tf_answer *a)
{
    memset(a, 0, sizeof *a);
    a->input = -1;
    a->bad = "";
    tf_state st;
    tf_result r = tile_and_fuse_config(d, root, sg, &st, &a->bad);
    if (r == TF_DECLINES)
        return LS_TF_DECLINES;
    if (r == TF_UNSIZED)
        return LS_TF_UNSIZED;
    a->wg_size = st.wg_size;
    tf_format(&st, a->translation, sizeof a->translation, a->config, sizeof a->config);
    a->rank = st.rank;
    memcpy(a->workgroup, st.workgroup, sizeof a->workgroup);
    memcpy(a->thread, st.thread, sizeof a->thread);
    memcpy(a->reduction, st.reduction, sizeof a->reduction);
    return LS_TF_CONFIG;
}
