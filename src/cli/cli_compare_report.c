/* cli_compare_report.c: `lanescope compare`'s reports -- the table of
 * cases, the error figures against the targets, the JSON document,
 * the CSV that `lanescope draw compare` reads and the scatter chart.  Split
 * from cli_compare.c, which runs the cases. */
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli_compare.h"
#include "config.h"
#include "lanescope/viz.h"


/* v with prec decimals, or "n/a" when it is not defined. */
static const char *num(char *buf, size_t size, int prec, double v)
{
    if (isfinite(v))
        snprintf(buf, size, "%.*f", prec, v);
    else
        snprintf(buf, size, "n/a");
    return buf;
}

static const char *holds(bool ok)
{
    return ok ? "holds" : "does not hold";
}

/* One line saying where the measured times come from (brief: without the
 * file's own words on synthetic data, to fit under a chart). */
void ls_cmp_describe_source(char *buf, size_t size, const compare_args *a, const ls_measured *m,
                            const measurer *ms, bool brief)
{
    if (ms->gpu) {
        snprintf(buf, size, "measured here on %s (device %lld)", ms->gi->name,
                 (long long)a->device);
        return;
    }
    const char *syn = ls_measured_prov(m, "synthetic");
    const char *gpu = ls_measured_prov(m, "gpu"), *date = ls_measured_prov(m, "date");
    if (syn && brief)
        snprintf(buf, size, "%s: SYNTHETIC, not measurements", a->measured);
    else if (syn)
        snprintf(buf, size, "%s: SYNTHETIC, not measurements (%s)", a->measured, syn);
    else
        snprintf(buf, size, "%s (gpu: %s; date: %s)", a->measured, gpu ? gpu : "not stated",
                 date ? date : "not stated");
}

void ls_cmp_print_table(FILE *f, const case_result *cr, size_t n)
{
    int wn = 4, wg = 5;
    for (size_t i = 0; i < n; i++) {
        int ln = (int)strlen(cr[i].c.name), lg = (int)strlen(cr[i].c.group);
        wn = ln > wn ? ln : wn;
        wg = lg > wg ? lg : wg;
    }
    fprintf(f, "  %-*s %-*s %13s %12s %8s\n", wn, "case", wg, "group", "simulated_us",
            "measured_us", "error%");
    for (size_t i = 0; i < n; i++)
        fprintf(f, "  %-*s %-*s %13.3f %12.3f %+8.1f\n", wn, cr[i].c.name, wg,
                cr[i].c.group[0] ? cr[i].c.group : "-", cr[i].c.simulated_us, cr[i].c.measured_us,
                ls_compare_error_pct(cr[i].c.simulated_us, cr[i].c.measured_us));
}

void ls_cmp_print_figures(FILE *f, const case_result *cr, const ls_compare_summary *s)
{
    char b1[32], b2[32], b3[32];
    fprintf(f, "errors, error = (simulated - measured) / measured, over %zu cases:\n", s->n);
    fprintf(f,
            "  mean |error|      %6.1f%%  (mean signed error %+.1f%%: the simulator is %s on "
            "average)\n",
            s->mean_abs_pct, s->mean_signed_pct, s->mean_signed_pct > 0 ? "slower" : "faster");
    fprintf(f, "  worst |error|     %6.1f%%  (%s)\n", s->max_abs_pct, cr[s->worst].c.name);
    fprintf(f, "  90th percentile   %6.1f%%  of |error| (linear between order statistics)\n",
            s->p90_abs_pct);
    fprintf(f, "  Pearson r         %s over log10 times, %s over the times themselves\n",
            num(b1, sizeof b1, 3, s->pearson_log), num(b2, sizeof b2, 3, s->pearson_lin));
    if (s->n_groups > 0) {
        int wg = 5;
        for (size_t g = 0; g < s->n_groups; g++) {
            int l = (int)strlen(s->groups[g].name);
            wg = l > wg ? l : wg;
        }
        fprintf(f, "ranking within groups (simulated order vs measured order):\n");
        fprintf(f, "  %-*s %5s %13s %14s\n", wg, "group", "cases", "Spearman rho", "Kendall tau-b");
        for (size_t g = 0; g < s->n_groups; g++) {
            const ls_compare_group *gr = &s->groups[g];
            fprintf(f, "  %-*s %5zu %13s %14s%s\n", wg, gr->name, gr->n,
                    num(b1, sizeof b1, 3, gr->spearman), num(b2, sizeof b2, 3, gr->kendall),
                    gr->n < 2            ? "  (one case: nothing to rank)"
                    : isnan(gr->kendall) ? "  (all tied)"
                                         : "");
        }
        fprintf(f, "  mean Kendall tau-b over %zu group%s: %s\n", s->n_tau,
                s->n_tau == 1 ? "" : "s", num(b3, sizeof b3, 3, s->mean_tau));
    }
    fprintf(f, "targets (issue 11):\n");
    fprintf(f, "  mean |error| < %.0f%%                   %6.1f%%  %s\n",
            LS_COMPARE_TARGET_MEAN_PCT, s->mean_abs_pct, holds(s->mean_ok));
    fprintf(f, "  worst |error| < %.0f%%                  %6.1f%%  %s\n",
            LS_COMPARE_TARGET_WORST_PCT, s->max_abs_pct, holds(s->worst_ok));
    if (s->n_ranked == 0)
        fprintf(f, "  Kendall tau-b > %.1f in every group     no group of 2+ cases: %s\n",
                LS_COMPARE_TARGET_TAU, holds(false));
    else
        fprintf(f, "  Kendall tau-b > %.1f in every group   min %s (%s)  %s\n",
                LS_COMPARE_TARGET_TAU, num(b1, sizeof b1, 3, s->min_tau),
                s->n_tau < s->n_ranked ? "a group is all tied" : s->groups[s->min_tau_group].name,
                holds(s->tau_ok));
}

static json_object *jnum(double v)
{
    return isfinite(v) ? json_object_new_double(v) : NULL;
}

static json_object *json_targets(const ls_compare_summary *s)
{
    json_object *t = json_object_new_array();
    const char *names[3] = {"mean_abs_error_pct_below", "worst_abs_error_pct_below",
                            "kendall_tau_b_in_every_group_above"};
    double limit[3] = {LS_COMPARE_TARGET_MEAN_PCT, LS_COMPARE_TARGET_WORST_PCT,
                       LS_COMPARE_TARGET_TAU};
    double value[3] = {s->mean_abs_pct, s->max_abs_pct, s->n_tau ? s->min_tau : NAN};
    bool ok[3] = {s->mean_ok, s->worst_ok, s->tau_ok};
    for (int k = 0; k < 3; k++) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "target", json_object_new_string(names[k]));
        json_object_object_add(o, "limit", json_object_new_double(limit[k]));
        json_object_object_add(o, "value", jnum(value[k]));
        json_object_object_add(o, "holds", json_object_new_boolean(ok[k]));
        json_object_array_add(t, o);
    }
    return t;
}

static json_object *json_cases(const case_result *cr, size_t n)
{
    json_object *arr = json_object_new_array();
    for (size_t i = 0; i < n; i++) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "name", json_object_new_string(cr[i].c.name));
        json_object_object_add(o, "group",
                               cr[i].c.group[0] ? json_object_new_string(cr[i].c.group) : NULL);
        json_object_object_add(o, "file", json_object_new_string(cr[i].sc->path));
        json_object_object_add(o, "note", json_object_new_string(cr[i].sc->note));
        json_object_object_add(o, "op", json_object_new_string(cr[i].op));
        json_object_object_add(o, "reduction", cr[i].sc->reduction
                                                   ? json_object_new_int(cr[i].sc->reduction)
                                                   : NULL);
        json_object_object_add(o, "kernel",
                               json_object_new_string(cr[i].sc->dispatch ? "dispatch" : "reduction"));
        json_object_object_add(o, "config_source",
                               json_object_new_string(cr[i].suggested ? "iree-default" : "input"));
        json_object_object_add(o, "simulated_cycles", json_object_new_int64(cr[i].cycles));
        json_object_object_add(o, "simulated_us", json_object_new_double(cr[i].c.simulated_us));
        json_object_object_add(o, "measured_us", json_object_new_double(cr[i].c.measured_us));
        json_object_object_add(o, "error_pct",
                               json_object_new_double(ls_compare_error_pct(cr[i].c.simulated_us,
                                                                           cr[i].c.measured_us)));
        json_object_array_add(arr, o);
    }
    return arr;
}

json_object *ls_cmp_json_report(const compare_args *a, const ls_hw *hw, const ls_measured *m,
                                const char *source, const case_result *cr,
                                const ls_compare_summary *s, json_object *skipped)
{
    json_object *o = ls_cli_json_root("compare");
    json_object_object_add(o, "suite", json_object_new_string(a->suite));
    json_object_object_add(o, "model", json_object_new_string(hw->name));
    json_object_object_add(o, "arch", json_object_new_string(hw->arch));
    json_object *ms = json_object_new_object();
    json_object_object_add(ms, "source", json_object_new_string(source));
    json_object_object_add(ms, "synthetic",
                           json_object_new_boolean(ls_measured_prov(m, "synthetic") != NULL));
    json_object *prov = json_object_new_object();
    for (int k = 0; k < m->n_prov; k++)
        json_object_object_add(prov, m->prov[k].key, json_object_new_string(m->prov[k].value));
    json_object_object_add(ms, "provenance", prov);
    json_object_object_add(o, "measured", ms);
    json_object_object_add(o, "error_definition",
                           json_object_new_string("(simulated - measured) / measured"));
    json_object_object_add(o, "cases", json_cases(cr, s->n));
    json_object_object_add(o, "skipped", skipped);
    json_object *e = json_object_new_object();
    json_object_object_add(e, "mean_abs_pct", jnum(s->mean_abs_pct));
    json_object_object_add(e, "max_abs_pct", jnum(s->max_abs_pct));
    json_object_object_add(e, "worst_case", json_object_new_string(cr[s->worst].c.name));
    json_object_object_add(e, "p90_abs_pct", jnum(s->p90_abs_pct));
    json_object_object_add(e, "mean_signed_pct", jnum(s->mean_signed_pct));
    json_object_object_add(e, "pearson_r_log10_times", jnum(s->pearson_log));
    json_object_object_add(e, "pearson_r_times", jnum(s->pearson_lin));
    json_object_object_add(o, "errors", e);
    json_object *groups = json_object_new_array();
    for (size_t g = 0; g < s->n_groups; g++) {
        json_object *j = json_object_new_object();
        json_object_object_add(j, "name", json_object_new_string(s->groups[g].name));
        json_object_object_add(j, "cases", json_object_new_int64((int64_t)s->groups[g].n));
        json_object_object_add(j, "spearman_rho", jnum(s->groups[g].spearman));
        json_object_object_add(j, "kendall_tau_b", jnum(s->groups[g].kendall));
        json_object_array_add(groups, j);
    }
    json_object_object_add(o, "groups", groups);
    json_object_object_add(o, "mean_kendall_tau_b", jnum(s->mean_tau));
    json_object_object_add(o, "targets", json_targets(s));
    return o;
}

/* name,measured_us,simulated_us as `lanescope draw compare` reads it; its
 * reader takes exactly three fields, so the groups travel in comments. */
void ls_cmp_write_draw_csv(FILE *f, const compare_args *a, const ls_hw *hw, const char *source,
                           const case_result *cr, size_t n)
{
    fprintf(f, "# lanescope compare %.300s: simulated on %s (%s) vs %.500s\n", a->suite, hw->name,
            hw->arch, source);
    fprintf(f, "# times in microseconds; '# group G' comments head each run of a group's rows\n");
    fprintf(f, "name,measured_us,simulated_us\n");
    const char *prev = NULL;
    for (size_t i = 0; i < n; i++) {
        if (prev == NULL || strcmp(prev, cr[i].c.group) != 0)
            fprintf(f, "# group %s\n", cr[i].c.group[0] ? cr[i].c.group : "(none)");
        prev = cr[i].c.group;
        fprintf(f, "%s,%.6g,%.6g\n", cr[i].c.name, cr[i].c.measured_us, cr[i].c.simulated_us);
    }
}

ls_status ls_cmp_draw_chart(const compare_args *a, const ls_hw *hw, const char *brief_source,
                            const case_result *cr, const ls_compare_summary *s, ls_diag *diag)
{
    ls_chart ch;
    memset(&ch, 0, sizeof ch);
    ch.kind = LS_CHART_COMPARE;
    ch.points = ls_xcalloc(s->n, sizeof *ch.points);
    ch.n_points = s->n;
    for (size_t i = 0; i < s->n; i++) {
        snprintf(ch.points[i].name, sizeof ch.points[i].name, "%s", cr[i].c.name);
        ch.points[i].measured = cr[i].c.measured_us;
        ch.points[i].simulated = cr[i].c.simulated_us;
    }
    const char *base = strrchr(a->suite, '/');
    char b1[32], b2[32];
    snprintf(ch.title, sizeof ch.title, "simulated (%s) vs measured: %s", hw->name,
             base ? base + 1 : a->suite);
    snprintf(ch.subtitle, sizeof ch.subtitle,
             "%zu kernels; |error| mean %.1f%%, 90th percentile %.1f%%, worst %.1f%%; mean "
             "Kendall tau-b %s",
             s->n, s->mean_abs_pct, s->p90_abs_pct, s->max_abs_pct,
             num(b1, sizeof b1, 2, s->mean_tau));
    /* the source and its GPU on lines of their own: together they pass the
     * chart's width */
    const char *gpu = strstr(brief_source, " (gpu: ");
    int path_len = gpu ? (int)(gpu - brief_source) : (int)strlen(brief_source);
    snprintf(ch.notes[ch.n_notes++], sizeof ch.notes[0], "measured: %.*s",
             path_len < 120 ? path_len : 120, brief_source);
    if (gpu) {
        size_t n = strlen(gpu + 2);
        snprintf(ch.notes[ch.n_notes++], sizeof ch.notes[0], "%.*s",
                 (int)(n > 0 && gpu[2 + n - 1] == ')' ? n - 1 : n), gpu + 2);
    }
    snprintf(ch.notes[ch.n_notes++], sizeof ch.notes[0],
             "error = (simulated - measured) / measured; bands: +-10%% and +-25%% around y = x");
    snprintf(ch.notes[ch.n_notes++], sizeof ch.notes[0],
             "worst: %.60s (%+.1f%%); Pearson r %s over log10 times; Kendall tau-b over %zu "
             "groups",
             cr[s->worst].c.name,
             ls_compare_error_pct(cr[s->worst].c.simulated_us, cr[s->worst].c.measured_us),
             num(b2, sizeof b2, 3, s->pearson_log), s->n_tau);
    snprintf(ch.notes[ch.n_notes++], sizeof ch.notes[0],
             "targets: mean |error| < 10%% %s; worst < 25%% %s; Kendall tau-b > 0.8 in every "
             "group %s",
             holds(s->mean_ok), holds(s->worst_ok), holds(s->tau_ok));
    ls_export_opts eo = {a->suite, "compare", 2.0, NULL};
    ls_status st = ls_viz_export(a->chart, NULL, &ch, &eo, diag);
    ls_chart_free(&ch);
    ls_viz_shutdown();
    return st;
}
