/* fuzz_import.c: libFuzzer target for the attribute parser and the importer.
 * Every input runs through ls_module_parse and, when it yields reductions,
 * through validation, layout derivation and -- for small problems -- the
 * plan, the timing engine and the functional model; read again with its
 * attention ops, through their layout, the values run's checks and the
 * engine's view (attention_timing.c); and the dispatch as one kernel
 * (fused.h), run with shared and plain scoreboards.  Crashes, leaks, hangs, UB and wrong
 * reduction values are what the fuzzer looks for. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "lanescope/attention.h"
#include "lanescope/fused.h"
#include "lanescope/import.h"

/* Every attention op of the input laid out (its configs or IREE's on
 * gfx942), checked for a values run and seen by the engine on mi300x. */
static void attentions(const uint8_t *data, size_t size)
{
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_diag d;
    ls_diag_clear(&d);
    ls_target t;
    ls_hw hw;
    if (ls_module_parse_ex((const char *)data, size, "fuzz.mlir", LS_IMPORT_ATTENTION, m, &d) ==
            LS_OK &&
        m->n_attentions > 0 && ls_target_lookup("gfx942", &t) && ls_hw_load("mi300x", &hw, &d) == LS_OK) {
        for (size_t i = 0; i < m->n_attentions; i++) {
            ls_attention *a = ls_xcalloc(1, sizeof *a);
            ls_diag_clear(&d);
            if (ls_attention_build(m, &m->attentions[i], &t, a, &d) == LS_OK) {
                ls_diag_clear(&d);
                (void)ls_attention_values_check(m, &m->attentions[i], a, &d);
                ls_att_view *v = NULL;
                ls_diag_clear(&d);
                if (ls_attention_view(m, &m->attentions[i], a, &hw, &v, &d) == LS_OK)
                    ls_att_view_free(v);
            }
            free(a);
        }
    }
    free(m);
}

/* The dispatch of each module's first reduction as one kernel (fused.h),
 * its plans for the first reduction's machine; a small kernel runs twice,
 * with shared and with one scoreboard entry per instruction, which must
 * agree bit for bit (sim/engine_fused.c). */
static void one_kernel(ls_module *m)
{
    if (m->n_problems == 0)
        return;
    ls_derived *dv = ls_xcalloc(m->n_problems, sizeof *dv);
    ls_plan *plans = ls_xcalloc(m->n_problems, sizeof *plans);
    ls_fused_kernel *k = ls_xcalloc(1, sizeof *k);
    ls_hw hw;
    ls_diag d;
    ls_diag_clear(&d);
    bool ok = true;
    for (size_t i = 0; ok && i < m->n_problems; i++)
        ok = ls_derive(&m->problems[i], &dv[i], &d) == LS_OK &&
             fz_machine(m->problems[i].inputs[0].map_n % 2 == 0 ? "gfx942" : "sm_80",
                        dv[0].subgroup_size, &hw, &d) == LS_OK &&
             ls_plan_build(&m->problems[i], &dv[i], ls_plan_target_from_arch(hw.arch), &plans[i],
                           &d) == LS_OK;
    char why[512];
    int64_t n;
    if (ok && ls_fused_build(m, 0, plans, k, why, sizeof why) &&
        ls_engine_estimate(&k->plan, &hw, &n, &d) == LS_OK && n >= 0 && n < 200000) {
        ls_sim_result a, b;
        ls_engine_opts plain = {.plain_scoreboard = true};
        ls_status s1 = ls_engine_run(&k->plan, &hw, &a, NULL, &d);
        ls_diag_clear(&d);
        ls_status s2 = ls_engine_run(&k->plan, &hw, &b, &plain, &d);
        if (s1 != s2 || (s1 == LS_OK && memcmp(&a, &b, sizeof a) != 0))
            __builtin_trap();
    }
    free(k);
    free(plans);
    free(dv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_diag d;
    ls_diag_clear(&d);
    ls_module_parse((const char *)data, size, "fuzz.mlir", m, &d);
    if (d.status == LS_OK) {
        ls_derived *dv = ls_xcalloc(1, sizeof *dv);
        for (size_t i = 0; i < m->n_problems; i++) {
            ls_diag dd;
            ls_diag_clear(&dd);
            if (ls_derive(&m->problems[i], dv, &dd) == LS_OK)
                fz_simulate(&m->problems[i], dv, m->problems[i].inputs[0].map_n % 2 == 0);
        }
        free(dv);
        one_kernel(m);
    }
    attentions(data, size);
    ls_arena a;
    ls_arena_init(&a);
    ls_diag_clear(&d);
    ls_parse_attr_string((const char *)data, size, "fuzz", &a, NULL, &d);
    ls_arena_fini(&a);
    free(m);
    return 0;
}
