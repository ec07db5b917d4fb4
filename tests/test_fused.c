/* test_fused.c: a dispatch's reductions and stored elementwise ops as the
 * one kernel IREE builds (fused.h, src/fused.c, sim/engine_fused.c):
 * which ops become loops and what they read from registers, the kernel's
 * counts against the loops timed on their own (IREE's
 * reduction_pipeline_cuda.mlir @softmax: a max loop, a sum loop, then a
 * loop that reads x again, divides and writes), the re-reads found in the
 * caches, the multi-loop scoreboard against one entry per instruction,
 * and the reasons a dispatch is timed apart. */
#include "lanescope/engine.h"
#include "lanescope/fused.h"
#include "lanescope/hwmodel.h"
#include "lanescope/suggest.h"

#include "../sim/engine_internal.h"
#include "fused_util.h"
#include "lanescope/body_issue.h"

static void run(const ls_plan *pl, const ls_hw *hw, ls_sim_result *r, bool plain)
{
    ls_engine_opts o = {.plain_scoreboard = plain};
    ls_diag d;
    ls_diag_clear(&d);
    ck_assert_msg(ls_engine_run(pl, hw, r, &o, &d) == LS_OK, "%s", d.msg);
}

/* The loops and what each reads from registers. */
START_TEST(softmax_is_three_loops)
{
    char ir[8192];
    softmax_ir(ir, sizeof ir, RED_CFG, RED_CFG, EW_CFG);
    kernel *k = kernel_of(ir, "h100");
    ck_assert_msg(k->fused, "%s", k->why);
    const ls_fused_kernel *f = &k->k;
    ck_assert_int_eq(f->n_phases, 3);
    ck_assert_int_eq(f->phase[0].problem, 0);
    ck_assert_int_eq(f->phase[1].problem, 1);
    ck_assert(f->phase[2].elementwise && f->phase[2].problem == -1);
    ck_assert(!f->phase[0].store && !f->phase[1].store); /* kept in registers, never stored */
    /* one tensor loaded, x, by all three loops; the max and the sum from
     * the loops before */
    ck_assert_int_eq(f->problem.n_inputs, 1);
    ck_assert_str_eq(f->problem.inputs[0].name, "%x");
    ck_assert_int_eq(f->phase[0].operand[0], 0);
    ck_assert_int_eq(f->phase[1].operand[0], 0);
    ck_assert_int_eq(f->phase[1].operand[1], -1);
    ck_assert_int_eq(f->phase[1].held[1], 0);
    ck_assert_int_eq(f->phase[2].operand[0], 0);
    ck_assert_int_eq(f->phase[2].held[1], 0);
    ck_assert_int_eq(f->phase[2].held[2], 1);
    /* a trip's tile is 512 elements over 4 subgroups: each writes 128 f32,
     * one 4-wide vector a thread */
    ck_assert_int_eq(f->phase[2].stores, 1);
    ck_assert_int_eq(f->phase[2].store_bytes, 512);
    /* each reduction's buffer is its own allocation */
    ck_assert_int_eq(f->plan.buffer_bytes, k->plans[0].buffer_bytes + k->plans[1].buffer_bytes);
    kernel_free(k);
}
END_TEST

/* The kernel's counts are its loops': the reductions' own runs without
 * their stores, plus the elementwise loop's loads, body ops and stores. */
START_TEST(softmax_counts_are_its_loops)
{
    char ir[8192];
    softmax_ir(ir, sizeof ir, RED_CFG, RED_CFG, EW_CFG);
    kernel *k = kernel_of(ir, "h100");
    ck_assert_msg(k->fused, "%s", k->why);
    ls_sim_result rf, r0, r1;
    run(&k->k.plan, &k->hw, &rf, false);
    run(&k->plans[0], &k->hw, &r0, false);
    run(&k->plans[1], &k->hw, &r1, false);
    const ls_plan *ew = k->k.phase[2].plan;
    int64_t sgs = 64 * 4, trips = 8;
    ck_assert_int_eq(rf.n_loops, 3);
    ck_assert_int_eq(rf.loop_trips[2], trips);
    /* loads (1 vector) and per element the body: subf, exp, divf as sm_90 emits them */
    int64_t ew_la = trips * sgs * (1 + 4 * (ew->body_machine_alu_ops + ew->body_sfu_ops));
    ck_assert_int_gt(ew->body_sfu_ops, 0);
    ck_assert_int_eq(rf.stage[LS_STAGE_LOAD_ACCUMULATE].instructions,
                     r0.stage[LS_STAGE_LOAD_ACCUMULATE].instructions +
                         r1.stage[LS_STAGE_LOAD_ACCUMULATE].instructions + ew_la);
    for (int s = LS_STAGE_THREAD_REDUCE; s < LS_STAGE_STORE; s++) {
        ck_assert_int_eq(rf.stage[s].instructions, r0.stage[s].instructions + r1.stage[s].instructions);
        ck_assert_int_eq(rf.stage[s].barriers, r0.stage[s].barriers + r1.stage[s].barriers);
        ck_assert_int_eq(rf.stage[s].shuffles, r0.stage[s].shuffles + r1.stage[s].shuffles);
    }
    ck_assert_int_gt(rf.stage[LS_STAGE_CROSS_SUBGROUP].barriers, 0);
    /* the only stores: the elementwise loop's, one a trip, the whole result */
    ck_assert_int_eq(rf.stage[LS_STAGE_STORE].instructions, trips * sgs);
    ck_assert_int_eq(rf.stage[LS_STAGE_STORE].global_bytes, 64 * 4096 * 4);
    /* x is read three times, from DRAM once: the row (16 KiB) stays in the
     * caches between the loops */
    int64_t x_bytes = 64 * 4096 * 4;
    ck_assert_int_eq(rf.stage[LS_STAGE_LOAD_ACCUMULATE].global_bytes, 3 * x_bytes);
    ck_assert_int_eq(rf.operand[0].dram_bytes, x_bytes);
    ck_assert_int_eq(rf.operand[0].l1_hits + rf.operand[0].sector_hits,
                     2 * rf.operand[0].sectors / 3);
    ck_assert_int_eq(rf.dram_bytes, 2 * x_bytes);
    /* longer than either reduction alone */
    ck_assert_int_gt(rf.cycles, r0.cycles);
    ck_assert_int_gt(rf.cycles, r1.cycles);
    kernel_free(k);
}
END_TEST

/* The shared scoreboard entries across several loops give the figures
 * of one entry per instruction; the same input, the same figures. */
START_TEST(softmax_scoreboard_and_determinism)
{
    char ir[8192];
    softmax_ir(ir, sizeof ir, RED_CFG, RED_CFG, EW_CFG);
    kernel *k = kernel_of(ir, "h100");
    ck_assert_msg(k->fused, "%s", k->why);
    ls_sim_result a, b, c;
    run(&k->k.plan, &k->hw, &a, false);
    run(&k->k.plan, &k->hw, &b, true);
    run(&k->k.plan, &k->hw, &c, false);
    ck_assert_int_eq(a.cycles, b.cycles);
    ck_assert_int_eq(a.cycles, c.cycles);
    ck_assert_int_eq(a.events, c.events);
    for (int s = 0; s < LS_STAGE_COUNT; s++) {
        ck_assert_int_eq(a.stage[s].critical_cycles, b.stage[s].critical_cycles);
        ck_assert_int_eq(a.stage[s].subgroup_cycles, b.stage[s].subgroup_cycles);
    }
    kernel_free(k);
}
END_TEST

/* The program: a later loop's use of a value from registers waits for
 * the instruction that made it, the last of the loop before's reduce. */
START_TEST(held_values_wait_for_their_reduce)
{
    char ir[8192];
    softmax_ir(ir, sizeof ir, RED_CFG, RED_CFG, EW_CFG);
    kernel *k = kernel_of(ir, "h100");
    ck_assert_msg(k->fused, "%s", k->why);
    engine e;
    ls_sim_result r;
    int64_t total;
    ls_diag d;
    ls_diag_clear(&d);
    ck_assert(ls_engine_prepare(&e, &k->k.plan, &k->hw, &r, NULL, &total, &d) == LS_OK);
    ck_assert_int_eq(e.n_loops, 3);
    for (int l = 1; l < 3; l++) {
        int latest = -1;
        for (int i = e.loops[l].begin; i < e.loops[l].end; i++)
            for (int s = 0; s < LS_TINST_DEPS; s++) {
                int p = e.code[i].dep[s];
                if (e.code[i].kind == I_GLOAD || p < 0 || p >= e.loops[l].begin)
                    continue;
                /* a reduction's result: after its loop, its combine */
                ck_assert_int_eq(e.code[p].loop, -1);
                ck_assert_int_eq(e.code[p].stage, LS_STAGE_ACC_COMBINE);
                latest = p > latest ? p : latest;
            }
        /* the loop before's own result among them (the sum's loop reads
         * the max; the division reads the max and the sum) */
        ck_assert_msg(latest >= e.loops[l - 1].end, "loop %d: latest %d", l, latest);
    }
    /* the loops run their own trips, counted on from one to the next */
    ck_assert_int_eq(e.loops[1].trip0, e.loops[0].trips);
    ck_assert_int_eq(e.loops[2].trip0, e.loops[0].trips + e.loops[1].trips);
    free(e.code);
    kernel_free(k);
}
END_TEST

static void apart(const char *max_cfg, const char *sum_cfg, const char *ew_cfg, const char *why)
{
    char ir[8192];
    softmax_ir(ir, sizeof ir, max_cfg, sum_cfg, ew_cfg);
    kernel *k = kernel_of(ir, "h100");
    ck_assert_msg(!k->fused, "fused, expected: %s", why);
    ck_assert_msg(strstr(k->why, why) != NULL, "%s; expected: %s", k->why, why);
    kernel_free(k);
}

START_TEST(dispatches_timed_apart_say_why)
{
    /* the sum tiled 8 a thread, 1024 a trip */
    apart(RED_CFG,
          "#iree_gpu.lowering_config<{workgroup = [1, 0], partial_reduction = [0, 1024], thread "
          "= [0, 8], lane_basis = [[1, 32], [0, 1]], subgroup_basis = [[1, 4], [0, 1]]}>",
          EW_CFG, "tiled differently");
    /* the division in a layout of its own, reading the max and the sum of
     * two rows a workgroup, which its threads do not all hold */
    apart(RED2_CFG, RED2_CFG,
          "#iree_gpu.lowering_config<{serial = [0, 1024], thread = [0, 8], lane_basis = [[1, "
          "32], [0, 1]], subgroup_basis = [[1, 4], [0, 1]]}>",
          "not one value every thread holds");
    /* its serial tile leaving a ragged last tile (4096 = 3 x 1280 + 256) */
    apart(RED_CFG, RED_CFG,
          "#iree_gpu.lowering_config<{serial = [0, 1280], thread = [0, 10], lane_basis = [[1, "
          "32], [0, 1]], subgroup_basis = [[1, 4], [0, 1]]}>",
          "ragged last tile");
    /* a serial tile on the dim the workgroups share */
    apart(RED_CFG, RED_CFG,
          "#iree_gpu.lowering_config<{serial = [1, 512], thread = [0, 4], lane_basis = [[1, "
          "32], [0, 1]], subgroup_basis = [[1, 4], [0, 1]]}>",
          "tiles a dim the workgroups share");
    /* a reduction level on an op without reduction loops */
    apart(RED_CFG, RED_CFG,
          "#iree_gpu.lowering_config<{serial = [0, 512], reduction = [0, 512], thread = [0, 4], "
          "lane_basis = [[1, 32], [0, 1]], subgroup_basis = [[1, 4], [0, 1]]}>",
          "reduction tiling level");
    /* no config on the division, the reductions' written: not guessed */
    apart(RED_CFG, RED_CFG, NULL, "does not guess its tiling");
}
END_TEST


/* The division of a softmax with its own config (8 elements a thread, 1024
 * a trip, against the reductions' 4 and 512): a loop of its own layout,
 * 4 trips, that IREE's kernel runs after the reductions as it runs theirs;
 * its stores cover the result once. */
START_TEST(division_in_its_own_layout)
{
    char ir[8192];
    softmax_ir(ir, sizeof ir, RED_CFG, RED_CFG,
               "#iree_gpu.lowering_config<{serial = [0, 1024], thread = [0, 8], lane_basis = "
               "[[1, 32], [0, 1]], subgroup_basis = [[1, 4], [0, 1]]}>");
    kernel *k = kernel_of(ir, "h100");
    ck_assert_msg(k->fused, "%s", k->why);
    const ls_fused_phase *ph = &k->k.phase[2];
    ck_assert(ph->elementwise && ph->own_layout);
    ck_assert_int_eq(ph->writers, 4); /* its layout spans every subgroup */
    ck_assert_int_eq(ph->plan->iterations, 4);
    ck_assert_int_eq(ph->plan->derived->layout.element_tile[1], 8); /* not packed */
    ck_assert_int_eq(ph->store_width, 8);
    ck_assert_int_eq(ph->store_bytes, 32 * 8 * 4);
    ls_sim_result r;
    run(&k->k.plan, &k->hw, &r, false);
    ck_assert_int_eq(r.loop_trips[2], 4);
    ck_assert_int_eq(r.stage[LS_STAGE_STORE].global_bytes, 64 * 4096 * 4);
    /* x is one tensor read in two layouts: the division's reads hit the
     * lines the reductions brought in */
    ck_assert_int_eq(r.dram_bytes, 2 * 64 * 4096 * 4);
    kernel_free(k);
}
END_TEST

/* A layer norm over NHWC images of 3 channels (tests/data): IREE's
 * heuristic gives the normalisation, whose loops are not the reductions'
 * order, one element a thread on one lane of one subgroup
 * (ReductionConfigUtils.cpp: gcd(3, workgroup x loads) = 1), so its loop
 * has 8192 x 3 trips that every subgroup runs, and only subgroup 0 (its
 * lane 0) writes (GPUNestedLayoutDistributionPatterns.cpp's no-overlap
 * condition on transfer_write). */
START_TEST(small_channel_norm_loop_in_its_own_layout)
{
    kernel *k = nhwc_norm_kernel();
    ck_assert_int_eq(k->k.n_phases, 3);
    const ls_fused_phase *ph = &k->k.phase[2];
    ck_assert(ph->elementwise && ph->own_layout);
    ck_assert_int_eq(ph->writers, 1);
    ck_assert_int_eq(ph->plan->derived->num_subgroups, 32);
    ck_assert_int_eq(ph->plan->iterations, 8192 * 3);
    ck_assert_int_eq(ph->stores * ph->store_bytes, 2);
    /* its inputs: x again (in its own loops), gamma; the sums held */
    ck_assert_int_eq(k->k.problem.n_inputs, 3);
    ck_assert(k->k.phase[k->k.input_phase[1]].own_layout);
    int a;
    const ls_plan *sp = ls_fused_input_space(&k->k, 1, &a);
    ck_assert_ptr_eq(sp, ph->plan);
    ck_assert_str_eq(sp->problem->inputs[a].name, "%x");
    ls_sim_result r;
    run(&k->k.plan, &k->hw, &r, false);
    ck_assert_int_eq(r.loop_trips[2], 8192 * 3);
    /* every output element written once: 32 subgroups run the stores,
     * one of them writes */
    int64_t out = 4 * 8192 * 3 * 2;
    ck_assert_int_eq(r.stage[LS_STAGE_STORE].instructions, 4 * 32 * 8192 * 3);
    ck_assert_int_eq(r.stage[LS_STAGE_STORE].global_bytes, out);
    /* x from DRAM once; the loop's reads of it hit the caches */
    ck_assert_int_eq(r.operand[0].dram_bytes, out);
    ck_assert_int_eq(r.operand[1].dram_bytes, 0);
    ck_assert_int_gt(r.operand[1].global_bytes, 0);
    /* the one-element loop, not the reductions, takes the time: a trip is
     * a load's round trip at least */
    ck_assert_int_gt(r.stage[LS_STAGE_LOAD_ACCUMULATE].critical_cycles, 8192 * 3 * 30);
    kernel_free(k);
}
END_TEST

/* A dispatch of 64 x 4096 f32 rows on sm_90 without configs: IREE's
 * heuristic's for every op (as sim applies them), then the kernel of
 * reduction 0.  body: the ops between the binding loads and the stores. */
/* A broadcast of the row sums (IREE's @warp_reduction_broadcast_dispatch
 * in reduction_pipeline_cuda.mlir): its row loop through the sum's result,
 * its column loop by size; it loads nothing, and writes the whole tile. */
START_TEST(broadcast_is_a_loop_of_stores)
{
    kernel *k = heuristic_kernel(
        ROWSUM("%x")
        "  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, "
        "affine_map<(d0, d1) -> (d0, d1)>], iterator_types = [\"parallel\", \"parallel\"]} "
        "ins(%s : tensor<64xf32>) outs(%e2 : tensor<64x4096xf32>) {\n"
        "  ^bb0(%a: f32, %o: f32):\n    linalg.yield %a : f32\n  } -> tensor<64x4096xf32>\n",
        STORE_FULL("%y"));
    ck_assert_msg(k->fused, "%s", k->why);
    ck_assert_int_eq(k->k.n_phases, 2);
    ck_assert(k->k.phase[1].elementwise && !k->k.phase[1].epilogue);
    ck_assert_int_eq(k->k.phase[1].held[0], 0);
    ls_sim_result r;
    run(&k->k.plan, &k->hw, &r, false);
    ck_assert_int_eq(r.stage[LS_STAGE_STORE].global_bytes, 64 * 4096 * 4);
    ck_assert_int_eq(r.stage[LS_STAGE_LOAD_ACCUMULATE].global_bytes, 64 * 4096 * 4);
    ck_assert_int_eq(ls_fused_min_bytes(&k->k), 2 * 64 * 4096 * 4);
    kernel_free(k);
}
END_TEST

/* A stored producer of the reduction (IREE's @test_multiple_stores in
 * config_vector_distribute_reduction_gfx942.mlir): fused into the sum's
 * loop, which writes its tile each trip; one loop, no loop of its own. */
START_TEST(stored_producer_writes_in_the_loop)
{
    kernel *k = heuristic_kernel(
        "  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
        "affine_map<(d0, d1) -> (d0, d1)>], iterator_types = [\"parallel\", \"parallel\"]} "
        "ins(%x : tensor<64x4096xf32>) outs(%e2 : tensor<64x4096xf32>) {\n"
        "  ^bb0(%a: f32, %o: f32):\n    %m = arith.mulf %a, %two : f32\n"
        "    linalg.yield %m : f32\n  } -> tensor<64x4096xf32>\n" ROWSUM("%y"),
        STORE_ROWS("%s") STORE_FULL("%y"));
    ck_assert_msg(k->fused, "%s", k->why);
    ck_assert_int_eq(k->k.n_phases, 1);
    ck_assert_int_eq(ls_fused_loop_count(&k->k), 1);
    const ls_fused_phase *ph = &k->k.phase[0];
    ck_assert(ph->store && ph->producer_op >= 0 && ph->producer_stores > 0);
    ls_sim_result r, alone;
    run(&k->k.plan, &k->hw, &r, false);
    run(&k->plans[0], &k->hw, &alone, false);
    /* the sums as the sum alone stores them, and the producer's whole
     * result; x read once */
    ck_assert_int_eq(r.stage[LS_STAGE_STORE].global_bytes,
                     alone.stage[LS_STAGE_STORE].global_bytes + 64 * 4096 * 4);
    ck_assert_int_eq(r.stage[LS_STAGE_LOAD_ACCUMULATE].global_bytes, 64 * 4096 * 4);
    ck_assert_int_eq(r.stage[LS_STAGE_LOAD_ACCUMULATE].instructions,
                     alone.stage[LS_STAGE_LOAD_ACCUMULATE].instructions);
    ck_assert_int_eq(r.stage[LS_STAGE_STORE].instructions,
                     alone.stage[LS_STAGE_STORE].instructions +
                         ph->producer_stores * k->d[0].total_iterations * k->d[0].num_subgroups * 64);
    kernel_free(k);
}
END_TEST

/* An op on the sums only (IREE's @group_elementwise_reduction_elementwise):
 * after the reduce, no loop; the sums kept in registers, its result
 * stored in their place. */
START_TEST(op_on_the_results_is_an_epilogue)
{
    kernel *k = heuristic_kernel(
        ROWSUM("%x")
        "  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> "
        "(d0)>], iterator_types = [\"parallel\"]} ins(%s : tensor<64xf32>) outs(%e1 : "
        "tensor<64xf32>) {\n"
        "  ^bb0(%a: f32, %o: f32):\n    %m = arith.mulf %a, %two : f32\n"
        "    linalg.yield %m : f32\n  } -> tensor<64xf32>\n",
        STORE_ROWS("%y"));
    ck_assert_msg(k->fused, "%s", k->why);
    ck_assert_int_eq(k->k.n_phases, 2);
    ck_assert(k->k.phase[1].epilogue && !k->k.phase[0].store);
    ck_assert_int_eq(k->k.phase[1].held[0], 0);
    ck_assert_int_eq(ls_fused_loop_count(&k->k), 1);
    ls_sim_result r, alone;
    run(&k->k.plan, &k->hw, &r, false);
    run(&k->plans[0], &k->hw, &alone, false);
    /* the same stores as the sum alone would make, one mulf more per result */
    ck_assert_int_eq(r.stage[LS_STAGE_STORE].global_bytes, alone.stage[LS_STAGE_STORE].global_bytes);
    ck_assert_int_eq(r.stage[LS_STAGE_STORE].instructions, alone.stage[LS_STAGE_STORE].instructions);
    ck_assert_int_eq(r.stage[LS_STAGE_ACC_COMBINE].instructions,
                     alone.stage[LS_STAGE_ACC_COMBINE].instructions +
                         k->k.phase[1].epilogue_alu * k->d[0].num_subgroups * 64);
    ck_assert_int_eq(r.n_loops, 2);
    ck_assert_int_eq(r.loop_trips[1], 0);
    kernel_free(k);
}
END_TEST



/* ... and one that also reads a tensor over the output loops (a bias, as
 * IREE's @test_dyn_reduction reads a scale): loaded once a result, outside
 * every loop, a kernel input of its own. */
START_TEST(epilogue_loads_its_bias)
{
    kernel *k = heuristic_kernel(BIAS_EPILOGUE_OPS, STORE_ROWS("%y"));
    ck_assert_msg(k->fused, "%s", k->why);
    ck_assert(k->k.phase[1].epilogue);
    ck_assert_int_eq(k->k.problem.n_inputs, 2); /* x, the bias */
    ck_assert_int_eq(k->k.phase[1].operand[1], 1);
    ck_assert_int_eq(k->k.phase[1].held[0], 0);
    ls_sim_result r;
    run(&k->k.plan, &k->hw, &r, false);
    /* every subgroup loads its results' bias: at least the 256 bytes */
    ck_assert_int_ge(r.operand[1].global_bytes, 64 * 4);
    ck_assert_int_eq(r.operand[0].global_bytes, 64 * 4096 * 4);
    kernel_free(k);
}
END_TEST

/* Property: random configs, the same on the max, the sum and the division
 * (as IREE's heuristic gives them), on h100 (32 lanes) and mi300x (64):
 * every one that lowers is one kernel whose counts are its loops' -- the
 * reductions' own runs without their stores, plus the division's loads,
 * body and stores -- that writes the whole result once, reads x at least
 * once, and times the same with shared and plain scoreboards. */
START_TEST(random_configs_are_their_loops)
{
    uint64_t rng = 0xf05edull;
    int fused = 0;
    for (int trial = 0; trial < 24; trial++) {
        int64_t sg = trial % 2 ? 64 : 32, lr, sgs;
        char red[400], ir[8192];
        if (!random_softmax(&rng, sg, ir, sizeof ir, red, sizeof red, &lr, &sgs))
            continue;
        ls_diag d;
        ls_module *m = load_text(ir, &d);
        REQUIRE(d.status == LS_OK, "trial %d: %s", trial, d.msg);
        kernel *k = kernel_of_module(m, sg == 64 ? "mi300x" : "h100");
        REQUIRE(k->fused, "trial %d (%s): not one kernel: %s", trial, red, k->why);
        fused++;
        ls_sim_result rf, rp, r0, r1;
        run(&k->k.plan, &k->hw, &rf, false);
        run(&k->k.plan, &k->hw, &rp, true);
        run(&k->plans[0], &k->hw, &r0, false);
        run(&k->plans[1], &k->hw, &r1, false);
        const ls_fused_phase *ph = &k->k.phase[2];
        const ls_plan *ev = ph->plan;
        const ls_derived *dv = &k->d[0];
        int64_t runs = dv->total_iterations * dv->num_subgroups * dv->total_workgroups;
        /* a thread's elements of a row are contiguous: each vector load is
         * one issue per 128 bits (the backend's split) */
        int64_t pieces = (ev->inputs[0].width * 32 + 127) / 128;
        /* the body as src/body_issue.c has each register issue it: the
         * second of two paired ops in no slot; ops on held values once a
         * subgroup, before the loop */
        ls_body_issue_totals bt;
        ls_body_issue_totals_of(ev, false, &bt);
        int64_t ew_la = runs * (ev->inputs[0].loads * pieces + bt.alu + bt.sfu - bt.paired) +
                        dv->num_subgroups * dv->total_workgroups * bt.before_loop;
        REQUIRE(rf.stage[LS_STAGE_LOAD_ACCUMULATE].instructions ==
                    r0.stage[LS_STAGE_LOAD_ACCUMULATE].instructions +
                        r1.stage[LS_STAGE_LOAD_ACCUMULATE].instructions + ew_la,
                "trial %d (%s): load+accumulate %lld", trial, red,
                (long long)rf.stage[LS_STAGE_LOAD_ACCUMULATE].instructions);
        for (int st = LS_STAGE_THREAD_REDUCE; st < LS_STAGE_STORE; st++)
            REQUIRE(rf.stage[st].instructions == r0.stage[st].instructions + r1.stage[st].instructions,
                    "trial %d (%s): stage %d", trial, red, st);
        REQUIRE(rf.stage[LS_STAGE_STORE].instructions == runs * ph->stores &&
                    rf.stage[LS_STAGE_STORE].global_bytes == 64 * 4096 * 4,
                "trial %d (%s): stores %lld, %lld bytes", trial, red,
                (long long)rf.stage[LS_STAGE_STORE].instructions,
                (long long)rf.stage[LS_STAGE_STORE].global_bytes);
        REQUIRE(rf.stage[LS_STAGE_LOAD_ACCUMULATE].global_bytes == 3 * 64 * 4096 * 4 &&
                    rf.dram_bytes >= 2 * 64 * 4096 * 4,
                "trial %d (%s): bytes", trial, red);
        REQUIRE(rf.cycles == rp.cycles && rf.events == rp.events,
                "trial %d (%s): plain scoreboard %lld cycles, shared %lld", trial, red,
                (long long)rp.cycles, (long long)rf.cycles);
        kernel_free(k);
    }
    ck_assert_int_ge(fused, 12);
}
END_TEST


/* RMSNorm with a weight and a bias (x * rsqrt(mean(x^2)) * g + b): the
 * normalisation reads x, the sum of squares from registers, and g and b
 * along the row, four tensors; the kernel loads x (twice: two loops), g
 * and b, and writes the result once. */
START_TEST(rmsnorm_reads_four_tensors)
{
    kernel *k = heuristic_kernel(
        RMSNORM_OPS,
        STORE_FULL("%y"));
    ck_assert_msg(k->fused, "%s", k->why);
    ck_assert_int_eq(k->k.n_phases, 2);
    ck_assert_int_eq(k->k.problem.n_inputs, 3); /* x, g, b */
    ck_assert_int_eq(k->k.phase[1].held[1], 0);
    ls_sim_result r;
    run(&k->k.plan, &k->hw, &r, false);
    ck_assert_int_eq(r.stage[LS_STAGE_STORE].global_bytes, 64 * 4096 * 4);
    ck_assert_int_eq(r.operand[0].global_bytes, 2 * 64 * 4096 * 4);
    ck_assert_int_eq(r.operand[1].global_bytes, 64 * 4096 * 4); /* each row's trip reads g */
    ck_assert_int_ge(r.dram_bytes, 64 * 4096 * 4 * 2 + 2 * 4096 * 4);
    kernel_free(k);
}
END_TEST

/* A dispatch of one reduction and nothing else stored is one loop: no
 * fused kernel, and nothing to say. */
START_TEST(one_loop_is_not_fused)
{
    ls_diag d;
    ls_module *m = load_example("h100_rowsum_f16_2048x8192.mlir", &d);
    ck_assert_msg(d.status == LS_OK, "%s", d.msg);
    kernel *k = kernel_of_module(m, "h100");
    ck_assert(!k->fused);
    ck_assert_str_eq(k->why, "");
    kernel_free(k);
}
END_TEST

static Suite *fused_suite(void)
{
    Suite *s = suite_create("fused");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60); /* engine runs under the sanitizers */
    tcase_add_test(tc, softmax_is_three_loops);
    tcase_add_test(tc, softmax_counts_are_its_loops);
    tcase_add_test(tc, softmax_scoreboard_and_determinism);
    tcase_add_test(tc, held_values_wait_for_their_reduce);
    tcase_add_test(tc, dispatches_timed_apart_say_why);
    tcase_add_test(tc, division_in_its_own_layout);
    tcase_add_test(tc, small_channel_norm_loop_in_its_own_layout);
    tcase_add_test(tc, one_loop_is_not_fused);
    tcase_add_test(tc, broadcast_is_a_loop_of_stores);
    tcase_add_test(tc, stored_producer_writes_in_the_loop);
    tcase_add_test(tc, op_on_the_results_is_an_epilogue);
    tcase_add_test(tc, epilogue_loads_its_bias);
    tcase_add_test(tc, random_configs_are_their_loops);
    tcase_add_test(tc, rmsnorm_reads_four_tensors);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(fused_suite)
