/* compare.h: simulated against measured kernel times -- the suite of cases
 * `lanescope compare` runs, the CSV of measured times it reads and writes,
 * and the error and ranking statistics it reports.
 *
 * Everything here is a pure function of its arguments: nothing simulates,
 * measures, reads a clock or prints (the CLI, src/cli/cli_compare.c, does).
 * Errors fill an ls_diag naming file:line:col.
 *
 * ---- Suite files ----
 *
 *     # comment
 *     NAME FILE [group=G] [note="..."] [reduction=K]
 *
 * One case per line.  NAME: letters, digits and _ . + - (at most
 * LS_COMPARE_NAME_MAX - 1 bytes), unique in the suite; measured rows are
 * matched to cases by it.  FILE: an .mlir file with one reduction, relative
 * to the suite file's folder unless it starts with '/'; it may be written
 * in double quotes.  reduction=K (1 to LS_COMPARE_MAX_REDUCTION): FILE
 * may hold several reductions (softmax's max and sum) and the case is the
 * K-th, in the order `lanescope sim` lists them; the inputs it takes from
 * another reduction are that reduction's reference values.  group=G (same character set as NAME): the cases of a
 * group are configs of one problem, ranked against each other.  note="..."
 * (or a bare word): free text.  In quoted values \" and \\ are escapes.
 * A '#' that starts a field starts a comment; blank lines are skipped.
 *
 * ---- Measured-times CSV ----
 *
 *     # lanescope measured kernel times
 *     # gpu: NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 50 MB L2)
 *     # clocks: SM max 1980 MHz, memory max 2619 MHz, 5120-bit bus
 *     # driver: 13.0
 *     # nvrtc: 13.0
 *     # date: 2026-11-23T10:00:00Z
 *     # lanescope: 0.1.0
 *     # command: lanescope compare examples/suite/suite.txt --save-measured h100.csv
 *     # method: median of 20 timed runs, L2 flushed before each, 3 warm-up runs; ...
 *     name,measured_us,min_us,max_us,runs,gbytes_per_s,copy_fraction,gpu,date
 *     rowsum4k_default,27.1,26.9,27.5,20,2476.3,0.85,NVIDIA H100 80GB HBM3,2026-11-23T10:00:01Z
 *
 * The provenance header: `# key: value` lines before the column line, kept
 * in order (other comment lines are skipped).  A file whose header has a
 * `synthetic:` key holds made-up numbers for tests, and says so; the CLI
 * repeats it next to every figure computed from them.  The first line that
 * is not a comment names the columns: any order, the nine above required,
 * others ignored (room for more).  Each later non-blank, non-comment line is
 * one kernel:
 *   name           a suite case's NAME (rows of names not in the suite are
 *                  ignored and counted)
 *   measured_us    the median of `runs` timed launches, microseconds, > 0
 *   min_us, max_us the fastest and slowest run: 0 < min <= measured <= max
 *   runs           timed launches, >= 1
 *   gbytes_per_s   input + output bytes over measured_us, GB/s (1e9), >= 0
 *   copy_fraction  gbytes_per_s over the device-to-device copy bandwidth
 *                  measured in the same session, >= 0
 *   gpu, date      the device's name; when the row was measured (ISO 8601)
 * gbytes_per_s and copy_fraction may be empty (unknown).  Fields are not
 * quoted and hold no commas (the writer turns commas into spaces).  Limits:
 * LS_COMPARE_MAX_CASES rows, lines of LS_COMPARE_MAX_LINE bytes.
 *
 * ---- Statistics ----
 *
 * error % of a case = 100 (simulated - measured) / measured: positive when
 * the simulator is slower than the GPU.  Percentiles interpolate linearly
 * between order statistics (x[floor h] + (h - floor h)(x[floor h + 1] -
 * x[floor h]), h = p (n - 1): numpy's default, R's type 7).  Ranks of ties
 * are averaged; Spearman's rho is Pearson's r of the ranks; Kendall's tau-b
 * is (C - D) / sqrt((C + D + Ty)(C + D + Tx)) over pairs: C concordant, D
 * discordant, Tx tied in x only, Ty in y only.  A statistic that is not
 * defined (fewer than two values, or a constant series) is NaN.
 */
#ifndef LANESCOPE_COMPARE_H
#define LANESCOPE_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lanescope/diag.h"

#define LS_COMPARE_NAME_MAX 96 /* bytes of a case or group name, with the NUL */
#define LS_COMPARE_PATH_MAX 1024
#define LS_COMPARE_NOTE_MAX 256
#define LS_COMPARE_MAX_CASES 4096 /* cases per suite, rows per CSV */
#define LS_COMPARE_MAX_REPEAT 100   /* compare --repeat's rounds */
#define LS_COMPARE_MAX_REDUCTION 64 /* reduction=K's K (an input holds at most
                                     * LS_IMPORT_MAX_ITEMS; the file says) */
#define LS_COMPARE_MAX_LINE 4096  /* bytes per line of a suite or CSV */
#define LS_COMPARE_MAX_PROV 32    /* provenance lines kept */
#define LS_COMPARE_MAX_FIELDS 64  /* fields of a CSV line (draw compare's too) */
/* The most microseconds a timing in a CSV may claim (about 11.6 days):
 * past it, sums and chart axes stop being exact. */
#define LS_COMPARE_MAX_US 1e12
#define LS_COMPARE_MAX_FILE (32u << 20) /* bytes of a suite or CSV, comments included */

/* The targets for the simulator (issue 11). */
#define LS_COMPARE_TARGET_MEAN_PCT 10.0  /* mean |error| below this */
#define LS_COMPARE_TARGET_WORST_PCT 25.0 /* every |error| below this */
#define LS_COMPARE_TARGET_TAU 0.8        /* Kendall tau-b above this in every group */

/* ---- suites ---- */
typedef struct {
    char name[LS_COMPARE_NAME_MAX];
    char file[LS_COMPARE_PATH_MAX];  /* as written */
    char path[LS_COMPARE_PATH_MAX];  /* resolved against the suite's folder */
    char group[LS_COMPARE_NAME_MAX]; /* "" when none */
    char note[LS_COMPARE_NOTE_MAX];
    int reduction; /* reduction=K, 1-based; 0 when not given (FILE holds one) */
    bool dispatch; /* kernel=dispatch: the dispatch (of reduction K, else the
                    * first) as its one kernel, every loop, as `sim` times it */
    int line;      /* in the suite file */
} ls_suite_case;

typedef struct {
    char path[LS_COMPARE_PATH_MAX];
    ls_suite_case *cases; /* owned, n of them, in file order */
    size_t n;
} ls_suite;

/* Parse suite text; path names it in messages and anchors relative FILEs.
 * No cases at all is an error.  On error s holds nothing (free it anyway). */
ls_status ls_suite_parse(const char *text, size_t len, const char *path, ls_suite *s,
                         ls_diag *diag);
ls_status ls_suite_load(const char *path, ls_suite *s, ls_diag *diag);
void ls_suite_free(ls_suite *s); /* s may be zeroed or NULL */

/* ---- measured times ---- */
typedef struct {
    char name[LS_COMPARE_NAME_MAX];
    double measured_us, min_us, max_us;
    int64_t runs;
    double gbytes_per_s, copy_fraction; /* NaN: unknown */
    char gpu[128];
    char date[40];
    double launch_us; /* written as an extra column: an empty kernel of the same
                       * grid, timed alike (NaN: unknown; not read back) */
    int line; /* in the CSV (0: not read from one) */
} ls_measured_row;

typedef struct {
    char key[32];
    char value[480];
} ls_prov_entry;

typedef struct {
    char path[LS_COMPARE_PATH_MAX];
    ls_measured_row *rows; /* owned, n of them, in file order */
    size_t n;
    int n_prov;
    ls_prov_entry prov[LS_COMPARE_MAX_PROV];
} ls_measured;

ls_status ls_measured_parse(const char *text, size_t len, const char *path, ls_measured *m,
                            ls_diag *diag);
ls_status ls_measured_load(const char *path, ls_measured *m, ls_diag *diag);
void ls_measured_free(ls_measured *m); /* m may be zeroed or NULL */
/* The row named name, or NULL. */
const ls_measured_row *ls_measured_find(const ls_measured *m, const char *name);
/* The value of provenance key, or NULL. */
const char *ls_measured_prov(const ls_measured *m, const char *key);

/* row_of[i] = the row of suite case i, or SIZE_MAX when it has none: an
 * error naming the case (its suite line) unless allow_missing, in which
 * case *n_missing counts them (all missing is still an error).  *n_extra:
 * rows naming no suite case.  Either count pointer may be NULL. */
ls_status ls_measured_match(const ls_measured *m, const ls_suite *s, bool allow_missing,
                            size_t *row_of, size_t *n_missing, size_t *n_extra, ls_diag *diag);

/* One case measured in n rounds (n >= 1, rounds[k] its row of round k,
 * the rounds interleaved with the other cases so that a disturbed stretch
 * of the GPU's time falls on one round): measured_us the median of the
 * rounds' medians, min_us/max_us over every launch, runs their sum,
 * launch_us the median of the rounds', bandwidth and copy fraction
 * rescaled to the median time; name, gpu and date from the first round. */
void ls_measured_fold_rounds(const ls_measured_row *rounds, int n, ls_measured_row *out);

/* Write the provenance header (a title line, then `# key: value` lines;
 * newlines in values become spaces), the column line, and rows. */
void ls_measured_write_header(FILE *f, const ls_prov_entry *prov, int n_prov);
void ls_measured_write_row(FILE *f, const ls_measured_row *r);

/* ---- statistics (NaN where undefined; see the top of this file) ---- */
double ls_stat_mean(const double *x, size_t n);
/* p in [0, 1]; x need not be sorted. */
double ls_stat_percentile(const double *x, size_t n, double p);
double ls_stat_pearson(const double *x, const double *y, size_t n);
/* 1-based ranks, ties given the mean of the ranks they span. */
void ls_stat_ranks(const double *x, size_t n, double *rank);
double ls_stat_spearman(const double *x, const double *y, size_t n);
double ls_stat_kendall_tau_b(const double *x, const double *y, size_t n);

/* ---- one comparison ---- */
typedef struct {
    char name[LS_COMPARE_NAME_MAX];
    char group[LS_COMPARE_NAME_MAX];  /* "" when none */
    double simulated_us, measured_us; /* both > 0 */
} ls_compare_case;

typedef struct {
    char name[LS_COMPARE_NAME_MAX];
    size_t n; /* cases */
    double spearman, kendall;
} ls_compare_group;

typedef struct {
    size_t n; /* cases */
    double mean_abs_pct, max_abs_pct, p90_abs_pct;
    size_t worst;             /* the case of max_abs_pct */
    double mean_signed_pct;   /* bias: > 0, the simulator is slower */
    double pearson_log;       /* Pearson r of log10 times */
    double pearson_lin;       /* Pearson r of the times themselves */
    ls_compare_group *groups; /* owned; in order of first appearance */
    size_t n_groups;
    size_t n_ranked;                /* groups of 2+ cases */
    size_t n_tau;                   /* of those, groups whose tau-b is defined */
    double mean_tau, min_tau;       /* over those; NaN when n_tau is 0 */
    size_t min_tau_group;           /* index into groups (SIZE_MAX: none) */
    bool mean_ok, worst_ok, tau_ok; /* the targets above; tau_ok needs n_ranked > 0
                                     * and a defined tau-b above the target in each */
} ls_compare_summary;

/* 100 (simulated - measured) / measured. */
double ls_compare_error_pct(double simulated_us, double measured_us);
/* The figures of n cases (n >= 1; every time finite and > 0, else
 * LS_ERR_INVALID naming the case). */
ls_status ls_compare_summarize(const ls_compare_case *c, size_t n, ls_compare_summary *s,
                               ls_diag *diag);
void ls_compare_summary_free(ls_compare_summary *s);

#endif
