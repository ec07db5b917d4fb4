/* cli_trace.h: sim --trace's Chrome trace (JSON Trace Event Format), laid
 * out as Perfetto draws it cleanly: a named process per WGP and a named
 * thread per resident subgroup slot, a "workgroup N" slice around each
 * workgroup's stage slices on its subgroup's track (strict nesting), and a
 * counter process with DRAM bandwidth, L2 hit rate and resident
 * workgroups over time.  Written as it is made: one reduction's slices and
 * counter bins are held at a time, never a document of objects. */
#ifndef LANESCOPE_CLI_TRACE_H
#define LANESCOPE_CLI_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lanescope/engine.h"
#include "lanescope/hwmodel.h"
#include "lanescope/problem.h"

/* Memory traffic over time, from the engine's records (an ls_engine_opts
 * record callback): bins of width cycles, widened (pairs merged) as the
 * run grows so that at most LS_TRACE_MAX_BINS are held. */
#define LS_TRACE_MAX_BINS 4096
typedef struct {
    int64_t width, n;
    int64_t dram[LS_TRACE_MAX_BINS], sectors[LS_TRACE_MAX_BINS], hits[LS_TRACE_MAX_BINS];
} ls_trace_counters;

void ls_trace_counters_reset(ls_trace_counters *c);
void ls_trace_counters_record(void *ctx, const ls_engine_record *r);

typedef struct {
    FILE *f;
    bool first;          /* no event written yet */
    int n_reductions;    /* names carry the reduction when there are several */
} ls_trace_writer;

void ls_trace_writer_begin(ls_trace_writer *w, FILE *f, int n_reductions);
/* One reduction's run: its slices (tr is emptied) and counters. */
void ls_trace_writer_add(ls_trace_writer *w, const ls_problem *p, const ls_hw *hw, ls_trace *tr,
                         const ls_trace_counters *c, int reduction);
void ls_trace_writer_end(ls_trace_writer *w);

#endif
