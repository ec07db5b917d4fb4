/* codegen_support.c: the CUDA C types of lanescope's element types (storage,
 * value, float conversions), which bodies the generator can emit (and why
 * not, when it cannot), and the helper functions a kernel's prelude
 * includes (codegen_types.c has the literals and combiners).  The body's
 * expressions are codegen_body.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"
#include "lanescope/arena.h"
#include "lanescope/mlir_math.h"
#include "lanescope/value.h"

const char *cg_storage_type(ls_elem_type t)
{
    switch (t) {
    case LS_ET_F32: return "float";
    case LS_ET_F16: return "__half";
    case LS_ET_BF16: return "__nv_bfloat16";
    case LS_ET_I8: return "unsigned char";
    case LS_ET_I16: return "unsigned short";
    case LS_ET_I32: return "unsigned int";
    /* inputs only (cg_narrow_input): one f8 pattern per byte; an i4, two
     * to a byte, low nibble first, read as its own byte (ls_ld_i4) */
    case LS_ET_F8E4M3FN:
    case LS_ET_F8E5M2:
    case LS_ET_F8E4M3FNUZ:
    case LS_ET_F8E5M2FNUZ:
    case LS_ET_I4: return "unsigned char";
    /* 64-bit values: TileAndFuse plans only (no shuffle; IREE shuffles 32
     * bits at most on NVIDIA, and plan.c refuses wider VectorDistribute) */
    case LS_ET_F64: return "double";
    case LS_ET_I64: return "unsigned long long";
    default: return NULL;
    }
}

const char *cg_to_float(ls_elem_type t)
{
    switch (t) {
    case LS_ET_F16: return "__half2float";
    case LS_ET_BF16: return "__bfloat162float";
    case LS_ET_F8E4M3FN: return "ls_f8e4m3fn_f";
    case LS_ET_F8E5M2: return "ls_f8e5m2_f";
    case LS_ET_F8E4M3FNUZ: return "ls_f8e4m3fnuz_f";
    case LS_ET_F8E5M2FNUZ: return "ls_f8e5m2fnuz_f";
    default: return "";
    }
}

bool cg_narrow_input(ls_elem_type t)
{
    return t == LS_ET_I4 || t == LS_ET_F8E4M3FN || t == LS_ET_F8E5M2 || t == LS_ET_F8E4M3FNUZ ||
           t == LS_ET_F8E5M2FNUZ;
}

const char *cg_from_float(ls_elem_type t)
{
    return t == LS_ET_F16 ? "__float2half_rn" : t == LS_ET_BF16 ? "__float2bfloat16_rn" : "";
}

const char *cg_value_type(ls_elem_type t)
{
    switch (t) {
    case LS_ET_F16:
    case LS_ET_BF16:
    case LS_ET_F32: return "float";
    case LS_ET_F64: return "double";
    case LS_ET_F8E4M3FN: /* an f8 input, widened exactly (no op computes in f8) */
    case LS_ET_F8E5M2:
    case LS_ET_F8E4M3FNUZ:
    case LS_ET_F8E5M2FNUZ: return "float";
    case LS_ET_I1:
    case LS_ET_I4:
    case LS_ET_I8:
    case LS_ET_I16:
    case LS_ET_I32: return "unsigned int";
    case LS_ET_I64:
    case LS_ET_INDEX: return "unsigned long long";
    default: return NULL;
    }
}

bool cg_body_uses_index(const ls_problem *p)
{
    for (int i = 0; i < p->body.n; i++)
        if (p->body.inst[i].op == LS_BOP_INDEX)
            return true;
    return false;
}

/* Whether every instruction of b can be expressed (file: for messages). */
bool cg_insts_supported(const ls_body *b, const char *file, char *why, size_t size)
{
    for (int i = 0; i < b->n; i++) {
        const ls_body_inst *in = &b->inst[i];
        ls_elem_type t = (ls_elem_type)in->type, s = (ls_elem_type)in->src;
        if (in->op == LS_BOP_SCALING_EXTF) {
            snprintf(why, size,
                     "%s:%d:%d: arith.scaling_extf; the CUDA generator does not emit "
                     "MX block scaling",
                     file, in->line, in->col);
            return false;
        }
        bool uses_src = in->op == LS_BOP_CMPF || in->op == LS_BOP_CMPI ||
                        (in->op >= LS_BOP_EXTF && in->op <= LS_BOP_INDEX_CAST);
        if (ls_elem_type_is_float(t) && cg_narrow_input(t) && in->op != LS_BOP_INPUT) {
            snprintf(why, size,
                     "%s:%d:%d: %s yields %s; the CUDA generator reads f8 inputs and "
                     "widens them (arith.extf) but rounds nothing to f8",
                     file, in->line, in->col, ls_body_opcode_name((ls_body_opcode)in->op),
                     ls_elem_type_name(t));
            return false;
        }
        if (!cg_value_type(t) || (uses_src && !cg_value_type(s))) {
            snprintf(why, size,
                     "%s:%d:%d: %s on %s; the CUDA generator computes f16, bf16, "
                     "f32, f64 and i1-i64 values",
                     file, in->line, in->col, ls_body_opcode_name((ls_body_opcode)in->op),
                     ls_elem_type_name(cg_value_type(t) ? s : t));
            return false;
        }
    }
    return true;
}

bool cg_body_supported(const ls_problem *p, char *why, size_t size)
{
    for (int k = 0; k < p->n_inputs; k++) {
        if (!cg_storage_type(p->inputs[k].type)) {
            snprintf(why, size,
                     "input %d is %s; the CUDA path reads f16, bf16, f32, f64, the "
                     "four f8 types, i4, i8, i16, i32 and i64",
                     k, ls_elem_type_name(p->inputs[k].type));
            return false;
        }
        if (p->inputs[k].type == LS_ET_I4 && p->body.n == 0) {
            snprintf(why, size,
                     "input %d is i4 and %s has no body to widen it (arith.extsi, "
                     "extui, sitofp, uitofp): the CUDA path reduces in 8 bits or more",
                     k, p->name);
            return false;
        }
    }
    return cg_insts_supported(&p->body, p->file, why, size);
}

/* MLIR's f32 math approximations (LS_MATH_MLIR): sim/mlir_math.inc, the
 * text the simulator compiles, with CUDA's operations rounded once */
static const char mlir_math_defs[] =
    "/* math ops as IREE compiles them for NVIDIA: MLIR's polynomial approximations\n"
    " * (IREE's MathTransform), the simulator's text (sim/mlir_math.inc) */\n"
    "#define LS_MATH_FN static __device__ __forceinline__ __attribute__((unused))\n"
    "#define ls_fadd __fadd_rn\n#define ls_fsub __fsub_rn\n#define ls_fmul __fmul_rn\n"
    "#define ls_fdiv __fdiv_rn\n#define ls_f2u __float_as_uint\n#define ls_u2f __uint_as_float\n"
    "#define ls_f2i_rz __float2int_rz\n"
    "#define ls_exp_target(x) __double2float_rn(exp((double)(x))) /* ROCm's v_exp: not "
    "reproduced */\n";

/* Helpers the body may call (rounding, saturation, sign extension,
 * min/max), each emitted only when the body uses it: NVRTC warns about an
 * unused function, and the tests want an empty log. */
static const struct {
    const char *name, *text;
} helpers[] = {
    {"ls_rnd_f16", "static __device__ __forceinline__ float ls_rnd_f16(float x) "
                   "{ return __half2float(__float2half_rn(x)); }\n"},
    {"ls_rnd_bf16", "static __device__ __forceinline__ float ls_rnd_bf16(float x) "
                    "{ return __bfloat162float(__float2bfloat16_rn(x)); }\n"},
    {"ls_d2f_odd",
     "/* double -> float rounded to odd: a later rounding to 16 bits is then exact */\n"
     "static __device__ __forceinline__ float ls_d2f_odd(double d)\n{\n"
     "    float f = __double2float_rz(d);\n"
     "    if ((double)f != d && f == f)\n"
     "        f = __uint_as_float(__float_as_uint(f) | 1u);\n"
     "    return f;\n}\n"},
    /* the f8 formats as APFloat defines them (sim/value.c's f8_format):
     * every pattern is exact in float */
    {"ls_f8e4m3fn_f",
     "/* f8E4M3FN: bias 7, no infinity, NaN = S.1111.111 */\n"
     "static __device__ __forceinline__ float ls_f8e4m3fn_f(unsigned char b)\n{\n"
     "    const unsigned e = (b >> 3) & 15u, m = b & 7u;\n"
     "    const float v = e == 15u && m == 7u ? __uint_as_float(0x7fc00000u)\n"
     "                    : ldexpf((float)(e ? (m | 8u) : m), (e ? (int)e : 1) - 10);\n"
     "    return b & 0x80u ? -v : v;\n}\n"},
    {"ls_f8e5m2_f",
     "/* f8E5M2: bias 15, IEEE-like (infinities, NaNs at the top exponent) */\n"
     "static __device__ __forceinline__ float ls_f8e5m2_f(unsigned char b)\n{\n"
     "    const unsigned e = (b >> 2) & 31u, m = b & 3u;\n"
     "    const float v = e == 31u ? (m ? __uint_as_float(0x7fc00000u) : "
     "__uint_as_float(0x7f800000u))\n"
     "                    : ldexpf((float)(e ? (m | 4u) : m), (e ? (int)e : 1) - 17);\n"
     "    return b & 0x80u ? -v : v;\n}\n"},
    {"ls_f8e4m3fnuz_f",
     "/* f8E4M3FNUZ: bias 8, no infinity, no -0, NaN = 0x80 */\n"
     "static __device__ __forceinline__ float ls_f8e4m3fnuz_f(unsigned char b)\n{\n"
     "    if (b == 0x80u)\n        return __uint_as_float(0x7fc00000u);\n"
     "    const unsigned e = (b >> 3) & 15u, m = b & 7u;\n"
     "    const float v = ldexpf((float)(e ? (m | 8u) : m), (e ? (int)e : 1) - 11);\n"
     "    return b & 0x80u ? -v : v;\n}\n"},
    {"ls_f8e5m2fnuz_f",
     "/* f8E5M2FNUZ: bias 16, no infinity, no -0, NaN = 0x80 */\n"
     "static __device__ __forceinline__ float ls_f8e5m2fnuz_f(unsigned char b)\n{\n"
     "    if (b == 0x80u)\n        return __uint_as_float(0x7fc00000u);\n"
     "    const unsigned e = (b >> 2) & 31u, m = b & 3u;\n"
     "    const float v = ldexpf((float)(e ? (m | 4u) : m), (e ? (int)e : 1) - 18);\n"
     "    return b & 0x80u ? -v : v;\n}\n"},
    {"ls_sx32", "static __device__ __forceinline__ int ls_sx32(unsigned int v, int w) "
                "{ return w >= 32 ? (int)v : (int)(v << (32 - w)) >> (32 - w); }\n"},
    {"ls_sx64", "static __device__ __forceinline__ long long ls_sx64(unsigned long long v, int w) "
                "{ return w >= 64 ? (long long)v : (long long)(v << (64 - w)) >> (64 - w); }\n"},
    {"ls_maxmin(",
     "/* maximumf/minimumf (NaN wins), maxnumf/minnumf (the number wins); -0 < +0 */\n"
     "static __device__ __forceinline__ double ls_maxmin(double a, double b, bool mx, "
     "bool nan_wins)\n{\n"
     "#ifdef __CUDA_ARCH__ /* IREE's max.f64 (a maximumf: LLVM's expansion, below) */\n"
     "    if (!nan_wins)\n        return mx ? fmax(a, b) : fmin(a, b);\n#endif\n"
     "    if (a != a || b != b)\n"
     "        return nan_wins ? __longlong_as_double(0x7ff8000000000000ll) : "
     "(a != a ? b : a);\n"
     "    if (a == b)\n"
     "        return mx ? (signbit(a) ? b : a) : (signbit(a) ? a : b);\n"
     "    return mx ? (a > b ? a : b) : (a < b ? a : b);\n}\n"},
    {"ls_maxminf(",
     "/* maximumf/minimumf (NaN wins), maxnumf/minnumf (the number wins); -0 < +0 */\n"
     "static __device__ __forceinline__ float ls_maxminf(float a, float b, bool mx, "
     "bool nan_wins)\n{\n"
     "#ifdef __CUDA_ARCH__ /* IREE's instruction: max.f32, from sm_80 max.NaN.f32 (below,\n"
     "                      * ReplaceSlowMinMaxOps made maximumf maxnumf) */\n"
     "#if __CUDA_ARCH__ >= 800\n"
     "    if (nan_wins) {\n        float r;\n        if (mx)\n"
     "            asm(\"max.NaN.f32 %0, %1, %2;\" : \"=f\"(r) : \"f\"(a), \"f\"(b));\n"
     "        else\n"
     "            asm(\"min.NaN.f32 %0, %1, %2;\" : \"=f\"(r) : \"f\"(a), \"f\"(b));\n"
     "        return r;\n    }\n#endif\n"
     "    return mx ? fmaxf(a, b) : fminf(a, b);\n"
     "#else /* the exact code: sim/value.c's */\n"
     "    if (a != a || b != b)\n"
     "        return nan_wins ? __uint_as_float(0x7fc00000u) : (a != a ? b : a);\n"
     "    if (a == b)\n"
     "        return mx ? (signbit(a) ? b : a) : (signbit(a) ? a : b);\n"
     "    return mx ? (a > b ? a : b) : (a < b ? a : b);\n#endif\n}\n"},
    {"ls_fptoi", "/* fptosi/fptoui: truncate, saturate at the width, NaN -> 0 */\n"
                 "static __device__ __forceinline__ unsigned long long ls_fptoi(double d, int w, "
                 "bool uns)\n{\n"
                 "    const unsigned long long m = w >= 64 ? ~0ull : (1ull << w) - 1;\n"
                 "    if (d != d)\n        return 0;\n"
                 "    d = trunc(d);\n"
                 "    if (uns) {\n"
                 "        if (d <= 0)\n            return 0;\n"
                 "        if (d >= ldexp(1.0, w) - 1)\n            return m;\n"
                 "        return (unsigned long long)d & m;\n    }\n"
                 "    if (d >= ldexp(1.0, w - 1) - 1)\n        return m >> 1;\n"
                 "    if (d <= -ldexp(1.0, w - 1))\n        return (1ull << (w - 1)) & m;\n"
                 "    return (unsigned long long)(long long)d & m;\n}\n"},
    {"ls_mlir_", mlir_math_defs},
    {"ls_mlir_", ls_mlir_math_cuda},
};

void cg_emit_helper(FILE *f, const char *name)
{
    for (size_t h = 0; h < sizeof helpers / sizeof helpers[0]; h++)
        if (strcmp(helpers[h].name, name) == 0)
            fputs(helpers[h].text, f);
}

void cg_emit_called_helpers(FILE *out, const char *const *text, int n)
{
    /* each helper once, before the first function that calls it */
    bool any = false;
    for (size_t h = 0; h < sizeof helpers / sizeof helpers[0]; h++) {
        bool needed = false;
        for (int i = 0; i < n && !needed; i++)
            needed = strstr(text[i], helpers[h].name) != NULL;
        if (!needed)
            continue;
        if (!any)
            fprintf(out, "\n/* body helpers: values rounded to their type, integers masked "
                         "to their width */\n");
        any = true;
        fputs(helpers[h].text, out);
    }
}
