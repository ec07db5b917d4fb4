/* test_cuda_argcmp.c: iree_linalg_ext.arg_compare through the CUDA
 * generator, without a GPU.
 *  - every form (the ballot path with and without U, the butterfly, the
 *    explicit index input, i64 indices, several rows per workgroup, a
 *    ragged tail, a cross-subgroup merge) compiles with NVRTC to PTX with an
 *    empty log and, emulated on the CPU, gives (value, index) pairs that the
 *    host check accepts against the op's scalar semantics;
 *  - on planted ties the kernel picks the index the simulator's lanes pick
 *    (sim/argcmp.c), which is not the scalar loop's: the generator breaks
 *    ties where IREE's lowering does, bit for bit with the functional model;
 *  - a sabotaged ballot (the winner's lane replaced by lane 0) and a
 *    poisoned index fail the check;
 *  - hand-derived facts: one __ballot_sync and one index shuffle per lane
 *    combine, both buffers' sizes equal to the plan's;
 *  - 64-bit values (f64, i64), which IREE sends to TileAndFuse on NVIDIA,
 *    for arg_compare and plain reductions alike. */
#include "lanescope/functional.h"
#include "lanescope/suggest.h"
#include "cuda_util.h"

typedef struct {
    const char *vt, *it;     /* value and index element types */
    int rows, n, wg;
    const char *config;
    const char *cmp;         /* the comparator's body, %a and %b in, %c the i1 */
    const char *init;        /* the value init literal */
    bool explicit_index;
} form;

/* The dispatch text of form f. */
static void text_of(const form *f, char *buf, size_t size)
{
    char ins[256];
    if (f->explicit_index)
        snprintf(ins, sizeof ins, "%%in, %%idx : tensor<%dx%dx%s>, tensor<%dx%dxi32>", f->rows,
                 f->n, f->vt, f->rows, f->n);
    else
        snprintf(ins, sizeof ins, "%%in : tensor<%dx%dx%s>", f->rows, f->n, f->vt);
    snprintf(buf, size,
             "func.func @t() attributes {translation_info = #iree_codegen.translation_info<"
             "pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [%d, 1, 1] "
             "subgroup_size = 32>} {\n"
             "  %%cst = arith.constant %s : %s\n"
             "  %%zero = arith.constant 0 : %s\n"
             "  %%in = tensor.empty() : tensor<%dx%dx%s>\n"
             "  %%idx = tensor.empty() : tensor<%dx%dxi32>\n"
             "  %%e0 = tensor.empty() : tensor<%dx%s>\n"
             "  %%e1 = tensor.empty() : tensor<%dx%s>\n"
             "  %%f0 = linalg.fill ins(%%cst : %s) outs(%%e0 : tensor<%dx%s>) -> tensor<%dx%s>\n"
             "  %%f1 = linalg.fill ins(%%zero : %s) outs(%%e1 : tensor<%dx%s>) -> tensor<%dx%s>\n"
             "  %%r:2 = iree_linalg_ext.arg_compare {lowering_config = %s} dimension(1)\n"
             "    ins(%s) outs(%%f0, %%f1 : tensor<%dx%s>, tensor<%dx%s>) {\n"
             "  ^bb0(%%a: %s, %%b: %s):\n%s\n"
             "    iree_linalg_ext.yield %%c : i1\n"
             "  } -> tensor<%dx%s>, tensor<%dx%s>\n"
             "  return\n}\n",
             f->wg, f->init, f->vt, f->it, f->rows, f->n, f->vt, f->rows, f->n, f->rows, f->vt,
             f->rows, f->it, f->vt, f->rows, f->vt, f->rows, f->vt, f->it, f->rows, f->it, f->rows,
             f->it, f->config, ins, f->rows, f->vt, f->rows, f->it, f->vt, f->vt, f->cmp, f->rows,
             f->vt, f->rows, f->it);
}

typedef struct {
    ls_module *m;
    ls_derived d;
    ls_plan plan;
    char *src;
    ls_cuda_launch L;
} generated;

static void generate(const form *f, generated *g)
{
    char text[4096];
    text_of(f, text, sizeof text);
    ls_diag d;
    g->m = load_text(text, &d);
    ck_assert_msg(d.status == LS_OK && g->m->n_problems == 1, "%s", d.msg);
    ls_problem *p = &g->m->problems[0];
    ck_assert(p->argcmp.on);
    ck_assert_msg(ls_derive(p, &g->d, &d) == LS_OK, "%s", d.msg);
    ck_assert_msg(ls_plan_build(p, &g->d, ls_plan_target_from_arch("sm_90"), &g->plan, &d) == LS_OK,
                  "%s", d.msg);
    ck_assert_msg(ls_cuda_generate(&g->plan, 0, "argcmp", &g->src, &g->L, &d) == LS_OK, "%s",
                  d.msg);
}

static void release(generated *g)
{
    free(g->src);
    free(g->m);
}

#define OGT_F32 "    %c = arith.cmpf ogt, %a, %b : f32"
#define NINF_F32 "0xFF800000"
/* one row per workgroup, 64 lanes of 4 over 2 subgroups: chunk 256 */
#define CFG_ROW(chunk, thr, lanes, sgs)                                                          \
    "#iree_gpu.lowering_config<{workgroup = [1, 0], partial_reduction = [0, " #chunk "], "       \
    "thread = [0, " #thr "], lane_basis = [[1, " #lanes "], [0, 1]], subgroup_basis = [[1, " #sgs \
    "], [0, 1]]}>"

static const form forms[] = {
    /* ballot, no U, one subgroup: no buffers */
    {"f32", "i32", 4, 64, 32, CFG_ROW(64, 2, 32, 1), OGT_F32, NINF_F32, false},
    /* ballot across 2 subgroups, a ragged tail (1000 = 3 x 256 + 232) */
    {"f32", "i32", 3, 1000, 64, CFG_ROW(256, 4, 32, 2), OGT_F32, NINF_F32, false},
    /* argmin of f16 with i64 indices, 4 subgroups */
    {"f16", "i64", 2, 512, 128, CFG_ROW(512, 4, 32, 4),
     "    %c = arith.cmpf olt, %a, %b : f16", "0x7C00", false},
    /* U = absf on the ballot path (the value shuffled from the winner too) */
    {"f32", "i32", 2, 256, 64, CFG_ROW(256, 4, 32, 2),
     "    %x = math.absf %a : f32\n    %y = math.absf %b : f32\n"
     "    %c = arith.cmpf ogt, %x, %y : f32",
     "0x00000000", false},
    /* a comparator with no reduction kind: the butterfly (squares tie -v and v) */
    {"f32", "i32", 2, 256, 64, CFG_ROW(256, 4, 32, 2),
     "    %x = arith.mulf %a, %a : f32\n    %y = arith.mulf %b, %b : f32\n"
     "    %c = arith.cmpf ogt, %x, %y : f32",
     "0x00000000", false},
    /* integers: cmpi sgt (maxsi) on i32 */
    {"i32", "i32", 3, 128, 32, CFG_ROW(128, 4, 32, 1), "    %c = arith.cmpi sgt, %a, %b : i32",
     "-2147483648", false},
    /* explicit indices read with the values */
    {"f32", "i32", 2, 512, 64, CFG_ROW(512, 4, 32, 2), OGT_F32, NINF_F32, true},
    /* two rows per workgroup, neither lanes nor subgroups on them: each
     * thread holds two result slots (batch 2), merged and shuffled apart */
    {"f32", "i32", 4, 256, 32,
     "#iree_gpu.lowering_config<{workgroup = [2, 0], partial_reduction = [0, 128], thread = [0, 4], "
     "lane_basis = [[1, 32], [0, 1]], subgroup_basis = [[1, 1], [0, 1]]}>",
     OGT_F32, NINF_F32, false},
    /* two rows per workgroup, one per subgroup */
    {"i32", "i64", 4, 200, 64,
     "#iree_gpu.lowering_config<{workgroup = [2, 0], partial_reduction = [0, 128], thread = [0, 4], "
     "lane_basis = [[1, 32], [0, 1]], subgroup_basis = [[2, 1], [0, 1]]}>",
     "    %c = arith.cmpi ult, %a, %b : i32", "-1", false},
    /* two rows per workgroup, 16 lanes each: a reduction cluster of 16,
     * IREE's ballot hazard (the second row takes the first row's winner
     * lane) */
    {"f32", "i32", 4, 128, 32,
     "#iree_gpu.lowering_config<{workgroup = [2, 0], partial_reduction = [0, 64], thread = [0, 4], "
     "lane_basis = [[2, 16], [0, 1]], subgroup_basis = [[1, 1], [0, 1]]}>",
     OGT_F32, NINF_F32, false},
};

/* Each form: NVRTC compiles it silently, and the emulated pairs check. */
START_TEST(forms_compile_and_check)
{
    const form *f = &forms[_i];
    generated g;
    generate(f, &g);
    char what[64];
    snprintf(what, sizeof what, "arg_compare form %d", _i);
    free(ptx_of(g.src, what));
    int64_t checked;
    double ratio;
    ls_diag d;
    ls_diag_clear(&d);
    ls_input_source in = {11, NULL, {NULL}};
    ls_status st = ls_cuda_emulate_source(&g.plan, g.src, &g.L, in, &checked, &ratio, &d);
    if (g.plan.hazard_cluster) {
        /* IREE's ballot hazard (plan.h): the simulator's lanes and the
         * kernel take the same wrong winner for the same first output */
        ls_functional_result fr;
        ls_diag fd;
        ls_diag_clear(&fd);
        ck_assert_int_eq(ls_functional_run(&g.plan, in, 0, -1, &fr, &fd), LS_ERR_INVALID);
        ck_assert_int_eq(st, LS_ERR_INVALID);
        char want[256];
        snprintf(want, sizeof want, "output [%lld] is (value %s", (long long)fr.bad_output[0],
                 fr.bad_sim + 1);
        *strchr(want, ',') = 0;
        ck_assert_msg(strstr(d.msg, want) != NULL, "%s: '%s' vs the lanes' %s", what, d.msg,
                      fr.bad_sim);
        char idx[256];
        snprintf(idx, sizeof idx, "index %s", strchr(fr.bad_sim, ',') + 2);
        *strchr(idx, ')') = 0;
        ck_assert_msg(strstr(d.msg, idx) != NULL, "%s: '%s' vs the lanes' %s", what, d.msg,
                      fr.bad_sim);
        release(&g);
        return;
    }
    if (st != LS_OK)
        fprintf(stderr, "--- %s:\n%s\n", what, g.src);
    ck_assert_msg(st == LS_OK, "%s: %s", what, d.msg);
    ck_assert_int_eq(checked, f->rows);
    /* the buffers are the plan's */
    if (g.plan.cross_subgroup)
        ck_assert_int_eq(g.L.smem_bytes, g.plan.buffer_bytes + g.plan.index_buffer_bytes);
    else
        ck_assert_int_eq(g.L.smem_bytes, 0);
    /* one ballot (or none, on the butterfly) per lane combine of each result slot */
    int64_t combines = (g.plan.n_subgroup_reduces + (g.plan.cross_subgroup && g.plan.read_cluster > 1)) *
                       g.plan.results_per_thread;
    ck_assert_int_eq(count(g.src, "__ballot_sync(0xffffffffu"), g.plan.ballot ? combines : 0);
    ck_assert_int_eq(count(g.src, "= ls_shfl_idx_i("), g.plan.ballot ? combines : 0);
    /* the butterfly: a pair exchange per step */
    int64_t steps = g.plan.cross_subgroup && g.plan.read_cluster > 1 ? g.plan.cross_reduce.n_steps : 0;
    for (int k = 0; k < g.plan.n_subgroup_reduces; k++)
        steps += g.plan.subgroup_reduces[k].n_steps;
    ck_assert_int_eq(count(g.src, "const ls_ix_t pi = ls_shfl_xor_i("),
                     g.plan.ballot ? 0 : steps * g.plan.results_per_thread);
    release(&g);
}
END_TEST

/* The forms cover the paths named in the file comment. */
START_TEST(forms_cover_the_paths)
{
    int ballot = 0, butterfly = 0, cross = 0, u = 0, wide = 0, expl = 0, multi = 0, slots = 0;
    int hazard = 0;
    for (size_t k = 0; k < sizeof forms / sizeof forms[0]; k++) {
        generated g;
        generate(&forms[k], &g);
        ballot += g.plan.ballot;
        butterfly += !g.plan.ballot;
        cross += g.plan.cross_subgroup;
        u += g.plan.ballot && g.m->problems[0].argcmp.transform >= 0;
        wide += g.L.index_elem_bytes == 8;
        expl += g.m->problems[0].argcmp.explicit_index;
        multi += g.d.wg_tile[0] > 1 && !g.plan.hazard_cluster;
        slots += g.plan.results_per_thread > 1;
        hazard += g.plan.hazard_cluster;
        release(&g);
    }
    ck_assert_int_ge(ballot, 5);
    ck_assert_int_ge(butterfly, 1);
    ck_assert_int_ge(cross, 4);
    ck_assert_int_ge(u, 1);
    ck_assert_int_ge(wide, 1);
    ck_assert_int_ge(expl, 1);
    ck_assert_int_ge(multi, 2);
    ck_assert_int_ge(slots, 1);
    ck_assert_int_eq(hazard, 1);
}
END_TEST

/* The output's index of row 0, emulated. */
static ls_value emulated_index(const generated *g, ls_input_source in)
{
    void *out = NULL;
    ls_diag d;
    ls_diag_clear(&d);
    ck_assert_msg(ls_cuda_emulate_output(&g->plan, g->src, &g->L, in, &out, &d) == LS_OK, "%s",
                  d.msg);
    unsigned int idx;
    memcpy(&idx, (unsigned char *)out + g->L.index_offset, sizeof idx);
    free(out);
    return idx;
}

/* 1 x 8192 f32 in 32 subgroups x 32 lanes x 4: 2 iterations, slot j =
 * position mod 4096 (lane (j / 4) % 32, subgroup j / 128).  Equal maxima at
 * 5 (iteration 0, register 1) and 4100 (iteration 1, register 0), both lane
 * 1's: the merge takes register 0 first, so 4100 wins, where the scalar
 * loop keeps 5. */
START_TEST(ties_break_as_the_lanes_do)
{
    form f = {"f32", "i32", 1, 8192, 1024, CFG_ROW(4096, 4, 32, 32), OGT_F32, NINF_F32, false};
    generated g;
    generate(&f, &g);
    ck_assert(g.plan.ballot && g.plan.iterations == 2 && g.plan.cross_subgroup);
    ls_value *x = ls_xcalloc(8192, sizeof *x);
    for (int k = 0; k < 8192; k++)
        x[k] = ls_value_from_double(0, LS_ET_F32);
    x[5] = x[4100] = ls_value_from_double(5, LS_ET_F32);
    ls_input_source in = {1, NULL, {x, NULL}};
    ck_assert_int_eq((int64_t)emulated_index(&g, in), 4100);
    /* the simulator's lanes agree, the scalar loop does not */
    ls_functional_result fr;
    ls_diag d;
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_functional_run(&g.plan, in, 0, -1, &fr, &d), LS_OK);
    ck_assert_int_eq(fr.index_ties, 1);
    ls_value rv, ri;
    int64_t out0[1] = {0};
    ls_argcmp_reference(&g.m->problems[0], in, out0, &rv, &ri);
    ck_assert_int_eq((int64_t)ri, 5);
    /* maxima in two subgroups (1000: slot 1000, subgroup 7; 4200: slot
     * 104, subgroup 0): one lane of the second merge per slot, the ballot
     * takes the lowest lane, so subgroup 0's 4200 wins; the scalar loop
     * keeps 1000 */
    x[5] = x[4100] = ls_value_from_double(0, LS_ET_F32);
    x[1000] = x[4200] = ls_value_from_double(7, LS_ET_F32);
    ck_assert_int_eq((int64_t)emulated_index(&g, in), 4200);
    ls_argcmp_reference(&g.m->problems[0], in, out0, &rv, &ri);
    ck_assert_int_eq((int64_t)ri, 1000);
    free(x);
    release(&g);
}
END_TEST

/* A ballot that always takes lane 0, and an index the kernel never wrote,
 * must both fail the check. */
START_TEST(sabotage_is_caught)
{
    generated g;
    generate(&forms[1], &g);
    emulate_then_sabotage(&g.plan, g.src, &g.L, 3, 3,
                          "const int w = mask ? __ffs((int)mask) - 1 : 0;",
                          "const int w = mask ? 0                    : 0;");
    release(&g);
    generate(&forms[0], &g);
    void *out = NULL;
    ls_diag d;
    ls_diag_clear(&d);
    ls_input_source in = {5, NULL, {NULL}};
    ck_assert_int_eq(ls_cuda_emulate_output(&g.plan, g.src, &g.L, in, &out, &d), LS_OK);
    int64_t checked;
    double ratio;
    ck_assert_int_eq(ls_cuda_check_output(&g.plan, in, out, &checked, &ratio, &d), LS_OK);
    ck_assert_int_eq(checked, 4);
    memset((unsigned char *)out + g.L.index_offset + 4, 0xa5, 4); /* row 1's index */
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_cuda_check_output(&g.plan, in, out, &checked, &ratio, &d), LS_ERR_INVALID);
    ck_assert_msg(strstr(d.msg, "output [1] is (value") != NULL, "%s", d.msg);
    free(out);
    release(&g);
}
END_TEST

/* What it still refuses, with the reason: an index input of i64. */
START_TEST(refusals)
{
    form f = forms[6];
    generated g;
    char text[4096];
    text_of(&f, text, sizeof text);
    ls_diag d;
    g.m = load_text(text, &d);
    ck_assert_msg(d.status == LS_OK, "%s", d.msg);
    ls_problem *p = &g.m->problems[0];
    p->inputs[1].type = LS_ET_I64;
    ck_assert_int_eq(ls_derive(p, &g.d, &d), LS_OK);
    ck_assert_int_eq(ls_plan_build(p, &g.d, ls_plan_target_from_arch("sm_90"), &g.plan, &d), LS_OK);
    char *src = NULL;
    ls_cuda_launch L;
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_cuda_generate(&g.plan, 0, "argcmp", &src, &L, &d), LS_ERR_INVALID);
    ck_assert_msg(strstr(d.msg, "the explicit index input is i64") != NULL, "%s", d.msg);
    ck_assert_ptr_null(src);
    free(g.m);
}
END_TEST

/* 64-bit values on NVIDIA: IREE's reduction heuristic and arg_compare
 * config refuse them there (shuffles are 32 bits), so they take
 * TileAndFuse, where no lane exchanges a value; the generator emits them in
 * double / unsigned long long.  The dispatches are IREE's own
 * (LLVMGPU/test/ROCDL/config_argcompare.mlir @argcompare_f64_fallback,
 * @argcompare_1d_i64; LLVMGPU/test/config_vector_distribute_sm80.mlir
 * @reduction_f64_sm80_no_vector_distribute), shrunk, each with IREE's
 * TileAndFuse config applied as `sim` applies it. */
static const char *wide_texts[] = {
    "func.func @argcompare_f64_fallback(%input: tensor<8x256xf64>, %out_val: tensor<8xf64>, "
    "%out_idx: tensor<8xi32>) -> (tensor<8xf64>, tensor<8xi32>) {\n"
    "  %0:2 = iree_linalg_ext.arg_compare dimension(1) ins(%input : tensor<8x256xf64>)\n"
    "    outs(%out_val, %out_idx : tensor<8xf64>, tensor<8xi32>) {\n"
    "    ^bb0(%a: f64, %b: f64):\n      %cmp = arith.cmpf ogt, %a, %b : f64\n"
    "      iree_linalg_ext.yield %cmp : i1\n  } -> tensor<8xf64>, tensor<8xi32>\n"
    "  return %0#0, %0#1 : tensor<8xf64>, tensor<8xi32>\n}\n",
    "func.func @argcompare_i64(%input: tensor<4x300xi64>, %out_val: tensor<4xi64>, "
    "%out_idx: tensor<4xi64>) -> (tensor<4xi64>, tensor<4xi64>) {\n"
    "  %0:2 = iree_linalg_ext.arg_compare dimension(1) ins(%input : tensor<4x300xi64>)\n"
    "    outs(%out_val, %out_idx : tensor<4xi64>, tensor<4xi64>) {\n"
    "    ^bb0(%a: i64, %b: i64):\n      %cmp = arith.cmpi slt, %a, %b : i64\n"
    "      iree_linalg_ext.yield %cmp : i1\n  } -> tensor<4xi64>, tensor<4xi64>\n"
    "  return %0#0, %0#1 : tensor<4xi64>, tensor<4xi64>\n}\n",
    "func.func @reduction_f64(%in: tensor<8x1000xf64>) -> tensor<8xf64> {\n"
    "  %cst = arith.constant 0.0 : f64\n"
    "  %e = tensor.empty() : tensor<8xf64>\n"
    "  %f = linalg.fill ins(%cst : f64) outs(%e : tensor<8xf64>) -> tensor<8xf64>\n"
    "  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
    "affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]} "
    "ins(%in : tensor<8x1000xf64>) outs(%f : tensor<8xf64>) {\n"
    "  ^bb0(%a: f64, %b: f64):\n    %s = arith.addf %a, %b : f64\n    linalg.yield %s : f64\n"
    "  } -> tensor<8xf64>\n  return %r : tensor<8xf64>\n}\n",
    "func.func @reduction_i64_max(%in: tensor<6x512xi64>) -> tensor<6xi64> {\n"
    "  %cst = arith.constant -9223372036854775808 : i64\n"
    "  %e = tensor.empty() : tensor<6xi64>\n"
    "  %f = linalg.fill ins(%cst : i64) outs(%e : tensor<6xi64>) -> tensor<6xi64>\n"
    "  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
    "affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]} "
    "ins(%in : tensor<6x512xi64>) outs(%f : tensor<6xi64>) {\n"
    "  ^bb0(%a: i64, %b: i64):\n    %s = arith.maxsi %a, %b : i64\n    linalg.yield %s : i64\n"
    "  } -> tensor<6xi64>\n  return %r : tensor<6xi64>\n}\n",
};

START_TEST(wide_values_on_tile_and_fuse)
{
    ls_diag d;
    ls_module *m = load_text(wide_texts[_i], &d);
    ck_assert_msg(d.status == LS_OK && m->n_problems == 1, "%s", d.msg);
    ls_problem *p = &m->problems[0];
    ls_target t;
    ck_assert(ls_target_lookup("sm_80", &t));
    p->has_target = true;
    p->target = t;
    ls_suggestion *s = ls_xcalloc(1, sizeof *s);
    ck_assert_int_eq(ls_suggest(&m->dispatches[p->dispatch], &t, s, &d), LS_ERR_INVALID);
    ck_assert_msg(s->tile_and_fuse, "%s", d.msg);
    ls_suggest_apply_tile_and_fuse(s, p);
    ls_derived *dv = ls_xcalloc(1, sizeof *dv);
    ls_plan plan;
    ls_diag_clear(&d);
    ck_assert_msg(ls_derive(p, dv, &d) == LS_OK, "%s", d.msg);
    ck_assert_msg(ls_plan_build(p, dv, ls_plan_target_from_arch("sm_80"), &plan, &d) == LS_OK, "%s",
                  d.msg);
    char *src = NULL;
    ls_cuda_launch L;
    ck_assert_msg(ls_cuda_generate(&plan, 0, "wide", &src, &L, &d) == LS_OK, "%s", d.msg);
    ck_assert_int_eq(L.out_elem_bytes, 8);
    ck_assert_int_eq(count(src, "__shfl"), 0); /* no lane exchanges a value */
    ck_assert(strstr(src, ls_elem_type_is_float(p->acc_type) ? "typedef double ls_acc_t"
                                                             : "typedef unsigned long long ls_acc_t"));
    free(ptx_of(src, p->name));
    int64_t checked;
    double ratio;
    ck_assert_msg(ls_cuda_emulate_source(&plan, src, &L, (ls_input_source){21, NULL, {NULL}},
                                         &checked, &ratio, &d) == LS_OK,
                  "%s", d.msg);
    ck_assert_int_eq(checked, L.out_elems);
    free(src);
    free(dv);
    free(s);
    free(m);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *s = suite_create("cuda_argcmp");
    TCase *tc = tcase_create("arg_compare");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, forms_compile_and_check, 0, (int)(sizeof forms / sizeof forms[0]));
    tcase_add_test(tc, forms_cover_the_paths);
    tcase_add_test(tc, ties_break_as_the_lanes_do);
    tcase_add_test(tc, sabotage_is_caught);
    tcase_add_test(tc, refusals);
    tcase_add_loop_test(tc, wide_values_on_tile_and_fuse, 0,
                        (int)(sizeof wide_texts / sizeof wide_texts[0]));
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(make_suite)
