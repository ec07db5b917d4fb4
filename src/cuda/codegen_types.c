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
        fprintf(f, "    const %s x = %s(a), y = %s(b);\n", dbl ? "double" : "float", tf, tf);
        const char *expr = "x";
        switch (c) {
        case LS_COMB_ADD: expr = "x + y"; break;
        case LS_COMB_MUL: expr = "x * y"; break;
        case LS_COMB_MINIMUMF:
        case LS_COMB_MINNUMF:
        case LS_COMB_MAXIMUMF:
        case LS_COMB_MAXNUMF: {
            bool mn = c == LS_COMB_MINIMUMF || c == LS_COMB_MINNUMF;
            bool prop = c == LS_COMB_MINIMUMF || c == LS_COMB_MAXIMUMF;
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
        fprintf(f, "    return %s(%s);\n}\n", ff, expr);
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

