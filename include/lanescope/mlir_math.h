/* mlir_math.h: the f32 math functions as IREE compiles them for NVIDIA
 * targets: MLIR's polynomial approximations, bit for bit
 * (sim/mlir_math.inc says which and from where).  The body evaluator
 * (body.h, LS_MATH_MLIR) and the CUDA generator share them. */
#ifndef LANESCOPE_MLIR_MATH_H
#define LANESCOPE_MLIR_MATH_H

float ls_mlir_expf(float x);
float ls_mlir_logf(float x);
float ls_mlir_log2f(float x);
float ls_mlir_tanhf(float x);
float ls_mlir_erff(float x);
float ls_mlir_sinf(float x);
float ls_mlir_cosf(float x);
/* math.fpowi of a constant exponent (every backend: square-and-multiply)
 * and math.powf of a non-special exponent (NVIDIA: exp(b log a)), as IREE's
 * MathTransform rewrites them (ExpandPatterns.cpp) */
float ls_mlir_fpowif(float x, long long n);
float ls_mlir_powff(float a, float b);
/* math.erf on ROCm: IREE's FastErfPattern; from |x| >= 1 on its exp is
 * the correctly rounded one (the GPU's is not reproduced) */
float ls_iree_rocm_erff(float x);

/* The same functions as CUDA C text (sim/mlir_math.inc with the CUDA
 * definitions of its operations), for a generated kernel; generated at
 * build time from the one source. */
extern const char ls_mlir_math_cuda[];

#endif
