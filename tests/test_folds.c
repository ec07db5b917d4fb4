/* test_folds.c: a fold of one result's values -- the accumulate loop's fold
 * of its packed inner elements, the thread reduce -- as LLVM compiles the
 * vector.reduction it becomes (src/plan_thread_reduce.c): an ordered fadd
 * or fmul a chain; an unordered one a tree of packed ops where the target
 * pairs the type (then one op on the last register's halves), a balanced
 * tree of scalars on NVIDIA, a chain on AMD (two combines fused where
 * v_max3_f32 and the like exist).  The expected counts are llc-22's
 * (tools/amd-dpp-counts.py --folds: what 4 and 8 more values cost, and the
 * assembly of 8-value folds read by hand, quoted at each case), checked on
 * the plan's shape and on the engine's template. */
#include <check.h>

#include "../sim/engine_internal.h"
#include "attention_util.h"
#include "engine_util.h"
#include "lanescope/attention.h"
#include "lanescope/hwmodel.h"
#include "lanescope/plan.h"

typedef struct {
    ls_problem *p;
    ls_derived *d;
    ls_plan plan;
} planned;

static void plan_fold(planned *x, const char *arch, const char *ty, const char *op, int n,
                      int batch)
{
    char text[2048];
    int w = strncmp(arch, "gfx9", 4) == 0 ? 64 : 32;
    plan_text(op_reduce_text(text, sizeof text, ty, op, w, n, batch), arch, &x->p, &x->d, &x->plan);
}

static void unplan(planned *x)
{
    free(x->d);
    free(x->p);
}

/* the shape of the loop's fold of n packed inner elements on arch */
static ls_thread_reduce_shape loop_fold(const char *arch, const char *ty, const char *op, int n)
{
    planned x;
    plan_fold(&x, arch, ty, op, n, 1);
    ck_assert_int_eq(x.plan.inner_elems, n);
    ck_assert(ls_plan_loop_folds_reduce(&x.plan));
    ls_thread_reduce_shape s = ls_plan_fold_shape(&x.plan, n);
    unplan(&x);
    return s;
}

static void expect(ls_thread_reduce_shape s, ls_thread_reduce_form form, int64_t instructions,
                   int64_t packed, int64_t depth)
{
    ck_assert_int_eq(s.form, form);
    ck_assert_int_eq(s.instructions, instructions);
    ck_assert_int_eq(s.packed, packed);
    ck_assert_int_eq(s.depth, depth);
}

START_TEST(nvidia_packs_half_min_max)
{
    /* sm_80 bf16 maxnumf, 8 values: max.bf16x2 (r3, r5), (r2, r4), then of
     * the two, then max.bf16 of the last register's halves: 4, 3 deep */
    expect(loop_fold("sm_80", "bf16", "arith.maxnumf", 8), LS_TR_PACKED_TREE, 4, 3, 3);
    ck_assert(!loop_fold("sm_80", "bf16", "arith.maxnumf", 8).fuses3);
    /* any even count packs on NVIDIA: 6 f16 are 3 registers, 2 packed ops
     * and the halves (ptxas on sm_80: 3) */
    expect(loop_fold("sm_80", "f16", "arith.maximumf", 6), LS_TR_PACKED_TREE, 3, 2, 3);
    /* sm_90: ptxas takes one packed op into the next, a three-input
     * VHMNMX (CUDA 13, tools/amd-dpp-counts.py --sass-folds): 8 f16, an
     * HMNMX2 of two registers, a VHMNMX of it and the other two, then the
     * halves: 3, 3 deep, the halves' op left open for the join */
    ls_thread_reduce_shape s = loop_fold("sm_90", "f16", "arith.maximumf", 8);
    expect(s, LS_TR_PACKED_TREE, 3, 2, 3);
    ck_assert(s.fuses3 && s.root_open);
    ck_assert_int_eq(s.fused, 1);
    /* 2 to 16 values as ptxas compiles them (the halves' op counted) */
    static const int sass[] = {1, 2, 2, 3, 3, 4, 5, 6};
    for (int n = 2; n <= 16; n += 2) {
        ck_assert_int_eq(loop_fold("sm_90", "f16", "arith.maximumf", n).instructions,
                         sass[n / 2 - 1]);
        ck_assert_int_eq(loop_fold("sm_90", "bf16", "arith.minnumf", n).instructions,
                         sass[n / 2 - 1]);
    }
    /* sm_70 has no f16 min or max at all: each goes through f32 (cvt, cvt,
     * min.f32, cvt: 4 in PTX), a chain of 7 */
    expect(loop_fold("sm_70", "f16", "arith.minnumf", 8), LS_TR_CHAIN, 28, 0, 28);
}
END_TEST

START_TEST(nvidia_folds_scalars_as_a_tree)
{
    /* sm_90, 8 f32 maxnumf: max.f32 (r8, r9), (r6, r7), then of the two,
     * the same for r2..r5, then the root: 7, 3 deep */
    expect(loop_fold("sm_90", "f32", "arith.maxnumf", 8), LS_TR_TREE, 7, 0, 3);
    /* 6 values: (r7, r6), (r5, r4), their max, (r3, r2), the root: 3 deep */
    expect(loop_fold("sm_90", "f32", "arith.maxnumf", 6), LS_TR_TREE, 5, 0, 3);
    /* i16 has no packed add there, and its values are unpacked first: the
     * scalar tree */
    expect(loop_fold("sm_90", "i16", "arith.addi", 8), LS_TR_TREE, 7, 0, 3);
    /* sm_80 has no three-input IMNMX: 8 i32 maxsi, 7 */
    expect(loop_fold("sm_80", "i32", "arith.maxsi", 8), LS_TR_TREE, 7, 0, 3);
    /* 8 i32 adds: ptxas takes an add of the tree into the one reading it,
     * an IADD3: the first level's 4 adds, two of them taken in by the
     * second level's, whose two results the open root adds: 5, 3 deep */
    ls_thread_reduce_shape s = loop_fold("sm_90", "i32", "arith.addi", 8);
    expect(s, LS_TR_TREE, 5, 0, 3);
    ck_assert(s.fuses3 && s.root_open);
    ck_assert_int_eq(s.fused, 2);
    /* 2 to 16 values as ptxas compiles them (CUDA 13,
     * tools/amd-dpp-counts.py --sass-folds: sm_80 and sm_90 alike for add
     * and the logic ops, sm_90 for min and max) */
    static const int sass[] = {1, 1, 2, 2, 3, 4, 5, 5, 5, 5, 6, 7, 8, 9, 10};
    static const char *ops[] = {"arith.addi", "arith.xori", "arith.andi"};
    for (int n = 2; n <= 16; n++) {
        for (int k = 0; k < 3; k++)
            ck_assert_int_eq(loop_fold("sm_80", "i32", ops[k], n).instructions, sass[n - 2]);
        ck_assert_int_eq(loop_fold("sm_90", "i32", "arith.minui", n).instructions, sass[n - 2]);
    }
}
END_TEST

START_TEST(ordered_sums_stay_chains)
{
    /* fadd without reassoc: llvm.vector.reduce.fadd from its start value,
     * one add after the other (8 values: 4 and 8 more cost 4 and 8, f16
     * too, though the target pairs f16 adds) */
    planned x;
    const char *archs[] = {"sm_90", "gfx942"};
    for (int a = 0; a < 2; a++) {
        plan_fold(&x, archs[a], "f16", "arith.addf", 8, 1);
        expect(ls_plan_fold_shape(&x.plan, 8), LS_TR_CHAIN, 7, 0, 7);
        unplan(&x);
        plan_fold(&x, archs[a], "f32", "arith.mulf", 8, 1);
        expect(ls_plan_fold_shape(&x.plan, 8), LS_TR_CHAIN, 7, 0, 7);
        unplan(&x);
    }
}
END_TEST

START_TEST(amd_packs_i16_and_chains_the_rest)
{
    /* gfx942, 8 i16 adds: v_pk_add_u16 (v1, v3), (v0, v2), of the two,
     * then v_add_u16_sdwa of the halves: 4, 3 deep; gfx1100 the same with
     * v_add_nc_u16 */
    expect(loop_fold("gfx942", "i16", "arith.addi", 8), LS_TR_PACKED_TREE, 4, 3, 3);
    expect(loop_fold("gfx1100", "i16", "arith.addi", 8), LS_TR_PACKED_TREE, 4, 3, 3);
    /* a multiply first moves the high half down: v_alignbit_b32, then
     * v_pk_mul_lo_u16 */
    expect(loop_fold("gfx942", "i16", "arith.muli", 8), LS_TR_PACKED_TREE, 5, 3, 4);
    /* f32 maxnumf: v_max_f32 then three v_max3_f32, one on the other */
    expect(loop_fold("gfx942", "f32", "arith.maxnumf", 8), LS_TR_CHAIN, 4, 0, 4);
    /* i32 multiplies: a chain */
    expect(loop_fold("gfx942", "i32", "arith.muli", 8), LS_TR_CHAIN, 7, 0, 7);
}
END_TEST

START_TEST(thread_reduce_folds_the_batch)
{
    /* 4 batch registers of f16 max after the loop: one vector.reduction of
     * <4 x f16>: a max.NaN.f16x2, then the halves */
    planned x;
    plan_fold(&x, "sm_90", "f16", "arith.maximumf", 8, 4);
    ck_assert_int_eq(x.plan.local_reduce_ops, 3);
    expect(ls_plan_thread_reduce_shape(&x.plan), LS_TR_PACKED_TREE, 2, 1, 2);
    unplan(&x);
    plan_fold(&x, "sm_90", "f32", "arith.addf", 8, 4);
    expect(ls_plan_thread_reduce_shape(&x.plan), LS_TR_CHAIN, 3, 0, 3);
    unplan(&x);
    /* sm_70: maximumf is maxnumf there, and an f16 max goes through f32,
     * 4 instructions a combine (tools/amd-dpp-counts.py, PTX): a chain of
     * 3 combines, 12 instructions */
    plan_fold(&x, "sm_70", "f16", "arith.maximumf", 8, 4);
    ck_assert_int_eq(x.plan.combine_alu, 4);
    ls_thread_reduce_shape s = ls_plan_thread_reduce_shape(&x.plan);
    ck_assert_int_eq(s.combines, 3);
    expect(s, LS_TR_CHAIN, 12, 0, 12);
    unplan(&x);
}
END_TEST

/* the ALU instructions of the template's stage st */
static int stage_alus(const engine *e, ls_stage st)
{
    int n = 0;
    for (int i = 0; i < e->ncode; i++)
        n += e->code[i].kind == I_ALU && e->code[i].stage == st && e->code[i].issues > 0;
    return n;
}

/* the template of a fold's reduction on h100 */
static void template_n(engine *e, ls_sim_result *res, ls_hw *hw, planned *x, const char *ty,
                       const char *op, int n, int batch)
{
    ls_diag d;
    plan_fold(x, "sm_90", ty, op, n, batch);
    ck_assert_msg(ls_hw_load("h100", hw, &d) == LS_OK, "%s", d.msg);
    int64_t total;
    ck_assert_msg(ls_engine_prepare(e, &x->plan, hw, res, NULL, &total, &d) == LS_OK, "%s", d.msg);
}

static void template_of(engine *e, ls_sim_result *res, ls_hw *hw, planned *x, const char *ty,
                        const char *op, int batch)
{
    template_n(e, res, hw, x, ty, op, 8, batch);
}

/* In the loop of e's template: *first, the ALU instructions reading two
 * loads (a tree's first level); *roots, those reading two earlier ALU
 * results that each read a load first (a two-level tree's root). */
static void tree_levels(const engine *e, int *first, int *roots)
{
    *first = *roots = 0;
    for (int i = e->loop_begin; i < e->loop_end; i++) {
        const tinst *in = &e->code[i];
        if (in->kind != I_ALU || in->dep[0] < 0 || in->dep[1] < 0)
            continue;
        const tinst *a = &e->code[in->dep[0]], *b = &e->code[in->dep[1]];
        *first += a->kind == I_GLOAD && b->kind == I_GLOAD;
        *roots += a->kind == I_ALU && b->kind == I_ALU && in->dep[0] < i && in->dep[1] < i &&
                  a->dep[0] >= 0 && b->dep[0] >= 0 && e->code[a->dep[0]].kind == I_GLOAD &&
                  e->code[b->dep[0]].kind == I_GLOAD;
    }
}

/* the loop's ALU instructions reading three values: two ops fused */
static int three_input(const engine *e)
{
    int n = 0;
    for (int i = e->loop_begin; i < e->loop_end; i++)
        n += e->code[i].kind == I_ALU && e->code[i].dep[2] >= 0;
    return n;
}

START_TEST(engine_issues_the_folds)
{
    engine e;
    ls_sim_result res;
    ls_hw hw;
    planned x;
    /* f16 max, 8 inner elements, 4 accumulators (scalar joins: the
     * accumulators' vector splits into 1-element ones) on sm_90: per
     * accumulator and iteration an HMNMX2 of two registers, a VHMNMX of
     * the other two taking it in, and the join into the accumulator
     * taking the halves' op in (ptxas: 3); then the thread reduce's 2 */
    template_of(&e, &res, &hw, &x, "f16", "arith.maximumf", 4);
    int64_t u = e.unroll;
    ck_assert_int_eq(stage_alus(&e, LS_STAGE_LOAD_ACCUMULATE), u * 4 * 3);
    ck_assert_int_eq(stage_alus(&e, LS_STAGE_THREAD_REDUCE), 2);
    /* the HMNMX2 and the VHMNMX read two loads each, the VHMNMX a third
     * value; the join reads the accumulator and the VHMNMX's register
     * (both its halves) */
    int first, roots;
    tree_levels(&e, &first, &roots);
    ck_assert_int_eq(first, u * 4 * 2);
    ck_assert_int_eq(three_input(&e), u * 4);
    free(e.code);
    unplan(&x);
    /* i32 add on sm_90: the fold of 8 is ptxas's 5, its open root taken
     * into the join (2 fused in the tree, the join); no other join */
    template_of(&e, &res, &hw, &x, "i32", "arith.addi", 4);
    u = e.unroll;
    ck_assert_int_eq(stage_alus(&e, LS_STAGE_LOAD_ACCUMULATE), u * 4 * 5);
    ck_assert_int_eq(three_input(&e), u * 4 * 3);
    free(e.code);
    unplan(&x);
    /* 4 values: IADD3(e0, e2, e1 + e3), the add written before the IADD3
     * that takes it in; the four accumulators' folds interleave, the adds
     * a level's IADD3 do not take in first: no instruction reads the one
     * just before it */
    template_n(&e, &res, &hw, &x, "i32", "arith.addi", 4, 4);
    for (int i = e.loop_begin + 1; i < e.loop_end; i++)
        for (int k = 0; k < LS_TINST_DEPS; k++)
            ck_assert_int_ne(e.code[i].dep[k], i - 1);
    free(e.code);
    unplan(&x);
    /* f32 max keeps LLVM's tree of 7 and its join */
    template_of(&e, &res, &hw, &x, "f32", "arith.maxnumf", 4);
    u = e.unroll;
    ck_assert_int_eq(stage_alus(&e, LS_STAGE_LOAD_ACCUMULATE), u * 4 * (7 + 1));
    ck_assert_int_eq(three_input(&e), 0);
    tree_levels(&e, &first, &roots);
    ck_assert_int_eq(first, u * 4 * 4);
    ck_assert_int_eq(roots, u * 4 * 2);
    free(e.code);
    unplan(&x);
    /* f32 sum: the ordered chain, its first add of +0.0 issued: 8 and the
     * join; the thread reduce's 3 */
    template_of(&e, &res, &hw, &x, "f32", "arith.addf", 4);
    u = e.unroll;
    ck_assert_int_eq(stage_alus(&e, LS_STAGE_LOAD_ACCUMULATE), u * 4 * (8 + 1));
    ck_assert_int_eq(stage_alus(&e, LS_STAGE_THREAD_REDUCE), 3);
    free(e.code);
    unplan(&x);
}
END_TEST

/* A min and a second reduction (`second`: an arith op on %in and %mx) of
 * every row in one generic, TileAndFuse on h100: 4 rows a thread, 4
 * elements an iteration; its two plans fused as sim times them. */
static void plan_two_results(const char *second, ls_module **m, ls_derived *d, ls_plan *plans)
{
    char text[2048];
    snprintf(text, sizeof text,
             "func.func @mm() attributes {translation_info = "
             "#iree_codegen.translation_info<pipeline = LLVMGPUTileAndFuse workgroup_size = "
             "[32, 1, 1] subgroup_size = 32>} {\n"
             "%%r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
             "affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = "
             "[\"parallel\", \"reduction\"]} ins(%%x : tensor<2048x1024xf32>) outs(%%lo, %%hi : "
             "tensor<2048xf32>, tensor<2048xf32>) attrs = {lowering_config = "
             "#iree_gpu.lowering_config<{reduction = [0, 4], thread = [4, 0], workgroup = [128, "
             "0]}>} {\n^bb0(%%in: f32, %%mn: f32, %%mx: f32):\n"
             "  %%a = arith.minimumf %%in, %%mn : f32\n  %%b = %s %%in, %%mx : f32\n"
             "  linalg.yield %%a, %%b : f32, f32\n} -> (tensor<2048xf32>, tensor<2048xf32>)\n}\n",
             second);
    ls_diag dg;
    *m = load_text(text, &dg);
    ck_assert_msg(dg.status == LS_OK, "%s", dg.msg);
    ck_assert_int_eq((*m)->n_problems, 2);
    for (int k = 0; k < 2; k++) {
        ck_assert_msg(ls_derive(&(*m)->problems[k], &d[k], &dg) == LS_OK, "%s", dg.msg);
        ck_assert_msg(ls_plan_build(&(*m)->problems[k], &d[k], ls_plan_target_from_arch("sm_90"),
                                    &plans[k], &dg) == LS_OK,
                      "%s", dg.msg);
    }
    ck_assert(ls_plan_fuse_results(plans, 2));
}

START_TEST(multi_result_folds_alike)
{
    /* a min and a max: each result's fold of 4 is a tree of 3, 2 deep, so
     * the kernel's are; the engine issues each result's tree and join */
    ls_module *m;
    ls_derived d[2];
    ls_plan plans[2];
    plan_two_results("arith.maximumf", &m, d, plans);
    ck_assert(plans[0].results_fold_alike);
    expect(ls_plan_fold_shape(&plans[0], ls_plan_loop_fold_values(&plans[0])), LS_TR_TREE, 3, 0, 2);
    engine e;
    ls_sim_result res;
    ls_hw hw;
    ls_diag dg;
    ck_assert_msg(ls_hw_load("h100", &hw, &dg) == LS_OK, "%s", dg.msg);
    int64_t total;
    ck_assert_msg(ls_engine_prepare(&e, &plans[0], &hw, &res, NULL, &total, &dg) == LS_OK, "%s",
                  dg.msg);
    int64_t u = e.unroll;
    ck_assert_int_eq(stage_alus(&e, LS_STAGE_LOAD_ACCUMULATE), u * 4 * 2 * (3 + 1));
    int first, roots; /* a tree's root reads two ALU results, neither a load */
    tree_levels(&e, &first, &roots);
    ck_assert_int_eq(roots, u * 4 * 2);
    free(e.code);
    free(m);
    /* a min and a sum: the sum's fold is ordered, so the kernel's folds,
     * timed as result 0's, stay chains */
    plan_two_results("arith.addf", &m, d, plans);
    ck_assert(!plans[0].results_fold_alike);
    expect(ls_plan_fold_shape(&plans[0], 4), LS_TR_CHAIN, 3, 0, 3);
    free(m);
}
END_TEST

/* A decode attention of 4 key slots a thread (K2: 8 lanes x 4), K1 over
 * the subgroup's other lanes, online, K2 tiled at `level`. */
static void att_slots_ir(char *ir, size_t size, int sg, const char *level)
{
    char qk[512], pv[512];
    int k1_lanes = sg / 8;
    snprintf(qk, sizeof qk,
             "#iree_gpu.lowering_config<{subgroup_basis = [[1, 1, 1, 1, 1], [0, 1, 2, 3]], "
             "lane_basis = [[1, 1, %d, 8, 1], [0, 1, 2, 3]], thread = [0, 0, %d, 4]}>",
             k1_lanes, 32 / k1_lanes);
    snprintf(pv, sizeof pv,
             "#iree_gpu.lowering_config<{subgroup_basis = [[1, 1, 1, 1, 1], [0, 1, 3, 4]], "
             "lane_basis = [[1, 1, %d, 8, 1], [0, 1, 3, 4]], thread = [0, 0, 4, 4]}>",
             k1_lanes);
    att_ir(ir, size, sg, sg, 16, level, qk, pv);
}

/* The first instruction at or after `from` in e's template that is a lane
 * step of reduction r (its move or combine); -1 if none. */
static int first_step_of(const engine *e, int from, const ls_subgroup_reduce *r)
{
    for (int i = from; i < e->ncode; i++)
        if (e->code[i].red == r)
            return i;
    return -1;
}

/* The local max's instructions: the ALU instructions in [from, to) of e's
 * template, into at[] (4 at most); how many. */
static int alus_between(const engine *e, int from, int to, int *at)
{
    int n = 0;
    for (int i = from; i < to; i++)
        if (e->code[i].kind == I_ALU) {
            ck_assert_int_lt(n, 4);
            at[n++] = i;
        }
    return n;
}

/* The local max of 4 values issued as sm_90's balanced tree (x0 and x1
 * each of two values before `before`, x2 of theirs) or gfx942's chain of
 * v_max3_f32 (x0 of three such values, x1 of x0 and the fourth). */
static void local_max_shape(const engine *e, const int *x, int n, bool amd, int before)
{
    const tinst *c = e->code;
    if (amd) {
        ck_assert_int_eq(n, 2);
        for (int j = 0; j < 3; j++)
            ck_assert(c[x[0]].dep[j] >= 0 && c[x[0]].dep[j] < before);
        ck_assert_int_eq(c[x[1]].dep[0], x[0]);
        ck_assert(c[x[1]].dep[1] >= 0 && c[x[1]].dep[1] < before && c[x[1]].dep[2] < 0);
        return;
    }
    ck_assert_int_eq(n, 3);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            ck_assert(c[x[i]].dep[j] >= 0 && c[x[i]].dep[j] < before);
    ck_assert_int_eq(c[x[2]].dep[0], x[0]);
    ck_assert_int_eq(c[x[2]].dep[1], x[1]);
}

/* An attention's local max over a thread's 4 key slots is a
 * multi_reduction <maximumf> that becomes one vector.reduction a row,
 * which LLVM folds for the work type (f32) as it folds any
 * (ls_fold_shape_of): on sm_90 a balanced tree, 3 instructions 2 deep; on
 * gfx942, where IREE makes it a maxnumf (ReplaceSlowMinMaxOps), a chain of
 * v_max3_f32, 2 instructions.  Found in the engine's template: in each
 * step of a reduction-level loop between the scores' K1 reduce and the
 * max's K2 lane steps; in the merge after a partial_reduction loop before
 * its first lane step. */
START_TEST(attention_local_max_folds)
{
    const char *arch[2] = {"sm_90", "gfx942"}, *model[2] = {"h100", "mi300x"};
    const char *level[2] = {"reduction", "partial_reduction"};
    for (int t = 0; t < 2; t++) {
        ls_thread_reduce_shape sh =
            ls_fold_shape_of(ls_plan_target_from_arch(arch[t]), LS_ET_F32, LS_COMB_MAXIMUMF, 4);
        ck_assert_int_eq(sh.form, t ? LS_TR_CHAIN : LS_TR_TREE);
        ck_assert_int_eq(sh.instructions, t ? 2 : 3);
        ck_assert_int_eq(sh.depth, 2);
        for (int l = 0; l < 2; l++) {
            char ir[8192];
            att_slots_ir(ir, sizeof ir, t ? 64 : 32, level[l]);
            ls_module *m = ls_xcalloc(1, sizeof *m);
            ls_attention a;
            ls_diag d;
            ck_assert_msg(build_attention(ir, arch[t], m, &a, &d) == LS_OK, "%s", d.msg);
            ls_hw hw;
            ck_assert_msg(ls_hw_load(model[t], &hw, &d) == LS_OK, "%s", d.msg);
            ls_att_view *v;
            ck_assert_msg(ls_attention_view(m, &m->attentions[0], &a, &hw, &v, &d) == LS_OK, "%s",
                          d.msg);
            const ls_plan *pl = ls_att_view_plan(v);
            const ls_att_kernel *k = pl->attention;
            ck_assert_int_eq(k->rows * k->slots, 4);
            engine e;
            ls_sim_result res;
            int64_t total;
            ck_assert_msg(ls_engine_prepare(&e, pl, &hw, &res, NULL, &total, &d) == LS_OK, "%s",
                          d.msg);
            int x[4], n, to;
            if (l == 0) { /* the step's: after the scores' last K1 step */
                to = first_step_of(&e, e.loop_begin, &k->qk2_red.lane[0]);
                int from = to;
                while (from > e.loop_begin && e.code[from - 1].red != &k->k1_red.lane[0])
                    from--;
                ck_assert(to < e.loop_end && from > e.loop_begin);
                n = alus_between(&e, from, to, x);
                local_max_shape(&e, x, n, t == 1, from);
            } else { /* the merge's: the loop's carried maxes */
                to = first_step_of(&e, e.loop_end, &k->qk2_red.lane[0]);
                ck_assert_int_gt(to, e.loop_end);
                n = alus_between(&e, e.loop_end, to, x);
                local_max_shape(&e, x, n, t == 1, e.loop_end);
                for (int i = 0; i < n; i++)
                    ck_assert_int_eq(e.code[x[i]].stage, LS_STAGE_THREAD_REDUCE);
            }
            free(e.code);
            ls_att_view_free(v);
            free(m);
        }
    }
}
END_TEST

/* A TileAndFuse column max of f16 on h100, `t` columns a thread: each
 * iteration joins a loaded vector<t x f16> into t accumulators. */
static void column_max(planned *x, engine *e, ls_sim_result *res, ls_hw *hw, int t)
{
    char text[2048];
    snprintf(text, sizeof text,
             "func.func @f() attributes {translation_info = "
             "#iree_codegen.translation_info<pipeline = LLVMGPUTileAndFuse workgroup_size = "
             "[32, 1, 1] subgroup_size = 32>} {\n"
             "%%r = linalg.reduce ins(%%a : tensor<4096x1024xf16>) outs(%%b : tensor<1024xf16>) "
             "dimensions = [0] {lowering_config = #iree_gpu.lowering_config<{workgroup = [0, "
             "%d], thread = [0, %d], reduction = [1, 0]}>} (%%in: f16, %%o: f16) {\n"
             "  %%1 = arith.maximumf %%in, %%o : f16\n  linalg.yield %%1 : f16\n}\n}\n",
             32 * t, t);
    plan_text(text, "sm_90", &x->p, &x->d, &x->plan);
    ls_diag d;
    ck_assert_msg(ls_hw_load("h100", hw, &d) == LS_OK, "%s", d.msg);
    int64_t total;
    ck_assert_msg(ls_engine_prepare(e, &x->plan, hw, res, NULL, &total, &d) == LS_OK, "%s", d.msg);
}

/* sm_90's VHMNMX both pairs two f16 lanes and fuses two dependent max: a
 * chain of 16 f16x2 max is 8 SASS instructions, half sm_80's
 * (tools/amd-dpp-counts.py's chain rows, and its pairs compiled through
 * ptxas: 0.5 an f16x2 step).  Two accumulators, the loop unrolled u
 * times: the joins of two iterations fuse (u / 2 instructions, an odd
 * one's at the back edge two-input), each pair of accumulators in one. */
START_TEST(sm90_fuses_and_pairs_half_chains)
{
    ck_assert(
        ls_plan_combine_fuses3(ls_plan_target_from_arch("sm_90"), LS_ET_F16, LS_COMB_MAXIMUMF));
    ck_assert(
        !ls_plan_combine_fuses3(ls_plan_target_from_arch("sm_80"), LS_ET_F16, LS_COMB_MAXIMUMF));
    /* 2 columns a thread unroll by 4; 32 columns' loop is too big to
     * unroll (u = 1): nothing fuses, the pairs stay */
    static const int cols[] = {2, 32}, unroll[] = {4, 1};
    for (int c = 0; c < 2; c++) {
        planned x;
        engine e;
        ls_sim_result res;
        ls_hw hw;
        column_max(&x, &e, &res, &hw, cols[c]);
        ck_assert(x.plan.combine_fuses3 && x.plan.combine_pairs);
        ck_assert(ls_plan_pairs_accumulators(&x.plan));
        int64_t u = e.unroll, pairs = cols[c] / 2;
        ck_assert_int_eq(u, unroll[c]);
        int issued = 0, free_halves = 0, three = 0;
        for (int i = e.loop_begin; i < e.loop_end; i++) {
            const tinst *in = &e.code[i];
            if (in->kind != I_ALU || in->stage != LS_STAGE_LOAD_ACCUMULATE)
                continue;
            issued += in->issues > 0;
            free_halves += in->issues == 0;
            three += in->dep[2] >= 0;
        }
        ck_assert_int_eq(issued, pairs * ((u + 1) / 2));
        ck_assert_int_eq(free_halves, pairs * ((u + 1) / 2));
        ck_assert_int_eq(three, 2 * pairs * (u / 2));
        free(e.code);
        unplan(&x);
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("folds");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, nvidia_packs_half_min_max);
    tcase_add_test(tc, nvidia_folds_scalars_as_a_tree);
    tcase_add_test(tc, ordered_sums_stay_chains);
    tcase_add_test(tc, amd_packs_i16_and_chains_the_rest);
    tcase_add_test(tc, thread_reduce_folds_the_batch);
    tcase_add_test(tc, engine_issues_the_folds);
    tcase_add_test(tc, multi_result_folds_alike);
    tcase_add_test(tc, attention_local_max_folds);
    tcase_add_test(tc, sm90_fuses_and_pairs_half_chains);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(suite)
