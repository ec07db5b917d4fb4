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
 *  - AMD plans and subgroup size 64 are refused with the reason. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanescope/measure.h"
#include "testutil.h"

static ls_nvrtc *nvrtc(void)
{
    static ls_nvrtc *n;
    static bool tried;
    if (!tried) {
        ls_diag d;
        ls_diag_clear(&d);
        tried = true;
        if (ls_nvrtc_open(&n, &d) != LS_OK) {
            /* a build with the CUDA path must find NVRTC; one without skips */
            ck_assert_msg(!ls_cuda_built(), "NVRTC not found in a CUDA build: %s", d.msg);
            fprintf(stderr, "test_cuda: %s -- NVRTC checks skipped\n", d.msg);
        }
    }
    return n;
}

/* Compile to PTX; the log must be empty.  Returns the PTX (caller frees) or NULL. */
static char *ptx_of(const char *src, const char *what)
{
    ls_nvrtc *n = nvrtc();
    if (!n)
        return NULL;
    char *ptx = NULL, *log = NULL;
    size_t size;
    ls_diag d;
    ls_diag_clear(&d);
    ls_status st = ls_nvrtc_compile(n, src, "kernel.cu", "sm_90", false, &ptx, &size, &log, &d);
    if (st != LS_OK || !log || log[0]) { /* Check's messages are short: the details go here */
        fprintf(stderr, "--- %s: NVRTC log:\n%s\n--- source:\n%s\n", what, log ? log : d.msg,
                src);
        ck_abort_msg("%s: NVRTC %s (log and source on stderr)", what,
                     st != LS_OK ? "failed" : "warned");
    }
    free(log);
    return ptx;
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *s = strstr(hay, needle); s; s = strstr(s + 1, needle))
        n++;
    return n;
}

typedef struct {
    ls_module *m;
    ls_derived d;
    ls_plan plan;
} loaded;

static void load_plan(loaded *x, const char *example, const char *arch)
{
    ls_diag d;
    x->m = load_example(example, &d);
    ck_assert_msg(d.status == LS_OK, "%s", d.msg);
    ck_assert_uint_ge(x->m->n_problems, 1);
    ls_problem *p = &x->m->problems[0];
    ck_assert_int_eq(ls_derive(p, &x->d, &d), LS_OK);
    ck_assert_int_eq(ls_plan_build(p, &x->d, ls_plan_target_from_arch(arch), &x->plan, &d), LS_OK);
}

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
    ck_assert_int_eq(ls_cuda_generate(&x.plan, "h100_rowsum_f16_2048x8192.mlir", &src, &L, &d),
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
    ck_assert_int_eq(ls_cuda_generate(&x.plan, "ex2", &src, &L, &d), LS_ERR_INVALID);
    ck_assert_ptr_nonnull(strstr(d.msg, "AMD target"));
    ck_assert_ptr_null(src);
    free(x.m);
    /* the same config lowered as for NVIDIA still has 64-lane subgroups */
    load_plan(&x, "seed000_example2.mlir", "sm_90");
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_cuda_generate(&x.plan, "ex2", &src, &L, &d), LS_ERR_INVALID);
    ck_assert_ptr_nonnull(strstr(d.msg, "subgroup size is 64"));
    free(x.m);
}
END_TEST

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
    ck_assert_int_eq(ls_cuda_generate(&x.plan, "small", &src, &L, &d), LS_OK);
    int64_t checked;
    double ratio;
    ls_input_source in = {5, NULL, {NULL}};
    ck_assert_msg(ls_cuda_emulate_source(&x.plan, src, &L, in, &checked, &ratio, &d) == LS_OK,
                  "%s", d.msg);
    ck_assert_int_eq(checked, 4);
    char *bad = strstr(src, "ls_shfl_xor(res[q], 16)");
    ck_assert_ptr_nonnull(bad);
    memcpy(bad, "ls_shfl_xor(res[q],  8)", strlen("ls_shfl_xor(res[q],  8)"));
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_cuda_emulate_source(&x.plan, src, &L, in, &checked, &ratio, &d),
                     LS_ERR_INVALID);
    ck_assert_ptr_nonnull(strstr(d.msg, "the generated kernel's output"));
    /* and the host check itself rejects a poisoned buffer */
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
        ls_status gs = ls_cuda_generate(&plan, "random", &src, &L, &dg);
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
        ls_status gs = ls_cuda_generate(&plan, "random", &src, &L, &dg);
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

static Suite *make_suite(void)
{
    Suite *s = suite_create("cuda");
    TCase *tc = tcase_create("generator");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, hand_checked_kernel);
    tcase_add_test(tc, rejections);
    tcase_add_test(tc, flush_kernel_compiles);
    tcase_add_test(tc, sabotage_is_caught);
    tcase_add_loop_test(tc, emulated_matches_reference, 0, LS_COMB_COUNT);
    tcase_add_test(tc, property_coverage);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(make_suite)
