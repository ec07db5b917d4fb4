/* test_cuda_fused.c: a dispatch's loops as the one CUDA kernel
 * (src/cuda/codegen_fused.c), without a GPU: NVRTC compiles it with an
 * empty log where the build has the CUDA path, the emulator runs it, every
 * phase's output is checked (a reduction's against the reference, an
 * elementwise op's bit for bit against its body), and a sabotaged copy
 * must fail:
 *  - the decomposed softmax: the max, the sum reading the max, the divide
 *    reading both, three phases in one launch;
 *  - an RMSNorm reading x, its weight and its bias: two phases, three
 *    tensors;
 *  - random softmax configs (ragged thread tiles, several subgroups);
 *  - a row sum with an epilogue adding a bias: no loop, the sum's writers
 *    store body(sum, bias);
 *  - a reduction loop that also stores its producer: the producer's value
 *    written from the reduction's loop, as IREE writes it. */
#include "cuda_util.h"
#include "fused_util.h"

#define SM_RED_CFG                                                                               \
    "#iree_gpu.lowering_config<{workgroup = [1, 0], partial_reduction = [0, 512], thread = [0, " \
    "4], lane_basis = [[1, 32], [0, 1]], subgroup_basis = [[1, 4], [0, 1]]}>"
#define SM_EW_CFG                                                                                \
    "#iree_gpu.lowering_config<{serial = [0, 512], thread = [0, 4], lane_basis = [[1, 32], [0, " \
    "1]], subgroup_basis = [[1, 4], [0, 1]]}>"

static char *generate(const kernel *k, ls_cuda_fused_launch *L)
{
    ls_diag d;
    ls_diag_clear(&d);
    char *src = NULL;
    ck_assert_msg(ls_cuda_generate_fused(&k->k, NULL, "test", &src, L, &d) == LS_OK, "%s", d.msg);
    return src;
}

/* Emulated as generated: every phase's outputs checked, as many as want[]. */
static void emulate_ok(const kernel *k, const char *src, const ls_cuda_fused_launch *L,
                       uint64_t seed, const int64_t *want)
{
    ls_diag d;
    ls_diag_clear(&d);
    ls_cuda_fused_check chk;
    ck_assert_msg(ls_cuda_emulate_fused_source(&k->k, src, L, seed, &chk, &d) == LS_OK, "%s",
                  d.msg);
    for (int i = 0; i < k->k.n_phases; i++)
        REQUIRE(chk.checked[i] == want[i], "phase %d: %lld outputs checked, want %lld", i,
                (long long)chk.checked[i], (long long)want[i]);
}

/* good replaced by bad (same length) must fail the check with msg. */
static void sabotaged_fails(const kernel *k, char *src, const ls_cuda_fused_launch *L,
                            const char *good, const char *bad, const char *msg)
{
    char *at = strstr(src, good);
    ck_assert_msg(at != NULL, "no '%s' in the source", good);
    ck_assert_uint_eq(strlen(good), strlen(bad));
    memcpy(at, bad, strlen(bad));
    ls_diag d;
    ls_diag_clear(&d);
    ls_cuda_fused_check chk;
    ck_assert_int_eq(ls_cuda_emulate_fused_source(&k->k, src, L, 5, &chk, &d), LS_ERR_INVALID);
    ck_assert_msg(strstr(d.msg, msg) != NULL, "'%s' does not say '%s'", d.msg, msg);
    memcpy(at, good, strlen(good));
}

START_TEST(softmax_one_kernel)
{
    char ir[8192];
    softmax_ir(ir, sizeof ir, SM_RED_CFG, SM_RED_CFG, SM_EW_CFG);
    kernel *k = kernel_of(ir, "h100");
    ck_assert_msg(k->fused, "%s", k->why);
    char why[512];
    ck_assert_msg(ls_cuda_fused_supported(&k->k, why, sizeof why), "%s", why);
    ls_cuda_fused_launch L;
    char *src = generate(k, &L);
    /* one launch of the reductions' grid, x its only tensor, a buffer per phase */
    ck_assert_int_eq(L.grid[0], 64);
    ck_assert_int_eq(L.block[0], 128);
    ck_assert_int_eq(L.n_inputs, 1);
    ck_assert_int_eq(L.n_outputs, 3);
    ck_assert_int_eq(L.output_elems[0], 64);
    ck_assert_int_eq(L.output_elems[1], 64);
    ck_assert_int_eq(L.output_elems[2], 64 * 4096);
    ck_assert_int_eq(L.out_bytes, (64 + 64 + 64 * 4096) * 4);
    ck_assert_int_eq(count(src, "\nnamespace ls_ph"), 3);
    ck_assert_int_eq(count(src, "__global__"), 1);
    /* the sum reads the max, the divide both: a barrier before each */
    ck_assert_int_eq(count(src, "__syncthreads(); /* phase"), 2);
    ck_assert_ptr_nonnull(strstr(src, "(const ls_ph1::ls_in1_t *)r0"));
    ck_assert_ptr_nonnull(strstr(src, "(const ls_ph2::ls_in1_t *)r0, (const ls_ph2::ls_in2_t *)r1"));
    /* the divide stores each element, no combine and no shuffle */
    const char *ew = strstr(src, "namespace ls_ph2");
    ck_assert_ptr_nonnull(ew);
    ck_assert_ptr_null(strstr(ew, "ls_combine("));
    ck_assert_int_ge(count(ew, "out[oo + "), 4);
    char *ptx = ptx_of(src, "softmax one kernel");
    if (ptx) {
        /* the results are read after the barrier that follows their store */
        const char *st = strstr(ptx, "st.global.f32");
        ck_assert_ptr_nonnull(st);
        const char *bar = strstr(st, "bar.sync");
        const char *ld = strstr(st, "ld.global.f32");
        ck_assert_msg(bar && ld && bar < ld, "a result is read before the barrier");
        free(ptx);
    }
    const int64_t want[] = {64, 64, 64 * 4096};
    emulate_ok(k, src, &L, 3, want);
    /* the divide by the max instead of the sum; the sum reading its own
     * (poisoned) buffer as the max */
    sabotaged_fails(k, src, &L, "(const ls_ph2::ls_in2_t *)r1", "(const ls_ph2::ls_in2_t *)r0",
                    "but its body gives");
    sabotaged_fails(k, src, &L, "(const ls_ph1::ls_in1_t *)r0", "(const ls_ph1::ls_in1_t *)r1",
                    "the generated kernel's output");
    free(src);
    kernel_free(k);
}
END_TEST

/* RMSNorm: x loaded by both loops, g and b by the second, the sum of
 * squares from the first phase's buffer. */
START_TEST(rmsnorm_one_kernel)
{
    kernel *k = heuristic_kernel(RMSNORM_OPS, STORE_FULL("%y"));
    ck_assert_msg(k->fused, "%s", k->why);
    ls_cuda_fused_launch L;
    char *src = generate(k, &L);
    ck_assert_int_eq(L.n_inputs, 3);
    ck_assert_int_eq(L.input_elems[0], 64 * 4096);
    ck_assert_int_eq(L.input_elems[1], 4096);
    ck_assert_int_eq(L.input_elems[2], 4096);
    ck_assert_int_eq(L.n_outputs, 2);
    ck_assert_int_eq(count(src, "__syncthreads(); /* phase"), 1);
    char *ptx = ptx_of(src, "rmsnorm one kernel");
    free(ptx);
    const int64_t want[] = {64, 64 * 4096};
    emulate_ok(k, src, &L, 9, want);
    /* the bias read as the weight */
    sabotaged_fails(k, src, &L, "(const ls_ph1::ls_in3_t *)in2", "(const ls_ph1::ls_in3_t *)in1",
                    "but its body gives");
    free(src);
    kernel_free(k);
}
END_TEST

/* Random NVIDIA configs of the softmax: threads' tiles 1..8, lanes split
 * over rows and columns, 1..4 subgroups; each kernel emulated and checked. */
START_TEST(random_softmax_configs)
{
    uint64_t rng = 0xc0da5eedull;
    int ran = 0;
    for (int trial = 0; trial < 40 && ran < 5; trial++) {
        int64_t lr, sgs;
        char red[400], ir[8192];
        if (!random_softmax(&rng, 32, ir, sizeof ir, red, sizeof red, &lr, &sgs))
            continue;
        kernel *k = kernel_of(ir, "h100");
        REQUIRE(k->fused, "trial %d (%s): not one kernel: %s", trial, red, k->why);
        ls_cuda_fused_launch L;
        char *src = generate(k, &L);
        REQUIRE(L.grid[0] == 64 / lr && L.block[0] == 32 * sgs, "trial %d (%s): grid %u block %u",
                trial, red, L.grid[0], L.block[0]);
        const int64_t want[] = {64, 64, 64 * 4096};
        emulate_ok(k, src, &L, (uint64_t)trial + 1, want);
        free(src);
        kernel_free(k);
        ran++;
    }
    ck_assert_int_eq(ran, 5);
}
END_TEST

/* An elementwise op on the reductions' results and a bias over the rows
 * is an epilogue: no loop; the threads that store the sum add each row's
 * bias to their result slots and store that.  Reading the epilogue's own
 * (poisoned) buffer as the sum must fail. */
START_TEST(epilogue_one_kernel)
{
    kernel *k = heuristic_kernel(BIAS_EPILOGUE_OPS, STORE_ROWS("%y"));
    ck_assert_msg(k->fused, "%s", k->why);
    ck_assert(k->k.phase[1].epilogue);
    char why[512];
    ck_assert_msg(ls_cuda_fused_supported(&k->k, why, sizeof why), "%s", why);
    ls_cuda_fused_launch L;
    char *src = generate(k, &L);
    ck_assert_int_eq(L.n_inputs, 2);
    ck_assert_int_eq(L.input_elems[1], 64);
    ck_assert_int_eq(L.n_outputs, 2);
    ck_assert_int_eq(L.output_elems[1], 64);
    const char *ep = strstr(src, "\nnamespace ls_ph1");
    ck_assert_ptr_nonnull(ep);
    ck_assert_ptr_nonnull(strstr(ep, "[epilogue] the body on each result slot"));
    ck_assert_ptr_null(strstr(ep, "for (")); /* no loop */
    /* one store per result slot the sum's writers hold */
    ck_assert_int_eq(count(ep, "out[oo + "), (int)k->plans[0].results_per_thread);
    char *ptx = ptx_of(src, "epilogue one kernel");
    free(ptx);
    const int64_t want[] = {64, 64};
    emulate_ok(k, src, &L, 4, want);
    sabotaged_fails(k, src, &L, "(const ls_ph1::ls_in0_t *)r0", "(const ls_ph1::ls_in0_t *)r1",
                    "but its body gives");
    free(src);
    kernel_free(k);
}
END_TEST

/* A row sum of y = 2x whose dispatch also stores y: IREE writes y's tile
 * from the sum's loop, and so does the kernel -- one phase, x read once,
 * y checked bit for bit against the producer's body.  A register's store
 * sent to its neighbour's element must fail. */
START_TEST(stored_producer_one_kernel)
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
    char why[512];
    ck_assert_msg(ls_cuda_fused_supported(&k->k, why, sizeof why), "%s", why);
    ls_cuda_fused_launch L;
    char *src = generate(k, &L);
    ck_assert_int_eq(L.n_inputs, 1);
    ck_assert_int_eq(L.n_outputs, 2);
    ck_assert_int_eq(L.producer_output[0], 1);
    ck_assert_int_eq(L.output_elems[1], 64 * 4096);
    /* its definition, and a call per register a thread holds an iteration */
    ck_assert_int_eq(count(src, "ls_prod("), 1 + (int)k->d[0].elems_per_iteration);
    char *ptx = ptx_of(src, "stored producer one kernel");
    free(ptx);
    ls_diag d;
    ls_diag_clear(&d);
    ls_cuda_fused_check chk;
    ck_assert_msg(ls_cuda_emulate_fused_source(&k->k, src, &L, 6, &chk, &d) == LS_OK, "%s", d.msg);
    ck_assert_int_eq(chk.checked[0], 64);
    ck_assert_int_eq(chk.producer_checked[0], 64 * 4096);
    sabotaged_fails(k, src, &L, "outp[op + 1] = ", "outp[op + 0] = ", "but its body gives");
    free(src);
    kernel_free(k);
}
END_TEST

/* A norm over NHWC images of 3 channels (tests/data; test_fused.c times
 * it): IREE lays the normalisation out on its own, one element on lane 0
 * of subgroup 0, and so does the kernel -- its loop over 8192 x 3
 * elements run by every thread, written by the first (ls_first), x read
 * again through input 0's buffer.  Its two sums swapped must fail its
 * check. */
START_TEST(own_layout_norm_one_kernel)
{
    kernel *k = nhwc_norm_kernel();
    ck_assert(k->k.phase[2].own_layout);
    char why[512];
    ck_assert_msg(ls_cuda_fused_supported(&k->k, why, sizeof why), "%s", why);
    ls_cuda_fused_launch L;
    char *src = generate(k, &L);
    ck_assert_int_eq(L.n_inputs, 3);
    ck_assert_int_eq(L.input_alias[0], -1);
    ck_assert_int_eq(L.input_alias[1], 0); /* %x again */
    ck_assert_int_eq(L.input_alias[2], -1);
    ck_assert_int_eq(L.input_elems[1], 4 * 8192 * 3);
    ck_assert_int_eq(L.in_bytes, 4 * 8192 * 3 * 2 + 3 * 2); /* x once, gamma */
    ck_assert_ptr_nonnull(strstr(src, "input 1: %x again, read in another phase's loops"));
    const char *ph2 = strstr(src, "\nnamespace ls_ph2");
    ck_assert_ptr_nonnull(ph2);
    ck_assert_ptr_nonnull(strstr(ph2, "const bool ls_first = (sg == 0) && (lane == 0);"));
    ck_assert_ptr_nonnull(strstr(ph2, "for (int it = 0; it < 24576; ++it)"));
    ck_assert_int_eq(count(ph2, "if (ls_first)"), 1);
    /* the reductions' layouts span every thread: no guard there */
    ck_assert_int_eq(count(src, "ls_first"), 2);
    char *ptx = ptx_of(src, "own-layout norm one kernel");
    free(ptx);
    const int64_t want[] = {4, 4, 4 * 8192 * 3};
    emulate_ok(k, src, &L, 3, want);
    /* the two sums swapped (both of 4 elements, read at the image) */
    sabotaged_fails(k, src, &L, "in1[o1 + 0], in2[o2 + 0]", "in2[o1 + 0], in1[o2 + 0]",
                    "but its body gives");
    free(src);
    kernel_free(k);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *s = suite_create("cuda_fused");
    TCase *tc = tcase_create("generator");
    tcase_set_timeout(tc, 900);
    tcase_add_test(tc, softmax_one_kernel);
    tcase_add_test(tc, rmsnorm_one_kernel);
    tcase_add_test(tc, random_softmax_configs);
    tcase_add_test(tc, epilogue_one_kernel);
    tcase_add_test(tc, stored_producer_one_kernel);
    tcase_add_test(tc, own_layout_norm_one_kernel);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(make_suite)
