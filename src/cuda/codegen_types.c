/* codegen_types.c: the generated code's C types, literals and combiners
 * (shared by the reduction and arg_compare kernels): a value's signed C
 * type, a literal with the exact bits of a value, and a combine function
 * computing what sim/value.c computes. */
#include <stdio.h>

#include "lanescope/value.h"
#include "codegen.h"

const char *cg_signed_type(ls_elem_type t)
{
    switch (t) {
    case LS_ET_I8: return "signed char";
    case LS_ET_I16: return "short";
    case LS_ET_I64: return "long long";
    default: return "int";
    }
}

/* A C literal with the exact bits of v in type t (integers through
 * ls_acc_t: the accumulator's type). */
void cg_literal(ls_elem_type t, ls_value v, char *buf, size_t size)
{
    uint64_t m = ls_value_mask(t);
    switch (t) {
    case LS_ET_F32: snprintf(buf, size, "__uint_as_float(0x%08llxu)", (unsigned long long)(v & m)); break;
    case LS_ET_F16: snprintf(buf, size, "__ushort_as_half((unsigned short)0x%04llx)", (unsigned long long)(v & m)); break;
    case LS_ET_BF16:
        snprintf(buf, size, "__ushort_as_bfloat16((unsigned short)0x%04llx)", (unsigned long long)(v & m));
        break;
    case LS_ET_F64: snprintf(buf, size, "__longlong_as_double(0x%016llxll)", (unsigned long long)v); break;
    default:
        snprintf(buf, size, "(ls_acc_t)0x%llx%s", (unsigned long long)(v & m),
                 ls_elem_type_bits(t) > 32 ? "ull" : "u");
        break;
    }
}

/* A float min or max on the GPU as IREE's kernel computes it: the one PTX
 * instruction NVPTX lowers llvm.minnum/maxnum (min.f32, max.f16, ...) and,
 * from sm_80, llvm.minimum/maximum (min.NaN.f32, ...) to; below sm_80
 * IREE has made those minnum/maxnum (ReplaceSlowMinMaxOps, ConvertToNVVM)
 * and f16/bf16 go through f32.  An f64 maximum is LLVM's expansion, which
 * the exact code stands for.  The values are the exact code's on every
 * input the generator makes (no -0.0, no NaN); the emulation on the CPU
 * runs the exact code.  True where it opened an #ifdef, whose #else the
 * exact code follows and the caller closes. */
static bool emit_device_minmax(FILE *f, bool mn, bool prop, ls_elem_type t)
{
    const char *op = mn ? "min" : "max";
    if ((t == LS_ET_F64 && prop) ||
        (t != LS_ET_F32 && t != LS_ET_F16 && t != LS_ET_BF16 && t != LS_ET_F64))
        return false;
    fprintf(f, "#ifdef __CUDA_ARCH__ /* IREE's instruction */\n");
    switch (t) {
    case LS_ET_F32:
        if (prop)
            fprintf(f,
                    "#if __CUDA_ARCH__ >= 800\n    float r;\n"
                    "    asm(\"%s.NaN.f32 %%0, %%1, %%2;\" : \"=f\"(r) : \"f\"(a), \"f\"(b));\n"
                    "    return r;\n#else\n    return f%sf(a, b);\n#endif\n",
                    op, op);
        else
            fprintf(f, "    return f%sf(a, b);\n", op);
        break;
    case LS_ET_F16:
    case LS_ET_BF16:
        fprintf(f,
                "#if __CUDA_ARCH__ >= 800\n    return __h%s%s(a, b);\n#else\n"
                "    return %s(f%sf(%s(a), %s(b)));\n#endif\n",
                op, prop ? "_nan" : "", cg_from_float(t), op, cg_to_float(t), cg_to_float(t));
        break;
    default: fprintf(f, "    return f%s(a, b);\n", op); break; /* f64's minnum, maxnum */
    }
    fprintf(f, "#else /* the exact code: sim/value.c's */\n");
    return true;
}

/* name(a, b): combiner c on type t, as sim/value.c computes it. */
void cg_emit_combine(FILE *f, const char *name, const char *ctype, ls_combiner c, ls_elem_type t)
{
    bool fl = ls_elem_type_is_float(t);
    const char *op = ls_combiner_op(c, fl);
    fprintf(f, "\n/* %s on %s */\n", op, ls_elem_type_name(t));
    fprintf(f, "static __device__ __forceinline__ %s %s(%s a, %s b)\n{\n", ctype, name, ctype, ctype);
    if (fl) {
        /* f64 in double, the others in float (rounded back to their type) */
        bool dbl = t == LS_ET_F64;
        const char *tf = cg_to_float(t), *ff = cg_from_float(t);
        bool mn = c == LS_COMB_MINIMUMF || c == LS_COMB_MINNUMF;
        bool prop = c == LS_COMB_MINIMUMF || c == LS_COMB_MAXIMUMF;
        /* an #ifdef __CUDA_ARCH__ open: IREE's instruction on the GPU (the
         * float-only combiners are min and max) */
        bool device = ls_combiner_is_float_only(c) && emit_device_minmax(f, mn, prop, t);
        fprintf(f, "    const %s x = %s(a), y = %s(b);\n", dbl ? "double" : "float", tf, tf);
        const char *expr = "x";
        switch (c) {
        case LS_COMB_ADD: expr = "x + y"; break;
        case LS_COMB_MUL: expr = "x * y"; break;
        case LS_COMB_MINIMUMF:
        case LS_COMB_MINNUMF:
        case LS_COMB_MAXIMUMF:
        case LS_COMB_MAXNUMF: {
            if (prop)
                fprintf(f, "    if (x != x || y != y) /* NaN propagates */\n"
                           "        return %s(%s);\n", ff,
                        dbl ? "__longlong_as_double(0x7ff8000000000000ll)"
                            : "__uint_as_float(0x7fc00000u)");
            else
                fprintf(f, "    if (x != x || y != y) /* the number wins */\n"
                           "        return x != x ? b : a;\n");
            fprintf(f, "    if (x == y) /* -0 %s +0 */\n        return %s ? %s : %s;\n",
                    mn ? "is the minimum of" : "loses to",
                    dbl ? "(__double_as_longlong(x) < 0)" : "(__float_as_uint(x) >> 31)",
                    mn ? "a" : "b", mn ? "b" : "a");
            expr = mn ? "x < y ? x : y" : "x > y ? x : y";
            break;
        }
        default: break;
        }
        fprintf(f, "    return %s(%s);\n", ff, expr);
        if (device)
            fprintf(f, "#endif\n");
        fprintf(f, "}\n");
    } else {
        const char *st = cg_signed_type(t);
        switch (c) {
        case LS_COMB_ADD: fprintf(f, "    return (%s)(a + b); /* wraps */\n", ctype); break;
        case LS_COMB_MUL:
            fprintf(f, "    return (%s)((%s)a * (%s)b);\n", ctype,
                    ls_elem_type_bits(t) > 32 ? "unsigned long long" : "unsigned int",
                    ls_elem_type_bits(t) > 32 ? "unsigned long long" : "unsigned int");
            break;
        case LS_COMB_MINUI: fprintf(f, "    return a < b ? a : b;\n"); break;
        case LS_COMB_MAXUI: fprintf(f, "    return a > b ? a : b;\n"); break;
        case LS_COMB_MINSI: fprintf(f, "    return (%s)a < (%s)b ? a : b;\n", st, st); break;
        case LS_COMB_MAXSI: fprintf(f, "    return (%s)a > (%s)b ? a : b;\n", st, st); break;
        case LS_COMB_AND: fprintf(f, "    return a & b;\n"); break;
        case LS_COMB_OR: fprintf(f, "    return a | b;\n"); break;
        default: fprintf(f, "    return a ^ b;\n"); break;
        }
        fprintf(f, "}\n");
    }
}

