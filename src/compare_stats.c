/* compare_stats.c: the error figures and rank agreement of a comparison
 * (see compare.h): mean/percentile, Pearson, ranks with ties, Spearman,
 * Kendall tau-b, and the per-suite and per-group summary. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "lanescope/arena.h"
#include "lanescope/compare.h"

/* ------------------------------------------------------------ statistics */

double ls_stat_mean(const double *x, size_t n)
{
    if (n == 0)
        return NAN;
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    return s / (double)n;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double ls_stat_percentile(const double *x, size_t n, double p)
{
    if (n == 0 || !(p >= 0 && p <= 1))
        return NAN;
    double *v = ls_xmalloc(n * sizeof *v);
    memcpy(v, x, n * sizeof *v);
    qsort(v, n, sizeof *v, cmp_double);
    double h = p * (double)(n - 1);
    size_t lo = (size_t)floor(h);
    double r = lo + 1 < n ? v[lo] + (h - (double)lo) * (v[lo + 1] - v[lo]) : v[lo];
    free(v);
    return r;
}

double ls_stat_pearson(const double *x, const double *y, size_t n)
{
    if (n < 2)
        return NAN;
    double mx = ls_stat_mean(x, n), my = ls_stat_mean(y, n);
    double sxy = 0, sxx = 0, syy = 0;
    for (size_t i = 0; i < n; i++) {
        double dx = x[i] - mx, dy = y[i] - my;
        sxy += dx * dy;
        sxx += dx * dx;
        syy += dy * dy;
    }
    if (sxx == 0 || syy == 0)
        return NAN;
    double r = sxy / sqrt(sxx * syy);
    return r > 1 ? 1 : r < -1 ? -1 : r; /* rounding can step just outside */
}

typedef struct {
    double v;
    size_t i;
} ranked;

static int cmp_ranked(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->v != y->v)
        return (x->v > y->v) - (x->v < y->v);
    return (x->i > y->i) - (x->i < y->i);
}

void ls_stat_ranks(const double *x, size_t n, double *rank)
{
    ranked *r = ls_xmalloc((n ? n : 1) * sizeof *r);
    for (size_t i = 0; i < n; i++) {
        r[i].v = x[i];
        r[i].i = i;
    }
    qsort(r, n, sizeof *r, cmp_ranked);
    for (size_t a = 0; a < n;) {
        size_t b = a;
        while (b + 1 < n && r[b + 1].v == r[a].v)
            b++;
        double mean = (double)(a + b) / 2 + 1; /* ranks a+1 .. b+1 */
        for (size_t k = a; k <= b; k++)
            rank[r[k].i] = mean;
        a = b + 1;
    }
    free(r);
}

double ls_stat_spearman(const double *x, const double *y, size_t n)
{
    if (n < 2)
        return NAN;
    double *rx = ls_xmalloc(n * sizeof *rx), *ry = ls_xmalloc(n * sizeof *ry);
    ls_stat_ranks(x, n, rx);
    ls_stat_ranks(y, n, ry);
    double r = ls_stat_pearson(rx, ry, n);
    free(rx);
    free(ry);
    return r;
}

double ls_stat_kendall_tau_b(const double *x, const double *y, size_t n)
{
    /* Counted pair by pair: O(n^2), fine for groups of configs (Knight's
     * O(n log n) merge sort pays off only in the thousands). */
    double conc = 0, disc = 0, tx = 0, ty = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            int sx = (x[i] < x[j]) - (x[i] > x[j]), sy = (y[i] < y[j]) - (y[i] > y[j]);
            if (sx == 0 && sy == 0)
                continue; /* tied in both: in neither count */
            if (sx == 0)
                tx++;
            else if (sy == 0)
                ty++;
            else if (sx == sy)
                conc++;
            else
                disc++;
        }
    double den = sqrt((conc + disc + ty) * (conc + disc + tx));
    return den > 0 ? (conc - disc) / den : NAN;
}

/* ------------------------------------------------------------ a comparison */

double ls_compare_error_pct(double simulated_us, double measured_us)
{
    return 100.0 * (simulated_us - measured_us) / measured_us;
}

static size_t group_index(ls_compare_summary *s, const char *name)
{
    for (size_t g = 0; g < s->n_groups; g++)
        if (strcmp(s->groups[g].name, name) == 0)
            return g;
    s->groups = ls_xrealloc(s->groups, (s->n_groups + 1) * sizeof *s->groups);
    ls_compare_group *g = &s->groups[s->n_groups];
    memset(g, 0, sizeof *g);
    snprintf(g->name, sizeof g->name, "%s", name);
    return s->n_groups++;
}

/* Rank agreement within each group, and the tau figures over groups. */
static void group_figures(const ls_compare_case *c, size_t n, ls_compare_summary *s)
{
    size_t *of = ls_xmalloc(n * sizeof *of);
    for (size_t i = 0; i < n; i++)
        of[i] = c[i].group[0] ? group_index(s, c[i].group) : SIZE_MAX;
    double *sx = ls_xmalloc(n * sizeof *sx), *my = ls_xmalloc(n * sizeof *my);
    double tau_sum = 0;
    s->min_tau = NAN;
    s->min_tau_group = SIZE_MAX;
    for (size_t g = 0; g < s->n_groups; g++) {
        ls_compare_group *gr = &s->groups[g];
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            if (of[i] == g) {
                sx[k] = c[i].simulated_us;
                my[k++] = c[i].measured_us;
            }
        gr->n = k;
        gr->spearman = ls_stat_spearman(sx, my, k);
        gr->kendall = k >= 2 ? ls_stat_kendall_tau_b(sx, my, k) : NAN;
        if (k < 2)
            continue;
        s->n_ranked++;
        if (isnan(gr->kendall))
            continue;
        s->n_tau++;
        tau_sum += gr->kendall;
        if (s->min_tau_group == SIZE_MAX || gr->kendall < s->min_tau) {
            s->min_tau = gr->kendall;
            s->min_tau_group = g;
        }
    }
    s->mean_tau = s->n_tau ? tau_sum / (double)s->n_tau : NAN;
    free(of);
    free(sx);
    free(my);
}

ls_status ls_compare_summarize(const ls_compare_case *c, size_t n, ls_compare_summary *s,
                               ls_diag *diag)
{
    memset(s, 0, sizeof *s);
    if (n == 0)
        return ls_diag_set(diag, LS_ERR_INVALID, "", 0, 0, "no cases to compare");
    for (size_t i = 0; i < n; i++)
        if (!(isfinite(c[i].simulated_us) && c[i].simulated_us > 0 && isfinite(c[i].measured_us) &&
              c[i].measured_us > 0))
            return ls_diag_set(diag, LS_ERR_INVALID, "", 0, 0,
                               "%s: times must be positive (simulated %g us, measured %g us)",
                               c[i].name, c[i].simulated_us, c[i].measured_us);
    s->n = n;
    double *abs_err = ls_xmalloc(n * sizeof *abs_err),
           *signed_err = ls_xmalloc(n * sizeof *abs_err);
    double *ls = ls_xmalloc(n * sizeof *ls), *lm = ls_xmalloc(n * sizeof *lm);
    double *ps = ls_xmalloc(n * sizeof *ps), *pm = ls_xmalloc(n * sizeof *pm);
    for (size_t i = 0; i < n; i++) {
        signed_err[i] = ls_compare_error_pct(c[i].simulated_us, c[i].measured_us);
        abs_err[i] = fabs(signed_err[i]);
        if (i == 0 || abs_err[i] > s->max_abs_pct) {
            s->max_abs_pct = abs_err[i];
            s->worst = i;
        }
        ps[i] = c[i].simulated_us;
        pm[i] = c[i].measured_us;
        ls[i] = log10(ps[i]);
        lm[i] = log10(pm[i]);
    }
    s->mean_abs_pct = ls_stat_mean(abs_err, n);
    s->mean_signed_pct = ls_stat_mean(signed_err, n);
    s->p90_abs_pct = ls_stat_percentile(abs_err, n, 0.9);
    s->pearson_log = ls_stat_pearson(ls, lm, n);
    s->pearson_lin = ls_stat_pearson(ps, pm, n);
    group_figures(c, n, s);
    s->mean_ok = s->mean_abs_pct < LS_COMPARE_TARGET_MEAN_PCT;
    s->worst_ok = s->max_abs_pct < LS_COMPARE_TARGET_WORST_PCT;
    s->tau_ok = s->n_ranked > 0 && s->n_tau == s->n_ranked && s->min_tau > LS_COMPARE_TARGET_TAU;
    free(abs_err);
    free(signed_err);
    free(ls);
    free(lm);
    free(ps);
    free(pm);
    return LS_OK;
}

void ls_compare_summary_free(ls_compare_summary *s)
{
    if (s == NULL)
        return;
    free(s->groups);
    s->groups = NULL;
    s->n_groups = 0;
}
