/* cli_sweep.h: what `lanescope sweep`'s front end (cli_sweep.c) hands the
 * sweep of an attention (cli_sweep_attention.c).  Not installed. */
#ifndef LANESCOPE_CLI_SWEEP_H
#define LANESCOPE_CLI_SWEEP_H

#include <stdbool.h>
#include <stdint.h>

#include "cli.h"
#include "lanescope/import.h"
#include "lanescope/viz.h"

typedef struct {
    const char *input, *target, *csv_path, *chart_path, *roof_path;
    int64_t jobs, top;
    bool quiet, force;
} ls_sweep_args;

/* The sweep's files as one set (cli_sweep.c): the chart and roofline
 * (each where its path is given), then the CSV (csv is closed either
 * way).  0: written; -1: diag says why (nothing written); 1: the error is
 * printed. */
int ls_sweep_write_files(ls_out *csv, const char *csv_path, const char *chart_path,
                         const ls_chart *chart, const char *roof_path, const ls_chart *roof,
                         const char *src, ls_diag *diag);

/* The line on the configs that did not simulate (errors[0..n), each the
 * point's message): how many, then the three most common reasons (the
 * message past its file:line:col) with their counts.  Nothing for n = 0. */
void ls_sweep_print_failures(FILE *f, const char *const *errors, size_t n, const char *csv_path);

/* A swept config on a roofline (rank k + 1): its figures; the best, IREE's
 * and the input's get a verdict naming the config. */
typedef struct {
    double ops, kernel_us, mlp_cap, time_us, dram_gbps;
    int64_t dram_bytes;
    const char *bottleneck, *config;
    bool iree, input;
} ls_sweep_roof_in;
void ls_sweep_roof_point(ls_roof_point *r, size_t k, const ls_sweep_roof_in *in, const ls_hw *hw);
/* The chart of ok points: titled with the op and model, ops saying what
 * an op is. */
void ls_sweep_roofline_chart(const char *name, const ls_hw *hw, const ls_roof_point *pts,
                             size_t ok, const char *ops, ls_chart *out);

/* "  wrote A and B and C" for the files given (none: nothing). */
void ls_sweep_print_wrote(FILE *f, const char *csv_path, const char *chart_path,
                          const char *roof_path);

/* Sweep attention op `index` of m: the table on standard output, the CSV
 * and chart where asked.  Returns the exit status. */
int ls_sweep_attention(ls_module *m, size_t index, const ls_sweep_args *args);

#endif
