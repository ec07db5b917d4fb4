/* body.c: the reduction body's elementwise program: names, type rules and
 * the one evaluator the lanes and the reference share (see body.h). */
#include <math.h>
#include <string.h>

#include "lanescope/body.h"
#include "lanescope/mlir_math.h"
#include "lanescope/value.h"

typedef struct {
    const char *name;
    int arity;
    char kind; /* f: float op, i: integer op, c: cast, x: other */
} op_info;

static const op_info ops[LS_BOP_COUNT] = {
    [LS_BOP_INPUT] = {"input", 0, 'x'},
    [LS_BOP_CONST] = {"arith.constant", 0, 'x'},
    [LS_BOP_INDEX] = {"linalg.index", 0, 'x'},
    [LS_BOP_ADDF] = {"arith.addf", 2, 'f'},
    [LS_BOP_SUBF] = {"arith.subf", 2, 'f'},
    [LS_BOP_MULF] = {"arith.mulf", 2, 'f'},
    [LS_BOP_DIVF] = {"arith.divf", 2, 'f'},
    [LS_BOP_MAXIMUMF] = {"arith.maximumf", 2, 'f'},
    [LS_BOP_MINIMUMF] = {"arith.minimumf", 2, 'f'},
    [LS_BOP_MAXNUMF] = {"arith.maxnumf", 2, 'f'},
    [LS_BOP_MINNUMF] = {"arith.minnumf", 2, 'f'},
    [LS_BOP_POWF] = {"math.powf", 2, 'f'},
    [LS_BOP_FPOWI] = {"math.fpowi", 2, 'x'},
    [LS_BOP_NEGF] = {"arith.negf", 1, 'f'},
    [LS_BOP_ABSF] = {"math.absf", 1, 'f'},
    [LS_BOP_EXP] = {"math.exp", 1, 'f'},
    [LS_BOP_EXP2] = {"math.exp2", 1, 'f'},
    [LS_BOP_LOG] = {"math.log", 1, 'f'},
    [LS_BOP_LOG2] = {"math.log2", 1, 'f'},
    [LS_BOP_SQRT] = {"math.sqrt", 1, 'f'},
    [LS_BOP_RSQRT] = {"math.rsqrt", 1, 'f'},
    [LS_BOP_TANH] = {"math.tanh", 1, 'f'},
    [LS_BOP_SIN] = {"math.sin", 1, 'f'},
    [LS_BOP_COS] = {"math.cos", 1, 'f'},
    [LS_BOP_ERF] = {"math.erf", 1, 'f'},
    [LS_BOP_FLOOR] = {"math.floor", 1, 'f'},
    [LS_BOP_CEIL] = {"math.ceil", 1, 'f'},
    [LS_BOP_ADDI] = {"arith.addi", 2, 'i'},
    [LS_BOP_SUBI] = {"arith.subi", 2, 'i'},
    [LS_BOP_MULI] = {"arith.muli", 2, 'i'},
    [LS_BOP_DIVSI] = {"arith.divsi", 2, 'i'},
    [LS_BOP_DIVUI] = {"arith.divui", 2, 'i'},
    [LS_BOP_REMSI] = {"arith.remsi", 2, 'i'},
    [LS_BOP_REMUI] = {"arith.remui", 2, 'i'},
    [LS_BOP_ANDI] = {"arith.andi", 2, 'i'},
    [LS_BOP_ORI] = {"arith.ori", 2, 'i'},
    [LS_BOP_XORI] = {"arith.xori", 2, 'i'},
    [LS_BOP_SHLI] = {"arith.shli", 2, 'i'},
    [LS_BOP_SHRSI] = {"arith.shrsi", 2, 'i'},
    [LS_BOP_SHRUI] = {"arith.shrui", 2, 'i'},
    [LS_BOP_MAXSI] = {"arith.maxsi", 2, 'i'},
    [LS_BOP_MINSI] = {"arith.minsi", 2, 'i'},
    [LS_BOP_MAXUI] = {"arith.maxui", 2, 'i'},
    [LS_BOP_MINUI] = {"arith.minui", 2, 'i'},
    [LS_BOP_EXTF] = {"arith.extf", 1, 'c'},
    [LS_BOP_TRUNCF] = {"arith.truncf", 1, 'c'},
    [LS_BOP_EXTSI] = {"arith.extsi", 1, 'c'},
    [LS_BOP_EXTUI] = {"arith.extui", 1, 'c'},
    [LS_BOP_TRUNCI] = {"arith.trunci", 1, 'c'},
    [LS_BOP_SITOFP] = {"arith.sitofp", 1, 'c'},
    [LS_BOP_UITOFP] = {"arith.uitofp", 1, 'c'},
    [LS_BOP_FPTOSI] = {"arith.fptosi", 1, 'c'},
    [LS_BOP_FPTOUI] = {"arith.fptoui", 1, 'c'},
    [LS_BOP_INDEX_CAST] = {"arith.index_cast", 1, 'c'},
    [LS_BOP_CMPF] = {"arith.cmpf", 2, 'x'},
    [LS_BOP_CMPI] = {"arith.cmpi", 2, 'x'},
    [LS_BOP_SELECT] = {"arith.select", 3, 'x'},
    [LS_BOP_SCALING_EXTF] = {"arith.scaling_extf", 2, 'x'},
    [LS_BOP_FMA] = {"math.fma", 3, 'x'},
};

bool ls_body_opcode_from_name(const char *name, ls_body_opcode *op)
{
    for (int i = LS_BOP_CONST; i < LS_BOP_COUNT; i++)
        if (ops[i].name && strcmp(ops[i].name, name) == 0) {
            *op = (ls_body_opcode)i;
            return true;
        }
    return false;
}

const char *ls_body_opcode_name(ls_body_opcode op)
{
    return op < LS_BOP_COUNT && ops[op].name ? ops[op].name : "?";
}

int ls_body_opcode_arity(ls_body_opcode op)
{
    return op < LS_BOP_COUNT ? ops[op].arity : 0;
}

static const char *const pred_names[] = {
    "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule",
    "une",   "uno", "true", "eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"};

bool ls_body_pred_from_name(const char *name, bool is_float, ls_body_pred *pred)
{
    int lo = is_float ? LS_PRED_FALSE : LS_PRED_EQ, hi = is_float ? LS_PRED_TRUE : LS_PRED_UGE_I;
    for (int i = lo; i <= hi; i++)
        if (strcmp(pred_names[i], name) == 0) {
            *pred = (ls_body_pred)i;
            return true;
        }
    return false;
}

/* ---- evaluation ---- */

/* The value conversions, with f32 and f16 (most bodies' types) inline: the
 * same bits as ls_value_to_double / ls_value_from_double give (an f16
 * result that is not exactly a float takes their careful rounding). */
static inline double fval(uint64_t v, ls_elem_type t)
{
    if (t == LS_ET_F32)
        return ls_f32_of_bits((uint32_t)v);
    if (t == LS_ET_F16)
        return ls_f16_to_f32((uint16_t)v);
    return ls_value_to_double(v, t);
}

static inline uint64_t fres(double d, ls_elem_type t)
{
    if (t == LS_ET_F32)
        return ls_f32_bits((float)d);
    if (t == LS_ET_F16 && (double)(float)d == d)
        return ls_f32_to_f16((float)d);
    return ls_value_from_double(d, t);
}

static uint64_t fma_in(double x, double y, double c, ls_elem_type t, ls_math_mode m);

/* Saturating float -> integer of a width, NaN -> 0 (PTX cvt.rzi.sat and the
 * AMDGPU conversions both saturate). */
static uint64_t to_int_sat(double d, ls_elem_type t, bool is_unsigned)
{
    int bits = ls_elem_type_bits(t);
    if (isnan(d))
        return 0;
    d = trunc(d);
    if (is_unsigned) {
        double max = ldexp(1.0, bits) - 1;
        if (d <= 0)
            return 0;
        if (d >= max)
            return ls_value_mask(t);
        return (uint64_t)d & ls_value_mask(t);
    }
    double max = ldexp(1.0, bits - 1) - 1, min = -ldexp(1.0, bits - 1);
    if (d >= max)
        return ls_value_mask(t) >> 1;
    if (d <= min)
        return (UINT64_C(1) << (bits - 1)) & ls_value_mask(t);
    return (uint64_t)(int64_t)d & ls_value_mask(t);
}

static double maxmin(double a, double b, bool max, bool nan_wins)
{
    if (isnan(a) || isnan(b)) {
        if (nan_wins)
            return NAN;
        return isnan(a) ? b : a;
    }
    if (a == b) /* +0 vs -0: maximum prefers +0, minimum -0 */
        return max ? (signbit(a) ? b : a) : (signbit(a) ? a : b);
    return max ? (a > b ? a : b) : (a < b ? a : b);
}

static bool cmpf(ls_body_pred p, double a, double b)
{
    bool unord = isnan(a) || isnan(b);
    switch (p) {
    case LS_PRED_FALSE: return false;
    case LS_PRED_TRUE: return true;
    case LS_PRED_ORD: return !unord;
    case LS_PRED_UNO: return unord;
    case LS_PRED_OEQ: return !unord && a == b;
    case LS_PRED_OGT: return !unord && a > b;
    case LS_PRED_OGE: return !unord && a >= b;
    case LS_PRED_OLT: return !unord && a < b;
    case LS_PRED_OLE: return !unord && a <= b;
    case LS_PRED_ONE: return !unord && a != b;
    case LS_PRED_UEQ: return unord || a == b;
    case LS_PRED_UGT: return unord || a > b;
    case LS_PRED_UGE: return unord || a >= b;
    case LS_PRED_ULT: return unord || a < b;
    case LS_PRED_ULE: return unord || a <= b;
    case LS_PRED_UNE: return unord || a != b;
    default: return false;
    }
}

static bool cmpi(ls_body_pred p, int64_t a, int64_t b, uint64_t ua, uint64_t ub)
{
    switch (p) {
    case LS_PRED_EQ: return ua == ub;
    case LS_PRED_NE: return ua != ub;
    case LS_PRED_SLT: return a < b;
    case LS_PRED_SLE: return a <= b;
    case LS_PRED_SGT: return a > b;
    case LS_PRED_SGE: return a >= b;
    case LS_PRED_ULT_I: return ua < ub;
    case LS_PRED_ULE_I: return ua <= ub;
    case LS_PRED_UGT_I: return ua > ub;
    case LS_PRED_UGE_I: return ua >= ub;
    default: return false;
    }
}

static uint64_t int_binary(ls_body_opcode op, ls_elem_type t, uint64_t ua, uint64_t ub)
{
    uint64_t m = ls_value_mask(t);
    int bits = ls_elem_type_bits(t);
    int64_t a = ls_value_to_int(ua, t), b = ls_value_to_int(ub, t);
    ua &= m;
    ub &= m;
    switch (op) {
    case LS_BOP_ADDI: return (ua + ub) & m;
    case LS_BOP_SUBI: return (ua - ub) & m;
    case LS_BOP_MULI: return (ua * ub) & m;
    /* Division by zero is undefined in arith; the hardware sequences give
     * all ones for unsigned and -1 for signed, which is what is kept. */
    case LS_BOP_DIVUI: return ub ? (ua / ub) & m : m;
    case LS_BOP_REMUI: return ub ? (ua % ub) & m : ua;
    case LS_BOP_DIVSI:
        if (b == 0)
            return m;
        if (b == -1)
            return (uint64_t)(0 - ua) & m; /* INT_MIN / -1 wraps */
        return (uint64_t)(a / b) & m;
    case LS_BOP_REMSI:
        if (b == 0)
            return ua;
        if (b == -1)
            return 0;
        return (uint64_t)(a % b) & m;
    case LS_BOP_ANDI: return ua & ub;
    case LS_BOP_ORI: return ua | ub;
    case LS_BOP_XORI: return ua ^ ub;
    /* Shifts by the width or more are poison in arith; 0 / sign fill. */
    case LS_BOP_SHLI: return ub >= (uint64_t)bits ? 0 : (ua << ub) & m;
    case LS_BOP_SHRUI: return ub >= (uint64_t)bits ? 0 : ua >> ub;
    case LS_BOP_SHRSI:
        return (uint64_t)(ub >= (uint64_t)bits ? (a < 0 ? -1 : 0) : a >> ub) & m;
    case LS_BOP_MAXSI: return a > b ? ua : ub;
    case LS_BOP_MINSI: return a < b ? ua : ub;
    case LS_BOP_MAXUI: return ua > ub ? ua : ub;
    case LS_BOP_MINUI: return ua < ub ? ua : ub;
    default: return 0;
    }
}

bool ls_body_op_approximated(ls_body_opcode op, ls_math_mode m)
{
    if (m == LS_MATH_ROCM)
        return op == LS_BOP_ERF;
    if (m != LS_MATH_MLIR)
        return false;
    switch (op) {
    case LS_BOP_EXP:
    case LS_BOP_EXP2:
    case LS_BOP_LOG:
    case LS_BOP_LOG2:
    case LS_BOP_TANH:
    case LS_BOP_ERF:
    case LS_BOP_SIN:
    case LS_BOP_COS: return true;
    default: return false;
    }
}

bool ls_body_op_is_math(ls_body_opcode op)
{
    return ls_body_op_approximated(op, LS_MATH_MLIR) || op == LS_BOP_SQRT || op == LS_BOP_RSQRT ||
           op == LS_BOP_POWF || op == LS_BOP_FPOWI;
}

bool ls_body_inst_as_target(const ls_body *b, int i, ls_math_mode m)
{
    const ls_body_inst *in = &b->inst[i];
    ls_body_opcode op = (ls_body_opcode)in->op;
    ls_elem_type t = (ls_elem_type)in->type;
    const ls_body_inst *e = in->b >= 0 ? &b->inst[in->b] : NULL;
    bool cst = e && e->op == LS_BOP_CONST;
    switch (op) {
    case LS_BOP_POWF: {
        if (m != LS_MATH_MLIR)
            return false;
        ls_powf_rewrite r = ls_body_powf_rewrite(b, i);
        if (r == LS_POWF_SQRT || r == LS_POWF_RSQRT)
            return false; /* sqrt.approx, rsqrt.approx */
        return r != LS_POWF_GENERAL || t == LS_ET_F32; /* mulf, divf: IEEE on both */
    }
    case LS_BOP_FPOWI: return t == LS_ET_F32 && (cst ? m != LS_MATH_EXACT : m == LS_MATH_MLIR);
    case LS_BOP_SQRT:
    case LS_BOP_RSQRT: return false;
    default:
        return t != LS_ET_F64
                   ? !ls_body_op_approximated(op, LS_MATH_MLIR) || ls_body_op_approximated(op, m)
                   : !ls_body_op_approximated(op, LS_MATH_MLIR);
    }
}

/* A math op as IREE compiles it for NVIDIA (LS_MATH_MLIR), or ROCm's erf
 * (rocm): f16 and bf16 extended to f32 and the result truncated
 * (predicateF32Cast); exp2 first rewritten as exp(x * ln 2) in x's type
 * (predicateRewrite, ExpandPatterns.cpp's convertExp2fOp), then exp as
 * any exp. */
static uint64_t mlir_math(ls_body_opcode op, ls_elem_type t, double a, bool rocm)
{
    float x = (float)a; /* exact: a holds a value of t */
    switch (op) {
    case LS_BOP_EXP2: {
        double ln2 = fval(fres(0.69314718055994530942, t), t);
        return fres(ls_mlir_expf((float)fval(fres(a * ln2, t), t)), t);
    }
    case LS_BOP_EXP: return fres(ls_mlir_expf(x), t);
    case LS_BOP_LOG: return fres(ls_mlir_logf(x), t);
    case LS_BOP_LOG2: return fres(ls_mlir_log2f(x), t);
    case LS_BOP_TANH: return fres(ls_mlir_tanhf(x), t);
    case LS_BOP_ERF: return fres(rocm ? ls_iree_rocm_erff(x) : ls_mlir_erff(x), t);
    case LS_BOP_SIN: return fres(ls_mlir_sinf(x), t);
    default: return fres(ls_mlir_cosf(x), t);
    }
}

ls_powf_rewrite ls_powf_rewrite_of(double v)
{
    return v == 0      ? LS_POWF_ONE
           : v == 1    ? LS_POWF_SELF
           : v == -1   ? LS_POWF_RECIP
           : v == 0.5  ? LS_POWF_SQRT
           : v == -0.5 ? LS_POWF_RSQRT
           : v == 2    ? LS_POWF_SQUARE
           : v == -2   ? LS_POWF_RECIP_SQUARE
           : v == 3    ? LS_POWF_CUBE
                       : LS_POWF_GENERAL;
}

ls_powf_rewrite ls_body_powf_rewrite(const ls_body *b, int i)
{
    const ls_body_inst *in = &b->inst[i];
    if (in->op != LS_BOP_POWF || in->b < 0 || b->inst[in->b].op != LS_BOP_CONST)
        return LS_POWF_GENERAL;
    return ls_powf_rewrite_of(ls_value_to_double(b->inst[in->b].imm, (ls_elem_type)in->type));
}

/* math.powf as IREE rewrites it for NVIDIA (MathTransform's
 * predicateRewrite; ExpandPatterns.cpp, convertPowfOp): a constant
 * exponent becomes mulf, divf, sqrt or rsqrt (r); any other exp(b * log(a))
 * of MLIR's approximations in f32 (other types keep the correctly rounded
 * pow). */
static uint64_t powf_rewritten(ls_elem_type t, double a, double b, ls_powf_rewrite r)
{
    double sq = fval(fres(a * a, t), t);
    switch (r) {
    case LS_POWF_ONE: return fres(1.0, t);
    case LS_POWF_SELF: return fres(a, t);
    case LS_POWF_RECIP: return fres(1.0 / a, t);
    case LS_POWF_SQRT: return fres(sqrt(a), t);
    case LS_POWF_RSQRT: return fres(1.0 / sqrt(a), t);
    case LS_POWF_SQUARE: return fres(sq, t);
    case LS_POWF_RECIP_SQUARE: return fres(1.0 / sq, t);
    case LS_POWF_CUBE: return fres(sq * a, t);
    default: break;
    }
    if (t == LS_ET_F32)
        return fres(ls_mlir_powff((float)a, (float)b), t);
    return fres(pow(a, b), t);
}

/* math.fpowi: IREE rewrites it on every backend (convertFPowIOp): a
 * constant exponent to square-and-multiply (f32 here; other types keep
 * the correctly rounded power), any other to powf(x, sitofp(n)), which
 * NVIDIA rewrites in turn and ROCm leaves to the device library (the
 * correctly rounded value stands in). */
static uint64_t fpowi(ls_elem_type t, double x, int64_t n, bool n_const, ls_math_mode m)
{
    if (m != LS_MATH_EXACT && n_const && t == LS_ET_F32)
        return fres(ls_mlir_fpowif((float)x, (long long)n), t);
    if (m != LS_MATH_EXACT && !n_const) {
        double nf = fval(fres((double)n, t), t);
        return m == LS_MATH_MLIR ? powf_rewritten(t, x, nf, LS_POWF_GENERAL) : fres(pow(x, nf), t);
    }
    return fres(pow(x, (double)n), t);
}

static uint64_t float_op(ls_body_opcode op, ls_elem_type t, double a, double b, ls_math_mode m)
{
    if (t != LS_ET_F64 && ls_body_op_approximated(op, m))
        return mlir_math(op, t, a, m == LS_MATH_ROCM);
    if (m == LS_MATH_MLIR && op == LS_BOP_EXP2) /* f64: rewritten, then libdevice's exp */
        return fres(exp(a * 0.69314718055994530942), t);
    switch (op) {
    case LS_BOP_ADDF: return fres(a + b, t);
    case LS_BOP_SUBF: return fres(a - b, t);
    case LS_BOP_MULF: return fres(a * b, t);
    case LS_BOP_DIVF: return fres(a / b, t);
    case LS_BOP_MAXIMUMF: return fres(maxmin(a, b, true, true), t);
    case LS_BOP_MINIMUMF: return fres(maxmin(a, b, false, true), t);
    case LS_BOP_MAXNUMF: return fres(maxmin(a, b, true, false), t);
    case LS_BOP_MINNUMF: return fres(maxmin(a, b, false, false), t);
    case LS_BOP_POWF: return fres(pow(a, b), t);
    case LS_BOP_NEGF: return fres(-a, t);
    case LS_BOP_ABSF: return fres(fabs(a), t);
    case LS_BOP_EXP: return fres(exp(a), t);
    case LS_BOP_EXP2: return fres(exp2(a), t);
    case LS_BOP_LOG: return fres(log(a), t);
    case LS_BOP_LOG2: return fres(log2(a), t);
    case LS_BOP_SQRT: return fres(sqrt(a), t);
    case LS_BOP_RSQRT: return fres(1.0 / sqrt(a), t);
    case LS_BOP_TANH: return fres(tanh(a), t);
    case LS_BOP_SIN: return fres(sin(a), t);
    case LS_BOP_COS: return fres(cos(a), t);
    case LS_BOP_ERF: return fres(erf(a), t);
    case LS_BOP_FLOOR: return fres(floor(a), t);
    case LS_BOP_CEIL: return fres(ceil(a), t);
    default: return 0;
    }
}

/* An f8E8M0FNU scale extended as MLIR's expansion extends it
 * (ExpandOps.cpp, F8E8M0ExtFOpConverter): the pattern becomes an f32
 * exponent field, so 0x00 is +0 (not 2^-127) and 0xff NaN. */
static double e8m0_ext(uint64_t e8)
{
    e8 &= 0xff;
    return e8 == 0 ? 0.0 : ls_value_to_double(e8, LS_ET_F8E8M0FNU);
}

uint64_t ls_body_eval(const ls_body *b, const uint64_t *inputs, const int64_t *x,
                      uint64_t *v)
{
    if (b->n == 0)
        return inputs[0];
    for (int i = 0; i < b->n; i++) {
        const ls_body_inst *in = &b->inst[i];
        ls_elem_type t = (ls_elem_type)in->type, s = (ls_elem_type)in->src;
        uint64_t va = in->a >= 0 ? v[in->a] : 0, vb = in->b >= 0 ? v[in->b] : 0;
        ls_body_opcode op = (ls_body_opcode)in->op;
        switch (ops[op].kind) {
        case 'f':
            if (op == LS_BOP_POWF && b->math == LS_MATH_MLIR) {
                v[i] = powf_rewritten(t, fval(va, t), fval(vb, t), ls_body_powf_rewrite(b, i));
                continue;
            }
            v[i] =
                float_op(op, t, fval(va, t), in->b >= 0 ? fval(vb, t) : 0, (ls_math_mode)b->math);
            continue;
        case 'i':
            v[i] = int_binary(op, t, va, vb);
            continue;
        default: break;
        }
        switch (op) {
        case LS_BOP_INPUT: v[i] = inputs[in->index]; break;
        case LS_BOP_CONST: v[i] = in->imm; break;
        case LS_BOP_INDEX: v[i] = (uint64_t)x[in->index]; break;
        case LS_BOP_EXTF:
            v[i] = fres(s == LS_ET_F8E8M0FNU ? e8m0_ext(va) : fval(va, s), t);
            break;
        case LS_BOP_TRUNCF: v[i] = fres(fval(va, s), t); break;
        case LS_BOP_EXTSI:
        case LS_BOP_INDEX_CAST:
        case LS_BOP_TRUNCI: v[i] = (uint64_t)ls_value_to_int(va, s) & ls_value_mask(t); break;
        case LS_BOP_EXTUI: v[i] = va & ls_value_mask(s); break;
        case LS_BOP_SITOFP: v[i] = fres((double)ls_value_to_int(va, s), t); break;
        case LS_BOP_UITOFP: v[i] = fres((double)(va & ls_value_mask(s)), t); break;
        case LS_BOP_FPTOSI: v[i] = to_int_sat(fval(va, s), t, false); break;
        case LS_BOP_FPTOUI: v[i] = to_int_sat(fval(va, s), t, true); break;
        case LS_BOP_CMPF: v[i] = cmpf((ls_body_pred)in->pred, fval(va, s), fval(vb, s)); break;
        case LS_BOP_CMPI:
            v[i] = cmpi((ls_body_pred)in->pred, ls_value_to_int(va, s), ls_value_to_int(vb, s),
                        va & ls_value_mask(s), vb & ls_value_mask(s));
            break;
        case LS_BOP_SELECT: v[i] = (va & 1) ? vb : v[in->c]; break;
        case LS_BOP_FMA:
            v[i] = fma_in(fval(va, t), fval(vb, t), fval(v[in->c], t), t, (ls_math_mode)b->math);
            break;
        case LS_BOP_SCALING_EXTF: {
            /* MLIR's expansion (Arith/Transforms/ExpandOps.cpp,
             * ScalingExtFOpConverter): a scale wider than 8 bits becomes
             * its f32 exponent field (a truncation to f8E8M0FNU, no
             * rounding), both operands are extended to the result type and
             * multiplied there once. */
            ls_elem_type st = (ls_elem_type)b->inst[in->b].type;
            uint64_t e8 = vb & 0xff;
            if (st != LS_ET_F8E8M0FNU)
                e8 = (ls_value_from_double(fval(vb, st), LS_ET_F32) >> 23) & 0xff;
            double val = fval(fres(fval(va, s), t), t);
            double scale = fval(fres(e8m0_ext(e8), t), t);
            v[i] = fres(val * scale, t);
            break;
        }
        case LS_BOP_FPOWI:
            v[i] = fpowi(t, fval(va, t), ls_value_to_int(vb, (ls_elem_type)b->inst[in->b].type),
                         b->inst[in->b].op == LS_BOP_CONST, (ls_math_mode)b->math);
            break;
        default: v[i] = 0; break;
        }
    }
    return v[b->n - 1];
}

bool ls_body_ends_in_mulf(const ls_body *b, ls_elem_type t)
{
    return b->n > 0 && b->inst[b->n - 1].op == LS_BOP_MULF && b->inst[b->n - 1].type == t &&
           ls_elem_type_is_float(t);
}

bool ls_body_fuse_reduced_muladd(ls_body *b)
{
    if (b->n < 2)
        return false;
    ls_body_inst *add = &b->inst[b->n - 1];
    if (add->op != LS_BOP_ADDF)
        return false;
    int m = add->a, c = add->b;
    if (b->inst[m].op != LS_BOP_MULF) {
        m = add->b;
        c = add->a;
    }
    const ls_body_inst *mul = &b->inst[m];
    if (mul->op != LS_BOP_MULF || !((add->fmf == LS_FMF_NONE && mul->fmf == LS_FMF_NONE) ||
                                    (add->fmf == LS_FMF_CONTRACT && mul->fmf == LS_FMF_CONTRACT)))
        return false;
    add->op = LS_BOP_FMA;
    b->muladd_fused = true;
    add->a = mul->a;
    add->b = mul->b;
    add->c = (int16_t)c;
    bool read = false; /* by anything but the add */
    for (int i = m + 1; i < b->n - 1; i++) {
        const ls_body_inst *in = &b->inst[i];
        read |= in->a == m || in->b == m || in->c == m;
    }
    if (read)
        return true;
    /* drop the multiply: later instructions move up one */
    for (int i = m; i < b->n - 1; i++)
        b->inst[i] = b->inst[i + 1];
    b->n--;
    for (int i = m; i < b->n; i++) {
        int16_t *opnd[3] = {&b->inst[i].a, &b->inst[i].b, &b->inst[i].c};
        for (int k = 0; k < 3; k++)
            if (*opnd[k] > m)
                (*opnd[k])--;
    }
    return true;
}

/* x * y + c rounded once to t.  f32 and f64: the C library's fma.  The
 * narrower types: x * y is exact in double (at most 2 x 11 significant
 * bits), the sum's rounding error is recovered exactly (Knuth's TwoSum),
 * and a sum that was rounded is moved one double ulp towards the error, so
 * that rounding it to t cannot land on a tie the exact value does not
 * sit on.
 * Except a bf16 fma on AMD (m: the target's math): no AMD GPU has a bf16
 * FMA, and IREE's LLVMGPU pipeline leaves bf16 arith to LLVM (it runs
 * ConvertBf16ArithToF32 only for CPU and SPIR-V), whose AMDGPU backend
 * promotes it: v_fmac_f32 on the widened operands, then the f32 result
 * rounded to bf16 (llc-22 for gfx942, gfx950, gfx1100, gfx1201).  Two
 * roundings, which differ from one where the f32 result lands on a bf16
 * tie.  NVIDIA from sm_80 has fma.rn.bf16 (NVPTX emits it): one rounding,
 * as the CUDA kernels' __hfma. */
static uint64_t fma_in(double x, double y, double c, ls_elem_type t, ls_math_mode m)
{
    if (t == LS_ET_F32 || (t == LS_ET_BF16 && m == LS_MATH_ROCM)) {
        float r = fmaf((float)x, (float)y, (float)c);
        return t == LS_ET_F32 ? ls_f32_bits(r) : fres(r, t);
    }
    if (t == LS_ET_F64)
        return ls_value_from_double(fma(x, y, c), t);
    double p = x * y, s = p + c;
    if (isfinite(s)) {
        double bp = s - p, err = (p - (s - bp)) + (c - bp);
        if (err != 0)
            s = nextafter(s, err > 0 ? INFINITY : -INFINITY);
    }
    return fres(s, t);
}

uint64_t ls_body_fma(const ls_body *b, const uint64_t *scratch, uint64_t c, ls_elem_type t)
{
    const ls_body_inst *m = &b->inst[b->n - 1];
    return fma_in(fval(scratch[m->a], t), fval(scratch[m->b], t), fval(c, t), t,
                  (ls_math_mode)b->math);
}

int ls_body_alu_ops(const ls_body *b)
{
    int n = 0;
    for (int i = 0; i < b->n; i++)
        n += b->inst[i].op != LS_BOP_INPUT && b->inst[i].op != LS_BOP_CONST &&
             b->inst[i].op != LS_BOP_INDEX;
    return n;
}

int ls_body_transcendental_ops(const ls_body *b)
{
    int n = 0;
    for (int i = 0; i < b->n; i++)
        switch (b->inst[i].op) {
        case LS_BOP_EXP: case LS_BOP_EXP2: case LS_BOP_LOG: case LS_BOP_LOG2: case LS_BOP_RSQRT:
        case LS_BOP_SQRT: case LS_BOP_TANH: case LS_BOP_SIN: case LS_BOP_COS: case LS_BOP_ERF:
        case LS_BOP_POWF: case LS_BOP_FPOWI: case LS_BOP_DIVF:
            n++;
            break;
        default: break;
        }
    return n;
}

/* ---- type rules ---- */

static bool is_int(ls_elem_type t)
{
    return t == LS_ET_I1 || t == LS_ET_I4 || t == LS_ET_I8 || t == LS_ET_I16 || t == LS_ET_I32 || t == LS_ET_I64 ||
           t == LS_ET_INDEX || t == LS_ET_I128;
}

/* An op on i128 that the low 64 bits lanescope carries decide exactly:
 * reduction mod 2^64 commutes with add, sub and mul mod 2^128 and with the
 * bitwise ops, the low 64 bits of an extension into i128 are the operand
 * extended to 64 bits, and a truncation to 64 bits or fewer reads only
 * them.  A compare, division, remainder, shift, min/max or conversion to
 * float depends on the high bits. */
static bool i128_exact(const ls_body *b, const ls_body_inst *in)
{
    ls_elem_type t = (ls_elem_type)in->type, s = (ls_elem_type)in->src;
    bool touches = t == LS_ET_I128 || s == LS_ET_I128;
    int ar = ops[in->op].arity;
    const int16_t opnd[3] = {in->a, in->b, in->c};
    for (int k = 0; k < ar; k++)
        touches |= (ls_elem_type)b->inst[opnd[k]].type == LS_ET_I128;
    if (!touches)
        return true;
    switch ((ls_body_opcode)in->op) {
    case LS_BOP_INPUT: case LS_BOP_CONST: case LS_BOP_ADDI: case LS_BOP_SUBI:
    case LS_BOP_MULI: case LS_BOP_ANDI: case LS_BOP_ORI: case LS_BOP_XORI: case LS_BOP_SELECT:
        return true;
    case LS_BOP_EXTSI: case LS_BOP_EXTUI: return t == LS_ET_I128;
    case LS_BOP_TRUNCI: return ls_elem_type_bits(t) <= 64;
    default: return false;
    }
}

bool ls_body_check(const ls_body *b, int *bad, const char **why)
{
    for (int i = 0; i < b->n; i++) {
        const ls_body_inst *in = &b->inst[i];
        *bad = i;
        ls_body_opcode op = (ls_body_opcode)in->op;
        ls_elem_type t = (ls_elem_type)in->type, s = (ls_elem_type)in->src;
        int ar = ops[op].arity;
        const int16_t opnd[3] = {in->a, in->b, in->c};
        for (int k = 0; k < 3; k++)
            if ((k < ar) != (opnd[k] >= 0) || opnd[k] >= i) {
                *why = "an operand is missing or not defined before its use";
                return false;
            }
        if (!i128_exact(b, in)) {
            *why = "an i128 op other than add, sub, mul, and, or, xor, select, an extension into "
                   "i128 or a truncation to 64 bits or fewer: lanescope carries the low 64 bits "
                   "of an i128, and this op depends on the high ones";
            return false;
        }
        ls_elem_type at = ar > 0 ? (ls_elem_type)b->inst[in->a].type : LS_ET_UNKNOWN;
        ls_elem_type bt = ar > 1 ? (ls_elem_type)b->inst[in->b].type : LS_ET_UNKNOWN;
        switch (ops[op].kind) {
        case 'f':
            if (!ls_elem_type_is_float(t) || at != t || (ar > 1 && bt != t)) {
                *why = "a float op whose operands and result are not all the same float type";
                return false;
            }
            continue;
        case 'i':
            if (!is_int(t) || at != t || bt != t) {
                *why = "an integer op whose operands and result are not all the same integer "
                       "type";
                return false;
            }
            continue;
        case 'c': {
            bool ok = at == s;
            int sb = ls_elem_type_bits(s), tb = ls_elem_type_bits(t);
            bool sf = ls_elem_type_is_float(s), tf = ls_elem_type_is_float(t);
            switch (op) {
            case LS_BOP_EXTF: ok &= sf && tf && tb > sb; break;
            case LS_BOP_TRUNCF: ok &= sf && tf && tb < sb; break;
            case LS_BOP_EXTSI:
            case LS_BOP_EXTUI: ok &= is_int(s) && is_int(t) && tb > sb; break;
            case LS_BOP_TRUNCI: ok &= is_int(s) && is_int(t) && tb < sb; break;
            case LS_BOP_SITOFP:
            case LS_BOP_UITOFP: ok &= is_int(s) && tf; break;
            case LS_BOP_FPTOSI:
            case LS_BOP_FPTOUI: ok &= sf && is_int(t); break;
            case LS_BOP_INDEX_CAST: ok &= is_int(s) && is_int(t); break;
            default: break;
            }
            if (!ok) {
                *why = "a cast between types it does not convert (or its operand is not of the "
                       "source type it names)";
                return false;
            }
            continue;
        }
        default: break;
        }
        bool ok = true;
        switch (op) {
        case LS_BOP_CMPF: ok = ls_elem_type_is_float(s) && at == s && bt == s && t == LS_ET_I1; break;
        case LS_BOP_CMPI: ok = is_int(s) && at == s && bt == s && t == LS_ET_I1; break;
        case LS_BOP_SELECT:
            ok = at == LS_ET_I1 && bt == t && (ls_elem_type)b->inst[in->c].type == t;
            break;
        case LS_BOP_FMA:
            ok = ls_elem_type_is_float(t) && at == t && bt == t &&
                 (ls_elem_type)b->inst[in->c].type == t;
            break;
        case LS_BOP_INDEX: ok = t == LS_ET_INDEX; break;
        case LS_BOP_FPOWI: ok = ls_elem_type_is_float(t) && at == t && is_int(bt); break;
        case LS_BOP_SCALING_EXTF:
            ok = ls_elem_type_is_float(s) && at == s && ls_elem_type_is_float(bt) &&
                 ls_elem_type_is_float(t) && ls_elem_type_bits(t) > ls_elem_type_bits(s);
            break;
        default: break;
        }
        if (!ok) {
            *why = "operand types do not match the op (cmpf/cmpi take two operands of one "
                   "type and give i1; select takes i1 and two values of its result type; "
                   "math.fma three of its float type)";
            return false;
        }
    }
    return true;
}

void ls_body_print(const ls_body *b, const char *indent, FILE *f)
{
    for (int i = 0; i < b->n; i++) {
        const ls_body_inst *in = &b->inst[i];
        ls_body_opcode op = (ls_body_opcode)in->op;
        ls_elem_type t = (ls_elem_type)in->type, s = (ls_elem_type)in->src;
        fprintf(f, "%s%%%d = ", indent, i);
        switch (op) {
        case LS_BOP_INPUT:
            fprintf(f, "input %d : %s\n", in->index, ls_elem_type_name(t));
            continue;
        case LS_BOP_CONST: {
            char buf[48];
            ls_value_format(in->imm, t, buf, sizeof buf);
            fprintf(f, "arith.constant %s : %s\n", buf, ls_elem_type_name(t));
            continue;
        }
        case LS_BOP_INDEX: fprintf(f, "linalg.index %d : index\n", in->index); continue;
        default: break;
        }
        fprintf(f, "%s ", ops[op].name);
        if (op == LS_BOP_CMPF || op == LS_BOP_CMPI)
            fprintf(f, "%s, ", pred_names[in->pred]);
        fprintf(f, "%%%d", in->a);
        if (in->b >= 0)
            fprintf(f, ", %%%d", in->b);
        if (in->c >= 0)
            fprintf(f, ", %%%d", in->c);
        if (ops[op].kind == 'c')
            fprintf(f, " : %s to %s\n", ls_elem_type_name(s), ls_elem_type_name(t));
        else if (op == LS_BOP_CMPF || op == LS_BOP_CMPI)
            fprintf(f, " : %s\n", ls_elem_type_name(s));
        else
            fprintf(f, " : %s\n", ls_elem_type_name(t));
    }
}
