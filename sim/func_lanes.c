/* func_lanes.c: which lane holds what, for the functional model
 * (functional.c) and the arg_compare one (argcmp.c): the steps of a
 * gpu.subgroup_reduce over a subgroup's lanes (butterfly shuffles, DPP row
 * operations, broadcasts), and the output a result slot of a thread
 * stands for.  Declared in functional_internal.h. */
#include <string.h>

#include "functional_internal.h"

int64_t ls_func_parallel_pos(const ls_derived *d, const ls_problem *p, const int64_t *slot_reg,
                             int64_t tid, int64_t q)
{
    const ls_nested_layout *l = &d->layout;
    int64_t sgsz = d->subgroup_size;
    ls_nl_coord c;
    ls_nl_register_coord(l, slot_reg[q], &c);
    ls_nl_virtual_subgroup(l, tid / sgsz, c.subgroup);
    ls_nl_virtual_thread(l, tid % sgsz, c.thread);
    int64_t body[LS_MAX_BODY], pos = 0;
    ls_nl_compose(l, &c, body);
    for (int k = 0; k < l->rank; k++)
        if (!d->body_inner[k] && !p->is_reduction[d->body_origin[k]])
            pos = pos * ls_nl_extent(l, k) + body[k];
    return pos;
}

static int64_t dpp_source(ls_dpp_ctrl c, int64_t l)
{
    switch (c) {
    case LS_DPP_QUAD_PERM_1032: return (l & ~INT64_C(3)) | ((l & 3) ^ 1);
    case LS_DPP_QUAD_PERM_2301: return (l & ~INT64_C(3)) | ((l & 3) ^ 2);
    case LS_DPP_ROW_HALF_MIRROR: return (l & ~INT64_C(7)) | (7 - (l & 7));
    case LS_DPP_ROW_MIRROR: return (l & ~INT64_C(15)) | (15 - (l & 15));
    case LS_DPP_PERMLANEX16: return l ^ 16;
    default: return l;
    }
}

void ls_func_run_reduce(const ls_subgroup_reduce *r, ls_combiner k, ls_elem_type t, ls_value *v,
                       ls_value *tmp, int64_t sg_size, int max_steps)
{
    int n = max_steps >= 0 && max_steps < r->n_steps ? max_steps : r->n_steps;
    for (int i = 0; i < n; i++) {
        const ls_reduce_step *st = &r->steps[i];
        memcpy(tmp, v, (size_t)sg_size * sizeof *v);
        for (int64_t l = 0; l < sg_size; l++) {
            if (st->kind == LS_STEP_SHUFFLE_XOR) {
                int64_t src = l ^ st->offset;
                if (src < sg_size)
                    v[l] = ls_combine(k, t, tmp[l], tmp[src]);
            } else if (st->kind == LS_STEP_DPP) {
                if (st->dpp == LS_DPP_ROW_BCAST_15) {
                    int64_t row = l / 16;
                    if (row % 2 == 1) /* row_mask 0xa: rows 1 and 3 */
                        v[l] = ls_combine(k, t, tmp[l], tmp[row * 16 - 1]);
                } else if (st->dpp == LS_DPP_ROW_BCAST_31) {
                    /* lane 31 into rows 2 and 3; what rows 0 and 1 end
                     * with is never read (readlane 63 follows) */
                    if (l / 16 >= 2 && sg_size > 31)
                        v[l] = ls_combine(k, t, tmp[l], tmp[31]);
                } else {
                    int64_t src = dpp_source(st->dpp, l);
                    if (src < sg_size)
                        v[l] = ls_combine(k, t, tmp[l], tmp[src]);
                }
            } else if (st->kind == LS_STEP_SWIZZLE) {
                int64_t src = (l & ~(int64_t)31) | st->offset;
                v[l] = tmp[src < sg_size ? src : sg_size - 1];
            } else if (st->lane_b >= 0) {
                v[l] = ls_combine(k, t, tmp[st->lane_a < sg_size ? st->lane_a : 0],
                                  tmp[st->lane_b < sg_size ? st->lane_b : 0]);
            } else {
                v[l] = tmp[st->lane_a < sg_size ? st->lane_a : sg_size - 1];
            }
        }
    }
}

bool ls_func_output_of(const ls_derived *d, const ls_problem *p, const int64_t *slot_reg,
                       int64_t tid, const int64_t *wg_coord, int64_t q, int64_t *out, int *no)
{
    const ls_nested_layout *l = &d->layout;
    int64_t it0[LS_MAX_RANK] = {0}, r = slot_reg[q];
    int64_t x[LS_MAX_RANK], body[LS_MAX_BODY];
    bool valid;
    ls_thread_element(d, p, tid, wg_coord, it0, r, x, &valid);
    ls_nl_coord c;
    ls_nl_register_coord(l, r, &c);
    ls_nl_virtual_subgroup(l, tid / d->subgroup_size, c.subgroup);
    ls_nl_virtual_thread(l, tid % d->subgroup_size, c.thread);
    ls_nl_compose(l, &c, body);
    /* Only the parallel coordinates matter: padding along the reduction
     * still belongs to a real output row. */
    bool out_valid = true;
    *no = 0;
    for (int i = 0; i < p->rank; i++)
        if (!p->is_reduction[i]) {
            out[(*no)++] = x[i];
            out_valid &= x[i] < p->size[i];
        }
    for (int k = 0; k < d->body_rank; k++)
        if (!p->is_reduction[d->body_origin[k]])
            out_valid &= body[k] < d->body_bound[k];
    return out_valid;
}
