/* bench_view.c: `make bench` -- how fast `lanescope view` draws a frame and
 * how much memory a view session holds.  Not a test: it measures and
 * prints.  Example 1's and example 2's (the default's) workgroup 0 on
 * mi300x at 1920x1080, every panel,
 * each frame drawn LS_BENCH_REPEAT times (default 5), median and best,
 * while the cursor sits in the middle of the workgroup's timeline (the
 * snapshot replays half of it) and at its end.  The goal (issue 13): under
 * 16 ms a frame for smooth playback and under 100 MB for the session.
 * Reads the host clock, as bench.c does; view.c never does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "lanescope/import.h"
#include "lanescope/view.h"
#include "bench_util.h"


/* Median and best of `repeat` renders of the current frame, ms. */
static void time_frame(const ls_view *v, cairo_surface_t *s, int repeat, double *med,
                       double *best)
{
    double t[99];
    for (int k = 0; k < repeat; k++) {
        cairo_t *cr = cairo_create(s);
        double t0 = now();
        ls_view_render(cr, v, 1920, 1080);
        cairo_surface_flush(s);
        t[k] = (now() - t0) * 1e3;
        cairo_destroy(cr);
    }
    qsort(t, (size_t)repeat, sizeof t[0], cmp_double);
    *med = t[repeat / 2];
    *best = t[0];
}

/* One example: open a session on workgroup 0 and time every panel. */
static int bench_example(const char *dir, const char *file, int repeat)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    ls_diag d;
    ls_diag_clear(&d);
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_derived *dv = ls_xcalloc(1, sizeof *dv);
    ls_hw hw;
    ls_plan plan;
    ls_view *v = NULL;
    int rc = 0;
    double t0 = now();
    if (ls_module_load(path, m, &d) || ls_hw_load("mi300x", &hw, &d) ||
        ls_derive(&m->problems[0], dv, &d) ||
        ls_plan_build(&m->problems[0], dv, ls_plan_target_from_arch(hw.arch), &plan, &d))
        goto fail;
    ls_view_config c = {.plan = &plan, .hw = &hw, .in = {1, NULL, {NULL}}, .width = 1920,
                        .height = 1080, .ui_scale = 1};
    if (ls_view_new(&c, &v, &d))
        goto fail;
    double t_open = now() - t0;
    ls_view_state st;
    ls_view_get_state(v, &st);
    printf("\n%s, workgroup 0 (%lld records) on %s at 1920x1080: session opened in %.2f s "
           "(the engine run the stepper records)\n",
           m->problems[0].name, (long long)st.length, hw.name, t_open);
    printf("%-16s %-8s %20s\n", "panel", "cursor", "frame-ms med (best)");
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1920, 1080);
    const char *where[2] = {"middle", "end"};
    for (int w = 0; w < 2; w++) {
        ls_view_action(v, "home", &d);
        int64_t target = w == 0 ? st.length / 2 : st.length;
        for (int64_t i = 0; i < target; i++)
            ls_view_action(v, "right", &d);
        for (int p = 0; p < LS_VIEW_PANELS; p++) {
            char key[4];
            snprintf(key, sizeof key, "%d", p + 1);
            ls_view_action(v, key, &d);
            double med, best;
            time_frame(v, s, repeat, &med, &best);
            char ms[48];
            snprintf(ms, sizeof ms, "%.2f (%.2f)", med, best);
            printf("%-16s %-8s %20s\n", ls_view_panel_name((ls_view_panel)p), where[w], ms);
        }
    }
    cairo_surface_destroy(s);
    goto done;
fail:
    fprintf(stderr, "bench_view: %s: %s\n", file, d.msg);
    rc = 1;
done:
    ls_view_free(v);
    free(m);
    free(dv);
    return rc;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "examples";
    int repeat = 5;
    const char *rep = getenv("LS_BENCH_REPEAT");
    if (rep != NULL && (repeat = atoi(rep)) < 1)
        repeat = 1;
    if (repeat > 99)
        repeat = 99;
    printf("lanescope view: %d renders per frame, median and best (goal: < 16 ms)\n", repeat);
    int rc = bench_example(dir, "seed000_example1.mlir", repeat);
    rc |= bench_example(dir, "seed000_example2.mlir", repeat);
    /* both sessions were open one after the other: the peak is the larger */
    printf("\npeak RSS of the process (a view session; goal: < 100 MB): %ld MB\n", peak_rss_mb());
    return rc;
}
