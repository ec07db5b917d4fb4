/* suggest_attention.c: the config IREE gives an attention op that reaches
 * the VectorDistribute pipeline without a matrix-core schedule (decode
 * attention, M of at most 4).
 *
 * IREE converts iree_linalg_ext.attention to online_attention before any
 * config is chosen (ConvertAttentionToOnlineAttention in
 * addCommonTargetExecutablePreprocessingPasses, Codegen/Common/Passes.cpp).
 * setVectorDistributionConfig (LLVMGPU/KernelConfig.cpp) then tries
 * setAttentionIntrinsicBasedVectorDistributionConfig, which bails out on a
 * target without MMA intrinsics, on a static M of at most 4
 * (kVerySkinnyDimThreshold) and on dynamic innermost K1/K2/N/M dims; where
 * it bails, setAttentionVectorDistributionConfig seeds
 * setAttentionReductionConfig, reproduced here rule for rule.  Where the
 * MMA schedule would be tried (deduceAttentionSchedule), lanescope says so
 * and stops: it does not model that schedule. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lanescope/suggest.h"
#include "suggest_internal.h"

bool ls_dop_is_attention(const ls_dop *o)
{
    return strcmp(o->kind, "iree_linalg_ext.online_attention") == 0 ||
           strcmp(o->kind, "iree_linalg_ext.attention") == 0;
}

/* findPermutationsIndexingOperand: the dims a map's plain-dim results name. */
static unsigned dims_of(const ls_dop_operand *od)
{
    unsigned set = 0;
    for (int j = 0; j < od->map_n; j++)
        if (od->map[j] >= 0)
            set |= 1u << od->map[j];
    return set;
}

static int to_list(unsigned set, int *out)
{
    int n = 0;
    for (int d = 0; d < LS_MAX_RANK; d++)
        if (set & (1u << d))
            out[n++] = d;
    return n;
}

void ls_attention_classify(const ls_dop *o, ls_attention_dims *out)
{
    memset(out, 0, sizeof *out);
    if (o->n_inputs < 3 || o->n_inits < 1)
        return;
    unsigned q = dims_of(&o->operand[0]), k = dims_of(&o->operand[1]),
             v = dims_of(&o->operand[2]), res = dims_of(&o->operand[o->n_inputs]);
    unsigned b = (q & v) | (k & res);
    unsigned k1 = (q & k) & ~b;
    unsigned k2 = k & ~b & ~k1;
    unsigned m = q & ~b & ~k1;
    unsigned n = v & ~b & ~k2;
    out->n_batch = to_list(b, out->batch);
    out->n_k1 = to_list(k1, out->k1);
    out->n_k2 = to_list(k2, out->k2);
    out->n_m = to_list(m, out->m);
    out->n_n = to_list(n, out->n);
}

/* std::ceil(float(a) / b), as IREE computes it: in float. */
static int64_t fceil_div(int64_t a, int64_t b)
{
    return (int64_t)ceilf((float)a / (float)b);
}

typedef struct {
    int rank;
    int64_t counts[LS_MAX_RANK];
    int64_t mapping[LS_MAX_RANK];
} basis;

static void basis_init(basis *b, int rank)
{
    b->rank = rank;
    for (int i = 0; i < rank; i++) {
        b->counts[i] = 1;
        b->mapping[i] = 0;
    }
}

/* distributeDimensionsToBasisGreedily: the dims from the innermost, each
 * given the next basis slot from the right, taking gcd(available, size)
 * (all that is left on a dynamic dim) and dividing the dim's remaining
 * bound.  Returns what is left. */
static int64_t distribute(int64_t available, const int *dims, int n, basis *b, int *cur,
                          int64_t *bounds)
{
    for (int i = n; i-- > 0;) {
        int dim = dims[i];
        int slot = b->rank - *cur - 1;
        ++*cur;
        b->mapping[dim] = slot;
        if (bounds[dim] == LS_DYN) {
            b->counts[slot] = available;
            available = 1;
            continue;
        }
        int64_t used = ls_suggest_gcd(available, bounds[dim]);
        available /= used;
        bounds[dim] /= used;
        b->counts[slot] = used;
    }
    return available;
}

bool ls_att_dim_in(const int *l, int n, int d)
{
    for (int i = 0; i < n; i++)
        if (l[i] == d)
            return true;
    return false;
}

/* The qk or pv half: the thread tile and both bases without the dims in
 * `drop` (N for qk, K1 for pv). */
static void project(const int64_t *thread, const basis *lanes, const basis *subgroups,
                    const int *drop, int n_drop, ls_attention_part *out)
{
    memset(out, 0, sizeof *out);
    for (int d = 0; d < lanes->rank; d++) {
        out->lane_counts[d] = lanes->counts[d];
        out->subgroup_counts[d] = subgroups->counts[d];
        if (ls_att_dim_in(drop, n_drop, d))
            continue;
        out->thread[out->n_thread] = thread[d];
        out->lane_mapping[out->n_thread] = lanes->mapping[d];
        out->subgroup_mapping[out->n_thread] = subgroups->mapping[d];
        out->n_thread++;
    }
}

static ls_status refuse(ls_diag *diag, const ls_dispatch *d, const ls_dop *o, const char *fmt,
                        ...) __attribute__((format(printf, 4, 5)));

static ls_status refuse(ls_diag *diag, const ls_dispatch *d, const ls_dop *o, const char *fmt, ...)
{
    char msg[sizeof diag->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ls_diag_set(diag, LS_ERR_INVALID, d->file, o->line, o->col, "%s", msg);
}

static int elem_bits(const ls_dop *o, int k)
{
    return o->operand[k].is_index ? 64 : o->operand[k].elem_bits;
}

/* setAttentionIntrinsicBasedVectorDistributionConfig's early exits: true
 * when it fails before any MMA schedule is sought (why says which). */
static bool mma_route_fails(const ls_dop *o, const ls_attention_dims *ad, const ls_target *t,
                            char *why, size_t size)
{
    if (!ls_target_has_mma(t)) {
        snprintf(why, size, "target %s lists no MMA intrinsics", t->arch);
        return true;
    }
    int64_t msize = 1;
    for (int i = 0; i < ad->n_m; i++) {
        int64_t v = o->size[ad->m[i]];
        /* only "at most 4" matters: past it the product stays 5 (no overflow) */
        msize = (msize == LS_DYN || v == LS_DYN) ? LS_DYN : (v > 4 || msize * v > 4) ? 5 : msize * v;
    }
    if (msize != LS_DYN && msize <= 4) {
        snprintf(why, size, "M = %lld is at most 4 (kVerySkinnyDimThreshold)", (long long)msize);
        return true;
    }
    const struct {
        const char *name;
        const int *dims;
        int n;
    } inner[] = {{"K1", ad->k1, ad->n_k1}, {"K2", ad->k2, ad->n_k2}, {"N", ad->n, ad->n_n},
                 {"M", ad->m, ad->n_m}};
    for (size_t i = 0; i < sizeof inner / sizeof inner[0]; i++)
        if (inner[i].n > 0 && o->size[inner[i].dims[inner[i].n - 1]] == LS_DYN) {
            snprintf(why, size, "its innermost %s dim d%d is dynamic", inner[i].name,
                     inner[i].dims[inner[i].n - 1]);
            return true;
        }
    return false;
}

ls_status ls_suggest_attention(const ls_dispatch *d, int root, const ls_target *t,
                               ls_suggestion *s, ls_diag *diag)
{
    /* setAttentionReductionConfig's NUM_KEY_VECTORS, NUM_VALUE_VECTORS,
     * NUM_SUBGROUPS */
    const ls_attention_seeds iree = {8, 2, 8};
    return ls_suggest_attention_seeded(d, root, t, &iree, s, diag);
}

/* The key and value element widths (IREE asserts that each divides 128)
 * and the sizes setAttentionReductionConfig does arithmetic on: no K1 or
 * N dim dynamic, no loop empty. */
static ls_status attention_sizes(const ls_dispatch *d, const ls_dop *o, const ls_attention_dims *ad,
                                 int *kbits, int *vbits, ls_diag *diag)
{
    *kbits = elem_bits(o, 1);
    *vbits = elem_bits(o, 2);
    if (*kbits <= 0 || *vbits <= 0 || 128 % *kbits != 0 || 128 % *vbits != 0)
        return refuse(diag, d, o,
                      "%s: key and value elements of %d and %d bits; IREE's "
                      "setAttentionVectorDistributionConfig asserts that both divide 128",
                      o->kind, *kbits, *vbits);
    const int *dyn_list[] = {ad->k1, ad->n};
    const int dyn_n[] = {ad->n_k1, ad->n_n};
    for (int g = 0; g < 2; g++)
        for (int i = 0; i < dyn_n[g]; i++)
            if (o->size[dyn_list[g][i]] == LS_DYN)
                return refuse(diag, d, o,
                              "%s: %s dim d%d is dynamic; setAttentionReductionConfig does "
                              "arithmetic on its size (thread tiles of %s vectors), which is not "
                              "defined for a dynamic one, so lanescope does not guess it",
                              o->kind, g == 0 ? "K1" : "N", dyn_list[g][i],
                              g == 0 ? "key" : "value");
    for (int i = 0; i < o->rank; i++)
        if (o->size[i] == 0)
            return refuse(diag, d, o, "%s: loop d%d has size 0", o->kind, i);
    return LS_OK;
}

/* The lane bases of the two matmuls and the subgroup basis, distributed
 * in setAttentionReductionConfig's order: QK's lanes on K2, then K1, N,
 * batch, M; PV's on K2 (shared with QK), then N, K1, batch, M; the
 * subgroups on K2, then N, K1, M, batch. */
static void attention_bases(const ls_attention_dims *ad, int rank, int64_t k1_split,
                            int64_t k2_split, int64_t subgroups, int64_t *bounds, basis *qk,
                            basis *pv, basis *sgb)
{
    basis_init(qk, rank);
    basis_init(sgb, rank);
    int qk_cur = 0;
    distribute(k2_split, ad->k2, ad->n_k2, qk, &qk_cur, bounds);
    *pv = *qk;
    int pv_cur = qk_cur;
    distribute(k1_split, ad->k1, ad->n_k1, qk, &qk_cur, bounds);
    distribute(1, ad->n, ad->n_n, qk, &qk_cur, bounds);
    distribute(k1_split, ad->n, ad->n_n, pv, &pv_cur, bounds);
    distribute(1, ad->k1, ad->n_k1, pv, &pv_cur, bounds);
    distribute(1, ad->batch, ad->n_batch, qk, &qk_cur, bounds);
    distribute(1, ad->m, ad->n_m, qk, &qk_cur, bounds);
    distribute(1, ad->batch, ad->n_batch, pv, &pv_cur, bounds);
    distribute(1, ad->m, ad->n_m, pv, &pv_cur, bounds);
    int cur = 0;
    distribute(subgroups, ad->k2, ad->n_k2, sgb, &cur, bounds);
    distribute(1, ad->n, ad->n_n, sgb, &cur, bounds);
    distribute(1, ad->k1, ad->n_k1, sgb, &cur, bounds);
    distribute(1, ad->m, ad->n_m, sgb, &cur, bounds);
    distribute(1, ad->batch, ad->n_batch, sgb, &cur, bounds);
}

/* The config from the lanes' split of K1 and K2: the QK, PV and subgroup
 * bases (attention_bases), the workgroup tile on the N dims (wg: the batch
 * and M dims' 1s already in it), partial_reduction on K2, the workgroup
 * size and the two matmuls' configs, with the steps that say so. */
static void fill_config(ls_suggestion *s, const ls_attention_dims *adp, int rank, int64_t sg,
                        int64_t k1_split, int64_t k2_split, const ls_attention_seeds *seeds,
                        int64_t value_vec, int64_t *bounds, const int64_t *thread, int64_t *wg)
{
    const ls_attention_dims ad = *adp;
    int n_last = ad.n[ad.n_n - 1];
    basis qk, pv, sgb;
    attention_bases(&ad, rank, k1_split, k2_split, seeds->subgroups, bounds, &qk, &pv, &sgb);
    int64_t partial[LS_MAX_RANK] = {0};
    for (int i = 0; i < ad.n_n; i++) {
        int dim = ad.n[i];
        int64_t v = pv.counts[pv.mapping[dim]];
        if (dim == n_last)
            v *= seeds->value_vectors * value_vec;
        wg[dim] = v;
    }
    for (int i = 0; i < ad.n_k2; i++) {
        int dim = ad.k2[i];
        partial[dim] = qk.counts[qk.mapping[dim]] * sgb.counts[sgb.mapping[dim]];
    }
    int64_t n_sg = 1;
    for (int i = 0; i < rank; i++)
        n_sg *= sgb.counts[i];
    s->attention = true; /* s->root: set by the caller */
    s->subgroup_size = sg;
    s->workgroup_size = sg * n_sg;
    s->att_rank = rank;
    memcpy(s->att_workgroup, wg, sizeof s->att_workgroup);
    memcpy(s->att_partial, partial, sizeof partial);
    project(thread, &qk, &sgb, ad.n, ad.n_n, &s->qk);
    project(thread, &pv, &sgb, ad.k1, ad.n_k1, &s->pv);
    ls_suggest_step(s,
                    "subgroups: %lld on K2 (%lld asked, gcd with what the lanes left); workgroup "
                    "%lld threads",
                    (long long)n_sg, (long long)seeds->subgroups, (long long)s->workgroup_size);
    ls_suggest_step(
        s,
        "workgroup tile: 1 on batch and M dims, the N dims' lanes x %lld value vectors of "
        "%lld; partial_reduction on K2 = its lanes x its subgroups",
        (long long)seeds->value_vectors, (long long)value_vec);
}

ls_status ls_suggest_attention_seeded(const ls_dispatch *d, int root, const ls_target *t,
                                      const ls_attention_seeds *seeds, ls_suggestion *s,
                                      ls_diag *diag)
{
    const int64_t NUM_KEY_VECTORS = seeds->key_vectors, NUM_VALUE_VECTORS = seeds->value_vectors,
                  NUM_SUBGROUPS = seeds->subgroups;
    memset(s, 0, sizeof *s); /* ls_suggest's has taken no step yet either */
    s->root = root;
    if (NUM_KEY_VECTORS < 1 || NUM_VALUE_VECTORS < 1 || NUM_SUBGROUPS < 1)
        return ls_diag_set(diag, LS_ERR_INVALID, d->file, d->ops[root].line, d->ops[root].col,
                           "attention seeds must be positive");
    const ls_dop *o = &d->ops[root];
    ls_attention_dims ad;
    ls_attention_classify(o, &ad);
    if (ad.n_k1 == 0 || ad.n_k2 == 0 || ad.n_n == 0)
        return refuse(diag, d, o,
                      "%s: its maps give no %s dim (AttentionOpDetail: K1 = Q & K - B, K2 = K - "
                      "B - K1, N = V - B - K2), which IREE's attention configs index",
                      o->kind, ad.n_k1 == 0 ? "K1" : ad.n_k2 == 0 ? "K2" : "N");
    ls_suggest_step(s,
                    "root op: %s%s; IREE converts attention to online_attention first "
                    "(ConvertAttentionToOnlineAttention) and configures it in "
                    "setVectorDistributionConfig",
                    o->kind, ls_dop_where_of(o).s);
    char why[160];
    if (!mma_route_fails(o, &ad, t, why, sizeof why))
        return refuse(diag, d, o,
                      "IREE gives this attention its MMA schedule first "
                      "(setAttentionIntrinsicBasedVectorDistributionConfig, "
                      "LLVMGPU/KernelConfig.cpp: target %s has MMA intrinsics and M is not "
                      "skinny); lanescope does not model that schedule, only the reduction "
                      "config IREE falls back to",
                      t->arch);
    ls_suggest_step(s, "no MMA attention schedule: %s, so setAttentionReductionConfig decides", why);

    int kbits, vbits;
    ls_status st = attention_sizes(d, o, &ad, &kbits, &vbits, diag);
    if (st)
        return st;
    int64_t key_vec = 128 / kbits, value_vec = 128 / vbits;
    int64_t sg = ls_suggest_preferred_subgroup(t);
    int rank = o->rank;
    int64_t bounds[LS_MAX_RANK];
    for (int i = 0; i < rank; i++)
        bounds[i] = o->size[i];
    ls_suggest_step(s, "seeds: %lld key vectors, %lld value vectors, %lld subgroups; %lld-element key "
            "and %lld-element value vectors (128 bits of %d- and %d-bit elements); subgroup size "
            "%lld",
         (long long)NUM_KEY_VECTORS, (long long)NUM_VALUE_VECTORS, (long long)NUM_SUBGROUPS,
         (long long)key_vec, (long long)value_vec, kbits, vbits, (long long)sg);

    int64_t wg[LS_MAX_RANK] = {0}, thread[LS_MAX_RANK] = {0};
    for (int i = 0; i < ad.n_batch; i++) {
        wg[ad.batch[i]] = 1;
        bounds[ad.batch[i]] = 1;
    }
    for (int i = 0; i < ad.n_m; i++) {
        wg[ad.m[i]] = 1;
        bounds[ad.m[i]] = 1;
    }
    int k1_last = ad.k1[ad.n_k1 - 1], n_last = ad.n[ad.n_n - 1];
    thread[k1_last] = key_vec;
    bounds[k1_last] = fceil_div(bounds[k1_last], key_vec);
    thread[n_last] = value_vec;
    bounds[n_last] = fceil_div(bounds[n_last], value_vec);

    int64_t k1_vectors = 1;
    for (int i = 0; i < ad.n_k1; i++)
        if (!ls_mul_ok(k1_vectors, bounds[ad.k1[i]], &k1_vectors))
            k1_vectors = INT64_MAX; /* only compared with the subgroup size below */
    int64_t k1_tiles = fceil_div(k1_vectors, NUM_KEY_VECTORS);
    if (k1_tiles <= 0)
        return refuse(diag, d, o, "%s: no K1 vectors to split threads by", o->kind);
    /* min(PowerOf2Ceil(tiles), sg): tiles of sg or more give sg, so the
     * ceiling is only taken below it (no doubling past 2 x sg) */
    int64_t k1_split = k1_tiles >= sg ? sg : ls_suggest_pow2_ceil(k1_tiles);
    if (k1_split > sg)
        k1_split = sg;
    int64_t k2_split = sg / k1_split;
    ls_suggest_step(s, "lanes: K1 holds %lld key vectors, %lld tiles of %lld; lanes on K1 = min(pow2 "
            "ceil, subgroup) = %lld, lanes on K2 = %lld",
         (long long)k1_vectors, (long long)k1_tiles, (long long)NUM_KEY_VECTORS,
         (long long)k1_split, (long long)k2_split);

    fill_config(s, &ad, rank, sg, k1_split, k2_split, seeds, value_vec, bounds, thread, wg);
    return LS_OK;
}
