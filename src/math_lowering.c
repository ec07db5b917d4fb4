/* math_lowering.c: the machine instructions a reduction body's ops become
 * on a target, for the engine's timing: ALU instructions and
 * special-function (transcendental) ones.
 *
 * Most body ops are one ALU instruction.  IREE's math ops are not: before
 * LLVM, IREE's MathTransform pass (Codegen/Common/MathTransform.cpp)
 * rewrites f16/bf16 math ops in f32 (predicateF32Cast) and, on every
 * target but ROCm, replaces exp, log, tanh, erf, sin, cos... by MLIR's
 * polynomial approximations (predicateApprox; mlir's
 * Math/Transforms/PolynomialApproximation.cpp), which are ALU code; what
 * remains reaches the backend as an intrinsic or device-library call that
 * uses the target's special-function unit.  The table below gives, per op
 * and per backend, the counts from those sources (docs/timing-model.md,
 * "Math ops"). */
#include <stdlib.h>
#include <string.h>

#include "lanescope/body.h"
#include "lanescope/plan.h"
#include "lanescope/value.h"

typedef struct {
    int alu, sfu;
} op_cost;

typedef struct {
    ls_body_opcode op;
    op_cost nvidia, amd;
    /* the ops MathTransform leaves in the IR on NVIDIA (the polynomial's
     * MLIR ops, each an LLVM IR instruction LLVM's unroller counts) */
    int nvidia_ir;
    const char *nvidia_how, *amd_how; /* what each backend's code computes it with */
} math_cost;

/* f32 costs: {ALU, special-function} per scalar op, NVIDIA (sm_80/sm_90)
 * then AMD (gfx942).  How each was counted, and which are estimates, is in
 * docs/timing-model.md ("Math ops").  NVIDIA: the polynomial's MLIR ops,
 * plus its conversions (floor, fptosi, sitofp), as SASS instructions; the
 * only MUFU comes from div.rn.f32 (tanh and erf divide), sqrt.approx.f32
 * and rsqrt.approx.f32 (libdevice __nv_sqrtf / __nv_rsqrtf).  AMD: LLVM's
 * lowering of llvm.exp/log/sqrt.f32 with IEEE denormals (ROCm's default)
 * and the __ocml_* routines IREE calls for the rest, with their trans
 * instructions (v_exp, v_log, v_rsq, v_sqrt, v_rcp); llc-22 agrees on exp,
 * exp2, log, log2, sqrt and divf (tools/amd-op-counts.sh), and the ocml
 * routines are llc-22's code of the device library IREE links
 * (tools/amd-ocml-counts.py: every path of tanh's and pow's branches, sin
 * and cos below 2^17). */
/* one op a row */
/* clang-format off */
static const math_cost costs[] = {
    {LS_BOP_EXP, {23, 0}, {12, 1}, 24, "MLIR's polynomial (MathTransform's predicateApprox)",
     "llvm.exp.f32: v_exp_f32 with range scaling"},
    {LS_BOP_EXP2, {24, 0}, {5, 1}, 25, "rewritten to exp(x * ln 2), then MLIR's polynomial",
     "__ocml_exp2_f32: v_exp_f32"},
    {LS_BOP_LOG, {32, 0}, {11, 1}, 33, "MLIR's polynomial (MathTransform's predicateApprox)",
     "llvm.log.f32: v_log_f32 with range scaling"},
    {LS_BOP_LOG2, {32, 0}, {5, 1}, 33, "MLIR's polynomial (MathTransform's predicateApprox)",
     "__ocml_log2_f32: v_log_f32"},
    {LS_BOP_RSQRT, {3, 1}, {5, 1}, 1, "libdevice's __nv_rsqrtf: rsqrt.approx.f32",
     "__ocml_rsqrt_f32: v_rsq_f32"},
    {LS_BOP_SQRT, {3, 1}, {15, 1}, 1, "libdevice's __nv_sqrtf: sqrt.approx.f32",
     "llvm.sqrt.f32: v_sqrt_f32 with denormal scaling"},
    {LS_BOP_TANH, {26, 1}, {36, 2}, 19, "MLIR's rational polynomial, with an IEEE division",
     "the device library's __ocml_tanh_f32: a polynomial below 0.625, v_exp_f32 and "
     "v_rcp_f32 above (a subgroup runs both)"},
    {LS_BOP_SIN, {25, 0}, {26, 0}, 25, "MLIR's polynomial after a reduction by pi/2",
     "the device library's __ocml_sin_f32, its own polynomial (arguments below 2^17)"},
    {LS_BOP_COS, {26, 0}, {23, 0}, 26, "MLIR's polynomial after a reduction by pi/2",
     "the device library's __ocml_cos_f32, its own polynomial (arguments below 2^17)"},
    {LS_BOP_ERF, {44, 1}, {29, 1}, 37, "MLIR's rational polynomial, with an IEEE division",
     "IREE's FastErfPattern polynomial (FastMathPatterns.cpp)"},
    {LS_BOP_POWF, {58, 0}, {163, 2}, 58, "rewritten to exp(b * log a), both MLIR's polynomials",
     "the device library's __ocml_pow_f32"},
    {LS_BOP_DIVF, {9, 1}, {10, 1}, 1, "div.rn.f32 (IEEE)",
     "v_div_scale, v_div_fmas and v_div_fixup around v_rcp_f32 (IEEE)"},
};
/* clang-format on */

/* MathTransform.cpp predicateF32Cast: these f16/bf16 ops are computed in
 * f32, between an extf and a truncf. */
static bool f32_cast(ls_body_opcode op)
{
    switch (op) {
    case LS_BOP_TANH: case LS_BOP_LOG: case LS_BOP_LOG2: case LS_BOP_ERF: case LS_BOP_EXP:
    case LS_BOP_SIN: case LS_BOP_COS:
        return true;
    default: return false;
    }
}

/* bf16 on AMD: no AMD GPU computes in bf16, and IREE's LLVMGPU pipeline
 * leaves bf16 arithmetic to LLVM (ConvertBf16ArithToF32 runs only in its
 * CPU and SPIR-V pipelines), whose AMDGPU backend promotes each op to f32:
 * the operands widened (a shift or a mask each), the f32 op, the result
 * rounded to nearest even -- v_bfe_u32, v_add3_u32, v_or_b32, v_cmp_u_f32
 * and v_cndmask_b32, or gfx950's one v_cvt_pk_bf16_f32.  Instructions of
 * one op in a dependent chain, from llc-22 (tools/amd-op-counts.sh):
 * add, mul and max 8 on gfx90a, gfx942 and gfx1030, 7 on gfx1100 and
 * gfx1201, 4 on gfx950; fma one more (gfx950: 6).  maximumf counts as
 * maxnumf: ROCm rewrites it so (Common/ReplaceSlowMinMaxOps.cpp). */
typedef struct {
    int arith, fma, round;
} bf16_cost;

static bf16_cost bf16_amd(ls_plan_target t)
{
    if (t.bf16_cvt)
        return (bf16_cost){4, 6, 1};
    return t.gfx_major >= 11 ? (bf16_cost){7, 8, 5} : (bf16_cost){8, 9, 5};
}

int ls_bf16_combine_alu(ls_plan_target t, ls_combiner k, ls_elem_type acc)
{
    /* a bf16 acc's combiner is a float op unless it is an integer one */
    return t.amd && acc == LS_ET_BF16 && !ls_combiner_is_int_only(k) ? bf16_amd(t).arith : 1;
}

/* A bf16 body op on AMD as the backend promotes it (above); false for an
 * op it computes as it is (casts to f32, sign bits, selects). */
static bool bf16_promoted(const ls_body_inst *in, ls_plan_target t, op_cost *c)
{
    bf16_cost b = bf16_amd(t);
    switch ((ls_body_opcode)in->op) {
    case LS_BOP_ADDF:
    case LS_BOP_SUBF:
    case LS_BOP_MULF:
    case LS_BOP_MAXIMUMF:
    case LS_BOP_MINIMUMF:
    case LS_BOP_MAXNUMF:
    case LS_BOP_MINNUMF: *c = (op_cost){b.arith, 0}; return true;
    case LS_BOP_FMA: *c = (op_cost){b.fma, 0}; return true;
    case LS_BOP_DIVF: /* f32's division between the widening and the rounding */
        c->alu += b.arith - 1;
        return true;
    case LS_BOP_TRUNCF: *c = (op_cost){b.round, 0}; return true;
    default: return false;
    }
}

static op_cost table_cost(ls_body_opcode op, ls_plan_target t)
{
    for (size_t k = 0; k < sizeof costs / sizeof costs[0]; k++)
        if (costs[k].op == op)
            return t.amd ? costs[k].amd : costs[k].nvidia;
    return (op_cost){1, 0};
}

/* math.powf and math.fpowi of a constant exponent as IREE's MathTransform
 * rewrites them (ExpandPatterns.cpp): powf's 0, +-1, +-0.5, +-2 and 3 on
 * NVIDIA (predicateRewrite; ROCm calls __ocml_pow_f32) into mulf, divf,
 * sqrt or rsqrt; fpowi's any n on every backend into square-and-multiply
 * (floor(log2 |n|) squarings, popcount(|n|) - 1 products; 1 / r and two
 * compare-selects when n < 0), and a variable n into powf(x, sitofp(n)).
 * False: not such an op; *how then untouched. */
static bool rewritten_cost(const ls_body *b, const ls_body_inst *in, ls_plan_target t, op_cost *c,
                           int *ir, const char **how)
{
    const ls_body_inst *e = in->b >= 0 ? &b->inst[in->b] : NULL;
    if (!e)
        return false;
    op_cost div = table_cost(LS_BOP_DIVF, t);
    ls_powf_rewrite pr = ls_body_powf_rewrite(b, (int)(in - b->inst));
    if (in->op == LS_BOP_POWF && !t.amd && pr != LS_POWF_GENERAL) {
        static const struct {
            int mul, div;
            ls_body_opcode root; /* sqrt, rsqrt, or none (CONST) */
            const char *how;
        } k[] = {
            [LS_POWF_ONE] = {0, 0, LS_BOP_CONST, "a constant 0 exponent: 1 (convertPowfOp)"},
            [LS_POWF_SELF] = {0, 0, LS_BOP_CONST,
                              "a constant exponent 1: a itself (convertPowfOp)"},
            [LS_POWF_RECIP] = {0, 1, LS_BOP_CONST, "a constant exponent -1: 1 / a (convertPowfOp)"},
            [LS_POWF_SQRT] = {0, 0, LS_BOP_SQRT,
                              "a constant exponent 0.5: sqrt(a) (convertPowfOp)"},
            [LS_POWF_RSQRT] = {0, 0, LS_BOP_RSQRT,
                               "a constant exponent -0.5: rsqrt(a) (convertPowfOp)"},
            [LS_POWF_SQUARE] = {1, 0, LS_BOP_CONST, "a constant exponent 2: a * a (convertPowfOp)"},
            [LS_POWF_RECIP_SQUARE] = {1, 1, LS_BOP_CONST,
                                      "a constant exponent -2: 1 / (a * a) (convertPowfOp)"},
            [LS_POWF_CUBE] = {2, 0, LS_BOP_CONST,
                              "a constant exponent 3: a * a * a (convertPowfOp)"}};
        op_cost r = k[pr].root == LS_BOP_CONST ? (op_cost){0, 0} : table_cost(k[pr].root, t);
        *c = (op_cost){k[pr].mul + k[pr].div * div.alu + r.alu, k[pr].div * div.sfu + r.sfu};
        *ir = k[pr].mul + k[pr].div + (k[pr].root != LS_BOP_CONST);
        *how = k[pr].how;
        return true;
    }
    if (in->op != LS_BOP_FPOWI)
        return false;
    if (e->op != LS_BOP_CONST) { /* sitofp, then powf */
        op_cost pw = table_cost(LS_BOP_POWF, t);
        *c = (op_cost){1 + pw.alu, pw.sfu};
        *ir = 1 + (t.amd ? 1 : 58);
        *how = t.amd ? "powf(x, sitofp(n)) (convertFPowIOp), the device library's __ocml_pow_f32"
                     : "powf(x, sitofp(n)) (convertFPowIOp), then exp(b * log a), both MLIR's "
                       "polynomials";
        return true;
    }
    int64_t n = ls_value_to_int(e->imm, (ls_elem_type)e->type);
    uint64_t m = n < 0 ? 0 - (uint64_t)n : (uint64_t)n;
    int squares = 0, products = 0;
    for (uint64_t q = m; q > 1; q >>= 1)
        squares++;
    for (uint64_t q = m; q; q &= q - 1)
        products++;
    int muls = m ? squares + products - 1 : 0;
    *c = (op_cost){muls, 0};
    *ir = muls;
    if (n < 0) {
        c->alu += div.alu + 4;
        c->sfu += div.sfu;
        *ir += 5;
    }
    *how = "square-and-multiply, and 1 / r for a negative exponent (convertFPowIOp)";
    return true;
}

/* The combiner a body op computes, where tools/amd-dpp-counts.py measured
 * it in a chain (ls_plan_combine_alu takes a maximumf as the target's code
 * computes it: a maxnumf on ROCm, ReplaceSlowMinMaxOps). */
static bool as_combiner(ls_body_opcode op, ls_combiner *k)
{
    switch (op) {
    case LS_BOP_ADDF:
    case LS_BOP_ADDI: *k = LS_COMB_ADD; return true;
    case LS_BOP_MULF:
    case LS_BOP_MULI: *k = LS_COMB_MUL; return true;
    case LS_BOP_MAXIMUMF: *k = LS_COMB_MAXIMUMF; return true;
    case LS_BOP_MAXNUMF: *k = LS_COMB_MAXNUMF; return true;
    case LS_BOP_MINIMUMF: *k = LS_COMB_MINIMUMF; return true;
    case LS_BOP_MINNUMF: *k = LS_COMB_MINNUMF; return true;
    case LS_BOP_MAXSI: *k = LS_COMB_MAXSI; return true;
    case LS_BOP_MINSI: *k = LS_COMB_MINSI; return true;
    case LS_BOP_MAXUI: *k = LS_COMB_MAXUI; return true;
    case LS_BOP_MINUI: *k = LS_COMB_MINUI; return true;
    case LS_BOP_ANDI: *k = LS_COMB_AND; return true;
    case LS_BOP_ORI: *k = LS_COMB_OR; return true;
    case LS_BOP_XORI: *k = LS_COMB_XOR; return true;
    default: return false;
    }
}

/* One body instruction as target t's backend emits it, and as the IR
 * holds it when LLVM unrolls the loop (*ir); false for what costs nothing
 * per element (inputs, constants, linalg.index).  *how: the routine or
 * rewrite, where the op has one (a math op, a bf16 op on AMD), else NULL. */
static bool inst_cost(const ls_body *b, const ls_body_inst *in, ls_plan_target t, op_cost *c,
                      int *ir, const char **how)
{
    ls_body_opcode op = (ls_body_opcode)in->op;
    *how = NULL;
    if (op == LS_BOP_INPUT || op == LS_BOP_CONST || op == LS_BOP_INDEX)
        return false;
    ls_elem_type ty = (ls_elem_type)in->type;
    if (b && rewritten_cost(b, in, t, c, ir, how))
        return true;
    *c = (op_cost){1, 0};
    *ir = 1;
    /* f64 math goes to libdevice/ocml's double routines, not counted: one
     * ALU instruction, as any other op.  ROCm keeps a math op as one
     * intrinsic or device-library call until after unrolling (its
     * expansion is not counted: docs). */
    for (size_t k = 0; ty != LS_ET_F64 && k < sizeof costs / sizeof costs[0]; k++)
        if (costs[k].op == op) {
            *c = t.amd ? costs[k].amd : costs[k].nvidia;
            *ir = t.amd ? 1 : costs[k].nvidia_ir;
            *how = t.amd ? costs[k].amd_how : costs[k].nvidia_how;
        }
    if (f32_cast(op) && (ty == LS_ET_F16 || ty == LS_ET_BF16)) {
        /* the extf and the truncf; a truncf to bf16 on AMD is a rounding */
        c->alu += t.amd && ty == LS_ET_BF16 ? 1 + bf16_amd(t).round : 2;
        *ir += 2;
    } else if (t.amd && ty == LS_ET_BF16 && bf16_promoted(in, t, c) && *how == NULL) {
        *how = "no AMD GPU computes in bf16: LLVM's AMDGPU backend widens the operands, computes "
               "in f32 and rounds back (tools/amd-op-counts.sh)";
    } else if ((!t.amd || ty != LS_ET_BF16) && ty != LS_ET_INDEX && *how == NULL) {
        /* not index arithmetic, which IREE narrows where it knows the range
         * (OptimizeIntArithmetic), nor an integer multiply by a constant,
         * which LLVM makes shifts and adds */
        ls_combiner k;
        bool by_const = op == LS_BOP_MULI && b &&
                        ((in->a >= 0 && b->inst[in->a].op == LS_BOP_CONST) ||
                         (in->b >= 0 && b->inst[in->b].op == LS_BOP_CONST));
        int n = as_combiner(op, &k) && !by_const ? ls_plan_combine_alu(t, ty, k) : 1;
        /* a select moves 32 bits an instruction (v_cndmask_b32) on AMD;
         * NVIDIA's selp.b64 moves 64 */
        if (t.amd && op == LS_BOP_SELECT && ls_elem_type_bits(ty) > 32)
            n = (ls_elem_type_bits(ty) + 31) / 32;
        if (n > 1) {
            c->alu = n;
            *how = t.amd ? "LLVM's AMDGPU backend compiles it to several instructions (a 64-bit "
                           "max is a compare and two selects, an f64 max quiets its operand; "
                           "tools/amd-dpp-counts.py)"
                         : "LLVM's NVPTX backend and ptxas compile it to several instructions "
                           "(before sm_80 an f16 min or max goes through f32 and bf16 "
                           "arithmetic is emulated; from sm_80 ptxas splits an f64 min or max "
                           "and an i64 min, max or multiply; tools/amd-dpp-counts.py, PTX and "
                           "SASS)";
        }
    }
    return true;
}

void ls_body_machine_ops(const ls_body *b, ls_plan_target t, int *alu, int *sfu)
{
    *alu = 0;
    *sfu = 0;
    for (int i = 0; i < b->n; i++) {
        op_cost c;
        int ir;
        const char *how;
        if (inst_cost(b, &b->inst[i], t, &c, &ir, &how)) {
            *alu += c.alu;
            *sfu += c.sfu;
        }
    }
}

int ls_body_ir_ops(const ls_body *b, ls_plan_target t)
{
    int n = 0;
    for (int i = 0; i < b->n; i++) {
        op_cost c;
        int ir;
        const char *how;
        if (inst_cost(b, &b->inst[i], t, &c, &ir, &how))
            n += ir;
    }
    return n;
}

bool ls_body_mul_one_alu(const ls_body *b, ls_elem_type acc, ls_plan_target t)
{
    op_cost c;
    int ir;
    const char *how;
    return ls_body_ends_in_mulf(b, acc) && inst_cost(b, &b->inst[b->n - 1], t, &c, &ir, &how) &&
           c.alu == 1 && c.sfu == 0;
}

/* gfx90a, gfx94x and gfx95x: FeaturePackedFP32Ops (plan.h) */
bool ls_plan_target_packed_f32(ls_plan_target t)
{
    return t.amd && (strcmp(t.arch, "gfx90a") == 0 || strncmp(t.arch, "gfx94", 5) == 0 ||
                     strncmp(t.arch, "gfx95", 5) == 0);
}

/* AMD targets whose ISA has v_fma_mix_f32 (FeatureFmaMixInsts): llc-22
 * forms it on gfx906, gfx908, gfx90a, gfx94x, gfx95x and every gfx10-12,
 * not on gfx900 or gfx90c. */
bool ls_plan_target_fma_mix(ls_plan_target t)
{
    if (!t.amd)
        return false;
    if (t.gfx_major >= 10)
        return true;
    return t.gfx_major == 9 && (strcmp(t.arch, "gfx906") == 0 || strcmp(t.arch, "gfx908") == 0 ||
                                ls_plan_target_packed_f32(t));
}

bool ls_body_fma_mix_folds(const ls_body *b, int i, ls_plan_target t)
{
    if (!ls_plan_target_fma_mix(t) || b->n == 0 || i < 0 || i >= b->n - 1)
        return false;
    int m = b->n - 1;
    const ls_body_inst *mul = &b->inst[m], *x = &b->inst[i];
    if (mul->op != LS_BOP_MULF || mul->type != LS_ET_F32 || (mul->a != i && mul->b != i))
        return false;
    if (x->op != LS_BOP_EXTF || x->src != LS_ET_F16 || x->type != LS_ET_F32)
        return false;
    for (int k = 0; k < m; k++) /* read by another op: it stays */
        if (b->inst[k].a == i || b->inst[k].b == i || b->inst[k].c == i)
            return false;
    return true;
}

int ls_body_fma_mix_exts(const ls_body *b, ls_plan_target t)
{
    int n = 0; /* x * x: one extension */
    for (int i = 0; i + 1 < b->n; i++)
        n += ls_body_fma_mix_folds(b, i, t);
    return n;
}

void ls_body_inst_machine_ops(const ls_body *b, int i, ls_plan_target t, int *alu, int *sfu)
{
    op_cost c;
    int ir;
    const char *how;
    if (!inst_cost(b, &b->inst[i], t, &c, &ir, &how))
        c = (op_cost){0, 0};
    *alu = c.alu;
    *sfu = c.sfu;
}

/* Packed math on a body op (tools/amd-dpp-counts.py --pairs, llc-22): an
 * add, subtract (an add with a negated operand: v_pk_add_f16's neg_lo/hi,
 * sub.f16x2), multiply or FMA pairs where a combine of its type does
 * (ls_plan_combine_pairs), an integer multiply by a constant excepted (it
 * becomes shifts); a truncf of f32 to f16 or bf16 on gfx950
 * (v_cvt_pk_f16_f32, v_cvt_pk_bf16_f32) and sm_80 and later
 * (cvt.rn.f16x2.f32, cvt.rn.bf16x2.f32).  An extf never pairs (one
 * v_cvt_f32_f16 or cvt.f32.f16 an element everywhere), nor an op that
 * costs more than one instruction (promoted bf16, a math routine). */
bool ls_body_op_pairs(const ls_body *b, int i, ls_plan_target t)
{
    const ls_body_inst *in = &b->inst[i];
    op_cost c;
    int ir;
    const char *how;
    ls_body_opcode op = (ls_body_opcode)in->op;
    ls_elem_type ty = (ls_elem_type)in->type;
    if (!inst_cost(b, in, t, &c, &ir, &how) || c.alu != 1 || c.sfu != 0)
        return false;
    if (op == LS_BOP_TRUNCF) {
        bool narrow = in->src == LS_ET_F32 && (ty == LS_ET_F16 || ty == LS_ET_BF16);
        return narrow && (t.amd ? strncmp(t.arch, "gfx95", 5) == 0
                                : strncmp(t.arch, "sm_", 3) == 0 && atoi(t.arch + 3) >= 80);
    }
    if (how != NULL)
        return false;
    ls_combiner k;
    if (op == LS_BOP_SUBF || op == LS_BOP_SUBI || op == LS_BOP_FMA)
        k = LS_COMB_ADD;
    else if (!as_combiner(op, &k))
        return false;
    if (op == LS_BOP_MULI && ((in->a >= 0 && b->inst[in->a].op == LS_BOP_CONST) ||
                              (in->b >= 0 && b->inst[in->b].op == LS_BOP_CONST)))
        return false;
    return ls_plan_combine_pairs(t, ty, k);
}

int ls_body_paired_ops(const ls_body *b, ls_plan_target t, bool *last_mul)
{
    int n = 0;
    *last_mul = false;
    for (int i = 0; i < b->n; i++)
        if (ls_body_op_pairs(b, i, t)) {
            n++;
            *last_mul = i == b->n - 1 && b->inst[i].op == LS_BOP_MULF;
        }
    return n;
}

bool ls_math_lowering(const ls_body *b, int i, ls_plan_target t, const char **how, int *alu,
                      int *sfu)
{
    op_cost c;
    int ir;
    if (!inst_cost(b, &b->inst[i], t, &c, &ir, how) || *how == NULL)
        return false;
    *alu = c.alu;
    *sfu = c.sfu;
    return true;
}
