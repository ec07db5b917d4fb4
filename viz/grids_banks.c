/* grids_banks.c: which lanes of a subgroup land in which shared-memory
 * bank, access by access -- the plan's cross-subgroup buffer (its write and
 * read) or a swizzle's blocks -- with each access's conflict degree (see
 * grids.c for the other cell-grid pictures). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grids_internal.h"
#include "lanescope/arena.h"
#include "lanescope/viz.h"

typedef struct {
    int64_t words[64]; /* distinct words in the bank */
    int nwords;
    int64_t lanes[4];
    int nlanes;
    int64_t lane_total;
} bank_use;

/* One row of a banks panel: one access by the given lanes at the given byte
 * addresses, each `bytes` wide.  Returns the conflict degree. */
static int64_t banks_row(ls_grid *g, int row, const int64_t *lanes, const int64_t *addr, int n,
                         int64_t bytes, int64_t banks, int64_t bank_bytes, int64_t lane_base)
{
    bank_use *u = ls_xcalloc((size_t)banks, sizeof *u);
    for (int i = 0; i < n; i++)
        for (int64_t b = 0; b < bytes; b += bank_bytes) {
            int64_t wd = (addr[i] + b) / bank_bytes, bk = wd % banks;
            bank_use *x = &u[bk];
            bool seen = false;
            for (int k = 0; k < x->nwords && !seen; k++)
                seen = x->words[k] == wd;
            if (!seen && x->nwords < 64)
                x->words[x->nwords++] = wd;
            bool lane_seen = false;
            for (int k = 0; k < x->nlanes && !lane_seen; k++)
                lane_seen = x->lanes[k] == lanes[i];
            if (!lane_seen) {
                if (x->nlanes < 4)
                    x->lanes[x->nlanes++] = lanes[i];
                x->lane_total++;
            }
        }
    int64_t degree = 1;
    for (int64_t bk = 0; bk < banks; bk++)
        if (u[bk].nwords > degree)
            degree = u[bk].nwords;
    for (int64_t bk = 0; bk < banks && bk < g->cols; bk++) {
        ls_cell *cell = &g->cells[row * g->cols + bk];
        bank_use *x = &u[bk];
        cell->block = (int32_t)bk;
        if (x->lane_total == 0) {
            cell->fill = (ls_rgb){0.96, 0.96, 0.96};
            continue;
        }
        if (x->nlanes == 1)
            fmt(cell->label[0], LS_CELL_LABEL, "T%lld", (long long)(x->lanes[0] + lane_base));
        else
            fmt(cell->label[0], LS_CELL_LABEL, "T%lld+%lld", (long long)(x->lanes[0] + lane_base),
                (long long)(x->lane_total - 1));
        if (x->nwords == 1) {
            cell->fill = ls_rgb_hex(0x99DDFF);
            copy_str(cell->label[1], LS_CELL_LABEL, x->lane_total > 1 ? "bcast" : "");
        } else {
            cell->fill = ls_rgb_hex(0xEE8866);
            fmt(cell->label[1], LS_CELL_LABEL, "%d words", x->nwords);
            if (x->nwords == degree)
                cell->flags |= LS_CELL_ALERT;
        }
    }
    free(u);
    return degree;
}

/* Runs of consecutive entries of lanes[0..n) in one phase (the engine's
 * rule, ls_bank_phase_end): the rows an access takes in a banks panel. */
static int phase_count(const int64_t *lanes, int n, int64_t per)
{
    int count = 0;
    for (int i = 0; i < n; count++)
        i = ls_bank_phase_end(lanes, n, i, per);
    return count > 0 ? count : 1;
}

/* One access as rows row0.. of g, one row per phase (head on the first
 * row; when there are several, "lanes A-B: degree d" on each and the
 * access's cycles, their sum, under the head).  Returns the
 * access's degree: the sum over its phases, what the simulator charges. */
static int64_t banks_access(ls_grid *g, int row0, const char *head, const int64_t *lanes,
                            const int64_t *addr, int n, int64_t bytes, int64_t banks,
                            int64_t bank_bytes)
{
    int64_t per = ls_bank_phase_lanes(bytes, banks, bank_bytes), total = 0;
    int phases = phase_count(lanes, n, per), row = row0, i = 0;
    do { /* one row per phase; an access by no lane still gets its (empty) row */
        int j = ls_bank_phase_end(lanes, n, i, per);
        int64_t deg = banks_row(g, row, lanes + i, addr + i, j - i, bytes, banks, bank_bytes, 0);
        total += deg;
        copy_str(g->row_head[row], LS_GRID_HEADER, row == row0 ? head : "");
        if (phases > 1)
            fmt(g->row_note[row], sizeof g->row_note[0], "lanes %lld-%lld: degree %lld",
                (long long)lanes[i], (long long)lanes[j - 1], (long long)deg);
        else
            fmt(g->row_note[row], sizeof g->row_note[0], "degree %lld", (long long)deg);
        i = j;
        row++;
    } while (i < n);
    if (phases > 1) /* the access's cost under its name */
        fmt(g->row_head[row0 + 1], LS_GRID_HEADER, "= %lld cycle%s", (long long)total,
            total == 1 ? "" : "s");
    return total;
}

/* The note that says how wide accesses were drawn. */
static void phases_note(ls_figure *out, int64_t bytes, int64_t banks, int64_t bank_bytes)
{
    int64_t per = ls_bank_phase_lanes(bytes, banks, bank_bytes);
    if (per <= 0)
        return;
    char note[240];
    fmt(note, sizeof note,
        "A %lld-byte access is wider than a bank: it is served in phases of %lld lanes (%lld "
        "banks x %lld bytes / %lld), one row each; the access costs the sum of its phases' "
        "degrees (what the simulator charges).",
        (long long)bytes, (long long)per, (long long)banks, (long long)bank_bytes,
        (long long)bytes);
    note_add(out, note);
}

/* A panel of `rows` accesses x `banks` banks, with a degree note per row. */
static ls_grid *banks_panel(ls_figure *out, int rows, int64_t banks, const char *caption)
{
    ls_grid *g = ls_figure_add_panel(out, rows, (int)banks);
    copy_str(g->caption, sizeof g->caption, caption);
    copy_str(g->row_axis, sizeof g->row_axis, "access");
    copy_str(g->col_axis, sizeof g->col_axis, "bank");
    axis_heads(g->col_head, (int)banks, 0, 1, banks);
    g->row_note = ls_xcalloc((size_t)g->rows, sizeof *g->row_note);
    g->cell_w = 40;
    return g;
}

static void banks_legend(ls_figure *out)
{
    legend_add(out, ls_rgb_hex(0x99DDFF), 0, "one word: one cycle (same word: broadcast)");
    legend_add(out, ls_rgb_hex(0xEE8866), 0, "several words: conflict");
    legend_add(out, ls_rgb_hex(0xEE8866), LS_CELL_ALERT, "busiest bank: sets the degree");
    legend_add(out, (ls_rgb){0.96, 0.96, 0.96}, 0, "unused bank");
}

ls_status ls_viz_banks_plan(const ls_plan *pl, const ls_hw *hw, ls_figure *out, ls_diag *diag)
{
    memset(out, 0, sizeof *out);
    const ls_derived *d = pl->derived;
    const ls_problem *p = pl->problem;
    if (!pl->cross_subgroup)
        return ls_diag_set(diag, LS_ERR_INVALID, p->file, p->line, p->col,
                           "%s has no cross-subgroup stage (no reduced dim is split across "
                           "subgroups), so no shared-memory access to draw",
                           p->name);
    int64_t nq = pl->results_per_thread;
    int64_t shown = nq > 16 ? 16 : nq;
    int64_t banks = hw->smem_banks;
    if (banks > 128)
        return ls_diag_set(diag, LS_ERR_LIMIT, "", 0, 0,
                           "model %s has %lld banks; draw shows at most 128", hw->name,
                           (long long)banks);
    int64_t *slot_reg = ls_xcalloc((size_t)nq, sizeof *slot_reg);
    int64_t *lanes = ls_xcalloc((size_t)d->subgroup_size, sizeof *lanes);
    int64_t *addr = ls_xcalloc((size_t)d->subgroup_size, sizeof *addr);
    ls_result_slot_registers(d, p, slot_reg);
    int64_t per = ls_bank_phase_lanes(pl->acc_elem_bytes, banks, hw->smem_bank_bytes);
    int rows = 0;
    for (int64_t q = 0; q < shown; q++)
        for (int rd = 0; rd < 2; rd++) {
            int n = ls_smem_access(pl, slot_reg[q], rd == 1, lanes, addr);
            rows += phase_count(lanes, n, per);
        }
    ls_grid *g = banks_panel(out, rows, banks,
                             "cross-subgroup buffer, subgroup 0: lanes per bank in each access");
    int row = 0;
    for (int64_t q = 0; q < shown; q++)
        for (int rd = 0; rd < 2; rd++) {
            int n = ls_smem_access(pl, slot_reg[q], rd == 1, lanes, addr);
            char head[LS_GRID_HEADER];
            fmt(head, sizeof head, "%s slot %lld", rd ? "read" : "write", (long long)q);
            banks_access(g, row, head, lanes, addr, n, pl->acc_elem_bytes, banks,
                         hw->smem_bank_bytes);
            row += phase_count(lanes, n, per);
        }
    free(slot_reg);
    free(lanes);
    free(addr);
    fmt(out->title, sizeof out->title, "shared-memory banks of %s on %s", p->name, hw->name);
    char shape[128];
    ls_format_list(shape, sizeof shape, pl->buffer_shape, pl->buffer_rank);
    fmt(out->subtitle, sizeof out->subtitle,
        "buffer %s x %lld bytes (padded by %lld elements), %lld banks x %lld bytes", shape,
        (long long)pl->acc_elem_bytes, (long long)pl->buffer_pad, (long long)banks,
        (long long)hw->smem_bank_bytes);
    banks_legend(out);
    note_add(out, "Degree = distinct words in the busiest bank: the cycles the access takes "
                  "(what the simulator charges).");
    phases_note(out, pl->acc_elem_bytes, banks, hw->smem_bank_bytes);
    if (shown < nq) {
        char note[200];
        fmt(note, sizeof note, "Result slots 0..%lld of %lld shown.", (long long)shown - 1,
            (long long)nq);
        note_add(out, note);
    }
    return LS_OK;
}

ls_status ls_viz_banks_swizzle(const ls_swizzle *s, const char *name, int64_t lanes,
                               int64_t elem_bytes, int64_t banks, int64_t bank_bytes,
                               ls_figure *out, ls_diag *diag)
{
    memset(out, 0, sizeof *out);
    if (ls_swizzle_check(s, "", diag))
        return diag->status;
    if (lanes < 1 || lanes > LS_MAX_SUBGROUP_SIZE)
        return ls_diag_set(diag, LS_ERR_USAGE, "--lanes", 0, 0, "%lld lanes: need 1..%d",
                           (long long)lanes, LS_MAX_SUBGROUP_SIZE);
    if (banks < 1 || banks > 128)
        return ls_diag_set(diag, LS_ERR_USAGE, "--banks", 0, 0, "%lld banks: need 1..128",
                           (long long)banks);
    int64_t n = ls_swizzle_blocks_per_row(s);
    int64_t bytes = s->access_width * elem_bytes;
    int64_t per = ls_bank_phase_lanes(bytes, banks, bank_bytes);
    int64_t *lane_id = ls_xcalloc((size_t)lanes, sizeof *lane_id);
    for (int64_t ln = 0; ln < lanes; ln++)
        lane_id[ln] = ln;
    /* at most 32 rows a panel: fewer block columns when each takes phases */
    int phases = phase_count(lane_id, (int)lanes, per);
    int64_t cap = 32 / phases > 0 ? 32 / phases : 1;
    int64_t shown = n > 16 ? 16 : n;
    if (shown > cap)
        shown = cap;
    int64_t stride = swz_row_elems(s);
    out->stacked = true;
    int64_t *addr = ls_xcalloc((size_t)lanes, sizeof *addr);
    for (int sw = 0; sw < 2; sw++) {
        ls_grid *g = banks_panel(out, (int)(shown * phases), banks,
                                 sw ? "with the swizzle" : "without (plain row-major)");
        for (int64_t c = 0; c < shown; c++) {
            for (int64_t ln = 0; ln < lanes; ln++) {
                int64_t off = ln * stride + c * s->access_width;
                addr[ln] = (sw ? ls_swizzle_apply(s, off) : off) * elem_bytes;
            }
            char head[LS_GRID_HEADER];
            fmt(head, sizeof head, "block col %lld", (long long)c);
            banks_access(g, (int)(c * phases), head, lane_id, addr, (int)lanes, bytes, banks,
                         bank_bytes);
        }
    }
    free(lane_id);
    free(addr);
    fmt(out->title, sizeof out->title, "banks under swizzle%s%s", name && name[0] ? " #" : "",
        name ? name : "");
    ls_swizzle_format(s, out->subtitle, sizeof out->subtitle);
    banks_legend(out);
    char note[200];
    fmt(note, sizeof note,
        "Access: lane T reads block column c of row T (%lld elements of %lld bytes); "
        "%lld banks x %lld bytes.",
        (long long)s->access_width, (long long)elem_bytes, (long long)banks, (long long)bank_bytes);
    note_add(out, note);
    phases_note(out, bytes, banks, bank_bytes);
    if (shown < n) {
        fmt(note, sizeof note, "Block columns 0..%lld of %lld shown.", (long long)shown - 1,
            (long long)n);
        note_add(out, note);
    }
    return LS_OK;
}
