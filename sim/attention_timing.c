/* attention_timing.c: an attention's kernel as the engine sees it -- one
 * loop nest over the op's dims whose inputs are the key, the value and the
 * mask, with a nested layout that is both matmuls' layouts at once.
 *
 * IREE lays the QK generic out over the op's loops less N and the PV
 * generic over them less K1 (LLVMGPUConfigureTensorLayouts), from bases
 * with the same counts (setAttentionReductionConfig's projectBasis keeps
 * every count and drops the other matmul's dim).  Mapping each dim as the
 * matmul that has it maps it gives one layout over all the loops; where
 * both have a dim (B, M, K2) their layouts must agree, which is what lets
 * IREE hand S to the PV without a conversion (docs/attention-lowering.md
 * §4.1).  The key and value are then read exactly as the two matmuls read
 * them: an operand takes the layout projected through its map, and a
 * thread whose coordinate on a dim the operand lacks differs only there
 * (a replica) reads the same elements.  The loop is the K2 loop, its tile
 * the partial_reduction or reduction tile; K1 is whole in every step.
 *
 * The program each subgroup runs is sim/engine_attention.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanescope/arena.h"
#include "lanescope/attention.h"
#include "lanescope/body.h"
#include "lanescope/value.h"

struct ls_att_view {
    ls_problem p;
    ls_derived d;
    ls_plan plan;
    ls_att_kernel k;
    int64_t *row_of[LS_MAX_INPUTS]; /* a gathered input's source rows */
};

const ls_plan *ls_att_view_plan(const ls_att_view *v)
{
    return &v->plan;
}

void ls_att_view_free(ls_att_view *v)
{
    if (v == NULL)
        return;
    for (int k = 0; k < LS_MAX_INPUTS; k++)
        free(v->row_of[k]);
    free(v);
}

static ls_status refuse(const ls_attention *a, ls_diag *diag, const char *why)
{
    return ls_diag_set(diag, LS_ERR_INVALID, a->file, a->line, a->col,
                       "%s: lanescope cannot time it: %s", a->name, why);
}

static bool lists_equal(const ls_i64_list *x, const ls_i64_list *y)
{
    if (x->n != y->n)
        return false;
    for (int i = 0; i < x->n; i++)
        if (x->v[i] != y->v[i])
            return false;
    return true;
}

/* The view's layout on op dim d against matmul mm's on the same dim. */
static bool same_layout(const ls_nested_layout *u, int d, const ls_att_matmul *mm)
{
    int i = ls_att_loop_of(mm, d);
    if (i < 0)
        return true;
    const ls_nested_layout *l = &mm->layout;
    return u->subgroup_tile[d] == l->subgroup_tile[i] && u->batch_tile[d] == l->batch_tile[i] &&
           u->outer_tile[d] == l->outer_tile[i] && u->thread_tile[d] == l->thread_tile[i] &&
           u->element_tile[d] == l->element_tile[i] &&
           u->subgroup_strides[d] == l->subgroup_strides[i] &&
           u->thread_strides[d] == l->thread_strides[i];
}

/* Matmul mm's layout of op dim d, as subgroups x batches x lanes x
 * elements (strides when not 1). */
static void describe_dim(char *buf, size_t size, const ls_att_matmul *mm, int d)
{
    int i = ls_att_loop_of(mm, d);
    const ls_nested_layout *l = &mm->layout;
    snprintf(buf, size, "%lld subgroup%s x %lld batch%s x %lld lane%s x %lld element%s%s",
             (long long)l->subgroup_tile[i], l->subgroup_tile[i] == 1 ? "" : "s",
             (long long)l->batch_tile[i], l->batch_tile[i] == 1 ? "" : "es",
             (long long)l->thread_tile[i], l->thread_tile[i] == 1 ? "" : "s",
             (long long)l->element_tile[i], l->element_tile[i] == 1 ? "" : "s",
             l->thread_tile[i] > 1 && l->thread_strides[i] != 1 ? " (lane stride not 1)" : "");
}

/* The two matmuls lay out op dim d (one both have: B, M or K2) apart.
 * IREE's GPUVectorAlloc copies the value between them through a workgroup
 * buffer every K2 step (docs/attention-lowering.md §4.4), which the
 * engine's loop nest, one layout a dim, does not time. */
static ls_status refuse_layouts(const ls_attention *a, int d, ls_diag *diag)
{
    char qk[160], pv[160];
    describe_dim(qk, sizeof qk, &a->qk, d);
    describe_dim(pv, sizeof pv, &a->pv, d);
    return ls_diag_set(diag, LS_ERR_INVALID, a->file, a->line, a->col,
                       "%s: lanescope cannot time it: qk_attrs and pv_attrs lay out d%d apart "
                       "(QK: %s; PV: %s); IREE copies P (and a row statistic laid out apart) "
                       "through a workgroup buffer every K2 step (GPUVectorAlloc: a barrier, a "
                       "write in QK's layout, a barrier, a read in PV's), which lanescope does "
                       "not model: give both the same layout of d%d",
                       a->name, d, qk, pv, d);
}

static bool promotes(const ls_lowering_config *c, int64_t operand)
{
    for (int i = 0; c->promote_operands.present && i < c->promote_operands.n; i++)
        if (c->promote_operands.v[i] == operand)
            return true;
    return false;
}

static ls_elem_type type_of(const ls_dop_operand *o)
{
    return ls_elem_type_from_name(o->elem, strlen(o->elem));
}

/* Whether the K2 loop tiles op dim d (a K2 dim with a tile short of it). */
static bool tiled(const ls_attention *a, int d)
{
    return ls_att_dim_in(a->dims.k2, a->dims.n_k2, d) && a->k2_tile[d] > 0 &&
           a->k2_tile[d] < a->size[d];
}

/* A computed mask's instructions per element: its body's as target t
 * emits them, and per linalg.index of a dim the K2 loop tiles the add of
 * the loop's offset (tiling offsets the index by the induction variable);
 * the thread's own coordinates are made once (DistributeStep). */
static void mask_cost(const ls_module_elementwise *e, const ls_dop *o, const ls_attention *a,
                      ls_plan_target t, int *alu, int *sfu)
{
    ls_body_machine_ops(&e->body, t, alu, sfu);
    int n = 0;
    for (int i = 0; i < e->body.n; i++) {
        if (e->body.inst[i].op != LS_BOP_INDEX)
            continue;
        for (int j = 0; j < e->rank; j++)
            if (e->out_map[j] == e->body.inst[i].index && tiled(a, o->operand[4].map[j]))
                n++;
    }
    *alu += n;
}

/* One f32 op of the body interpreter's kind as target t emits it. */
static void math_cost(ls_body_opcode op, ls_plan_target t, int *alu, int *sfu)
{
    ls_body b;
    memset(&b, 0, sizeof b);
    b.n = 1;
    b.inst[0].op = op;
    b.inst[0].type = LS_ET_F32;
    ls_body_machine_ops(&b, t, alu, sfu);
}

static void add_input(ls_problem *p, const ls_dop_operand *o, const char *role)
{
    ls_operand *in = &p->inputs[p->n_inputs++];
    in->type = type_of(o);
    in->map_n = o->map_n;
    for (int j = 0; j < o->map_n; j++)
        in->map[j] = o->map[j];
    snprintf(in->name, sizeof in->name, "%s %s", role, o->value);
}

/* The index tensors of a gathered key and value, as inputs of their own
 * (after the key, value and a loaded mask) over the loops of the gather's
 * batch dims: each thread loads the indices of the rows it reads
 * (DistributeTransferGather: the index vector in the gather's layout
 * projected on its batch dims), one input per index tensor.  index_in[k]:
 * operand k's.  False, with the reason, where a gather cannot be read or
 * the tensors do not fit. */
static bool gather_inputs(const ls_module_attention *ma, const ls_attention *a, const ls_dop *o,
                          ls_problem *p, int *index_in, char *why, size_t size)
{
    for (int k = 1; k < 3; k++) {
        const ls_module_gather *g = &ma->gather[k];
        if (!g->on)
            continue;
        if (k == 2 && ma->gather[1].on && strcmp(ma->gather[1].indices, g->indices) == 0) {
            index_in[k] = index_in[1];
            continue;
        }
        const ls_dop_operand *op = &o->operand[k];
        const char *bad = ls_att_gather_problem(a, op, g);
        if (bad) {
            snprintf(why, size, "its %s (the gather at line %d): %s", k == 1 ? "key" : "value",
                     g->line, bad);
            return false;
        }
        if (p->n_inputs == LS_MAX_INPUTS) {
            snprintf(why, size, "its key, value, mask and gather indices are more than %d "
                                "tensors, the engine's limit",
                     LS_MAX_INPUTS);
            return false;
        }
        ls_operand *in = &p->inputs[p->n_inputs];
        index_in[k] = p->n_inputs++;
        /* index is 64-bit on both back ends (ConvertToROCDL / ConvertToNVVM) */
        in->type = g->index_elem == LS_ET_I32 ? LS_ET_I32 : LS_ET_I64;
        in->map_n = op->map_n - (g->source_rank - g->depth);
        for (int j = 0; j < in->map_n; j++)
            in->map[j] = op->map[j];
        bool both = k == 1 && ma->gather[2].on && strcmp(ma->gather[2].indices, g->indices) == 0;
        snprintf(in->name, sizeof in->name, "%s indices %.40s",
                 both ? "K+V" : k == 1 ? "key" : "value", g->indices);
    }
    return true;
}

/* A gathered input's rows: row b of the dense operand (its batch dims,
 * row-major) lies at source row row_of[b], the row the values run reads
 * there (ls_att_gather_source). */
static void gather_rows(ls_att_view *v, const ls_module_attention *ma, const ls_attention *a,
                        const ls_dop *o, const int *index_in)
{
    ls_plan *pl = &v->plan;
    for (int k = 0; k < pl->n_inputs; k++)
        pl->gather[k].source_of = k;
    for (int k = 1; k < 3; k++) {
        const ls_module_gather *g = &ma->gather[k];
        if (!g->on)
            continue;
        int in = k - 1; /* the view's key and value are inputs 0 and 1 */
        const ls_dop_operand *op = &o->operand[k];
        int batch = op->map_n - (g->source_rank - g->depth);
        int64_t rows = 1, row_elems = 1;
        for (int j = 0; j < op->map_n; j++)
            *(j < batch ? &rows : &row_elems) *= a->size[op->map[j]];
        uint64_t mix = ls_att_gather_rowmix(ma, k);
        v->row_of[in] = ls_xcalloc((size_t)rows, sizeof *v->row_of[in]);
        for (int64_t b = 0; b < rows; b++)
            v->row_of[in][b] = ls_input_row(mix, b, g->source_shape[0]);
        pl->gather[in].on = true;
        pl->gather[in].rows = rows;
        pl->gather[in].row_bytes = row_elems * pl->inputs[in].elem_bits / 8;
        pl->gather[in].source_bytes = g->source_shape[0] * pl->gather[in].row_bytes;
        pl->gather[in].row_of = v->row_of[in];
        pl->gather[in].source_of = ls_att_gather_source_of(ma, k) - 1;
        pl->gather[in].index_input = index_in[k];
    }
}

/* The widenings of kernel k's matmul operands to the work type et on
 * target t: one instruction an element (llc-22: v_cvt_f32_f16,
 * cvt.f32.f16, a shift for bf16: tools/amd-dpp-counts.py --pairs), none
 * where v_fma_mix_f32 reads an f16 operand of an f32 FMA itself
 * (ls_plan_target_fma_mix; not on a packed-f32 target whose FMA covers
 * several accumulators, where llc-22 widens with v_cvt_f32_f16 and pairs
 * the FMAs in v_pk_fma_f32).  The QK FMAs' accumulators are the thread's
 * S elements, the PV updates' its slots' N elements; P's widening is once
 * per P element, for all N. */
static void widenings(ls_att_kernel *k, const ls_dop *o, ls_elem_type et, ls_plan_target t)
{
    ls_elem_type kt = type_of(&o->operand[1]), vt = type_of(&o->operand[2]);
    bool fl = ls_elem_type_is_float(et);
    int bits = ls_elem_type_bits(et);
    bool mix = fl && et == LS_ET_F32 && ls_plan_target_fma_mix(t);
    bool packed = ls_plan_target_packed_f32(t);
    bool k_mix = mix && kt == LS_ET_F16 && (!packed || k->rows * k->slots <= 1);
    /* the PV update's FMA: AMD fuses rescale + P x V (fuse_muladd) */
    bool v_mix = mix && k->fuse_muladd && (!packed || k->slots * k->nloc <= 1);
    k->k_ext = fl && ls_elem_type_bits(kt) < bits && !k_mix;
    k->v_ext = fl && ls_elem_type_bits(vt) < bits && !(v_mix && vt == LS_ET_F16);
    k->p_ext = k->trunc_p && fl && !(v_mix && vt == LS_ET_F16);
}

/* What each thread of view v computes (sim/engine_attention.c): the
 * inputs, the mask, the math's costs on target t, its rows, key slots,
 * K1 and N elements, the reductions, registers and stores. */
static void describe_kernel(ls_att_view *v, const ls_attention *a, const ls_dispatch *dsp,
                            const ls_dop *o, const ls_module_elementwise *mask_op, ls_plan_target t)
{
    ls_problem *p = &v->p;
    ls_plan *pl = &v->plan;
    ls_att_kernel *k = &v->k;
    k->a = a;
    k->k_in = 0;
    k->v_in = 1;
    k->mask_in = a->has_mask && mask_op == NULL ? 2 : -1;
    k->mask_computed = mask_op != NULL;
    if (mask_op)
        mask_cost(mask_op, o, a, t, &k->mask_alu, &k->mask_sfu);
    bool online = o->n_inits == 3;
    ls_elem_type et = online ? p->acc_type : LS_ET_F32;
    k->epilogue = !online;
    k->out_trunc = ls_elem_type_bits(p->acc_type) < ls_elem_type_bits(et);
    k->work_type = et;
    k->trunc_p = type_of(&o->operand[2]) != et;
    /* the sum's merge: the epilogue reads it; an online_attention's is
     * erased unless its sum is stored (docs/attention-lowering.md §2.2) */
    k->sum_merge = !online || ls_att_result_stored(dsp, o, 2);
    math_cost(LS_BOP_EXP2, t, &k->exp2_alu, &k->exp2_sfu);
    math_cost(LS_BOP_DIVF, t, &k->div_alu, &k->div_sfu);
    k->fuse_muladd = t.amd && ls_elem_type_is_float(et);
    /* per thread: rows (B, M), key slots (K2), K1 and N elements */
    for (int i = 0; i < a->qk.rank; i++) {
        int d = a->qk.dim[i];
        if (ls_att_dim_in(a->dims.k1, a->dims.n_k1, d))
            k->k1_l[k->n_k1++] = i;
        else if (ls_att_dim_in(a->dims.k2, a->dims.n_k2, d))
            k->k2_l[k->n_k2++] = i;
        else
            k->rows_l[k->n_rows++] = i;
    }
    for (int i = 0; i < a->pv.rank; i++) {
        int d = a->pv.dim[i];
        if (ls_att_dim_in(a->dims.n, a->dims.n_n, d))
            k->n_l[k->n_n++] = i;
        else if (ls_att_dim_in(a->dims.k2, a->dims.n_k2, d))
            k->pv_k2_l[k->n_pv_k2++] = i;
    }
    ls_att_reduction_of(&a->qk, k->k1_l, k->n_k1, t, &k->k1_red);
    ls_att_reduction_of(&a->qk, k->k2_l, k->n_k2, t, &k->qk2_red);
    ls_att_reduction_of(&a->pv, k->pv_k2_l, k->n_pv_k2, t, &k->pv2_red);
    int64_t rows = k->rows = ls_att_local_count(&a->qk.layout, k->rows_l, k->n_rows);
    int64_t slots = k->slots = ls_att_local_count(&a->qk.layout, k->k2_l, k->n_k2);
    int64_t k1loc = k->k1loc = ls_att_local_count(&a->qk.layout, k->k1_l, k->n_k1);
    int64_t nloc = k->nloc = ls_att_local_count(&a->pv.layout, k->n_l, k->n_n);
    widenings(k, o, et, t);
    /* packed math over the columns: on NVIDIA only within one 1-D
     * vector, the N element tile (no SLP vectorizer: CUDATarget.cpp) */
    k->pair_run = 0;
    for (int j = 0; !t.amd && j < k->n_n; j++)
        k->pair_run = a->pv.layout.element_tile[k->n_l[j]];
    k->pair_columns = ls_elem_type_is_float(et) && nloc > 1 && k->pair_run != 1 &&
                      ls_plan_combine_pairs(t, et, LS_COMB_ADD) &&
                      ls_plan_combine_pairs(t, et, LS_COMB_MUL);
    int64_t n_elem = 1;
    for (int j = 0; j < k->n_n; j++)
        n_elem *= a->pv.layout.element_tile[k->n_l[j]];
    k->store_vectors = rows * nloc / n_elem;
    int64_t qbits = ls_elem_type_bits(type_of(&o->operand[0]));
    int64_t state = a->partial ? rows * slots * (2 + nloc) : rows * (2 + nloc);
    k->registers = (rows * k1loc * qbits + 31) / 32 + 2 * rows * slots + state;
    /* the stores: each subgroup posts its share of the workgroup's outputs */
    pl->results_per_thread = k->store_vectors;
    pl->stores_per_workgroup = 1;
    for (int d = 0; d < a->rank; d++)
        if (!p->is_reduction[d])
            pl->stores_per_workgroup *= v->d.wg_tile[d] < p->size[d] ? v->d.wg_tile[d] : p->size[d];
}

/* The loop nest's config and translation into p: each op dim laid out
 * as the matmul that has it lays it out (QK's for B, M, K1, K2; PV's for
 * N), the K2 level, the promoted key or value. */
static void view_config(ls_problem *p, const ls_attention *a)
{
    const ls_lowering_config *qc = &a->qk.config, *pc = &a->pv.config;
    ls_lowering_config *c = &p->config;
    p->has_config = true;
    c->workgroup.present = c->thread.present = true;
    c->lane_basis.present = c->subgroup_basis.present = true;
    c->lane_basis.counts = qc->lane_basis.counts;
    c->subgroup_basis.counts = qc->subgroup_basis.counts;
    c->workgroup.n = c->thread.n = a->rank;
    c->lane_basis.mapping.n = c->subgroup_basis.mapping.n = a->rank;
    ls_i64_list *k2_level = a->partial ? &c->partial_reduction : &c->reduction;
    k2_level->present = true;
    k2_level->n = a->rank;
    for (int d = 0; d < a->rank; d++) {
        bool k1 = ls_att_dim_in(a->dims.k1, a->dims.n_k1, d);
        bool k2 = ls_att_dim_in(a->dims.k2, a->dims.n_k2, d);
        p->size[d] = a->size[d];
        p->is_reduction[d] = k1 || k2;
        c->workgroup.v[d] = k1 || k2 ? 0 : a->workgroup[d];
        k2_level->v[d] = k2 ? a->k2_tile[d] : 0;
        const ls_att_matmul *mm = ls_att_loop_of(&a->qk, d) >= 0 ? &a->qk : &a->pv;
        const ls_lowering_config *mc = mm == &a->qk ? qc : pc;
        int i = ls_att_loop_of(mm, d);
        c->thread.v[d] = mc->thread.v[i];
        c->lane_basis.mapping.v[d] = mc->lane_basis.mapping.v[i];
        c->subgroup_basis.mapping.v[d] = mc->subgroup_basis.mapping.v[i];
    }
    bool pk = promotes(qc, 1), pvp = promotes(pc, 1);
    if (pk || pvp) {
        c->promote_operands.present = true;
        if (pk)
            c->promote_operands.v[c->promote_operands.n++] = 0;
        if (pvp)
            c->promote_operands.v[c->promote_operands.n++] = 1;
    }
    p->has_ti = true;
    p->ti.has_workgroup_size = p->ti.has_subgroup_size = true;
    p->ti.wg_rank = 1;
    p->ti.workgroup_size[0] = a->workgroup_size;
    p->ti.workgroup_size[1] = p->ti.workgroup_size[2] = 1;
    p->ti.subgroup_size = a->subgroup_size;
    snprintf(p->ti.pipeline, sizeof p->ti.pipeline, "VectorDistribute");
}

ls_status ls_attention_view(const ls_module *m, const ls_module_attention *ma,
                            const ls_attention *a, const ls_hw *hw, ls_att_view **out,
                            ls_diag *diag)
{
    const ls_dispatch *dsp = &m->dispatches[ma->dispatch];
    const ls_dop *o = &dsp->ops[ma->op];
    const ls_lowering_config *qc = &a->qk.config, *pc = &a->pv.config;
    *out = NULL;
    if (!lists_equal(&qc->lane_basis.counts, &pc->lane_basis.counts) ||
        !lists_equal(&qc->subgroup_basis.counts, &pc->subgroup_basis.counts))
        return refuse(a, diag,
                      "its qk_attrs and pv_attrs bases have different counts, so no one layout "
                      "holds both matmuls");
    if (promotes(qc, 0) || promotes(pc, 0))
        return refuse(a, diag,
                      "a matmul promotes its first operand (the scaled query or P) through "
                      "workgroup memory, which lanescope does not model");
    ls_att_view *v = ls_xcalloc(1, sizeof *v);
    ls_problem *p = &v->p;
    snprintf(p->name, sizeof p->name, "%s", a->name);
    snprintf(p->file, sizeof p->file, "%s", a->file);
    p->line = a->line;
    p->col = a->col;
    p->rank = a->rank;
    p->att_view = true;
    p->dispatch = ma->dispatch;
    p->dispatch_op = ma->op;
    add_input(p, &o->operand[1], "key");
    add_input(p, &o->operand[2], "value");
    const ls_module_elementwise *mask_op = a->has_mask ? ls_att_mask_op(m, ma) : NULL;
    if (mask_op && (!mask_op->compiled || mask_op->n_inputs > 0)) {
        free(v);
        return refuse(a, diag,
                      "its mask is computed from tensors or by a body lanescope does not read; "
                      "lanescope times a mask computed from linalg.index and constants, or one "
                      "loaded from a binding");
    }
    if (a->has_mask && mask_op == NULL)
        add_input(p, &o->operand[4], "mask");
    int index_in[3] = {-1, -1, -1};
    char gwhy[400];
    if (!gather_inputs(ma, a, o, p, index_in, gwhy, sizeof gwhy)) {
        free(v);
        return refuse(a, diag, gwhy);
    }
    const ls_dop_operand *res = &o->operand[o->n_inputs];
    p->out_map_n = res->map_n;
    for (int j = 0; j < res->map_n; j++)
        p->out_map[j] = res->map[j];
    p->acc_type = type_of(res);
    p->combiner = LS_COMB_ADD;
    view_config(p, a);
    ls_status st = ls_derive(p, &v->d, diag);
    for (int d = 0; st == LS_OK && d < a->rank; d++)
        if (!same_layout(&v->d.layout, d, &a->qk) || !same_layout(&v->d.layout, d, &a->pv))
            st = refuse_layouts(a, d, diag);
    ls_plan *pl = &v->plan;
    ls_plan_target t = ls_plan_target_from_arch(hw->arch);
    t.wave = (int)a->subgroup_size;
    if (st == LS_OK) {
        pl->problem = p;
        pl->derived = &v->d;
        pl->attention = &v->k;
        pl->amd = t.amd;
        pl->gfx_major = t.gfx_major;
        pl->bf16_cvt = t.bf16_cvt;
        pl->target = t;
        pl->combine_alu = 1; /* the attention's engine times its own combines */
        pl->iterations = v->d.total_iterations;
        pl->n_inputs = p->n_inputs;
        for (int k = 0; k < p->n_inputs; k++) {
            ls_operand_regs r;
            ls_operand_regs_of(&v->d, p, k, &r);
            pl->inputs[k].loads = r.loads;
            pl->inputs[k].width = r.width;
            pl->inputs[k].elem_bits = ls_elem_type_bits(p->inputs[k].type);
        }
        pl->loads_per_iteration = pl->inputs[0].loads;
        pl->load_width = pl->inputs[0].width;
        pl->load_elem_bytes = pl->inputs[0].elem_bits / 8;
        pl->acc_elem_bytes = (ls_elem_type_bits(p->acc_type) + 7) / 8;
        /* a sub-32-bit value is widened to 32 bits for a shuffle */
        int ebits = ls_elem_type_bits(o->n_inits == 3 ? p->acc_type : LS_ET_F32);
        pl->shuffle_bits = ebits > 32 ? ebits : 32;
        st = ls_plan_promote(p, &v->d, pl, diag);
    }
    if (st == LS_OK) {
        gather_rows(v, ma, a, o, index_in);
        for (int k = 0; k < 2; k++)
            if (pl->gather[k].on && pl->promote[k].on)
                st = refuse(a, diag,
                            "a matmul promotes a gathered key or value through workgroup "
                            "memory, which lanescope does not model");
    }
    if (st != LS_OK) {
        ls_att_view_free(v);
        return st;
    }
    describe_kernel(v, a, dsp, o, mask_op, t);
    *out = v;
    return LS_OK;
}
