/* cli_explain_json.c: `lanescope explain --format json` for a reduction:
 * the same facts as the text report, as one object per reduction (the
 * schema: docs/schema/explain.schema.json).  Split from cli_explain.c. */
#include <json-c/json.h>
#include <string.h>

#include "cli_explain.h"
#include "lanescope/functional.h"
#include "lanescope/layout.h"
#include "lanescope/value.h"

/* The inputs: name, type, indexing map, promoted. */
static json_object *json_inputs(const ls_problem *p)
{
    json_object *ins = json_object_new_array();
    for (int k = 0; k < p->n_inputs; k++) {
        json_object *ij = json_object_new_object();
        jset(ij, "name", json_object_new_string(p->inputs[k].name));
        jset(ij, "type", json_object_new_string(ls_elem_type_name(p->inputs[k].type)));
        json_object *mj = json_object_new_array();
        for (int j = 0; j < p->inputs[k].map_n; j++)
            json_object_array_add(mj, json_object_new_int(p->inputs[k].map[j]));
        jset(ij, "map", mj);
        jset(ij, "promoted", json_object_new_boolean(explain_promoted(p, k)));
        json_object_array_add(ins, ij);
    }
    return ins;
}

/* The body's instructions, each with its lowering on the input's target. */
static json_object *json_body(const ls_problem *p)
{
    json_object *body = json_object_new_array();
    for (int i = 0; i < p->body.n; i++) {
        const ls_body_inst *in = &p->body.inst[i];
        json_object *bj = json_object_new_object();
        jset(bj, "op", json_object_new_string(ls_body_opcode_name((ls_body_opcode)in->op)));
        jset(bj, "type", json_object_new_string(ls_elem_type_name((ls_elem_type)in->type)));
        json_object *aj = json_object_new_array();
        const int16_t opnd[3] = {in->a, in->b, in->c};
        for (int k = 0; k < 3; k++)
            if (opnd[k] >= 0)
                json_object_array_add(aj, json_object_new_int(opnd[k]));
        jset(bj, "operands", aj);
        if (in->op == LS_BOP_INPUT || in->op == LS_BOP_INDEX)
            jset(bj, "index", json_object_new_int(in->index));
        const char *how;
        int alu, sfu;
        if (p->has_target && ls_math_lowering(&p->body, i, ls_plan_target_from_arch(p->target.arch),
                                              &how, &alu, &sfu)) {
            json_object *lj = json_object_new_object();
            jset(lj, "how", json_object_new_string(how));
            jset(lj, "alu", json_object_new_int(alu));
            jset(lj, "special_function", json_object_new_int(sfu));
            jset(lj, "sim_bit_for_bit",
                 json_object_new_boolean(
                     ls_body_inst_as_target(&p->body, i, ls_math_mode_for_arch(p->target.arch))));
            jset(bj, "lowering", lj);
        }
        json_object_array_add(body, bj);
    }
    return body;
}

/* Per loop dim: its kind, size and how the config tiles it. */
static json_object *json_dims(const ls_problem *p, const ls_derived *d)
{
    json_object *dims = json_object_new_array();
    for (int i = 0; i < p->rank; i++) {
        json_object *dj = json_object_new_object();
        bool red = p->is_reduction[i];
        jset(dj, "dim", json_object_new_int(i));
        jset(dj, "kind", json_object_new_string(red ? "reduction" : "parallel"));
        jset(dj, "size", json_object_new_int64(p->size[i]));
        if (!red) {
            jset(dj, "workgroup_tile", json_object_new_int64(d->wg_tile[i]));
            jset(dj, "workgroup_count", json_object_new_int64(d->wg_count[i]));
        } else {
            jset(dj, "chunk", json_object_new_int64(d->chunk[i]));
            jset(dj, "iterations", json_object_new_int64(d->iterations[i]));
            jset(dj, "loop_elided", json_object_new_boolean(d->iterations[i] == 1));
            jset(dj, "thread", json_object_new_int64(d->thread[i]));
            jset(dj, "packed", json_object_new_boolean(d->packed[i]));
        }
        jset(dj, "tail", json_object_new_int64(d->tail[i]));
        jset(dj, "lanes", json_object_new_int64(d->lanes[i]));
        jset(dj, "subgroups", json_object_new_int64(d->subgroups[i]));
        json_object_array_add(dims, dj);
    }
    return dims;
}

/* The nested layout's tiles and strides, its text and per-thread shape. */
static json_object *json_layout(const ls_nested_layout *l)
{
    char buf[1024];
    json_object *lj = json_object_new_object();
    jset(lj, "subgroup_tile", jlist(l->subgroup_tile, l->rank));
    jset(lj, "batch_tile", jlist(l->batch_tile, l->rank));
    jset(lj, "outer_tile", jlist(l->outer_tile, l->rank));
    jset(lj, "thread_tile", jlist(l->thread_tile, l->rank));
    jset(lj, "element_tile", jlist(l->element_tile, l->rank));
    jset(lj, "subgroup_strides", jlist(l->subgroup_strides, l->rank));
    jset(lj, "thread_strides", jlist(l->thread_strides, l->rank));
    ls_nested_layout_format(l, buf, sizeof buf);
    jset(lj, "text", json_object_new_string(buf));
    int64_t shape[LS_MAX_BODY];
    ls_nl_distributed_shape(l, shape);
    jset(lj, "per_thread_shape", jlist(shape, l->rank));
    return lj;
}

/* One thread's ids and its iteration-0 elements (--thread). */
static json_object *json_thread(const ls_problem *p, const ls_derived *d, int64_t thread)
{
    const ls_nested_layout *l = &d->layout;
    thread_info t;
    explain_thread_info(p, d, thread, &t);
    json_object *tj = json_object_new_object();
    jset(tj, "thread", json_object_new_int64(t.tid));
    jset(tj, "subgroup", json_object_new_int64(t.sg));
    jset(tj, "lane", json_object_new_int64(t.lane));
    jset(tj, "lane_basis_coords", jlist(t.lane_basis + 1, p->config.lane_basis.counts.n));
    jset(tj, "lane_dims", jlist(t.lane_dims, p->rank));
    jset(tj, "subgroup_dims", jlist(t.sg_dims, p->rank));
    jset(tj, "virtual_thread", jlist(t.vt, l->rank));
    jset(tj, "virtual_subgroup", jlist(t.vs, l->rank));
    json_object *els = json_object_new_array();
    int64_t zero[LS_MAX_RANK] = {0};
    for (int64_t reg = 0; reg < t.n_regs && reg < 4096; reg++) {
        int64_t x[LS_MAX_RANK];
        bool valid;
        ls_thread_element(d, p, thread, zero, zero, reg, x, &valid);
        json_object *ej = json_object_new_object();
        jset(ej, "register", json_object_new_int64(reg));
        jset(ej, "coords", jlist(x, p->rank));
        jset(ej, "valid", json_object_new_boolean(valid));
        json_object_array_add(els, ej);
    }
    jset(tj, "iteration0_elements", els);
    return tj;
}

json_object *explain_json_problem(const ls_problem *p, const ls_derived *d, const opts *o)
{
    json_object *r = json_object_new_object();
    char buf[1024];
    jset(r, "kind", json_object_new_string("reduction"));
    jset(r, "name", json_object_new_string(p->name));
    snprintf(buf, sizeof buf, "%.900s:%d:%d", p->file, p->line, p->col);
    jset(r, "location", json_object_new_string(buf));
    jset(r, "input_type", json_object_new_string(ls_elem_type_name(p->inputs[0].type)));
    jset(r, "reduction_type", json_object_new_string(ls_elem_type_name(p->acc_type)));
    jset(r, "extended", json_object_new_boolean(p->extended));
    ls_value_format(ls_problem_init(p), p->acc_type, buf, sizeof buf);
    jset(r, "init", json_object_new_string(buf));
    jset(r, "init_source",
         json_object_new_string(p->has_init       ? "fill"
                                : p->init_unknown ? "unknown"
                                                  : "identity"));
    jset(r, "inputs", json_inputs(p));
    jset(r, "body", json_body(p));
    jset(r, "combiner", json_object_new_string(ls_combiner_name(p->combiner)));
    ls_lowering_config_format(&p->config, buf, sizeof buf);
    jset(r, "lowering_config", json_object_new_string(buf));
    jset(r, "config_source", json_object_new_string(ls_cli_config_source(p)));
    json_object *ign = json_object_new_array();
    for (int i = 0; i < p->config.n_ignored; i++)
        json_object_array_add(ign, json_object_new_string(p->config.ignored[i]));
    jset(r, "ignored_keys", ign);
    jset(r, "dims", json_dims(p, d));
    jset(r, "subgroup_size", json_object_new_int64(d->subgroup_size));
    jset(r, "workgroup_size", json_object_new_int64(d->workgroup_size));
    jset(r, "subgroups_per_workgroup", json_object_new_int64(d->num_subgroups));
    jset(r, "sizes_assumed", json_object_new_boolean(d->sizes_assumed));
    jset(r, "total_workgroups", json_object_new_int64(d->total_workgroups));
    jset(r, "iterations", json_object_new_int64(d->total_iterations));
    jset(r, "elements_per_load", json_object_new_int64(d->elems_per_load));
    jset(r, "loads_per_iteration", json_object_new_int64(d->loads_per_iteration));
    jset(r, "elements_per_thread_per_iteration", json_object_new_int64(d->elems_per_iteration));
    jset(r, "reduction_elements_per_thread_per_iteration",
         json_object_new_int64(d->red_elems_per_iteration));
    jset(r, "loop_body", jlist(d->body_bound, d->body_rank));
    jset(r, "nested_layout", json_layout(&d->layout));
    jset(r, "lane_duplication", json_object_new_int64(d->lane_dup));
    jset(r, "subgroup_duplication", json_object_new_int64(d->subgroup_dup));
    jset(r, "idle_threads", json_object_new_int64(d->idle_lanes));
    json_object *w = json_object_new_array();
    for (int i = 0; i < d->n_warnings; i++)
        json_object_array_add(w, json_object_new_string(d->warnings[i]));
    jset(r, "warnings", w);
    if (o->has_thread)
        jset(r, "thread", json_thread(p, d, o->thread));
    return r;
}
