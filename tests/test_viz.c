/* test_viz.c: the pictures.  Builders are checked cell by cell against the
 * layout/swizzle/plan math (and the seeds' worked examples); exported PNGs
 * are read back through libpng's png_image API and checked for their size,
 * the colour of specific cells and their tEXt chunks; SVG and PDF for their
 * header and page count; a few pictures against golden images with a
 * tolerance.  Regenerate the goldens on purpose with
 *   LS_REGEN_GOLDEN=1 make check TESTS=tests/test_viz
 * and look at them before committing. */
#include "config.h"
#include "lanescope/compare.h"
#include "viz_util.h"

/* Seed 000 Example 2: element [2,10] of iteration 0 belongs to thread 42. */
START_TEST(layout_example2_thread42)
{
    ls_figure f;
    ls_layout_view v = default_view();
    ls_module *m = example2_layout(&v, &f);
    ck_assert_int_eq(f.panels[0].rows, 16);
    ck_assert_int_eq(f.panels[0].cols, 32);
    ck_assert_str_eq(cell(&f, 0, 2, 10)->label[0], "T42");
    ck_assert_str_eq(cell(&f, 0, 2, 10)->label[1], "S0 V0");
    ck_assert_str_eq(cell(&f, 0, 0, 16)->label[0], "T64"); /* subgroup 1 starts at d1 = 16 */
    ck_assert_str_eq(cell(&f, 0, 15, 31)->label[0], "T127");
    ck_assert_str_eq(cell(&f, 0, 15, 31)->label[1], "S1 V3");
    const char *png = tmp_path("layout2.png");
    export_png(png, &f, NULL, 1);
    image im = read_png(png);
    double w, h;
    ls_figure_size(&f, &w, &h);
    ck_assert_int_eq(im.w, (int)w);
    ck_assert_int_eq(im.h, (int)h);
    uint8_t rgb[3];
    cell_pixel(&f, &im, 0, 2, 10, 1, rgb);
    assert_colour(rgb, ls_viz_thread_colour(0, 42), 1);
    cell_pixel(&f, &im, 0, 0, 16, 1, rgb);
    assert_colour(rgb, ls_viz_thread_colour(1, 0), 1);
    /* lanes next to each other get different fills */
    uint8_t a[3], b[3];
    ls_rgb_bytes(ls_viz_thread_colour(0, 42), a);
    ls_rgb_bytes(ls_viz_thread_colour(0, 43), b);
    ck_assert(memcmp(a, b, 3) != 0);
    /* the same picture at scale 2 is twice the size, same colours */
    const char *png2 = tmp_path("layout2x2.png");
    export_png(png2, &f, NULL, 2);
    image im2 = read_png(png2);
    ck_assert_int_eq(im2.w, (int)ceil(w * 2));
    cell_pixel(&f, &im2, 0, 2, 10, 2, rgb);
    assert_colour(rgb, ls_viz_thread_colour(0, 42), 1);
    free(im.px);
    free(im2.px);
    ls_figure_free(&f);
    free(m);
}
END_TEST


/* 32 subgroups: the eight hues repeat, so subgroups 8-15 are dotted, 16-23
 * barred, 24-31 both, and the legend says which subgroups share a hue. */
START_TEST(layout_subgroup_marks)
{
    static const char ir[] =
        "#config = #iree_gpu.lowering_config<{workgroup = [32, 0], partial_reduction = [0, 32], "
        "thread = [0, 1], lane_basis = [[1, 32], [0, 1]], subgroup_basis = [[32, 1], [0, 1]]}>\n"
        "#translation = #iree_codegen.translation_info<pipeline = LLVMGPUVectorDistribute "
        "workgroup_size = [1024, 1, 1] subgroup_size = 32>\n"
        "func.func @f() attributes {translation_info = #translation} {\n"
        "  %r = linalg.reduce ins(%2 : tensor<32x32xf32>) outs(%4 : tensor<32xf32>) "
        "dimensions = [1] {lowering_config = #config}\n"
        "    (%in: f32, %init: f32) {\n"
        "      %0 = arith.addf %in, %init : f32\n"
        "      linalg.yield %0 : f32\n"
        "    }\n"
        "  return\n"
        "}\n";
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_diag d;
    ls_diag_clear(&d);
    ck_assert_msg(ls_module_parse(ir, sizeof ir - 1, "marks.mlir", m, &d) == LS_OK, "%s", d.msg);
    ls_derived dv;
    ck_assert_msg(ls_derive(&m->problems[0], &dv, &d) == LS_OK, "%s", d.msg);
    ls_figure f;
    ls_layout_view v = default_view();
    ck_assert_msg(ls_viz_layout(&m->problems[0], &dv, &v, &f, &d) == LS_OK, "%s", d.msg);
    ck_assert_int_eq(f.panels[0].rows, 32);
    const int marks = LS_CELL_DOTS | LS_CELL_BARS;
    static const struct {
        int row, flags;
        const char *sg;
    } want[] = {{0, 0, "S0 V0"},
                {7, 0, "S7 V0"},
                {8, LS_CELL_DOTS, "S8 V0"},
                {16, LS_CELL_BARS, "S16 V0"},
                {24, LS_CELL_DOTS | LS_CELL_BARS, "S24 V0"},
                {31, LS_CELL_DOTS | LS_CELL_BARS, "S31 V0"}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        ls_cell *x = cell(&f, 0, want[i].row, 3);
        ck_assert_str_eq(x->label[1], want[i].sg);
        ck_assert_int_eq(x->flags & marks, want[i].flags);
    }
    ck_assert_str_eq(f.legend[0].text, "S0,8,16,24: lanes shaded 0..31");
    ck_assert_str_eq(f.legend[7].text, "S7,15,23,31: lanes shaded 0..31");
    ck_assert_str_eq(f.legend[8].text, "dotted: S8-S15");
    ck_assert_int_eq(f.legend[8].flags & marks, LS_CELL_DOTS);
    ck_assert_str_eq(f.legend[10].text, "dotted and barred: S24-S31");
    ck_assert_int_eq(f.legend[10].flags & marks, LS_CELL_DOTS | LS_CELL_BARS);
    /* no two swatches alike: another hue, or other marks */
    for (int i = 0; i < f.n_legend; i++)
        for (int j = i + 1; j < f.n_legend; j++) {
            ls_rgb a = f.legend[i].colour, b = f.legend[j].colour;
            double dist = fabs(a.r - b.r) + fabs(a.g - b.g) + fabs(a.b - b.b);
            ck_assert_msg(dist > 0.15 || f.legend[i].flags != f.legend[j].flags,
                          "legend swatches %d ('%s') and %d ('%s') look alike", i,
                          f.legend[i].text, j, f.legend[j].text);
        }
    /* drawn: a dotted cell has dark dots over its fill, an unmarked one not */
    const char *png = tmp_path("marks.png");
    export_png(png, &f, NULL, 2);
    image im = read_png(png);
    int dark[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        int row = k ? 9 : 1; /* inside the tile's thick border */
        uint8_t base[3], px[3];
        ls_rgb_bytes(cell(&f, 0, row, 3)->fill, base);
        /* the cell's top left corner, away from its label and borders:
         * the first dot is 2 points in */
        double cx, cy, cw, ch;
        ls_figure_cell_rect(&f, 0, row, 3, &cx, &cy, &cw, &ch);
        for (int y = (int)((cy + 1) * 2); y < (int)((cy + 3.5) * 2); y++)
            for (int x = (int)((cx + 1) * 2); x < (int)((cx + 3.5) * 2); x++) {
                pixel(&im, x, y, px);
                dark[k] += px[0] + 40 < base[0] && px[1] + 40 < base[1];
            }
    }
    ck_assert_int_eq(dark[0], 0);
    ck_assert_int_gt(dark[1], 2);
    free(im.px);
    ls_figure_free(&f);
    free(m);
}
END_TEST


/* A width measured at one scale holds at every other: a figure is sized on
 * a 1x1 surface and drawn at 0.25..8 pixels a point (unhinted metrics). */
START_TEST(text_width_scale_free)
{
    static const char *const texts[] = {
        "#iree_gpu.lowering_config<{workgroup = [16, 0], thread = [0, 1], partial_reduction = "
        "[0, 32], lane_basis = [[16, 4], [1, 0]], subgroup_basis = [[1, 2], [0, 1]]}>",
        "T#: thread in the workgroup, S#: subgroup, V#: register index", "iiiiiiiiiilllllll1111"};
    double scales[] = {0.25, 1, 2, 3, 4, 8};
    for (size_t t = 0; t < sizeof texts / sizeof texts[0]; t++) {
        double w[6];
        for (int k = 0; k < 6; k++) {
            cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
            cairo_t *cr = cairo_create(s);
            cairo_scale(cr, scales[k], scales[k]);
            w[k] = ls_viz_text_w(cr, texts[t], 10.5, k % 2);
            w[k] = k % 2 ? w[k] : ls_viz_text_w(cr, texts[t], 10.5, false);
            cairo_destroy(cr);
            cairo_surface_destroy(s);
        }
        for (int k = 2; k < 6; k += 2)
            ck_assert_msg(fabs(w[k] - w[0]) < 1e-6 * w[0], "'%s': %.4f points at scale %g, %.4f at %g",
                          texts[t], w[k], scales[k], w[0], scales[0]);
        for (int k = 3; k < 6; k += 2)
            ck_assert_msg(fabs(w[k] - w[1]) < 1e-6 * w[1], "'%s' bold: %.4f points at scale %g, %.4f at %g",
                          texts[t], w[k], scales[k], w[1], scales[1]);
    }
}
END_TEST


/* Text goes through pango: characters DejaVu Sans lacks come from a
 * fallback font where one is installed, else pango's box with the code
 * point in hex (either way wider than a Latin letter each, never nothing),
 * and bytes that are not UTF-8 (a name from the user's file) draw as
 * U+FFFD instead of putting the cairo context in error. */
START_TEST(text_unicode_and_invalid_bytes)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 200, 40);
    cairo_t *cr = cairo_create(s);
    double one = ls_viz_text_w(cr, "x", 10, false);
    double arrow = ls_viz_text_w(cr, "a \xe2\x86\x92 b", 10, false); /* a -> b */
    double cjk = ls_viz_text_w(cr, "\xe6\xbc\xa2\xe5\xad\x97", 10, false); /* two Han characters */
    ck_assert(one > 3 && one < 10);
    ck_assert(arrow > 3 * one);
    ck_assert_msg(cjk > 1.5 * one, "two CJK characters: %.2f points, 'x': %.2f", cjk, one);
    static const char bad[] = "@f\xff\xfe" "oo";
    double wbad = ls_viz_text_w(cr, bad, 10, false);
    ck_assert(wbad > ls_viz_text_w(cr, "@foo", 10, false));
    ls_viz_text_at(cr, bad, 4, 20, 10, false, 0);
    ck_assert_int_eq(cairo_status(cr), CAIRO_STATUS_SUCCESS);
    /* something was drawn: a dark pixel on the white-less transparent image */
    cairo_surface_flush(s);
    const unsigned char *px = cairo_image_surface_get_data(s);
    int stride = cairo_image_surface_get_stride(s), inked = 0;
    for (int y = 0; y < 40; y++)
        for (int x = 0; x < 200; x++)
            inked += px[y * stride + 4 * x + 3] > 128;
    ck_assert_int_gt(inked, 20);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
}
END_TEST

START_TEST(layout_highlight_and_iteration)
{
    ls_derived dv;
    ls_module *m = derive_example("seed000_example2.mlir", &dv);
    ls_figure f;
    ls_diag d;
    ls_diag_clear(&d);
    ls_layout_view v = default_view();
    v.thread = 42;
    v.iteration = 3;
    ck_assert(ls_viz_layout(&m->problems[0], &dv, &v, &f, &d) == LS_OK);
    int hits = 0;
    for (int r = 0; r < f.panels[0].rows; r++)
        for (int c = 0; c < f.panels[0].cols; c++) {
            ls_cell *x = cell(&f, 0, r, c);
            bool mine = strcmp(x->label[0], "T42") == 0;
            ck_assert(mine ? (x->flags & LS_CELL_HIGHLIGHT) : (x->flags & LS_CELL_DIM));
            hits += mine;
        }
    ck_assert_int_eq(hits, 4); /* one element per row group of 4: 16 rows / 4 */
    ck_assert_str_eq(f.panels[0].col_head[0], "96"); /* iteration 3 starts at d1 = 3 * 32 */
    ls_figure_free(&f);
    /* out-of-range requests are errors naming the flag */
    v.iteration = 12;
    ls_diag_clear(&d);
    ck_assert(ls_viz_layout(&m->problems[0], &dv, &v, &f, &d) == LS_ERR_USAGE);
    ck_assert_str_eq(d.file, "--iteration");
    ls_figure_free(&f);
    free(m);
}
END_TEST

/* Example 1's tile is 4 x 512 along (d0, d2): aggregated 8 columns per cell,
 * exactly one thread's 8 elements. */
START_TEST(layout_aggregates_big_tiles)
{
    ls_derived dv;
    ls_module *m = derive_example("seed000_example1.mlir", &dv);
    ls_figure f;
    ls_diag d;
    ls_diag_clear(&d);
    ls_layout_view v = default_view();
    ck_assert(ls_viz_layout(&m->problems[0], &dv, &v, &f, &d) == LS_OK);
    ck_assert_int_eq(f.panels[0].rows, 4);
    ck_assert_int_eq(f.panels[0].cols, 64);
    ck_assert_str_eq(cell(&f, 0, 0, 5)->label[0], "T5");
    ck_assert_str_eq(cell(&f, 0, 1, 5)->label[1], "V8-15");
    ck_assert_str_eq(f.panels[0].col_head[1], "8-15");
    bool said = false;
    for (int i = 0; i < f.n_notes; i++)
        said |= strstr(f.notes[i], "Aggregated") != NULL;
    ck_assert(said);
    ls_figure_free(&f);
    free(m);
}
END_TEST

/* Seed 002's 64x64 layout: lane = r % 16 + 16 * ((c / 4) % 4), subgroup r / 32. */
START_TEST(nested_seed002)
{
    ls_diag d;
    ls_module *m = load_example("seed002_nested_64x64.mlir", &d);
    ck_assert(d.status == LS_OK && m->n_layouts >= 1);
    ls_figure f;
    ck_assert(ls_viz_nested(&m->layouts[0].layout, m->layouts[0].name, -1, -1, -1, &f, &d) ==
              LS_OK);
    for (int r = 0; r < 64; r += 7)
        for (int c = 0; c < 64; c += 5) {
            char want[16];
            snprintf(want, sizeof want, "T%d", r % 16 + 16 * ((c / 4) % 4));
            ck_assert_str_eq(cell(&f, 0, r, c)->label[0], want);
            ck_assert_int_eq(cell(&f, 0, r, c)->group, r / 32);
        }
    const char *png = tmp_path("nested.png");
    export_png(png, &f, NULL, 1);
    image im = read_png(png);
    uint8_t rgb[3];
    cell_pixel(&f, &im, 0, 33, 13, 1, rgb); /* subgroup 1, lane 1 + 48 = 49 */
    assert_colour(rgb, ls_viz_thread_colour(1, 49), 1);
    free(im.px);
    ls_figure_free(&f);
    /* thread 120 = lane 56 of subgroup 1 */
    ck_assert(ls_viz_nested(&m->layouts[0].layout, m->layouts[0].name, -1, -1, 120, &f, &d) ==
              LS_OK);
    ck_assert(cell(&f, 0, 40, 13)->flags & LS_CELL_HIGHLIGHT);
    ck_assert(cell(&f, 0, 8, 13)->flags & LS_CELL_DIM); /* lane 56 of subgroup 0 */
    ls_figure_free(&f);
    free(m);
}
END_TEST

/* Seed 001's xor_shuffle<16, 4> table: row 1 reads 5 4 7 6, row 2 A B 8 9. */
START_TEST(swizzle_seed001)
{
    ls_diag d;
    ls_module *m = load_example("seed001_xor_shuffle.mlir", &d);
    ck_assert(d.status == LS_OK && m->n_swizzles >= 1);
    ls_figure f;
    ck_assert(ls_viz_swizzle(&m->swizzles[0].swizzle, "", 0, 4, 32, 4, &f, &d) == LS_OK);
    ck_assert_int_eq(f.n_panels, 2);
    const char *row1 = "5476", *row2 = "AB89";
    for (int p = 0; p < 4; p++) {
        char a[2] = {row1[p], 0}, b[2] = {row2[p], 0}, c[2] = {"4567"[p], 0};
        ck_assert_str_eq(cell(&f, 1, 1, p)->label[0], a);
        ck_assert_str_eq(cell(&f, 1, 2, p)->label[0], b);
        ck_assert_str_eq(cell(&f, 0, 1, p)->label[0], c);
    }
    ck_assert_str_eq(cell(&f, 1, 1, 0)->label[1], "b16-19");
    /* a moved block keeps its colour */
    const char *png = tmp_path("swizzle.png");
    export_png(png, &f, NULL, 1);
    image im = read_png(png);
    uint8_t before[3], after[3];
    cell_pixel(&f, &im, 0, 1, 1, 1, before); /* block 5 before */
    cell_pixel(&f, &im, 1, 1, 0, 1, after);  /* block 5 after */
    ck_assert(memcmp(before, after, 3) == 0);
    free(im.px);
    ls_figure_free(&f);
    free(m);
}
END_TEST

/* 32 lanes reading a column of a 32 x 32 f32 tile: degree 32 plain, and 1
 * under xor_shuffle<32, 1>, as the engine's test expects. */
START_TEST(banks_swizzle_degrees)
{
    ls_swizzle s = {LS_SWIZZLE_XOR_SHUFFLE, 32, 1, 32, 1, 0, 0};
    ls_figure f;
    ls_diag d;
    ls_diag_clear(&d);
    ck_assert(ls_viz_banks_swizzle(&s, "x", 32, 4, 32, 4, &f, &d) == LS_OK);
    ck_assert_int_eq(f.n_panels, 2);
    ck_assert_str_eq(f.panels[0].row_note[0], "degree 32");
    ck_assert_str_eq(f.panels[1].row_note[0], "degree 1");
    ck_assert(cell(&f, 0, 0, 0)->flags & LS_CELL_ALERT);
    ck_assert_str_eq(cell(&f, 0, 0, 0)->label[1], "32 words");
    ck_assert(!(cell(&f, 1, 0, 0)->flags & LS_CELL_ALERT));
    /* every lane hits a different bank: each bank cell names one lane */
    for (int b = 0; b < 32; b++)
        ck_assert_msg(cell(&f, 1, 0, b)->label[0][0] == 'T' &&
                          strchr(cell(&f, 1, 0, b)->label[0], '+') == NULL,
                      "bank %d: %s", b, cell(&f, 1, 0, b)->label[0]);
    ls_figure_free(&f);
}
END_TEST

/* The cross-subgroup buffer's accesses: the picture's degrees are the ones
 * the engine charges (its stage statistics). */
START_TEST(banks_plan_matches_engine)
{
    ls_derived dv;
    ls_module *m = derive_example("seed000_example2.mlir", &dv);
    ls_diag d;
    ls_diag_clear(&d);
    ls_hw hw;
    ck_assert(ls_hw_load("mi300x", &hw, &d) == LS_OK);
    ls_plan plan;
    ck_assert(ls_plan_build(&m->problems[0], &dv, ls_plan_target_from_arch(hw.arch), &plan, &d) ==
              LS_OK);
    ls_figure f;
    ck_assert(ls_viz_banks_plan(&plan, &hw, &f, &d) == LS_OK);
    ls_sim_result r;
    ck_assert(ls_engine_run(&plan, &hw, &r, NULL, &d) == LS_OK);
    int64_t worst = 0;
    for (int row = 0; row < f.panels[0].rows; row++) {
        long long deg;
        ck_assert(sscanf(f.panels[0].row_note[row], "degree %lld", &deg) == 1);
        if (deg > worst)
            worst = deg;
    }
    ck_assert_int_eq(worst, r.stage[LS_STAGE_CROSS_SUBGROUP].smem_max_degree);
    ck_assert_str_eq(f.panels[0].row_head[0], "write slot 0");
    ls_figure_free(&f);
    /* no cross-subgroup stage: a clear error */
    ls_derived dv1;
    ls_module *m1 = derive_example("seed000_example1.mlir", &dv1);
    ck_assert(ls_plan_build(&m1->problems[0], &dv1, ls_plan_target_from_arch(hw.arch), &plan,
                            &d) == LS_OK);
    ls_diag_clear(&d);
    ck_assert(ls_viz_banks_plan(&plan, &hw, &f, &d) == LS_ERR_INVALID);
    ck_assert(strstr(d.msg, "no cross-subgroup stage") != NULL);
    ls_figure_free(&f);
    free(m);
    free(m1);
}
END_TEST

/* The degrees of one access in a banks panel starting at row: its phase
 * rows' "lanes A-B: degree d" summed (or its one "degree d"); *rows gets
 * how many rows it took. */
static int64_t access_degree(const ls_grid *g, int row, int *rows)
{
    long long a, b, deg;
    if (sscanf(g->row_note[row], "degree %lld", &deg) == 1) {
        *rows = 1;
        return deg;
    }
    int64_t sum = 0;
    int r = row;
    do {
        ck_assert_msg(sscanf(g->row_note[r], "lanes %lld-%lld: degree %lld", &a, &b, &deg) == 3,
                      "row %d: '%s'", r, g->row_note[r]);
        sum += deg;
        r++;
    } while (r < g->rows && (g->row_head[r][0] == '\0' || g->row_head[r][0] == '='));
    *rows = r - row;
    return sum;
}

/* Wide accesses are drawn in the phases the simulator charges: for random
 * swizzles and element sizes, each access's phase degrees add up to
 * ls_bank_conflict_degree of the same addresses, and phases hold
 * banks x bank_bytes / width lanes.  Hand count: xor_shuffle<16, 4> of f32
 * (16-byte accesses, 32 lanes on 32 x 4-byte banks): four phases of 8
 * lanes, degree 4 each without the swizzle (16 cycles), 2 with (8). */
START_TEST(banks_wide_accesses_in_phases)
{
    ls_swizzle s = {LS_SWIZZLE_XOR_SHUFFLE, 16, 4, 16, 1, 0, 0};
    ls_figure f;
    ls_diag d;
    ls_diag_clear(&d);
    ck_assert(ls_viz_banks_swizzle(&s, "x", 32, 4, 32, 4, &f, &d) == LS_OK);
    ck_assert_int_eq(f.panels[0].rows, 16);
    ck_assert_str_eq(f.panels[0].row_head[0], "block col 0");
    ck_assert_str_eq(f.panels[0].row_head[1], "= 16 cycles");
    ck_assert_str_eq(f.panels[0].row_head[4], "block col 1");
    ck_assert_str_eq(f.panels[0].row_note[0], "lanes 0-7: degree 4");
    ck_assert_str_eq(f.panels[0].row_note[3], "lanes 24-31: degree 4");
    ck_assert_str_eq(f.panels[1].row_note[1], "lanes 8-15: degree 2");
    ck_assert_str_eq(f.panels[1].row_head[1], "= 8 cycles");
    /* lanes 8-15's cells name lanes 8.. only */
    ck_assert_str_eq(cell(&f, 0, 1, 0)->label[0], "T8+3");
    ls_figure_free(&f);
    uint64_t rng = 99;
    for (int trial = 0; trial < 200; trial++) {
        ls_swizzle z;
        memset(&z, 0, sizeof z);
        int64_t aw = INT64_C(1) << rng_range(&rng, 0, 3);
        z.kind = rng_range(&rng, 0, 1) ? LS_SWIZZLE_XOR_SHUFFLE : LS_SWIZZLE_ROTATE_ROWS;
        z.row_width = aw << rng_range(&rng, 1, 4);
        z.access_width = aw;
        z.row_stride = z.row_width;
        z.per_phase = 1;
        int64_t eb = INT64_C(1) << rng_range(&rng, 0, 3), lanes = 32 << rng_range(&rng, 0, 1);
        ls_diag_clear(&d);
        if (ls_swizzle_check(&z, "", &d) != LS_OK)
            continue;
        ck_assert_msg(ls_viz_banks_swizzle(&z, "r", lanes, eb, 32, 4, &f, &d) == LS_OK, "%s",
                      d.msg);
        int64_t stride = z.row_stride, bytes = aw * eb;
        for (int sw = 0; sw < 2; sw++) {
            const ls_grid *g = &f.panels[sw];
            int row = 0;
            for (int64_t c = 0; row < g->rows; c++) {
                int64_t addr[64];
                for (int64_t ln = 0; ln < lanes; ln++) {
                    int64_t off = ln * stride + c * aw;
                    addr[ln] = (sw ? ls_swizzle_apply(&z, off) : off) * eb;
                }
                int rows;
                int64_t got = access_degree(g, row, &rows);
                int64_t want = ls_bank_conflict_degree(NULL, addr, (int)lanes, bytes, 32, 4);
                ck_assert_msg(got == want, "trial %d col %lld: picture %lld, engine %lld", trial,
                              (long long)c, (long long)got, (long long)want);
                int64_t per = bytes > 4 ? 128 / bytes : lanes;
                ck_assert_int_eq(rows, (lanes + per - 1) / per);
                row += rows;
            }
        }
        ls_figure_free(&f);
    }
}
END_TEST

/* f64 partials on 32 x 4-byte banks: each buffer access in two phases of
 * 16 lanes; the worst access's phases add up to the engine's degree. */
START_TEST(banks_plan_f64_in_phases)
{
    ls_derived dv;
    ls_diag d;
    ls_module *m = load_example("seed000_example2.mlir", &d);
    ck_assert_msg(d.status == LS_OK, "%s", d.msg);
    m->problems[0].inputs[0].type = LS_ET_F64;
    m->problems[0].acc_type = LS_ET_F64;
    ck_assert_msg(ls_derive(&m->problems[0], &dv, &d) == LS_OK, "%s", d.msg);
    ls_hw hw;
    ck_assert(ls_hw_load("mi300x", &hw, &d) == LS_OK);
    ls_plan plan;
    ck_assert_msg(ls_plan_build(&m->problems[0], &dv, ls_plan_target_from_arch(hw.arch), &plan,
                                &d) == LS_OK, "%s", d.msg);
    ck_assert_int_eq(plan.acc_elem_bytes, 8);
    ls_figure f;
    ck_assert(ls_viz_banks_plan(&plan, &hw, &f, &d) == LS_OK);
    ls_sim_result r;
    ck_assert(ls_engine_run(&plan, &hw, &r, NULL, &d) == LS_OK);
    const ls_grid *g = &f.panels[0];
    int64_t worst = 0;
    int accesses = 0;
    for (int row = 0; row < g->rows; accesses++) {
        int rows;
        int64_t deg = access_degree(g, row, &rows);
        ck_assert(rows == 1 || strncmp(g->row_note[row], "lanes 0-", 8) == 0);
        worst = deg > worst ? deg : worst;
        row += rows;
    }
    ck_assert_int_eq(accesses, 2 * (int)(plan.results_per_thread > 16 ? 16 : plan.results_per_thread));
    ck_assert_int_eq(worst, r.stage[LS_STAGE_CROSS_SUBGROUP].smem_max_degree);
    ck_assert_ptr_nonnull(strstr(f.notes[f.n_notes - 1], "phases of 16 lanes"));
    ls_figure_free(&f);
    free(m);
}
END_TEST

static long file_contains(const char *path, const char *needle, bool exact_page)
{
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    ck_assert(fread(buf, 1, (size_t)n, f) == (size_t)n);
    buf[n] = 0;
    fclose(f);
    long count = 0;
    size_t k = strlen(needle);
    for (long i = 0; i + (long)k <= n; i++)
        if (memcmp(buf + i, needle, k) == 0 && (!exact_page || buf[i + (long)k] != 's'))
            count++;
    free(buf);
    return count;
}
START_TEST(export_pixels_limit)
{
    ls_diag d;
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_export_check_pixels(16384, 8192, &d), LS_OK); /* 2^27 */
    ck_assert_int_eq(ls_export_check_pixels(16384, 8193, &d), LS_ERR_LIMIT);
    ck_assert_str_eq(d.msg, "the picture would be 16384 x 8193 pixels; the limit is 32767 per "
                            "side and 134217728 in all");
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_export_check_pixels(LS_EXPORT_MAX_SIDE, 1, &d), LS_OK);
    ck_assert_int_eq(ls_export_check_pixels(1, LS_EXPORT_MAX_SIDE, &d), LS_OK);
    ck_assert_int_eq(ls_export_check_pixels(LS_EXPORT_MAX_SIDE + 1, 1, &d), LS_ERR_LIMIT);
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_export_check_pixels(1, LS_EXPORT_MAX_SIDE + 1, &d), LS_ERR_LIMIT);
}
END_TEST

/* LS_GRID_MAX_CELLS cells in one panel. */
START_TEST(grid_cells_limit)
{
    ls_figure f;
    memset(&f, 0, sizeof f);
    ck_assert_ptr_nonnull(ls_figure_add_panel(&f, 1024, LS_GRID_MAX_CELLS / 1024));
    ck_assert_ptr_null(ls_figure_add_panel(&f, 1024, LS_GRID_MAX_CELLS / 1024 + 1));
    ck_assert_ptr_null(ls_figure_add_panel(&f, LS_GRID_MAX_CELLS + 1, 1));
    ck_assert_int_eq(f.n_panels, 1);
    ls_figure_free(&f);
}
END_TEST

START_TEST(svg_pdf_and_png_text)
{
    ls_figure f;
    ls_layout_view v = default_view();
    ls_module *m = example2_layout(&v, &f);
    ls_diag d;
    ls_diag_clear(&d);
    const char *svg = tmp_path("l.svg"), *pdf = tmp_path("l.pdf"), *png = tmp_path("l.png");
    ls_export_opts o = {"examples/seed000_example2.mlir", "layout", 1, NULL};
    ck_assert(ls_viz_export(svg, &f, NULL, &o, &d) == LS_OK);
    ck_assert(ls_viz_export(pdf, &f, NULL, &o, &d) == LS_OK);
    ck_assert(ls_viz_export(png, &f, NULL, &o, &d) == LS_OK);
    ck_assert_int_eq(file_contains(svg, "<svg", false), 1);
    ck_assert_int_eq(file_contains(svg, "<?xml", false), 1);
    ck_assert_int_eq(file_contains(pdf, "%PDF-", false), 1);
    ck_assert_int_eq(file_contains(pdf, "/Type /Page", true), 1);
    /* tEXt chunks through libpng */
    FILE *fp = fopen(png, "rb");
    png_structp pr = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(pr);
    png_init_io(pr, fp);
    png_read_info(pr, info);
    png_textp text;
    int n = 0;
    png_get_text(pr, info, &text, &n);
    bool sw = false, src = false, title = false;
    char want_sw[64];
    snprintf(want_sw, sizeof want_sw, "lanescope %s", PACKAGE_VERSION);
    for (int i = 0; i < n; i++) {
        sw |= strcmp(text[i].key, "Software") == 0 && strcmp(text[i].text, want_sw) == 0;
        src |= strcmp(text[i].key, "Source") == 0 &&
               strcmp(text[i].text, "examples/seed000_example2.mlir") == 0;
        title |= strcmp(text[i].key, "Title") == 0 && strncmp(text[i].text, "layout: ", 8) == 0;
    }
    png_destroy_read_struct(&pr, &info, NULL);
    fclose(fp);
    ck_assert(sw && src && title);
    /* bad extension and unwritable folder: errors, and no file left behind */
    ls_diag_clear(&d);
    ck_assert(ls_viz_export(tmp_path("l.gif"), &f, NULL, &o, &d) == LS_ERR_USAGE);
    ck_assert(access(tmp_path("l.gif"), F_OK) != 0);
    ls_diag_clear(&d);
    ck_assert(ls_viz_export("/nonexistent-dir/x.png", &f, NULL, &o, &d) == LS_ERR_IO);
    ck_assert(strstr(d.msg, "/nonexistent-dir/x.png") != NULL);
    ls_figure_free(&f);
    free(m);
}
END_TEST


START_TEST(text_never_clipped_or_overlapping)
{
    /* a layout figure */
    ls_figure f;
    ls_layout_view v = default_view();
    v.thread = 42;
    ls_module *m = example2_layout(&v, &f);
    assert_text_fits("layout", &f, NULL);
    ls_figure_free(&f);
    free(m);
    /* the compare chart over 212 decades, and over one */
    const char *csv = tmp_path("wide.csv");
    FILE *fp = fopen(csv, "w");
    ck_assert(fp != NULL);
    fputs("name,measured_us,simulated_us\nsmall,1e-200,2e-200\nbig,1e11,1.2e11\nmid,5,4\n", fp);
    fclose(fp);
    ls_chart c;
    ls_diag d;
    ls_diag_clear(&d);
    ck_assert_msg(ls_viz_compare_csv(csv, &c, &d) == LS_OK, "%s", d.msg);
    assert_text_fits("compare, 212 decades", NULL, &c);
    ls_chart_free(&c);
    fp = fopen(csv, "w");
    ck_assert(fp != NULL);
    fputs("name,measured_us,simulated_us\na,31,33\nb,47,41\nc,58.3333,60\n", fp);
    fclose(fp);
    ck_assert_msg(ls_viz_compare_csv(csv, &c, &d) == LS_OK, "%s", d.msg);
    assert_text_fits("compare, linear", NULL, &c);
    /* a note longer than the chart is wide (compare's provenance once ran
     * past the edge): cut, with an ellipsis */
    memset(c.notes[c.n_notes], 'x', sizeof c.notes[0] - 1);
    c.notes[c.n_notes][sizeof c.notes[0] - 1] = 0;
    c.n_notes++;
    assert_text_fits("compare, a note wider than the chart", NULL, &c);
    ls_chart_free(&c);
    /* a sweep: linear and log time axes */
    double lin[40], wide[40];
    for (int i = 0; i < 40; i++) {
        lin[i] = 3.1 + 0.07 * i;
        wide[i] = 3.1 * pow(1.9, i);
    }
    ls_viz_sweep("Config sweep: x on h100", "40 configs simulated", lin, 40, 3, 2.9, &c);
    assert_text_fits("sweep, linear", NULL, &c);
    ls_chart_free(&c);
    ls_viz_sweep("Config sweep: x on h100", "40 configs simulated", wide, 40, 3, 2.9, &c);
    assert_text_fits("sweep, log", NULL, &c);
    ls_chart_free(&c);
    /* traffic and timeline from a simulation */
    ls_derived dv;
    ls_plan plan;
    ls_hw hw;
    ls_sim_result r;
    ls_trace tr = {NULL, 0, 0, false, 0};
    simulate("seed000_example3.mlir", &m, &dv, &plan, &hw, &r, &tr);
    ls_viz_traffic(&m->problems[0], &hw, &r, &c);
    assert_text_fits("traffic", NULL, &c);
    ls_chart_free(&c);
    ck_assert(ls_viz_timeline(&m->problems[0], &hw, &r, &tr, 2, &c, &d) == LS_OK);
    assert_text_fits("timeline", NULL, &c);
    ls_chart_free(&c);
    /* the roofline of this run with its bottleneck line as a note */
    ls_roof_point pt;
    ls_viz_roof_point(&m->problems[0], &plan, &hw, &r, &pt);
    ls_viz_roofline("roofline of x on mi300x", "1 reduction simulated", &pt, 1, hw.dram_gbps,
                    ls_viz_issue_gops(&hw), &c);
    assert_text_fits("roofline", NULL, &c);
    ls_chart_free(&c);
    free(tr.slices);
    free(m);
}
END_TEST

/* ---- golden images ---- */

static void golden(const char *name, const ls_figure *f, const ls_chart *c)
{
    char gpath[512];
    snprintf(gpath, sizeof gpath, "%s/%s", LS_TEST_GOLDEN, name);
    const char *out = tmp_path(name);
    export_png(out, f, c, 1);
    if (getenv("LS_REGEN_GOLDEN")) {
        export_png(gpath, f, c, 1);
        fprintf(stderr, "regenerated %s: look at it before committing\n", gpath);
        return;
    }
    image a = read_png(out), b = read_png(gpath);
    ck_assert_msg(a.w == b.w && a.h == b.h, "%s: %dx%d, golden %dx%d", name, a.w, a.h, b.w, b.h);
    /* Text rasterisation may differ by a pixel between font builds; the
     * cells, bars and borders may not.  Allow 1.5% of pixels to differ. */
    size_t differ = 0, n = (size_t)a.w * (size_t)a.h;
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++)
            if (abs(a.px[3 * i + k] - b.px[3 * i + k]) > 40) {
                differ++;
                break;
            }
    ck_assert_msg(differ * 1000 <= n * 15, "%s: %zu of %zu pixels differ from the golden image",
                  name, differ, n);
    free(a.px);
    free(b.px);
}

START_TEST(golden_images)
{
    ls_figure f;
    ls_diag d;
    ls_diag_clear(&d);
    ls_layout_view v = default_view();
    v.thread = 42;
    ls_module *m = example2_layout(&v, &f);
    golden("layout_example2_t42.png", &f, NULL);
    ls_figure_free(&f);
    free(m);
    m = load_example("seed001_xor_shuffle.mlir", &d);
    ck_assert(ls_viz_swizzle(&m->swizzles[0].swizzle, m->swizzles[0].name, 0, 4, 32, 4, &f, &d) ==
              LS_OK);
    golden("swizzle_seed001.png", &f, NULL);
    ls_figure_free(&f);
    free(m);
    char path[512];
    snprintf(path, sizeof path, "%s/../tests/data/compare_synthetic.csv", LS_TEST_EXAMPLES);
    ls_chart c;
    ck_assert(ls_viz_compare_csv(path, &c, &d) == LS_OK);
    snprintf(c.title, sizeof c.title, "simulated vs measured: compare_synthetic.csv");
    golden("compare_synthetic.png", NULL, &c);
    ls_chart_free(&c);
}
END_TEST

static Suite *viz_suite(void)
{
    Suite *s = suite_create("viz");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_checked_fixture(tc, NULL, remove_tmpdir);
    tcase_add_test(tc, layout_example2_thread42);
    tcase_add_test(tc, layout_highlight_and_iteration);
    tcase_add_test(tc, layout_aggregates_big_tiles);
    tcase_add_test(tc, nested_seed002);
    tcase_add_test(tc, swizzle_seed001);
    tcase_add_test(tc, banks_swizzle_degrees);
    tcase_add_test(tc, banks_plan_matches_engine);
    tcase_add_test(tc, banks_wide_accesses_in_phases);
    tcase_add_test(tc, banks_plan_f64_in_phases);
    tcase_add_test(tc, grid_cells_limit);
    tcase_add_test(tc, export_pixels_limit);
    tcase_add_test(tc, svg_pdf_and_png_text);
    tcase_add_test(tc, golden_images);
    tcase_add_test(tc, layout_subgroup_marks);
    tcase_add_test(tc, text_width_scale_free);
    tcase_add_test(tc, text_unicode_and_invalid_bytes);
    tcase_add_test(tc, text_never_clipped_or_overlapping);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(viz_suite)
