/* test_engine_types.c: the engine on element types and math ops, with
 * exact expectations: a math op's special-function instructions and the
 * unit's rate, sub-byte (i4) loads, i128 carried as its low half with four
 * 32-bit pieces an exchange.  The rest of the engine: test_engine.c. */
#include "engine_util.h"
#include "lanescope/engine.h"
#include "lanescope/functional.h"

/* A rows x cols row reduction of in_t into out_t by one 64-lane subgroup,
 * in chunks of pr with `thread` elements a load; `body` is the region after
 * its block arguments %in and %out, through linalg.yield. */
static const char *row_text(char *buf, size_t size, int64_t rows, int64_t cols, const char *in_t,
                            const char *out_t, int64_t pr, int64_t thread, const char *body)
{
    snprintf(
        buf, size,
        "func.func @f() attributes {translation_info = "
        "#iree_codegen.translation_info<pipeline = LLVMGPUVectorDistribute workgroup_size "
        "= [64, 1, 1] subgroup_size = 64>} {\n"
        "%%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
        "affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]} "
        "ins(%%a : tensor<%lldx%lldx%s>) outs(%%b : tensor<%lldx%s>) attrs = {lowering_config = "
        "#iree_gpu.lowering_config<{workgroup = [1, 0], partial_reduction = [0, %lld], "
        "thread = [0, %lld], lane_basis = [[1, 64], [0, 1]], subgroup_basis = [[1, 1], [0, "
        "1]]}>} {\n^bb0(%%in: %s, %%out: %s):\n%s}\n}\n",
        (long long)rows, (long long)cols, in_t, (long long)rows, out_t, (long long)pr,
        (long long)thread, in_t, out_t, body);
    return buf;
}

/* One 64-lane row of f32 summed after a math op `op` (math.rsqrt, ...). */
static const char *math_sum_text(char *buf, size_t size, const char *op, const char *t)
{
    char body[256];
    snprintf(body, sizeof body,
             "  %%e = %s %%in : %s\n  %%1 = arith.addf %%e, %%out : %s\n"
             "  linalg.yield %%1 : %s\n",
             op, t, t, t);
    return row_text(buf, size, 1, 64, t, t, 64, 1, body);
}

/* The body's math ops as the backend emits them (src/math_lowering.c):
 * rsqrt on NVIDIA is libdevice's rsqrt.approx, 3 ALU instructions and one
 * MUFU.  The hand-computed path of hand_computed_critical_path, with the
 * body between the load (501) and the accumulate: 3 ALU (4 each) then the
 * special-function op (sfu_latency 23) -> 536; accumulate -> 540; six
 * butterfly rounds of 24 -> 684; the init -> 688; the store -> 788.  A
 * model without the unit (sfu_interval 0) times the op as an ALU one:
 * 501 + 16 + 4 + 144 + 4 + 100 = 769. */
START_TEST(special_function_unit)
{
    ls_hw hw;
    ls_diag d;
    ls_diag_clear(&d);
    char model[4096];
    snprintf(model, sizeof model,
             "%ssfu_interval = 8 # source: test\n"
             "sfu_latency = 23 # source: test\n",
             round_model);
    ck_assert_msg(ls_hw_parse(model, "sfu.hw", &hw, &d) == LS_OK, "%s", d.msg);
    char text[2048];
    math_sum_text(text, sizeof text, "math.rsqrt", "f32");
    ls_sim_result r;
    ls_plan pl;
    simulate(text, &hw, &r, &pl);
    ck_assert_int_eq(pl.body_alu_ops, 1);
    ck_assert_int_eq(pl.body_machine_alu_ops, 3);
    ck_assert_int_eq(pl.body_sfu_ops, 1);
    ck_assert_int_eq(r.cycles, 788);
    ck_assert_int_eq(r.stage[LS_STAGE_LOAD_ACCUMULATE].sfu_ops, 1);
    ck_assert_int_eq(r.instructions, 1 + 3 + 1 + 1 + 12 + 1 + 1);
    ck_assert_msg(ls_hw_parse(round_model, "round.hw", &hw, &d) == LS_OK, "%s", d.msg);
    simulate(text, &hw, &r, NULL);
    ck_assert_int_eq(r.cycles, 769);
    ck_assert_int_eq(r.stage[LS_STAGE_LOAD_ACCUMULATE].sfu_ops, 1);

    /* the counts per target: exp is a polynomial (ALU only) on NVIDIA,
     * v_exp_f32 and its range scaling on gfx942; f16 adds the extf and
     * truncf of IREE's f32 rewrite */
    /* ir: what LLVM's unroller counts, the polynomial's 24 MLIR ops on
     * NVIDIA, one call on ROCm */
    const struct {
        const char *op, *type, *arch;
        int alu, sfu, ir;
    } cases[] = {{"math.exp", "f32", "sm_90", 23, 0, 24}, {"math.exp", "f32", "gfx942", 12, 1, 1},
                 {"math.exp", "f16", "gfx942", 14, 1, 3}, {"math.sqrt", "f32", "sm_80", 3, 1, 1},
                 {"math.sin", "f32", "gfx942", 26, 0, 1}, {"math.absf", "f32", "gfx942", 1, 0, 1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        math_sum_text(text, sizeof text, cases[i].op, cases[i].type);
        ls_problem *p;
        ls_derived *dv;
        plan_text(text, cases[i].arch, &p, &dv, &pl);
        ck_assert_msg(pl.body_machine_alu_ops == cases[i].alu && pl.body_sfu_ops == cases[i].sfu &&
                          pl.body_ir_ops == cases[i].ir,
                      "%s %s on %s: %d ALU + %d SFU, %d IR", cases[i].op, cases[i].type,
                      cases[i].arch, pl.body_machine_alu_ops, pl.body_sfu_ops, pl.body_ir_ops);
        free(dv);
        free(p);
    }
}
END_TEST

/* An 8 x 2048 row sum of t elements, each sign-extended to i32. */
static const char *int_sum_text(char *buf, size_t size, const char *t)
{
    char body[256];
    snprintf(body, sizeof body,
             "  %%0 = arith.extsi %%in : %s to i32\n"
             "  %%1 = arith.addi %%0, %%out : i32\n  linalg.yield %%1 : i32\n",
             t);
    return row_text(buf, size, 8, 2048, t, "i32", 1024, 16, body);
}

/* Lower an 8-row text for arch, run it lane by lane on every workgroup
 * (8 outputs, none wrong) and give the reference outputs; *pl_out gets the
 * plan (its problem freed: only its figures are for reading). */
static void run_eight_rows(const char *text, const char *arch, uint64_t seed, ls_value out[8],
                           ls_plan *pl_out)
{
    ls_problem *p;
    ls_derived *dv;
    ls_diag d;
    plan_text(text, arch, &p, &dv, pl_out);
    ls_input_source src = {.seed = seed};
    ls_functional_result fr;
    ck_assert_msg(ls_functional_run(pl_out, src, 0, -1, &fr, &d) == LS_OK, "%s", d.msg);
    ck_assert_int_eq(fr.outputs_checked, 8);
    ck_assert_int_eq(fr.mismatches, 0);
    ls_reference_outputs(p, src, out);
    pl_out->problem = NULL;
    pl_out->derived = NULL;
    free(dv);
    free(p);
}

/* Packed i4: two elements a byte, so a row sum over i4 moves half the
 * bytes of the same sum over i8 (every byte loaded once), and the
 * functional model reads each nibble as its own element. */
START_TEST(packed_i4_loads)
{
    ls_hw hw;
    ls_diag d;
    ls_diag_clear(&d);
    ck_assert_msg(ls_hw_parse(round_model, "round.hw", &hw, &d) == LS_OK, "%s", d.msg);
    char text[2048];
    ls_sim_result r4, r8;
    ls_plan plan;
    int_sum_text(text, sizeof text, "i4");
    simulate(text, &hw, &r4, &plan);
    ck_assert_int_eq(plan.inputs[0].elem_bits, 4);
    ck_assert_int_eq(plan.inputs[0].width, 16);
    ck_assert_int_eq(r4.stage[LS_STAGE_LOAD_ACCUMULATE].global_bytes, 8 * 2048 / 2);
    int_sum_text(text, sizeof text, "i8");
    simulate(text, &hw, &r8, NULL);
    ck_assert_int_eq(r8.stage[LS_STAGE_LOAD_ACCUMULATE].global_bytes, 8 * 2048);
    /* 16 i4 (8 bytes) a lane: a 64-lane load spans 512 bytes, 16 sectors */
    ck_assert_int_eq(r4.stage[LS_STAGE_LOAD_ACCUMULATE].sectors * 2,
                     r8.stage[LS_STAGE_LOAD_ACCUMULATE].sectors);
    /* the values: each nibble sign-extended, summed per row; the lanes'
     * result matches the reference on every workgroup */
    int_sum_text(text, sizeof text, "i4");
    ls_plan pl;
    ls_value out[8];
    run_eight_rows(text, "sm_90", 3, out, &pl);
    int64_t want = 0;
    for (int64_t j = 0; j < 2048; j++)
        want += ls_value_to_int(ls_input_value(3, 2048 + j, LS_ET_I4, LS_COMB_ADD), LS_ET_I4);
    ck_assert_int_eq(ls_value_to_int(out[1], LS_ET_I32), want);
}
END_TEST

/* An 8 x 2048 reduction of t elements into t: `op (%in * c), %out`, c = 2^63 - 1
 * for i128, else 3. */
static const char *same_type_text(char *buf, size_t size, const char *t, const char *op)
{
    char body[320];
    snprintf(body, sizeof body,
             "  %%c = arith.constant %s : %s\n"
             "  %%0 = arith.muli %%in, %%c : %s\n  %%1 = %s %%0, %%out : %s\n"
             "  linalg.yield %%1 : %s\n",
             strcmp(t, "i128") == 0 ? "9223372036854775807" : "3", t, t, op, t, t);
    return row_text(buf, size, 8, 2048, t, t, 1024, 1, body);
}

/* i128 is carried as its low 64 bits (value.h).  A sum of 2048 values in
 * [-100, 100] times 2^63 - 1 leaves int64 behind, so the check holds only if the
 * low half really is what 128-bit arithmetic gives: the reference is
 * recomputed here with GCC's 128-bit integers.  Each exchange of the
 * subgroup reduce moves four 32-bit pieces (engine_program.c,
 * exchange_pieces), against one for i32. */
__extension__ typedef __int128 wide_int; /* GCC's, for an independent reference */

START_TEST(i128_low_half)
{
    char text[2048];
    same_type_text(text, sizeof text, "i128", "arith.addi");
    ls_plan pl;
    ls_value out[8];
    run_eight_rows(text, "gfx942", 5, out, &pl);
    ck_assert_int_eq(pl.acc_elem_bytes, 16);
    ck_assert_int_eq(pl.load_elem_bytes, 16);
    ck_assert_int_eq(pl.shuffle_bits, 128);
    for (int64_t row = 0; row < 8; row += 7) {
        wide_int sum = 0;
        for (int64_t j = 0; j < 2048; j++)
            sum += (wide_int)ls_value_to_int(
                       ls_input_value(5, row * 2048 + j, LS_ET_I128, LS_COMB_ADD), LS_ET_I128) *
                   INT64_MAX;
        ck_assert_msg(sum > INT64_MAX || sum < INT64_MIN, "row %lld: the sum fits in 64 bits",
                      (long long)row);
        ck_assert_uint_eq(out[row], (uint64_t)sum);
    }

    ls_hw hw;
    ls_diag d;
    ck_assert(ls_hw_load("mi300x", &hw, &d) == LS_OK);
    ls_sim_result r128, r32;
    same_type_text(text, sizeof text, "i128", "arith.addi");
    simulate(text, &hw, &r128, NULL);
    same_type_text(text, sizeof text, "i32", "arith.addi");
    simulate(text, &hw, &r32, NULL);
    int64_t x128 = r128.stage[LS_STAGE_SUBGROUP_REDUCE].dpp_steps +
                   r128.stage[LS_STAGE_SUBGROUP_REDUCE].shuffles;
    int64_t x32 = r32.stage[LS_STAGE_SUBGROUP_REDUCE].dpp_steps +
                  r32.stage[LS_STAGE_SUBGROUP_REDUCE].shuffles;
    ck_assert_int_gt(x32, 0);
    ck_assert_int_eq(x128, 4 * x32);
    ck_assert_int_eq(r128.stage[LS_STAGE_LOAD_ACCUMULATE].global_bytes, 8 * 2048 * 16);
}
END_TEST

static Suite *engine_types_suite(void)
{
    Suite *s = suite_create("engine_types");
    TCase *tc = tcase_create("engine_types");
    tcase_add_test(tc, special_function_unit);
    tcase_add_test(tc, packed_i4_loads);
    tcase_add_test(tc, i128_low_half);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(engine_types_suite)
