/* fuzz_hw.c: libFuzzer target for hardware model files (.hw).  Every input
 * goes through ls_hw_parse; a model it accepts must hold what the engine
 * relies on (every number finite and positive where the format says so)
 * and then times a fixed small reduction, for models whose memories fit a
 * fuzzer's pace. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "lanescope/import.h"

static const char problem_text[] =
    "func.func @f(%a: tensor<8x256xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {\n"
    "  %r = linalg.reduce ins(%a : tensor<8x256xf32>) outs(%b : tensor<8xf32>) dimensions = [1]\n"
    "    {lowering_config = #iree_gpu.lowering_config<{workgroup = [1, 0], partial_reduction = "
    "[0, 256], thread = [0, 4], lane_basis = [[1, 32], [0, 1]], subgroup_basis = [[1, 2], [0, "
    "1]]}>}\n"
    "    (%in: f32, %o: f32) {\n"
    "      %s = arith.addf %in, %o : f32\n"
    "      linalg.yield %s : f32\n"
    "    }\n"
    "  return %r : tensor<8xf32>\n"
    "}\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = 0;
    ls_hw hw;
    ls_diag d;
    ls_diag_clear(&d);
    ls_status st = ls_hw_parse(text, "fuzz.hw", &hw, &d);
    free(text);
    if (st != LS_OK)
        return 0;
    const int64_t positive[] = {hw.wgp_count, hw.clock_mhz, hw.subgroup_size,
                                hw.schedulers_per_wgp, hw.max_threads_per_wgp,
                                hw.smem_banks, hw.smem_bank_bytes, hw.l2_ways,
                                hw.l2_line_bytes, hw.sector_bytes};
    for (size_t i = 0; i < sizeof positive / sizeof positive[0]; i++)
        if (positive[i] <= 0)
            __builtin_trap();
    /* the optional mechanisms: in range, and consistent where the engine
     * divides by them or indexes with them */
    if (hw.xcds < 1 || hw.wgp_count % hw.xcds != 0 || hw.l2_partitions < 1 || hw.l1_ways < 1 ||
        hw.mall_ways < 1 || hw.reg_granule < 1 || hw.l2_far_latency < 0 || hw.l1_bytes < 0 ||
        hw.mshrs_per_wgp < 0 || (hw.l1_bytes > 0 && hw.l1_latency <= 0) ||
        (hw.mall_bytes > 0 && hw.mall_latency <= 0))
        __builtin_trap();
    if (!isfinite(hw.dram_gbps) || hw.dram_gbps <= 0 || !isfinite(hw.launch_us) ||
        hw.launch_us < 0 || !isfinite(hw.dram_bytes_per_cycle))
        __builtin_trap();
    /* a harness bound, not the tool's: the engine's memory for bigger
     * machines is tested by test_engine, not at a fuzzer's pace */
    if (hw.wgp_count > 512 || hw.l2_bytes > (64 << 20) || hw.subgroup_size != 32)
        return 0;
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_derived *dv = ls_xcalloc(1, sizeof *dv);
    ls_plan plan;
    if (ls_module_parse(problem_text, sizeof problem_text - 1, "fuzz.mlir", m, &d) == LS_OK &&
        ls_derive(&m->problems[0], dv, &d) == LS_OK &&
        ls_plan_build(&m->problems[0], dv, ls_plan_target_from_arch(hw.arch), &plan, &d) == LS_OK) {
        ls_sim_result r;
        if (ls_engine_run(&plan, &hw, &r, NULL, &d) == LS_OK &&
            (r.cycles <= 0 || !isfinite(r.time_us) || r.time_us <= 0))
            __builtin_trap();
    }
    free(dv);
    free(m);
    return 0;
}
