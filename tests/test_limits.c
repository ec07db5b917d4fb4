/* test_limits.c: every limit in the man page's LIMITS table, exercised at the
 * limit (accepted: the input goes through, or stops on something other than
 * the limit) and one past it (refused with LS_ERR_LIMIT and a message that
 * names the limit).  "One past" is one more of the limited thing: one more
 * byte, level, dimension, function, op, input, lane or element.  The inputs
 * are generated here, so the boundary is the limit's constant, not a
 * number copied into the test.  The compare files' limits and a run's
 * work: test_limits_work.c. */
#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include "lanescope/arena.h"
#include "lanescope/compare.h"
#include "lanescope/engine.h"
#include "lanescope/functional.h"
#include "lanescope/mlir.h"
#include "lanescope/npy.h"
#include "lanescope/problem.h"
#include "lanescope/suggest.h"
#include "lanescope/sweep.h"
#include "limits_util.h"
#include "testutil.h"

/* ------------------------------------------------------------ helpers */

/* A sum over the last of n loops of size 2 (n - 1 parallel loops). */
static void generic_sum(FILE *f, int n)
{
    fprintf(f, "  %%r = linalg.generic {indexing_maps = [affine_map<(");
    for (int i = 0; i < n; i++)
        fprintf(f, "%sd%d", i ? ", " : "", i);
    fprintf(f, ") -> (");
    for (int i = 0; i < n; i++)
        fprintf(f, "%sd%d", i ? ", " : "", i);
    fprintf(f, ")>, affine_map<(");
    for (int i = 0; i < n; i++)
        fprintf(f, "%sd%d", i ? ", " : "", i);
    fprintf(f, ") -> (");
    for (int i = 0; i < n - 1; i++)
        fprintf(f, "%sd%d", i ? ", " : "", i);
    fprintf(f, ")>], iterator_types = [");
    for (int i = 0; i < n; i++)
        fprintf(f, "%s\"%s\"", i ? ", " : "", i < n - 1 ? "parallel" : "reduction");
    fprintf(f, "]} ins(%%a : tensor<");
    for (int i = 0; i < n; i++)
        fprintf(f, "2x");
    fprintf(f, "f32>) outs(%%b : tensor<");
    for (int i = 0; i < n - 1; i++)
        fprintf(f, "2x");
    fprintf(f, "f32>) {\n  ^bb0(%%in: f32, %%out: f32):\n    %%0 = arith.addf %%in, %%out : f32\n"
               "    linalg.yield %%0 : f32\n  } -> tensor<");
    for (int i = 0; i < n - 1; i++)
        fprintf(f, "2x");
    fprintf(f, "f32>\n");
}

/* One 8x64 row sum (seed example 4's op, without a config); each defines
 * its own SSA value (a name defined twice is an error). */
static void reduce_op(FILE *f)
{
    static int k;
    fprintf(f, "  %%r%d = linalg.reduce", k++);
    fprintf(f, " ins(%%a : tensor<8x64xf32>) outs(%%b : tensor<8xf32>) "
               "dimensions = [1]\n    (%%in: f32, %%init: f32) {\n"
               "      %%0 = arith.addf %%in, %%init : f32\n      linalg.yield %%0 : f32\n    }\n");
}

/* ------------------------------------------------------------ input file */

/* LS_IMPORT_MAX_BYTES: a file of exactly the limit loads (one reduction
 * followed by a comment padding it out); one byte more is refused before
 * it is parsed. */
START_TEST(input_file_bytes)
{
    char path[] = "/tmp/ls-limits-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "func.func @f() {\n");
    reduce_op(f);
    fprintf(f, "  return\n}\n//");
    long at = ftell(f);
    size_t pad = (size_t)LS_IMPORT_MAX_BYTES - (size_t)at - 1;
    char *fill = ls_xmalloc(pad);
    memset(fill, 'x', pad);
    fwrite(fill, 1, pad, f);
    fputc('\n', f);
    free(fill);
    fclose(f);
    ls_diag d;
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_module_load(path, m, &d), LS_OK);
    ck_assert_int_eq((int)m->n_problems, 1);
    free(m);
    f = fopen(path, "a");
    fputc('\n', f);
    fclose(f);
    m = ls_xcalloc(1, sizeof *m);
    ls_diag_clear(&d);
    ASSERT_LIMIT(ls_module_load(path, m, &d), d, "larger than the 64 MiB limit");
    free(m);
    unlink(path);
}
END_TEST

/* ------------------------------------------------------------ nesting */

static ls_status parse_attr(const char *text, ls_diag *d)
{
    ls_arena a;
    ls_arena_init(&a);
    ls_diag_clear(d);
    ls_attr *at = ls_parse_attr_string(text, strlen(text), "t.mlir", &a, NULL, d);
    ls_arena_fini(&a);
    return at ? LS_OK : d->status;
}

/* LS_MLIR_MAX_DEPTH levels of attribute nesting: [[...[1]...]] with 64
 * brackets parses, 65 do not. */
START_TEST(attribute_nesting)
{
    char text[2 * (LS_MLIR_MAX_DEPTH + 1) + 2];
    ls_diag d;
    for (int n = LS_MLIR_MAX_DEPTH; n <= LS_MLIR_MAX_DEPTH + 1; n++) {
        memset(text, '[', (size_t)n);
        text[n] = '1';
        memset(text + n + 1, ']', (size_t)n);
        text[2 * n + 1] = '\0';
        ls_status st = parse_attr(text, &d);
        if (n == LS_MLIR_MAX_DEPTH)
            ck_assert_msg(st == LS_OK, "%d levels: %s", n, d.msg);
        else
            ASSERT_LIMIT(st, d, "nested deeper than 64 levels");
    }
}
END_TEST

/* The same for affine expressions: affine_map<(d0) -> ((...(d0)...))> with n
 * parentheses around d0 inside the map's result list; affine_map<...> is
 * the first level, so 63 parentheses are 64 levels. */
START_TEST(affine_nesting)
{
    ls_diag d;
    for (int n = LS_MLIR_MAX_DEPTH - 1; n <= LS_MLIR_MAX_DEPTH; n++) {
        buf b;
        FILE *f = buf_open(&b);
        fprintf(f, "affine_map<(d0) -> (");
        for (int i = 0; i < n; i++)
            fputc('(', f);
        fprintf(f, "d0");
        for (int i = 0; i < n; i++)
            fputc(')', f);
        fprintf(f, ")>");
        buf_close(&b);
        ls_status st = parse_attr(b.text, &d);
        if (n < LS_MLIR_MAX_DEPTH)
            ck_assert_msg(st == LS_OK, "%d parentheses: %s", n, d.msg);
        else
            ASSERT_LIMIT(st, d, "nested deeper than 64 levels");
        free(b.text);
    }
}
END_TEST

/* ------------------------------------------------------------ ranks */

/* LS_MAX_SHAPE_RANK dimensions in a tensor type. */
START_TEST(tensor_rank)
{
    ls_diag d;
    for (int n = LS_MAX_SHAPE_RANK; n <= LS_MAX_SHAPE_RANK + 1; n++) {
        char text[128] = "tensor<";
        for (int i = 0; i < n; i++)
            strcat(text, "1x");
        strcat(text, "f32>");
        ls_status st = parse_attr(text, &d);
        if (n == LS_MAX_SHAPE_RANK)
            ck_assert_msg(st == LS_OK, "rank %d: %s", n, d.msg);
        else
            ASSERT_LIMIT(st, d, "more than 16 dimensions (the limit)");
    }
}
END_TEST

/* The module-level limits share one shape: an IR generator for n of the
 * limited thing, parsed at the limit (accepted, and what the module holds
 * checked) and one past it (refused with the fragment). */
typedef struct {
    int limit;
    void (*gen)(FILE *f, int n);
    const char *fragment;
    void (*check)(const ls_module *m); /* at the limit */
} count_limit;

static void at_and_past(const count_limit *c)
{
    ls_diag d;
    for (int n = c->limit; n <= c->limit + 1; n++) {
        buf b;
        c->gen(buf_open(&b), n);
        buf_close(&b);
        ls_module *m;
        ls_status st = parse(b.text, b.len, &m, &d);
        if (n == c->limit) {
            ck_assert_msg(st == LS_OK, "%d: %s", n, d.msg);
            c->check(m);
        } else {
            ASSERT_LIMIT(st, d, c->fragment);
        }
        free(m);
        free(b.text);
    }
}

/* LS_MAX_RANK loops in a reduction's iteration space. */
static void gen_loops(FILE *f, int n)
{
    fprintf(f, "func.func @f() {\n");
    generic_sum(f, n);
    fprintf(f, "  return\n}\n");
}

static void check_loops(const ls_module *m)
{
    ck_assert_int_eq((int)m->n_problems, 1);
    ck_assert_int_eq(m->problems[0].rank, LS_MAX_RANK);
}

START_TEST(iteration_rank)
{
    at_and_past(&(count_limit){LS_MAX_RANK, gen_loops, "the rank limit is 8", check_loops});
}
END_TEST

/* ------------------------------------------------------------ counts */

/* LS_IMPORT_MAX_FUNCS functions with linalg ops in one file. */
static void gen_funcs(FILE *f, int n)
{
    for (int i = 0; i < n; i++) {
        fprintf(f, "func.func @f%d() {\n", i);
        reduce_op(f);
        fprintf(f, "  return\n}\n");
    }
}

static void check_funcs(const ls_module *m)
{
    ck_assert_int_eq((int)m->n_dispatches, LS_IMPORT_MAX_FUNCS);
}

START_TEST(functions_per_file)
{
    at_and_past(&(count_limit){LS_IMPORT_MAX_FUNCS, gen_funcs, "more than 16 functions", check_funcs});
}
END_TEST

/* LS_DISPATCH_MAX_OPS linalg ops in one function. */
static void gen_ops(FILE *f, int n)
{
    fprintf(f, "func.func @f() {\n");
    for (int i = 0; i < n; i++)
        reduce_op(f);
    fprintf(f, "  return\n}\n");
}

static void check_ops(const ls_module *m)
{
    ck_assert_int_eq((int)m->dispatches[0].n_ops, LS_DISPATCH_MAX_OPS);
}

START_TEST(ops_per_function)
{
    at_and_past(&(count_limit){LS_DISPATCH_MAX_OPS, gen_ops, "more than 32 linalg ops", check_ops});
}
END_TEST

/* LS_IMPORT_MAX_ITEMS reductions in one file (spread over functions of
 * 16 ops, inside the two limits above). */
static void gen_reductions(FILE *f, int n)
{
    for (int i = 0; i < n; i++) {
        if (i % 16 == 0)
            fprintf(f, "%sfunc.func @f%d() {\n", i ? "  return\n}\n" : "", i);
        reduce_op(f);
    }
    fprintf(f, "  return\n}\n");
}

static void check_reductions(const ls_module *m)
{
    ck_assert_int_eq((int)m->n_problems, LS_IMPORT_MAX_ITEMS);
}

START_TEST(reductions_per_file)
{
    at_and_past(&(count_limit){LS_IMPORT_MAX_ITEMS, gen_reductions, "more than 64 reductions",
                               check_reductions});
}
END_TEST

/* LS_MAX_INPUTS inputs of one reduction: the sum of n inputs' product. */
static void gen_inputs(FILE *f, int n)
{
    fprintf(f, "func.func @f() {\n  %%r = linalg.generic {indexing_maps = [");
    for (int i = 0; i < n; i++)
        fprintf(f, "affine_map<(d0, d1) -> (d0, d1)>, ");
    fprintf(f, "affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", "
               "\"reduction\"]} ins(");
    for (int i = 0; i < n; i++)
        fprintf(f, "%s%%a%d", i ? ", " : "", i);
    fprintf(f, " : ");
    for (int i = 0; i < n; i++)
        fprintf(f, "%stensor<8x64xf32>", i ? ", " : "");
    fprintf(f, ") outs(%%b : tensor<8xf32>) {\n  ^bb0(");
    for (int i = 0; i < n; i++)
        fprintf(f, "%%in%d: f32, ", i);
    fprintf(f, "%%out: f32):\n");
    for (int i = 1; i < n; i++)
        fprintf(f, "    %%p%d = arith.mulf %s%d, %%in%d : f32\n", i, i > 1 ? "%p" : "%in", i - 1,
                i);
    fprintf(f, "    %%s = arith.addf %%p%d, %%out : f32\n    linalg.yield %%s : f32\n"
               "  } -> tensor<8xf32>\n  return\n}\n",
            n - 1);
}

static void check_inputs(const ls_module *m)
{
    ck_assert_int_eq((int)m->n_problems, 1);
    ck_assert_int_eq(m->problems[0].n_inputs, LS_MAX_INPUTS);
}

START_TEST(inputs_per_reduction)
{
    at_and_past(&(count_limit){LS_MAX_INPUTS, gen_inputs, "more than 4 tensors", check_inputs});
}
END_TEST

/* LS_MAX_BODY_INSTS ops in one body: a chain of n - 1 multiplies of the
 * input, then the add into the accumulator. */
static void gen_body(FILE *f, int n)
{
    fprintf(f, "func.func @f() {\n  %%r = linalg.generic {indexing_maps = [affine_map<(d0, "
               "d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = "
               "[\"parallel\", \"reduction\"]} ins(%%a : tensor<8x64xf32>) outs(%%b : "
               "tensor<8xf32>) {\n  ^bb0(%%in: f32, %%out: f32):\n");
    fprintf(f, "    %%t0 = arith.mulf %%in, %%in : f32\n");
    for (int i = 1; i < n - 1; i++)
        fprintf(f, "    %%t%d = arith.mulf %%t%d, %%in : f32\n", i, i - 1);
    fprintf(f, "    %%s = arith.addf %%t%d, %%out : f32\n    linalg.yield %%s : f32\n"
               "  } -> tensor<8xf32>\n  return\n}\n",
            n - 2);
}

static void check_body(const ls_module *m)
{
    ck_assert_int_eq((int)m->n_problems, 1);
}

START_TEST(body_ops)
{
    at_and_past(&(count_limit){LS_MAX_BODY_INSTS, gen_body, "64", check_body});
}
END_TEST

/* ------------------------------------------------------------ configs */

/* A 1 x size row sum with a config of sg-lane subgroups, n_sg subgroups and
 * thread elements per lane; derived into d. */
static ls_status derive_config(int64_t size, int64_t sg, int64_t n_sg, int64_t thread,
                               ls_derived *dv, ls_diag *d)
{
    buf b;
    FILE *f = buf_open(&b);
    fprintf(f,
            "#config = #iree_gpu.lowering_config<{lane_basis = [[1, %lld], [0, 1]], "
            "partial_reduction = [0, %lld], subgroup_basis = [[1, %lld], [0, 1]], thread = [0, "
            "%lld], workgroup = [1, 0]}>\n"
            "#translation = #iree_codegen.translation_info<pipeline = LLVMGPUVectorDistribute "
            "workgroup_size = [%lld, 1, 1] subgroup_size = %lld>\n"
            "func.func @f() attributes {translation_info = #translation} {\n"
            "  %%r = linalg.reduce ins(%%a : tensor<1x%lldxf32>) outs(%%b : tensor<1xf32>) "
            "dimensions = [1] {lowering_config = #config}\n    (%%in: f32, %%init: f32) {\n"
            "      %%0 = arith.addf %%in, %%init : f32\n      linalg.yield %%0 : f32\n    }\n"
            "  return\n}\n",
            (long long)sg, (long long)(sg * n_sg * thread), (long long)n_sg, (long long)thread,
            (long long)(sg * n_sg), (long long)sg, (long long)size);
    buf_close(&b);
    ls_module *m;
    ls_status st = parse(b.text, b.len, &m, d);
    free(b.text);
    if (st == LS_OK) {
        ck_assert_int_eq((int)m->n_problems, 1);
        st = ls_derive(&m->problems[0], dv, d);
    }
    free(m);
    return st;
}

/* LS_MAX_SUBGROUP_SIZE lanes; LS_MAX_WORKGROUP_SIZE threads. */
START_TEST(subgroup_and_workgroup_size)
{
    ls_derived *dv = ls_xcalloc(1, sizeof *dv);
    ls_diag d;
    int64_t sg = LS_MAX_SUBGROUP_SIZE;
    ck_assert_msg(derive_config(sg, sg, 1, 1, dv, &d) == LS_OK, "%s", d.msg);
    ck_assert_int_eq(dv->subgroup_size, sg);
    ASSERT_LIMIT(derive_config(sg + 1, sg + 1, 1, 1, dv, &d), d, "the limits are 1024 and 65536");
    int64_t n_sg = LS_MAX_WORKGROUP_SIZE / 64;
    ck_assert_msg(derive_config(64 * n_sg, 64, n_sg, 1, dv, &d) == LS_OK, "%s", d.msg);
    ck_assert_int_eq(dv->workgroup_size, LS_MAX_WORKGROUP_SIZE);
    /* one thread more: 65 lanes x 1009 subgroups = 65585 threads */
    ASSERT_LIMIT(derive_config(65 * 1009, 65, 1009, 1, dv, &d), d, "the limits are 1024 and 65536");
    free(dv);
}
END_TEST

/* A target's subgroup_size_choices: each at most LS_MAX_SUBGROUP_SIZE
 * lanes, at most LS_MAX_SG_CHOICES of them. */
START_TEST(target_subgroup_choices)
{
    ls_diag d;
    for (int64_t sg = LS_MAX_SUBGROUP_SIZE; sg <= LS_MAX_SUBGROUP_SIZE + 1; sg++) {
        char text[256];
        snprintf(text, sizeof text,
                 "#t = #iree_gpu.target<arch = \"gfx942\", features = \"\", wgp = "
                 "<subgroup_size_choices = [64, %lld], max_workgroup_sizes = [1024, 1024, "
                 "1024]>>\n",
                 (long long)sg);
        ls_module *m;
        ls_status st = parse(text, strlen(text), &m, &d);
        if (sg == LS_MAX_SUBGROUP_SIZE) {
            ck_assert_msg(st == LS_OK, "%s", d.msg);
            ck_assert(m->has_target && m->target.n_subgroup_choices == 2 &&
                      m->target.subgroup_choices[1] == LS_MAX_SUBGROUP_SIZE);
        } else {
            ASSERT_LIMIT(st, d, "subgroup_size_choices[1] = 1025 is past lanescope's limit of 1024");
        }
        free(m);
    }
    for (int n = LS_MAX_SG_CHOICES; n <= LS_MAX_SG_CHOICES + 1; n++) {
        char text[256] = "#t = #iree_gpu.target<arch = \"gfx942\", features = \"\", wgp = "
                         "<subgroup_size_choices = [";
        for (int i = 0; i < n; i++)
            snprintf(text + strlen(text), sizeof text - strlen(text), "%s%d", i ? ", " : "", 1 << i);
        strcat(text, "], max_workgroup_sizes = [1024, 1024, 1024]>>\n");
        ls_module *m;
        ls_status st = parse(text, strlen(text), &m, &d);
        if (n == LS_MAX_SG_CHOICES)
            ck_assert_msg(st == LS_OK, "%s", d.msg);
        else
            ASSERT_LIMIT(st, d, "subgroup_size_choices has 9 entries; the limit is 8");
        free(m);
    }
}
END_TEST

/* LS_MAX_REGISTERS elements per thread per iteration. */
START_TEST(registers_per_thread)
{
    ls_derived *dv = ls_xcalloc(1, sizeof *dv);
    ls_diag d;
    int64_t r = LS_MAX_REGISTERS;
    ck_assert_msg(derive_config(64 * r, 64, 1, r, dv, &d) == LS_OK, "%s", d.msg);
    ASSERT_LIMIT(derive_config(64 * (r + 1), 64, 1, r + 1, dv, &d), d, "more than 1048576 elements");
    free(dv);
}
END_TEST

/* LS_SWIZZLE_MAX_PARAM for each swizzle parameter. */
START_TEST(swizzle_parameter)
{
    static const char *names[] = {"row_width", "access_width", "row_stride", "per_phase"};
    ls_diag d;
    for (int k = 0; k < 4; k++)
        for (int64_t v = LS_SWIZZLE_MAX_PARAM; v <= LS_SWIZZLE_MAX_PARAM + 1; v++) {
            /* the parameter under test at v, the others at values it allows */
            int64_t p[4] = {LS_SWIZZLE_MAX_PARAM, 1, LS_SWIZZLE_MAX_PARAM, 1};
            p[k] = v;
            if (k == 1)
                p[0] = p[2] = LS_SWIZZLE_MAX_PARAM; /* access_width divides row_width */
            char text[256];
            snprintf(text, sizeof text,
                     "#iree_codegen.xor_shuffle<row_width = %lld, access_width = %lld, "
                     "row_stride = %lld, per_phase = %lld>",
                     (long long)p[0], (long long)p[1], (long long)p[2], (long long)p[3]);
            ls_arena a;
            ls_arena_init(&a);
            ls_diag_clear(&d);
            ls_attr *at = ls_parse_attr_string(text, strlen(text), "t.mlir", &a, NULL, &d);
            ck_assert_ptr_nonnull(at);
            ls_swizzle s;
            ls_status st = ls_swizzle_from_attr(at, "t.mlir", &s, &d);
            ls_arena_fini(&a);
            if (v == LS_SWIZZLE_MAX_PARAM) {
                ck_assert_msg(st == LS_OK, "%s = %lld: %s", names[k], (long long)v, d.msg);
            } else {
                ASSERT_LIMIT(st, d, "past lanescope's limit of 16777216");
                ck_assert_msg(strstr(d.msg, names[k]) != NULL, "%s", d.msg);
            }
        }
}
END_TEST

/* ------------------------------------------------------------ npy */

/* A .npy holding only its header: shape (n,) of float32. */
static size_t npy_header(unsigned char out[128], int64_t n)
{
    char dict[96];
    int dl = snprintf(dict, sizeof dict, "{'descr': '<f4', 'fortran_order': False, 'shape': (%lld,), }",
                      (long long)n);
    size_t hl = 128; /* 10 + header, padded to 128 with spaces and a newline */
    memcpy(out, "\x93NUMPY\x01\x00", 8);
    out[8] = (unsigned char)(hl - 10);
    out[9] = 0;
    memset(out + 10, ' ', hl - 10);
    memcpy(out + 10, dict, (size_t)dl);
    out[hl - 1] = '\n';
    return hl;
}

/* LS_NPY_MAX_BYTES of array data: a header declaring exactly the limit is
 * accepted and stops on the missing data; one more element is refused from
 * the header alone. */
START_TEST(npy_bytes)
{
    unsigned char h[128];
    ls_npy a;
    ls_diag d;
    int64_t n = LS_NPY_MAX_BYTES / 4;
    size_t len = npy_header(h, n);
    ls_diag_clear(&d);
    ls_status st = ls_npy_parse(h, len, "a.npy", &a, &d);
    ck_assert_int_ne(st, LS_OK);
    ck_assert_msg(strstr(d.msg, "fewer data bytes than the shape needs (0 of 4294967296)"), "%s",
                  d.msg);
    len = npy_header(h, n + 1);
    ls_diag_clear(&d);
    ASSERT_LIMIT(ls_npy_parse(h, len, "a.npy", &a, &d), d, "4294967296-byte limit");
}
END_TEST

static Suite *limits_suite(void)
{
    Suite *s = suite_create("limits");
    TCase *tc = tcase_create("files");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, input_file_bytes);
    tcase_add_test(tc, npy_bytes);
    suite_add_tcase(s, tc);
    tc = tcase_create("ir");
    tcase_add_test(tc, attribute_nesting);
    tcase_add_test(tc, affine_nesting);
    tcase_add_test(tc, tensor_rank);
    tcase_add_test(tc, iteration_rank);
    tcase_add_test(tc, functions_per_file);
    tcase_add_test(tc, ops_per_function);
    tcase_add_test(tc, reductions_per_file);
    tcase_add_test(tc, inputs_per_reduction);
    tcase_add_test(tc, body_ops);
    suite_add_tcase(s, tc);
    tc = tcase_create("configs");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, subgroup_and_workgroup_size);
    tcase_add_test(tc, registers_per_thread);
    tcase_add_test(tc, target_subgroup_choices);
    tcase_add_test(tc, swizzle_parameter);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(limits_suite)
