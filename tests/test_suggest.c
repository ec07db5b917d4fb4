/* test_suggest.c: IREE's reduction heuristic against configs worked out by
 * hand from shared/reference/iree-reduction-lowering.md §1.  Each table row
 * names the rule it exercises; the arithmetic is in the comment beside it.
 * Then dispatch IR: a multi-op dispatch, matvec split-k, every rejection
 * with its reason, outer reductions (IREE's TileAndFuse config, worked out
 * by hand from ConfigUtils.cpp); and the sweep's enumeration and ranking. */
#include "testutil.h"

#include "lanescope/functional.h"
#include "lanescope/sweep.h"

typedef struct {
    const char *what, *shape, *iter, *target;
    int in_bits, out_bits; /* element widths (types the simulator lacks are fine) */
    /* expected: 0 wg means a rejection containing `why` */
    int64_t wg, sg;
    int64_t workgroup[4], partial[4], thread[4], lanes[4], subgroups[4];
    const char *why;
} case_t;

static const case_t cases[] = {
    /* TL 4 -> 2 -> 1 until 64/TL is a multiple of 64; WG = 64. */
    {"seed004 8x64: thread-load halving", "8x64", "pr", "gfx942", 32, 32, 64, 64,
     {1, 0}, {0, 64}, {0, 1}, {1, 64}, {1, 1}, NULL},
    /* reference §2 test_multiple_stores: TL 4, WG 1024, P 4096, 16 subgroups. */
    {"4x4096: subgroups when few rows", "4x4096", "pr", "gfx942", 32, 32, 1024, 64,
     {1, 0}, {0, 4096}, {0, 4}, {1, 64}, {1, 16}, NULL},
    /* 1500 > 304 x 4 = 1216 -> cap 64; WG = gcd(1024, 64) = 64; P = gcd(256, 4096). */
    {"1500x4096 mi300x: one-wave cap", "1500x4096", "pr", "mi300x", 32, 32, 64, 64,
     {1, 0}, {0, 256}, {0, 4}, {1, 64}, {1, 1}, NULL},
    /* 1500 <= 512 x 4 (no chip): WG 1024 halved 3 times (1500, 750, 375 > 256) to 128. */
    {"1500x4096 gfx942: halving loop", "1500x4096", "pr", "gfx942", 32, 32, 128, 64,
     {1, 0}, {0, 512}, {0, 4}, {1, 64}, {1, 2}, NULL},
    /* WG = 6144 / 4 = 1536 > 1024 -> gcd 512; P = gcd(2048, 6144) = 2048 -> 8 subgroups. */
    {"64x6144: gcd with the cap", "64x6144", "pr", "gfx942", 32, 32, 512, 64,
     {1, 0}, {0, 2048}, {0, 4}, {1, 64}, {1, 8}, NULL},
    /* 32 % 64 != 0 -> rsize = 10 x 32 = 320; TL 1; WG 320; P = gcd(320, 32) = 32 -> 32 lanes. */
    {"gfx950 128x10x32: all reduction dims count", "128x10x32", "prr", "gfx950", 32, 32, 320,
     64, {1, 0, 0}, {0, 1, 32}, {0, 1, 1}, {1, 1, 32}, {1, 1, 1}, NULL},
    /* {32, 64}: 32 first; 4096 rows > 2048 -> cap 32; WG = gcd(1024, 32). */
    {"gfx1100 4096x4096: list order, wave32", "4096x4096", "pr", "gfx1100", 32, 32, 32, 32,
     {1, 0}, {0, 128}, {0, 4}, {1, 32}, {1, 1}, NULL},
    /* rx7900xtx has a chip: 48 x 4 = 192 < 1000 rows -> cap 32 too. */
    {"rx7900xtx 1000x512", "1000x512", "pr", "rx7900xtx", 32, 32, 32, 32,
     {1, 0}, {0, 128}, {0, 4}, {1, 32}, {1, 1}, NULL},
    /* 64-bit on AMD: TL = 128 / 64 = 2; 2048 % 64 = 0; WG 1024 (4 rows); P 2048 -> 16 sgs. */
    {"f64 on gfx942", "4x4096", "pr", "gfx942", 64, 64, 1024, 64,
     {1, 0}, {0, 2048}, {0, 2}, {1, 64}, {1, 16}, NULL},
    /* i4: TL = 32; 4096 / 32 = 128; WG 128; P = gcd(4096, 4096) -> 2 subgroups. */
    {"i4: 32 elements per load", "4x4096", "pr", "gfx942", 4, 4, 128, 64,
     {1, 0}, {0, 4096}, {0, 32}, {1, 64}, {1, 2}, NULL},
    /* f16 in, f32 out: the f16 input is the larger operand -> 16 bits, TL 8. */
    {"f16 -> f32: the largest operand's width", "4x4096", "pr", "gfx942", 16, 32, 512, 64,
     {1, 0}, {0, 4096}, {0, 8}, {1, 64}, {1, 8}, NULL},
    /* dynamic: rsize 2^31, TL stays 4, WG = gcd(2^29, 1024); P = gcd(4096, 2^31). */
    {"dynamic sizes", "?x?", "pr", "gfx942", 32, 32, 1024, 64,
     {1, 0}, {0, 4096}, {0, 4}, {1, 64}, {1, 16}, NULL},
    /* sm_80: one subgroup size, 32; 3000 rows > 2048 -> cap 32. */
    {"sm_80 3000x4096", "3000x4096", "pr", "sm_80", 32, 32, 32, 32,
     {1, 0}, {0, 128}, {0, 4}, {1, 32}, {1, 1}, NULL},
    /* Full reductions to a scalar: no parallel dims, so the parallel size is
     * 1: cap 1024; WG = 8192 / 4 = 2048 > 1024 -> gcd 1024; P = gcd(4096, 8192). */
    {"8192 -> scalar on gfx942", "8192", "r", "gfx942", 32, 32, 1024, 64,
     {0}, {4096}, {4}, {64}, {16}, NULL},
    /* The same with a unit outer reduction dim: it keeps tile 1 everywhere. */
    {"1x8192 -> scalar on sm_90", "1x8192", "rr", "sm_90", 32, 32, 1024, 32,
     {0, 0}, {1, 4096}, {1, 4}, {1, 32}, {1, 32}, NULL},
    /* Rejections. */
    {"no subgroup choice divides 48", "8x48", "pr", "gfx1100", 32, 32, 0, 0, {0}, {0}, {0}, {0},
     {0}, "no subgroup size choice of gfx1100 ([32, 64]) divides the reduction size 48"},
    {"f64 on NVIDIA", "4x4096", "pr", "sm_80", 64, 64, 0, 0, {0}, {0}, {0}, {0}, {0},
     "64-bit elements; sm_80 cannot shuffle more than 32 bits"},
    {"i24: not a power of two", "4x4096", "pr", "gfx942", 24, 24, 0, 0, {0}, {0}, {0}, {0}, {0},
     "24-bit elements; reduction distribution needs a power of two of at least 4 bits"},
    {"i1: below 4 bits", "4x4096", "pr", "gfx942", 1, 1, 0, 0, {0}, {0}, {0}, {0}, {0},
     "1-bit elements"},
};

static void flags_problem(const case_t *c, ls_problem *p)
{
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", c->what);
    snprintf(p->file, sizeof p->file, "case.mlir");
    p->line = 3;
    p->col = 5;
    p->dispatch = p->dispatch_op = -1;
    const char *s = c->shape;
    while (*s) {
        p->size[p->rank] = *s == '?' ? 0 : strtoll(s, NULL, 10);
        while (*s && *s != 'x')
            s++;
        if (*s == 'x')
            s++;
        p->rank++;
    }
    for (int i = 0; i < p->rank; i++) {
        p->is_reduction[i] = c->iter[i] == 'r';
        p->inputs[0].map[p->inputs[0].map_n++] = i;
        if (c->iter[i] == 'p')
            p->out_map[p->out_map_n++] = i;
    }
    p->n_inputs = 1;
    p->inputs[0].type = p->acc_type = LS_ET_F32;
}

START_TEST(table)
{
    const case_t *c = &cases[_i];
    ls_problem p;
    flags_problem(c, &p);
    ls_dispatch *d = ls_xcalloc(1, sizeof *d);
    ls_dispatch_from_problem(&p, c->in_bits, c->out_bits, d);
    ls_target t;
    ck_assert(ls_target_lookup(c->target, &t));
    ls_suggestion *s = ls_xcalloc(1, sizeof *s);
    ls_diag diag;
    ls_diag_clear(&diag);
    ls_status st = ls_suggest(d, &t, s, &diag);
    if (c->wg == 0) {
        ck_assert_msg(st == LS_ERR_INVALID, "%s: expected a rejection", c->what);
        ck_assert_msg(strstr(diag.msg, c->why) != NULL, "%s: message '%s'", c->what, diag.msg);
        ck_assert_str_eq(diag.file, "case.mlir");
        ck_assert_int_eq(diag.line, 3);
    } else {
        ck_assert_msg(st == LS_OK, "%s: %s", c->what, diag.msg);
        ck_assert_int_eq(s->workgroup_size, c->wg);
        ck_assert_int_eq(s->subgroup_size, c->sg);
        ck_assert_int_eq(s->n_configs, 1);
        const ls_op_config *oc = &s->configs[0];
        ck_assert(oc->has_workgroup && oc->is_reduction);
        for (int i = 0; i < p.rank; i++) {
            ck_assert_msg(oc->workgroup[i] == c->workgroup[i], "%s workgroup[%d]", c->what, i);
            ck_assert_msg(oc->tile[i] == c->partial[i], "%s partial[%d] = %lld", c->what, i,
                          (long long)oc->tile[i]);
            ck_assert_msg(oc->thread[i] == c->thread[i], "%s thread[%d]", c->what, i);
            ck_assert_msg(oc->lanes[i] == c->lanes[i], "%s lanes[%d]", c->what, i);
            ck_assert_msg(oc->subgroups[i] == c->subgroups[i], "%s subgroups[%d] = %lld",
                          c->what, i, (long long)oc->subgroups[i]);
        }
        /* A config the heuristic emits must pass lanescope's own validation
         * (static shapes only: the simulator needs them). */
        if (strchr(c->shape, '?') == NULL && c->in_bits == 32) {
            ls_suggest_apply(s, 0, &p);
            p.has_target = true;
            p.target = t;
            ls_diag_clear(&diag);
            ck_assert_msg(ls_problem_validate(&p, &diag) == LS_OK, "%s: %s", c->what, diag.msg);
        }
    }
    free(s);
    free(d);
}
END_TEST

START_TEST(printed_syntax)
{
    const case_t *c = &cases[0];
    ls_problem p;
    flags_problem(c, &p);
    ls_dispatch d;
    ls_dispatch_from_problem(&p, 32, 32, &d);
    ls_target t;
    ck_assert(ls_target_lookup("gfx942", &t));
    ls_suggestion s;
    ls_diag diag;
    ls_diag_clear(&diag);
    ck_assert_int_eq(ls_suggest(&d, &t, &s, &diag), LS_OK);
    char buf[1024];
    ls_op_config_format(&s.configs[0], buf, sizeof buf);
    /* Seed 004's config, keys sorted as IREE prints a dictionary. */
    ck_assert_str_eq(buf, "#iree_gpu.lowering_config<{lane_basis = [[1, 64], [0, 1]], "
                          "partial_reduction = [0, 64], subgroup_basis = [[1, 1], [0, 1]], "
                          "thread = [0, 1], workgroup = [1, 0]}>");
    ls_suggest_format_translation(&s, buf, sizeof buf);
    ck_assert_str_eq(buf, "#iree_codegen.translation_info<pipeline = "
                          "#iree_gpu.pipeline<VectorDistribute> workgroup_size = [64, 1, 1] "
                          "subgroup_size = 64, {gpu_pipeline_options = "
                          "#iree_gpu.pipeline_options<>}>");
    /* Both parse back as lanescope's own attributes. */
    ls_arena ar;
    ls_arena_init(&ar);
    ls_diag_clear(&diag);
    ls_attr *a = ls_parse_attr_string(buf, strlen(buf), "x", &ar, NULL, &diag);
    ls_translation_info ti;
    ck_assert(a != NULL);
    ck_assert_int_eq(ls_translation_info_from_attr(a, "x", &ti, &diag), LS_OK);
    ck_assert_int_eq(ti.workgroup_size[0], 64);
    ck_assert_int_eq(ti.subgroup_size, 64);
    ls_arena_fini(&ar);
}
END_TEST

/* ---------------------------------------------------------------- IR */

#define BIND "  %b = hal.interface.binding.subspan layout(#l) binding(0) : !x\n"

/* IREE's test_multiple_reduction (layer-norm statistics), stored. */
static const char *multi_op =
    "func.func @norm() {\n" BIND
    "  %c = arith.constant 1.638400e+05 : f32\n"
    "  %7 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, "
    "affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = [\"parallel\", "
    "\"parallel\", \"parallel\", \"parallel\"]} ins(%3 : tensor<2x32x10x16384xf16>) outs(%5 : "
    "tensor<2x32x10x16384xf32>) {\n"
    "  ^bb0(%in: f16, %out: f32):\n    %13 = arith.extf %in : f16 to f32\n    linalg.yield %13 : "
    "f32\n  } -> tensor<2x32x10x16384xf32>\n"
    "  %8 = linalg.fill ins(%cst : f32) outs(%6 : tensor<2x32xf32>) -> tensor<2x32xf32>\n"
    "  %9 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, "
    "affine_map<(d0, d1, d2, d3) -> (d0, d1)>], iterator_types = [\"parallel\", \"parallel\", "
    "\"reduction\", \"reduction\"]} ins(%7 : tensor<2x32x10x16384xf32>) outs(%8 : "
    "tensor<2x32xf32>) {\n"
    "  ^bb0(%in: f32, %out: f32):\n    %13 = arith.addf %in, %out : f32\n    linalg.yield %13 : "
    "f32\n  } -> tensor<2x32xf32>\n"
    "  %10 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, "
    "d1) -> (d0, d1)>], iterator_types = [\"parallel\", \"parallel\"]} ins(%9 : tensor<2x32xf32>) "
    "outs(%6 : tensor<2x32xf32>) {\n"
    "  ^bb0(%in: f32, %out: f32):\n    %13 = arith.divf %in, %c : f32\n    linalg.yield %13 : "
    "f32\n  } -> tensor<2x32xf32>\n"
    "  %11 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, "
    "affine_map<(d0, d1, d2, d3) -> (d0, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>], "
    "iterator_types = [\"parallel\", \"parallel\", \"reduction\", \"reduction\"]} ins(%7, %10 : "
    "tensor<2x32x10x16384xf32>, tensor<2x32xf32>) outs(%8 : tensor<2x32xf32>) {\n"
    "  ^bb0(%in: f32, %in_2: f32, %out: f32):\n    %13 = arith.subf %in, %in_2 : f32\n    %14 = "
    "arith.mulf %13, %13 : f32\n    %15 = arith.addf %14, %out : f32\n    linalg.yield %15 : "
    "f32\n  } -> tensor<2x32xf32>\n"
    "  %12 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, "
    "affine_map<(d0, d1, d2, d3) -> (d0, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>, "
    "affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = [\"parallel\", "
    "\"parallel\", \"parallel\", \"parallel\"]} ins(%4, %10, %11 : tensor<2x32x10x16384xf16>, "
    "tensor<2x32xf32>, tensor<2x32xf32>) outs(%5 : tensor<2x32x10x16384xf32>) {\n"
    "  ^bb0(%in: f16, %in_2: f32, %in_3: f32, %out: f32):\n    %16 = arith.extf %in : f16 to "
    "f32\n    %17 = arith.subf %16, %in_2 : f32\n    linalg.yield %17 : f32\n  } -> "
    "tensor<2x32x10x16384xf32>\n"
    "  iree_tensor_ext.dispatch.tensor.store %12, %2, offsets = [0, 0, 0, 0] : "
    "tensor<2x32x10x16384xf32> -> !x\n"
    "  return\n}\n";

static ls_status suggest_text(const char *text, const char *target, ls_suggestion *s,
                              ls_diag *diag, ls_module **mout)
{
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_diag_clear(diag);
    ck_assert_msg(ls_module_parse_ex(text, strlen(text), "t.mlir", LS_IMPORT_KEEP_UNSUPPORTED, m,
                                     diag) == LS_OK,
                  "%s", diag->msg);
    ck_assert_int_eq(m->n_dispatches, 1);
    ls_target t;
    ck_assert(ls_target_lookup(target, &t));
    ls_status st = ls_suggest(&m->dispatches[0], &t, s, diag);
    if (mout)
        *mout = m;
    else
        free(m);
    return st;
}

static void expect_config(const ls_op_config *c, const char *text)
{
    char buf[1024];
    ls_op_config_format(c, buf, sizeof buf);
    ck_assert_str_eq(buf, text);
}

START_TEST(multi_op_dispatch)
{
    ls_suggestion *s = ls_xcalloc(1, sizeof *s);
    ls_diag d;
    ls_module *m;
    ck_assert_msg(suggest_text(multi_op, "gfx942", s, &d, &m) == LS_OK, "%s", d.msg);
    const ls_dispatch *dp = &m->dispatches[0];
    ck_assert_int_eq(dp->n_ops, 6);
    ck_assert(dp->ops[0].is_bit_extend);
    ck_assert(dp->ops[1].is_fill);
    /* Root: the last reduction (%11); its widest operand is the f16 behind the extf. */
    ck_assert_int_eq(s->root, 4);
    ck_assert_int_eq(s->bitwidth, 16);
    ck_assert_int_eq(s->thread_loads, 8);
    ck_assert_int_eq(s->workgroup_size, 1024);
    /* Configs in IREE's order (consumers first): %12 serial, %11 root, %9. */
    ck_assert_int_eq(s->n_configs, 3);
    ck_assert_int_eq(s->configs[0].op, 5);
    expect_config(&s->configs[0],
                  "#iree_gpu.lowering_config<{lane_basis = [[1, 1, 1, 64], [0, 1, 2, 3]], serial = "
                  "[0, 0, 1, 8192], subgroup_basis = [[1, 1, 1, 16], [0, 1, 2, 3]], thread = [0, "
                  "0, 0, 8]}>");
    ck_assert_int_eq(s->configs[1].op, 4);
    expect_config(&s->configs[1],
                  "#iree_gpu.lowering_config<{lane_basis = [[1, 1, 1, 64], [0, 1, 2, 3]], "
                  "partial_reduction = [0, 0, 1, 8192], subgroup_basis = [[1, 1, 1, 16], [0, 1, 2, "
                  "3]], thread = [0, 0, 1, 8], workgroup = [1, 1, 0, 0]}>");
    ck_assert_int_eq(s->configs[2].op, 2);
    ck_assert(!s->configs[2].has_workgroup);
    /* The non-root reduction still gets the shared dims' tile for simulation. */
    ck_assert_int_eq(s->configs[2].wg_tile[0], 1);
    ck_assert_int_eq(s->configs[2].wg_tile[1], 1);
    ck_assert_int_eq(s->configs[2].wg_tile[2], 0);
    /* Both reductions simulate: the variance one reads two inputs. */
    ck_assert_int_eq(m->n_problems, 2);
    ck_assert_int_eq(m->n_unsupported, 0);
    ck_assert_int_eq(m->problems[0].dispatch_op, 2);
    ck_assert_int_eq(m->problems[1].dispatch_op, 4);
    ck_assert_int_eq(m->problems[1].n_inputs, 2);
    free(m);
    free(s);
}
END_TEST

static const char *matvec_tmpl =
    "func.func @mv() {\n" BIND
    "  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, "
    "d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]} "
    "ins(%a, %x : tensor<32000x4096xf16>, tensor<4096xf16>) outs(%y : tensor<32000xf16>) {\n"
    "  ^bb0(%in: f16, %in_0: f16, %out: f16):\n    %m = arith.mulf %in, %in_0 : f16\n    %s = "
    "arith.addf %m, %out : f16\n    linalg.yield %s : f16\n  } -> tensor<32000xf16>\n"
    "  iree_tensor_ext.dispatch.tensor.store %r, %o : tensor<32000xf16> -> !x\n  return\n}\n";

START_TEST(matvec_split_k)
{
    ls_suggestion *s = ls_xcalloc(1, sizeof *s);
    ls_diag d;
    ls_module *m;
    /* gfx942: 32000 > 2048 -> WG = gcd(512, 64) = 64; split-k: largest power of
     * two below 64 / 4 = 16 dividing 32000 is 8. */
    ck_assert_msg(suggest_text(matvec_tmpl, "gfx942", s, &d, &m) == LS_OK, "%s", d.msg);
    ck_assert(m->dispatches[0].ops[0].is_contraction);
    ck_assert_int_eq(s->workgroup_size, 64);
    expect_config(&s->configs[0],
                  "#iree_gpu.lowering_config<{lane_basis = [[1, 64], [0, 1]], partial_reduction = "
                  "[0, 512], subgroup_basis = [[1, 1], [0, 1]], thread = [0, 8], workgroup = [8, "
                  "0]}>");
    free(m);
    /* sm_80: no split-k (ROCm only); subgroup 32; WG = gcd(512, 32). */
    ck_assert_msg(suggest_text(matvec_tmpl, "sm_80", s, &d, NULL) == LS_OK, "%s", d.msg);
    ck_assert_int_eq(s->workgroup_size, 32);
    expect_config(&s->configs[0],
                  "#iree_gpu.lowering_config<{lane_basis = [[1, 32], [0, 1]], partial_reduction = "
                  "[0, 256], subgroup_basis = [[1, 1], [0, 1]], thread = [0, 8], workgroup = [1, "
                  "0]}>");
    free(s);
}
END_TEST

typedef struct {
    const char *what, *text, *why;
    int line;
} reject_case;

#define RED_GENERIC(OUTS, BODY)                                                                  \
    "  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, " OUTS            \
    "], iterator_types = [\"parallel\", \"reduction\"]} ins(%a : tensor<8x64xf32>) " BODY

static const reject_case rejects[] = {
    {"no store", "func.func @f() {\n" BIND RED_GENERIC(
         "affine_map<(d0, d1) -> (d0)>",
         "outs(%i : tensor<8xf32>) {\n  ^bb0(%in: f32, %out: f32):\n    %s = arith.addf %in, %out "
         ": f32\n    linalg.yield %s : f32\n  } -> tensor<8xf32>\n") "  return\n}\n",
     "@f stores nothing", 1},
    {"convolution",
     "func.func @c() {\n" BIND
     "  %r = linalg.conv_2d_nhwc_hwcf ins(%a, %w : tensor<1x16x16x4xf32>, tensor<3x3x4x8xf32>) "
     "outs(%o : tensor<1x14x14x8xf32>) -> tensor<1x14x14x8xf32>\n"
     "  iree_tensor_ext.dispatch.tensor.store %r, %x : tensor<1x14x14x8xf32> -> !x\n  return\n}\n",
     "is a convolution or pooling op", 3},
    {"two reduced inits",
     "func.func @two() {\n" BIND
     "  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
     "affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = "
     "[\"parallel\", \"reduction\"]} ins(%a : tensor<8x64xf32>) outs(%i, %j : tensor<8xf32>, "
     "tensor<8xf32>) {\n  ^bb0(%in: f32, %o1: f32, %o2: f32):\n    %s = arith.addf %in, %o1 : "
     "f32\n    %m = arith.maximumf %in, %o2 : f32\n    linalg.yield %s, %m : f32, f32\n  } -> "
     "(tensor<8xf32>, tensor<8xf32>)\n"
     "  iree_tensor_ext.dispatch.tensor.store %r#0, %x : tensor<8xf32> -> !x\n  return\n}\n",
     "more than one init is reduced", 3},
    {"combiner chain of two ops", "func.func @chain() {\n" BIND RED_GENERIC(
         "affine_map<(d0, d1) -> (d0)>",
         "outs(%i : tensor<8xf32>) {\n  ^bb0(%in: f32, %out: f32):\n    %s = arith.addf %in, %out "
         ": f32\n    %t = arith.mulf %s, %c : f32\n    linalg.yield %t : f32\n  } -> "
         "tensor<8xf32>\n") "  iree_tensor_ext.dispatch.tensor.store %r, %x : tensor<8xf32> -> "
                            "!x\n  return\n}\n",
     "init %i is not reduced by a single combining op, and its indexing map is not the identity", 3},
    {"reduction feeding a reduced operand",
     "func.func @feed() {\n" BIND RED_GENERIC(
         "affine_map<(d0, d1) -> (d0, d1)>",
         "outs(%i : tensor<8x64xf32>) {\n  ^bb0(%in: f32, %out: f32):\n    %s = arith.addf %in, "
         "%out : f32\n    linalg.yield %s : f32\n  } -> tensor<8x64xf32>\n")
     "  %q = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, "
     "d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]} ins(%r : tensor<8x64xf32>) "
     "outs(%j : tensor<8xf32>) {\n  ^bb0(%in: f32, %out: f32):\n    %s = arith.addf %in, %out : "
     "f32\n    linalg.yield %s : f32\n  } -> tensor<8xf32>\n"
     "  iree_tensor_ext.dispatch.tensor.store %q, %x : tensor<8xf32> -> !x\n  return\n}\n",
     "is reduced here and is itself the result of a reduction", 8},
    {"a real matmul",
     "func.func @mm() {\n" BIND
     "  %r = linalg.matmul ins(%a, %b : tensor<256x128xf32>, tensor<128x512xf32>) outs(%c : "
     "tensor<256x512xf32>) -> tensor<256x512xf32>\n"
     "  iree_tensor_ext.dispatch.tensor.store %r, %x : tensor<256x512xf32> -> !x\n  return\n}\n",
     "contraction with M = 256 and N = 512", 3},
    {"an outer reduction of index elements",
     "func.func @ix() {\n" BIND
     "  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, "
     "d1) -> (d1)>], iterator_types = [\"reduction\", \"parallel\"]} ins(%a : "
     "tensor<512x64xindex>) outs(%i : tensor<64xindex>) {\n  ^bb0(%in: index, %out: index):\n    "
     "%s = arith.addi %in, %out : index\n    linalg.yield %s : index\n  } -> tensor<64xindex>\n"
     "  iree_tensor_ext.dispatch.tensor.store %r, %x : tensor<64xindex> -> !x\n  return\n}\n",
     "IREE picks TileAndFuse for this outer reduction (%a's first dim d0 is reduced; "
     "setRootConfig, LLVMGPU/KernelConfig.cpp); lanescope cannot size %a's element type", 3},
};

START_TEST(rejections)
{
    const reject_case *c = &rejects[_i];
    ls_suggestion *s = ls_xcalloc(1, sizeof *s);
    ls_diag d;
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_diag_clear(&d);
    ck_assert_msg(ls_module_parse_ex(c->text, strlen(c->text), "r.mlir",
                                     LS_IMPORT_KEEP_UNSUPPORTED, m, &d) == LS_OK,
                  "%s: %s", c->what, d.msg);
    ck_assert_int_eq(m->n_dispatches, 1);
    ls_target t;
    ck_assert(ls_target_lookup("gfx942", &t));
    ls_status st = ls_suggest(&m->dispatches[0], &t, s, &d);
    ck_assert_msg(st == LS_ERR_INVALID, "%s: accepted", c->what);
    ck_assert_msg(strstr(d.msg, "IREE's reduction heuristic rejects this dispatch") != NULL,
                  "%s: %s", c->what, d.msg);
    ck_assert_msg(strstr(d.msg, c->why) != NULL, "%s: %s", c->what, d.msg);
    ck_assert_str_eq(d.file, "r.mlir");
    ck_assert_msg(d.line == c->line, "%s: line %d", c->what, d.line);
    free(m);
    free(s);
}
END_TEST

/* A split-reduction scf.forall: accepted with IREE's mapping, rejected without. */
static const char *forall_text =
    "func.func @fa() {\n" BIND
    "  %f = scf.forall (%i) in (4) shared_outs(%o = %e) -> (tensor<8xf32>) {\n" RED_GENERIC(
        "affine_map<(d0, d1) -> (d0)>",
        "outs(%i : tensor<8xf32>) {\n  ^bb0(%in: f32, %out: f32):\n    %s = arith.addf %in, %out "
        ": f32\n    linalg.yield %s : f32\n  } -> tensor<8xf32>\n")
    "    scf.forall.in_parallel {\n      tensor.parallel_insert_slice %r into %o[0] [8] [1] : "
    "tensor<8xf32> into tensor<8xf32>\n    }\n  } MAPPING\n  return\n}\n";

START_TEST(split_reduction_forall)
{
    char text[4096];
    const char *at = strstr(forall_text, "MAPPING");
    ls_suggestion *s = ls_xcalloc(1, sizeof *s);
    ls_diag d;
    ls_target t;
    ck_assert(ls_target_lookup("gfx942", &t));
    for (int with = 0; with < 2; with++) {
        snprintf(text, sizeof text, "%.*s%s%s", (int)(at - forall_text), forall_text,
                 with ? "{mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}"
                      : "{mapping = [#gpu.thread<x>]}",
                 at + strlen("MAPPING"));
        ls_module *m = ls_xcalloc(1, sizeof *m);
        ls_diag_clear(&d);
        ck_assert_msg(ls_module_parse_ex(text, strlen(text), "f.mlir", LS_IMPORT_KEEP_UNSUPPORTED,
                                         m, &d) == LS_OK,
                      "%s", d.msg);
        ck_assert(m->dispatches[0].ops[0].in_forall);
        ls_status st = ls_suggest(&m->dispatches[0], &t, s, &d);
        if (with) {
            ck_assert_msg(st == LS_OK, "%s", d.msg);
            ck_assert_int_eq(s->workgroup_size, 64);
        } else {
            ck_assert_int_eq(st, LS_ERR_INVALID);
            ck_assert(strstr(d.msg, "split_reduction_mapping") != NULL);
            ck_assert_int_eq(d.line, 3);
        }
        free(m);
    }
    free(s);
}
END_TEST

/* ------------------------------------------------ outer reductions */

/* IREE's setRootConfig (LLVMGPU/KernelConfig.cpp) gives an outer reduction
 * (an input indexed by a permutation whose first dim is reduced)
 * TileAndFuse before the reduction heuristic; its config follows
 * ConfigUtils.cpp setTileAndFuseLoweringConfig.  Shapes after IREE's
 * config_tile_and_fuse_outer_reduction.mlir, plus variants. */
#define OUTER_GENERIC(MAP, ITER, IN_T, OUT_T, ELEM)                                               \
    "func.func @outer() {\n" BIND                                                                 \
    "  %f = linalg.fill ins(%cst : " ELEM ") outs(%e : " OUT_T ") -> " OUT_T "\n"                   \
    "  %r = linalg.generic {indexing_maps = [" MAP "], iterator_types = [" ITER "]} ins(%in : "   \
    IN_T ") outs(%f : " OUT_T ") {\n  ^bb0(%a: " ELEM ", %b: " ELEM ")" ":\n    %s = arith.addf "  \
    "%a, %b : " ELEM "\n    linalg.yield %s : " ELEM "\n  } -> " OUT_T "\n"                        \
    "  iree_tensor_ext.dispatch.tensor.store %r, %o : " OUT_T " -> !x\n  return\n}\n"

#define OUTER_REDUCE(IN_T, OUT_T)                                                                 \
    "func.func @outer() {\n" BIND                                                                 \
    "  %f = linalg.fill ins(%cst : f32) outs(%e : " OUT_T ") -> " OUT_T "\n"                        \
    "  %r = linalg.reduce ins(%in : " IN_T ") outs(%f : " OUT_T ") dimensions = [0]\n"            \
    "    (%a: f32, %b: f32) {\n      %s = arith.addf %a, %b : f32\n      linalg.yield %s : "     \
    "f32\n    }\n"                                                                                \
    "  iree_tensor_ext.dispatch.tensor.store %r, %o : " OUT_T " -> !x\n  return\n}\n"

#define TRANSPOSED "affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>"
#define PAR_RED "\"parallel\", \"reduction\""

typedef struct {
    const char *what, *text, *target;
    const char *in; /* the input whose first dim is reduced, and that dim */
    int dim;
    int64_t wg, sg;
    const char *config;
    /* `sim` runs the TileAndFuse program (layout_tilefuse.c): loop trips,
     * and input loads of `width` elements per thread per trip, by hand
     * (the thread tile along the input's contiguous dim is one vector; the
     * reduction tile along another dim, one load a row); 0: dynamic */
    int64_t iters, loads, width;
} outer_case;

static const outer_case outers[] = {
    /* IREE's case: 16384 rows in d0, 64 threads x vector 4 = 256 per
     * workgroup (64 workgroups, so no shrinking); d1 = 512 tiled by 4. */
    {"IREE's outer_reduction, gfx942",
     OUTER_GENERIC(TRANSPOSED, PAR_RED, "tensor<512x16384xf32>", "tensor<16384xf32>", "f32"),
     "gfx942", "%in", 1, 64, 64,
     "#iree_gpu.lowering_config<{reduction = [0, 4], thread = [4, 0], workgroup = [256, 0]}>",
     512 / 4, 4, 4},
    /* Wave32 first: 32 threads x 4 = 128 per workgroup. */
    {"the same on gfx1100",
     OUTER_GENERIC(TRANSPOSED, PAR_RED, "tensor<512x16384xf32>", "tensor<16384xf32>", "f32"),
     "gfx1100", "%in", 1, 32, 32,
     "#iree_gpu.lowering_config<{reduction = [0, 4], thread = [4, 0], workgroup = [128, 0]}>",
     512 / 4, 4, 4},
    /* linalg.reduce over dim 0: the loops keep the tensor's order. */
    {"linalg.reduce dimensions = [0]",
     OUTER_REDUCE("tensor<512x16384xf32>", "tensor<16384xf32>"), "gfx942", "%in", 0, 64, 64,
     "#iree_gpu.lowering_config<{reduction = [4, 0], thread = [0, 4], workgroup = [0, 256]}>",
     512 / 4, 4, 4},
    /* f16 (vector 8 shrunk to 4: 8 x 64 > 80); d2 = 80: 16 per workgroup, 4
     * per thread -> 4 threads, 16 left for d1 = 96 (16, no vectors); d0 = 10
     * tiled by its smallest prime factor 2. */
    {"f16, two parallel loops, mi300x",
     OUTER_GENERIC("affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1, "
                   "d2)>",
                   "\"reduction\", \"parallel\", \"parallel\"", "tensor<10x96x80xf16>",
                   "tensor<96x80xf16>", "f16"),
     "mi300x", "%in", 0, 64, 64,
     "#iree_gpu.lowering_config<{reduction = [2, 0, 0], thread = [0, 1, 4], workgroup = [0, 16, "
     "16]}>",
     10 / 2, 2, 4},
    /* 5000 has no power-of-two factor above 8: no lossless split of 64
     * threads, so the loss factor falls to 1 (64 threads, 8 idle in the last
     * tile); d0 = 3 tiled by 3. */
    {"3x5000: idle threads allowed",
     OUTER_REDUCE("tensor<3x5000xf32>", "tensor<5000xf32>"), "gfx942", "%in", 0, 64, 64,
     "#iree_gpu.lowering_config<{reduction = [3, 0], thread = [0, 1], workgroup = [0, 64]}>",
     1, 3, 1},
    /* All parallel loops dynamic: one subgroup over the last, masked. */
    {"dynamic sizes",
     OUTER_GENERIC(TRANSPOSED, PAR_RED, "tensor<?x?xf32>", "tensor<?xf32>", "f32"), "gfx942",
     "%in", 1, 64, 64,
     "#iree_gpu.lowering_config<{reduction = [0, 4], thread = [1, 0], workgroup = [64, 0]}>",
     0, 0, 0},
};

/* IREE's TileAndFuse config of suggestion s applied to problem 0 of m on
 * target, derived (through its VectorDistribute view) and planned. */
static ls_derived *tf_plan(const ls_suggestion *s, ls_module *m, const char *target,
                           ls_plan *plan)
{
    ls_problem *p = &m->problems[0];
    ck_assert(ls_target_lookup(target, &p->target));
    p->has_target = true;
    ls_suggest_apply_tile_and_fuse(s, p);
    ls_derived *dv = ls_xcalloc(1, sizeof *dv);
    ls_diag d;
    ls_diag_clear(&d);
    ck_assert_msg(ls_derive(p, dv, &d) == LS_OK, "%s", d.msg);
    ck_assert(dv->tile_and_fuse);
    ck_assert_msg(ls_plan_build(p, dv, ls_plan_target_from_arch(p->target.arch), plan, &d) ==
                      LS_OK,
                  "%s", d.msg);
    ck_assert_int_eq(plan->n_subgroup_reduces, 0); /* each thread alone */
    ck_assert(!plan->cross_subgroup);
    return dv;
}

START_TEST(outer_reduction_tile_and_fuse)
{
    const outer_case *c = &outers[_i];
    ls_suggestion *s = ls_xcalloc(1, sizeof *s);
    ls_diag d;
    ck_assert_msg(suggest_text(c->text, c->target, s, &d, NULL) == LS_ERR_INVALID,
                  "%s: accepted", c->what);
    char want[1024];
    snprintf(want, sizeof want,
             "IREE's reduction heuristic rejects this dispatch: IREE picks TileAndFuse for this "
             "outer reduction (%s's first dim d%d is reduced; setRootConfig, "
             "LLVMGPU/KernelConfig.cpp): #iree_codegen.translation_info<pipeline = "
             "#iree_gpu.pipeline<TileAndFuse> workgroup_size = [%lld, 1, 1] subgroup_size = "
             "%lld> %s",
             c->in, c->dim, (long long)c->wg, (long long)c->sg, c->config);
    ck_assert_str_eq(d.msg, want);
    ck_assert_int_eq(d.line, 4); /* the reduction, not the function */
    /* No VectorDistribute config is proposed. */
    ck_assert_int_eq(s->n_configs, 0);
    ck_assert(s->tile_and_fuse);
    if (c->iters > 0) { /* and the TileAndFuse program runs, checked */
        ls_module *m;
        suggest_text(c->text, c->target, s, &d, &m);
        ck_assert_int_ge(m->n_problems, 1);
        ls_plan plan;
        ls_derived *dv = tf_plan(s, m, c->target, &plan);
        ck_assert_int_eq(dv->workgroup_size, c->wg);
        ck_assert_int_eq(plan.iterations, c->iters);
        ck_assert_int_eq(plan.inputs[0].loads, c->loads);
        ck_assert_int_eq(plan.inputs[0].width, c->width);
        ls_functional_result fr;
        ck_assert_msg(ls_functional_run(&plan, (ls_input_source){3, NULL, {NULL}}, 0, 2, &fr,
                                        &d) == LS_OK,
                      "%s: %s", c->what, d.msg);
        ck_assert_int_gt(fr.outputs_checked, 0);
        free(dv);
        free(m);
    }
    free(s);
}
END_TEST

/* IREE's small_reduction (reduction_pipeline_cuda.mlir, sm_60): rows of 13
 * that no subgroup size divides, so setReductionConfig refuses and
 * setRootConfig gives the generic TileAndFuse.  IREE's CHECK lines read
 * vector<4x13xf32> per thread and reduce it to vector<4xf32>: 4 rows a thread
 * (thread = [4, 0]), the 13 whole (reduction = [0, 13]); 32 threads x 4 =
 * 128 rows a workgroup, 1024 / 128 = 8 workgroups.  sim runs it. */
START_TEST(refused_reduction_gets_tile_and_fuse)
{
    static const char *text =
        OUTER_GENERIC("affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>", PAR_RED,
                      "tensor<1024x13xf32>", "tensor<1024xf32>", "f32");
    ls_suggestion *s = ls_xcalloc(1, sizeof *s);
    ls_diag d;
    ls_module *m;
    ck_assert(suggest_text(text, "sm_60", s, &d, &m) == LS_ERR_INVALID);
    ck_assert_str_eq(d.msg,
                     "IREE's reduction heuristic rejects this dispatch: no subgroup size choice of "
                     "sm_60 ([32]) divides the reduction size 13; IREE then gives it TileAndFuse "
                     "(setTileAndFuseLoweringConfig, Dialect/GPU/TargetUtils/ConfigUtils.cpp): "
                     "#iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> "
                     "workgroup_size = [32, 1, 1] subgroup_size = 32> "
                     "#iree_gpu.lowering_config<{reduction = [0, 13], thread = [4, 0], workgroup "
                     "= [128, 0]}>");
    ck_assert(s->tile_and_fuse);
    ls_plan plan;
    ls_derived *dv = tf_plan(s, m, "sm_60", &plan);
    ck_assert_int_eq(dv->total_workgroups, 8);
    ck_assert_int_eq(plan.iterations, 1);
    ck_assert_int_eq(plan.inputs[0].width, 4 * 13); /* the thread's 4 x 13, one run */
    ck_assert_int_eq(plan.results_per_thread, 4);
    ls_functional_result fr;
    ck_assert(ls_functional_run(&plan, (ls_input_source){5, NULL, {NULL}}, 0, 8, &fr, &d) ==
              LS_OK);
    ck_assert_int_eq(fr.outputs_checked, 1024);
    free(dv);
    free(m);
    free(s);
}
END_TEST

/* IREE's reduction_f64_sm80_no_vector_distribute: 64-bit values cannot be
 * shuffled on NVIDIA, so the heuristic refuses and TileAndFuse takes it --
 * whose threads never shuffle, so the plan builds where VectorDistribute's
 * would be refused. */
START_TEST(f64_on_nvidia_runs_tile_and_fuse)
{
    static const char *text =
        OUTER_GENERIC("affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>", PAR_RED,
                      "tensor<8x4096xf64>", "tensor<8xf64>", "f64");
    ls_suggestion *s = ls_xcalloc(1, sizeof *s);
    ls_diag d;
    ls_module *m;
    ck_assert(suggest_text(text, "sm_80", s, &d, &m) == LS_ERR_INVALID);
    ck_assert_msg(strstr(d.msg, "sm_80 cannot shuffle more than 32 bits") != NULL, "%s", d.msg);
    ck_assert_msg(strstr(d.msg, "IREE then gives it TileAndFuse") != NULL, "%s", d.msg);
    ck_assert(s->tile_and_fuse);
    ls_plan plan;
    ls_derived *dv = tf_plan(s, m, "sm_80", &plan);
    ls_functional_result fr;
    ck_assert(ls_functional_run(&plan, (ls_input_source){5, NULL, {NULL}}, 0,
                                dv->total_workgroups, &fr, &d) == LS_OK);
    ck_assert_int_eq(fr.outputs_checked, 8);
    free(dv);
    free(m);
    free(s);
}
END_TEST

/* IREE's inner_reduction: 16384 rows of 512, reduced innermost -- not an
 * outer reduction, so the reduction heuristic keeps it: 16384 > 512 x 4
 * rows -> cap 64; WG = gcd(512 / 4, 64) = 64; partial = gcd(256, 512). */
START_TEST(inner_reduction_keeps_vector_distribute)
{
    static const char *text =
        OUTER_GENERIC("affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>", PAR_RED,
                      "tensor<16384x512xf32>", "tensor<16384xf32>", "f32");
    ls_suggestion *s = ls_xcalloc(1, sizeof *s);
    ls_diag d;
    ck_assert_msg(suggest_text(text, "gfx942", s, &d, NULL) == LS_OK, "%s", d.msg);
    char buf[1024];
    ls_suggest_format_translation(s, buf, sizeof buf);
    ck_assert_str_eq(buf, "#iree_codegen.translation_info<pipeline = "
                          "#iree_gpu.pipeline<VectorDistribute> workgroup_size = [64, 1, 1] "
                          "subgroup_size = 64, {gpu_pipeline_options = "
                          "#iree_gpu.pipeline_options<>}>");
    ck_assert_int_eq(s->n_configs, 1);
    expect_config(&s->configs[0],
                  "#iree_gpu.lowering_config<{lane_basis = [[1, 64], [0, 1]], partial_reduction = "
                  "[0, 256], subgroup_basis = [[1, 1], [0, 1]], thread = [0, 4], workgroup = [1, "
                  "0]}>");
    for (int i = 0; i < s->n_steps; i++)
        ck_assert_msg(strstr(s->steps[i], "TileAndFuse") == NULL, "step: %s", s->steps[i]);
    free(s);
}
END_TEST

/* A full reduction is an outer one too (its only dim is reduced), but with
 * no parallel loop TileAndFuse declines and the reduction heuristic runs. */
START_TEST(full_reduction_declines_tile_and_fuse)
{
    static const char *text = OUTER_REDUCE("tensor<8192xf32>", "tensor<f32>");
    ls_suggestion *s = ls_xcalloc(1, sizeof *s);
    ls_diag d;
    ck_assert_msg(suggest_text(text, "gfx942", s, &d, NULL) == LS_OK, "%s", d.msg);
    ck_assert_int_eq(s->workgroup_size, 1024);
    ck_assert_int_eq(s->n_configs, 1);
    ck_assert(s->configs[0].is_reduction);
    bool declined = false;
    for (int i = 0; i < s->n_steps; i++)
        declined |= strstr(s->steps[i], "TileAndFuse declines it") != NULL;
    ck_assert(declined);
    free(s);
}
END_TEST

/* ---------------------------------------------------------------- sweep */

/* arg_compare (docs/arg-compare-lowering.md §1): a dispatch with stores
 * goes to the reduction heuristic with no single-combiner gate, the bit
 * width of the values (or the wider of values and explicit indices); a
 * plain function, or one the heuristic refuses, to setArgCompareConfig's
 * TileAndFuse.  Configs worked by hand; the TileAndFuse ones are the CHECK
 * lines of IREE's LLVMGPU/test/ROCDL/config_argcompare.mlir. */
#define ARGCMP(in_t, out_v, out_i, cmp, dim, elem, stores)                       \
    "func.func @f(%in: " in_t ", %ov: " out_v ", %oi: " out_i ") {\n"                   \
    "  %c0 = arith.constant 0 : index\n"                                                        \
    "  %b = hal.interface.binding.subspan layout(#l) binding(0) offset(%c0) : "                 \
    "!iree_tensor_ext.dispatch.tensor<writeonly:" out_i ">\n"                                   \
    "  %r:2 = iree_linalg_ext.arg_compare dimension(" dim ") ins(%in : " in_t                     \
    ") outs(%ov, %oi : " out_v ", " out_i ") {\n"                                               \
    "  ^bb0(%a: " elem ", %x: " elem "):\n"                                                      \
    "    %c = " cmp ", %a, %x : " elem "\n"                                                     \
    "    iree_linalg_ext.yield %c : i1\n"                                                       \
    "  } -> " out_v ", " out_i "\n" stores "  return\n}\n"
#define STORE(t) "  iree_tensor_ext.dispatch.tensor.store %r#1, %b, offsets = [], sizes = [], " \
                 "strides = [] : " t " -> !iree_tensor_ext.dispatch.tensor<writeonly:" t ">\n"

typedef struct {
    const char *what, *text, *target;
    const char *want; /* the config, or for TileAndFuse the message's attributes */
    bool tile_and_fuse;
} argcmp_case;

static const argcmp_case argcmps[] = {
    /* 4096 f32 -> 4 per load, 1024 threads (16 subgroups), chunk 4096 */
    {"1-d to a scalar",
     ARGCMP("tensor<4096xf32>", "tensor<f32>", "tensor<i32>", "arith.cmpf ogt", "0",
            "f32", STORE("tensor<i32>")),
     "gfx942",
     "#iree_gpu.lowering_config<{lane_basis = [[64], [0]], partial_reduction = [4096], "
     "subgroup_basis = [[16], [0]], thread = [4], workgroup = [0]}>",
     false},
    /* f16: 8 per load, 2048 / 8 = 256 threads */
    {"8x2048 f16",
     ARGCMP("tensor<8x2048xf16>", "tensor<8xf16>", "tensor<8xi32>", "arith.cmpf ogt",
            "1", "f16", STORE("tensor<8xi32>")),
     "gfx942",
     "#iree_gpu.lowering_config<{lane_basis = [[1, 64], [0, 1]], partial_reduction = [0, 2048], "
     "subgroup_basis = [[1, 4], [0, 1]], thread = [0, 8], workgroup = [1, 0]}>",
     false},
    /* f16 values with explicit i32 indices of the same shape: 32 bits, 4 per
     * load, 512 threads */
    {"explicit i32 indices widen the bit width",
     "func.func @f(%in: tensor<8x2048xf16>, %idx: tensor<8x2048xi32>, %ov: tensor<8xf16>, "
     "%oi: tensor<8xi32>) {\n"
     "  %c0 = arith.constant 0 : index\n"
     "  %b = hal.interface.binding.subspan layout(#l) binding(0) offset(%c0) : "
     "!iree_tensor_ext.dispatch.tensor<writeonly:tensor<8xi32>>\n"
     "  %r:2 = iree_linalg_ext.arg_compare dimension(1) ins(%in, %idx : tensor<8x2048xf16>, "
     "tensor<8x2048xi32>) outs(%ov, %oi : tensor<8xf16>, tensor<8xi32>) {\n"
     "  ^bb0(%a: f16, %x: f16):\n"
     "    %c = arith.cmpf ogt, %a, %x : f16\n"
     "    iree_linalg_ext.yield %c : i1\n"
     "  } -> tensor<8xf16>, tensor<8xi32>\n" STORE("tensor<8xi32>") "  return\n}\n",
     "gfx942",
     "#iree_gpu.lowering_config<{lane_basis = [[1, 64], [0, 1]], partial_reduction = [0, 2048], "
     "subgroup_basis = [[1, 8], [0, 1]], thread = [0, 4], workgroup = [1, 0]}>",
     false},
    /* i64 on gfx942 (AMD shuffles 64 bits): 2 per load, 2048 threads capped
     * to gcd(2048, 1024) = 1024, chunk gcd(2048, 4096) = 2048 */
    {"1-d i64 on gfx942",
     ARGCMP("tensor<4096xi64>", "tensor<i64>", "tensor<i32>", "arith.cmpi sgt", "0",
            "i64", STORE("tensor<i32>")),
     "gfx942",
     "#iree_gpu.lowering_config<{lane_basis = [[64], [0]], partial_reduction = [2048], "
     "subgroup_basis = [[16], [0]], thread = [2], workgroup = [0]}>",
     false},
    /* config_argcompare.mlir's TileAndFuse cases (plain functions: no
     * dispatch store) */
    {"2x3x4 d0: d2 = 4 and d1 = 3 do not divide 128 / 4",
     ARGCMP("tensor<2x3x4xf32>", "tensor<3x4xf32>", "tensor<3x4xi64>", "arith.cmpf ogt",
            "0", "f32", ""),
     "gfx942",
     "workgroup_size = [64, 1, 1] subgroup_size = 64> #iree_gpu.lowering_config<{thread = [0, 1, "
     "1], workgroup = [0, 1, 4]}>",
     true},
    {"8x100 d1",
     ARGCMP("tensor<8x100xf32>", "tensor<8xf32>", "tensor<8xi32>", "arith.cmpf ogt", "1",
            "f32", ""),
     "gfx942",
     "workgroup_size = [64, 1, 1] subgroup_size = 64> #iree_gpu.lowering_config<{thread = [1, "
     "0], workgroup = [8, 0]}>",
     true},
    {"5 to a scalar: one thread",
     ARGCMP("tensor<5xf32>", "tensor<f32>", "tensor<i32>", "arith.cmpf ogt", "0", "f32",
            ""),
     "gfx942",
     "workgroup_size = [1, 1, 1] subgroup_size = 64> #iree_gpu.lowering_config<{thread = [0], "
     "workgroup = [0]}>",
     true},
    /* with a store, but f64 on sm_80 cannot shuffle: the heuristic refuses,
     * TileAndFuse takes it; 128 threads, 16 rows packed, 32 = one subgroup */
    {"f64 on sm_80",
     ARGCMP("tensor<16x256xf64>", "tensor<16xf64>", "tensor<16xi32>", "arith.cmpf ogt",
            "1", "f64", STORE("tensor<16xi32>")),
     "sm_80",
     "workgroup_size = [32, 1, 1] subgroup_size = 32> #iree_gpu.lowering_config<{thread = [1, "
     "0], workgroup = [16, 0]}>",
     true},
};

START_TEST(arg_compare_configs)
{
    const argcmp_case *c = &argcmps[_i];
    ls_suggestion *s = ls_xcalloc(1, sizeof *s);
    ls_diag d;
    ls_module *m;
    ls_status st = suggest_text(c->text, c->target, s, &d, &m);
    if (c->tile_and_fuse) {
        ck_assert_msg(st == LS_ERR_INVALID, "%s: accepted", c->what);
        ck_assert_msg(strstr(d.msg, "IREE picks TileAndFuse for this arg_compare") != NULL &&
                          strstr(d.msg, c->want) != NULL,
                      "%s: %s", c->what, d.msg);
        ck_assert_int_eq(s->n_configs, 0);
    } else {
        ck_assert_msg(st == LS_OK, "%s: %s", c->what, d.msg);
        const ls_op_config *cfg = ls_suggest_config_of(s, 0);
        ck_assert_msg(cfg != NULL, "%s", c->what);
        expect_config(cfg, c->want);
        /* the suggested config lowers and simulates */
        ls_problem *p = &m->problems[0];
        ck_assert(p->argcmp.on);
    }
    free(m);
    free(s);
}
END_TEST

START_TEST(sweep_enumerates_and_ranks)
{
    const case_t c = {"sweep", "64x256", "pr", "gfx942", 32, 32, 0, 0, {0}, {0}, {0}, {0},
                      {0}, NULL};
    ls_problem p;
    flags_problem(&c, &p);
    ls_target t;
    ck_assert(ls_target_lookup("mi300x", &t));
    p.has_target = true;
    p.target = t;
    ls_hw hw;
    ls_diag d;
    ls_diag_clear(&d);
    ck_assert_msg(ls_hw_load("mi300x", &hw, &d) == LS_OK, "%s", d.msg);
    ls_sweep sw;
    ck_assert_msg(ls_sweep_enumerate(&p, NULL, &t, 100000, &sw, &d) == LS_OK, "%s", d.msg);
    ck_assert(sw.n == sw.enumerated && sw.n > 50);
    /* Every point is distinct, valid and within the workgroup limit; IREE's
     * choice (WG 64, partial 256, thread 4) is flagged exactly once. */
    int iree = 0;
    for (size_t i = 0; i < sw.n; i++) {
        const ls_sweep_point *a = &sw.points[i];
        ck_assert(a->workgroup_size <= 1024 && a->lanes_red * a->lanes_par == 64);
        ck_assert(256 % a->partial == 0 && a->partial % (a->lanes_red * a->thread) == 0);
        iree += a->is_iree;
        for (size_t j = i + 1; j < sw.n && j < i + 40; j++) {
            const ls_sweep_point *b = &sw.points[j];
            ck_assert(!(a->thread == b->thread && a->lanes_red == b->lanes_red &&
                        a->subgroups == b->subgroups && a->partial == b->partial &&
                        a->rows == b->rows && a->subgroup_size == b->subgroup_size));
        }
    }
    ck_assert_int_eq(iree, 1);
    const ls_sweep_point *ip = &sw.points[sw.iree];
    ck_assert(ip->is_iree && ip->workgroup_size == 64 && ip->partial == 256 && ip->thread == 4);
    /* Run a subset: ranking is by cycles, and -j does not change results. */
    ls_sweep small;
    ck_assert(ls_sweep_enumerate(&p, NULL, &t, 24, &small, &d) == LS_OK);
    ck_assert_int_eq(small.n, 24);
    ck_assert(small.points[small.iree].is_iree);
    ck_assert_msg(ls_sweep_run(&p, &hw, &small, 1, NULL, NULL, &d) == LS_OK, "%s", d.msg);
    int64_t cycles1[24];
    for (int i = 0; i < 24; i++)
        cycles1[i] = small.points[i].cycles;
    ck_assert(ls_sweep_run(&p, &hw, &small, 3, NULL, NULL, &d) == LS_OK);
    for (int i = 0; i < 24; i++)
        ck_assert_int_eq(small.points[i].cycles, cycles1[i]);
    size_t order[24];
    size_t rank = ls_sweep_rank(&small, order);
    ck_assert(rank >= 1 && rank <= 24);
    ck_assert(small.points[order[rank - 1]].is_iree);
    for (int i = 1; i < 24; i++)
        ck_assert(small.points[order[i - 1]].cycles <= small.points[order[i]].cycles);
    /* The roofline: 64x256 f32 in, 64 f32 out. */
    ck_assert_int_eq(ls_sweep_min_bytes(&p), 64 * 256 * 4 + 64 * 4);
    ls_sweep_free(&small);
    ls_sweep_free(&sw);
}
END_TEST

/* Where IREE's choice is TileAndFuse (an outer reduction), the sweep ranks
 * that config among the VectorDistribute ones. */
START_TEST(sweep_ranks_tile_and_fuse_choice)
{
    static const char *text =
        OUTER_GENERIC(TRANSPOSED, PAR_RED, "tensor<64x4096xf32>", "tensor<4096xf32>", "f32");
    ls_suggestion *s = ls_xcalloc(1, sizeof *s);
    ls_diag d;
    ls_module *m;
    ck_assert(suggest_text(text, "gfx942", s, &d, &m) == LS_ERR_INVALID && s->tile_and_fuse);
    ls_problem *p = &m->problems[0];
    ck_assert(ls_target_lookup("gfx942", &p->target));
    p->has_target = true;
    ls_hw hw;
    ls_diag_clear(&d);
    ck_assert_msg(ls_hw_load("mi300x", &hw, &d) == LS_OK, "%s", d.msg);
    ls_sweep sw;
    ck_assert_msg(ls_sweep_enumerate(p, &m->dispatches[0], &p->target, 8, &sw, &d) == LS_OK, "%s",
                  d.msg);
    ck_assert(!sw.iree_rejected);
    int iree = 0, tf = 0;
    for (size_t i = 0; i < sw.n; i++) {
        iree += sw.points[i].is_iree;
        tf += sw.points[i].tile_and_fuse;
    }
    ck_assert_int_eq(iree, 1);
    ck_assert_int_eq(tf, 1);
    ck_assert(sw.points[sw.iree].tile_and_fuse);
    ck_assert_msg(ls_sweep_run(p, &hw, &sw, 2, NULL, NULL, &d) == LS_OK, "%s", d.msg);
    ck_assert_msg(sw.points[sw.iree].status == LS_OK, "%s", sw.points[sw.iree].error);
    ck_assert_int_gt(sw.points[sw.iree].cycles, 0);
    size_t order[16];
    size_t rank = ls_sweep_rank(&sw, order);
    ck_assert(rank >= 1 && rank <= sw.n);
    ls_sweep_free(&sw);
    free(m);
    free(s);
}
END_TEST

/* Issue 15, class 3: the heuristic's products of a dispatch's sizes and a
 * target's fields, refused where they pass int64 or leave no thread (each
 * was undefined behaviour before: an overflow, or a division by 0). */
static void stored_sum_text(char *buf, size_t size, const char *shape, const char *maps,
                            const char *iters, const char *out)
{
    snprintf(buf, size,
             "func.func @f() {\n"
             "  %%b = hal.interface.binding.subspan layout(#l) binding(0) : !x\n"
             "  %%r = linalg.generic {indexing_maps = [%s], iterator_types = [%s]} ins(%%a : "
             "tensor<%sxf32>) outs(%%i : tensor<%sxf32>) {\n  ^bb0(%%in: f32, %%out: f32):\n    "
             "%%s = arith.addf %%in, %%out : f32\n    linalg.yield %%s : f32\n  } -> "
             "tensor<%sxf32>\n"
             "  iree_tensor_ext.dispatch.tensor.store %%r, %%x : tensor<%sxf32> -> !x\n  "
             "return\n}\n",
             maps, iters, shape, out, out, out);
}

static ls_status suggest_on(const char *text, const ls_target *t, ls_suggestion *s, ls_diag *d)
{
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_diag_clear(d);
    ck_assert_msg(ls_module_parse_ex(text, strlen(text), "o.mlir", LS_IMPORT_KEEP_UNSUPPORTED, m,
                                     d) == LS_OK,
                  "%s", d->msg);
    ls_status st = ls_suggest(&m->dispatches[0], t, s, d);
    free(m);
    return st;
}

START_TEST(size_overflow_guards)
{
    ls_suggestion *s = ls_xcalloc(1, sizeof *s);
    ls_diag d;
    ls_target t;
    char text[2048];
    const char *maps2 = "affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>";
    const char *maps3 = "affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> "
                        "(d0)>";
    /* 8192-bit loads of f32 on a 64-long row: 256 elements a load, so
     * reduction size / thread loads = 0 threads */
    ck_assert(ls_target_lookup("gfx942", &t));
    t.max_load_instruction_bits = 8192;
    stored_sum_text(text, sizeof text, "4096x64", maps2, "\"parallel\", \"reduction\"", "4096");
    ck_assert_int_eq(suggest_on(text, &t, s, &d), LS_ERR_LIMIT);
    ck_assert_msg(strstr(d.msg, "thread loads 256 (8192-bit loads / 32 bits) exceed the "
                                "reduction size 64") != NULL,
                  "%s", d.msg);
    /* two reduction dims, the last not a multiple of 64: their product is
     * the reduction size, past int64 */
    ck_assert(ls_target_lookup("gfx942", &t));
    stored_sum_text(text, sizeof text, "2x4611686018427387904x3", maps3,
                    "\"parallel\", \"reduction\", \"reduction\"", "2");
    ck_assert_int_eq(suggest_on(text, &t, s, &d), LS_ERR_LIMIT);
    ck_assert_msg(strstr(d.msg, "the reduction dims' sizes multiply past int64") != NULL, "%s",
                  d.msg);
    /* the parallel size likewise */
    stored_sum_text(text, sizeof text, "4611686018427387904x4x64",
                    "affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, "
                    "d1)>",
                    "\"parallel\", \"parallel\", \"reduction\"", "4611686018427387904x4");
    ck_assert_int_eq(suggest_on(text, &t, s, &d), LS_ERR_LIMIT);
    ck_assert_msg(strstr(d.msg, "the parallel dims' sizes multiply past int64") != NULL, "%s",
                  d.msg);
    /* a chip of 2^62 WGPs x 4 SIMDs: only compared, saturated */
    t.wgp_count = INT64_C(1) << 62;
    stored_sum_text(text, sizeof text, "4096x64", maps2, "\"parallel\", \"reduction\"", "4096");
    ck_assert_msg(suggest_on(text, &t, s, &d) == LS_OK, "%s", d.msg);
    ck_assert_int_eq(s->workgroup_size, 64);
    /* a subgroup size past the limit is refused where the target is read */
    ls_module *m = load_text("#t = #iree_gpu.target<arch = \"gfx942\", features = \"\", wgp = "
                             "<subgroup_size_choices = [64, 2048], max_workgroup_sizes = [1024, "
                             "1024, 1024]>>\n",
                             &d);
    ck_assert_int_eq(d.status, LS_ERR_LIMIT);
    ck_assert_msg(strstr(d.msg, "subgroup_size_choices[1] = 2048 is past lanescope's limit of 1024 "
                                "lanes") != NULL,
                  "%s", d.msg);
    free(m);
    free(s);
}
END_TEST

/* The sweep's walk over a target whose thread count is near int64's limit
 * and a reduction dim near it: it stops at the workgroup limit and never
 * doubles a partial tile past the dim. */
START_TEST(sweep_overflow_guards)
{
    const case_t c = {"sweep", "4x64", "pr", "gfx942", 32, 32, 0, 0, {0}, {0}, {0}, {0},
                      {0}, NULL};
    ls_problem p;
    flags_problem(&c, &p);
    ls_target t;
    ck_assert(ls_target_lookup("mi300x", &t));
    t.max_thread_count = INT64_MAX;
    t.max_workgroup_sizes[0] = 0;
    p.has_target = true;
    p.target = t;
    ls_diag d;
    ls_diag_clear(&d);
    ls_sweep sw;
    ck_assert_msg(ls_sweep_enumerate(&p, NULL, &t, 100, &sw, &d) == LS_OK, "%s", d.msg);
    for (size_t i = 0; i < sw.n; i++)
        ck_assert(sw.points[i].workgroup_size <= LS_MAX_WORKGROUP_SIZE);
    ls_sweep_free(&sw);
    /* 3 x 2^61 along the reduction: the partial tile doubles up to 2^62 */
    p.size[1] = 3 * (INT64_C(1) << 61);
    ls_status st = ls_sweep_enumerate(&p, NULL, &t, 100, &sw, &d);
    ck_assert(st == LS_OK || st == LS_ERR_INVALID); /* no point validates: 4 x 3 x 2^61 */
    ls_sweep_free(&sw);
}
END_TEST

static Suite *suggest_suite(void)
{
    Suite *s = suite_create("suggest");
    TCase *tc = tcase_create("heuristic");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, table, 0, (int)(sizeof cases / sizeof cases[0]));
    tcase_add_test(tc, printed_syntax);
    tcase_add_test(tc, multi_op_dispatch);
    tcase_add_test(tc, matvec_split_k);
    tcase_add_loop_test(tc, rejections, 0, (int)(sizeof rejects / sizeof rejects[0]));
    tcase_add_test(tc, split_reduction_forall);
    tcase_add_test(tc, refused_reduction_gets_tile_and_fuse);
    tcase_add_test(tc, f64_on_nvidia_runs_tile_and_fuse);
    tcase_add_loop_test(tc, outer_reduction_tile_and_fuse, 0,
                        (int)(sizeof outers / sizeof outers[0]));
    tcase_add_test(tc, inner_reduction_keeps_vector_distribute);
    tcase_add_test(tc, full_reduction_declines_tile_and_fuse);
    tcase_add_test(tc, sweep_enumerates_and_ranks);
    tcase_add_test(tc, sweep_ranks_tile_and_fuse_choice);
    tcase_add_test(tc, size_overflow_guards);
    tcase_add_test(tc, sweep_overflow_guards);
    tcase_add_loop_test(tc, arg_compare_configs, 0, sizeof argcmps / sizeof argcmps[0]);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(suggest_suite)
