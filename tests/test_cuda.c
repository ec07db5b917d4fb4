/* test_cuda.c: the CUDA path without a GPU.
 *  - every generated kernel compiles with NVRTC to PTX with an empty log
 *    (no warnings) when the build has the CUDA path;
 *  - the generated source, run on the CPU by the emulator, gives outputs
 *    that match the reference for every combiner and element type over
 *    random NVIDIA configs (ragged tails, idle and duplicated lanes,
 *    cross-subgroup stages, transposed maps);
 *  - hand-derived facts of two kernels: 16-byte vector loads, the
 *    butterfly's five shfl.sync.bfly, no redux.sync, two bar.sync and the
 *    padded buffer when subgroups split the reduction;
 *  - a sabotaged kernel (one butterfly offset changed) fails the check;
 *  - a matvec (two inputs through a body) takes a vector load of each
 *    operand and no FMA, and checks (random bodies, math and narrow
 *    inputs: test_cuda_bodies.c);
 *  - AMD plans, subgroup size 64 and f8 operands are refused with the
 *    reason (arg_compare: test_cuda_argcmp.c). */
#include "../src/cuda/codegen.h"
#include "cuda_util.h"
#include "engine_util.h"

/* f16 rows accumulated in f32: 8 f16 = one 16-byte load per thread, 8
 * subgroups on the reduction -> a cross-subgroup buffer of 8 slots padded by
 * 64 bits (2 f32) and two barriers. */
START_TEST(hand_checked_kernel)
{
    loaded x;
    load_plan(&x, "h100_rowsum_f16_2048x8192.mlir", "sm_90");
    char *src = NULL;
    ls_cuda_launch L;
    ls_diag d;
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_cuda_generate(&x.plan, 0, "h100_rowsum_f16_2048x8192.mlir", &src, &L, &d),
                     LS_OK);
    ck_assert_uint_eq(L.grid[0], 2048);
    ck_assert_uint_eq(L.block[0], 256);
    ck_assert(L.vector_loads);
    ck_assert_int_eq(L.vector_bytes, 16);
    ck_assert_int_eq(L.smem_bytes, (8 + 2) * 4);
    ck_assert_int_eq(L.in_bytes, INT64_C(2048) * 8192 * 2);
    ck_assert_int_eq(L.out_bytes, 2048 * 4);
    ck_assert_ptr_nonnull(strstr(src, "__shared__ ls_acc_t buf[10];"));
    ck_assert_int_eq(count(src, "__syncthreads()"), 2);
    ck_assert_ptr_nonnull(strstr(src, "scf.for over the partial-reduction chunks: 4 iterations"));
    /* the lane butterfly: 32 lanes -> offsets 1..16; the cross-subgroup one: 8 slots -> 1..4 */
    ck_assert_int_eq(count(src, "ls_shfl_xor(res[q], "), 5);
    ck_assert_int_eq(count(src, "ls_shfl_xor(v, "), 3);
    ck_assert_ptr_nonnull(strstr(src, "__half2float(v)")); /* arith.extf */
    char *ptx = ptx_of(src, "rowsum f16");
    if (ptx) {
        ck_assert_int_ge(count(ptx, "ld.global.nc.v4"), 4); /* 16-byte loads */
        ck_assert_int_eq(count(ptx, "shfl.sync.bfly.b32"), 8);
        ck_assert_int_eq(count(ptx, "redux.sync"), 0);   /* IREE does not emit it */
        ck_assert_int_eq(count(ptx, "bar.sync"), 2);
        ck_assert_ptr_nonnull(strstr(ptx, ".shared .align 4 .b8"));
        free(ptx);
    }
    free(src);
    free(x.m);
}
END_TEST

/* The L2 flush reads (a kernel of gpu.c's): it must compile too. */
START_TEST(flush_kernel_compiles)
{
    if (!ls_cuda_built())
        return;
    char *ptx = ptx_of(ls_gpu_flush_source(), "L2 flush");
    if (ptx) {
        ck_assert_ptr_nonnull(strstr(ptx, ".entry ls_flush_read"));
        ck_assert_ptr_nonnull(strstr(ptx, "ld.global"));
        free(ptx);
    }
}
END_TEST

START_TEST(rejections)
{
    loaded x;
    load_plan(&x, "seed000_example2.mlir", "gfx942");
    char *src = NULL;
    ls_cuda_launch L;
    ls_diag d;
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_cuda_generate(&x.plan, 0, "ex2", &src, &L, &d), LS_ERR_INVALID);
    ck_assert_ptr_nonnull(strstr(d.msg, "AMD target"));
    ck_assert_ptr_null(src);
    free(x.m);
    /* the same config lowered as for NVIDIA still has 64-lane subgroups */
    load_plan(&x, "seed000_example2.mlir", "sm_90");
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_cuda_generate(&x.plan, 0, "ex2", &src, &L, &d), LS_ERR_INVALID);
    ck_assert_ptr_nonnull(strstr(d.msg, "subgroup size is 64"));
    free(x.m);
}
END_TEST

/* The emulated kernel matches the reference on `outputs` outputs; the same
 * source with `good` replaced by `bad` (as long) must fail the check. */
/* A wrong butterfly offset must not pass the emulated check. */
START_TEST(sabotage_is_caught)
{
    loaded x;
    load_plan(&x, "h100_rowsum_f16_2048x8192.mlir", "sm_90");
    /* a small problem of the same shape family: 4 rows */
    ls_problem *p = &x.m->problems[0];
    p->size[0] = 4;
    ls_diag d;
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_derive(p, &x.d, &d), LS_OK);
    ck_assert_int_eq(ls_plan_build(p, &x.d, ls_plan_target_from_arch("sm_90"), &x.plan, &d), LS_OK);
    char *src = NULL;
    ls_cuda_launch L;
    ck_assert_int_eq(ls_cuda_generate(&x.plan, 0, "small", &src, &L, &d), LS_OK);
    emulate_then_sabotage(&x.plan, src, &L, 5, 4, "ls_shfl_xor(res[q], 16)",
                          "ls_shfl_xor(res[q],  8)");
    /* a barrier only some threads reach: the emulator reports the
     * deadlock (one line, the problem's place) instead of hanging */
    static const char good[] = "__syncthreads(); /* gpu.barrier: the partials are visible */",
                      bar_lane0[] = "if (lane == 0) __syncthreads(); /* only lane 0 waits      */";
    ck_assert_uint_eq(strlen(good), strlen(bar_lane0));
    char *bad = strdup(src), *bar = strstr(bad, good);
    ck_assert_ptr_nonnull(bar);
    memcpy(bar, bar_lane0, strlen(bar_lane0));
    int64_t nchecked;
    double nratio;
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_cuda_emulate_source(&x.plan, bad, &L, (ls_input_source){5, NULL, {NULL}},
                                            &nchecked, &nratio, &d),
                     LS_ERR_INVALID);
    ck_assert_msg(strstr(d.msg, "deadlocked") && !strchr(d.msg, '\n'), "%s", d.msg);
    free(bad);
    /* and the host check itself rejects a poisoned buffer */
    int64_t checked;
    double ratio;
    ls_input_source in = {5, NULL, {NULL}};
    void *out = malloc((size_t)L.out_bytes);
    memset(out, 0xa5, (size_t)L.out_bytes);
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_cuda_check_output(&x.plan, in, out, &checked, &ratio, &d), LS_ERR_INVALID);
    free(out);
    free(src);
    free(x.m);
}
END_TEST

static const ls_elem_type nv_types[] = {LS_ET_F16, LS_ET_BF16, LS_ET_F32,
                                        LS_ET_I8,  LS_ET_I16,  LS_ET_I32};

/* Every combiner: random NVIDIA configs, compiled by NVRTC and emulated. */
START_TEST(emulated_matches_reference)
{
    uint64_t rng = 991 + (uint64_t)_i * 7919;
    int ran = 0, cross = 0, vec = 0;
    ls_derived *d = ls_xcalloc(1, sizeof *d);
    for (int iter = 0; iter < 600 && ran < 3; iter++) {
        ls_problem p;
        if (!random_problem(&rng, &p, 5, 70) || p.ti.subgroup_size != 32)
            continue;
        ls_combiner k = (ls_combiner)_i;
        random_kind_and_type(&rng, &p, k, nv_types, 6);
        ls_elem_type t = p.acc_type;
        ls_diag dg;
        ls_diag_clear(&dg);
        if (ls_derive(&p, d, &dg) != LS_OK || d->total_workgroups > 40)
            continue;
        ls_plan plan;
        REQUIRE(ls_plan_build(&p, d, ls_plan_target_from_arch("sm_90"), &plan, &dg) == LS_OK,
                "%s", dg.msg);
        char *src = NULL;
        ls_cuda_launch L;
        ls_status gs = ls_cuda_generate(&plan, 0, "random", &src, &L, &dg);
        if (gs == LS_ERR_LIMIT)
            continue; /* e.g. more registers than the generator unrolls */
        REQUIRE(gs == LS_OK, "%s", dg.msg);
        char what[128];
        snprintf(what, sizeof what, "%s %s<-%s", ls_combiner_name(k), ls_elem_type_name(t),
                 ls_elem_type_name(p.inputs[0].type));
        free(ptx_of(src, what));
        int64_t checked;
        double ratio;
        ls_status st = ls_cuda_emulate_source(&plan, src, &L, (ls_input_source){4321, NULL, {NULL}},
                                              &checked, &ratio, &dg);
        if (st != LS_OK) {
            fprintf(stderr, "--- %s:\n%s\n", what, src);
            ck_abort_msg("%s: %s (source on stderr)", what, dg.msg);
        }
        REQUIRE(checked == L.out_elems, "%s: %lld of %lld outputs checked", what,
                (long long)checked, (long long)L.out_elems);
        cross += plan.cross_subgroup;
        vec += L.vector_loads;
        free(src);
        ran++;
    }
    free(d);
    ck_assert_int_eq(ran, 3);
    (void)cross;
    (void)vec;
}
END_TEST

/* Across the property runs, the interesting paths were taken. */
START_TEST(property_coverage)
{
    uint64_t rng = 4242;
    int cross = 0, vec = 0, ragged = 0, n = 0;
    ls_derived *d = ls_xcalloc(1, sizeof *d);
    for (int iter = 0; iter < 3000 && n < 60; iter++) {
        ls_problem p;
        if (!random_problem(&rng, &p, 5, 70) || p.ti.subgroup_size != 32)
            continue;
        ls_diag dg;
        ls_diag_clear(&dg);
        if (ls_derive(&p, d, &dg) != LS_OK || d->total_workgroups > 40)
            continue;
        ls_plan plan;
        if (ls_plan_build(&p, d, ls_plan_target_from_arch("sm_90"), &plan, &dg) != LS_OK)
            continue;
        char *src = NULL;
        ls_cuda_launch L;
        ls_status gs = ls_cuda_generate(&plan, 0, "random", &src, &L, &dg);
        if (gs == LS_ERR_LIMIT)
            continue;
        REQUIRE(gs == LS_OK, "%s", dg.msg);
        cross += plan.cross_subgroup;
        vec += L.vector_loads;
        ragged += strstr(src, " < ") != NULL && strstr(src, "? ls_extend") != NULL;
        int64_t checked;
        double ratio;
        if (n < 12 && /* a dozen more, with seeds of their own */
            ls_cuda_emulate_source(&plan, src, &L, (ls_input_source){(uint64_t)n, NULL, {NULL}},
                                   &checked, &ratio, &dg) != LS_OK) {
            fprintf(stderr, "---\n%s\n", src);
            ck_abort_msg("%s (source on stderr)", dg.msg);
        }
        free(src);
        n++;
    }
    free(d);
    ck_assert_int_eq(n, 60);
    ck_assert_int_ge(cross, 5);
    ck_assert_int_ge(vec, 5);
    ck_assert_int_ge(ragged, 5);
}
END_TEST

/* A matvec (IREE's decode shape, shrunk): both operands take 16-byte
 * loads; each thread's 8 packed elements are a math.fma chain, last first,
 * from zero (ContractToChainFMA after DistributeContract's local reduce),
 * then added to the accumulator; and the kernel checks, bit for bit
 * against the simulator. */
static const char *matvec_text =
    "func.func @mv() {\n"
    "  %cst = arith.constant 0.000000e+00 : f16\n"
    "  %a = tensor.empty() : tensor<64x512xf16>\n"
    "  %x = tensor.empty() : tensor<512xf16>\n"
    "  %e = tensor.empty() : tensor<64xf16>\n"
    "  %f = linalg.fill ins(%cst : f16) outs(%e : tensor<64xf16>) -> tensor<64xf16>\n"
    "  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
    "affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = "
    "[\"parallel\", \"reduction\"]} ins(%a, %x : tensor<64x512xf16>, tensor<512xf16>) "
    "outs(%f : tensor<64xf16>) attrs = {lowering_config = #iree_gpu.lowering_config<{"
    "workgroup = [1, 0], thread = [0, 8], partial_reduction = [0, 512], "
    "lane_basis = [[1, 32], [0, 1]], subgroup_basis = [[1, 2], [0, 1]]}>} {\n"
    "  ^bb0(%in: f16, %in_0: f16, %out: f16):\n"
    "    %m = arith.mulf %in, %in_0 : f16\n"
    "    %s = arith.addf %m, %out : f16\n"
    "    linalg.yield %s : f16\n"
    "  } -> tensor<64xf16>\n"
    "  return\n"
    "}\n";

START_TEST(matvec_kernel)
{
    ls_diag d;
    ls_module *m = load_text(matvec_text, &d);
    ck_assert_msg(d.status == LS_OK, "%s", d.msg);
    ls_derived *dv = ls_xcalloc(1, sizeof *dv);
    ls_plan plan;
    plan_nvidia(&m->problems[0], 64, dv, &plan);
    char *src = NULL;
    ls_cuda_launch L;
    ck_assert_msg(ls_cuda_generate(&plan, 0, "mv", &src, &L, &d) == LS_OK, "%s", d.msg);
    ck_assert_int_eq(L.n_inputs, 2);
    ck_assert_int_eq(L.input_bytes[0], 64 * 512 * 2);
    ck_assert_int_eq(L.input_bytes[1], 512 * 2);
    ck_assert_int_eq(L.in_bytes, 64 * 512 * 2 + 512 * 2);
    ck_assert_int_eq(L.vector_bytes, 16);
    /* one 16-byte load of each operand per thread: 8 of 512 elements x 64 threads */
    ck_assert_int_eq(count(src, "*(const ls_vec0_t *)"), 1);
    ck_assert_int_eq(count(src, "*(const ls_vec1_t *)"), 1);
    ck_assert_int_eq(count(src, "] = w0.e["), 8);
    ck_assert_int_eq(count(src, "ls_body_fma(fa0["), 8);
    ck_assert_int_eq(count(src, "__fmul_rn"), 0);
    ck_assert_ptr_nonnull(strstr(src, "__hfma(__float2half_rn(v0), __float2half_rn(v1), "));
    /* last register first, then %acc = add(%acc, %local) */
    const char *c7 = strstr(src, "loc[0] = fok[7] ? ls_body_fma(fa0[7], fa1[7], loc[0])"),
               *c0 = strstr(src, "loc[0] = fok[0] ? ls_body_fma(fa0[0], fa1[0], loc[0])"),
               *add = strstr(src, "acc[0] = ls_combine(acc[0], loc[0]);");
    ck_assert(c7 && c0 && add && c7 < c0 && c0 < add);
    char *ptx = ptx_of(src, "matvec f16");
    if (ptx) {
        ck_assert_int_eq(count(ptx, "ld.global.nc.v4"), 2);
        ck_assert_int_ge(count(ptx, "fma.rn.f16"), 8); /* one FMA per element */
        ck_assert_int_eq(count(ptx, "mul.rn.f16"), 0);
        free(ptx);
    }
    /* swapping the operands' roles in the body must fail: a * a instead of a * x */
    char *copy = strdup(src);
    emulate_then_sabotage(&plan, src, &L, 7, 64, "__float2half_rn(v1), ", "__float2half_rn(v0), ");
    /* A chain in register order (the generator before IREE's order): within
     * the reference's rounding bound, but not the simulator's bits */
    char *first = strstr(copy, "        /* math.fma chain"),
         *last = strstr(copy, "        /* %acc = ");
    ck_assert(first && last);
    char *lines[8];
    size_t lens[8];
    char *at = strstr(first, "        loc[0] = ");
    for (int i = 0; i < 8; i++) {
        char *nl = strchr(at, '\n');
        lines[i] = strndup(at, (size_t)(nl + 1 - at));
        lens[i] = (size_t)(nl + 1 - at);
        at = nl + 1;
    }
    at = strstr(first, "        loc[0] = ");
    for (int i = 7; i >= 0; i--) { /* the same lines, the other way round */
        memcpy(at, lines[i], lens[i]);
        at += lens[i];
        free(lines[i]);
    }
    ls_diag_clear(&d);
    int64_t checked;
    double ratio;
    ck_assert_int_eq(ls_cuda_emulate_source(&plan, copy, &L, (ls_input_source){7, NULL, {NULL}},
                                            &checked, &ratio, &d),
                     LS_ERR_INVALID);
    ck_assert_int_eq(checked, 64); /* every output within the reference's bound */
    ck_assert_msg(strstr(d.msg, "but the simulator, combining in IREE's order, gives"), "%s",
                  d.msg);
    free(copy);
    free(src);
    free(dv);
    free(m);
}
END_TEST

/* A strided input map (`d1 * 2`) is addressed through the operand's own
 * shape: output (r, c) sums row 2c of slab r. */
START_TEST(strided_map_kernel)
{
    ls_diag d;
    ls_diag_clear(&d);
    ls_derived *dv;
    ls_plan plan;
    ls_module *m = nvidia_plan_of(
        "%r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1 * 2, d2)>, "
        "affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = [\"parallel\", \"parallel\", "
        "\"reduction\"]} ins(%a : tensor<4x16x64xi32>) outs(%c : tensor<4x8xi32>) attrs = "
        "{lowering_config = #iree_gpu.lowering_config<{workgroup = [1, 1, 0], partial_reduction = "
        "[0, 0, 32], thread = [0, 0, 1], lane_basis = [[1, 1, 32], [0, 1, 2]], subgroup_basis = "
        "[[1, 1, 1], [0, 1, 2]]}>} {\n^bb0(%in: i32, %out: i32):\n  %0 = arith.addi %in, %out : "
        "i32\n  linalg.yield %0 : i32\n} -> tensor<4x8xi32>\n",
        32, &dv, &plan);
    char *src = NULL;
    ls_cuda_launch L;
    ck_assert_msg(ls_cuda_generate(&plan, 0, "strided", &src, &L, &d) == LS_OK, "%s", d.msg);
    ck_assert_int_eq(L.input_elems[0], 4 * 16 * 64); /* the operand's shape, not the loops' */
    /* d1 steps two rows of 64: stride 128 */
    ck_assert_ptr_nonnull(strstr(src, "x1 * 128"));
    free(ptx_of(src, "strided map"));
    int64_t checked;
    double ratio;
    ck_assert_msg(ls_cuda_emulate_source(&plan, src, &L, (ls_input_source){17, NULL, {NULL}},
                                         &checked, &ratio, &d) == LS_OK,
                  "%s", d.msg);
    ck_assert_int_eq(checked, 32);
    free(src);
    free(dv);
    free(m);
}
END_TEST

/* Issue 15, class 3: a padded thread's input offset (register 0's, formed
 * before the mask) decides the index width.  32767 x 65536 f32 has fewer
 * than 2^31 elements, but rows in tiles of 3 padded to 4 lanes reach row
 * 32769: offset 2^31 + 65536 + ..., which int would overflow. */
#define PADDED_TEXT                                                                              \
    "%%r = linalg.reduce ins(%%a : tensor<%lldx65536xf32>) outs(%%b : tensor<%lldxf32>) "        \
    "dimensions = [1] {lowering_config = #iree_gpu.lowering_config<{workgroup = [3, 0], "         \
    "partial_reduction = [0, 256], thread = [0, 1], lane_basis = [[4, 8], [0, 1]], "              \
    "subgroup_basis = [[1, 1], [0, 1]]}>} (%%in: f32, %%o: f32) {\n  %%1 = arith.addf %%in, "     \
    "%%o : f32\n  linalg.yield %%1 : f32\n}\n"

START_TEST(padded_offsets_widen_indices)
{
    static const long long rows[2] = {32767, 32766 - 3 * 16}; /* padded past 2^31; not */
    for (int i = 0; i < 2; i++) {
        char text[1024];
        snprintf(text, sizeof text, PADDED_TEXT, rows[i], rows[i]);
        ls_diag d;
        ls_module *m = load_text(text, &d);
        ck_assert_msg(d.status == LS_OK, "%s", d.msg);
        ls_derived *dv = ls_xcalloc(1, sizeof *dv);
        ls_plan plan;
        plan_nvidia(&m->problems[0], 32, dv, &plan);
        char *src = NULL;
        ls_cuda_launch L;
        ck_assert_msg(ls_cuda_generate(&plan, 0, "padded", &src, &L, &d) == LS_OK, "%s", d.msg);
        ck_assert_int_lt(L.input_elems[0], INT64_C(1) << 31);
        ck_assert_ptr_nonnull(strstr(src, i == 0 ? "typedef long long ls_idx_t"
                                                 : "typedef int ls_idx_t"));
        free(src);
        free(dv);
        free(m);
    }
}
END_TEST

START_TEST(refuses_what_it_cannot_emit)
{
    ls_diag d;
    ls_derived *dv = ls_xcalloc(1, sizeof *dv);
    ls_plan plan;
    char *src = NULL;
    ls_cuda_launch L;
    ls_module *m = load_text(matvec_text, &d);
    ck_assert_msg(d.status == LS_OK, "%s", d.msg);
    m->problems[0].inputs[1].type = LS_ET_F4E2M1FN;
    plan_nvidia(&m->problems[0], 64, dv, &plan);
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_cuda_generate(&plan, 0, "mv", &src, &L, &d), LS_ERR_INVALID);
    ck_assert_msg(strstr(d.msg, "input 1 is f4E2M1FN; the CUDA path reads f16, bf16, f32, f64, "
                                "the four f8 types, i4"),
                  "%s", d.msg);
    free(dv);
    free(m);
}
END_TEST

/* IREE's kernel computes a float min or max with the one PTX instruction
 * NVPTX lowers llvm.maxnum and (from sm_80) llvm.maximum to; the generated
 * kernel does the same on the GPU -- where the exact code, a compare and
 * two selects (-0 < +0, NaN rules), made a max row reduction's loop four
 * times longer in SASS -- and keeps the exact code for the emulation on
 * the CPU (its values, checked in emulated_matches_reference). */
START_TEST(min_max_as_iree_compiles)
{
    static const struct {
        const char *ty, *op, *src, *ptx;
    } cases[] = {{"f32", "arith.maxnumf", "return fmaxf(a, b);", "max.f32"},
                 {"f32", "arith.minimumf", "min.NaN.f32 %0, %1, %2;", "min.NaN.f32"},
                 {"f16", "arith.maximumf", "return __hmax_nan(a, b);", "max.NaN.f16"},
                 {"bf16", "arith.minnumf", "return __hmin(a, b);", "min.bf16"}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char text[2048];
        ls_derived *dv;
        ls_plan plan;
        ls_module *m = nvidia_plan_of(
            op_reduce_text(text, sizeof text, cases[c].ty, cases[c].op, 32, 8, 4), 32, &dv, &plan);
        char *src = NULL;
        ls_cuda_launch L;
        ls_diag d;
        ls_diag_clear(&d);
        ck_assert_int_eq(ls_cuda_generate(&plan, 0, "minmax", &src, &L, &d), LS_OK);
        ck_assert_msg(strstr(src, cases[c].src), "case %zu: no '%s'", c, cases[c].src);
        ck_assert_ptr_nonnull(strstr(src, "#ifdef __CUDA_ARCH__ /* IREE's instruction */"));
        ck_assert_ptr_nonnull(strstr(src, "#else /* the exact code: sim/value.c's */"));
        char *ptx = ptx_of(src, cases[c].op);
        if (ptx) {
            ck_assert_msg(count(ptx, cases[c].ptx) > 0, "case %zu: no %s", c, cases[c].ptx);
            ck_assert_int_eq(count(ptx, "setp.nan"), 0); /* the exact code's NaN tests */
            free(ptx);
        }
        free(src);
        free(dv);
        free(m);
    }
}
END_TEST

static Suite *make_suite(void)
{
    Suite *s = suite_create("cuda");
    TCase *tc = tcase_create("generator");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, hand_checked_kernel);
    /* early: registered last, its forked child's exit crashed LeakSanitizer's tracer
     * (signal 11 scanning NVRTC's dynamic TLS) under --enable-sanitizers -- the
     * sanitizer's fault, which the test's position avoids; without NVRTC (CI) moot */
    tcase_add_test(tc, min_max_as_iree_compiles);
    tcase_add_test(tc, rejections);
    tcase_add_test(tc, flush_kernel_compiles);
    tcase_add_test(tc, sabotage_is_caught);
    tcase_add_loop_test(tc, emulated_matches_reference, 0, LS_COMB_COUNT);
    tcase_add_test(tc, property_coverage);
    tcase_add_test(tc, matvec_kernel);
    tcase_add_test(tc, strided_map_kernel);
    tcase_add_test(tc, padded_offsets_widen_indices);
    tcase_add_test(tc, refuses_what_it_cannot_emit);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(make_suite)
