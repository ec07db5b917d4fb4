/* test_cuda_levels.c: the CUDA generator's kernels for IREE's other tiling
 * levels and operand paths, without a GPU (NVRTC compiles each to PTX with
 * an empty log where the build has the CUDA path; the emulator runs it
 * against the reference, and a sabotaged copy must fail):
 *  - a TileAndFuse column sum: each thread walks its own columns;
 *  - the serial `reduction` level: every stage per tile, folded into the
 *    carried init;
 *  - promote_operands: each promoted input copied through its padded
 *    workgroup buffer between two barriers every iteration, in the derived
 *    thread layout (plan_promote.c), and read from there -- vector copy
 *    reads where the tile cannot pass the tensor's end, element reads with
 *    bounds where it can;
 *  - a reduction reading another's result (softmax's sum reading the max),
 *    from a buffer of that reduction's bound outputs. */
#include "cuda_util.h"

/* A column sum on IREE's TileAndFuse pipeline (an outer reduction; the
 * config is IREE's for sm_90, `lanescope suggest`): every thread walks its
 * own four columns, four rows an iteration, so the kernel has no shuffle
 * and no barrier, and every thread stores. */
START_TEST(tile_and_fuse_kernel)
{
    ls_diag d;
    ls_diag_clear(&d);
    ls_derived *dv;
    ls_plan plan;
    ls_module *m = nvidia_plan_of(
        "func.func @colsum() attributes {translation_info = #iree_codegen.translation_info<"
        "pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [32, 1, 1] "
        "subgroup_size = 32>} {\n"
        "  %cst = arith.constant 0.0 : f32\n"
        "  %in = tensor.empty() : tensor<64x256xf32>\n"
        "  %e = tensor.empty() : tensor<256xf32>\n"
        "  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<256xf32>) -> tensor<256xf32>\n"
        "  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
        "affine_map<(d0, d1) -> (d1)>], iterator_types = [\"reduction\", \"parallel\"]} "
        "ins(%in : tensor<64x256xf32>) outs(%f : tensor<256xf32>) attrs = {lowering_config = "
        "#iree_gpu.lowering_config<{reduction = [4, 0], thread = [0, 4], "
        "workgroup = [0, 128]}>} {\n"
        ADDF_F32_BODY("tensor<256xf32>"),
        32, &dv, &plan);
    ck_assert(dv->tile_and_fuse);
    char *src = NULL;
    ls_cuda_launch L;
    ck_assert_msg(ls_cuda_generate(&plan, 0, "colsum", &src, &L, &d) == LS_OK, "%s", d.msg);
    ck_assert_ptr_nonnull(strstr(src, "as IREE's TileAndFuse pipeline"));
    ck_assert_int_eq(L.grid[0], 2);
    ck_assert_int_eq(L.block[0], 32);
    ck_assert_int_eq(L.smem_bytes, 0);
    ck_assert_int_eq(count(src, "__shfl_xor_sync("), 0);
    ck_assert_int_eq(count(src, "__syncthreads();"), 0);
    /* four rows of four columns an iteration, 16 iterations, four stores */
    ck_assert_int_eq(count(src, "*(const ls_vec0_t *)"), 4);
    ck_assert_int_eq(count(src, "for (int it = 0; it < 16; ++it)"), 1);
    ck_assert_int_eq(count(src, "out[0 + "), 4);
    char *ptx = ptx_of(src, "TileAndFuse column sum");
    if (ptx) {
        /* 16-byte loads, four an iteration (NVRTC picks the unrolling: unroll 0) */
        int loads = count(ptx, "ld.global.nc.v4");
        ck_assert_msg(loads >= 4 && loads % 4 == 0, "%d 16-byte loads", loads);
        ck_assert_int_eq(count(ptx, "shfl.sync"), 0);
        ck_assert_int_eq(count(ptx, "bar.sync"), 0);
        free(ptx);
    }
    /* reading row 0 twice instead of rows 0 and 1 must fail the check */
    emulate_then_sabotage(&plan, src, &L, 11, 256, "in0 + o0 + 256)", "in0 + o0 + 000)");
    free(src);
    free(dv);
    free(m);
}
END_TEST

/* The reduction tiling level (a `reduction` tile with no partial one):
 * every stage, the cross-subgroup buffer and its two barriers included,
 * runs once per 256-element tile, and each tile's result folds into the
 * carried value, which starts at the fill's 1.5; 1000 columns leave a
 * ragged last tile. */
START_TEST(serial_reduction_kernel)
{
    ls_diag d;
    ls_diag_clear(&d);
    ls_derived *dv;
    ls_plan plan;
    ls_module *m = nvidia_plan_of(
        "func.func @serial() attributes {translation_info = #iree_codegen.translation_info<"
        "pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [64, 1, 1] "
        "subgroup_size = 32>} {\n"
        "  %cst = arith.constant 1.5 : f32\n"
        "  %in = tensor.empty() : tensor<6x1000xf32>\n"
        "  %e = tensor.empty() : tensor<6xf32>\n"
        "  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<6xf32>) -> tensor<6xf32>\n"
        "  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
        "affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]} "
        "ins(%in : tensor<6x1000xf32>) outs(%f : tensor<6xf32>) attrs = {lowering_config = "
        "#iree_gpu.lowering_config<{workgroup = [1, 0], reduction = [0, 256], thread = [0, 4], "
        "lane_basis = [[1, 32], [0, 1]], subgroup_basis = [[1, 2], [0, 1]]}>} {\n"
        ADDF_F32_BODY("tensor<6xf32>"),
        64, &dv, &plan);
    ck_assert(dv->serial_reduce);
    char *src = NULL;
    ls_cuda_launch L;
    ck_assert_msg(ls_cuda_generate(&plan, 1, "serial", &src, &L, &d) == LS_OK, "%s", d.msg);
    ck_assert_int_eq(count(src, "for (int it = 0; it < 4; ++it)"), 1);
    /* in the loop: 8 a workgroup, as the simulator counts them */
    ck_assert_int_eq(count(src, "__syncthreads();"), 2);
    ck_assert_int_eq(count(src, "carried[0] = __uint_as_float(0x3fc00000u);"), 1); /* 1.5 */
    ck_assert_int_eq(count(src, "ls_combine(res[0], __uint_as_float"), 0); /* no second init */
    char *ptx = ptx_of(src, "serial reduction");
    if (ptx) {
        ck_assert_int_eq(count(ptx, "bar.sync"), 2); /* `#pragma unroll 1`: the loop stays */
        free(ptx);
    }
    /* folding a tile's result into itself instead of into the carried value must fail */
    emulate_then_sabotage(&plan, src, &L, 3, 6, "ls_combine(carried[0], res[0])",
                          "ls_combine(res[0],     res[0])");
    free(src);
    free(dv);
    free(m);
}
END_TEST

/* A matvec with both operands promoted (IREE's @matvec_fp16_promote_rhs
 * pattern, for sm_90): 4 rows of a 64 x K f16 matrix a workgroup, the
 * `reduction` level over K in tiles of 256, 4 subgroups on the rows.
 * Hand-derived from plan_promote.c's rules: the 4 x 256 tile of input 0
 * over 128 threads is 8-element vectors (128 / 16 bits; 1024 / 128 = 8),
 * 32 threads along a row's 32 vectors and 4 on the rows: one copy read a
 * thread; the 256 elements of input 1 are 2 a thread (256 / 128), 128
 * threads along them.  Padding 64 / 16 = 4 elements: 4 x 260 x 2 + 260 x 2
 * = 2600 bytes of shared memory; 2 barriers an iteration (no
 * cross-subgroup stage: the subgroups own rows). */
#define PROMOTE_MATVEC(K)                                                                        \
    "func.func @mvp() attributes {translation_info = #iree_codegen.translation_info<"           \
    "pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] "            \
    "subgroup_size = 32>} {\n"                                                                  \
    "  %cst = arith.constant 0.000000e+00 : f32\n"                                              \
    "  %a = tensor.empty() : tensor<64x" K "xf16>\n"                                            \
    "  %x = tensor.empty() : tensor<" K "xf16>\n"                                               \
    "  %e = tensor.empty() : tensor<64xf32>\n"                                                  \
    "  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>\n"          \
    "  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "               \
    "affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = "           \
    "[\"parallel\", \"reduction\"]} ins(%a, %x : tensor<64x" K "xf16>, tensor<" K "xf16>) "     \
    "outs(%f : tensor<64xf32>) attrs = {lowering_config = #iree_gpu.lowering_config<{"         \
    "workgroup = [4, 0], thread = [0, 8], reduction = [0, 256], lane_basis = [[1, 32], [0, 1]], " \
    "subgroup_basis = [[4, 1], [0, 1]], promote_operands = [0, 1]}>} {\n"                      \
    "  ^bb0(%in: f16, %in_0: f16, %out: f32):\n"                                               \
    "    %m = arith.mulf %in, %in_0 : f16\n"                                                    \
    "    %w = arith.extf %m : f16 to f32\n"                                                     \
    "    %s = arith.addf %w, %out : f32\n"                                                      \
    "    linalg.yield %s : f32\n"                                                               \
    "  } -> tensor<64xf32>\n  return\n}\n"

START_TEST(promoted_operands_kernel)
{
    ls_diag d;
    ls_diag_clear(&d);
    ls_derived *dv;
    ls_plan plan;
    ls_module *m = nvidia_plan_of(PROMOTE_MATVEC("1024"), 128, &dv, &plan);
    ck_assert_int_eq(plan.n_promoted, 2);
    char *src = NULL;
    ls_cuda_launch L;
    ck_assert_msg(ls_cuda_generate(&plan, 1, "mvp", &src, &L, &d) == LS_OK, "%s", d.msg);
    ck_assert_int_eq(L.smem_bytes, 2600);
    ck_assert_int_eq(count(src, "__shared__ ls_in0_t prom0[1040];"), 1);
    ck_assert_int_eq(count(src, "__shared__ ls_in1_t prom1[260];"), 1);
    ck_assert_int_eq(count(src, "__syncthreads();"), 2);
    /* one vector copy read of each input a thread, 8 + 2 shared writes */
    ck_assert_int_eq(count(src, "*(const ls_pvec0_t *)(in0 + c + 0)"), 1);
    ck_assert_int_eq(count(src, "*(const ls_pvec1_t *)(in1 + c + 0)"), 1);
    ck_assert_int_eq(count(src, "prom0[s + "), 8);
    ck_assert_int_eq(count(src, "prom1[s + "), 2);
    /* the compute reads come from the buffers, the padded row stride 260 */
    ck_assert_int_eq(count(src, "const int po0 = 0 + tx0 * 260 + tx1 * 1;"), 1);
    ck_assert_int_eq(count(src, "in0[o0"), 0);
    ck_assert_int_eq(count(src, "ls_body(prom0[po0 + "), 8);
    char *ptx = ptx_of(src, "promoted matvec");
    if (ptx) {
        ck_assert_int_eq(count(ptx, "bar.sync"), 2);
        ck_assert_int_eq(count(ptx, "ld.global.nc.v4"), 1);
        free(ptx);
    }
    /* copying every row of the tile into row 0 of the buffer must fail */
    emulate_then_sabotage(&plan, src, &L, 13, 64, "pk0_0 * 260 + pk0_1", "pk0_0 * 000 + pk0_1");
    free(src);
    free(dv);
    free(m);
}
END_TEST

/* K = 1000: the last tile passes the tensor's end, so the copies read
 * element by element, each under its bound, and the rest of the buffer
 * is never read (the compute reads keep their own masks). */
START_TEST(promoted_ragged_tile)
{
    ls_diag d;
    ls_diag_clear(&d);
    ls_derived *dv;
    ls_plan plan;
    ls_module *m = nvidia_plan_of(PROMOTE_MATVEC("1000"), 128, &dv, &plan);
    char *src = NULL;
    ls_cuda_launch L;
    ck_assert_msg(ls_cuda_generate(&plan, 1, "mvp", &src, &L, &d) == LS_OK, "%s", d.msg);
    ck_assert_int_eq(count(src, "ls_pvec0_t *)"), 0);
    ck_assert_int_eq(count(src, "(it / 1) % 4 * 256 + pk0_1 * 8 + 7 < 1000)"), 1);
    ck_assert_int_eq(count(src, "(it / 1) % 4 * 256 + pk1_0 * 2 + 1 < 1000)"), 1);
    char *ptx = ptx_of(src, "promoted ragged matvec");
    free(ptx);
    /* a bound one element short drops column 999 of every row */
    emulate_then_sabotage(&plan, src, &L, 17, 64, "pk0_1 * 8 + 7 < 1000", "pk0_1 * 8 + 7 <  999");
    free(src);
    free(dv);
    free(m);
}
END_TEST

/* A second reduction of the dispatch reading the first one's result
 * (softmax's sum of exp(x - max)): the kernel reads the max from a buffer
 * of the first reduction's outputs, bound as the reference's values (the
 * header says IREE keeps it in registers in one launch); reading 0 for
 * the max instead must fail. */
START_TEST(intermediate_input_kernel)
{
    ls_diag d;
    ls_diag_clear(&d);
    ls_module *m = load_text(
        "func.func @sm() attributes {translation_info = #iree_codegen.translation_info<"
        "pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [64, 1, 1] "
        "subgroup_size = 32>} {\n"
        "  %ninf = arith.constant 0xFF800000 : f32\n"
        "  %zero = arith.constant 0.0 : f32\n"
        "  %x = tensor.empty() : tensor<6x1000xf32>\n"
        "  %e = tensor.empty() : tensor<6xf32>\n"
        "  %f0 = linalg.fill ins(%ninf : f32) outs(%e : tensor<6xf32>) -> tensor<6xf32>\n"
        "  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
        "affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]} "
        "ins(%x : tensor<6x1000xf32>) outs(%f0 : tensor<6xf32>) attrs = {lowering_config = "
        "#iree_gpu.lowering_config<{workgroup = [1, 0], partial_reduction = [0, 256], "
        "thread = [0, 4], lane_basis = [[1, 32], [0, 1]], subgroup_basis = [[1, 2], [0, 1]]}>} {\n"
        "  ^bb0(%a: f32, %b: f32):\n    %r = arith.maximumf %a, %b : f32\n"
        "    linalg.yield %r : f32\n  } -> tensor<6xf32>\n"
        "  %f1 = linalg.fill ins(%zero : f32) outs(%e : tensor<6xf32>) -> tensor<6xf32>\n"
        "  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
        "affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = "
        "[\"parallel\", \"reduction\"]} ins(%x, %m : tensor<6x1000xf32>, tensor<6xf32>) "
        "outs(%f1 : tensor<6xf32>) attrs = {lowering_config = #iree_gpu.lowering_config<{"
        "workgroup = [1, 0], partial_reduction = [0, 256], thread = [0, 4], "
        "lane_basis = [[1, 32], [0, 1]], subgroup_basis = [[1, 2], [0, 1]]}>} {\n"
        "  ^bb0(%a: f32, %mx: f32, %o: f32):\n    %t = arith.subf %a, %mx : f32\n"
        "    %y = math.exp %t : f32\n    %r = arith.addf %y, %o : f32\n"
        "    linalg.yield %r : f32\n  } -> tensor<6xf32>\n  return\n}\n",
        &d);
    ck_assert_msg(d.status == LS_OK && m->n_problems == 2, "%s", d.msg);
    ls_problem *p = &m->problems[1];
    ck_assert(p->inputs[1].intermediate);
    ls_derived *dv = ls_xcalloc(1, sizeof *dv);
    ls_plan plan;
    plan_nvidia(p, 64, dv, &plan);
    char *src = NULL;
    ls_cuda_launch L;
    ck_assert_msg(ls_cuda_generate(&plan, 0, "sm", &src, &L, &d) == LS_OK, "%s", d.msg);
    ck_assert_int_eq(L.n_inputs, 2);
    ck_assert_int_eq(L.input_elems[1], 6);
    ck_assert_ptr_nonnull(strstr(src, "is another reduction's result: this kernel reads it"));
    char *ptx = ptx_of(src, "softmax sum");
    free(ptx);
    ls_input_source in = {21, NULL, {NULL}};
    ck_assert_msg(ls_bind_intermediates(m->problems, m->n_problems, 1, &in, &d) == LS_OK, "%s",
                  d.msg);
    ck_assert_ptr_nonnull(in.values[1]);
    emulate_then_sabotage_in(&plan, src, &L, in, 6, "in1[o1 + 0]", "(ls_in1_t)0");
    ls_free_intermediates(&in);
    free(src);
    free(dv);
    free(m);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *s = suite_create("cuda_levels");
    TCase *tc = tcase_create("generator");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, tile_and_fuse_kernel);
    tcase_add_test(tc, serial_reduction_kernel);
    tcase_add_test(tc, promoted_operands_kernel);
    tcase_add_test(tc, promoted_ragged_tile);
    tcase_add_test(tc, intermediate_input_kernel);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(make_suite)
