/* test_fused_products.c: products fused as IREE's lowering and the target
 * fuse them -- a sum of squares per thread from values on no grid (every
 * rounding shows), contraction chains without a partial reduction, a bf16
 * FMA rounded as the target does, a reduced multiply-add.  Expected values
 * are computed here from the inputs.  The contractions themselves:
 * test_contract.c. */
#include <math.h>

#include "lanescope/body.h"
#include "lanescope/engine.h"
#include "lanescope/functional.h"
#include "lanescope/hwmodel.h"
#include "lanescope/import.h"
#include "lanescope/layout.h"
#include "lanescope/npy.h"
#include "lanescope/plan.h"
#include "lanescope/value.h"
#include "testutil.h"

#define TI(wg, sg)                                                                                 \
    "translation_info = #iree_codegen.translation_info<pipeline = LLVMGPUVectorDistribute "        \
    "workgroup_size = [" #wg ", 1, 1] subgroup_size = " #sg ">"

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

static Suite *fused_products_suite(void)
{
    Suite *s = suite_create("fused_products");
    TCase *tc = tcase_create("fused_products");
    tcase_add_test(tc, products_fused_as_iree_fuses_them);
    tcase_add_test(tc, contract_chain_without_partial_reduction);
    tcase_add_test(tc, bf16_fma_rounds_as_the_target_does);
    tcase_add_test(tc, reduced_muladd_fused);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(fused_products_suite)
