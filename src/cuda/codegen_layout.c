/* codegen_layout.c: the address decomposition behind the generated CUDA C.
 *
 * body[k] = tb_k (the thread's subgroup and lane part) + a per-register
 * constant; x[i] = tile origin + body contributions; offset = sum x[i] *
 * stride[i].  Everything here runs at generation time on the same layout
 * functions the simulator uses, and decides which bounds checks and which
 * vector loads the kernel needs.
 */
#include <stdio.h>
#include <string.h>

#include "codegen.h"

/* Per body dim: multiplier of the virtual subgroup id (B*O*T*E) and of the
 * virtual thread id (E) in the body coordinate. */
void cg_tile_mults(const ls_nested_layout *l, int k, int64_t *sg_mult, int64_t *th_mult)
{
    *th_mult = l->element_tile[k];
    *sg_mult = l->batch_tile[k] * l->outer_tile[k] * l->thread_tile[k] * l->element_tile[k];
}

/* Per-register constant part of each body coordinate. */
void cg_reg_part(const gen *g, int64_t reg, int64_t *rp)
{
    ls_nl_coord c;
    ls_nl_register_coord(g->l, reg, &c);
    memset(c.subgroup, 0, sizeof c.subgroup);
    memset(c.thread, 0, sizeof c.thread);
    ls_nl_compose(g->l, &c, rp);
}

/* The thread part tb_k for thread tid, per body dim. */
void cg_thread_part(const gen *g, int64_t tid, int64_t *tb)
{
    const ls_nested_layout *l = g->l;
    int64_t vs[LS_MAX_BODY], vt[LS_MAX_BODY];
    ls_nl_virtual_subgroup(l, tid / g->d->subgroup_size, vs);
    ls_nl_virtual_thread(l, tid % g->d->subgroup_size, vt);
    for (int k = 0; k < l->rank; k++) {
        int64_t sm, tm;
        cg_tile_mults(l, k, &sm, &tm);
        tb[k] = vs[k] * sm + vt[k] * tm;
    }
}

/* Loop-dim contributions of body coordinates. */
void cg_body_to_loop(const gen *g, const int64_t *body, int64_t *x)
{
    for (int i = 0; i < g->p->rank; i++)
        x[i] = 0;
    for (int k = 0; k < g->d->body_rank; k++)
        x[g->d->body_origin[k]] += body[k] * g->d->body_scale[k];
}

int64_t cg_loop_offset(const gen *g, int k, const int64_t *x)
{
    int64_t o = 0;
    for (int i = 0; i < g->p->rank; i++)
        o += x[i] * g->in_stride[k][i];
    return o;
}

void cg_scan_bounds(gen *g)
{
    const ls_derived *d = g->d;
    const ls_problem *p = g->p;
    memset(g->max_tb, 0, sizeof g->max_tb);
    memset(g->max_tx, 0, sizeof g->max_tx);
    for (int64_t tid = 0; tid < d->workgroup_size; tid++) {
        int64_t tb[LS_MAX_BODY], tx[LS_MAX_RANK];
        cg_thread_part(g, tid, tb);
        cg_body_to_loop(g, tb, tx);
        for (int k = 0; k < d->body_rank; k++)
            if (tb[k] > g->max_tb[k])
                g->max_tb[k] = tb[k];
        for (int i = 0; i < p->rank; i++)
            if (tx[i] > g->max_tx[i])
                g->max_tx[i] = tx[i];
    }
    for (int i = 0; i < p->rank; i++)
        g->max_origin[i] = p->is_reduction[i] ? (d->iterations[i] - 1) * d->chunk[i]
                                              : (d->wg_count[i] - 1) * d->wg_tile[i];
}

/* Vector loads: one body dim carries the element tile; an input takes
 * vlen-element loads when it is contiguous along that dim (stride 1, body
 * scale 1) and every other part of its address is a multiple of the vector,
 * so the load is aligned.  vlen comes from the plan's load width (input 0's
 * element size, as IREE's config derives the tile); an input of wider
 * elements takes vectors while vlen of them fit 16 bytes. */
static bool input_vector_ok(const gen *g, int k, int iv, int64_t vl, char *why, size_t size)
{
    const ls_derived *d = g->d;
    const ls_problem *p = g->p;
    int64_t eb = ls_elem_type_bits(p->inputs[k].type) / 8;
    if (cg_promoted(g, k)) {
        snprintf(why, size, "input %d is read from its workgroup buffer (promote_operands), "
                 "element by element", k);
        return false;
    }
    if (g->in_stride[k][iv] == 0) {
        snprintf(why, size, "input %d does not vary along d%d, the element tile's dim (one value "
                 "for the whole tile): scalar loads", k, iv);
        return false;
    }
    if (g->in_stride[k][iv] != 1) {
        snprintf(why, size, "the element tile runs along d%d, which is not contiguous in input "
                 "%d: scalar loads", iv, k);
        return false;
    }
    if (vl * eb > 16) {
        snprintf(why, size, "%lld elements of input %d are %lld bytes, more than one 16-byte "
                 "load: scalar loads", (long long)vl, k, (long long)(vl * eb));
        return false;
    }
    bool ok = true;
    for (int i = 0; i < p->rank && ok; i++) {
        int64_t step = p->is_reduction[i] ? d->chunk[i] : d->wg_tile[i];
        /* stride x step mod vl, from the factors' residues: a workgroup
         * tile may be far past the dim's size, up to int64's limit */
        ok = (g->in_stride[k][i] % vl) * (step % vl) % vl == 0 &&
             (i == iv || g->in_stride[k][i] % vl == 0);
    }
    for (int64_t tid = 0; tid < d->workgroup_size && ok; tid++) {
        int64_t tb[LS_MAX_BODY], tx[LS_MAX_RANK];
        cg_thread_part(g, tid, tb);
        cg_body_to_loop(g, tb, tx);
        ok = cg_loop_offset(g, k, tx) % vl == 0;
    }
    for (int64_t r = 0; r < g->regs && ok; r += vl) {
        int64_t rx[LS_MAX_RANK];
        cg_reg_loop_part(g, r, rx);
        ok = cg_loop_offset(g, k, rx) % vl == 0;
    }
    if (!ok)
        snprintf(why, size, "%lld-element vectors of input %d would not be aligned for every "
                 "thread and tile: scalar loads", (long long)vl, k);
    return ok;
}

void cg_choose_vector(gen *g, ls_cuda_launch *launch)
{
    const ls_derived *d = g->d;
    const ls_nested_layout *l = g->l;
    g->vdim = -1;
    g->vlen = 1;
    memset(g->vec_in, 0, sizeof g->vec_in);
    memset(g->vec_why, 0, sizeof g->vec_why);
    launch->vector_note[0] = 0;
    int kv = -1, n = 0;
    for (int k = 0; k < l->rank; k++)
        if (l->element_tile[k] > 1) {
            kv = k;
            n++;
        }
    if (n == 0) {
        snprintf(launch->vector_note, sizeof launch->vector_note,
                 "the plan loads one element at a time (element_tile 1)");
        return;
    }
    for (int k = 0; k < g->nin; k++)
        if (g->p->inputs[k].type == LS_ET_I4) {
            /* IREE reads vector<8xi4> as 4 bytes; the generator reads each
             * element's byte (the bytes moved are the same, the loads more) */
            snprintf(launch->vector_note, sizeof launch->vector_note,
                     "input %d is packed i4, read a byte at a time: scalar loads", k);
            return;
        }
    if (n > 1) {
        snprintf(launch->vector_note, sizeof launch->vector_note,
                 "the element tile spans %d dims: scalar loads", n);
        return;
    }
    int iv = d->body_origin[kv];
    int64_t bytes = g->plan->load_elem_bytes, e = l->element_tile[kv];
    if (d->body_scale[kv] != 1) {
        snprintf(launch->vector_note, sizeof launch->vector_note,
                 "the element tile steps d%d by %lld: scalar loads", iv,
                 (long long)d->body_scale[kv]);
        return;
    }
    int64_t vb = e * bytes > 16 ? 16 : e * bytes;
    while (vb > bytes && ((e * bytes) % vb != 0 || (vb & (vb - 1)) != 0))
        vb >>= 1;
    int64_t vl = vb / bytes;
    if (vl <= 1) {
        snprintf(launch->vector_note, sizeof launch->vector_note,
                 "%lld-byte element tile: scalar loads", (long long)(e * bytes));
        return;
    }
    int any = 0;
    char why[200] = "";
    for (int k = 0; k < g->nin; k++) {
        g->vec_in[k] = input_vector_ok(g, k, iv, vl, g->vec_why[k], sizeof g->vec_why[k]);
        any += g->vec_in[k];
        if (!g->vec_in[k] && !why[0])
            snprintf(why, sizeof why, "%s", g->vec_why[k]);
    }
    snprintf(launch->vector_note, sizeof launch->vector_note, "%s", why);
    if (!any)
        return;
    g->vdim = kv;
    g->vlen = vl;
}

/* Bounds of register reg: "tbK + c < bound" / "xI + c < size" terms that can
 * fail for some thread or tile, joined with &&; "" when none can. */
void cg_reg_condition(const gen *g, int64_t reg, char *buf, size_t size)
{
    const ls_derived *d = g->d;
    const ls_problem *p = g->p;
    int64_t rp[LS_MAX_BODY], rx[LS_MAX_RANK];
    cg_reg_part(g, reg, rp);
    cg_body_to_loop(g, rp, rx);
    size_t u = 0;
    buf[0] = 0;
    for (int k = 0; k < d->body_rank && u < size; k++)
        if (g->max_tb[k] + rp[k] >= d->body_bound[k])
            u += (size_t)snprintf(buf + u, size - u, "%stb%d + %lld < %lld", u ? " && " : "", k,
                                  (long long)rp[k], (long long)d->body_bound[k]);
    for (int i = 0; i < p->rank && u < size; i++)
        if (g->max_origin[i] + g->max_tx[i] + rx[i] >= p->size[i])
            u += (size_t)snprintf(buf + u, size - u, "%sx%d + %lld < %lld", u ? " && " : "", i,
                                  (long long)rx[i], (long long)p->size[i]);
}

void cg_reg_loop_part(const gen *g, int64_t reg, int64_t *rx)
{
    int64_t rp[LS_MAX_BODY];
    cg_reg_part(g, reg, rp);
    cg_body_to_loop(g, rp, rx);
}

void cg_reg_offset(const gen *g, int k, int64_t reg, int64_t *off)
{
    int64_t rx[LS_MAX_RANK];
    cg_reg_loop_part(g, reg, rx);
    *off = cg_loop_offset(g, k, rx);
}

const char *cg_idx(const gen *g) { return g->wide ? "long long" : "int"; }

/* Per result slot q: the linear position over the parallel body dims'
 * layout extents (the cross-subgroup buffer's row), thread part + constant. */
void cg_parallel_pos_parts(const gen *g, int64_t q, int64_t *cpos, char *tpos, size_t size)
{
    const ls_derived *d = g->d;
    const ls_nested_layout *l = g->l;
    int64_t rp[LS_MAX_BODY], mult = 1;
    cg_reg_part(g, g->slot_reg[q], rp);
    *cpos = 0;
    size_t u = (size_t)snprintf(tpos, size, "0");
    for (int k = l->rank - 1; k >= 0; k--) {
        if (d->body_inner[k] || g->p->is_reduction[d->body_origin[k]])
            continue;
        *cpos += rp[k] * mult;
        if (u < size)
            u += (size_t)snprintf(tpos + u, size - u, " + tb%d * %lld", k, (long long)mult);
        mult *= ls_nl_extent(l, k);
    }
}

/* Virtual id of this thread on body dim k: "(lane / s) % t" or "0". */
void cg_virt(const ls_nested_layout *l, int k, bool subgroup, char *buf, size_t size)
{
    int64_t tile = subgroup ? l->subgroup_tile[k] : l->thread_tile[k];
    int64_t stride = subgroup ? l->subgroup_strides[k] : l->thread_strides[k];
    if (tile > 1 && stride > 0)
        snprintf(buf, size, "(%s / %lld %% %lld)", subgroup ? "sg" : "lane", (long long)stride,
                 (long long)tile);
    else
        snprintf(buf, size, "0");
}

/* The tile origin along loop dim i (what x_i adds to tx_i). */
void cg_origin_expr(const gen *g, int i, char *buf, size_t size)
{
    const ls_derived *d = g->d;
    const ls_problem *p = g->p;
    if (!p->is_reduction[i]) {
        snprintf(buf, size, "wg%d * %lld", i, (long long)d->wg_tile[i]);
        return;
    }
    int64_t div = 1;
    for (int m = p->rank - 1; m > i; m--)
        if (p->is_reduction[m])
            div *= d->iterations[m];
    snprintf(buf, size, "(it / %lld) %% %lld * %lld", (long long)div, (long long)d->iterations[i],
             (long long)d->chunk[i]);
}
