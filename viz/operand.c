/* operand.c: who reads each element of a reduction's input operand -- the
 * model behind `draw layout --operand K` and `draw nested --operand K`.
 *
 * IREE gives every operand of a contraction the iteration-space layout
 * projected through the operand's indexing map (NestedLayoutAttr::apply in
 * setGPULoweringConfigLayout).  A thread therefore loads operand k once per
 * batch/outer position of the body dims the operand has (ls_operand_regs),
 * and threads that differ only along a dim the operand lacks load the same
 * elements: a matvec's vector is read by every thread of a row group.
 *
 * The reads table enumerates exactly what the engine charges
 * (sim/engine.c load_intervals): for every thread, every operand load and
 * every element of it, the iteration point ls_thread_element gives, skipped
 * when it is padding.  Cost: workgroup_size x loads x width per table
 * (the elements one workgroup loads per iteration), memory 21 bytes per
 * element of the operand box (4 more while it is built).  Nothing here
 * draws; grids.c arranges it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanescope/arena.h"
#include "lanescope/functional.h"
#include "lanescope/viz.h"

/* Thread-elements one table may enumerate, and operand elements it may
 * hold: a workgroup's loads of one iteration stay far below both. */
#define MAX_THREAD_ELEMS (INT64_C(1) << 26)
#define MAX_BOX_ELEMS (INT64_C(1) << 24)

ls_status ls_viz_operand_check(const ls_plan *pl, int k, ls_diag *diag)
{
    const ls_problem *p = pl->problem;
    if (k < 0 || k >= p->n_inputs)
        return ls_diag_set(diag, LS_ERR_USAGE, "", 0, 0,
                           "--operand %d: the reduction has %d input%s (0..%d)", k, p->n_inputs,
                           p->n_inputs == 1 ? "" : "s", p->n_inputs - 1);
    const ls_operand *o = &p->inputs[k];
    /* Nothing loaded means nothing to own: an error, not an empty picture. */
    if (o->intermediate)
        return ls_diag_set(diag, LS_ERR_USAGE, "", 0, 0,
                           "--operand %d: input %d %s is the result of reduction %d, held in "
                           "registers (not loaded): no reads to draw",
                           k, k, o->name, o->producer);
    if (pl->inputs[k].loads == 0)
        return ls_diag_set(diag, LS_ERR_USAGE, "", 0, 0,
                           "--operand %d: the body never reads input %d %s (not loaded): no "
                           "reads to draw",
                           k, k, o->name);
    return LS_OK;
}

void ls_viz_operand_name(const ls_problem *p, int k, char *buf, size_t size)
{
    const ls_operand *o = &p->inputs[k];
    size_t u =
        (size_t)snprintf(buf, size, "input %d%s%s : tensor<", k, o->name[0] ? " " : "", o->name);
    for (int j = 0; j < o->map_n && u < size; j++)
        u += (size_t)snprintf(buf + u, size - u, "%lldx", (long long)ls_operand_dim(p, k, j));
    if (u < size)
        u += (size_t)snprintf(buf + u, size - u, "%s> (", ls_elem_type_name(o->type));
    for (int j = 0; j < o->map_n && u < size; j++) {
        u += (size_t)snprintf(buf + u, size - u, "%sd%d", j ? ", " : "", o->map[j]);
        if (o->scale[j] > 1 && u < size)
            u += (size_t)snprintf(buf + u, size - u, " * %lld", (long long)o->scale[j]);
    }
    if (u < size)
        snprintf(buf + u, size - u, ")");
}

int ls_viz_operand_layout_of(const ls_derived *d, const ls_problem *p, int k, ls_nested_layout *out,
                             int *body_dims)
{
    const ls_nested_layout *l = &d->layout;
    const ls_operand *o = &p->inputs[k];
    /* the order ls_plan_input_vector_type prints: the operand's dims in its
     * map's order, then the packed inner parts of those dims */
    int dims[LS_MAX_BODY], n = 0;
    for (int j = 0; j < o->map_n; j++)
        for (int b = 0; b < d->body_rank; b++)
            if (!d->body_inner[b] && d->body_origin[b] == o->map[j])
                dims[n++] = b;
    for (int b = 0; b < d->body_rank; b++)
        for (int j = 0; d->body_inner[b] && j < o->map_n; j++)
            if (d->body_origin[b] == o->map[j]) {
                dims[n++] = b;
                break;
            }
    memset(out, 0, sizeof *out);
    out->rank = n;
    for (int i = 0; i < n; i++) {
        int b = dims[i];
        out->subgroup_tile[i] = l->subgroup_tile[b];
        out->batch_tile[i] = l->batch_tile[b];
        out->outer_tile[i] = l->outer_tile[b];
        out->thread_tile[i] = l->thread_tile[b];
        out->element_tile[i] = l->element_tile[b];
        out->subgroup_strides[i] = l->subgroup_strides[b];
        out->thread_strides[i] = l->thread_strides[b];
        if (body_dims)
            body_dims[i] = b;
    }
    return n;
}

/* Index of full-layout register reg in the operand's own distributed
 * vector (row-major over the projected layout's batch, outer, element). */
static int64_t operand_vreg(const ls_derived *d, const ls_nested_layout *proj, const int *dims,
                            int64_t reg)
{
    ls_nl_coord c, pc;
    ls_nl_register_coord(&d->layout, reg, &c);
    memset(&pc, 0, sizeof pc);
    for (int i = 0; i < proj->rank; i++) {
        pc.batch[i] = c.batch[dims[i]];
        pc.outer[i] = c.outer[dims[i]];
        pc.element[i] = c.element[dims[i]];
    }
    return ls_nl_register_of(proj, &pc);
}

/* Ranges of the view a table needs: the flags they come from are named. */
static ls_status check_view(const ls_derived *d, int64_t workgroup, int64_t iteration,
                            int64_t thread, ls_diag *diag)
{
    if (workgroup < 0 || workgroup >= d->total_workgroups)
        return ls_diag_set(diag, LS_ERR_USAGE, "--workgroup", 0, 0,
                           "workgroup %lld is outside 0..%lld", (long long)workgroup,
                           (long long)d->total_workgroups - 1);
    if (iteration < 0 || iteration >= d->total_iterations)
        return ls_diag_set(diag, LS_ERR_USAGE, "--iteration", 0, 0,
                           "iteration %lld is outside 0..%lld", (long long)iteration,
                           (long long)d->total_iterations - 1);
    if (thread >= d->workgroup_size)
        return ls_diag_set(diag, LS_ERR_USAGE, "--thread", 0, 0,
                           "thread %lld is outside 0..%lld (workgroup size)", (long long)thread,
                           (long long)d->workgroup_size - 1);
    return LS_OK;
}

/* The operand box of one tile: along operand dim j (loop dim i, scale s)
 * the tile's loop range [o, o + e) reaches operand coordinates
 * o*s .. (o+e-1)*s.  Returns its element count, or -1 past the limit. */
static int64_t operand_box(const ls_derived *d, const ls_problem *p, int k,
                           const int64_t *tile_origin, ls_operand_reads *r)
{
    const ls_operand *o = &p->inputs[k];
    int64_t n = 1;
    for (int j = 0; j < o->map_n; j++) {
        int i = o->map[j];
        int64_t s = o->scale[j] > 1 ? o->scale[j] : 1;
        int64_t e = p->is_reduction[i] ? d->chunk[i] : d->wg_tile[i];
        if (e < 1)
            e = 1;
        int64_t end;
        r->origin[j] = tile_origin[i] * s; /* < the operand's size: validated */
        /* a workgroup tile may be far past the dim's size, up to int64's
         * limit, and a stride up to 2^31: checked, as is the box's end */
        if (!ls_mul_ok(e - 1, s, &r->extent[j]) || r->extent[j] >= MAX_BOX_ELEMS)
            return -1; /* extent > MAX_BOX_ELEMS: so is the count */
        r->extent[j]++;
        if (__builtin_add_overflow(r->origin[j], r->extent[j], &end))
            return -1;
        r->dim[j] = ls_operand_dim(p, k, j);
        if (!ls_mul_ok(n, r->extent[j], &n) || n > MAX_BOX_ELEMS)
            return -1;
    }
    return n;
}

ls_status ls_viz_operand_reads_init(const ls_plan *pl, int k, int64_t workgroup, int64_t iteration,
                                    int64_t thread, ls_operand_reads *r, ls_diag *diag)
{
    memset(r, 0, sizeof *r);
    const ls_problem *p = pl->problem;
    const ls_derived *d = pl->derived;
    if (ls_viz_operand_check(pl, k, diag) || check_view(d, workgroup, iteration, thread, diag))
        return diag->status;
    ls_operand_regs regs;
    ls_operand_regs_of(d, p, k, &regs);
    int64_t work;
    if (!ls_mul_ok(d->workgroup_size, regs.loads * regs.width, &work) || work > MAX_THREAD_ELEMS)
        return ls_diag_set(diag, LS_ERR_LIMIT, p->file, p->line, p->col,
                           "input %d: %lld threads x %lld elements per iteration; draw counts "
                           "at most %lld",
                           k, (long long)d->workgroup_size, (long long)(regs.loads * regs.width),
                           (long long)MAX_THREAD_ELEMS);
    int64_t wgc[LS_MAX_RANK], itc[LS_MAX_RANK], origin[LS_MAX_RANK];
    ls_workgroup_coord(d, workgroup, wgc);
    ls_iteration_coord(d, p, iteration, itc);
    ls_tile_origin(d, p, wgc, itc, origin);
    r->input = k;
    r->rank = p->inputs[k].map_n;
    r->n = operand_box(d, p, k, origin, r);
    if (r->n < 0)
        return ls_diag_set(diag, LS_ERR_LIMIT, p->file, p->line, p->col,
                           "input %d: one tile reaches more than %lld of its elements", k,
                           (long long)MAX_BOX_ELEMS);
    r->readers = ls_xcalloc((size_t)r->n, sizeof *r->readers);
    r->first = ls_xmalloc((size_t)r->n * sizeof *r->first);
    r->second = ls_xmalloc((size_t)r->n * sizeof *r->second);
    r->vreg = ls_xcalloc((size_t)r->n, sizeof *r->vreg);
    if (thread >= 0)
        r->mine = ls_xcalloc((size_t)r->n, sizeof *r->mine);
    int32_t *last = ls_xmalloc((size_t)r->n * sizeof *last);
    for (int64_t e = 0; e < r->n; e++)
        r->first[e] = r->second[e] = last[e] = -1;
    ls_nested_layout proj;
    int dims[LS_MAX_BODY];
    ls_viz_operand_layout_of(d, p, k, &proj, dims);
    const ls_operand *o = &p->inputs[k];
    for (int64_t t = 0; t < d->workgroup_size; t++)
        for (int64_t ld = 0; ld < regs.loads; ld++)
            for (int64_t el = 0; el < regs.width; el++) {
                int64_t reg = ls_operand_register(d, &regs, ld, el), x[LS_MAX_RANK];
                int64_t oc[LS_MAX_RANK];
                bool valid;
                ls_thread_element(d, p, t, wgc, itc, reg, x, &valid);
                if (!valid)
                    continue;
                for (int j = 0; j < o->map_n; j++)
                    oc[j] = x[o->map[j]] * (o->scale[j] > 1 ? o->scale[j] : 1);
                int64_t e = ls_viz_operand_reads_index(r, oc);
                /* threads come in increasing order: a repeat of the last
                 * reader is the same thread reading again, not another one */
                if (e < 0 || last[e] == t)
                    continue;
                last[e] = (int32_t)t;
                if (r->readers[e] == 0) {
                    r->first[e] = (int32_t)t;
                    r->vreg[e] = (int32_t)operand_vreg(d, &proj, dims, reg);
                } else if (r->readers[e] == 1) {
                    r->second[e] = (int32_t)t;
                }
                r->readers[e]++;
                if (r->mine && t == thread)
                    r->mine[e] = 1;
            }
    free(last);
    return LS_OK;
}

void ls_viz_operand_reads_fini(ls_operand_reads *r)
{
    free(r->readers);
    free(r->first);
    free(r->second);
    free(r->vreg);
    free(r->mine);
    memset(r, 0, sizeof *r);
}

int64_t ls_viz_operand_reads_index(const ls_operand_reads *r, const int64_t *oc)
{
    int64_t e = 0;
    for (int j = 0; j < r->rank; j++) {
        int64_t a = oc[j] - r->origin[j];
        if (a < 0 || a >= r->extent[j])
            return -1;
        e = e * r->extent[j] + a;
    }
    return e;
}
