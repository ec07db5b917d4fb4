/* plan_json.c: `sim --dump-plan=json` -- the lowered plan's facts as JSON,
 * in the vocabulary of IREE's IR (loop bounds, distributed vector types,
 * gpu.subgroup_reduce cluster sizes and strides, workgroup allocations,
 * barriers), the same facts `--dump-plan` prints. */
#include <json-c/json.h>

#include "cli.h"
#include "lanescope/attention.h"
#include "lanescope/body_issue.h"
#include "lanescope/functional.h"
#include "lanescope/plan.h"
#include "lanescope/value.h"

static void jset(json_object *o, const char *k, json_object *v)
{
    json_object_object_add(o, k, v);
}

/* r's steps; with `v` (the value reduced), each AMD step's instructions
 * as LLVM compiles it (ls_plan_dpp_step_alu) */
/* A fold of one result's values as LLVM (and ptxas) compile it
 * (ls_plan_fold_shape). */
static json_object *fold_json(const ls_thread_reduce_shape *s)
{
    static const char *forms[] = {"chain", "tree", "packed_tree"};
    json_object *o = json_object_new_object();
    jset(o, "values", json_object_new_int64(s->values));
    jset(o, "form", json_object_new_string(forms[s->form]));
    jset(o, "instructions", json_object_new_int64(s->instructions));
    jset(o, "packed_instructions", json_object_new_int64(s->packed));
    jset(o, "depth", json_object_new_int64(s->depth));
    jset(o, "ptxas_fused", json_object_new_int64(s->fuses3 ? s->fused : 0));
    jset(o, "root_to_join", json_object_new_boolean(s->root_open));
    return o;
}

static json_object *reduce_json(const ls_subgroup_reduce *r, const char *kind,
                                const ls_reduce_value *v)
{
    json_object *o = json_object_new_object();
    jset(o, "op", json_object_new_string("gpu.subgroup_reduce"));
    jset(o, "kind", json_object_new_string(kind));
    jset(o, "cluster_size", json_object_new_int64(r->cluster_size));
    jset(o, "cluster_stride", json_object_new_int64(r->cluster_stride));
    jset(o, "lowering", json_object_new_string(r->dpp ? "dpp" : "shuffle_xor"));
    json_object *steps = json_object_new_array();
    for (int i = 0; i < r->n_steps; i++) {
        const ls_reduce_step *s = &r->steps[i];
        json_object *st = json_object_new_object();
        if (s->kind == LS_STEP_SHUFFLE_XOR) {
            jset(st, "op", json_object_new_string("gpu.shuffle xor"));
            jset(st, "offset", json_object_new_int64(s->offset));
        } else if (s->kind == LS_STEP_DPP) {
            jset(st, "op", json_object_new_string("amdgpu.dpp"));
            jset(st, "control", json_object_new_string(ls_plan_dpp_name(s->dpp)));
        } else if (s->kind == LS_STEP_SWIZZLE) {
            jset(st, "op", json_object_new_string("amdgpu.swizzle_bitmode"));
            jset(st, "and_mask", json_object_new_int64(0));
            jset(st, "or_mask", json_object_new_int64(s->offset));
            jset(st, "xor_mask", json_object_new_int64(0));
        } else {
            jset(st, "op", json_object_new_string("rocdl.readlane"));
            jset(st, "lane", json_object_new_int64(s->lane_a));
            if (s->lane_b >= 0)
                jset(st, "lane_b", json_object_new_int64(s->lane_b));
        }
        int n = v ? ls_plan_dpp_step_alu(v->target, v->type, v->combiner, s) : -1;
        if (n >= 0)
            jset(st, "instructions", json_object_new_int(n));
        json_object_array_add(steps, st);
    }
    jset(o, "steps", steps);
    return o;
}

/* The arg_compare facts (plan.h): the lane combine's path and its ops, the
 * index side, the hazards.  The thread_reduce entry above is the merge's
 * local step (compares and selects, not a vector.multi_reduction). */
static json_object *argcmp_json(const ls_plan *plan)
{
    const ls_argcmp *a = &plan->problem->argcmp;
    char buf[48];
    json_object *o = json_object_new_object();
    jset(o, "lane_combine", json_object_new_string(plan->ballot ? "ballot" : "butterfly"));
    if (plan->ballot) {
        json_object *ops = json_object_new_array();
        static const char *names[] = {"gpu.subgroup_reduce", "arith.cmp eq", "gpu.ballot",
                                      "math.cttz", "gpu.shuffle idx"};
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            json_object_array_add(ops, json_object_new_string(names[i]));
        jset(o, "ops", ops);
        jset(o, "shuffles_idx", json_object_new_int(plan->ballot_shuffles));
        jset(o, "transform", json_object_new_boolean(a->transform >= 0));
    }
    jset(o, "explicit_index", json_object_new_boolean(a->explicit_index));
    jset(o, "index_type", json_object_new_string(ls_elem_type_name(a->index_type)));
    ls_value_format(a->has_init_index ? a->init_index : 0, a->index_type, buf, sizeof buf);
    jset(o, "init_index", json_object_new_string(buf));
    if (a->has_base || a->base_unknown)
        jset(o, "index_base", a->has_base ? json_object_new_int64(a->base) : NULL);
    jset(o, "comparator_ops", json_object_new_int(plan->cmp_ops));
    jset(o, "index_ops", json_object_new_int(plan->index_ops));
    json_object *sel = json_object_new_array();
    for (int k = 0; k < 2; k++)
        json_object_array_add(
            sel, json_object_new_int(plan->select_alu[k] > 1 ? plan->select_alu[k] : 1));
    jset(o, "select_instructions", sel);
    jset(o, "index_buffer_bytes", json_object_new_int64(plan->index_buffer_bytes));
    jset(o, "hazard_cluster_mask", json_object_new_boolean(plan->hazard_cluster));
    jset(o, "hazard_out_of_bounds_read", json_object_new_boolean(plan->hazard_oob));
    return o;
}

/* promote_operands: the buffer and the copy's derived layout, or null. */
static json_object *promote_json(const ls_plan *plan, int k)
{
    const ls_promote *pr = &plan->promote[k];
    if (!pr->on)
        return NULL;
    char buf[256];
    json_object *o = json_object_new_object();
    ls_plan_promote_type(plan, k, buf, sizeof buf);
    jset(o, "alloc", json_object_new_string(buf));
    jset(o, "bytes", json_object_new_int64(pr->bytes));
    jset(o, "padding_elements", json_object_new_int64(pr->pad));
    jset(o, "copy_reads", json_object_new_int64(pr->copy_loads));
    snprintf(buf, sizeof buf, "vector<%lldx%s>", (long long)pr->copy_width,
             ls_elem_type_name(plan->problem->inputs[k].type));
    jset(o, "copy_read_type", json_object_new_string(buf));
    json_object *th = json_object_new_array(), *el = json_object_new_array();
    for (int j = 0; j < pr->rank; j++) {
        json_object_array_add(th, json_object_new_int64(pr->thread_tile[j]));
        json_object_array_add(el, json_object_new_int64(pr->elem_tile[j]));
    }
    jset(o, "copy_thread_tile", th);
    jset(o, "copy_element_tile", el);
    /* what each access to the buffer compiles to (ls_plan_promote_accesses) */
    int64_t bytes, pieces = ls_plan_promote_pieces_most(plan, k, false, &bytes);
    jset(o, "store_instructions_per_copy_read", json_object_new_int64(pieces));
    jset(o, "store_bytes", json_object_new_int64(bytes));
    pieces = ls_plan_promote_pieces_most(plan, k, true, &bytes);
    jset(o, "load_instructions_per_compute_read", json_object_new_int64(pieces));
    jset(o, "load_bytes", json_object_new_int64(bytes));
    jset(o, "barriers", json_object_new_int(2));
    return o;
}

json_object *ls_cli_plan_json(const ls_plan *plan)
{
    ls_reduce_value rv = ls_plan_reduce_value(plan);
    const ls_problem *p = plan->problem;
    const ls_derived *d = plan->derived;
    const char *kind = ls_combiner_name(p->combiner);
    char buf[1024];
    json_object *o = json_object_new_object();
    jset(o, "name", json_object_new_string(p->name));
    jset(o, "lowering", json_object_new_string(plan->amd ? "rocdl" : "nvvm"));
    jset(o, "workgroup_size", json_object_new_int64(d->workgroup_size));
    jset(o, "subgroup_size", json_object_new_int64(d->subgroup_size));
    jset(o, "workgroups", json_object_new_int64(d->total_workgroups));
    ls_nested_layout_format(&d->layout, buf, sizeof buf);
    jset(o, "layout", json_object_new_string(buf));
    json_object *loop = json_object_new_object();
    jset(loop, "op", json_object_new_string(plan->iterations > 1 ? "scf.for" : "none"));
    jset(loop, "tiling_level",
         json_object_new_string(d->serial_reduce ? "reduction" : "partial_reduction"));
    jset(loop, "lower_bound", json_object_new_int64(0));
    jset(loop, "upper_bound", json_object_new_int64(plan->iterations));
    jset(loop, "step", json_object_new_int64(1));
    jset(loop, "reduces_inside", json_object_new_boolean(d->serial_reduce));
    jset(o, "loop", loop);
    json_object *ins = json_object_new_array();
    for (int k = 0; k < p->n_inputs; k++) {
        json_object *ij = json_object_new_object();
        jset(ij, "name", json_object_new_string(p->inputs[k].name));
        jset(ij, "element_type", json_object_new_string(ls_elem_type_name(p->inputs[k].type)));
        jset(ij, "transfer_reads", json_object_new_int64(plan->inputs[k].loads));
        jset(ij, "hoisted", json_object_new_boolean(plan->inputs[k].hoisted));
        snprintf(buf, sizeof buf, "vector<%lldx%s>", (long long)plan->inputs[k].width,
                 ls_elem_type_name(p->inputs[k].type));
        jset(ij, "read_type", json_object_new_string(buf));
        ls_plan_input_vector_type(plan, k, buf, sizeof buf);
        jset(ij, "distributed_type", json_object_new_string(buf));
        jset(ij, "in_registers", json_object_new_boolean(p->inputs[k].intermediate));
        jset(ij, "promoted", promote_json(plan, k));
        json_object_array_add(ins, ij);
    }
    jset(o, "inputs", ins);
    jset(o, "body_ops", json_object_new_int(plan->body_alu_ops));
    jset(o, "body_machine_alu_ops", json_object_new_int(plan->body_machine_alu_ops));
    jset(o, "body_sfu_ops", json_object_new_int(plan->body_sfu_ops));
    jset(o, "body_extensions_in_fma", json_object_new_int(plan->body_fma_mix_exts));
    jset(o, "body_instructions_paired", json_object_new_int(ls_plan_body_pairs_issued(plan)));
    if (!plan->argcmp) { /* its own program: plan_argcmp.c */
        ls_body_issue_totals bt;
        ls_body_issue_totals_of(plan, ls_plan_body_fma_timed(plan), &bt);
        json_object *bj = json_object_new_object();
        jset(bj, "alu", json_object_new_int64(bt.alu));
        jset(bj, "special_function", json_object_new_int64(bt.sfu));
        jset(bj, "shared", json_object_new_int64(bt.shared));
        jset(bj, "hoisted", json_object_new_int64(bt.hoisted));
        jset(bj, "folded", json_object_new_int64(bt.folded));
        jset(bj, "before_loop", json_object_new_int64(bt.before_loop));
        jset(o, "body_instructions_per_iteration", bj);
    }
    jset(o, "accumulators", json_object_new_int64(plan->acc_registers));
    jset(o, "packed_inner_elements", json_object_new_int64(plan->inner_elems));
    jset(o, "fused_multiply_add",
         json_object_new_string(ls_fma_kind_name(ls_functional_fma(plan))));
    jset(o, "combines_fuse_in_pairs", json_object_new_boolean(plan->combine_fuses3));
    jset(o, "accumulators_paired", json_object_new_boolean(ls_plan_pairs_accumulators(plan)));
    jset(o, "combine_instructions",
         json_object_new_int(plan->combine_alu > 1 ? plan->combine_alu : 1));
    /* the loop's fold of a register group where LLVM makes it a tree */
    ls_thread_reduce_shape lf;
    bool loop_tree = ls_plan_loop_fold_tree(plan, &lf);
    jset(o, "loop_fold", loop_tree ? fold_json(&lf) : NULL);
    json_object *tr = json_object_new_object();
    jset(tr, "op", json_object_new_string("vector.multi_reduction"));
    jset(tr, "kind", json_object_new_string(kind));
    jset(tr, "combines", json_object_new_int64(plan->local_reduce_ops));
    jset(tr, "results_per_thread", json_object_new_int64(plan->results_per_thread));
    if (!plan->argcmp) {
        ls_thread_reduce_shape ts = ls_plan_thread_reduce_shape(plan);
        jset(tr, "fold", fold_json(&ts));
    }
    jset(o, "thread_reduce", tr);
    json_object *sr = json_object_new_array();
    for (int i = 0; i < plan->n_subgroup_reduces; i++)
        json_object_array_add(sr, reduce_json(&plan->subgroup_reduces[i], kind, &rv));
    jset(o, "subgroup_reduces", sr);
    jset(o, "shuffle_bits", json_object_new_int(plan->shuffle_bits));
    if (plan->cross_subgroup) {
        json_object *cs = json_object_new_object();
        ls_plan_buffer_type(plan, buf, sizeof buf);
        jset(cs, "alloc", json_object_new_string(buf));
        jset(cs, "bytes", json_object_new_int64(plan->buffer_bytes));
        jset(cs, "padding_elements", json_object_new_int64(plan->buffer_pad));
        jset(cs, "barriers", json_object_new_int(plan->barriers));
        jset(cs, "read_cluster", json_object_new_int64(plan->read_cluster));
        jset(cs, "read_stride", json_object_new_int64(plan->read_stride));
        jset(cs, "reduce", reduce_json(&plan->cross_reduce, kind, &rv));
        jset(o, "cross_subgroup", cs);
    } else {
        jset(o, "cross_subgroup", NULL);
    }
    ls_value_format(ls_problem_init(p), p->acc_type, buf, sizeof buf);
    jset(o, "init", json_object_new_string(buf));
    jset(o, "stores_per_workgroup", json_object_new_int64(plan->stores_per_workgroup));
    if (plan->argcmp)
        jset(o, "arg_compare", argcmp_json(plan));
    return o;
}

/* ---- attention (attention.h's ls_att_plan; src/attention_dump.c prints
 * the same facts as text) ---- */

static json_object *att_reduce_json(const ls_att_plan *p, const ls_att_plan_reduce *r)
{
    json_object *o = json_object_new_object();
    jset(o, "value", json_object_new_string(r->what));
    jset(o, "kind", json_object_new_string(r->kind));
    jset(o, "values_per_thread", json_object_new_int64(r->values));
    jset(o, "local_ops", json_object_new_int64(r->local_ops));
    /* the max's fold over the thread's key slots, as the engine issues it */
    ls_thread_reduce_shape lf =
        ls_fold_shape_of(p->plan->target, p->k->work_type, LS_COMB_MAXIMUMF, p->k->slots);
    jset(o, "local_fold", strcmp(r->what, "max") == 0 && lf.values > 1 ? fold_json(&lf) : NULL);
    jset(o, "subgroup_reduces", json_object_new_int64(r->subgroup_reduces));
    ls_reduce_value v = {p->plan->target, p->work_type, LS_COMB_ADD, p->plan->shuffle_bits};
    const ls_reduce_value *vp = ls_combiner_from_name(r->kind, &v.combiner) ? &v : NULL;
    json_object *lanes = json_object_new_array();
    for (int j = 0; j < r->red->n; j++)
        json_object_array_add(lanes, reduce_json(&r->red->lane[j], r->kind, vp));
    jset(o, "lane_reduces", lanes);
    if (r->buffer_rank == 0) {
        jset(o, "workgroup_buffer", NULL);
        return o;
    }
    char buf[256];
    size_t u = (size_t)snprintf(buf, sizeof buf, "memref<");
    for (int j = 0; j < r->buffer_rank && u < sizeof buf; j++)
        u += (size_t)snprintf(buf + u, sizeof buf - u, "%lldx", (long long)r->buffer_shape[j]);
    if (u < sizeof buf)
        snprintf(buf + u, sizeof buf - u, "%s, #gpu.address_space<workgroup>>", p->work);
    json_object *w = json_object_new_object();
    jset(w, "alloc", json_object_new_string(buf));
    jset(w, "bytes", json_object_new_int64(r->buffer_bytes));
    jset(w, "barriers", json_object_new_int(2));
    jset(w, "partials", json_object_new_int64(r->red->parts));
    jset(w, "read_back",
         r->red->back.cluster_size > 1 ? reduce_json(&r->red->back, r->kind, vp) : NULL);
    jset(o, "workgroup_buffer", w);
    return o;
}

static json_object *att_part_json(const ls_att_plan *p, const ls_att_plan_reduce *rs, int n,
                                  int64_t exp2, int64_t reduces, int64_t barriers)
{
    json_object *o = json_object_new_object(), *arr = json_object_new_array();
    for (int i = 0; i < n; i++)
        json_object_array_add(arr, att_reduce_json(p, &rs[i]));
    jset(o, "reductions", arr);
    jset(o, "exp2", json_object_new_int64(exp2));
    jset(o, "subgroup_reduces", json_object_new_int64(reduces));
    jset(o, "barriers", json_object_new_int64(barriers));
    return o;
}

json_object *ls_cli_attention_plan_json(const ls_att_plan *p)
{
    const ls_plan *pl = p->plan;
    const ls_att_kernel *k = p->k;
    const ls_attention *a = k->a;
    const ls_derived *d = pl->derived;
    char buf[1024];
    json_object *o = json_object_new_object();
    jset(o, "name", json_object_new_string(a->name));
    jset(o, "lowering", json_object_new_string(pl->amd ? "rocdl" : "nvvm"));
    jset(o, "workgroup_size", json_object_new_int64(d->workgroup_size));
    jset(o, "subgroup_size", json_object_new_int64(d->subgroup_size));
    jset(o, "workgroups", json_object_new_int64(d->total_workgroups));
    json_object *ly = json_object_new_object();
    ls_nested_layout_format(&a->qk.layout, buf, sizeof buf);
    jset(ly, "qk", json_object_new_string(buf));
    ls_nested_layout_format(&a->pv.layout, buf, sizeof buf);
    jset(ly, "pv", json_object_new_string(buf));
    jset(o, "layouts", ly);
    jset(o, "work_type", json_object_new_string(p->work));
    json_object *v = json_object_new_object();
    const char *names[] = {"q", "k", "v", "s", "p", "max_sum", "acc"};
    const char *vecs[] = {p->q_vec, p->k_vec, p->v_vec, p->s_vec, p->p_vec, p->state_vec, p->acc_vec};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        jset(v, names[i], json_object_new_string(vecs[i]));
    jset(o, "vectors", v);
    json_object *loop = json_object_new_object();
    jset(loop, "op", json_object_new_string("scf.for"));
    jset(loop, "tiling_level", json_object_new_string(a->partial ? "partial_reduction" : "reduction"));
    jset(loop, "iterations", json_object_new_int64(p->iterations));
    json_object *fors = json_object_new_array();
    for (int i = 0; i < p->n_loops; i++) {
        json_object *l = json_object_new_object();
        jset(l, "dim", json_object_new_int(p->loop_dim[i]));
        jset(l, "lower_bound", json_object_new_int64(0));
        jset(l, "upper_bound", json_object_new_int64(p->loop_upper[i]));
        jset(l, "step", json_object_new_int64(p->loop_step[i]));
        json_object_array_add(fors, l);
    }
    jset(loop, "loops", fors);
    jset(o, "loop", loop);
    jset(o, "q_scale_ops", json_object_new_int64(p->q_scale_ops));
    json_object *ins = json_object_new_array();
    for (int i = 0; i < pl->n_inputs; i++) {
        const ls_operand *in = &pl->problem->inputs[i];
        json_object *ij = json_object_new_object();
        jset(ij, "name", json_object_new_string(in->name));
        jset(ij, "element_type", json_object_new_string(ls_elem_type_name(in->type)));
        jset(ij, "transfer_reads", json_object_new_int64(pl->inputs[i].loads));
        snprintf(buf, sizeof buf, "vector<%lldx%s>", (long long)pl->inputs[i].width,
                 ls_elem_type_name(in->type));
        jset(ij, "read_type", json_object_new_string(buf));
        if (i == k->k_in || i == k->v_in)
            snprintf(buf, sizeof buf, "%s", i == k->k_in ? p->k_vec : p->v_vec);
        else
            ls_plan_input_vector_type(pl, i, buf, sizeof buf);
        jset(ij, "distributed_type", json_object_new_string(buf));
        jset(ij, "promoted", promote_json(pl, i));
        jset(ij, "indices_from_input",
             pl->gather[i].on ? json_object_new_int(pl->gather[i].index_input) : NULL);
        json_object_array_add(ins, ij);
    }
    jset(o, "inputs", ins);
    jset(o, "scores_per_thread", json_object_new_int64(p->scores));
    jset(o, "chain_fmas", json_object_new_int64(p->chain));
    jset(o, "mask_ops_per_score", json_object_new_int64(p->mask_ops));
    jset(o, "step", att_part_json(p, p->step, p->n_step, p->exp2_step, p->subgroup_reduces_step,
                                  p->barriers_step));
    jset(o, "merge", a->partial ? att_part_json(p, p->merge, p->n_merge, p->exp2_merge,
                                                p->subgroup_reduces_merge, p->barriers_merge)
                                : NULL);
    jset(o, "sum_merged", json_object_new_boolean(k->sum_merge));
    json_object *math = json_object_new_object();
    jset(math, "exp2_alu", json_object_new_int(k->exp2_alu));
    jset(math, "exp2_sfu", json_object_new_int(k->exp2_sfu));
    jset(math, "divf_alu", json_object_new_int(k->div_alu));
    jset(math, "divf_sfu", json_object_new_int(k->div_sfu));
    jset(o, "math", math);
    json_object *be = json_object_new_object(); /* the step as the backend compiles it */
    jset(be, "key_widening", json_object_new_int(k->k_ext));
    jset(be, "value_widening", json_object_new_int(k->v_ext));
    jset(be, "p_widening", json_object_new_int(k->p_ext));
    jset(be, "fused_multiply_add", json_object_new_boolean(k->fuse_muladd));
    jset(be, "columns_paired", json_object_new_boolean(k->pair_columns));
    jset(o, "backend", be);
    jset(o, "reciprocal", json_object_new_boolean(k->epilogue));
    jset(o, "output_truncf", json_object_new_boolean(k->out_trunc));
    jset(o, "transfer_writes", json_object_new_int64(p->store_vectors));
    snprintf(buf, sizeof buf, "vector<%lldx%s>", (long long)p->store_width, p->out_elem);
    jset(o, "write_type", json_object_new_string(buf));
    return o;
}
