/* test_mlir_math.c: the math ops as IREE compiles them for NVIDIA
 * (mlir_math.h, body.h's LS_MATH_MLIR).
 *
 * The expected values are MLIR's own: mlir/test/mlir-runner/
 * math-polynomial-approx.mlir runs the same approximations and prints each
 * result with "%g" (CRunnerUtils' printF32).  Several of them are not
 * what a correctly rounded function gives (exp(-89) = 0, not 2.2e-39;
 * sin(pi) = 0, not -8.74e-08), so a libm stand-in fails them.  Three are
 * "-0" where the runner's CHECK reads "0" (FileCheck matches a substring):
 * sin(pi) reduces to y = pi - 2 (pi/2) = 0 exactly in f32 with k = 2, whose
 * quadrant negates, so -1 * (0 * poly) = -0; the same for sin(3 pi) and
 * cos(pi/2).  The sweeps
 * bound each approximation's error; the body tests check the type rules
 * IREE's MathTransform applies around them, and ROCm's erf (IREE's own
 * FastErfPattern). */
#include <math.h>

#include "lanescope/import.h"
#include "lanescope/mlir_math.h"
#include "lanescope/plan.h"
#include "lanescope/value.h"
#include "testutil.h"

typedef struct {
    float (*fn)(float);
    const char *name;
    float x;
    const char *want; /* "%g" of the result, as the MLIR test's CHECK line */
} runner_case;

static const runner_case runner[] = {
    {ls_mlir_tanhf, "tanh", 1.25f, "0.848284"},
    {ls_mlir_tanhf, "tanh", 0.25f, "0.244919"},
    {ls_mlir_tanhf, "tanh", 0.75f, "0.635149"},
    {ls_mlir_tanhf, "tanh", 1.0f, "0.761594"},
    {ls_mlir_tanhf, "tanh", 0.1f, "0.099668"},
    {ls_mlir_tanhf, "tanh", 0.6f, "0.53705"},
    {ls_mlir_tanhf, "tanh", 0.8f, "0.664037"},
    {ls_mlir_tanhf, "tanh", NAN, "nan"},
    {ls_mlir_logf, "log", 14.112233f, "2.64704"},
    {ls_mlir_logf, "log", 0.25f, "-1.38629"},
    {ls_mlir_logf, "log", 0.75f, "-0.287682"},
    {ls_mlir_logf, "log", 1.0f, "0"},
    {ls_mlir_logf, "log", 0.1f, "-2.30259"},
    {ls_mlir_logf, "log", 0.7f, "-0.356675"},
    {ls_mlir_logf, "log", 0.0f, "-inf"},
    {ls_mlir_logf, "log", NAN, "nan"},
    {ls_mlir_logf, "log", INFINITY, "inf"},
    {ls_mlir_logf, "log", -1.0f, "nan"},
    {ls_mlir_logf, "log", 2.0f, "0.693147"},
    {ls_mlir_log2f, "log2", 14.112233f, "3.81887"},
    {ls_mlir_log2f, "log2", 0.25f, "-2"},
    {ls_mlir_log2f, "log2", 0.75f, "-0.415037"},
    {ls_mlir_log2f, "log2", 0.3f, "-1.73697"},
    {ls_mlir_log2f, "log2", 0.6f, "-0.736966"},
    {ls_mlir_log2f, "log2", 0.0f, "-inf"},
    {ls_mlir_log2f, "log2", -1.0f, "nan"},
    {ls_mlir_log2f, "log2", INFINITY, "inf"},
    {ls_mlir_log2f, "log2", 3.0f, "1.58496"},
    {ls_mlir_erff, "erf", -2.431864e-4f, "-0.000274406"},
    {ls_mlir_erff, "erf", 0.79999f, "0.742095"},
    {ls_mlir_erff, "erf", 0.8f, "0.742101"},
    {ls_mlir_erff, "erf", 1.99999f, "0.995322"},
    {ls_mlir_erff, "erf", 2.0f, "0.995322"},
    {ls_mlir_erff, "erf", 3.74999f, "1"},
    {ls_mlir_erff, "erf", 3.75f, "1"},
    {ls_mlir_erff, "erf", -INFINITY, "-1"},
    {ls_mlir_erff, "erf", -3.4028235e+38f, "-1"},
    {ls_mlir_erff, "erf", -4.54318f, "-1"},
    {ls_mlir_erff, "erf", -1.2130899f, "-0.913759"},
    {ls_mlir_erff, "erf", -7.8234202e-01f, "-0.731446"},
    {ls_mlir_erff, "erf", -1.1754944e-38f, "-1.3264e-38"},
    {ls_mlir_erff, "erf", 0.0f, "0"},
    {ls_mlir_erff, "erf", 1.0793410e-01f, "0.121319"},
    {ls_mlir_erff, "erf", 1.23578f, "0.919477"},
    {ls_mlir_erff, "erf", 2.34093f, "0.999069"},
    {ls_mlir_erff, "erf", 3.82342f, "1"},
    {ls_mlir_erff, "erf", INFINITY, "1"},
    {ls_mlir_erff, "erf", NAN, "nan"},
    {ls_mlir_expf, "exp", 1.0f, "2.71828"},
    {ls_mlir_expf, "exp", -0.25f, "0.778801"},
    {ls_mlir_expf, "exp", 0.75f, "2.117"},
    {ls_mlir_expf, "exp", 1.35f, "3.85743"},
    {ls_mlir_expf, "exp", 0.0f, "1"},
    {ls_mlir_expf, "exp", -89.0f, "0"},
    {ls_mlir_expf, "exp", -25.0f, "1.38879e-11"},
    {ls_mlir_expf, "exp", 25.0f, "7.20049e+10"},
    {ls_mlir_expf, "exp", 89.0f, "inf"},
    {ls_mlir_expf, "exp", INFINITY, "inf"},
    {ls_mlir_expf, "exp", -INFINITY, "0"},
    {ls_mlir_expf, "exp", NAN, "nan"},
    {ls_mlir_sinf, "sin", 0.0f, "0"},
    {ls_mlir_sinf, "sin", 0.78539816339f, "0.707107"},
    {ls_mlir_sinf, "sin", 1.57079632679f, "1"},
    {ls_mlir_sinf, "sin", 3.14159265359f, "-0"},
    {ls_mlir_sinf, "sin", 4.71238898038f, "-1"},
    {ls_mlir_sinf, "sin", 9.42477796077f, "-0"},
    {ls_mlir_sinf, "sin", 2.09439510239f, "0.866025"},
    {ls_mlir_sinf, "sin", -1.57079632679f, "-1"},
    {ls_mlir_cosf, "cos", 0.0f, "1"},
    {ls_mlir_cosf, "cos", 0.78539816339f, "0.707107"},
    {ls_mlir_cosf, "cos", 1.57079632679f, "-0"},
    {ls_mlir_cosf, "cos", 3.14159265359f, "-1"},
    {ls_mlir_cosf, "cos", 4.71238898038f, "0"},
    {ls_mlir_cosf, "cos", 9.42477796077f, "-1"},
    {ls_mlir_cosf, "cos", 2.09439510239f, "-0.5"},
    {ls_mlir_cosf, "cos", -1.57079632679f, "0"},
};

START_TEST(matches_mlir_runner_output)
{
    const runner_case *c = &runner[_i];
    char got[32];
    float r = c->fn(c->x);
    snprintf(got, sizeof got, "%g", (double)r);
    if (isnan(r) && !signbit(r))
        snprintf(got, sizeof got, "nan");
    ck_assert_msg(strcmp(got, c->want) == 0, "%s(%.9g) = %s (%a), MLIR's runner prints %s", c->name,
                  (double)c->x, got, (double)r, c->want);
}
END_TEST

/* Where the approximation is not the correctly rounded value: the tool
 * reproduces IREE's code, not libm.  Each of these fails for libm. */
START_TEST(differs_from_libm_where_mlir_does)
{
    ck_assert(ls_mlir_expf(-89.0f) == 0.0f && expf(-89.0f) > 0.0f); /* flushed, not denormal */
    ck_assert(ls_mlir_sinf(3.14159265359f) == 0.0f && sinf(3.14159265359f) != 0.0f);
    ck_assert(ls_mlir_cosf(1.57079632679f) == 0.0f && cosf(1.57079632679f) != 0.0f);
    /* n = floor(-88 log2(e) + 1/2) = -127: 2^n is built as 0 (no denormals) */
    ck_assert(ls_mlir_expf(-88.0f) == 0.0f && expf(-88.0f) > 0.0f);
}
END_TEST

/* Error of f over [lo, hi] (log-spaced when log_spaced) against double
 * libm, in units of the f32 result's last place (abs_err: absolute). */
static double worst_ulps(float (*f)(float), double (*ref)(double), float lo, float hi,
                         bool log_spaced, double *abs_err)
{
    double worst = 0;
    *abs_err = 0;
    const int n = 200000;
    for (int k = 0; k <= n; k++) {
        double t = (double)k / n;
        float x = log_spaced ? (float)exp(log(lo) + (log(hi) - log(lo)) * t)
                             : (float)(lo + (hi - lo) * t);
        double want = ref((double)x), got = (double)f(x);
        if (want == 0.0 && got == 0.0)
            continue;
        double ulp = ldexp(1.0, ilogb(want) - 23);
        if (ulp < 0x1p-149)
            ulp = 0x1p-149;
        worst = fmax(worst, fabs(got - want) / ulp);
        *abs_err = fmax(*abs_err, fabs(got - want));
    }
    return worst;
}

/* The accuracy MLIR documents (exp: relative 2^-22.5 on its reduced range;
 * erf ~2.5e-7) and measured here once; a wrong coefficient or a swapped
 * select breaks them by orders of magnitude. */
START_TEST(error_bounds)
{
    double abs_err;
    ck_assert_double_le(worst_ulps(ls_mlir_expf, exp, -87.0f, 88.0f, false, &abs_err), 1.5);
    ck_assert_double_le(worst_ulps(ls_mlir_logf, log, 1e-30f, 1e30f, true, &abs_err), 1.5);
    ck_assert_double_le(worst_ulps(ls_mlir_log2f, log2, 1e-30f, 1e30f, true, &abs_err), 2.5);
    ck_assert_double_le(worst_ulps(ls_mlir_tanhf, tanh, -10.0f, 10.0f, false, &abs_err), 6.0);
    worst_ulps(ls_mlir_erff, erf, -5.0f, 5.0f, false, &abs_err);
    ck_assert_double_le(abs_err, 3e-7);
    /* sin and cos reduce by one f32 multiple of pi/2: absolute error, growing with |x| */
    worst_ulps(ls_mlir_sinf, sin, -100.0f, 100.0f, false, &abs_err);
    ck_assert_double_le(abs_err, 1e-5);
    worst_ulps(ls_mlir_cosf, cos, -100.0f, 100.0f, false, &abs_err);
    ck_assert_double_le(abs_err, 1e-5);
    /* ROCm's erf (IREE's FastErfPattern, its exp correctly rounded here): 1.44 ulp measured */
    ck_assert_double_le(worst_ulps(ls_iree_rocm_erff, erf, -5.0f, 5.0f, false, &abs_err), 2.0);
}
END_TEST

/* A one-op body: input 0 of type t, then op (after extf to f32 when f32_cast). */
static void unary_body(ls_body *b, ls_body_opcode op, ls_elem_type t, ls_math_mode m)
{
    memset(b, 0, sizeof *b);
    b->math = (uint8_t)m;
    b->n = 2;
    b->inst[0] = (ls_body_inst){
        .op = LS_BOP_INPUT, .type = (uint8_t)t, .src = (uint8_t)t, .a = -1, .b = -1, .c = -1};
    b->inst[1] = (ls_body_inst){
        .op = (uint8_t)op, .type = (uint8_t)t, .src = (uint8_t)t, .a = 0, .b = -1, .c = -1};
}

static double eval(ls_body_opcode op, ls_elem_type t, ls_math_mode m, double x)
{
    ls_body b;
    unary_body(&b, op, t, m);
    uint64_t in = ls_value_from_double(x, t), scratch[LS_MAX_BODY_INSTS];
    return ls_value_to_double(ls_body_eval(&b, &in, NULL, scratch), t);
}

static double round_to(double v, ls_elem_type t)
{
    return ls_value_to_double(ls_value_from_double(v, t), t);
}

/* IREE's MathTransform around the approximations (MathTransform.cpp):
 * f16/bf16 exp, log, tanh, erf, sin, cos in f32 between extf and truncf
 * (predicateF32Cast); exp2 rewritten to exp(x * ln 2) in x's own type
 * first (predicateRewrite, ExpandPatterns.cpp convertExp2fOp), f64 too;
 * sqrt and the f64 ops stay correctly rounded. */
START_TEST(body_follows_iree_math_transform)
{
    const double xs[] = {-3.3, -0.7, 0.1, 0.4, 1.9, 7.25};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        float x32 = (float)xs[i];
        double x16 = round_to(xs[i], LS_ET_F16), xb = round_to(xs[i], LS_ET_BF16);
        ck_assert(eval(LS_BOP_EXP, LS_ET_F32, LS_MATH_MLIR, x32) == ls_mlir_expf(x32));
        ck_assert(eval(LS_BOP_TANH, LS_ET_F16, LS_MATH_MLIR, x16) ==
                  round_to(ls_mlir_tanhf((float)x16), LS_ET_F16));
        ck_assert(eval(LS_BOP_SIN, LS_ET_BF16, LS_MATH_MLIR, xb) ==
                  round_to(ls_mlir_sinf((float)xb), LS_ET_BF16));
        ck_assert(eval(LS_BOP_ERF, LS_ET_F32, LS_MATH_MLIR, x32) == ls_mlir_erff(x32));
        /* exp2 f32: the product rounded to f32 with ln 2 as an f32 constant */
        ck_assert(eval(LS_BOP_EXP2, LS_ET_F32, LS_MATH_MLIR, x32) ==
                  ls_mlir_expf(x32 * 0x1.62e430p-1f));
        /* exp2 f16: ln 2 as an f16 constant (0.693359375), the product rounded to f16 */
        ck_assert(eval(LS_BOP_EXP2, LS_ET_F16, LS_MATH_MLIR, x16) ==
                  round_to(ls_mlir_expf((float)round_to(x16 * 0.693359375, LS_ET_F16)), LS_ET_F16));
        /* f64: exp2 is still rewritten (the double exp is libdevice's, correctly rounded here) */
        ck_assert(eval(LS_BOP_EXP2, LS_ET_F64, LS_MATH_MLIR, xs[i]) ==
                  exp(xs[i] * 0.69314718055994530942));
        ck_assert(eval(LS_BOP_EXP, LS_ET_F64, LS_MATH_MLIR, xs[i]) == exp(xs[i]));
        /* ROCm, and any body no target has set: the correctly rounded value */
        ck_assert(eval(LS_BOP_EXP, LS_ET_F32, LS_MATH_EXACT, x32) == round_to(exp(x32), LS_ET_F32));
        ck_assert(eval(LS_BOP_EXP2, LS_ET_F32, LS_MATH_EXACT, x32) ==
                  round_to(exp2(x32), LS_ET_F32));
        ck_assert(eval(LS_BOP_SQRT, LS_ET_F32, LS_MATH_MLIR, fabs(x32)) ==
                  round_to(sqrt(fabs(x32)), LS_ET_F32));
        /* ROCm: erf is IREE's own polynomial (in f32 for f16), exp the rounded value */
        ck_assert(eval(LS_BOP_ERF, LS_ET_F32, LS_MATH_ROCM, x32) == ls_iree_rocm_erff(x32));
        ck_assert(eval(LS_BOP_ERF, LS_ET_F16, LS_MATH_ROCM, x16) ==
                  round_to(ls_iree_rocm_erff((float)x16), LS_ET_F16));
        ck_assert(eval(LS_BOP_EXP, LS_ET_F32, LS_MATH_ROCM, x32) == round_to(exp(x32), LS_ET_F32));
        ck_assert(eval(LS_BOP_EXP2, LS_ET_F32, LS_MATH_ROCM, x32) ==
                  round_to(exp2(x32), LS_ET_F32));
        /* odd, as the sign is copied back */
        ck_assert(ls_iree_rocm_erff(-x32) == -ls_iree_rocm_erff(x32));
    }
    /* the two modes do give different bits somewhere (else nothing here is tested) */
    int differ = 0;
    for (int k = 0; k < 1000; k++) {
        double x = -20 + k * 0.04;
        differ += eval(LS_BOP_EXP, LS_ET_F32, LS_MATH_MLIR, x) !=
                  eval(LS_BOP_EXP, LS_ET_F32, LS_MATH_EXACT, x);
    }
    ck_assert_int_gt(differ, 10);
    /* ROCm's erf is not NVIDIA's */
    differ = 0;
    for (int k = 0; k < 1000; k++) {
        double x = -4 + k * 0.008;
        differ += eval(LS_BOP_ERF, LS_ET_F32, LS_MATH_ROCM, x) !=
                  eval(LS_BOP_ERF, LS_ET_F32, LS_MATH_MLIR, x);
    }
    ck_assert_int_gt(differ, 10);
}
END_TEST

/* A body `op(input, c)` with c a constant of type ct (bits), or, with
 * var, `op(input, input)`. */
static void binary_body(ls_body *b, ls_body_opcode op, ls_elem_type t, ls_elem_type ct,
                        uint64_t bits, bool var, ls_math_mode m)
{
    memset(b, 0, sizeof *b);
    b->math = (uint8_t)m;
    b->n = 3;
    b->inst[0] = (ls_body_inst){
        .op = LS_BOP_INPUT, .type = (uint8_t)t, .src = (uint8_t)t, .a = -1, .b = -1, .c = -1};
    b->inst[1] = (ls_body_inst){.op = var ? LS_BOP_INPUT : LS_BOP_CONST,
                                .type = (uint8_t)ct,
                                .src = (uint8_t)ct,
                                .a = -1,
                                .b = -1,
                                .c = -1,
                                .imm = bits,
                                .index = var ? 1 : 0};
    b->inst[2] = (ls_body_inst){
        .op = (uint8_t)op, .type = (uint8_t)t, .src = (uint8_t)t, .a = 0, .b = 1, .c = -1};
}

static float eval2(ls_body_opcode op, ls_elem_type ct, uint64_t bits, bool var, ls_math_mode m,
                   float x, uint64_t second)
{
    ls_body b;
    binary_body(&b, op, LS_ET_F32, ct, bits, var, m);
    uint64_t in[2] = {ls_value_from_double(x, LS_ET_F32), second}, scratch[LS_MAX_BODY_INSTS];
    return (float)ls_value_to_double(ls_body_eval(&b, in, NULL, scratch), LS_ET_F32);
}

/* math.powf and math.fpowi as MathTransform rewrites them
 * (ExpandPatterns.cpp convertPowfOp, convertFPowIOp): the values and the
 * instruction counts the timing model gives them. */
START_TEST(powf_and_fpowi_rewritten)
{
    const uint64_t two = ls_value_from_double(2.0, LS_ET_F32),
                   three = ls_value_from_double(3.0, LS_ET_F32);
    const float xs[] = {0.3f, 1.7f, -2.9f, 11.0f};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        float x = xs[i], sq = x * x;
        /* NVIDIA: powf(x, 2) is a * a, powf(x, 3) (a * a) * a, any other exp(b log a) */
        ck_assert(eval2(LS_BOP_POWF, LS_ET_F32, two, false, LS_MATH_MLIR, x, 0) == sq);
        ck_assert(eval2(LS_BOP_POWF, LS_ET_F32, three, false, LS_MATH_MLIR, x, 0) == sq * x);
        if (x > 0)
            ck_assert(eval2(LS_BOP_POWF, LS_ET_F32, 0, true, LS_MATH_MLIR, x, two) ==
                      ls_mlir_expf(2.0f * ls_mlir_logf(x)));
        /* ROCm's device library: the rounded pow stands in */
        ck_assert(eval2(LS_BOP_POWF, LS_ET_F32, three, false, LS_MATH_ROCM, x, 0) ==
                  (float)pow(x, 3.0));
        /* fpowi of a constant on every backend: square-and-multiply */
        ck_assert(eval2(LS_BOP_FPOWI, LS_ET_I32, 3, false, LS_MATH_ROCM, x, 0) == sq * x);
        ck_assert(eval2(LS_BOP_FPOWI, LS_ET_I32, 3, false, LS_MATH_MLIR, x, 0) == sq * x);
        ck_assert(eval2(LS_BOP_FPOWI, LS_ET_I32, (uint32_t)-2, false, LS_MATH_MLIR, x, 0) ==
                  1.0f / sq);
        ck_assert(eval2(LS_BOP_FPOWI, LS_ET_I32, 3, false, LS_MATH_EXACT, x, 0) ==
                  (float)pow(x, 3.0));
    }
    /* x^10 = ((x^2)^2 * x^2)... from the low bit: r = x^2 * 1, then r = x^8 * x^2 */
    float x = 1.1f, x2 = x * x, x4 = x2 * x2, x8 = x4 * x4;
    ck_assert(ls_mlir_fpowif(x, 10) == x8 * x2);
    ck_assert(ls_mlir_fpowif(x, 0) == 1.0f);
    /* a zero power of a negative exponent: the rewrite's two selects give -inf */
    ck_assert(isinf(ls_mlir_fpowif(0.0f, -2)) && ls_mlir_fpowif(0.0f, -2) < 0);
    ck_assert(pow(0.0, -2.0) > 0); /* where pow says +inf */
    /* the counts: NVIDIA sm_90 and AMD gfx942 */
    ls_plan_target nv = ls_plan_target_from_arch("sm_90"), amd = ls_plan_target_from_arch("gfx942");
    static const struct {
        ls_body_opcode op;
        ls_elem_type ct;
        double c;
        bool var;
        int nv_alu, nv_sfu, amd_alu, amd_sfu;
    } k[] = {
        {LS_BOP_POWF, LS_ET_F32, 2, false, 1, 0, 163, 2},   /* a * a; ROCm: ocml */
        {LS_BOP_POWF, LS_ET_F32, 3, false, 2, 0, 163, 2},   /* (a * a) * a */
        {LS_BOP_POWF, LS_ET_F32, -1, false, 9, 1, 163, 2},  /* 1 / a: div.rn */
        {LS_BOP_POWF, LS_ET_F32, 0.5, false, 3, 1, 163, 2}, /* sqrt.approx */
        {LS_BOP_POWF, LS_ET_F32, 0, true, 58, 0, 163, 2},   /* exp(b log a) */
        {LS_BOP_FPOWI, LS_ET_I32, 10, false, 4, 0, 4, 0},   /* 3 squarings, 1 product */
        {LS_BOP_FPOWI, LS_ET_I32, 1, false, 0, 0, 0, 0},    /* x itself */
        {LS_BOP_FPOWI, LS_ET_I32, -1, false, 13, 1, 14, 1}, /* 1 / x, two compare-selects */
        {LS_BOP_FPOWI, LS_ET_I32, 0, true, 59, 0, 164, 2},  /* sitofp, then powf */
    };
    for (size_t j = 0; j < sizeof k / sizeof k[0]; j++) {
        ls_body b;
        uint64_t bits = k[j].ct == LS_ET_I32 ? (uint64_t)(uint32_t)(int32_t)k[j].c
                                             : ls_value_from_double(k[j].c, LS_ET_F32);
        binary_body(&b, k[j].op, LS_ET_F32, k[j].ct, bits, k[j].var, LS_MATH_MLIR);
        int alu, sfu;
        ls_body_machine_ops(&b, nv, &alu, &sfu);
        ck_assert_msg(alu == k[j].nv_alu && sfu == k[j].nv_sfu, "row %zu, NVIDIA: %d + %d", j, alu,
                      sfu);
        ls_body_machine_ops(&b, amd, &alu, &sfu);
        ck_assert_msg(alu == k[j].amd_alu && sfu == k[j].amd_sfu, "row %zu, AMD: %d + %d", j, alu,
                      sfu);
    }
    /* the device library's routines as tools/amd-ocml-counts.py counts
     * llc-22's code of them (tanh: both paths; sin, cos: below 2^17),
     * and rsqrt, which it counts as the table had it */
    static const struct {
        ls_body_opcode op;
        int alu, sfu;
    } ocml[] = {
        {LS_BOP_TANH, 36, 2}, {LS_BOP_SIN, 26, 0}, {LS_BOP_COS, 23, 0}, {LS_BOP_RSQRT, 5, 1}};
    for (size_t j = 0; j < sizeof ocml / sizeof ocml[0]; j++) {
        ls_body b;
        unary_body(&b, ocml[j].op, LS_ET_F32, LS_MATH_EXACT);
        int alu, sfu;
        ls_body_machine_ops(&b, amd, &alu, &sfu);
        ck_assert_msg(alu == ocml[j].alu && sfu == ocml[j].sfu, "ocml row %zu: %d + %d", j, alu,
                      sfu);
    }
}
END_TEST

/* The command line's rule: ROCm targets get ROCm's, every other target
 * MLIR's, and setting a module reaches every body in it. */
START_TEST(mode_by_target)
{
    ck_assert_int_eq(ls_math_mode_for_arch("gfx942"), LS_MATH_ROCM);
    ck_assert_int_eq(ls_math_mode_for_arch("gfx1100"), LS_MATH_ROCM);
    ck_assert_int_eq(ls_math_mode_for_arch("sm_90"), LS_MATH_MLIR);
    ck_assert_int_eq(ls_math_mode_for_arch("sm_80"), LS_MATH_MLIR);
    static const char text[] =
        "func.func @smx(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {\n"
        "  %e = tensor.empty() : tensor<4x64xf32>\n"
        "  %r = linalg.softmax dimension(1) ins(%x : tensor<4x64xf32>) outs(%e : "
        "tensor<4x64xf32>) -> tensor<4x64xf32>\n"
        "  return %r : tensor<4x64xf32>\n}\n";
    ls_diag d;
    ls_module *m = load_text(text, &d);
    ck_assert_msg(d.status == LS_OK, "%s", d.msg);
    ck_assert_uint_ge(m->n_problems, 2);
    ck_assert_uint_ge(m->n_elementwise, 1);
    for (size_t i = 0; i < m->n_problems; i++)
        ck_assert_int_eq(m->problems[i].body.math, LS_MATH_EXACT); /* as parsed */
    ls_module_set_math(m, LS_MATH_MLIR);
    for (size_t i = 0; i < m->n_problems; i++)
        ck_assert_int_eq(m->problems[i].body.math, LS_MATH_MLIR);
    for (size_t i = 0; i < m->n_elementwise; i++)
        ck_assert_int_eq(m->elementwise[i].body.math, LS_MATH_MLIR);
    free(m);
}
END_TEST

static Suite *mlir_math_suite(void)
{
    Suite *s = suite_create("mlir_math");
    TCase *tc = tcase_create("approximations");
    tcase_add_loop_test(tc, matches_mlir_runner_output, 0, (int)(sizeof runner / sizeof runner[0]));
    tcase_add_test(tc, differs_from_libm_where_mlir_does);
    tcase_add_test(tc, error_bounds);
    tcase_add_test(tc, body_follows_iree_math_transform);
    tcase_add_test(tc, powf_and_fpowi_rewritten);
    tcase_add_test(tc, mode_by_target);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(mlir_math_suite)
