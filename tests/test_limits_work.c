/* test_limits_work.c: the limits of the compare suite's files and of a
 * run's work, each exercised at the limit and one past it (refused with
 * LS_ERR_LIMIT and a message naming the limit): suite cases and line
 * bytes, measured rows, fields and timings, a compare file's bytes; the
 * work of sim, the engine's state, the functional check and sweep.  The
 * limits of input files, IR and configs: test_limits.c. */
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
#include <math.h>
#include <stdio.h>
#include <unistd.h>

/* ------------------------------------------------------------ compare */

/* LS_COMPARE_MAX_CASES cases in a suite. */
START_TEST(suite_cases)
{
    ls_diag d;
    for (int n = LS_COMPARE_MAX_CASES; n <= LS_COMPARE_MAX_CASES + 1; n++) {
        buf b;
        FILE *f = buf_open(&b);
        for (int i = 0; i < n; i++)
            fprintf(f, "c%d c.mlir\n", i);
        buf_close(&b);
        ls_suite s;
        ls_diag_clear(&d);
        ls_status st = ls_suite_parse(b.text, b.len, "s.txt", &s, &d);
        if (n == LS_COMPARE_MAX_CASES) {
            ck_assert_msg(st == LS_OK, "%s", d.msg);
            ck_assert_int_eq((int)s.n, n);
        } else {
            ASSERT_LIMIT(st, d, "more than 4096 cases");
        }
        ls_suite_free(&s);
        free(b.text);
    }
}
END_TEST

/* LS_COMPARE_MAX_LINE bytes in one line (its newline not counted). */
START_TEST(suite_line_bytes)
{
    ls_diag d;
    for (int n = LS_COMPARE_MAX_LINE; n <= LS_COMPARE_MAX_LINE + 1; n++) {
        char *text = ls_xmalloc((size_t)n + 2);
        memset(text, 'x', (size_t)n);
        memcpy(text, "name f.mlir # ", 14); /* a comment pads the line */
        text[n] = '\n';
        text[n + 1] = '\0';
        ls_suite s;
        ls_diag_clear(&d);
        ls_status st = ls_suite_parse(text, (size_t)n + 1, "s.txt", &s, &d);
        if (n == LS_COMPARE_MAX_LINE)
            ck_assert_msg(st == LS_OK, "%s", d.msg);
        else
            ASSERT_LIMIT(st, d, "line longer than 4096 bytes (the limit)");
        ls_suite_free(&s);
        free(text);
    }
}
END_TEST

/* LS_COMPARE_MAX_CASES rows in a measured CSV. */
START_TEST(measured_rows)
{
    ls_diag d;
    for (int n = LS_COMPARE_MAX_CASES; n <= LS_COMPARE_MAX_CASES + 1; n++) {
        buf b;
        FILE *f = buf_open(&b);
        fprintf(f, "name,measured_us,min_us,max_us,runs,gbytes_per_s,copy_fraction,gpu,date\n");
        for (int i = 0; i < n; i++)
            fprintf(f, "c%d,1.5,1,2,3,,,G,2026-01-01\n", i);
        buf_close(&b);
        ls_measured m;
        ls_diag_clear(&d);
        ls_status st = ls_measured_parse(b.text, b.len, "m.csv", &m, &d);
        if (n == LS_COMPARE_MAX_CASES) {
            ck_assert_msg(st == LS_OK, "%s", d.msg);
            ck_assert_int_eq((int)m.n, n);
        } else {
            ASSERT_LIMIT(st, d, "more than 4096 rows");
        }
        ls_measured_free(&m);
        free(b.text);
    }
}
END_TEST

/* ------------------------------------------------------------ work */

/* A cleared diag: a set one keeps its first error. */
static ls_diag *fresh(ls_diag *d)
{
    ls_diag_clear(d);
    return d;
}

static const ls_problem *some_problem(void)
{
    static ls_problem p;
    snprintf(p.file, sizeof p.file, "w.mlir");
    p.line = 3;
    p.col = 5;
    return &p;
}

/* The simulation's budget (LS_SIM_BUDGET_INSTRUCTIONS, lifted by force)
 * and its limit (LS_MAX_SIM_INSTRUCTIONS, never lifted). */
START_TEST(sim_work)
{
    const ls_problem *p = some_problem();
    ls_diag d;
    int64_t budget = LS_SIM_BUDGET_INSTRUCTIONS, limit = LS_MAX_SIM_INSTRUCTIONS;
    ck_assert_int_eq(ls_engine_work_verdict(p, budget, false, fresh(&d)), LS_OK);
    ASSERT_LIMIT(ls_engine_work_verdict(p, budget + 1, false, fresh(&d)), d,
                 "would issue 4294967297 subgroup-instructions, past the budget of 4294967296");
    ck_assert_int_eq(ls_engine_work_verdict(p, budget + 1, true, fresh(&d)), LS_OK);
    ck_assert_int_eq(ls_engine_work_verdict(p, limit, true, fresh(&d)), LS_OK);
    ASSERT_LIMIT(ls_engine_work_verdict(p, limit + 1, true, fresh(&d)), d,
                 "past the limit of 17179869184");
    ASSERT_LIMIT(ls_engine_work_verdict(p, -1, true, fresh(&d)), d, "more than 2^63");
}
END_TEST

/* LS_MAX_ENGINE_STATE_BYTES of simulator state. */
START_TEST(engine_state)
{
    const ls_problem *p = some_problem();
    ls_diag d;
    ck_assert_int_eq(ls_engine_state_verdict(p, LS_MAX_ENGINE_STATE_BYTES, 10, 2, 5, fresh(&d)),
                     LS_OK);
    ASSERT_LIMIT(ls_engine_state_verdict(p, LS_MAX_ENGINE_STATE_BYTES + 1, 10, 2, 5, fresh(&d)), d,
                 "10 workgroups would be resident at once (2 WGPs hold up to 5 each)");
    ck_assert_msg(strstr(d.msg, "the limit is 1.00 GiB"), "%s", d.msg);
    ASSERT_LIMIT(ls_engine_state_verdict(p, -1, 10, 2, 5, fresh(&d)), d, "the limit is 1.00 GiB");
}
END_TEST

/* The functional check's budget and limit, on the elements it generates
 * and on the problem's size. */
START_TEST(functional_work)
{
    const ls_problem *p = some_problem();
    ls_diag d;
    int64_t budget = LS_FUNCTIONAL_BUDGET_ELEMENTS, limit = LS_MAX_FUNCTIONAL_ELEMENTS;
    ck_assert_int_eq(ls_functional_work_verdict(p, budget, 1, false, fresh(&d)), LS_OK);
    ASSERT_LIMIT(ls_functional_work_verdict(p, budget + 1, 1, false, fresh(&d)), d,
                 "would generate 2147483649 elements, past the budget of 2147483648");
    ck_assert_int_eq(ls_functional_work_verdict(p, budget + 1, 1, true, fresh(&d)), LS_OK);
    ck_assert_int_eq(ls_functional_work_verdict(p, limit, limit, true, fresh(&d)), LS_OK);
    ASSERT_LIMIT(ls_functional_work_verdict(p, limit + 1, 1, true, fresh(&d)), d,
                 "more than 17179869184 elements (the limit)");
    ASSERT_LIMIT(ls_functional_work_verdict(p, 1, limit + 1, true, fresh(&d)), d,
                 "more than 17179869184 elements (the limit)");
    ASSERT_LIMIT(ls_functional_work_verdict(p, -1, 1, true, fresh(&d)), d, "(the limit)");
}
END_TEST

/* The sweep's budget (LS_SWEEP_BUDGET_INSTRUCTIONS, lifted by force). */
START_TEST(sweep_work)
{
    const ls_problem *p = some_problem();
    ls_diag d;
    int64_t budget = LS_SWEEP_BUDGET_INSTRUCTIONS;
    ck_assert_int_eq(ls_sweep_work_verdict(p, budget, 7, false, fresh(&d)), LS_OK);
    ASSERT_LIMIT(ls_sweep_work_verdict(p, budget + 1, 7, false, fresh(&d)), d,
                 "17179869185 subgroup-instructions over 7 configs, past the budget of "
                 "17179869184");
    ck_assert_int_eq(ls_sweep_work_verdict(p, budget + 1, 7, true, fresh(&d)), LS_OK);
}
END_TEST

/* LS_SWEEP_MAX_CONFIGS configs kept by a sweep. */
START_TEST(sweep_configs)
{
    ls_diag d;
    ls_module *m = load_example("seed004_reduce_8x64.mlir", &d);
    ck_assert_msg(d.status == LS_OK, "%s", d.msg);
    ls_target t;
    ck_assert(ls_target_lookup("gfx942", &t));
    ls_sweep sw;
    ls_diag_clear(&d);
    ck_assert_msg(ls_sweep_enumerate(&m->problems[0], NULL, &t, LS_SWEEP_MAX_CONFIGS, &sw, &d) ==
                      LS_OK,
                  "%s", d.msg);
    ck_assert_int_gt((int)sw.n, 0);
    ls_sweep_free(&sw);
    ls_diag_clear(&d);
    ck_assert_int_ne(
        ls_sweep_enumerate(&m->problems[0], NULL, &t, LS_SWEEP_MAX_CONFIGS + 1, &sw, &d), LS_OK);
    ck_assert_msg(strstr(d.msg, "100000"), "%s", d.msg);
    ls_sweep_free(&sw);
    free(m);
}
END_TEST

/* LS_COMPARE_MAX_US for a measured time; only decimal numbers. */
START_TEST(measured_timing)
{
    static const struct {
        const char *t;
        bool ok;
    } cases[] = {{"1000000000000", true},
                 {"1e12", true},
                 {"1000000000000.001", false},
                 {"1e13", false},
                 {"0x10", false},
                 {"inf", false},
                 {"1.5", true}};
    ls_diag d;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[256];
        int n = snprintf(text, sizeof text,
                         "name,measured_us,min_us,max_us,runs,gbytes_per_s,copy_fraction,gpu,date\n"
                         "c,%s,%s,%s,3,,,G,2026-01-01\n",
                         cases[i].t, cases[i].t, cases[i].t);
        ls_measured m;
        ls_diag_clear(&d);
        ls_status st = ls_measured_parse(text, (size_t)n, "m.csv", &m, &d);
        if (cases[i].ok)
            ck_assert_msg(st == LS_OK, "%s: %s", cases[i].t, d.msg);
        else
            ck_assert_msg(st != LS_OK && strstr(d.msg, "up to 1e+12"), "%s: %s", cases[i].t, d.msg);
        ls_measured_free(&m);
    }
}
END_TEST

/* LS_COMPARE_MAX_FIELDS fields in a measured CSV's lines. */
START_TEST(measured_fields)
{
    ls_diag d;
    for (int n = LS_COMPARE_MAX_FIELDS; n <= LS_COMPARE_MAX_FIELDS + 1; n++) {
        buf b;
        FILE *f = buf_open(&b);
        fprintf(f, "name,measured_us,min_us,max_us,runs,gbytes_per_s,copy_fraction,gpu,date");
        for (int i = 9; i < n; i++)
            fprintf(f, ",extra%d", i);
        fprintf(f, "\nc,1.5,1,2,3,,,G,2026-01-01");
        for (int i = 9; i < n; i++)
            fprintf(f, ",");
        fprintf(f, "\n");
        buf_close(&b);
        ls_measured m;
        ls_diag_clear(&d);
        ls_status st = ls_measured_parse(b.text, b.len, "m.csv", &m, &d);
        if (n == LS_COMPARE_MAX_FIELDS)
            ck_assert_msg(st == LS_OK, "%s", d.msg);
        else
            ASSERT_LIMIT(st, d, "more than 64 fields");
        ls_measured_free(&m);
        free(b.text);
    }
}
END_TEST

/* LS_COMPARE_MAX_FILE bytes of a suite file: one case padded with a
 * comment to exactly the limit loads; one byte more is refused. */
START_TEST(compare_file_bytes)
{
    char path[] = "/tmp/ls-limits-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "one a.mlir\n");
    size_t line = LS_COMPARE_MAX_LINE + 1, left = (size_t)LS_COMPARE_MAX_FILE - 11;
    char *fill = ls_xmalloc(line);
    memset(fill, 'x', line);
    fill[0] = '#';
    fill[line - 1] = '\n';
    for (; left >= line; left -= line)
        fwrite(fill, 1, line, f);
    fill[left - 1] = '\n';
    fwrite(fill, 1, left, f);
    free(fill);
    fclose(f);
    ls_suite s;
    ls_diag d;
    ls_diag_clear(&d);
    ck_assert_msg(ls_suite_load(path, &s, &d) == LS_OK, "%s", d.msg);
    ck_assert_int_eq((int)s.n, 1);
    ls_suite_free(&s);
    f = fopen(path, "a");
    fputc('\n', f);
    fclose(f);
    ls_diag_clear(&d);
    ASSERT_LIMIT(ls_suite_load(path, &s, &d), d, "larger than the 32 MiB limit");
    ls_suite_free(&s);
    unlink(path);
}
END_TEST

static Suite *limits_work_suite(void)
{
    Suite *s = suite_create("limits_work");
    TCase *tc;
    tc = tcase_create("compare");
    tcase_set_timeout(tc, 120); /* 4097-line files and a 32 MiB one, under ASan */
    tcase_add_test(tc, suite_cases);
    tcase_add_test(tc, suite_line_bytes);
    tcase_add_test(tc, measured_rows);
    tcase_add_test(tc, measured_fields);
    tcase_add_test(tc, measured_timing);
    tcase_add_test(tc, compare_file_bytes);
    suite_add_tcase(s, tc);
    tc = tcase_create("work");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, sim_work);
    tcase_add_test(tc, engine_state);
    tcase_add_test(tc, functional_work);
    tcase_add_test(tc, sweep_work);
    tcase_add_test(tc, sweep_configs);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(limits_work_suite)
