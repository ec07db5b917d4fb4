/* attention_run.c: one workgroup of an attention as IREE lowers it, step
 * by step: the context a values run keeps (the tiles, the carried max, sum
 * and acc, per slot or per row), its start (the query tile, the partial
 * or the op's inits), each K2 step and the merge.  The values check
 * (attention_values.c) runs every step of every workgroup; a snapshot
 * (attention_snapshot.c) stops after some. */
#include <stdlib.h>
#include <string.h>

#include "attention_internal.h"

void ls_att_ctx_init(actx *c, const ls_module *m, const ls_module_attention *ma,
                     const ls_attention *a, ls_plan_target t, uint64_t seed, bool *inits_assumed)
{
    const ls_dop *o = &m->dispatches[ma->dispatch].ops[ma->op];
    memset(c, 0, sizeof *c);
    c->a = a;
    c->o = o;
    c->t = t;
    c->t.wave = (int)a->subgroup_size;
    c->seed = seed;
    for (int k = 0; k < o->n_inputs; k++) {
        c->type[k] = ls_elem_type_from_name(o->operand[k].elem, strlen(o->operand[k].elem));
        c->is_float[k] = ls_elem_type_is_float(c->type[k]);
        c->opmix[k] = ls_mix64(ls_operand_seed(seed, k));
    }
    for (int k = 1; k < 3; k++)
        if (ma->gather[k].on) {
            c->gather[k] = &ma->gather[k];
            c->rowmix[k] = ls_att_gather_rowmix(ma, k);
            c->opmix[k] = ls_mix64(ls_operand_seed(seed, ls_att_gather_source_of(ma, k)));
        }
    const ls_module_elementwise *me = a->has_mask ? ls_att_mask_op(m, ma) : NULL;
    if (me) {
        c->mask_body = &me->body;
        for (int j = 0; j < me->rank; j++)
            c->mask_loop[j] = me->out_map[j];
    }
    for (int r = 0; r < o->n_inits; r++)
        c->out_type[r] = ls_elem_type_from_name(o->operand[o->n_inputs + r].elem,
                                               strlen(o->operand[o->n_inputs + r].elem));
    c->et = o->n_inits == 3 ? c->out_type[0] : LS_ET_F32;
    c->bmask = mask_of(a->dims.batch, a->dims.n_batch);
    c->mmask = mask_of(a->dims.m, a->dims.n_m);
    c->k1mask = mask_of(a->dims.k1, a->dims.n_k1);
    c->k2mask = mask_of(a->dims.k2, a->dims.n_k2);
    c->nmask = mask_of(a->dims.n, a->dims.n_n);
    for (int d = 0; d < a->rank; d++)
        c->ext[d] = ls_att_extent(a, d); /* as the matmuls' bounds */
    /* s' = scale * log2e, both in the scale's type (computeQKAndElementwise) */
    ls_elem_type stt = c->type[3];
    double sv = ls_value_to_double(ma->scale_bits, ma->scale_type);
    double l2e = ls_value_to_double(ls_value_from_double(LOG2E, stt), stt);
    c->sprime = (float)ls_value_to_double(ls_value_from_double(sv * l2e, stt), stt);
    unsigned smask = c->bmask | c->mmask | c->k2mask, rmask = c->bmask | c->mmask;
    unsigned amask = rmask | c->nmask;
    int64_t ns = box_size(c, smask), nr = box_size(c, rmask), na = box_size(c, amask);
    int64_t nsa = box_size(c, smask | c->nmask), nn = box_size(c, c->nmask);
    /* the largest per-thread vector any reduction keeps */
    int64_t most = 1;
    const ls_att_matmul *mms[2] = {&a->qk, &a->pv};
    for (int q = 0; q < 2; q++) {
        int64_t e = 1;
        for (int i = 0; i < mms[q]->rank; i++)
            e *= mms[q]->layout.batch_tile[i] * mms[q]->layout.outer_tile[i] *
                 mms[q]->layout.element_tile[i];
        if (e > most)
            most = e;
    }
    c->S = ls_xcalloc((size_t)ns, sizeof *c->S);
    c->P = ls_xcalloc((size_t)ns, sizeof *c->P);
    c->w = ls_xcalloc((size_t)ns, sizeof *c->w);
    c->pmax = ls_xcalloc((size_t)ns, sizeof *c->pmax);
    c->psum = ls_xcalloc((size_t)ns, sizeof *c->psum);
    c->pacc = ls_xcalloc((size_t)nsa, sizeof *c->pacc);
    c->mx = ls_xcalloc((size_t)nr, sizeof *c->mx);
    c->sm = ls_xcalloc((size_t)nr, sizeof *c->sm);
    c->acc = ls_xcalloc((size_t)na, sizeof *c->acc);
    c->red = ls_xcalloc((size_t)nsa, sizeof *c->red);
    c->qs = ls_xcalloc((size_t)box_size(c, c->bmask | c->mmask | c->k1mask), sizeof *c->qs);
    c->kt = ls_xcalloc((size_t)box_size(c, c->bmask | c->k2mask | c->k1mask), sizeof *c->kt);
    c->vt = ls_xcalloc((size_t)box_size(c, c->bmask | c->k2mask | c->nmask), sizeof *c->vt);
    c->part = ls_xcalloc((size_t)(a->workgroup_size * most), sizeof *c->part);
    c->lanes = ls_xcalloc((size_t)a->subgroup_size, sizeof *c->lanes);
    c->tmp = ls_xcalloc((size_t)a->subgroup_size, sizeof *c->tmp);
    /* the op's inits: an online_attention's fills as written (tensor.empty
     * and other unknown inits start as IREE's conversion starts them), an
     * attention's from ConvertAttentionToOnlineAttention: acc 0, max
     * -FLT_MAX, sum 0 */
    float *init = c->init;
    init[0] = 0.0f;
    init[1] = lowest_e(c);
    init[2] = 0.0f;
    bool online = o->n_inits == 3;
    for (int r = 0; online && r < 3; r++) {
        if (ma->init_filled[r])
            init[r] = (float)ls_value_to_double(ma->init_bits[r], c->et);
        else
            *inits_assumed = true;
    }
    c->init_acc = ls_xcalloc((size_t)na, sizeof *c->init_acc);
    c->init_max = ls_xcalloc((size_t)nr, sizeof *c->init_max);
    c->init_sum = ls_xcalloc((size_t)nr, sizeof *c->init_sum);
    for (int64_t i = 0; i < na; i++)
        c->init_acc[i] = init[0];
    for (int64_t i = 0; i < nr; i++) {
        c->init_max[i] = init[1];
        c->init_sum[i] = init[2];
    }
    c->ns = ns;
    c->nr = nr;
    c->na = na;
    c->nsa = nsa;
    c->nn = nn;
}

/* Local tile coords of linear index w over the op dims in mask, each dim
 * counting tiles of ext (row-major): the tile origin into org. */
static void tile_origin(const actx *c, unsigned mask, int64_t w, int64_t *org)
{
    const ls_attention *a = c->a;
    for (int d = a->rank; d-- > 0;) {
        if (!(mask >> d & 1))
            continue;
        int64_t n = a->size[d] / c->ext[d];
        org[d] = w % n * c->ext[d];
        w /= n;
    }
}

void ls_att_ctx_start(actx *c, int64_t w)
{
    const ls_attention *a = c->a;
    memset(c->origin, 0, sizeof c->origin);
    tile_origin(c, c->bmask | c->mmask | c->nmask, w, c->origin);
    ls_att_load_tile(c, 0, c->bmask | c->mmask | c->k1mask, c->qs);
    if (a->partial) {
        for (int64_t i = 0; i < c->ns; i++) {
            c->pmax[i] = lowest_e(c); /* generateInitialTensorForPartialReduction */
            c->psum[i] = 0;
        }
        memset(c->pacc, 0, (size_t)c->nsa * sizeof *c->pacc);
    } else {
        memcpy(c->mx, c->init_max, (size_t)c->nr * sizeof *c->mx);
        memcpy(c->sm, c->init_sum, (size_t)c->nr * sizeof *c->sm);
        memcpy(c->acc, c->init_acc, (size_t)c->na * sizeof *c->acc);
    }
}

void ls_att_ctx_step(actx *c, int64_t iv)
{
    tile_origin(c, c->k2mask, iv, c->origin);
    if (c->a->partial)
        ls_att_step_partial(c);
    else
        ls_att_step_serial(c);
}

void ls_att_ctx_finish(actx *c)
{
    for (int d = 0; d < c->a->rank; d++)
        if (c->k2mask >> d & 1)
            c->origin[d] = 0;
    if (c->a->partial)
        ls_att_merge(c, c->init_acc, c->init_max, c->init_sum);
}

void ls_att_ctx_free(actx *c)
{
    free(c->S);
    free(c->P);
    free(c->w);
    free(c->pmax);
    free(c->psum);
    free(c->pacc);
    free(c->mx);
    free(c->sm);
    free(c->acc);
    free(c->red);
    free(c->qs);
    free(c->kt);
    free(c->vt);
    free(c->part);
    free(c->lanes);
    free(c->tmp);
    free(c->init_acc);
    free(c->init_max);
    free(c->init_sum);
}
