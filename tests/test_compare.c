/* test_compare.c: the comparison module (compare.h) -- the statistics
 * against values worked by hand (the working is in the comments), suite
 * parsing with its errors at line:col, and the measured-times CSV: reading,
 * bad rows, missing and extra cases, and a write/read round trip. */
#include <math.h>

#include "lanescope/compare.h"
#include "testutil.h"

#define NEAR(a, b) (fabs((a) - (b)) < 1e-12)

/* ------------------------------------------------------------ statistics */

START_TEST(pearson_by_hand)
{
    /* x = 1..5, y = 2 4 5 4 5: means 3 and 4; deviations -2 -1 0 1 2 and
     * -2 0 1 0 1; sum of products 4 + 0 + 0 + 0 + 2 = 6; squares 10 and 6:
     * r = 6 / sqrt(60) = 0.774596669241483. */
    double x[] = {1, 2, 3, 4, 5}, y[] = {2, 4, 5, 4, 5};
    ck_assert(NEAR(ls_stat_pearson(x, y, 5), 6 / sqrt(60)));
    ck_assert(NEAR(ls_stat_pearson(x, y, 5), 0.774596669241483));
    /* y = 10 - 2x: exactly -1 */
    double z[] = {8, 6, 4, 2, 0};
    ck_assert(NEAR(ls_stat_pearson(x, z, 5), -1));
    /* undefined: one value, or a constant series */
    double c[] = {7, 7, 7, 7, 7};
    ck_assert(isnan(ls_stat_pearson(x, y, 1)));
    ck_assert(isnan(ls_stat_pearson(x, c, 5)));
}
END_TEST

START_TEST(ranks_and_spearman_with_ties)
{
    /* x = 10 20 20 30 40: the two 20s share ranks 2 and 3 -> 2.5 each.
     * y = 1 3 2 2 5: sorted 1 2 2 3 5, so ranks 1, 4, 2.5, 2.5, 5. */
    double x[] = {10, 20, 20, 30, 40}, y[] = {1, 3, 2, 2, 5};
    double rx[5], ry[5];
    ls_stat_ranks(x, 5, rx);
    ls_stat_ranks(y, 5, ry);
    double ex[] = {1, 2.5, 2.5, 4, 5}, ey[] = {1, 4, 2.5, 2.5, 5};
    for (int i = 0; i < 5; i++) {
        ck_assert(NEAR(rx[i], ex[i]));
        ck_assert(NEAR(ry[i], ey[i]));
    }
    /* rho = Pearson of the ranks: both mean 3; deviations -2 -0.5 -0.5 1 2
     * and -2 1 -0.5 -0.5 2; products 4 - 0.5 + 0.25 - 0.5 + 4 = 7.25;
     * squares 9.5 and 9.5: rho = 7.25 / 9.5 = 0.763157894736842. */
    ck_assert(NEAR(ls_stat_spearman(x, y, 5), 7.25 / 9.5));
    /* reversed order: -1 */
    double r[] = {5, 4, 3, 2, 1}, s[] = {1, 2, 3, 4, 5};
    ck_assert(NEAR(ls_stat_spearman(r, s, 5), -1));
    ck_assert(isnan(ls_stat_spearman(r, s, 1)));
}
END_TEST

START_TEST(kendall_tau_b_with_ties)
{
    /* x = 10 20 20 30 40, y = 1 3 2 2 5, the ten pairs (i, j):
     *   (0,1) (0,2) (0,3) (0,4) (1,4) (2,4) (3,4): both rise, concordant: 7
     *   (1,3): x rises 20 -> 30, y falls 3 -> 2: discordant: 1
     *   (1,2): x tied (20, 20), y falls: tied in x only: 1
     *   (2,3): x rises, y tied (2, 2): tied in y only: 1
     * tau-b = (7 - 1) / sqrt((7 + 1 + 1)(7 + 1 + 1)) = 6 / 9. */
    double x[] = {10, 20, 20, 30, 40}, y[] = {1, 3, 2, 2, 5};
    ck_assert(NEAR(ls_stat_kendall_tau_b(x, y, 5), 6.0 / 9.0));
    /* x = 1 1 2 3, y = 5 5 6 4: (0,1) tied in both, counted nowhere;
     * (0,2) (1,2) concordant; (0,3) (1,3) (2,3) discordant:
     * (2 - 3) / sqrt((2 + 3 + 0)(2 + 3 + 0)) = -1/5.  (As n0 - n1 = 6 - 1:
     * the textbook form agrees.) */
    double a[] = {1, 1, 2, 3}, b[] = {5, 5, 6, 4};
    ck_assert(NEAR(ls_stat_kendall_tau_b(a, b, 4), -0.2));
    /* no ties, one swap among 3: (2 - 1) / 3 */
    double p[] = {1, 2, 3}, q[] = {2, 1, 3};
    ck_assert(NEAR(ls_stat_kendall_tau_b(p, q, 3), 1.0 / 3.0));
    /* all tied in one series, or fewer than two values: undefined */
    double c[] = {4, 4, 4};
    ck_assert(isnan(ls_stat_kendall_tau_b(p, c, 3)));
    ck_assert(isnan(ls_stat_kendall_tau_b(p, q, 1)));
}
END_TEST

START_TEST(percentile_linear)
{
    /* 1..10 shuffled; p90: h = 0.9 x 9 = 8.1 -> x[8] + 0.1 (x[9] - x[8])
     * = 9 + 0.1 = 9.1; p50: h = 4.5 -> 5.5; the ends are the extremes. */
    double x[] = {5, 1, 9, 3, 7, 2, 8, 4, 6, 10};
    ck_assert(NEAR(ls_stat_percentile(x, 10, 0.9), 9.1));
    ck_assert(NEAR(ls_stat_percentile(x, 10, 0.5), 5.5));
    ck_assert(NEAR(ls_stat_percentile(x, 10, 0), 1));
    ck_assert(NEAR(ls_stat_percentile(x, 10, 1), 10));
    ck_assert(NEAR(ls_stat_percentile(x, 1, 0.9), 5));
    ck_assert(isnan(ls_stat_percentile(x, 0, 0.9)));
    ck_assert(x[0] == 5 && x[9] == 10); /* the input is not sorted in place */
    ck_assert(NEAR(ls_stat_mean(x, 10), 5.5));
}
END_TEST

static ls_compare_case mk(const char *name, const char *group, double sim, double meas)
{
    ls_compare_case c;
    memset(&c, 0, sizeof c);
    snprintf(c.name, sizeof c.name, "%s", name);
    snprintf(c.group, sizeof c.group, "%s", group);
    c.simulated_us = sim;
    c.measured_us = meas;
    return c;
}

START_TEST(summary_by_hand)
{
    /* simulated / measured: 11/10 19/20 52/40 78/80 150/160 400/320
     * errors (sim - meas) / meas: +10, -5, +30, -2.5, -6.25, +25 (%)
     * |errors|: mean 78.75 / 6 = 13.125, worst 30 (c); signed mean 51.25 /
     * 6 = 8.541666...; p90 of sorted 2.5 5 6.25 10 25 30: h = 0.9 x 5 =
     * 4.5 -> 25 + 0.5 x 5 = 27.5.
     * group g1 (a b c): simulated 11 19 52, measured 10 20 40: same order,
     * tau-b = rho = 1; g2 (d e f) likewise.  Targets: mean 13.1 >= 10 and
     * worst 30 >= 25 fail, tau-b 1 > 0.8 in both groups holds. */
    ls_compare_case c[] = {mk("a", "g1", 11, 10), mk("b", "g1", 19, 20),   mk("c", "g1", 52, 40),
                           mk("d", "g2", 78, 80), mk("e", "g2", 150, 160), mk("f", "g2", 400, 320)};
    ls_compare_summary s;
    ls_diag d;
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_compare_summarize(c, 6, &s, &d), LS_OK);
    ck_assert(NEAR(s.mean_abs_pct, 13.125));
    ck_assert(NEAR(s.max_abs_pct, 30));
    ck_assert_int_eq((int)s.worst, 2);
    ck_assert(NEAR(s.mean_signed_pct, 51.25 / 6));
    ck_assert(NEAR(s.p90_abs_pct, 27.5));
    ck_assert_int_eq((int)s.n_groups, 2);
    ck_assert_str_eq(s.groups[0].name, "g1");
    ck_assert_str_eq(s.groups[1].name, "g2");
    ck_assert(NEAR(s.groups[0].kendall, 1) && NEAR(s.groups[1].kendall, 1));
    ck_assert(NEAR(s.groups[0].spearman, 1) && NEAR(s.groups[1].spearman, 1));
    ck_assert(NEAR(s.mean_tau, 1));
    ck_assert(!s.mean_ok && !s.worst_ok && s.tau_ok);
    /* Pearson r of the times and of their log10s (pearson_by_hand checks
     * the function; these are the definition evaluated separately in
     * Python: 0.990745 and 0.994165). */
    ck_assert(fabs(s.pearson_lin - 0.990745) < 1e-6);
    ck_assert(fabs(s.pearson_log - 0.994165) < 1e-6);
    ls_compare_summary_free(&s);
}
END_TEST

START_TEST(summary_groups_and_targets)
{
    /* g: simulated 1 2 3, measured 1.05 1.96 3 -- the same order, errors
     * -4.8%, +2.0%, 0; h: one case, nothing to rank; x: no group, counted
     * in the errors only.  Every target holds. */
    ls_compare_case c[] = {mk("g1", "g", 1, 1.05), mk("g2", "g", 2, 1.96), mk("g3", "g", 3, 3),
                           mk("h1", "h", 4, 4), mk("x", "", 9, 9)};
    ls_compare_summary s;
    ls_diag d;
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_compare_summarize(c, 5, &s, &d), LS_OK);
    ck_assert_int_eq((int)s.n_groups, 2);
    ck_assert_int_eq((int)s.n_ranked, 1);
    ck_assert_int_eq((int)s.groups[1].n, 1);
    ck_assert(isnan(s.groups[1].kendall));
    ck_assert(s.mean_ok && s.worst_ok && s.tau_ok);
    ls_compare_summary_free(&s);

    /* a swap: measured 2 1 3 against simulated 1 2 3 */
    c[0].measured_us = 2;
    c[1].measured_us = 1;
    ck_assert_int_eq(ls_compare_summarize(c, 5, &s, &d), LS_OK);
    ck_assert(NEAR(s.groups[0].kendall, 1.0 / 3.0));
    ck_assert(NEAR(s.min_tau, 1.0 / 3.0) && s.min_tau_group == 0);
    ck_assert(!s.tau_ok);
    ls_compare_summary_free(&s);

    /* a group whose simulated times are all tied: undefined, so the
     * target cannot hold */
    ls_compare_case t[] = {mk("t1", "t", 5, 4), mk("t2", "t", 5, 6)};
    ck_assert_int_eq(ls_compare_summarize(t, 2, &s, &d), LS_OK);
    ck_assert_int_eq((int)s.n_ranked, 1);
    ck_assert_int_eq((int)s.n_tau, 0);
    ck_assert(isnan(s.mean_tau) && !s.tau_ok);
    ls_compare_summary_free(&s);

    /* no groups at all: the tau target is not met (nothing was ranked) */
    ck_assert_int_eq(ls_compare_summarize(&c[4], 1, &s, &d), LS_OK);
    ck_assert(!s.tau_ok && s.n_groups == 0);
    ls_compare_summary_free(&s);

    /* a time that is not positive */
    ls_compare_case z[] = {mk("zero", "", 1, 0)};
    ck_assert_int_eq(ls_compare_summarize(z, 1, &s, &d), LS_ERR_INVALID);
    ck_assert(strstr(d.msg, "zero") != NULL);
    ls_compare_summary_free(&s);
}
END_TEST

/* ------------------------------------------------------------ suites */

START_TEST(suite_parse_ok)
{
    const char *text = "# a suite\n"
                       "\n"
                       "  first  a.mlir group=g1 note=\"IREE's \\\"default\\\" \\\\ ok\"  # tail\n"
                       "second\tsub/b.mlir note=bare group=g1\r\n"
                       "third \"/abs/c d.mlir\"\n"
                       "fourth sm.mlir reduction=2 group=g2 # the sum\n"
                       "fifth sm.mlir kernel=dispatch\n"
                       "sixth sm.mlir reduction=2 kernel=reduction\n";
    ls_suite s;
    ls_diag d;
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_suite_parse(text, strlen(text), "dir/suite.txt", &s, &d), LS_OK);
    ck_assert_int_eq((int)s.n, 6);
    ck_assert_str_eq(s.cases[0].name, "first");
    ck_assert_str_eq(s.cases[0].file, "a.mlir");
    ck_assert_str_eq(s.cases[0].path, "dir/a.mlir");
    ck_assert_str_eq(s.cases[0].group, "g1");
    ck_assert_str_eq(s.cases[0].note, "IREE's \"default\" \\ ok");
    ck_assert_int_eq(s.cases[0].line, 3);
    ck_assert_str_eq(s.cases[1].path, "dir/sub/b.mlir");
    ck_assert_str_eq(s.cases[1].note, "bare");
    ck_assert_int_eq(s.cases[1].line, 4);
    ck_assert_str_eq(s.cases[2].path, "/abs/c d.mlir");
    ck_assert_str_eq(s.cases[2].group, "");
    ck_assert_int_eq(s.cases[2].reduction, 0); /* not given: the file holds one */
    ck_assert_int_eq(s.cases[3].reduction, 2);
    ck_assert_str_eq(s.cases[3].group, "g2");
    ck_assert(!s.cases[3].dispatch);
    ck_assert(s.cases[4].dispatch); /* the dispatch as its one kernel */
    ck_assert_int_eq(s.cases[4].reduction, 0);
    ck_assert(!s.cases[5].dispatch); /* the reduction alone, said outright */
    ck_assert_int_eq(s.cases[5].reduction, 2);
    ls_suite_free(&s);
    /* a suite in the current folder: files as written */
    ck_assert_int_eq(ls_suite_parse("x y.mlir\n", 9, "suite.txt", &s, &d), LS_OK);
    ck_assert_str_eq(s.cases[0].path, "y.mlir");
    ls_suite_free(&s);
}
END_TEST

static const struct {
    const char *text;
    ls_status st;
    int line, col;
    const char *msg;
} bad_suites[] = {
    {"a\n", LS_ERR_SYNTAX, 1, 2, "expected FILE after the case name 'a'"},
    {"ok f.mlir\nb@d f.mlir\n", LS_ERR_SYNTAX, 2, 2, "names take letters, digits"},
    {"a f.mlir\n# x\na g.mlir\n", LS_ERR_INVALID, 3, 1,
     "duplicate case name 'a' (first on line 1)"},
    {"a f.mlir grp=x\n", LS_ERR_SYNTAX, 1, 10,
     "unknown key 'grp' (the keys: group, note, reduction, kernel)"},
    {"a f.mlir kernel=all\n", LS_ERR_SYNTAX, 1, 17, "kernel=all: expected dispatch"},
    {"a f.mlir kernel=\n", LS_ERR_SYNTAX, 1, 17, "kernel=: expected dispatch"},
    {"a f.mlir kernel=dispatch kernel=dispatch\n", LS_ERR_SYNTAX, 1, 26, "kernel= given twice"},
    {"a f.mlir stray\n", LS_ERR_SYNTAX, 1, 10, "expected key=value"},
    {"a f.mlir note=\"oops\n", LS_ERR_SYNTAX, 1, 15, "note: unterminated string"},
    {"a f.mlir note=\"x\"y\n", LS_ERR_SYNTAX, 1, 18, "expected a space after the closing quote"},
    {"a f.mlir group=\n", LS_ERR_SYNTAX, 1, 16, "empty group name"},
    {"a f.mlir group=x group=y\n", LS_ERR_SYNTAX, 1, 18, "group= given twice"},
    {"a f.mlir group=x/y\n", LS_ERR_SYNTAX, 1, 17, "group 'x/y'"},
    {"a group=x\n", LS_ERR_SYNTAX, 1, 3, "found the option 'group=x'"},
    {"a f.mlir reduction=0\n", LS_ERR_LIMIT, 1, 20, "reduction=0: the number must be 1 to 64"},
    {"a f.mlir reduction=65\n", LS_ERR_LIMIT, 1, 20, "reduction=65: the number must be 1 to 64"},
    {"a f.mlir reduction=99999999999999999999\n", LS_ERR_LIMIT, 1, 20, "must be 1 to 64"},
    {"a f.mlir reduction=two\n", LS_ERR_SYNTAX, 1, 20, "expected the reduction's number"},
    {"a f.mlir reduction=2x\n", LS_ERR_SYNTAX, 1, 20, "expected the reduction's number"},
    {"a f.mlir reduction=1 reduction=2\n", LS_ERR_SYNTAX, 1, 22, "reduction= given twice"},
    {"# nothing\n\n", LS_ERR_NOTFOUND, 0, 0, "no cases"},
};

START_TEST(suite_parse_errors)
{
    ls_suite s;
    ls_diag d;
    ls_diag_clear(&d);
    const char *t = bad_suites[_i].text;
    ck_assert_int_eq(ls_suite_parse(t, strlen(t), "s.txt", &s, &d), bad_suites[_i].st);
    ck_assert_msg(d.line == bad_suites[_i].line && d.col == bad_suites[_i].col,
                  "case %d: at %d:%d (%s), expected %d:%d", _i, d.line, d.col, d.msg,
                  bad_suites[_i].line, bad_suites[_i].col);
    ck_assert_msg(strstr(d.msg, bad_suites[_i].msg) != NULL, "case %d: '%s'", _i, d.msg);
    ck_assert_str_eq(d.file, "s.txt");
    ck_assert(s.n == 0 && s.cases == NULL);
    ls_suite_free(&s);
}
END_TEST

START_TEST(suite_file_errors)
{
    ls_suite s;
    ls_diag d;
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_suite_load("/nonexistent/suite.txt", &s, &d), LS_ERR_IO);
    ls_suite_free(&s);
    /* a NUL byte, and an over-long line, name their position */
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_suite_parse("ab\0c f\n", 7, "s", &s, &d), LS_ERR_SYNTAX);
    ck_assert(d.line == 1 && d.col == 3);
    char *big = ls_xmalloc(LS_COMPARE_MAX_LINE + 10);
    memset(big, 'x', LS_COMPARE_MAX_LINE + 9);
    big[LS_COMPARE_MAX_LINE + 9] = '\n';
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_suite_parse(big, LS_COMPARE_MAX_LINE + 10, "s", &s, &d), LS_ERR_LIMIT);
    free(big);
    /* the real suite loads: 40+ cases, files beside it */
    char path[1024];
    snprintf(path, sizeof path, "%s/suite/suite.txt", LS_TEST_EXAMPLES);
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_suite_load(path, &s, &d), LS_OK);
    ck_assert_uint_ge(s.n, 40);
    ck_assert(strncmp(s.cases[0].path, LS_TEST_EXAMPLES "/suite/", strlen(LS_TEST_EXAMPLES) + 7) ==
              0);
    ls_suite_free(&s);
}
END_TEST

/* ------------------------------------------------------------ measured CSV */

static const char *good_csv =
    "# lanescope measured kernel times\n"
    "# gpu: Test GPU (sm_90)\n"
    "# date: 2026-01-01T00:00:00Z\n"
    "#   a plain comment\n"
    "\n"
    "date,name,runs,measured_us,min_us,max_us,extra,gbytes_per_s,copy_fraction,gpu\n"
    "2026-01-01,a,20,10.5,10,11,x,1000,0.5,Test GPU\n"
    " 2026-01-02 , b , 3 , 2 , 2 , 2.5 , y ,  ,  , Test GPU \n"
    "# a comment between rows\n";

START_TEST(measured_parse_ok)
{
    ls_measured m;
    ls_diag d;
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_measured_parse(good_csv, strlen(good_csv), "m.csv", &m, &d), LS_OK);
    ck_assert_int_eq((int)m.n, 2);
    ck_assert_int_eq(m.n_prov, 2);
    ck_assert_str_eq(ls_measured_prov(&m, "gpu"), "Test GPU (sm_90)");
    ck_assert_str_eq(ls_measured_prov(&m, "date"), "2026-01-01T00:00:00Z");
    ck_assert(ls_measured_prov(&m, "synthetic") == NULL);
    const ls_measured_row *a = ls_measured_find(&m, "a"), *b = ls_measured_find(&m, "b");
    ck_assert(a && b && ls_measured_find(&m, "c") == NULL);
    ck_assert(a->measured_us == 10.5 && a->min_us == 10 && a->max_us == 11 && a->runs == 20);
    ck_assert(a->gbytes_per_s == 1000 && a->copy_fraction == 0.5);
    ck_assert_str_eq(a->gpu, "Test GPU");
    ck_assert_str_eq(a->date, "2026-01-01");
    ck_assert_int_eq(a->line, 7);
    ck_assert(b->measured_us == 2 && b->runs == 3 && isnan(b->gbytes_per_s) &&
              isnan(b->copy_fraction));
    ck_assert_str_eq(b->gpu, "Test GPU");
    ls_measured_free(&m);
}
END_TEST

#define COLS "name,measured_us,min_us,max_us,runs,gbytes_per_s,copy_fraction,gpu,date\n"

static const struct {
    const char *text;
    ls_status st;
    int line, col;
    const char *msg;
} bad_csvs[] = {
    /* the bad row: measured_us is not a number; col = where the field starts */
    {COLS "a,10,9,11,5,,,g,d\nb,fast,9,11,5,,,g,d\n", LS_ERR_SYNTAX, 3, 3,
     "measured_us: expected a positive number of microseconds up to 1e+12, found 'fast'"},
    {COLS "a,-1,9,11,5,,,g,d\n", LS_ERR_SYNTAX, 2, 3, "measured_us"},
    {COLS "a,10,12,13,5,,,g,d\n", LS_ERR_INVALID, 2, 6, "min_us 12 is above measured_us 10"},
    {COLS "a,10,9,9.5,5,,,g,d\n", LS_ERR_INVALID, 2, 8, "max_us 9.5 is below measured_us 10"},
    {COLS "a,10,9,11,0,,,g,d\n", LS_ERR_SYNTAX, 2, 11, "runs: expected a whole number"},
    {COLS "a,10,9,11,2.5,,,g,d\n", LS_ERR_SYNTAX, 2, 11, "runs"},
    {COLS "a,10,9,11,5,-3,,g,d\n", LS_ERR_SYNTAX, 2, 13, "gbytes_per_s"},
    {COLS "a,10,9,11,5,,,g\n", LS_ERR_SYNTAX, 2, 16,
     "expected 9 fields, as the column line names, found 8"},
    {COLS "a,10,9,11,5,,,g,d,e\n", LS_ERR_SYNTAX, 2, 19, "found 10"},
    {COLS "a,10,9,11,5,,,g,d\na,10,9,11,5,,,g,d\n", LS_ERR_INVALID, 3, 1,
     "a second row for 'a' (first on line 2)"},
    {COLS "a b,10,9,11,5,,,g,d\n", LS_ERR_SYNTAX, 2, 2, "names take letters"},
    {"name,measured_us,min_us,max_us,runs,gbytes_per_s,gpu,date\n", LS_ERR_SYNTAX, 1, 1,
     "no 'copy_fraction' column"},
    {"name,name,measured_us\n", LS_ERR_SYNTAX, 1, 6, "column 'name' named twice"},
    {"# only\n", LS_ERR_SYNTAX, 1, 1, "no column line"},
    {"# h\n" COLS, LS_ERR_NOTFOUND, 2, 1, "no rows after the column line"},
};

START_TEST(measured_parse_errors)
{
    ls_measured m;
    ls_diag d;
    ls_diag_clear(&d);
    const char *t = bad_csvs[_i].text;
    ck_assert_int_eq(ls_measured_parse(t, strlen(t), "m.csv", &m, &d), bad_csvs[_i].st);
    ck_assert_msg(d.line == bad_csvs[_i].line && d.col == bad_csvs[_i].col,
                  "case %d: at %d:%d (%s), expected %d:%d", _i, d.line, d.col, d.msg,
                  bad_csvs[_i].line, bad_csvs[_i].col);
    ck_assert_msg(strstr(d.msg, bad_csvs[_i].msg) != NULL, "case %d: '%s'", _i, d.msg);
    ck_assert(m.n == 0 && m.rows == NULL);
    ls_measured_free(&m);
}
END_TEST

START_TEST(measured_match_missing_and_extra)
{
    const char *st = "a a.mlir\nb b.mlir group=g\nc c.mlir group=g\n";
    const char *mt = COLS "c,3,3,3,1,,,g,d\nzz,1,1,1,1,,,g,d\na,1,1,1,1,,,g,d\n";
    ls_suite s;
    ls_measured m;
    ls_diag d;
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_suite_parse(st, strlen(st), "dir/suite.txt", &s, &d), LS_OK);
    ck_assert_int_eq(ls_measured_parse(mt, strlen(mt), "m.csv", &m, &d), LS_OK);
    size_t row_of[3], missing = 99, extra = 99;
    /* b has no row: an error at b's suite line that names it and the CSV */
    ck_assert_int_eq(ls_measured_match(&m, &s, false, row_of, &missing, &extra, &d),
                     LS_ERR_NOTFOUND);
    ck_assert_str_eq(d.file, "dir/suite.txt");
    ck_assert_int_eq(d.line, 2);
    ck_assert_str_eq(d.msg, "case 'b' has no row in m.csv");
    /* allowed: counted and skipped; zz names no case */
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_measured_match(&m, &s, true, row_of, &missing, &extra, &d), LS_OK);
    ck_assert(row_of[0] == 2 && row_of[1] == SIZE_MAX && row_of[2] == 0);
    ck_assert(missing == 1 && extra == 1);
    ls_measured_free(&m);
    /* none of the cases has a row: an error even when allowed */
    const char *none = COLS "zz,1,1,1,1,,,g,d\n";
    ck_assert_int_eq(ls_measured_parse(none, strlen(none), "m.csv", &m, &d), LS_OK);
    ck_assert_int_eq(ls_measured_match(&m, &s, true, row_of, NULL, NULL, &d), LS_ERR_NOTFOUND);
    ls_measured_free(&m);
    ls_suite_free(&s);
}
END_TEST

/* Rounds folded as worked by hand: medians 10, 50 (a disturbed round), 12
 * -> 12; min 9 and max 80 over every launch; 60 runs; launch medians 5,
 * 30, 6 -> 6; bandwidth 100 GB/s at 10 us -> 100 x 10 / 12 at 12 us. */
START_TEST(measured_rounds_fold)
{
    ls_measured_row r[3];
    memset(r, 0, sizeof r);
    double med[3] = {10, 50, 12}, lo[3] = {9, 40, 11}, hi[3] = {11, 80, 13}, la[3] = {5, 30, 6};
    for (int k = 0; k < 3; k++) {
        snprintf(r[k].name, sizeof r[k].name, "case");
        snprintf(r[k].gpu, sizeof r[k].gpu, "gpu %d", k);
        r[k].measured_us = med[k];
        r[k].min_us = lo[k];
        r[k].max_us = hi[k];
        r[k].runs = 20;
        r[k].launch_us = la[k];
        r[k].gbytes_per_s = 1000.0 / med[k];
        r[k].copy_fraction = 0.5 * 10 / med[k];
    }
    ls_measured_row out;
    ls_measured_fold_rounds(r, 3, &out);
    ck_assert_str_eq(out.name, "case");
    ck_assert_str_eq(out.gpu, "gpu 0");
    ck_assert_double_eq_tol(out.measured_us, 12, 1e-12);
    ck_assert_double_eq_tol(out.min_us, 9, 1e-12);
    ck_assert_double_eq_tol(out.max_us, 80, 1e-12);
    ck_assert_int_eq(out.runs, 60);
    ck_assert_double_eq_tol(out.launch_us, 6, 1e-12);
    ck_assert_double_eq_tol(out.gbytes_per_s, 1000.0 / 12, 1e-9);
    ck_assert_double_eq_tol(out.copy_fraction, 0.5 * 10 / 12, 1e-12);
    /* one round: the row itself; launch unknown in one round: the others' */
    ls_measured_fold_rounds(&r[1], 1, &out);
    ck_assert_double_eq_tol(out.measured_us, 50, 1e-12);
    ck_assert_int_eq(out.runs, 20);
    r[2].launch_us = NAN;
    ls_measured_fold_rounds(r, 3, &out);
    ck_assert_double_eq_tol(out.launch_us, 17.5, 1e-12); /* median of 5 and 30 */
    /* two rounds: the median is their mean */
    ls_measured_fold_rounds(r, 2, &out);
    ck_assert_double_eq_tol(out.measured_us, 30, 1e-12);
}
END_TEST

START_TEST(measured_write_read_round_trip)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ls_prov_entry prov[2] = {{"gpu", "GPU, with a comma\nand a newline"}, {"runs", "20"}};
    ls_measured_write_header(f, prov, 2);
    ls_measured_row r = {"k1", 12.345678, 12.0, 13.5, 20, 2500.25, 0.875, "GPU, X", "2026", 1.75, 0};
    ls_measured_write_row(f, &r);
    ls_measured_row u = {"k2", 1.5, 1.25, 2, 7, NAN, NAN, "GPU", "", NAN, 0};
    ls_measured_write_row(f, &u);
    fclose(f);
    /* the extra launch_us column is written, and ignored when read */
    ck_assert_ptr_nonnull(strstr(buf, "gpu,date,launch_us\n"));
    ck_assert_ptr_nonnull(strstr(buf, ",2026,1.75\n"));
    ls_measured m;
    ls_diag d;
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_measured_parse(buf, len, "rt.csv", &m, &d), LS_OK);
    ck_assert_int_eq((int)m.n, 2);
    ck_assert_str_eq(ls_measured_prov(&m, "gpu"), "GPU, with a comma and a newline");
    const ls_measured_row *a = &m.rows[0], *b = &m.rows[1];
    ck_assert_str_eq(a->name, "k1");
    ck_assert(fabs(a->measured_us - 12.3457) < 1e-9); /* %.6g */
    ck_assert(a->min_us == 12 && a->max_us == 13.5 && a->runs == 20);
    ck_assert(a->gbytes_per_s == 2500.25 && a->copy_fraction == 0.875);
    ck_assert_str_eq(a->gpu, "GPU  X");
    ck_assert(isnan(b->gbytes_per_s) && isnan(b->copy_fraction) && b->runs == 7);
    ls_measured_free(&m);
    free(buf);
}
END_TEST

static Suite *compare_suite(void)
{
    Suite *s = suite_create("compare");
    TCase *tc = tcase_create("statistics");
    tcase_add_test(tc, pearson_by_hand);
    tcase_add_test(tc, ranks_and_spearman_with_ties);
    tcase_add_test(tc, kendall_tau_b_with_ties);
    tcase_add_test(tc, percentile_linear);
    tcase_add_test(tc, summary_by_hand);
    tcase_add_test(tc, summary_groups_and_targets);
    suite_add_tcase(s, tc);
    tc = tcase_create("suites");
    tcase_add_test(tc, suite_parse_ok);
    tcase_add_loop_test(tc, suite_parse_errors, 0, (int)(sizeof bad_suites / sizeof bad_suites[0]));
    tcase_add_test(tc, suite_file_errors);
    suite_add_tcase(s, tc);
    tc = tcase_create("measured");
    tcase_add_test(tc, measured_parse_ok);
    tcase_add_loop_test(tc, measured_parse_errors, 0, (int)(sizeof bad_csvs / sizeof bad_csvs[0]));
    tcase_add_test(tc, measured_match_missing_and_extra);
    tcase_add_test(tc, measured_write_read_round_trip);
    tcase_add_test(tc, measured_rounds_fold);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(compare_suite)
