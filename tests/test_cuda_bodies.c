/* test_cuda_bodies.c: the CUDA generator on bodies and math, without a
 * GPU -- random bodies of every op family compile with NVRTC (when the
 * build has it) and their emulated kernels match the reference; MLIR's
 * polynomial math (exp, log, sin, cos, powf, fpowi) bit for bit as the
 * kernel computes it; each math op's instruction count against the PTX;
 * narrow (f16, bf16, i8, i4) inputs widened as IREE widens them.  The
 * generator's reductions themselves: test_cuda.c. */
#include "../src/cuda/codegen.h"
#include "cuda_util.h"

/* ---- random bodies ---- */

static int body_add(ls_body *b, ls_body_opcode op, ls_elem_type t, ls_elem_type src, int a, int x,
                    int c)
{
    ls_body_inst *in = &b->inst[b->n];
    memset(in, 0, sizeof *in);
    in->op = (uint8_t)op;
    in->type = (uint8_t)t;
    in->src = (uint8_t)src;
    in->a = (int16_t)a;
    in->b = (int16_t)x;
    in->c = (int16_t)c;
    return b->n++;
}

static int body_const(ls_body *b, ls_elem_type t, uint64_t bits)
{
    int i = body_add(b, LS_BOP_CONST, t, t, -1, -1, -1);
    b->inst[i].imm = bits;
    return i;
}

/* An input of type it brought to t (extf/extsi/extui when narrower). */
static int body_input(uint64_t *rng, ls_body *b, int k, ls_elem_type it, ls_elem_type t)
{
    int v = body_add(b, LS_BOP_INPUT, it, it, -1, -1, -1);
    b->inst[v].index = k;
    if (it == t)
        return v;
    if (ls_elem_type_is_float(t))
        return body_add(b, LS_BOP_EXTF, t, it, v, -1, -1);
    return body_add(b, rng_range(rng, 0, 1) ? LS_BOP_EXTSI : LS_BOP_EXTUI, t, it, v, -1, -1);
}

/* One random op on values of type t drawn from vals; returns the new value. */
static int body_random_op(uint64_t *rng, ls_body *b, ls_elem_type t, const int *vals, int nv,
                          int red_dim)
{
    int a = vals[rng_range(rng, 0, nv - 1)], c = vals[rng_range(rng, 0, nv - 1)];
    if (ls_elem_type_is_float(t)) {
        static const ls_body_opcode bin[] = {LS_BOP_ADDF,    LS_BOP_SUBF,     LS_BOP_MULF,
                                             LS_BOP_DIVF,    LS_BOP_MAXIMUMF, LS_BOP_MINNUMF,
                                             LS_BOP_MAXNUMF, LS_BOP_MINIMUMF};
        static const ls_body_opcode un[] = {LS_BOP_NEGF, LS_BOP_ABSF,  LS_BOP_EXP,
                                            LS_BOP_TANH, LS_BOP_FLOOR, LS_BOP_EXP2,
                                            LS_BOP_ERF,  LS_BOP_COS,   LS_BOP_SIN};
        switch (rng_range(rng, 0, 6)) {
        case 0:
        case 1: return body_add(b, bin[rng_range(rng, 0, 7)], t, t, a, c, -1);
        case 2: return body_add(b, un[rng_range(rng, 0, 8)], t, t, a, -1, -1);
        case 3: { /* sqrt(|a|), log of 1 + |a| */
            int ab = body_add(b, LS_BOP_ABSF, t, t, a, -1, -1);
            return body_add(b, rng_range(rng, 0, 1) ? LS_BOP_SQRT : LS_BOP_RSQRT, t, t, ab, -1, -1);
        }
        case 4: { /* select(a > c, a, c) */
            int cmp = body_add(b, LS_BOP_CMPF, LS_ET_I1, t, a, c, -1);
            b->inst[cmp].pred = (uint8_t)rng_range(rng, LS_PRED_OEQ, LS_PRED_UNE);
            return body_add(b, LS_BOP_SELECT, t, t, cmp, a, c);
        }
        case 5: { /* through f64 and back, or a round trip through i32 */
            if (rng_range(rng, 0, 1)) {
                int w = body_add(b, LS_BOP_EXTF, LS_ET_F64, t, a, -1, -1);
                int e = body_add(b, LS_BOP_EXP, LS_ET_F64, LS_ET_F64, w, -1, -1);
                return body_add(b, LS_BOP_TRUNCF, t, LS_ET_F64, e, -1, -1);
            }
            int k = body_const(b, t, ls_value_from_double(16.0, t));
            int m = body_add(b, LS_BOP_MULF, t, t, a, k, -1);
            int i = body_add(b, rng_range(rng, 0, 1) ? LS_BOP_FPTOSI : LS_BOP_FPTOUI, LS_ET_I8, t,
                             m, -1, -1);
            return body_add(b, LS_BOP_SITOFP, t, LS_ET_I8, i, -1, -1);
        }
        default: { /* a * float(index of the reduced dim) */
            int x = body_add(b, LS_BOP_INDEX, LS_ET_INDEX, LS_ET_INDEX, -1, -1, -1);
            b->inst[x].index = red_dim;
            int i = body_add(b, LS_BOP_INDEX_CAST, LS_ET_I32, LS_ET_INDEX, x, -1, -1);
            int f = body_add(b, LS_BOP_SITOFP, t, LS_ET_I32, i, -1, -1);
            return body_add(b, LS_BOP_MULF, t, t, a, f, -1);
        }
        }
    }
    static const ls_body_opcode ibin[] = {
        LS_BOP_ADDI,  LS_BOP_SUBI,  LS_BOP_MULI, LS_BOP_DIVSI, LS_BOP_DIVUI, LS_BOP_REMSI,
        LS_BOP_REMUI, LS_BOP_ANDI,  LS_BOP_ORI,  LS_BOP_XORI,  LS_BOP_MAXSI, LS_BOP_MINSI,
        LS_BOP_MAXUI, LS_BOP_MINUI, LS_BOP_SHLI, LS_BOP_SHRSI, LS_BOP_SHRUI};
    switch (rng_range(rng, 0, 4)) {
    case 0:
    case 1: return body_add(b, ibin[rng_range(rng, 0, 16)], t, t, a, c, -1);
    case 2: { /* shifts by a small constant, or by the width (poison: 0 / sign fill) */
        int bits = ls_elem_type_bits(t);
        int k =
            body_const(b, t, (uint64_t)(rng_range(rng, 0, 1) ? rng_range(rng, 0, bits - 1) : bits));
        static const ls_body_opcode sh[] = {LS_BOP_SHLI, LS_BOP_SHRSI, LS_BOP_SHRUI};
        return body_add(b, sh[rng_range(rng, 0, 2)], t, t, a, k, -1);
    }
    case 3: { /* select(a <s c, a, c) */
        int cmp = body_add(b, LS_BOP_CMPI, LS_ET_I1, t, a, c, -1);
        b->inst[cmp].pred = (uint8_t)rng_range(rng, LS_PRED_EQ, LS_PRED_UGE_I);
        return body_add(b, LS_BOP_SELECT, t, t, cmp, a, c);
    }
    default: { /* + index, or through i64 / f32 */
        if (rng_range(rng, 0, 1)) {
            int x = body_add(b, LS_BOP_INDEX, LS_ET_INDEX, LS_ET_INDEX, -1, -1, -1);
            b->inst[x].index = red_dim;
            int i = body_add(b, LS_BOP_INDEX_CAST, t, LS_ET_INDEX, x, -1, -1);
            return body_add(b, LS_BOP_ADDI, t, t, a, i, -1);
        }
        int w = body_add(b, LS_BOP_EXTSI, LS_ET_I64, t, a, -1, -1);
        int f = body_add(b, LS_BOP_SITOFP, LS_ET_F32, LS_ET_I64, w, -1, -1);
        return body_add(b, LS_BOP_FPTOSI, t, LS_ET_F32, f, -1, -1);
    }
    }
}

/* Property: random two-input contractions with random bodies (casts,
 * float and integer ops, math functions in both ls_math_modes, comparisons and selects,
 * linalg.index, f64 and i64 intermediates), compiled by NVRTC without a
 * warning and emulated: every output matches the reference. */
START_TEST(random_bodies_match_reference)
{
    uint64_t rng = 0xb0d1e5 + (uint64_t)_i * 104729;
    static const ls_elem_type accs[] = {LS_ET_F32, LS_ET_F16, LS_ET_BF16,
                                        LS_ET_I32, LS_ET_I16, LS_ET_I8};
    int ran = 0;
    ls_derived *d = ls_xcalloc(1, sizeof *d);
    for (int iter = 0; iter < 800 && ran < 3; iter++) {
        ls_problem p;
        if (!random_problem(&rng, &p, 5, 70) || p.ti.subgroup_size != 32)
            continue;
        ls_elem_type t = accs[(_i * 3 + ran) % 6];
        bool fl = ls_elem_type_is_float(t);
        ls_elem_type narrow = t == LS_ET_F32 ? LS_ET_F16 : t == LS_ET_I32 ? LS_ET_I8 : t;
        p.acc_type = t;
        p.inputs[0].type = rng_range(&rng, 0, 1) ? narrow : t;
        ls_operand *o = &p.inputs[1];
        memset(o, 0, sizeof *o);
        o->type = rng_range(&rng, 0, 1) ? narrow : t;
        int red = -1;
        for (int i = 0; i < p.rank; i++) {
            if (p.is_reduction[i])
                red = i;
            if (rng_range(&rng, 0, 2) > 0)
                o->map[o->map_n++] = i;
        }
        if (o->map_n == 0)
            o->map[o->map_n++] = p.rank - 1;
        p.n_inputs = 2;
        static const ls_combiner fk[] = {LS_COMB_ADD, LS_COMB_MAXNUMF, LS_COMB_MINIMUMF};
        static const ls_combiner ik[] = {LS_COMB_ADD, LS_COMB_XOR, LS_COMB_MAXSI, LS_COMB_MINUI};
        p.combiner = fl ? fk[rng_range(&rng, 0, 2)] : ik[rng_range(&rng, 0, 3)];
        ls_body *b = &p.body;
        memset(b, 0, sizeof *b);
        /* half the runs as IREE compiles math for NVIDIA, half correctly rounded */
        b->math = (uint8_t)(_i % 2 ? LS_MATH_MLIR : LS_MATH_EXACT);
        int vals[16], nv = 0;
        vals[nv++] = body_input(&rng, b, 0, p.inputs[0].type, t);
        vals[nv++] = body_input(&rng, b, 1, o->type, t);
        int nops = (int)rng_range(&rng, 2, 4);
        for (int j = 0; j < nops; j++) {
            int v = body_random_op(&rng, b, t, vals, nv, red);
            vals[nv++] = v;
        }
        int bad;
        const char *why;
        REQUIRE(ls_body_check(b, &bad, &why), "test body: %s at %d", why, bad);
        ls_diag dg;
        ls_diag_clear(&dg);
        if (ls_derive(&p, d, &dg) != LS_OK || d->total_workgroups > 40)
            continue;
        ls_plan plan;
        REQUIRE(ls_plan_build(&p, d, ls_plan_target_from_arch("sm_90"), &plan, &dg) == LS_OK, "%s",
                dg.msg);
        char *src = NULL;
        ls_cuda_launch L;
        ls_status gs = ls_cuda_generate(&plan, 0, "random", &src, &L, &dg);
        if (gs == LS_ERR_LIMIT)
            continue;
        REQUIRE(gs == LS_OK, "%s", dg.msg);
        char what[160];
        snprintf(what, sizeof what, "%s %s body of %d ops", ls_combiner_name(p.combiner),
                 ls_elem_type_name(t), b->n);
        free(ptx_of(src, what));
        int64_t checked;
        double ratio;
        ls_status st = ls_cuda_emulate_source(&plan, src, &L, (ls_input_source){77, NULL, {NULL}},
                                              &checked, &ratio, &dg);
        if (st != LS_OK) {
            fprintf(stderr, "--- %s:\n", what);
            ls_body_print(b, "  ", stderr);
            fprintf(stderr, "%s\n", src);
            ck_abort_msg("%s: %s (body and source on stderr)", what, dg.msg);
        }
        REQUIRE(checked == L.out_elems, "%s: %lld of %lld outputs checked", what,
                (long long)checked, (long long)L.out_elems);
        free(src);
        ran++;
    }
    free(d);
    ck_assert_int_eq(ran, 3);
}
END_TEST

/* The row-maximum dispatch `text` (64 rows) generated in mode `mode`: it
 * must hold `marker`, compile without a warning and match, emulated, the
 * reference of that mode bit for bit.  Then generated with the correctly
 * rounded functions (LS_MATH_EXACT) and checked against the same
 * reference: returns whether that kernel fails it. */
static bool mode_kernel_then_exact(const char *text, ls_math_mode mode, uint64_t seed,
                                   const char *marker, const char *what)
{
    ls_derived *dv;
    ls_plan plan;
    ls_module *m = nvidia_plan_of(text, 32, &dv, &plan);
    char *src = NULL;
    ls_cuda_launch L;
    ls_diag d;
    int64_t checked;
    double ratio = 0;
    ls_input_source in = {seed, NULL, {NULL}};
    ls_module_set_math(m, mode);
    ck_assert_msg(ls_cuda_generate(&plan, 0, "math", &src, &L, &d) == LS_OK, "%s", d.msg);
    ck_assert_msg(strstr(src, marker) != NULL, "%s: no %s in the kernel", what, marker);
    free(ptx_of(src, what));
    ck_assert_msg(ls_cuda_emulate_source(&plan, src, &L, in, &checked, &ratio, &d) == LS_OK,
                  "%s: %s", what, d.msg);
    ck_assert_int_eq(checked, 64);
    free(src);
    ls_module_set_math(m, LS_MATH_EXACT);
    ck_assert_msg(ls_cuda_generate(&plan, 0, "exact_math", &src, &L, &d) == LS_OK, "%s", d.msg);
    ck_assert_ptr_null(strstr(src, "ls_mlir_"));
    ls_module_set_math(m, mode);
    bool differs = ls_cuda_emulate_source(&plan, src, &L, in, &checked, &ratio, &d) != LS_OK;
    free(src);
    free(dv);
    free(m);
    return differs;
}

/* Math ops as IREE compiles them for NVIDIA (LS_MATH_MLIR): the kernel
 * pastes the simulator's own approximation text (sim/mlir_math.inc) and
 * computes the same bits.  Each op's row maximum (exact in any order; 32
 * inputs a row, so the rows' maxima differ) is checked bit for bit against
 * the reference; a kernel generated with the correctly rounded functions
 * must fail that reference for most ops (the check would not see a
 * generator that ignored the mode otherwise). */
START_TEST(mlir_math_kernels_bit_for_bit)
{
    static const char *const ops[] = {"math.exp",  "math.exp2", "math.log", "math.log2",
                                      "math.tanh", "math.erf",  "math.sin", "math.cos"};
    static const char *const types[] = {"f32", "f16"};
    int differ = 0;
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
        const char *t = types[o == 1]; /* exp2 in f16: the f16 constant, the f32 cast */
        bool is_log = strstr(ops[o], "log") != NULL;
        char text[2048];
        snprintf(
            text, sizeof text,
            "func.func @mm(%%x: tensor<64x32x%s>) -> tensor<64x%s> {\n"
            "  %%c = arith.constant 0xFC00 : %s\n"
            "  %%e = tensor.empty() : tensor<64x%s>\n"
            "  %%f = linalg.fill ins(%%c : %s) outs(%%e : tensor<64x%s>) -> tensor<64x%s>\n"
            "  %%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
            "affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]} "
            "ins(%%x : tensor<64x32x%s>) outs(%%f : tensor<64x%s>) attrs = {lowering_config = "
            "#iree_gpu.lowering_config<{workgroup = [1, 0], thread = [0, 1], partial_reduction "
            "= [0, 32], lane_basis = [[1, 32], [0, 1]], subgroup_basis = [[1, 1], [0, 1]]}>} {\n"
            "  ^bb0(%%a: %s, %%b: %s):\n"
            "    %%s = arith.constant 1.5 : %s\n    %%m = arith.mulf %%a, %%s : %s\n"
            "    %%v = %s %%m : %s\n    %%y = %s %%v : %s\n"
            "    %%r = arith.maximumf %%y, %%b : %s\n    linalg.yield %%r : %s\n"
            "  } -> tensor<64x%s>\n  return %%r : tensor<64x%s>\n}\n",
            t, t, t, t, t, t, t, t, t, t, t, t, t, is_log ? "math.absf" : "arith.negf", t, ops[o],
            t, t, t, t, t);
        if (strcmp(t, "f32") == 0) /* -inf as f32 */
            memcpy(strstr(text, "0xFC00"), "-1e30 ", 6);
        char what[48];
        snprintf(what, sizeof what, "%s %s", ops[o], t);
        differ += mode_kernel_then_exact(text, LS_MATH_MLIR, 5, "ls_mlir_", what);
        if (strcmp(ops[o], "math.erf") == 0) /* ROCm's (IREE's FastErfPattern) too */
            mode_kernel_then_exact(text, LS_MATH_ROCM, 5, "ls_mlir_rocm_erf(", "ROCm's erf");
    }
    ck_assert_int_ge(differ, 6);
}
END_TEST

/* math.powf and math.fpowi as IREE rewrites them for NVIDIA (a constant
 * exponent into products, any other into exp(b log a)): generated from
 * the same text the simulator runs, bit for bit against it (row maxima, as
 * above); kernels of the correctly rounded pow must fail it. */
START_TEST(powf_fpowi_kernels_bit_for_bit)
{
    static const char *const ops[] = {
        "%c = arith.constant 3.0 : f32\n    %y = math.powf %m, %c : f32",
        "%c = arith.constant -3 : i32\n    %y = math.fpowi %m, %c : f32, i32",
        "%c = math.absf %m : f32\n    %y = math.powf %c, %m : f32"};
    int differ = 0;
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
        char text[2048];
        snprintf(text, sizeof text,
                 "func.func @pw(%%x: tensor<64x32xf32>) -> tensor<64xf32> {\n"
                 "  %%i = arith.constant -1e30 : f32\n"
                 "  %%e = tensor.empty() : tensor<64xf32>\n"
                 "  %%f = linalg.fill ins(%%i : f32) outs(%%e : tensor<64xf32>) -> tensor<64xf32>\n"
                 "  %%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
                 "affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]} "
                 "ins(%%x : tensor<64x32xf32>) outs(%%f : tensor<64xf32>) attrs = {lowering_config "
                 "= #iree_gpu.lowering_config<{workgroup = [1, 0], thread = [0, 1], "
                 "partial_reduction = [0, 32], lane_basis = [[1, 32], [0, 1]], subgroup_basis = "
                 "[[1, 1], [0, 1]]}>} {\n"
                 "  ^bb0(%%a: f32, %%b: f32):\n"
                 "    %%s = arith.constant 1.37 : f32\n    %%m = arith.mulf %%a, %%s : f32\n"
                 "    %s\n    %%r = arith.maximumf %%y, %%b : f32\n    linalg.yield %%r : f32\n"
                 "  } -> tensor<64xf32>\n  return %%r : tensor<64xf32>\n}\n",
                 ops[o]);
        differ += mode_kernel_then_exact(text, LS_MATH_MLIR, 9,
                                         o == 0 ? "__fmul_rn((__fmul_rn(" : "ls_mlir_", ops[o]);
    }
    ck_assert_int_ge(differ, 2);
}
END_TEST

/* Instructions of a kernel's PTX: every line but directives, labels,
 * braces and moves the SASS folds into an operand (an f32 immediate, a
 * bit cast). */
static int ptx_instructions(const char *body, const char *end)
{
    int n = 0;
    for (const char *l = body; l && l < end; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        while (*l == ' ' || *l == '\t')
            l++;
        size_t len = strcspn(l, "\n");
        if (len == 0 || *l == '.' || *l == '/' || *l == '{' || *l == '}' || l[len - 1] == ':' ||
            (strncmp(l, "mov.f32", 7) == 0 && strstr(l, ", 0f") && strstr(l, ", 0f") < l + len) ||
            strncmp(l, "mov.b32", 7) == 0)
            continue;
        n++;
    }
    return n;
}

/* The instruction counts the timing model gives IREE's math ops on NVIDIA
 * (src/math_lowering.c, ls_body_ir_ops: the MLIR ops MathTransform leaves,
 * counted by hand from PolynomialApproximation.cpp) against compiled code:
 * NVRTC's PTX of the same approximations (sim/mlir_math.inc, the text
 * the generator pastes), one kernel per op less an identity kernel.  Each
 * is within 2 (tanh's select becomes a branch around its division). */
START_TEST(math_op_counts_match_ptx)
{
    if (!nvrtc())
        return;
    static const struct {
        ls_body_opcode op;
        const char *expr;
    } ops[] = {{LS_BOP_EXP, "ls_mlir_exp(x)"},
               {LS_BOP_EXP2, "ls_mlir_exp(__fmul_rn(x, 0.693147182f))"},
               {LS_BOP_LOG, "ls_mlir_log_base(x, 0)"},
               {LS_BOP_LOG2, "ls_mlir_log_base(x, 1)"},
               {LS_BOP_TANH, "ls_mlir_tanh(x)"},
               {LS_BOP_ERF, "ls_mlir_erf(x)"},
               {LS_BOP_SIN, "ls_mlir_sincos(x, 1)"},
               {LS_BOP_COS, "ls_mlir_sincos(x, 0)"}};
    const int n_ops = (int)(sizeof ops / sizeof ops[0]);
    char *src = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&src, &len);
    cg_emit_helper(f, "ls_mlir_");
    fprintf(f, "extern \"C\" __global__ void k_base(float *o, const float *i) "
               "{ o[threadIdx.x] = i[threadIdx.x]; }\n");
    for (int k = 0; k < n_ops; k++)
        fprintf(f,
                "extern \"C\" __global__ void k_%d(float *o, const float *i) "
                "{ const float x = i[threadIdx.x]; o[threadIdx.x] = %s; }\n",
                k, ops[k].expr);
    fclose(f);
    char *ptx = ptx_of(src, "math op kernels");
    int count[16] = {0}, base = -1;
    for (int k = -1; k < n_ops; k++) {
        char name[32];
        if (k < 0)
            snprintf(name, sizeof name, ".entry k_base(");
        else
            snprintf(name, sizeof name, ".entry k_%d(", k);
        const char *b = strstr(ptx, name);
        ck_assert_ptr_nonnull(b);
        const char *e = strstr(b + 1, ".entry ");
        int n = ptx_instructions(strchr(b, '{'), e ? e : b + strlen(b));
        if (k < 0)
            base = n;
        else
            count[k] = n - base;
    }
    ls_plan_target nv = ls_plan_target_from_arch("sm_90");
    for (int k = 0; k < n_ops; k++) {
        ls_body b = {.n = 2, .math = LS_MATH_MLIR};
        b.inst[0] = (ls_body_inst){
            .op = LS_BOP_INPUT, .type = LS_ET_F32, .src = LS_ET_F32, .a = -1, .b = -1, .c = -1};
        b.inst[1] = (ls_body_inst){.op = (uint8_t)ops[k].op,
                                   .type = LS_ET_F32,
                                   .src = LS_ET_F32,
                                   .a = 0,
                                   .b = -1,
                                   .c = -1};
        int model = ls_body_ir_ops(&b, nv);
        ck_assert_msg(abs(count[k] - model) <= 2, "%s: %d PTX instructions, the model counts %d",
                      ls_body_opcode_name(ops[k].op), count[k], model);
    }
    free(ptx);
    free(src);
}
END_TEST

/* What the generator cannot express is refused with the reason, never
 * generated half-right: an f8 operand (arg_compare's refusals are in
 * test_cuda_argcmp.c). */
/* Narrow inputs (docs/cuda-path.md): an i4 weight matrix, packed two to a
 * byte with the low nibble first, sign-extended and scaled as IREE's
 * dequantizing matvecs do, against an f16 vector; and an f8E4M3FN one
 * widened by arith.extf.  Each kernel runs in the emulator against the
 * reference; reading the high nibble first, or decoding f8 with E5M2's
 * layout, must fail. */
static void narrow_text(char *buf, size_t size, const char *wt, const char *body)
{
    snprintf(buf, size,
             "func.func @nv() {\n"
             "  %%cst = arith.constant 0.000000e+00 : f32\n"
             "  %%a = tensor.empty() : tensor<16x256x%s>\n"
             "  %%x = tensor.empty() : tensor<256xf16>\n"
             "  %%e = tensor.empty() : tensor<16xf32>\n"
             "  %%f = linalg.fill ins(%%cst : f32) outs(%%e : tensor<16xf32>) -> tensor<16xf32>\n"
             "  %%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
             "affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = "
             "[\"parallel\", \"reduction\"]} ins(%%a, %%x : tensor<16x256x%s>, tensor<256xf16>) "
             "outs(%%f : tensor<16xf32>) attrs = {lowering_config = #iree_gpu.lowering_config<{"
             "workgroup = [1, 0], thread = [0, 8], partial_reduction = [0, 256], "
             "lane_basis = [[1, 32], [0, 1]], subgroup_basis = [[1, 1], [0, 1]]}>} {\n"
             "  ^bb0(%%in: %s, %%in_0: f16, %%out: f32):\n%s"
             "    %%s = arith.addf %%w, %%out : f32\n"
             "    linalg.yield %%s : f32\n"
             "  } -> tensor<16xf32>\n"
             "  return\n"
             "}\n",
             wt, wt, wt, body);
}

START_TEST(narrow_inputs_kernel)
{
    char text[4096];
    ls_diag d;
    ls_derived *dv;
    ls_plan plan;
    char *src = NULL;
    ls_cuda_launch L;
    /* i4: extsi, sitofp to f16, times the vector, widened to f32 */
    narrow_text(text, sizeof text, "i4",
                "    %i = arith.extsi %in : i4 to i32\n"
                "    %h = arith.sitofp %i : i32 to f16\n"
                "    %m = arith.mulf %h, %in_0 : f16\n"
                "    %w = arith.extf %m : f16 to f32\n");
    ls_module *m = nvidia_plan_of(text, 32, &dv, &plan);
    ck_assert_msg(ls_cuda_generate(&plan, 0, "nv", &src, &L, &d) == LS_OK, "%s", d.msg);
    ck_assert_int_eq(L.input_bytes[0], 16 * 256 / 2); /* packed */
    ck_assert_int_eq(L.input_bytes[1], 256 * 2);
    ck_assert_ptr_nonnull(strstr(L.vector_note, "input 0 is packed i4"));
    ck_assert_ptr_nonnull(strstr(src, "ls_ld_i4(in0, o0 + "));
    ck_assert_ptr_nonnull(strstr(src, "ls_sx32("));
    char *ptx = ptx_of(src, "i4 matvec");
    free(ptx);
    emulate_then_sabotage(&plan, src, &L, 11, 16, "(i & 1) * 4", "(1-(i&1))*4");
    free(src);
    free(dv);
    free(m);
    /* f8E4M3FN: extf to f32, times the widened vector */
    narrow_text(text, sizeof text, "f8E4M3FN",
                "    %h = arith.extf %in : f8E4M3FN to f32\n"
                "    %v = arith.extf %in_0 : f16 to f32\n"
                "    %w = arith.mulf %h, %v : f32\n");
    m = nvidia_plan_of(text, 32, &dv, &plan);
    ck_assert_msg(ls_cuda_generate(&plan, 0, "nv", &src, &L, &d) == LS_OK, "%s", d.msg);
    ck_assert_int_eq(L.input_bytes[0], 16 * 256);
    ck_assert_ptr_nonnull(strstr(src, "ls_f8e4m3fn_f(a0)"));
    ptx = ptx_of(src, "f8 matvec");
    free(ptx);
    emulate_then_sabotage(&plan, src, &L, 12, 16, "(e ? (int)e : 1) - 10", "(e ? (int)e : 1) - 11");
    free(src);
    free(dv);
    free(m);
    /* f8 is read, not computed in: a truncf to f8 is refused with the reason */
    narrow_text(text, sizeof text, "f8E4M3FN",
                "    %h = arith.extf %in : f8E4M3FN to f32\n"
                "    %t = arith.truncf %h : f32 to f8E5M2\n"
                "    %w = arith.extf %t : f8E5M2 to f32\n");
    m = nvidia_plan_of(text, 32, &dv, &plan);
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_cuda_generate(&plan, 0, "nv", &src, &L, &d), LS_ERR_INVALID);
    ck_assert_msg(strstr(d.msg, "arith.truncf yields f8E5M2; the CUDA generator reads f8 inputs "
                                "and widens them"),
                  "%s", d.msg);
    free(dv);
    free(m);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *s = suite_create("cuda_bodies");
    TCase *tc = tcase_create("bodies");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, random_bodies_match_reference, 0, 6);
    tcase_add_test(tc, mlir_math_kernels_bit_for_bit);
    tcase_add_test(tc, powf_fpowi_kernels_bit_for_bit);
    tcase_add_test(tc, math_op_counts_match_ptx);
    tcase_add_test(tc, narrow_inputs_kernel);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(make_suite)
