/* test_memory.c: the timing model's memory mechanisms (issue 14), each on
 * a case built to show it: the L1 (a vector every workgroup re-reads), the
 * per-WGP request slots and Little's law, the register file in occupancy,
 * per-XCD L2s with round-robin workgroups and the memory-side cache
 * behind them, the far L2 partition, the workgroup dispatch rate, and the
 * bundled H100 model against published measurements. */
#include <math.h>

#include "lanescope/bottleneck.h"
#include "lanescope/engine.h"
#include "testutil.h"

/* Round numbers (1 GHz, so bytes per cycle = GB/s / 1000), one WGP, one
 * scheduler; `extra` adds the optional keys a test turns on. */
static void model_n(ls_hw *hw, int wgps, const char *extra)
{
    char text[4096];
    snprintf(text, sizeof text, "%s%s",
             wgps == 1 ? LS_TEST_ROUND_MODEL("1", "16") : LS_TEST_ROUND_MODEL("2", "16"), extra);
    ls_diag d;
    ls_diag_clear(&d);
    ck_assert_msg(ls_hw_parse(text, "round.hw", hw, &d) == LS_OK, "%s", d.msg);
}

static void model(ls_hw *hw, const char *extra)
{
    model_n(hw, 1, extra);
}

/* A plan points into its problem and derivation: the last run's are kept
 * for a test that reads its plan, until the next run or run_done(). */
static ls_problem *last_p;
static ls_derived *last_dv;

static void run_done(void)
{
    free(last_dv);
    free(last_p);
    last_dv = NULL;
    last_p = NULL;
}

static void run_opts(const char *text, const ls_hw *hw, ls_sim_result *r, ls_plan *plan_out,
                     const ls_engine_opts *opts)
{
    run_done();
    ls_diag d;
    ls_module *m = load_text(text, &d);
    ck_assert_msg(d.status == LS_OK, "%s", d.msg);
    ls_problem *p = ls_xcalloc(1, sizeof *p);
    *p = m->problems[0];
    free(m);
    ls_derived *dv = ls_xcalloc(1, sizeof *dv);
    ck_assert_msg(ls_derive(p, dv, &d) == LS_OK, "%s", d.msg);
    ls_plan plan;
    ck_assert_msg(ls_plan_build(p, dv, ls_plan_target_from_arch(hw->arch), &plan, &d) == LS_OK,
                  "%s", d.msg);
    ck_assert_msg(ls_engine_run(&plan, hw, r, opts, &d) == LS_OK, "%s", d.msg);
    if (plan_out)
        *plan_out = plan;
    last_p = p;
    last_dv = dv;
}

static void run_text(const char *text, const ls_hw *hw, ls_sim_result *r, ls_plan *plan_out,
                     ls_trace *trace)
{
    ls_engine_opts opts = {.trace = trace};
    run_opts(text, hw, r, plan_out, &opts);
}

/* rows x cols f32 times a cols-long vector, one row a workgroup of one
 * 64-lane subgroup: every workgroup reads the whole vector. */
static const char *matvec(char *buf, size_t size, int64_t rows, int64_t cols)
{
    snprintf(buf, size,
             "func.func @mv(%%m: tensor<%lldx%lldxf32>, %%v: tensor<%lldxf32>) -> "
             "tensor<%lldxf32> attributes {translation_info = "
             "#iree_codegen.translation_info<pipeline = LLVMGPUVectorDistribute workgroup_size "
             "= [64, 1, 1] subgroup_size = 64>} {\n"
             "  %%c = arith.constant 0.0 : f32\n  %%e = tensor.empty() : tensor<%lldxf32>\n"
             "  %%f = linalg.fill ins(%%c : f32) outs(%%e : tensor<%lldxf32>) -> tensor<%lldxf32>\n"
             "  %%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
             "affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = "
             "[\"parallel\", \"reduction\"]} ins(%%m, %%v : tensor<%lldx%lldxf32>, "
             "tensor<%lldxf32>) outs(%%f : tensor<%lldxf32>) attrs = {lowering_config = "
             "#iree_gpu.lowering_config<{workgroup = [1, 0], partial_reduction = [0, 256], "
             "thread = [0, 4], lane_basis = [[1, 64], [0, 1]], subgroup_basis = [[1, 1], [0, "
             "1]]}>} {\n  ^bb0(%%a: f32, %%b: f32, %%o: f32):\n    %%p = arith.mulf %%a, %%b : "
             "f32\n    %%s = arith.addf %%p, %%o : f32\n    linalg.yield %%s : f32\n  } -> "
             "tensor<%lldxf32>\n  return %%r : tensor<%lldxf32>\n}\n",
             (long long)rows, (long long)cols, (long long)cols, (long long)rows,
             (long long)rows, (long long)rows, (long long)rows, (long long)rows,
             (long long)cols, (long long)cols, (long long)rows, (long long)rows,
             (long long)rows);
    return buf;
}

/* A rows x cols f32 row sum: workgroups of `sgs` 64-lane subgroups, each
 * loading 4 f32 a lane (1 KiB a subgroup) per iteration. */
static const char *rowsum(char *buf, size_t size, int64_t rows, int64_t cols, int64_t sgs)
{
    snprintf(buf, size,
             "func.func @f() attributes {translation_info = "
             "#iree_codegen.translation_info<pipeline = LLVMGPUVectorDistribute workgroup_size "
             "= [%lld, 1, 1] subgroup_size = 64>} {\n"
             "%%r = linalg.reduce ins(%%a : tensor<%lldx%lldxf32>) outs(%%b : tensor<%lldxf32>) "
             "dimensions = [1] {lowering_config = #iree_gpu.lowering_config<{workgroup = [1, 0], "
             "partial_reduction = [0, %lld], thread = [0, 4], lane_basis = [[1, 64], [0, 1]], "
             "subgroup_basis = [[1, %lld], [0, 1]]}>} (%%in: f32, %%o: f32) {\n"
             "  %%1 = arith.addf %%in, %%o : f32\n  linalg.yield %%1 : f32\n}\n}\n",
             (long long)(64 * sgs), (long long)rows, (long long)cols, (long long)rows,
             (long long)(256 * sgs), (long long)sgs);
    return buf;
}

/* Every workgroup after the first finds the vector in the WGP's L1: its
 * sectors hit there, exactly, and the run is faster than without an L1
 * (the hits cost l1_latency, not l2_latency); the L2 then serves only the
 * first workgroup's vector and the matrix. */
START_TEST(l1_serves_reused_vector)
{
    ls_hw with, without;
    model(&with, "l1_bytes = 65536 # source: test\nl1_latency = 30 # source: test\n");
    model(&without, "");
    char text[4096];
    matvec(text, sizeof text, 8, 1024);
    ls_sim_result a, b;
    run_text(text, &with, &a, NULL, NULL);
    run_text(text, &without, &b, NULL, NULL);
    const ls_stage_stats *la = &a.stage[LS_STAGE_LOAD_ACCUMULATE], *lb = &b.stage[LS_STAGE_LOAD_ACCUMULATE];
    int64_t vec_sectors = 1024 * 4 / 32, row_sectors = 1024 * 4 / 32;
    ck_assert_int_eq(la->sectors, 8 * (vec_sectors + row_sectors));
    ck_assert_int_eq(la->l1_hits, 7 * vec_sectors);
    ck_assert_int_eq(lb->l1_hits, 0);
    /* without an L1 the L2 catches the same reuse: the DRAM moves alike */
    ck_assert_int_eq(lb->sector_hits, 7 * vec_sectors);
    ck_assert_int_eq(la->sector_hits, 0);
    ck_assert_int_eq(a.dram_bytes, b.dram_bytes);
    ck_assert_msg(a.cycles <= b.cycles, "L1 %lld cycles, none %lld", (long long)a.cycles,
                  (long long)b.cycles);
    run_done();
}
END_TEST

/* Little's law on a sweep of subgroups per WGP (one workgroup resident):
 * achieved bandwidth never exceeds bytes in flight / DRAM latency, and
 * reaches the roof only where the law says it can.  With request slots
 * (mshrs_per_wgp) the slots cap the bytes in flight whatever the
 * subgroups, and the bottleneck line names them. */
START_TEST(littles_law_sweep)
{
    static const char *limits[] = {"", "mshrs_per_wgp = 64 # source: test: 2 KiB in flight\n"};
    for (int l = 0; l < 2; l++) {
        ls_hw hw;
        model(&hw, limits[l]);
        hw.max_workgroups_per_wgp = 1;
        double roof = hw.dram_bytes_per_cycle; /* 16 B a cycle */
        double prev = 0;
        for (int64_t sgs = 1; sgs <= 16; sgs *= 2) {
            char text[2048];
            rowsum(text, sizeof text, 4, 256 * 16 * 32, sgs);
            ls_sim_result r;
            ls_plan plan;
            run_text(text, &hw, &r, &plan, NULL);
            ck_assert_int_eq(r.occupancy, 1);
            double bw = (double)r.dram_bytes / (double)r.cycles; /* bytes a cycle */
            double in_flight = 1024.0 * (double)sgs;
            if (hw.mshrs_per_wgp > 0 && in_flight > (double)(hw.mshrs_per_wgp * 32))
                in_flight = (double)(hw.mshrs_per_wgp * 32);
            double law = in_flight / (double)hw.dram_latency;
            REQUIRE(bw <= law * 1.001 + 1e-9, "%lld subgroups%s: %.3f B/cycle, Little's law allows %.3f",
                    (long long)sgs, l ? " (64 slots)" : "", bw, law);
            /* the roof only past the point the law predicts */
            if (bw >= 0.9 * roof)
                REQUIRE(law >= 0.9 * roof, "%lld subgroups: %.3f B/cycle of the %.1f roof, law %.3f",
                        (long long)sgs, bw, roof, law);
            /* and below it, the law's share is reached, within what the
             * queue and the non-load stages take */
            REQUIRE(bw >= 0.6 * (law < roof ? law : roof), "%lld subgroups: %.3f B/cycle, law %.3f",
                    (long long)sgs, bw, law);
            if (l == 0)
                REQUIRE(bw >= prev * 0.999, "bandwidth fell from %.3f to %.3f at %lld subgroups",
                        prev, bw, (long long)sgs);
            prev = bw;
            if (l == 1 && sgs == 16) {
                ls_bottleneck b;
                ls_bottleneck_analyze(&plan, &hw, &r, &b);
                ck_assert_int_eq(b.kind, LS_BN_MLP);
                ck_assert(b.requests_bind);
                ck_assert_double_eq_tol(b.in_flight_bytes_per_wgp, 2048, 1e-9);
                ck_assert_ptr_nonnull(strstr(b.line, "64 request slots hold 2.0 KB in flight"));
            }
        }
        if (l == 0)
            ck_assert_msg(prev >= 0.9 * roof, "16 subgroups reach %.3f of %.1f B/cycle", prev, roof);
    }
    run_done();
}
END_TEST

/* The register estimate by hand, and the register file in occupancy:
 * thread = [0, 4] on f32 keeps one accumulator (the 4-wide vector reduces
 * into it), one 4-wide load (4 registers), base addresses of input and
 * output (4) and 6 of overhead: 15, allocated as 16 in granules of 8.  A
 * 2560-register file holds two such 64-lane subgroups (1024 each). */
START_TEST(registers_limit_occupancy)
{
    ls_hw hw;
    model(&hw, "regs_per_wgp = 2560 # source: test\nreg_granule = 8 # source: test\n");
    char text[2048];
    ls_sim_result r;
    ls_plan plan;
    run_text(rowsum(text, sizeof text, 64, 1024, 1), &hw, &r, &plan, NULL);
    ls_plan_regs regs;
    ls_plan_registers(&plan, 1, &regs);
    ck_assert_int_eq(regs.accumulators, 1);
    ck_assert_int_eq(regs.loaded, 4);
    ck_assert_int_eq(regs.addresses, 4);
    ck_assert_int_eq(regs.total, 15);
    ck_assert_int_eq(r.registers, 15);
    ck_assert_int_eq(r.registers_allocated, 16);
    ck_assert_int_eq(r.occupancy, 2);
    ck_assert_str_eq(r.occupancy_limit, "registers");
    /* a file too small for one workgroup: the compiler spills to fit it
     * (IREE gives LLVM the workgroup size), so the run keeps one workgroup
     * with the file's share, 1000 / 64 = 15 registers, in granules: 8 */
    model(&hw, "regs_per_wgp = 1000 # source: test\nreg_granule = 8 # source: test\n");
    ls_diag d;
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_engine_run(&plan, &hw, &r, NULL, &d), LS_OK);
    ck_assert_int_eq(r.occupancy, 1);
    ck_assert(r.registers_spill);
    ck_assert_int_eq(r.registers_allocated, 8);
    run_done();
}
END_TEST

/* Two XCDs: workgroup w runs on XCD w mod 2 (round-robin), each XCD
 * with its own L2, so the vector every workgroup reads comes from DRAM
 * once per XCD; a memory-side cache behind the L2s serves the second
 * XCD's copy instead. */
START_TEST(xcds_and_memory_side_cache)
{
    ls_hw one, two, mall;
    model_n(&one, 2, "");
    model_n(&two, 2, "xcds = 2 # source: test\n");
    model_n(&mall, 2, "xcds = 2 # source: test\nmall_bytes = 4194304 # source: test\n"
                      "mall_latency = 200 # source: test\n");
    char text[4096];
    matvec(text, sizeof text, 16, 1024);
    ls_sim_result a, b, c;
    ls_trace tr = {0};
    run_text(text, &one, &a, NULL, NULL);
    run_text(text, &two, &b, NULL, &tr);
    run_text(text, &mall, &c, NULL, NULL);
    int64_t vec = 1024 * 4;
    ck_assert_int_eq(b.dram_bytes, a.dram_bytes + vec);
    ck_assert_int_eq(c.dram_bytes, a.dram_bytes);
    ck_assert_int_eq(c.stage[LS_STAGE_LOAD_ACCUMULATE].mall_hits, vec / 32);
    /* every workgroup ran on a WGP of its XCD: wgp mod 2 == id mod 2 */
    ck_assert_int_gt((int64_t)tr.n, 0);
    for (size_t i = 0; i < tr.n; i++)
        REQUIRE(tr.slices[i].wgp % 2 == tr.slices[i].workgroup % 2,
                "workgroup %lld ran on WGP %d", (long long)tr.slices[i].workgroup,
                tr.slices[i].wgp);
    free(tr.slices);
    run_done();
}
END_TEST

/* Two L2 partitions at one latency time exactly as one L2; a far
 * partition slower than DRAM (2000 cycles against 500) makes the far
 * lines, hit or miss, the slowest: the run takes longer, moving the same
 * bytes. */
START_TEST(l2_far_partition)
{
    ls_hw one, same, far;
    model_n(&one, 2, "");
    model_n(&same, 2, "l2_partitions = 2 # source: test\nl2_far_latency = 100 # source: test\n");
    model_n(&far, 2, "l2_partitions = 2 # source: test\nl2_far_latency = 2000 # source: test\n");
    /* one workgroup at a time: a later one re-reads the vector from L2 */
    one.max_workgroups_per_wgp = same.max_workgroups_per_wgp = far.max_workgroups_per_wgp = 1;
    char text[4096];
    matvec(text, sizeof text, 16, 1024);
    ls_sim_result a, b, c;
    run_text(text, &one, &a, NULL, NULL);
    run_text(text, &same, &b, NULL, NULL);
    run_text(text, &far, &c, NULL, NULL);
    ck_assert_int_eq(b.cycles, a.cycles);
    ck_assert_int_eq(c.dram_bytes, a.dram_bytes);
    ck_assert_msg(c.cycles > a.cycles, "far partition %lld cycles, one L2 %lld",
                  (long long)c.cycles, (long long)a.cycles);
    run_done();
}
END_TEST

/* The dispatcher starts a workgroup every dispatch_cycles: 64 short
 * workgroups take at least 63 intervals, and at most that plus one
 * workgroup's own time. */
START_TEST(dispatch_rate)
{
    ls_hw hw, free_hw;
    model(&hw, "dispatch_cycles = 1000 # source: test\n");
    model(&free_hw, "");
    char text[2048];
    rowsum(text, sizeof text, 64, 256, 1);
    ls_sim_result a, b;
    run_text(text, &hw, &a, NULL, NULL);
    run_text(text, &free_hw, &b, NULL, NULL);
    ck_assert_int_ge(a.cycles, 63 * 1000);
    ck_assert_int_le(a.cycles, 63 * 1000 + b.cycles);
    ck_assert_int_lt(b.cycles, 63 * 1000);
    run_done();
}
END_TEST

/* The bundled H100 model against measurements: a large f32 row sum reads
 * at 90-95% of the 3,350 GB/s spec (pytorch#132964 measured x.sum() at
 * 3,136 GB/s, 93.6%); one subgroup per SM reaches what Little's law
 * allows (its 512 bytes per iteration over 421 ns), not the roof. */
static const char *h100_rowsum(char *buf, size_t size, int64_t rows, int64_t cols, int64_t chunk)
{
    snprintf(buf, size,
             "func.func @f() attributes {translation_info = "
             "#iree_codegen.translation_info<pipeline = LLVMGPUVectorDistribute workgroup_size "
             "= [32, 1, 1] subgroup_size = 32>} {\n"
             "%%r = linalg.reduce ins(%%a : tensor<%lldx%lldxf32>) outs(%%b : tensor<%lldxf32>) "
             "dimensions = [1] {lowering_config = #iree_gpu.lowering_config<{workgroup = [1, 0], "
             "partial_reduction = [0, %lld], thread = [0, 4], lane_basis = [[1, 32], [0, 1]], "
             "subgroup_basis = [[1, 1], [0, 1]]}>} (%%in: f32, %%o: f32) {\n"
             "  %%1 = arith.addf %%in, %%o : f32\n  linalg.yield %%1 : f32\n}\n}\n",
             (long long)rows, (long long)cols, (long long)rows, (long long)chunk);
    return buf;
}

START_TEST(h100_against_measurements)
{
    ls_hw hw;
    ls_diag d;
    ls_diag_clear(&d);
    ck_assert(ls_hw_load("h100", &hw, &d) == LS_OK);
    char text[2048];
    ls_sim_result r;
    run_text(h100_rowsum(text, sizeof text, 4096, 8192, 128), &hw, &r, NULL, NULL);
    double of_spec = r.dram_gbps / 3350.0;
    ck_assert_msg(of_spec >= 0.90 && of_spec <= 0.95, "%.0f GB/s, %.3f of the spec", r.dram_gbps,
                  of_spec);
    /* 132 workgroups of one subgroup: one per SM */
    ls_plan plan;
    run_text(h100_rowsum(text, sizeof text, 132, 65536, 128), &hw, &r, &plan, NULL);
    ls_bottleneck b;
    ls_bottleneck_analyze(&plan, &hw, &r, &b);
    ck_assert_double_eq_tol(b.subgroups_per_wgp, 1, 1e-12);
    /* LLVM's unroll count for NVPTX at O2 (docs/timing-model.md), by hand:
     * one iteration costs 4 (increment, compare, branch) + 1 (address) + 4
     * (a 16-byte load, four 32-bit pieces) + 1 (the vector add) = 10; the
     * 512 trips are too many to unroll whole, so (37 - 2) / (10 - 2) = 4,
     * which divides 512: 4 iterations' loads, 2 KiB a subgroup, in flight */
    ck_assert_int_eq(r.unroll, 4);
    double law = 512.0 * 4 * 132 / ((double)hw.dram_latency / (double)hw.clock_mhz * 1e-6) / 1e9;
    ck_assert_msg(r.dram_gbps <= law * 1.01 && r.dram_gbps >= 0.7 * law,
                  "one subgroup per SM: %.1f GB/s, Little's law allows %.1f", r.dram_gbps, law);
    ck_assert_int_eq(b.kind, LS_BN_MLP);
    ck_assert_msg(strstr(b.line, "1 subgroup per WGP keeps 2.0 KB in flight") != NULL, "%s", b.line);
    run_done();
}
END_TEST

/* The optional keys are checked against each other with a reason. */
START_TEST(mechanism_keys_checked)
{
    static const struct {
        const char *extra, *says;
    } bad[] = {
        {"l1_bytes = 1000 # source: test\nl1_latency = 30 # source: test\n", "l1_bytes (1000)"},
        {"l1_bytes = 65536 # source: test\n", "needs l1_latency"},
        {"xcds = 3 # source: test\n", "xcds (3) must divide wgp_count"},
        {"mall_bytes = 4194304 # source: test\n", "needs mall_latency"},
        {"mshrs_per_wgp = 2 # source: test\n", "at least one line (4 sectors)"},
        {"l2_partitions = 2 # source: test\n", "l2_partitions (2) is more than wgp_count"},
        {"sfu_interval = 8 # source: test\n", "sfu_interval (8) and sfu_latency (0) go together"},
        {"sfu_latency = 23 # source: test\n", "sfu_interval (0) and sfu_latency (23) go together"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[4096];
        snprintf(text, sizeof text, "%s%s", LS_TEST_ROUND_MODEL("1", "16"), bad[i].extra);
        ls_hw hw;
        ls_diag d;
        ls_diag_clear(&d);
        REQUIRE(ls_hw_parse(text, "m.hw", &hw, &d) == LS_ERR_INVALID, "accepted: %s", bad[i].extra);
        REQUIRE(strstr(d.msg, bad[i].says) != NULL, "%s: %s", bad[i].extra, d.msg);
    }
    /* absent, the mechanisms are off */
    ls_hw hw;
    model(&hw, "");
    ck_assert_int_eq(hw.l1_bytes, 0);
    ck_assert_int_eq(hw.mshrs_per_wgp, 0);
    ck_assert_int_eq(hw.regs_per_wgp, 0);
    ck_assert_int_eq(hw.xcds, 1);
    ck_assert_int_eq(hw.l2_partitions, 1);
    ck_assert_int_eq(hw.l2_far_latency, hw.l2_latency);
    ck_assert_int_eq(hw.mall_bytes, 0);
    ck_assert_int_eq(hw.dispatch_cycles, 0);
    run_done();
}
END_TEST

/* A run that never asks for a line twice skips the caches
 * (engine_stream.c): every figure must be the full walk's, bit for bit, on
 * models with every mechanism (the L1, request slots, two L2 partitions,
 * two XCDs, a memory-side cache, a dispatch rate), with some, and on
 * MI300X's.
 * Runs that re-read lines (a matvec's vector; rows that share lines) must
 * take the full walk. */
START_TEST(streaming_is_exact)
{
    ls_hw models[8];
    model_n(&models[0], 2,
            "l1_bytes = 16384 # source: test\nl1_latency = 30 # source: test\n"
            "mshrs_per_wgp = 16 # source: test\nl2_partitions = 2 # source: test\n"
            "l2_far_latency = 180 # source: test\nxcds = 2 # source: test\n"
            "mall_bytes = 1048576 # source: test\nmall_latency = 300 # source: test\n"
            "dispatch_cycles = 7 # source: test\n");
    /* DRAM fast enough that latencies, not its queue, decide when a load is
     * back: a memory-side cache slower than DRAM; a far partition slower */
    char text[4096];
    ls_diag d;
    snprintf(text, sizeof text, "%s%s", LS_TEST_ROUND_MODEL("2", "4000"),
             "mall_bytes = 1048576 # source: test\nmall_latency = 900 # source: test\n");
    ck_assert_msg(ls_hw_parse(text, "fast.hw", &models[1], &d) == LS_OK, "%s", d.msg);
    snprintf(text, sizeof text, "%s%s", LS_TEST_ROUND_MODEL("2", "4000"),
             "mshrs_per_wgp = 8 # source: test\nl2_partitions = 2 # source: test\n"
             "l2_far_latency = 700 # source: test\n");
    ck_assert_msg(ls_hw_parse(text, "fast.hw", &models[2], &d) == LS_OK, "%s", d.msg);
    ck_assert(ls_hw_load("mi300x", &models[3], &d) == LS_OK);
    /* Latencies no real part has, so that each bound of a streaming read
     * decides somewhere: the memory-side cache behind request slots; an L1
     * slower than DRAM behind them; an L1 and an L2 slower than DRAM with
     * neither slots nor partitions. */
    snprintf(text, sizeof text, "%s%s", LS_TEST_ROUND_MODEL("2", "4000"),
             "mshrs_per_wgp = 8 # source: test\nl1_bytes = 16384 # source: test\n"
             "l1_latency = 30 # source: test\nmall_bytes = 1048576 # source: test\n"
             "mall_latency = 900 # source: test\n");
    ck_assert_msg(ls_hw_parse(text, "fast.hw", &models[4], &d) == LS_OK, "%s", d.msg);
    models[5] = models[4];
    models[5].l1_latency = 1500;
    models[5].mshrs_per_wgp = 64; /* a load's lines all leave at once */
    models[6] = models[1];
    models[6].mall_bytes = 0;
    models[6].l2_latency = models[6].l2_far_latency = 700;
    models[7] = models[6];
    models[7].l1_bytes = 16384;
    models[7].l1_latency = 1500;
    static const struct {
        int64_t rows, cols, sgs;
        bool streams;
    } cases[] = {
        {2, 4096, 1, true},    /* two workgroups: every load's latency shows */
        {96, 4096, 1, true},   /* rows of 16 KiB: every line once */
        {40, 8192, 4, true},   /* four subgroups a workgroup */
        {33, 1000, 1, false},  /* 4000-byte rows: neighbours share a line; ragged tiles */
    };
    for (int m = 0; m < 8; m++) {
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            ls_sim_result fast, full;
            ls_engine_opts walk = {.full_cache_walk = true};
            rowsum(text, sizeof text, cases[i].rows, cases[i].cols, cases[i].sgs);
            run_opts(text, &models[m], &fast, NULL, NULL);
            run_opts(text, &models[m], &full, NULL, &walk);
            REQUIRE(fast.streamed == cases[i].streams, "model %d case %zu", m, i);
            REQUIRE(!full.streamed, "model %d case %zu: the full walk streamed", m, i);
            full.streamed = fast.streamed;
            REQUIRE(memcmp(&fast, &full, sizeof fast) == 0,
                    "model %d case %zu: %lld vs %lld cycles, %lld vs %lld DRAM bytes", m, i,
                    (long long)fast.cycles, (long long)full.cycles, (long long)fast.dram_bytes,
                    (long long)full.dram_bytes);
            ck_assert_int_gt(fast.cycles, 0);
        }
        ls_sim_result r;
        run_text(matvec(text, sizeof text, 64, 2048), &models[m], &r, NULL, NULL);
        REQUIRE(!r.streamed, "model %d: the matvec's vector is read by every workgroup", m);
    }
    run_done();
}
END_TEST

static Suite *memory_suite(void)
{
    Suite *s = suite_create("memory");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, l1_serves_reused_vector);
    tcase_add_test(tc, littles_law_sweep);
    tcase_add_test(tc, registers_limit_occupancy);
    tcase_add_test(tc, xcds_and_memory_side_cache);
    tcase_add_test(tc, l2_far_partition);
    tcase_add_test(tc, dispatch_rate);
    tcase_add_test(tc, h100_against_measurements);
    tcase_add_test(tc, mechanism_keys_checked);
    tcase_add_test(tc, streaming_is_exact);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(memory_suite)
