/* attention_snapshot.c: the values each thread of one attention workgroup
 * carries between K2 steps (attention.h, ls_att_snapshot_at), for stepping
 * through the kernel: the run of attention_run.c stopped after some steps,
 * its tile arrays read back through each thread's positions in the two
 * matmuls' layouts -- the max and sum in QK's (S's layout, whose max and
 * sum IREE propagates), the acc in PV's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attention_internal.h"

/* Thread tid's position along loop i of layout l for its batch, outer and
 * element index (ls_att_thread_positions's formula); vt / vs its virtual
 * thread and subgroup. */
static int64_t position(const ls_nested_layout *l, const int64_t *vt, const int64_t *vs, int i,
                        int64_t b, int64_t o, int64_t e)
{
    return (((vs[i] * l->batch_tile[i] + b) * l->outer_tile[i] + o) * l->thread_tile[i] + vt[i]) *
               l->element_tile[i] +
           e;
}

/* The loops of matmul mm whose op dims are in mask, in its loop order. */
static int loops_in(const ls_att_matmul *mm, unsigned mask, int *l)
{
    int n = 0;
    for (int i = 0; i < mm->rank; i++)
        if (mask >> mm->dim[i] & 1)
            l[n++] = i;
    return n;
}

/* Thread tid's values of array src (over the op dims in mask, box order)
 * at its local tuples of mm's loops over mask, in distributed-vector order,
 * into out (count of them); NaN where a tuple lies past the tile (padding). */
static void gather_thread(const actx *c, const ls_att_matmul *mm, unsigned mask, int64_t tid,
                          const float *src, float *out, int64_t count)
{
    const ls_nested_layout *ly = &mm->layout;
    int l[LS_MAX_RANK];
    int n = loops_in(mm, mask, l);
    int64_t vt[LS_MAX_BODY], vs[LS_MAX_BODY];
    ls_nl_virtual_thread(ly, tid % c->a->subgroup_size, vt);
    ls_nl_virtual_subgroup(ly, tid / c->a->subgroup_size, vs);
    for (int64_t f = 0; f < count; f++) {
        int64_t b[LS_MAX_RANK], o[LS_MAX_RANK], e[LS_MAX_RANK], x[LS_MAX_RANK] = {0};
        ls_att_local_decode(ly, l, n, f, b, o, e);
        bool inside = true;
        for (int j = 0; j < n; j++) {
            int64_t p = position(ly, vt, vs, l[j], b[j], o[j], e[j]);
            inside &= p < mm->bound[l[j]];
            x[mm->dim[l[j]]] = p;
        }
        out[f] = inside ? src[box(c, mask, x)] : NAN;
    }
}

ls_status ls_att_snapshot_at(const ls_module *m, const ls_module_attention *ma,
                             const ls_attention *a, ls_plan_target t, uint64_t seed,
                             int64_t workgroup, int64_t iterations, bool merged,
                             ls_att_snapshot *out, ls_diag *diag)
{
    memset(out, 0, sizeof *out);
    ls_status st = ls_attention_values_check(m, ma, a, diag);
    if (st)
        return st;
    if (workgroup < 0 || workgroup >= a->workgroups)
        return ls_diag_set(diag, LS_ERR_INVALID, a->file, a->line, a->col,
                           "workgroup %lld is outside 0..%lld", (long long)workgroup,
                           (long long)a->workgroups - 1);
    if (iterations < 0 || iterations > a->iterations || (merged && iterations != a->iterations))
        return ls_diag_set(diag, LS_ERR_INVALID, a->file, a->line, a->col,
                           "%lld K2 steps%s: the loop has %lld", (long long)iterations,
                           merged ? " and the merge" : "", (long long)a->iterations);
    actx c;
    bool assumed = false;
    ls_att_ctx_init(&c, m, ma, a, t, seed, &assumed);
    ls_att_ctx_start(&c, workgroup);
    for (int64_t iv = 0; iv < iterations; iv++)
        ls_att_ctx_step(&c, iv);
    if (merged)
        ls_att_ctx_finish(&c);
    /* per slot until a partial loop's merge, per row otherwise */
    bool slots = a->partial && !merged;
    unsigned state = c.bmask | c.mmask | (slots ? c.k2mask : 0u);
    unsigned accm = state | c.nmask;
    int l[LS_MAX_RANK];
    out->threads = a->workgroup_size;
    out->iterations = iterations;
    out->merged = merged;
    out->state_per_thread = ls_att_local_count(&a->qk.layout, l, loops_in(&a->qk, state, l));
    out->acc_per_thread = ls_att_local_count(&a->pv.layout, l, loops_in(&a->pv, accm, l));
    out->max = ls_xcalloc((size_t)(out->threads * out->state_per_thread), sizeof *out->max);
    out->sum = ls_xcalloc((size_t)(out->threads * out->state_per_thread), sizeof *out->sum);
    out->acc = ls_xcalloc((size_t)(out->threads * out->acc_per_thread), sizeof *out->acc);
    for (int64_t tid = 0; tid < out->threads; tid++) {
        gather_thread(&c, &a->qk, state, tid, slots ? c.pmax : c.mx,
                      out->max + tid * out->state_per_thread, out->state_per_thread);
        gather_thread(&c, &a->qk, state, tid, slots ? c.psum : c.sm,
                      out->sum + tid * out->state_per_thread, out->state_per_thread);
        gather_thread(&c, &a->pv, accm, tid, slots ? c.pacc : c.acc,
                      out->acc + tid * out->acc_per_thread, out->acc_per_thread);
    }
    ls_att_ctx_free(&c);
    return LS_OK;
}

void ls_att_snapshot_free(ls_att_snapshot *s)
{
    free(s->max);
    free(s->sum);
    free(s->acc);
    memset(s, 0, sizeof *s);
}
