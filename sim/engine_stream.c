/* engine_stream.c: whether a run streams -- whether every cache line of
 * its inputs is asked for at most once in the whole run.  Then no lookup
 * in the L1, the L2 or the memory-side cache can find its line (nothing
 * asked for it before), no fill time of an earlier request can delay it,
 * and the caches' contents never change a result: the engine may skip
 * them and keep only what a miss costs (the request slots, the L2
 * partition's latency, the DRAM queue).  The figures are bit-identical to
 * the full walk; tests/test_memory.c runs both ways and compares.
 *
 * The answer comes from one pass over every global load of every
 * workgroup and iteration, marking lines in a bitmap (one bit per line of
 * the inputs), before the run.  A reduction whose every input element
 * feeds one output (a row sum, a softmax pass) streams unless its tiles
 * split lines; a matvec's vector, read by every workgroup, does not. */
#include <stdlib.h>
#include <string.h>

#include "lanescope/layout.h"

#include "engine_internal.h"

/* Bitmap bits the pass may use: 32 MiB, 32 GiB of inputs in 128-byte
 * lines.  Larger inputs take the full walk (still exact, only slower). */
#define LS_STREAM_MAX_LINES (INT64_C(1) << 28)

typedef struct {
    uint64_t *seen;
    int line_shift;
} linemap;

/* Mark the lines of byte range [lo, hi); false when one was marked before.
 * A word of the bitmap at a time: a range is a few lines, rarely two words. */
static bool mark_range(linemap *m, int64_t lo, int64_t hi)
{
    int64_t l0 = lo >> m->line_shift, l1 = (hi - 1) >> m->line_shift;
    for (int64_t w = l0 >> 6; w <= l1 >> 6; w++) {
        int a = w == l0 >> 6 ? (int)(l0 & 63) : 0, b = w == l1 >> 6 ? (int)(l1 & 63) : 63;
        uint64_t bits = (b == 63 ? ~UINT64_C(0) : (UINT64_C(1) << (b + 1)) - 1) &
                        ~((UINT64_C(1) << a) - 1);
        if (m->seen[w] & bits)
            return false;
        m->seen[w] |= bits;
    }
    return true;
}

/* The global loads of one tile (workgroup wg_coord, iteration it):
 * the code's loads of every subgroup, as step() issues them. */
static bool mark_tile(engine *e, linemap *m, const int64_t *wg_coord, const int64_t *wg_half,
                      bool wg_ragged, int64_t it, const int *loads, int nloads, interval *tmp)
{
    int64_t base[LS_MAX_INPUTS], it_coord[LS_MAX_RANK];
    bool ragged = ls_engine_tile_at(e, it, wg_half, wg_ragged, base, it_coord);
    for (int j = 0; j < nloads; j++) {
        const tinst *in = &e->code[loads[j]];
        int k = in->operand;
        for (int sg = 0; sg < e->nsub; sg++) {
            if (!ragged) {
                int64_t i0 = ls_engine_load_slot(e, in, sg);
                const interval *iv = e->ivals + e->ival_start[i0];
                for (int i = 0; i < e->ival_count[i0]; i++)
                    if (!mark_range(m, base[k] + iv[i].lo, base[k] + iv[i].hi))
                        return false;
                continue;
            }
            int64_t active;
            int n = ls_engine_ragged_intervals(e, in, sg, wg_coord, it_coord, tmp, &active);
            for (int i = 0; i < n; i++)
                if (!mark_range(m, e->op_base[k] + tmp[i].lo, e->op_base[k] + tmp[i].hi))
                    return false;
        }
    }
    return true;
}

bool ls_engine_streams(engine *e)
{
    const ls_plan *pl = e->plan;
    /* a fused kernel's loops read the same tiles again: never streams;
     * nor do gathered rows, which lie where their indices say */
    for (int k = 0; k < pl->n_inputs; k++)
        if (pl->gather[k].on)
            return false;
    if (e->n_loops > 1)
        return false;
    /* every global load must sit in the loop, where the pass looks */
    int nloads = 0;
    for (int pc = 0; pc < e->ncode; pc++) {
        if (e->code[pc].kind != I_GLOAD)
            continue;
        if (pc < e->loop_begin || pc >= e->loop_end)
            return false;
        nloads += e->code[pc].iter_offset == 0;
    }
    /* one iteration's loads: the pass walks every iteration itself, so an
     * unrolled body's other copies would mark the same lines again */
    int *loads = ls_xcalloc((size_t)nloads, sizeof *loads);
    for (int pc = e->loop_begin, j = 0; pc < e->loop_end; pc++)
        if (e->code[pc].kind == I_GLOAD && e->code[pc].iter_offset == 0)
            loads[j++] = pc;
    int64_t lines = (e->input_bytes + e->hw->l2_line_bytes - 1) / e->hw->l2_line_bytes;
    if (lines > LS_STREAM_MAX_LINES) {
        free(loads);
        return false;
    }
    linemap m;
    m.line_shift = __builtin_ctzll((uint64_t)e->hw->l2_line_bytes);
    m.seen = ls_xcalloc((size_t)(lines + 63) / 64, sizeof *m.seen);
    int64_t width = 1;
    for (int k = 0; k < pl->n_inputs; k++) {
        if (pl->inputs[k].width > width)
            width = pl->inputs[k].width;
        if (pl->promote[k].on && pl->promote[k].copy_width > width)
            width = pl->promote[k].copy_width;
    }
    interval *tmp = ls_xcalloc((size_t)(e->d->subgroup_size * width), sizeof *tmp);
    bool streams = true;
    int64_t wg_coord[LS_MAX_RANK], wg_half[LS_MAX_INPUTS];
    for (int64_t wg = 0; streams && wg < e->d->total_workgroups; wg++) {
        ls_workgroup_coord(e->d, wg, wg_coord);
        bool wg_ragged = ls_tile_ragged_half(e->d, e->p, wg_coord, false);
        for (int k = 0; k < pl->n_inputs; k++)
            wg_half[k] = ls_engine_wg_half(e, k, wg, wg_coord);
        for (int64_t it = 0; streams && it < pl->iterations; it++)
            streams = mark_tile(e, &m, wg_coord, wg_half, wg_ragged, it, loads, nloads, tmp);
    }
    free(tmp);
    free(m.seen);
    free(loads);
    return streams;
}
