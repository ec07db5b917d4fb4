/* cli_compare.h: what `lanescope compare`'s runner (cli_compare.c) and its
 * reports (cli_compare_report.c: the table, the figures, JSON, the CSV for
 * draw compare, the chart) share. */
#ifndef LS_CLI_COMPARE_H
#define LS_CLI_COMPARE_H

#include <json-c/json.h>
#include <stdio.h>

#include "cli.h"
#include "lanescope/compare.h"
#include "lanescope/measure.h"

#define CMD "compare"

typedef struct {
    const char *suite, *target, *measured, *save, *csv, *chart, *output;
    bool json, allow_missing, runs_given, quiet;
    int64_t runs, warmup, device;
    int64_t repeat; /* --repeat: interleaved rounds of the whole suite */
} compare_args;

/* What compare keeps of one case. */
typedef struct {
    ls_compare_case c;
    const ls_suite_case *sc;
    int64_t cycles;
    bool suggested; /* IREE's default config */
    char op[128];   /* the reduction's name, as sim reports it */
} case_result;

/* The GPU side, when measuring here. */
typedef struct {
    ls_gpu *gpu;
    ls_measure_opts mo;
    double copy_gbps; /* measured once, with the first case */
    size_t failed;    /* cases that failed on the GPU (left out of the figures) */
    const ls_gpu_info *gi;
} measurer;

/* The reports (cli_compare_report.c). */
void ls_cmp_describe_source(char *buf, size_t size, const compare_args *a, const ls_measured *m,
                            const measurer *ms, bool brief);
void ls_cmp_print_table(FILE *f, const case_result *cr, size_t n);
void ls_cmp_print_figures(FILE *f, const case_result *cr, const ls_compare_summary *s);
json_object *ls_cmp_json_report(const compare_args *a, const ls_hw *hw, const ls_measured *m,
                                const char *source, const case_result *cr,
                                const ls_compare_summary *s, json_object *skipped);
void ls_cmp_write_draw_csv(FILE *f, const compare_args *a, const ls_hw *hw, const char *source,
                           const case_result *cr, size_t n);
ls_status ls_cmp_draw_chart(const compare_args *a, const ls_hw *hw, const char *brief_source,
                            const case_result *cr, const ls_compare_summary *s, ls_diag *diag);

#endif
