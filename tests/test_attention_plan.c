/* test_attention_plan.c: stepping and listing an attention's kernel --
 * `sim --dump-plan`'s facts (src/attention_dump.c) against IREE's pipeline
 * test's CHECK lines, the stepper's timeline and every thread's carried
 * values after K2 steps (sim/attention_snapshot.c) against scores computed
 * here, and a tile past its dim taken as the dim (ls_att_extent). */
#include <math.h>

#include "attention_util.h"
#include "lanescope/stepper.h"

/* `sim --dump-plan`'s facts for IREE's pipeline cases #1 and #2 on gfx942
 * against the test's CHECK lines: the loop `scf.for 0 to 4096 step 128`,
 * the QK contract's types (Q vector<1x1x1x1x1x1x1x1x32xf16>, K
 * vector<1x1x1x1x1x1x1x4x32xf16>, S vector<1x1x1x1x1x1x1x1x4xf32> for
 * #1 and, K2 a batch dim once partially tiled, vector<1x1x1x1x1x1x1x4x1xf32>
 * for #2), and the gpu.subgroup_reduce counts (#1 per step: 4 add, 1
 * maximumf, 1 add, 8 add; #2: 4 in the loop, then 1 maximumf and 8 add,
 * the sum's merge erased).  The derived ones (docs/attention-lowering.md
 * §6.1): V and the acc, 2 barriers a step for the promoted K and V. */
START_TEST(plan_pipeline_cases)
{
    char ir[8192];
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_attention a;
    ls_diag d;
    ls_hw hw;
    ls_att_view *v;
    ls_att_plan p;
    ck_assert(ls_hw_load("mi300x", &hw, &d) == LS_OK);
    for (int partial = 0; partial < 2; partial++) {
        memset(m, 0, sizeof *m);
        pipeline_stored_ir(ir, sizeof ir, partial ? "partial_reduction" : "reduction");
        ck_assert_msg(build_attention(ir, "gfx942", m, &a, &d) == LS_OK, "%s", d.msg);
        ck_assert_msg(ls_attention_view(m, &m->attentions[0], &a, &hw, &v, &d) == LS_OK, "%s",
                      d.msg);
        ls_att_plan_of(m, &m->attentions[0], v, &p);
        ck_assert_int_eq(p.n_loops, 1);
        ck_assert_int_eq(p.loop_dim[0], 3);
        ck_assert_int_eq(p.loop_upper[0], 4096);
        ck_assert_int_eq(p.loop_step[0], 128);
        ck_assert_int_eq(p.iterations, 32);
        ck_assert_str_eq(p.q_vec, "vector<1x1x1x1x1x1x1x1x32xf16>");
        ck_assert_str_eq(p.k_vec, "vector<1x1x1x1x1x1x1x4x32xf16>");
        ck_assert_str_eq(p.v_vec, "vector<1x1x2x1x1x1x1x4x4xf16>");
        ck_assert_int_eq(p.chain, 32);
        ck_assert_int_eq(p.barriers_step, 2);
        ck_assert_str_eq(p.step[0].what, "S");
        ck_assert_int_eq(p.step[0].subgroup_reduces, 4);
        ck_assert_int_eq(p.step[0].red->lane[0].cluster_size, 2);
        ck_assert_int_eq(p.step[0].red->lane[0].cluster_stride, 32);
        if (!partial) {
            ck_assert_str_eq(p.s_vec, "vector<1x1x1x1x1x1x1x1x4xf32>");
            ck_assert_str_eq(p.acc_vec, "vector<1x1x2x1x1x1x1x1x4xf32>");
            ck_assert_int_eq(p.n_step, 4);
            ck_assert_str_eq(p.step[1].kind, "maximumf");
            ck_assert_int_eq(p.step[1].subgroup_reduces, 1);
            ck_assert_int_eq(p.step[1].red->lane[0].cluster_size, 32);
            ck_assert_int_eq(p.step[2].subgroup_reduces, 1);
            ck_assert_int_eq(p.step[3].subgroup_reduces, 8);
            ck_assert_int_eq(p.subgroup_reduces_step, 14);
            ck_assert_int_eq(p.n_merge, 0);
        } else {
            ck_assert_str_eq(p.s_vec, "vector<1x1x1x1x1x1x1x4x1xf32>");
            ck_assert_str_eq(p.state_vec, "vector<1x1x1x1x1x1x4x1x1xf32>");
            ck_assert_int_eq(p.n_step, 1);
            ck_assert_int_eq(p.subgroup_reduces_step, 4);
            ck_assert_int_eq(p.n_merge, 2); /* max, acc: the unstored sum's is erased */
            ck_assert_str_eq(p.merge[0].kind, "maximumf");
            ck_assert_int_eq(p.merge[0].subgroup_reduces, 1);
            ck_assert_str_eq(p.merge[1].what, "acc");
            ck_assert_int_eq(p.merge[1].subgroup_reduces, 8);
            ck_assert_int_eq(p.subgroup_reduces_merge, 9);
            ck_assert_int_eq(p.barriers_merge, 0); /* no subgroups on K2 */
            ck_assert_int_eq(p.exp2_merge, 4);     /* a weight per slot */
        }
        ls_att_view_free(v);
    }
    free(m);
}
END_TEST

/* S of key k (batch 0, row 0) as the lowered kernel means it: Q' = Q x s'
 * rounded to f16 (s' = 0.125 x log2e in f16), dotted with K's row, in
 * double: IREE's base-2 scores, computed here from the generator alone. */
static double score_of(int64_t k)
{
    double l2e = ls_value_to_double(ls_value_from_double(1.44269504088896340736, LS_ET_F16),
                                    LS_ET_F16);
    double sp = ls_value_to_double(ls_value_from_double(0.125 * l2e, LS_ET_F16), LS_ET_F16);
    double s = 0;
    for (int64_t j = 0; j < 64; j++) {
        double q = ls_value_to_double(ls_value_from_double(input_f16(1, 0, j) * sp, LS_ET_F16),
                                      LS_ET_F16);
        s += q * input_f16(1, 1, k * 64 + j);
    }
    return s;
}

/* Stepping (attention.h): case #2 (partial_reduction, 4 subgroups, 128
 * keys a step) on gfx942.  The engine's timeline of workgroup 0 through
 * ls_stepper: its stages in the kernel's order, 2 barriers a step (the
 * promoted K and V), 32 steps.  After 3 steps each thread's key slots
 * (keys 4 (l mod 32) + j of each 128) hold the running max of their keys'
 * scores and the sum of exp2(S - max), each checked against scores
 * computed here; lanes l and l + 32 and the 4 subgroups replicate them.
 * After the loop and the merge every thread's acc / sum is the softmax
 * attention of an independent reference at its 8 output columns (8s + 4b
 * + e). */
START_TEST(snapshot_steps)
{
    char ir[8192];
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_attention a;
    ls_diag d;
    ls_hw hw;
    ls_att_view *v;
    ck_assert(ls_hw_load("mi300x", &hw, &d) == LS_OK);
    pipeline_stored_ir(ir, sizeof ir, "partial_reduction");
    ck_assert_msg(build_attention(ir, "gfx942", m, &a, &d) == LS_OK, "%s", d.msg);
    ck_assert_msg(ls_attention_view(m, &m->attentions[0], &a, &hw, &v, &d) == LS_OK, "%s", d.msg);
    ls_stepper *st;
    ck_assert_msg(ls_stepper_new(ls_att_view_plan(v), &hw, (ls_input_source){1, NULL, {NULL}}, 0,
                                 &st, &d) == LS_OK,
                  "%s", d.msg);
    int barriers = 0;
    while (ls_stepper_forward(st, LS_STEP_BARRIER))
        barriers++;
    ck_assert_int_eq(barriers, 2 * 32);
    while (ls_stepper_back(st, LS_STEP_EVENT))
        ;
    /* the stages the workgroup passes through: the loop, the merge's local
     * combines, lane steps and inits, the epilogue, the stores; no
     * cross-subgroup round (no subgroups on K2) */
    bool seen[LS_STAGE_COUNT] = {false};
    ls_stage first = LS_STAGE_COUNT, final = LS_STAGE_COUNT;
    while (ls_stepper_forward(st, LS_STEP_STAGE)) {
        const ls_engine_record *r = ls_stepper_record(st, ls_stepper_position(st));
        seen[r->stage] = true;
        first = first == LS_STAGE_COUNT ? r->stage : first;
        final = r->stage;
    }
    ck_assert_int_eq(first, LS_STAGE_LOAD_ACCUMULATE);
    ck_assert_int_eq(final, LS_STAGE_STORE);
    for (int i = 0; i < LS_STAGE_COUNT; i++)
        ck_assert_int_eq(seen[i], i != LS_STAGE_CROSS_SUBGROUP);
    while (ls_stepper_back(st, LS_STEP_EVENT))
        ;
    int64_t last_iteration = -1;
    while (ls_stepper_forward(st, LS_STEP_INSTRUCTION)) {
        ls_func_point pt = ls_stepper_point(st, 0);
        if (pt.stage == LS_STAGE_LOAD_ACCUMULATE && pt.iterations > last_iteration)
            last_iteration = pt.iterations;
    }
    ck_assert_int_eq(last_iteration, 31);
    ls_stepper_free(st);
    ls_att_view_free(v);

    ls_plan_target t = ls_plan_target_from_arch("gfx942");
    ls_att_snapshot snap;
    ck_assert_msg(ls_att_snapshot_at(m, &m->attentions[0], &a, t, 1, 0, 3, false, &snap, &d) ==
                      LS_OK,
                  "%s", d.msg);
    ck_assert_int_eq(snap.threads, 256);
    ck_assert_int_eq(snap.state_per_thread, 4);
    ck_assert_int_eq(snap.acc_per_thread, 4 * 8);
    for (int64_t tid = 0; tid < 256; tid++) {
        int64_t l = tid % 64;
        for (int64_t j = 0; j < 4; j++) {
            int64_t slot = 4 * (l % 32) + j;
            double mx = -INFINITY, sum = 0;
            for (int64_t i = 0; i < 3; i++)
                mx = fmax(mx, score_of(i * 128 + slot));
            for (int64_t i = 0; i < 3; i++)
                sum += exp2(score_of(i * 128 + slot) - mx);
            REQUIRE(fabs(snap.max[tid * 4 + j] - mx) < 1e-4 * (1 + fabs(mx)),
                    "thread %lld slot %lld: max %.6f, want %.6f", (long long)tid,
                    (long long)slot, snap.max[tid * 4 + j], mx);
            REQUIRE(fabs(snap.sum[tid * 4 + j] - sum) < 1e-4 * sum,
                    "thread %lld slot %lld: sum %.6f, want %.6f", (long long)tid,
                    (long long)slot, snap.sum[tid * 4 + j], sum);
        }
    }
    ls_att_snapshot_free(&snap);
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_att_snapshot_at(m, &m->attentions[0], &a, t, 1, 0, 3, true, &snap, &d),
                     LS_ERR_INVALID);
    ck_assert_msg(strstr(d.msg, "3 K2 steps and the merge: the loop has 32"), "%s", d.msg);
    ck_assert_msg(ls_att_snapshot_at(m, &m->attentions[0], &a, t, 1, 0, 32, true, &snap, &d) ==
                      LS_OK,
                  "%s", d.msg);
    ck_assert_int_eq(snap.state_per_thread, 1);
    ck_assert_int_eq(snap.acc_per_thread, 8);
    for (int64_t tid = 0; tid < 256; tid++)
        for (int64_t b = 0; b < 2; b++)
            for (int64_t e = 0; e < 4; e++) {
                int64_t n = 8 * (tid / 64) + 4 * b + e;
                double got = snap.acc[tid * 8 + b * 4 + e] / snap.sum[tid];
                double ref = softmax_oracle(1, 0, n, 64, 4096, 64, 0.125);
                REQUIRE(fabs(got - ref) < 5e-3, "thread %lld column %lld: %.6f, want %.6f",
                        (long long)tid, (long long)n, got, ref);
            }
    ls_att_snapshot_free(&snap);
    free(m);
}
END_TEST

/* A workgroup tile past its dim (the N tile 128 of a 64-wide N, as some of
 * setAttentionReductionConfig's seeds give) is the dim: static tiling folds
 * min(128, 64) to 64, so both matmuls lay 64 out and agree (they did not
 * when the PV's bound was the tile); the kernel is timed, its values run. */
START_TEST(tile_past_the_dim)
{
    char ir[8192];
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_attention a;
    ls_diag d;
    pipeline_stored_ir(ir, sizeof ir, "partial_reduction");
    char *at = strstr(ir, "workgroup = [1, 1, 0, 0, 32]");
    ck_assert_ptr_nonnull(at);
    memcpy(at, "workgroup = [1, 1, 0, 0, 99]", 28); /* 99 > 64: one tile, clamped */
    /* unpromoted: a 128 x 64 value tile has no derived copy layout on 256
     * threads (IREE's GPUVectorAlloc fails the same way) */
    for (char *p; (p = strstr(ir, ", promote_operands = [1]")) != NULL;)
        memmove(p, p + 24, strlen(p + 24) + 1);
    ck_assert_msg(build_attention(ir, "gfx942", m, &a, &d) == LS_OK, "%s", d.msg);
    ck_assert_int_eq(a.workgroups, 20);
    ck_assert_int_eq(a.pv.bound[3], 64);
    ck_assert_int_eq(ls_att_extent(&a, 4), 64);
    ls_sim_result r;
    time_attention(m, &a, "mi300x", &r); /* and its plan agrees with the engine */
    /* V in one N tile, read by both replicas (lanes l and l + 32: the PV's
     * unmapped lane entry), as case #2's two N tiles are */
    ck_assert_int_eq(r.operand[1].global_bytes, 2 * 20 * 4096 * 64 * 2);
    ls_att_check chk;
    ck_assert_msg(ls_attention_values(m, &m->attentions[0], &a, ls_plan_target_from_arch("gfx942"),
                                      1, 1, &chk, &d) == LS_OK,
                  "%s", d.msg);
    ck_assert_int_eq(chk.mismatches, 0);
    ck_assert_int_eq(chk.outputs_checked, 64);
    free(m);
}
END_TEST

static Suite *attention_plan_suite(void)
{
    Suite *s = suite_create("attention_plan");
    TCase *tc = tcase_create("plan");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, plan_pipeline_cases);
    tcase_add_test(tc, snapshot_steps);
    tcase_add_test(tc, tile_past_the_dim);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(attention_plan_suite)
