/* cli_sweep_attention.c: `lanescope sweep` of a file whose op is a decode
 * attention (no reduction to sweep): the configs IREE's
 * setAttentionReductionConfig derives from seeds around its own
 * (src/sweep_attention.c), each timed as `sim` times the kernel, ranked
 * in a table, with IREE's and the op's written config marked; the same
 * CSV and chart as a reduction's sweep. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_sim.h"
#include "cli_sweep.h"
#include "lanescope/sweep.h"
#include "lanescope/viz.h"

#define CMD "sweep"

static void progress(void *ctx, size_t done, size_t total)
{
    ls_cli_progress_update(ctx, (int64_t)done, (int64_t)total);
}

static void knobs(char *buf, size_t size, const ls_att_sweep_point *pt)
{
    char seeds[64] = "written config";
    if (!pt->written)
        snprintf(seeds, sizeof seeds, "seeds %lld/%lld/%lld", (long long)pt->seeds.key_vectors,
                 (long long)pt->seeds.value_vectors, (long long)pt->seeds.subgroups);
    snprintf(buf, size, "%s: wg %lld lanes %lldx%lld (K1 x K2) subgroups %lld keys/step %lld N/wg %lld",
             seeds, (long long)pt->workgroup_size, (long long)pt->lanes_k1,
             (long long)pt->lanes_k2, (long long)pt->subgroups, (long long)pt->keys_per_step,
             (long long)pt->n_tile);
}

/* Bytes the kernel must move at least: every tensor it reads (the query,
 * the key, value, mask and page tables as the view reads them) and every
 * result it stores, once. */
static int64_t min_bytes(const ls_module *m, const ls_module_attention *ma, const ls_plan *pl)
{
    const ls_problem *p = pl->problem;
    int64_t bytes = 0;
    for (int k = 0; k < p->n_inputs; k++)
        bytes += ls_operand_elements(p, k) * pl->inputs[k].elem_bits / 8;
    const ls_dispatch *d = &m->dispatches[ma->dispatch];
    const ls_dop *o = &d->ops[ma->op];
    const int others[] = {0}; /* the query */
    for (size_t i = 0; i < sizeof others / sizeof *others; i++) {
        const ls_dop_operand *q = &o->operand[others[i]];
        int64_t n = 1;
        for (int j = 0; j < q->map_n; j++)
            n *= p->size[q->map[j]];
        bytes += n * (q->is_index ? 64 : q->elem_bits) / 8;
    }
    for (int r = 0; r < o->n_inits; r++) {
        if (!ls_att_result_stored(d, o, r))
            continue;
        const ls_dop_operand *q = &o->operand[o->n_inputs + r];
        int64_t n = 1;
        for (int j = 0; j < q->map_n; j++)
            n *= p->size[q->map[j]];
        bytes += n * (q->is_index ? 64 : q->elem_bits) / 8;
    }
    return bytes;
}

/* Every timed config on a roofline (ops: ls_att_flops), in rank order; the
 * best, IREE's and the input's numbered with a note. */
static void roofline(const ls_attention *a, const ls_hw *hw, const ls_att_sweep *sw,
                     const size_t *order, size_t ok, ls_chart *out)
{
    ls_roof_point *pts = ls_xcalloc(ok ? ok : 1, sizeof *pts);
    for (size_t k = 0; k < ok; k++) {
        const ls_att_sweep_point *pt = &sw->points[order[k]];
        char kn[240];
        knobs(kn, sizeof kn, pt);
        ls_sweep_roof_in in = {pt->ops,       pt->kernel_us,  pt->mlp_cap,    pt->time_us,
                               pt->dram_gbps, pt->dram_bytes, pt->bottleneck, kn,
                               pt->is_iree,   pt->is_input};
        ls_sweep_roof_point(&pts[k], k, &in, hw);
    }
    ls_sweep_roofline_chart(a->name, hw, pts, ok,
                            "2 x B x M x K2 x (K1 + N), the two matmuls' multiply-adds", out);
    free(pts);
}

/* Every config, in rank order (0: did not simulate), as CSV. */
static void write_csv(FILE *f, const ls_att_sweep *sw, const size_t *order)
{
    fprintf(f, "rank,iree,input,key_vectors,value_vectors,subgroups_asked,workgroup_size,"
               "subgroup_size,lanes_k1,lanes_k2,subgroups,keys_per_step,n_per_workgroup,"
               "workgroups,cycles,time_us,dram_gbps,fraction_of_peak,occupancy,bottleneck,"
               "lowering_config,qk_attrs,pv_attrs,error\n");
    for (size_t k = 0; k < sw->n; k++) {
        const ls_att_sweep_point *pt = &sw->points[order[k]];
        fprintf(f,
                "%zu,%d,%d,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%.4f,%.2f,"
                "%.4f,%lld,%s,\"%s\",\"%s\",\"%s\",\"%s\"\n",
                pt->status == LS_OK ? k + 1 : 0, pt->is_iree, pt->is_input,
                (long long)pt->seeds.key_vectors, (long long)pt->seeds.value_vectors,
                (long long)pt->seeds.subgroups, (long long)pt->workgroup_size,
                (long long)pt->subgroup_size, (long long)pt->lanes_k1, (long long)pt->lanes_k2,
                (long long)pt->subgroups, (long long)pt->keys_per_step, (long long)pt->n_tile,
                (long long)pt->workgroups, (long long)pt->cycles, pt->time_us, pt->dram_gbps,
                pt->dram_fraction, (long long)pt->occupancy, pt->bottleneck, pt->op, pt->qk, pt->pv,
                pt->error);
    }
}

/* The configs in rank order: the first ok simulated; IREE's index (n:
 * none) and rank (0: it did not simulate). */
typedef struct {
    const size_t *order;
    size_t ok, iree, iree_rank;
} ranked;

/* The report: the ranked table, IREE's and the input's configs, the
 * failures. */
static void print_report(FILE *f, const ls_attention *a, const ls_hw *hw, const ls_att_sweep *sw,
                         const ranked *rk, double elapsed, int64_t roof_bytes, double roof_us,
                         const ls_sweep_args *args)
{
    const size_t *order = rk->order;
    size_t ok = rk->ok, iree = rk->iree, iree_rank = rk->iree_rank;
    fprintf(f,
            "sweep of %s on %s (%s): %zu config%s simulated in %.1f s on %lld thread%s, %.3g "
            "subgroup-instructions\n",
            a->name, hw->name, hw->arch, ok, ls_s((long long)ok), elapsed, (long long)args->jobs,
            args->jobs == 1 ? "" : "s", (double)sw->estimate);
    fprintf(f, "  IREE's setAttentionReductionConfig with other seeds (key vectors 1..32, "
               "value vectors 1..8, subgroups 1..16; IREE's: 8/2/8), each distinct config "
               "once, timed as sim times the kernel\n");
    fprintf(f, "  DRAM roofline: %.3f MB at %.0f GB/s = %.3f us\n", (double)roof_bytes / 1e6,
            hw->dram_gbps, roof_us);
    fprintf(f, "  %5s %10s %7s  %s\n", "rank", "time_us", "%roof", "config");
    for (size_t k = 0; k < ok && k < (size_t)args->top; k++) {
        const ls_att_sweep_point *pt = &sw->points[order[k]];
        char kn[240];
        knobs(kn, sizeof kn, pt);
        fprintf(f, "  %5zu %10.3f %7.1f  %s%s%s\n", k + 1, pt->time_us, 100 * roof_us / pt->time_us,
                kn, pt->is_iree ? "  <- IREE" : "", pt->is_input ? "  <- input" : "");
    }
    if (iree_rank > 0 && iree < sw->n) {
        const ls_att_sweep_point *pt = &sw->points[iree], *best = &sw->points[order[0]];
        char kn[240];
        knobs(kn, sizeof kn, pt);
        fprintf(f,
                "  IREE's choice ranks %zu of %zu: %.3f us = %.2fx the best (%.3f us), "
                "%.1f%% of the DRAM roofline\n    %s\n    %s\n    qk_attrs %s\n    "
                "pv_attrs %s\n",
                iree_rank, ok, pt->time_us, pt->time_us / best->time_us, best->time_us,
                100 * roof_us / pt->time_us, kn, pt->op, pt->qk, pt->pv);
    } else if (iree < sw->n) {
        fprintf(f, "  IREE's choice does not simulate: %s\n", sw->points[iree].error);
    }
    if (sw->has_input) {
        const ls_att_sweep_point *pt = &sw->points[sw->input];
        size_t in_rank = 0;
        for (size_t k = 0; k < ok; k++)
            if (order[k] == sw->input)
                in_rank = k + 1;
        if (in_rank > 0)
            fprintf(f, "  the input's config ranks %zu of %zu: %.3f us = %.2fx the best%s\n",
                    in_rank, ok, pt->time_us, pt->time_us / sw->points[order[0]].time_us,
                    pt->is_iree ? " (it is IREE's choice)" : "");
        else
            fprintf(f, "  the input's config does not simulate: %s\n", pt->error);
    }
    if (ok < sw->n) {
        const char **errors = ls_xcalloc(sw->n - ok, sizeof *errors);
        for (size_t k = 0, j = 0; k < sw->n; k++)
            if (sw->points[k].status != LS_OK)
                errors[j++] = sw->points[k].error;
        ls_sweep_print_failures(f, errors, sw->n - ok, args->csv_path);
        free(errors);
    }
}

int ls_sweep_attention(ls_module *m, size_t index, const ls_sweep_args *args)
{
    ls_diag diag;
    ls_diag_clear(&diag);
    const ls_module_attention *ma = &m->attentions[index];
    ls_hw hw;
    ls_attention *a = NULL;
    ls_att_view *v = NULL;
    ls_att_sweep sw = {0};
    size_t *order = NULL;
    double *us = NULL;
    ls_chart chart = {0}, roof = {0};
    ls_out out, csv;
    bool out_open = false, csv_open = false;
    int rc = 1;
    /* the model, the target, and the op's own layout checked (as sim) */
    if (ls_cli_attention_view(m, index, args->target, &hw, &a, &v, &diag))
        goto fail;
    int64_t roof_bytes = min_bytes(m, ma, ls_att_view_plan(v));
    double roof_us = (double)roof_bytes / (hw.dram_gbps * 1e3) + hw.launch_us;
    if (ls_att_sweep_enumerate(m, ma, &m->target, &sw, &diag))
        goto fail;
    sw.force = args->force;
    ls_cli_progress bs;
    ls_cli_progress_init(&bs, CMD, a->name, "configs", args->quiet);
    double t0 = ls_cli_now();
    ls_status st = ls_att_sweep_run(m, ma, &m->target, &hw, &sw, (int)args->jobs, progress, &bs,
                                    &diag);
    double elapsed = ls_cli_now() - t0;
    ls_cli_progress_end(&bs);
    if (st)
        goto fail;
    order = ls_xcalloc(sw.n, sizeof *order);
    size_t iree_rank = ls_att_sweep_rank(&sw, order);
    size_t ok = 0, iree = sw.n;
    for (size_t i = 0; i < sw.n; i++) {
        ok += sw.points[i].status == LS_OK;
        if (sw.points[i].is_iree)
            iree = i;
    }
    ls_out_open(&csv);
    csv_open = true;
    write_csv(csv.f, &sw, order);
    us = ls_xcalloc(ok ? ok : 1, sizeof *us);
    for (size_t k = 0; k < ok; k++)
        us[k] = sw.points[order[k]].time_us;
    char title[256], sub[256];
    snprintf(title, sizeof title, "Config sweep: %.180s on %s", a->name, hw.name);
    snprintf(sub, sizeof sub,
             "%zu config%s simulated (IREE's attention rules with other seeds), DRAM roofline "
             "%.3g us",
             ok, ls_s((long long)ok), roof_us);
    ls_viz_sweep(title, sub, us, ok, iree_rank, roof_us, &chart);
    {
        if (args->roof_path)
            roofline(a, &hw, &sw, order, ok, &roof);
        int w = ls_sweep_write_files(&csv, args->csv_path, args->chart_path, &chart,
                                     args->roof_path, &roof, args->input, &diag);
        csv_open = false;
        if (w < 0)
            goto fail;
        if (w > 0)
            goto done;
    }
    ls_out_open(&out);
    out_open = true;
    ranked rk = {order, ok, iree, iree_rank};
    print_report(out.f, a, &hw, &sw, &rk, elapsed, roof_bytes, roof_us, args);
    ls_sweep_print_wrote(out.f, args->csv_path, args->chart_path, args->roof_path);
    rc = ls_out_commit(&out, NULL);
    out_open = false;
    goto done;
fail:
    ls_cli_report(CMD, &diag);
    rc = diag.status == LS_ERR_USAGE ? 2 : 1;
done:
    if (out_open)
        ls_out_discard(&out);
    if (csv_open)
        ls_out_discard(&csv);
    ls_chart_free(&chart);
    ls_chart_free(&roof);
    free(us);
    free(order);
    ls_att_sweep_free(&sw);
    ls_att_view_free(v);
    free(a);
    return rc;
}
