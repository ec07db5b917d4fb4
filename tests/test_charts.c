/* test_charts.c: the chart pictures -- per-stage traffic against the
 * simulation's figures, the timeline's rows and waves, measured-vs-
 * simulated from CSV (and its errors and limits), roofline points under
 * their roofs, and the axes' round ticks. */
#include "config.h"
#include "lanescope/compare.h"
#include "../viz/charts_internal.h" /* the axis ticks */
#include "viz_util.h"

START_TEST(traffic_from_simulation)
{
    ls_module *m;
    ls_derived dv;
    ls_plan plan;
    ls_hw hw;
    ls_sim_result r;
    simulate("seed000_example2.mlir", &m, &dv, &plan, &hw, &r, NULL);
    ls_chart c;
    ls_viz_traffic(&m->problems[0], &hw, &r, &c);
    for (int s = 0; s < LS_STAGE_COUNT; s++) {
        ck_assert(c.metric[0][s] == (double)r.stage[s].critical_cycles);
        ck_assert(c.metric[1][s] == (double)r.stage[s].global_bytes);
        ck_assert(c.metric[5][s] == (double)r.stage[s].barrier_wait_cycles);
    }
    ck_assert(c.metric[5][LS_STAGE_CROSS_SUBGROUP] == 6048); /* the engine test's figure */
    ck_assert(fabs(c.roofline_cycles - r.dram_bytes / hw.dram_bytes_per_cycle) < 1e-9);
    ck_assert(c.roofline_cycles < c.sim_cycles);
    const char *png = tmp_path("traffic.png");
    export_png(png, NULL, &c, 1);
    image im = read_png(png);
    double w, h;
    ls_chart_size(&c, &w, &h);
    ck_assert_int_eq(im.w, (int)w);
    ck_assert_int_eq(im.h, (int)h);
    /* the longest bar of the first panel (load+accumulate) starts at x = 130 */
    uint8_t rgb[3];
    double y = 18 + 15 * 1.5 + 10.5 * 1.6 + 10 + 22 + TRAFFIC_TEST_MID;
    pixel(&im, 135, y, rgb);
    assert_colour(rgb, ls_viz_series_colour(0), 1);
    free(im.px);
    ls_chart_free(&c);
    free(m);
}
END_TEST

START_TEST(timeline_rows_and_waves)
{
    ls_module *m;
    ls_derived dv;
    ls_plan plan;
    ls_hw hw;
    ls_sim_result r;
    ls_trace tr = {NULL, 0, 0, false, 0};
    simulate("seed000_example3.mlir", &m, &dv, &plan, &hw, &r, &tr);
    ls_chart c;
    ls_diag d;
    ls_diag_clear(&d);
    ck_assert(ls_viz_timeline(&m->problems[0], &hw, &r, &tr, 2, &c, &d) == LS_OK);
    size_t want = 0;
    int32_t tracks = 0;
    for (size_t i = 0; i < tr.n; i++) {
        want += tr.slices[i].wgp < 2;
        if (tr.slices[i].wgp < 2 && tr.slices[i].track + 1 > tracks)
            tracks = tr.slices[i].track + 1;
    }
    ck_assert_uint_eq(c.n_bars, want);
    ck_assert_int_eq(c.n_rows, 2 * tracks);
    ck_assert(c.t_end == (double)r.cycles);
    for (size_t i = 0; i < c.n_bars; i++)
        ck_assert(c.bars[i].end <= c.t_end && c.bars[i].start <= c.bars[i].end);
    ck_assert(c.cursor < 0); /* none unless asked for */
    const char *png = tmp_path("timeline.png");
    export_png(png, NULL, &c, 1);
    image im = read_png(png);
    ck_assert_int_eq(im.w, 1000);
    /* a cursor at half the run: the pixels it changes are its red line and
     * its label, in one narrow band */
    c.cursor = c.t_end / 2;
    const char *png2 = tmp_path("timeline_cursor.png");
    export_png(png2, NULL, &c, 1);
    image im2 = read_png(png2);
    ck_assert(im2.w == im.w && im2.h == im.h);
    int changed = 0, red = 0, xmin = im.w, xmax = -1;
    for (int y = 0; y < im.h; y++)
        for (int x = 0; x < im.w; x++) {
            const uint8_t *a = im.px + ((size_t)y * im.w + x) * 3, *b = im2.px + ((size_t)y * im.w + x) * 3;
            if (memcmp(a, b, 3) == 0)
                continue;
            changed++;
            red += b[0] > 150 && b[1] < 110 && b[2] < 110;
            xmin = x < xmin ? x : xmin;
            xmax = x > xmax ? x : xmax;
        }
    ck_assert_int_gt(changed, 0);
    ck_assert_int_gt(red, changed / 3);
    ck_assert_int_lt(xmax - xmin, 80); /* a line and a short label, not a shifted chart */
    free(im2.px);
    free(im.px);
    ls_chart_free(&c);
    free(tr.slices);
    free(m);
}
END_TEST

/* Pixels of colour want in image column x. */
static int column_count(const image *im, int x, ls_rgb want)
{
    uint8_t w[3];
    ls_rgb_bytes(want, w);
    int n = 0;
    for (int y = 0; y < im->h; y++) {
        const uint8_t *p = im->px + ((size_t)y * (size_t)im->w + (size_t)x) * 3;
        n += abs(p[0] - w[0]) <= 2 && abs(p[1] - w[1]) <= 2 && abs(p[2] - w[2]) <= 2;
    }
    return n;
}

/* A loop that stores every trip has a load span and a store span over the
 * same cycles: they split the row, each visible, rather than the later
 * drawn over the earlier; a row of one stage keeps its full height. */
START_TEST(timeline_overlapping_stages_split_the_row)
{
    ls_hw hw;
    ls_diag d;
    ls_diag_clear(&d);
    ck_assert(ls_hw_load("h100", &hw, &d) == LS_OK);
    ls_problem p;
    memset(&p, 0, sizeof p);
    snprintf(p.name, sizeof p.name, "@loop");
    ls_sim_result r;
    memset(&r, 0, sizeof r);
    r.cycles = 1000;
    r.workgroups = r.waves = r.occupancy = 1;
    ls_trace_slice sl[3] = {
        {0, 0, 0, 0, LS_STAGE_LOAD_ACCUMULATE, 0, 900},
        {0, 0, 0, 0, LS_STAGE_STORE, 100, 1000},
        {0, 1, 0, 1, LS_STAGE_LOAD_ACCUMULATE, 0, 1000},
    };
    ls_trace tr = {sl, 3, 3, false, 0};
    ls_chart c;
    ck_assert(ls_viz_timeline(&p, &hw, &r, &tr, 1, &c, &d) == LS_OK);
    ck_assert_int_eq(c.n_rows, 2);
    const char *png = tmp_path("timeline_split.png");
    export_png(png, NULL, &c, 1);
    image im = read_png(png);
    int x = im.w / 2; /* mid-run: both spans of row 0, the load of row 1 */
    int load = column_count(&im, x, ls_viz_series_colour(0));
    int store = column_count(&im, x, ls_viz_series_colour(6));
    ck_assert_int_gt(store, 0);
    /* row 0's half of load and row 1's whole: three times the store's */
    ck_assert_msg(abs(load - 3 * store) <= 3, "load %d store %d", load, store);
    free(im.px);
    ls_chart_free(&c);
}
END_TEST

START_TEST(compare_csv_and_errors)
{
    char path[512];
    snprintf(path, sizeof path, "%s/../tests/data/compare_synthetic.csv", LS_TEST_EXAMPLES);
    ls_chart c;
    ls_diag d;
    ls_diag_clear(&d);
    ck_assert_msg(ls_viz_compare_csv(path, &c, &d) == LS_OK, "%s", d.msg);
    ck_assert_uint_eq(c.n_points, 6);
    double mean, mx, w10, w25;
    ls_compare_errors(c.points, c.n_points, &mean, &mx, &w10, &w25);
    /* |errors| 0.1, 0.05, 0.3, 0.025, 0.0625, 0.25 */
    ck_assert(fabs(mean - 0.13125) < 1e-12);
    ck_assert(fabs(mx - 0.3) < 1e-12);
    ck_assert(fabs(w10 - 4.0 / 6) < 1e-12);
    ck_assert(fabs(w25 - 5.0 / 6) < 1e-12);
    ck_assert(strstr(c.subtitle, "mean |error| 13.1%") != NULL);
    const char *pdf = tmp_path("compare.pdf");
    ls_export_opts o = {path, "compare", 1, NULL};
    ck_assert(ls_viz_export(pdf, NULL, &c, &o, &d) == LS_OK);
    ls_chart_free(&c);
    /* a bad row: file, line and column of the field */
    const char *bad = tmp_path("bad.csv");
    FILE *f = fopen(bad, "w");
    fputs("name,measured_us,simulated_us\nk1,10,12\nk2,abc,3\n", f);
    fclose(f);
    ls_diag_clear(&d);
    ck_assert(ls_viz_compare_csv(bad, &c, &d) == LS_ERR_SYNTAX);
    ck_assert_int_eq(d.line, 3);
    ck_assert_int_eq(d.col, 4);
    ck_assert(strstr(d.msg, "measured_us") != NULL);
    f = fopen(bad, "w");
    fputs("name,measured_us,simulated_us\nk1,10\n", f);
    fclose(f);
    ls_diag_clear(&d);
    ck_assert(ls_viz_compare_csv(bad, &c, &d) == LS_ERR_SYNTAX);
    ck_assert_msg(strstr(d.msg, "expected 3 fields, as the column line names, found 2"), "%s",
                  d.msg);
    /* no column line: the numbers are not taken by position */
    f = fopen(bad, "w");
    fputs("k1,10,12\n", f);
    fclose(f);
    ls_diag_clear(&d);
    ck_assert(ls_viz_compare_csv(bad, &c, &d) == LS_ERR_SYNTAX);
    ck_assert_msg(strstr(d.msg, "the column line has no 'name' column"), "%s", d.msg);
    /* columns by name, in any order, extra ones skipped; RFC 4180 quotes */
    f = fopen(bad, "w");
    fputs("simulated_us,note,measured_us,name\n12,\"x, \"\"y\"\"\",10,\"k,1\"\n", f);
    fclose(f);
    ls_diag_clear(&d);
    ck_assert_msg(ls_viz_compare_csv(bad, &c, &d) == LS_OK, "%s", d.msg);
    ck_assert_int_eq(c.n_points, 1);
    ck_assert_str_eq(c.points[0].name, "k,1");
    ck_assert(c.points[0].measured == 10 && c.points[0].simulated == 12);
    ls_chart_free(&c);
    /* an unclosed quote; a timing past the axes' range; a NUL byte */
    static const struct {
        const char *text;
        size_t len;
        int line, col;
        const char *msg;
    } cases[] = {
        {"name,measured_us,simulated_us\n\"k1,10,12\n", 0, 2, 1, "must close its quote"},
        {"name,measured_us,simulated_us\nk1,1e308,12\n", 0, 2, 4,
         "measured_us must be a positive number of microseconds up to 1e+12, found '1e308'"},
        {"name,measured_us,simulated_us\nk1,10,inf\n", 0, 2, 7, "found 'inf'"},
        {"name,measured_us\0,simulated_us\n", 31, 1, 17, "a NUL byte"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        f = fopen(bad, "wb");
        size_t len = cases[i].len ? cases[i].len : strlen(cases[i].text);
        fwrite(cases[i].text, 1, len, f);
        fclose(f);
        ls_diag_clear(&d);
        ck_assert_int_eq(ls_viz_compare_csv(bad, &c, &d), LS_ERR_SYNTAX);
        ck_assert_msg(strstr(d.msg, cases[i].msg), "case %zu: %s", i, d.msg);
        ck_assert_int_eq(d.line, cases[i].line);
        ck_assert_int_eq(d.col, cases[i].col);
    }
}
END_TEST


/* draw compare's limits, each at the limit and one past: a timing of
 * 1e12 us, LS_COMPARE_MAX_POINTS rows, LS_COMPARE_MAX_LINE bytes in a line,
 * LS_COMPARE_MAX_FIELDS fields. */
static ls_status compare_csv_text(const char *text, ls_diag *d)
{
    const char *path = tmp_path("limits.csv");
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    ls_chart c;
    ls_diag_clear(d);
    ls_status st = ls_viz_compare_csv(path, &c, d);
    ls_chart_free(&c);
    return st;
}

START_TEST(compare_csv_limits)
{
    ls_diag d;
    ck_assert_msg(compare_csv_text("name,measured_us,simulated_us\nk,1000000000000,1\n", &d) ==
                      LS_OK,
                  "%s", d.msg);
    /* the next decimal past 1e12 that a double tells apart from it */
    ck_assert_int_ne(compare_csv_text("name,measured_us,simulated_us\nk,1000000000000.001,1\n", &d),
                     LS_OK);
    ck_assert_msg(strstr(d.msg, "1e+12"), "%s", d.msg);
    for (int n = LS_COMPARE_MAX_POINTS; n <= LS_COMPARE_MAX_POINTS + 1; n++) {
        size_t cap = (size_t)n * 24 + 64, at = 0;
        char *text = ls_xmalloc(cap);
        at += (size_t)snprintf(text, cap, "name,measured_us,simulated_us\n");
        for (int i = 0; i < n; i++)
            at += (size_t)snprintf(text + at, cap - at, "k%d,%d,2\n", i, i + 1);
        ls_status st = compare_csv_text(text, &d);
        free(text);
        if (n == LS_COMPARE_MAX_POINTS) {
            ck_assert_msg(st == LS_OK, "%s", d.msg);
        } else {
            ck_assert_int_eq(st, LS_ERR_LIMIT);
            ck_assert_msg(strstr(d.msg, "100000"), "%s", d.msg);
        }
    }
    for (int n = LS_COMPARE_MAX_LINE; n <= LS_COMPARE_MAX_LINE + 1; n++) {
        /* the row's name pads it to n bytes (CRLF not counted) */
        char *text = ls_xmalloc((size_t)n + 64);
        int at = snprintf(text, 64, "name,measured_us,simulated_us\n");
        memset(text + at, 'k', (size_t)n - 4);
        memcpy(text + at + n - 4, ",1,2\r\n", 7);
        ls_status st = compare_csv_text(text, &d);
        free(text);
        if (n == LS_COMPARE_MAX_LINE) {
            ck_assert_msg(st == LS_OK, "%s", d.msg);
        } else {
            ck_assert_int_eq(st, LS_ERR_LIMIT);
            ck_assert_str_eq(d.msg, "line longer than 4096 bytes (the limit)");
        }
    }
    for (int n = LS_COMPARE_MAX_FIELDS; n <= LS_COMPARE_MAX_FIELDS + 1; n++) {
        char text[1024] = "name,measured_us,simulated_us", row[256] = "k,1,2";
        for (int i = 3; i < n; i++) {
            snprintf(text + strlen(text), sizeof text - strlen(text), ",x%d", i);
            strcat(row, ",");
        }
        strcat(text, "\n");
        strcat(text, row);
        strcat(text, "\n");
        ls_status st = compare_csv_text(text, &d);
        if (n == LS_COMPARE_MAX_FIELDS) {
            ck_assert_msg(st == LS_OK, "%s", d.msg);
        } else {
            ck_assert_int_eq(st, LS_ERR_LIMIT);
            ck_assert_str_eq(d.msg, "more than 64 fields");
        }
    }
}
END_TEST

/* A PNG's size: LS_EXPORT_MAX_PIXELS in all, LS_EXPORT_MAX_SIDE a side. */

/* A roofline point is the run's own figures: ops over DRAM bytes and
 * kernel time, under both roofs, and under its Little's-law ceiling; its
 * dot sits where the axes put those values. */
START_TEST(roofline_points_under_roofs)
{
    static const char *const files[] = {"seed000_example2.mlir", "seed000_example3.mlir"};
    ls_roof_point pts[2];
    ls_hw hw;
    for (int f = 0; f < 2; f++) {
        ls_module *m;
        ls_derived dv;
        ls_plan plan;
        ls_sim_result r;
        simulate(files[f], &m, &dv, &plan, &hw, &r, NULL);
        ls_viz_roof_point(&m->problems[0], &plan, &hw, &r, &pts[f]);
        double elems = 1;
        for (int i = 0; i < m->problems[0].rank; i++)
            elems *= (double)m->problems[0].size[i];
        ck_assert_double_eq_tol(pts[f].intensity, elems / (double)r.dram_bytes, 1e-12);
        ck_assert_double_eq_tol(pts[f].gops, elems / (r.kernel_us * 1e3), 1e-9);
        ck_assert(pts[f].gops <= pts[f].intensity * hw.dram_gbps * 1.0001);
        ck_assert(pts[f].gops <= ls_viz_issue_gops(&hw));
        if (pts[f].mlp_gops > 0)
            ck_assert(pts[f].gops <= pts[f].mlp_gops * 1.05);
        ck_assert_ptr_nonnull(strstr(pts[f].verdict, "bound by"));
        free(m);
    }
    ls_chart c;
    ls_viz_roofline("roofline", "2 reductions", pts, 2, hw.dram_gbps, ls_viz_issue_gops(&hw), &c);
    ck_assert_int_eq(c.n_roof_points, 2);
    ck_assert_ptr_nonnull(strstr(c.notes[1], "1. "));
    ls_chart_free(&c);
    /* only the points with a verdict are numbered and noted (a sweep's
     * best, IREE's and the given config among hundreds) */
    pts[0].verdict[0] = 0;
    ls_viz_roofline("roofline", "2 configs", pts, 2, hw.dram_gbps, ls_viz_issue_gops(&hw), &c);
    ck_assert(strncmp(c.notes[1], "1. ", 3) == 0);
    ck_assert_ptr_nonnull(strstr(c.notes[1], pts[1].name));
    for (int i = 2; i < c.n_notes; i++) /* continuation lines of the one verdict */
        ck_assert(strncmp(c.notes[i], "    ", 4) == 0);
    assert_text_fits("roofline, one noted", NULL, &c);
    ls_chart_free(&c);
    /* two noted points on one spot (a sweep's best that is IREE's too):
     * their numbers must not cover each other (this hung once, when a
     * moved label could land where it started) */
    pts[0] = pts[1];
    ls_viz_roofline("roofline", "2 configs", pts, 2, hw.dram_gbps, ls_viz_issue_gops(&hw), &c);
    assert_text_fits("roofline, one spot", NULL, &c);
    ls_chart_free(&c);
}
END_TEST

/* ---- axis ticks (viz/ticks.c) ---- */

static void tick_labels(const ls_axis_ticks *t, char *buf, size_t size)
{
    size_t u = 0;
    buf[0] = '\0';
    for (int i = 0; i < t->n && u < size; i++) {
        char one[32];
        ls_tick_label(t, i, one, sizeof one);
        u += (size_t)snprintf(buf + u, size - u, "%s%s", i ? "|" : "", one);
    }
}

START_TEST(axis_ticks)
{
    ls_axis_ticks t;
    char buf[1024];
    /* the timeline of a 37039-cycle run: round steps, one unit ("5 k", not 5000) */
    ls_ticks_linear(0, 37039, 800, 800 / 9.0, &t);
    tick_labels(&t, buf, sizeof buf);
    ck_assert_str_eq(buf, "0|5 k|10 k|15 k|20 k|25 k|30 k|35 k");
    /* a linear time axis ending off a round value: ticks stay round */
    ls_ticks_linear(0, 70, 300, 300 / 8.0, &t);
    tick_labels(&t, buf, sizeof buf);
    ck_assert_str_eq(buf, "0|10|20|30|40|50|60|70");
    ls_ticks_linear(0, 0.7, 300, 300 / 8.0, &t);
    tick_labels(&t, buf, sizeof buf);
    ck_assert_str_eq(buf, "0.0|0.1|0.2|0.3|0.4|0.5|0.6|0.7");
    /* log: every decade while they fit ... */
    ls_ticks_log(0, 3, 440, 40, &t);
    tick_labels(&t, buf, sizeof buf);
    ck_assert_str_eq(buf, "1|10|100|1000");
    /* ... and over 212 decades, every 20th (2.07 points a decade) */
    ls_ticks_log(-200, 12, 440, 40, &t);
    tick_labels(&t, buf, sizeof buf);
    ck_assert_str_eq(buf, "1e-200|1e-180|1e-160|1e-140|1e-120|1e-100|1e-80|1e-60|1e-40|1e-20|1");
    /* property: over random ranges, ticks inside the range, increasing,
     * at least the gap apart, round (integer multiples of the step) */
    uint64_t r = 12345;
    for (int k = 0; k < 2000; k++) {
        r = r * 6364136223846793005ull + 1442695040888963407ull;
        double lo = (double)(r >> 40) / 1e3 - 8000, span = pow(10, (double)((r >> 20) & 0xfff) / 400 - 3);
        double len = 100 + (double)((r >> 8) & 0x3ff), gap = 10 + (double)(r & 0x3f);
        bool log_axis = k % 2;
        if (log_axis) /* the charts' log axes span whole decades */
            span = ceil(span);
        if (log_axis)
            ls_ticks_log(lo / 100, lo / 100 + span, len, gap, &t);
        else
            ls_ticks_linear(lo, lo + span, len, gap, &t);
        double a = log_axis ? lo / 100 : lo, b = a + span;
        ck_assert_int_ge(t.n, 1);
        ck_assert_int_le(t.n, LS_MAX_TICKS);
        for (int i = 0; i < t.n; i++) {
            ck_assert_msg(t.v[i] >= a - 1e-9 * fabs(a) - 1e-12 && t.v[i] <= b + 1e-9 * fabs(b) + 1e-12,
                          "tick %g outside [%g, %g]", t.v[i], a, b);
            double q = t.v[i] / t.step;
            ck_assert_msg(fabs(q - round(q)) < 1e-6, "tick %g is not a multiple of %g", t.v[i], t.step);
            if (i > 0)
                ck_assert_msg((t.v[i] - t.v[i - 1]) * len / span >= gap * (1 - 1e-9),
                              "ticks %g and %g closer than %g points", t.v[i - 1], t.v[i], gap);
        }
    }
}
END_TEST

static Suite *charts_suite(void)
{
    Suite *s = suite_create("charts");
    TCase *tc = tcase_create("charts");
    tcase_set_timeout(tc, 60);
    tcase_add_checked_fixture(tc, NULL, remove_tmpdir);
    tcase_add_test(tc, traffic_from_simulation);
    tcase_add_test(tc, timeline_rows_and_waves);
    tcase_add_test(tc, timeline_overlapping_stages_split_the_row);
    tcase_add_test(tc, compare_csv_and_errors);
    tcase_add_test(tc, compare_csv_limits);
    tcase_add_test(tc, roofline_points_under_roofs);
    tcase_add_test(tc, axis_ticks);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(charts_suite)
