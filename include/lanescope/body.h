/* body.h: the elementwise part of a reduction's body, as a small SSA program.
 *
 * A linalg reduction body computes, at every point of the iteration space,
 * a contribution from its inputs (a product for a contraction, a square for
 * a sum of squares, extui -> uitofp -> subf -> mulf for a dequantized
 * weight...) and folds it into the init with one combining op.  The
 * importer compiles the ops before the combiner (and those of elementwise
 * producers fused into the dispatch) into an ls_body; the simulator's lanes
 * and its reference both evaluate that one program, so they agree on every
 * rounding, and the timing engine issues one ALU instruction per op.
 *
 * Semantics per op follow the arith and math dialects: every float op is
 * rounded to its result type (computed in double, then rounded: correctly
 * rounded for +, -, *, / and sqrt of f16/bf16/f32 operands; math ops as
 * the body's ls_math_mode says); integer ops
 * wrap at their width; fptosi/fptoui saturate (what the NVVM and AMDGPU
 * conversions produce) instead of being undefined.
 */
#ifndef LANESCOPE_BODY_H
#define LANESCOPE_BODY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lanescope/mlir.h"

#define LS_MAX_INPUTS 4        /* input operands of one reduction */
#define LS_MAX_BODY_INSTS 64   /* ops of one body, producers inlined */

typedef enum {
    LS_BOP_INPUT, /* input operand number `index` (its block argument) */
    LS_BOP_CONST, /* arith.constant: imm */
    LS_BOP_INDEX, /* linalg.index `index`: the loop coordinate, as index */
    /* float binary */
    LS_BOP_ADDF,
    LS_BOP_SUBF,
    LS_BOP_MULF,
    LS_BOP_DIVF,
    LS_BOP_MAXIMUMF,
    LS_BOP_MINIMUMF,
    LS_BOP_MAXNUMF,
    LS_BOP_MINNUMF,
    LS_BOP_POWF,
    LS_BOP_FPOWI, /* float ^ integer (math.fpowi: a float and an integer operand) */
    /* float unary */
    LS_BOP_NEGF,
    LS_BOP_ABSF,
    LS_BOP_EXP,
    LS_BOP_EXP2,
    LS_BOP_LOG,
    LS_BOP_LOG2,
    LS_BOP_SQRT,
    LS_BOP_RSQRT,
    LS_BOP_TANH,
    LS_BOP_SIN,
    LS_BOP_COS,
    LS_BOP_ERF,
    LS_BOP_FLOOR,
    LS_BOP_CEIL,
    /* integer binary */
    LS_BOP_ADDI,
    LS_BOP_SUBI,
    LS_BOP_MULI,
    LS_BOP_DIVSI,
    LS_BOP_DIVUI,
    LS_BOP_REMSI,
    LS_BOP_REMUI,
    LS_BOP_ANDI,
    LS_BOP_ORI,
    LS_BOP_XORI,
    LS_BOP_SHLI,
    LS_BOP_SHRSI,
    LS_BOP_SHRUI,
    LS_BOP_MAXSI,
    LS_BOP_MINSI,
    LS_BOP_MAXUI,
    LS_BOP_MINUI,
    /* casts: src -> type */
    LS_BOP_EXTF,
    LS_BOP_TRUNCF,
    LS_BOP_EXTSI,
    LS_BOP_EXTUI,
    LS_BOP_TRUNCI,
    LS_BOP_SITOFP,
    LS_BOP_UITOFP,
    LS_BOP_FPTOSI,
    LS_BOP_FPTOUI,
    LS_BOP_INDEX_CAST,
    /* comparisons (-> i1) and select */
    LS_BOP_CMPF,
    LS_BOP_CMPI,
    LS_BOP_SELECT,
    /* arith.scaling_extf: operand a (of type src) widened and multiplied by
     * the power-of-two block scale b (an f8E8M0FNU, or rounded to one) */
    LS_BOP_SCALING_EXTF,
    /* math.fma a * b + c, rounded once: written in the body, or the reduced
     * addf of a mulf that IREE's SetMulAddFMF + UpliftFma fuse
     * (ls_body_fuse_reduced_muladd) */
    LS_BOP_FMA,
    LS_BOP_COUNT
} ls_body_opcode;

/* arith.cmpf / arith.cmpi predicates. */
typedef enum {
    LS_PRED_FALSE, LS_PRED_OEQ, LS_PRED_OGT, LS_PRED_OGE, LS_PRED_OLT, LS_PRED_OLE, LS_PRED_ONE,
    LS_PRED_ORD, LS_PRED_UEQ, LS_PRED_UGT, LS_PRED_UGE, LS_PRED_ULT, LS_PRED_ULE, LS_PRED_UNE,
    LS_PRED_UNO, LS_PRED_TRUE,
    LS_PRED_EQ, LS_PRED_NE, LS_PRED_SLT, LS_PRED_SLE, LS_PRED_SGT, LS_PRED_SGE, LS_PRED_ULT_I,
    LS_PRED_ULE_I, LS_PRED_UGT_I, LS_PRED_UGE_I
} ls_body_pred;

/* An arith op's fastmath flags, as far as IREE's FMA fusion reads them
 * (SetMulAddFMF wants none, UpliftFma wants `contract`).  The importer
 * refuses every other flag: they let LLVM approximate or reorder in ways
 * lanescope does not reproduce. */
typedef enum {
    LS_FMF_NONE,    /* no fastmath attribute, or fastmath<none> */
    LS_FMF_CONTRACT /* fastmath<contract> */
} ls_body_fmf;

typedef struct {
    uint8_t op;         /* ls_body_opcode */
    uint8_t pred;       /* ls_body_pred for CMPF/CMPI */
    uint8_t type;       /* ls_elem_type of the result */
    uint8_t src;        /* ls_elem_type of the operands (casts, comparisons) */
    uint8_t fmf;        /* ls_body_fmf */
    int16_t a, b, c;    /* operand instructions (earlier in the body), -1: none */
    int32_t index;      /* INPUT: operand number; INDEX: loop dim */
    uint64_t imm;       /* CONST: the value's bit pattern */
    int line, col;      /* of the op in the source, for messages */
} ls_body_inst;

/* How the math ops (exp, log, log2, tanh, erf, sin, cos, exp2) of f32,
 * f16 and bf16 compute their value, which depends on the target IREE
 * compiles for (Codegen/Common/MathTransform.cpp):
 *   LS_MATH_EXACT: the correctly rounded value (computed in double, then
 *     rounded): no target's code, the values a body means;
 *   LS_MATH_MLIR: MLIR's polynomial approximations, bit for bit
 *     (mlir_math.h), computed in f32 for f16 and bf16 too
 *     (predicateF32Cast), exp2 as exp(x * ln 2) (predicateRewrite): what
 *     IREE compiles on every backend but ROCm (NVIDIA);
 *   LS_MATH_ROCM: erf as IREE's own FastErfPattern (in f32 for f16 and
 *     bf16), the rest correctly rounded: ROCm's device library and LLVM's
 *     AMDGPU intrinsics, which IREE calls there, are within an ulp or two
 *     of that but are not reproduced.
 * powf and fpowi are rewritten as MathTransform rewrites them (a constant
 * fpowi exponent into products on every backend; powf on NVIDIA: a
 * constant 0, +-1, +-2, 3 into products and quotients, any other f32 one
 * into exp(b log a)); sqrt, rsqrt and every f64 math op stay correctly
 * rounded in all (the hardware's sqrt.approx, libdevice's f64 routines are
 * not reproduced).  A parsed body is LS_MATH_EXACT; the command line sets the
 * target's (ls_module_set_math). */
typedef enum { LS_MATH_EXACT, LS_MATH_MLIR, LS_MATH_ROCM } ls_math_mode;

/* The program: instructions in SSA order; the last one is the contribution
 * the combiner folds in.  n == 0: the contribution is input 0 itself. */
typedef struct {
    int n;
    uint8_t math; /* ls_math_mode */
    /* the last instruction is the math.fma ls_body_fuse_reduced_muladd
     * made of the reduced addf and its mulf */
    bool muladd_fused;
    ls_body_inst inst[LS_MAX_BODY_INSTS];
} ls_body;

/* Whether mode m computes op (on a float type other than f64) by another
 * formula than the correctly rounded value: MLIR's approximations, ROCm's
 * erf. */
bool ls_body_op_approximated(ls_body_opcode op, ls_math_mode m);
/* Whether op is a math op whose value depends on the target's code: the
 * ones a mode may approximate, sqrt, rsqrt, powf and fpowi. */
bool ls_body_op_is_math(ls_body_opcode op);
/* How IREE's convertPowfOp (ExpandPatterns.cpp) rewrites powf(a, v) for a
 * constant exponent v: 1, a, 1 / a, sqrt(a), rsqrt(a), a * a, 1 / (a * a),
 * (a * a) * a; LS_POWF_GENERAL (exp(v log a)) for any other. */
typedef enum {
    LS_POWF_GENERAL,
    LS_POWF_ONE,
    LS_POWF_SELF,
    LS_POWF_RECIP,
    LS_POWF_SQRT,
    LS_POWF_RSQRT,
    LS_POWF_SQUARE,
    LS_POWF_RECIP_SQUARE,
    LS_POWF_CUBE
} ls_powf_rewrite;
ls_powf_rewrite ls_powf_rewrite_of(double v);
/* Instruction i of b as convertPowfOp rewrites it: a powf whose exponent
 * is a constant; LS_POWF_GENERAL for any other instruction. */
ls_powf_rewrite ls_body_powf_rewrite(const ls_body *b, int i);

/* Whether instruction i of b computes, under mode m, the bits the target's
 * code computes: true for the plain arith ops and for what m reproduces
 * (MLIR's polynomials, ROCm's erf, powf and fpowi as MathTransform
 * rewrites them); false where a routine stands in correctly rounded
 * (sqrt.approx, the device library, libdevice's f64 math). */
bool ls_body_inst_as_target(const ls_body *b, int i, ls_math_mode m);

/* Opcode from an op name ("arith.mulf", "math.exp"); false when unknown. */
bool ls_body_opcode_from_name(const char *name, ls_body_opcode *op);
const char *ls_body_opcode_name(ls_body_opcode op); /* "arith.mulf" */
int ls_body_opcode_arity(ls_body_opcode op);         /* operands it takes (0..3) */
/* Predicate from its keyword ("ogt", "slt"); is_float picks the family. */
bool ls_body_pred_from_name(const char *name, bool is_float, ls_body_pred *pred);

/* Result of the program for one iteration point: inputs[k] is input k's
 * element (bit pattern, its memory type), x the loop coordinates (for
 * linalg.index).  scratch holds n values. */
uint64_t ls_body_eval(const ls_body *b, const uint64_t *inputs, const int64_t *x,
                      uint64_t *scratch);

/* Whether b ends in an arith.mulf of float type t: a body whose product
 * the reduction adds, which IREE fuses with that add into an FMA where
 * its lowering does (docs/reduction-families.md "Where IREE fuses a
 * multiply and an add"). */
bool ls_body_ends_in_mulf(const ls_body *b, ls_elem_type t);
/* IREE's LLVMGPUVectorLowering (SetMulAddFMF, then MLIR's UpliftFma): the
 * value a float add reduction folds in, when it is an arith.addf of an
 * arith.mulf (its lhs, else its rhs) and neither carries fastmath flags,
 * or both carry `contract`, becomes one math.fma on every target.  The
 * body's last instruction is rewritten so, the multiply dropped when
 * nothing else reads it.  Returns whether it did. */
bool ls_body_fuse_reduced_muladd(ls_body *b);
/* After ls_body_eval(b, ..., scratch) of a body that ends in a mulf of
 * type t: fma(x, y, c) of that mulf's factors x and y, rounded once to t. */
uint64_t ls_body_fma(const ls_body *b, const uint64_t *scratch, uint64_t c, ls_elem_type t);

/* Instructions the body issues per element: every op but inputs, constants
 * and linalg.index (materialised once, outside the loop). */
int ls_body_alu_ops(const ls_body *b);
/* Of those, transcendental ops (math.exp, log, tanh, rsqrt, ...), which run
 * on the special-function unit of NVIDIA SMs and as several instructions on
 * AMD. */
int ls_body_transcendental_ops(const ls_body *b);

/* Checks the program's types (operands precede uses, operand and result
 * types agree with each op's rules).  On failure *bad is the instruction and
 * *why the reason. */
bool ls_body_check(const ls_body *b, int *bad, const char **why);

/* "%3 = arith.mulf %1, %2 : f16" style listing, one line per op, into f. */
void ls_body_print(const ls_body *b, const char *indent, FILE *f);

#endif
