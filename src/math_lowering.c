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
#include "lanescope/body.h"
#include "lanescope/plan.h"

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
 * and the __ocml_* routines IREE calls for the rest, with one trans
 * instruction (v_exp, v_log, v_rsq, v_sqrt, v_rcp) where they use one. */
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
    {LS_BOP_TANH, {26, 1}, {125, 2}, 19, "MLIR's rational polynomial, with an IEEE division",
     "the device library's __ocml_tanh_f32"},
    {LS_BOP_SIN, {25, 0}, {27, 0}, 25, "MLIR's polynomial after a reduction by pi/2",
     "the device library's __ocml_sin_f32"},
    {LS_BOP_COS, {26, 0}, {25, 0}, 26, "MLIR's polynomial after a reduction by pi/2",
     "the device library's __ocml_cos_f32"},
    {LS_BOP_ERF, {44, 1}, {29, 1}, 37, "MLIR's rational polynomial, with an IEEE division",
     "IREE's FastErfPattern polynomial (FastMathPatterns.cpp)"},
    {LS_BOP_POWF, {58, 0}, {175, 2}, 58, "rewritten to exp(b * log a), both MLIR's polynomials",
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

/* One body instruction as target t's backend emits it, and as the IR
 * holds it when LLVM unrolls the loop (*ir); false for what costs nothing
 * per element (inputs, constants, linalg.index). */
static bool inst_cost(const ls_body_inst *in, ls_plan_target t, op_cost *c, int *ir)
{
    ls_body_opcode op = (ls_body_opcode)in->op;
    if (op == LS_BOP_INPUT || op == LS_BOP_CONST || op == LS_BOP_INDEX)
        return false;
    ls_elem_type ty = (ls_elem_type)in->type;
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
        }
    if (f32_cast(op) && (ty == LS_ET_F16 || ty == LS_ET_BF16)) {
        c->alu += 2;
        *ir += 2;
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
        if (inst_cost(&b->inst[i], t, &c, &ir)) {
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
        if (inst_cost(&b->inst[i], t, &c, &ir))
            n += ir;
    }
    return n;
}

bool ls_math_lowering(ls_body_opcode op, ls_elem_type type, ls_plan_target t, const char **how,
                      int *alu, int *sfu)
{
    for (size_t k = 0; type != LS_ET_F64 && k < sizeof costs / sizeof costs[0]; k++)
        if (costs[k].op == op) {
            ls_body_inst in = {.op = (uint8_t)op, .type = (uint8_t)type};
            op_cost c;
            int ir;
            inst_cost(&in, t, &c, &ir);
            *how = t.amd ? costs[k].amd_how : costs[k].nvidia_how;
            *alu = c.alu;
            *sfu = c.sfu;
            return true;
        }
    return false;
}
