/* fused_run.c: the host side of a dispatch's one kernel (see measure.h):
 * its input tensors for a seed, the check of every phase's output, and the
 * emulated run on the CPU.
 */
#include <stdlib.h>
#include <string.h>

#include "lanescope/arena.h"
#include "lanescope/measure.h"
#include "lanescope/value.h"
#include "codegen.h"

/* The combiner whose value range input u is drawn for (ls_input_value):
 * the first phase that loads it. */
static ls_combiner input_combiner(const ls_fused_kernel *k, int u)
{
    for (int i = 0; i < k->n_phases; i++)
        for (int a = 0; a < k->phase[i].plan->problem->n_inputs; a++)
            if (k->phase[i].operand[a] == u)
                return k->phase[i].plan->problem->combiner;
    return k->plan.problem->combiner;
}

void ls_cuda_fused_inputs(const ls_fused_kernel *k, const ls_cuda_fused_launch *L,
                          uint64_t seed, ls_value **values, void **bytes)
{
    for (int u = 0; u < L->n_inputs; u++) {
        ls_elem_type t = L->input_type[u];
        /* a tensor read again in another phase's loops: the same values */
        int src = L->input_alias[u] >= 0 ? L->input_alias[u] : u;
        ls_combiner c = input_combiner(k, src);
        uint64_t s = ls_operand_seed(seed, src);
        values[u] = ls_xmalloc(((size_t)L->input_elems[u] + 1) * sizeof **values);
        unsigned char *b = ls_xmalloc((size_t)L->input_bytes[u] + 1);
        for (int64_t i = 0; i < L->input_elems[u]; i++) {
            values[u][i] = ls_input_value(s, (uint64_t)i, t, c);
            ls_cuda_pack_element(b, i, values[u][i], t);
        }
        bytes[u] = b;
    }
}

/* An elementwise result (problem p, its dims out_map, output i): every
 * element against the body at that element, bit for bit. */
static ls_status check_elementwise(const ls_problem *p, const int *out_map, int out_map_n,
                                   const char *what, const ls_cuda_fused_launch *L, int i,
                                   ls_input_source in, const void *out, int64_t *checked,
                                   ls_diag *diag)
{
    ls_elem_type t = L->output_type[i];
    for (int64_t lin = 0; lin < L->output_elems[i]; lin++) {
        int64_t x[LS_MAX_RANK] = {0}, rem = lin;
        for (int j = out_map_n - 1; j >= 0; j--) {
            x[out_map[j]] = rem % p->size[out_map[j]];
            rem /= p->size[out_map[j]];
        }
        ls_value ref = ls_problem_element(p, in, x);
        ls_value v = ls_cuda_unpack_element(out, lin, t);
        double ratio = 0;
        if (!ls_value_check(t, v, ref, 0, &ratio)) {
            char where[160], sv[48], sr[48];
            size_t u = 0;
            for (int j = 0; j < out_map_n && u < sizeof where; j++)
                u += (size_t)snprintf(where + u, sizeof where - u, "%s%lld", j ? ", " : "",
                                      (long long)x[out_map[j]]);
            ls_value_format(v, t, sv, sizeof sv);
            ls_value_format(ref, t, sr, sizeof sr);
            return ls_diag_set(diag, LS_ERR_INVALID, p->file, p->line, p->col,
                               "the generated kernel's %s [%s] is %s but its body gives %s",
                               what, where, sv, sr);
        }
        (*checked)++;
    }
    return LS_OK;
}

/* Phase ph's inputs: the kernel's tensors, and an earlier phase's result
 * as this kernel wrote it (held[a], malloc'd, the caller frees). */
static ls_input_source phase_inputs(const ls_fused_phase *ph, const ls_cuda_fused_launch *L,
                                    ls_value *const *values, void *const *outputs, uint64_t seed,
                                    ls_value **held)
{
    ls_input_source in = {seed, NULL, {NULL}};
    for (int a = 0; a < ph->plan->problem->n_inputs; a++) {
        int j = ph->held[a];
        if (j < 0) {
            in.values[a] = values[ph->operand[a]];
            continue;
        }
        held[a] = ls_xmalloc(((size_t)L->output_elems[j] + 1) * sizeof *held[a]);
        for (int64_t e = 0; e < L->output_elems[j]; e++)
            held[a][e] = ls_cuda_unpack_element(outputs[j], e, L->output_type[j]);
        in.values[a] = held[a];
    }
    return in;
}

/* Each reduction phase's outputs against the simulator's, bit for bit
 * (ls_cuda_compare_sim), from the same inputs its reference check used. */
static ls_status compare_phases_with_sim(const ls_fused_kernel *k, const ls_cuda_fused_launch *L,
                                         ls_value *const *values, void *const *outputs,
                                         uint64_t seed, ls_cuda_fused_check *res, ls_diag *diag)
{
    ls_status st = LS_OK;
    for (int i = 0; i < k->n_phases && !st; i++) {
        const ls_fused_phase *ph = &k->phase[i];
        if (ph->elementwise || ph->epilogue) /* checked bit for bit against the body already */
            continue;
        ls_value *held[LS_MAX_INPUTS] = {NULL};
        ls_input_source in = phase_inputs(ph, L, values, outputs, seed, held);
        st = ls_cuda_compare_sim(ph->plan, in, outputs[i], L->output_elems[i], &res->sim_equal[i],
                                 diag);
        for (int a = 0; a < LS_MAX_INPUTS; a++)
            free(held[a]);
    }
    return st;
}

ls_status ls_cuda_fused_check_outputs(const ls_fused_kernel *k, const ls_cuda_fused_launch *L,
                                      ls_value *const *values, void *const *outputs,
                                      uint64_t seed, ls_cuda_fused_check *res, ls_diag *diag)
{
    memset(res, 0, sizeof *res);
    ls_status st = LS_OK;
    for (int i = 0; i < k->n_phases && !st; i++) {
        const ls_fused_phase *ph = &k->phase[i];
        const ls_problem *p = ph->plan->problem;
        ls_value *held[LS_MAX_INPUTS] = {NULL};
        ls_input_source in = phase_inputs(ph, L, values, outputs, seed, held);
        if (ph->elementwise || ph->epilogue)
            st = check_elementwise(p, ph->out_map, ph->out_map_n, ph->what, L, i, in, outputs[i],
                                   &res->checked[i], diag);
        else
            st = ls_cuda_check_output(ph->plan, in, outputs[i], &res->checked[i],
                                      &res->max_bound_ratio[i], diag);
        int o = L->producer_output[i];
        if (!st && o >= 0) { /* the stored producer: its inputs are the reduction's */
            const ls_problem *pp = ph->producer_plan->problem;
            ls_input_source pin = {seed, NULL, {NULL}};
            int pin_of[LS_MAX_INPUTS];
            if (!cg_producer_inputs(ph, pin_of)) { /* the generator refuses such a kernel */
                st = ls_diag_set(diag, LS_ERR_INVALID, p->file, p->line, p->col,
                                 "%s reads a tensor %s does not", ph->producer_what, ph->what);
            } else {
                for (int j = 0; j < pp->n_inputs; j++)
                    pin.values[j] = in.values[pin_of[j]];
                st = check_elementwise(pp, ph->producer_out_map, ph->producer_out_map_n,
                                       ph->producer_what, L, o, pin, outputs[o],
                                       &res->producer_checked[i], diag);
            }
        }
        for (int a = 0; a < LS_MAX_INPUTS; a++)
            free(held[a]);
    }
    return st;
}

ls_status ls_cuda_emulate_fused_source(const ls_fused_kernel *k, const char *src,
                                       const ls_cuda_fused_launch *L, uint64_t seed,
                                       ls_cuda_fused_check *res, ls_diag *diag)
{
    memset(res, 0, sizeof *res);
    ls_value *values[LS_MAX_INPUTS] = {NULL};
    void *in[LS_MAX_INPUTS] = {NULL}, *out[LS_CUDA_FUSED_MAX_OUTPUTS] = {NULL};
    ls_cuda_fused_inputs(k, L, seed, values, in);
    for (int i = 0; i < L->n_outputs; i++) {
        out[i] = ls_xmalloc((size_t)L->output_bytes[i] + 1);
        memset(out[i], 0xa5, (size_t)L->output_bytes[i]); /* an unwritten output cannot pass */
    }
    char call[800];
    size_t u = (size_t)snprintf(call, sizeof call, "%s(", L->kernel);
    for (int a = 0; a < L->n_inputs && u < sizeof call; a++)
        u += (size_t)snprintf(call + u, sizeof call - u, "t->in[%d], ", a);
    for (int i = 0; i < L->n_outputs && u < sizeof call; i++)
        u += (size_t)snprintf(call + u, sizeof call - u, "t->out[%d]%s", i,
                              i + 1 < L->n_outputs ? ", " : ")");
    const ls_problem *lp = k->plan.problem;
    ls_status st = ls_cuda_emulate_call(src, call, (const void *const *)in, out, L->grid[0],
                                        L->block[0], lp->file, lp->line, lp->col, diag);
    if (!st)
        st = ls_cuda_fused_check_outputs(k, L, values, out, seed, res, diag);
    if (!st)
        st = compare_phases_with_sim(k, L, values, out, seed, res, diag);
    for (int a = 0; a < LS_MAX_INPUTS; a++) {
        free(values[a]);
        free(in[a]);
    }
    for (int i = 0; i < LS_CUDA_FUSED_MAX_OUTPUTS; i++)
        free(out[i]);
    return st;
}

ls_status ls_cuda_emulate_fused(const ls_fused_kernel *k, const char *source_name, uint64_t seed,
                                ls_cuda_fused_check *res, ls_diag *diag)
{
    char *src = NULL;
    ls_cuda_fused_launch L;
    memset(res, 0, sizeof *res);
    ls_status st = ls_cuda_generate_fused(k, NULL, source_name, &src, &L, diag);
    if (!st)
        st = ls_cuda_emulate_fused_source(k, src, &L, seed, res, diag);
    free(src);
    return st;
}
