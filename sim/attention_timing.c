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

struct ls_att_view {
    ls_problem p;
    ls_derived d;
    ls_plan plan;
    ls_att_kernel k;
};

const ls_plan *ls_att_view_plan(const ls_att_view *v)
{
    return &v->plan;
}

void ls_att_view_free(ls_att_view *v)
{
    free(v);
}

static ls_status refuse(const ls_attention *a, ls_diag *diag, const char *why)
{
    return ls_diag_set(diag, LS_ERR_INVALID, a->file, a->line, a->col,
                       "%s: lanescope cannot time it: %s", a->name, why);
}

static ls_status refuse_dim(const ls_attention *a, ls_diag *diag, const char *why, int d)
{
    return ls_diag_set(diag, LS_ERR_INVALID, a->file, a->line, a->col,
                       "%s: lanescope cannot time it: %s d%d", a->name, why, d);
}

/* The loop of matmul mm that is op dim d, -1 when it has none. */
static int loop_of(const ls_att_matmul *mm, int d)
{
    for (int i = 0; i < mm->rank; i++)
        if (mm->dim[i] == d)
            return i;
    return -1;
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
    int i = loop_of(mm, d);
    if (i < 0)
        return true;
    const ls_nested_layout *l = &mm->layout;
    return u->subgroup_tile[d] == l->subgroup_tile[i] && u->batch_tile[d] == l->batch_tile[i] &&
           u->outer_tile[d] == l->outer_tile[i] && u->thread_tile[d] == l->thread_tile[i] &&
           u->element_tile[d] == l->element_tile[i] &&
           u->subgroup_strides[d] == l->subgroup_strides[i] &&
           u->thread_strides[d] == l->thread_strides[i];
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
    if (a->has_mask)
        add_input(p, &o->operand[4], "mask");
    const ls_dop_operand *res = &o->operand[o->n_inputs];
    p->out_map_n = res->map_n;
    for (int j = 0; j < res->map_n; j++)
        p->out_map[j] = res->map[j];
    p->acc_type = type_of(res);
    p->combiner = LS_COMB_ADD;
    /* the config of the loop nest: each dim as the matmul that has it lays it out */
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
        const ls_att_matmul *mm = loop_of(&a->qk, d) >= 0 ? &a->qk : &a->pv;
        const ls_lowering_config *mc = mm == &a->qk ? qc : pc;
        int i = loop_of(mm, d);
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
    ls_status st = ls_derive(p, &v->d, diag);
    for (int d = 0; st == LS_OK && d < a->rank; d++)
        if (!same_layout(&v->d.layout, d, &a->qk) || !same_layout(&v->d.layout, d, &a->pv))
            st = refuse_dim(a, diag,
                        "its QK and PV layouts disagree on a dim both matmuls have (IREE "
                        "converts between them through workgroup memory, which lanescope does "
                        "not time):",
                        d);
    ls_plan *pl = &v->plan;
    ls_plan_target t = ls_plan_target_from_arch(hw->arch);
    if (st == LS_OK) {
        pl->problem = p;
        pl->derived = &v->d;
        pl->attention = &v->k;
        pl->amd = t.amd;
        pl->gfx_major = t.gfx_major;
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
    if (st != LS_OK) {
        free(v);
        return st;
    }
    /* what each thread computes (sim/engine_attention.c) */
    ls_att_kernel *k = &v->k;
    k->a = a;
    k->k_in = 0;
    k->v_in = 1;
    k->mask_in = a->has_mask ? 2 : -1;
    bool online = o->n_inits == 3;
    ls_elem_type et = online ? p->acc_type : LS_ET_F32;
    k->epilogue = !online;
    k->out_trunc = ls_elem_type_bits(p->acc_type) < ls_elem_type_bits(et);
    k->trunc_p = type_of(&o->operand[2]) != et;
    /* the sum's merge: the epilogue reads it; an online_attention's is
     * erased unless its sum is stored (docs/attention-lowering.md §2.2) */
    k->sum_merge = !online || ls_att_result_stored(dsp, o, 2);
    math_cost(LS_BOP_EXP2, t, &k->exp2_alu, &k->exp2_sfu);
    math_cost(LS_BOP_DIVF, t, &k->div_alu, &k->div_sfu);
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
    int64_t rows = k->rows = ls_att_local_count(&a->qk.layout, k->rows_l, k->n_rows);
    int64_t slots = k->slots = ls_att_local_count(&a->qk.layout, k->k2_l, k->n_k2);
    int64_t k1loc = k->k1loc = ls_att_local_count(&a->qk.layout, k->k1_l, k->n_k1);
    int64_t nloc = k->nloc = ls_att_local_count(&a->pv.layout, k->n_l, k->n_n);
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
    *out = v;
    return LS_OK;
}
