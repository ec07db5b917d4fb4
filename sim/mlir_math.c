/* mlir_math.c: sim/mlir_math.inc compiled as C for the simulator (see
 * mlir_math.h).  Built with -std=c11, so the compiler contracts no
 * multiply-add: every ls_f* operation rounds once, as on the GPU. */
#include <math.h>
#include <string.h>

#include "lanescope/mlir_math.h"

#define LS_MATH_FN static inline

static inline float ls_fadd(float a, float b)
{
    return a + b;
}
static inline float ls_fsub(float a, float b)
{
    return a - b;
}
static inline float ls_fmul(float a, float b)
{
    return a * b;
}
static inline float ls_fdiv(float a, float b)
{
    return a / b;
}
static inline unsigned ls_f2u(float f)
{
    unsigned u;
    memcpy(&u, &f, sizeof u);
    return u;
}
static inline float ls_u2f(unsigned u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* PTX's cvt.rzi.s32.f32 (LLVM's fptosi is poison out of range; the GPU
 * saturates) */
static inline int ls_f2i_rz(float x)
{
    if (x != x)
        return 0;
    if (x >= 2147483648.0f)
        return 2147483647;
    if (x <= -2147483648.0f)
        return -2147483647 - 1;
    return (int)x;
}

/* ROCm's erf calls the target's exp (v_exp_f32 with range scaling), which
 * is not reproduced: the correctly rounded value stands in for it */
static inline float ls_exp_target(float x)
{
    return (float)exp((double)x);
}

#include "mlir_math.inc"

float ls_mlir_expf(float x)
{
    return ls_mlir_exp(x);
}
float ls_mlir_logf(float x)
{
    return ls_mlir_log_base(x, 0);
}
float ls_mlir_log2f(float x)
{
    return ls_mlir_log_base(x, 1);
}
float ls_mlir_tanhf(float x)
{
    return ls_mlir_tanh(x);
}
float ls_mlir_erff(float x)
{
    return ls_mlir_erf(x);
}
float ls_mlir_sinf(float x)
{
    return ls_mlir_sincos(x, 1);
}
float ls_mlir_cosf(float x)
{
    return ls_mlir_sincos(x, 0);
}
float ls_iree_rocm_erff(float x)
{
    return ls_mlir_rocm_erf(x);
}
float ls_mlir_fpowif(float x, long long n)
{
    return ls_mlir_fpowi(x, n);
}
float ls_mlir_powff(float a, float b)
{
    return ls_mlir_powf(a, b);
}
