/* test_viz_operand.c: the pictures of one input operand -- which threads
 * read each element of a matvec's vector and matrix (checked against a
 * naive inverse of the maps), the operand's layout and nested pictures,
 * strided and scalar operands, the limits and bad requests -- and the
 * traffic chart's panel of each input's share of the loads. */
#include "viz_util.h"

/* A 64x256 matvec with the rows split over 4 lanes: lane = row-lane * 16 +
 * d1-lane (lane_basis [[4, 16], [0, 1]]), two subgroups along d1, two
 * elements per thread (thread = [0, 2]), 8 rows per workgroup. */
static const char matvec_split[] =
    "#config = #iree_gpu.lowering_config<{lane_basis = [[4, 16], [0, 1]], partial_reduction = "
    "[0, 64], subgroup_basis = [[1, 2], [0, 1]], thread = [0, 2], workgroup = [8, 0]}>\n"
    "#translation = #iree_codegen.translation_info<pipeline = LLVMGPUVectorDistribute "
    "workgroup_size = [128, 1, 1] subgroup_size = 64>\n"
    "func.func @matvec_64x256(%mat: tensor<64x256xf16>, %vec: tensor<256xf16>) -> "
    "tensor<64xf16> attributes {translation_info = #translation} {\n"
    "  %cst = arith.constant 0.000000e+00 : f16\n"
    "  %e = tensor.empty() : tensor<64xf16>\n"
    "  %f = linalg.fill ins(%cst : f16) outs(%e : tensor<64xf16>) -> tensor<64xf16>\n"
    "  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
    "affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = "
    "[\"parallel\", \"reduction\"]} ins(%mat, %vec : tensor<64x256xf16>, tensor<256xf16>) "
    "outs(%f : tensor<64xf16>) attrs = {lowering_config = #config} {\n"
    "  ^bb0(%in: f16, %in_0: f16, %out: f16):\n"
    "    %m = arith.mulf %in, %in_0 : f16\n"
    "    %s = arith.addf %m, %out : f16\n"
    "    linalg.yield %s : f16\n"
    "  } -> tensor<64xf16>\n"
    "  return %r : tensor<64xf16>\n"
    "}\n";

/* Module, derived layout and plan (for gfx942) of the first reduction of text. */
static ls_module *plan_text(const char *text, ls_derived *dv, ls_plan *plan)
{
    ls_diag d;
    ls_module *m = load_text(text, &d);
    ck_assert_msg(d.status == LS_OK && m->n_problems >= 1, "%s", d.msg);
    ck_assert_msg(ls_derive(&m->problems[0], dv, &d) == LS_OK, "%s", d.msg);
    ck_assert_msg(
        ls_plan_build(&m->problems[0], dv, ls_plan_target_from_arch("gfx942"), plan, &d) == LS_OK,
        "%s", d.msg);
    return m;
}

/* Naive reference: the threads holding any iteration point of the tile
 * that input k's map sends to operand coordinates oc (ls_owner_of, the
 * inverse map), as a bitmap over the workgroup.  Returns their count. */
static int64_t owners_union(const ls_problem *p, const ls_derived *dv, int k, const int64_t *oc,
                            int64_t wg, uint8_t *held)
{
    int64_t wgc[LS_MAX_RANK], itc[LS_MAX_RANK] = {0}, origin[LS_MAX_RANK], ext[LS_MAX_RANK];
    ls_workgroup_coord(dv, wg, wgc);
    ls_tile_origin(dv, p, wgc, itc, origin);
    int64_t n = 1;
    for (int i = 0; i < p->rank; i++) {
        ext[i] = p->is_reduction[i] ? dv->chunk[i] : dv->wg_tile[i];
        n *= ext[i];
    }
    memset(held, 0, (size_t)dv->workgroup_size);
    int64_t count = 0;
    for (int64_t t = 0; t < n; t++) {
        int64_t x[LS_MAX_RANK], rem = t;
        for (int i = p->rank - 1; i >= 0; i--) {
            x[i] = origin[i] + rem % ext[i];
            rem /= ext[i];
        }
        bool maps = true;
        for (int j = 0; j < p->inputs[k].map_n; j++)
            maps &= x[p->inputs[k].map[j]] == oc[j];
        ls_ownership own;
        ls_diag d;
        ls_diag_clear(&d);
        if (!maps || ls_owner_of(dv, p, x, &own, &d) != LS_OK)
            continue;
        for (int o = 0; o < own.n_listed; o++)
            if (!held[own.owners[o].tid]) {
                held[own.owners[o].tid] = 1;
                count++;
            }
    }
    return count;
}

/* The vector of the matvec: every element read by the 4 threads of its
 * d1 lane (one per row group); the matrix: every element by its one owner.
 * Both checked against the owners of the iteration points. */
START_TEST(operand_reads_matvec)
{
    ls_derived *dv = ls_xcalloc(1, sizeof *dv);
    ls_plan plan;
    ls_module *m = plan_text(matvec_split, dv, &plan);
    const ls_problem *p = &m->problems[0];
    ls_diag d;
    ls_diag_clear(&d);
    ls_operand_reads r;
    ck_assert_msg(ls_viz_operand_reads_init(&plan, 1, 3, 2, 20, &r, &d) == LS_OK, "%s", d.msg);
    ck_assert_int_eq(r.rank, 1);
    ck_assert_int_eq(r.origin[0], 2 * 64); /* iteration 2 of the d1 loop */
    ck_assert_int_eq(r.extent[0], 64);
    ck_assert_int_eq(r.dim[0], 256);
    uint8_t *held = ls_xcalloc((size_t)dv->workgroup_size, 1);
    for (int64_t c = 0; c < 64; c++) {
        int64_t oc[1] = {128 + c};
        int64_t e = ls_viz_operand_reads_index(&r, oc);
        ck_assert_int_eq(e, c);
        int64_t first = (c / 32) * 64 + (c % 32) / 2; /* subgroup by d1 half, lane by d1 */
        ck_assert_int_eq(r.readers[e], 4);
        ck_assert_int_eq(r.first[e], first);
        ck_assert_int_eq(r.second[e], first + 16);
        ck_assert_int_eq(r.vreg[e], c % 2);
        /* thread 20 = row-lane 1, d1-lane 4: elements 8 and 9 of the chunk */
        ck_assert_int_eq(r.mine[e], c == 8 || c == 9);
    }
    ls_viz_operand_reads_fini(&r);
    /* the reference, iteration 0 of workgroup 0, every element of both inputs */
    for (int k = 0; k < 2; k++) {
        ck_assert(ls_viz_operand_reads_init(&plan, k, 0, 0, -1, &r, &d) == LS_OK);
        ck_assert_int_eq(r.n, k == 0 ? 8 * 64 : 64);
        for (int64_t e = 0; e < r.n; e++) {
            int64_t oc[2] = {k == 0 ? e / 64 : e, e % 64};
            int64_t want = owners_union(p, dv, k, oc, 0, held);
            REQUIRE(r.readers[e] == want, "input %d element %lld: %d readers, owners %lld", k,
                    (long long)e, r.readers[e], (long long)want);
            REQUIRE(held[r.first[e]], "input %d element %lld: first reader %d holds none", k,
                    (long long)e, r.first[e]);
        }
        ls_viz_operand_reads_fini(&r);
    }
    ls_viz_operand_reads_fini(&r); /* twice is harmless */
    free(held);
    free(dv);
    free(m);
}
END_TEST

/* The picture of the vector: one row, striped cells naming the count, the
 * legend saying so, the title naming the operand; the stripes reach the PNG. */
START_TEST(operand_layout_picture)
{
    ls_derived *dv = ls_xcalloc(1, sizeof *dv);
    ls_plan plan;
    ls_module *m = plan_text(matvec_split, dv, &plan);
    ls_diag d;
    ls_diag_clear(&d);
    ls_layout_view v = default_view();
    v.thread = 20;
    ls_figure f;
    ck_assert_msg(ls_viz_operand_layout(&plan, 1, &v, &f, &d) == LS_OK, "%s", d.msg);
    ck_assert(strncmp(f.title, "input 1 %vec : tensor<256xf16> (d1) of @matvec_64x256", 53) == 0);
    ck_assert_int_eq(f.panels[0].rows, 1);
    ck_assert_int_eq(f.panels[0].cols, 64);
    ck_assert_str_eq(cell(&f, 0, 0, 0)->label[0], "T0|T16+2");
    ck_assert_str_eq(cell(&f, 0, 0, 0)->label[1], "S0 V0 \303\2274"); /* U+00D7 */
    ck_assert_str_eq(cell(&f, 0, 0, 33)->label[0], "T64|T80+2");
    ck_assert_str_eq(cell(&f, 0, 0, 33)->label[1], "S1 V1 \303\2274");
    int hits = 0;
    for (int c = 0; c < 64; c++) {
        ck_assert(cell(&f, 0, 0, c)->flags & LS_CELL_SHARED);
        hits += (cell(&f, 0, 0, c)->flags & LS_CELL_HIGHLIGHT) != 0;
    }
    ck_assert_int_eq(hits, 2);
    ck_assert(cell(&f, 0, 0, 8)->flags & LS_CELL_HIGHLIGHT);
    bool said = false;
    for (int i = 0; i < f.n_legend; i++)
        said |= strcmp(f.legend[i].text, "read by 4 threads (broadcast)") == 0 &&
                (f.legend[i].flags & LS_CELL_SHARED);
    ck_assert(said);
    const char *png = tmp_path("operand.png");
    export_png(png, &f, NULL, 1);
    image im = read_png(png);
    double x, y, w, h;
    ls_figure_cell_rect(&f, 0, 0, 1, &x, &y, &w, &h);
    int dark = 0; /* stripe pixels: darker than the (dimmed) fill */
    for (int px = (int)x + 3; px < (int)(x + w) - 3; px++) {
        uint8_t rgb[3];
        pixel(&im, px, y + 3, rgb);
        dark += rgb[0] + rgb[1] + rgb[2] < 3 * 200;
    }
    ck_assert_int_gt(dark, 0);
    free(im.px);
    ls_figure_free(&f);
    /* the matrix: nothing shared; thread 20's four elements highlighted */
    ck_assert(ls_viz_operand_layout(&plan, 0, &v, &f, &d) == LS_OK);
    ck_assert_int_eq(f.panels[0].rows, 8);
    ck_assert_str_eq(cell(&f, 0, 1, 8)->label[0], "T20");
    ck_assert(!(cell(&f, 0, 1, 8)->flags & LS_CELL_SHARED));
    ck_assert(cell(&f, 0, 5, 9)->flags & LS_CELL_HIGHLIGHT);
    ls_figure_free(&f);
    free(dv);
    free(m);
}
END_TEST

/* The projected layout over its vector: dims (d1, d1 inner); each element
 * names the same readers as the layout picture's element d1 = 2 * row + col. */
START_TEST(operand_nested_projection)
{
    ls_derived *dv = ls_xcalloc(1, sizeof *dv);
    ls_plan plan;
    ls_module *m = plan_text(matvec_split, dv, &plan);
    ls_nested_layout proj;
    int dims[LS_MAX_BODY];
    ck_assert_int_eq(ls_viz_operand_layout_of(dv, &m->problems[0], 1, &proj, dims), 2);
    ck_assert_int_eq(proj.thread_tile[0], 16);
    ck_assert_int_eq(proj.subgroup_tile[0], 2);
    ck_assert_int_eq(proj.element_tile[1], 2);
    ls_diag d;
    ls_diag_clear(&d);
    ls_figure nf, lf;
    ls_layout_view v = default_view();
    ck_assert(ls_viz_operand_nested(&plan, 1, -1, -1, -1, &nf, &d) == LS_OK);
    ck_assert(ls_viz_operand_layout(&plan, 1, &v, &lf, &d) == LS_OK);
    ck_assert_int_eq(nf.panels[0].rows, 32);
    ck_assert_int_eq(nf.panels[0].cols, 2);
    for (int r = 0; r < 32; r++)
        for (int c = 0; c < 2; c++) {
            ck_assert_str_eq(cell(&nf, 0, r, c)->label[0], cell(&lf, 0, 0, 2 * r + c)->label[0]);
            ck_assert_str_eq(cell(&nf, 0, r, c)->label[1], cell(&lf, 0, 0, 2 * r + c)->label[1]);
        }
    ck_assert(strstr(nf.title, "%vec : tensor<256xf16> (d1)") != NULL);
    ls_figure_free(&nf);
    ls_figure_free(&lf);
    free(dv);
    free(m);
}
END_TEST

/* A strided map (d1 * 2) reads every other operand row; a scalar input is
 * read by every thread. */
START_TEST(operand_strided_and_scalar)
{
    ls_derived *dv = ls_xcalloc(1, sizeof *dv);
    ls_plan plan;
    ls_module *m = plan_text(
        "%r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1 * 2, d2)>, "
        "affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = [\"parallel\", \"parallel\", "
        "\"reduction\"]} ins(%a : tensor<4x16x64xi32>) outs(%c : tensor<4x8xi32>) attrs = "
        "{lowering_config = #iree_gpu.lowering_config<{workgroup = [1, 4, 0], partial_reduction "
        "= [0, 0, 8], thread = [0, 0, 1], lane_basis = [[1, 4, 8], [0, 1, 2]], subgroup_basis = "
        "[[1, 1, 1], [0, 1, 2]]}>} {\n^bb0(%in: i32, %out: i32):\n  %0 = arith.addi %in, %out : "
        "i32\n  linalg.yield %0 : i32\n} -> tensor<4x8xi32>\n",
        dv, &plan);
    ls_diag d;
    ls_diag_clear(&d);
    ls_operand_reads r;
    ck_assert_msg(ls_viz_operand_reads_init(&plan, 0, 0, 0, -1, &r, &d) == LS_OK, "%s", d.msg);
    ck_assert_int_eq(r.extent[1], 7); /* d1 in 0..3 reaches rows 0, 2, 4, 6 */
    for (int64_t row = 0; row < 7; row++) {
        int64_t oc[3] = {0, row, 5};
        int64_t e = ls_viz_operand_reads_index(&r, oc);
        /* no subgroup size given: 64 lanes hold the 32-lane basis twice */
        ck_assert_int_eq(dv->lane_dup, 2);
        ck_assert_int_eq(r.readers[e], (row % 2 ? 0 : 2));
        if (row % 2 == 0) {
            ck_assert_int_eq(r.first[e], row / 2 * 8 + 5);
            ck_assert_int_eq(r.second[e], row / 2 * 8 + 5 + 32);
        }
    }
    char name[128];
    ls_viz_operand_name(&m->problems[0], 0, name, sizeof name);
    ck_assert_str_eq(name, "input 0 %a : tensor<4x16x64xi32> (d0, d1 * 2, d2)");
    ls_viz_operand_reads_fini(&r);
    free(m);
    m = plan_text(
        "%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, "
        "d1) -> ()>, affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", "
        "\"reduction\"]} ins(%a, %s : tensor<8x64xf32>, tensor<f32>) outs(%c : tensor<8xf32>) "
        "attrs = {lowering_config = #iree_gpu.lowering_config<{workgroup = [2, 0], "
        "partial_reduction = [0, 64], thread = [0, 2], lane_basis = [[2, 16], [0, 1]], "
        "subgroup_basis = [[1, 1], [0, 1]]}>} {\n^bb0(%in: f32, %sc: f32, %out: f32):\n  %0 = "
        "arith.mulf %in, %sc : f32\n  %1 = arith.addf %0, %out : f32\n  linalg.yield %1 : "
        "f32\n} -> tensor<8xf32>\n",
        dv, &plan);
    ck_assert(ls_viz_operand_reads_init(&plan, 1, 0, 0, -1, &r, &d) == LS_OK);
    ck_assert_int_eq(r.rank, 0);
    ck_assert_int_eq(r.n, 1);
    ck_assert_int_eq(r.readers[0], dv->workgroup_size);
    ls_viz_operand_reads_fini(&r);
    free(dv);
    free(m);
}
END_TEST

/* Issue 15, class 3: a workgroup tile of up to 2^63 - 1 rows (one
 * workgroup over a small dim) in the pictures' ceilings and operand boxes
 * (each was undefined behaviour before). */
START_TEST(size_overflow_guards)
{
    ls_derived *dv = ls_xcalloc(1, sizeof *dv);
    ls_plan plan;
    ls_module *m = plan_text(
        "%r = linalg.reduce ins(%a : tensor<8x64xf32>) outs(%b : tensor<8xf32>) dimensions = "
        "[1] {lowering_config = #iree_gpu.lowering_config<{workgroup = [9223372036854775807, 0], "
        "partial_reduction = [0, 64], thread = [0, 1], lane_basis = [[1, 64], [0, 1]], "
        "subgroup_basis = [[1, 1], [0, 1]]}>} (%in: f32, %o: f32) {\n  %1 = arith.addf %in, %o "
        ": f32\n  linalg.yield %1 : f32\n}\n",
        dv, &plan);
    ls_figure f;
    ls_diag d;
    ls_diag_clear(&d);
    ls_layout_view v = default_view();
    ck_assert_msg(ls_viz_layout(&m->problems[0], dv, &v, &f, &d) == LS_OK, "%s", d.msg);
    ck_assert_str_eq(f.panels[0].row_head[0], "0-144115188075855871"); /* 2^57 rows a cell */
    ls_figure_free(&f);
    free(m);
    /* a strided input (d1 * 2) under a tile of 2^62 rows: the box's
     * extent, (tile - 1) x 2 + 1, passes int64 */
    m = plan_text(
        "%r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1 * 2, d2)>, "
        "affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = [\"parallel\", \"parallel\", "
        "\"reduction\"]} ins(%a : tensor<4x16x64xi32>) outs(%c : tensor<4x8xi32>) attrs = "
        "{lowering_config = #iree_gpu.lowering_config<{workgroup = [1, 4611686018427387904, 0], "
        "partial_reduction = [0, 0, 8], thread = [0, 0, 1], lane_basis = [[1, 4, 8], [0, 1, 2]], "
        "subgroup_basis = [[1, 1, 1], [0, 1, 2]]}>} {\n^bb0(%in: i32, %out: i32):\n  %0 = "
        "arith.addi %in, %out : i32\n  linalg.yield %0 : i32\n} -> tensor<4x8xi32>\n",
        dv, &plan);
    ls_operand_reads r;
    ck_assert_int_eq(ls_viz_operand_reads_init(&plan, 0, 0, 0, -1, &r, &d), LS_ERR_LIMIT);
    ck_assert_msg(strstr(d.msg, "input 0: one tile reaches more than 16777216 of its elements") !=
                      NULL,
                  "%s", d.msg);
    free(dv);
    free(m);
}
END_TEST

/* Bad requests: one message naming the flag and the limit. */
START_TEST(operand_errors)
{
    ls_derived *dv = ls_xcalloc(1, sizeof *dv);
    ls_plan plan;
    ls_module *m = plan_text(matvec_split, dv, &plan);
    ls_diag d;
    ls_diag_clear(&d);
    ls_layout_view v = default_view();
    ls_figure f;
    ck_assert(ls_viz_operand_layout(&plan, 5, &v, &f, &d) == LS_ERR_USAGE);
    ck_assert_str_eq(d.msg, "--operand 5: the reduction has 2 inputs (0..1)");
    ls_figure_free(&f);
    ls_diag_clear(&d);
    ck_assert(ls_viz_operand_nested(&plan, 2, -1, -1, -1, &f, &d) == LS_ERR_USAGE);
    ck_assert_str_eq(d.msg, "--operand 2: the reduction has 2 inputs (0..1)");
    ls_figure_free(&f);
    ls_diag_clear(&d);
    v.dim_row = 0;
    v.dim_col = 1;
    ck_assert(ls_viz_operand_layout(&plan, 1, &v, &f, &d) == LS_ERR_USAGE);
    ck_assert_str_eq(d.file, "--dims");
    ls_figure_free(&f);
    v = default_view();
    v.workgroup = 8;
    ls_diag_clear(&d);
    ck_assert(ls_viz_operand_layout(&plan, 0, &v, &f, &d) == LS_ERR_USAGE);
    ck_assert_str_eq(d.file, "--workgroup");
    ls_figure_free(&f);
    free(m);
    /* softmax's sum reads the max from registers: nothing loaded */
    m = load_example("softmax_4096x32000_f32.mlir", &d);
    ck_assert_msg(d.status == LS_OK && m->n_problems == 2, "%s", d.msg);
    ck_assert(m->problems[1].inputs[1].intermediate);
    plan.problem = &m->problems[1];
    ls_diag_clear(&d);
    ck_assert(ls_viz_operand_check(&plan, 1, &d) == LS_ERR_USAGE);
    ck_assert(strncmp(d.msg, "--operand 1: input 1 ", 21) == 0);
    ck_assert(strstr(d.msg, "held in registers (not loaded)") != NULL);
    free(dv);
    free(m);
}
END_TEST

/* The traffic chart of a two-input reduction: a panel of each input's
 * share of the loads, the engine's figures, with every string on the
 * canvas; one input: no panel (its loads are the load stage's bars). */
START_TEST(traffic_by_operand)
{
    ls_derived *dv = ls_xcalloc(1, sizeof *dv);
    ls_plan plan;
    ls_module *m = plan_text(matvec_split, dv, &plan);
    ls_hw hw;
    ls_diag d;
    ls_diag_clear(&d);
    ck_assert(ls_hw_load("mi300x", &hw, &d) == LS_OK);
    ls_sim_result r;
    ck_assert_msg(ls_engine_run(&plan, &hw, &r, NULL, &d) == LS_OK, "%s", d.msg);
    ls_chart c;
    ls_viz_traffic(&m->problems[0], &hw, &r, &c);
    ck_assert_int_eq(c.n_operands, 2);
    ck_assert_str_eq(c.operand_name[0], "input 0 %mat");
    ck_assert_str_eq(c.operand_name[1], "input 1 %vec");
    /* the 64 x 256 f16 matrix is read once, all of it from DRAM; the
     * vector's figures are the engine's, and the two add up to the load
     * stage's bytes */
    ck_assert(c.operand_bytes[0] == 64 * 256 * 2);
    ck_assert(c.operand_bytes[1] == (double)r.operand[1].global_bytes);
    ck_assert(c.operand_bytes[0] + c.operand_bytes[1] ==
              (double)r.stage[LS_STAGE_LOAD_ACCUMULATE].global_bytes);
    ck_assert(c.operand_dram[0] == 64 * 256 * 2);
    ck_assert(c.operand_hits[1] > 0);
    assert_text_fits("traffic by operand", NULL, &c);
    ls_chart_free(&c);
    free(m);
    ls_module *m1;
    simulate("seed000_example2.mlir", &m1, dv, &plan, &hw, &r, NULL);
    ls_viz_traffic(&m1->problems[0], &hw, &r, &c);
    ck_assert_int_eq(c.n_operands, 0);
    ls_chart_free(&c);
    free(m1);
    free(dv);
}
END_TEST

static Suite *viz_operand_suite(void)
{
    Suite *s = suite_create("viz_operand");
    TCase *tc = tcase_create("operand");
    tcase_set_timeout(tc, 60);
    tcase_add_checked_fixture(tc, NULL, remove_tmpdir);
    tcase_add_test(tc, operand_reads_matvec);
    tcase_add_test(tc, operand_layout_picture);
    tcase_add_test(tc, operand_nested_projection);
    tcase_add_test(tc, operand_strided_and_scalar);
    tcase_add_test(tc, operand_errors);
    tcase_add_test(tc, size_overflow_guards);
    tcase_add_test(tc, traffic_by_operand);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(viz_operand_suite)
