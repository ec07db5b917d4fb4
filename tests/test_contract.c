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
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(contract_suite)
