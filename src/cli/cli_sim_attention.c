/* cli_sim_attention.c: `lanescope sim` for an attention op: its layouts
 * (src/attention.c), its lowered values checked against the op's
 * definition (sim/attention_values.c), the text and JSON report. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_sim.h"
#include "lanescope/arena.h"
#include "lanescope/attention.h"

/* The machine and the IREE target an attention runs on: --target, else
 * the target in the input, else the default for its subgroup size. */
static ls_status attention_machine(ls_module *m, const ls_module_attention *ma,
                                   const char *target, ls_hw *hw, ls_diag *diag)
{
    int64_t sg = ma->has_ti && ma->ti.has_subgroup_size ? ma->ti.subgroup_size : 0;
    ls_target t;
    bool has_t;
    if (ls_cli_hw(m, target, sg ? sg : 64, hw, &t, &has_t, diag))
        return diag->status;
    if (has_t && (target || !m->has_target)) {
        m->target = t;
        m->has_target = true;
    }
    bool written = ma->has_config || ma->has_qk || ma->has_pv;
    if (!written && !m->has_target) {
        const ls_dop *op = &m->dispatches[ma->dispatch].ops[ma->op];
        return ls_diag_set(diag, LS_ERR_USAGE, "--target", 0, 0,
                           "the attention at %s:%d:%d has no config: give --target for IREE's "
                           "default",
                           m->dispatches[ma->dispatch].file, op->line, op->col);
    }
    return LS_OK;
}

static const char *results_name(const ls_attention *a, unsigned mask, char *buf, size_t size)
{
    static const char *online[3] = {"acc", "max", "sum"};
    bool is_online = strstr(a->name, "online_attention") != NULL;
    size_t u = 0;
    buf[0] = 0;
    for (int r = 0; r < (is_online ? 3 : 1); r++)
        if (mask >> r & 1)
            u += (size_t)snprintf(buf + u, u < size ? size - u : 0, "%s%s", u ? ", " : "",
                                  is_online ? online[r] : "output");
    return buf;
}

static json_object *timing_json(const ls_sim_result *r, const ls_bottleneck *bn)
{
    json_object *t = json_object_new_object();
    json_object_object_add(t, "cycles", json_object_new_int64(r->cycles));
    json_object_object_add(t, "kernel_us", json_object_new_double(r->kernel_us));
    json_object_object_add(t, "launch_us", json_object_new_double(r->launch_us));
    json_object_object_add(t, "time_us", json_object_new_double(r->time_us));
    json_object_object_add(t, "dram_bytes", json_object_new_int64(r->dram_bytes));
    json_object_object_add(t, "dram_gbps", json_object_new_double(r->dram_gbps));
    json_object_object_add(t, "occupancy", json_object_new_int64(r->occupancy));
    json_object_object_add(t, "occupancy_limit", json_object_new_string(r->occupancy_limit));
    json_object_object_add(t, "registers", json_object_new_int64(r->registers));
    json_object_object_add(t, "instructions", json_object_new_int64(r->instructions));
    json_object_object_add(t, "sfu_ops", json_object_new_int64(bn->sfu_ops));
    json_object_object_add(t, "bottleneck", ls_sim_bottleneck_json(bn));
    return t;
}

static json_object *functional_json(const ls_sim_attention_opts *o, const ls_att_check *chk,
                                    const char *res)
{
    json_object *fj = json_object_new_object();
    json_object_object_add(fj, "seed", json_object_new_int64((int64_t)o->seed));
    json_object_object_add(fj, "workgroups_run", json_object_new_int64(chk->workgroups_run));
    json_object_object_add(fj, "outputs_checked", json_object_new_int64(chk->outputs_checked));
    json_object_object_add(fj, "mismatches", json_object_new_int64(chk->mismatches));
    json_object_object_add(fj, "max_error_bound_ratio",
                           json_object_new_double(chk->max_error_bound_ratio));
    json_object_object_add(fj, "results", json_object_new_string(res));
    json_object_object_add(fj, "inits_assumed", json_object_new_boolean(chk->inits_assumed));
    return fj;
}

ls_status ls_cli_attention_view(ls_module *m, size_t i, const char *target, ls_hw *hw,
                                ls_attention **a, ls_att_view **v, ls_diag *diag)
{
    const ls_module_attention *ma = &m->attentions[i];
    *a = NULL;
    *v = NULL;
    if (attention_machine(m, ma, target, hw, diag))
        return diag->status;
    *a = ls_xcalloc(1, sizeof **a);
    if (ls_attention_build(m, ma, &m->target, *a, diag) ||
        ls_attention_view(m, ma, *a, hw, v, diag))
        return diag->status;
    return LS_OK;
}

/* The result's JSON object: the attention's shape, its timing, the
 * check's figures and (--dump-plan=json) the plan's facts. */
static json_object *result_json(const ls_sim_attention_opts *o, const ls_attention *a,
                                const ls_hw *hw, const ls_sim_result *rp, const ls_bottleneck *bnp,
                                const ls_att_check *chkp, const char *res, const ls_att_plan *facts)
{
    json_object *j = json_object_new_object();
    json_object_object_add(j, "name", json_object_new_string(a->name));
    json_object_object_add(j, "kind", json_object_new_string("attention"));
    json_object_object_add(j, "model", json_object_new_string(hw->name));
    json_object_object_add(j, "arch", json_object_new_string(hw->arch));
    json_object_object_add(j, "workgroups", json_object_new_int64(a->workgroups));
    json_object_object_add(j, "workgroup_size", json_object_new_int64(a->workgroup_size));
    json_object_object_add(j, "subgroup_size", json_object_new_int64(a->subgroup_size));
    json_object_object_add(j, "k2_iterations", json_object_new_int64(a->iterations));
    json_object_object_add(j, "k2_partial", json_object_new_boolean(a->partial));
    json_object_object_add(j, "timing", timing_json(rp, bnp));
    if (o->check)
        json_object_object_add(j, "functional", functional_json(o, chkp, res));
    if (o->dump_json)
        json_object_object_add(j, "plan", ls_cli_attention_plan_json(facts));
    return j;
}

/* The result as text: the kernel's figures, then what the attention's run
 * did (the K2 loop, gathers, a computed mask) and what the check found. */
static void print_text(FILE *f, const ls_sim_attention_opts *o, const ls_module_attention *ma,
                       const ls_attention *a, const ls_plan *pl, const ls_hw *hw,
                       const ls_sim_result *r, const ls_bottleneck *bn, const ls_att_check *chkp,
                       const char *res)
{
    kernel_share ks = {false, NULL, NULL, NULL};
    ls_sim_print_text(f, pl->problem, hw, r, bn, &ks);
    fprintf(f,
            "  attention: a K2 loop of %lld %s steps; per step each thread runs the QK "
            "chain over its K1 elements, the online softmax%s\n",
            (long long)a->iterations, a->partial ? "partial_reduction" : "reduction",
            a->partial ? " per key slot, the merge after the loop" : " reduced over K2");
    if (ma->gather[1].on || ma->gather[2].on)
        fprintf(f,
                "  paged: the %s gathered by row (iree_linalg_ext.gather fused into the K2 "
                "loop): each thread loads the index of each row it reads, then the row, "
                "where the index puts it (rows drawn distinct per index tensor, the same "
                "for every seed)\n",
                ma->gather[1].on && ma->gather[2].on ? "key and value are"
                : ma->gather[1].on                   ? "key is"
                                                     : "value is");
    if (pl->attention->mask_computed)
        fprintf(f,
                "  mask: computed by the dispatch's linalg.generic, %d instruction%s per "
                "score in registers (no load)\n",
                pl->attention->mask_alu + pl->attention->mask_sfu,
                pl->attention->mask_alu + pl->attention->mask_sfu == 1 ? "" : "s");
    if (o->check) {
        fprintf(f,
                "  functional check passed: %lld output%s (%s) of %lld workgroup%s "
                "match%s the op as IREE decomposes it (seed %lld",
                (long long)chkp->outputs_checked, chkp->outputs_checked == 1 ? "" : "s", res,
                (long long)chkp->workgroups_run, chkp->workgroups_run == 1 ? "" : "s",
                chkp->outputs_checked == 1 ? "es" : "", (long long)o->seed);
        if (chkp->max_error_bound_ratio > 0)
            fprintf(f, "; largest float error %.3g of the rounding bound",
                    chkp->max_error_bound_ratio);
        fprintf(f, ")\n");
        /* the online softmax's exp2, as sim/attention_lanes.c computes it */
        if (pl->amd)
            fprintf(f, "  math ops: math.exp2 correctly rounded (IREE's ROCm code lowers it "
                       "to v_exp, within an ulp or two of it: not reproduced)\n");
        else
            fprintf(f, "  math ops: math.exp2 bit for bit as IREE's code for this target "
                       "(exp(x * ln 2), MLIR's f32 polynomial approximation, "
                       "MathTransform.cpp)\n");
    }
    if (chkp->inits_assumed)
        fprintf(f, "  note: its inits are not linalg.fill results (tensor.empty leaves them "
                   "undefined): started as IREE's conversion starts attention (acc 0, max "
                   "the lowest finite value, sum 0)\n");
}

int ls_sim_attention(ls_module *m, size_t i, const ls_sim_attention_opts *o, FILE *f,
                     json_object *arr, ls_diag *diag)
{
    const ls_module_attention *ma = &m->attentions[i];
    ls_hw hw;
    ls_attention *a = NULL;
    ls_att_view *view = NULL;
    ls_att_check chk;
    memset(&chk, 0, sizeof chk);
    int rc = 1;
    /* everything checked before anything runs */
    if (ls_cli_attention_view(m, i, o->target, &hw, &a, &view, diag) ||
        ls_attention_values_check(m, ma, a, diag) ||
        ls_engine_check_work(ls_att_view_plan(view), &hw, o->force, diag))
        goto done;
    if (o->check && o->max_wg < 0 && !o->force &&
        ls_attention_values_work(a) > LS_FUNCTIONAL_BUDGET_ELEMENTS) {
        ls_diag_set(diag, LS_ERR_LIMIT, "--workgroups", 0, 0,
                    "checking every workgroup of %s reads about %lld elements, past the "
                    "functional budget of %lld: give --workgroups N to check the first N, or "
                    "--force",
                    a->name, (long long)ls_attention_values_work(a),
                    (long long)LS_FUNCTIONAL_BUDGET_ELEMENTS);
        goto done;
    }
    const ls_plan *pl = ls_att_view_plan(view);
    ls_att_plan facts;
    ls_att_plan_of(m, ma, view, &facts);
    if (o->dump && !o->dump_json)
        ls_att_plan_dump(&facts, f);
    char what[200];
    ls_cli_progress ps;
    snprintf(what, sizeof what, "%s: engine", a->name);
    ls_cli_progress_init(&ps, "lanescope sim", what, "workgroups", o->quiet);
    ls_engine_opts eo = {.progress = ls_cli_progress_cb, .progress_ctx = &ps, .force = o->force};
    ls_sim_result r;
    ls_status est = ls_engine_run(pl, &hw, &r, &eo, diag);
    ls_cli_progress_end(&ps);
    if (est)
        goto done;
    ls_bottleneck bn;
    ls_bottleneck_analyze(pl, &hw, &r, &bn);
    if (o->check &&
        ls_attention_values(m, ma, a, ls_plan_target_from_arch(hw.arch), o->seed, o->max_wg,
                            &chk, diag))
        goto done;
    if (o->check && chk.mismatches > 0) {
        char at[256];
        size_t u = 0;
        for (int d = 0; d < a->rank && u < sizeof at; d++)
            u += (size_t)snprintf(at + u, sizeof at - u, "%sd%d=%lld", d ? ", " : "", d,
                                  (long long)chk.bad_point[d]);
        ls_diag_set(diag, LS_ERR_INVALID, a->file, a->line, a->col,
                    "%s: functional check failed: %lld of %lld outputs differ from the op as "
                    "IREE decomposes it by more than the rounding bound; the first, %s at "
                    "(%s), is %s against %s",
                    a->name, (long long)chk.mismatches, (long long)chk.outputs_checked,
                    chk.bad_result, at, chk.bad_sim, chk.bad_ref);
        goto done;
    }
    char res[64];
    results_name(a, chk.results_checked, res, sizeof res);
    if (arr) {
        json_object_array_add(arr, result_json(o, a, &hw, &r, &bn, &chk, res, &facts));
    } else if (o->csv) {
        ls_sim_print_csv(f, pl->problem, &hw, &r);
    } else {
        print_text(f, o, ma, a, pl, &hw, &r, &bn, &chk, res);
    }
    rc = 0;
done:
    ls_att_view_free(view);
    free(a);
    return rc;
}
