/* functional_work.c: what a functional run needs decided before it runs
 * (see functional.h): how the plan's kernel fuses products into adds, the
 * check's work against its limit and budget, and a dispatch's
 * intermediates -- the reference values of the reductions another one
 * reads. */
#include <stdlib.h>

#include "functional_internal.h"

ls_fma_kind ls_functional_fma(const ls_plan *plan)
{
    const ls_problem *p = plan->problem;
    if (p->argcmp.on || p->combiner != LS_COMB_ADD || !ls_body_ends_in_mulf(&p->body, p->acc_type))
        return LS_FMA_NONE;
    /* ContractToChainFMA (LLVMGPUVectorLowering.cpp) takes an unmasked
     * float contraction of kind add, which ReductionToContract makes of a
     * multi_reduction of a mulf */
    if (plan->derived->local_reduce_all)
        return LS_FMA_CONTRACT;
    if (plan->inner_elems > 1)
        return LS_FMA_CHAIN;
    return p->body.math == LS_MATH_ROCM ? LS_FMA_AMD : LS_FMA_NONE;
}

/* An operand of the chain's multiply that is an f16 input widened to f32:
 * that input's number, else -1. */
static int extended_f16_input(const ls_body *b, int i)
{
    if (i < 0 || b->inst[i].op != LS_BOP_EXTF || b->inst[i].src != LS_ET_F16)
        return -1;
    const ls_body_inst *in = &b->inst[b->inst[i].a];
    return in->op == LS_BOP_INPUT && in->type == LS_ET_F16 ? in->index : -1;
}

bool ls_functional_dot2_possible(const ls_plan *plan)
{
    const ls_problem *p = plan->problem;
    ls_fma_kind k = ls_functional_fma(plan);
    if (!plan->amd || !ls_fma_last_first(k) || p->acc_type != LS_ET_F32)
        return false;
    /* SIISelLowering.cpp's performFMACombine: fma(fpext x, fpext y, fma(...))
     * over the two lanes of two different <2 x half> values, under
     * AllowFPOpFusion::Fast (ROCMTarget.cpp) */
    const ls_body_inst *mul = &p->body.inst[p->body.n - 1];
    int x = extended_f16_input(&p->body, mul->a), y = extended_f16_input(&p->body, mul->b);
    return x >= 0 && y >= 0 && x != y && plan->inputs[x].width == 2 && plan->inputs[y].width == 2;
}

const char *ls_fma_kind_name(ls_fma_kind k)
{
    static const char *const names[] = {"none", "packed-chain", "amd", "contract-chain"};
    return k >= LS_FMA_NONE && k <= LS_FMA_CONTRACT ? names[k] : "none";
}

ls_status ls_functional_check_work(const ls_plan *plan, int64_t count, bool force, ls_diag *diag)
{
    const ls_derived *d = plan->derived;
    if (d->subgroup_size > 1024)
        return ls_diag_set(diag, LS_ERR_LIMIT, plan->problem->file, 0, 0,
                           "the functional model handles subgroups of up to 1024 lanes");
    /* each workgroup loads threads x registers x iterations elements and
     * recomputes its outputs' reductions */
    int64_t per_wg = 0,
            n_wg = count < 0 || count > d->total_workgroups ? d->total_workgroups : count;
    int64_t elems = 1;
    for (int i = 0; i < plan->problem->rank; i++)
        if (!ls_mul_ok(elems, plan->problem->size[i], &elems)) {
            elems = -1;
            break;
        }
    /* threads (<= 65536) x registers (<= 2^20) fits; the rest is checked */
    if (!ls_mul_ok(d->workgroup_size * ls_nl_registers(&d->layout), plan->iterations, &per_wg) ||
        !ls_mul_ok(per_wg, n_wg, &per_wg))
        per_wg = -1;
    return ls_functional_work_verdict(plan->problem, per_wg, elems, force, diag);
}

ls_status ls_functional_work_verdict(const ls_problem *p, int64_t elements,
                                     int64_t problem_elements, bool force, ls_diag *diag)
{
    if (elements < 0 || elements > LS_MAX_FUNCTIONAL_ELEMENTS || problem_elements < 0 ||
        problem_elements > LS_MAX_FUNCTIONAL_ELEMENTS)
        return ls_diag_set(diag, LS_ERR_LIMIT, p->file, p->line, p->col,
                           "the functional check would generate more than %lld elements (the "
                           "limit); check fewer workgroups (--workgroups N) or skip it "
                           "(--no-check)",
                           (long long)LS_MAX_FUNCTIONAL_ELEMENTS);
    if (elements > LS_FUNCTIONAL_BUDGET_ELEMENTS && !force)
        return ls_diag_set(diag, LS_ERR_LIMIT, p->file, p->line, p->col,
                           "the functional check would generate %lld elements, past the budget "
                           "of %lld (minutes of wall time): give --force to run it anyway, check "
                           "fewer workgroups (--workgroups N) or skip it (--no-check)",
                           (long long)elements, (long long)LS_FUNCTIONAL_BUDGET_ELEMENTS);
    return LS_OK;
}

int ls_output_coords(const ls_problem *p, int64_t lin, int64_t *outc)
{
    /* init index -> loop coords -> the parallel coords in loop order */
    int64_t x[LS_MAX_RANK] = {0}, rem = lin;
    for (int j = p->out_map_n - 1; j >= 0; j--) {
        x[p->out_map[j]] = rem % p->size[p->out_map[j]];
        rem /= p->size[p->out_map[j]];
    }
    int no = 0;
    for (int i = 0; i < p->rank; i++)
        if (!p->is_reduction[i])
            outc[no++] = x[i];
    return no;
}

void ls_reference_outputs(const ls_problem *p, ls_input_source in, ls_value *out)
{
    int64_t n = 1;
    for (int j = 0; j < p->out_map_n; j++)
        n *= p->size[p->out_map[j]];
    for (int64_t lin = 0; lin < n; lin++) {
        int64_t oc[LS_MAX_RANK];
        ls_output_coords(p, lin, oc);
        double bound;
        ls_reference_output(p, in, oc, &out[lin], &bound);
    }
}

ls_status ls_bind_intermediates(const ls_problem *probs, size_t n, size_t i, ls_input_source *in,
                                ls_diag *diag)
{
    const ls_problem *p = &probs[i];
    for (int k = 0; k < p->n_inputs; k++) {
        const ls_operand *o = &p->inputs[k];
        if (!o->intermediate || in->values[k])
            continue;
        if (o->producer < 0 || (size_t)o->producer >= n || (size_t)o->producer == i)
            return ls_diag_set(diag, LS_ERR_INVALID, p->file, p->line, p->col,
                               "input %s is the result of a reduction that is not in the file",
                               o->name);
        const ls_problem *q = &probs[o->producer];
        int64_t count = ls_operand_elements(p, k);
        if (count > LS_MAX_FUNCTIONAL_ELEMENTS / 64)
            return ls_diag_set(diag, LS_ERR_LIMIT, p->file, p->line, p->col,
                               "input %s holds %lld values of another reduction; lanescope "
                               "materialises at most %lld",
                               o->name, (long long)count,
                               (long long)(LS_MAX_FUNCTIONAL_ELEMENTS / 64));
        ls_input_source qin = {in->seed, NULL, {NULL}};
        /* The producer reads the same tensors: its own intermediates first. */
        if (ls_bind_intermediates(probs, n, (size_t)o->producer, &qin, diag))
            return diag->status;
        in->values[k] = ls_xcalloc((size_t)count, sizeof(ls_value));
        ls_reference_outputs(q, qin, in->values[k]);
        ls_free_intermediates(&qin);
    }
    return LS_OK;
}

void ls_free_intermediates(ls_input_source *in)
{
    for (int k = 0; k < LS_MAX_INPUTS; k++) {
        free(in->values[k]);
        in->values[k] = NULL;
    }
}

bool ls_problem_minmax_replaced(const ls_plan *plan)
{
    const ls_problem *p = plan->problem;
    ls_plan_target t = ls_plan_target_of(plan);
    if (!ls_plan_target_replaces_minmax(t) || p->argcmp.on)
        return false;
    bool body = false;
    for (int i = 0; i < p->body.n; i++)
        body |= p->body.inst[i].op == LS_BOP_MAXIMUMF || p->body.inst[i].op == LS_BOP_MINIMUMF;
    return body || ls_combiner_as_compiled(t, p->combiner) != p->combiner;
}

ls_problem *ls_problem_as_compiled(const ls_plan *plan)
{
    if (!ls_problem_minmax_replaced(plan))
        return NULL;
    ls_problem *c = ls_xcalloc(1, sizeof *c);
    *c = *plan->problem;
    c->combiner = ls_combiner_as_compiled(ls_plan_target_of(plan), c->combiner);
    for (int i = 0; i < c->body.n; i++) {
        ls_body_inst *in = &c->body.inst[i];
        if (in->op == LS_BOP_MAXIMUMF)
            in->op = LS_BOP_MAXNUMF;
        else if (in->op == LS_BOP_MINIMUMF)
            in->op = LS_BOP_MINNUMF;
    }
    return c;
}
