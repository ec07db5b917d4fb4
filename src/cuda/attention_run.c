/* attention_run.c: a generated attention kernel's inputs, and its outputs
 * compared with the simulator's lowered values (ls_attention_lowered) bit
 * for bit -- run on the CPU through the emulator here, on a GPU in
 * measure.c.  The simulator's values are themselves checked against the
 * op's definition (`lanescope sim`), so equal bits carry that check. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanescope/arena.h"
#include "lanescope/measure.h"
#include "lanescope/value.h"

void ls_cuda_att_inputs(const ls_cuda_att_launch *L, uint64_t seed,
                        void *bytes[LS_CUDA_ATT_MAX_INPUTS])
{
    for (int k = 0; k < L->n_inputs; k++) {
        ls_elem_type t = L->input_type[k];
        unsigned char *b = ls_xcalloc((size_t)L->input_bytes[k] + 1, 1);
        bytes[k] = b;
        for (int64_t i = 0; i < L->input_elems[k]; i++) {
            if (L->role[k] == LS_ATT_IN_INDICES) { /* the pages ls_input_row names */
                ls_cuda_pack_element(b, i, (ls_value)ls_input_row(L->rowmix[k], i, L->rows[k]), t);
                continue;
            }
            double v = ls_att_input_element(seed, L->seed_operand[k], t, i);
            if (t == LS_ET_I1) /* a byte an element, 0 or 1 */
                b[i] = v != 0;
            else
                ls_cuda_pack_element(b, i, ls_value_from_double(v, t), t);
        }
    }
}

int64_t ls_cuda_att_budget_workgroups(const ls_attention *a)
{
    int64_t work = ls_attention_values_work(a), wgs = a->workgroups;
    if (work <= LS_FUNCTIONAL_BUDGET_ELEMENTS || wgs <= 1)
        return wgs;
    int64_t per = work / wgs + 1, n = LS_FUNCTIONAL_BUDGET_ELEMENTS / per;
    return n < 1 ? 1 : n;
}

static bool same_bits(ls_value x, ls_value y, ls_elem_type t)
{
    if (x == y)
        return true;
    return isnan(ls_value_to_double(x, t)) && isnan(ls_value_to_double(y, t));
}

ls_status ls_cuda_att_compare(const ls_module *m, const ls_module_attention *ma,
                              const ls_attention *a, const ls_cuda_att_launch *L, uint64_t seed,
                              int64_t max_wg, void *const *out, ls_cuda_att_check *res,
                              ls_diag *diag)
{
    static const char *const names[2][3] = {{"output", "", ""}, {"acc", "max", "sum"}};
    memset(res, 0, sizeof *res);
    ls_value *want[3] = {NULL};
    bool *have[3] = {NULL};
    for (int i = 0; i < L->n_outputs; i++) {
        int r = L->result[i];
        want[r] = ls_xcalloc((size_t)L->output_elems[i], sizeof *want[r]);
        have[r] = ls_xcalloc((size_t)L->output_elems[i], sizeof *have[r]);
    }
    int64_t wgs = max_wg >= 0 && max_wg < a->workgroups ? max_wg : a->workgroups;
    ls_status st = ls_attention_lowered(m, ma, a, ls_plan_target_from_arch("sm_90"), seed, wgs,
                                        want, have, diag);
    bool online = m->dispatches[ma->dispatch].ops[ma->op].n_inits == 3;
    for (int i = 0; !st && i < L->n_outputs; i++) {
        int r = L->result[i];
        for (int64_t e = 0; e < L->output_elems[i]; e++) {
            if (!have[r][e])
                continue;
            ls_value got = ls_cuda_unpack_element(out[i], e, L->output_type[i]);
            res->outputs++;
            if (same_bits(got, want[r][e], L->output_type[i])) {
                res->sim_equal++;
                continue;
            }
            st = ls_diag_set(diag, LS_ERR_INVALID, a->file, a->line, a->col,
                             "%s: the kernel's %s element %lld is %.9g, the simulator's lowered "
                             "value %.9g (they must agree bit for bit)",
                             a->name, names[online][r], (long long)e,
                             ls_value_to_double(got, L->output_type[i]),
                             ls_value_to_double(want[r][e], L->output_type[i]));
            break;
        }
    }
    res->workgroups = st ? 0 : wgs;
    for (int r = 0; r < 3; r++) {
        free(want[r]);
        free(have[r]);
    }
    return st;
}

ls_status ls_cuda_emulate_attention(const ls_module *m, const ls_module_attention *ma,
                                    const ls_attention *a, const ls_att_view *view,
                                    const char *source_name, const char *src, uint64_t seed,
                                    ls_cuda_att_check *res, ls_diag *diag)
{
    memset(res, 0, sizeof *res);
    char *own = NULL;
    ls_cuda_att_launch L;
    ls_status st = ls_cuda_generate_attention(m, ma, a, view, source_name, &own, &L, diag);
    if (st)
        return st;
    void *in[LS_CUDA_ATT_MAX_INPUTS] = {NULL}, *out[3] = {NULL};
    const void *args[LS_CUDA_ATT_MAX_INPUTS];
    ls_cuda_att_inputs(&L, seed, in);
    for (int k = 0; k < L.n_inputs; k++) /* an alias reads the earlier tensor */
        args[k] = in[L.alias[k] >= 0 ? L.alias[k] : k];
    for (int i = 0; i < L.n_outputs; i++) {
        out[i] = ls_xmalloc((size_t)L.output_bytes[i] + 1);
        memset(out[i], 0xa5, (size_t)L.output_bytes[i]); /* an unwritten output cannot pass */
    }
    char call[400];
    size_t u = (size_t)snprintf(call, sizeof call, "%s(", L.kernel);
    for (int k = 0; k < L.n_inputs; k++)
        u += (size_t)snprintf(call + u, sizeof call - u, "(const ls_%s%d_t *)t->in[%d], ",
                              L.role[k] == LS_ATT_IN_INDICES ? "ix" : "in", L.operand[k], k);
    for (int i = 0; i < L.n_outputs && u < sizeof call; i++)
        u += (size_t)snprintf(call + u, sizeof call - u, "(ls_out%d_t *)t->out[%d]%s", L.result[i],
                              i, i + 1 < L.n_outputs ? ", " : ")");
    st = ls_cuda_emulate_call(src ? src : own, call, args, out, L.grid[0], L.block[0], a->file,
                              a->line, a->col, diag);
    if (!st)
        st = ls_cuda_att_compare(m, ma, a, &L, seed, -1, out, res, diag);
    for (int k = 0; k < LS_CUDA_ATT_MAX_INPUTS; k++)
        free(in[k]);
    for (int k = 0; k < 3; k++)
        free(out[k]);
    free(own);
    return st;
}
