/* test_import.c: reductions, layouts and swizzles read out of .mlir files. */
#include "testutil.h"

START_TEST(example2_generic)
{
    ls_diag d;
    ls_module *m = load_example("seed000_example2.mlir", &d);
    ck_assert_msg(d.status == LS_OK, "%s", d.msg);
    ck_assert_int_eq(m->n_problems, 1);
    const ls_problem *p = &m->problems[0];
    ck_assert_int_eq(p->rank, 2);
    ck_assert_int_eq(p->size[0], 1152);
    ck_assert_int_eq(p->size[1], 384);
    ck_assert(!p->is_reduction[0]);
    ck_assert(p->is_reduction[1]);
    ck_assert_int_eq(p->combiner, LS_COMB_MAXNUMF);
    ck_assert_int_eq(p->inputs[0].type, LS_ET_F32);
    ck_assert_int_eq(p->acc_type, LS_ET_F32);
    ck_assert(p->has_config);
    ck_assert_int_eq(p->config.workgroup.v[0], 16);
    ck_assert_int_eq(p->config.lane_basis.counts.v[0], 16);
    ck_assert_int_eq(p->config.n_ignored, 0);
    /* reduction = [0, 0]: the serial level, read and tiling nothing */
    ck_assert(p->config.reduction.present);
    ck_assert_int_eq(p->config.reduction.v[1], 0);
    ck_assert(p->has_ti);
    ck_assert_int_eq(p->ti.workgroup_size[0], 128);
    ck_assert_int_eq(p->ti.subgroup_size, 64);
    ck_assert(p->has_target);
    ck_assert_str_eq(p->target.arch, "gfx942");
    ck_assert_int_eq(p->target.wgp_count, 304);
    ck_assert_str_eq(p->name, "@example2_max_1152x384:linalg.generic#1");
    ck_assert_int_eq(p->line, 21);
    ck_assert_int_eq(p->out_map_n, 1);
    ck_assert_int_eq(p->out_map[0], 0);
    free(m);
}
END_TEST

START_TEST(example3_extf_and_iterator_attrs)
{
    ls_diag d;
    ls_module *m = load_example("seed000_example3.mlir", &d);
    ck_assert_msg(d.status == LS_OK, "%s", d.msg);
    ck_assert_int_eq(m->n_problems, 1);
    const ls_problem *p = &m->problems[0];
    ck_assert_int_eq(p->rank, 3);
    ck_assert(p->is_reduction[1] && p->is_reduction[2] && !p->is_reduction[0]);
    ck_assert_int_eq(p->inputs[0].type, LS_ET_F16);
    ck_assert_int_eq(p->acc_type, LS_ET_F32);
    ck_assert(p->extended);
    ck_assert_str_eq(p->ti.pipeline, "VectorDistribute");
    ck_assert(!p->has_target);
    free(m);
}
END_TEST

START_TEST(reduce_op_forms)
{
    ls_diag d;
    ls_module *m = load_example("seed004_reduce_8x64.mlir", &d);
    ck_assert_msg(d.status == LS_OK, "%s", d.msg);
    ck_assert_int_eq(m->n_problems, 1);
    ck_assert_int_eq(m->problems[0].size[0], 8);
    ck_assert_int_eq(m->problems[0].size[1], 64);
    ck_assert(m->problems[0].is_reduction[1]);
    ck_assert(m->problems[0].has_config);
    free(m);
    m = load_text("func.func @f() {\n"
                  "  %r = linalg.reduce { arith.maxsi } ins(%a : tensor<16x32x8xi32>) "
                  "outs(%b : tensor<16x8xi32>) dimensions = [1]\n"
                  "  return\n}\n",
                  &d);
    ck_assert_msg(d.status == LS_OK, "%s", d.msg);
    ck_assert_int_eq(m->n_problems, 1);
    ck_assert_int_eq(m->problems[0].combiner, LS_COMB_MAXSI);
    ck_assert(m->problems[0].is_reduction[1]);
    ck_assert_int_eq(m->problems[0].out_map[1], 2);
    ck_assert(!m->problems[0].has_config);
    free(m);
}
END_TEST

/* Softmax-like dispatch: an extf producer, then a max and a sum; a transposed map. */
static const char *multi =
    "#map = affine_map<(d0, d1) -> (d0, d1)>\n"
    "#mapT = affine_map<(d0, d1) -> (d1, d0)>\n"
    "#red = affine_map<(d0, d1) -> (d0)>\n"
    "#cfg = #iree_gpu.lowering_config<{workgroup = [1, 0], partial_reduction = [0, 256], "
    "thread = [0, 4], lane_basis = [[1, 64], [0, 1]], subgroup_basis = [[1, 1], [0, 1]]}>\n"
    "#broken = #iree_gpu.lowering_config<{thread = [0, }>\n"
    "func.func @softmax() attributes {translation_info = "
    "#iree_codegen.translation_info<pipeline = LLVMGPUVectorDistribute workgroup_size = [64, "
    "1, 1] subgroup_size = 64>} {\n"
    "  %e = linalg.generic {indexing_maps = [#map, #map], iterator_types = [\"parallel\", "
    "\"parallel\"]} ins(%x : tensor<32x1024xf16>) outs(%y : tensor<32x1024xf32>) {\n"
    "  ^bb0(%in: f16, %out: f32):\n"
    "    %0 = arith.extf %in : f16 to f32\n"
    "    linalg.yield %0 : f32\n"
    "  } -> tensor<32x1024xf32>\n"
    "  %m = linalg.generic {indexing_maps = [#map, #red], iterator_types = [\"parallel\", "
    "\"reduction\"]} ins(%e : tensor<32x1024xf32>) outs(%i : tensor<32xf32>) attrs = "
    "{lowering_config = #cfg} {\n"
    "  ^bb0(%in: f32, %out: f32):\n"
    "    %1 = arith.maximumf %in, %out : f32\n"
    "    linalg.yield %1 : f32\n"
    "  } -> tensor<32xf32>\n"
    "  %s = linalg.generic {indexing_maps = [#mapT, #red], iterator_types = [\"parallel\", "
    "\"reduction\"]} ins(%t : tensor<1024x32xi8>) outs(%j : tensor<32xi32>) attrs = "
    "{compilation_info = #iree_codegen.compilation_info<lowering_config = #cfg, "
    "translation_info = #iree_codegen.translation_info<pipeline = LLVMGPUVectorDistribute "
    "workgroup_size = [128, 1, 1] subgroup_size = 64>>} {\n"
    "  ^bb0(%in: i8, %out: i32):\n"
    "    %2 = arith.extsi %in : i8 to i32\n"
    "    %3 = arith.addi %out, %2 : i32\n"
    "    linalg.yield %3 : i32\n"
    "  } -> tensor<32xi32>\n"
    "  return\n"
    "}\n";

START_TEST(several_reductions)
{
    ls_diag d;
    ls_module *m = load_text(multi, &d);
    ck_assert_msg(d.status == LS_OK, "%s", d.msg);
    ck_assert_int_eq(m->n_problems, 2);
    const ls_problem *a = &m->problems[0], *b = &m->problems[1];
    ck_assert_int_eq(a->combiner, LS_COMB_MAXIMUMF);
    ck_assert_int_eq(a->inputs[0].type, LS_ET_F16); /* through the extf producer */
    ck_assert(a->extended);
    ck_assert_int_eq(a->ti.workgroup_size[0], 64);
    ck_assert_int_eq(b->combiner, LS_COMB_ADD);
    ck_assert_int_eq(b->inputs[0].type, LS_ET_I8);
    ck_assert_int_eq(b->acc_type, LS_ET_I32);
    ck_assert_int_eq(b->inputs[0].map[0], 1); /* transposed input */
    ck_assert_int_eq(b->inputs[0].map[1], 0);
    ck_assert_int_eq(b->size[0], 32);
    ck_assert_int_eq(b->size[1], 1024);
    ck_assert_int_eq(b->ti.workgroup_size[0], 128); /* from compilation_info */
    ck_assert_int_eq(b->config.thread.v[1], 4);
    free(m);
}
END_TEST

/* A min and a max of one input in one generic, and a sum that reads the
 * max (%mm#1): three problems, the generic's two consecutive. */
static const char minmax_consumer[] =
    "func.func @mm(%x: tensor<16x64xf32>) -> tensor<16xf32> {\n"
    "  %pinf = arith.constant 0x7F800000 : f32\n"
    "  %ninf = arith.constant 0xFF800000 : f32\n"
    "  %z = arith.constant 0.0 : f32\n"
    "  %e = tensor.empty() : tensor<16xf32>\n"
    "  %lo = linalg.fill ins(%pinf : f32) outs(%e : tensor<16xf32>) -> tensor<16xf32>\n"
    "  %hi = linalg.fill ins(%ninf : f32) outs(%e : tensor<16xf32>) -> tensor<16xf32>\n"
    "  %zs = linalg.fill ins(%z : f32) outs(%e : tensor<16xf32>) -> tensor<16xf32>\n"
    "  %mm:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
    "affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = "
    "[\"parallel\", \"reduction\"]} ins(%x : tensor<16x64xf32>) outs(%lo, %hi : "
    "tensor<16xf32>, tensor<16xf32>) {\n"
    "  ^bb0(%in: f32, %a: f32, %b: f32):\n"
    "    %mn = arith.minimumf %in, %a : f32\n"
    "    %mx = arith.maximumf %b, %in : f32\n"
    "    linalg.yield %mn, %mx : f32, f32\n"
    "  } -> (tensor<16xf32>, tensor<16xf32>)\n"
    "  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
    "affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = "
    "[\"parallel\", \"reduction\"]} ins(%x, %mm#1 : tensor<16x64xf32>, tensor<16xf32>) "
    "outs(%zs : tensor<16xf32>) {\n"
    "  ^bb0(%in: f32, %m: f32, %acc: f32):\n"
    "    %d = arith.subf %m, %in : f32\n"
    "    %t = arith.addf %d, %acc : f32\n"
    "    linalg.yield %t : f32\n"
    "  } -> tensor<16xf32>\n"
    "  return %s : tensor<16xf32>\n"
    "}\n";

START_TEST(multi_result_generic)
{
    ls_diag d;
    ls_module *m = load_text(minmax_consumer, &d);
    ck_assert_msg(d.status == LS_OK, "%s", d.msg);
    ck_assert_int_eq(m->n_problems, 3);
    const ls_problem *lo = &m->problems[0], *hi = &m->problems[1], *s = &m->problems[2];
    ck_assert_str_eq(lo->name, "@mm:linalg.generic#1.result0");
    ck_assert_str_eq(hi->name, "@mm:linalg.generic#1.result1");
    ck_assert_str_eq(s->name, "@mm:linalg.generic#2");
    ck_assert_int_eq(lo->result, 0);
    ck_assert_int_eq(hi->result, 1);
    ck_assert_int_eq(lo->n_results, 2);
    ck_assert_int_eq(hi->n_results, 2);
    ck_assert_int_eq(s->n_results, 0);
    ck_assert_int_eq(lo->combiner, LS_COMB_MINIMUMF);
    ck_assert_int_eq(hi->combiner, LS_COMB_MAXIMUMF); /* the init on the left side */
    /* each result's own fill */
    ck_assert(lo->has_init && hi->has_init);
    ck_assert_uint_eq(lo->init, 0x7F800000u);
    ck_assert_uint_eq(hi->init, 0xFF800000u);
    ck_assert_int_eq(lo->out_map_n, 1);
    ck_assert_int_eq(hi->out_map[0], 0);
    /* the sum reads %mm#1 (its first leaf: %m comes first in the subf):
     * the max, held in registers */
    ck_assert_int_eq(s->n_inputs, 2);
    ck_assert_str_eq(s->inputs[0].name, "%mm#1");
    ck_assert(s->inputs[0].intermediate);
    ck_assert_int_eq(s->inputs[0].producer, 1);
    ck_assert(!s->inputs[1].intermediate);
    ck_assert_int_eq(lo->dispatch, hi->dispatch);
    ck_assert_int_eq(m->dispatches[lo->dispatch].ops[lo->dispatch_op].problem, 0);
    free(m);
}
END_TEST

static const struct {
    const char *text;
    int line, col;
    const char *msg;
} bad_ops[] = {
    {"%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
     "affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]} ins(%a : "
     "tensor<4x8xf32>) outs(%b : tensor<4xf32>) {\n^bb0(%in: f32, %out: f32):\n  %0 = arith.mulf "
     "%in, %out : f32\n  %1 = arith.addf %0, %out : f32\n  linalg.yield %1 : f32\n}\n",
     3, 3, "the init %out is read before the combiner folds it in"},
    /* an i32 tensor fed to a float op without a conversion */
    {"%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
     "affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]} ins(%a : "
     "tensor<4x8xi32>) outs(%b : tensor<4xf32>) {\n^bb0(%in: f32, %out: f32):\n  %0 = arith.mulf "
     "%in, %in : f32\n  %1 = arith.addf %0, %out : f32\n  linalg.yield %1 : f32\n}\n",
     3, 3, "arith.mulf: a float op whose operands and result are not all the same float type"},
    {"%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
     "affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]} ins(%a : "
     "tensor<4x8xf32>) outs(%b : tensor<4xf32>) {\n^bb0(%in: f32, %out: f32):\n  %0 = "
     "tensor.extract %t[%in] : tensor<8xf32>\n  %1 = arith.addf %0, %out : f32\n  linalg.yield %1 : f32\n}\n",
     3, 3, "tensor.extract at index %in, which is not a linalg.index of the loops: a "
     "data-dependent gather"},
    {"%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
     "affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]} ins(%a : "
     "tensor<4x8xi2>) outs(%b : tensor<4xi32>) {\n^bb0(%in: i2, %out: i32):\n  %0 = "
     "arith.extsi %in : i2 to i32\n  %1 = arith.addi %0, %out : i32\n  linalg.yield %1 : i32\n}\n",
     3, 3, "element type i2 is not one lanescope models"},
    /* an elementwise producer it cannot inline: named, never read from memory instead */
    {"%p = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
     "affine_map<(d0, d1) -> (d0, d1)>], iterator_types = [\"parallel\", \"parallel\"]} "
     "ins(%a : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {\n^bb0(%in: f32, %out: f32):\n"
     "  %0 = math.frobnicate %in : f32\n  linalg.yield %0 : f32\n} -> tensor<4x8xf32>\n"
     "%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
     "affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]} ins(%p : "
     "tensor<4x8xf32>) outs(%b : tensor<4xf32>) {\n^bb0(%in: f32, %out: f32):\n  %1 = "
     "arith.addf %in, %out : f32\n  linalg.yield %1 : f32\n}\n",
     8, 3, "%p is computed in this dispatch by the elementwise op at 1:6, which IREE fuses into "
     "this reduction; lanescope cannot inline it: 3:3: math.frobnicate in the body is not an "
     "arith/math op"},
    /* widths IREE's heuristic refuses, and one it takes that lanescope cannot hold */
    {"%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
     "affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]} ins(%a : "
     "tensor<4x8xi48>) outs(%b : tensor<4xi48>) {\n^bb0(%in: i48, %out: i48):\n  %1 = "
     "arith.addi %in, %out : i48\n  linalg.yield %1 : i48\n}\n",
     1, 174, "IREE's reduction heuristic rejects this dispatch: the init holds 48-bit i48"},
    {"%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
     "affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]} ins(%a : "
     "tensor<4x8xi256>) outs(%b : tensor<4xi256>) {\n^bb0(%in: i256, %out: i256):\n  %1 = "
     "arith.addi %in, %out : i256\n  linalg.yield %1 : i256\n}\n",
     1, 175, "fits the 128-bit largest load"},
    /* i128 is carried as its low 64 bits: an op that reads the high ones is refused */
    {"%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
     "affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]} ins(%a : "
     "tensor<4x8xi128>) outs(%b : tensor<4xi128>) {\n^bb0(%in: i128, %out: i128):\n  %0 = "
     "arith.shrsi %in, %in : i128\n  %1 = arith.addi %0, %out : i128\n  linalg.yield %1 : "
     "i128\n}\n",
     3, 3, "arith.shrsi: an i128 op other than add, sub, mul, and, or, xor, select, an extension "
     "into i128 or a truncation to 64 bits or fewer: lanescope carries the low 64 bits"},
    {"%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
     "affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]} ins(%a : "
     "tensor<4x8xi128>) outs(%b : tensor<4xi32>) {\n^bb0(%in: i128, %out: i32):\n  %0 = "
     "arith.sitofp %in : i128 to f32\n  %2 = arith.fptosi %0 : f32 to i32\n"
     "  %1 = arith.addi %2, %out : i32\n  linalg.yield %1 : i32\n}\n",
     3, 3, "arith.sitofp: an i128 op other than"},
    /* an argmax written as a generic: the index result reads the value's init */
    {"%r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
     "affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = "
     "[\"parallel\", \"reduction\"]} ins(%a : tensor<4x8xf32>) outs(%v, %i : tensor<4xf32>, "
     "tensor<4xi32>) {\n^bb0(%in: f32, %bv: f32, %bi: i32):\n  %k = linalg.index 1 : index\n"
     "  %ki = arith.index_cast %k : index to i32\n  %gt = arith.cmpf ogt, %in, %bv : f32\n"
     "  %nv = arith.maximumf %in, %bv : f32\n  %sel = arith.select %gt, %ki, %bi : i32\n"
     "  linalg.yield %nv, %sel : f32, i32\n}\n",
     8, 3, "result 1 reads %bv, the init of result 0: the results are reduced together"},
    /* IREE's legacy config: named, not misread as a VectorDistribute one */
    {"%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
     "affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]} ins(%a : "
     "tensor<4x8xf32>) outs(%b : tensor<4xf32>)\n attrs = {lowering_config = "
     "#iree_codegen.lowering_config<tile_sizes = [[1], [0, 8]]>} {\n^bb0(%in: f32, %out: f32):\n"
     "  %1 = arith.addf %in, %out : f32\n  linalg.yield %1 : f32\n}\n",
     2, 29, "#iree_codegen.lowering_config<tile_sizes = ...> is IREE's legacy config"},
    {"%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
     "affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]} ins(%a : "
     "tensor<4x?xf32>) outs(%b : tensor<4xf32>) {\n^bb0(%in: f32, %out: f32):\n  %1 = arith.addf "
     "%in, %out : f32\n  linalg.yield %1 : f32\n}\n",
     1, 6, "loop dimension d1 is dynamic ('?') in every operand; give its size with --dim 1=N"},
    {"%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
     "affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]} ins(%a : "
     "tensor<4x8xf32>) outs(%b : tensor<4xf32>) attrs = {lowering_config = #missing} "
     "{\n^bb0(%in: f32, %out: f32):\n  %1 = arith.addf %in, %out : f32\n  linalg.yield %1 : "
     "f32\n}\n",
     1, 226, "undefined attribute alias #missing"},
    {"#bad = #iree_gpu.lowering_config<{thread = [0, }>\n"
     "%r = linalg.reduce ins(%a : tensor<4x8xf32>) outs(%b : tensor<4xf32>) dimensions = [1] "
     "{lowering_config = #bad} (%in: f32, %o: f32) {\n  %1 = arith.addf %in, %o : f32\n  "
     "linalg.yield %1 : f32\n}\n",
     1, 48, "in the definition of #bad (used at line 2)"},
    {"%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0 + d1, d1)>, "
     "affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]} ins(%a : "
     "tensor<4x8xf32>) outs(%b : tensor<4xf32>) {\n^bb0(%in: f32, %out: f32):\n  %1 = arith.addf "
     "%in, %out : f32\n  linalg.yield %1 : f32\n}\n",
     1, 39, "not a distinct loop dimension"},
    {"%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
     "affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]} ins(%a : "
     "tensor<4x8xf32>) outs(%b : tensor<4xf32>) {\n^bb0(%in: f32, %out: f32):\n  %1 = "
     "arith.subf %in, %out : f32\n  linalg.yield %1 : f32\n",
     1, 199, "unterminated region"},
    {"%r = linalg.reduce ins(%a : tensor<4x8xf32>) outs(%b : tensor<4xf32>) dimensions = [1] "
     "(%in: f32, %o: f32) {\n  %1 = arith.divf %in, %o : f32\n  linalg.yield %1 : f32\n}\n",
     2, 3, "arith.divf, which is not a combining op"},
    /* found by the fuzzer: i32 data reduced by an f32 addf without a conversion */
    {"%r = linalg.reduce ins(%a : tensor<4x8xi32>) outs(%b : tensor<4xf32>) dimensions = [1] "
     "(%in: f32, %o: f32) {\n  %1 = arith.addf %in, %o : f32\n  linalg.yield %1 : f32\n}\n",
     1, 6, "the input is i32 but the reduction is in f32, and no arith.extf / arith.extsi"},
    {"%r = linalg.reduce ins(%a : tensor<5x8xf32>) outs(%b : tensor<8xf32>) dimensions = [1] "
     "(%in: f32, %o: f32) {\n  %1 = arith.addf %in, %o : f32\n  linalg.yield %1 : f32\n}\n",
     1, 46, "init dimension 0 is 8 but the input's dimension 0 is 5"},
    /* a rank-0 init of a reduction with a parallel loop */
    {"%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
     "affine_map<(d0, d1) -> ()>], iterator_types = [\"parallel\", \"reduction\"]} ins(%a : "
     "tensor<4x8xf32>) outs(%b : tensor<f32>) {\n^bb0(%in: f32, %out: f32):\n  %1 = arith.addf "
     "%in, %out : f32\n  linalg.yield %1 : f32\n}\n",
     1, 38, "loop dimension d0 is parallel but is missing from the init's indexing map"},
    {"%r = linalg.reduce ins(%a : tensor<4x8xf32>) outs(%b : tensor<f32>) dimensions = [1] "
     "(%in: f32, %o: f32) {\n  %1 = arith.addf %in, %o : f32\n  linalg.yield %1 : f32\n}\n",
     1, 46, "init has rank 0; reducing 1 of 2 dimensions leaves 1"},
    /* type aliases: used before (or without) a definition, defined twice */
    {"%r = linalg.reduce ins(%a : !X) outs(%b : tensor<4xf32>) dimensions = [1] "
     "(%in: f32, %o: f32) {\n  %1 = arith.addf %in, %o : f32\n  linalg.yield %1 : f32\n}\n",
     1, 29, "undefined type alias !X"},
    {"!A = tensor<4x8xf32>\n!B = tensor<4xf32>\n!A = tensor<4x9xf32>\n"
     "%r = linalg.reduce ins(%a : !A) outs(%b : !B) dimensions = [1] "
     "(%in: f32, %o: f32) {\n  %1 = arith.addf %in, %o : f32\n  linalg.yield %1 : f32\n}\n",
     3, 1, "type alias !A is already defined at line 1, column 1"},
    {"!A = tensor<4x8x>\n"
     "%r = linalg.reduce ins(%a : !A) outs(%b : tensor<4xf32>) dimensions = [1] "
     "(%in: f32, %o: f32) {\n  %1 = arith.addf %in, %o : f32\n  linalg.yield %1 : f32\n}\n",
     1, 6, "in the definition of !A (used at line 2)"},
};

/* Type aliases: the same reduction with its types named once and written out. */
static const char *aliased =
    "!A = tensor<64x4096xf16>\n"
    "!B = tensor<64xf32>\n"
    "!Bt = !B\n"
    "!in = !iree_tensor_ext.dispatch.tensor<readonly:!A>\n"
    "func.func @rowsum() {\n"
    "  %0 = hal.interface.binding.subspan layout(#pl) binding(0) : !in\n"
    "  %2 = iree_tensor_ext.dispatch.tensor.load %0, offsets = [0, 0], sizes = [64, 4096], "
    "strides = [1, 1] : !in -> !A\n"
    "  %3 = tensor.empty() : !Bt\n"
    "  %4 = linalg.fill ins(%cst : f32) outs(%3 : !Bt) -> !Bt\n"
    "  %5 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
    "affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]} "
    "ins(%2 : !A) outs(%4 : !Bt) {\n"
    "  ^bb0(%in: f16, %out: f32):\n"
    "    %6 = arith.extf %in : f16 to f32\n"
    "    %7 = arith.addf %6, %out : f32\n"
    "    linalg.yield %7 : f32\n"
    "  } -> !B\n"
    "  %r = linalg.reduce ins(%2 : !A) outs(%4 : !B) dimensions = [1] (%i: f16, %o: f32) {\n"
    "    %8 = arith.extf %i : f16 to f32\n"
    "    %9 = arith.maximumf %8, %o : f32\n"
    "    linalg.yield %9 : f32\n"
    "  }\n"
    "  return\n"
    "}\n";

static const char *written_out =
    "func.func @rowsum() {\n"
    "  %0 = hal.interface.binding.subspan layout(#pl) binding(0) : "
    "!iree_tensor_ext.dispatch.tensor<readonly:tensor<64x4096xf16>>\n"
    "  %2 = iree_tensor_ext.dispatch.tensor.load %0, offsets = [0, 0], sizes = [64, 4096], "
    "strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<64x4096xf16>> -> "
    "tensor<64x4096xf16>\n"
    "  %3 = tensor.empty() : tensor<64xf32>\n"
    "  %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<64xf32>) -> tensor<64xf32>\n"
    "  %5 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
    "affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]} "
    "ins(%2 : tensor<64x4096xf16>) outs(%4 : tensor<64xf32>) {\n"
    "  ^bb0(%in: f16, %out: f32):\n"
    "    %6 = arith.extf %in : f16 to f32\n"
    "    %7 = arith.addf %6, %out : f32\n"
    "    linalg.yield %7 : f32\n"
    "  } -> tensor<64xf32>\n"
    "  %r = linalg.reduce ins(%2 : tensor<64x4096xf16>) outs(%4 : tensor<64xf32>) dimensions "
    "= [1] (%i: f16, %o: f32) {\n"
    "    %8 = arith.extf %i : f16 to f32\n"
    "    %9 = arith.maximumf %8, %o : f32\n"
    "    linalg.yield %9 : f32\n"
    "  }\n"
    "  return\n"
    "}\n";

START_TEST(type_aliases_expand)
{
    ls_diag d;
    ls_module *a = load_text(aliased, &d);
    ck_assert_msg(d.status == LS_OK, "%s", d.msg);
    ls_module *b = load_text(written_out, &d);
    ck_assert_msg(d.status == LS_OK, "%s", d.msg);
    ck_assert_int_eq(a->n_problems, 2);
    ck_assert_int_eq(b->n_problems, 2);
    for (size_t i = 0; i < 2; i++) {
        const ls_problem *p = &a->problems[i], *q = &b->problems[i];
        ck_assert_int_eq(p->rank, 2);
        ck_assert_int_eq(p->size[0], 64);
        ck_assert_int_eq(p->size[1], 4096);
        ck_assert_int_eq(p->inputs[0].type, LS_ET_F16);
        ck_assert_int_eq(p->acc_type, LS_ET_F32);
        ck_assert(p->extended);
        /* Everything but the op's position (the aliased file has more lines). */
        ck_assert_int_eq(p->rank, q->rank);
        ck_assert(memcmp(p->size, q->size, sizeof p->size) == 0);
        ck_assert(memcmp(p->is_reduction, q->is_reduction, sizeof p->is_reduction) == 0);
        ck_assert_int_eq(p->inputs[0].type, q->inputs[0].type);
        ck_assert_int_eq(p->acc_type, q->acc_type);
        ck_assert_int_eq(p->extended, q->extended);
        ck_assert_int_eq(p->combiner, q->combiner);
        ck_assert_int_eq(p->inputs[0].map_n, q->inputs[0].map_n);
        ck_assert_int_eq(p->out_map_n, q->out_map_n);
        ck_assert(memcmp(p->inputs[0].map, q->inputs[0].map, sizeof p->inputs[0].map) == 0);
        ck_assert(memcmp(p->out_map, q->out_map, sizeof p->out_map) == 0);
        ck_assert_str_eq(p->name, q->name);
    }
    /* The dispatch view (for suggest) sees the same operands. */
    ck_assert_int_eq(a->n_dispatches, 1);
    ck_assert_int_eq(a->dispatches[0].n_ops, b->dispatches[0].n_ops);
    ck_assert(a->dispatches[0].has_bindings);
    for (int i = 0; i < a->dispatches[0].n_ops; i++) {
        const ls_dop *x = &a->dispatches[0].ops[i], *y = &b->dispatches[0].ops[i];
        ck_assert_str_eq(x->kind, y->kind);
        ck_assert(memcmp(x->size, y->size, sizeof x->size) == 0);
        ck_assert_int_eq(x->operand[0].elem_bits, y->operand[0].elem_bits);
        ck_assert_int_eq(x->operand[1].rank, y->operand[1].rank);
    }
    free(a);
    free(b);
}
END_TEST

/* Full reductions to a scalar: the init is tensor<T> (rank 0) and its map
 * has no results, so the problem has no parallel dims. */
START_TEST(rank0_init)
{
    ls_diag d;
    ls_module *m = load_text(
        "func.func @f() {\n"
        "  %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<f32>) -> tensor<f32>\n"
        "  %5 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
        "affine_map<(d0, d1) -> ()>], iterator_types = [\"reduction\", \"reduction\"]} "
        "ins(%2 : tensor<1x8192xf32>) outs(%4 : tensor<f32>) {\n"
        "  ^bb0(%in: f32, %out: f32):\n"
        "    %6 = arith.addf %in, %out : f32\n"
        "    linalg.yield %6 : f32\n"
        "  } -> tensor<f32>\n"
        "  %r = linalg.reduce ins(%a : tensor<1000xi16>) outs(%b : tensor<i16>) dimensions = [0] "
        "(%i: i16, %o: i16) {\n"
        "    %7 = arith.maxsi %i, %o : i16\n"
        "    linalg.yield %7 : i16\n"
        "  }\n"
        "  return\n"
        "}\n",
        &d);
    ck_assert_msg(d.status == LS_OK, "%s", d.msg);
    ck_assert_int_eq(m->n_problems, 2);
    const ls_problem *p = &m->problems[0];
    ck_assert_int_eq(p->rank, 2);
    ck_assert_int_eq(p->size[0], 1);
    ck_assert_int_eq(p->size[1], 8192);
    ck_assert(p->is_reduction[0] && p->is_reduction[1]);
    ck_assert_int_eq(p->out_map_n, 0);
    ck_assert_int_eq(p->inputs[0].map_n, 2);
    p = &m->problems[1];
    ck_assert_int_eq(p->rank, 1);
    ck_assert_int_eq(p->size[0], 1000);
    ck_assert_int_eq(p->out_map_n, 0);
    ck_assert_int_eq(p->combiner, LS_COMB_MAXSI);
    /* The dispatch view: the fill and the generic, the init of rank 0. */
    ck_assert_int_eq(m->dispatches[0].n_ops, 3);
    ck_assert(m->dispatches[0].ops[0].is_fill);
    ck_assert_int_eq(m->dispatches[0].ops[1].operand[1].rank, 0);
    ck_assert_int_eq(m->dispatches[0].ops[1].operand[1].map_n, 0);
    free(m);
}
END_TEST

/* Dynamic sizes bound by --dim (ls_import_dims): the reduction and the
 * dispatch view see the bound size; an unbound one is an error naming the
 * loop dim; a dynamic init dim takes the input's static size. */
static const char *dyn_text =
    "func.func @f() {\n"
    "  %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<?xf32>) -> tensor<?xf32>\n"
    "  %5 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
    "affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]} "
    "ins(%2 : tensor<?x?xf32>) outs(%4 : tensor<?xf32>) {\n"
    "  ^bb0(%in: f32, %out: f32):\n"
    "    %6 = arith.addf %in, %out : f32\n"
    "    linalg.yield %6 : f32\n"
    "  } -> tensor<?xf32>\n"
    "  return\n"
    "}\n";

START_TEST(dynamic_dims)
{
    ls_diag d;
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_import_dims dims = {{0}};
    ls_diag_clear(&d);
    ls_module_parse_dims(dyn_text, strlen(dyn_text), "dyn.mlir", 0, &dims, m, &d);
    ck_assert_int_eq(d.status, LS_ERR_INVALID);
    ck_assert_str_eq(d.file, "dyn.mlir");
    ck_assert_int_eq(d.line, 3);
    ck_assert_int_eq(d.col, 8);
    ck_assert_msg(strstr(d.msg, "loop dimension d0 is dynamic ('?') in every operand; give its "
                                "size with --dim 0=N") != NULL,
                  "%s", d.msg);
    dims.size[0] = 12;
    ls_diag_clear(&d);
    ls_module_parse_dims(dyn_text, strlen(dyn_text), "dyn.mlir", 0, &dims, m, &d);
    ck_assert_msg(strstr(d.msg, "--dim 1=N") != NULL, "%s", d.msg);
    dims.size[1] = 300;
    dims.size[5] = 7; /* no op has a d5: said, not ignored */
    ls_diag_clear(&d);
    ls_module_parse_dims(dyn_text, strlen(dyn_text), "dyn.mlir", 0, &dims, m, &d);
    ck_assert_int_eq(d.status, LS_ERR_USAGE);
    ck_assert_str_eq(d.msg, "5=7: no op in dyn.mlir has a dynamic ('?') d5; --dim sizes dynamic "
                            "dims only");
    dims.size[5] = 0;
    ls_diag_clear(&d);
    ls_module_parse_dims(dyn_text, strlen(dyn_text), "dyn.mlir", 0, &dims, m, &d);
    ck_assert_msg(d.status == LS_OK, "%s", d.msg);
    ck_assert_int_eq(m->n_problems, 1);
    ck_assert_int_eq(m->problems[0].size[0], 12);
    ck_assert_int_eq(m->problems[0].size[1], 300);
    const ls_dop *o = &m->dispatches[0].ops[1];
    ck_assert_int_eq(o->size[0], 12);
    ck_assert_int_eq(o->size[1], 300);
    ck_assert_int_eq(o->operand[0].dims[1], 300);
    ck_assert_int_eq(o->operand[1].dims[0], 12);
    ck_assert_int_eq(m->dispatches[0].ops[0].size[0], 12); /* the fill's d0 */
    /* Without dims the dispatch keeps '?' for suggest. */
    ls_diag_clear(&d);
    ls_module_parse_ex(dyn_text, strlen(dyn_text), "dyn.mlir", LS_IMPORT_KEEP_UNSUPPORTED, m, &d);
    ck_assert_msg(d.status == LS_OK, "%s", d.msg);
    ck_assert_int_eq(m->n_problems, 0);
    ck_assert_int_eq(m->n_unsupported, 1);
    ck_assert_int_eq(m->dispatches[0].ops[1].size[0], LS_DYN);
    free(m);
    /* linalg.reduce: a dynamic input dim takes the init's static size. */
    m = load_text("%r = linalg.reduce ins(%a : tensor<?x8xf32>) outs(%b : tensor<4xf32>) "
                  "dimensions = [1] (%in: f32, %o: f32) {\n  %1 = arith.addf %in, %o : f32\n"
                  "  linalg.yield %1 : f32\n}\n",
                  &d);
    ck_assert_msg(d.status == LS_OK, "%s", d.msg);
    ck_assert_int_eq(m->problems[0].size[0], 4);
    ck_assert_int_eq(m->problems[0].size[1], 8);
    free(m);
}
END_TEST

START_TEST(op_errors)
{
    ls_diag d;
    ls_module *m = load_text(bad_ops[_i].text, &d);
    ck_assert_int_ne(d.status, LS_OK);
    ck_assert_msg(strstr(d.msg, bad_ops[_i].msg) != NULL, "got '%s'", d.msg);
    ck_assert_msg(d.line == bad_ops[_i].line && d.col == bad_ops[_i].col, "at %d:%d: %s",
                  d.line, d.col, d.msg);
    free(m);
}
END_TEST

START_TEST(unused_broken_alias_is_skipped)
{
    ls_diag d;
    ls_module *m = load_text("#junk = #some.dialect<{[[[}>\n"
                             "module { \"weird.op\"() : () -> () }\n"
                             "#sw = #iree_codegen.rotate_rows<32, 8>\n",
                             &d);
    ck_assert_msg(d.status == LS_OK, "%s", d.msg);
    ck_assert_int_eq(m->n_problems, 0);
    ck_assert_int_eq(m->n_swizzles, 1);
    ck_assert_str_eq(m->swizzles[0].name, "sw");
    ck_assert_int_eq(m->swizzles[0].swizzle.kind, LS_SWIZZLE_ROTATE_ROWS);
    ck_assert_int_eq(m->swizzles[0].swizzle.access_width, 8);
    free(m);
}
END_TEST

START_TEST(layouts_and_swizzles)
{
    ls_diag d;
    ls_module *m = load_example("seed002_nested_64x64.mlir", &d);
    ck_assert_msg(d.status == LS_OK, "%s", d.msg);
    ck_assert_int_eq(m->n_layouts, 1);
    ck_assert_str_eq(m->layouts[0].name, "layout");
    ck_assert_int_eq(m->layouts[0].vector_rank, 2);
    ck_assert_int_eq(m->layouts[0].vector_shape[1], 64);
    ck_assert_int_eq(m->layouts[0].layout.thread_strides[1], 16);
    free(m);
    m = load_example("seed001_xor_shuffle_phase2.mlir", &d);
    ck_assert_msg(d.status == LS_OK, "%s", d.msg);
    ck_assert_int_eq(m->n_swizzles, 1);
    ck_assert_int_eq(m->swizzles[0].swizzle.per_phase, 2);
    free(m);
    m = load_example("seed001_xor_shuffle.mlir", &d);
    ck_assert_int_eq(m->n_swizzles, 1);
    ck_assert_int_eq(m->swizzles[0].swizzle.per_phase, 1);   /* default */
    ck_assert_int_eq(m->swizzles[0].swizzle.row_stride, 16); /* default: row_width */
    free(m);
}
END_TEST

START_TEST(limits)
{
    /* rank over the limit */
    ls_diag d;
    ls_module *m = load_text(
        "%r = linalg.reduce ins(%a : tensor<2x2x2x2x2x2x2x2x2xf32>) outs(%b : "
        "tensor<2x2x2x2x2x2x2x2xf32>) dimensions = [0] (%in: f32, %o: f32) {\n  %1 = arith.addf "
        "%in, %o : f32\n  linalg.yield %1 : f32\n}\n",
        &d);
    ck_assert_int_eq(d.status, LS_ERR_LIMIT);
    ck_assert(strstr(d.msg, "rank limit is 8") != NULL);
    free(m);
    /* file missing */
    m = ls_xcalloc(1, sizeof *m);
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_module_load("/nonexistent/x.mlir", m, &d), LS_ERR_IO);
    ck_assert(strstr(d.msg, "cannot open") != NULL);
    free(m);
}
END_TEST

static Suite *import_suite(void)
{
    Suite *s = suite_create("import");
    TCase *tc = tcase_create("import");
    tcase_add_test(tc, example2_generic);
    tcase_add_test(tc, example3_extf_and_iterator_attrs);
    tcase_add_test(tc, reduce_op_forms);
    tcase_add_test(tc, several_reductions);
    tcase_add_test(tc, type_aliases_expand);
    tcase_add_test(tc, rank0_init);
    tcase_add_test(tc, dynamic_dims);
    tcase_add_test(tc, multi_result_generic);
    tcase_add_loop_test(tc, op_errors, 0, (int)(sizeof bad_ops / sizeof bad_ops[0]));
    tcase_add_test(tc, unused_broken_alias_is_skipped);
    tcase_add_test(tc, layouts_and_swizzles);
    tcase_add_test(tc, limits);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(import_suite)
