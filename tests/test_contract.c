/* test_contract.c: reductions with more than one input and bodies beyond a
 * lone combiner -- generic and named contractions (matvec and friends),
 * explicit indexing maps, fused elementwise producers (dequantization),
 * constants, the body interpreter's semantics, and a property test of
 * random two-input contractions against the reference.  Expected values
 * are computed directly from the inputs here, not by the code under test. */
#include <math.h>

#include "lanescope/body.h"
#include "lanescope/engine.h"
#include "lanescope/functional.h"
#include "lanescope/hwmodel.h"
#include "lanescope/layout.h"
#include "lanescope/npy.h"
#include "lanescope/plan.h"
#include "lanescope/value.h"
#include "testutil.h"

#define TI(wg, sg)                                                                         \
    "translation_info = #iree_codegen.translation_info<pipeline = LLVMGPUVectorDistribute "  \
    "workgroup_size = [" #wg ", 1, 1] subgroup_size = " #sg ">"

/* An int32 matvec C[m] = sum_k A[m,k] * B[k] as a generic. */
static const char *matvec_i32 =
    "func.func @mv() attributes {" TI(64, 32) "} {\n"
    "%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
    "affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = "
    "[\"parallel\", \"reduction\"]} ins(%a, %b : tensor<6x200xi32>, tensor<200xi32>) outs(%c : "
    "tensor<6xi32>) attrs = {lowering_config = #iree_gpu.lowering_config<{workgroup = [2, 0], "
    "partial_reduction = [0, 64], thread = [0, 2], lane_basis = [[1, 32], [0, 1]], "
    "subgroup_basis = [[2, 1], [0, 1]]}>} {\n"
    "^bb0(%x: i32, %y: i32, %o: i32):\n  %p = arith.muli %x, %y : i32\n"
    "  %s = arith.addi %p, %o : i32\n  linalg.yield %s : i32\n} -> tensor<6xi32>\n}\n";

/* Derive, plan for arch, run every workgroup functionally. */
static void run_all(const ls_problem *p, const char *arch, ls_derived *d, ls_plan *plan,
                    uint64_t seed, ls_functional_result *fr)
{
    ls_diag dg;
    ls_diag_clear(&dg);
    ck_assert_msg(ls_derive(p, d, &dg) == LS_OK, "%s", dg.msg);
    ck_assert_msg(ls_plan_build(p, d, ls_plan_target_from_arch(arch), plan, &dg) == LS_OK, "%s",
                  dg.msg);
    ck_assert_msg(ls_functional_run(plan, (ls_input_source){seed, NULL, {NULL}}, 0, -1, fr, &dg) == LS_OK,
                  "%s", dg.msg);
    ck_assert_int_gt(fr->outputs_checked, 0);
}

START_TEST(generic_matvec)
{
    ls_diag dg;
    ls_module *m = load_text(matvec_i32, &dg);
    ck_assert_msg(dg.status == LS_OK, "%s", dg.msg);
    ck_assert_int_eq(m->n_problems, 1);
    const ls_problem *p = &m->problems[0];
    ck_assert_int_eq(p->n_inputs, 2);
    ck_assert_str_eq(p->inputs[0].name, "%a");
    ck_assert_str_eq(p->inputs[1].name, "%b");
    ck_assert_int_eq(p->inputs[1].map_n, 1);
    ck_assert_int_eq(p->inputs[1].map[0], 1);
    ck_assert_int_eq(p->body.n, 3); /* input, input, muli */
    ck_assert_int_eq(p->body.inst[2].op, LS_BOP_MULI);
    ls_derived *d = ls_xcalloc(1, sizeof *d);
    ls_plan plan;
    ls_functional_result fr;
    run_all(p, "sm_80", d, &plan, 5, &fr);
    ck_assert_int_eq(fr.outputs_checked, 6);
    /* Per thread per iteration: A is read as one 2-wide vector; B, which
     * lacks the row dim, the same (a thread holds one row). */
    ck_assert_int_eq(plan.inputs[0].loads, 1);
    ck_assert_int_eq(plan.inputs[0].width, 2);
    ck_assert_int_eq(plan.inputs[1].loads, 1);
    ck_assert_int_eq(plan.inputs[1].width, 2);
    ck_assert_int_eq(plan.body_alu_ops, 1);
    /* The reference is the true dot product, wrapped to 32 bits. */
    for (int64_t row = 0; row < 6; row++) {
        int64_t out[1] = {row}, x[2] = {row, 0};
        uint64_t want = 0;
        for (x[1] = 0; x[1] < 200; x[1]++) {
            int64_t a = ls_value_to_int(ls_operand_value(p, (ls_input_source){5, NULL, {NULL}}, 0, x),
                                        LS_ET_I32);
            int64_t b = ls_value_to_int(ls_operand_value(p, (ls_input_source){5, NULL, {NULL}}, 1, x),
                                        LS_ET_I32);
            want += (uint64_t)(a * b);
        }
        ls_value v;
        double bound;
        ls_reference_output(p, (ls_input_source){5, NULL, {NULL}}, out, &v, &bound);
        ck_assert_uint_eq(v, want & 0xffffffffu);
        ck_assert(bound == 0);
    }
    /* The two inputs draw different values. */
    int64_t x0[2] = {0, 0};
    bool differ = false;
    for (x0[1] = 0; x0[1] < 8; x0[1]++)
        differ |= ls_operand_value(p, (ls_input_source){5, NULL, {NULL}}, 0, x0) !=
                  ls_operand_value(p, (ls_input_source){5, NULL, {NULL}}, 1, x0);
    ck_assert(differ);
    free(d);
    free(m);
}
END_TEST

/* Named contractions: implied maps, OpDSL's casts to the output type. */
static const struct {
    const char *op, *types; /* types: ins types ... outs(init) */
    int rank;
    const char *iters;
    int map0[4], map1[4]; /* -1 ends */
    int body_n;           /* inputs + casts + mul */
} named[] = {
    {"linalg.matvec", "tensor<8x64xf16>, tensor<64xf16>) outs(%c : tensor<8xf32>", 2, "pr",
     {0, 1, -1}, {1, -1}, 5},
    {"linalg.vecmat", "tensor<64xf32>, tensor<64x8xf32>) outs(%c : tensor<8xf32>", 2, "pr",
     {1, -1}, {1, 0, -1}, 3},
    {"linalg.batch_matvec", "tensor<2x8x64xi8>, tensor<2x64xi8>) outs(%c : tensor<2x8xi32>", 3,
     "ppr", {0, 1, 2, -1}, {0, 2, -1}, 5},
    {"linalg.matmul_transpose_b", "tensor<4x64xbf16>, tensor<2x64xbf16>) outs(%c : "
     "tensor<4x2xf32>", 3, "ppr", {0, 2, -1}, {1, 2, -1}, 5},
    {"linalg.batch_vecmat", "tensor<2x64xf32>, tensor<2x64x8xf32>) outs(%c : tensor<2x8xf32>",
     3, "ppr", {0, 2, -1}, {0, 2, 1, -1}, 3},
};

START_TEST(named_contractions)
{
    char text[1024];
    snprintf(text, sizeof text, "%%r = %s ins(%%a, %%b : %s) -> tensor<1xf32>\n",
             named[_i].op, named[_i].types);
    ls_diag dg;
    ls_module *m = load_text(text, &dg);
    ck_assert_msg(dg.status == LS_OK, "%s: %s", named[_i].op, dg.msg);
    ck_assert_int_eq(m->n_problems, 1);
    const ls_problem *p = &m->problems[0];
    ck_assert_int_eq(p->rank, named[_i].rank);
    for (int d = 0; d < p->rank; d++)
        ck_assert_int_eq(p->is_reduction[d], named[_i].iters[d] == 'r');
    for (int j = 0; named[_i].map0[j] >= 0; j++)
        ck_assert_int_eq(p->inputs[0].map[j], named[_i].map0[j]);
    for (int j = 0; named[_i].map1[j] >= 0; j++)
        ck_assert_int_eq(p->inputs[1].map[j], named[_i].map1[j]);
    ck_assert_int_eq(p->combiner, LS_COMB_ADD);
    ck_assert_int_eq(p->body.n, named[_i].body_n);
    ls_body_opcode mul = ls_elem_type_is_float(p->acc_type) ? LS_BOP_MULF : LS_BOP_MULI;
    ck_assert_int_eq(p->body.inst[p->body.n - 1].op, mul);
    if (p->body.n == 5) { /* widened first: f16 -> extf, i8 -> extsi */
        ls_body_opcode want = ls_elem_type_is_float(p->inputs[0].type) ? LS_BOP_EXTF
                                                                         : LS_BOP_EXTSI;
        ck_assert_int_eq(p->body.inst[1].op, want);
        ck_assert_int_eq(p->body.inst[1].type, p->acc_type);
    }
    free(m);
}
END_TEST

/* indexing_maps written on a named op replace the implied ones. */
START_TEST(explicit_maps_honoured)
{
    ls_diag dg;
    ls_module *m = load_text(
        "%r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, "
        "affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : "
        "tensor<64x4xf32>, tensor<64x2xf32>) outs(%c : tensor<4x2xf32>) -> tensor<4x2xf32>\n",
        &dg);
    ck_assert_msg(dg.status == LS_OK, "%s", dg.msg);
    ck_assert_int_eq(m->n_problems, 1);
    const ls_problem *p = &m->problems[0];
    ck_assert_int_eq(p->inputs[0].map[0], 2);
    ck_assert_int_eq(p->inputs[0].map[1], 0);
    ck_assert_int_eq(p->size[0], 4);
    ck_assert_int_eq(p->size[2], 64);
    ck_assert(p->is_reduction[2] && !p->is_reduction[0] && !p->is_reduction[1]);
    /* the dispatch view reads the same maps */
    const ls_dop *o = &m->dispatches[0].ops[0];
    ck_assert_int_eq(o->operand[0].map[0], 2);
    free(m);
    /* linalg.contract takes its loops from the maps */
    m = load_text("%r = linalg.contract indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, "
                  "affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>] ins(%a, %b : "
                  "tensor<32x8xf32>, tensor<32xf32>) outs(%c : tensor<8xf32>) -> tensor<8xf32>\n",
                  &dg);
    ck_assert_msg(dg.status == LS_OK, "%s", dg.msg);
    ck_assert_int_eq(m->n_problems, 1);
    ck_assert(m->problems[0].is_reduction[1] && !m->problems[0].is_reduction[0]);
    ck_assert_int_eq(m->problems[0].size[1], 32);
    free(m);
    m = load_text("%r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>] "
                  "ins(%a, %b : tensor<64x4xf32>, tensor<64x2xf32>) outs(%c : tensor<4x2xf32>)\n",
                  &dg);
    ck_assert_int_ne(dg.status, LS_OK);
    ck_assert(strstr(dg.msg, "indexing_maps must hold three affine maps") != NULL);
    free(m);
}
END_TEST

/* A dequantizing producer (i8 weights, per-row scale) fused into a matvec:
 * the reduction reads q, scale and x, never the dequantized tensor. */
static const char *dequant_matvec =
    "func.func @dq() attributes {" TI(256, 64) "} {\n"
    "%zp = arith.constant 3.000000e+00 : f32\n"
    "%w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, "
    "d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = [\"parallel\", "
    "\"parallel\"]} ins(%q, %s : tensor<16x256xi8>, tensor<16xf32>) outs(%e : "
    "tensor<16x256xf32>) {\n^bb0(%in: i8, %sc: f32, %o: f32):\n"
    "  %0 = arith.sitofp %in : i8 to f32\n  %1 = arith.subf %0, %zp : f32\n"
    "  %2 = arith.mulf %1, %sc fastmath<contract> : f32\n  linalg.yield %2 : f32\n"
    "} -> tensor<16x256xf32>\n"
    "%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> "
    "(d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]} "
    "ins(%x, %w : tensor<256xf32>, tensor<16x256xf32>) outs(%c : tensor<16xf32>) attrs = "
    "{lowering_config = #iree_gpu.lowering_config<{workgroup = [4, 0], partial_reduction = [0, "
    "128], thread = [0, 2], lane_basis = [[1, 64], [0, 1]], subgroup_basis = [[4, 1], [0, "
    "1]]}>} {\n^bb0(%a: f32, %b: f32, %out: f32):\n  %3 = arith.mulf %a, %b : f32\n"
    "  %4 = arith.addf %3, %out : f32\n  linalg.yield %4 : f32\n} -> tensor<16xf32>\n}\n";

START_TEST(fused_dequant_producer)
{
    ls_diag dg;
    ls_module *m = load_text(dequant_matvec, &dg);
    ck_assert_msg(dg.status == LS_OK, "%s", dg.msg);
    ck_assert_int_eq(m->n_problems, 1);
    const ls_problem *p = &m->problems[0];
    ck_assert_int_eq(p->n_inputs, 3);
    ck_assert_str_eq(p->inputs[0].name, "%x");
    ck_assert_str_eq(p->inputs[1].name, "%q");
    ck_assert_str_eq(p->inputs[2].name, "%s");
    ck_assert_int_eq(p->inputs[1].type, LS_ET_I8);
    ck_assert_int_eq(p->inputs[2].map_n, 1);
    ck_assert_int_eq(p->inputs[2].map[0], 0); /* the scale follows the row */
    ls_derived *d = ls_xcalloc(1, sizeof *d);
    ls_plan plan;
    ls_functional_result fr;
    run_all(p, "gfx942", d, &plan, 11, &fr);
    ck_assert_int_eq(fr.outputs_checked, 16);
    ck_assert_int_eq(plan.body_alu_ops, 4); /* sitofp, subf, mulf (scale), mulf (x) */
    /* One element by hand, in f32 arithmetic. */
    int64_t x[2] = {5, 77};
    ls_input_source in = {11, NULL, {NULL}};
    float xv = (float)ls_value_to_double(ls_operand_value(p, in, 0, x), LS_ET_F32);
    float q = (float)ls_value_to_int(ls_operand_value(p, in, 1, x), LS_ET_I8);
    float sc = (float)ls_value_to_double(ls_operand_value(p, in, 2, x), LS_ET_F32);
    volatile float w = (q - 3.0f) * sc;
    volatile float want = xv * w;
    ck_assert(ls_value_to_double(ls_problem_element(p, in, x), LS_ET_F32) == (double)want);
    free(d);
    free(m);
}
END_TEST

/* A body instruction: op, predicate, result and operand types, operands,
 * input index. */
static ls_body_inst inst_of(ls_body_opcode op, int pred, ls_elem_type t, ls_elem_type src, int a,
                            int b, int c, int index)
{
    return (ls_body_inst){.op = (uint8_t)op,
                          .pred = (uint8_t)pred,
                          .type = (uint8_t)t,
                          .src = (uint8_t)src,
                          .a = (int16_t)a,
                          .b = (int16_t)b,
                          .c = (int16_t)c,
                          .index = index};
}

/* Body semantics that differ from plain C. */
START_TEST(body_semantics)
{
    ls_body b;
    memset(&b, 0, sizeof b);
    uint64_t scratch[LS_MAX_BODY_INSTS], in[2];
    int64_t x[2] = {0, 0};
    /* %2 = arith.fptosi(input0 : f32) : i8 saturates */
    b.n = 2;
    b.inst[0] = inst_of(LS_BOP_INPUT, 0, LS_ET_F32, LS_ET_F32, -1, -1, -1, 0);
    b.inst[1] = inst_of(LS_BOP_FPTOSI, 0, LS_ET_I8, LS_ET_F32, 0, -1, -1, 0);
    in[0] = ls_value_from_double(1000.0, LS_ET_F32);
    ck_assert_int_eq(ls_value_to_int(ls_body_eval(&b, in, x, scratch), LS_ET_I8), 127);
    in[0] = ls_value_from_double(-1000.0, LS_ET_F32);
    ck_assert_int_eq(ls_value_to_int(ls_body_eval(&b, in, x, scratch), LS_ET_I8), -128);
    in[0] = ls_value_from_double(NAN, LS_ET_F32);
    ck_assert_int_eq(ls_body_eval(&b, in, x, scratch), 0);
    /* extui of i8 0xff is 255, extsi is -1 */
    b.inst[0].type = b.inst[0].src = LS_ET_I8;
    b.inst[1] = inst_of(LS_BOP_EXTUI, 0, LS_ET_I32, LS_ET_I8, 0, -1, -1, 0);
    in[0] = 0xff;
    ck_assert_uint_eq(ls_body_eval(&b, in, x, scratch), 255);
    b.inst[1].op = LS_BOP_EXTSI;
    ck_assert_uint_eq(ls_body_eval(&b, in, x, scratch), 0xffffffffu);
    /* select(cmpf ogt(a, b), a, b) with a NaN: ordered compare is false */
    b.n = 4;
    b.inst[0] = inst_of(LS_BOP_INPUT, 0, LS_ET_F32, LS_ET_F32, -1, -1, -1, 0);
    b.inst[1] = inst_of(LS_BOP_INPUT, 0, LS_ET_F32, LS_ET_F32, -1, -1, -1, 1);
    b.inst[2] = inst_of(LS_BOP_CMPF, LS_PRED_OGT, LS_ET_I1, LS_ET_F32, 0, 1, -1, 0);
    b.inst[3] = inst_of(LS_BOP_SELECT, 0, LS_ET_F32, LS_ET_F32, 2, 0, 1, 0);
    int bad;
    const char *why;
    ck_assert(ls_body_check(&b, &bad, &why));
    in[0] = ls_value_from_double(NAN, LS_ET_F32);
    in[1] = ls_value_from_double(2.0, LS_ET_F32);
    ck_assert(ls_value_to_double(ls_body_eval(&b, in, x, scratch), LS_ET_F32) == 2.0);
    in[0] = ls_value_from_double(5.0, LS_ET_F32);
    ck_assert(ls_value_to_double(ls_body_eval(&b, in, x, scratch), LS_ET_F32) == 5.0);
    /* a type error is caught: select of an f32 condition */
    b.inst[3].a = 0;
    ck_assert(!ls_body_check(&b, &bad, &why));
    ck_assert_int_eq(bad, 3);
    /* f16 ops round per op: 2049 is not an f16 */
    b.n = 3;
    b.inst[0] = inst_of(LS_BOP_INPUT, 0, LS_ET_F16, LS_ET_F16, -1, -1, -1, 0);
    b.inst[1] = inst_of(LS_BOP_INPUT, 0, LS_ET_F16, LS_ET_F16, -1, -1, -1, 1);
    b.inst[2] = inst_of(LS_BOP_ADDF, 0, LS_ET_F16, LS_ET_F16, 0, 1, -1, 0);
    in[0] = ls_value_from_double(2048.0, LS_ET_F16);
    in[1] = ls_value_from_double(1.0, LS_ET_F16);
    ck_assert(ls_value_to_double(ls_body_eval(&b, in, x, scratch), LS_ET_F16) == 2048.0);
}
END_TEST

/* Sum of squares scaled by a function-level constant, and linalg.index. */
START_TEST(constants_and_index)
{
    ls_diag dg;
    ls_module *m = load_text(
        "func.func @ss() attributes {" TI(64, 64) "} {\n"
        "%half = arith.constant 5.000000e-01 : f32\n"
        "%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
        "affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]} ins(%a : "
        "tensor<4x100xf32>) outs(%c : tensor<4xf32>) attrs = {lowering_config = "
        "#iree_gpu.lowering_config<{workgroup = [1, 0], partial_reduction = [0, 64], thread = [0, "
        "1], lane_basis = [[1, 64], [0, 1]], subgroup_basis = [[1, 1], [0, 1]]}>} {\n"
        "^bb0(%in: f32, %out: f32):\n  %i = linalg.index 1 : index\n"
        "  %ii = arith.index_cast %i : index to i32\n  %fi = arith.sitofp %ii : i32 to f32\n"
        "  %0 = arith.mulf %in, %in : f32\n  %1 = arith.mulf %0, %half : f32\n"
        "  %2 = arith.addf %1, %fi : f32\n  %3 = arith.addf %2, %out : f32\n"
        "  linalg.yield %3 : f32\n} -> tensor<4xf32>\n}\n",
        &dg);
    ck_assert_msg(dg.status == LS_OK, "%s", dg.msg);
    const ls_problem *p = &m->problems[0];
    ck_assert_int_eq(p->n_inputs, 1);
    ck_assert_int_gt(p->body.n, 0);
    ls_input_source in = {3, NULL, {NULL}};
    int64_t x[2] = {2, 41};
    float a = (float)ls_value_to_double(ls_operand_value(p, in, 0, x), LS_ET_F32);
    volatile float want = a * a * 0.5f + 41.0f;
    ck_assert(ls_value_to_double(ls_problem_element(p, in, x), LS_ET_F32) == (double)want);
    ls_derived *d = ls_xcalloc(1, sizeof *d);
    ls_plan plan;
    ls_functional_result fr;
    run_all(p, "sm_80", d, &plan, 3, &fr);
    ck_assert_int_eq(fr.outputs_checked, 4);
    free(m);
    /* MLIR spells -inf by its bits: a clamp at -inf changes nothing */
    m = load_text("%ninf = arith.constant 0xFF800000 : f32\n"
                  "%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
                  "affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", "
                  "\"reduction\"]} ins(%a : tensor<4x100xf32>) outs(%c : tensor<4xf32>) {\n"
                  "^bb0(%in: f32, %out: f32):\n  %0 = arith.maximumf %in, %ninf : f32\n"
                  "  %1 = arith.addf %0, %out : f32\n  linalg.yield %1 : f32\n}\n",
                  &dg);
    ck_assert_msg(dg.status == LS_OK, "%s", dg.msg);
    p = &m->problems[0];
    ck_assert_int_eq(p->body.n, 3);
    ck_assert_int_eq(p->body.inst[1].op, LS_BOP_CONST);
    ck_assert_uint_eq(p->body.inst[1].imm, 0xFF800000u);
    ck_assert(ls_problem_element(p, in, x) == ls_operand_value(p, in, 0, x));
    free(d);
    free(m);
}
END_TEST

/* Property: random two-input contractions (the second input a random
 * projection of the loops) with random bodies run lane by lane and match
 * the reference, on NVIDIA and AMD lowerings. */
START_TEST(random_contractions)
{
    uint64_t rng = 4242;
    int ran = 0, broadcast = 0;
    ls_derived *d = ls_xcalloc(1, sizeof *d);
    for (int iter = 0; iter < 600 && ran < 50; iter++) {
        ls_problem p;
        if (!random_problem(&rng, &p, 6, 90))
            continue;
        int t = (int)rng_range(&rng, 0, 2);
        ls_elem_type ty = t == 0 ? LS_ET_F32 : t == 1 ? LS_ET_I32 : LS_ET_F16;
        p.acc_type = p.inputs[0].type = ty;
        ls_operand *o = &p.inputs[1];
        memset(o, 0, sizeof *o);
        o->type = ty;
        for (int i = 0; i < p.rank; i++)
            if (rng_range(&rng, 0, 2) > 0)
                o->map[o->map_n++] = i;
        if (o->map_n == 0)
            o->map[o->map_n++] = p.rank - 1;
        if (o->map_n > 1 && rng_range(&rng, 0, 1)) {
            int s = o->map[0];
            o->map[0] = o->map[o->map_n - 1];
            o->map[o->map_n - 1] = s;
        }
        broadcast += o->map_n < p.rank;
        p.n_inputs = 2;
        bool fl = ls_elem_type_is_float(ty);
        p.combiner = fl ? (rng_range(&rng, 0, 1) ? LS_COMB_ADD : LS_COMB_MAXNUMF)
                        : (rng_range(&rng, 0, 1) ? LS_COMB_ADD : LS_COMB_XOR);
        /* body: (a op1 b) op2 a */
        ls_body_opcode ops_f[] = {LS_BOP_MULF, LS_BOP_SUBF, LS_BOP_MAXIMUMF, LS_BOP_ADDF};
        ls_body_opcode ops_i[] = {LS_BOP_MULI, LS_BOP_SUBI, LS_BOP_MAXSI, LS_BOP_XORI};
        ls_body *b = &p.body;
        memset(b, 0, sizeof *b);
        b->n = 4;
        b->inst[0] = inst_of(LS_BOP_INPUT, 0, ty, ty, -1, -1, -1, 0);
        b->inst[1] = inst_of(LS_BOP_INPUT, 0, ty, ty, -1, -1, -1, 1);
        int k1 = (int)rng_range(&rng, 0, 3), k2 = (int)rng_range(&rng, 0, 3);
        b->inst[2] = inst_of(fl ? ops_f[k1] : ops_i[k1], 0, ty, ty, 0, 1, -1, 0);
        b->inst[3] = inst_of(fl ? ops_f[k2] : ops_i[k2], 0, ty, ty, 2, 0, -1, 0);
        ls_diag dg;
        ls_diag_clear(&dg);
        if (ls_derive(&p, d, &dg) != LS_OK)
            continue;
        const char *arch = rng_range(&rng, 0, 1) ? "gfx942" : "sm_80";
        ls_plan plan;
        REQUIRE(ls_plan_build(&p, d, ls_plan_target_from_arch(arch), &plan, &dg) == LS_OK, "%s",
                dg.msg);
        ls_functional_result fr;
        int64_t wgs = d->total_workgroups < 3 ? d->total_workgroups : 3;
        ls_status st = ls_functional_run(&plan, (ls_input_source){99, NULL, {NULL}},
                                         d->total_workgroups - wgs, wgs, &fr, &dg);
        REQUIRE(st == LS_OK, "%s %s on %s: %s", ls_elem_type_name(ty),
                ls_combiner_name(p.combiner), arch, dg.msg);
        REQUIRE(fr.outputs_checked > 0, "no output checked");
        ran++;
    }
    free(d);
    ck_assert_int_ge(ran, 40);
    ck_assert_int_gt(broadcast, 0);
}
END_TEST

/* The engine reads every input: the matvec's vector once per workgroup
 * (per subgroup holding rows), the matrix once; and reports each input's
 * share of the load traffic. */
START_TEST(engine_reads_both_inputs)
{
    ls_diag dg;
    ls_module *m = load_text(matvec_i32, &dg);
    ck_assert_msg(dg.status == LS_OK, "%s", dg.msg);
    const ls_problem *p = &m->problems[0];
    ls_derived *d = ls_xcalloc(1, sizeof *d);
    ls_plan plan;
    ck_assert(ls_derive(p, d, &dg) == LS_OK);
    ck_assert(ls_plan_build(p, d, ls_plan_target_from_arch("sm_80"), &plan, &dg) == LS_OK);
    ls_hw hw;
    ck_assert_msg(ls_hw_load("a100", &hw, &dg) == LS_OK, "%s", dg.msg);
    ls_sim_result res;
    ck_assert_msg(ls_engine_run(&plan, &hw, &res, NULL, &dg) == LS_OK, "%s", dg.msg);
    /* 3 workgroups x 2 subgroups, each subgroup one row: A 6x200 i32 once,
     * B (200 i32) once per subgroup. */
    int64_t want = 6 * 200 * 4 + 6 * 200 * 4;
    const ls_stage_stats *ld = &res.stage[LS_STAGE_LOAD_ACCUMULATE];
    ck_assert_int_eq(ld->global_bytes, want);
    /* split by operand: A's 4800 bytes, all from DRAM (150 sectors, each
     * read once); B's 800 bytes six times, from DRAM at least once and
     * mostly from the caches; the parts add up to the stage's figures */
    ck_assert_int_eq(res.n_operands, 2);
    ck_assert_int_eq(res.operand[0].global_bytes, 6 * 200 * 4);
    ck_assert_int_eq(res.operand[1].global_bytes, 6 * 200 * 4);
    ck_assert_int_eq(res.operand[0].dram_bytes, 6 * 200 * 4);
    ck_assert_int_ge(res.operand[1].dram_bytes, 200 * 4);
    ck_assert_int_lt(res.operand[1].dram_bytes, res.operand[1].global_bytes);
    ck_assert_int_eq(res.operand[0].sectors + res.operand[1].sectors, ld->sectors);
    ck_assert_int_eq(res.operand[0].l1_hits + res.operand[1].l1_hits, ld->l1_hits);
    ck_assert_int_eq(res.operand[0].sector_hits + res.operand[1].sector_hits, ld->sector_hits);
    ck_assert_int_eq(res.operand[0].mall_hits + res.operand[1].mall_hits, ld->mall_hits);
    ck_assert_int_eq(res.operand[0].dram_bytes + res.operand[1].dram_bytes, ld->dram_bytes);
    /* one muli and one addi per element, per iteration of 64 / (16 lanes x 4) = 1 load each */
    free(d);
    free(m);
}
END_TEST

/* The serial `reduction` level: random problems tiled by it instead of
 * partial_reduction run every stage per iteration and still match the
 * reference; the engine repeats the reduce stages per iteration. */
START_TEST(serial_reduction_level)
{
    uint64_t rng = 9001;
    int ran = 0, cross = 0, multi = 0;
    ls_derived *d = ls_xcalloc(1, sizeof *d);
    for (int iter = 0; iter < 600 && ran < 40; iter++) {
        ls_problem p;
        if (!random_problem(&rng, &p, 5, 200))
            continue;
        ls_lowering_config *c = &p.config;
        c->reduction = c->partial_reduction;
        for (int i = 0; i < p.rank; i++)
            c->partial_reduction.v[i] = 0;
        ls_diag dg;
        ls_diag_clear(&dg);
        if (ls_derive(&p, d, &dg) != LS_OK)
            continue;
        const char *arch = rng_range(&rng, 0, 1) ? "gfx942" : "sm_80";
        ls_plan plan;
        REQUIRE(ls_plan_build(&p, d, ls_plan_target_from_arch(arch), &plan, &dg) == LS_OK, "%s",
                dg.msg);
        ls_functional_result fr;
        int64_t wgs = d->total_workgroups < 3 ? d->total_workgroups : 3;
        REQUIRE(ls_functional_run(&plan, (ls_input_source){31, NULL, {NULL}},
                                  d->total_workgroups - wgs, wgs, &fr, &dg) == LS_OK,
                "%s: %s", arch, dg.msg);
        ran++;
        cross += plan.cross_subgroup;
        multi += d->serial_reduce && plan.iterations > 1;
    }
    ck_assert_int_ge(ran, 30);
    ck_assert_int_gt(cross, 0);
    ck_assert_int_gt(multi, 0);
    free(d);
    /* both levels on one dim, or the level on a parallel dim: rejected */
    ls_diag dg;
    const char *bad[] = {"partial_reduction = [0, 64], reduction = [0, 64]", "reduction = [4, 0]"};
    const char *why[] = {"tiled by both reduction (64) and partial_reduction (64)",
                         "reduction[0] = 4 is on parallel dimension d0"};
    for (int i = 0; i < 2; i++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "%%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
                 "affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]} "
                 "ins(%%a : tensor<4x256xf32>) outs(%%c : tensor<4xf32>) attrs = {lowering_config "
                 "= #iree_gpu.lowering_config<{%s, thread = [0, 1], lane_basis = [[1, 64], [0, "
                 "1]], subgroup_basis = [[1, 1], [0, 1]]}>} {\n^bb0(%%in: f32, %%out: f32):\n  %%0 "
                 "= arith.addf %%in, %%out : f32\n  linalg.yield %%0 : f32\n}\n",
                 bad[i]);
        ls_module *m = load_text(text, &dg);
        ck_assert_msg(dg.status == LS_OK, "%s", dg.msg);
        ls_derived *dd = ls_xcalloc(1, sizeof *dd);
        ck_assert_int_eq(ls_derive(&m->problems[0], dd, &dg), LS_ERR_INVALID);
        ck_assert_msg(strstr(dg.msg, why[i]) != NULL, "got '%s'", dg.msg);
        free(dd);
        free(m);
    }
}
END_TEST

/* A strided input map (d1 * 2): a reduction, not a convolution (IREE's
 * convolution interface wants an image and a filter); it reads every other
 * element, and the lanes match a direct sum of those. */
START_TEST(strided_input_map)
{
    ls_diag dg;
    ls_module *m = load_text(
        "%r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1 * 2, d2)>, "
        "affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = [\"parallel\", \"parallel\", "
        "\"reduction\"]} ins(%a : tensor<4x16x64xi32>) outs(%c : tensor<4x8xi32>) attrs = "
        "{lowering_config = #iree_gpu.lowering_config<{workgroup = [1, 1, 0], partial_reduction = "
        "[0, 0, 32], thread = [0, 0, 1], lane_basis = [[1, 1, 32], [0, 1, 2]], subgroup_basis = "
        "[[1, 1, 1], [0, 1, 2]]}>} {\n^bb0(%in: i32, %out: i32):\n  %0 = arith.addi %in, %out : "
        "i32\n  linalg.yield %0 : i32\n} -> tensor<4x8xi32>\n",
        &dg);
    ck_assert_msg(dg.status == LS_OK, "%s", dg.msg);
    ck_assert_int_eq(m->n_problems, 1);
    ck_assert(!m->dispatches[0].ops[0].is_conv);
    const ls_problem *p = &m->problems[0];
    ck_assert_int_eq(p->inputs[0].scale[1], 2);
    ck_assert_int_eq(p->inputs[0].shape[1], 16);
    ck_assert_int_eq(ls_operand_elements(p, 0), 4 * 16 * 64);
    ls_derived *d = ls_xcalloc(1, sizeof *d);
    ls_plan plan;
    ls_functional_result fr;
    run_all(p, "sm_80", d, &plan, 17, &fr);
    ck_assert_int_eq(fr.outputs_checked, 32);
    /* output (3, 5) sums A[3, 10, k] */
    ls_input_source in = {17, NULL, {NULL}};
    uint64_t want = 0;
    for (int64_t k = 0; k < 64; k++)
        want += ls_input_value(17, (uint64_t)((3 * 16 + 10) * 64 + k), LS_ET_I32, LS_COMB_ADD);
    ls_value v;
    double bound;
    ls_reference_output(p, in, (int64_t[]){3, 5}, &v, &bound);
    ck_assert_uint_eq(v, want & 0xffffffffu);
    free(d);
    free(m);
    /* reading past the operand is caught */
    m = load_text("%r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1 * 3, "
                  "d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = [\"parallel\", "
                  "\"parallel\", \"reduction\"]} ins(%a : tensor<4x16x64xi32>) outs(%c : "
                  "tensor<4x8xi32>) {\n^bb0(%in: i32, %out: i32):\n  %0 = arith.addi %in, %out : "
                  "i32\n  linalg.yield %0 : i32\n}\n",
                  &dg);
    ck_assert_msg(dg.status == LS_OK, "%s", dg.msg);
    ck_assert_int_eq(ls_problem_validate(&m->problems[0], &dg), LS_ERR_INVALID);
    ck_assert_msg(strstr(dg.msg, "read at d1 * 3 up to 21, past its size 16") != NULL, "%s",
                  dg.msg);
    free(m);
}
END_TEST

/* A sum of squares, 2 rows of 1024 f32, one workgroup a row, laid out
 * by `cfg`: what IREE's lowering computes per thread, from values that
 * are not on any grid (an in-memory .npy), so that every rounding shows. */
static const char *squares_text(char *buf, size_t size, const char *cfg)
{
    snprintf(
        buf, size,
        "func.func @sq() attributes {" TI(
            64,
            64) "} {\n"
                "%%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
                "affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]} "
                "ins(%%a : tensor<2x1024xf32>) outs(%%c : tensor<2xf32>) attrs = {lowering_config "
                "= #iree_gpu.lowering_config<{workgroup = [1, 0], %s, "
                "lane_basis = [[1, 64], [0, 1]], subgroup_basis = [[1, 1], [0, 1]]}>} {\n"
                "^bb0(%%x: f32, %%o: f32):\n  %%m = arith.mulf %%x, %%x : f32\n"
                "  %%s = arith.addf %%m, %%o : f32\n  linalg.yield %%s : f32\n} -> "
                "tensor<2xf32>\n}\n",
        cfg);
    return buf;
}

/* 2048 f32 values with full significands in [-1, 1) */
static void squares_npy(ls_npy *a)
{
    memset(a, 0, sizeof *a);
    a->type = LS_ET_F32;
    a->rank = 2;
    a->shape[0] = 2;
    a->shape[1] = 1024;
    a->count = 2048;
    a->data = ls_xcalloc(2048, sizeof(float));
    uint64_t x = 0x243f6a8885a308d3ull;
    for (int i = 0; i < 2048; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        float f = (float)((double)(x >> 11) / 9007199254740992.0 * 2 - 1);
        memcpy(a->data + 4 * i, &f, 4);
    }
}

/* Each thread's accumulators of workgroup 0 after `iters` iterations of
 * the loop, in snap (the caller frees it). */
static void squares_after(const char *cfg, uint8_t math, int64_t iters, ls_problem *p,
                          ls_derived *d, ls_plan *plan, const ls_npy *a, ls_func_snapshot *snap)
{
    char text[2048];
    ls_diag dg;
    ls_module *m = load_text(squares_text(text, sizeof text, cfg), &dg);
    ck_assert_msg(dg.status == LS_OK, "%s", dg.msg);
    *p = m->problems[0];
    free(m);
    p->body.math = math;
    ck_assert_msg(ls_derive(p, d, &dg) == LS_OK, "%s", dg.msg);
    ck_assert_msg(ls_plan_build(p, d, ls_plan_target_from_arch("gfx942"), plan, &dg) == LS_OK, "%s",
                  dg.msg);
    ck_assert_int_eq(ls_npy_check(a, p, "squares.npy", &dg), LS_OK);
    ls_func_point at = {LS_STAGE_LOAD_ACCUMULATE, iters, 0, 0};
    ls_input_source in = {1, a, {NULL}};
    ck_assert_msg(ls_functional_snapshot(plan, in, 0, &at, snap, &dg) == LS_OK, "%s", dg.msg);
    ck_assert(snap->accumulators);
    ck_assert_int_eq(snap->per_thread, plan->acc_registers);
    /* and the whole run still matches the reference */
    ls_functional_result fr;
    ck_assert_msg(ls_functional_run(plan, in, 0, -1, &fr, &dg) == LS_OK, "%s", dg.msg);
    ck_assert_int_eq(fr.mismatches, 0);
}

static float f32_at(const ls_npy *a, int64_t i)
{
    float f;
    memcpy(&f, a->data + 4 * i, 4);
    return f;
}

/* What thread tid of workgroup 0 folds into accumulator acc at iteration
 * it, both ways: IREE's FMA chain from 0, last register first, and the fold
 * lanescope did before (each product rounded, added in register order).
 * Returns how many valid registers feed acc. */
static int64_t squares_folds(const ls_derived *d, const ls_problem *p, const ls_npy *a, int64_t tid,
                             const int64_t *it, int64_t acc, float *chain, float *plain)
{
    int64_t zero[LS_MAX_RANK] = {0}, regs = ls_nl_registers(&d->layout), n = 0;
    *chain = *plain = 0;
    for (int64_t i = 0; i < regs; i++) {
        int64_t r = regs - 1 - i, x[LS_MAX_RANK], slot, q;
        bool valid;
        ls_register_slots(d, p, r, &slot, &q);
        ls_thread_element(d, p, tid, zero, it, r, x, &valid);
        if (slot != acc || !valid)
            continue;
        float v = f32_at(a, x[0] * 1024 + x[1]);
        *chain = fmaf(v, v, *chain);
        n++;
    }
    for (int64_t r = 0; r < regs; r++) {
        int64_t x[LS_MAX_RANK], slot, q;
        bool valid;
        ls_register_slots(d, p, r, &slot, &q);
        ls_thread_element(d, p, tid, zero, it, r, x, &valid);
        if (slot == acc && valid) {
            float v = f32_at(a, x[0] * 1024 + x[1]);
            volatile float sq = v * v;
            *plain = *plain + sq;
        }
    }
    return n;
}

/* Packed inner dim (partial 512, thread 4: GPUPackPartialReductions):
 * IREE reduces each accumulator's 4 registers as an FMA chain from 0,
 * last first (ContractToChainFMA of the local vector.contract in
 * DistributeContract), then adds that to the accumulator -- on every
 * target.  Unpacked (thread 1) on AMD: acc = fma(x, x, acc) per register
 * (AllowFPOpFusion::Fast); on NVIDIA, two roundings. */
START_TEST(products_fused_as_iree_fuses_them)
{
    ls_npy a;
    squares_npy(&a);
    ls_problem *p = ls_xcalloc(1, sizeof *p);
    ls_derived *d = ls_xcalloc(1, sizeof *d);
    ls_plan plan;
    ls_func_snapshot snap;
    int64_t zero[LS_MAX_RANK] = {0};

    squares_after("partial_reduction = [0, 512], thread = [0, 4]", LS_MATH_MLIR, 1, p, d, &plan, &a,
                  &snap);
    ck_assert_int_eq(plan.inner_elems, 4);
    int64_t differs = 0;
    for (int64_t tid = 0; tid < snap.threads; tid++)
        for (int64_t acc = 0; acc < snap.per_thread; acc++) {
            float chain, plain;
            squares_folds(d, p, &a, tid, zero, acc, &chain, &plain);
            float got = ls_f32_of_bits((uint32_t)snap.values[tid * snap.per_thread + acc]);
            ck_assert_msg(memcmp(&got, &chain, 4) == 0, "thread %lld acc %lld: %.9g, chain %.9g",
                          (long long)tid, (long long)acc, got, chain);
            differs += memcmp(&chain, &plain, 4) != 0;
        }
    ck_assert_int_gt(differs, 0); /* the inputs tell the two folds apart */
    ls_func_snapshot_free(&snap);

    /* unpacked, two iterations: acc = fma(x2, x2, x1 * x1) on AMD */
    for (int amd = 0; amd < 2; amd++) {
        squares_after("partial_reduction = [0, 512], thread = [0, 1]",
                      amd ? LS_MATH_ROCM : LS_MATH_MLIR, 2, p, d, &plan, &a, &snap);
        ck_assert_int_eq(plan.inner_elems, 1);
        int64_t regs = ls_nl_registers(&d->layout);
        int64_t it1[LS_MAX_RANK] = {0, 1};
        differs = 0;
        for (int64_t tid = 0; tid < snap.threads; tid++)
            for (int64_t r = 0; r < regs; r++) {
                int64_t x0[LS_MAX_RANK], x1[LS_MAX_RANK], slot, q;
                bool v0, v1;
                ls_register_slots(d, p, r, &slot, &q);
                ls_thread_element(d, p, tid, zero, zero, r, x0, &v0);
                ls_thread_element(d, p, tid, zero, it1, r, x1, &v1);
                ck_assert(v0 && v1);
                float a0 = f32_at(&a, x0[1]), a1 = f32_at(&a, x1[1]);
                volatile float s0 = a0 * a0, s1 = a1 * a1;
                float fused = fmaf(a1, a1, s0), plain = s0 + s1;
                float want = amd ? fused : plain;
                float got = ls_f32_of_bits((uint32_t)snap.values[tid * snap.per_thread + slot]);
                ck_assert_msg(memcmp(&got, &want, 4) == 0, "%s thread %lld reg %lld: %.9g vs %.9g",
                              amd ? "AMD" : "NVIDIA", (long long)tid, (long long)r, got, want);
                differs += memcmp(&fused, &plain, 4) != 0;
            }
        ck_assert_int_gt(differs, 0);
        ls_func_snapshot_free(&snap);
    }
    ls_npy_free(&a);
    free(d);
    free(p);
}
END_TEST

/* No partial_reduction: DistributeContract's local contraction takes
 * every register of a thread's tile from 0, and ContractToChainFMA makes
 * it one FMA chain per output, last register first, on every target: the
 * output's value before the subgroup reduce, with no thread reduce after
 * it.  The whole row at once (4 batches x 4 elements: 16 registers), and a
 * serial `reduction` level (2 batches x 4 a iteration; iteration 1's
 * chain starts from 0 again).  The fold lanescope did before -- each
 * product rounded, added in register order -- differs. */
START_TEST(contract_chain_without_partial_reduction)
{
    ls_npy a;
    squares_npy(&a);
    ls_problem *p = ls_xcalloc(1, sizeof *p);
    ls_derived *d = ls_xcalloc(1, sizeof *d);
    ls_plan plan;
    ls_func_snapshot snap;
    const char *cfgs[] = {"thread = [0, 4]", "reduction = [0, 512], thread = [0, 4]"};
    const int64_t iters[] = {1, 2}, chained[] = {16, 8};
    for (int c = 0; c < 2; c++)
        for (int amd = 0; amd < 2; amd++) {
            squares_after(cfgs[c], amd ? LS_MATH_ROCM : LS_MATH_MLIR, iters[c], p, d, &plan, &a,
                          &snap);
            ck_assert(d->local_reduce_all);
            ck_assert_int_eq(ls_functional_fma(&plan), LS_FMA_CONTRACT);
            ck_assert_int_eq(plan.acc_registers, 1);
            ck_assert_int_eq(plan.local_reduce_ops, 0);
            int64_t regs = ls_nl_registers(&d->layout), differs = 0;
            ck_assert_int_eq(regs, chained[c]);
            int64_t it[LS_MAX_RANK] = {0, iters[c] - 1};
            for (int64_t tid = 0; tid < snap.threads; tid++) {
                float chain, plain;
                /* every register is valid and feeds the one accumulator */
                ck_assert_int_eq(squares_folds(d, p, &a, tid, it, 0, &chain, &plain), regs);
                float got = ls_f32_of_bits((uint32_t)snap.values[tid]);
                ck_assert_msg(memcmp(&got, &chain, 4) == 0, "%s thread %lld: %.9g, chain %.9g",
                              cfgs[c], (long long)tid, got, chain);
                differs += memcmp(&chain, &plain, 4) != 0;
            }
            ck_assert_int_gt(differs, 0);
            ls_func_snapshot_free(&snap);
        }
    /* a partial_reduction tile, or a plain sum: no contract chain */
    squares_after("partial_reduction = [0, 1024], thread = [0, 4]", LS_MATH_MLIR, 1, p, d, &plan,
                  &a, &snap);
    ck_assert(!d->local_reduce_all);
    ls_func_snapshot_free(&snap);
    ls_npy_free(&a);
    free(d);
    free(p);
}
END_TEST

/* A bf16 math.fma: one rounding on NVIDIA (fma.rn.bf16 from sm_80), two
 * on AMD, whose backend promotes it (f32 FMA, then the result rounded to
 * bf16: llc-22 on gfx942, gfx950, gfx1100, gfx1201).  1.5 x 1.0078125 is
 * 1.51171875, a bf16 tie (1 + 65.5/128); less 2^-30 the exact value rounds
 * down to 1 + 65/128, while f32 drops the 2^-30 and the tie goes to even,
 * 1 + 66/128. */
START_TEST(bf16_fma_rounds_as_the_target_does)
{
    ls_body b;
    memset(&b, 0, sizeof b);
    for (int i = 0; i < 2; i++)
        b.inst[i] = (ls_body_inst){
            .op = LS_BOP_INPUT, .type = LS_ET_BF16, .a = -1, .b = -1, .c = -1, .index = i};
    b.inst[2] = (ls_body_inst){.op = LS_BOP_CONST,
                               .type = LS_ET_BF16,
                               .a = -1,
                               .b = -1,
                               .c = -1,
                               .imm = ls_value_from_double(-ldexp(1, -30), LS_ET_BF16)};
    b.inst[3] = (ls_body_inst){.op = LS_BOP_FMA, .type = LS_ET_BF16, .a = 0, .b = 1, .c = 2};
    b.n = 4;
    int bad;
    const char *why;
    ck_assert_msg(ls_body_check(&b, &bad, &why), "%s", why);
    uint64_t in[2] = {ls_value_from_double(1.5, LS_ET_BF16),
                      ls_value_from_double(1.0078125, LS_ET_BF16)};
    uint64_t scratch[LS_MAX_BODY_INSTS];
    int64_t x[2] = {0, 0};
    static const struct {
        ls_math_mode m;
        double want;
    } cases[] = {{LS_MATH_MLIR, 1 + 65.0 / 128}, {LS_MATH_ROCM, 1 + 66.0 / 128}};
    for (int c = 0; c < 2; c++) {
        b.math = (uint8_t)cases[c].m;
        double got = ls_value_to_double(ls_body_eval(&b, in, x, scratch), LS_ET_BF16);
        ck_assert_msg(got == cases[c].want, "math %d: %.9g, want %.9g", c, got, cases[c].want);
        /* the accumulate stage's math.fma (the chain's step) rounds the same way */
        b.inst[3] = (ls_body_inst){.op = LS_BOP_MULF, .type = LS_ET_BF16, .a = 0, .b = 1, .c = -1};
        ls_body_eval(&b, in, x, scratch);
        got = ls_value_to_double(ls_body_fma(&b, scratch, b.inst[2].imm, LS_ET_BF16), LS_ET_BF16);
        ck_assert_msg(got == cases[c].want, "chain, math %d: %.9g", c, got);
        b.inst[3] = (ls_body_inst){.op = LS_BOP_FMA, .type = LS_ET_BF16, .a = 0, .b = 1, .c = 2};
    }
}
END_TEST

/* A row sum of `expr` (the lines computing %v from %in, %w) over 4x100 f32. */
static ls_module *muladd_sum(const char *expr)
{
    char text[2048];
    snprintf(text, sizeof text,
             "%%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
             "affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = "
             "[\"parallel\", \"reduction\"]} ins(%%a, %%b : tensor<4x100xf32>, tensor<4x100xf32>) "
             "outs(%%c : tensor<4xf32>) {\n^bb0(%%in: f32, %%w: f32, %%out: f32):\n%s"
             "  %%s = arith.addf %%v, %%out : f32\n  linalg.yield %%s : f32\n} -> tensor<4xf32>\n",
             expr);
    ls_diag dg;
    ls_module *m = load_text(text, &dg);
    ck_assert_msg(dg.status == LS_OK, "%s", dg.msg);
    return m;
}

/* math.fma in a body rounds once; and the reduced addf of a mulf becomes
 * one (IREE's SetMulAddFMF + UpliftFma, LLVMGPUVectorLowering.cpp): with no
 * fastmath flags or `contract` on both, the mulf on either side, the mulf
 * dropped unless something else reads it; not with other flags, nor for a
 * value that is not the reduced one. */
START_TEST(reduced_muladd_fused)
{
    ls_module *m = muladd_sum("  %v = math.fma %in, %w, %in : f32\n");
    const ls_body *b = &m->problems[0].body;
    ck_assert_int_eq(b->n, 3);
    ck_assert_int_eq(b->inst[2].op, LS_BOP_FMA);
    ck_assert(!b->muladd_fused); /* written so */
    /* (1 + 2^-12)^2 - 1 = 2^-11 + 2^-24: one rounding keeps the 2^-24,
     * a rounded product (a tie, to even) loses it */
    uint64_t in[2] = {ls_value_from_double(1.0 + ldexp(1, -12), LS_ET_F32), 0};
    in[1] = in[0];
    ls_body tmp = *b;
    tmp.inst[2].c = (int16_t)tmp.n; /* c: a constant -1 */
    tmp.inst[tmp.n] = (ls_body_inst){.op = LS_BOP_CONST,
                                     .type = LS_ET_F32,
                                     .a = -1,
                                     .b = -1,
                                     .c = -1,
                                     .imm = ls_value_from_double(-1.0, LS_ET_F32)};
    ls_body_inst fma = tmp.inst[2];
    tmp.inst[2] = tmp.inst[3];
    tmp.inst[3] = fma;
    tmp.inst[3].c = 2;
    tmp.n = 4;
    int bad;
    const char *why;
    ck_assert_msg(ls_body_check(&tmp, &bad, &why), "%s", why);
    uint64_t scratch[LS_MAX_BODY_INSTS];
    int64_t x[2] = {0, 0};
    ck_assert(ls_value_to_double(ls_body_eval(&tmp, in, x, scratch), LS_ET_F32) ==
              ldexp(1, -11) + ldexp(1, -24));
    free(m);

    m = muladd_sum("  %p = arith.mulf %in, %w : f32\n  %v = arith.addf %p, %in : f32\n");
    b = &m->problems[0].body;
    ck_assert(b->muladd_fused);
    ck_assert_int_eq(b->n, 3); /* two inputs and the fma: the mulf is gone */
    ck_assert_int_eq(b->inst[2].op, LS_BOP_FMA);
    ck_assert_int_eq(b->inst[b->inst[2].a].op, LS_BOP_INPUT);
    ck_assert_int_eq(b->inst[b->inst[2].b].op, LS_BOP_INPUT);
    ck_assert_int_eq(b->inst[2].c, b->inst[2].a); /* + %in */
    free(m);
    /* the mulf on the right; contract on both */
    m = muladd_sum("  %p = arith.mulf %in, %w fastmath<contract> : f32\n"
                   "  %v = arith.addf %w, %p fastmath<contract> : f32\n");
    b = &m->problems[0].body;
    ck_assert(b->muladd_fused);
    ck_assert_int_eq(b->inst[b->n - 1].op, LS_BOP_FMA);
    ck_assert_int_eq(b->inst[b->n - 1].c, b->inst[b->n - 1].b); /* + %w */
    free(m);
    /* the mulf read again: kept */
    m = muladd_sum("  %p = arith.mulf %in, %w : f32\n  %q = arith.addf %p, %p : f32\n"
                   "  %v = arith.addf %p, %q : f32\n");
    b = &m->problems[0].body;
    ck_assert(b->muladd_fused);
    ck_assert_int_eq(b->inst[b->n - 1].op, LS_BOP_FMA);
    ck_assert_int_eq(b->inst[b->inst[b->n - 1].c].op, LS_BOP_ADDF);
    ck_assert_int_eq(b->inst[b->inst[b->inst[b->n - 1].c].a].op, LS_BOP_MULF);
    free(m);
    /* other flags are refused, named at the flag, the combiner's too */
    static const char *const refused[] = {
        "  %p = arith.mulf %in, %w fastmath<nnan> : f32\n  %v = arith.addf %p, %in : f32\n",
        "  %p = arith.mulf %in, %w : f32\n  %v = arith.addf %p, %in fastmath<fast> : f32\n",
        "  %p = arith.mulf %in, %w fastmath<contract,afn> : f32\n  %v = arith.addf %p, %in : "
        "f32\n",
        "  %v = arith.mulf %in, %w : f32\n"};
    for (int i = 0; i < 4; i++) {
        char text[2048];
        snprintf(text, sizeof text,
                 "%%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
                 "affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], "
                 "iterator_types = [\"parallel\", \"reduction\"]} ins(%%a, %%b : "
                 "tensor<4x100xf32>, tensor<4x100xf32>) outs(%%c : tensor<4xf32>) {\n"
                 "^bb0(%%in: f32, %%w: f32, %%out: f32):\n%s  %%s = arith.addf %%v, %%out%s : "
                 "f32\n  linalg.yield %%s : f32\n} -> tensor<4xf32>\n",
                 refused[i], i == 3 ? " fastmath<reassoc>" : "");
        ls_diag dg;
        ls_module *refusedm = load_text(text, &dg);
        ck_assert_int_eq(dg.status, LS_ERR_INVALID);
        static const char *const expect[] = {
            "fastmath<nnan> on arith.mulf", "fastmath<fast> on arith.addf",
            "fastmath<afn> on arith.mulf", "fastmath<reassoc> on arith.addf"};
        ck_assert_msg(strstr(dg.msg, expect[i]) != NULL, "%s", dg.msg);
        ck_assert_ptr_nonnull(strstr(dg.msg, "remove it (or keep only contract)"));
        free(refusedm);
    }
    m = muladd_sum("  %p = arith.mulf %in, %w fastmath<contract> : f32\n"
                   "  %v = arith.addf %p, %in : f32\n");
    ck_assert(!m->problems[0].body.muladd_fused); /* contract on one only */
    free(m);
    /* not the reduced value: the addf feeds an exp */
    m = muladd_sum("  %p = arith.mulf %in, %w : f32\n  %t = arith.addf %p, %in : f32\n"
                   "  %v = math.exp %t : f32\n");
    ck_assert(!m->problems[0].body.muladd_fused);
    free(m);
}
END_TEST

static Suite *contract_suite(void)
{
    Suite *s = suite_create("contract");
    TCase *tc = tcase_create("contract");
    tcase_add_test(tc, generic_matvec);
    tcase_add_loop_test(tc, named_contractions, 0, (int)(sizeof named / sizeof named[0]));
    tcase_add_test(tc, explicit_maps_honoured);
    tcase_add_test(tc, fused_dequant_producer);
    tcase_add_test(tc, body_semantics);
    tcase_add_test(tc, constants_and_index);
    tcase_add_test(tc, random_contractions);
    tcase_add_test(tc, engine_reads_both_inputs);
    tcase_add_test(tc, serial_reduction_level);
    tcase_add_test(tc, strided_input_map);
    tcase_add_test(tc, products_fused_as_iree_fuses_them);
    tcase_add_test(tc, contract_chain_without_partial_reduction);
    tcase_add_test(tc, bf16_fma_rounds_as_the_target_does);
    tcase_add_test(tc, reduced_muladd_fused);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(contract_suite)
