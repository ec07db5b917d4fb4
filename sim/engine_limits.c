/* engine_limits.c: the engine's refusals on the numbers alone -- a run
 * whose subgroup-instructions pass the budget or the limit, or whose
 * resident state passes LS_MAX_ENGINE_STATE_BYTES -- decided before
 * anything is allocated (engine.h), apart from the run itself. */
#include <stdio.h>

#include "lanescope/engine.h"

/* The work is known before anything runs: past the budget (minutes of
 * wall time) only when asked for, never past the limit. */
ls_status ls_engine_work_verdict(const ls_problem *p, int64_t total, bool force, ls_diag *diag)
{
    if (total >= 0 && (total <= LS_SIM_BUDGET_INSTRUCTIONS ||
                       (force && total <= LS_MAX_SIM_INSTRUCTIONS)))
        return LS_OK;
    char n[32] = "more than 2^63";
    if (total >= 0)
        snprintf(n, sizeof n, "%lld", (long long)total);
    if (total >= 0 && total <= LS_MAX_SIM_INSTRUCTIONS)
        return ls_diag_set(diag, LS_ERR_LIMIT, p->file, p->line, p->col,
                           "the simulation would issue %s subgroup-instructions, past the "
                           "budget of %lld (minutes of wall time): give --force to run it "
                           "anyway, or simulate a smaller problem",
                           n, (long long)LS_SIM_BUDGET_INSTRUCTIONS);
    return ls_diag_set(diag, LS_ERR_LIMIT, p->file, p->line, p->col,
                       "the simulation would issue %s subgroup-instructions, past the limit "
                       "of %lld; simulate a smaller problem",
                       n, (long long)LS_MAX_SIM_INSTRUCTIONS);
}

ls_status ls_engine_state_verdict(const ls_problem *p, int64_t state, int64_t slots, int64_t wgps,
                                  int64_t occupancy, ls_diag *diag)
{
    if (state >= 0 && state <= LS_MAX_ENGINE_STATE_BYTES)
        return LS_OK;
    return ls_diag_set(diag, LS_ERR_LIMIT, p->file, p->line, p->col,
                       "%lld workgroups would be resident at once (%lld WGPs hold up to %lld "
                       "each), %.2f GiB of simulator state; the limit is %.2f GiB: simulate "
                       "fewer workgroups (--workgroups) or on a model with fewer WGPs",
                       (long long)slots, (long long)wgps, (long long)occupancy,
                       (double)state / (1 << 30), (double)LS_MAX_ENGINE_STATE_BYTES / (1 << 30));
}
