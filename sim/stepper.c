/* stepper.c: a recorded timeline of one workgroup plus functional replay
 * (see stepper.h). */
#include <stdlib.h>
#include <string.h>

#include "lanescope/stepper.h"

struct ls_stepper {
    const ls_plan *plan;
    ls_input_source in;
    int64_t workgroup;
    ls_engine_record *log;
    int64_t n, cap, pos;
    bool overflow;
    int64_t max_records;
};

static void on_record(void *ctx, const ls_engine_record *r)
{
    ls_stepper *st = ctx;
    if (r->workgroup != st->workgroup)
        return;
    if (st->n >= st->max_records) {
        st->overflow = true;
        return;
    }
    if (st->n == st->cap) {
        st->cap = st->cap ? st->cap * 2 : 1024;
        st->log = ls_xrealloc(st->log, (size_t)st->cap * sizeof *st->log);
    }
    st->log[st->n++] = *r;
}

typedef struct {
    int64_t cycle, index;
} record_key;

static int by_cycle(const void *a, const void *b)
{
    const record_key *x = a, *y = b;
    if (x->cycle != y->cycle)
        return x->cycle < y->cycle ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* The engine reports in the order it takes its events, which is not the
 * clock's: a run of ALU issues is reported when it starts, a release when
 * its last subgroup arrives.  The timeline is the clock's order; records
 * of one cycle keep the engine's. */
static void sort_by_cycle(ls_stepper *st)
{
    if (st->n < 2)
        return;
    record_key *key = ls_xcalloc((size_t)st->n, sizeof *key);
    for (int64_t i = 0; i < st->n; i++)
        key[i] = (record_key){st->log[i].cycle, i};
    qsort(key, (size_t)st->n, sizeof *key, by_cycle);
    ls_engine_record *sorted = ls_xcalloc((size_t)st->n, sizeof *sorted);
    for (int64_t i = 0; i < st->n; i++)
        sorted[i] = st->log[key[i].index];
    free(st->log);
    free(key);
    st->log = sorted;
    st->cap = st->n;
}

ls_status ls_stepper_new(const ls_plan *plan, const ls_hw *hw, ls_input_source in,
                         int64_t workgroup, ls_stepper **out, ls_diag *diag)
{
    return ls_stepper_new_capped(plan, hw, in, workgroup, LS_STEPPER_MAX_RECORDS, out, diag);
}

ls_status ls_stepper_new_capped(const ls_plan *plan, const ls_hw *hw, ls_input_source in,
                                int64_t workgroup, int64_t max_records, ls_stepper **out,
                                ls_diag *diag)
{
    *out = NULL;
    const ls_derived *d = plan->derived;
    if (workgroup < 0 || workgroup >= d->total_workgroups)
        return ls_diag_set(diag, LS_ERR_INVALID, plan->problem->file, 0, 0,
                           "workgroup %lld is outside 0..%lld", (long long)workgroup,
                           (long long)d->total_workgroups - 1);
    ls_stepper *st = ls_xcalloc(1, sizeof *st);
    st->plan = plan;
    st->in = in;
    st->workgroup = workgroup;
    st->pos = -1;
    st->max_records = max_records;
    ls_engine_opts opts = {.record = on_record, .record_ctx = st};
    ls_sim_result res;
    ls_status s = ls_engine_run(plan, hw, &res, &opts, diag);
    if (s == LS_OK && st->overflow)
        s = ls_diag_set(diag, LS_ERR_LIMIT, plan->problem->file, 0, 0,
                        "workgroup %lld has more than %lld timeline records (the limit)",
                        (long long)workgroup, (long long)max_records);
    if (s != LS_OK) {
        ls_stepper_free(st);
        return s;
    }
    sort_by_cycle(st);
    *out = st;
    return LS_OK;
}

void ls_stepper_free(ls_stepper *st)
{
    if (st == NULL)
        return;
    free(st->log);
    free(st);
}

int64_t ls_stepper_length(const ls_stepper *st)
{
    return st->n;
}

int64_t ls_stepper_position(const ls_stepper *st)
{
    return st->pos;
}

const ls_engine_record *ls_stepper_record(const ls_stepper *st, int64_t i)
{
    return i >= 0 && i < st->n ? &st->log[i] : NULL;
}

static bool matches(const ls_stepper *st, int64_t i, ls_step_unit unit, int64_t from)
{
    const ls_engine_record *r = &st->log[i];
    switch (unit) {
    case LS_STEP_EVENT: return true;
    case LS_STEP_INSTRUCTION: return r->kind == LS_REC_ISSUE;
    case LS_STEP_BARRIER: return r->kind == LS_REC_BARRIER;
    case LS_STEP_STAGE: return from < 0 || r->stage != st->log[from].stage;
    }
    return false;
}

bool ls_stepper_forward(ls_stepper *st, ls_step_unit unit)
{
    for (int64_t i = st->pos + 1; i < st->n; i++)
        if (matches(st, i, unit, st->pos)) {
            st->pos = i;
            return true;
        }
    return false;
}

bool ls_stepper_back(ls_stepper *st, ls_step_unit unit)
{
    for (int64_t i = st->pos - 1; i >= 0; i--)
        if (unit != LS_STEP_STAGE ? matches(st, i, unit, st->pos)
                                  : st->log[i].stage != st->log[st->pos].stage) {
            /* for stages, land on the first record of the earlier stage */
            if (unit == LS_STEP_STAGE)
                while (i > 0 && st->log[i - 1].stage == st->log[i].stage)
                    i--;
            st->pos = i;
            return true;
        }
    if (st->pos >= 0 && unit == LS_STEP_EVENT) {
        st->pos = -1; /* back to the start */
        return true;
    }
    return false;
}

ls_func_point ls_stepper_point(const ls_stepper *st, int subgroup)
{
    ls_func_point pt = {LS_STAGE_LOAD_ACCUMULATE, 0, 0, 0};
    /* the subgroup's latest record at or before the position */
    int64_t i = st->pos;
    while (i >= 0 && st->log[i].subgroup != subgroup && st->log[i].kind != LS_REC_BARRIER)
        i--;
    if (i < 0)
        return pt;
    const ls_engine_record *r = &st->log[i];
    pt.stage = r->stage;
    switch (r->stage) {
    case LS_STAGE_LOAD_ACCUMULATE:
        pt.iterations = r->iteration; /* the iteration in flight is not complete */
        break;
    case LS_STAGE_SUBGROUP_REDUCE:
    case LS_STAGE_CROSS_SUBGROUP: {
        /* steps completed: the step ends (each step's combine, or the DPP
         * move LLVM folded it into) already issued in this reduction */
        int steps = 0, reduce = 0;
        for (int64_t j = i; j >= 0 && st->log[j].stage == r->stage; j--)
            if (st->log[j].subgroup == subgroup && st->log[j].step_end)
                steps++;
        int per = 0;
        if (r->stage == LS_STAGE_SUBGROUP_REDUCE) {
            const ls_plan *pl = st->plan;
            for (int k = 0; k < pl->n_subgroup_reduces; k++) {
                per = pl->subgroup_reduces[k].n_steps * (int)pl->results_per_thread;
                if (steps < per || k == pl->n_subgroup_reduces - 1) {
                    reduce = k;
                    break;
                }
                steps -= per;
            }
            /* every result slot runs the same steps: report full steps done */
            pt.reduce = reduce;
            pt.steps = steps / (int)st->plan->results_per_thread;
        } else {
            bool read = false;
            for (int64_t j = i; j >= 0 && st->log[j].stage == r->stage; j--)
                read |= st->log[j].subgroup == subgroup && st->log[j].op == 6;
            pt.steps = read ? steps / (int)st->plan->results_per_thread : -1;
        }
        break;
    }
    default: break;
    }
    return pt;
}

ls_status ls_stepper_snapshot(const ls_stepper *st, int subgroup, ls_func_snapshot *out,
                              ls_diag *diag)
{
    ls_func_point pt = ls_stepper_point(st, subgroup);
    return ls_functional_snapshot(st->plan, st->in, st->workgroup, &pt, out, diag);
}
