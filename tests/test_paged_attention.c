/* test_paged_attention.c: paged decode attention, the form IREE's
 * pipeline tests compile (a key and a value gathered from a KV cache by
 * page indices, a causal mask a linalg.generic computes from linalg.index)
 * -- read (src/import_attention.c), run lane by lane against a gather and a
 * softmax done here on their own, and timed with the gathered rows where
 * the indices put them (sim/attention_timing.c, sim/engine.c).  The
 * dispatch is written for these tests: 2 sequences of 16 pages of 16 keys,
 * a 64-wide head, 2 subgroups x 4 lanes on the page dim and 16 lanes on
 * the key-in-page dim, so each thread holds one key per K2 step. */
#include <math.h>

#include "attention_util.h"
#include "lanescope/engine.h"
#include "lanescope/functional.h"
#include "lanescope/hwmodel.h"
#include "lanescope/value.h"
#include "lanescope/viz.h"

typedef struct {
    int live;              /* the mask keeps key positions <= live */
    bool one_cache;        /* K and V gathered from one cache tensor */
    bool one_index;        /* ... through one index tensor */
    const char *dim_map;   /* the key gather's attributes (default dimension_map = [0]) */
    bool mask_reads;       /* the mask generic reads a tensor too */
} paged;

static void paged_ir(char *buf, size_t size, const paged *o)
{
    const char *basis = "#iree_gpu.lowering_config<{subgroup_basis = [[1, 1, 1, 1, 1, 2, 1], "
                        "[4, 3, 2, 1, 5, 6]], thread = [0, 0, 0, 8, 0, 0], lane_basis = "
                        "[[1, 1, 1, 1, 1, 4, 16], [2, 1, 0, 4, 5, 6]]}>";
    const char *vc = o->one_cache ? "%kc" : "%vc", *vi = o->one_index ? "%ki" : "%vi";
    int n = snprintf(
        buf, size,
        "#translation = #iree_codegen.translation_info<pipeline = "
        "#iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 64>\n"
        "func.func @paged_decode(%%q: tensor<2x1x1x64xf16>, %%kc: tensor<64x1x16x64xf16>, "
        "%%vc: tensor<64x1x16x64xf16>, %%ki: tensor<2x16xi64>, %%vi: tensor<2x16xi64>, "
        "%%t: tensor<2x1x1x16x16xf16>) attributes {translation_info = #translation} {\n"
        "  %%scale = arith.constant 1.250000e-01 : f16\n"
        "  %%zero = arith.constant 0.000000e+00 : f16\n"
        "  %%ninf = arith.constant 0xFC00 : f16\n"
        "  %%c16 = arith.constant 16 : index\n"
        "  %%len = arith.constant %d : index\n"
        "  %%f0 = arith.constant 0.000000e+00 : f32\n"
        "  %%fmin = arith.constant 0xFF800000 : f32\n"
        "  %%e0 = tensor.empty() : tensor<2x1x1x64xf32>\n"
        "  %%e1 = tensor.empty() : tensor<2x1x1xf32>\n"
        "  %%acc = linalg.fill ins(%%f0 : f32) outs(%%e0 : tensor<2x1x1x64xf32>) -> tensor<2x1x1x64xf32>\n"
        "  %%max = linalg.fill ins(%%fmin : f32) outs(%%e1 : tensor<2x1x1xf32>) -> tensor<2x1x1xf32>\n"
        "  %%sum = linalg.fill ins(%%f0 : f32) outs(%%e1 : tensor<2x1x1xf32>) -> tensor<2x1x1xf32>\n"
        "  %%ke = tensor.empty() : tensor<2x16x1x16x64xf16>\n"
        "  %%k = iree_linalg_ext.gather %s ins(%%kc, %%ki : tensor<64x1x16x64xf16>, "
        "tensor<2x16xi64>) outs(%%ke : tensor<2x16x1x16x64xf16>) -> tensor<2x16x1x16x64xf16>\n"
        "  %%v = iree_linalg_ext.gather dimension_map = [0] ins(%s, %s : tensor<64x1x16x64xf16>, "
        "tensor<2x16xi64>) outs(%%ke : tensor<2x16x1x16x64xf16>) -> tensor<2x16x1x16x64xf16>\n"
        "  %%me = tensor.empty() : tensor<2x1x1x16x16xf16>\n"
        "  %%mask = linalg.generic {indexing_maps = [%saffine_map<(d0, d1, d2, d3, d4) -> (d0, d1, "
        "d2, d3, d4)>], iterator_types = [\"parallel\", \"parallel\", \"parallel\", \"parallel\", "
        "\"parallel\"]} %s outs(%%me : tensor<2x1x1x16x16xf16>) {\n"
        "  ^bb0(%s%%o: f16):\n"
        "    %%i4 = linalg.index 4 : index\n"
        "    %%i3 = linalg.index 3 : index\n"
        "    %%p = arith.muli %%i3, %%c16 : index\n"
        "    %%pos = arith.addi %%i4, %%p : index\n"
        "    %%live = arith.cmpi sle, %%pos, %%len : index\n"
        "    %%m = arith.select %%live, %s, %%ninf : f16\n"
        "    linalg.yield %%m : f16\n"
        "  } -> tensor<2x1x1x16x16xf16>\n"
        "  %%r:3 = iree_linalg_ext.online_attention {decomposition_config = {pv_attrs = "
        "{lowering_config = %s}, qk_attrs = {lowering_config = %s}}, indexing_maps = ["
        "affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d4)>, "
        "affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d5, d1, d6, d4)>, "
        "affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d5, d1, d6, d3)>, "
        "affine_map<(d0, d1, d2, d3, d4, d5, d6) -> ()>, "
        "affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d5, d6)>, "
        "affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>, "
        "affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2)>, "
        "affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2)>], lowering_config = "
        "#iree_gpu.lowering_config<{partial_reduction = [0, 0, 0, 0, 0, 8, 0], workgroup = [1, "
        "1, 1, 0, 0, 0, 0]}>} ins(%%q, %%k, %%v, %%scale, %%mask : tensor<2x1x1x64xf16>, "
        "tensor<2x16x1x16x64xf16>, tensor<2x16x1x16x64xf16>, f16, tensor<2x1x1x16x16xf16>) "
        "outs(%%acc, %%max, %%sum : tensor<2x1x1x64xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>) {\n"
        "  ^bb0(%%x: f32):\n    iree_linalg_ext.yield %%x : f32\n"
        "  } -> tensor<2x1x1x64xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>\n"
        "  return\n}\n",
        o->live, o->dim_map ? o->dim_map : "dimension_map = [0]", vc, vi,
        o->mask_reads ? "affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>, " : "",
        o->mask_reads ? "ins(%t : tensor<2x1x1x16x16xf16>)" : "", o->mask_reads ? "%in: f16, " : "",
        o->mask_reads ? "%in" : "%zero", basis, basis);
    ck_assert(n > 0 && (size_t)n < size);
}

static const int64_t HEAD = 64, ROW = 16 * 64; /* a key's columns; a page's elements */

static double f16_of(uint64_t seed, int k, int64_t idx)
{
    return ls_value_to_double(ls_input_value(ls_operand_seed(seed, k), (uint64_t)idx, LS_ET_F16,
                                             LS_COMB_ADD),
                              LS_ET_F16);
}

/* The cache element a gathered operand holds at (sequence b, key pos, column
 * j), done here from the gather's definition: the page the indices name for
 * (b, pos / 16), then the key's slot in the page.  The generator's cache is
 * operand `cache` (1: the key's, 2: a second cache's); rows, its indices'
 * rows. */
static double gathered(const ls_module_attention *ma, int operand, int cache, int64_t b,
                       int64_t pos, int64_t j)
{
    int64_t page = ls_input_row(ls_att_gather_rowmix(ma, operand), b * 16 + pos / 16, 64);
    return f16_of(1, cache, page * ROW + (pos % 16) * HEAD + j);
}

/* acc / sum of sequence b at column n: softmax over the live keys in
 * double, natural exp and the scale unrounded (IREE rounds the scaled
 * query to f16, which moves the result by about 1e-3 here). */
static double oracle(const ls_module_attention *ma, int vcache, int64_t b, int64_t n, int live)
{
    double s[256], mx = -INFINITY, num = 0, den = 0;
    for (int64_t k = 0; k <= live; k++) {
        s[k] = 0;
        for (int64_t j = 0; j < HEAD; j++)
            s[k] += f16_of(1, 0, b * HEAD + j) * gathered(ma, 1, 1, b, k, j);
        s[k] *= 0.125;
        mx = s[k] > mx ? s[k] : mx;
    }
    for (int64_t k = 0; k <= live; k++) {
        double p = exp(s[k] - mx);
        num += p * gathered(ma, 2, vcache, b, k, n);
        den += p;
    }
    return num / den;
}

static void build(const paged *o, ls_module *m, ls_attention *a)
{
    char ir[16384];
    ls_diag d;
    paged_ir(ir, sizeof ir, o);
    ck_assert_msg(build_attention(ir, "gfx942", m, a, &d) == LS_OK, "%s", d.msg);
}

static ls_att_check values(const ls_module *m, const ls_attention *a)
{
    ls_att_check chk;
    ls_diag d;
    ls_diag_clear(&d);
    ck_assert_msg(ls_attention_values(m, &m->attentions[0], a, ls_plan_target_from_arch("gfx942"),
                                      1, -1, &chk, &d) == LS_OK,
                  "%s", d.msg);
    ck_assert_int_eq(chk.mismatches, 0);
    ck_assert_int_eq(chk.workgroups_run, 2);
    ck_assert_int_eq(chk.outputs_checked, 2 * (64 + 2)); /* acc, max, sum per sequence */
    return chk;
}

/* The importer keeps each gather's operands and the mask's body. */
START_TEST(import_gathers)
{
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_attention a;
    build(&(paged){.live = 37}, m, &a);
    const ls_module_attention *ma = &m->attentions[0];
    ck_assert(ma->gather[1].on && ma->gather[2].on && !ma->gather[0].on);
    ck_assert_str_eq(ma->gather[1].source, "%kc");
    ck_assert_str_eq(ma->gather[1].indices, "%ki");
    ck_assert_str_eq(ma->gather[2].source, "%vc");
    ck_assert_int_eq(ma->gather[1].depth, 1);
    ck_assert_int_eq(ma->gather[1].source_shape[0], 64);
    ck_assert_int_eq(ma->gather[1].index_elem, LS_ET_I64);
    const ls_module_elementwise *e = ls_att_mask_op(m, ma);
    ck_assert_ptr_nonnull(e);
    ck_assert(e->compiled);
    ck_assert_int_eq(e->n_inputs, 0);
    ck_assert_int_eq(ls_body_alu_ops(&e->body), 4); /* muli, addi, cmpi, select */
    /* the mask at (b 1, page 2, slot 5) = position 37: live; 38: not */
    uint64_t scratch[LS_MAX_BODY_INSTS];
    int64_t x[LS_MAX_RANK] = {1, 0, 0, 2, 5};
    ck_assert(ls_value_to_double(ls_body_eval(&e->body, NULL, x, scratch), LS_ET_F16) == 0.0);
    x[4] = 6;
    ck_assert(isinf(ls_value_to_double(ls_body_eval(&e->body, NULL, x, scratch), LS_ET_F16)));
    /* distinct (sequence, page) pairs get distinct pages */
    bool seen[64] = {false};
    for (int64_t i = 0; i < 32; i++) {
        int64_t p = ls_input_row(ls_att_gather_rowmix(ma, 1), i, 64);
        ck_assert(p >= 0 && p < 64 && !seen[p]);
        seen[p] = true;
    }
    free(m);
}
END_TEST

/* ls_input_row is a permutation of [0, n) for n of every kind, and the
 * same for every call. */
START_TEST(rows_permute)
{
    const int64_t ns[] = {1, 2, 3, 64, 1000, 4096, 4097};
    for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
        int64_t n = ns[t];
        bool *seen = ls_xcalloc((size_t)n, 1);
        for (int64_t i = 0; i < n; i++) {
            int64_t r = ls_input_row(ls_mix64(7), i, n);
            REQUIRE(r >= 0 && r < n && !seen[r], "n %lld: row %lld of %lld", (long long)n,
                    (long long)r, (long long)i);
            seen[r] = true;
            REQUIRE(ls_input_row(ls_mix64(7), i + n, n) == r, "past n the rows repeat");
        }
        free(seen);
    }
}
END_TEST

/* Only key 0 is live: the result is exactly the value row the first
 * page's index names (p = exp2(0) = 1, every other key exp2(-inf) = 0). */
START_TEST(values_one_live_key)
{
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_attention a;
    build(&(paged){.live = 0}, m, &a);
    ls_att_check chk = values(m, &a);
    ck_assert(chk.sample[0] == gathered(&m->attentions[0], 2, 2, 0, 0, 0));
    ck_assert(chk.sample[2] == 1.0);
    /* a wrong page would be another number: the cache's rows differ there */
    ck_assert(gathered(&m->attentions[0], 2, 2, 0, 0, 0) != f16_of(1, 2, 0) ||
              ls_input_row(ls_att_gather_rowmix(&m->attentions[0], 2), 0, 64) == 0);
    free(m);
}
END_TEST

/* 38 live keys over three pages: the lowered result against the softmax
 * over the gathered rows done here; one cache and one index tensor for both
 * (the value then reads the key's rows). */
START_TEST(values_causal_mask)
{
    const paged cases[] = {{.live = 37}, {.live = 37, .one_cache = true},
                           {.live = 255, .one_cache = true, .one_index = true}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ls_module *m = ls_xcalloc(1, sizeof *m);
        ls_attention a;
        build(&cases[i], m, &a);
        ls_att_check chk = values(m, &a);
        double want = oracle(&m->attentions[0], cases[i].one_cache ? 1 : 2, 0, 0, cases[i].live);
        ck_assert_msg(fabs(chk.sample[0] / chk.sample[2] - want) < 5e-3, "case %zu: %.6f vs %.6f",
                      i, chk.sample[0] / chk.sample[2], want);
        free(m);
    }
}
END_TEST

/* The engine's view of m's attention a on mi300x (NULL, with the reason
 * in d, where it cannot be built). */
static ls_att_view *view_of(const ls_module *m, const ls_attention *a, ls_hw *hw, ls_diag *d)
{
    ls_diag_clear(d);
    ck_assert(ls_hw_load("mi300x", hw, d) == LS_OK);
    ls_att_view *v = NULL;
    ls_attention_view(m, &m->attentions[0], a, hw, &v, d);
    return v;
}

static void time_paged(const paged *o, ls_sim_result *r)
{
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_attention a;
    build(o, m, &a);
    ls_hw hw;
    ls_diag d;
    ls_att_view *v = view_of(m, &a, &hw, &d);
    ck_assert_msg(v != NULL, "%s", d.msg);
    ck_assert_msg(ls_engine_run(ls_att_view_plan(v), &hw, r, NULL, &d) == LS_OK, "%s", d.msg);
    ls_att_view_free(v);
    free(m);
}

/* Timing: the index tensors are inputs of their own, 8 bytes per (sequence,
 * page), each gathered page is read from DRAM once (distinct pages), and
 * a value gathered through the key's indices from the key's cache finds
 * the key's rows in the cache (no DRAM of its own); no mask is loaded. */
START_TEST(timing_gathered_rows)
{
    ls_sim_result r;
    time_paged(&(paged){.live = 37}, &r);
    ck_assert_int_eq(r.n_operands, 4); /* key, value, key indices, value indices */
    const int64_t rows_bytes = 2 * 16 * ROW * 2; /* 32 pages of 2 KiB */
    ck_assert_int_eq(r.operand[0].global_bytes, rows_bytes);
    ck_assert_int_eq(r.operand[0].dram_bytes, rows_bytes);
    ck_assert_int_eq(r.operand[1].dram_bytes, rows_bytes);
    ck_assert_int_eq(r.operand[2].global_bytes, 2 * 16 * 8);
    ck_assert_int_eq(r.operand[3].global_bytes, 2 * 16 * 8);
    ls_sim_result shared;
    time_paged(&(paged){.live = 37, .one_cache = true, .one_index = true}, &shared);
    ck_assert_int_eq(shared.n_operands, 3); /* one index tensor */
    ck_assert_int_eq(shared.operand[0].dram_bytes, rows_bytes);
    ck_assert_int_lt(shared.operand[1].dram_bytes, rows_bytes / 8);
    /* the same cache through other indices: pages the key read are found */
    ls_sim_result other;
    time_paged(&(paged){.live = 37, .one_cache = true}, &other);
    ck_assert_int_lt(other.operand[1].dram_bytes, rows_bytes);
    ck_assert_int_gt(other.operand[1].dram_bytes, rows_bytes / 4);
    /* deterministic */
    ls_sim_result again;
    time_paged(&(paged){.live = 37}, &again);
    ck_assert_int_eq(again.cycles, r.cycles);
}
END_TEST

/* What lanescope does not run is refused with the reason. */
START_TEST(refusals)
{
    const struct {
        paged o;
        const char *why;
    } cases[] = {
        {{.live = 3, .dim_map = "dimension_map = [1]"}, "dimension_map is not the source's leading dims"},
        {{.live = 3, .mask_reads = true}, "mask is computed in the dispatch from tensors"},
        {{.live = 3, .dim_map = "{note = 1} dimension_map = [0]"},
         "its gather carries an attribute dictionary, which lanescope does not read"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ls_module *m = ls_xcalloc(1, sizeof *m);
        ls_attention a;
        build(&cases[i].o, m, &a);
        ls_att_check chk;
        ls_diag d;
        ls_diag_clear(&d);
        ck_assert_int_eq(ls_attention_values(m, &m->attentions[0], &a,
                                             ls_plan_target_from_arch("gfx942"), 1, 1, &chk, &d),
                         LS_ERR_INVALID);
        ck_assert_msg(strstr(d.msg, cases[i].why), "%s", d.msg);
        /* the engine's view refuses it too (draw traffic and timeline) */
        ls_hw hw;
        ck_assert_ptr_null(view_of(m, &a, &hw, &d));
        ck_assert_int_eq(d.status, LS_ERR_INVALID);
        ck_assert_msg(strstr(d.msg, i == 1 ? "its mask is computed from tensors" : cases[i].why),
                      "%s", d.msg);
        free(m);
    }
    /* the limits, each named in the reason */
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_attention a;
    build(&(paged){.live = 3}, m, &a);
    const ls_dop *o = &m->dispatches[m->attentions[0].dispatch].ops[m->attentions[0].op];
    ls_module_gather g = m->attentions[0].gather[1];
    ck_assert_ptr_null(ls_att_gather_problem(&a, &o->operand[1], &g));
    a.size[0] = INT64_C(1) << 21; /* 2^21 sequences x 16 pages */
    ck_assert_msg(strstr(ls_att_gather_problem(&a, &o->operand[1], &g), "more than 2^24 rows"),
                  "rows");
    a.size[0] = 2;
    g.source_shape[0] = INT64_C(1) << 45; /* x 2 KiB a page */
    ck_assert(strstr(ls_att_gather_problem(&a, &o->operand[1], &g), "past 2^50 bytes"));
    g.source_shape[0] = INT64_MAX / 2;
    ck_assert(strstr(ls_att_gather_problem(&a, &o->operand[1], &g), "more than 2^63 elements"));
    g.source_shape[0] = -1;
    ck_assert(strstr(ls_att_gather_problem(&a, &o->operand[1], &g), "dynamic dim it indexes"));
    free(m);
}
END_TEST

/* The pictures: without --dims a K2 step's pages (d5) against their
 * tokens (d6), one key per thread -- page p, token j is lane 16 (p % 4) + j
 * of subgroup p / 4 (the bases: 2 subgroups, then 4 x 16 lanes); the
 * nested layouts, one panel per matmul, label lanes within their subgroup. */
START_TEST(pictures)
{
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_attention a;
    build(&(paged){.live = 37}, m, &a);
    ls_hw hw;
    ls_diag d;
    ls_att_view *v = view_of(m, &a, &hw, &d);
    ck_assert_msg(v != NULL, "%s", d.msg);
    const ls_plan *pl = ls_att_view_plan(v);
    ls_layout_view lv;
    memset(&lv, 0, sizeof lv);
    lv.dim_row = lv.dim_col = -1;
    lv.thread = -1;
    ls_viz_attention_dims(&a, false, &lv.dim_row, &lv.dim_col);
    ck_assert_int_eq(lv.dim_row, 5); /* pages */
    ck_assert_int_eq(lv.dim_col, 6); /* tokens of a page */
    ls_figure f;
    ck_assert_msg(ls_viz_layout(pl->problem, pl->derived, &lv, &f, &d) == LS_OK, "%s", d.msg);
    const ls_grid *g = &f.panels[0];
    ck_assert_int_eq(g->rows, 8);  /* 2 subgroups x 4 lanes on the pages of a step */
    ck_assert_int_eq(g->cols, 16); /* 16 lanes on a page's tokens */
    /* the key at (page p, token j): lane 16 (p % 4) + j of subgroup p / 4 */
    for (int p = 0; p < 8; p++)
        for (int j = 0; j < 16; j++) {
            char want[16];
            snprintf(want, sizeof want, "T%d", (p / 4) * 64 + (p % 4) * 16 + j);
            REQUIRE(strcmp(g->cells[p * 16 + j].label[0], want) == 0, "(%d, %d): %s, not %s", p,
                    j, g->cells[p * 16 + j].label[0], want);
        }
    ls_figure_free(&f);
    /* both matmuls' layouts, the same keys in each */
    ck_assert_msg(ls_viz_attention_nested(&a, -1, -1, -1, &f, &d) == LS_OK, "%s", d.msg);
    ck_assert_int_eq(f.n_panels, 2);
    ck_assert(strstr(f.panels[0].caption, "QK matmul (loops d5, d6)"));
    ck_assert(strstr(f.panels[1].caption, "PV matmul (loops d5, d6)"));
    ck_assert_str_eq(f.panels[0].cells[1 * 16 + 5].label[0], "T21");
    ck_assert_str_eq(f.panels[1].cells[5 * 16 + 5].label[0], "T21"); /* subgroup 1's lane 21 */
    ck_assert_str_eq(f.panels[1].cells[5 * 16 + 5].label[1], "S1 V0");
    ls_figure_free(&f);
    /* a dim a matmul lacks: N is not QK's */
    ck_assert_int_eq(ls_viz_attention_nested(&a, 3, 5, -1, &f, &d), LS_ERR_USAGE);
    ck_assert_msg(strstr(d.msg, "the QK matmul has no loop d3 (its loops are the op's less N)"),
                  "%s", d.msg);
    ls_att_view_free(v);
    free(m);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("paged_attention");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, import_gathers);
    tcase_add_test(tc, rows_permute);
    tcase_add_test(tc, values_one_live_key);
    tcase_add_test(tc, values_causal_mask);
    tcase_add_test(tc, timing_gathered_rows);
    tcase_add_test(tc, refusals);
    tcase_add_test(tc, pictures);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(suite)
