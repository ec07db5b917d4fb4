/* test_suggest.c: IREE's reduction heuristic against configs worked out by
 * hand from shared/reference/iree-reduction-lowering.md §1.  Each table row
 * names the rule it exercises; the arithmetic is in the comment beside it.
 * Then dispatch IR: a multi-op dispatch, matvec split-k, every rejection
 * with its reason, a split-reduction forall; the sweep's enumeration and
 * ranking, and the size guards.  TileAndFuse and arg_compare configs are in
 * test_suggest_tf.c. */
#include "suggest_util.h"

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
    tcase_add_test(tc, sweep_enumerates_and_ranks);
    tcase_add_test(tc, size_overflow_guards);
    tcase_add_test(tc, sweep_overflow_guards);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(suggest_suite)
