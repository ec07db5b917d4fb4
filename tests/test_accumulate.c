/* test_accumulate.c: the engine's accumulate stage (sim/engine_accumulate.c)
 * as IREE lowers it, read off the template's instructions and their
 * operands:
 *  - packed inner elements reduce from the identity and only then add into
 *    the loop's accumulator (DistributeContract / DistributeMultiReduction,
 *    GPUNestedLayoutDistributionPatterns.cpp), so the only loop-carried
 *    dependence is that one add per accumulator;
 *  - a contraction's packed chain is one FMA per element and no multiply
 *    (ContractToChainFMA, LLVMGPUVectorLowering.cpp), on every target;
 *  - unpacked, AMD fuses the multiply and the add into one FMA on the
 *    accumulator (ROCMTarget.cpp, AllowFPOpFusion = Fast), NVIDIA keeps a
 *    multiply and an add;
 *  - a float sum's chain starts with an add of +0.0 (not folded), an
 *    integer sum's with the first element; where LLVM fuses two dependent
 *    combines into one three-operand instruction (v_add3_u32 on gfx942),
 *    the chains take half.
 * And the engine's instruction count agrees with the template, and LLVM's
 * unroller is modelled counting the chain's FMAs, not a multiply and an add. */
#include <check.h>

#include "../sim/engine_internal.h"
#include "lanescope/hwmodel.h"
#include "lanescope/plan.h"
#include "testutil.h"

/* A 4-row matvec (body "mul", f32) or row sum (body "sum", f32 or i32),
 * 1024 long, partial_reduction 512 over `lanes` lanes of thread tile t:
 * 512 / (lanes x t) batches, each an accumulator unless t = 1 packs none. */
static const char *text_of(char *buf, size_t n, const char *body, const char *ty, int lanes, int t,
                           const char *tiling)
{
    bool mv = strcmp(body, "mul") == 0;
    bool fl = ty[0] == 'f' || ty[0] == 'b';
    snprintf(buf, n,
             "func.func @k() attributes {translation_info = "
             "#iree_codegen.translation_info<pipeline = LLVMGPUVectorDistribute workgroup_size = "
             "[%d, 1, 1] subgroup_size = %d>} {\n"
             "%%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, %s"
             "affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]} "
             "ins(%%a%s : tensor<4x1024x%s>%s) outs(%%c : tensor<4x%s>) attrs = {lowering_config = "
             "#iree_gpu.lowering_config<{workgroup = [1, 0], %sthread "
             "= [0, %d], lane_basis = [[1, %d], [0, 1]], subgroup_basis = [[1, 1], [0, 1]]}>} {\n"
             "^bb0(%%x: %s, %s%%o: %s):\n%s  %%s = arith.add%s %%%s, %%o : %s\n"
             "  linalg.yield %%s : %s\n} -> tensor<4x%s>\n}\n",
             lanes, lanes, mv ? "affine_map<(d0, d1) -> (d1)>, " : "", mv ? ", %b" : "", ty,
             mv ? (fl ? ", tensor<1024xf32>" : ", tensor<1024xi32>") : "", ty, tiling, t, lanes, ty,
             mv ? (fl ? "%y: f32, " : "%y: i32, ") : "", ty,
             mv ? (fl ? "  %m = arith.mulf %x, %y : f32\n" : "  %m = arith.muli %x, %y : i32\n")
                : "",
             fl ? "f" : "i", mv ? "m" : "x", ty, ty, ty);
    return buf;
}

typedef struct {
    ls_module *m;
    ls_derived *d;
    ls_plan plan;
    ls_hw hw;
    engine e;
    ls_sim_result res;
} built;

/* tiling: the reduction's tiling keys, each followed by ", " */
/* text's one reduction built for chip (mi300x: gfx942, else sm_90) */
static void build_text(built *b, const char *text, const char *chip)
{
    ls_diag dg;
    bool amd = strcmp(chip, "mi300x") == 0;
    b->m = load_text(text, &dg);
    ck_assert_msg(dg.status == LS_OK, "%s", dg.msg);
    ls_module_set_math(b->m, ls_math_mode_for_arch(amd ? "gfx942" : "sm_90"));
    const ls_problem *p = &b->m->problems[0];
    b->d = ls_xcalloc(1, sizeof *b->d);
    ck_assert_msg(ls_derive(p, b->d, &dg) == LS_OK, "%s", dg.msg);
    ck_assert_msg(ls_plan_build(p, b->d, ls_plan_target_from_arch(amd ? "gfx942" : "sm_90"),
                                &b->plan, &dg) == LS_OK,
                  "%s", dg.msg);
    ck_assert_msg(ls_hw_load(chip, &b->hw, &dg) == LS_OK, "%s", dg.msg);
    int64_t total;
    ck_assert_msg(ls_engine_prepare(&b->e, &b->plan, &b->hw, &b->res, NULL, &total, &dg) == LS_OK,
                  "%s", dg.msg);
}

static void build_tiled(built *b, const char *body, const char *ty, const char *chip, int t,
                        const char *tiling)
{
    char text[4096];
    bool amd = strcmp(chip, "mi300x") == 0;
    build_text(b, text_of(text, sizeof text, body, ty, amd ? 64 : 32, t, tiling), chip);
}

static void build(built *b, const char *body, const char *ty, const char *chip, int t)
{
    build_tiled(b, body, ty, chip, t, "partial_reduction = [0, 512], ");
}

static void unbuild(built *b)
{
    free(b->e.code);
    free(b->d);
    free(b->m);
}

/* A 4 x 1024 reduction of f16 %x (4 x 1024) and %y (1024) into an `out`
 * accumulator, 4 elements a lane; body: its ops, ending in %s. */
static void two_input_text(char *buf, size_t n, int lanes, const char *out, const char *body)
{
    snprintf(buf, n,
             "func.func @k() attributes {translation_info = "
             "#iree_codegen.translation_info<pipeline = LLVMGPUVectorDistribute "
             "workgroup_size = [%d, 1, 1] subgroup_size = %d>} {\n"
             "%%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
             "affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = "
             "[\"parallel\", \"reduction\"]} ins(%%a, %%b : tensor<4x1024xf16>, "
             "tensor<1024xf16>) outs(%%c : tensor<4x%s>) attrs = {lowering_config = "
             "#iree_gpu.lowering_config<{workgroup = [1, 0], partial_reduction = [0, 512], "
             "thread = [0, 4], lane_basis = [[1, %d], [0, 1]], subgroup_basis = [[1, 1], [0, "
             "1]]}>} {\n^bb0(%%x: f16, %%y: f16, %%o: %s):\n%s  linalg.yield %%s : %s\n} -> "
             "tensor<4x%s>\n}\n",
             lanes, lanes, out, lanes, out, body, out, out);
}

/* A body instruction of two operands (-1: none). */
static ls_body_inst inst(ls_body_opcode op, ls_elem_type type, ls_elem_type src, int a, int b)
{
    return (ls_body_inst){.op = op, .type = type, .src = src, .a = a, .b = b, .c = -1};
}

static bool is_load(const engine *e, int i)
{
    return i >= 0 && e->code[i].kind == I_GLOAD;
}

static bool loop_alu(const engine *e, int i)
{
    return i >= e->loop_begin && i < e->loop_end && e->code[i].kind == I_ALU &&
           e->code[i].stage == LS_STAGE_LOAD_ACCUMULATE;
}

/* The loop's ALU instructions of one unrolled iteration j. */
static int iteration_alus(const engine *e, int j, int *out)
{
    int n = 0;
    for (int i = e->loop_begin; i < e->loop_end; i++)
        if (loop_alu(e, i) && e->code[i].iter_offset == j)
            out[n++] = i;
    return n;
}

/* Packed: per accumulator a chain of `per` instructions that starts from
 * nothing (the identity: dep[1] -1), each reading the one before, then one
 * combine reading the chain's end and the accumulator's combine of the
 * iteration before (the only instruction that reads across iterations).
 * fma: each chain step reads both loads (dep[0], dep[2]). */
static void check_packed(const engine *e, int64_t nacc, int per, bool fma)
{
    int64_t u = e->unroll;
    int *alu = ls_xcalloc((size_t)(e->loop_end - e->loop_begin), sizeof *alu);
    for (int j = 0; j < u; j++) {
        int n = iteration_alus(e, j, alu);
        ck_assert_int_eq(n, nacc * per + nacc);
        int starts = 0, combines = 0;
        for (int x = 0; x < n; x++) {
            const tinst *in = &e->code[alu[x]];
            if (is_load(e, in->dep[0])) { /* a chain step: its element, and the step before */
                ck_assert_int_eq(is_load(e, in->dep[2]), fma);
                if (in->dep[1] < 0)
                    starts++;
                else
                    ck_assert_int_eq(e->code[in->dep[1]].iter_offset, j);
                continue;
            }
            /* the combine: the chain's end (this iteration), the accumulator */
            combines++;
            ck_assert(loop_alu(e, in->dep[0]) && is_load(e, e->code[in->dep[0]].dep[0]));
            ck_assert_int_eq(e->code[in->dep[0]].iter_offset, j);
            ck_assert(loop_alu(e, in->dep[1]));
            const tinst *prev = &e->code[in->dep[1]];
            ck_assert_int_eq(prev->iter_offset, j == 0 ? u - 1 : j - 1);
            ck_assert_msg(!is_load(e, prev->dep[0]), "the accumulator is a combine, not a step");
            ck_assert_int_eq(in->dep[2], -1);
        }
        ck_assert_int_eq(starts, nacc);
        ck_assert_int_eq(combines, nacc);
    }
    free(alu);
}

START_TEST(packed_contraction_is_an_fma_chain_then_one_add)
{
    /* thread 4 over 64 lanes (mi300x) or 32 (h100): 512 / 256 = 2 batches,
     * or 512 / 128 = 4 -- the accumulators, 4 packed elements each */
    static const struct {
        const char *chip;
        int64_t nacc;
    } cases[] = {{"mi300x", 2}, {"h100", 4}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        built b;
        build(&b, "mul", "f32", cases[c].chip, 4);
        ck_assert_int_eq(ls_functional_fma(&b.plan), LS_FMA_CHAIN);
        ck_assert_int_eq(b.plan.acc_registers, cases[c].nacc);
        ck_assert_int_eq(b.plan.inner_elems, 4);
        check_packed(&b.e, cases[c].nacc, 4, true);
        /* the run issues it: 4 rows (one subgroup each) x 2 iterations x
         * (a load of A and of B per accumulator, 4 FMAs and an add per
         * accumulator) -- no multiply of its own; gfx942 computes two
         * accumulators' FMAs (v_pk_fma_f32) and adds (v_pk_add_f32) in one
         * instruction, NVIDIA one each */
        ls_diag dg;
        ls_diag_clear(&dg);
        ck_assert_msg(ls_engine_run(&b.plan, &b.hw, &b.res, NULL, &dg) == LS_OK, "%s", dg.msg);
        ck_assert_int_eq(b.plan.iterations, 2);
        int64_t pack = c == 0 ? 2 : 1;
        ck_assert_int_eq(b.plan.combine_pairs, c == 0);
        ck_assert_int_eq(b.res.stage[LS_STAGE_LOAD_ACCUMULATE].instructions,
                         4 * 2 * (2 * cases[c].nacc + (4 * cases[c].nacc + cases[c].nacc) / pack));
        unbuild(&b);
    }
}
END_TEST

/* IREE's f16 matvec with an f32 accumulator: the body widens both f16
 * values (arith.extf) and multiplies them.  AMD's v_fma_mix_f32 reads f16
 * operands itself (llc-22 on gfx906 and later, gfx10-12; not gfx900 or
 * gfx90c), so on gfx1100 each chain step is one instruction reading both
 * loads.  gfx942's chain over two accumulators is a vector FMA, which
 * llc-22 makes two v_cvt_f32_f16 a value and a v_pk_fma_f32: the
 * extensions stay, as on NVIDIA -- three instructions a step (the pairing
 * itself is not modelled). */
START_TEST(f16_products_fold_their_extensions_on_amd)
{
    static const struct {
        const char *chip, *arch;
        int lanes, per;
        int64_t nacc;
    } cases[] = {{"rx7900xtx", "gfx1100", 32, 1, 4},
                 {"mi300x", "gfx942", 64, 3, 2},
                 {"h100", "sm_90", 32, 3, 4}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char text[4096];
        two_input_text(text, sizeof text, cases[c].lanes, "f32",
                       "  %xe = arith.extf %x : f16 to f32\n  %ye = arith.extf %y : f16 to f32\n"
                       "  %m = arith.mulf %xe, %ye : f32\n  %s = arith.addf %m, %o : f32\n");
        ls_diag dg;
        built b;
        b.m = load_text(text, &dg);
        ck_assert_msg(dg.status == LS_OK, "%s", dg.msg);
        ls_module_set_math(b.m, ls_math_mode_for_arch(cases[c].arch));
        const ls_problem *p = &b.m->problems[0];
        b.d = ls_xcalloc(1, sizeof *b.d);
        ck_assert_msg(ls_derive(p, b.d, &dg) == LS_OK, "%s", dg.msg);
        ls_plan_target t = ls_plan_target_from_arch(cases[c].arch);
        ck_assert_msg(ls_plan_build(p, b.d, t, &b.plan, &dg) == LS_OK, "%s", dg.msg);
        ck_assert_int_eq(b.plan.body_machine_alu_ops, 3);
        ck_assert_int_eq(b.plan.body_fma_mix_exts, c == 0 ? 2 : 0);
        ck_assert_int_eq(b.plan.acc_registers, cases[c].nacc);
        ck_assert_msg(ls_hw_load(cases[c].chip, &b.hw, &dg) == LS_OK, "%s", dg.msg);
        int64_t total;
        ck_assert_msg(ls_engine_prepare(&b.e, &b.plan, &b.hw, &b.res, NULL, &total, &dg) == LS_OK,
                      "%s", dg.msg);
        if (c == 0) /* each step an FMA reading its two loads */
            check_packed(&b.e, cases[c].nacc, 4, true);
        ck_assert_msg(ls_engine_run(&b.plan, &b.hw, &b.res, NULL, &dg) == LS_OK, "%s", dg.msg);
        /* 4 rows x 2 iterations x (two loads, 4 steps and an add per
         * accumulator), the FMAs and adds two accumulators an instruction
         * where the target pairs f32 lanes: wave32 gfx1100 (dual issue) and
         * gfx942 (v_pk_fma_f32), not sm_90 */
        int64_t pack = c < 2 ? 2 : 1, n = cases[c].nacc;
        ck_assert_int_eq(b.plan.combine_pairs, c < 2);
        ck_assert_int_eq(b.res.stage[LS_STAGE_LOAD_ACCUMULATE].instructions,
                         4 * 2 * (2 * n + 4 * n * (cases[c].per - 1) + (4 * n + n) / pack));
        unbuild(&b);
    }
    /* a square's one extension folds; one another op also reads stays */
    ls_plan_target g942 = ls_plan_target_from_arch("gfx942");
    ls_body sq;
    memset(&sq, 0, sizeof sq);
    sq.n = 3;
    sq.inst[0] = inst(LS_BOP_INPUT, LS_ET_F16, LS_ET_F16, -1, -1);
    sq.inst[1] = inst(LS_BOP_EXTF, LS_ET_F32, LS_ET_F16, 0, -1);
    sq.inst[2] = inst(LS_BOP_MULF, LS_ET_F32, LS_ET_F32, 1, 1);
    ck_assert_int_eq(ls_body_fma_mix_exts(&sq, g942), 1);
    ls_body shared = sq;
    shared.n = 4;
    shared.inst[2] = inst(LS_BOP_ADDF, LS_ET_F32, LS_ET_F32, 1, 1);
    shared.inst[3] = inst(LS_BOP_MULF, LS_ET_F32, LS_ET_F32, 1, 2);
    ck_assert_int_eq(ls_body_fma_mix_exts(&shared, g942), 0);
    /* the targets with the instruction, as llc-22 forms it */
    ck_assert(ls_plan_target_fma_mix(ls_plan_target_from_arch("gfx906")));
    ck_assert(ls_plan_target_fma_mix(ls_plan_target_from_arch("gfx950")));
    ck_assert(ls_plan_target_fma_mix(ls_plan_target_from_arch("gfx1030")));
    ck_assert(ls_plan_target_fma_mix(ls_plan_target_from_arch("gfx1201")));
    ck_assert(!ls_plan_target_fma_mix(ls_plan_target_from_arch("gfx900")));
    ck_assert(!ls_plan_target_fma_mix(ls_plan_target_from_arch("gfx90c")));
    ck_assert(!ls_plan_target_fma_mix(ls_plan_target_from_arch("sm_90")));
    ck_assert(ls_plan_target_packed_f32(ls_plan_target_from_arch("gfx90a")));
    ck_assert(ls_plan_target_packed_f32(ls_plan_target_from_arch("gfx942")));
    ck_assert(!ls_plan_target_packed_f32(ls_plan_target_from_arch("gfx1100")));
}
END_TEST

/* Packed math (llc-22: a chain of <2 x T> ops costs what one of T does):
 * a step over two accumulators is one instruction where the target pairs
 * lanes.  An f16 row sum of 4 elements a thread: per accumulator x + 0.0
 * and 3 adds, then the join (5); gfx942 (2 accumulators) pairs them all
 * (v_pk_add_f16; LLVM's SLP vectorizer and the backend pair independent
 * scalar ops).  sm_90 (4) pairs none: the accumulators are the batch dim
 * of vector<4x1x..xf16>, which LLVMGPULegalizeNDVectors splits into four
 * 1-element vectors, and IREE's CUDA target runs no SLP vectorizer.  The
 * second of each pair keeps its own operands and issues in no slot of its
 * own. */
START_TEST(packed_math_pairs_accumulators)
{
    static const struct {
        const char *chip;
        int64_t nacc;
        bool paired;
    } cases[] = {{"mi300x", 2, true}, {"h100", 4, false}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        built b;
        build(&b, "sum", "f16", cases[c].chip, 4);
        ck_assert(b.plan.combine_pairs);
        ck_assert_int_eq(b.plan.acc_registers, cases[c].nacc);
        ck_assert_int_eq(ls_plan_pairs_accumulators(&b.plan), cases[c].paired);
        ck_assert_int_eq(ls_plan_pair_run(&b.plan, true), cases[c].paired ? 0 : 1);
        ls_diag dg;
        ls_diag_clear(&dg);
        ck_assert_msg(ls_engine_run(&b.plan, &b.hw, &b.res, NULL, &dg) == LS_OK, "%s", dg.msg);
        /* 4 rows x 2 iterations x (a load per accumulator, then 4 chain
         * steps and the join, two accumulators an instruction) */
        int64_t n = cases[c].nacc, d = cases[c].paired ? 2 : 1;
        ck_assert_int_eq(b.res.stage[LS_STAGE_LOAD_ACCUMULATE].instructions,
                         4 * 2 * (n + (4 * n + n) / d));
        int free_halves = 0;
        for (int i = b.e.loop_begin; i < b.e.loop_end; i++)
            if (b.e.code[i].issues == 0) {
                ck_assert_int_eq(b.e.code[i].kind, I_ALU);
                ck_assert_int_eq(b.e.code[i - 1].issues, 1); /* its even partner, just before */
                free_halves++;
            }
        ck_assert_int_eq(free_halves, cases[c].paired ? b.e.unroll * (4 * n + n) / 2 : 0);
        unbuild(&b);
    }
    /* which neighbours: any two on AMD, within an innermost run elsewhere */
    ck_assert(ls_plan_pairs_previous(0, 5) && !ls_plan_pairs_previous(0, 4));
    ck_assert(ls_plan_pairs_previous(3, 1) && !ls_plan_pairs_previous(3, 2));
    ck_assert(!ls_plan_pairs_previous(3, 3) && ls_plan_pairs_previous(3, 4));
    ck_assert(!ls_plan_pairs_previous(1, 1));
    /* which targets pair which lanes */
    ls_plan_target g942 = ls_plan_target_from_arch("gfx942"),
                   g1030 = ls_plan_target_from_arch("gfx1030"),
                   g1100 = ls_plan_target_from_arch("gfx1100"),
                   sm90 = ls_plan_target_from_arch("sm_90"),
                   sm70 = ls_plan_target_from_arch("sm_70");
    g942.wave = 64;
    g1030.wave = 32;
    ck_assert(ls_plan_combine_pairs(g942, LS_ET_F32, LS_COMB_ADD));
    ck_assert(ls_plan_combine_pairs(g942, LS_ET_F32, LS_COMB_MUL));
    ck_assert(!ls_plan_combine_pairs(g942, LS_ET_F32, LS_COMB_MAXNUMF)); /* no v_pk_max_f32 */
    ck_assert(ls_plan_combine_pairs(g942, LS_ET_F16, LS_COMB_ADD));
    ck_assert(!ls_plan_combine_pairs(g942, LS_ET_F16, LS_COMB_MAXNUMF)); /* quieted: 2 a pair */
    ck_assert(ls_plan_combine_pairs(g942, LS_ET_I16, LS_COMB_ADD));
    ck_assert(ls_plan_combine_pairs(g942, LS_ET_I16, LS_COMB_MAXSI)); /* v_pk_max_i16 */
    ck_assert(!ls_plan_combine_pairs(g942, LS_ET_BF16, LS_COMB_ADD));
    ck_assert(!ls_plan_combine_pairs(g942, LS_ET_I32, LS_COMB_ADD));
    ck_assert(!ls_plan_combine_pairs(g1030, LS_ET_F32, LS_COMB_ADD));
    g1100.wave = 32; /* VOPD dual issue is wave32's */
    ck_assert(ls_plan_combine_pairs(g1100, LS_ET_F32, LS_COMB_ADD));
    g1100.wave = 64;
    ck_assert(!ls_plan_combine_pairs(g1100, LS_ET_F32, LS_COMB_ADD));
    ck_assert(ls_plan_combine_pairs(g1100, LS_ET_F16, LS_COMB_ADD));
    ck_assert(!ls_plan_combine_pairs(sm90, LS_ET_F32, LS_COMB_ADD));
    ck_assert(ls_plan_combine_pairs(sm90, LS_ET_F16, LS_COMB_MAXIMUMF));
    ck_assert(ls_plan_combine_pairs(sm90, LS_ET_BF16, LS_COMB_ADD));
    ck_assert(ls_plan_combine_pairs(sm70, LS_ET_F16, LS_COMB_ADD));
    ck_assert(!ls_plan_combine_pairs(sm70, LS_ET_F16, LS_COMB_MAXIMUMF));
    ck_assert(!ls_plan_combine_pairs(sm70, LS_ET_BF16, LS_COMB_ADD));
}
END_TEST

/* Packed math in the body: a 4 x 1024 f16 row reduction of (x - y) * y
 * (a dequantisation's shape), 4 elements a thread.  The subf and the
 * mulf pair (v_pk_add_f16 with a negated operand, sub.f16x2; v_pk_mul_f16,
 * mul.f16x2); the mulf is the one the FMA chain absorbs, so one body
 * instruction an element issues, and the second of two neighbours issues
 * it in no slot of its own.  mi300x: 512 / (64 x 4) = 2 batches of 4, 8
 * registers, any two neighbours (SLP): 4 pairs an iteration.  h100: 4
 * batches of 4, 16 registers, pairs only inside each 4-element innermost
 * vector: 8. */
START_TEST(body_ops_pair_with_their_neighbours)
{
    static const struct {
        const char *chip;
        int lanes;
        int64_t run, pairs;
    } cases[] = {{"mi300x", 64, 0, 4}, {"h100", 32, 4, 8}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char text[4096];
        two_input_text(text, sizeof text, cases[c].lanes, "f16",
                       "  %d = arith.subf %x, %y : f16\n  %m = arith.mulf %d, %y : f16\n"
                       "  %s = arith.addf %m, %o : f16\n");
        built b;
        build_text(&b, text, cases[c].chip);
        ck_assert_int_eq(b.plan.body_pair_alu, 2);
        ck_assert(b.plan.body_mul_pairs);
        ck_assert_int_ne(ls_functional_fma(&b.plan), LS_FMA_NONE);
        ck_assert_int_eq(ls_plan_pair_run(&b.plan, false), cases[c].run);
        /* the body's subf reads both loads; a free one is a pair's second */
        int body = 0, free_body = 0;
        for (int i = b.e.loop_begin; i < b.e.loop_end; i++)
            if (b.e.code[i].kind == I_ALU && is_load(&b.e, b.e.code[i].dep[0]) &&
                is_load(&b.e, b.e.code[i].dep[1])) {
                body++;
                free_body += b.e.code[i].issues == 0;
            }
        ck_assert_int_eq(body, b.e.unroll * 2 * cases[c].pairs);
        ck_assert_int_eq(free_body, b.e.unroll * cases[c].pairs);
        unbuild(&b);
    }
    /* the ops that pair, per target */
    ls_body bd;
    memset(&bd, 0, sizeof bd);
    bd.n = 3;
    bd.inst[0] = inst(LS_BOP_INPUT, LS_ET_F32, LS_ET_F32, -1, -1);
    bd.inst[1] = inst(LS_BOP_TRUNCF, LS_ET_F16, LS_ET_F32, 0, -1);
    bd.inst[2] = inst(LS_BOP_EXTF, LS_ET_F32, LS_ET_F16, 1, -1);
    bool last;
    /* cvt_pk: gfx950 and sm_80+; an extf never */
    ck_assert_int_eq(ls_body_paired_ops(&bd, ls_plan_target_from_arch("gfx950"), &last), 1);
    ck_assert_int_eq(ls_body_paired_ops(&bd, ls_plan_target_from_arch("sm_80"), &last), 1);
    ck_assert_int_eq(ls_body_paired_ops(&bd, ls_plan_target_from_arch("gfx942"), &last), 0);
    ck_assert_int_eq(ls_body_paired_ops(&bd, ls_plan_target_from_arch("sm_70"), &last), 0);
    bd.inst[1] = inst(LS_BOP_SUBF, LS_ET_F32, LS_ET_F32, 0, 0);
    bd.inst[2] = inst(LS_BOP_MULF, LS_ET_F32, LS_ET_F32, 1, 0);
    /* f32: v_pk_add_f32 / v_pk_mul_f32 on gfx942, nothing on NVIDIA */
    ck_assert_int_eq(ls_body_paired_ops(&bd, ls_plan_target_from_arch("gfx942"), &last), 2);
    ck_assert(last);
    ck_assert_int_eq(ls_body_paired_ops(&bd, ls_plan_target_from_arch("sm_90"), &last), 0);
    ck_assert(!last);
}
END_TEST

/* an instruction adding two loaded elements */
static bool pair_sum(const engine *e, int i)
{
    return e->code[i].kind == I_ALU && is_load(e, e->code[i].dep[0]) &&
           is_load(e, e->code[i].dep[1]);
}

START_TEST(packed_sums_start_from_the_identity)
{
    /* f32: the chain's first step adds the element to +0.0, issued (x + 0.0
     * is not x for x = -0.0): 4 steps an accumulator */
    built b;
    build(&b, "sum", "f32", "mi300x", 4);
    ck_assert_int_eq(ls_functional_fma(&b.plan), LS_FMA_NONE);
    ck_assert_int_eq(b.plan.acc_registers, 2);
    check_packed(&b.e, 2, 4, false);
    unbuild(&b);
    /* i32 on h100: x + 0 folds, and the fold of an accumulator's 4
     * elements is llvm.vector.reduce.add's halving tree (e0 + e2) + (e1 +
     * e3) (512 / (32 x 4) = 4 accumulators), which ptxas compiles as
     * IADD3(e0, e2, e1 + e3): 2 (tools/amd-dpp-counts.py --sass-folds).
     * It fuses two dependent adds into one IADD3 in a chain too (--sass: 8
     * SASS instructions for 16 chained i32 adds on sm_90), so the
     * iterations' sums join the accumulator two at a time, IADD3(acc, t0,
     * t1), the first of which reads the last across the back edge (ptxas:
     * 2.5 an iteration, --sass-folds' loop of 4 values) */
    build(&b, "sum", "i32", "h100", 4);
    ck_assert(b.plan.combine_fuses3);
    ck_assert_int_eq(b.plan.acc_registers, 4);
    int64_t u = b.e.unroll;
    ck_assert_int_gt(u, 1);
    int *alu = ls_xcalloc((size_t)(b.e.loop_end - b.e.loop_begin), sizeof *alu);
    int total = 0, first = 0, roots = 0, three = 0, carried = 0;
    for (int j = 0; j < u; j++) {
        int n = iteration_alus(&b.e, j, alu);
        total += n;
        for (int x = 0; x < n; x++) {
            const tinst *in = &b.e.code[alu[x]];
            first += is_load(&b.e, in->dep[0]) && is_load(&b.e, in->dep[1]);
            /* the tree's root: reads two loads and the other pair's sum */
            roots += is_load(&b.e, in->dep[0]) && is_load(&b.e, in->dep[1]) && in->dep[2] >= 0 &&
                     pair_sum(&b.e, in->dep[2]);
            three += in->dep[2] >= 0;
            for (int k = 0; k < LS_TINST_DEPS; k++) {
                int p = in->dep[k];
                /* reads of a later instruction (or itself): the back edge's */
                carried += p >= 0 && loop_alu(&b.e, p) && p >= alu[x];
            }
        }
    }
    ck_assert_int_eq(first, 8 * u); /* e1 + e3 and the root, for each accumulator */
    ck_assert_int_eq(roots, 4 * u);
    ck_assert_int_eq(total, 4 * (2 * u + (u + 1) / 2));
    ck_assert_int_eq(three, 4 * (u + u / 2));
    ck_assert_int_eq(carried, 4);
    free(alu);
    unbuild(&b);
    /* gfx942 fuses two dependent i32 adds into one v_add3_u32 (tools/
     * amd-dpp-counts.py): per accumulator add3(e0, e1, e2) reading three
     * loads, then add(., e3); the iterations' chains joined into the
     * accumulator two at a time, add3(acc, t0, t1), the first of which
     * reads the last across the back edge */
    build(&b, "sum", "i32", "mi300x", 4);
    ck_assert(b.plan.combine_fuses3);
    ck_assert_int_eq(b.plan.acc_registers, 2);
    u = b.e.unroll;
    ck_assert_int_gt(u, 1);
    alu = ls_xcalloc((size_t)(b.e.loop_end - b.e.loop_begin), sizeof *alu);
    total = three = carried = 0;
    for (int j = 0; j < u; j++) {
        int n = iteration_alus(&b.e, j, alu);
        total += n;
        for (int x = 0; x < n; x++) {
            const tinst *in = &b.e.code[alu[x]];
            three += in->dep[2] >= 0; /* a sum has no FMA: a third operand is an add3's */
            for (int k = 0; k < LS_TINST_DEPS; k++)
                carried += in->dep[k] >= 0 && loop_alu(&b.e, in->dep[k]) && in->dep[k] >= alu[x];
        }
    }
    ck_assert_int_eq(total, 2 * (2 * u + (u + 1) / 2));
    ck_assert_int_eq(three, 2 * (u + u / 2)); /* per iteration one, per two a join */
    ck_assert_int_eq(carried, 2);
    free(alu);
    unbuild(&b);
}
END_TEST

/* No AMD GPU adds in bf16: LLVM's AMDGPU backend widens the operands,
 * adds in f32 and rounds back (tools/amd-op-counts.sh runs llc-22 on
 * dependent chains: 8 instructions on gfx90a, gfx942 and gfx1030, 7 on
 * gfx1100 and gfx1201, 4 on gfx950 with its v_cvt_pk_bf16_f32).  Each
 * combine of a bf16 accumulator is that many dependent ALU instructions,
 * the first reading the operands; a bf16 body op the same. */
START_TEST(bf16_combines_as_amd_promotes_them)
{
    static const struct {
        const char *arch;
        int n;
    } t[] = {{"gfx942", 8},  {"gfx90a", 8},  {"gfx1030", 8}, {"gfx950", 4},
             {"gfx1100", 7}, {"gfx1201", 7}, {"sm_90", 1}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        ls_plan_target pt = ls_plan_target_from_arch(t[i].arch);
        ck_assert_int_eq(ls_bf16_combine_alu(pt, LS_COMB_ADD, LS_ET_BF16), t[i].n);
        ck_assert_int_eq(ls_bf16_combine_alu(pt, LS_COMB_MAXNUMF, LS_ET_BF16), t[i].n);
        ck_assert_int_eq(ls_bf16_combine_alu(pt, LS_COMB_ADD, LS_ET_F16), 1);
        ck_assert_int_eq(ls_bf16_combine_alu(pt, LS_COMB_ADD, LS_ET_F32), 1);
        /* a body's bf16 multiply, fma and truncf of an f32 */
        ls_body body;
        memset(&body, 0, sizeof body);
        body.n = 4;
        for (int k = 0; k < 3; k++)
            body.inst[k] = (ls_body_inst){
                .op = LS_BOP_INPUT, .type = LS_ET_BF16, .index = k, .a = -1, .b = -1, .c = -1};
        body.inst[3] =
            (ls_body_inst){.op = LS_BOP_MULF, .type = LS_ET_BF16, .a = 0, .b = 1, .c = -1};
        int alu, sfu;
        ls_body_machine_ops(&body, pt, &alu, &sfu);
        ck_assert_int_eq(alu, t[i].n);
        ck_assert_int_eq(sfu, 0);
        const char *how = NULL; /* what explain says of it */
        ck_assert_int_eq(ls_math_lowering(&body, 3, pt, &how, &alu, &sfu), pt.amd);
        ck_assert(!pt.amd || (strstr(how, "no AMD GPU computes in bf16") && alu == t[i].n));
        body.inst[3] = (ls_body_inst){.op = LS_BOP_FMA, .type = LS_ET_BF16, .a = 0, .b = 1, .c = 2};
        ls_body_machine_ops(&body, pt, &alu, &sfu);
        ck_assert_int_eq(alu, !pt.amd ? 1 : pt.bf16_cvt ? 6 : t[i].n + 1);
        body.inst[2].type = LS_ET_F32;
        body.inst[3] = inst(LS_BOP_TRUNCF, LS_ET_BF16, LS_ET_F32, 2, -1);
        ls_body_machine_ops(&body, pt, &alu, &sfu);
        ck_assert_int_eq(alu, !pt.amd ? 1 : pt.bf16_cvt ? 1 : 5);
    }
    /* the engine: a packed bf16 sum on gfx942, 2 accumulators of 4 steps
     * (the first from +0.0), each step and each combine 8 instructions */
    built b;
    build(&b, "sum", "bf16", "mi300x", 4);
    ck_assert_int_eq(b.plan.combine_alu, 8);
    char *dump = NULL;
    size_t dump_len = 0;
    FILE *df = open_memstream(&dump, &dump_len);
    ls_plan_dump(&b.plan, df);
    fclose(df);
    ck_assert_msg(strstr(dump, "8 dependent instructions each"), "%s", dump);
    free(dump);
    int64_t u = b.e.unroll;
    int *alu = ls_xcalloc((size_t)(b.e.loop_end - b.e.loop_begin), sizeof *alu);
    for (int j = 0; j < u; j++) {
        int n = iteration_alus(&b.e, j, alu);
        ck_assert_int_eq(n, (2 * 4 + 2) * 8);
        int carried = 0, chained = 0;
        for (int x = 0; x < n; x++) {
            const tinst *in = &b.e.code[alu[x]];
            chained += in->dep[0] == alu[x] - 1 && in->dep[1] < 0 && x % 8 != 0;
            for (int k = 0; k < LS_TINST_DEPS; k++) {
                int p = in->dep[k];
                carried += p >= 0 && loop_alu(&b.e, p) && p >= alu[x];
            }
        }
        ck_assert_int_eq(chained, (2 * 4 + 2) * 7); /* each reads the one before */
        /* the back edge: each accumulator's combine, at its first instruction */
        ck_assert_int_eq(carried, j == 0 ? 2 : 0);
    }
    free(alu);
    ls_sim_result bf, f16;
    ls_diag dg;
    ck_assert_msg(ls_engine_run(&b.plan, &b.hw, &bf, NULL, &dg) == LS_OK, "%s", dg.msg);
    unbuild(&b);
    build(&b, "sum", "f16", "mi300x", 4);
    ck_assert_int_eq(b.plan.combine_alu, 1);
    ck_assert_msg(ls_engine_run(&b.plan, &b.hw, &f16, NULL, &dg) == LS_OK, "%s", dg.msg);
    unbuild(&b);
    /* the acc combine 8 for 1.  The subgroup reduce (64 lanes, gfx942) as
     * LLVM compiles it (src/amd_dpp_counts.c): f16 four moves folded into
     * v_add_f16_dpp, row_bcast_15's copy, move and add, row_bcast_31
     * folded, readlane 63 and its v_mov: 10; bf16 each of the six steps a
     * copy, the move and the promoted add (8), the readlane and two: 63 */
    int64_t ac = f16.stage[LS_STAGE_ACC_COMBINE].instructions;
    int64_t sr = f16.stage[LS_STAGE_SUBGROUP_REDUCE].instructions;
    ck_assert_int_gt(ac, 0);
    ck_assert_int_gt(sr, 0);
    ck_assert_int_eq(bf.stage[LS_STAGE_ACC_COMBINE].instructions, 8 * ac);
    ck_assert_int_eq(10 * bf.stage[LS_STAGE_SUBGROUP_REDUCE].instructions, 63 * sr);
    ck_assert_int_gt(bf.cycles, f16.cycles);
}
END_TEST

START_TEST(unpacked_contraction_fused_on_amd_only)
{
    /* thread 1: 512 / 64 = 8 batches on mi300x, 512 / 32 = 16 on h100 */
    built b;
    build(&b, "mul", "f32", "mi300x", 1);
    ck_assert_int_eq(ls_functional_fma(&b.plan), LS_FMA_AMD);
    int *alu = ls_xcalloc((size_t)(b.e.loop_end - b.e.loop_begin), sizeof *alu);
    int64_t u = b.e.unroll;
    for (int j = 0; j < u; j++) {
        int n = iteration_alus(&b.e, j, alu);
        ck_assert_int_eq(n, 8); /* one FMA a register */
        for (int x = 0; x < n; x++) {
            const tinst *in = &b.e.code[alu[x]];
            ck_assert(is_load(&b.e, in->dep[0]) && is_load(&b.e, in->dep[2]));
            ck_assert(loop_alu(&b.e, in->dep[1])); /* the accumulator: the FMA before */
            ck_assert_int_eq(b.e.code[in->dep[1]].iter_offset, j == 0 ? u - 1 : j - 1);
        }
    }
    free(alu);
    unbuild(&b);
    build(&b, "mul", "f32", "h100", 1);
    ck_assert_int_eq(ls_functional_fma(&b.plan), LS_FMA_NONE);
    alu = ls_xcalloc((size_t)(b.e.loop_end - b.e.loop_begin), sizeof *alu);
    u = b.e.unroll;
    for (int j = 0; j < u; j++) {
        int n = iteration_alus(&b.e, j, alu);
        ck_assert_int_eq(n, 2 * 16); /* a multiply and an add a register */
        for (int x = 0; x < n; x++)
            ck_assert_int_eq(b.e.code[alu[x]].dep[2], -1);
    }
    free(alu);
    unbuild(&b);
}
END_TEST

/* No partial_reduction: a serial `reduction` level of 512 (h100: 32 lanes
 * x thread 4 = 4 batches of 4, 16 registers a row), or the whole row of
 * 1024 (32 registers; mi300x's 64 lanes, half as many).  The
 * local contraction's chain is the row's value: per iteration one FMA a
 * register (both loads read), the first from the identity, each reading
 * the one before in the same iteration -- no add after it, nothing read
 * across iterations -- and no thread reduce. */
START_TEST(contract_chain_is_the_value)
{
    static const struct {
        const char *tiling;
        int64_t regs, iterations;
    } cases[] = {{"reduction = [0, 512], ", 16, 2}, {"", 32, 1}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int amd = 0; amd < 2; amd++) {
            built b;
            build_tiled(&b, "mul", "f32", amd ? "mi300x" : "h100", 4, cases[c].tiling);
            int64_t regs = amd ? cases[c].regs / 2 : cases[c].regs; /* 64 lanes: half */
            ck_assert_int_eq(ls_functional_fma(&b.plan), LS_FMA_CONTRACT);
            ck_assert_int_eq(b.plan.acc_registers, 1);
            ck_assert_int_eq(b.plan.iterations, cases[c].iterations);
            int *alu = ls_xcalloc((size_t)(b.e.loop_end - b.e.loop_begin), sizeof *alu);
            for (int j = 0; j < b.e.unroll; j++) {
                int n = iteration_alus(&b.e, j, alu), starts = 0;
                ck_assert_int_eq(n, regs);
                for (int x = 0; x < n; x++) {
                    const tinst *in = &b.e.code[alu[x]];
                    ck_assert(is_load(&b.e, in->dep[0]) && is_load(&b.e, in->dep[2]));
                    if (in->dep[1] < 0) {
                        starts++;
                        continue;
                    }
                    ck_assert(loop_alu(&b.e, in->dep[1]));
                    ck_assert_int_lt(in->dep[1], alu[x]); /* not the back edge */
                    ck_assert_int_eq(b.e.code[in->dep[1]].iter_offset, j);
                }
                ck_assert_int_eq(starts, 1);
            }
            free(alu);
            ls_diag dg;
            ls_diag_clear(&dg);
            ck_assert_msg(ls_engine_run(&b.plan, &b.hw, &b.res, NULL, &dg) == LS_OK, "%s", dg.msg);
            ck_assert_int_eq(b.res.stage[LS_STAGE_THREAD_REDUCE].instructions, 0);
            /* 4 rows (a subgroup each) x iterations x (a 4-wide load of each
             * operand a batch, an FMA a register) */
            ck_assert_int_eq(b.res.stage[LS_STAGE_LOAD_ACCUMULATE].instructions,
                             4 * cases[c].iterations * (2 * regs / 4 + regs));
            unbuild(&b);
        }
}
END_TEST

/* The same for a sum: one add a register from the identity, issued for a
 * float sum (+0.0: MLIR's additive identity, which LLVM keeps), folded for
 * an integer one (the chain starts with the first register) -- R or R - 1
 * adds (an i32 sum on NVIDIA: the tree of R - 1 that ptxas fuses to
 * fewer), where a thread reduce after per-register accumulators took
 * 2R - 1 or 2R - 2 -- and nothing read across iterations. */
START_TEST(whole_sum_is_one_local_reduce)
{
    static const char *const tys[] = {"f32", "i32"};
    for (int t = 0; t < 2; t++) {
        built b;
        build_tiled(&b, "sum", tys[t], "h100", 4, "reduction = [0, 512], ");
        ck_assert(b.d->local_reduce_all);
        ck_assert_int_eq(ls_functional_fma(&b.plan), LS_FMA_NONE);
        ck_assert_int_eq(b.plan.acc_registers, 1);
        ck_assert_int_eq(b.plan.local_reduce_ops, 0);
        int *alu = ls_xcalloc((size_t)(b.e.loop_end - b.e.loop_begin), sizeof *alu);
        for (int j = 0; j < b.e.unroll; j++) {
            int n = iteration_alus(&b.e, j, alu);
            /* i32: ptxas's fused tree over the 16 registers, 10
             * (tools/amd-dpp-counts.py --sass-folds) */
            ck_assert_int_eq(n, t == 0 ? 16 : 10);
            for (int x = 0; x < n; x++)
                for (int k = 0; k < LS_TINST_DEPS; k++)
                    ck_assert_int_lt(b.e.code[alu[x]].dep[k], alu[x]);
        }
        free(alu);
        ls_diag dg;
        ls_diag_clear(&dg);
        ck_assert_msg(ls_engine_run(&b.plan, &b.hw, &b.res, NULL, &dg) == LS_OK, "%s", dg.msg);
        ck_assert_int_eq(b.res.stage[LS_STAGE_THREAD_REDUCE].instructions, 0);
        unbuild(&b);
    }
}
END_TEST

/* LLVM's unroller sizes a packed contraction's loop with its FMA chain: on
 * mi300x IREE's default matvec config (8 rows a thread, 8 f16 each) is
 * 4 + 8 x (1 + 1) + (1 + 1) = 22 for the addresses, loads and loop, then
 * 8 vectors x 1 op (the mulf, now the math.fma) x 4 pieces = 32, then one
 * add per accumulator (8) = 62; BEInsns 5 leaves 57, and 8 trips x 57
 * pass Threshold 300, so the count is (150 - 5) / 57 = 2, which divides
 * 8.  Counting a multiply and an add per vector (86, 81) would leave the
 * loop rolled. */
START_TEST(unroller_counts_the_fma_chain)
{
    ls_diag dg;
    ls_module *m = load_text(
        "func.func @mv(%a: tensor<32000x4096xf16>, %b: tensor<4096xf16>, %c: tensor<32000xf16>) "
        "attributes {translation_info = #iree_codegen.translation_info<pipeline = "
        "LLVMGPUVectorDistribute workgroup_size = [64, 1, 1] subgroup_size = 64>} {\n"
        "%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
        "affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = "
        "[\"parallel\", \"reduction\"]} ins(%a, %b : tensor<32000x4096xf16>, tensor<4096xf16>) "
        "outs(%c : tensor<32000xf16>) attrs = {lowering_config = #iree_gpu.lowering_config<{"
        "workgroup = [8, 0], thread = [0, 8], partial_reduction = [0, 512], lane_basis = [[1, 64], "
        "[0, 1]], subgroup_basis = [[1, 1], [0, 1]]}>} {\n"
        "^bb0(%x: f16, %y: f16, %o: f16):\n  %m = arith.mulf %x, %y : f16\n"
        "  %s = arith.addf %m, %o : f16\n  linalg.yield %s : f16\n} -> tensor<32000xf16>\n}\n",
        &dg);
    ck_assert_msg(dg.status == LS_OK, "%s", dg.msg);
    ls_module_set_math(m, ls_math_mode_for_arch("gfx942"));
    ls_derived *d = ls_xcalloc(1, sizeof *d);
    ls_plan plan;
    ls_hw hw;
    ck_assert_msg(ls_derive(&m->problems[0], d, &dg) == LS_OK, "%s", dg.msg);
    ck_assert_msg(
        ls_plan_build(&m->problems[0], d, ls_plan_target_from_arch("gfx942"), &plan, &dg) == LS_OK,
        "%s", dg.msg);
    ck_assert_msg(ls_hw_load("mi300x", &hw, &dg) == LS_OK, "%s", dg.msg);
    ck_assert_int_eq(ls_functional_fma(&plan), LS_FMA_CHAIN);
    ck_assert_int_eq(plan.iterations, 8);
    ck_assert_int_eq(plan.acc_registers, 8);
    ck_assert_int_eq(hw.unroll_be_insns, 5);
    ck_assert_int_eq(hw.unroll_partial_threshold, 150);
    ck_assert_int_eq(ls_engine_unroll(&plan, &hw), 2);
    free(d);
    free(m);
}
END_TEST

static Suite *accumulate_suite(void)
{
    Suite *s = suite_create("accumulate");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, packed_contraction_is_an_fma_chain_then_one_add);
    tcase_add_test(tc, f16_products_fold_their_extensions_on_amd);
    tcase_add_test(tc, packed_math_pairs_accumulators);
    tcase_add_test(tc, body_ops_pair_with_their_neighbours);
    tcase_add_test(tc, packed_sums_start_from_the_identity);
    tcase_add_test(tc, unpacked_contraction_fused_on_amd_only);
    tcase_add_test(tc, unroller_counts_the_fma_chain);
    tcase_add_test(tc, contract_chain_is_the_value);
    tcase_add_test(tc, whole_sum_is_one_local_reduce);
    tcase_add_test(tc, bf16_combines_as_amd_promotes_them);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(accumulate_suite)
