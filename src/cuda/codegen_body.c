/* codegen_body.c: a reduction's body (body.h) as CUDA C.
 *
 * The kernel calls ls_body(one element of each input, the loop
 * coordinates) for every iteration point; it returns the contribution the
 * combiner folds in, computed exactly as sim/body.c computes it, so the
 * generated kernel checks against the same reference bit for bit per
 * element:
 *   - float values live in float (f16, bf16, f32) or double (f64) and are
 *     rounded to their type after every op.  +, -, *, / and sqrt of 16-bit
 *     operands are computed in float and rounded once more: float has at
 *     least 2p+2 bits, so the second rounding cannot differ from rounding
 *     the exact result (the simulator rounds the double result);
 *   - the __f*_rn / __d*_rn intrinsics keep NVCC from contracting a
 *     multiply and an add into an FMA, which would round once where the
 *     body rounds twice;
 *   - math.* ops (exp, log, tanh, ...) are evaluated in double and rounded
 *     to their type, as the simulator's reference does.  IREE computes
 *     them in f32: MLIR's polynomial approximations for exp, log, tanh,
 *     sin, cos and erf, libdevice for sqrt and rsqrt (src/math_lowering.c),
 *     so a body heavy in them runs slower here than IREE's kernel; the
 *     generated header says so;
 *   - integers live in unsigned int (up to 32 bits) or unsigned long long,
 *     masked to their width: ops wrap, and division by zero, shifts by the
 *     width or more and float -> int saturation give the values sim/body.c
 *     gives (the hardware sequences' results).
 * Rounding a double to a 16-bit float goes through float rounded to odd
 * (__double2float_rz, then the lowest bit set when inexact), which makes
 * the final rounding to 16 bits exact.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanescope/arena.h"
#include "lanescope/mlir_math.h"
#include "lanescope/value.h"
#include "codegen.h"

static bool is_double(ls_elem_type t) { return t == LS_ET_F64; }
static bool is_wide_int(ls_elem_type t) { return t == LS_ET_I64 || t == LS_ET_INDEX; }

/* A double expression e rounded to float type t, as an expression of t's value type. */
static void from_double(ls_elem_type t, const char *e, char *buf, size_t size)
{
    switch (t) {
    case LS_ET_F64: snprintf(buf, size, "(%s)", e); break;
    case LS_ET_F32: snprintf(buf, size, "__double2float_rn(%s)", e); break;
    case LS_ET_F16: snprintf(buf, size, "ls_rnd_f16(ls_d2f_odd(%s))", e); break;
    default: snprintf(buf, size, "ls_rnd_bf16(ls_d2f_odd(%s))", e); break;
    }
}

/* A float expression (exact or rounded once to float) rounded to type t. */
static void from_float(ls_elem_type t, const char *e, char *buf, size_t size)
{
    switch (t) {
    case LS_ET_F64: snprintf(buf, size, "(double)(%s)", e); break;
    case LS_ET_F32: snprintf(buf, size, "(%s)", e); break;
    case LS_ET_F16: snprintf(buf, size, "ls_rnd_f16(%s)", e); break;
    default: snprintf(buf, size, "ls_rnd_bf16(%s)", e); break;
    }
}

/* Value v (an expression of s's value type) converted to type t: rounded
 * for floats (extf/truncf). */
static void float_cast(ls_elem_type s, ls_elem_type t, const char *v, char *buf, size_t size)
{
    if (is_double(s))
        from_double(t, v, buf, size);
    else
        from_float(t, v, buf, size);
}

static unsigned long long mask_of(ls_elem_type t)
{
    int w = ls_elem_type_bits(t);
    return w >= 64 ? ~0ull : (1ull << w) - 1;
}

/* Signed view of value v of integer type t. */
static void signed_of(ls_elem_type t, const char *v, char *buf, size_t size)
{
    snprintf(buf, size, "%s(%s, %d)", is_wide_int(t) ? "ls_sx64" : "ls_sx32", v,
             ls_elem_type_bits(t));
}

static const char *float_binary_intrinsic(ls_body_opcode op, bool dbl)
{
    switch (op) {
    case LS_BOP_ADDF: return dbl ? "__dadd_rn" : "__fadd_rn";
    case LS_BOP_SUBF: return dbl ? "__dsub_rn" : "__fsub_rn";
    case LS_BOP_MULF: return dbl ? "__dmul_rn" : "__fmul_rn";
    case LS_BOP_DIVF: return dbl ? "__ddiv_rn" : "__fdiv_rn";
    default: return NULL;
    }
}

/* double-precision math function of a transcendental op */
static const char *math_fn(ls_body_opcode op)
{
    switch (op) {
    case LS_BOP_EXP: return "exp";
    case LS_BOP_EXP2: return "exp2";
    case LS_BOP_LOG: return "log";
    case LS_BOP_LOG2: return "log2";
    case LS_BOP_TANH: return "tanh";
    case LS_BOP_SIN: return "sin";
    case LS_BOP_COS: return "cos";
    case LS_BOP_ERF: return "erf";
    case LS_BOP_FLOOR: return "floor";
    case LS_BOP_CEIL: return "ceil";
    default: return NULL;
    }
}

static void int_expr(const ls_body_inst *in, ls_elem_type t, char *buf, size_t size)
{
    char a[16], b[16], sa[64], sb[64], m[40];
    snprintf(a, sizeof a, "v%d", in->a);
    snprintf(b, sizeof b, "v%d", in->b);
    signed_of(t, a, sa, sizeof sa);
    signed_of(t, b, sb, sizeof sb);
    snprintf(m, sizeof m, "0x%llxull", mask_of(t));
    const char *vt = cg_value_type(t);
    int w = ls_elem_type_bits(t);
    switch ((ls_body_opcode)in->op) {
    case LS_BOP_ADDI: snprintf(buf, size, "(%s)((%s + %s) & %s)", vt, a, b, m); break;
    case LS_BOP_SUBI: snprintf(buf, size, "(%s)((%s - %s) & %s)", vt, a, b, m); break;
    case LS_BOP_MULI: snprintf(buf, size, "(%s)((%s * %s) & %s)", vt, a, b, m); break;
    case LS_BOP_DIVUI: snprintf(buf, size, "(%s)(%s ? %s / %s : %s)", vt, b, a, b, m); break;
    case LS_BOP_REMUI: snprintf(buf, size, "(%s)(%s ? %s %% %s : %s)", vt, b, a, b, a); break;
    case LS_BOP_DIVSI:
        snprintf(buf, size, "(%s)(%s == 0 ? %s : %s == -1 ? (0 - %s) & %s : (%s)(%s / %s) & %s)",
                 vt, b, m, sb, a, m, vt, sa, sb, m);
        break;
    case LS_BOP_REMSI:
        snprintf(buf, size, "(%s)(%s == 0 ? %s : %s == -1 ? 0 : (%s)(%s %% %s) & %s)", vt, b, a,
                 sb, vt, sa, sb, m);
        break;
    case LS_BOP_ANDI: snprintf(buf, size, "(%s)(%s & %s)", vt, a, b); break;
    case LS_BOP_ORI: snprintf(buf, size, "(%s)(%s | %s)", vt, a, b); break;
    case LS_BOP_XORI: snprintf(buf, size, "(%s)(%s ^ %s)", vt, a, b); break;
    case LS_BOP_SHLI:
        snprintf(buf, size, "(%s)(%s >= %d ? 0 : (%s << %s) & %s)", vt, b, w, a, b, m);
        break;
    case LS_BOP_SHRUI: snprintf(buf, size, "(%s)(%s >= %d ? 0 : %s >> %s)", vt, b, w, a, b); break;
    case LS_BOP_SHRSI:
        snprintf(buf, size, "(%s)((%s >= %d ? (%s < 0 ? -1 : 0) : %s >> %s) & %s)", vt, b, w,
                 sa, sa, b, m);
        break;
    case LS_BOP_MAXSI: snprintf(buf, size, "(%s > %s ? %s : %s)", sa, sb, a, b); break;
    case LS_BOP_MINSI: snprintf(buf, size, "(%s < %s ? %s : %s)", sa, sb, a, b); break;
    case LS_BOP_MAXUI: snprintf(buf, size, "(%s > %s ? %s : %s)", a, b, a, b); break;
    default: snprintf(buf, size, "(%s < %s ? %s : %s)", a, b, a, b); break; /* MINUI */
    }
}

/* A math op of a 16- or 32-bit float as IREE compiles it for NVIDIA
 * (LS_MATH_MLIR, sim/body.c's mlir_math) or ROCm's erf: the approximation in f32 on the
 * value (exact in float), exp2 as exp(x * ln 2) with the product rounded
 * to t, the result rounded to t. */
static void mlir_math_expr(ls_body_opcode op, ls_elem_type t, ls_math_mode m, const char *a,
                           char *buf, size_t size)
{
    char x[160], e[256];
    snprintf(x, sizeof x, "%s", a);
    if (op == LS_BOP_EXP2) {
        double ln2 = ls_value_to_double(ls_value_from_double(0.69314718055994530942, t), t);
        char prod[128];
        snprintf(prod, sizeof prod, "__fmul_rn(%s, __uint_as_float(0x%08xu))", a,
                 (unsigned)ls_value_from_double(ln2, LS_ET_F32));
        from_float(t, prod, x, sizeof x);
    }
    const char *fn = "ls_mlir_sincos", *arg2 = ", 0"; /* cos */
    switch (op) {
    case LS_BOP_EXP: case LS_BOP_EXP2: fn = "ls_mlir_exp", arg2 = ""; break;
    case LS_BOP_LOG: fn = "ls_mlir_log_base"; break;
    case LS_BOP_LOG2: fn = "ls_mlir_log_base", arg2 = ", 1"; break;
    case LS_BOP_TANH: fn = "ls_mlir_tanh", arg2 = ""; break;
    case LS_BOP_ERF: fn = m == LS_MATH_ROCM ? "ls_mlir_rocm_erf" : "ls_mlir_erf", arg2 = ""; break;
    case LS_BOP_SIN: arg2 = ", 1"; break;
    default: break;
    }
    snprintf(e, sizeof e, "%s(%s%s)", fn, x, arg2);
    from_float(t, e, buf, size);
}

static void float_expr(const ls_body_inst *in, ls_elem_type t, ls_math_mode m, char *buf,
                       size_t size)
{
    char a[16], b[16], e[256];
    snprintf(a, sizeof a, "v%d", in->a);
    snprintf(b, sizeof b, "v%d", in->b);
    bool dbl = is_double(t);
    ls_body_opcode op = (ls_body_opcode)in->op;
    if (!dbl && ls_body_op_approximated(op, m)) {
        mlir_math_expr(op, t, m, a, buf, size);
        return;
    }
    if (m == LS_MATH_MLIR && op == LS_BOP_EXP2) { /* f64: rewritten to exp, libdevice's */
        snprintf(buf, size, "exp(__dmul_rn(%s, __longlong_as_double(0x3fe62e42fefa39efll)))", a);
        return;
    }
    const char *bin = float_binary_intrinsic(op, dbl), *fn = math_fn(op);
    if (bin) {
        snprintf(e, sizeof e, "%s(%s, %s)", bin, a, b);
        if (dbl)
            snprintf(buf, size, "%s", e);
        else
            from_float(t, e, buf, size);
        return;
    }
    switch (op) {
    case LS_BOP_MAXIMUMF:
    case LS_BOP_MINIMUMF:
    case LS_BOP_MAXNUMF:
    case LS_BOP_MINNUMF: {
        bool mx = op == LS_BOP_MAXIMUMF || op == LS_BOP_MAXNUMF;
        bool nw = op == LS_BOP_MAXIMUMF || op == LS_BOP_MINIMUMF;
        /* the result is an operand or NaN: no rounding */
        snprintf(buf, size, "%s(%s, %s, %s, %s)", dbl ? "ls_maxmin" : "ls_maxminf", a, b,
                 mx ? "true" : "false", nw ? "true" : "false");
        return;
    }
    case LS_BOP_SQRT:
        snprintf(e, sizeof e, "%s(%s)", dbl ? "__dsqrt_rn" : "__fsqrt_rn", a);
        if (dbl)
            snprintf(buf, size, "%s", e);
        else
            from_float(t, e, buf, size);
        return;
    case LS_BOP_RSQRT: /* 1 / sqrt in double, two correctly rounded ops, as the reference */
        snprintf(e, sizeof e, "__ddiv_rn(1.0, __dsqrt_rn((double)%s))", a);
        break;
    case LS_BOP_POWF: snprintf(e, sizeof e, "pow((double)%s, (double)%s)", a, b); break;
    case LS_BOP_NEGF: snprintf(buf, size, "(-%s)", a); return;
    case LS_BOP_ABSF: snprintf(buf, size, "%s(%s)", dbl ? "fabs" : "fabsf", a); return;
    default:
        snprintf(e, sizeof e, "%s((double)%s)", fn ? fn : "exp", a);
        break;
    }
    from_double(t, e, buf, size);
}

static const char *cmpf_expr(ls_body_pred p)
{
    switch (p) {
    case LS_PRED_FALSE: return "false";
    case LS_PRED_TRUE: return "true";
    case LS_PRED_ORD: return "!(A != A || B != B)";
    case LS_PRED_UNO: return "(A != A || B != B)";
    case LS_PRED_OEQ: return "(A == B)";
    case LS_PRED_OGT: return "(A > B)";
    case LS_PRED_OGE: return "(A >= B)";
    case LS_PRED_OLT: return "(A < B)";
    case LS_PRED_OLE: return "(A <= B)";
    case LS_PRED_ONE: return "(A == A && B == B && A != B)";
    case LS_PRED_UEQ: return "!(A < B || A > B)";
    case LS_PRED_UGT: return "!(A <= B)";
    case LS_PRED_UGE: return "!(A < B)";
    case LS_PRED_ULT: return "!(A >= B)";
    case LS_PRED_ULE: return "!(A > B)";
    case LS_PRED_UNE: return "(A != B)";
    default: return "false";
    }
}

static const char *cmpi_op(ls_body_pred p, bool *is_signed)
{
    *is_signed = p >= LS_PRED_SLT && p <= LS_PRED_SGE;
    switch (p) {
    case LS_PRED_EQ: return "==";
    case LS_PRED_NE: return "!=";
    case LS_PRED_SLT: case LS_PRED_ULT_I: return "<";
    case LS_PRED_SLE: case LS_PRED_ULE_I: return "<=";
    case LS_PRED_SGT: case LS_PRED_UGT_I: return ">";
    default: return ">=";
    }
}

/* Replace every A and B of a template with a and b. */
static void fill_template(const char *tpl, const char *a, const char *b, char *buf, size_t size)
{
    size_t u = 0;
    for (const char *s = tpl; *s && u + 1 < size; s++) {
        const char *r = *s == 'A' ? a : *s == 'B' ? b : NULL;
        if (r)
            u += (size_t)snprintf(buf + u, size - u, "%s", r);
        else
            buf[u++] = *s;
        if (u >= size)
            u = size - 1;
    }
    buf[u] = 0;
}

/* powf(a, constant) as convertPowfOp rewrites it (r, not
 * LS_POWF_GENERAL) on value a of type t (sq: a * a rounded to t). */
static void powf_constant_expr(ls_elem_type t, ls_powf_rewrite r, const char *a, const char *sq,
                               char *buf, size_t size)
{
    bool dbl = is_double(t);
    const char *one = dbl ? "1.0" : "1.0f", *mul = dbl ? "__dmul_rn" : "__fmul_rn",
               *div = dbl ? "__ddiv_rn" : "__fdiv_rn";
    char e[600];
    switch (r) {
    case LS_POWF_SELF: snprintf(buf, size, "%s", a); return;
    case LS_POWF_SQUARE: snprintf(buf, size, "%s", sq); return;
    case LS_POWF_RSQRT: /* as math.rsqrt: 1 / sqrt in double */
        snprintf(e, sizeof e, "__ddiv_rn(1.0, __dsqrt_rn((double)%s))", a);
        from_double(t, e, buf, size);
        return;
    case LS_POWF_ONE: snprintf(e, sizeof e, "%s", one); break;
    case LS_POWF_RECIP: snprintf(e, sizeof e, "%s(%s, %s)", div, one, a); break;
    case LS_POWF_SQRT: snprintf(e, sizeof e, "%s(%s)", dbl ? "__dsqrt_rn" : "__fsqrt_rn", a); break;
    case LS_POWF_RECIP_SQUARE: snprintf(e, sizeof e, "%s(%s, %s)", div, one, sq); break;
    default: snprintf(e, sizeof e, "%s(%s, %s)", mul, sq, a); break; /* LS_POWF_CUBE */
    }
    if (dbl)
        snprintf(buf, size, "%s", e);
    else
        from_float(t, e, buf, size);
}

/* math.powf as IREE rewrites it for NVIDIA (LS_MATH_MLIR; sim/body.c's
 * powf_rewritten): a constant exponent of convertPowfOp's as mulf, divf,
 * sqrt or rsqrt, any other exponent of an f32 as exp(b * log(a)) of
 * MLIR's approximations.  False: computed as any pow. */
static bool powf_rewritten_expr(const cg_body_fn *fn, const ls_body_inst *in, ls_elem_type t,
                                char *buf, size_t size)
{
    if (fn->body->math != LS_MATH_MLIR)
        return false;
    char a[16], sq[256], e[256], body[600];
    snprintf(a, sizeof a, "v%d", in->a);
    snprintf(e, sizeof e, is_double(t) ? "__dmul_rn(%s, %s)" : "__fmul_rn(%s, %s)", a, a);
    if (is_double(t))
        snprintf(sq, sizeof sq, "%s", e);
    else
        from_float(t, e, sq, sizeof sq);
    /* the constant is folded in: (void) keeps NVRTC from calling it unused */
    ls_powf_rewrite r = ls_body_powf_rewrite(fn->body, (int)(in - fn->body->inst));
    if (r != LS_POWF_GENERAL) {
        powf_constant_expr(t, r, a, sq, body, sizeof body);
        snprintf(buf, size, "((void)v%d, %s)", in->b, body);
        return true;
    }
    if (t != LS_ET_F32)
        return false;
    snprintf(buf, size, "ls_mlir_powf(%s, v%d)", a, in->b);
    return true;
}

/* x * y + c rounded once to float type t (sim/body.c's fma_in), each an
 * expression of t's value type: fma.rn.f32/f64, and __hfma's
 * fma.rn.f16/bf16 (the operands are values of t, so the conversions are
 * exact). */
static void fma_of(ls_elem_type t, const char *x, const char *y, const char *c, char *buf,
                   size_t size)
{
    if (t == LS_ET_F32 || t == LS_ET_F64)
        snprintf(buf, size, "%s(%s, %s, %s)", t == LS_ET_F32 ? "__fmaf_rn" : "__fma_rn", x, y, c);
    else
        snprintf(buf, size, "%s(__hfma(%s(%s), %s(%s), %s(%s)))", cg_to_float(t), cg_from_float(t),
                 x, cg_from_float(t), y, cg_from_float(t), c);
}

/* arith.cmpi: the predicate's operator on the operands, read signed when
 * the predicate is. */
static void cmpi_expr(const ls_body_inst *in, ls_elem_type s, const char *a, const char *b,
                      char *buf, size_t size)
{
    bool sg;
    const char *o = cmpi_op((ls_body_pred)in->pred, &sg);
    char sa[64], sb[64];
    if (sg) {
        signed_of(s, a, sa, sizeof sa);
        signed_of(s, b, sb, sizeof sb);
    } else {
        snprintf(sa, sizeof sa, "%s", a);
        snprintf(sb, sizeof sb, "%s", b);
    }
    snprintf(buf, size, "(unsigned int)(%s %s %s)", sa, o, sb);
}

/* math.fpowi as sim/body.c's fpowi computes it: MLIR's expansion for a
 * constant f32 exponent, powf of the converted exponent otherwise (the
 * math mode's), or the exact power. */
static void fpowi_expr(const cg_body_fn *fn, const ls_body_inst *in, ls_elem_type t, const char *a,
                       const char *b, char *buf, size_t size)
{
    const ls_body_inst *bi = &fn->body->inst[in->b];
    ls_elem_type et = (ls_elem_type)bi->type;
    ls_math_mode m = (ls_math_mode)fn->body->math;
    char sb[64], e[256], nf[160];
    signed_of(et, b, sb, sizeof sb);
    if (m != LS_MATH_EXACT && bi->op == LS_BOP_CONST && t == LS_ET_F32) {
        snprintf(buf, size, "ls_mlir_fpowi(%s, (long long)%s)", a, sb);
        return;
    }
    if (m != LS_MATH_EXACT && bi->op != LS_BOP_CONST) { /* powf(x, sitofp(n)) */
        snprintf(e, sizeof e, "(double)%s", sb);
        from_double(t, e, nf, sizeof nf);
        if (m == LS_MATH_MLIR && t == LS_ET_F32) {
            snprintf(buf, size, "ls_mlir_powf(%s, %s)", a, nf);
            return;
        }
        snprintf(e, sizeof e, "pow((double)%s, (double)%s)", a, nf);
    } else
        snprintf(e, sizeof e, "pow((double)%s, (double)%s)", a, sb);
    from_double(t, e, buf, size);
}

/* The right-hand side of instruction i of fn's body. */
static void inst_expr(const cg_body_fn *fn, int i, char *buf, size_t size)
{
    const ls_body_inst *in = &fn->body->inst[i];
    ls_elem_type t = (ls_elem_type)in->type, s = (ls_elem_type)in->src;
    char a[16], b[16], c[16], x[256];
    snprintf(a, sizeof a, "v%d", in->a);
    snprintf(b, sizeof b, "v%d", in->b);
    snprintf(c, sizeof c, "v%d", in->c);
    const char *vt = cg_value_type(t);
    ls_body_opcode op = (ls_body_opcode)in->op;
    switch (op) {
    case LS_BOP_INPUT: {
        ls_elem_type it = fn->in_types[in->index];
        if (ls_elem_type_is_float(it))
            snprintf(buf, size, "%s(a%d)", cg_to_float(it), in->index);
        else
            snprintf(buf, size, "(%s)a%d", vt, in->index);
        return;
    }
    case LS_BOP_CONST:
        if (t == LS_ET_F64)
            snprintf(buf, size, "__longlong_as_double(0x%016llxll)", (unsigned long long)in->imm);
        else if (ls_elem_type_is_float(t)) {
            double dv = ls_value_to_double(in->imm, t);
            snprintf(buf, size, "__uint_as_float(0x%08xu) /* %g */",
                     (unsigned)ls_value_from_double(dv, LS_ET_F32), dv);
        } else
            snprintf(buf, size, "(%s)0x%llxull", vt, (unsigned long long)(in->imm & mask_of(t)));
        return;
    case LS_BOP_INDEX: snprintf(buf, size, "(unsigned long long)(long long)x%d", in->index); return;
    case LS_BOP_EXTF:
    case LS_BOP_TRUNCF: float_cast(s, t, a, buf, size); return;
    case LS_BOP_EXTSI:
    case LS_BOP_INDEX_CAST:
    case LS_BOP_TRUNCI:
        signed_of(s, a, x, sizeof x);
        snprintf(buf, size, "(%s)((unsigned long long)(long long)%s & 0x%llxull)", vt, x,
                 mask_of(t));
        return;
    case LS_BOP_EXTUI: snprintf(buf, size, "(%s)%s", vt, a); return;
    case LS_BOP_SITOFP: {
        char sx[64], e[128];
        signed_of(s, a, sx, sizeof sx);
        snprintf(e, sizeof e, "(double)%s", sx);
        from_double(t, e, buf, size);
        return;
    }
    case LS_BOP_UITOFP: {
        char e[64];
        snprintf(e, sizeof e, "(double)%s", a);
        from_double(t, e, buf, size);
        return;
    }
    case LS_BOP_FPTOSI:
    case LS_BOP_FPTOUI:
        snprintf(buf, size, "(%s)ls_fptoi((double)%s, %d, %s)", vt, a, ls_elem_type_bits(t),
                 op == LS_BOP_FPTOUI ? "true" : "false");
        return;
    case LS_BOP_CMPF:
        fill_template(cmpf_expr((ls_body_pred)in->pred), a, b, x, sizeof x);
        snprintf(buf, size, "(unsigned int)%s", x);
        return;
    case LS_BOP_CMPI: cmpi_expr(in, s, a, b, buf, size); return;
    case LS_BOP_SELECT: snprintf(buf, size, "((%s & 1u) ? %s : %s)", a, b, c); return;
    case LS_BOP_FMA: fma_of(t, a, b, c, buf, size); return;
    case LS_BOP_FPOWI: fpowi_expr(fn, in, t, a, b, buf, size); return;
    case LS_BOP_POWF:
        if (powf_rewritten_expr(fn, in, t, buf, size))
            return;
        break;
    default: break;
    }
    if (ls_elem_type_is_float(t))
        float_expr(in, t, (ls_math_mode)fn->body->math, buf, size);
    else
        int_expr(in, t, buf, size);
}

/* The last op's multiply fused with the addend c, the instruction the
 * lowering's math.fma becomes. */
static void fma_expr(const cg_body_fn *fn, const ls_body_inst *in, char *buf, size_t size)
{
    char x[16], y[16], c[64];
    snprintf(x, sizeof x, "v%d", in->a);
    snprintf(y, sizeof y, "v%d", in->b);
    snprintf(c, sizeof c, "%s(c)", cg_to_float(fn->ret_type));
    fma_of((ls_elem_type)in->type, x, y, c, buf, size);
}

char *cg_body_fn_text(const cg_body_fn *fn)
{
    const ls_body *body = fn->body;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    fprintf(f, "\n/* %s */\nstatic __device__ __forceinline__ %s %s(", fn->what, fn->ret_ctype,
            fn->name);
    for (int k = 0; k < fn->n_in; k++)
        fprintf(f, "%s%s a%d", k ? ", " : "", fn->in_ctypes[k], k);
    for (int i = 0; i < fn->index_rank; i++) /* a body with no input: x0 first */
        fprintf(f, "%sls_idx_t x%d", fn->n_in + i ? ", " : "", i);
    if (fn->fma_last)
        fprintf(f, ", %s c", fn->ret_ctype);
    fprintf(f, ")\n{\n");
    bool used[LS_MAX_BODY_INSTS] = {false};
    for (int i = 0; i < body->n; i++) {
        const ls_body_inst *in = &body->inst[i];
        const int16_t opnd[3] = {in->a, in->b, in->c};
        for (int k = 0; k < 3; k++)
            if (opnd[k] >= 0)
                used[opnd[k]] = true;
    }
    for (int i = 0; i < body->n; i++) {
        const ls_body_inst *in = &body->inst[i];
        char e[1024];
        if (fn->fma_last && i == body->n - 1)
            fma_expr(fn, in, e, sizeof e);
        else
            inst_expr(fn, i, e, sizeof e);
        bool fused = fn->fma_last && i == body->n - 1;
        fprintf(f, "    const %s v%d = %s; /* %s%s : %s */\n",
                cg_value_type((ls_elem_type)in->type), i, e,
                ls_body_opcode_name((ls_body_opcode)in->op), fused ? " + c: math.fma" : "",
                ls_elem_type_name((ls_elem_type)in->type));
        if (!used[i] && i < body->n - 1)
            fprintf(f, "    (void)v%d; /* the body computes it, nothing reads it */\n", i);
    }
    int last = body->n - 1;
    ls_elem_type rt = (ls_elem_type)body->inst[last].type;
    if (fn->ret_type == LS_ET_I1)
        fprintf(f, "    return (v%d & 1u) != 0;\n}\n", last);
    else if (ls_elem_type_is_float(rt))
        fprintf(f, "    return %s(v%d);\n}\n", cg_from_float(fn->ret_type), last);
    else
        fprintf(f, "    return (%s)v%d;\n}\n", fn->ret_ctype, last);
    fclose(f);
    return text;
}

void cg_emit_body_fns(FILE *out, const cg_body_fn *fns, int n)
{
    char **text = ls_xcalloc((size_t)n, sizeof *text);
    for (int i = 0; i < n; i++)
        text[i] = cg_body_fn_text(&fns[i]);
    cg_emit_called_helpers(out, (const char *const *)text, n);
    for (int i = 0; i < n; i++) {
        fputs(text[i], out);
        free(text[i]);
    }
    free(text);
}

void cg_emit_body(gen *g)
{
    const ls_problem *p = g->p;
    ls_elem_type types[LS_MAX_INPUTS];
    char ctypes[LS_MAX_INPUTS][24];
    const char *cts[LS_MAX_INPUTS];
    for (int k = 0; k < p->n_inputs; k++) {
        types[k] = p->inputs[k].type;
        snprintf(ctypes[k], sizeof ctypes[k], "ls_in%d_t", k);
        cts[k] = ctypes[k];
    }
    cg_body_fn fn[2] = {{&p->body, "ls_body", "the linalg body: one iteration point's contribution",
                         p->n_inputs, types, cts, cg_body_uses_index(p) ? p->rank : 0, "ls_acc_t",
                         p->acc_type, false}};
    int n = 1;
    if (g->fma != LS_FMA_NONE) { /* the accumulate stage's math.fma: the only call */
        fn[0].name = "ls_body_fma";
        fn[0].what = "the linalg body, its last multiply fused into the add of c (the lowering's "
                     "math.fma)";
        fn[0].fma_last = true;
    }
    /* a stored producer's own body, on the inputs it shares with this one */
    ls_elem_type ptypes[LS_MAX_INPUTS];
    const char *pcts[LS_MAX_INPUTS];
    const ls_problem *pp = g->prod ? g->prod->problem : NULL;
    for (int j = 0; pp && j < pp->n_inputs; j++) {
        ptypes[j] = pp->inputs[j].type;
        pcts[j] = cts[g->prod_in[j]];
    }
    if (pp)
        fn[n++] = (cg_body_fn){
            &pp->body,    "ls_prod", "the stored producer: its value at the element", pp->n_inputs,
            ptypes,       pcts,      cg_body_uses_index(pp) ? pp->rank : 0,           "ls_prod_t",
            pp->acc_type, false};
    cg_emit_body_fns(g->f, fn, n);
}
