/* test_sim.c: the lowered plan and the functional model: values, identities,
 * Example 2's hand-derived plan, the DPP and XOR lowerings, every combiner x
 * element type over random valid configs against the reference, and a
 * sabotaged plan that must fail the check; the check's vectorised sum
 * kernels against their scalar definitions. */
#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include "lanescope/functional.h"
#include "lanescope/value.h"
#include "testutil.h"
#include "../sim/func_kernels.h"
#include "../sim/functional_internal.h"

START_TEST(half_precision_rounding)
{
    /* f16: 1 + 2^-11 is a tie between 1 and 1 + 2^-10 -> even (1) */
    ck_assert_int_eq(ls_f32_to_f16(1.0f + 0x1p-11f), 0x3c00);
    ck_assert_int_eq(ls_f32_to_f16(1.0f + 0x1p-11f + 0x1p-20f), 0x3c01);
    ck_assert_int_eq(ls_f32_to_f16(65504.0f), 0x7bff);
    ck_assert_int_eq(ls_f32_to_f16(65520.0f), 0x7c00); /* rounds to infinity */
    ck_assert_int_eq(ls_f32_to_f16(0x1p-24f), 0x0001); /* smallest subnormal */
    ck_assert(ls_f16_to_f32(0x0001) == 0x1p-24f);
    ck_assert(ls_f16_to_f32(0xc000) == -2.0f);
    /* bf16: 1 + 2^-8 ties to 1; 1 + 3*2^-8 ties up to 1 + 2^-6 */
    ck_assert_int_eq(ls_f32_to_bf16(1.0f + 0x1p-8f), 0x3f80);
    ck_assert_int_eq(ls_f32_to_bf16(1.0f + 0x3p-8f), 0x3f82);
    ck_assert(ls_bf16_to_f32(0x3f82) == 1.0f + 0x1p-6f);
    /* every f16 round-trips */
    for (uint32_t h = 0; h < 0x10000; h++) {
        uint16_t x = (uint16_t)h;
        if ((x & 0x7c00) == 0x7c00 && (x & 0x3ff))
            continue; /* NaN payloads */
        REQUIRE(ls_f32_to_f16(ls_f16_to_f32(x)) == x, "f16 0x%04x does not round-trip", h);
    }
    /* f16 add rounds once: 2048 + 1 = 2049 is not representable -> 2048 (even) */
    ls_value a = ls_value_from_double(2048, LS_ET_F16), b = ls_value_from_double(1, LS_ET_F16);
    ck_assert(ls_value_to_double(ls_combine(LS_COMB_ADD, LS_ET_F16, a, b), LS_ET_F16) == 2048);
    b = ls_value_from_double(3, LS_ET_F16);
    ck_assert(ls_value_to_double(ls_combine(LS_COMB_ADD, LS_ET_F16, a, b), LS_ET_F16) == 2052);
}
END_TEST

/* The FP8 formats, bit patterns derived by hand from APFloat's definitions
 * (sign, exponent, mantissa; bias 7/15 for FN/E5M2, 8/16 for FNUZ). */
START_TEST(fp8_formats)
{
    /* 1.0: E4M3FN 0.0111.000, E4M3FNUZ 0.1000.000, E5M2 0.01111.00, E5M2FNUZ 0.10000.00 */
    ck_assert_uint_eq(ls_value_from_double(1.0, LS_ET_F8E4M3FN), 0x38);
    ck_assert_uint_eq(ls_value_from_double(1.0, LS_ET_F8E4M3FNUZ), 0x40);
    ck_assert_uint_eq(ls_value_from_double(1.0, LS_ET_F8E5M2), 0x3c);
    ck_assert_uint_eq(ls_value_from_double(1.0, LS_ET_F8E5M2FNUZ), 0x40);
    /* the largest finite values: 448 (0x7e), 240 (0x7f), 57344 (0x7b, 0x7f) */
    ck_assert(ls_value_to_double(0x7e, LS_ET_F8E4M3FN) == 448.0);
    ck_assert(ls_value_to_double(0x7f, LS_ET_F8E4M3FNUZ) == 240.0);
    ck_assert(ls_value_to_double(0x7b, LS_ET_F8E5M2) == 57344.0);
    ck_assert(ls_value_to_double(0x7f, LS_ET_F8E5M2FNUZ) == 57344.0);
    /* NaN patterns; no NaN at E4M3FNUZ's 0x7f, none at 0x80 in the OCP formats (-0) */
    ck_assert(isnan(ls_value_to_double(0x7f, LS_ET_F8E4M3FN)));
    ck_assert(isnan(ls_value_to_double(0x80, LS_ET_F8E4M3FNUZ)));
    ck_assert(isnan(ls_value_to_double(0x80, LS_ET_F8E5M2FNUZ)));
    ck_assert(ls_value_to_double(0x80, LS_ET_F8E4M3FN) == 0 && signbit(ls_value_to_double(0x80, LS_ET_F8E4M3FN)));
    ck_assert(isinf(ls_value_to_double(0x7c, LS_ET_F8E5M2)));
    /* smallest subnormals: 2^-9 (E4M3FN), 2^-10 (E4M3FNUZ), 2^-16 (E5M2), 2^-17 (E5M2FNUZ) */
    ck_assert(ls_value_to_double(0x01, LS_ET_F8E4M3FN) == 0x1p-9);
    ck_assert(ls_value_to_double(0x01, LS_ET_F8E4M3FNUZ) == 0x1p-10);
    ck_assert(ls_value_to_double(0x01, LS_ET_F8E5M2) == 0x1p-16);
    ck_assert(ls_value_to_double(0x01, LS_ET_F8E5M2FNUZ) == 0x1p-17);
    /* rounding: 1 + 1/16 ties to 1 (even) in E4M3; 1 + 3/16 ties up to 1.25 */
    ck_assert_uint_eq(ls_value_from_double(1.0625, LS_ET_F8E4M3FN), 0x38);
    ck_assert_uint_eq(ls_value_from_double(1.1875, LS_ET_F8E4M3FN), 0x3a);
    /* overflow: NaN where there is no infinity, infinity in E5M2; 464 rounds to 448 */
    ck_assert_uint_eq(ls_value_from_double(464.0, LS_ET_F8E4M3FN), 0x7e);
    ck_assert_uint_eq(ls_value_from_double(500.0, LS_ET_F8E4M3FN), 0x7f);
    ck_assert_uint_eq(ls_value_from_double(300.0, LS_ET_F8E4M3FNUZ), 0x80);
    ck_assert_uint_eq(ls_value_from_double(-1e6, LS_ET_F8E5M2), 0xfc);
    /* FNUZ has no -0 */
    ck_assert_uint_eq(ls_value_from_double(-0.0, LS_ET_F8E4M3FNUZ), 0x00);
    /* max/min start at the largest finite value where there is no infinity */
    ck_assert_uint_eq(ls_identity(LS_COMB_MAXIMUMF, LS_ET_F8E4M3FNUZ), 0xff);
    ck_assert_uint_eq(ls_identity(LS_COMB_MINNUMF, LS_ET_F8E4M3FN), 0x7e);
    ck_assert_uint_eq(ls_identity(LS_COMB_MAXNUMF, LS_ET_F8E5M2), 0xfc);
    /* every non-NaN pattern round-trips, and every input value is exact */
    ls_elem_type f8[] = {LS_ET_F8E4M3FN, LS_ET_F8E5M2, LS_ET_F8E4M3FNUZ, LS_ET_F8E5M2FNUZ};
    for (int k = 0; k < 4; k++) {
        for (unsigned b = 0; b < 256; b++) {
            double d = ls_value_to_double(b, f8[k]);
            if (isnan(d))
                continue;
            REQUIRE(ls_value_from_double(d, f8[k]) == b, "%s 0x%02x does not round-trip",
                    ls_elem_type_name(f8[k]), b);
        }
        for (uint64_t i = 0; i < 1000; i++) {
            ls_value v = ls_input_value(7, i, f8[k], LS_COMB_ADD);
            double d = ls_value_to_double(v, f8[k]);
            REQUIRE(d >= -2 && d < 2 && ls_value_from_double(d, f8[k]) == v,
                    "%s input %g is not exact", ls_elem_type_name(f8[k]), d);
        }
    }
    ck_assert_int_eq(ls_elem_type_bits(ls_elem_type_from_name("f8E5M2FNUZ", 10)), 8);
}
END_TEST

/* OCP MX's element and scale formats, values derived by hand from APFloat's
 * semFloat4E2M1FN (bias 1, no NaN or infinity) and semFloat8E8M0FNU
 * (2^(e-127), 0xff NaN), and arith.scaling_extf as MLIR's ExpandOps.cpp
 * expands it. */
START_TEST(mx_formats)
{
    static const double e2m1[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
    for (unsigned b = 0; b < 16; b++) {
        double d = ls_value_to_double(b, LS_ET_F4E2M1FN);
        REQUIRE(d == (b & 8 ? -e2m1[b & 7] : e2m1[b & 7]), "f4E2M1FN 0x%x is %g", b, d);
        REQUIRE(ls_value_from_double(d, LS_ET_F4E2M1FN) == (b == 8 ? 8u : b),
                "f4E2M1FN 0x%x does not round-trip", b);
    }
    /* saturation past 6, NaN to +6, ties to even (1.25 -> 1, 2.5 -> 2) */
    ck_assert_uint_eq(ls_value_from_double(100.0, LS_ET_F4E2M1FN), 0x7);
    ck_assert_uint_eq(ls_value_from_double(-7.0, LS_ET_F4E2M1FN), 0xf);
    ck_assert_uint_eq(ls_value_from_double(NAN, LS_ET_F4E2M1FN), 0x7);
    ck_assert_uint_eq(ls_value_from_double(1.25, LS_ET_F4E2M1FN), 0x2);
    ck_assert_uint_eq(ls_value_from_double(2.5, LS_ET_F4E2M1FN), 0x4);
    /* E8M0: 127 is 1, 0 is 2^-127, 0xff NaN; 3 (1.5 x 2) rounds up to 4,
     * 2.9 down to 2; zero gives the smallest pattern, overflow NaN */
    ck_assert(ls_value_to_double(127, LS_ET_F8E8M0FNU) == 1.0);
    ck_assert(ls_value_to_double(0, LS_ET_F8E8M0FNU) == 0x1p-127);
    ck_assert(isnan(ls_value_to_double(0xff, LS_ET_F8E8M0FNU)));
    ck_assert_uint_eq(ls_value_from_double(3.0, LS_ET_F8E8M0FNU), 129);
    ck_assert_uint_eq(ls_value_from_double(2.9, LS_ET_F8E8M0FNU), 128);
    ck_assert_uint_eq(ls_value_from_double(0.0, LS_ET_F8E8M0FNU), 0);
    ck_assert_uint_eq(ls_value_from_double(0x1p200, LS_ET_F8E8M0FNU), 0xff);
    /* an integer type given a float identity (issue 15, class 3: the cast
     * of inf or NaN was undefined): saturated, NaN to 0 */
    ck_assert_uint_eq(ls_value_from_double(-INFINITY, LS_ET_I64), UINT64_C(1) << 63);
    ck_assert_uint_eq(ls_value_from_double(INFINITY, LS_ET_I32), 0x7fffffffu);
    ck_assert_uint_eq(ls_value_from_double(NAN, LS_ET_I32), 0);
    ck_assert_uint_eq(ls_value_from_double(-3.0, LS_ET_I8), 0xfd);
    ck_assert_int_eq(ls_elem_type_bits(LS_ET_F4E2M1FN), 4);
    ck_assert_int_eq(ls_elem_type_bits(LS_ET_I4), 4);
    /* scaling_extf: 1.5 x 2^2 = 6; an f32 scale of 3 is truncated to 2
     * (its exponent field), so 1.5 x 3 -> 3; an E8M0 scale of 0x00 extends
     * to +0 (not 2^-127), as the expansion's shift does */
    ls_body b = {0};
    b.n = 3;
    b.inst[0] = (ls_body_inst){.op = LS_BOP_INPUT, .type = LS_ET_F4E2M1FN,
                               .src = LS_ET_F4E2M1FN, .index = 0, .a = -1, .b = -1, .c = -1};
    b.inst[1] = (ls_body_inst){.op = LS_BOP_INPUT, .type = LS_ET_F8E8M0FNU,
                               .src = LS_ET_F8E8M0FNU, .index = 1, .a = -1, .b = -1, .c = -1};
    b.inst[2] = (ls_body_inst){.op = LS_BOP_SCALING_EXTF, .type = LS_ET_F32,
                               .src = LS_ET_F4E2M1FN, .a = 0, .b = 1, .c = -1};
    int bad;
    const char *why;
    ck_assert_msg(ls_body_check(&b, &bad, &why), "%d: %s", bad, why);
    uint64_t v[3], in[2] = {0x3, 129};
    ck_assert(ls_value_to_double(ls_body_eval(&b, in, NULL, v), LS_ET_F32) == 6.0);
    in[1] = 0;
    ck_assert(ls_value_to_double(ls_body_eval(&b, in, NULL, v), LS_ET_F32) == 0.0);
    b.inst[1].type = b.inst[1].src = LS_ET_F32;
    in[1] = ls_value_from_double(3.0, LS_ET_F32);
    ck_assert(ls_value_to_double(ls_body_eval(&b, in, NULL, v), LS_ET_F32) == 3.0);
    /* a narrowing "extension" is refused */
    b.inst[2].type = LS_ET_F4E2M1FN;
    ck_assert(!ls_body_check(&b, &bad, &why));
    ck_assert_int_eq(bad, 2);
}
END_TEST

START_TEST(identities)
{
    ck_assert_uint_eq(ls_identity(LS_COMB_MINSI, LS_ET_I8), 0x7f);
    ck_assert_uint_eq(ls_identity(LS_COMB_MAXSI, LS_ET_I16), 0x8000);
    ck_assert_uint_eq(ls_identity(LS_COMB_MINUI, LS_ET_I32), 0xffffffffu);
    ck_assert_uint_eq(ls_identity(LS_COMB_MAXUI, LS_ET_I64), 0);
    ck_assert_uint_eq(ls_identity(LS_COMB_AND, LS_ET_I8), 0xff);
    ck_assert(isinf(ls_value_to_double(ls_identity(LS_COMB_MAXNUMF, LS_ET_BF16), LS_ET_BF16)));
    /* IREE's truncated constants (reference §4): wrong for narrow signed kinds and AND */
    ck_assert_uint_eq(ls_iree_identity(LS_COMB_MINSI, LS_ET_I8), 0xff); /* -1 */
    ck_assert_uint_eq(ls_iree_identity(LS_COMB_MAXSI, LS_ET_I32), 0);
    ck_assert_uint_eq(ls_iree_identity(LS_COMB_AND, LS_ET_I16), 1);
    ck_assert_uint_eq(ls_iree_identity(LS_COMB_MINUI, LS_ET_I8), 0xff); /* right by luck */
    /* each true identity is neutral for every sampled value of every type */
    static const ls_elem_type types[] = {LS_ET_I8,  LS_ET_I16, LS_ET_I32, LS_ET_I64,
                                         LS_ET_F16, LS_ET_BF16, LS_ET_F32, LS_ET_F64};
    for (int ti = 0; ti < 8; ti++)
        for (int k = 0; k < LS_COMB_COUNT; k++) {
            ls_elem_type t = types[ti];
            bool fl = ls_elem_type_is_float(t);
            if ((fl && ls_combiner_is_int_only((ls_combiner)k)) ||
                (!fl && ls_combiner_is_float_only((ls_combiner)k)))
                continue;
            for (uint64_t i = 0; i < 200; i++) {
                ls_value v = ls_input_value(3, i, t, (ls_combiner)k);
                ls_value r = ls_combine((ls_combiner)k, t, ls_identity((ls_combiner)k, t), v);
                REQUIRE(r == v, "kind %d type %d: identity not neutral", k, ti);
            }
        }
    /* minimumf orders -0 below +0 and propagates NaN; minnumf ignores NaN */
    ls_value pz = ls_value_from_double(0.0, LS_ET_F32), nz = ls_value_from_double(-0.0, LS_ET_F32);
    ck_assert(signbit(ls_value_to_double(ls_combine(LS_COMB_MINIMUMF, LS_ET_F32, pz, nz),
                                         LS_ET_F32)));
    ls_value nan = ls_value_from_double(NAN, LS_ET_F32), one = ls_value_from_double(1, LS_ET_F32);
    ck_assert(isnan(ls_value_to_double(ls_combine(LS_COMB_MAXIMUMF, LS_ET_F32, nan, one),
                                       LS_ET_F32)));
    ck_assert(ls_value_to_double(ls_combine(LS_COMB_MAXNUMF, LS_ET_F32, nan, one), LS_ET_F32) ==
              1.0);
    /* integer wrap and signedness */
    ck_assert_uint_eq(ls_combine(LS_COMB_ADD, LS_ET_I8, 0x7f, 1), 0x80);
    ck_assert_uint_eq(ls_combine(LS_COMB_MAXSI, LS_ET_I8, 0x80, 0x01), 0x01);
    ck_assert_uint_eq(ls_combine(LS_COMB_MAXUI, LS_ET_I8, 0x80, 0x01), 0x80);
}
END_TEST

static char *dump_plan(const char *example, const char *arch, ls_problem *p, ls_derived *d,
                       ls_plan *plan)
{
    ls_diag dg;
    ls_module *m = load_example(example, &dg);
    ck_assert_msg(dg.status == LS_OK, "%s", dg.msg);
    *p = m->problems[0];
    free(m);
    ck_assert_msg(ls_derive(p, d, &dg) == LS_OK, "%s", dg.msg);
    ck_assert_msg(ls_plan_build(p, d, ls_plan_target_from_arch(arch), plan, &dg) == LS_OK, "%s",
                  dg.msg);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ls_plan_dump(plan, f);
    fclose(f);
    return buf;
}

/* Derived by hand from reference §2-§3 for seed 000 Example 2 on gfx942:
 * 12 iterations of 4 single-element loads; lanes 16 on d1 with stride 4, so a
 * stride-4 cluster -> XOR butterfly even on AMD; two subgroups on d1 ->
 * buffer [16 rows, 2 subgroups + 64/32 = 2 padding] = 16x4xf32 = 256 bytes;
 * the read layout's base stride is d1's lane stride 4, cluster 2. */
static const char *ex2_plan =
    "plan for @example2_max_1152x384:linalg.generic#1 (AMD target): workgroup of 128 threads = "
    "2 subgroups x 64, 72 workgroups\n"
    "  layout: #iree_vector_ext.nested_layout<subgroup_tile = [1, 2], batch_tile = [4, 1], "
    "outer_tile = [1, 1], thread_tile = [4, 16], element_tile = [1, 1], subgroup_strides = [0, "
    "1], thread_strides = [1, 4]>\n"
    "  [load+accumulate]\n"
    "    %acc = splat identity(maxnumf) : 4 x f32 per thread\n"
    "    scf.for %k = 0 to 12 {\n"
    "      4 x vector.transfer_read vector<1xf32> per thread (padding = identity; distributed "
    "vector<4x1x1x1x1x1xf32>)\n"
    "      %acc = maxnumf(%acc, loaded) elementwise (4 accumulators)\n"
    "    }\n"
    "    (LLVM fuses two dependent maxnumf into one v_max3_f32: a thread's chains -- the loop's, "
    "the thread reduce's -- take half an instruction a combine)\n"
    "  [thread reduce]\n"
    "    vector.multi_reduction maxnumf over the reduced registers: 0 ops, 4 values per thread\n"
    "  [subgroup reduce]\n"
    "    gpu.subgroup_reduce maxnumf cluster(size = 16, stride = 4) : f32 -> XOR butterfly\n"
    "      %v = maxnumf(%v, gpu.shuffle xor %v, 4)\n"
    "      %v = maxnumf(%v, gpu.shuffle xor %v, 8)\n"
    "      %v = maxnumf(%v, gpu.shuffle xor %v, 16)\n"
    "      %v = maxnumf(%v, gpu.shuffle xor %v, 32)\n"
    "  [cross-subgroup]\n"
    "    %buf = memref.alloc() : memref<16x4xf32, #gpu.address_space<workgroup>> (256 bytes; "
    "innermost padded by 2)\n"
    "    gpu.barrier\n"
    "    scf.if (first thread of its duplication group) { vector.transfer_write partials -> "
    "%buf[..., subgroup] }\n"
    "    gpu.barrier\n"
    "    vector.transfer_read %buf (padding = identity), 2 slots per lane group\n"
    "    gpu.subgroup_reduce maxnumf cluster(size = 2, stride = 4) : f32 -> XOR butterfly\n"
    "      %v = maxnumf(%v, gpu.shuffle xor %v, 4)\n"
    "  [acc combine]\n"
    "    %r = maxnumf(%r, %init)\n"
    "  [store]\n"
    "    scf.if (one thread per output element) { vector.transfer_write %r } : 16 output "
    "elements per workgroup\n";

START_TEST(example2_plan)
{
    ls_problem p;
    ls_derived *d = ls_xcalloc(1, sizeof *d);
    ls_plan plan;
    char *text = dump_plan("seed000_example2.mlir", "gfx942", &p, d, &plan);
    ck_assert_str_eq(text, ex2_plan);
    ck_assert_int_eq(plan.barriers, 2);
    ck_assert_int_eq(plan.buffer_bytes, 256);
    free(text);
    free(d);
}
END_TEST

START_TEST(dpp_and_xor_lowerings)
{
    ls_problem p;
    ls_derived *d = ls_xcalloc(1, sizeof *d);
    ls_plan plan;
    char *text = dump_plan("seed004_reduce_8x64.mlir", "gfx942", &p, d, &plan);
    ck_assert_int_eq(plan.n_subgroup_reduces, 1);
    const ls_subgroup_reduce *r = &plan.subgroup_reduces[0];
    ck_assert(r->dpp);
    ck_assert_int_eq(r->n_steps, 7); /* 2 quad_perm, half mirror, mirror, bcast15, bcast31, readlane */
    ck_assert_int_eq(r->steps[4].dpp, LS_DPP_ROW_BCAST_15);
    ck_assert_int_eq(r->steps[6].kind, LS_STEP_READLANE);
    ck_assert_int_eq(r->steps[6].lane_a, 63);
    ck_assert(strstr(text, "amdgpu.dpp %v quad_perm [1,0,3,2]") != NULL);
    free(text);
    text = dump_plan("seed004_reduce_8x64.mlir", "gfx1100", &p, d, &plan);
    r = &plan.subgroup_reduces[0];
    ck_assert_int_eq(r->steps[4].dpp, LS_DPP_PERMLANEX16);
    ck_assert_int_eq(r->steps[5].lane_a, 31);
    ck_assert_int_eq(r->steps[5].lane_b, 63);
    free(text);
    /* NVIDIA: always the XOR butterfly 1, 2, 4, ..., 32 */
    text = dump_plan("seed004_reduce_8x64.mlir", "sm_90", &p, d, &plan);
    r = &plan.subgroup_reduces[0];
    ck_assert(!r->dpp);
    ck_assert_int_eq(r->n_steps, 6);
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(r->steps[i].offset, 1 << i);
    free(text);
    free(d);
}
END_TEST

static const ls_elem_type all_types[] = {LS_ET_I8,       LS_ET_I16,       LS_ET_I32,
                                         LS_ET_I64,      LS_ET_F16,       LS_ET_BF16,
                                         LS_ET_F32,      LS_ET_F64,       LS_ET_F8E4M3FNUZ,
                                         LS_ET_F8E5M2};

/* Every combiner x element type, random valid configs, both lowerings. */
START_TEST(functional_matches_reference)
{
    uint64_t rng = 77 + (uint64_t)_i;
    int ran = 0, cross = 0, dpp = 0, extended = 0, fp8 = 0;
    ls_derived *d = ls_xcalloc(1, sizeof *d);
    for (int iter = 0; iter < 400 && ran < 60; iter++) {
        ls_problem p;
        if (!random_problem(&rng, &p, 6, 90))
            continue;
        ls_combiner k = (ls_combiner)_i;
        random_kind_and_type(&rng, &p, k, all_types, 10);
        ls_elem_type t = p.acc_type;
        ls_diag dg;
        ls_diag_clear(&dg);
        if (ls_derive(&p, d, &dg) != LS_OK)
            continue;
        const char *arch = rng_range(&rng, 0, 1) ? "gfx942" : "sm_80";
        if (ls_elem_type_bits(t) > 32)
            arch = "gfx942"; /* 64-bit shuffles: AMD only */
        ls_plan plan;
        REQUIRE(ls_plan_build(&p, d, ls_plan_target_from_arch(arch), &plan, &dg) == LS_OK, "%s",
                dg.msg);
        ls_functional_result fr;
        int64_t wgs = d->total_workgroups < 3 ? d->total_workgroups : 3;
        ls_status st = ls_functional_run(&plan, (ls_input_source){1234, NULL, {NULL}}, d->total_workgroups - wgs, wgs, &fr, &dg);
        REQUIRE(st == LS_OK, "kind %s type %s on %s: %s", ls_combiner_name(k),
                ls_elem_type_name(t), arch, dg.msg);
        REQUIRE(fr.outputs_checked > 0, "no output checked");
        ran++;
        cross += plan.cross_subgroup;
        extended += p.extended;
        fp8 += ls_elem_type_is_float(p.inputs[0].type) && ls_elem_type_bits(p.inputs[0].type) == 8;
        for (int i = 0; i < plan.n_subgroup_reduces; i++)
            dpp += plan.subgroup_reduces[i].dpp;
    }
    free(d);
    ck_assert_int_ge(ran, 40);
    ck_assert_int_gt(cross, 0);
    ck_assert_int_gt(dpp, 0);
    if (_i == LS_COMB_ADD)
        ck_assert_int_gt(extended, 0);
    if (!ls_combiner_is_int_only((ls_combiner)_i))
        ck_assert_int_gt(fp8, 0);
}
END_TEST

/* The check is not vacuous: drop one butterfly step and it must fail. */
START_TEST(sabotaged_plan_fails)
{
    ls_problem p;
    ls_derived *d = ls_xcalloc(1, sizeof *d);
    ls_plan plan;
    char *text = dump_plan("seed004_reduce_8x64.mlir", "sm_80", &p, d, &plan);
    free(text);
    ls_functional_result fr;
    ls_diag dg;
    ls_diag_clear(&dg);
    ck_assert_int_eq(ls_functional_run(&plan, (ls_input_source){9, NULL, {NULL}}, 0, -1, &fr, &dg), LS_OK);
    ck_assert_int_eq(fr.outputs_checked, 8);
    plan.subgroup_reduces[0].n_steps--; /* lose the xor-32 round */
    ls_diag_clear(&dg);
    ck_assert_int_eq(ls_functional_run(&plan, (ls_input_source){9, NULL, {NULL}}, 0, -1, &fr, &dg), LS_ERR_INVALID);
    ck_assert_int_eq(fr.mismatches, 8);
    ck_assert(strstr(dg.msg, "but the reference reduction gives") != NULL);
    free(d);
}
END_TEST

START_TEST(wide_shuffles_need_amd)
{
    ls_problem p;
    ls_derived *d = ls_xcalloc(1, sizeof *d);
    ls_diag dg;
    ls_module *m = load_example("seed004_reduce_8x64.mlir", &dg);
    p = m->problems[0];
    free(m);
    p.inputs[0].type = p.acc_type = LS_ET_F64;
    ck_assert_int_eq(ls_derive(&p, d, &dg), LS_OK);
    ls_plan plan;
    ck_assert_int_eq(ls_plan_build(&p, d, ls_plan_target_from_arch("sm_80"), &plan, &dg),
                     LS_ERR_INVALID);
    ck_assert(strstr(dg.msg, "f64 reductions need shuffles wider than 32 bits") != NULL);
    free(d);
}
END_TEST

/* A 4x8 float32 .npy holding 0..31, written by hand. */
static void write_npy(const char *path, const char *descr, int elem_bytes)
{
    char hdr[128];
    int n = snprintf(hdr, sizeof hdr, "{'descr': '%s', 'fortran_order': False, 'shape': (4, 8), }",
                     descr);
    while ((10 + n + 1) % 64 != 0)
        hdr[n++] = ' ';
    hdr[n++] = '\n';
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(n & 0xff),
                             (unsigned char)(n >> 8)};
    fwrite(pre, 1, 10, f);
    fwrite(hdr, 1, (size_t)n, f);
    for (int i = 0; i < 32; i++) {
        unsigned char buf[8] = {0};
        float v = (float)i;
        if (descr[1] == 'f' && elem_bytes == 4)
            memcpy(buf, &v, 4);
        fwrite(buf, 1, (size_t)elem_bytes, f);
    }
    fclose(f);
}

START_TEST(npy_inputs)
{
    char path[] = "/tmp/lanescope-test-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    write_npy(path, "<f4", 4);
    ls_npy a;
    ls_diag d;
    ls_diag_clear(&d);
    ck_assert_msg(ls_npy_load(path, &a, &d) == LS_OK, "%s", d.msg);
    ck_assert_int_eq(a.type, LS_ET_F32);
    ck_assert_int_eq(a.rank, 2);
    ck_assert_int_eq(a.shape[1], 8);
    ck_assert(ls_value_to_double(ls_npy_get(&a, 13), LS_ET_F32) == 13.0);
    ls_module *m = load_text(
        "%r = linalg.reduce ins(%a : tensor<4x8xf32>) outs(%b : tensor<4xf32>) dimensions = [1] "
        "{lowering_config = #iree_gpu.lowering_config<{workgroup = [1, 0], partial_reduction = "
        "[0, 4], thread = [0, 1], lane_basis = [[1, 64], [0, 1]], subgroup_basis = [[1, 1], [0, "
        "1]]}>} (%in: f32, %o: f32) {\n  %1 = arith.addf %in, %o : f32\n  linalg.yield %1 : "
        "f32\n}\n",
        &d);
    ck_assert_msg(d.status == LS_OK, "%s", d.msg);
    ls_problem p = m->problems[0];
    free(m);
    ck_assert_int_eq(ls_npy_check(&a, &p, path, &d), LS_OK);
    ls_value v;
    double bound;
    ls_reference_output(&p, (ls_input_source){0, &a, {NULL}}, (int64_t[]){1}, &v, &bound);
    ck_assert(ls_value_to_double(v, LS_ET_F32) == 8 + 9 + 10 + 11 + 12 + 13 + 14 + 15);
    ls_derived *dv = ls_xcalloc(1, sizeof *dv);
    ck_assert(ls_derive(&p, dv, &d) == LS_OK);
    ls_plan plan;
    ck_assert(ls_plan_build(&p, dv, ls_plan_target_from_arch("sm_80"), &plan, &d) == LS_OK);
    ls_functional_result fr;
    ck_assert_msg(ls_functional_run(&plan, (ls_input_source){0, &a, {NULL}}, 0, -1, &fr, &d) == LS_OK,
                  "%s", d.msg);
    ck_assert_int_eq(fr.outputs_checked, 4);
    /* the wrong shape or dtype is refused with both named */
    p.size[1] = 16;
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_npy_check(&a, &p, path, &d), LS_ERR_INVALID);
    ck_assert(strstr(d.msg, "the array's shape is 4x8 but") != NULL);
    ck_assert(strstr(d.msg, "input is 4x16") != NULL);
    p.size[1] = 8;
    p.inputs[0].type = LS_ET_F16;
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_npy_check(&a, &p, path, &d), LS_ERR_INVALID);
    ck_assert(strstr(d.msg, "the array holds f32 but") != NULL);
    ls_npy_free(&a);
    free(dv);
    write_npy(path, "<c8", 8);
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_npy_load(path, &a, &d), LS_ERR_SYNTAX);
    ck_assert(strstr(d.msg, "dtype '<c8' is not one of") != NULL);
    unlink(path);
}
END_TEST

/* A version-1 .npy in buf: the header text padded as NumPy pads it, then
 * data_bytes bytes of 0..n-1; returns the file's length. */
static size_t npy_bytes(unsigned char *buf, const char *header, size_t data_bytes)
{
    size_t n = strlen(header);
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    memcpy(buf + 10, header, n);
    while ((10 + n + 1) % 64 != 0)
        buf[10 + n++] = ' ';
    buf[10 + n++] = '\n';
    buf[8] = (unsigned char)(n & 0xff);
    buf[9] = (unsigned char)(n >> 8);
    for (size_t i = 0; i < data_bytes; i++)
        buf[10 + n + i] = (unsigned char)i;
    return 10 + n + data_bytes;
}

/* The header is a dict as NumPy's format defines it: key order free, each
 * key once, no other key; the array's bytes end the file. */
START_TEST(npy_header_grammar)
{
    static const struct {
        const char *header;
        int extra; /* data bytes past (or, negative, short of) the 2x3 i16 array */
        const char *error; /* NULL: loads */
    } cases[] = {
        {"{'descr': '<i2', 'fortran_order': False, 'shape': (2, 3), }", 0, NULL},
        /* fortran_order after shape used to be read as C order */
        {"{'shape': (2, 3), 'descr': '<i2', 'fortran_order': True}", 0,
         "fortran_order arrays are not supported"},
        {"{\"shape\": (2,3), \"fortran_order\": False, \"descr\": \"<i2\"}", 0, NULL},
        {"{'descr': '<i2', 'fortran_order': False, 'shape': (2, 3), }", 1,
         "1 byte after the array's data"},
        {"{'descr': '<i2', 'fortran_order': False, 'shape': (2, 3), }", 7,
         "7 bytes after the array's data"},
        {"{'descr': '<i2', 'fortran_order': False, 'shape': (2, 3), }", -1,
         "fewer data bytes than the shape needs (11 of 12)"},
        {"{'descr': '<i2', 'shape': (2, 3), 'fortran_order': False, 'shape': (2, 3)}", 0,
         "header key 'shape' given twice"},
        {"{'descr': '<i2', 'fortran_order': False}", 0, "header lacks 'shape'"},
        {"{'descr': '<i2', 'fortran_order': False, 'shape': (2, 3), 'align': 4}", 0,
         "unknown header key 'align'"},
        {"{'descr': '<i2', 'fortran_order': 0, 'shape': (2, 3)}", 0,
         "fortran_order is not True or False"},
        {"{'descr': '<i2', 'fortran_order': False, 'shape': (2, -3)}", 0, "malformed shape"},
        {"{'descr': '<i2', 'fortran_order': False, 'shape': (2, 3)} x", 0,
         "text after the header dict"},
        {"{'descr': '>i2', 'fortran_order': False, 'shape': (2, 3)}", 0, "dtype '>i2'"},
    };
    unsigned char buf[256];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len = npy_bytes(buf, cases[i].header, (size_t)(12 + cases[i].extra));
        ls_npy a;
        ls_diag d;
        ls_diag_clear(&d);
        ls_status st = ls_npy_parse(buf, len, "t.npy", &a, &d);
        if (cases[i].error == NULL) {
            ck_assert_msg(st == LS_OK, "case %zu: %s", i, d.msg);
            ck_assert_int_eq(a.rank, 2);
            ck_assert_int_eq(a.shape[0] * 10 + a.shape[1], 23);
            ck_assert_int_eq(a.type, LS_ET_I16);
            ck_assert_uint_eq(ls_npy_get(&a, 1), 0x0302); /* bytes 2 and 3, little-endian */
            ls_npy_free(&a);
        } else {
            ck_assert_msg(st != LS_OK && strstr(d.msg, cases[i].error) != NULL,
                          "case %zu: want '%s', got '%s'", i, cases[i].error, d.msg);
            ck_assert_ptr_null(a.data);
        }
    }
    /* the file reader applies the same rules, trailing bytes included */
    char path[] = "/tmp/lanescope-test-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    for (int extra = 0; extra <= 5000; extra += 5000) {
        unsigned char big[6000];
        size_t len = npy_bytes(big, cases[0].header, 12);
        memset(big + len, 'x', (size_t)extra);
        ck_assert_int_eq(ftruncate(fd, 0), 0);
        ck_assert_int_eq(pwrite(fd, big, len + (size_t)extra, 0), (ssize_t)(len + (size_t)extra));
        ls_npy a;
        ls_diag d;
        ls_diag_clear(&d);
        ls_status st = ls_npy_load(path, &a, &d);
        if (extra == 0) {
            ck_assert_msg(st == LS_OK, "%s", d.msg);
            ck_assert_uint_eq(ls_npy_get(&a, 5), 0x0b0a);
            ls_npy_free(&a);
        } else {
            ck_assert(strstr(d.msg, "5000 bytes after the array's data") != NULL);
        }
    }
    close(fd);
    unlink(path);
}
END_TEST

/* The functional check's eight-wide kernels (sim/func_kernels.c) give what
 * the scalar loops they replace give, bit for bit: the reference's integer
 * run sums at any start, stride and length (tails included), and the
 * accumulation over threads with shared accumulators, masked registers and
 * accumulators off the 1/64 grid (so a different order of adds would
 * round differently). */
START_TEST(sum_kernels_match_scalar)
{
    static const int64_t lens[] = {0, 1, 7, 8, 9, 63, 1000};
    static const int64_t strides[] = {1, 3, 4096};
    static const int64_t starts[] = {0, 5, INT64_C(1) << 40};
    for (uint64_t seed = 1; seed <= 2; seed++) {
        uint64_t sh = ls_mix64(seed * 12345);
        for (size_t a = 0; a < 3; a++)
            for (size_t b = 0; b < 3; b++)
                for (size_t c = 0; c < sizeof lens / sizeof lens[0]; c++) {
                    uint64_t sum = 7, mag = 3, ws = 7, wm = 3; /* the kernel adds to them */
                    double exact = 0;
                    ls_fk_sum_run(sh, starts[a], lens[c], strides[b], &sum, &mag);
                    for (int64_t k = 0; k < lens[c]; k++) {
                        uint64_t h = ls_input_hash(sh, (uint64_t)(starts[a] + k * strides[b]));
                        int64_t v = (int64_t)(h & 255) - 128;
                        ws += (uint64_t)(v + 128);
                        wm += (uint64_t)(v < 0 ? -v : v);
                        exact += ls_input_float(h, LS_COMB_ADD);
                    }
                    ck_assert_uint_eq(sum, ws);
                    ck_assert_uint_eq(mag, wm);
                    ck_assert(((double)(sum - 7) - 128.0 * (double)lens[c]) / 64.0 == exact);
                }
    }
    /* The functional check looks generated float inputs (16 bits or more,
     * not for products) up by the hash's low byte: the generator must read
     * nothing else of it. */
    static const ls_elem_type grid_types[] = {LS_ET_F16, LS_ET_BF16, LS_ET_F32, LS_ET_F64};
    static const ls_combiner grid_combs[] = {LS_COMB_ADD, LS_COMB_MAXNUMF, LS_COMB_MINIMUMF};
    for (size_t ti = 0; ti < 4; ti++)
        for (size_t ci = 0; ci < 3; ci++)
            for (uint64_t j = 0; j < 4096; j++) {
                uint64_t h = ls_mix64(j);
                ck_assert_uint_eq(ls_input_value_hashed(h, grid_types[ti], grid_combs[ci]),
                                  ls_input_value_hashed(h & 255, grid_types[ti], grid_combs[ci]));
            }
    static const int64_t acc_slot[] = {0, 1, 0, 2, 1, 0};
    static const int64_t thread_counts[] = {1, 8, 13, 64};
    for (size_t tc = 0; tc < sizeof thread_counts / sizeof thread_counts[0]; tc++) {
        int64_t threads = thread_counts[tc], regs = 6;
        int64_t *rel = ls_xcalloc((size_t)(regs * threads), sizeof *rel);
        int32_t *inside = ls_xcalloc((size_t)(regs * threads), sizeof *inside);
        float *got = ls_xcalloc((size_t)(3 * threads), sizeof *got);
        float *want = ls_xcalloc((size_t)(3 * threads), sizeof *want);
        for (int64_t i = 0; i < regs * threads; i++) {
            rel[i] = (int64_t)(ls_mix64((uint64_t)i) % 100000);
            inside[i] = ls_mix64((uint64_t)i + 99) % 5 == 0 ? 0 : -1;
        }
        for (int64_t i = 0; i < 3 * threads; i++)
            got[i] = want[i] = 0.1f * (float)(i + 1); /* off the grid */
        uint64_t sh = ls_mix64(777);
        for (int it = 0; it < 3; it++) {
            int64_t base = 1000 * it;
            ls_fk_sum_accumulate(sh, base, rel, inside, acc_slot, regs, threads, -0.0f, got);
            for (int64_t r = 0; r < regs; r++)
                for (int64_t t = 0; t < threads; t++) {
                    uint64_t h = ls_input_hash(sh, (uint64_t)(base + rel[r * threads + t]));
                    want[acc_slot[r] * threads + t] +=
                        inside[r * threads + t] ? (float)ls_input_float(h, LS_COMB_ADD) : -0.0f;
                }
        }
        ck_assert(memcmp(got, want, (size_t)(3 * threads) * sizeof *got) == 0);
        free(rel);
        free(inside);
        free(got);
        free(want);
    }
}
END_TEST

/* A float sum whose values lie on a grid (the generator's: multiples of
 * 1/64) with every partial sum held exactly is exact in any order: its
 * reference allows no error, where the order-free rounding bound would
 * pass a dropped element of a long sum. */
START_TEST(grid_sums_are_checked_exactly)
{
    ck_assert_int_eq(ls_low_bit(1.0), 0);
    ck_assert_int_eq(ls_low_bit(-0.5), -1);
    ck_assert_int_eq(ls_low_bit(3.0 / 64.0), -6);
    ck_assert_int_eq(ls_low_bit(6.0), 1);
    ck_assert_int_eq(ls_low_bit(ldexp(1.0, -149)), -149);
    ck_assert_int_eq(ls_low_bit(0.0), INT_MAX);
    ck_assert_int_eq(ls_low_bit(INFINITY), INT_MIN);
    ck_assert_int_eq(ls_low_bit(0.1), -55);
    ls_problem p;
    memset(&p, 0, sizeof p);
    p.combiner = LS_COMB_ADD;
    p.acc_type = LS_ET_F32;
    /* 49152 values of magnitude up to 2 on the 1/64 grid: at most 98304
     * x 64 < 2^24 sixty-fourths, exact in f32 */
    ck_assert(ls_ref_sum_bound(&p, 49152, 98304.0, -6) == 0);
    ck_assert(ls_ref_sum_bound(&p, 49152, 262144.0, -6) == 0);   /* 2^24 / 64: still */
    ck_assert(ls_ref_sum_bound(&p, 49152, 262144.5, -6) > 0);    /* one past */
    ck_assert(ls_ref_sum_bound(&p, 49152, 98304.0, -20) > 0);    /* a finer grid */
    ck_assert(ls_ref_sum_bound(&p, 49152, 98304.0, INT_MIN) > 0); /* not a grid */
    ck_assert(ls_ref_sum_bound(&p, 0, 0.0, INT_MAX) == 0);        /* all zeros */
    double loose = ls_ref_float_bound(&p, 49152, 98304.0);
    ls_value ref = ls_value_from_double(1234.5, LS_ET_F32);
    ls_value off = ls_value_from_double(1234.5 + 1.0 / 64.0, LS_ET_F32);
    double ratio = 0;
    ck_assert(ls_value_check(LS_ET_F32, off, ref, loose, &ratio)); /* the loose bound passes it */
    ck_assert(!ls_value_check(LS_ET_F32, off, ref, 0, &ratio));    /* the exact check does not */
    ck_assert(ls_value_check(LS_ET_F32, ref, ref, 0, &ratio));
    /* half precision: 11 bits hold 32 of 1/64 steps' multiples up to 32 */
    p.acc_type = LS_ET_F16;
    ck_assert(ls_ref_sum_bound(&p, 16, 32.0, -6) == 0);
    ck_assert(ls_ref_sum_bound(&p, 16, 32.5, -6) > 0);
    ck_assert(ls_ref_sum_bound(&p, 16, 1.0, -25) > 0); /* below f16's smallest subnormal */
    /* the functional run of a row sum of f32 generator values checks
     * exactly: no error ratio to report */
    ls_problem q;
    ls_derived *d = ls_xcalloc(1, sizeof *d);
    ls_plan plan;
    char *text = dump_plan("seed004_reduce_8x64.mlir", "sm_80", &q, d, &plan);
    free(text);
    ck_assert_int_eq(q.acc_type, LS_ET_F32);
    ls_functional_result fr;
    ls_diag dg;
    ls_diag_clear(&dg);
    ck_assert_int_eq(ls_functional_run(&plan, (ls_input_source){9, NULL, {NULL}}, 0, -1, &fr, &dg),
                     LS_OK);
    ck_assert_int_eq(fr.outputs_checked, 8);
    ck_assert(fr.max_error_bound_ratio == 0);
    /* a float sum off the grid is held to the rounding bound of the
     * plan's depth, not of its element count: here 64 elements over 64
     * lanes, one a thread in one iteration, then 6 butterfly steps, one
     * subgroup, and the init and the final rounding: 1 + 6 + 1 + 2 */
    ck_assert_int_eq(ls_plan_depth(&plan), 10);
    ck_assert(ls_ref_float_bound(&q, 10, 1.0) < ls_ref_float_bound(&q, 64, 1.0) / 4);
    free(d);
}
END_TEST

static Suite *sim_suite(void)
{
    Suite *s = suite_create("sim");
    TCase *tc = tcase_create("functional");
    tcase_add_test(tc, half_precision_rounding);
    tcase_add_test(tc, sum_kernels_match_scalar);
    tcase_add_test(tc, fp8_formats);
    tcase_add_test(tc, npy_header_grammar);
    tcase_add_test(tc, mx_formats);
    tcase_add_test(tc, identities);
    tcase_add_test(tc, example2_plan);
    tcase_add_test(tc, dpp_and_xor_lowerings);
    tcase_add_loop_test(tc, functional_matches_reference, 0, LS_COMB_COUNT);
    tcase_add_test(tc, sabotaged_plan_fails);
    tcase_add_test(tc, grid_sums_are_checked_exactly);
    tcase_add_test(tc, wide_shuffles_need_amd);
    tcase_add_test(tc, npy_inputs);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(sim_suite)
