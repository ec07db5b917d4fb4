/* test_promote.c: promote_operands -- the copy's derived thread layout
 * and padded buffer (src/plan_promote.c), and the buffer's accesses as the
 * backend compiles them: on NVIDIA the PTX's element accesses merged by
 * ptxas as far as the offsets' alignment goes, on AMD 16 bytes an
 * instruction (ls_plan_promote_pieces), timed by the engine with their
 * bank conflicts. */
#include "engine_util.h"
#include "lanescope/engine.h"

/* promote_operands = [0] on a serial-level row reduction (4 x 1024 f32,
 * two rows a workgroup, one a subgroup, 256-element chunks).  By hand from
 * plan_promote.c's sources: the tile is 2 x 256; deriveThreadTileSizes gives
 * 128 / 32 = 4 elements (512 / 128 threads = 4 as well); the derived layout
 * puts 64 threads on the 64 vectors of a row and 2 on the rows: one 4-wide
 * copy read a thread.  Buffer 2 x (256 + 64 / 32) f32 = 2064 bytes. */
START_TEST(promote_operands_copy)
{
    ls_hw hw;
    ls_diag d;
    ls_diag_clear(&d);
    ck_assert_msg(ls_hw_parse(round_model, "round.hw", &hw, &d) == LS_OK, "%s", d.msg);
    const char *cfg = "workgroup = [2, 0], reduction = [0, 256], thread = [0, 4], lane_basis = "
                      "[[1, 64], [0, 1]], subgroup_basis = [[2, 1], [0, 1]]";
    char text[2048], with[512];
    snprintf(with, sizeof with, "%s, promote_operands = [0]", cfg);
    reduce_text(text, sizeof text, 4, 1024, with, 128);
    ls_sim_result r, plain;
    ls_plan plan;
    simulate(text, &hw, &r, &plan);
    ck_assert(plan.promote[0].on);
    ck_assert_int_eq(plan.n_promoted, 1);
    ck_assert_int_eq(plan.promote[0].shape[0], 2);
    ck_assert_int_eq(plan.promote[0].shape[1], 256);
    ck_assert_int_eq(plan.promote[0].pad, 2);
    ck_assert_int_eq(plan.promote[0].bytes, 2 * 258 * 4);
    ck_assert_int_eq(plan.promote[0].elem_tile[1], 4);
    ck_assert_int_eq(plan.promote[0].thread_tile[0], 2);
    ck_assert_int_eq(plan.promote[0].thread_tile[1], 64);
    ck_assert_int_eq(plan.promote[0].copy_loads, 1);
    ck_assert_int_eq(plan.promote[0].copy_width, 4);
    /* thread 70 copies row 1, columns 24..27: byte (258 + 24) x 4 */
    int64_t y[2];
    ls_plan_promote_coord(&plan, 0, 70, 0, 0, y);
    ck_assert_int_eq(y[0], 1);
    ck_assert_int_eq(y[1], 24);
    ck_assert_int_eq(ls_plan_promote_offset(&plan, 0, y), (258 + 24) * 4);
    /* 2 workgroups x 4 iterations: two barriers each; per subgroup one
     * buffer write and one read of 4 f32 each.  On an NVIDIA target (sm_0)
     * the PTX accesses each f32 and ptxas merges them as far as the
     * offsets' alignment goes (plan_promote.c): every thread's offset is
     * row x 1032 + 16 x column, a multiple of 8 -- so two 8-byte accesses
     * a vector.  Each: 64 lanes 16 bytes apart in 4 phases of 16 lanes (8
     * bytes a lane on 32 4-byte banks), words 4l and 4l + 1: 2 lanes a
     * bank, degree 2 a phase, 8 an access, 16 cycles a vector */
    const ls_stage_stats *la = &r.stage[LS_STAGE_LOAD_ACCUMULATE];
    ck_assert_int_eq(la->barriers, 2 * 4 * 2);
    int64_t rel[9], sizes[9], bytes;
    ls_problem *np;
    ls_derived *nd;
    ls_plan nv; /* simulate's plan points at freed problems: plan it again */
    plan_text(text, hw.arch, &np, &nd, &nv);
    for (int a = 0; a < 2; a++) { /* the copy's store, the compute read */
        ck_assert_int_eq(ls_plan_promote_pieces(&nv, 0, a, rel, sizes), 2);
        ck_assert_int_eq(rel[0], 0);
        ck_assert_int_eq(rel[1], 8);
        ck_assert_int_eq(sizes[0], 8);
        ck_assert_int_eq(sizes[1], 8);
    }
    free(nd);
    free(np);
    ck_assert_int_eq(la->smem_accesses, 2 * 4 * 2 * (2 + 2));
    ck_assert_int_eq(la->smem_max_degree, 8);
    ck_assert_int_eq(la->smem_cycles, 2 * 4 * 2 * (2 + 2) * 8);
    /* the merging rule: four elements at most, as far as the alignment
     * goes; on AMD one instruction per 16 bytes (ROCm aligns the buffer to
     * 16 bytes, AMDGPU takes any alignment: ds_write_b128) */
    ck_assert_int_eq(ls_plan_promote_accesses(&plan, 0, 4, 16, &bytes), 1);
    ck_assert_int_eq(bytes, 16);
    ck_assert_int_eq(ls_plan_promote_accesses(&plan, 0, 4, 4, &bytes), 4);
    ck_assert_int_eq(bytes, 4);
    ck_assert_int_eq(ls_plan_promote_accesses(&plan, 0, 8, 16, &bytes), 2);
    {
        ls_problem *ap;
        ls_derived *ad;
        ls_plan amd;
        plan_text(text, "gfx942", &ap, &ad, &amd);
        ck_assert_int_eq(ls_plan_promote_pieces(&amd, 0, 0, rel, sizes), 1);
        ck_assert_int_eq(sizes[0], 16);
        ck_assert_int_eq(ls_plan_promote_accesses(&amd, 0, 8, 2, &bytes), 2);
        ck_assert_int_eq(bytes, 16);
        free(ad);
        free(ap);
    }
    /* the same config without promotion: the same global traffic, no
     * buffer, no barrier, and faster */
    reduce_text(text, sizeof text, 4, 1024, cfg, 128);
    simulate(text, &hw, &plain, NULL);
    ck_assert_int_eq(plain.stage[LS_STAGE_LOAD_ACCUMULATE].global_bytes, la->global_bytes);
    ck_assert_int_eq(la->global_bytes, 4 * 1024 * 4);
    ck_assert_int_eq(plain.stage[LS_STAGE_LOAD_ACCUMULATE].smem_accesses, 0);
    ck_assert_int_eq(plain.stage[LS_STAGE_LOAD_ACCUMULATE].barriers, 0);
    ck_assert_int_gt(r.cycles, plain.cycles);
    /* the init is not an input: refused, naming the rule */
    snprintf(with, sizeof with, "%s, promote_operands = [1]", cfg);
    reduce_text(text, sizeof text, 4, 1024, with, 128);
    ls_module *m = load_text(text, &d);
    ls_derived *dv = ls_xcalloc(1, sizeof *dv);
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_derive(&m->problems[0], dv, &d), LS_ERR_INVALID);
    ck_assert_msg(strstr(d.msg, "promote_operands[0] = 1 is the init") != NULL, "%s", d.msg);
    free(dv);
    free(m);
}
END_TEST

/* The suite's mv_promote01_r4_s4 on sm_90 (32000 x 4096 f16 rows, both
 * inputs promoted, 4 rows a workgroup of 4 subgroups, 256 columns an
 * iteration): the matrix buffer's rows are 256 + 4 halves, 520 bytes apart,
 * so every thread's offsets are multiples of 8 -- a copy's 8 halves and a
 * compute read's 8 are two 8-byte accesses each; the vector's copy is 2
 * halves (128 threads over 256), one 4-byte access; its compute read of 8
 * halves at 16-byte offsets is capped at four elements, two 8-byte
 * accesses.  This is what ptxas made of the CUDA path's PTX for the case:
 * 2 x STS.64 + 1 x STS.32 and 4 x LDS.64 an iteration (CUDA 13.0,
 * tools/ptxas-shared-merges.py reads the same opcodes). */
START_TEST(nvidia_pieces_as_ptxas_merges)
{
    ls_problem p;
    ls_plan plan;
    ls_derived *d = example_plan("suite/mv_promote01_r4_s4.mlir", "sm_90", &p, &plan);
    ck_assert(plan.promote[0].on && plan.promote[1].on);
    ck_assert_int_eq(plan.promote[0].copy_loads, 1);
    ck_assert_int_eq(plan.promote[1].copy_loads, 1);
    int64_t rel[17], bytes[17];
    /* input 0: its copy store, then its compute read */
    for (int a = 0; a < 2; a++) {
        ck_assert_int_eq(ls_plan_promote_pieces(&plan, 0, a, rel, bytes), 2);
        ck_assert_int_eq(rel[1] - rel[0], 8);
        ck_assert_int_eq(bytes[0], 8);
        ck_assert_int_eq(bytes[1], 8);
    }
    ck_assert_int_eq(ls_plan_promote_pieces(&plan, 1, 0, rel, bytes), 1);
    ck_assert_int_eq(bytes[0], 4);
    ck_assert_int_eq(ls_plan_promote_pieces(&plan, 1, 1, rel, bytes), 2);
    ck_assert_int_eq(bytes[0], 8);
    /* the engine issues and counts them: 7 workgroup-memory accesses a
     * subgroup an iteration (8000 workgroups x 4 subgroups x 16) */
    ls_hw hw;
    ls_diag dg;
    ls_diag_clear(&dg);
    ck_assert_msg(ls_hw_load("h100", &hw, &dg) == LS_OK, "%s", dg.msg);
    ls_sim_result r;
    ck_assert_msg(ls_engine_run(&plan, &hw, &r, NULL, &dg) == LS_OK, "%s", dg.msg);
    ck_assert_int_eq(r.stage[LS_STAGE_LOAD_ACCUMULATE].smem_accesses, 7 * 8000 * 4 * 16);
    free(d);
}
END_TEST

static Suite *promote_suite(void)
{
    Suite *s = suite_create("promote");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, promote_operands_copy);
    tcase_add_test(tc, nvidia_pieces_as_ptxas_merges);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(promote_suite)
