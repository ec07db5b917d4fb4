/* layout.c: basis mapping, nested layouts, config -> layout, ownership.
 *
 * Cost: everything here is O(rank) per query except ls_owner_of, which scans
 * the workgroup's threads (<= 1024) to list duplicated holders, and
 * ls_derive's idle-lane count, which looks at one register per thread.
 */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "lanescope/layout.h"

/* a >= 0, b > 0; a + b - 1 would overflow for a size near int64's limit. */
static int64_t ceil_div(int64_t a, int64_t b)
{
    return a / b + (a % b != 0);
}

void ls_delinearize(int64_t x, const int64_t *b, int n, int64_t *coords)
{
    /* P_i = prod(b[i..n)); c0 = x / P_0; c_i = (x mod P_{i-1}) / P_i. */
    int64_t p = 1;
    for (int i = n - 1; i >= 0; i--) {
        coords[i + 1] = (x / p) % b[i];
        p *= b[i];
    }
    coords[0] = x / p;
}

void ls_basis_dims(const ls_basis *b, int rank, int64_t *sizes, int64_t *strides)
{
    int64_t row_major[LS_MAX_RANK];
    int64_t s = 1;
    for (int j = b->counts.n - 1; j >= 0; j--) {
        row_major[j] = s;
        s *= b->counts.v[j];
    }
    for (int i = 0; i < rank; i++) {
        int64_t j = i < b->mapping.n ? b->mapping.v[i] : i;
        sizes[i] = j < b->counts.n ? b->counts.v[j] : 1;
        strides[i] = sizes[i] == 1 ? 0 : row_major[j];
    }
}

void ls_basis_coords(const ls_basis *b, int rank, int64_t id, int64_t *coords)
{
    int64_t c[LS_MAX_RANK + 1];
    ls_delinearize(id, b->counts.v, b->counts.n, c);
    for (int i = 0; i < rank; i++) {
        int64_t j = i < b->mapping.n ? b->mapping.v[i] : i;
        coords[i] = j < b->counts.n ? c[j + 1] : 0;
    }
}

/* ---------------------------------------------------------- nested layouts */

int64_t ls_nl_extent(const ls_nested_layout *l, int i)
{
    return l->subgroup_tile[i] * l->batch_tile[i] * l->outer_tile[i] * l->thread_tile[i] *
           l->element_tile[i];
}

void ls_nl_distributed_shape(const ls_nested_layout *l, int64_t *shape)
{
    for (int i = 0; i < l->rank; i++)
        shape[i] = l->batch_tile[i] * l->outer_tile[i] * l->element_tile[i];
}

int64_t ls_nl_registers(const ls_nested_layout *l)
{
    int64_t n = 1;
    for (int i = 0; i < l->rank; i++)
        n *= l->batch_tile[i] * l->outer_tile[i] * l->element_tile[i];
    return n;
}

int64_t ls_nl_threads(const ls_nested_layout *l)
{
    int64_t n = 1;
    for (int i = 0; i < l->rank; i++)
        n *= l->thread_tile[i];
    return n;
}

int64_t ls_nl_subgroups(const ls_nested_layout *l)
{
    int64_t n = 1;
    for (int i = 0; i < l->rank; i++)
        n *= l->subgroup_tile[i];
    return n;
}

void ls_nl_virtual_thread(const ls_nested_layout *l, int64_t lane, int64_t *vt)
{
    for (int i = 0; i < l->rank; i++)
        vt[i] = l->thread_strides[i] ? (lane / l->thread_strides[i]) % l->thread_tile[i] : 0;
}

void ls_nl_virtual_subgroup(const ls_nested_layout *l, int64_t sg, int64_t *vs)
{
    for (int i = 0; i < l->rank; i++)
        vs[i] = l->subgroup_strides[i] ? (sg / l->subgroup_strides[i]) % l->subgroup_tile[i] : 0;
}

int64_t ls_nl_lane_of(const ls_nested_layout *l, const int64_t *vt)
{
    int64_t s = 0;
    for (int i = 0; i < l->rank; i++)
        s += l->thread_strides[i] * vt[i];
    return s % ls_nl_threads(l);
}

int64_t ls_nl_subgroup_of(const ls_nested_layout *l, const int64_t *vs)
{
    int64_t s = 0;
    for (int i = 0; i < l->rank; i++)
        s += l->subgroup_strides[i] * vs[i];
    return s % ls_nl_subgroups(l);
}

void ls_nl_compose(const ls_nested_layout *l, const ls_nl_coord *c, int64_t *idx)
{
    for (int i = 0; i < l->rank; i++)
        idx[i] = (((c->subgroup[i] * l->batch_tile[i] + c->batch[i]) * l->outer_tile[i] +
                   c->outer[i]) * l->thread_tile[i] + c->thread[i]) * l->element_tile[i] +
                 c->element[i];
}

bool ls_nl_decompose(const ls_nested_layout *l, const int64_t *idx, ls_nl_coord *c)
{
    for (int i = 0; i < l->rank; i++) {
        int64_t x = idx[i];
        if (x < 0 || x >= ls_nl_extent(l, i))
            return false;
        c->element[i] = x % l->element_tile[i];
        x /= l->element_tile[i];
        c->thread[i] = x % l->thread_tile[i];
        x /= l->thread_tile[i];
        c->outer[i] = x % l->outer_tile[i];
        x /= l->outer_tile[i];
        c->batch[i] = x % l->batch_tile[i];
        c->subgroup[i] = x / l->batch_tile[i];
    }
    return true;
}

int64_t ls_nl_register_of(const ls_nested_layout *l, const ls_nl_coord *c)
{
    int64_t r = 0;
    for (int i = 0; i < l->rank; i++)
        r = r * l->batch_tile[i] + c->batch[i];
    for (int i = 0; i < l->rank; i++)
        r = r * l->outer_tile[i] + c->outer[i];
    for (int i = 0; i < l->rank; i++)
        r = r * l->element_tile[i] + c->element[i];
    return r;
}

void ls_nl_register_coord(const ls_nested_layout *l, int64_t reg, ls_nl_coord *c)
{
    for (int i = l->rank - 1; i >= 0; i--) {
        c->element[i] = reg % l->element_tile[i];
        reg /= l->element_tile[i];
    }
    for (int i = l->rank - 1; i >= 0; i--) {
        c->outer[i] = reg % l->outer_tile[i];
        reg /= l->outer_tile[i];
    }
    for (int i = l->rank - 1; i >= 0; i--) {
        c->batch[i] = reg % l->batch_tile[i];
        reg /= l->batch_tile[i];
    }
}

/* ------------------------------------------------------------- derivation */

static void warn(ls_derived *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void warn(ls_derived *d, const char *fmt, ...)
{
    if (d->n_warnings >= LS_MAX_WARNINGS)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->warnings[d->n_warnings++], sizeof d->warnings[0], fmt, ap);
    va_end(ap);
}

static int64_t cfg(const ls_i64_list *l, int i)
{
    return l->present && i < l->n ? l->v[i] : 0;
}

static ls_status derive(const ls_problem *p, ls_derived *d, ls_diag *diag);

ls_status ls_derive(const ls_problem *p, ls_derived *d, ls_diag *diag)
{
    /* Any other pipeline lowers the reduction its own way: simulating it as
     * VectorDistribute would be a silent wrong answer.  (An empty name is
     * a translation_info built in code; the parser rejects one without a
     * pipeline.) */
    if (p->has_ti && p->ti.pipeline[0] && strcmp(p->ti.pipeline, "VectorDistribute") != 0 &&
        !ls_is_tile_and_fuse(p)) {
        memset(d, 0, sizeof *d);
        return ls_diag_set(diag, LS_ERR_INVALID, p->file, p->ti.pipeline_line,
                           p->ti.pipeline_col,
                           "the %s pipeline: lanescope lowers reductions as IREE's "
                           "VectorDistribute and TileAndFuse pipelines do, no other",
                           p->ti.pipeline);
    }
    if (!ls_is_tile_and_fuse(p)) {
        ls_status st = derive(p, d, diag);
        d->local_reduce_all = st == LS_OK && ls_derive_local_reduce_all(p);
        return st;
    }
    ls_problem *q = ls_xmalloc(sizeof *q);
    ls_status st = ls_tile_and_fuse_view(p, q, diag);
    if (st == LS_OK)
        st = derive(q, d, diag);
    d->tile_and_fuse = st == LS_OK;
    free(q);
    return st;
}

/* Each loop's tiles: a parallel dim's workgroup tile and count, a
 * reduction dim's chunk (partial_reduction, else a serial reduction
 * tile, else whole) and iterations, their tails, and the totals. */
static ls_status tile_loops(const ls_problem *p, ls_derived *d, const int64_t *lane_sz,
                            const int64_t *sg_sz, ls_diag *diag)
{
    const ls_lowering_config *c = &p->config;
    int n = p->rank;
    d->total_workgroups = 1;
    d->total_iterations = 1;
    d->body_rank = n;
    for (int i = 0; i < n; i++) {
        int64_t size = p->size[i];
        d->lanes[i] = lane_sz[i];
        d->subgroups[i] = sg_sz[i];
        d->thread[i] = cfg(&c->thread, i) ? cfg(&c->thread, i) : 1;
        d->iterations[i] = 1;
        d->wg_count[i] = 1;
        d->body_origin[i] = i;
        d->body_scale[i] = 1;
        if (!p->is_reduction[i]) {
            int64_t t = cfg(&c->workgroup, i);
            d->wg_tile[i] = t ? t : size;
            d->wg_count[i] = ceil_div(size, d->wg_tile[i]);
            if (size % d->wg_tile[i] && d->wg_count[i] > 1)
                d->tail[i] = size % d->wg_tile[i];
            d->body_bound[i] = d->wg_count[i] == 1 ? size : d->wg_tile[i];
            if (!ls_mul_ok(d->total_workgroups, d->wg_count[i], &d->total_workgroups))
                return ls_diag_set(diag, LS_ERR_LIMIT, p->file, p->line, p->col,
                                   "workgroup count overflows int64");
        } else {
            int64_t pr = cfg(&c->partial_reduction, i), rl = cfg(&c->reduction, i);
            /* GPUApplyTilingLevel(Reduction) runs before PartialReduction
             * (addGPUVectorDistributePassPipeline): its loop body keeps the
             * reduction, so the whole pipeline runs per iteration. */
            d->serial[i] = rl > 0 && pr == 0;
            d->serial_reduce |= d->serial[i];
            d->chunk[i] = pr ? pr : rl ? rl : size;
            d->iterations[i] = ceil_div(size, d->chunk[i]);
            if (size % d->chunk[i])
                d->tail[i] = size % d->chunk[i];
            d->body_bound[i] = d->chunk[i];
            if (!ls_mul_ok(d->total_iterations, d->iterations[i], &d->total_iterations))
                return ls_diag_set(diag, LS_ERR_LIMIT, p->file, p->line, p->col,
                                   "iteration count overflows int64");
        }
    }
    return LS_OK;
}

/* The warnings a config author wants to see: duplicated lanes or
 * subgroups, ragged tails, tiles the layout does not cover exactly, idle
 * lanes. */
static void layout_warnings(const ls_problem *p, ls_derived *d)
{
    const ls_nested_layout *l = &d->layout;
    int n = p->rank;
    if (d->lane_dup > 1)
        warn(d,
             "duplicated lanes: lane_basis uses %lld of %lld lanes, so each element is held "
             "by %lld lanes (T0|T%lld|...)",
             (long long)d->layout_lanes, (long long)d->subgroup_size, (long long)d->lane_dup,
             (long long)d->layout_lanes);
    if (d->subgroup_dup > 1)
        warn(d,
             "duplicated subgroups: subgroup_basis uses %lld of %lld subgroups, so %lld "
             "subgroups compute the same values",
             (long long)d->layout_subgroups, (long long)d->num_subgroups,
             (long long)d->subgroup_dup);
    for (int i = 0; i < n; i++) {
        if (d->tail[i] && p->is_reduction[i])
            warn(d,
                 "ragged tail on d%d: %lld is not a multiple of the chunk %lld, so the last "
                 "of %lld iterations has %lld valid elements and is padded with the "
                 "combiner's identity",
                 i, (long long)p->size[i], (long long)d->chunk[i], (long long)d->iterations[i],
                 (long long)d->tail[i]);
        else if (d->tail[i])
            warn(d,
                 "ragged tail on d%d: %lld is not a multiple of the workgroup tile %lld, so "
                 "the last of %lld workgroups has %lld valid rows (masked)",
                 i, (long long)p->size[i], (long long)d->wg_tile[i], (long long)d->wg_count[i],
                 (long long)d->tail[i]);
    }
    for (int k = 0; k < d->body_rank; k++) {
        int i = d->body_origin[k];
        if (d->coverage[k] == d->body_bound[k])
            continue;
        const char *what = p->is_reduction[i] ? "chunk" : "workgroup tile";
        warn(d,
             "%s of d%d not covered exactly: %lld subgroups x %lld batches x %lld lanes x "
             "%lld elements = %lld positions for %lld elements%s; %lld are padding",
             what, i, (long long)l->subgroup_tile[k], (long long)l->batch_tile[k],
             (long long)l->thread_tile[k], (long long)l->element_tile[k], (long long)d->coverage[k],
             (long long)d->body_bound[k], d->body_inner[k] ? " (packed inner part)" : "",
             (long long)(d->coverage[k] - d->body_bound[k]));
    }
    /* Idle threads: no valid element in workgroup 0, iteration 0.  Every
     * body index grows with batch, outer and element, so register 0 (all of
     * them 0) is a thread's smallest position in every dim at once: the
     * thread holds a valid element iff register 0 is valid.  O(threads). */
    int64_t zero[LS_MAX_RANK] = {0};
    for (int64_t tid = 0; tid < d->workgroup_size; tid++) {
        int64_t x[LS_MAX_RANK];
        bool valid;
        ls_thread_element(d, p, tid, zero, zero, 0, x, &valid);
        d->idle_lanes += !valid;
    }
    if (d->idle_lanes)
        warn(d,
             "idle lanes: %lld of %lld threads hold no valid element (they load padding "
             "only)",
             (long long)d->idle_lanes, (long long)d->workgroup_size);
}

static ls_status derive(const ls_problem *p, ls_derived *d, ls_diag *diag)
{
    memset(d, 0, sizeof *d);
    if (!p->att_view && ls_problem_validate(p, diag))
        return diag->status;
    const ls_lowering_config *c = &p->config;
    int n = p->rank;
    d->rank = n;
    ls_problem_sizes(p, &d->subgroup_size, &d->workgroup_size, &d->sizes_assumed);
    d->num_subgroups = d->workgroup_size / d->subgroup_size;

    int64_t lane_sz[LS_MAX_RANK], lane_st[LS_MAX_RANK], sg_sz[LS_MAX_RANK], sg_st[LS_MAX_RANK];
    ls_basis_dims(&c->lane_basis, n, lane_sz, lane_st);
    ls_basis_dims(&c->subgroup_basis, n, sg_sz, sg_st);

    if (tile_loops(p, d, lane_sz, sg_sz, diag))
        return diag->status;
    /* GPUPackPartialReductions: a reduction dim with partial P > 1 and
     * thread T > 1 becomes an outer dim (P/T, thread 1, keeps lanes and
     * subgroups) plus an inner dim of T appended after all loops. */
    int64_t elem[LS_MAX_BODY];
    for (int i = 0; i < n; i++) {
        int64_t pr = cfg(&c->partial_reduction, i), t = cfg(&c->thread, i);
        elem[i] = t ? t : 1;
        /* GPUPackPartialReductions walks linalg ops only: an arg_compare's
         * partial tile keeps its thread tile as the element tile. */
        if (p->is_reduction[i] && pr > 1 && t > 1 && !p->argcmp.on && !p->att_view &&
            !p->serial_view) {
            int k = d->body_rank++;
            d->packed[i] = true;
            d->body_bound[i] = pr / t;
            d->body_scale[i] = t;
            elem[i] = 1;
            d->body_origin[k] = i;
            d->body_scale[k] = 1;
            d->body_bound[k] = t;
            d->body_inner[k] = true;
            elem[k] = t;
        }
    }
    ls_nested_layout *l = &d->layout;
    l->rank = d->body_rank;
    for (int k = 0; k < d->body_rank; k++) {
        bool inner = d->body_inner[k];
        int64_t b = d->body_bound[k];
        l->subgroup_tile[k] = inner ? 1 : sg_sz[k];
        l->subgroup_strides[k] = inner ? 0 : sg_st[k];
        b = ceil_div(b, l->subgroup_tile[k]);
        l->thread_tile[k] = inner ? 1 : lane_sz[k];
        l->thread_strides[k] = inner ? 0 : lane_st[k];
        b = ceil_div(b, l->thread_tile[k]);
        l->element_tile[k] = elem[k];
        b = ceil_div(b, l->element_tile[k]);
        l->batch_tile[k] = b;
        l->outer_tile[k] = 1;
    }
    /* batch x element is about the body bound (a size, up to int64) over
     * subgroups x lanes: checked before any extent is formed. */
    int64_t regs = 1;
    for (int k = 0; k < d->body_rank; k++) {
        int64_t per;
        if (!ls_mul_ok(l->batch_tile[k] * l->outer_tile[k], l->element_tile[k], &per) ||
            !ls_mul_ok(regs, per, &regs) || regs > LS_MAX_REGISTERS || per > LS_MAX_REGISTERS)
            return ls_diag_set(diag, LS_ERR_LIMIT, p->file, c->line ? c->line : p->line,
                               c->line ? c->col : p->col,
                               "each thread would hold more than %d elements per iteration "
                               "(the limit); tile the reduction with partial_reduction",
                               LS_MAX_REGISTERS);
    }
    /* extent = subgroups x lanes (<= the workgroup, 65536) x registers
     * (<= 2^20): at most 2^36 */
    for (int k = 0; k < d->body_rank; k++)
        d->coverage[k] = ls_nl_extent(l, k);
    /* Every coordinate a thread forms is a tile origin plus an offset in
     * the tile's padded extent; a dim near int64's limit could pass it. */
    for (int i = 0; i < n; i++)
        if (ls_tile_reach(d, p, i) < 0)
            return ls_diag_set(diag, LS_ERR_LIMIT, p->file, p->line, p->col,
                               "d%d of size %lld: its last tile with the layout's padding "
                               "reaches past int64",
                               i, (long long)p->size[i]);
    d->layout_lanes = ls_nl_threads(l);
    d->layout_subgroups = ls_nl_subgroups(l);
    d->lane_dup = d->subgroup_size / d->layout_lanes;
    d->subgroup_dup = d->num_subgroups / d->layout_subgroups;
    d->elems_per_load = 1;
    d->loads_per_iteration = 1;
    d->red_elems_per_iteration = 1;
    for (int k = 0; k < d->body_rank; k++) {
        d->elems_per_load *= l->element_tile[k];
        d->loads_per_iteration *= l->batch_tile[k] * l->outer_tile[k];
        if (p->is_reduction[d->body_origin[k]])
            d->red_elems_per_iteration *=
                l->batch_tile[k] * l->outer_tile[k] * l->element_tile[k];
    }
    d->elems_per_iteration = d->elems_per_load * d->loads_per_iteration;

    layout_warnings(p, d);
    return LS_OK;
}

int64_t ls_tile_reach(const ls_derived *d, const ls_problem *p, int i)
{
    bool red = p->is_reduction[i];
    int64_t count = red ? d->iterations[i] : d->wg_count[i];
    int64_t tile = red ? d->chunk[i] : d->wg_tile[i];
    /* offsets: sum of (coverage - 1) x scale over the body dims of i, each
     * term at most 2^36 x 2^20 (a packed dim's scale is a register count) */
    int64_t span = tile, off = 0, last;
    for (int k = 0; k < d->body_rank; k++)
        if (d->body_origin[k] == i)
            off += (d->coverage[k] - 1) * d->body_scale[k];
    if (off + 1 > span)
        span = off + 1;
    if (!ls_mul_ok(count - 1, tile, &last) || __builtin_add_overflow(last, span, &last))
        return -1;
    return last;
}

/* ---------------------------------------------------------------- ownership */

void ls_workgroup_coord(const ls_derived *d, int64_t wg, int64_t *coord)
{
    for (int i = d->rank - 1; i >= 0; i--) {
        coord[i] = wg % d->wg_count[i];
        wg /= d->wg_count[i];
    }
}

void ls_iteration_coord(const ls_derived *d, const ls_problem *p, int64_t it, int64_t *coord)
{
    for (int i = d->rank - 1; i >= 0; i--) {
        coord[i] = it % d->iterations[i];
        it /= d->iterations[i];
    }
    (void)p;
}

void ls_thread_element(const ls_derived *d, const ls_problem *p, int64_t tid,
                       const int64_t *wg_coord, const int64_t *it_coord, int64_t reg, int64_t *x,
                       bool *valid)
{
    const ls_nested_layout *l = &d->layout;
    ls_nl_coord c;
    ls_nl_register_coord(l, reg, &c);
    int64_t sg = tid / d->subgroup_size, lane = tid % d->subgroup_size;
    ls_nl_virtual_subgroup(l, sg, c.subgroup);
    ls_nl_virtual_thread(l, lane, c.thread);
    int64_t body[LS_MAX_BODY];
    ls_nl_compose(l, &c, body);
    bool ok = true;
    int64_t off[LS_MAX_RANK] = {0};
    for (int k = 0; k < d->body_rank; k++) {
        ok &= body[k] < d->body_bound[k];
        off[d->body_origin[k]] += body[k] * d->body_scale[k];
    }
    for (int i = 0; i < d->rank; i++) {
        x[i] = p->is_reduction[i] ? it_coord[i] * d->chunk[i] + off[i]
                                  : wg_coord[i] * d->wg_tile[i] + off[i];
        ok &= x[i] < p->size[i];
    }
    *valid = ok;
}

ls_status ls_owner_of(const ls_derived *d, const ls_problem *p, const int64_t *x,
                      ls_ownership *out, ls_diag *diag)
{
    int64_t off[LS_MAX_RANK];
    out->workgroup = out->iteration = 0;
    out->n_owners = 0;
    out->n_listed = 0;
    for (int i = 0; i < d->rank; i++) {
        if (x[i] < 0 || x[i] >= p->size[i])
            return ls_diag_set(diag, LS_ERR_INVALID, p->file, 0, 0,
                               "coordinate d%d = %lld is outside 0..%lld", i, (long long)x[i],
                               (long long)p->size[i] - 1);
        out->it_coord[i] = out->wg_coord[i] = 0;
        if (p->is_reduction[i]) {
            out->it_coord[i] = x[i] / d->chunk[i];
            off[i] = x[i] % d->chunk[i];
        } else {
            out->wg_coord[i] = x[i] / d->wg_tile[i];
            off[i] = x[i] % d->wg_tile[i];
        }
    }
    for (int i = 0; i < d->rank; i++) {
        out->workgroup = out->workgroup * d->wg_count[i] + out->wg_coord[i];
        out->iteration = out->iteration * d->iterations[i] + out->it_coord[i];
    }
    for (int k = 0; k < d->body_rank; k++) {
        int i = d->body_origin[k];
        if (k < d->rank)
            out->body[k] = d->packed[i] ? off[i] / d->body_scale[k] : off[i];
        else
            out->body[k] = off[i] % d->body_bound[k];
    }
    const ls_nested_layout *l = &d->layout;
    if (!ls_nl_decompose(l, out->body, &out->c))
        return ls_diag_set(diag, LS_ERR_INVALID, p->file, 0, 0,
                           "element is outside the derived layout (internal inconsistency)");
    out->reg = ls_nl_register_of(l, &out->c);
    int64_t lane0 = ls_nl_lane_of(l, out->c.thread);
    int64_t sg0 = ls_nl_subgroup_of(l, out->c.subgroup);
    for (int64_t sg = sg0; sg < d->num_subgroups; sg += d->layout_subgroups)
        for (int64_t lane = lane0; lane < d->subgroup_size; lane += d->layout_lanes) {
            if (out->n_listed < LS_MAX_OWNERS) {
                ls_owner *o = &out->owners[out->n_listed++];
                o->tid = sg * d->subgroup_size + lane;
                o->subgroup = sg;
                o->lane = lane;
            }
            out->n_owners++;
        }
    return LS_OK;
}

bool ls_tile_ragged_half(const ls_derived *d, const ls_problem *p, const int64_t *coord,
                         bool reduction)
{
    for (int i = 0; i < p->rank; i++) {
        if (p->is_reduction[i] != reduction)
            continue;
        if (reduction) {
            if ((d->tail[i] || d->chunk[i] > p->size[i]) && coord[i] == d->iterations[i] - 1)
                return true;
        } else if ((d->tail[i] && coord[i] == d->wg_count[i] - 1) || d->wg_tile[i] > p->size[i]) {
            return true;
        }
    }
    return false;
}

bool ls_tile_is_ragged(const ls_derived *d, const ls_problem *p, const int64_t *wg_coord,
                       const int64_t *it_coord)
{
    return ls_tile_ragged_half(d, p, wg_coord, false) || ls_tile_ragged_half(d, p, it_coord, true);
}

void ls_tile_origin(const ls_derived *d, const ls_problem *p, const int64_t *wg_coord,
                    const int64_t *it_coord, int64_t *origin)
{
    for (int i = 0; i < p->rank; i++)
        origin[i] = p->is_reduction[i] ? it_coord[i] * d->chunk[i] : wg_coord[i] * d->wg_tile[i];
}

bool ls_derive_local_reduce_all(const ls_problem *p)
{
    /* With a partial_reduction tile the loop's body is an elementwise
     * combine into a partial accumulator (PartialReductionOpInterface),
     * reduced after the loop; packed inner dims have their own local
     * reduce (ls_plan's inner_elems). */
    if (p->att_view || p->argcmp.on)
        return false;
    for (int i = 0; i < p->rank; i++)
        if (p->is_reduction[i] && cfg(&p->config.partial_reduction, i) > 0)
            return false;
    return true;
}

void ls_register_slots(const ls_derived *d, const ls_problem *p, int64_t reg, int64_t *acc,
                       int64_t *result)
{
    const ls_nested_layout *l = &d->layout;
    ls_nl_coord c;
    ls_nl_register_coord(l, reg, &c);
    int64_t a = 0, q = 0;
    const int64_t *groups[3] = {c.batch, c.outer, c.element};
    const int64_t *tiles[3] = {l->batch_tile, l->outer_tile, l->element_tile};
    for (int g = 0; g < 3; g++)
        for (int k = 0; k < l->rank; k++) {
            if (d->body_inner[k])
                continue;
            a = a * tiles[g][k] + groups[g][k];
            if (!p->is_reduction[d->body_origin[k]])
                q = q * tiles[g][k] + groups[g][k];
        }
    *acc = d->local_reduce_all ? q : a; /* one accumulator per output */
    *result = q;
}

int64_t ls_tile_offset_half(const ls_derived *d, const ls_problem *p, const int64_t *strides,
                            const int64_t *coord, bool reduction)
{
    int64_t off = 0;
    for (int i = 0; i < p->rank; i++)
        if (p->is_reduction[i] == reduction)
            off += coord[i] * (reduction ? d->chunk[i] : d->wg_tile[i]) * strides[i];
    return off;
}

int64_t ls_tile_input_base(const ls_derived *d, const ls_problem *p, const int64_t *strides,
                           const int64_t *wg_coord, const int64_t *it_coord)
{
    return ls_tile_offset_half(d, p, strides, wg_coord, false) +
           ls_tile_offset_half(d, p, strides, it_coord, true);
}

/* ------------------------------------------------------ operand projections */

void ls_operand_regs_of(const ls_derived *d, const ls_problem *p, int k, ls_operand_regs *o)
{
    const ls_nested_layout *l = &d->layout;
    memset(o, 0, sizeof *o);
    o->loads = o->width = 1;
    for (int b = 0; b < d->body_rank; b++) {
        for (int j = 0; j < p->inputs[k].map_n; j++)
            o->dim_in[b] |= p->inputs[k].map[j] == d->body_origin[b];
        if (!o->dim_in[b])
            continue;
        o->loads *= l->batch_tile[b] * l->outer_tile[b];
        o->width *= l->element_tile[b];
    }
}

int64_t ls_operand_register(const ls_derived *d, const ls_operand_regs *o, int64_t load,
                            int64_t el)
{
    const ls_nested_layout *l = &d->layout;
    ls_nl_coord c;
    memset(&c, 0, sizeof c);
    for (int b = d->body_rank - 1; b >= 0; b--) {
        if (!o->dim_in[b])
            continue;
        c.element[b] = el % l->element_tile[b];
        el /= l->element_tile[b];
        c.outer[b] = load % l->outer_tile[b];
        load /= l->outer_tile[b];
    }
    for (int b = d->body_rank - 1; b >= 0; b--) {
        if (!o->dim_in[b])
            continue;
        c.batch[b] = load % l->batch_tile[b];
        load /= l->batch_tile[b];
    }
    return ls_nl_register_of(l, &c);
}

/* The operand load holding the register at coordinates c. */
static int64_t coord_load(const ls_derived *d, const ls_operand_regs *o, const ls_nl_coord *c)
{
    const ls_nested_layout *l = &d->layout;
    int64_t load = 0;
    for (int b = 0; b < d->body_rank; b++)
        if (o->dim_in[b])
            load = load * l->batch_tile[b] + c->batch[b];
    for (int b = 0; b < d->body_rank; b++)
        if (o->dim_in[b])
            load = load * l->outer_tile[b] + c->outer[b];
    return load;
}

int64_t ls_operand_element_of(const ls_derived *d, const ls_operand_regs *o, int64_t reg)
{
    const ls_nested_layout *l = &d->layout;
    ls_nl_coord c;
    ls_nl_register_coord(l, reg, &c);
    int64_t el = 0;
    for (int b = 0; b < d->body_rank; b++)
        if (o->dim_in[b])
            el = el * l->element_tile[b] + c.element[b];
    return coord_load(d, o, &c) * o->width + el;
}

int64_t ls_operand_load_of(const ls_derived *d, const ls_operand_regs *o, int64_t reg)
{
    ls_nl_coord c;
    ls_nl_register_coord(&d->layout, reg, &c);
    return coord_load(d, o, &c);
}

