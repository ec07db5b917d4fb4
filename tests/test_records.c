/* test_records.c: what the engine tells a recorder, and the order it
 * issues in: the records add up to the run's figures and leave them
 * unchanged, the stepper's timeline (clock order, stepping by event,
 * instruction, stage and barrier, lane snapshots), and one issue per
 * scheduler a cycle when runs of ALU instructions take their cycles ahead. */
#include <math.h>

#include "lanescope/stepper.h"
#include "engine_util.h"

/* The records' memory figures, summed over a whole run, are the run's stage
 * figures, and the loads' per input its operand figures: what the viewer's
 * traffic panel adds up is what sim prints. */
typedef struct {
    ls_stage_stats stage[LS_STAGE_COUNT];
    ls_operand_traffic operand[LS_MAX_INPUTS];
    int64_t non_load_operands; /* records other than loads that name an input */
} record_sums;

static void sum_record(void *ctx, const ls_engine_record *r)
{
    record_sums *rs = ctx;
    ls_operand_traffic_add(rs->operand, r);
    rs->non_load_operands += r->op != 0 && r->operand != -1;
    ls_stage_stats *s = &rs->stage[r->stage];
    s->global_bytes += r->bytes;
    s->sectors += r->sectors;
    s->sector_hits += r->sector_hits;
    s->l1_hits += r->l1_hits;
    s->mall_hits += r->mall_hits;
    s->smem_cycles += r->smem_cycles;
    s->barrier_wait_cycles += r->barrier_wait;
    s->barriers += r->kind == LS_REC_BARRIER;
}

START_TEST(records_add_up_to_the_run)
{
    /* the matvec's vector hits in the L1 */
    const char *files[] = {"seed000_example2.mlir", "seed000_example3.mlir",
                           "../tests/data/matvec_64x256_lanes4x16.mlir"};
    for (int f = 0; f < 3; f++) {
        ls_hw hw;
        ls_diag d;
        ls_diag_clear(&d);
        ck_assert(ls_hw_load("mi300x", &hw, &d) == LS_OK);
        ls_module *m = load_example(files[f], &d);
        ls_problem p = m->problems[0];
        free(m);
        ls_derived *dv = ls_xcalloc(1, sizeof *dv);
        ck_assert(ls_derive(&p, dv, &d) == LS_OK);
        ls_plan plan;
        ck_assert(ls_plan_build(&p, dv, ls_plan_target_from_arch("gfx942"), &plan, &d) == LS_OK);
        record_sums rs;
        memset(&rs, 0, sizeof rs);
        ls_stage_stats *sum = rs.stage;
        ls_engine_opts o = {.record = sum_record, .record_ctx = &rs};
        ls_sim_result r, plain;
        ck_assert(ls_engine_run(&plan, &hw, &r, &o, &d) == LS_OK);
        /* recording changes nothing: the stepper's run is sim's */
        ck_assert(ls_engine_run(&plan, &hw, &plain, NULL, &d) == LS_OK);
        ck_assert_int_eq(r.cycles, plain.cycles);
        ck_assert_int_eq(r.events, plain.events);
        ck_assert(memcmp(r.stage, plain.stage, sizeof r.stage) == 0);
        for (int k = 0; k < LS_STAGE_COUNT; k++) {
            const ls_stage_stats *a = &sum[k], *b = &r.stage[k];
            ck_assert_int_eq(a->global_bytes, b->global_bytes);
            ck_assert_int_eq(a->sectors, b->sectors);
            ck_assert_int_eq(a->sector_hits, b->sector_hits);
            ck_assert_int_eq(a->l1_hits, b->l1_hits);
            ck_assert_int_eq(a->mall_hits, b->mall_hits);
            ck_assert_int_eq(a->smem_cycles, b->smem_cycles);
            ck_assert_int_eq(a->barrier_wait_cycles, b->barrier_wait_cycles);
            ck_assert_int_eq(a->barriers, b->barriers);
        }
        ck_assert_int_gt(sum[LS_STAGE_LOAD_ACCUMULATE].sectors, 0);
        ck_assert_int_eq(r.n_operands, p.n_inputs);
        ck_assert_int_eq(rs.non_load_operands, 0);
        ck_assert(memcmp(r.operand, plain.operand, sizeof r.operand) == 0);
        for (int k = 0; k < p.n_inputs; k++) {
            ck_assert_int_eq(rs.operand[k].global_bytes, r.operand[k].global_bytes);
            ck_assert_int_eq(rs.operand[k].sectors, r.operand[k].sectors);
            ck_assert_int_eq(rs.operand[k].l1_hits, r.operand[k].l1_hits);
            ck_assert_int_eq(rs.operand[k].sector_hits, r.operand[k].sector_hits);
            ck_assert_int_eq(rs.operand[k].mall_hits, r.operand[k].mall_hits);
            ck_assert_int_eq(rs.operand[k].dram_bytes, r.operand[k].dram_bytes);
            ck_assert_int_gt(rs.operand[k].global_bytes, 0);
        }
        if (f == 2)
            ck_assert_int_gt(sum[LS_STAGE_LOAD_ACCUMULATE].l1_hits, 0);
        free(dv);
    }
}
END_TEST

START_TEST(stepping)
{
    ls_hw hw;
    ls_diag d;
    ls_diag_clear(&d);
    ck_assert(ls_hw_parse(round_model, "round.hw", &hw, &d) == LS_OK);
    char text[2048];
    reduce_text(text, sizeof text, 1, 64,
                "workgroup = [1, 0], partial_reduction = [0, 64], thread = [0, 1], lane_basis = "
                "[[1, 64], [0, 1]], subgroup_basis = [[1, 1], [0, 1]]",
                64);
    ls_module *m = load_text(text, &d);
    ls_problem p = m->problems[0];
    free(m);
    ls_derived *dv = ls_xcalloc(1, sizeof *dv);
    ck_assert(ls_derive(&p, dv, &d) == LS_OK);
    ls_plan plan;
    ck_assert(ls_plan_build(&p, dv, ls_plan_target_from_arch(hw.arch), &plan, &d) == LS_OK);
    ls_input_source in = {5, NULL, {NULL}};
    ls_stepper *st;
    ck_assert_msg(ls_stepper_new(&plan, &hw, in, 0, &st, &d) == LS_OK, "%s", d.msg);
    /* load, accumulate, 6 x (shuffle, combine), init combine, store, done */
    ck_assert_int_eq(ls_stepper_length(st), 17);
    /* the record limit at the workgroup's length, and one record short */
    ls_stepper *capped;
    ck_assert_msg(ls_stepper_new_capped(&plan, &hw, in, 0, 17, &capped, &d) == LS_OK, "%s", d.msg);
    ck_assert_int_eq(ls_stepper_length(capped), 17);
    ls_stepper_free(capped);
    ck_assert_int_eq(ls_stepper_new_capped(&plan, &hw, in, 0, 16, &capped, &d), LS_ERR_LIMIT);
    ck_assert_str_eq(d.msg, "workgroup 0 has more than 16 timeline records (the limit)");
    ck_assert_ptr_null(capped);
    /* the trace's slice limit: all slices kept at their count, the last
     * one dropped (and the trace marked truncated) one below it */
    ls_sim_result res;
    ls_trace tr = {NULL, 0, 0, false, 0};
    ls_engine_opts topts = {.trace = &tr};
    ck_assert(ls_engine_run(&plan, &hw, &res, &topts, &d) == LS_OK);
    size_t all = tr.n;
    ck_assert(all > 1 && !tr.truncated);
    free(tr.slices);
    ls_trace at = {NULL, 0, 0, false, all}, under = {NULL, 0, 0, false, all - 1};
    topts.trace = &at;
    ck_assert(ls_engine_run(&plan, &hw, &res, &topts, &d) == LS_OK);
    ck_assert(at.n == all && !at.truncated);
    topts.trace = &under;
    ck_assert(ls_engine_run(&plan, &hw, &res, &topts, &d) == LS_OK);
    ck_assert(under.n == all - 1 && under.truncated);
    free(at.slices);
    free(under.slices);
    ck_assert(ls_stepper_forward(st, LS_STEP_INSTRUCTION));
    ck_assert_int_eq(ls_stepper_record(st, ls_stepper_position(st))->cycle, 0);
    ck_assert(ls_stepper_forward(st, LS_STEP_STAGE));
    const ls_engine_record *r = ls_stepper_record(st, ls_stepper_position(st));
    ck_assert_int_eq(r->stage, LS_STAGE_SUBGROUP_REDUCE);
    ck_assert_int_eq(r->cycle, 505); /* the first shuffle, as in the hand-computed path */
    ls_func_snapshot snap;
    ck_assert(ls_stepper_snapshot(st, 0, &snap, &d) == LS_OK);
    ck_assert(!snap.accumulators);
    ck_assert_int_eq(snap.threads, 64);
    for (int l = 0; l < 64; l++) /* before any butterfly round: each lane its own element */
        ck_assert(snap.values[l] == ls_input_value(5, (uint64_t)l, LS_ET_F32, LS_COMB_ADD));
    ls_func_snapshot_free(&snap);
    ck_assert(ls_stepper_forward(st, LS_STEP_INSTRUCTION)); /* the combine of round 1 */
    ck_assert(ls_stepper_forward(st, LS_STEP_INSTRUCTION));
    ck_assert(ls_stepper_snapshot(st, 0, &snap, &d) == LS_OK);
    for (int l = 0; l < 64; l++) {
        ls_value a = ls_input_value(5, (uint64_t)l, LS_ET_F32, LS_COMB_ADD);
        ls_value b = ls_input_value(5, (uint64_t)(l ^ 1), LS_ET_F32, LS_COMB_ADD);
        ck_assert(snap.values[l] == ls_combine(LS_COMB_ADD, LS_ET_F32, a, b));
    }
    ls_func_snapshot_free(&snap);
    ck_assert(ls_stepper_back(st, LS_STEP_INSTRUCTION));
    ck_assert(ls_stepper_back(st, LS_STEP_INSTRUCTION));
    ck_assert(ls_stepper_snapshot(st, 0, &snap, &d) == LS_OK);
    ck_assert(snap.values[7] == ls_input_value(5, 7, LS_ET_F32, LS_COMB_ADD));
    ls_func_snapshot_free(&snap);
    while (ls_stepper_forward(st, LS_STEP_EVENT))
        ;
    ck_assert_int_eq(ls_stepper_position(st), 16);
    ck_assert_int_eq(ls_stepper_record(st, 16)->kind, LS_REC_DONE);
    ck_assert_int_eq(ls_stepper_record(st, 16)->cycle, 753);
    ck_assert(ls_stepper_snapshot(st, 0, &snap, &d) == LS_OK);
    ls_value ref;
    double bound;
    ls_reference_output(&p, in, (int64_t[]){0}, &ref, &bound);
    for (int l = 0; l < 64; l++) /* every lane ends with the whole row's sum */
        ck_assert(fabs(ls_value_to_double(snap.values[l], LS_ET_F32) -
                       ls_value_to_double(ref, LS_ET_F32)) <= bound);
    ls_func_snapshot_free(&snap);
    ck_assert(!ls_stepper_forward(st, LS_STEP_BARRIER)); /* one subgroup: no barrier */
    ls_stepper_free(st);

    /* Example 2: two subgroups, IREE's two barriers per workgroup */
    ck_assert(ls_hw_load("mi300x", &hw, &d) == LS_OK);
    m = load_example("seed000_example2.mlir", &d);
    p = m->problems[0];
    free(m);
    ck_assert(ls_derive(&p, dv, &d) == LS_OK);
    ck_assert(ls_plan_build(&p, dv, ls_plan_target_from_arch("gfx942"), &plan, &d) == LS_OK);
    ck_assert(ls_stepper_new(&plan, &hw, in, 3, &st, &d) == LS_OK);
    /* the timeline is in the clock's order, though runs of ALU issues are
     * recorded when they start */
    for (int64_t i = 1; i < ls_stepper_length(st); i++)
        ck_assert_int_le(ls_stepper_record(st, i - 1)->cycle, ls_stepper_record(st, i)->cycle);
    ck_assert(ls_stepper_forward(st, LS_STEP_BARRIER));
    ck_assert(ls_stepper_forward(st, LS_STEP_BARRIER));
    ck_assert(!ls_stepper_forward(st, LS_STEP_BARRIER));
    ck_assert(ls_stepper_snapshot(st, 1, &snap, &d) == LS_OK);
    ck_assert_int_eq(snap.smem_n, 16 * 2); /* [16 rows, 2 subgroup slots] */
    ls_func_snapshot_free(&snap);
    ls_stepper_free(st);
    free(dv);
}
END_TEST

/* A scheduler issues at most one instruction a cycle, also when a run of
 * ALU issues takes its cycles ahead of the clock; and the runs are taken
 * in one event each.  Example 2: 72 workgroups of two subgroups on mi300x's
 * 304 WGPs, one workgroup a WGP; with one scheduler a WGP both subgroups
 * of a workgroup share it. */
typedef struct {
    int64_t n;
    int64_t key[1 << 16]; /* workgroup << 32 | cycle */
} issue_log;

static void log_issue(void *ctx, const ls_engine_record *r)
{
    issue_log *l = ctx;
    if (r->kind == LS_REC_ISSUE && l->n < (int64_t)(sizeof l->key / sizeof l->key[0]))
        l->key[l->n++] = (r->workgroup << 32) | r->cycle;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

START_TEST(one_issue_per_scheduler_cycle)
{
    ls_hw hw;
    ls_diag d;
    ls_diag_clear(&d);
    ck_assert(ls_hw_load("mi300x", &hw, &d) == LS_OK);
    hw.schedulers_per_wgp = 1;
    ls_problem p;
    ls_plan plan;
    ls_derived *dv = example_plan("seed000_example2.mlir", "gfx942", &p, &plan);
    ck_assert_int_eq(dv->total_workgroups, 72);
    ck_assert_int_eq(dv->num_subgroups, 2);
    issue_log *l = ls_xcalloc(1, sizeof *l);
    ls_engine_opts o = {.record = log_issue, .record_ctx = l};
    ls_sim_result r;
    ck_assert(ls_engine_run(&plan, &hw, &r, &o, &d) == LS_OK);
    ck_assert_int_eq(l->n, r.instructions); /* every issue logged */
    qsort(l->key, (size_t)l->n, sizeof l->key[0], cmp_i64);
    for (int64_t i = 1; i < l->n; i++)
        ck_assert_msg(l->key[i] != l->key[i - 1], "two issues on one scheduler at cycle %lld",
                      (long long)(l->key[i] & 0xffffffff));
    free(l);
    free(dv);
    /* runs of ALU issues (Example 3's extf and add an element): fewer
     * events than instructions (one each without) */
    dv = example_plan("seed000_example3.mlir", "gfx942", &p, &plan);
    ck_assert(ls_engine_run(&plan, &hw, &r, NULL, &d) == LS_OK);
    ck_assert_msg(r.events < r.instructions, "%lld events for %lld instructions",
                  (long long)r.events, (long long)r.instructions);
    free(dv);
}
END_TEST

static Suite *records_suite(void)
{
    Suite *s = suite_create("records");
    TCase *tc = tcase_create("records");
    tcase_add_test(tc, records_add_up_to_the_run);
    tcase_add_test(tc, stepping);
    tcase_add_test(tc, one_issue_per_scheduler_cycle);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(records_suite)
